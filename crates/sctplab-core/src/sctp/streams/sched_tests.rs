//! The stream schedulers' send order by hand (RFC 8260 sec. 3): two or three streams
//! with given messages in the send buffer, the order their chunks are cut in.

use super::*;
use crate::sim::SimDuration;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn at(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

/// An interval source of `size`-byte messages every `every` ms from `start` ms.
fn src(stream: u16, size: u64, every: u64, start: u64) -> StreamSourceCfg {
    StreamSourceCfg {
        stream,
        message_size: size,
        interval: Some(ms(every)),
        start: at(start),
        stop: None,
        priority: 0,
        weight: 1,
        pr: PrPolicy::None,
    }
}

/// Stream 0 every 5 ms, stream 1 every 20 ms, refilled at 0 and at 20 ms: the buffer
/// holds, in submission order (ticks by time, then source order), A0 B0 | A1 A2 A3 A4
/// B1 (A = stream 0, B = stream 1; A1..A4 fell due at 5, 10, 15, 20 ms, B1 at 20 ms).
fn two_streams(kind: Scheduler, a: StreamSourceCfg, b: StreamSourceCfg) -> StreamSources {
    let mut s = StreamSources::new(&[a, b], 2, 1_000_000, false);
    s.set_scheduler(kind);
    s.refill(at(0));
    s.refill(at(20));
    assert_eq!(
        s.msgs.iter().map(|m| m.stream).collect::<Vec<_>>(),
        vec![0, 1, 0, 0, 0, 0, 1]
    );
    s
}

/// The stream of every message in the order its first chunk is cut (chunks of at
/// most 1000 bytes).
fn message_order(s: &mut StreamSources) -> Vec<u16> {
    std::iter::from_fn(|| s.next_chunk(1000))
        .filter(|c| c.2.contains(DataFlags::BEGIN))
        .map(|c| c.0)
        .collect()
}

/// The records of started messages stay in TSN order (what `find`, `release` and
/// the Advanced.Peer.Ack.Point walk rely on), and each stream's SSNs count up.
fn check_records(s: &StreamSources) {
    let firsts: Vec<u32> = s.msgs.iter().map(|m| m.first_rel).collect();
    assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{firsts:?}");
    for stream in 0..2u16 {
        let ssns: Vec<u16> = s
            .msgs
            .iter()
            .filter(|m| m.stream == stream)
            .filter_map(|m| m.ssn)
            .collect();
        assert!(ssns.iter().enumerate().all(|(i, &n)| usize::from(n) == i));
    }
}

#[test]
fn fcfs_keeps_submission_order() {
    let mut s = two_streams(Scheduler::Fcfs, src(0, 300, 5, 0), src(1, 300, 20, 0));
    assert_eq!(message_order(&mut s), vec![0, 1, 0, 0, 0, 0, 1]);
    check_records(&s);
}

#[test]
fn round_robin_takes_one_message_of_each_stream_in_turn() {
    // Stream 0 first (nothing chosen yet), then 1, 0, 1; stream 1 has no third
    // message, so stream 0's last three go one after another.
    let mut s = two_streams(Scheduler::Rr, src(0, 300, 5, 0), src(1, 300, 20, 0));
    assert_eq!(message_order(&mut s), vec![0, 1, 0, 1, 0, 0, 0]);
    check_records(&s);
}

#[test]
fn round_robin_sends_a_fragmented_message_whole_before_turning() {
    // DATA: a 2500-byte message of stream 0 is three chunks (1000, 1000, 500) with
    // consecutive TSNs; only then comes stream 1's message.
    let mut s = two_streams(Scheduler::Rr, src(0, 2500, 5, 0), src(1, 100, 20, 0));
    let first: Vec<(u16, u16, DataFlags, u32)> =
        std::iter::from_fn(|| s.next_chunk(1000)).take(5).collect();
    assert_eq!(
        first,
        vec![
            (0, 0, DataFlags::BEGIN, 1000),
            (0, 0, DataFlags::empty(), 1000),
            (0, 0, DataFlags::END, 500),
            (1, 0, DataFlags::UNFRAGMENTED, 100),
            (0, 1, DataFlags::BEGIN, 1000),
        ]
    );
}

#[test]
fn priority_sends_the_smaller_priority_first() {
    // Stream 1 has priority 1, stream 0 priority 5: both of stream 1's messages go
    // first, though B1 was submitted last.
    let a = StreamSourceCfg {
        priority: 5,
        ..src(0, 300, 5, 0)
    };
    let b = StreamSourceCfg {
        priority: 1,
        ..src(1, 300, 20, 0)
    };
    let mut s = two_streams(Scheduler::Priority, a, b);
    assert_eq!(message_order(&mut s), vec![1, 1, 0, 0, 0, 0, 0]);
    check_records(&s);
}

#[test]
fn equal_priorities_take_turns() {
    let mut s = two_streams(Scheduler::Priority, src(0, 300, 5, 0), src(1, 300, 20, 0));
    assert_eq!(message_order(&mut s), vec![0, 1, 0, 1, 0, 0, 0]);
}

#[test]
fn fair_capacity_serves_the_stream_with_the_fewest_bytes() {
    // Stream 0: 300-byte messages, stream 1: 700-byte ones. Bytes cut (0 | 1) before
    // each choice: 0|0 tie -> 0 (stream 0 first); 300|0 -> 1; 300|700 -> 0;
    // 600|700 -> 0; 900|700 -> 1; then stream 1 has nothing left: 0, 0.
    let mut s = two_streams(Scheduler::Fair, src(0, 300, 5, 0), src(1, 700, 20, 0));
    assert_eq!(message_order(&mut s), vec![0, 1, 0, 0, 1, 0, 0]);
    check_records(&s);
}

#[test]
fn fair_capacity_ignores_weights_and_wfq_uses_them() {
    // 300-byte messages on stream 0 (weight 1), 600-byte ones on stream 1 (weight 3).
    // Fair, bytes cut before each choice: 0|0 -> 0; 300|0 -> 1; 300|600 -> 0;
    // 600|600 tie, stream 0 went last -> 1; then 0, 0, 0.
    // WFQ, bytes / weight: 0|0 -> 0; 300|0 -> 1; 300|200 -> 1; then stream 1 is done.
    let a = src(0, 300, 5, 0);
    let b = StreamSourceCfg {
        weight: 3,
        ..src(1, 600, 20, 0)
    };
    let mut fair = two_streams(Scheduler::Fair, a.clone(), b.clone());
    assert_eq!(message_order(&mut fair), vec![0, 1, 0, 1, 0, 0, 0]);
    let mut wfq = two_streams(Scheduler::Wfq, a, b);
    assert_eq!(message_order(&mut wfq), vec![0, 1, 1, 0, 0, 0, 0]);
    check_records(&wfq);
}

#[test]
fn a_stream_that_joins_late_does_not_claim_the_capacity_it_left_unused() {
    // Fair, 300-byte messages. Stream 0 alone sends A0 (0 ms), A1, A2 (5, 10 ms): 900
    // bytes. At 25 ms stream 0 has A3..A5 and stream 1 (from 15 ms) B0..B2. Stream 1
    // rejoins at 900 bytes, not 0: 900|900 tie, stream 0 went last -> 1; 900|1200 ->
    // 0; tie -> 1; ... alternating, where counting from 0 would send B0, B1, B2 in a
    // row.
    let mut s = StreamSources::new(
        &[src(0, 300, 5, 0), src(1, 300, 5, 15)],
        2,
        1_000_000,
        false,
    );
    s.set_scheduler(Scheduler::Fair);
    s.refill(at(0));
    s.refill(at(10));
    assert_eq!(message_order(&mut s), vec![0, 0, 0]);
    s.refill(at(25));
    assert_eq!(message_order(&mut s), vec![1, 0, 1, 0, 1, 0]);
    check_records(&s);
}

#[test]
fn round_robin_per_packet_fills_each_packet_from_one_stream() {
    // Packets of 1000 bytes of chunks (300-byte messages: 316-byte chunks, three per
    // packet). Packet 1: stream 0 (nothing chosen yet): A0 A1 A2. Packet 2: stream 1:
    // B0 B1, and it ends there rather than take stream 0's chunks. Packet 3: A3 A4.
    // First come first served would bundle A0 B0 A1 | A2 A3 A4 | B1.
    fn packets(s: &mut StreamSources) -> Vec<Vec<u16>> {
        let mut out = Vec::new();
        loop {
            s.packet_start();
            let (mut used, mut pkt) = (0, Vec::new());
            while let Some(p) = s.peek_payload(1000) {
                if used + 16 + p > 1000 {
                    break;
                }
                let Some(c) = s.next_chunk(1000) else { break };
                used += 16 + u64::from(c.3);
                pkt.push(c.0);
            }
            if pkt.is_empty() {
                return out;
            }
            out.push(pkt);
        }
    }
    let mut rrp = two_streams(Scheduler::RrPacket, src(0, 300, 5, 0), src(1, 300, 20, 0));
    assert_eq!(
        packets(&mut rrp),
        vec![vec![0, 0, 0], vec![1, 1], vec![0, 0]]
    );
    check_records(&rrp);
    let mut fcfs = two_streams(Scheduler::Fcfs, src(0, 300, 5, 0), src(1, 300, 20, 0));
    assert_eq!(
        packets(&mut fcfs),
        vec![vec![0, 1, 0], vec![0, 0, 0], vec![1]]
    );
}

#[test]
fn scheduler_names_are_the_contracts() {
    for name in Scheduler::NAMES {
        assert!(Scheduler::from_name(name).is_some(), "{name}");
    }
    assert_eq!(Scheduler::from_name("rr_packet"), Some(Scheduler::RrPacket));
    assert_eq!(Scheduler::from_name("round_robin"), None);
}
