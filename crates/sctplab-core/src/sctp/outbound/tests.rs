use super::*;
use crate::sctp::config::Variant;
use crate::sctp::config::preset;
use crate::sctp::path::{Path, Rto};
use crate::sim::SimDuration;

/// One MTU of cwnd: a 1048-byte PMTU leaves 1016 bytes of chunks, one 1000-byte
/// message in a 1016-byte chunk per packet, so every step below is one chunk.
const M: f64 = 1016.0;

/// A sender with one destination, TSNs from 1 (packet number = TSN), and the
/// variant's knobs except a fast-retransmit threshold no test reaches, so the growth
/// rules are seen alone.
fn sender(v: Variant, cwnd: f64, ssthresh: f64, total: Option<u64>) -> (Outbound, PathSet) {
    let mut k = preset(v);
    k.fast_rtx_threshold = 100;
    let app = AppSource::new(total, 1000, 1, false);
    let o = Outbound::new(k, 1, app, 1048, 1 << 20, false, Window::ALL);
    let rto = Rto::new(
        SimDuration::from_secs(3),
        SimDuration::from_secs(1),
        SimDuration::from_secs(60),
    );
    let ps = PathSet::new(vec![Path::new([10, 0, 0, 2], 1016, cwnd, ssthresh, rto)]);
    (o, ps)
}

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

/// Delivers a SACK (gap blocks as TSN offsets from `cum`) and lets the sender refill
/// its window; returns (cwnd, pba) after it.
fn sack(o: &mut Outbound, ps: &mut PathSet, ms: u64, cum: u32, gaps: &[(u16, u16)]) -> (f64, f64) {
    let s = SackChunk {
        cum_tsn_ack: cum,
        a_rwnd: 1 << 20,
        gaps: gaps.to_vec(),
        dups: Vec::new(),
        flags: 0,
    };
    assert!(o.on_sack(t(ms), &s, ps));
    o.after_sack(t(ms), ps);
    (ps.paths[0].cwnd, ps.paths[0].pba)
}

#[test]
fn fast_recovery_sack_advancing_the_cum_ack_reports_every_hole() {
    // TSNs 1 and 3 are lost. SACKs (gap blocks as TSNs):
    //   S1 cum 0, {2}      HTNA 2: TSN 1 has 1 report;
    //   S2 cum 0, {2},{4}  HTNA 4: TSN 1 2 reports, TSN 3 1;
    //   S3 cum 0, {2},{4-5} HTNA 5: TSN 1 3 reports -> fast retransmit, fast recovery
    //                      (exit point: highest TSN sent); TSN 3 2 reports;
    //   S4 cum 2, {4-5}    (the retransmitted 1 arrived) newly acks only TSN 1, so
    //                      HTNA = 1 reports nothing; RFC 4960/9260 7.2.4 ("in Fast
    //                      Recovery and a SACK arrives that advances the Cumulative
    //                      TSN Ack Point": every TSN reported missing) gives TSN 3
    //                      its 3rd report -> fast retransmission of 3 (no second cut:
    //                      3 is below the exit point).
    // Without the rule TSN 3 stays at 2 reports and waits for more SACKs or T3.
    for (rule, fast_rtx) in [(true, 2), (false, 1)] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
        o.k.fast_rtx_threshold = 3;
        o.k.fast_recovery_miss_reports = rule;
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        sack(&mut o, &mut ps, 110, 0, &[(2, 2), (4, 4)]);
        sack(&mut o, &mut ps, 120, 0, &[(2, 2), (4, 5)]);
        assert_eq!(o.stats.fast_retransmissions, 1, "TSN 1");
        assert_eq!(o.stats.fast_recoveries, 1);
        let cwnd = ps.paths[0].cwnd;
        sack(&mut o, &mut ps, 220, 2, &[(2, 3)]);
        assert_eq!(o.stats.fast_retransmissions, fast_rtx, "rule {rule}");
        assert_eq!(o.stats.fast_recoveries, 1, "one cut per window");
        assert_eq!(ps.paths[0].cwnd, cwnd, "no growth in fast recovery");
    }
}

#[test]
fn t3_cuts_ssthresh_on_every_expiry_in_the_rfc_presets() {
    // Set-up: cwnd 16 MTU, four chunks out (Max.Burst 4). First expiry: ssthresh =
    // max(16/2, 4) = 8 MTU, cwnd 1 MTU (RFC 4960/9260 7.2.3, and ns-2 alike). A second
    // expiry with no SACK between: the RFCs give ssthresh = max(1/2, 4) = 4 MTU; ns-2
    // (`Timeout`: only if cwnd > 1 MTU) keeps 8 MTU.
    for (every, second) in [(true, 4.0), (false, 8.0)] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 16.0 * M, 1e9, None);
        o.k.t3_ssthresh_every_expiry = every;
        o.send_new(t(0), &mut ps);
        o.on_t3(t(3000), 0, &mut ps);
        assert_eq!((ps.paths[0].ssthresh / M, ps.paths[0].cwnd / M), (8.0, 1.0));
        o.on_t3(t(9000), 0, &mut ps);
        let p = &ps.paths[0];
        assert_eq!((p.ssthresh / M, p.cwnd / M), (second, 1.0), "every {every}");
    }
    assert!(!preset(Variant::Ns2).t3_ssthresh_every_expiry);
    assert!(preset(Variant::Rfc9260).t3_ssthresh_every_expiry);
}

#[test]
fn t3_ends_fast_recovery_only_where_a_stack_does_so() {
    // TSN 1 is lost and fast-retransmitted on the third SACK (gaps {2}, {2-3},
    // {2-4}): fast recovery until the highest TSN sent is acked. The retransmission
    // is lost too and T3 expires: cwnd 1 MTU, TSN 1 goes again. Its SACK (cum 4)
    // advances the cumulative ack but not past the exit point.
    // Leaving fast recovery on T3 (Linux, usrsctp `sctp_t3rxt_timer`): slow start,
    // the window was full (flight >= 1 MTU) -> cwnd = 1 + min(1016 B newly acked,
    // MTU) = 2 MTU. Staying in it (RFC 9260 7.2.3 and 7.2.4 end fast recovery only
    // when the cumulative ack reaches the exit point; ns-2.35 keeps its recover
    // point): no growth, cwnd 1 MTU.
    for (exits, cwnd) in [(true, 2.0), (false, 1.0)] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 4.0 * M, 1e9, None);
        o.k.t3_exits_fast_recovery = exits;
        o.k.fast_rtx_threshold = 3;
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
        sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
        assert_eq!(o.stats.fast_recoveries, 1);
        o.on_t3(t(1200), 0, &mut ps);
        assert_eq!(ps.paths[0].cwnd, M);
        let (c, _) = sack(&mut o, &mut ps, 1400, 4, &[]);
        assert_eq!(c / M, cwnd, "exits {exits}");
    }
    assert!(!preset(Variant::Ns2).t3_exits_fast_recovery);
    assert!(!preset(Variant::Rfc4960).t3_exits_fast_recovery);
    assert!(!preset(Variant::Rfc9260).t3_exits_fast_recovery);
    assert!(preset(Variant::Usrsctp).t3_exits_fast_recovery);
}

#[test]
fn a_lost_fast_retransmission_is_fast_retransmitted_again_with_multiple_fast_rtx() {
    // TSN 1 is lost; SACKs gap-acking 2, 2-3, 2-4 give it 3 missing reports: fast
    // retransmit (its counter restarts at 0). Each gap ack freed one MTU, so TSNs 5
    // and 6 went before the retransmission and 7 right after it. The retransmission
    // is lost too; the next SACKs gap-ack 5, 6, 7, 8, 9 (8 and 9 sent as those
    // SACKs free the window). A report only counts against the retransmission when
    // the SACK newly acks data sent after it (HTNA >= 7): SACKs for 7, 8, 9 give 3
    // reports, SACKs for 5 and 6 none (the retransmission might still be in flight).
    // `multiple_fast_rtx` (ns-2.35 Agent/SCTP/MultipleFastRtx, usrsctp
    // `sctp_strike_gap_ack_chunks`): TSN 1 is fast-retransmitted a second time on the
    // SACK for 9. RFC 9260 7.2.4 step 5 ("ineligible for a subsequent Fast
    // Retransmit") and ns-2.35's Agent/SCTP (`eIneligibleForFastRtx`): never twice;
    // T3 repairs.
    for (repeat, count) in [(true, 2), (false, 1)] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 4.0 * M, 1e9, None);
        o.k.fast_rtx_threshold = 3;
        o.k.multiple_fast_rtx = repeat;
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
        sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
        assert_eq!(o.stats.fast_retransmissions, 1);
        assert_eq!(o.next_tsn, 8, "TSNs 5-7 were sent");
        sack(&mut o, &mut ps, 300, 0, &[(2, 5)]);
        sack(&mut o, &mut ps, 310, 0, &[(2, 6)]);
        sack(&mut o, &mut ps, 320, 0, &[(2, 7)]);
        assert!(o.next_tsn > 9, "TSNs 8 and 9 were sent");
        sack(&mut o, &mut ps, 330, 0, &[(2, 8)]);
        assert_eq!(o.stats.fast_retransmissions, 1, "two reports only");
        sack(&mut o, &mut ps, 340, 0, &[(2, 9)]);
        assert_eq!(o.stats.fast_retransmissions, count, "repeat {repeat}");
        assert_eq!(o.stats.fast_recoveries, 1, "still one cut");
    }
    assert!(!preset(Variant::Ns2).multiple_fast_rtx);
    assert!(!preset(Variant::Rfc4960).multiple_fast_rtx);
    assert!(!preset(Variant::Rfc9260).multiple_fast_rtx);
    assert!(preset(Variant::Usrsctp).multiple_fast_rtx);
}

#[test]
fn rfc9260_fast_retransmit_in_fast_recovery_waits_for_cwnd() {
    // cwnd 8 MTU, no burst limit: TSNs 1-8 go; 1 and 3 are lost. SACKs (gap blocks
    // as TSNs; each frees one MTU, so TSNs 9 and 10 follow S1 and S2):
    //   S1 cum 0, {2};  S2 cum 0, {2},{4};  S3 cum 0, {2},{4-5}: TSN 1 has 3 reports
    //   -> fast retransmit outside fast recovery: ssthresh = cwnd = max(8/2, 4) =
    //   4 MTU, exit point TSN 10, TSN 1 goes at once whatever cwnd says.
    //   S4 cum 2, {4-5}: advances the cumulative ack in fast recovery, so TSN 3 gets
    //   its 3rd report (7.2.4) and is marked. Flight: TSNs 3, 6-10 = 6 MTU, 5 MTU of
    //   it unmarked, above cwnd 4 MTU.
    //   RFC 4960 7.2.4 step 3: the packet goes regardless of cwnd -> 2 fast rtx.
    //   RFC 9260 7.2.4 step 3 (RFC 8540 sec. 3.15): only "if not in Fast Recovery":
    //   TSN 3 waits -> 1 fast rtx.
    //   S5 cum 2, {4-7}: TSNs 6 and 7 leave the flight: 3 MTU unmarked < cwnd 4 MTU,
    //   TSN 3 goes (2 fast rtx in both).
    for (ignores, after_s4) in [(true, 2), (false, 1)] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
        o.k.fast_rtx_threshold = 3;
        o.k.max_burst_rule = MaxBurstRule::Off;
        o.k.fast_rtx_ignores_cwnd_in_recovery = ignores;
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        sack(&mut o, &mut ps, 110, 0, &[(2, 2), (4, 4)]);
        assert_eq!(o.next_tsn, 11, "TSNs 9 and 10 were sent");
        sack(&mut o, &mut ps, 120, 0, &[(2, 2), (4, 5)]);
        assert_eq!(o.stats.fast_retransmissions, 1, "TSN 1 regardless of cwnd");
        assert_eq!(ps.paths[0].cwnd, 4.0 * M);
        sack(&mut o, &mut ps, 220, 2, &[(2, 3)]);
        assert_eq!(o.stats.fast_retransmissions, after_s4, "ignores {ignores}");
        sack(&mut o, &mut ps, 230, 2, &[(2, 5)]);
        assert_eq!(o.stats.fast_retransmissions, 2, "ignores {ignores}");
        assert_eq!(o.stats.fast_recoveries, 1);
    }
    assert!(preset(Variant::Rfc4960).fast_rtx_ignores_cwnd_in_recovery);
    assert!(!preset(Variant::Rfc9260).fast_rtx_ignores_cwnd_in_recovery);
    assert!(preset(Variant::Ns2).fast_rtx_ignores_cwnd_in_recovery);
}

#[test]
fn retransmitting_a_large_marked_flight_walks_it_once() {
    // 20 000 one-chunk packets in flight, then T3: every chunk is marked and one
    // packet goes. With the window opened wide, the other 19 999 go packet by
    // packet. Each packet's search starts where the previous one stopped, so
    // `rtx_marked` looks at about two chunks per packet (the one it sends and the
    // one that ends the packet); restarting every search at the front of the
    // flight, as it once did, would look at 2 * 10^8.
    const N: u64 = 20_000;
    let (mut o, mut ps) = sender(Variant::Rfc4960, N as f64 * M, 1e12, None);
    o.k.max_burst_rule = MaxBurstRule::Off;
    o.peer_rwnd = 1e12;
    o.send_new(t(0), &mut ps);
    assert_eq!(o.sent.len() as u64, N);
    o.on_t3(t(3000), 0, &mut ps);
    assert_eq!(o.stats.timeout_retransmissions, 1);
    ps.paths[0].cwnd = 2.0 * N as f64 * M;
    let sent = o.rtx_marked(t(3000), false, &mut ps) as u64;
    assert_eq!(sent, N - 1);
    assert_eq!(o.stats.timeout_retransmissions, N);
    assert!(o.rtx_visits <= 3 * N, "{} chunk visits", o.rtx_visits);
    // SACK-driven, on a smaller flight (debug builds recount the flight on every
    // SACK): after T3, SACKs acking one chunk each let cwnd (slow start from 1 MTU)
    // send the marked chunks a few at a time; the same bound holds over the repair.
    const S: u32 = 2_000;
    let (mut o, mut ps) = sender(Variant::Rfc4960, f64::from(S) * M, 1e12, None);
    o.k.max_burst_rule = MaxBurstRule::Off;
    o.peer_rwnd = 1e12;
    o.send_new(t(0), &mut ps);
    o.on_t3(t(3000), 0, &mut ps);
    for k in 1..=S {
        sack(&mut o, &mut ps, 3000 + u64::from(k), k, &[]);
    }
    assert_eq!(o.counts.marked, 0, "every marked chunk went");
    assert!(
        o.rtx_visits <= 3 * u64::from(S),
        "{} chunk visits",
        o.rtx_visits
    );
}

#[test]
fn an_idle_destination_halves_cwnd_per_rto() {
    // Congestion avoidance (ssthresh 2 MTU), cwnd 32 MTU, no burst limit: TSNs 1-32
    // go at 0. The SACK at 100 ms acks all of them: pba 32 MTU >= cwnd with the
    // window full -> cwnd 33 MTU (7.2.2), and the RTT sample of 0.1 s gives RTO =
    // max(0.1 + 4 x 0.05, RTO.Min 1 s) = 1 s. Then nothing is sent.
    // RFC 9260 7.2.1: max(cwnd/2, 4 MTU) per RTO without data: at 0.95 s, less than
    // one RTO after the last DATA, 33 MTU; at 2.05 s, two whole RTOs since the DATA
    // at 0: 33/4 = 8.25 MTU; at 5.05 s (three more RTOs from 2 s): 8.25/2 -> floor
    // 4 MTU. Without the rule (ns2 and seed presets): 33 MTU throughout.
    for (decay, expect) in [(true, [33.0, 8.25, 4.0]), (false, [33.0, 33.0, 33.0])] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 32.0 * M, 2.0 * M, Some(32_000));
        o.k.max_burst_rule = MaxBurstRule::Off;
        o.k.idle_cwnd_decay = decay;
        o.send_new(t(0), &mut ps);
        let (c, _) = sack(&mut o, &mut ps, 100, 32, &[]);
        assert_eq!(c / M, 33.0);
        assert_eq!(ps.paths[0].rto.current().as_secs_f64(), 1.0);
        let mut got = [0.0; 3];
        for (g, ms) in got.iter_mut().zip([950, 2050, 5050]) {
            o.send_new(t(ms), &mut ps);
            *g = ps.paths[0].cwnd / M;
        }
        assert_eq!(got, expect, "decay {decay}");
    }
    assert!(preset(Variant::Rfc9260).idle_cwnd_decay);
    assert!(preset(Variant::Rfc4960).idle_cwnd_decay);
    assert!(!preset(Variant::Ns2).idle_cwnd_decay);
    assert!(!preset(Variant::Newreno).idle_cwnd_decay);
}

#[test]
fn max_burst_zero_means_no_limit() {
    // RFC 6458 sec. 8.1.24: Max.Burst 0 disables burst limiting. cwnd 8 MTU, an
    // empty flight: all 8 one-chunk packets go at once under every rule (the guide's
    // clamp outstanding + 0 MTU and "at most 0 packets" would send nothing, ever).
    for rule in [
        MaxBurstRule::Guide,
        MaxBurstRule::Packets,
        MaxBurstRule::Ns2,
    ] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
        o.k.max_burst = 0;
        o.k.max_burst_rule = rule;
        o.apply_max_burst = true;
        o.send_new(t(0), &mut ps);
        assert_eq!(o.next_tsn, 9, "{rule:?}");
        assert_eq!(ps.paths[0].cwnd, 8.0 * M, "{rule:?}");
    }
}

#[test]
fn rfc9260_slow_start_grows_on_sacks_that_do_not_advance_the_cumulative_ack() {
    // cwnd 4 MTU, ssthresh far above: slow start. TSNs 1-4 fill cwnd (flight 4 MTU).
    // TSN 1 is missing; SACKs report 2, then 2-3, in gap blocks (cum ack stays 0).
    // RFC 4960 7.2.1 grows cwnd only when "an incoming SACK advances the Cumulative
    // TSN Ack Point": cwnd stays 4 MTU on both. RFC 9260 7.2.1 drops that condition:
    // cwnd full and not in fast recovery, so cwnd += min(newly acked, MTU):
    //   SACK 1: flight 4 M >= cwnd 4 M -> cwnd 5 M; the sender refills to 5 M
    //           (flight 3 M after the SACK, TSNs 5 and 6 go);
    //   SACK 2: flight 5 M >= cwnd 5 M -> cwnd 6 M.
    for (v, expect) in [
        (Variant::Rfc4960, [4.0, 4.0]),
        (Variant::Rfc9260, [5.0, 6.0]),
    ] {
        let (mut o, mut ps) = sender(v, 4.0 * M, 1e9, None);
        o.send_new(t(0), &mut ps);
        assert_eq!(ps.paths[0].outstanding, 4.0 * M);
        let (c1, _) = sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        let (c2, _) = sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
        assert_eq!([c1 / M, c2 / M], expect, "{v:?}");
    }
}

#[test]
fn rfc9260_partial_bytes_acked_grows_on_every_sack() {
    // Congestion avoidance: cwnd 4 MTU > ssthresh 2 MTU. TSNs 1-4 fill cwnd; TSN 2
    // is lost. SACK a acks TSN 1 cumulatively; SACKs b, c, d gap-ack TSNs 3, 4, 5
    // (the sender refills cwnd after each, so the flight before every SACK is 4 M).
    // RFC 4960 7.2.2: pba counts only on SACKs that advance the cumulative ack ->
    //   pba 1 M after a, and stays 1 M; cwnd stays 4 M.
    // RFC 9260 7.2.2: pba counts every newly acked byte -> 1, 2, 3 M, then 4 M >=
    //   cwnd with the flight (4 M) >= cwnd: pba = 4 M - 4 M = 0, cwnd 5 M.
    for (v, cwnds, pbas) in [
        (Variant::Rfc4960, [4.0, 4.0, 4.0, 4.0], [1.0, 1.0, 1.0, 1.0]),
        (Variant::Rfc9260, [4.0, 4.0, 4.0, 5.0], [1.0, 2.0, 3.0, 0.0]),
    ] {
        let (mut o, mut ps) = sender(v, 4.0 * M, 2.0 * M, None);
        o.send_new(t(0), &mut ps);
        let steps = [
            sack(&mut o, &mut ps, 100, 1, &[]),
            sack(&mut o, &mut ps, 110, 1, &[(2, 2)]),
            sack(&mut o, &mut ps, 120, 1, &[(2, 3)]),
            sack(&mut o, &mut ps, 130, 1, &[(2, 4)]),
        ];
        assert_eq!(steps.map(|s| s.0 / M), cwnds, "{v:?} cwnd");
        assert_eq!(steps.map(|s| s.1 / M), pbas, "{v:?} pba");
    }
}

#[test]
fn rfc9260_partial_bytes_acked_is_pulled_back_to_cwnd_below_a_full_window() {
    // Set-up: congestion avoidance (cwnd 4 MTU, ssthresh 2 MTU) with pba already at
    // 3 MTU, and an application with only three 1000-byte messages: flight 3 M < cwnd.
    // One SACK acks TSNs 1 and 2 (2 M).
    // RFC 9260 7.2.2: pba = 3 + 2 = 5 M > cwnd while the flight was below cwnd ->
    //   pba = cwnd = 4 M; no growth (the window was not full); one chunk remains out,
    //   so pba is not zeroed.
    // RFC 4960 as ns-2 codes it (pba counts only while cwnd is full): pba stays 3 M.
    for (v, pba) in [(Variant::Rfc4960, 3.0), (Variant::Rfc9260, 4.0)] {
        let (mut o, mut ps) = sender(v, 4.0 * M, 2.0 * M, Some(3000));
        ps.paths[0].pba = 3.0 * M;
        o.send_new(t(0), &mut ps);
        assert_eq!(ps.paths[0].outstanding, 3.0 * M);
        let (c, p) = sack(&mut o, &mut ps, 100, 2, &[]);
        assert_eq!((c / M, p / M), (4.0, pba), "{v:?}");
        // Everything acknowledged: pba = 0 (7.2.2, both texts).
        assert_eq!(sack(&mut o, &mut ps, 110, 3, &[]).1, 0.0, "{v:?}");
    }
}

#[test]
fn cubic_cut_replaces_the_halving_at_fast_retransmit_and_t3() {
    // cwnd 20 MTU, four chunks out (Max.Burst 4); TSN 1 gets three missing reports
    // (gap-only SACKs: no growth under RFC 4960's rule) -> fast retransmit. Reno
    // (RFC 9260 7.2.3): max(20/2, 4) = 10 MTU; CUBIC (RFC 9438 sec. 4.6): 0.7 * 20 = 14
    // MTU. Then T3: cwnd 1 MTU; ssthresh 0.7 * 14 = 9.8 MTU with CUBIC (RFC 9438 sec.
    // 4.8: beta_cubic, as at any event), max(10/2, 4) = 5 MTU with Reno.
    for (algo, after_fr, t3_ssthresh) in [
        (crate::cc::Algorithm::Reno, 10.0, 5.0),
        (crate::cc::Algorithm::Cubic, 14.0, 0.7 * 14.0),
    ] {
        let (mut o, mut ps) = sender(Variant::Rfc4960, 20.0 * M, 1e9, None);
        o.k.fast_rtx_threshold = 3;
        o.k.congestion_control = algo;
        ps.paths[0].cc = crate::sctp::path_cc::for_knobs(&o.k);
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
        sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
        sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
        assert_eq!(o.stats.fast_recoveries, 1);
        let p = &ps.paths[0];
        assert!(
            (p.cwnd / M - after_fr).abs() < 1e-9,
            "{algo:?} cwnd {}",
            p.cwnd / M
        );
        assert!((p.ssthresh / M - after_fr).abs() < 1e-9, "{algo:?}");
        o.on_t3(t(3000), 0, &mut ps);
        let p = &ps.paths[0];
        assert_eq!(p.cwnd, M, "{algo:?}");
        assert!(
            (p.ssthresh / M - t3_ssthresh).abs() < 1e-9,
            "{algo:?} {}",
            p.ssthresh / M
        );
    }
}

#[test]
fn cubic_runs_per_destination() {
    // Two destinations with CUBIC, data to the first only: a fast retransmit there cuts
    // its window to 0.7 * 20 MTU and leaves the second's window and controller as they
    // were (RFC 9260 7.2: congestion state per destination).
    let (mut o, mut ps) = sender(Variant::Rfc4960, 20.0 * M, 1e9, None);
    o.k.fast_rtx_threshold = 3;
    o.k.congestion_control = crate::cc::Algorithm::Cubic;
    let second = ps.paths[0].clone();
    ps = PathSet::new(vec![ps.paths[0].clone(), second]);
    ps.paths[1].addr = [10, 0, 1, 2];
    for p in &mut ps.paths {
        p.cc = crate::sctp::path_cc::for_knobs(&o.k);
    }
    o.send_new(t(0), &mut ps);
    assert_eq!(ps.paths[1].outstanding, 0.0, "new data goes to the first");
    sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
    sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
    sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
    assert!((ps.paths[0].cwnd / M - 14.0).abs() < 1e-9);
    assert_eq!(ps.paths[1].cwnd, 20.0 * M);
    let w_max = |i: usize| ps.paths[i].cc.as_ref().and_then(|c| c.controller().w_max());
    assert_eq!((w_max(0), w_max(1)), (Some(20.0), None));
}
