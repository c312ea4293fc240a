//! `type = "sctp"` flows.

use super::{CongestionControl, default_message_size, default_rto_max, yes};
use crate::scenario::units::{Duration, Size};
use serde::Deserialize;

/// SCTP congestion-control presets (docs/models/sctp.md).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SctpVariant {
    Original,
    Newreno,
    NewrenoStar,
    #[serde(rename = "newreno-2star")]
    Newreno2Star,
    Rfc4960,
    Rfc9260,
    Ns2,
    Usrsctp,
}

/// How Max.Burst limits a burst.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MaxBurstRule {
    Off,
    /// Implementer's guide v7 (seed 002 sec. 2.1): before sending new data,
    /// cwnd = min(cwnd, outstanding + max_burst * MTU).
    Guide,
    /// RFC 4960 sec. 6.1 / RFC 9260 sec. 6.1: at most `max_burst` packets per send
    /// opportunity.
    Packets,
    /// ns-2.35: at most `max_burst` packets in answer to a SACK that acknowledges a
    /// retransmitted chunk.
    Ns2,
}

/// Which text's cwnd growth rules apply (RFC 4960 / RFC 9260 sec. 7.2.1 and 7.2.2).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GrowthRule {
    /// RFC 4960 with the Implementer's Guide, as ns-2.35 codes it: cwnd grows only on a
    /// SACK that advances the cumulative ack; partial_bytes_acked counts cumulatively
    /// acked chunks while cwnd is full and gap-acked ones only on such a SACK.
    Rfc4960,
    /// RFC 9260 (RFC 8540 sec. 3.22, 3.26): every SACK that newly acknowledges data may
    /// grow cwnd; partial_bytes_acked counts every newly acked chunk and is reset to cwnd
    /// when it exceeds cwnd while the flight was below cwnd.
    Rfc9260,
}

/// Initial cwnd: a number of MTUs (`1`, `2.5`) or a size (`"4380B"`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum InitialCwnd {
    Mtus(f64),
    Bytes(Size),
}

/// An SCTP association: a client that sends data and a server that receives it.
/// Every knob left out takes the variant's value (docs/models/sctp.md).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SctpCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    /// The receiver's interface new data goes to first, `"<node>:<iface>"`.
    #[serde(default)]
    pub primary: Option<String>,
    pub variant: SctpVariant,
    /// ECN-capable: DATA packets leave as ECT(0) (RFC 9260 appendix A).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub bytes: Option<Size>,
    /// Application message size; larger messages are fragmented into several chunks.
    #[serde(default = "default_message_size")]
    pub message_size: Size,
    #[serde(default = "default_mtu")]
    pub mtu: Size,
    #[serde(default = "one_stream")]
    pub streams: u16,
    #[serde(default)]
    pub unordered: bool,
    /// The receiver's buffer: a_rwnd = receive_buffer - bytes held.
    #[serde(default = "default_receive_buffer")]
    pub receive_buffer: Size,
    #[serde(default)]
    pub initial_ssthresh: Option<Size>,
    #[serde(default = "yes")]
    pub delayed_sack: bool,
    #[serde(default = "default_delayed_ack_timeout")]
    pub sack_delay: Duration,
    /// Absent: the variant's RTO.Initial (`sctp::config::rto_initial_secs`).
    #[serde(default)]
    pub rto_initial: Option<Duration>,
    #[serde(default = "default_sctp_rto_min")]
    pub rto_min: Duration,
    #[serde(default = "default_rto_max")]
    pub rto_max: Duration,
    #[serde(default = "yes")]
    pub heartbeat: bool,
    #[serde(default = "default_heartbeat_interval")]
    pub heartbeat_interval: Duration,
    #[serde(default = "default_cookie_lifetime")]
    pub cookie_lifetime: Duration,
    #[serde(default = "default_association_max_retrans")]
    pub association_max_retrans: u32,
    #[serde(default = "default_path_max_retrans")]
    pub path_max_retrans: u32,
    // Multihoming knobs; absent = the variant's value.
    #[serde(default)]
    pub pf_max_retrans: Option<u32>,
    #[serde(default)]
    pub retransmit_to_alternate: Option<bool>,
    #[serde(default)]
    pub fast_rtx_to_alternate: Option<bool>,
    #[serde(default)]
    pub return_to_primary: Option<bool>,
    // Congestion-control knobs; absent = the variant's value.
    #[serde(default)]
    pub fast_rtx_threshold: Option<u32>,
    #[serde(default)]
    pub fast_recovery: Option<bool>,
    #[serde(default)]
    pub cwnd_growth_in_recovery: Option<bool>,
    #[serde(default)]
    pub modified_htna: Option<bool>,
    #[serde(default)]
    pub slow_start_at_ssthresh: Option<bool>,
    #[serde(default)]
    pub cwnd_whole_mtus: Option<bool>,
    #[serde(default)]
    pub ssthresh_floor_mtus: Option<u32>,
    #[serde(default)]
    pub max_burst: Option<u32>,
    #[serde(default)]
    pub max_burst_rule: Option<MaxBurstRule>,
    #[serde(default)]
    pub initial_cwnd: Option<InitialCwnd>,
    #[serde(default)]
    pub heartbeat_before_data: Option<bool>,
    #[serde(default)]
    pub growth_rule: Option<GrowthRule>,
    #[serde(default)]
    pub fast_recovery_miss_reports: Option<bool>,
    #[serde(default)]
    pub t3_ssthresh_every_expiry: Option<bool>,
    #[serde(default)]
    pub t3_exits_fast_recovery: Option<bool>,
    /// ns-2.35's `Agent/SCTP/MultipleFastRtx`; `fast_rtx_repeat` is its older name.
    #[serde(default, alias = "fast_rtx_repeat")]
    pub multiple_fast_rtx: Option<bool>,
    #[serde(default)]
    pub fast_rtx_ignores_cwnd_in_recovery: Option<bool>,
    #[serde(default)]
    pub idle_cwnd_decay: Option<bool>,
    #[serde(default)]
    pub sack_on_rwnd_drop: Option<bool>,
    /// The window's controller per destination; loss recovery stays `variant`'s
    /// (docs/models/cc.md, SCTP section).
    #[serde(default)]
    pub congestion_control: CongestionControl,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start; absent: on with `"cubic"`.
    #[serde(default)]
    pub hystart: Option<bool>,
    /// Pacing; not built for SCTP: only `false` (the default) is accepted.
    #[serde(default)]
    pub pacing: Option<bool>,
    // CMT and ns-2.35's extension agents (scenario/cmt.rs).
    #[serde(default)]
    pub cmt: bool,
    #[serde(default)]
    pub cmt_sfr: Option<bool>,
    #[serde(default)]
    pub cmt_cuc: Option<bool>,
    #[serde(default)]
    pub cmt_dac: Option<bool>,
    #[serde(default)]
    pub cmt_rtx_policy: Option<crate::scenario::cmt::CmtRtxPolicy>,
    #[serde(default)]
    pub cmt_pf: Option<bool>,
    #[serde(default)]
    pub heartbeat_after_rto: Option<bool>,
    /// ns-2.35's Agent/SCTP/Timestamp (scenario/cmt.rs, sctp/timestamp.rs).
    #[serde(default)]
    pub timestamp: Option<bool>,
    /// Coupled congestion control over CMT's destinations (scenario/cmt.rs).
    #[serde(default)]
    pub coupled_cc: Option<crate::scenario::cmt::CoupledCc>,
    /// Per-stream sources replacing the bulk application (scenario/streams.rs).
    #[serde(default)]
    pub stream_traffic: Option<Vec<crate::scenario::streams::StreamTrafficEntry>>,
    /// The stream scheduler of `stream_traffic` (scenario/streams.rs).
    #[serde(default)]
    pub scheduler: Option<String>,
    /// I-DATA (RFC 8260 sec. 2; scenario/streams.rs).
    #[serde(default)]
    pub interleaving: bool,
    /// AUTH (RFC 4895; scenario/reconf.rs): `auth`, `auth_chunks`, `auth_hmac`.
    #[serde(default)]
    pub auth: bool,
    /// The sender's interfaces its INIT lists (`sctp_bindx`; default all of them;
    /// scenario/validate/asconf.rs).
    #[serde(default)]
    pub bind: Option<Box<[String]>>,
    #[serde(default)]
    pub auth_chunks: Option<Vec<String>>,
    #[serde(default)]
    pub auth_hmac: Option<crate::scenario::reconf::AuthHmac>,
    /// Send buffer, NR-SACK, buffer splitting (scenario/send_buffer.rs).
    #[serde(default)]
    pub send_buffer: Option<Size>,
    #[serde(default)]
    pub nr_sack: bool,
    #[serde(default)]
    pub buffer_splitting: Option<crate::scenario::send_buffer::BufferSplittingKey>,
}

fn default_delayed_ack_timeout() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(200))
}
fn default_mtu() -> Size {
    Size(1500)
}
fn one_stream() -> u16 {
    1
}
fn default_receive_buffer() -> Size {
    Size(65_536)
}
fn default_sctp_rto_min() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(1))
}
fn default_heartbeat_interval() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(30))
}
fn default_cookie_lifetime() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(60))
}
fn default_association_max_retrans() -> u32 {
    10
}
fn default_path_max_retrans() -> u32 {
    5
}

// The protocol machines have configuration types of their own (`sctp::config`,
// `tcp::config`, `sctp::AssocCfg`, `tcp::{SenderCfg, ReceiverCfg}`); these mappings are
// the one place a flow entry becomes them, for the simulator's world and the live driver
// alike.

impl From<SctpVariant> for crate::sctp::config::Variant {
    fn from(v: SctpVariant) -> Self {
        use crate::sctp::config::Variant as V;
        match v {
            SctpVariant::Original => V::Original,
            SctpVariant::Newreno => V::Newreno,
            SctpVariant::NewrenoStar => V::NewrenoStar,
            SctpVariant::Newreno2Star => V::Newreno2Star,
            SctpVariant::Rfc4960 => V::Rfc4960,
            SctpVariant::Rfc9260 => V::Rfc9260,
            SctpVariant::Ns2 => V::Ns2,
            SctpVariant::Usrsctp => V::Usrsctp,
        }
    }
}

impl From<MaxBurstRule> for crate::sctp::config::MaxBurstRule {
    fn from(r: MaxBurstRule) -> Self {
        use crate::sctp::config::MaxBurstRule as R;
        match r {
            MaxBurstRule::Off => R::Off,
            MaxBurstRule::Guide => R::Guide,
            MaxBurstRule::Packets => R::Packets,
            MaxBurstRule::Ns2 => R::Ns2,
        }
    }
}

impl From<GrowthRule> for crate::sctp::config::GrowthRule {
    fn from(r: GrowthRule) -> Self {
        use crate::sctp::config::GrowthRule as R;
        match r {
            GrowthRule::Rfc4960 => R::Rfc4960,
            GrowthRule::Rfc9260 => R::Rfc9260,
        }
    }
}

impl From<InitialCwnd> for crate::sctp::config::InitialCwnd {
    fn from(c: InitialCwnd) -> Self {
        use crate::sctp::config::InitialCwnd as C;
        match c {
            InitialCwnd::Mtus(m) => C::Mtus(m),
            InitialCwnd::Bytes(b) => C::Bytes(b.0),
        }
    }
}

impl SctpCfg {
    /// The variant's knobs with this entry's overrides applied.
    pub fn knobs(&self) -> crate::sctp::Knobs {
        let mut k = crate::sctp::config::preset(self.variant.into());
        let set = |dst: &mut u32, v: Option<u32>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        let flag = |dst: &mut bool, v: Option<bool>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        set(&mut k.fast_rtx_threshold, self.fast_rtx_threshold);
        flag(&mut k.fast_recovery, self.fast_recovery);
        flag(&mut k.cwnd_growth_in_recovery, self.cwnd_growth_in_recovery);
        flag(&mut k.modified_htna, self.modified_htna);
        flag(&mut k.slow_start_at_ssthresh, self.slow_start_at_ssthresh);
        flag(&mut k.cwnd_whole_mtus, self.cwnd_whole_mtus);
        set(&mut k.ssthresh_floor_mtus, self.ssthresh_floor_mtus);
        set(&mut k.max_burst, self.max_burst);
        if let Some(v) = self.max_burst_rule {
            k.max_burst_rule = v.into();
        }
        if let Some(v) = self.initial_cwnd {
            k.initial_cwnd = v.into();
        }
        flag(&mut k.heartbeat_before_data, self.heartbeat_before_data);
        k.path_max_retrans = self.path_max_retrans;
        if self.pf_max_retrans.is_some() {
            k.pf_max_retrans = self.pf_max_retrans;
        }
        flag(&mut k.retransmit_to_alternate, self.retransmit_to_alternate);
        flag(&mut k.fast_rtx_to_alternate, self.fast_rtx_to_alternate);
        flag(&mut k.return_to_primary, self.return_to_primary);
        if let Some(v) = self.growth_rule {
            k.growth_rule = v.into();
        }
        flag(
            &mut k.fast_recovery_miss_reports,
            self.fast_recovery_miss_reports,
        );
        flag(
            &mut k.t3_ssthresh_every_expiry,
            self.t3_ssthresh_every_expiry,
        );
        flag(&mut k.t3_exits_fast_recovery, self.t3_exits_fast_recovery);
        flag(&mut k.multiple_fast_rtx, self.multiple_fast_rtx);
        flag(
            &mut k.fast_rtx_ignores_cwnd_in_recovery,
            self.fast_rtx_ignores_cwnd_in_recovery,
        );
        flag(&mut k.sack_on_rwnd_drop, self.sack_on_rwnd_drop);
        flag(&mut k.idle_cwnd_decay, self.idle_cwnd_decay);
        k.congestion_control = self.congestion_control.into();
        k.hystart = self
            .hystart
            .unwrap_or(self.congestion_control == CongestionControl::Cubic);
        k.pacing = self
            .pacing
            .unwrap_or(self.congestion_control == CongestionControl::Bbr);
        crate::scenario::cmt::apply(self, &mut k);
        crate::scenario::streams::apply(self, &mut k);
        crate::scenario::reconf::apply(self, &mut k);
        crate::scenario::send_buffer::apply(self, &mut k);
        k
    }

    /// RTO.Initial: the entry's, else its variant's (RFC 9260 sec. 16: 1 s for `rfc9260`).
    pub fn rto_initial(&self) -> crate::sim::SimDuration {
        self.rto_initial.map_or_else(
            || {
                crate::sim::SimDuration::from_secs(crate::sctp::config::rto_initial_secs(
                    self.variant.into(),
                ))
            },
            |d| d.0,
        )
    }

    /// The association this entry describes, as both drivers build it (the simulator's
    /// world and the live driver): started at once, measured throughout, untraced. The
    /// world then sets the flow's start, stop, measurement window and traces.
    pub fn assoc_cfg(
        &self,
        ports: (u16, u16),
        local_addrs: Vec<[u8; 4]>,
        primary_peer: [u8; 4],
    ) -> crate::sctp::AssocCfg {
        crate::sctp::AssocCfg {
            ports,
            pmtu: self.mtu.0 as usize,
            streams: self.streams,
            receive_buffer: self.receive_buffer.0,
            initial_ssthresh: self.initial_ssthresh.map(|s| s.0),
            knobs: self.knobs(),
            rto_initial: self.rto_initial(),
            rto_min: self.rto_min.0,
            rto_max: self.rto_max.0,
            delayed_sack: self.delayed_sack.then_some(self.sack_delay.0),
            heartbeat: self.heartbeat.then_some(self.heartbeat_interval.0),
            cookie_lifetime: self.cookie_lifetime.0,
            association_max_retrans: self.association_max_retrans,
            max_init_retrans: 8,
            total: self.bytes.map(|b| b.0),
            message_size: self.message_size.0,
            unordered: self.unordered,
            start: crate::sim::SimTime::ZERO,
            stop: None,
            window: crate::metrics::Window::ALL,
            trace_sends: false,
            trace_acks: false,
            local_addrs,
            primary_peer,
            stream_traffic: crate::scenario::streams::sources(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::config::{self as sc, preset};

    fn sctp(extra: &str) -> SctpCfg {
        let text = format!("name = \"s\"\nfrom = \"a\"\nto = \"b\"\n{extra}");
        toml::from_str(&text).expect("sctp entry")
    }

    #[test]
    fn each_variant_maps_to_its_preset() {
        for (name, v) in [
            ("original", sc::Variant::Original),
            ("newreno", sc::Variant::Newreno),
            ("newreno-star", sc::Variant::NewrenoStar),
            ("newreno-2star", sc::Variant::Newreno2Star),
            ("rfc4960", sc::Variant::Rfc4960),
            ("rfc9260", sc::Variant::Rfc9260),
            ("ns2", sc::Variant::Ns2),
            ("usrsctp", sc::Variant::Usrsctp),
        ] {
            // path_max_retrans is always the entry's (schema default 5, RFC 9260 16),
            // which is every preset's value too.
            assert_eq!(
                sctp(&format!("variant = \"{name}\"")).knobs(),
                preset(v),
                "{name}"
            );
        }
    }

    #[test]
    fn overrides_reach_the_machine_types() {
        let k = sctp(
            "variant = \"ns2\"\ninitial_cwnd = \"4380B\"\nmax_burst_rule = \"off\"\n\
             growth_rule = \"rfc9260\"\nfast_rtx_threshold = 4\npf_max_retrans = 0\n\
             path_max_retrans = 2",
        )
        .knobs();
        assert_eq!(k.initial_cwnd, sc::InitialCwnd::Bytes(4380));
        assert_eq!(k.max_burst_rule, sc::MaxBurstRule::Off);
        assert_eq!(k.growth_rule, sc::GrowthRule::Rfc9260);
        assert_eq!(k.fast_rtx_threshold, 4);
        assert_eq!(k.pf_max_retrans, Some(0));
        assert_eq!(k.path_max_retrans, 2);
        let k = sctp("variant = \"rfc4960\"\ninitial_cwnd = 2.5").knobs();
        assert_eq!(k.initial_cwnd, sc::InitialCwnd::Mtus(2.5));
    }

    #[test]
    fn multiple_fast_rtx_keeps_its_old_name_as_an_alias() {
        // CONTRACTS.md: `multiple_fast_rtx`, with `fast_rtx_repeat` still accepted.
        assert!(!sctp("variant = \"rfc9260\"").knobs().multiple_fast_rtx);
        for key in ["multiple_fast_rtx", "fast_rtx_repeat"] {
            let k = sctp(&format!("variant = \"rfc9260\"\n{key} = true")).knobs();
            assert!(k.multiple_fast_rtx, "{key}");
        }
    }

    #[test]
    fn rto_initial_follows_the_variant_unless_set() {
        // RFC 9260 sec. 16: RTO.Initial 1 s; RFC 4960 sec. 15 and ns-2.35: 3 s.
        let secs = |e: &str| sctp(e).rto_initial().as_secs_f64();
        assert_eq!(secs("variant = \"rfc9260\""), 1.0);
        assert_eq!(secs("variant = \"rfc4960\""), 3.0);
        assert_eq!(secs("variant = \"ns2\""), 3.0);
        assert_eq!(secs("variant = \"rfc9260\"\nrto_initial = \"3s\""), 3.0);
    }
}
