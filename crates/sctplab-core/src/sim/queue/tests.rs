//! The queue against reference orders (`BTreeMap`s, a scan of every pending event).

use super::store::{HEAP_BELOW, RADIX_ABOVE, Store};
use super::*;
use crate::sim::key::SEQ_STEP;

#[test]
fn pops_in_time_then_insertion_order() {
    let mut q = EventQueue::default();
    q.schedule(SimTime::from_nanos(5), "b1");
    q.schedule(SimTime::from_nanos(3), "a");
    q.schedule(SimTime::from_nanos(5), "b2");
    q.schedule(SimTime::from_nanos(5), "b3");
    let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, ["a", "b1", "b2", "b3"]);
    assert_eq!(q.now(), SimTime::from_nanos(5));
    assert_eq!(q.events_processed(), 4);
}

/// A block of sequence numbers is the numbers `n` single reservations would give,
/// and what is scheduled after it comes after every one of them.
#[test]
fn reserved_block_is_consecutive_reservations() {
    let mut a: EventQueue<u32> = EventQueue::default();
    let mut b: EventQueue<u32> = EventQueue::default();
    a.schedule(SimTime::from_nanos(1), 0);
    b.schedule(SimTime::from_nanos(1), 0);
    let singles: Vec<u64> = (0..5).map(|_| a.reserve_seq()).collect();
    let first = b.reserve_seq_block(5);
    let block: Vec<u64> = (0..5).map(|i| first + i * SEQ_STEP).collect();
    assert_eq!(singles, block);
    assert_eq!(a.reserve_seq(), b.reserve_seq());
    b.schedule_reserved(SimTime::from_nanos(2), block[3], 3);
    b.schedule(SimTime::from_nanos(2), 9);
    b.schedule_reserved(SimTime::from_nanos(2), block[1], 1);
    let order: Vec<u32> = std::iter::from_fn(|| b.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, [0, 1, 3, 9]);
}

#[test]
fn event_scheduled_now_runs_after_earlier_simultaneous_ones() {
    let mut q = EventQueue::default();
    q.schedule(SimTime::from_nanos(1), 1);
    q.schedule(SimTime::from_nanos(1), 2);
    let (_, first) = q.pop().unwrap();
    assert_eq!(first, 1);
    q.schedule(SimTime::from_nanos(1), 3);
    assert_eq!(q.pop().unwrap().1, 2);
    assert_eq!(q.pop().unwrap().1, 3);
}

#[test]
#[should_panic(expected = "in the past")]
fn scheduling_in_the_past_panics() {
    let mut q = EventQueue::default();
    q.schedule(SimTime::from_nanos(10), ());
    q.pop();
    q.schedule(SimTime::from_nanos(9), ());
}

/// A reference future-event list: every event kept until popped, minimum (time,
/// sequence) first, found by a scan. Slot events carry their slot's generation at
/// scheduling; when popped with an outdated generation they are stale and skipped
/// (what the world's timer handlers do), which is exactly what `schedule_slot` may
/// drop instead.
/// (time, sequence, payload, slot and generation for slot events).
type Pending = (u64, u64, u32, Option<(usize, u32)>);

struct Reference {
    pending: Vec<Pending>,
    generation: Vec<u32>,
    seq: u64,
}

impl Reference {
    fn schedule(&mut self, t: u64, id: u32, slot: Option<usize>) {
        let tag = slot.map(|s| {
            self.generation[s] += 1;
            (s, self.generation[s])
        });
        self.pending.push((t, self.seq, id, tag));
        self.seq += 1;
    }

    /// The next live event, and the latest time of the stale ones skipped for it.
    fn pop(&mut self) -> (Option<(u64, u32)>, u64) {
        let mut stale = 0;
        loop {
            let Some(i) = (0..self.pending.len()).min_by_key(|&i| {
                let p = self.pending[i];
                (p.0, p.1)
            }) else {
                return (None, stale);
            };
            let (t, _, id, tag) = self.pending.swap_remove(i);
            match tag {
                Some((s, g)) if g != self.generation[s] => stale = stale.max(t),
                _ => return (Some((t, id)), stale),
            }
        }
    }
}

/// Random mixes of plain events, runs and slot events, with pops in between: the
/// queue must pop the reference's live events in the same order and at the same
/// times, and remember the latest stale deadline.
#[test]
fn matches_reference_order_with_runs_and_slots() {
    use crate::sim::RngStream;
    for seed in 0..20 {
        let mut r = RngStream::new(seed, "queue-test");
        let mut q: EventQueue<u32> = EventQueue::with_capacity(4);
        let slots = 5;
        let mut re = Reference {
            pending: Vec::new(),
            generation: vec![0; slots],
            seq: 0,
        };
        let mut id = 0u32;
        let mut now = 0u64;
        let mut stale_max = 0u64;
        // Small time range, so that equal times (ties) are frequent.
        let at = |r: &mut RngStream, now: u64| now + r.next_u64() % 8;
        for _ in 0..3000 {
            match r.next_u64() % 6 {
                0 | 1 => {
                    let t = at(&mut r, now);
                    q.schedule(SimTime::from_nanos(t), id);
                    re.schedule(t, id, None);
                    id += 1;
                }
                2 => {
                    let n = (r.next_u64() % 6) as usize;
                    let times: Vec<u64> = (0..n).map(|_| at(&mut r, now)).collect();
                    q.schedule_run(
                        times
                            .iter()
                            .enumerate()
                            .map(|(k, &t)| (SimTime::from_nanos(t), id + k as u32)),
                    );
                    for (k, &t) in times.iter().enumerate() {
                        re.schedule(t, id + k as u32, None);
                    }
                    id += n as u32;
                }
                3 => {
                    let s = (r.next_u64() % slots as u64) as usize;
                    let t = at(&mut r, now);
                    q.schedule_slot(s, SimTime::from_nanos(t), id);
                    re.schedule(t, id, Some(s));
                    id += 1;
                }
                _ => {
                    let (want, stale) = re.pop();
                    stale_max = stale_max.max(stale);
                    let got = q.pop().map(|(t, e)| (t.as_nanos(), e));
                    assert_eq!(got, want, "seed {seed}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
            }
        }
        loop {
            let (want, stale) = re.pop();
            stale_max = stale_max.max(stale);
            let got = q.pop().map(|(t, e)| (t.as_nanos(), e));
            assert_eq!(got, want, "seed {seed}");
            if got.is_none() {
                break;
            }
        }
        assert!(q.is_empty());
        assert_eq!(q.superseded_horizon().as_nanos(), stale_max, "seed {seed}");
    }
}

/// A frame's receivers as one run (`schedule_reserved_run`) pop exactly as when each
/// goes in alone with `schedule_reserved`, among plain events, slot events and other
/// runs, with ties in time and blocks whose numbers go in out of order.
#[test]
fn reserved_run_pops_as_reserved_singles() {
    use crate::sim::RngStream;
    let mut r = RngStream::new(11, "queue-reserved-run");
    let mut a: EventQueue<u64> = EventQueue::default();
    let mut b: EventQueue<u64> = EventQueue::default();
    let mut now = 0u64;
    let mut id = 0u64;
    let mut runs = 0;
    for _ in 0..4000 {
        match r.next_u64() % 4 {
            0 => {
                let t = SimTime::from_nanos(now + r.next_u64() % 16);
                a.schedule(t, id);
                b.schedule(t, id);
                id += 1;
            }
            1 => {
                let t = SimTime::from_nanos(now + 1 + r.next_u64() % 64);
                let slot = (r.next_u64() % 5) as usize;
                a.schedule_slot(slot, t, id);
                b.schedule_slot(slot, t, id);
                id += 1;
            }
            _ => {
                // A block of numbers, some of them taken, at times close together.
                let k = 1 + (r.next_u64() % 12) as usize;
                let s0 = a.reserve_seq_block(k);
                assert_eq!(b.reserve_seq_block(k), s0);
                let mut batch = Vec::new();
                for j in 0..k as u64 {
                    if r.next_u64() % 3 != 0 {
                        let t = SimTime::from_nanos(now + 1 + r.next_u64() % 4);
                        batch.push((t, s0 + j * SEQ_STEP, id));
                        id += 1;
                    }
                }
                for &(t, seq, e) in &batch {
                    a.schedule_reserved(t, seq, e);
                }
                runs += usize::from(!batch.is_empty());
                assert_eq!(b.schedule_reserved_run(batch.iter().copied()), batch.len());
            }
        }
        for _ in 0..(r.next_u64() % 3) {
            let got = a.pop();
            assert_eq!(b.pop(), got);
            assert_eq!(b.last_key(), a.last_key());
            if let Some((t, _)) = got {
                now = t.as_nanos();
            }
        }
        assert_eq!(a.len(), b.len());
    }
    assert!(runs > 1000);
    while let Some(got) = a.pop() {
        assert_eq!(b.pop(), Some(got));
    }
    assert!(b.pop().is_none());
}

/// Many pending events, so that the store switches from the 4-ary heap to the radix
/// heap and back, with frequent ties in time and events scheduled with reserved
/// numbers: the pop order must be a `BTreeMap`'s over (time, sequence number).
#[test]
fn large_queues_pop_in_key_order_across_store_switches() {
    use crate::sim::RngStream;
    use std::collections::BTreeMap;
    let mut r = RngStream::new(7, "queue-large");
    let mut q: EventQueue<u64> = EventQueue::default();
    let mut want: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    let mut reserved: Vec<(u64, u64)> = Vec::new();
    let mut now = 0u64;
    let mut id = 0u64;
    let mut popped = 0usize;
    let mut was_radix = false;
    // Grow to about 3 * RADIX_ABOVE, shrink below HEAP_BELOW, grow again.
    for phase in [3 * RADIX_ABOVE, HEAP_BELOW / 2, 2 * RADIX_ABOVE, 0] {
        let grow = q.len() < phase;
        while (grow && q.len() < phase) || (!grow && q.len() > phase) {
            let adds = if grow { 3 } else { 1 };
            for _ in 0..adds {
                // Times within 64 ns of now (many ties), or up to 2^40 ns later.
                let t = if r.next_u64() % 4 == 0 {
                    now + r.next_u64() % (1 << 40)
                } else {
                    now + r.next_u64() % 64
                };
                if r.next_u64() % 8 == 0 {
                    reserved.push((t, q.reserve_seq()));
                } else {
                    let seq = q.next_seq;
                    q.schedule(SimTime::from_nanos(t), id);
                    want.insert((t, seq), id);
                    id += 1;
                }
            }
            // Reserved events are put in later, while still ahead of the last pop.
            if let Some(&(t, seq)) = reserved.last() {
                if r.next_u64() % 2 == 0 {
                    reserved.pop();
                    if (t, seq) > (now, q.last_key().seq()) || popped == 0 {
                        q.schedule_reserved(SimTime::from_nanos(t), seq, id);
                        want.insert((t, seq), id);
                        id += 1;
                    }
                }
            }
            for _ in 0..2 {
                if grow && r.next_u64() % 2 == 0 {
                    continue;
                }
                let Some(((t, seq), e)) = want.pop_first() else {
                    break;
                };
                assert_eq!(q.pop(), Some((SimTime::from_nanos(t), e)));
                assert_eq!(q.last_key(), Key::new(SimTime::from_nanos(t), seq));
                now = t;
                popped += 1;
            }
            was_radix |= matches!(q.heap, Store::Radix(_));
            assert_eq!(q.len(), want.len());
        }
    }
    assert!(was_radix, "the test must reach the radix heap");
    assert!(
        matches!(q.heap, Store::Heap(_)),
        "and come back to the 4-ary heap"
    );
    assert!(q.pop().is_none());
}

/// FIFO lanes (times in order per lane, often equal across lanes and with plain
/// events) pop in the order of a `BTreeMap` over (time, sequence number), with the
/// lane heads in the 4-ary heap and, with many lanes and events pending, in the radix
/// heap (across both switches).
#[test]
fn lanes_pop_in_key_order_with_other_events() {
    use crate::sim::RngStream;
    use std::collections::BTreeMap;
    for (lanes, target) in [(5usize, 0usize), (3 * RADIX_ABOVE, 3 * RADIX_ABOVE)] {
        let mut r = RngStream::new(3, "queue-lanes");
        let mut q: EventQueue<u64> = EventQueue::default();
        let mut want: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        let mut lane_last = vec![0u64; lanes];
        let mut now = 0u64;
        let mut was_radix = false;
        for id in 0..(20_000 + 4 * target as u64) {
            let seq = q.next_seq;
            let t = if r.next_u64() % 3 == 0 {
                let t = now + r.next_u64() % 16;
                q.schedule(SimTime::from_nanos(t), id);
                t
            } else {
                let lane = (r.next_u64() % lanes as u64) as usize;
                let t = lane_last[lane].max(now) + r.next_u64() % 4;
                lane_last[lane] = t;
                q.schedule_lane(lane, SimTime::from_nanos(t), id);
                t
            };
            want.insert((t, seq), id);
            // Grow towards `target` pending events for the first half, then drain.
            let growing = (id as usize) < 2 * target && want.len() < target;
            while r.next_u64() % if growing { 4 } else { 2 } == 0 {
                let Some(((t, _), e)) = want.pop_first() else {
                    break;
                };
                assert_eq!(q.pop(), Some((SimTime::from_nanos(t), e)));
                now = t;
            }
            if !growing && want.len() > 8 {
                let ((t, _), e) = want.pop_first().expect("not empty");
                assert_eq!(q.pop(), Some((SimTime::from_nanos(t), e)));
                now = t;
            }
            was_radix |= matches!(q.heap, Store::Radix(_));
            assert_eq!(q.len(), want.len());
        }
        while let Some(((t, _), e)) = want.pop_first() {
            assert_eq!(q.pop(), Some((SimTime::from_nanos(t), e)));
        }
        assert!(q.pop().is_none());
        assert_eq!(
            was_radix,
            target > 0,
            "the radix heap is reached iff intended"
        );
        assert!(matches!(q.heap, Store::Heap(_)));
    }
}

#[test]
fn run_events_interleave_with_heap_events_by_key() {
    let mut q = EventQueue::default();
    q.schedule(SimTime::from_nanos(4), "h4");
    // One run: sequence numbers in the given order, popped in time order.
    q.schedule_run([
        (SimTime::from_nanos(6), "r6"),
        (SimTime::from_nanos(4), "r4"),
        (SimTime::from_nanos(2), "r2"),
    ]);
    q.schedule(SimTime::from_nanos(2), "h2");
    assert_eq!(q.len(), 5);
    assert_eq!(q.peek_time(), Some(SimTime::from_nanos(2)));
    let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    // At t=2 the run's event was scheduled before h2; at t=4 h4 before the run's.
    assert_eq!(order, ["r2", "h2", "h4", "r4", "r6"]);
}

/// Events put in later with numbers reserved in a batch's order pop exactly where
/// `schedule_run` would have put them (the order of
/// `run_events_interleave_with_heap_events_by_key`).
#[test]
fn reserved_events_keep_their_place() {
    let t = SimTime::from_nanos;
    let mut q = EventQueue::default();
    q.schedule(t(4), "h4");
    let first = q.reserve_seq_block(3);
    let seq = |i: u64| first + i * SEQ_STEP;
    q.schedule_reserved(t(6), seq(0), "r6");
    q.schedule(t(2), "h2");
    q.schedule_reserved(t(4), seq(1), "r4");
    q.schedule_reserved(t(2), seq(2), "r2");
    assert_eq!(q.len(), 5);
    let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, ["r2", "h2", "h4", "r4", "r6"]);
}

/// `seq_after_lazy` must give `seq_after`'s number for every key, asking for the
/// sequence number only when an event at that very time was popped.
#[test]
fn seq_after_lazy_agrees_with_seq_after() {
    let mut q = EventQueue::default();
    let t = SimTime::from_nanos;
    for (at, e) in [(1, "a"), (3, "b"), (3, "c"), (6, "d")] {
        q.schedule(t(at), e);
    }
    let mid = q.reserve_seq();
    q.pop();
    q.pop();
    q.schedule(t(5), "e");
    q.pop();
    // Popped: (1, 0), (3, 2), (3, 4); pending: (5, 10), (6, 6); counter 12.
    for at in 0..8 {
        for seq in [0, 1, 3, 5, mid, 11] {
            let asked = std::cell::Cell::new(false);
            let lazy = q.seq_after_lazy(t(at), || {
                asked.set(true);
                Ok(seq)
            });
            assert_eq!(
                lazy.ok(),
                q.seq_after(Key::new(t(at), seq)).ok(),
                "({at}, {seq})"
            );
            // Only at t = 1 and t = 3 was anything popped.
            assert_eq!(asked.get(), at == 1 || at == 3, "({at}, {seq})");
        }
    }
}

/// Lookups through a cursor give what the plain searches give, for query times in
/// order (the catch-up's case), out of order, and across pops (stale cursors).
#[test]
fn cursor_lookups_agree_with_plain_ones() {
    let mut q = EventQueue::default();
    let t = SimTime::from_nanos;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rand = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    // Many events on few distinct times: ties in the history.
    for _ in 0..3000 {
        let at = rand(2000);
        q.schedule(t(at), ());
    }
    let mut cur = HistoryCursor::default();
    for round in 0..40 {
        for _ in 0..60 {
            q.pop();
        }
        if round % 3 == 0 {
            q.reserve_seq();
        }
        let now = q.last_key().time_nanos();
        let mut at = rand(now + 1) / 2;
        for _ in 0..50 {
            // Mostly forward, sometimes back, sometimes past the last pop.
            at = match rand(8) {
                0 => rand(now + 1),
                1 => now + rand(3),
                _ => (at + rand(now / 20 + 2)).min(now + 2),
            };
            let seq = rand(q.last_key().seq() + 4);
            let k = Key::new(t(at), seq);
            let lazy = q.seq_after_lazy_from(&mut cur, t(at), || Ok(seq)).ok();
            assert_eq!(lazy, q.seq_after_lazy(t(at), || Ok(seq)).ok(), "{k:?}");
            assert_eq!(lazy, q.seq_after(k).ok(), "{k:?}");
            let tied = q.seq_after_tied(
                &mut HistoryCursor::default(),
                k,
                crate::sim::lazy::Lineage::new,
            );
            assert_eq!(lazy, Some(tied), "{k:?}");
        }
    }
}

#[test]
fn runs_spanning_more_than_the_packed_range_sort_by_full_key() {
    // 2^50 ns apart: beyond the 48-bit time offsets of the packed sort.
    let far = SimTime::from_nanos(1 << 50);
    let mut q = EventQueue::default();
    q.schedule_run([
        (far, "far1"),
        (SimTime::from_nanos(3), "near"),
        (far, "far2"),
    ]);
    q.schedule(SimTime::from_nanos(3), "heap");
    let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, ["near", "heap", "far1", "far2"]);
}

/// `seq_after(k)` must fall between the numbers given out before the first pop
/// after `k` and those given out after it, whether `k` was popped or only reserved.
#[test]
fn seq_after_falls_between_before_and_after() {
    let mut q = EventQueue::default();
    let t = SimTime::from_nanos;
    q.schedule(t(1), "a");
    let reserved = q.reserve_seq(); // a virtual event at (2, reserved)
    q.schedule(t(3), "c");
    assert_eq!(q.pop().map(|e| e.1), Some("a"));
    let before = q.reserve_seq(); // given out while "a" is handled
    assert_eq!(q.pop().map(|e| e.1), Some("c"));
    let after = q.reserve_seq(); // given out while "c" is handled
    for k in [
        Key::new(t(1), q.last_key().seq() - 2),
        Key::new(t(2), reserved),
    ] {
        let s = q.seq_after(k).expect("no lazy pops");
        assert!(s % 2 == 1, "odd: free");
        if k.time() == t(2) {
            // Handled between "a" and "c".
            assert!(before < s && s < after, "{before} < {s} < {after}");
        }
    }
    // Past the last pop: above everything given out so far.
    assert!(q.seq_after(Key::new(t(5), 0)).expect("no lazy pops") > after);
}

#[test]
fn slot_replacement_keeps_one_event_per_slot() {
    let mut q = EventQueue::default();
    q.schedule_slot(3, SimTime::from_nanos(10), "late");
    q.schedule_slot(3, SimTime::from_nanos(5), "early");
    q.schedule_slot(1, SimTime::from_nanos(7), "other");
    assert_eq!(q.len(), 2);
    assert_eq!(q.pop(), Some((SimTime::from_nanos(5), "early")));
    assert_eq!(q.pop(), Some((SimTime::from_nanos(7), "other")));
    assert_eq!(q.pop(), None);
    assert_eq!(q.superseded_horizon(), SimTime::from_nanos(10));
}

/// Slot events with the same key pop in the order of their lineages (`sim::lazy`,
/// rule 5), whatever the order they were put in and whatever their slot ids; the
/// lineage compares key by key, the first difference deciding.
#[test]
fn slot_events_of_one_key_pop_by_lineage() {
    let k = |t: u64, s: u64| Key::new(SimTime::from_nanos(t), s);
    let lineages = [
        vec![k(8, 5), k(7, 3)],
        vec![k(8, 5), k(6, 9), k(2, 4)],
        vec![k(7, 11)],
        vec![k(8, 5), k(7, 3), k(1, 2)],
        vec![k(8, 7)],
    ];
    let mut want: Vec<usize> = (0..lineages.len()).collect();
    want.sort_by(|&a, &b| lineages[a].cmp(&lineages[b]));
    assert_eq!(want, [2, 1, 0, 3, 4]);
    for rot in 0..lineages.len() {
        let mut q = EventQueue::default();
        q.schedule(SimTime::from_nanos(1), usize::MAX);
        let _ = q.pop();
        // Unrelated slot events around them, before and after in key order.
        q.schedule_slot(10, SimTime::from_nanos(20), 100);
        q.schedule_slot(11, SimTime::from_nanos(30), 101);
        for i in 0..lineages.len() {
            let j = (i + rot) % lineages.len();
            // Slot ids against the lineages' order.
            let note = crate::sim::lazy::LineageNote::Keys(lineages[j].clone());
            q.schedule_slot_lazy(9 - j, SimTime::from_nanos(30), 1, note, j);
        }
        let order: Vec<usize> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        let mut expected = vec![100];
        expected.extend(&want);
        expected.push(101);
        assert_eq!(order, expected, "rotation {rot}");
    }
}
