//! SCTP congestion-control variants as presets over named knobs. Each knob's source is
//! in docs/models/sctp.md; a scenario may override any knob of its variant.
//!
//! These are the machine's own types: the scenario layer maps its flow entries onto
//! them (`SctpCfg::assoc_cfg` in scenario/schema/sctp.rs), so the simulator and the live driver
//! build the same association and nothing here knows the scenario format.

/// SCTP congestion-control presets (docs/models/sctp.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Original,
    Newreno,
    NewrenoStar,
    Newreno2Star,
    Rfc4960,
    Rfc9260,
    Ns2,
    /// usrsctp's rules where they go beyond the RFCs (docs/models/sctp.md).
    Usrsctp,
}

/// How Max.Burst limits a burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Initial cwnd: a number of MTUs, or bytes (`Bytes(0)`: RFC 4960's formula).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InitialCwnd {
    Mtus(f64),
    Bytes(u64),
}

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
    /// A T3-rtx expiry ends fast recovery (Linux, usrsctp `sctp_t3rxt_timer`); false:
    /// the recover point stays (RFC 9260 7.2.3 says nothing of it; ns-2.35 `Timeout`).
    pub t3_exits_fast_recovery: bool,
    /// A chunk already fast-retransmitted may be fast-retransmitted again once it has
    /// collected `fast_rtx_threshold` new missing reports (ns-2.35
    /// `Agent/SCTP/MultipleFastRtx`, usrsctp); false: RFC 9260 7.2.4 step 5 makes it
    /// ineligible for another fast retransmit, later losses wait for T3 (ns-2.35
    /// `eIneligibleForFastRtx`). Scenario key `multiple_fast_rtx`, alias
    /// `fast_rtx_repeat`.
    pub multiple_fast_rtx: bool,
    /// A fast retransmit found while already in fast recovery still sends one packet
    /// regardless of cwnd (RFC 4960 7.2.4 step 3, ns-2.35 `FastRtx`); false: RFC 9260
    /// 7.2.4 step 3 (RFC 8540 sec. 3.15) sends that packet only "if not in Fast
    /// Recovery", and marked chunks found in fast recovery wait for cwnd.
    pub fast_rtx_ignores_cwnd_in_recovery: bool,
    /// cwnd = max(cwnd/2, 4 MTU) per RTO in which no DATA went to the destination
    /// (RFC 9260/4960 7.2.1). ns-2.35's `CwndDegradeTimer` does the same only while cwnd
    /// exceeds `initialCwnd_`; the `ns2` preset leaves it out (docs/models/sctp.md).
    pub idle_cwnd_decay: bool,
    /// Receiver: a new DATA chunk dropped for want of buffer space brings an immediate
    /// SACK (RFC 9260 6.2). false: ns-2.35 (`ProcessDataChunk`): the drop cancels the
    /// SACK the packet would have caused unless the packet leaves a gap, and the buffer
    /// is checked before the duplicate test.
    pub sack_on_rwnd_drop: bool,
    /// The window's controller per destination (`congestion_control`, docs/models/cc.md):
    /// `Reno` is the rules above; `Cubic` replaces the growth and the cuts at a fast
    /// retransmit and a T3 expiry, while loss recovery stays these knobs'.
    pub congestion_control: crate::cc::Algorithm,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start on each destination.
    pub hystart: bool,
    /// Pacing per destination (`pacing`; always with BBR): `path_bbr`.
    pub pacing: bool,
    /// Concurrent multipath transfer (`cmt`, ns-2.35's Agent/SCTP/CMT,
    /// docs/models/sctp.md "CMT"); None: new data goes to one destination at a time.
    pub cmt: Option<super::outbound::cmt::CmtKnobs>,
    /// A HEARTBEAT to a destination right after its T3-rtx expiry when another
    /// destination is usable, for a fresh RTT after the backed-off RTO (ns-2.35
    /// `Agent/SCTP/HbAfterRto`, scenario key `heartbeat_after_rto`).
    pub heartbeat_after_rto: bool,
    /// A TIMESTAMP chunk in every DATA and SACK packet, RTT samples from
    /// retransmissions too (ns-2.35 `Agent/SCTP/Timestamp`, scenario key `timestamp`,
    /// sctp/timestamp.rs).
    pub timestamp: bool,
    /// Coupled congestion avoidance across a CMT association's destinations
    /// (`coupled_cc`, sctp/coupled_cc.rs); None: each destination's own increase.
    pub coupled_cc: Option<super::coupled_cc::Coupling>,
    /// The stream scheduler of `stream_traffic` (RFC 8260 sec. 3, scenario key
    /// `scheduler`, sctp/streams/sched.rs); the bulk application ignores it.
    pub scheduler: super::streams::Scheduler,
    /// User message interleaving (RFC 8260 sec. 2, scenario key `interleaving`):
    /// I-DATA announced in INIT / INIT ACK and used when both ends list it.
    pub interleaving: bool,
    /// Stream reconfiguration (RFC 6525, `sctp/reconfig`): announced in INIT / INIT ACK
    /// when the flow has `[[faults]]` `reset_streams` or `add_streams`.
    pub reconfig: bool,
    /// AUTH (RFC 4895, `sctp/auth`): the flow's `auth`, `auth_chunks`, `auth_hmac`.
    pub auth: Option<super::auth::AuthCfg>,
    /// `send_buffer`, `nr_sack`, `buffer_splitting` (sctp/outbound/send_buffer.rs).
    pub send_buffer: super::outbound::send_buffer::SendBufferKnobs,
}

/// RFC 4960 sec. 7.2.1: min(4 MTU, max(2 MTU, 4380 bytes)).
pub fn rfc4960_initial_cwnd(mtu: u64) -> u64 {
    (4 * mtu).min((2 * mtu).max(4380))
}

pub fn preset(v: Variant) -> Knobs {
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
        multiple_fast_rtx: false,
        fast_rtx_ignores_cwnd_in_recovery: true,
        idle_cwnd_decay: false,
        sack_on_rwnd_drop: false,
        congestion_control: crate::cc::Algorithm::Reno,
        hystart: false,
        pacing: false,
        cmt: None,
        heartbeat_after_rto: false,
        timestamp: false,
        coupled_cc: None,
        scheduler: super::streams::Scheduler::Fcfs,
        interleaving: false,
        reconfig: false,
        auth: None,
        send_buffer: super::outbound::send_buffer::SendBufferKnobs {
            limit: None,
            nr_sack: false,
            splitting: super::outbound::send_buffer::BufferSplitting::None,
        },
    };
    let newreno = Knobs {
        fast_recovery: true,
        cwnd_growth_in_recovery: false,
        modified_htna: true,
        ..original.clone()
    };
    match v {
        Variant::Original => original,
        Variant::Newreno => newreno,
        Variant::NewrenoStar => Knobs {
            slow_start_at_ssthresh: false,
            ..newreno
        },
        Variant::Newreno2Star => Knobs {
            slow_start_at_ssthresh: false,
            cwnd_whole_mtus: true,
            ..newreno
        },
        Variant::Rfc4960 => rfc4960(original),
        Variant::Rfc9260 => Knobs {
            growth_rule: GrowthRule::Rfc9260,
            fast_rtx_ignores_cwnd_in_recovery: false,
            ..rfc4960(original)
        },
        Variant::Ns2 => Knobs {
            fast_rtx_threshold: 3,
            ssthresh_floor_mtus: 4,
            max_burst_rule: MaxBurstRule::Ns2,
            initial_cwnd: InitialCwnd::Bytes(0),
            heartbeat_before_data: true,
            ns2_paths: true,
            ..newreno
        },
        Variant::Usrsctp => usrsctp(rfc4960(original)),
    }
}

/// RTO.Initial of a preset: 1 s in `rfc9260` (RFC 9260 sec. 16, RFC 8540 sec. 3.32) and
/// `usrsctp` (`SCTP_RTO_INITIAL`, sctp_constants.h), 3 s in the others (RFC 2960/4960
/// sec. 15, ns-2.35 `initialRto_`).
pub fn rto_initial_secs(v: Variant) -> u64 {
    match v {
        Variant::Rfc9260 | Variant::Usrsctp => 1,
        _ => 3,
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
        initial_cwnd: InitialCwnd::Bytes(0),
        fast_rtx_to_alternate: false,
        fast_recovery_miss_reports: true,
        t3_ssthresh_every_expiry: true,
        idle_cwnd_decay: true,
        sack_on_rwnd_drop: true,
        ..original
    }
}

/// usrsctp (github.com/sctplab/usrsctp, `usrsctplib/netinet`) with its default sysctls,
/// in the knobs this model has: RFC 4960's rules plus the stack's own where it departs
/// from the RFC text. What usrsctp does that no knob expresses is listed in
/// docs/models/sctp.md (Presets).
fn usrsctp(rfc4960: Knobs) -> Knobs {
    Knobs {
        // `sctp_strike_gap_ack_chunks`: a chunk fast-retransmitted once is struck again
        // by later SACKs (no ineligible flag), as ns-2.35's MultipleFastRtx.
        multiple_fast_rtx: true,
        // `sctp_t3rxt_timer` clears `fast_retran_loss_recovery`.
        t3_exits_fast_recovery: true,
        // `sctp_cwnd_update_after_fr`: ssthresh = max(cwnd/2, 2 MTU).
        ssthresh_floor_mtus: 2,
        // `sctp_set_initial_cc_param` with `sctp_initial_cwnd` = 3 (MTUs).
        initial_cwnd: InitialCwnd::Mtus(3.0),
        // `sctp_use_cwnd_based_maxburst` = 1: before sending, cwnd is cut to the flight
        // plus Max.Burst MTUs (`sctp_med_chunk_output`), the guide's rule.
        max_burst_rule: MaxBurstRule::Guide,
        ..rfc4960
    }
}

/// Initial cwnd in bytes for a path whose MTU unit (chunk bytes per packet) is `mtu`.
/// `Bytes(0)` in a preset stands for RFC 4960's formula.
pub fn initial_cwnd_bytes(k: &Knobs, mtu: u64) -> f64 {
    match k.initial_cwnd {
        InitialCwnd::Mtus(m) => m * mtu as f64,
        InitialCwnd::Bytes(0) => rfc4960_initial_cwnd(mtu) as f64,
        InitialCwnd::Bytes(b) => b as f64,
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
    fn rfc_presets_follow_the_rfc_text() {
        for v in [Variant::Rfc4960, Variant::Rfc9260] {
            let k = preset(v);
            // RFC 9260 7.2.4 step 5: a fast-retransmitted TSN is ineligible for another
            // fast retransmit.
            assert!(!k.multiple_fast_rtx, "{v:?}");
            // RFC 9260 7.2.3 leaves fast recovery to its exit point.
            assert!(!k.t3_exits_fast_recovery, "{v:?}");
        }
        // RFC 4960 7.2.4 step 3 ignores cwnd for the first packet always; RFC 9260 only
        // outside fast recovery (RFC 8540 sec. 3.15).
        assert!(preset(Variant::Rfc4960).fast_rtx_ignores_cwnd_in_recovery);
        assert!(!preset(Variant::Rfc9260).fast_rtx_ignores_cwnd_in_recovery);
        // RFC 9260 sec. 16 (RFC 8540 sec. 3.32): RTO.Initial 1 s; RFC 4960 sec. 15: 3 s.
        assert_eq!(rto_initial_secs(Variant::Rfc9260), 1);
        assert_eq!(rto_initial_secs(Variant::Rfc4960), 3);
        assert_eq!(rto_initial_secs(Variant::Ns2), 3);
        let u = preset(Variant::Usrsctp);
        assert!(u.multiple_fast_rtx && u.t3_exits_fast_recovery);
    }

    #[test]
    fn starred_variants_differ_from_newreno_in_one_knob_each() {
        let nr = preset(Variant::Newreno);
        let star = preset(Variant::NewrenoStar);
        let two = preset(Variant::Newreno2Star);
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
        let orig = preset(Variant::Original);
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
