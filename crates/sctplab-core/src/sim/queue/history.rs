//! The pop history: the keys of the most recent pops and the counter at each, which
//! `EventQueue::seq_after_lazy` searches by time for the number an event would have had
//! had it been scheduled while an earlier one was handled.

use crate::sim::EventKey;

/// Pops remembered for `seq_after` (with the spare below, 960 KiB).
pub(super) const HISTORY: usize = 8192;

/// Pops the history takes beyond `HISTORY` before it drops its oldest: each drop moves
/// the `HISTORY` kept to the front, so a larger spare moves fewer per pop (at
/// `HISTORY` it was 2 % of a MANET run's instructions, in `memmove`).
const HISTORY_SPARE: usize = 4 * HISTORY;

/// Entries the history holds before it drops its oldest `HISTORY_SPARE`.
const HISTORY_CAP: usize = HISTORY + HISTORY_SPARE;

/// The most recent pops (at least `HISTORY` of them once there were that many), as
/// parallel arrays so that a search by time reads only times: each pop's time and
/// sequence number, and `next_seq` when it was popped. Fixed arrays with one length:
/// a push (one per pop) is then three stores, where three `Vec`s each checked their
/// own length against their own capacity.
pub(super) struct History {
    pub(super) len: usize,
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
    pub(super) fn push(&mut self, k: EventKey, next: u64) {
        if self.len >= HISTORY_CAP {
            self.time.copy_within(HISTORY_SPARE.., 0);
            self.seq.copy_within(HISTORY_SPARE.., 0);
            self.next.copy_within(HISTORY_SPARE.., 0);
            self.len = HISTORY;
        }
        let n = self.len;
        self.time[n] = k.time_nanos();
        self.seq[n] = k.seq();
        self.next[n] = next;
        self.len = n + 1;
    }

    /// The pops' times, oldest first.
    #[inline]
    pub(super) fn times(&self) -> &[u64] {
        &self.time[..self.len]
    }

    /// The pops' sequence numbers.
    #[inline]
    pub(super) fn seqs(&self) -> &[u64] {
        &self.seq[..self.len]
    }

    /// `next_seq` at each pop.
    #[inline]
    pub(super) fn nexts(&self) -> &[u64] {
        &self.next[..self.len]
    }

    /// The index of the first pop at or after time `t` (the length if none): usually a
    /// recent time, so gallop back from the newest pop, then bisect.
    #[inline]
    pub(super) fn first_at_or_after(&self, t: u64) -> usize {
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
    pub(super) fn first_at_or_after_from(&self, from: usize, t: u64) -> usize {
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

/// Where the last `EventQueue::seq_after_lazy_from` lookup found
/// its time in the pop history: a later lookup at a time not before it searches forward
/// from there instead of back from the newest pop (a catch-up's virtual events come in
/// time order). Only good until the next pop; a stale or unset cursor is ignored.
#[derive(Clone, Copy, Default)]
pub(crate) struct HistoryCursor {
    /// `EventQueue::popped` when it was set (0: unset, as no lookup precedes a pop).
    pub(super) popped: u64,
    pub(super) time: u64,
    pub(super) index: usize,
}
