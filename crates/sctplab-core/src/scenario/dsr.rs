//! `[wireless.dsr]`: the constants of ns-2.35's `Agent/DSRAgent` (dsr/dsragent.cc,
//! dsragent.h, mobicache.cc, requesttable.h), read when `[wireless] routing = "dsr"`
//! (docs/scenario.md, docs/models/wireless.md).

use super::error::ScenarioError;
use super::load::Scenario;
use super::units::Duration;
use crate::wireless::dsr::{DsrCfg, HeaderSizes};
use serde::Deserialize;

/// `header_sizes`: which sizes DSR's headers are charged.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HeaderSizesSchema {
    /// ns-2.35's `hdr_sr::size()`.
    Ns2,
    /// RFC 4728 section 6's option layouts.
    Rfc4728,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct DsrSchema {
    /// `MobiCache` primary cache (30).
    pub primary_cache_size: usize,
    /// `MobiCache` secondary cache (64).
    pub secondary_cache_size: usize,
    /// `RequestTable` entries (128).
    pub request_table_size: usize,
    /// `SEND_BUF_SIZE` (64).
    pub send_buffer_size: usize,
    /// `SEND_TIMEOUT` (30 s).
    pub send_timeout: Duration,
    /// `BUFFER_CHECK` (30 ms).
    pub buffer_check: Duration,
    /// `rt_rq_period` (0.5 s).
    pub request_period: Duration,
    /// `rt_rq_max_period` (10 s).
    pub max_request_period: Duration,
    /// `arp_timeout` (30 ms).
    pub nonprop_request_timeout: Duration,
    /// `RREQ_JITTER` (10 ms).
    pub request_jitter: Duration,
    /// `grat_hold_down_time` (1 s).
    pub grat_reply_holddown: Duration,
    /// `max_err_hold` (1 s).
    pub max_error_hold: Duration,
    /// `dsr_salvage_max_attempts` (15).
    pub salvage_max_attempts: u8,
    /// `dsr_salvage_max_requests` (1).
    pub salvage_max_requests: u32,
    /// `dsragent_ring_zero_search`.
    pub ring_zero_search: bool,
    /// `dsragent_reply_from_cache_on_propagating`.
    pub reply_from_cache: bool,
    /// `dsragent_use_tap`.
    pub use_tap: bool,
    /// `dsragent_send_grat_replies`.
    pub gratuitous_replies: bool,
    /// `dsragent_salvage_with_cache`.
    pub salvage_with_cache: bool,
    pub header_sizes: HeaderSizesSchema,
    /// The jitters drawn (false: zero).
    pub randomize: bool,
}

impl Default for DsrSchema {
    fn default() -> Self {
        let c = DsrCfg::ns2();
        DsrSchema {
            primary_cache_size: c.primary_cache_size,
            secondary_cache_size: c.secondary_cache_size,
            request_table_size: c.request_table_size,
            send_buffer_size: c.send_buffer_size,
            send_timeout: Duration(c.send_timeout),
            buffer_check: Duration(c.buffer_check),
            request_period: Duration(c.request_period),
            max_request_period: Duration(c.max_request_period),
            nonprop_request_timeout: Duration(c.nonprop_request_timeout),
            request_jitter: Duration(c.request_jitter),
            grat_reply_holddown: Duration(c.grat_reply_holddown),
            max_error_hold: Duration(c.max_error_hold),
            salvage_max_attempts: c.salvage_max_attempts,
            salvage_max_requests: c.salvage_max_requests,
            ring_zero_search: c.ring_zero_search,
            reply_from_cache: c.reply_from_cache,
            use_tap: c.use_tap,
            gratuitous_replies: c.gratuitous_replies,
            salvage_with_cache: c.salvage_with_cache,
            header_sizes: match c.header_sizes {
                HeaderSizes::Ns2 => HeaderSizesSchema::Ns2,
                HeaderSizes::Rfc4728 => HeaderSizesSchema::Rfc4728,
            },
            randomize: c.randomize,
        }
    }
}

impl DsrSchema {
    pub fn cfg(&self) -> DsrCfg {
        DsrCfg {
            primary_cache_size: self.primary_cache_size,
            secondary_cache_size: self.secondary_cache_size,
            request_table_size: self.request_table_size,
            send_buffer_size: self.send_buffer_size,
            send_timeout: self.send_timeout.0,
            buffer_check: self.buffer_check.0,
            request_period: self.request_period.0,
            max_request_period: self.max_request_period.0,
            nonprop_request_timeout: self.nonprop_request_timeout.0,
            request_jitter: self.request_jitter.0,
            grat_reply_holddown: self.grat_reply_holddown.0,
            max_error_hold: self.max_error_hold.0,
            salvage_max_attempts: self.salvage_max_attempts,
            salvage_max_requests: self.salvage_max_requests,
            ring_zero_search: self.ring_zero_search,
            reply_from_cache: self.reply_from_cache,
            use_tap: self.use_tap,
            gratuitous_replies: self.gratuitous_replies,
            salvage_with_cache: self.salvage_with_cache,
            header_sizes: match self.header_sizes {
                HeaderSizesSchema::Ns2 => HeaderSizes::Ns2,
                HeaderSizesSchema::Rfc4728 => HeaderSizes::Rfc4728,
            },
            randomize: self.randomize,
        }
    }
}

/// Values valid in type but not in effect (`DsrCfg::check`): a cache, table or buffer
/// of no slots, a send buffer checked every 0 s (a check re-arming itself at the instant
/// it fires).
pub(super) fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let Some(w) = &s.file.wireless else {
        return Ok(());
    };
    match w.dsr.cfg().check() {
        Ok(()) => Ok(()),
        Err((key, expected)) => Err(ScenarioError::new(
            source,
            format!("wireless.dsr.{key}"),
            format!("must be {expected}"),
        )),
    }
}
