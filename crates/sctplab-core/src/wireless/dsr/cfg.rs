//! The DSR agent's constants (ns-2.35's values) and counters.

use super::header::HeaderSizes;
use crate::sim::SimDuration;

/// The constants of ns-2.35's `Agent/DSRAgent`: the globals and `#define`s of
/// dsragent.cc, dsragent.h and mobicache.cc (none is a Tcl-bound variable there).
#[derive(Clone, Debug, PartialEq)]
pub struct DsrCfg {
    /// Primary route cache slots (`MobiCache`: 30).
    pub primary_cache_size: usize,
    /// Secondary route cache slots (`MobiCache`: 64).
    pub secondary_cache_size: usize,
    /// Request table entries (`request_table(128)`).
    pub request_table_size: usize,
    /// Send buffer slots (`SEND_BUF_SIZE`, 64); the oldest packet is dropped beyond it.
    pub send_buffer_size: usize,
    /// How long a packet may wait in the send buffer (`SEND_TIMEOUT`, 30 s).
    pub send_timeout: SimDuration,
    /// The send buffer is checked every `U(1, 2) * buffer_check` (`BUFFER_CHECK`,
    /// 30 ms).
    pub buffer_check: SimDuration,
    /// The first backoff period between requests for one destination
    /// (`rt_rq_period`, 0.5 s); it grows 4-fold per request outstanding.
    pub request_period: SimDuration,
    /// The longest backoff (`rt_rq_max_period`, 10 s).
    pub max_request_period: SimDuration,
    /// How long a ring-zero request waits for a reply before a propagating one
    /// (`arp_timeout`, 30 ms); also the spacing of packets released together.
    pub nonprop_request_timeout: SimDuration,
    /// Route requests (and a target's replies) wait `U(0, request_jitter)`
    /// (`RREQ_JITTER`, 10 ms).
    pub request_jitter: SimDuration,
    /// Minimum time between gratuitous replies for one route (`grat_hold_down_time`,
    /// 1 s).
    pub grat_reply_holddown: SimDuration,
    /// A route error heard rides on the next request only this long (`max_err_hold`,
    /// 1 s).
    pub max_error_hold: SimDuration,
    /// A packet is salvaged at most this often (`dsr_salvage_max_attempts`, 15).
    pub salvage_max_attempts: u8,
    /// Route requests a node may send for a salvaged packet it did not originate
    /// (`dsr_salvage_max_requests`, 1).
    pub salvage_max_requests: u32,
    /// Start every discovery with a non-propagating request (`dsragent_ring_zero_search`).
    pub ring_zero_search: bool,
    /// Answer requests from the cache (`dsragent_reply_from_cache_on_propagating`).
    pub reply_from_cache: bool,
    /// Listen promiscuously (`dsragent_use_tap`).
    pub use_tap: bool,
    /// Send gratuitous replies to shorten routes (`dsragent_send_grat_replies`).
    pub gratuitous_replies: bool,
    /// Salvage packets with a cached route on a link failure
    /// (`dsragent_salvage_with_cache`).
    pub salvage_with_cache: bool,
    /// Header sizes: ns-2.35's or RFC 4728's.
    pub header_sizes: HeaderSizes,
    /// Whether the jitters are drawn (off: zero, for hand-derived tests).
    pub randomize: bool,
}

impl DsrCfg {
    pub fn ns2() -> Self {
        DsrCfg {
            primary_cache_size: 30,
            secondary_cache_size: 64,
            request_table_size: 128,
            send_buffer_size: 64,
            send_timeout: SimDuration::from_secs(30),
            buffer_check: SimDuration::from_millis(30),
            request_period: SimDuration::from_millis(500),
            max_request_period: SimDuration::from_secs(10),
            nonprop_request_timeout: SimDuration::from_millis(30),
            request_jitter: SimDuration::from_millis(10),
            grat_reply_holddown: SimDuration::from_secs(1),
            max_error_hold: SimDuration::from_secs(1),
            salvage_max_attempts: 15,
            salvage_max_requests: 1,
            ring_zero_search: true,
            reply_from_cache: true,
            use_tap: true,
            gratuitous_replies: true,
            salvage_with_cache: true,
            header_sizes: HeaderSizes::Ns2,
            randomize: true,
        }
    }

    /// The first key whose value cannot work, with what it needs.
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        let positive = "an integer of at least 1";
        if self.primary_cache_size == 0 {
            return Err(("primary_cache_size", positive));
        }
        if self.secondary_cache_size == 0 {
            return Err(("secondary_cache_size", positive));
        }
        if self.request_table_size == 0 {
            return Err(("request_table_size", positive));
        }
        if self.send_buffer_size == 0 {
            return Err(("send_buffer_size", positive));
        }
        if self.buffer_check == SimDuration::ZERO {
            return Err(("buffer_check", "a duration above 0"));
        }
        Ok(())
    }
}

impl Default for DsrCfg {
    fn default() -> Self {
        DsrCfg::ns2()
    }
}

/// What one DSR agent did over a run (summary.json `nodes.<name>.routing`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DsrCounters {
    /// Discoveries' requests this node originated: ring-zero and propagating.
    pub requests_ring_zero: u64,
    pub requests_propagating: u64,
    pub requests_forwarded: u64,
    /// Replies sent as a request's target, from the cache, and gratuitous ones.
    pub replies_sent: u64,
    pub cache_replies_sent: u64,
    pub grat_replies_sent: u64,
    pub replies_received: u64,
    pub errors_sent: u64,
    /// Link failures the MAC reported.
    pub link_failures: u64,
    /// Packets sent on with a cached route after a link failure.
    pub salvaged: u64,
    /// Packets put into the send buffer.
    pub packets_buffered: u64,
    /// Overheard packets the tap processed.
    pub tapped: u64,
    pub drop_no_route: u64,
    pub drop_send_timeout: u64,
    pub drop_send_buffer_full: u64,
    pub drop_salvage_limit: u64,
    pub drop_ttl: u64,
    pub drop_bad_route: u64,
}
