//! Golden tests of CMT's rules chunk by chunk, expectations derived by hand from the
//! ToN 2006 paper's rules as ns-2.35's `sctp-cmt.cc` codes them (comments give each
//! step). Two destinations, A (index 0) and B (1); a 1048-byte PMTU leaves 1016 bytes
//! of chunks per packet, one 1000-byte message in a 1016-byte chunk: one chunk per
//! packet, TSNs from 1.

use super::*;
use crate::sctp::config::{Variant, preset};
use crate::sctp::path::{Path, PathState, Rto};
use crate::sim::SimDuration;

const M: f64 = 1016.0;

fn knobs(sfr: bool, cuc: bool, dac: bool, policy: RtxPolicy) -> CmtKnobs {
    CmtKnobs {
        sfr,
        cuc,
        dac,
        rtx_policy: policy,
        ..CmtKnobs::default()
    }
}

/// A CMT sender over A and B with the `ns2` preset's knobs, both cwnds `cwnd`,
/// ssthresh far above (slow start).
fn sender(k: CmtKnobs, cwnd: f64) -> (Outbound, PathSet) {
    let mut kn = preset(Variant::Ns2);
    kn.cmt = Some(k);
    let app = AppSource::new(None, 1000, 1, false);
    let mut o = Outbound::new(kn, 1, app, 1048, 1 << 24, true, Window::ALL);
    o.enable_cmt(7);
    let rto = || {
        Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        )
    };
    let ps = PathSet::new(vec![
        Path::new([10, 0, 0, 2], 1016, cwnd, 1e9, rto()),
        Path::new([10, 1, 0, 2], 1016, cwnd, 1e9, rto()),
    ]);
    (o, ps)
}

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

/// A SACK: gap blocks as TSN offsets from `cum`, `flags` the DAC packet count.
fn sack(o: &mut Outbound, ps: &mut PathSet, ms: u64, cum: u32, gaps: &[(u16, u16)], flags: u8) {
    let s = SackChunk {
        cum_tsn_ack: cum,
        a_rwnd: 1 << 24,
        gaps: gaps.to_vec(),
        dups: Vec::new(),
        flags,
    };
    assert!(o.on_sack(t(ms), &s, ps));
    o.after_sack(t(ms), ps);
}

fn missing(o: &Outbound, tsn: u32) -> u32 {
    o.sent
        .iter()
        .find(|s| s.tsn == tsn)
        .map_or(0, |s| s.missing)
}

fn dest_of(o: &Outbound, tsn: u32) -> usize {
    o.sent
        .iter()
        .find(|s| s.tsn == tsn)
        .map_or(usize::MAX, |s| s.dest)
}

/// (packet number, destination index) of every DATA send recorded so far.
fn sends(o: &mut Outbound, ps: &PathSet) -> Vec<(u32, SendKind, usize)> {
    let mut v = Vec::new();
    while let Some(e) = o.events.pop_front() {
        if let crate::endpoint::EndpointEvent::Sent { seq, kind, dest } = e {
            v.push((seq, kind, ps.index_of(dest).unwrap_or(usize::MAX)));
        }
    }
    v
}

#[test]
fn new_data_goes_round_robin_to_every_destination_as_cwnd_allows() {
    // ns-2.35 `SendMuch`: from the destination after the one last sent to (none yet:
    // the first), each filled while outstanding < cwnd. cwnd 2 MTU each: TSNs 1-2 to A,
    // 3-4 to B (B last). SACK cum 1 acks A's 1: A's window was full, slow start: cwnd
    // 3 MTU, 1 MTU out; the round starts at A (after B): TSNs 5, 6 to A; B is full.
    // SACK cum 3 acks A's 2 (A full at 3: cwnd 4) and B's 3 (B full at 2: cwnd 3); the
    // round starts at B (A was last): TSNs 7, 8 to B (1 -> 3 out), then 9, 10 to A
    // (2 -> 4 out).
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), 2.0 * M);
    o.send_new(t(0), &mut ps);
    assert_eq!(
        (1..=4).map(|n| dest_of(&o, n)).collect::<Vec<_>>(),
        [0, 0, 1, 1]
    );
    sack(&mut o, &mut ps, 100, 1, &[], 0);
    assert_eq!(ps.paths[0].cwnd / M, 3.0);
    assert_eq!((dest_of(&o, 5), dest_of(&o, 6), o.next_tsn), (0, 0, 7));
    sack(&mut o, &mut ps, 110, 3, &[], 0);
    assert_eq!((ps.paths[0].cwnd / M, ps.paths[1].cwnd / M), (4.0, 3.0));
    let after: Vec<_> = sends(&mut o, &ps).into_iter().skip(6).collect();
    let want = [7, 8, 9, 10].map(|n| (n, SendKind::New, usize::from(n >= 9) ^ 1));
    assert_eq!(after, want);
}

#[test]
fn sfr_reports_missing_only_on_the_destination_a_sack_newly_acks() {
    // cwnd 4 MTU each: A carries TSNs 1-4, B 5-8. A's path is slower: B's chunks are
    // SACKed first, S1 {5}, S2 {5-6}, S3 {5-7} (cum 0 throughout), nothing lost.
    // Without SFR every SACK's highest newly acked TSN (5, 6, 7) lies above 1-4: each
    // gets 3 reports and all four are fast-retransmitted spuriously at S3. With SFR
    // no SACK newly acks data sent to A, so A's TSNs get no report at all.
    // (DAC off: one report per SACK.)
    for sfr in [true, false] {
        let (mut o, mut ps) = sender(knobs(sfr, true, false, RtxPolicy::Same), 4.0 * M);
        o.send_new(t(0), &mut ps);
        assert_eq!((dest_of(&o, 4), dest_of(&o, 5)), (0, 1));
        sack(&mut o, &mut ps, 100, 0, &[(5, 5)], 1);
        sack(&mut o, &mut ps, 110, 0, &[(5, 6)], 1);
        if sfr {
            sack(&mut o, &mut ps, 120, 0, &[(5, 7)], 1);
            assert_eq!((1..=4).map(|n| missing(&o, n)).collect::<Vec<_>>(), [0; 4]);
            assert_eq!(o.stats.fast_retransmissions, 0);
        } else {
            assert_eq!((1..=4).map(|n| missing(&o, n)).collect::<Vec<_>>(), [2; 4]);
            sack(&mut o, &mut ps, 120, 0, &[(5, 7)], 1);
            assert_eq!(o.stats.fast_retransmissions, 4);
        }
    }
}

#[test]
fn sfr_counts_a_hole_below_the_highest_tsn_acked_on_its_destination() {
    // TSN 1 (A) is lost. S1 {2} (A), S2 {2-3}, S3 {2-4}: each newly acks data on A
    // above TSN 1, so TSN 1 gets one report each (DAC off) and is fast-retransmitted at
    // S3. B's chunks, unacked, lie below no TSN newly acked on B: no report.
    let (mut o, mut ps) = sender(knobs(true, true, false, RtxPolicy::Same), 4.0 * M);
    o.send_new(t(0), &mut ps);
    sack(&mut o, &mut ps, 100, 0, &[(2, 2)], 1);
    assert_eq!((missing(&o, 1), missing(&o, 5)), (1, 0));
    sack(&mut o, &mut ps, 110, 0, &[(2, 3)], 1);
    assert_eq!(missing(&o, 1), 2);
    sack(&mut o, &mut ps, 120, 0, &[(2, 4)], 1);
    assert_eq!(o.stats.fast_retransmissions, 1);
    assert_eq!(missing(&o, 5), 0);
}

#[test]
fn dac_adds_the_sacks_packet_count_unless_the_sack_acks_across_the_hole() {
    // TSN 1 (A) lost. S1 cum 0 {2-3}, flags 2 (two packets, 2 and 3): one destination
    // (A) newly acked, lowest TSN newly acked there 2 > 1: TSN 1 += 2. S2 {2-4}, flags 1:
    // += 1 -> 3 reports, fast retransmit after two SACKs (without DAC: 2 reports, none).
    for (dac, after_s2, fast) in [(true, 3, 1), (false, 2, 0)] {
        let (mut o, mut ps) = sender(knobs(true, true, dac, RtxPolicy::Same), 4.0 * M);
        o.send_new(t(0), &mut ps);
        sack(&mut o, &mut ps, 100, 0, &[(2, 3)], 2);
        assert_eq!(missing(&o, 1), if dac { 2 } else { 1 });
        sack(&mut o, &mut ps, 110, 0, &[(2, 4)], 1);
        assert_eq!(o.stats.fast_retransmissions, fast, "dac {dac}");
        if fast == 0 {
            assert_eq!(missing(&o, 1), after_s2);
        }
    }
    // TSN 2 (A) lost; S1 cum 1 {2-3} (TSNs 3, 4), flags 2: the SACK newly acks TSN 1 on
    // A too, below the hole, so it acks across it: one report, not two.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Same), 4.0 * M);
    o.send_new(t(0), &mut ps);
    sack(&mut o, &mut ps, 100, 1, &[(2, 3)], 2);
    assert_eq!(missing(&o, 2), 1);
    // S2 cum 1 {2-4} newly acks only B's TSN 5: nothing on A, so (SFR) no report.
    sack(&mut o, &mut ps, 110, 1, &[(2, 4)], 2);
    assert_eq!(missing(&o, 2), 1);
}

#[test]
fn dac_mixed_sack_counts_one_report() {
    // TSN 1 (A) lost; S1 cum 0 {2-2},{5-5}, flags 2: it newly acks A's 2 and B's 5, two
    // destinations: TSN 1 += 1 (not 2).
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Same), 4.0 * M);
    o.send_new(t(0), &mut ps);
    sack(&mut o, &mut ps, 100, 0, &[(2, 2), (5, 5)], 2);
    assert_eq!(missing(&o, 1), 1);
}

#[test]
fn cuc_grows_the_destination_whose_pseudo_cumulative_tsn_moves() {
    // cwnd 4 MTU each, full: A 1-4, B 5-8. TSN 1 (A) lost. SACK cum 0 {2-8}: A's
    // expected pseudo-cumulative TSN is 1 (not acked): A's does not move, no growth. B's
    // is 5, newly acked: it moves, and B in slow start with a full window grows by
    // min(4 chunks acked, 1 MTU): 5 MTU. Without CUC growth needs the cumulative TSN to
    // advance (ns-2.35 `ProcessSackChunk` without `useCmtCwnd_`): neither grows.
    for (cuc, b_cwnd) in [(true, 5.0), (false, 4.0)] {
        let (mut o, mut ps) = sender(knobs(true, cuc, true, RtxPolicy::Same), 4.0 * M);
        o.send_new(t(0), &mut ps);
        let s = SackChunk {
            cum_tsn_ack: 0,
            a_rwnd: 1 << 24,
            gaps: vec![(2, 8)],
            dups: Vec::new(),
            flags: 2,
        };
        assert!(o.on_sack(t(100), &s, &mut ps));
        assert_eq!(ps.paths[0].cwnd / M, 4.0, "cuc {cuc}: A");
        assert_eq!(ps.paths[1].cwnd / M, b_cwnd, "cuc {cuc}: B");
    }
}

#[test]
fn cuc_counts_partial_bytes_acked_from_the_moved_pseudo_cumulative_tsn() {
    // Congestion avoidance (ssthresh 1 MTU, cwnd 4 MTU): SACK cum 0 {2-8}. ns-2.35
    // adds a gap-acked chunk to partial_bytes_acked once its destination's
    // pseudo-cumulative TSN has moved in this SACK: B's 5 moves it, so 5-8 count (4
    // chunks, 4 MTU); A's 2-4 do not (its pseudo-cumulative TSN 1 stays). B's pba 4 MTU
    // >= cwnd with a full window: cwnd 5 MTU, pba 0.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Same), 4.0 * M);
    for p in &mut ps.paths {
        p.ssthresh = M;
    }
    o.send_new(t(0), &mut ps);
    let s = SackChunk {
        cum_tsn_ack: 0,
        a_rwnd: 1 << 24,
        gaps: vec![(2, 8)],
        dups: Vec::new(),
        flags: 2,
    };
    assert!(o.on_sack(t(100), &s, &mut ps));
    assert_eq!((ps.paths[0].cwnd / M, ps.paths[0].pba), (4.0, 0.0));
    assert_eq!((ps.paths[1].cwnd / M, ps.paths[1].pba), (5.0, 0.0));
}

#[test]
fn each_policy_picks_its_destination() {
    // Nothing outstanding; A cwnd 4 MTU, ssthresh 10 MTU; B cwnd 8 MTU, ssthresh 5 MTU.
    // A chunk last sent to A: same -> A; cwnd -> B (larger cwnd); ssthresh -> A (larger
    // ssthresh); lossrate with 2 of 10 chunks to A lost and none of B's -> B; asap with
    // A's window full -> B, the only one with room.
    let set = |o: &mut Outbound, ps: &mut PathSet| {
        ps.paths[0].cwnd = 4.0 * M;
        ps.paths[0].ssthresh = 10.0 * M;
        ps.paths[1].cwnd = 8.0 * M;
        ps.paths[1].ssthresh = 5.0 * M;
        let c = o.cmt.as_deref_mut().expect("cmt");
        c.ensure(2);
        c.dests[0].chunks_sent = 10;
        c.dests[0].chunks_lost = 2;
        c.dests[1].chunks_sent = 10;
    };
    for (policy, want) in [
        (RtxPolicy::Same, 0),
        (RtxPolicy::Cwnd, 1),
        (RtxPolicy::Ssthresh, 0),
        (RtxPolicy::Lossrate, 1),
    ] {
        let (mut o, mut ps) = sender(knobs(true, true, true, policy), M);
        set(&mut o, &mut ps);
        assert_eq!(o.cmt_rtx_dest(&mut ps, 0, false), Some(want), "{policy:?}");
    }
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Asap), M);
    set(&mut o, &mut ps);
    ps.paths[0].outstanding = 4.0 * M;
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, false), Some(1));
    // The policy's choice without room: the chunk waits (cwnd: B full) -- unless a fast
    // retransmit marked a chunk sent to B, which may take one packet regardless.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), M);
    set(&mut o, &mut ps);
    ps.paths[1].outstanding = 8.0 * M;
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, true), None);
    o.cmt.as_deref_mut().expect("cmt").dests[1].rtx_limit_one = true;
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, true), Some(1));
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, false), None);
    // Inactive and potentially-failed destinations are passed over (cwnd picks A), and
    // `same` walks on from an inactive one.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), M);
    set(&mut o, &mut ps);
    ps.paths[1].state = PathState::PotentiallyFailed;
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, false), Some(0));
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Same), M);
    set(&mut o, &mut ps);
    ps.paths[0].state = PathState::Inactive;
    assert_eq!(o.cmt_rtx_dest(&mut ps, 0, false), Some(1));
}

#[test]
fn a_fast_retransmission_goes_to_the_largest_cwnd_and_cuts_only_the_lossy_destination() {
    // cwnd 4 MTU each: A 1-4, B 5-8; TSN 1 lost. S1 cum 0 {2-3}, flags 2: TSN 1 += 2
    // (DAC); A's pseudo-cumulative TSN (1) does not move, no growth; A has 2 MTU out:
    // TSNs 9, 10 go to A. S2 {2-4},{5-5}, flags 2, newly acks A's 4 and B's 5 (mixed):
    // TSN 1 += 1 -> 3 reports, fast retransmit. B's pseudo-cumulative TSN 5 moved with
    // its window full: B cwnd 5 MTU. A is cut: ssthresh max(4/2, 4 MTU floor) = 4 MTU,
    // cwnd 4 MTU; B is not. RTX_CWND: B (5 > 4 MTU), 3 MTU out: room, so TSN 1 goes
    // to B.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), 4.0 * M);
    o.send_new(t(0), &mut ps);
    sack(&mut o, &mut ps, 100, 0, &[(2, 3)], 2);
    assert_eq!(missing(&o, 1), 2);
    assert_eq!((dest_of(&o, 9), dest_of(&o, 10)), (0, 0));
    sends(&mut o, &ps);
    sack(&mut o, &mut ps, 110, 0, &[(2, 4), (5, 5)], 2);
    assert_eq!(o.stats.fast_retransmissions, 1);
    assert_eq!((ps.paths[0].ssthresh / M, ps.paths[0].cwnd / M), (4.0, 4.0));
    assert_eq!((ps.paths[1].ssthresh, ps.paths[1].cwnd / M), (1e9, 5.0));
    let s = sends(&mut o, &ps);
    assert_eq!(s[0], (1, SendKind::FastRtx, 1));
    assert_eq!(dest_of(&o, 1), 1);
}

#[test]
fn cmt_pf_keeps_new_data_off_a_potentially_failed_destination() {
    // B potentially failed: new data only to A (cwnd 2 MTU: TSNs 1-2, nothing to B).
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), 2.0 * M);
    ps.paths[1].state = PathState::PotentiallyFailed;
    o.send_new(t(0), &mut ps);
    assert_eq!((dest_of(&o, 1), dest_of(&o, 2), o.sent.len()), (0, 0, 2));
}

#[test]
fn cmt_pf_makes_the_best_potentially_failed_destination_active_when_all_are() {
    // ns-2.35 `SelectFromPFDests`: A 2 errors, B 1: B becomes active with cwnd 1 MTU and
    // its T3 stopped, and takes the new data (1 MTU: one chunk).
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), 4.0 * M);
    for (j, errors) in [(0, 2), (1, 1)] {
        ps.paths[j].state = PathState::PotentiallyFailed;
        ps.paths[j].error_count = errors;
        ps.paths[j].t3 = Some(t(5000));
    }
    o.send_new(t(0), &mut ps);
    assert_eq!(ps.paths[1].state, PathState::Active);
    assert_eq!(ps.paths[0].state, PathState::PotentiallyFailed);
    assert_eq!(ps.paths[1].cwnd, M);
    assert_eq!((o.sent.len(), dest_of(&o, 1)), (1, 1));
    // Equal errors: the one potentially failed most recently wins (A here).
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Cwnd), 4.0 * M);
    for (j, since) in [(0, 900), (1, 400)] {
        ps.paths[j].state = PathState::PotentiallyFailed;
        ps.paths[j].error_count = 1;
        ps.paths[j].pf_since = t(since);
    }
    assert_eq!(o.cmt_select_from_pf(&mut ps), Some(0));
    // Not all potentially failed: none is touched.
    ps.paths[1].state = PathState::PotentiallyFailed;
    assert_eq!(o.cmt_select_from_pf(&mut ps), None);
}

#[test]
fn cmt_t3_cuts_ssthresh_on_every_expiry() {
    // ns-2.35 `SctpCMTAgent::Timeout` cuts ssthresh on every expiry, unlike its
    // single-path `Timeout` (only while cwnd > 1 MTU): cwnd 16 MTU -> ssthresh 8, cwnd
    // 1; again -> ssthresh max(1/2, 4) = 4 MTU.
    let (mut o, mut ps) = sender(knobs(true, true, true, RtxPolicy::Same), 16.0 * M);
    o.send_new(t(0), &mut ps);
    o.on_t3(t(3000), 0, &mut ps);
    assert_eq!((ps.paths[0].ssthresh / M, ps.paths[0].cwnd / M), (8.0, 1.0));
    o.on_t3(t(9000), 0, &mut ps);
    assert_eq!(ps.paths[0].ssthresh / M, 4.0);
}

#[test]
fn dac_receiver_delays_sacks_over_gaps_and_counts_packets_in_the_flags() {
    use crate::net::wire::DataFlags;
    use crate::sctp::inbound::Inbound;
    let data = |tsn| DataChunk {
        tsn,
        stream: 0,
        ssn: (tsn - 1) as u16,
        ppid: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 1000,
    };
    for dac in [true, false] {
        let mut r = Inbound::new(
            1,
            1 << 20,
            1,
            Some(SimDuration::from_millis(200)),
            Window::ALL,
            1016,
            false,
        );
        if dac {
            r.set_cmt_dac();
        }
        // First packet: a SACK at once, one packet.
        r.on_data(t(0), &data(1));
        r.after_packet(t(0));
        assert!(r.wants_sack());
        assert_eq!(r.take_sack().flags, u8::from(dac));
        // TSN 3 leaves a gap: RFC 9260 6.7 SACKs at once; DAC waits.
        r.on_data(t(10), &data(3));
        r.after_packet(t(10));
        assert_eq!(r.wants_sack(), !dac);
        if dac {
            // The second packet brings the SACK: two packets.
            r.on_data(t(20), &data(4));
            r.after_packet(t(20));
            assert!(r.wants_sack());
            assert_eq!(r.take_sack().flags, 2);
            // One more packet, then the timer's SACK: ns-2.35 clears the count
            // before building it, so 0.
            r.on_data(t(30), &data(5));
            r.after_packet(t(30));
            assert!(!r.wants_sack());
            r.on_timeout(t(230));
            assert!(r.wants_sack());
            assert_eq!(r.take_sack().flags, 0);
        }
    }
}
