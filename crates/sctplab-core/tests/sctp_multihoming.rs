//! Multihomed SCTP (RFC 9260 sec. 5.1.2, 6.4, 8; RFC 7829) driving two `Association`s
//! directly through a tiny network: the client has addresses 10.0.0.1 and 11.0.0.1,
//! the server 10.0.0.2 and 11.0.0.2; link 0 joins the 10.x addresses, link 1 the
//! 11.x ones, each with a fixed 50 ms one-way delay (RTT 100 ms) and no serialisation
//! time. A cut link loses every packet, those already on it included.
//!
//! With RTT = 100 ms every RTO sits at RTO.Min = 1 s (SRTT + 4 RTTVAR = 0.1 + 0.2 after
//! the first sample, less later), so the timer arithmetic below uses RTO.Min = 1 s,
//! doubling per expiry (RFC 9260 6.3.3 E2), capped at RTO.Max = 60 s.

use sctplab_core::endpoint::Endpoint;
use sctplab_core::metrics::Window;
use sctplab_core::net::wire::{Chunk, SctpRepr, TransportRepr};
use sctplab_core::net::{Packet, PacketKind};
use sctplab_core::sctp::config::Variant as SctpVariant;
use sctplab_core::sctp::config::{Knobs, preset};
use sctplab_core::sctp::{AssocCfg, Association, PathState, Role};
use sctplab_core::sim::{RngStream, SimDuration, SimTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const A0: [u8; 4] = [10, 0, 0, 1];
const A1: [u8; 4] = [11, 0, 0, 1];
const B0: [u8; 4] = [10, 0, 0, 2];
const B1: [u8; 4] = [11, 0, 0, 2];
const DELAY: f64 = 0.05;

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

fn at(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(s)
}

fn cfg(knobs: Knobs, local: Vec<[u8; 4]>) -> AssocCfg {
    AssocCfg {
        ports: (5000, 6000),
        pmtu: 1500,
        streams: 1,
        // Four 1464-byte chunks in flight at most: a small, steady transfer.
        receive_buffer: 4 * 1464,
        initial_ssthresh: None,
        knobs,
        rto_initial: SimDuration::from_secs(3),
        rto_min: SimDuration::from_secs(1),
        rto_max: SimDuration::from_secs(60),
        delayed_sack: None,
        heartbeat: Some(SimDuration::from_secs(30)),
        cookie_lifetime: SimDuration::from_secs(60),
        association_max_retrans: 10,
        max_init_retrans: 8,
        total: None,
        message_size: 1448,
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

/// One packet a side sent: time, sender, destination, what it carried.
#[derive(Clone, Debug)]
struct Sent {
    t: f64,
    from_client: bool,
    dst: [u8; 4],
    kind: PacketKind,
    heartbeat: bool,
    size: u32,
    chunks: Vec<Chunk>,
}

struct Net {
    c: Association,
    s: Association,
    now: SimTime,
    seq: u64,
    /// (arrival, order, to the server?, packet index in `pkts`).
    q: BinaryHeap<Reverse<(SimTime, u64, bool, usize)>>,
    pkts: Vec<Option<Packet>>,
    cut: [bool; 2],
    log: Vec<Sent>,
}

fn link_of(dst: [u8; 4]) -> usize {
    usize::from(dst[0] - 10)
}

impl Net {
    fn new(c: AssocCfg, s: AssocCfg) -> Self {
        Net {
            c: Association::new(Role::Client, c, RngStream::new(7, "client")),
            s: Association::new(Role::Server, s, RngStream::new(7, "server")),
            now: SimTime::ZERO,
            seq: 0,
            q: BinaryHeap::new(),
            pkts: Vec::new(),
            cut: [false; 2],
            log: Vec::new(),
        }
    }

    fn dual(knobs: Knobs) -> Self {
        Net::new(cfg(knobs.clone(), vec![A0, A1]), cfg(knobs, vec![B0, B1]))
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
                // The world's job: the source is the interface toward the destination.
                let last = if from_client { 1 } else { 2 };
                p.ip.src = [p.ip.dst[0], 0, 0, last];
                let TransportRepr::Sctp(sctp) = &p.transport else {
                    panic!("SCTP only")
                };
                self.log.push(Sent {
                    t: secs(self.now),
                    from_client,
                    dst: p.ip.dst,
                    kind: p.kind,
                    heartbeat: sctp
                        .chunks
                        .iter()
                        .any(|c| matches!(c, Chunk::Heartbeat { .. })),
                    size: p.size,
                    chunks: sctp.chunks.clone(),
                });
                if self.cut[link_of(p.ip.dst)] {
                    continue;
                }
                self.seq += 1;
                let arrive = self.now + SimDuration::from_secs_f64(DELAY);
                self.pkts.push(Some(p));
                self.q.push(Reverse((
                    arrive,
                    self.seq,
                    from_client,
                    self.pkts.len() - 1,
                )));
            }
        }
    }

    /// Runs the two ends until `end`.
    fn run_until(&mut self, end: f64) {
        let end = at(end);
        self.drain();
        for _ in 0..10_000_000 {
            let tq = self.q.peek().map(|Reverse((t, ..))| *t);
            let tc = self.c.poll_timeout();
            let ts = self.s.poll_timeout();
            let next = [tq, tc, ts].into_iter().flatten().min();
            let Some(next) = next.filter(|&t| t <= end) else {
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
        panic!("event limit reached");
    }

    fn client_path(&self, addr: [u8; 4]) -> sctplab_core::sctp::PathStats {
        self.c
            .paths()
            .find(|(a, _)| *a == addr)
            .map(|(_, s)| s)
            .expect("known destination")
    }

    /// Client DATA packets as (time, destination).
    fn data(&self) -> Vec<(f64, [u8; 4])> {
        self.log
            .iter()
            .filter(|s| s.from_client && s.kind == PacketKind::Data)
            .map(|s| (s.t, s.dst))
            .collect()
    }

    fn heartbeats(&self, from_client: bool, dst: [u8; 4]) -> Vec<f64> {
        self.log
            .iter()
            .filter(|s| s.from_client == from_client && s.heartbeat && s.dst == dst)
            .map(|s| s.t)
            .collect()
    }
}

fn rfc9260() -> Knobs {
    preset(SctpVariant::Rfc9260)
}

const T_CUT: f64 = 10.0;

#[test]
fn dead_primary_fails_after_path_max_retrans_plus_one_timeouts() {
    // Defaults: Path.Max.Retrans = 5. Link 0 (the primary 10.0.0.2) dies at 10 s; SACKs
    // for data sent there die with it, so the T3 of 10.0.0.2 (restarted by the last
    // SACK, at most 100 ms before the cut) first expires E1 in [10.9, 11.0] s, and the
    // first retransmission goes to the alternate then (retransmit_to_alternate, one
    // packet = one chunk). The other marked chunks are still outstanding on the primary,
    // so its T3 restarts at once: the model's rule, not RFC 9260's (6.3.3 E3 starts
    // T3 only on the destination the retransmission goes to; the expired destination's
    // timer would restart with its next DATA, one RTT_B later, docs/models/sctp.md
    // "Not built yet"); new data sent there after the alternate's SACKs finds the
    // timer running (R1). Each expiry doubles the RTO, so
    // the expiries come at E1, E1 + 2, + 4, + 8, + 16, + 32 (1 + 2 + 4 + 8 + 16 + 32 s
    // after the T3 start): the 6th consecutive one exceeds Path.Max.Retrans and the
    // primary is inactive at E1 + 62 in [72.9, 73.0] s; new data moves to 11.0.0.2
    // (one failover).
    let mut n = Net::dual(rfc9260());
    n.run_until(T_CUT);
    assert_eq!(n.client_path(B0).state, PathState::Active);
    n.cut[0] = true;
    n.run_until(120.0);
    let p0 = n.client_path(B0);
    let p1 = n.client_path(B1);
    assert_eq!(p0.state, PathState::Inactive);
    assert_eq!(p0.state.contract_name(), "inactive");
    let failed = secs(p0.failed_at.expect("failed"));
    let e1 = n
        .data()
        .iter()
        .find(|&&(t, d)| t > T_CUT && d == B1)
        .map(|&(t, _)| t)
        .expect("a retransmission to the alternate");
    assert!((10.9..=11.0).contains(&e1), "E1 {e1}");
    assert!(
        (failed - (e1 + 62.0)).abs() < 1e-6,
        "failed at {failed}, E1 {e1}"
    );
    assert_eq!(n.c.stats.failovers, 1);
    assert!(!n.c.stats.aborted);
    // Retransmissions went to the alternate, none to the dead primary.
    assert_eq!(p0.retransmissions, 0);
    assert!(p1.retransmissions >= 6, "{p1:?}");
    let data = n.data();
    // In between, new data still went to the primary (it was active) and the
    // retransmissions to the alternate...
    assert!(
        data.iter()
            .any(|&(t, d)| t > T_CUT + 1.0 && t < failed && d == B0)
    );
    assert!(
        data.iter()
            .any(|&(t, d)| t > T_CUT + 1.0 && t < failed && d == B1)
    );
    // ...and from the failure on, everything goes to the alternate.
    assert!(
        data.iter()
            .filter(|&&(t, _)| t >= failed)
            .all(|&(_, d)| d == B1)
    );
    assert!(data.iter().filter(|&&(t, _)| t >= failed).count() > 100);
}

#[test]
fn path_max_retrans_zero_fails_after_one_rto() {
    // Path.Max.Retrans = 0: the first T3 expiry, E1 in [10.9, 11.0] s, fails the path.
    let mut k = rfc9260();
    k.path_max_retrans = 0;
    let mut n = Net::dual(k);
    n.run_until(T_CUT);
    n.cut[0] = true;
    n.run_until(20.0);
    let failed = secs(n.client_path(B0).failed_at.expect("failed"));
    assert!((10.9..=11.0).contains(&failed), "failed at {failed}");
    assert_eq!(n.c.stats.failovers, 1);
    assert!(
        n.data()
            .iter()
            .filter(|&&(t, _)| t >= failed)
            .all(|&(_, d)| d == B1)
    );
}

#[test]
fn sctp_pf_moves_data_after_one_rto_while_the_path_is_only_potentially_failed() {
    // RFC 7829 with PFMR = 0: E1 in [10.9, 11.0] s makes the primary potentially failed
    // (error count 1 > 0) and new data moves to the alternate at once. The PF path is
    // probed by one HEARTBEAT per RTO, each unanswered one doubling it: HEARTBEATs at
    // E1, E1 + 2, E1 + 6, E1 + 14, E1 + 30 (RTO 2, 4, 8, 16, 32); the error count reaches
    // 6 > Path.Max.Retrans when the last times out, at E1 + 62 in [72.9, 73.0] s, and
    // the path becomes inactive. Until then it reports "active".
    let mut k = rfc9260();
    k.pf_max_retrans = Some(0);
    let mut n = Net::dual(k);
    n.run_until(T_CUT);
    n.cut[0] = true;
    n.run_until(40.0);
    let p0 = n.client_path(B0);
    assert_eq!(p0.state, PathState::PotentiallyFailed);
    assert_eq!(p0.state.contract_name(), "active");
    assert_eq!(n.c.stats.failovers, 1);
    let data = n.data();
    let first_alt = data
        .iter()
        .find(|&&(t, d)| t > T_CUT && d == B1)
        .map(|&(t, _)| t)
        .expect("data on the alternate");
    assert!((10.9..=11.0).contains(&first_alt), "{first_alt}");
    assert!(
        data.iter()
            .filter(|&&(t, _)| t > first_alt)
            .all(|&(_, d)| d == B1)
    );
    n.run_until(100.0);
    let hb = n.heartbeats(true, B0);
    let probes: Vec<f64> = hb.iter().copied().filter(|&t| t > T_CUT).collect();
    assert_eq!(probes.len(), 5, "{probes:?}");
    let e1 = probes[0];
    assert!((10.9..=11.0).contains(&e1));
    for (p, off) in probes.iter().zip([0.0, 2.0, 6.0, 14.0, 30.0]) {
        assert!((p - e1 - off).abs() < 1e-6, "{probes:?}");
    }
    let failed = secs(n.client_path(B0).failed_at.expect("failed"));
    assert!((failed - (e1 + 62.0)).abs() < 1e-6, "{failed} vs {e1}");
}

#[test]
fn sctp_pf_probes_the_potentially_failed_path_with_heartbeats_off() {
    // RFC 7829 5.1 step 4: a potentially-failed destination gets one HEARTBEAT per RTO
    // whether or not heartbeats are enabled. With HB.interval off on both ends and
    // PFMR = 0 the schedule is the one above: E1 in [10.9, 11.0] s (the first T3
    // expiry, error count 1 > 0, RTO 1 -> 2 s) makes the primary potentially failed
    // and sends the first probe; each unanswered one times out an RTO later (RFC 9260
    // 8.3: one more error, the RTO doubled) and the next goes at once: probes at E1,
    // E1 + 2, E1 + 6, E1 + 14, E1 + 30; the fifth times out at E1 + 62 with error
    // count 6 > Path.Max.Retrans = 5: inactive, and with heartbeats off no more probes.
    // The alternate, confirmed at set-up (5.4), gets no HEARTBEAT after that.
    let mut k = rfc9260();
    k.pf_max_retrans = Some(0);
    let quiet = |local| AssocCfg {
        heartbeat: None,
        ..cfg(k.clone(), local)
    };
    let mut n = Net::new(quiet(vec![A0, A1]), quiet(vec![B0, B1]));
    n.run_until(T_CUT);
    n.cut[0] = true;
    n.run_until(120.0);
    let probes: Vec<f64> = n
        .heartbeats(true, B0)
        .into_iter()
        .filter(|&t| t > T_CUT)
        .collect();
    assert_eq!(probes.len(), 5, "{probes:?}");
    let e1 = probes[0];
    assert!((10.9..=11.0).contains(&e1), "{probes:?}");
    for (p, off) in probes.iter().zip([0.0, 2.0, 6.0, 14.0, 30.0]) {
        assert!((p - e1 - off).abs() < 1e-6, "{probes:?}");
    }
    let p0 = n.client_path(B0);
    assert_eq!(p0.state, PathState::Inactive);
    let failed = secs(p0.failed_at.expect("failed"));
    assert!((failed - (e1 + 62.0)).abs() < 1e-6, "{failed} vs {e1}");
    assert!(n.heartbeats(true, B1).iter().all(|&t| t < 1.0));
}

#[test]
fn a_path_that_comes_back_is_found_by_the_next_heartbeat_and_data_returns() {
    // Path.Max.Retrans = 0: the primary fails at E1 in [10.9, 11.0] s (RTO now 2 s). It
    // is idle since its last new data, at most 100 ms before the cut: the first
    // HEARTBEAT goes HB.interval + RTO x (1 + U[-0.5, 0.5)) = 30 + [1, 3) s later, in
    // [40.9, 43.0], and goes unanswered (RTO -> 4 s, times out by 45 s). The link returns
    // at 50 s; the next HEARTBEAT, 30 + 4 x [0.5, 1.5) = [32, 36) s after the first, in
    // [72.9, 79.0], is answered 100 ms later: the primary is active again and new data
    // returns to it (the second failover) at the next send opportunity, the next SACK
    // on the alternate, within one RTT.
    let mut k = rfc9260();
    k.path_max_retrans = 0;
    let mut n = Net::dual(k);
    n.run_until(T_CUT);
    n.cut[0] = true;
    n.run_until(50.0);
    assert_eq!(n.client_path(B0).state, PathState::Inactive);
    let hb = n.heartbeats(true, B0);
    let during: Vec<f64> = hb.iter().copied().filter(|&t| t > T_CUT).collect();
    assert_eq!(during.len(), 1, "{during:?}");
    assert!((40.9..=43.0).contains(&during[0]), "{during:?}");
    n.cut[0] = false;
    n.run_until(120.0);
    assert_eq!(n.client_path(B0).state, PathState::Active);
    assert_eq!(n.c.stats.failovers, 2);
    let back = n
        .data()
        .iter()
        .find(|&&(t, d)| t > 50.0 && d == B0)
        .map(|&(t, _)| t)
        .expect("data back on the primary");
    let second_hb = n
        .heartbeats(true, B0)
        .into_iter()
        .find(|&t| t > 50.0)
        .expect("heartbeat after the repair");
    assert!((72.9..=79.0).contains(&second_hb), "{second_hb}");
    assert!(
        back >= second_hb + 0.1 - 1e-9 && back <= second_hb + 0.2 + 1e-9,
        "{back} {second_hb}"
    );
    assert!(
        n.data()
            .iter()
            .filter(|&&(t, _)| t >= back)
            .all(|&(_, d)| d == B0)
    );
}

#[test]
fn every_path_dead_aborts_after_association_max_retrans() {
    // One chunk in flight at a time (receive buffer = one chunk), heartbeats off. Both
    // links die at 10 s. Expiries alternate between the destinations, each
    // retransmission going to the other one (RFC 9260 6.4), each destination's RTO
    // doubling on its own: E1 (primary, RTO 1) in [10.9, 11.0], then +1 (alternate,
    // RTO 1), +2, +2, +4, +4, +8, +8, +16, +16, +32: the 11th consecutive error exceeds
    // Association.Max.Retrans = 10 at E1 + 93 in [103.9, 104.0] s and the client
    // aborts (the primary, at its 6th error, fails at the same moment).
    let mut k = rfc9260();
    k.path_max_retrans = 5;
    let mut c = cfg(k.clone(), vec![A0, A1]);
    let mut s = cfg(k, vec![B0, B1]);
    c.heartbeat = None;
    s.heartbeat = None;
    s.receive_buffer = 1464;
    let mut n = Net::new(c, s);
    n.run_until(T_CUT);
    n.cut = [true, true];
    n.run_until(103.8);
    assert!(!n.c.stats.aborted);
    n.run_until(200.0);
    assert!(n.c.stats.aborted);
    let abort = n
        .log
        .iter()
        .find(|s| s.from_client && s.chunks.iter().any(|c| matches!(c, Chunk::Abort { .. })))
        .map(|s| s.t)
        .expect("ABORT sent");
    assert!((103.9..=104.0).contains(&abort), "{abort}");
    let rtx: Vec<(f64, [u8; 4])> = n.data().into_iter().filter(|&(t, _)| t > T_CUT).collect();
    assert_eq!(rtx.len(), 10, "{rtx:?}");
    let e1 = rtx[0].0;
    let offsets = [0.0, 1.0, 3.0, 5.0, 9.0, 13.0, 21.0, 29.0, 45.0, 61.0];
    for (k, ((t, d), off)) in rtx.iter().zip(offsets).enumerate() {
        assert!((t - e1 - off).abs() < 1e-6, "{rtx:?}");
        assert_eq!(*d, if k % 2 == 0 { B1 } else { B0 }, "{rtx:?}");
    }
    assert!((abort - (e1 + 93.0)).abs() < 1e-6);
    assert_eq!(n.client_path(B0).state, PathState::Inactive);
}

#[test]
fn heartbeats_from_both_ends_over_an_idle_ish_transfer() {
    // 300 s of transfer on the primary; nothing fails. RTO = 1 s on every path once it
    // has one RTT sample. A destination idle for HB.interval + RTO x (1 + U[-0.5, 0.5))
    // = [30.5, 31.5) s gets a HEARTBEAT (RFC 9260 8.3); RFC 9260 5.4 probes the listed,
    // unconfirmed address at once at set-up.
    // - Client to 11.0.0.2 (never carries data): at ~0.2 s (confirmation), then every
    //   [30.5, 31.5) s: 0.2 + 9 x 31.5 = 283.7 <= 300 < 0.2 + 10 x 30.5, so 10.
    // - Client to 10.0.0.2: never idle (data every RTT): 0.
    // - Server to 10.0.0.1 (it sends only SACKs, which do not end idleness): first after
    //   30 s + RTO.Initial x [0.5, 1.5) from 0.15 s (no RTT sample yet) = [31.65, 34.65),
    //   then every [30.5, 31.5): 34.65 + 8 x 31.5 = 286.65 <= 300 and 31.65 + 9 x 30.5 =
    //   306.15 > 300, so 9.
    // - Server to 11.0.0.1: confirmation at 0.15 s, then as the client's: 10.
    // Flow-level: 29.
    let mut n = Net::dual(rfc9260());
    n.run_until(300.0);
    let c1 = n.heartbeats(true, B1);
    let c0 = n.heartbeats(true, B0);
    let s0 = n.heartbeats(false, A0);
    let s1 = n.heartbeats(false, A1);
    assert_eq!((c1.len(), c0.len(), s0.len(), s1.len()), (10, 0, 9, 10));
    assert_eq!(n.c.stats.heartbeats + n.s.stats.heartbeats, 29);
    assert!((31.65..34.65).contains(&s0[0]), "{s0:?}");
    for hb in [&c1, &s0, &s1] {
        for w in hb.windows(2) {
            let gap = w[1] - w[0];
            assert!((30.5 - 1e-9..31.5).contains(&gap), "{hb:?}");
        }
    }
    // The Heartbeat Info is Linux's 48 bytes: a 56-byte chunk, 88-byte packets.
    let hb = n.log.iter().find(|s| s.heartbeat).expect("a heartbeat");
    assert_eq!(hb.size, 20 + 12 + 56);
    assert_eq!(n.client_path(B1).heartbeats, 10);
    assert_eq!(n.client_path(B0).state, PathState::Active);
    assert_eq!(n.c.stats.failovers, 0);
}

#[test]
fn init_and_init_ack_list_the_addresses_of_multihomed_ends_only() {
    // RFC 9260 3.3.2.1: a multihomed end lists its addresses (type 5, length 8); a
    // single-homed one lists none, the packet's source being its sole address.
    let mut n = Net::dual(rfc9260());
    n.run_until(0.3);
    let init = &n.log[0];
    let ack = &n.log[1];
    let Chunk::Init(i) = &init.chunks[0] else {
        panic!("INIT first")
    };
    let Chunk::InitAck(a) = &ack.chunks[0] else {
        panic!("INIT-ACK second")
    };
    assert_eq!(i.addrs, vec![A0, A1]);
    assert_eq!(a.addrs, vec![B0, B1]);
    assert_eq!((init.dst, ack.dst), (B0, A0));
    // 20 (IPv4) + 12 (common header) + 20 (INIT) + 2 x 8.
    assert_eq!(init.size, 68);
    // The encoding round-trips through the wire format with these exact bytes.
    let repr = SctpRepr {
        src_port: 5000,
        dst_port: 6000,
        vtag: 0,
        chunks: init.chunks.clone(),
    };
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut buf);
    assert_eq!(
        &buf[12 + 20..],
        &[0, 5, 0, 8, 10, 0, 0, 1, 0, 5, 0, 8, 11, 0, 0, 1]
    );
    assert_eq!(SctpRepr::parse(&buf).expect("parse"), repr);
    // Both ends learnt both peer addresses, the primary first.
    let c: Vec<[u8; 4]> = n.c.paths().map(|(a, _)| a).collect();
    let s: Vec<[u8; 4]> = n.s.paths().map(|(a, _)| a).collect();
    assert_eq!((c, s), (vec![B0, B1], vec![A0, A1]));

    let mut single = Net::new(cfg(rfc9260(), vec![A0]), cfg(rfc9260(), vec![B0]));
    single.run_until(0.3);
    let Chunk::Init(i) = &single.log[0].chunks[0] else {
        panic!("INIT first")
    };
    assert!(i.addrs.is_empty());
    assert_eq!(single.log[0].size, 20 + 12 + 20);
    assert_eq!(single.c.paths().count(), 1);
    assert_eq!(single.s.paths().count(), 1);
}

#[test]
fn scripted_primary_change_moves_new_data() {
    // set_primary: new data goes to the new primary at once (one failover) and stays.
    let mut n = Net::dual(rfc9260());
    n.run_until(5.0);
    n.c.set_primary(at(5.0), B1);
    n.drain();
    n.run_until(10.0);
    assert_eq!(n.c.stats.failovers, 1);
    assert!(
        n.data()
            .iter()
            .filter(|&&(t, _)| t > 5.0)
            .all(|&(_, d)| d == B1)
    );
    assert!(n.data().iter().filter(|&&(t, _)| t > 5.0).count() > 100);
}

#[test]
fn ns2_confirms_every_destination_before_data_and_sends_24_byte_heartbeats() {
    // ns-2.35 (`ProcessChunk`, COOKIE_ECHOED): after COOKIE-ACK (2 RTTs, 0.2 s) the
    // client sends a HEARTBEAT to each destination and starts DATA only when both are
    // answered, one RTT later: first DATA at 0.3 s. ns-2's HEARTBEAT chunk is 24 bytes
    // (`SCTP_CHUNK_HEARTBEAT_LENGTH`): 20 + 12 + 24 = 56-byte packets.
    let mut n = Net::dual(preset(SctpVariant::Ns2));
    n.run_until(1.0);
    let hb: Vec<&Sent> = n
        .log
        .iter()
        .filter(|s| s.from_client && s.heartbeat)
        .collect();
    assert_eq!(hb.len(), 2);
    assert!(hb.iter().all(|s| (s.t - 0.2).abs() < 1e-9 && s.size == 56));
    assert_eq!((hb[0].dst, hb[1].dst), (B0, B1));
    let first = n.data()[0];
    assert!((first.0 - 0.3).abs() < 1e-9 && first.1 == B0, "{first:?}");
}
