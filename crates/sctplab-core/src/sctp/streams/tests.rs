//! Sources and the send buffer by hand: submission times, first come first served,
//! and each policy's abandonment of messages not yet sent.

use super::*;
use crate::sim::SimDuration;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn at(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

fn src(stream: u16, size: u64, interval: Option<u64>, pr: PrPolicy) -> StreamSourceCfg {
    StreamSourceCfg {
        stream,
        message_size: size,
        interval: interval.map(ms),
        start: SimTime::ZERO,
        stop: None,
        priority: 0,
        weight: 1,
        pr,
    }
}

/// Cuts everything there is in chunks of up to 1000 bytes: (stream, ssn, flags, len).
fn cut_all(s: &mut StreamSources) -> Vec<(u16, u16, DataFlags, u32)> {
    std::iter::from_fn(|| s.next_chunk(1000)).collect()
}

#[test]
fn an_interval_source_submits_on_its_ticks_and_a_full_buffer_blocks_it() {
    // Every 10 ms a 600-byte message; buffer 1500 B: two fit (1200 B), the third waits.
    // Established at 0 ms; at 25 ms ticks 0, 10 and 20 have passed.
    let mut s = StreamSources::new(&[src(0, 600, Some(10), PrPolicy::None)], 1, 1500, false);
    s.refill(at(0));
    s.refill(at(25));
    assert_eq!(s.msgs.len(), 2);
    assert_eq!(s.held(), 1200);
    // Submission is entry into the buffer: at 0 ms, and the 10 ms tick at this refill.
    assert_eq!(s.msgs[0].submitted, at(0));
    assert_eq!(s.msgs[1].submitted, at(25));
    assert_eq!(s.next_wakeup(), Some(at(30)));
    // The peer acks the first message's chunk (relative TSN 0): room for the third.
    let chunks = cut_all(&mut s);
    assert_eq!(chunks.len(), 2);
    assert_eq!(
        chunks[0],
        (0, 0, DataFlags::UNFRAGMENTED, 600),
        "one whole message per chunk"
    );
    s.release(0);
    s.refill(at(27));
    assert_eq!((s.msgs.len(), s.held()), (2, 1200));
    assert_eq!(s.msgs[1].submitted, at(27));
    assert_eq!(s.log, vec![(0, 0, at(0)), (1, 0, at(25))]);
}

#[test]
fn first_come_first_served_puts_a_due_message_before_the_backlog() {
    // Stream 0 a backlog of 2000-byte messages, stream 1 one 100-byte message every
    // 50 ms; buffer 4000 B. At 0: stream 1's tick 0 is due first, then the backlog fills
    // what is left (2000 B; a second 2000-byte message would need 4100).
    let mut s = StreamSources::new(
        &[
            src(0, 2000, None, PrPolicy::None),
            src(1, 100, Some(50), PrPolicy::None),
        ],
        2,
        4000,
        false,
    );
    s.refill(at(0));
    let streams: Vec<u16> = s.msgs.iter().map(|m| m.stream).collect();
    assert_eq!(streams, vec![1, 0]);
    // Chunks in submission order: stream 1's message (TSN 0), then stream 0's two
    // fragments (1000 + 1000, B then E).
    let chunks = cut_all(&mut s);
    assert_eq!(
        chunks,
        vec![
            (1, 0, DataFlags::UNFRAGMENTED, 100),
            (0, 0, DataFlags::BEGIN, 1000),
            (0, 0, DataFlags::END, 1000),
        ]
    );
    assert_eq!(s.find(2), Some(1));
    assert_eq!(s.find(0), Some(0));
    assert_eq!(s.find(3), None);
}

#[test]
fn ttl_abandons_an_expired_message_and_unsent_ones_leave_at_once() {
    // Two 1500-byte messages with a 100 ms lifetime, submitted at 0. The first is cut
    // (two chunks, relative TSNs 0 and 1), the second not. At 100 ms both have
    // expired: the unsent one leaves the buffer at once (no TSN was spent on it), the
    // sent one stays until the cumulative ack passes TSN 1.
    let ttl = PrPolicy::Ttl(ms(100));
    let mut s = StreamSources::new(&[src(0, 1500, Some(1000), ttl)], 1, 10_000, false);
    s.pr_on = true;
    s.refill(at(0));
    s.msgs.push_back(Msg {
        submitted: at(0),
        ..s.msgs[0].clone()
    });
    s.held += 1500;
    assert_eq!(s.next_chunk(1000), Some((0, 0, DataFlags::BEGIN, 1000)));
    assert_eq!(s.next_chunk(1000), Some((0, 0, DataFlags::END, 500)));
    s.expire(at(99), |_| true);
    assert_eq!(s.tally[0].abandoned_messages, 0);
    s.expire(at(100), |_| true);
    assert_eq!(s.tally[0].abandoned_messages, 2);
    assert_eq!((s.msgs.len(), s.held()), (1, 1500));
    assert!(s.msgs[0].abandoned);
    assert_eq!(s.next_chunk(1000), None, "nothing left to send");
    s.release(1);
    assert_eq!((s.msgs.len(), s.held()), (0, 0));
}

#[test]
fn ttl_spares_a_message_not_seen_lost_and_a_peer_without_pr_sctp() {
    let ttl = PrPolicy::Ttl(ms(100));
    let mut s = StreamSources::new(&[src(0, 500, Some(1000), ttl)], 1, 10_000, false);
    s.refill(at(0));
    cut_all(&mut s);
    // Without the peer's Forward-TSN-Supported nothing is abandoned.
    s.expire(at(500), |_| true);
    assert_eq!(s.tally[0].abandoned_messages, 0);
    // A message wholly in flight and not reported missing may still arrive.
    s.pr_on = true;
    s.expire(at(500), |_| false);
    assert_eq!(s.tally[0].abandoned_messages, 0);
    s.expire(at(500), |_| true);
    assert_eq!(s.tally[0].abandoned_messages, 1);
}

#[test]
fn prio_abandons_lower_priority_messages_to_make_room() {
    // RFC 7496 sec. 4. Buffer 3000 B. Stream 0 (priority value 5, the lower) submits
    // 1000-byte messages at 0 and 1 ms (it stops at 2 ms); the first is sent. Stream 1
    // (priority 1) needs 2000 B at 5 ms: 1000 B are free, so 1000 B of lower priority
    // are abandoned, oldest first (as Linux and usrsctp prune): the sent message of
    // stream 0, whose room comes back only when the cumulative ack passes it, so
    // stream 1 waits until then. The unsent one of stream 0 stays.
    let mut low = src(0, 1000, Some(1), PrPolicy::Prio(5));
    low.stop = Some(at(2));
    let mut high = src(1, 2000, Some(1000), PrPolicy::Prio(1));
    high.start = at(5);
    let mut s = StreamSources::new(&[low, high], 2, 3000, false);
    s.pr_on = true;
    s.refill(at(0));
    s.refill(at(1));
    assert_eq!((s.msgs.len(), s.held()), (2, 2000));
    assert_eq!(
        s.next_chunk(1000),
        Some((0, 0, DataFlags::UNFRAGMENTED, 1000))
    );
    s.refill(at(5));
    assert_eq!(s.tally[0].abandoned_messages, 1);
    assert!(s.msgs[0].abandoned && !s.msgs[1].abandoned);
    assert_eq!((s.msgs.len(), s.held()), (2, 2000));
    s.release(0);
    s.refill(at(6));
    let last = s.msgs.back().expect("a message");
    assert_eq!((last.stream, last.size, last.submitted), (1, 2000, at(6)));
    assert_eq!(s.held(), 3000);
}

#[test]
fn ticks_before_the_association_exists_are_no_messages() {
    // Every 20 ms from 0; the association is established at 1040 ms: the first
    // message falls due at 1040 ms (tick 52), the next at 1060 ms.
    let mut s = StreamSources::new(&[src(0, 100, Some(20), PrPolicy::None)], 1, 10_000, false);
    s.refill(at(1040));
    assert_eq!(s.msgs.len(), 1);
    assert_eq!(s.msgs[0].submitted, at(1040));
    assert_eq!(s.next_wakeup(), Some(at(1060)));
    // Established between ticks (1041 ms): the first message is at 1060 ms.
    let mut s = StreamSources::new(&[src(0, 100, Some(20), PrPolicy::None)], 1, 10_000, false);
    s.refill(at(1041));
    assert_eq!((s.msgs.len(), s.next_wakeup()), (0, Some(at(1060))));
}

#[test]
fn a_stopped_backlog_is_exhausted_once_its_buffer_is_sent() {
    let mut cfg = src(0, 1000, None, PrPolicy::None);
    cfg.stop = Some(at(10));
    let mut s = StreamSources::new(&[cfg], 1, 2000, false);
    s.refill(at(0));
    assert_eq!((s.msgs.len(), s.next_wakeup()), (2, Some(at(10))));
    cut_all(&mut s);
    assert!(!s.exhausted());
    s.refill(at(10));
    assert!(s.exhausted());
    assert_eq!(s.next_wakeup(), None);
}

#[test]
fn with_interleaving_a_tsn_is_found_in_its_own_message() {
    // Round robin per chunk with I-DATA (RFC 8260 sec. 3.2): stream 0's 3000-byte
    // message A and stream 1's 500-byte message B, both at 0, are cut A B A A:
    // relative TSNs 0, 2, 3 are A's, 1 is B's. DATA's lookup by range (a message's
    // chunks consecutive) would look for TSN 2 in B, the last message begun at or
    // before it, and find nothing: it is A's.
    let mut s = StreamSources::new(
        &[
            src(0, 3000, Some(1000), PrPolicy::None),
            src(1, 500, Some(1000), PrPolicy::None),
        ],
        2,
        100_000,
        false,
    );
    s.set_scheduler(Scheduler::Rr);
    s.set_interleave(true);
    s.refill(at(0));
    let order: Vec<u16> = cut_all(&mut s).iter().map(|c| c.0).collect();
    assert_eq!(order, vec![0, 1, 0, 0]);
    let stream_of = |rel: u32| s.find(rel).map(|k| s.msgs[k].stream);
    assert_eq!(
        (0..5).map(stream_of).collect::<Vec<_>>(),
        vec![Some(0), Some(1), Some(0), Some(0), None]
    );
    assert_eq!(s.msgs[0].tsns, vec![0, 2, 3]);
}
