//! The event kernel alone: `EventQueue` in a steady state ("hold model").
//!
//! A simulation spends most of its life with a roughly constant number of pending events,
//! each handled event scheduling about one more. That is what this measures: the heap is
//! filled to N pending events, then every step pops the earliest and schedules one new
//! event a pseudo-random delay after it, so N stays constant. Popping from a heap that
//! only drains, or pushing into one that only grows, would flatter or penalise the queue.
//!
//! Run with: `cargo bench -p sctplab-bench --bench kernel`.

use criterion::{BenchmarkId, Criterion, Throughput};
use sctplab_core::sim::{EventQueue, SimDuration, SimTime};
use std::hint::black_box;

/// Mirrors the simulator's `world::Event` (which is crate-private), so the heap moves
/// entries of the same size as in a real run.
#[derive(Copy, Clone, Debug)]
enum Event {
    TxDone(u32),
    Arrive(u32, u32, bool),
    Timer(u32, u32),
    Sample,
    Stop,
}

impl Event {
    /// Reads every field, as a handler dispatching on the event would; without a reader
    /// the compiler may skip moving the payload around.
    fn touch(self) -> u32 {
        match self {
            Event::TxDone(dir) => dir,
            Event::Arrive(dir, pkt, lost) => dir ^ pkt ^ u32::from(lost),
            Event::Timer(ep, generation) => ep ^ generation,
            Event::Sample => 1,
            Event::Stop => 2,
        }
    }
}

// The heap stores (time, seq, event); keeping that at 32 bytes is what the simulator's
// "keep Event small" rule is for, so fail loudly if this mirror drifts past it.
const _: () = assert!(std::mem::size_of::<Event>() <= 16);
const _: () = assert!(std::mem::size_of::<(u64, u64, Event)>() == 32);

/// xorshift64: deterministic, so every run and machine sees the same schedule, and cheap
/// enough not to show up next to a heap operation.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Delays up to 10 ms in whole nanoseconds: the scale of link serialisation and
/// propagation times, wide enough that equal timestamps are rare, as in a real run.
const MAX_DELAY_NS: u64 = 10_000_000;

fn event_for(r: u64) -> Event {
    let id = (r >> 32) as u32;
    match r % 8 {
        0..=2 => Event::TxDone(id),
        3..=5 => Event::Arrive(id, id ^ 0x5555, r & 0x100 != 0),
        6 => Event::Timer(id, r as u32),
        _ if r & 0x100 != 0 => Event::Sample,
        _ => Event::Stop,
    }
}

/// A queue holding `pending` events spread over one delay span, as after a warm-up.
fn steady_queue(pending: usize, rng: &mut XorShift) -> EventQueue<Event> {
    let mut q = EventQueue::with_capacity(pending + 1);
    // As in a world without wireless NICs: the pop history serves only their MACs.
    q.keep_history(false);
    for _ in 0..pending {
        let r = rng.next();
        q.schedule(SimTime::from_nanos(r % MAX_DELAY_NS), event_for(r));
    }
    q
}

/// Holds per criterion iteration: large enough that the timing loop's own overhead is
/// noise, small enough that short measurement times still give many samples.
const HOLDS_PER_ITER: u64 = 1024;

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue_hold");
    group.throughput(Throughput::Elements(HOLDS_PER_ITER));
    for pending in [1_000usize, 100_000] {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut q = steady_queue(pending, &mut rng);
        group.bench_function(BenchmarkId::from_parameter(pending), |b| {
            b.iter(|| {
                let mut seen = 0u32;
                for _ in 0..HOLDS_PER_ITER {
                    let (now, ev) = q.pop().expect("the hold model never drains");
                    seen = seen.wrapping_add(ev.touch());
                    let r = rng.next();
                    q.schedule(
                        now + SimDuration::from_nanos(r % MAX_DELAY_NS),
                        event_for(r),
                    );
                }
                black_box(seen)
            });
        });
        assert_eq!(q.len(), pending, "a hold step must keep the queue size");
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    hold(&mut c);
    c.final_summary();
}
