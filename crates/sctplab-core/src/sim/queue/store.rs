//! The store of ordinary events (`EventQueue::schedule`): a 4-ary heap while few are
//! pending, the radix heap (`radix.rs`) beyond a few thousand.

use super::radix::Radix;
use crate::sim::EventKey as Key;

/// A pending event and its key.
#[derive(Copy, Clone)]
pub(super) struct Entry<E> {
    pub(super) key: Key,
    pub(super) event: E,
    /// The FIFO lane whose head this event is (`NO_LANE` if none): popping it brings
    /// the lane's next event into the store. Fits in the padding after a small event.
    pub(super) lane: u32,
}

/// `Entry::lane` of events that belong to no lane.
pub(super) const NO_LANE: u32 = u32::MAX;

/// Children per heap node: a shallower tree than a binary heap, with the four children
/// of a node adjacent in memory.
const ARITY: usize = 4;
// `heap_sift_down` compares a full set of children pairwise, written out for four.
const _: () = assert!(ARITY == 4);

/// Ordinary events: a 4-ary heap while few are pending, a radix heap beyond
/// `RADIX_ABOVE` (back to the heap below `HEAP_BELOW`). Both pop by key; which one holds
/// the events changes nothing but speed.
// One per queue and never moved: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum Store<E> {
    Heap(Vec<Entry<E>>),
    Radix(Radix<E>),
}

/// Pending ordinary events above which the radix heap takes over. Measured: with few
/// pending events (a wired run holds tens) the 4-ary heap is faster (TCP case of
/// bench/RESULTS.md: 1.88 s against 2.11 s of user CPU), at 100,000 the radix heap is
/// about twice as fast (`benches/kernel.rs`): its cost hardly grows with the size.
pub(super) const RADIX_ABOVE: usize = 4096;
/// ... and below which the 4-ary heap comes back (hysteresis: no switching to and fro).
pub(super) const HEAP_BELOW: usize = 1024;

impl<E> Store<E> {
    pub(super) fn len(&self) -> usize {
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
    pub(super) fn push(&mut self, e: Entry<E>, last: Key) {
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
    pub(super) fn peek(&mut self) -> Option<Key> {
        match self {
            Store::Heap(h) => h.first().map(|e| e.key),
            Store::Radix(r) => r.peek(),
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Entry<E> {
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

pub(super) fn heap_pop<E>(h: &mut Vec<Entry<E>>) -> Entry<E> {
    let top = h.swap_remove(0);
    heap_sift_down(h);
    top
}

/// Moves the root of `h` down to its place.
pub(super) fn heap_sift_down<E>(h: &mut [Entry<E>]) {
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
