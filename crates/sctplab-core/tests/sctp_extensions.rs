//! ns-2.35's SCTP extension agents as knobs (CMT-SCTP, `Agent/SCTP/CMT`; HbAfterRto;
//! Timestamp; NR-SACK with a send buffer)
//! between two bare dual-homed associations: the
//! client has 10.0.0.1 and 11.0.0.1, the server 10.0.0.2 and 11.0.0.2; link 0 joins the
//! 10.x addresses, link 1 the 11.x ones, 50 ms one way each, no serialisation time; a cut
//! link loses every packet. RTT 100 ms puts every RTO at RTO.Min = 1 s.

use sctplab_core::endpoint::Endpoint;
use sctplab_core::metrics::Window;
use sctplab_core::net::Packet;
use sctplab_core::net::wire::{Chunk, TimestampChunk, TransportRepr};
use sctplab_core::sctp::config::Variant as SctpVariant;
use sctplab_core::sctp::config::{Knobs, preset};
use sctplab_core::sctp::{AssocCfg, Association, CmtKnobs, PathState, Role};
use sctplab_core::sim::{RngStream, SimDuration, SimTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const A0: [u8; 4] = [10, 0, 0, 1];
const A1: [u8; 4] = [11, 0, 0, 1];
const B0: [u8; 4] = [10, 0, 0, 2];
const B1: [u8; 4] = [11, 0, 0, 2];
const MTU: f64 = 1468.0;

fn at(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(s)
}

fn cmt_knobs() -> Knobs {
    let mut k = preset(SctpVariant::Ns2);
    k.cmt = Some(CmtKnobs::default());
    // CMT-PF: the first T3 expiry makes a destination potentially failed (the scenario
    // layer sets this with `cmt_pf`).
    k.pf_max_retrans = Some(0);
    k
}

fn cfg(local: Vec<[u8; 4]>, knobs: Knobs) -> AssocCfg {
    AssocCfg {
        ports: (5000, 6000),
        pmtu: 1500,
        streams: 1,
        receive_buffer: 64 * 1024,
        initial_ssthresh: None,
        knobs,
        rto_initial: SimDuration::from_secs(3),
        rto_min: SimDuration::from_secs(1),
        rto_max: SimDuration::from_secs(60),
        delayed_sack: Some(SimDuration::from_millis(200)),
        heartbeat: Some(SimDuration::from_secs(30)),
        cookie_lifetime: SimDuration::from_secs(60),
        association_max_retrans: 10,
        max_init_retrans: 8,
        total: None,
        message_size: 1452,
        unordered: false,
        start: SimTime::ZERO,
        stop: None,
        window: Window::ALL,
        trace_sends: false,
        trace_acks: false,
        local_addrs: local,
        primary_peer: B0,
        stream_traffic: Vec::new(),
    }
}

struct Net {
    c: Association,
    s: Association,
    now: SimTime,
    seq: u64,
    q: BinaryHeap<Reverse<(SimTime, u64, bool, usize)>>,
    pkts: Vec<Option<Packet>>,
    cut: [bool; 2],
    /// (time, destination, TSN) of every DATA chunk the client sent.
    data: Vec<(f64, [u8; 4], u32)>,
    /// (time, destination) of every HEARTBEAT the client sent.
    heartbeats: Vec<(f64, [u8; 4])>,
    /// The n-th DATA chunk the client sends (from 0) is lost once.
    drop_nth_data: Option<usize>,
    /// Every SACK or NR-SACK chunk the server sent.
    sacks: Vec<Chunk>,
    /// (time, from the client, first in its packet, chunk) of every TIMESTAMP chunk.
    stamps: Vec<(f64, bool, bool, TimestampChunk)>,
}

fn link_of(dst: [u8; 4]) -> usize {
    usize::from(dst[0] - 10)
}

impl Net {
    fn new(k: Knobs) -> Self {
        let (c, s) = (cfg(vec![A0, A1], k.clone()), cfg(vec![B0, B1], k));
        Net {
            c: Association::new(Role::Client, c, RngStream::new(7, "c")),
            s: Association::new(Role::Server, s, RngStream::new(7, "s")),
            now: SimTime::ZERO,
            seq: 0,
            q: BinaryHeap::new(),
            pkts: Vec::new(),
            cut: [false; 2],
            data: Vec::new(),
            heartbeats: Vec::new(),
            drop_nth_data: None,
            sacks: Vec::new(),
            stamps: Vec::new(),
        }
    }

    fn drain(&mut self) {
        for from_client in [true, false] {
            loop {
                let mut p = Packet::default();
                let ep = if from_client {
                    &mut self.c
                } else {
                    &mut self.s
                };
                if !ep.poll_transmit(self.now, &mut p) {
                    break;
                }
                p.ip.src = [p.ip.dst[0], 0, 0, if from_client { 1 } else { 2 }];
                let mut lost = false;
                if let TransportRepr::Sctp(sctp) = &p.transport {
                    for (i, c) in sctp.chunks.iter().enumerate() {
                        let t = self.now.as_secs_f64();
                        match c {
                            Chunk::Timestamp(ts) => self.stamps.push((t, from_client, i == 0, *ts)),
                            Chunk::Data(d) if from_client => {
                                lost |= self.drop_nth_data == Some(self.data.len());
                                self.data.push((t, p.ip.dst, d.tsn));
                            }
                            Chunk::Sack(_) | Chunk::NrSack(_) if !from_client => {
                                self.sacks.push(c.clone())
                            }
                            Chunk::Heartbeat { .. } if from_client => {
                                self.heartbeats.push((t, p.ip.dst))
                            }
                            _ => {}
                        }
                    }
                }
                if self.cut[link_of(p.ip.dst)] || lost {
                    continue;
                }
                self.seq += 1;
                self.pkts.push(Some(p));
                let arrive = self.now + SimDuration::from_millis(50);
                self.q.push(Reverse((
                    arrive,
                    self.seq,
                    from_client,
                    self.pkts.len() - 1,
                )));
            }
        }
    }

    fn run_until(&mut self, end: f64) {
        let end = at(end);
        self.drain();
        loop {
            let tq = self.q.peek().map(|Reverse((t, ..))| *t);
            let tc = self.c.poll_timeout();
            let ts = self.s.poll_timeout();
            let Some(next) = [tq, tc, ts]
                .into_iter()
                .flatten()
                .min()
                .filter(|&t| t <= end)
            else {
                self.now = end;
                return;
            };
            self.now = next.max(self.now);
            if tq == Some(next) {
                let Some(Reverse((_, _, to_server, i))) = self.q.pop() else {
                    unreachable!()
                };
                let p = self.pkts[i].take().expect("queued once");
                if !self.cut[link_of(p.ip.dst)] {
                    if to_server {
                        self.s.handle_packet(self.now, &p);
                    } else {
                        self.c.handle_packet(self.now, &p);
                    }
                }
            } else if tc == Some(next) {
                self.c.handle_timeout(self.now);
            } else {
                self.s.handle_timeout(self.now);
            }
            self.drain();
        }
    }

    fn state(&self, i: usize) -> PathState {
        self.c.paths.paths[i].state
    }
}

#[test]
fn cmt_sends_new_data_to_both_destinations() {
    // ns-2's set-up: both destinations confirmed by HEARTBEAT (answered at 0.2 s + 0.1
    // s), then new data to both as their cwnds allow.
    let mut n = Net::new(cmt_knobs());
    n.run_until(3.0);
    let to = |a| n.data.iter().filter(|(_, d, _)| *d == a).count();
    assert!(to(B0) > 50 && to(B1) > 50, "{} {}", to(B0), to(B1));
    // Equal paths, no loss: each carries a large share (without CMT B1 would carry
    // none: it would only take retransmissions).
    let (a, b) = (to(B0) as f64, to(B1) as f64);
    assert!(a.min(b) / (a + b) > 0.4, "{a} {b}");
}

#[test]
fn cmt_pf_state_changes_on_a_cut_path() {
    // Link 1 is cut at 5 s. Its destination B1's T3 (RTO 1 s, restarted by every SACK
    // acking its earliest chunk, so at most 1 s after the last one at ~5.05 s) expires
    // by ~6.1 s: one error, potentially failed (CMT-PF), RTO 2 s, a HEARTBEAT at once.
    // From then on no new data goes to B1. The link returns at 7 s; the HEARTBEAT sent
    // at the expiry was lost, its RTO-long wait (2 s) ends by ~8.1 s with a second
    // error (still potentially failed, Path.Max.Retrans 5) and the next HEARTBEAT goes
    // at once and is answered 100 ms later: B1 is active again with cwnd = cmtPFCwnd_ =
    // 2 MTU, and new data returns to it.
    let mut n = Net::new(cmt_knobs());
    n.run_until(5.0);
    n.cut[1] = true;
    let mut pf_at = None;
    let mut back = None;
    let mut t = 5.0;
    while t < 9.0 {
        t += 0.001;
        n.run_until(t);
        if pf_at.is_none() && n.state(1) == PathState::PotentiallyFailed {
            pf_at = Some(t);
        }
        if t >= 7.0 {
            n.cut[1] = false;
        }
        if pf_at.is_some() && back.is_none() && n.state(1) == PathState::Active {
            back = Some(t);
            assert_eq!(n.c.paths.paths[1].cwnd, 2.0 * MTU, "cmtPFCwnd_ 2 MTU");
            assert_eq!(n.c.paths.paths[1].error_count, 0);
        }
    }
    let pf_at = pf_at.expect("B1 potentially failed");
    let back = back.expect("B1 active again");
    assert!((6.0..6.2).contains(&pf_at), "PF at {pf_at}");
    assert!((8.0..8.3).contains(&back), "active at {back}");
    // No new TSN to B1 while potentially failed; new data resumes there after. TSNs
    // relative to the first (the initial TSN is random).
    let first = n.data[0].2;
    let rel = |tsn: u32| tsn.wrapping_sub(first);
    let highest_before = n
        .data
        .iter()
        .filter(|(s, ..)| *s < pf_at)
        .map(|x| rel(x.2))
        .max()
        .unwrap_or(0);
    let new_to_b1_while_pf = n
        .data
        .iter()
        .filter(|(s, d, tsn)| *s > pf_at && *s < back && *d == B1 && rel(*tsn) > highest_before)
        .count();
    assert_eq!(new_to_b1_while_pf, 0);
    assert!(n.data.iter().any(|(s, d, _)| *s > back && *d == B1));
    // Path A never left the active state.
    assert_eq!(n.state(0), PathState::Active);
}

#[test]
fn heartbeat_after_rto_probes_the_expired_destination_at_once() {
    // ns2 preset, no CMT: data to B0, HB.interval 30 s (ns-2's one heartbeat timer
    // next fires about 30 s after the paths were confirmed at 0.3 s). Link 0 is cut at
    // 5 s; B0's T3 (RTO 1 s, restarted by each SACK acking its earliest chunk, the last
    // at about 5.05 s) expires by 6.1 s: its chunks go to B1 (`rtxToAlt_`). With
    // HbAfterRto a HEARTBEAT goes to B0 at that instant (B1 is active, so
    // `GetNextDest(B0)` is B1); without it B0 (one error, still active) gets none
    // before the heartbeat timer's.
    for on in [true, false] {
        let mut k = preset(SctpVariant::Ns2);
        k.heartbeat_after_rto = on;
        let mut n = Net::new(k);
        n.run_until(5.0);
        n.cut[0] = true;
        n.run_until(7.0);
        let rtx_at = n
            .data
            .iter()
            .find(|(t, d, _)| *t > 5.0 && *d == B1)
            .map(|x| x.0)
            .expect("a retransmission to B1");
        assert!((5.9..6.1).contains(&rtx_at), "T3 at {rtx_at}");
        let hbs: Vec<f64> = n
            .heartbeats
            .iter()
            .filter(|(t, d)| *t > 5.0 && *d == B0)
            .map(|x| x.0)
            .collect();
        if on {
            assert_eq!(hbs, vec![rtx_at]);
        } else {
            assert!(hbs.is_empty(), "{hbs:?}");
        }
    }
}

#[test]
fn nr_sack_reports_delivered_unordered_data_and_frees_the_send_buffer() {
    // CMT with `nr_sack`, unordered data, a 16-chunk send buffer; the 20th DATA chunk is
    // lost once. Unordered chunks are delivered on arrival, so the receiver never holds
    // one: every block after the hole is non-renegable (NR-SACK Gap Ack Blocks empty).
    // The sender frees what the NR blocks report before the cumulative TSN passes it:
    // the bytes of every TSN that appeared in an NR block above its SACK's cumulative
    // TSN, counted here from the chunks on the wire, 1468 bytes each.
    let mut k = cmt_knobs();
    k.send_buffer.limit = Some(16 * 1468);
    k.send_buffer.nr_sack = true;
    let mut n = Net::new(k.clone());
    let (mut c, mut s) = (cfg(vec![A0, A1], k.clone()), cfg(vec![B0, B1], k));
    c.unordered = true;
    s.unordered = true;
    n.c = Association::new(Role::Client, c, RngStream::new(7, "c"));
    n.s = Association::new(Role::Server, s, RngStream::new(7, "s"));
    n.drop_nth_data = Some(19);
    n.run_until(5.0);
    assert!(!n.sacks.is_empty());
    assert!(n.sacks.iter().all(|c| matches!(c, Chunk::NrSack(_))));
    let mut reported = std::collections::BTreeSet::new();
    let mut with_nr = 0;
    for c in &n.sacks {
        let Chunk::NrSack(nr) = c else { continue };
        assert!(
            nr.gaps.is_empty(),
            "unordered data is never renegable: {nr:?}"
        );
        if !nr.nr_gaps.is_empty() {
            with_nr += 1;
        }
        for &(a, b) in &nr.nr_gaps {
            for off in a..=b {
                reported.insert(nr.cum_tsn_ack.wrapping_add(u32::from(off)));
            }
        }
    }
    assert!(with_nr > 0, "the hole gave NR gap blocks");
    let out = n.c.out.as_ref().expect("sender");
    let freed = out.send_buffer_stats().nr_freed_bytes;
    assert_eq!(freed, reported.len() as u64 * 1468);
    // The transfer went on past the loss, and the buffer never holds more than its
    // 16 chunks.
    assert!(n.data.len() > 100);
    assert_eq!(out.send_buffer_used() % 1468, 0);
    assert!(out.send_buffer_used() <= 16 * 1468);
}

#[test]
fn timestamp_times_a_retransmission_by_its_echo() {
    // ns2 preset with retransmissions to the same destination (`retransmit_to_alternate`
    // off), one 1000-byte message to B0, its first transmission lost. Before data
    // the handshake and the HEARTBEAT to B0 time 100 ms round trips: SRTT 0.1 s, RTO
    // 1 s (RTO.Min). The DATA sent at t0 = 0.3 s is lost; T3 expires at t0 + 1 s, the
    // chunk is retransmitted there (the RTO backs off to 2 s) and arrives 50 ms later,
    // the server's first DATA, SACKed at once; the SACK reaches the client at 1.4 s.
    // With `timestamp` the SACK echoes the retransmission's timestamp (1.3 s), so
    // R = 0.1 s: SRTT 0.1 s, RTTVAR = 3/4 x RTTVAR, and the RTO is RTO.Min again, 1 s.
    // Without it Karn's rule (RFC 9260 6.3.1 C5) takes no sample: the RTO stays backed
    // off at 2 s.
    for on in [true, false] {
        let mut k = preset(SctpVariant::Ns2);
        k.timestamp = on;
        k.retransmit_to_alternate = false;
        k.fast_rtx_to_alternate = false;
        let mut n = Net::new(k);
        n.c = Association::new(
            Role::Client,
            AssocCfg {
                total: Some(1000),
                message_size: 1000,
                ..cfg(vec![A0, A1], n.c.knobs().clone())
            },
            RngStream::new(7, "c"),
        );
        n.drop_nth_data = Some(0);
        n.run_until(10.0);
        let sends: Vec<(f64, [u8; 4])> = n.data.iter().map(|&(t, d, _)| (t, d)).collect();
        assert_eq!(sends.len(), 2, "{sends:?}");
        let (t0, t_rtx) = (sends[0].0, sends[1].0);
        assert!(
            (t_rtx - t0 - 1.0).abs() < 1e-9,
            "T3 after RTO 1 s: {sends:?}"
        );
        assert_eq!((sends[0].1, sends[1].1), (B0, B0));
        let p = &n.c.paths.paths[0];
        if on {
            let srtt = p.rto.srtt().expect("sampled");
            assert!((srtt - 0.1).abs() < 1e-9, "srtt {srtt}");
            assert_eq!(p.rto.current(), SimDuration::from_secs(1));
            // Every DATA packet starts with the chunk, its timestamp the send time; the
            // SACK of the retransmission echoes that one (ns-2 compares as floats).
            let data_ts: Vec<(f64, Option<f32>)> = n
                .stamps
                .iter()
                .filter(|s| s.1)
                .map(|s| {
                    assert!(s.2, "TIMESTAMP first in its packet");
                    (s.0, s.3.timestamp)
                })
                .collect();
            assert_eq!(data_ts.len(), 2);
            for (t, ts) in &data_ts {
                assert_eq!(*ts, Some(*t as f32));
            }
            let echoes: Vec<Option<f32>> =
                n.stamps.iter().filter(|s| !s.1).map(|s| s.3.echo).collect();
            assert!((t_rtx - 1.3).abs() < 1e-9);
            assert_eq!(echoes, vec![Some(t_rtx as f32)]);
            assert_eq!(n.sacks.len(), 1);
        } else {
            assert!(n.stamps.is_empty());
            assert!((p.rto.srtt().expect("handshake sample") - 0.1).abs() < 1e-9);
            assert_eq!(p.rto.current(), SimDuration::from_secs(2));
        }
    }
}
