//! The rules of `sim::lazy` against the plain run they stand for: the same model run
//! once with every event in the queue and once with one owner's events kept lazy must
//! handle every event in the same order.

use super::*;
use crate::sim::EventQueue;

fn t(ns: u64) -> SimTime {
    SimTime::from_nanos(ns)
}

/// SplitMix64: the model's choices as a function of an event's label, so that both
/// runs make the same ones.
fn h(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ev {
    /// A real event: it schedules a real event (one in 64 two) 0-3 ns later and, every
    /// other one, is an input of the owner, which arms the owner's event if none is
    /// pending.
    Real(u64),
    /// The owner's event: it changes only the owner and arms the
    /// owner's next event 0-2 ns later (often at the time of a real event: ties), seven
    /// times in eight.
    Owned(u64),
}

/// Real events the model creates in all.
const REAL_EVENTS: u64 = 3000;

struct Model {
    next_real: u64,
    next_owned: u64,
}

impl Model {
    fn new() -> Self {
        Model {
            next_real: 0,
            next_owned: 0,
        }
    }

    /// The real events real event `x` schedules, as (delay, label).
    fn children(&mut self, x: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for i in 0..1 + u64::from(h(x) % 64 == 0) {
            if self.next_real < REAL_EVENTS {
                out.push((h(x * 7 + i) % 4, self.next_real));
                self.next_real += 1;
            }
        }
        out
    }

    fn is_input(x: u64) -> bool {
        h(x ^ 0x55) & 1 == 0
    }

    /// The owner's event armed by a real input `x` when none is pending.
    fn armed_by_input(&mut self, x: u64) -> (u64, u64) {
        let y = self.next_owned;
        self.next_owned += 1;
        (h(x + 1000) % 3, y)
    }

    /// The owner's event armed by its event `y`, if any.
    fn armed_by_owned(&mut self, y: u64) -> Option<(u64, u64)> {
        (h(y ^ 0xabc) % 8 != 0).then(|| {
            let z = self.next_owned;
            self.next_owned += 1;
            (h(y + 77) % 3, z)
        })
    }
}

/// The plain run: every event in the queue. The labels in the order handled.
fn plain_run() -> Vec<Ev> {
    let mut m = Model::new();
    let mut q = EventQueue::default();
    let mut pending = false;
    for _ in 0..8 {
        let x = m.next_real;
        m.next_real += 1;
        q.schedule(t(x), Ev::Real(x));
    }
    let mut order = Vec::new();
    while let Some((now, ev)) = q.pop() {
        order.push(ev);
        match ev {
            Ev::Real(x) => {
                for (d, c) in m.children(x) {
                    q.schedule(now + crate::sim::SimDuration::from_nanos(d), Ev::Real(c));
                }
                if Model::is_input(x) && !pending {
                    let (d, y) = m.armed_by_input(x);
                    q.schedule(now + crate::sim::SimDuration::from_nanos(d), Ev::Owned(y));
                    pending = true;
                }
            }
            Ev::Owned(y) => {
                pending = false;
                if let Some((d, z)) = m.armed_by_owned(y) {
                    q.schedule(now + crate::sim::SimDuration::from_nanos(d), Ev::Owned(z));
                    pending = true;
                }
            }
        }
    }
    order
}

/// The owner with its events kept lazy.
struct Owner {
    pending: Option<(SimTime, LazySeq, u64)>,
    chain: ArmerChain,
}

impl Owner {
    /// Runs the owner's lazy events due before `before` (rule 2), noting each with its
    /// key.
    fn catch_up(
        &mut self,
        m: &mut Model,
        q: &EventQueue<Ev>,
        before: (SimTime, u64),
        ran: &mut Vec<((SimTime, u64), Ev)>,
    ) {
        let mut cur = HistoryCursor::default();
        while let Some((at, v, y)) = self.pending {
            let chain = &self.chain;
            if !due_before(at, || v.resolve_from(chain, q, &mut cur), before) {
                break;
            }
            ran.push(((at, v.resolve(&self.chain, q)), Ev::Owned(y)));
            self.pending = m.armed_by_owned(y).map(|(d, z)| {
                let child = v.child(at, &mut self.chain, q, &mut cur);
                (at + crate::sim::SimDuration::from_nanos(d), child, z)
            });
        }
    }
}

/// The same model with the owner's events lazy, the owner caught up before each of its
/// inputs (or before every pop: `every_pop`) and at the end. The labels in key order.
fn lazy_run(every_pop: bool) -> Vec<Ev> {
    let mut m = Model::new();
    let mut q = EventQueue::default();
    let mut owner = Owner {
        pending: None,
        chain: ArmerChain::default(),
    };
    for _ in 0..8 {
        let x = m.next_real;
        m.next_real += 1;
        q.schedule(t(x), Ev::Real(x));
    }
    let mut ran = Vec::new();
    while let Some((now, ev)) = q.pop() {
        let Ev::Real(x) = ev else {
            unreachable!("the owner's events stay out of the queue")
        };
        let key = q.last_key();
        ran.push((key, ev));
        if every_pop || Model::is_input(x) {
            owner.catch_up(&mut m, &q, key, &mut ran);
        }
        for (d, c) in m.children(x) {
            q.schedule(now + crate::sim::SimDuration::from_nanos(d), Ev::Real(c));
        }
        if Model::is_input(x) && owner.pending.is_none() {
            let (d, y) = m.armed_by_input(x);
            let at = now + crate::sim::SimDuration::from_nanos(d);
            owner.pending = Some((at, LazySeq::Known(q.reserve_seq()), y));
        }
    }
    owner.catch_up(&mut m, &q, (SimTime::MAX, u64::MAX), &mut ran);
    // Keys of real and lazy events never tie (even and odd numbers); two of the
    // owner's own can (an event and one it armed at its time, before the next pop),
    // and then the one run first came first: a stable sort.
    ran.sort_by_key(|&(k, _)| k);
    ran.into_iter().map(|(_, e)| e).collect()
}

#[test]
fn lazy_events_keep_the_plain_order() {
    let plain = plain_run();
    let owned = plain.iter().filter(|e| matches!(e, Ev::Owned(_))).count();
    // The model makes enough of both kinds, and ties, to mean something.
    assert!(
        plain.len() > 2000 && owned > 150,
        "{} events, {owned} owned",
        plain.len()
    );
    assert_eq!(lazy_run(true), plain);
    assert_eq!(lazy_run(false), plain);
}

#[test]
fn due_before_asks_for_the_number_only_on_a_tie() {
    let before = (t(10), 6);
    assert!(due_before(t(9), || panic!("not asked"), before));
    assert!(!due_before(t(11), || panic!("not asked"), before));
    assert!(due_before(t(10), || 5, before));
    assert!(!due_before(t(10), || 7, before));
}

/// A chain longer than `MAX_CHAIN` is resolved and starts again, with the number the
/// long chain would have had.
#[test]
fn long_chains_restart_with_their_number() {
    // One real event per ns, each scheduled by the one before: the event at time i
    // has number 2 i, and the counter is at 2 i + 2 when it is popped.
    let mut q = EventQueue::default();
    q.schedule(t(0), 0u64);
    while let Some((now, i)) = q.pop() {
        if now >= t(150) {
            break;
        }
        q.schedule(t(i + 1), i + 1);
    }
    // A lazy event at time 10 after the real one (number 21), and a chain of events
    // each armed 1 ns later by the one before: each comes after the real event at its
    // time, so the one armed by the link at `at` is numbered just below the counter at
    // the pop of the real event at `at + 1`: 2 (at + 2) - 1.
    let mut chain = ArmerChain::default();
    let mut cur = HistoryCursor::default();
    let mut v = LazySeq::Known(21);
    for i in 0..(MAX_CHAIN as u64 + 10) {
        let at = t(10 + i);
        v = v.child(at, &mut chain, &q, &mut cur);
        let expected = crate::sim::seq_below(crate::sim::SEQ_STEP * (at.as_nanos() + 2));
        assert_eq!(v.resolve(&chain, &q), expected, "link {i}");
    }
    // The two-link form is the same as two links.
    let mut c2 = ArmerChain::default();
    let g = LazySeq::Known(21).grandchild(t(10), t(11), &mut c2, &q, &mut cur);
    let mut c1 = ArmerChain::default();
    let one = LazySeq::Known(21)
        .child(t(10), &mut c1, &q, &mut cur)
        .child(t(11), &mut c1, &q, &mut cur);
    assert_eq!(g.resolve(&c2, &q), one.resolve(&c1, &q));
    let p = c2.start_pair(t(10), 21, t(11));
    assert_eq!(p.resolve(&c2, &q), one.resolve(&c1, &q));
}
