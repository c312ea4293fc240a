//! Reserved keys: sequence numbers taken ahead of the event that will carry them
//! (`reserve_seq`), events put in with such a number later (`schedule_reserved`), and the
//! number an event kept out of the queue would have had had it been scheduled while an
//! earlier event was handled (`seq_after_lazy`, from the pop history in `history.rs`).
//! The numbers follow the even/odd rule of `sim::key`.

use super::EventQueue;
use super::history::{HISTORY, HistoryCursor};
use super::store::{Entry, NO_LANE};
use crate::sim::key::{SEQ_STEP, seq_below};
use crate::sim::lazy::{Lineage, LineageNote};
use crate::sim::{EventKey as Key, SimTime};

/// A lookup met a popped event with the armer's own (odd) key: the lineages decide
/// (`EventQueue::seq_after_tied`).
#[derive(Copy, Clone, Debug)]
pub(in crate::sim) struct Tie;

impl<E> EventQueue<E> {
    /// How many recent pops `seq_after_lazy` can look back over.
    pub(crate) const HISTORY: usize = HISTORY;

    /// Whether to remember recent pops for `seq_after_lazy` (on by default). A world that
    /// never asks (no wireless NICs) turns it off: it is work on every pop.
    pub fn keep_history(&mut self, on: bool) {
        self.keep_history = on;
    }

    /// Takes the next sequence number without scheduling anything: the key (time, seq)
    /// of an event that may be scheduled later (`schedule_slot_reserved`) or never.
    /// Owners outside `sim` reserve through `sim::lazy::reserve`.
    pub(in crate::sim) fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += SEQ_STEP;
        seq
    }

    /// Takes `n` sequence numbers at once, as `n` calls of `reserve_seq` would: the
    /// first is returned, the `i`-th is `first + i * SEQ_STEP`.
    pub(in crate::sim) fn reserve_seq_block(&mut self, n: usize) -> u64 {
        let seq = self.next_seq;
        self.next_seq += SEQ_STEP * n as u64;
        seq
    }

    /// The sequence number an event would have had if it had been scheduled while the
    /// event with key `k` (time, seq) was being handled, had that event been popped:
    /// above every number given out before and below every one given out after. Real
    /// sequence numbers are even, so the odd number just below the counter at the next
    /// pop is free (`seq_below`). `k` must not be older than the last `HISTORY` pops.
    /// `Err(Tie)` if an event of another owner with the same (odd) key was popped: only
    /// the armer's lineage says which came first (`seq_after_tied`).
    pub(in crate::sim) fn seq_after(&self, k: Key) -> Result<u64, Tie> {
        let h = &self.history;
        let (t, s) = (k.time_nanos(), k.seq());
        let mut i = h.first_at_or_after(t);
        let (times, seqs) = (h.times(), h.seqs());
        while i < times.len() && times[i] == t && seqs[i] <= s {
            if seqs[i] == s && self.lazy_pop(i).is_some() {
                return Err(Tie);
            }
            i += 1;
        }
        Ok(self.after_index(i))
    }

    /// `seq_after` of an armer with lineage `armer` (`sim::lazy`, rule 5): a popped
    /// event of the same key came first if its lineage is lower.
    /// Searches from `cur` (see `HistoryCursor`): a chain's links come in time order.
    pub(in crate::sim) fn seq_after_tied(
        &self,
        cur: &mut HistoryCursor,
        k: Key,
        armer: impl FnOnce() -> Lineage,
    ) -> u64 {
        let h = &self.history;
        let (t, s) = (k.time_nanos(), k.seq());
        let mut i = self.history_index_from(cur, t);
        let (times, seqs) = (h.times(), h.seqs());
        let mut armer = Some(armer);
        let mut lineage = None;
        while i < times.len() && times[i] == t && seqs[i] <= s {
            if seqs[i] == s {
                if let Some(popped) = self.lazy_pop(i) {
                    let a: &Lineage =
                        lineage.get_or_insert_with(|| armer.take().expect("asked once")());
                    if popped.keys(self) > *a {
                        break;
                    }
                }
            }
            i += 1;
        }
        self.after_index(i)
    }

    /// The lineage of the pop at history index `i` if it was a lazy event that entered
    /// the queue with one (`schedule_slot_lazy`).
    fn lazy_pop(&self, i: usize) -> Option<&LineageNote> {
        let pop = self.popped - self.history.len as u64 + i as u64;
        self.lazy_pops
            .iter()
            .find(|(p, _)| *p == pop)
            .map(|(_, l)| l)
    }

    /// Notes the lineage of the slot event just popped (pop number `pop`), which it has,
    /// for `seq_after`; drops those older than the pop history. A lineage not looked up
    /// is looked up only by a lookup that meets its key, before the next sweep: after
    /// it no lookup can (`sim::lazy::may_tie`).
    #[cold]
    #[inline(never)]
    pub(super) fn note_lazy_pop(&mut self, pop: u64) {
        let note = self.slots.take_popped_note();
        self.lazy_pops.push_back((pop, note));
        let oldest = (pop + 1).saturating_sub(self.history.len as u64);
        while self.lazy_pops.front().is_some_and(|(p, _)| *p < oldest) {
            self.lazy_pops.pop_front();
        }
    }

    /// The free number just below `next_seq` as it was when the pop at history index `i`
    /// happened (the current counter if none).
    fn after_index(&self, i: usize) -> u64 {
        assert!(
            self.keep_history && (i > 0 || self.popped <= self.history.len as u64),
            "seq_after: key older than the pop history"
        );
        seq_below(self.history.nexts().get(i).map_or(self.next_seq, |&n| n))
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

    /// `seq_after_lazy(t, s)`, searching from `cur` (see `HistoryCursor`).
    pub(in crate::sim) fn seq_after_lazy_from(
        &self,
        cur: &mut HistoryCursor,
        t: SimTime,
        s: impl FnOnce() -> Result<u64, Tie>,
    ) -> Result<u64, Tie> {
        let i = self.history_index_from(cur, t.as_nanos());
        if self.history.times().get(i) == Some(&t.as_nanos()) {
            self.seq_after(Key::new(t, s()?))
        } else {
            Ok(self.after_index(i))
        }
    }

    /// `seq_after` of the key (t, s), asking for `s` only when it matters: when an event at time
    /// `t` itself was popped. Otherwise the first pop after (t, s) is the first pop
    /// after time `t` whatever `s` is (a chain of virtual events then costs one search
    /// instead of one per link).
    pub(in crate::sim) fn seq_after_lazy(
        &self,
        t: SimTime,
        s: impl FnOnce() -> Result<u64, Tie>,
    ) -> Result<u64, Tie> {
        let h = &self.history;
        let i = h.first_at_or_after(t.as_nanos());
        if h.times().get(i) == Some(&t.as_nanos()) {
            self.seq_after(Key::new(t, s()?))
        } else {
            Ok(self.after_index(i))
        }
    }

    /// Schedules `event` with a sequence number taken earlier (`reserve_seq`), as if it
    /// had been scheduled then. Its key must still be ahead of every event popped so far.
    #[inline]
    pub(in crate::sim) fn schedule_reserved(&mut self, time: SimTime, seq: u64, event: E) {
        let k = Key::new(time, seq);
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

    /// Whether an event with key (time, seq) would have been popped by now: it is not
    /// after the last event popped. For events kept out of the queue with a reserved
    /// sequence number (a link's end of transmission).
    #[inline]
    pub(in crate::sim) fn passed(&self, time: SimTime, seq: u64) -> bool {
        self.popped > 0 && Key::new(time, seq) <= self.last
    }
}
