//! The future-event list, ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, exactly as ns-2's
//! scheduler does, so that cross-checks against ns-2 see the same order of simultaneous
//! events. The queue also owns the clock, so time can only move forward.
//!
//! Every event gets its key (time, sequence number) when it is scheduled, from one
//! counter, and `pop` always returns the event with the smallest key. Where an event is
//! kept does not change that order, so four stores serve different patterns cheaply:
//!
//! - for ordinary events, a 4-ary min-heap while few are pending, a radix heap beyond
//!   a few thousand (`Store`);
//! - *runs* (`schedule_run`): a batch of events scheduled together (one frame reaching
//!   every receiver in range) is sorted once and consumed in order, instead of entering
//!   the heap one by one;
//! - *lanes* (`schedule_lane`): events that come in key order per lane (a wired link's
//!   arrivals) wait in a FIFO; only each lane's earliest is in an indexed heap;
//! - *slots* (`schedule_slot`): at most one pending event per slot id (a MAC's next
//!   timer). Scheduling into a busy slot replaces its event; the caller guarantees the
//!   replaced one would have been a no-op when popped (a superseded timer generation), so
//!   dropping it changes nothing but the count of events popped. The latest replaced
//!   deadline is remembered (`superseded_horizon`), since popping it would have moved the
//!   clock that far.

use super::SimTime;

/// (time, sequence) packed so that one integer comparison orders events.
type Key = u128;

#[inline]
fn key(time: SimTime, seq: u64) -> Key {
    (u128::from(time.as_nanos()) << 64) | u128::from(seq)
}

#[inline]
fn key_time(k: Key) -> SimTime {
    SimTime::from_nanos((k >> 64) as u64)
}

#[derive(Copy, Clone)]
struct Entry<E> {
    key: Key,
    event: E,
    /// The FIFO lane whose head this event is (`NO_LANE` if none): popping it brings
    /// the lane's next event into the store. Fits in the padding after a small event.
    lane: u32,
}

/// `Entry::lane` of events that belong to no lane.
const NO_LANE: u32 = u32::MAX;

/// Sequence numbers go up by two, leaving the odd ones for `seq_after`.
const SEQ_STEP: u64 = 2;

/// Pops remembered for `seq_after` (with the spare below, 960 KiB).
const HISTORY: usize = 8192;

/// Pops the history takes beyond `HISTORY` before it drops its oldest: each drop moves
/// the `HISTORY` kept to the front, so a larger spare moves fewer per pop (at
/// `HISTORY` it was 2 % of a MANET run's instructions, in `memmove`).
const HISTORY_SPARE: usize = 4 * HISTORY;

/// Children per heap node: a shallower tree than a binary heap, with the four children
/// of a node adjacent in memory.
const ARITY: usize = 4;
// `heap_sift_down` compares a full set of children pairwise, written out for four.
const _: () = assert!(ARITY == 4);

/// Entries the history holds before it drops its oldest `HISTORY_SPARE`.
const HISTORY_CAP: usize = HISTORY + HISTORY_SPARE;

/// The most recent pops (at least `HISTORY` of them once there were that many), as
/// parallel arrays so that a search by time reads only times: each pop's time and
/// sequence number, and `next_seq` when it was popped. Fixed arrays with one length:
/// a push (one per pop) is then three stores, where three `Vec`s each checked their
/// own length against their own capacity.
struct History {
    len: usize,
    time: Box<[u64; HISTORY_CAP]>,
    seq: Box<[u64; HISTORY_CAP]>,
    next: Box<[u64; HISTORY_CAP]>,
}

/// A zeroed array on the heap, not built on the stack first.
fn zeroed_box() -> Box<[u64; HISTORY_CAP]> {
    vec![0; HISTORY_CAP]
        .into_boxed_slice()
        .try_into()
        .expect("HISTORY_CAP entries")
}

impl Default for History {
    fn default() -> Self {
        History {
            len: 0,
            time: zeroed_box(),
            seq: zeroed_box(),
            next: zeroed_box(),
        }
    }
}

impl History {
    #[inline]
    fn push(&mut self, k: Key, next: u64) {
        if self.len >= HISTORY_CAP {
            self.time.copy_within(HISTORY_SPARE.., 0);
            self.seq.copy_within(HISTORY_SPARE.., 0);
            self.next.copy_within(HISTORY_SPARE.., 0);
            self.len = HISTORY;
        }
        let n = self.len;
        self.time[n] = (k >> 64) as u64;
        self.seq[n] = k as u64;
        self.next[n] = next;
        self.len = n + 1;
    }

    /// The pops' times, oldest first.
    #[inline]
    fn times(&self) -> &[u64] {
        &self.time[..self.len]
    }

    /// The pops' sequence numbers.
    #[inline]
    fn seqs(&self) -> &[u64] {
        &self.seq[..self.len]
    }

    /// `next_seq` at each pop.
    #[inline]
    fn nexts(&self) -> &[u64] {
        &self.next[..self.len]
    }

    /// The index of the first pop at or after time `t` (the length if none): usually a
    /// recent time, so gallop back from the newest pop, then bisect.
    #[inline]
    fn first_at_or_after(&self, t: u64) -> usize {
        let h = self.times();
        let mut step = 1;
        let mut lo = h.len();
        while lo > 0 && h[lo - 1] >= t {
            let hi = lo;
            lo = lo.saturating_sub(step);
            step *= 2;
            if h[lo] < t {
                return lo + h[lo..hi].partition_point(|&x| x < t);
            }
        }
        lo
    }

    /// `first_at_or_after(t)` when every pop before index `from` is known to be before
    /// `t`: gallop forward from `from`, then bisect.
    #[inline]
    fn first_at_or_after_from(&self, from: usize, t: u64) -> usize {
        let h = self.times();
        let n = h.len();
        let mut lo = from;
        let mut step = 1;
        while lo < n && h[lo] < t {
            let hi = (lo + step).min(n);
            if hi == n || h[hi] >= t {
                return lo + 1 + h[lo + 1..hi].partition_point(|&x| x < t);
            }
            lo = hi + 1;
            step *= 2;
        }
        lo
    }
}

/// Where the last `EventQueue::seq_after_from` (or `seq_after_lazy_from`) lookup found
/// its time in the pop history: a later lookup at a time not before it searches forward
/// from there instead of back from the newest pop (a catch-up's virtual events come in
/// time order). Only good until the next pop; a stale or unset cursor is ignored.
#[derive(Clone, Copy, Default)]
pub struct HistoryCursor {
    /// `EventQueue::popped` when it was set (0: unset, as no lookup precedes a pop).
    popped: u64,
    time: u64,
    index: usize,
}

/// Ordinary events: a 4-ary heap while few are pending, a radix heap beyond
/// `RADIX_ABOVE` (back to the heap below `HEAP_BELOW`). Both pop by key; which one holds
/// the events changes nothing but speed.
// One per queue and never moved: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Store<E> {
    Heap(Vec<Entry<E>>),
    Radix(Radix<E>),
}

/// Pending ordinary events above which the radix heap takes over. Measured: with few
/// pending events (a wired run holds tens) the 4-ary heap is faster (TCP case of
/// bench/RESULTS.md: 1.88 s against 2.11 s of user CPU), at 100,000 the radix heap is
/// about twice as fast (`benches/kernel.rs`): its cost hardly grows with the size.
const RADIX_ABOVE: usize = 4096;
/// ... and below which the 4-ary heap comes back (hysteresis: no switching to and fro).
const HEAP_BELOW: usize = 1024;

/// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) over the 128-bit keys, with
/// 4-bit digits. It needs monotone keys, which a future-event list has: every key
/// pushed is above the last key popped from it (`base`). A key whose highest digit
/// differing from `base` is digit `d` goes to bucket (d, its own digit d); it shares
/// every digit above `d` with `base`, so every key of a bucket is below every key of a
/// later bucket in (d, digit) order. A pop takes the least key of the first non-empty
/// bucket, makes it the new base, and spreads the rest of that bucket over lower
/// digits (the other buckets keep their place). An event moves at most once per
/// digit, in practice two or three times (the digits in which pending times differ).
struct Radix<E> {
    base: Key,
    /// `DIGITS * RADIX` buckets, bucket (d, v) at `d * RADIX + v`.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `d` set iff some bucket of digit `d` is not empty ...
    levels: u32,
    /// ... and bit `v` of `digits[d]` (words of 64 bits) iff bucket (d, v) is not empty.
    digits: [[u64; RADIX / 64]; DIGITS],
    len: usize,
    /// The minimum's (key, bucket), when known.
    min: Option<(Key, u32, u32)>,
}

const DIGIT_BITS: u32 = 8;
const RADIX: usize = 1 << DIGIT_BITS;
const DIGITS: usize = 128 / DIGIT_BITS as usize;

/// The bucket of `k` for base `base`.
#[inline]
fn bucket(k: Key, base: Key) -> u32 {
    let x = k ^ base;
    let d = 127u32.saturating_sub(x.leading_zeros()) / DIGIT_BITS;
    let v = (k >> (d * DIGIT_BITS)) as u32 & (RADIX as u32 - 1);
    d * RADIX as u32 + v
}

impl<E> Radix<E> {
    fn new(base: Key) -> Self {
        Radix {
            base,
            buckets: (0..DIGITS * RADIX).map(|_| Vec::new()).collect(),
            levels: 0,
            digits: [[0; RADIX / 64]; DIGITS],
            len: 0,
            min: None,
        }
    }

    #[inline]
    fn mark(&mut self, b: u32) {
        let d = b as usize / RADIX;
        let v = b as usize % RADIX;
        self.levels |= 1 << d;
        self.digits[d][v / 64] |= 1 << (v % 64);
    }

    #[inline]
    fn unmark(&mut self, b: u32) {
        let d = b as usize / RADIX;
        let v = b as usize % RADIX;
        self.digits[d][v / 64] &= !(1 << (v % 64));
        if self.digits[d].iter().all(|&w| w == 0) {
            self.levels &= !(1 << d);
        }
    }

    #[inline]
    fn push(&mut self, e: Entry<E>) {
        debug_assert!(e.key >= self.base, "radix heap key below its base");
        let b = bucket(e.key, self.base);
        let v = &mut self.buckets[b as usize];
        if let Some((m, ..)) = self.min {
            if e.key < m {
                self.min = Some((e.key, b, v.len() as u32));
            }
        }
        v.push(e);
        self.mark(b);
        self.len += 1;
    }

    #[inline]
    fn peek(&mut self) -> Option<Key> {
        if self.min.is_none() && self.len > 0 {
            let d = self.levels.trailing_zeros();
            let words = &self.digits[d as usize];
            let w = words.iter().position(|&w| w != 0).expect("level not empty");
            let b = d * RADIX as u32 + (w * 64) as u32 + words[w].trailing_zeros();
            let v = &self.buckets[b as usize];
            let mut i = 0;
            for (j, e) in v.iter().enumerate().skip(1) {
                if e.key < v[i].key {
                    i = j;
                }
            }
            self.min = Some((v[i].key, b, i as u32));
        }
        self.min.map(|m| m.0)
    }

    fn pop(&mut self) -> Option<Entry<E>> {
        self.peek()?;
        let (k, b, i) = self.min.take().expect("peeked");
        let top = self.buckets[b as usize].swap_remove(i as usize);
        self.len -= 1;
        self.base = k;
        if self.buckets[b as usize].is_empty() {
            // The usual case below the top digits: a bucket of one.
            self.unmark(b);
            return Some(top);
        }
        // Spread the rest of the bucket below it, relative to the new base; the least
        // of them is the next minimum (anything in a later bucket is above them all).
        let mut rest = std::mem::take(&mut self.buckets[b as usize]);
        self.unmark(b);
        let mut min: Option<(Key, u32, u32)> = None;
        for e in rest.drain(..) {
            let nb = bucket(e.key, k);
            let v = &mut self.buckets[nb as usize];
            if min.is_none_or(|m| e.key < m.0) {
                min = Some((e.key, nb, v.len() as u32));
            }
            v.push(e);
            self.mark(nb);
        }
        if self.buckets[b as usize].is_empty() {
            // Keep the allocation (a bucket of digit 0 may have refilled itself).
            self.buckets[b as usize] = rest;
        }
        self.min = min;
        Some(top)
    }

    /// Empties the radix heap into `out`.
    fn drain_into(&mut self, out: &mut Vec<Entry<E>>) {
        for v in &mut self.buckets {
            out.append(v);
        }
        self.levels = 0;
        self.digits = [[0; RADIX / 64]; DIGITS];
        self.len = 0;
        self.min = None;
    }
}

impl<E> Store<E> {
    fn len(&self) -> usize {
        match self {
            Store::Heap(h) => h.len(),
            Store::Radix(r) => r.len,
        }
    }

    /// Adds an event; `last` is the key of the last event popped from the queue (below
    /// every pending key).
    // Always inlined: the entry is then built where it is stored. Passed to an
    // out-of-line push it went through a stack copy written field by field and read back
    // 16 bytes at a time, a store-forwarding stall that perf put at half of this
    // function's samples (TCP case of bench/RESULTS.md, session 4).
    #[inline(always)]
    fn push(&mut self, e: Entry<E>, last: Key) {
        match self {
            Store::Heap(h) => {
                heap_push(h, e);
                if h.len() > RADIX_ABOVE {
                    self.switch_to_radix(last);
                }
            }
            Store::Radix(r) => r.push(e),
        }
    }

    #[cold]
    #[inline(never)]
    fn switch_to_radix(&mut self, last: Key) {
        if let Store::Heap(h) = self {
            let mut r = Radix::new(last);
            for e in h.drain(..) {
                r.push(e);
            }
            *self = Store::Radix(r);
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<Key> {
        match self {
            Store::Heap(h) => h.first().map(|e| e.key),
            Store::Radix(r) => r.peek(),
        }
    }

    #[inline]
    fn pop(&mut self) -> Entry<E> {
        match self {
            Store::Heap(h) => heap_pop(h),
            Store::Radix(r) => {
                let e = r.pop().expect("non-empty store");
                if r.len < HEAP_BELOW {
                    let mut h = Vec::with_capacity(RADIX_ABOVE + 1);
                    r.drain_into(&mut h);
                    h.sort_unstable_by_key(|e| e.key);
                    *self = Store::Heap(h);
                }
                e
            }
        }
    }
}

impl<E> Store<E> {
    /// Pops the earliest event; if it was a lane's head, the lane's next event takes its
    /// place (in the 4-ary heap: one sift down from the root instead of a pop and a push).
    #[inline]
    fn pop_from_lanes(&mut self, lanes: &mut Lanes<E>) -> E {
        if let Store::Heap(h) = self {
            let lane = h[0].lane;
            if lane != NO_LANE {
                let l = &mut lanes.lanes[lane as usize];
                if let Some(next) = l.waiting.front_mut() {
                    // Swapped in place, then the old root popped from the lane: moving
                    // `pop_front`'s returned value into the root went through a stack
                    // copy written field by field and read 16 bytes at a time, a
                    // store-forwarding stall that perf put at 7 % of the run loop.
                    std::mem::swap(&mut h[0], next);
                    let top = l.waiting.pop_front().expect("lane front exists");
                    lanes.len -= 1;
                    heap_sift_down(h);
                    return top.event;
                }
                l.active = false;
            }
            return heap_pop(h).event;
        }
        let top = self.pop();
        if top.lane != NO_LANE {
            let l = &mut lanes.lanes[top.lane as usize];
            match l.waiting.pop_front() {
                Some(next) => {
                    lanes.len -= 1;
                    self.push(next, top.key);
                }
                None => l.active = false,
            }
        }
        top.event
    }
}

#[inline(always)]
fn heap_push<E>(h: &mut Vec<Entry<E>>, e: Entry<E>) {
    let k = e.key;
    h.push(e);
    let mut i = h.len() - 1;
    while i > 0 {
        let parent = (i - 1) / ARITY;
        if h[parent].key <= k {
            break;
        }
        h.swap(i, parent);
        i = parent;
    }
}

fn heap_pop<E>(h: &mut Vec<Entry<E>>) -> Entry<E> {
    let top = h.swap_remove(0);
    heap_sift_down(h);
    top
}

/// Moves the root of `h` down to its place.
fn heap_sift_down<E>(h: &mut [Entry<E>]) {
    let n = h.len();
    let mut i = 0;
    if n > 1 {
        let k = h[0].key;
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let (c, ck) = if let Some(ch) = h.get(first..first + ARITY) {
                // All four children (the root's, in a queue of five or more): a
                // pairwise minimum without the loop's iterator and index bookkeeping,
                // the larger part of a pop's instructions. Keys are unique, and ties
                // would still go to the first, as in the loop.
                let (a, ka) = if ch[1].key < ch[0].key {
                    (first + 1, ch[1].key)
                } else {
                    (first, ch[0].key)
                };
                let (b, kb) = if ch[3].key < ch[2].key {
                    (first + 3, ch[3].key)
                } else {
                    (first + 2, ch[2].key)
                };
                if kb < ka { (b, kb) } else { (a, ka) }
            } else {
                // One to three children: the last node with children.
                let ch = &h[first..n];
                let mut c = first;
                let mut ck = ch[0].key;
                if let Some(e) = ch.get(1) {
                    if e.key < ck {
                        c = first + 1;
                        ck = e.key;
                    }
                }
                if let Some(e) = ch.get(2) {
                    if e.key < ck {
                        c = first + 2;
                        ck = e.key;
                    }
                }
                (c, ck)
            };
            if ck >= k {
                break;
            }
            h.swap(i, c);
            i = c;
        }
    }
}

/// A batch of events sorted by decreasing key: the earliest is the last.
struct Run<E> {
    items: Vec<Entry<E>>,
}

const NO_POS: u32 = u32::MAX;

/// An indexed binary min-heap of slots, each holding at most one event.
///
/// Each heap entry carries its key, so a sift compares keys without looking up the slot
/// (the heap of ~46 MAC timers is walked on nearly every MAC timer event).
struct Slots<E> {
    /// (key, slot id), heap-ordered by key.
    heap: Vec<(Key, u32)>,
    /// Per slot: its position in `heap` (`NO_POS` if empty), its event.
    pos: Vec<u32>,
    events: Vec<Option<E>>,
    /// A slot whose event was just popped but which still sits at the root: a timer
    /// handler usually schedules the same slot again at once, and then one sift down
    /// replaces the removal and the reinsertion. Settled before anything else.
    popped: Option<u32>,
}

impl<E> Slots<E> {
    fn new() -> Self {
        Slots {
            heap: Vec::new(),
            pos: Vec::new(),
            events: Vec::new(),
            popped: None,
        }
    }

    fn len(&self) -> usize {
        self.heap.len() - usize::from(self.popped.is_some())
    }

    /// Takes a popped slot out of the heap for good.
    #[inline]
    fn settle(&mut self) {
        if let Some(id) = self.popped.take() {
            let last = self.heap.pop().expect("popped slot is in the heap");
            if !self.heap.is_empty() {
                self.sift_down(0, last);
            }
            self.pos[id as usize] = NO_POS;
        }
    }

    /// Puts `e` at heap position `i` or above, moving larger parents down.
    fn sift_up(&mut self, mut i: usize, e: (Key, u32)) {
        let h = &mut self.heap;
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = h[parent];
            if p.0 <= e.0 {
                break;
            }
            h[i] = p;
            self.pos[p.1 as usize] = i as u32;
            i = parent;
        }
        h[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// Puts `e` at heap position `i` or below, moving smaller children up.
    fn sift_down(&mut self, mut i: usize, e: (Key, u32)) {
        let h = &mut self.heap;
        let n = h.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let mut c = l;
            let mut ch = h[l];
            if l + 1 < n && h[l + 1].0 < ch.0 {
                c = l + 1;
                ch = h[c];
            }
            if ch.0 >= e.0 {
                break;
            }
            h[i] = ch;
            self.pos[ch.1 as usize] = i as u32;
            i = c;
        }
        h[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// Sets slot `id` to `(k, event)`; returns the key of the event it replaced.
    // Inlined, the re-arm of the slot just popped (most sets: a MAC timer handler
    // arming the same NIC's next timer) is one call of `sift_down`.
    #[inline]
    fn set(&mut self, id: usize, k: Key, event: E) -> Option<Key> {
        if self.popped == Some(id as u32) {
            // Still at the root with the key it was popped with, which is no later
            // than any key scheduled since.
            self.popped = None;
            self.events[id] = Some(event);
            self.sift_down(0, (k, id as u32));
            return None;
        }
        self.set_other(id, k, event)
    }

    /// `set` of a slot other than the one just popped.
    #[inline(never)]
    fn set_other(&mut self, id: usize, k: Key, event: E) -> Option<Key> {
        self.settle();
        if id >= self.pos.len() {
            self.pos.resize(id + 1, NO_POS);
            self.events.resize_with(id + 1, || None);
        }
        self.events[id] = Some(event);
        let p = self.pos[id];
        if p == NO_POS {
            self.heap.push((k, id as u32));
            self.sift_up(self.heap.len() - 1, (k, id as u32));
            None
        } else {
            let old = self.heap[p as usize].0;
            if k < old {
                self.sift_up(p as usize, (k, id as u32));
            } else {
                self.sift_down(p as usize, (k, id as u32));
            }
            Some(old)
        }
    }

    /// Empties slot `id`; returns the key of the event it held.
    fn remove(&mut self, id: usize) -> Option<Key> {
        self.settle();
        let p = *self.pos.get(id)?;
        if p == NO_POS {
            return None;
        }
        let old = self.heap[p as usize].0;
        self.events[id] = None;
        // Move it to the root, then pop it.
        self.sift_up(p as usize, (Key::MIN, id as u32));
        let last = self.heap.pop().expect("non-empty");
        if !self.heap.is_empty() {
            self.sift_down(0, last);
        }
        self.pos[id] = NO_POS;
        Some(old)
    }

    /// The smallest key (after `settle`).
    #[inline]
    fn peek(&self) -> Option<Key> {
        debug_assert!(self.popped.is_none());
        self.heap.first().map(|e| e.0)
    }

    /// Pops the root (after `settle`); it stays in place until the next operation.
    fn pop(&mut self) -> Option<(Key, E)> {
        debug_assert!(self.popped.is_none());
        let (k, id) = *self.heap.first()?;
        let e = self.events[id as usize].take().expect("slot event");
        self.popped = Some(id);
        Some((k, e))
    }
}

/// FIFO lanes (`schedule_lane`): each lane's events come in key order, so only its
/// earliest (its head) is in the store, as an ordinary entry marked with its lane; the
/// rest wait in order and the next one enters the store when the head is popped.
struct Lanes<E> {
    lanes: Vec<Lane<E>>,
    /// Events in all `waiting` queues.
    len: usize,
}

/// One FIFO lane, its state together (one cache line) since scheduling and popping
/// touch all of it.
struct Lane<E> {
    /// The events behind its head, in order ...
    waiting: std::collections::VecDeque<Entry<E>>,
    /// ... the key of its last event (to check the order) ...
    tail: Key,
    /// ... and whether its head is in the store.
    active: bool,
}

/// Where the earliest pending event is.
#[derive(Copy, Clone)]
enum Src {
    Heap,
    Run(usize),
    Slot,
}

pub struct EventQueue<E> {
    heap: Store<E>,
    /// Run storage; `active` lists the runs with events left, `spare` the empty ones
    /// (kept to reuse their allocation).
    runs: Vec<Run<E>>,
    active: Vec<u32>,
    spare: Vec<u32>,
    /// Scratch for building a run.
    run_scratch: Vec<Entry<E>>,
    run_order: Vec<u64>,
    slots: Slots<E>,
    lanes: Lanes<E>,
    superseded: SimTime,
    next_seq: u64,
    /// Key of the last event popped.
    last: Key,
    /// The most recent pops (at least `HISTORY` of them once there were that many):
    /// (key, `next_seq` when it was popped), for `seq_after`.
    history: History,
    /// Whether pops are recorded in `history` (only `seq_after` reads it).
    keep_history: bool,
    now: SimTime,
    popped: u64,
    /// Pops that were bookkeeping, not events of the model (`uncount_last_pop`).
    uncounted: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E> EventQueue<E> {
    /// How many recent pops `seq_after` can look back over.
    pub const HISTORY: usize = HISTORY;

    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: Store::Heap(Vec::with_capacity(cap.min(RADIX_ABOVE + 1))),
            runs: Vec::new(),
            active: Vec::new(),
            spare: Vec::new(),
            run_scratch: Vec::new(),
            run_order: Vec::new(),
            slots: Slots::new(),
            lanes: Lanes {
                lanes: Vec::new(),
                len: 0,
            },
            superseded: SimTime::ZERO,
            next_seq: 0,
            last: 0,
            history: History::default(),
            keep_history: true,
            now: SimTime::ZERO,
            popped: 0,
            uncounted: 0,
        }
    }

    /// Whether to remember recent pops for `seq_after` (on by default). A world that
    /// never asks (no wireless NICs) turns it off: it is work on every pop.
    pub fn keep_history(&mut self, on: bool) {
        self.keep_history = on;
    }

    /// The current simulated time: the time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped - self.uncounted
    }

    /// Every pop so far, wake-ups included (see `uncount_last_pop`).
    pub fn pops(&self) -> u64 {
        self.popped
    }

    /// Leaves the last pop out of `events_processed`: a wake-up the world schedules for
    /// its own bookkeeping (`schedule_wake`), not an event of the model. The pop stays
    /// in the history; a wake-up takes no sequence number, so `seq_after` answers as
    /// without it.
    pub fn uncount_last_pop(&mut self) {
        self.uncounted += 1;
    }

    pub fn len(&self) -> usize {
        let in_runs: usize = self
            .active
            .iter()
            .map(|&r| self.runs[r as usize].items.len())
            .sum();
        self.heap.len() + in_runs + self.slots.len() + self.lanes.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn next_key(&mut self, time: SimTime) -> Key {
        assert!(
            time >= self.now,
            "event scheduled in the past: {time} < now {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += SEQ_STEP;
        key(time, seq)
    }

    /// Schedules `event` at `time`. Scheduling in the past is a model bug, not bad input.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let key = self.next_key(time);
        self.heap.push(
            Entry {
                key,
                event,
                lane: NO_LANE,
            },
            self.last,
        );
    }

    /// Schedules `event` at `time` in FIFO lane `lane`: the same as `schedule`, for
    /// events that come in time order per lane (a link's arrivals), so that only each
    /// lane's earliest event is in a heap. `time` must not be before the lane's last.
    #[inline(always)]
    pub fn schedule_lane(&mut self, lane: usize, time: SimTime, event: E) {
        let key = self.next_key(time);
        let l = &mut self.lanes;
        if lane >= l.lanes.len() {
            l.lanes.resize_with(lane + 1, || Lane {
                waiting: Default::default(),
                tail: 0,
                active: false,
            });
        }
        let lane_id = u32::try_from(lane).expect("lane id fits in u32");
        assert!(lane_id != NO_LANE, "lane id out of range");
        let e = Entry {
            key,
            event,
            lane: lane_id,
        };
        let ln = &mut l.lanes[lane];
        if ln.active {
            assert!(
                key_time(ln.tail) <= time,
                "lane {lane} scheduled out of order"
            );
            ln.tail = key;
            ln.waiting.push_back(e);
            l.len += 1;
        } else {
            ln.active = true;
            ln.tail = key;
            self.heap.push(e, self.last);
        }
    }

    /// Schedules a batch of events, in the given order (so with consecutive sequence
    /// numbers): the same as calling `schedule` for each, but cheaper for large batches.
    /// Returns how many there were.
    pub fn schedule_run(&mut self, events: impl IntoIterator<Item = (SimTime, E)>) -> usize
    where
        E: Copy,
    {
        self.schedule_run_deferring(events, |_| false, &mut Vec::new())
    }

    /// A run slot not in use (a spare one, or a new one) and its emptied vector, whose
    /// allocation is kept from earlier runs.
    #[inline(always)]
    fn free_run(&mut self) -> (usize, Vec<Entry<E>>) {
        let r = match self.spare.pop() {
            Some(r) => r as usize,
            None => {
                self.runs.push(Run { items: Vec::new() });
                self.runs.len() - 1
            }
        };
        let mut items = std::mem::take(&mut self.runs[r].items);
        items.clear();
        (r, items)
    }

    /// `schedule_run`, except that the events `defer` picks only take their sequence
    /// numbers and are appended to `deferred` as (time, seq, event) instead of entering
    /// the queue; they may enter it later with `schedule_reserved`. Returns how many
    /// events there were in all.
    pub fn schedule_run_deferring(
        &mut self,
        events: impl IntoIterator<Item = (SimTime, E)>,
        mut defer: impl FnMut(&E) -> bool,
        deferred: &mut Vec<(SimTime, u64, E)>,
    ) -> usize
    where
        E: Copy,
    {
        let (r, mut items) = self.free_run();
        self.run_scratch.clear();
        let mut total = 0;
        for (time, event) in events {
            let key = self.next_key(time);
            total += 1;
            if defer(&event) {
                deferred.push((time, key as u64, event));
            } else {
                self.run_scratch.push(Entry {
                    key,
                    event,
                    lane: NO_LANE,
                });
            }
        }
        let n = self.run_scratch.len();
        let t0 = self
            .run_scratch
            .iter()
            .map(|e| e.key >> 64)
            .min()
            .unwrap_or(0);
        let t1 = self
            .run_scratch
            .iter()
            .map(|e| e.key >> 64)
            .max()
            .unwrap_or(0);
        if n <= 1 << 16 && t1 - t0 < 1 << 48 {
            // Sequence numbers are consecutive in input order, so (time, input index)
            // orders the run as (time, sequence) does; one u64 per event sorts faster.
            self.run_order.clear();
            self.run_order.extend(
                self.run_scratch
                    .iter()
                    .enumerate()
                    .map(|(i, e)| ((((e.key >> 64) - t0) as u64) << 16) | i as u64),
            );
            self.run_order.sort_unstable_by(|a, b| b.cmp(a));
            items.extend(
                self.run_order
                    .iter()
                    .map(|&o| self.run_scratch[(o & 0xffff) as usize]),
            );
        } else {
            items.extend_from_slice(&self.run_scratch);
            // Keys are unique, so the unstable sort is deterministic.
            items.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
        self.runs[r] = Run { items };
        if n == 0 {
            self.spare.push(r as u32);
        } else {
            self.active.push(r as u32);
        }
        total
    }

    /// `schedule_reserved` for each of a batch of events, as one run (a sorted vector
    /// popped from its end) instead of one heap entry each: for the few receivers of one
    /// frame, whose events all fall within a propagation delay. Returns how many there
    /// were.
    pub fn schedule_reserved_run(
        &mut self,
        events: impl IntoIterator<Item = (SimTime, u64, E)>,
    ) -> usize
    where
        E: Copy,
    {
        let (r, mut items) = self.free_run();
        for (time, seq, event) in events {
            let k = key(time, seq);
            assert!(k > self.last, "reserved event scheduled in the past");
            items.push(Entry {
                key: k,
                event,
                lane: NO_LANE,
            });
        }
        // Keys are unique, so the unstable sort is deterministic.
        items.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        let n = items.len();
        self.runs[r] = Run { items };
        if n == 0 {
            self.spare.push(r as u32);
        } else {
            self.active.push(r as u32);
        }
        n
    }

    /// Schedules `event` with a sequence number taken earlier (`reserve_seq` or
    /// `schedule_run_deferring`), as if it had been scheduled then. Its key must still be
    /// ahead of every event popped so far.
    #[inline]
    pub fn schedule_reserved(&mut self, time: SimTime, seq: u64, event: E) {
        let k = key(time, seq);
        assert!(k > self.last, "reserved event scheduled in the past");
        self.heap.push(
            Entry {
                key: k,
                event,
                lane: NO_LANE,
            },
            self.last,
        );
    }

    /// Schedules `event` at `time` in slot `id`, replacing the slot's pending event if
    /// any. Only for events whose replaced predecessor would do nothing when popped.
    pub fn schedule_slot(&mut self, id: usize, time: SimTime, event: E) {
        let key = self.next_key(time);
        if let Some(old) = self.slots.set(id, key, event) {
            self.superseded = self.superseded.max(key_time(old));
        }
    }

    /// Schedules `event` in slot `id` with a sequence number taken earlier from
    /// `reserve_seq`, as if it had been scheduled then. Its key must still be ahead of
    /// every event popped so far.
    pub fn schedule_slot_reserved(&mut self, id: usize, time: SimTime, seq: u64, event: E) {
        let k = key(time, seq);
        assert!(k > self.last, "reserved event scheduled in the past");
        if let Some(old) = self.slots.set(id, k, event) {
            self.superseded = self.superseded.max(key_time(old));
        }
    }

    /// Takes the next sequence number without scheduling anything: the key (time, seq)
    /// of an event that may be scheduled later (`schedule_slot_reserved`) or never.
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += SEQ_STEP;
        seq
    }

    /// Takes `n` sequence numbers at once, as `n` calls of `reserve_seq` would: the
    /// first is returned, the `i`-th is `first + i * seq_step()`.
    pub fn reserve_seq_block(&mut self, n: usize) -> u64 {
        let seq = self.next_seq;
        self.next_seq += SEQ_STEP * n as u64;
        seq
    }

    /// The gap between consecutive sequence numbers (see `reserve_seq_block`).
    pub const fn seq_step() -> u64 {
        SEQ_STEP
    }

    /// The sequence number an event would have had if it had been scheduled while the
    /// event with key `k` (time, seq) was being handled, had that event been popped:
    /// above every number given out before and below every one given out after. Real
    /// sequence numbers are even, so the odd number just below the counter at the next
    /// pop is free. `k` must not be older than the last `HISTORY` pops.
    pub fn seq_after(&self, k: (SimTime, u64)) -> u64 {
        let h = &self.history;
        let t = k.0.as_nanos();
        let mut i = h.first_at_or_after(t);
        let (times, seqs) = (h.times(), h.seqs());
        while i < times.len() && times[i] == t && seqs[i] <= k.1 {
            i += 1;
        }
        self.after_index(i)
    }

    /// `next_seq` as it was when the pop at history index `i` happened (the current
    /// counter if none), minus one.
    fn after_index(&self, i: usize) -> u64 {
        assert!(
            self.keep_history && (i > 0 || self.popped <= self.history.len as u64),
            "seq_after: key older than the pop history"
        );
        self.history.nexts().get(i).map_or(self.next_seq, |&n| n) - 1
    }

    /// The index of the first pop at or after `t`, searched from `cur` when it is valid
    /// for `t`, which then points there.
    #[inline]
    fn history_index_from(&self, cur: &mut HistoryCursor, t: u64) -> usize {
        let h = &self.history;
        let i = if cur.popped == self.popped && self.popped > 0 && cur.time <= t {
            h.first_at_or_after_from(cur.index, t)
        } else {
            h.first_at_or_after(t)
        };
        *cur = HistoryCursor {
            popped: self.popped,
            time: t,
            index: i,
        };
        i
    }

    /// `seq_after(k)`, searching from `cur` (see `HistoryCursor`).
    pub fn seq_after_from(&self, cur: &mut HistoryCursor, k: (SimTime, u64)) -> u64 {
        let h = &self.history;
        let t = k.0.as_nanos();
        let mut i = self.history_index_from(cur, t);
        let (times, seqs) = (h.times(), h.seqs());
        while i < times.len() && times[i] == t && seqs[i] <= k.1 {
            i += 1;
        }
        self.after_index(i)
    }

    /// `seq_after_lazy(t, s)`, searching from `cur` (see `HistoryCursor`).
    pub fn seq_after_lazy_from(
        &self,
        cur: &mut HistoryCursor,
        t: SimTime,
        s: impl FnOnce() -> u64,
    ) -> u64 {
        let i = self.history_index_from(cur, t.as_nanos());
        if self.history.times().get(i) == Some(&t.as_nanos()) {
            self.seq_after((t, s()))
        } else {
            self.after_index(i)
        }
    }

    /// `seq_after((t, s))`, asking for `s` only when it matters: when an event at time
    /// `t` itself was popped. Otherwise the first pop after (t, s) is the first pop
    /// after time `t` whatever `s` is (a chain of virtual events then costs one search
    /// instead of one per link).
    pub fn seq_after_lazy(&self, t: SimTime, s: impl FnOnce() -> u64) -> u64 {
        let h = &self.history;
        let i = h.first_at_or_after(t.as_nanos());
        if h.times().get(i) == Some(&t.as_nanos()) {
            self.seq_after((t, s()))
        } else {
            self.after_index(i)
        }
    }

    /// Schedules a wake-up `event` at `time` in slot `id` with the given sequence
    /// number, taking none from the counter, and replacing the slot's pending event
    /// without counting it as superseded (wake-ups are bookkeeping: see
    /// `uncount_last_pop`). The key must be ahead of every event popped so far.
    pub fn schedule_wake(&mut self, id: usize, time: SimTime, seq: u64, event: E) {
        let k = key(time, seq);
        assert!(k > self.last, "wake-up scheduled in the past");
        self.slots.set(id, k, event);
    }

    /// Drops wake-up slot `id`'s event, if any (see `schedule_wake`).
    pub fn cancel_wake(&mut self, id: usize) {
        self.slots.remove(id);
    }

    /// Drops slot `id`'s event, if any, as `schedule_slot` drops a replaced one.
    pub fn cancel_slot(&mut self, id: usize) {
        if let Some(old) = self.slots.remove(id) {
            self.superseded = self.superseded.max(key_time(old));
        }
    }

    /// Records a deadline that a stale, never-popped event would have moved the clock to
    /// (see `superseded_horizon`).
    pub fn note_superseded(&mut self, time: SimTime) {
        self.superseded = self.superseded.max(time);
    }

    /// Whether an event with key (time, seq) would have been popped by now: it is not
    /// after the last event popped. For events kept out of the queue with a reserved
    /// sequence number (a link's end of transmission).
    #[inline]
    pub fn passed(&self, time: SimTime, seq: u64) -> bool {
        self.popped > 0 && key(time, seq) <= self.last
    }

    /// (time, sequence number) of the last event popped.
    pub fn last_key(&self) -> (SimTime, u64) {
        (key_time(self.last), self.last as u64)
    }

    /// The latest deadline of a slot event that was replaced: where the clock would have
    /// ended had the replaced events been popped after everything else.
    pub fn superseded_horizon(&self) -> SimTime {
        self.superseded
    }

    fn earliest(&mut self) -> Option<(Key, Src)> {
        self.slots.settle();
        let mut best: Option<(Key, Src)> = self.heap.peek().map(|k| (k, Src::Heap));
        for (i, &r) in self.active.iter().enumerate() {
            let k = self.runs[r as usize].items.last().expect("active run").key;
            if best.is_none_or(|(b, _)| k < b) {
                best = Some((k, Src::Run(i)));
            }
        }
        if let Some(k) = self.slots.peek() {
            if best.is_none_or(|(b, _)| k < b) {
                best = Some((k, Src::Slot));
            }
        }
        best
    }

    /// Time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.earliest().map(|(k, _)| key_time(k))
    }

    /// Removes the earliest event and advances the clock to its time.
    // Always inlined, as `schedule_lane`: the run loop is their one hot caller, and
    // whether LLVM inlined them there hung on the loop's size (a few lines added after
    // it cost 4 % of a wired run's instructions when they stopped being inlined).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (key, src) = self.earliest()?;
        let event = match src {
            Src::Heap => self.heap.pop_from_lanes(&mut self.lanes),
            Src::Run(i) => {
                let r = self.active[i] as usize;
                let run = &mut self.runs[r].items;
                let event = run.pop().expect("active run").event;
                if run.is_empty() {
                    self.active.swap_remove(i);
                    self.spare.push(r as u32);
                }
                event
            }
            Src::Slot => self.slots.pop().expect("slot event").1,
        };
        let time = key_time(key);
        assert!(time >= self.now, "time ran backwards");
        self.last = key;
        if self.keep_history {
            self.history.push(key, self.next_seq);
        }
        self.now = time;
        self.popped += 1;
        Some((time, event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let block: Vec<u64> = (0..5)
            .map(|i| first + i * EventQueue::<u32>::seq_step())
            .collect();
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
                            batch.push((t, s0 + j * EventQueue::<u64>::seq_step(), id));
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
                        if (t, seq) > (now, q.last_key().1) || popped == 0 {
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
                    assert_eq!(q.last_key(), (SimTime::from_nanos(t), seq));
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

    /// Events a run defers keep the keys the run gave them: put back later with
    /// `schedule_reserved`, they pop exactly where `schedule_run` would have put them
    /// (the order of `run_events_interleave_with_heap_events_by_key`).
    #[test]
    fn deferred_run_events_keep_their_place() {
        let mut q = EventQueue::default();
        q.schedule(SimTime::from_nanos(4), "h4");
        let mut deferred = Vec::new();
        let n = q.schedule_run_deferring(
            [
                (SimTime::from_nanos(6), "r6"),
                (SimTime::from_nanos(4), "r4"),
                (SimTime::from_nanos(2), "r2"),
            ],
            |e| *e != "r6",
            &mut deferred,
        );
        assert_eq!(n, 3);
        assert_eq!(deferred.len(), 2);
        q.schedule(SimTime::from_nanos(2), "h2");
        assert_eq!(q.len(), 3);
        for (t, seq, e) in deferred {
            q.schedule_reserved(t, seq, e);
        }
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
                    seq
                });
                assert_eq!(lazy, q.seq_after((t(at), seq)), "({at}, {seq})");
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
            let now = q.last_key().0.as_nanos();
            let mut at = rand(now + 1) / 2;
            for _ in 0..50 {
                // Mostly forward, sometimes back, sometimes past the last pop.
                at = match rand(8) {
                    0 => rand(now + 1),
                    1 => now + rand(3),
                    _ => (at + rand(now / 20 + 2)).min(now + 2),
                };
                let seq = rand(q.last_key().1 + 4);
                let k = (t(at), seq);
                assert_eq!(q.seq_after_from(&mut cur, k), q.seq_after(k), "{k:?}");
                let lazy = q.seq_after_lazy_from(&mut cur, t(at), || seq);
                assert_eq!(lazy, q.seq_after_lazy(t(at), || seq), "{k:?}");
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
        for k in [(t(1), q.last_key().1 - 2), (t(2), reserved)] {
            let s = q.seq_after(k);
            assert!(s % 2 == 1, "odd: free");
            if k.0 == t(2) {
                // Handled between "a" and "c".
                assert!(before < s && s < after, "{before} < {s} < {after}");
            }
        }
        // Past the last pop: above everything given out so far.
        assert!(q.seq_after((t(5), 0)) > after);
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
}
