//! SCTP congestion-control variants as presets over named knobs. Each knob's source is
//! in docs/models/sctp.md; a scenario may override any knob of its variant.

use crate::scenario::schema::{GrowthRule, InitialCwnd, MaxBurstRule, SctpCfg, SctpVariant};

#[derive(Clone, Debug, PartialEq)]
pub struct Knobs {
    /// Missing reports that trigger a fast retransmit (RFC 2960: 4; RFC 4960: 3).
    pub fast_rtx_threshold: u32,
    /// Fast recovery with a recover TSN: one cwnd cut per window (seed 002 sec. 2.2).
    pub fast_recovery: bool,
    /// cwnd may grow on SACKs received during fast recovery (Original: yes).
    pub cwnd_growth_in_recovery: bool,
    /// In fast recovery, every SACK that advances the cumulative ack counts as a missing
    /// report for the holes below the highest TSN SACKed (seed 002 sec. 2.2, third change).
    pub modified_htna: bool,
    /// Slow start while cwnd <= ssthresh (RFC 2960/4960 7.2.1); false is New-Reno SCTP*.
    pub slow_start_at_ssthresh: bool,
    /// Cut cwnd in whole MTUs (New-Reno SCTP**: a cwnd of 15 is cut to 7, not 7.5).
    pub cwnd_whole_mtus: bool,
    /// ssthresh floor after a loss, in MTUs (RFC 2960: 2; RFC 4960 and ns-2: 4).
    pub ssthresh_floor_mtus: u32,
    pub max_burst: u32,
    pub max_burst_rule: MaxBurstRule,
    pub initial_cwnd: InitialCwnd,
    /// Confirm the path with a HEARTBEAT before the first DATA (ns-2.35).
    pub heartbeat_before_data: bool,
    /// Path.Max.Retrans (RFC 9260 sec. 8.2, 16): a destination is inactive once its
    /// consecutive errors exceed this.
    pub path_max_retrans: u32,
    /// PotentiallyFailed.Max.Retrans (RFC 7829): a destination is potentially failed
    /// once its errors exceed this; None = SCTP-PF off.
    pub pf_max_retrans: Option<u32>,
    /// Timeout retransmissions go to an active alternate destination (RFC 9260 6.4).
    pub retransmit_to_alternate: bool,
    /// Fast retransmissions go to an active alternate too (RFC 2960 6.4 and ns-2's
    /// `rtxToAlt_ 1`; RFC 4960 narrowed the rule to timeouts).
    pub fast_rtx_to_alternate: bool,
    /// New data returns to the primary when it becomes active again.
    pub return_to_primary: bool,
    /// ns-2.35's path management (`sctp.cc`): one heartbeat timer per association
    /// probing the longest-idle destination, unanswered heartbeats retried every RTO,
    /// association errors counted only on active destinations, 24-byte HEARTBEATs.
    /// Fixed by the preset.
    pub ns2_paths: bool,
    /// cwnd growth in slow start and congestion avoidance: RFC 4960 as ns-2.35 codes
    /// it, or RFC 9260 (growth without a cumulative-ack advance, RFC 8540 3.22/3.26).
    pub growth_rule: GrowthRule,
    /// RFC 4960/9260 7.2.4: a SACK that arrives in fast recovery and advances the
    /// cumulative ack counts a missing report for every TSN it reports missing (below
    /// its highest gap-acked TSN). `modified_htna` is ns-2's narrower form.
    pub fast_recovery_miss_reports: bool,
    /// T3-rtx sets ssthresh = max(cwnd/2, floor) on every expiry (RFC 4960/9260 7.2.3);
    /// false: only while cwnd > 1 MTU (ns-2.35 `Timeout`), so back-to-back expiries keep
    /// the first one's ssthresh.
    pub t3_ssthresh_every_expiry: bool,
    /// A T3-rtx expiry ends fast recovery (Linux, usrsctp); false: the recover point
    /// stays (ns-2.35).
    pub t3_exits_fast_recovery: bool,
    /// A chunk already fast-retransmitted may be fast-retransmitted again once it has
    /// collected `fast_rtx_threshold` new missing reports (its counter restarts at 0 when
    /// it is retransmitted, RFC 4960/9260 7.2.4); false: once per chunk, later losses wait
    /// for T3 (ns-2.35 `eIneligibleForFastRtx`).
    pub fast_rtx_repeat: bool,
    /// Receiver: a new DATA chunk dropped for want of buffer space brings an immediate
    /// SACK (RFC 9260 6.2). false: ns-2.35 (`ProcessDataChunk`): the drop cancels the
    /// SACK the packet would have caused unless the packet leaves a gap, and the buffer
    /// is checked before the duplicate test.
    pub sack_on_rwnd_drop: bool,
}

/// RFC 4960 sec. 7.2.1: min(4 MTU, max(2 MTU, 4380 bytes)).
pub fn rfc4960_initial_cwnd(mtu: u64) -> u64 {
    (4 * mtu).min((2 * mtu).max(4380))
}

pub fn preset(v: SctpVariant) -> Knobs {
    let original = Knobs {
        fast_rtx_threshold: 4,
        fast_recovery: false,
        cwnd_growth_in_recovery: true,
        modified_htna: false,
        slow_start_at_ssthresh: true,
        cwnd_whole_mtus: false,
        ssthresh_floor_mtus: 2,
        max_burst: 4,
        max_burst_rule: MaxBurstRule::Guide,
        initial_cwnd: InitialCwnd::Mtus(2.0),
        heartbeat_before_data: false,
        path_max_retrans: 5,
        pf_max_retrans: None,
        retransmit_to_alternate: true,
        fast_rtx_to_alternate: true,
        return_to_primary: true,
        ns2_paths: false,
        growth_rule: GrowthRule::Rfc4960,
        fast_recovery_miss_reports: false,
        t3_ssthresh_every_expiry: false,
        t3_exits_fast_recovery: false,
        fast_rtx_repeat: false,
        sack_on_rwnd_drop: false,
    };
    let newreno = Knobs {
        fast_recovery: true,
        cwnd_growth_in_recovery: false,
        modified_htna: true,
        ..original.clone()
    };
    match v {
        SctpVariant::Original => original,
        SctpVariant::Newreno => newreno,
        SctpVariant::NewrenoStar => Knobs {
            slow_start_at_ssthresh: false,
            ..newreno
        },
        SctpVariant::Newreno2Star => Knobs {
            slow_start_at_ssthresh: false,
            cwnd_whole_mtus: true,
            ..newreno
        },
        SctpVariant::Rfc4960 => rfc4960(original),
        SctpVariant::Rfc9260 => Knobs {
            growth_rule: GrowthRule::Rfc9260,
            ..rfc4960(original)
        },
        SctpVariant::Ns2 => Knobs {
            fast_rtx_threshold: 3,
            ssthresh_floor_mtus: 4,
            max_burst_rule: MaxBurstRule::Ns2,
            initial_cwnd: InitialCwnd::Bytes(crate::scenario::units::Size(0)),
            heartbeat_before_data: true,
            ns2_paths: true,
            ..newreno
        },
    }
}

/// RFC 4960 sec. 7 over the Original preset's path-management knobs.
fn rfc4960(original: Knobs) -> Knobs {
    Knobs {
        fast_rtx_threshold: 3,
        fast_recovery: true,
        cwnd_growth_in_recovery: false,
        modified_htna: false,
        ssthresh_floor_mtus: 4,
        max_burst_rule: MaxBurstRule::Packets,
        initial_cwnd: InitialCwnd::Bytes(crate::scenario::units::Size(0)),
        fast_rtx_to_alternate: false,
        fast_recovery_miss_reports: true,
        t3_ssthresh_every_expiry: true,
        t3_exits_fast_recovery: true,
        fast_rtx_repeat: true,
        sack_on_rwnd_drop: true,
        ..original
    }
}

/// The variant's knobs with the scenario's overrides applied.
pub fn resolve(c: &SctpCfg) -> Knobs {
    let mut k = preset(c.variant);
    if let Some(v) = c.fast_rtx_threshold {
        k.fast_rtx_threshold = v;
    }
    if let Some(v) = c.fast_recovery {
        k.fast_recovery = v;
    }
    if let Some(v) = c.cwnd_growth_in_recovery {
        k.cwnd_growth_in_recovery = v;
    }
    if let Some(v) = c.modified_htna {
        k.modified_htna = v;
    }
    if let Some(v) = c.slow_start_at_ssthresh {
        k.slow_start_at_ssthresh = v;
    }
    if let Some(v) = c.cwnd_whole_mtus {
        k.cwnd_whole_mtus = v;
    }
    if let Some(v) = c.ssthresh_floor_mtus {
        k.ssthresh_floor_mtus = v;
    }
    if let Some(v) = c.max_burst {
        k.max_burst = v;
    }
    if let Some(v) = c.max_burst_rule {
        k.max_burst_rule = v;
    }
    if let Some(v) = c.initial_cwnd {
        k.initial_cwnd = v;
    }
    if let Some(v) = c.heartbeat_before_data {
        k.heartbeat_before_data = v;
    }
    k.path_max_retrans = c.path_max_retrans;
    if c.pf_max_retrans.is_some() {
        k.pf_max_retrans = c.pf_max_retrans;
    }
    if let Some(v) = c.retransmit_to_alternate {
        k.retransmit_to_alternate = v;
    }
    if let Some(v) = c.fast_rtx_to_alternate {
        k.fast_rtx_to_alternate = v;
    }
    if let Some(v) = c.return_to_primary {
        k.return_to_primary = v;
    }
    if let Some(v) = c.growth_rule {
        k.growth_rule = v;
    }
    if let Some(v) = c.fast_recovery_miss_reports {
        k.fast_recovery_miss_reports = v;
    }
    if let Some(v) = c.t3_ssthresh_every_expiry {
        k.t3_ssthresh_every_expiry = v;
    }
    if let Some(v) = c.t3_exits_fast_recovery {
        k.t3_exits_fast_recovery = v;
    }
    if let Some(v) = c.fast_rtx_repeat {
        k.fast_rtx_repeat = v;
    }
    if let Some(v) = c.sack_on_rwnd_drop {
        k.sack_on_rwnd_drop = v;
    }
    k
}

/// Initial cwnd in bytes for a path whose MTU unit (chunk bytes per packet) is `mtu`.
/// `Bytes(0)` in a preset stands for RFC 4960's formula.
pub fn initial_cwnd_bytes(k: &Knobs, mtu: u64) -> f64 {
    match k.initial_cwnd {
        InitialCwnd::Mtus(m) => m * mtu as f64,
        InitialCwnd::Bytes(b) if b.0 == 0 => rfc4960_initial_cwnd(mtu) as f64,
        InitialCwnd::Bytes(b) => b.0 as f64,
    }
}

/// The association a flow entry describes, as both drivers build it (the simulator's
/// world and the live driver): started at once, measured throughout, untraced. The
/// world then sets the flow's start, stop, measurement window and traces.
pub fn assoc_cfg(
    c: &SctpCfg,
    ports: (u16, u16),
    local_addrs: Vec<[u8; 4]>,
    primary_peer: [u8; 4],
) -> super::AssocCfg {
    super::AssocCfg {
        ports,
        pmtu: c.mtu.0 as usize,
        streams: c.streams,
        receive_buffer: c.receive_buffer.0,
        initial_ssthresh: c.initial_ssthresh.map(|s| s.0),
        knobs: resolve(c),
        rto_initial: c.rto_initial.0,
        rto_min: c.rto_min.0,
        rto_max: c.rto_max.0,
        delayed_sack: c.delayed_sack.then_some(c.sack_delay.0),
        heartbeat: c.heartbeat.then_some(c.heartbeat_interval.0),
        cookie_lifetime: c.cookie_lifetime.0,
        association_max_retrans: c.association_max_retrans,
        max_init_retrans: 8,
        total: c.bytes.map(|b| b.0),
        message_size: c.message_size.0,
        unordered: c.unordered,
        start: crate::sim::SimTime::ZERO,
        stop: None,
        window: crate::metrics::Window::ALL,
        trace_sends: false,
        trace_acks: false,
        local_addrs,
        primary_peer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4960_initial_window() {
        // 1468-byte MTU units (ns-2's 1500 - 32): 4380 B; 1016-byte units: 4064 B.
        assert_eq!(rfc4960_initial_cwnd(1468), 4380);
        assert_eq!(rfc4960_initial_cwnd(1016), 4064);
        assert_eq!(rfc4960_initial_cwnd(3000), 6000);
    }

    #[test]
    fn starred_variants_differ_from_newreno_in_one_knob_each() {
        let nr = preset(SctpVariant::Newreno);
        let star = preset(SctpVariant::NewrenoStar);
        let two = preset(SctpVariant::Newreno2Star);
        assert!(nr.slow_start_at_ssthresh && !star.slow_start_at_ssthresh);
        assert_eq!(
            Knobs {
                slow_start_at_ssthresh: true,
                ..star.clone()
            },
            nr
        );
        assert_eq!(
            Knobs {
                cwnd_whole_mtus: false,
                ..two
            },
            star
        );
        let orig = preset(SctpVariant::Original);
        assert_eq!(
            Knobs {
                fast_recovery: false,
                cwnd_growth_in_recovery: true,
                modified_htna: false,
                ..nr
            },
            orig
        );
    }
}
