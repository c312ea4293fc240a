//! The chunk order on the wire for two streams with given messages, DATA against
//! I-DATA, under each scheduler of RFC 8260 sec. 3, derived by hand from the
//! schedulers' definitions (sec. 3.1-3.6) and the interleaving rule of sec. 2.
//!
//! The send buffer: A0, a 3000-byte message of stream 0, submitted at 0 ms and cut
//! into three 1000-byte chunks a1 a2 a3 (MID 0, FSN 0, 1, 2); after a1 is cut,
//! B0, B1, B2, 500-byte messages of stream 1 submitted at 5, 10 and 15 ms (one chunk
//! each, MIDs 0, 1, 2). With DATA the fragments of A0 take consecutive TSNs, so every
//! scheduler sends a1 a2 a3 B0 B1 B2; with I-DATA the scheduler chooses per chunk.

use super::super::*;
use crate::sim::SimDuration;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn at(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

fn src(
    stream: u16,
    size: u64,
    every: u64,
    start: u64,
    priority: i64,
    weight: u32,
) -> StreamSourceCfg {
    StreamSourceCfg {
        stream,
        message_size: size,
        interval: Some(ms(every)),
        start: at(start),
        stop: None,
        priority,
        weight,
        pr: PrPolicy::None,
    }
}

/// A chunk as the test names it: "a1".."a3" (stream 0's fragments), "B0".."B2".
fn name(c: (u16, u16, DataFlags, u32), ids: (u32, u32)) -> String {
    match c.0 {
        0 => format!("a{}", ids.1 + 1),
        _ => format!("B{}", c.1),
    }
}

/// The buffer above, stream 1 with `prio1`/`weight1` (stream 0: priority 1, weight
/// 1), with or without interleaving; a1 cut before B0..B2 arrive. Returns the chunk
/// names in cut order, packets split where `per_packet` chunks are full (a packet
/// also ends where the scheduler has nothing for it, `rr_packet`).
fn wire_order(
    kind: Scheduler,
    interleave: bool,
    prio1: i64,
    weight1: u32,
    per_packet: usize,
) -> Vec<Vec<String>> {
    let a = src(0, 3000, 100, 0, 1, 1);
    let b = src(1, 500, 5, 5, prio1, weight1);
    let mut s = StreamSources::new(&[a, b], 2, 1_000_000, false);
    s.set_scheduler(kind);
    s.set_interleave(interleave);
    s.refill(at(0));
    let mut packets: Vec<Vec<String>> = Vec::new();
    s.packet_start();
    let first = s.next_chunk(1000).expect("a1");
    packets.push(vec![name(first, s.last_ids)]);
    s.refill(at(15));
    loop {
        if packets.last().is_some_and(|p| p.len() == per_packet) {
            packets.push(Vec::new());
            s.packet_start();
        }
        match s.next_chunk(1000) {
            Some(c) => {
                let n = name(c, s.last_ids);
                packets.last_mut().expect("one").push(n);
            }
            None if packets.last().is_some_and(Vec::is_empty) => break,
            None => {
                packets.push(Vec::new());
                s.packet_start();
            }
        }
    }
    packets.pop();
    assert!(!s.has_unsent());
    packets
}

fn flat(p: Vec<Vec<String>>) -> String {
    p.concat().join(" ")
}

const DATA_ORDER: &str = "a1 a2 a3 B0 B1 B2";

#[test]
fn with_data_every_scheduler_finishes_the_large_message_first() {
    for kind in [
        Scheduler::Fcfs,
        Scheduler::Rr,
        Scheduler::Priority,
        Scheduler::Fair,
        Scheduler::Wfq,
    ] {
        assert_eq!(
            flat(wire_order(kind, false, 0, 2, 100)),
            DATA_ORDER,
            "{kind:?}"
        );
    }
}

#[test]
fn fcfs_with_i_data_keeps_submission_order() {
    // Sec. 3.1: A0 was submitted first; its fragments go first.
    assert_eq!(
        flat(wire_order(Scheduler::Fcfs, true, 0, 1, 100)),
        DATA_ORDER
    );
}

#[test]
fn round_robin_with_i_data_alternates_fragments() {
    // Sec. 3.2 with interleaving: one chunk per stream in turn: a1 (stream 0),
    // then stream 1's B0, stream 0's a2, B1, a3, B2.
    assert_eq!(
        flat(wire_order(Scheduler::Rr, true, 0, 1, 100)),
        "a1 B0 a2 B1 a3 B2"
    );
}

#[test]
fn priority_with_i_data_lets_the_small_messages_pass() {
    // Sec. 3.4: stream 1 (priority 0) before stream 0 (priority 1) whenever it has
    // something: all of B0..B2 go between a1 and a2.
    assert_eq!(
        flat(wire_order(Scheduler::Priority, true, 0, 1, 100)),
        "a1 B0 B1 B2 a2 a3"
    );
}

#[test]
fn fair_capacity_with_i_data_by_bytes_sent() {
    // Sec. 3.5, bytes cut per stream: a1 (stream 0 at 1000); stream 1, idle until
    // now, joins at that level and wins the tie by turn (after stream 0): B0 (stream
    // 1 at 1500); 1000 < 1500: a2 (2000); 1500 < 2000: B1 (2000); the tie at 2000
    // goes by turn after stream 1: a3, then B2.
    assert_eq!(
        flat(wire_order(Scheduler::Fair, true, 0, 1, 100)),
        "a1 B0 a2 B1 a3 B2"
    );
}

#[test]
fn wfq_with_i_data_gives_weight_two_twice_the_bytes() {
    // Sec. 3.6, bytes / weight, stream 1 of weight 2: a1 (s0 at 1000), B0 (s1 at
    // 1000 + 250), a2 (s0 at 2000), B1 (s1 at 1500), B2 (s1 at 1750 < 2000), a3.
    assert_eq!(
        flat(wire_order(Scheduler::Wfq, true, 0, 2, 100)),
        "a1 B0 a2 B1 B2 a3"
    );
}

#[test]
fn round_robin_per_packet_with_and_without_i_data() {
    // Sec. 3.3, two chunks a packet: a packet holds one stream's chunks; the next
    // packet turns to the next stream. With DATA, a3 must follow a2 (consecutive
    // TSNs), alone in its packet since stream 0 has nothing more; with I-DATA the
    // second packet is stream 1's.
    let split = |p: Vec<Vec<String>>| p.iter().map(|x| x.join(" ")).collect::<Vec<_>>();
    assert_eq!(
        split(wire_order(Scheduler::RrPacket, false, 0, 1, 2)),
        vec!["a1 a2", "a3", "B0 B1", "B2"]
    );
    assert_eq!(
        split(wire_order(Scheduler::RrPacket, true, 0, 1, 2)),
        vec!["a1 a2", "B0 B1", "a3", "B2"]
    );
}

#[test]
fn fragments_carry_mid_and_fsn_and_flags() {
    let a = src(0, 3000, 100, 0, 1, 1);
    let b = src(1, 500, 5, 5, 0, 1);
    let mut s = StreamSources::new(&[a, b], 2, 1_000_000, false);
    s.set_scheduler(Scheduler::Rr);
    s.set_interleave(true);
    s.refill(at(0));
    let mut got = Vec::new();
    let first = s.next_chunk(1000).expect("a1");
    got.push((first.0, s.last_ids, first.2));
    assert!(s.mid_message());
    s.refill(at(15));
    while let Some(c) = s.next_chunk(1000) {
        got.push((c.0, s.last_ids, c.2));
    }
    let (b, e, be) = (DataFlags::BEGIN, DataFlags::END, DataFlags::UNFRAGMENTED);
    assert_eq!(
        got,
        vec![
            (0, (0, 0), b),
            (1, (0, 0), be),
            (0, (0, 1), DataFlags::empty()),
            (1, (1, 0), be),
            (0, (0, 2), e),
            (1, (2, 0), be),
        ]
    );
    assert!(!s.mid_message());
    // Released in order once acknowledged: nothing is left held.
    s.release(5);
    assert_eq!(s.held(), 0);
}

#[test]
fn unordered_messages_get_mids_too() {
    // RFC 8260 sec. 2.1: the MID numbers unordered messages as well (the SSN of
    // DATA is ignored for them, the MID is what the receiver reassembles by).
    let a = src(0, 1500, 10, 0, 0, 1);
    let mut s = StreamSources::new(&[a], 1, 1_000_000, true);
    s.set_interleave(true);
    for t in [0, 10, 20] {
        s.refill(at(t));
    }
    let mut got = Vec::new();
    while let Some(c) = s.next_chunk(1000) {
        assert!(c.2.contains(DataFlags::UNORDERED));
        got.push(s.last_ids);
    }
    assert_eq!(got, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
}

#[test]
fn a_held_back_reset_lets_only_the_partly_sent_message_go_on() {
    // RE-CONFIG (RFC 6525 with RFC 8260 sec. 2.3.2): while an outgoing stream reset
    // waits, no new message is begun; with interleaving that means stream 1's
    // messages wait while A0 is finished.
    let a = src(0, 3000, 100, 0, 1, 1);
    let b = src(1, 500, 5, 5, 0, 1);
    let mut s = StreamSources::new(&[a, b], 2, 1_000_000, false);
    s.set_scheduler(Scheduler::Priority);
    s.set_interleave(true);
    s.refill(at(0));
    s.next_chunk(1000).expect("a1");
    s.refill(at(15));
    s.hold_new = true;
    let held: Vec<u16> = std::iter::from_fn(|| s.next_chunk(1000))
        .map(|c| c.0)
        .collect();
    assert_eq!(held, vec![0, 0]);
    assert!(!s.mid_message());
    s.hold_new = false;
    let rest: Vec<u16> = std::iter::from_fn(|| s.next_chunk(1000))
        .map(|c| c.0)
        .collect();
    assert_eq!(rest, vec![1, 1, 1]);
}
