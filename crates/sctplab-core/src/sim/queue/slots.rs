//! Slots (`EventQueue::schedule_slot`): at most one pending event per slot id (a MAC's
//! next timer, a NIC's wake-up), in an indexed heap of their own.
//!
//! Scheduling into a busy slot replaces its event; the caller guarantees the replaced
//! one would have been a no-op when popped (a superseded timer generation), so dropping
//! it changes nothing but the count of events popped. The latest replaced deadline is
//! remembered (`superseded_horizon`), since popping it would have moved the clock that
//! far.

use super::EventQueue;
use crate::sim::lazy::LineageNote;
use crate::sim::{EventKey as Key, SimTime};

impl<E> EventQueue<E> {
    /// Schedules `event` at `time` in slot `id`, replacing the slot's pending event if
    /// any. Only for events whose replaced predecessor would do nothing when popped.
    pub(crate) fn schedule_slot(&mut self, id: usize, time: SimTime, event: E) {
        let key = self.next_key(time);
        if let Some(old) = self.slots.set(id, key, event) {
            self.superseded = self.superseded.max(old.time());
        }
    }

    /// Schedules `event` in slot `id` with a sequence number taken earlier from
    /// `reserve_seq`, as if it had been scheduled then. Its key must still be ahead of
    /// every event popped so far.
    pub(crate) fn schedule_slot_reserved(&mut self, id: usize, time: SimTime, seq: u64, event: E) {
        let k = Key::new(time, seq);
        assert!(k > self.last, "reserved event scheduled in the past");
        if let Some(old) = self.slots.set(id, k, event) {
            self.superseded = self.superseded.max(old.time());
        }
    }

    /// `schedule_slot_reserved` of a lazy event (`sim::lazy`) with its lineage: an
    /// event of another slot with the same key comes before it if its lineage is lower
    /// (rule 5), as in the plain run. The lineage is looked up only if another slot's
    /// event has the same key (then both are), or at the next sweep
    /// (`settle_notes`).
    pub(crate) fn schedule_slot_lazy(
        &mut self,
        id: usize,
        time: SimTime,
        seq: u64,
        note: LineageNote,
        event: E,
    ) {
        let k = Key::new(time, seq);
        let tie = if note.is_empty() {
            None
        } else {
            self.slots.other_with_key(id, k)
        };
        self.slots.set_note(id, note);
        if let Some(other) = tie {
            self.look_up_note(other as usize);
            self.look_up_note(id);
        }
        self.schedule_slot_reserved(id, time, seq, event);
    }

    /// Slot `id`'s lineage, looked up now (`LineageNote::keys`).
    #[cold]
    #[inline(never)]
    fn look_up_note(&mut self, id: usize) {
        let note = std::mem::take(&mut self.slots.notes[id]);
        self.slots.notes[id] = LineageNote::Keys(note.keys(self));
    }

    /// The keys of the lazy events in slots with a lineage (`sim::lazy`, rule 5), for
    /// `sim::lazy::may_tie`.
    pub(crate) fn lazy_slot_keys(&self, out: &mut Vec<Key>) {
        out.extend(self.slots.with_notes().map(|(k, _)| k));
    }

    /// At a sweep (`sim::lazy::may_tie`): every slot event's lineage not looked up yet
    /// is looked up if `needed` says a tie can need it, else dropped, before its links
    /// leave the pop history.
    pub(crate) fn settle_notes(&mut self, needed: impl Fn(Key) -> bool) {
        let ids: Vec<(Key, u32)> = self
            .slots
            .with_notes()
            .filter(|&(_, id)| matches!(self.slots.notes[id as usize], LineageNote::Chain { .. }))
            .collect();
        for (k, id) in ids {
            if needed(k) {
                self.look_up_note(id as usize);
            } else {
                self.slots.notes[id as usize] = LineageNote::default();
            }
        }
    }

    /// Schedules a wake-up `event` at `time` in slot `id` with the given sequence
    /// number, taking none from the counter, and replacing the slot's pending event
    /// without counting it as superseded (wake-ups are bookkeeping: see
    /// `uncount_last_pop`). The key must be ahead of every event popped so far.
    pub(crate) fn schedule_wake(&mut self, id: usize, time: SimTime, seq: u64, event: E) {
        let k = Key::new(time, seq);
        assert!(k > self.last, "wake-up scheduled in the past");
        self.slots.set(id, k, event);
    }

    /// Drops wake-up slot `id`'s event, if any (see `schedule_wake`).
    pub(crate) fn cancel_wake(&mut self, id: usize) {
        self.slots.remove(id);
    }

    /// Drops slot `id`'s event, if any, as `schedule_slot` drops a replaced one.
    pub(crate) fn cancel_slot(&mut self, id: usize) {
        if let Some(old) = self.slots.remove(id) {
            self.superseded = self.superseded.max(old.time());
        }
    }

    /// Records a deadline that a stale, never-popped event would have moved the clock to
    /// (see `superseded_horizon`).
    pub(crate) fn note_superseded(&mut self, time: SimTime) {
        self.superseded = self.superseded.max(time);
    }

    /// The latest deadline of a slot event that was replaced: where the clock would have
    /// ended had the replaced events been popped after everything else.
    pub(crate) fn superseded_horizon(&self) -> SimTime {
        self.superseded
    }
}

const NO_POS: u32 = u32::MAX;

/// An indexed binary min-heap of slots, each holding at most one event.
///
/// Each heap entry carries its key, so a sift compares keys without looking up the slot
/// (the heap of ~46 MAC timers is walked on nearly every MAC timer event).
pub(super) struct Slots<E> {
    /// (key, slot id), heap-ordered by key.
    heap: Vec<(Key, u32)>,
    /// Per slot: its position in `heap` (`NO_POS` if empty), its event.
    pos: Vec<u32>,
    events: Vec<Option<E>>,
    /// Per slot: the lineage of its lazy event (`schedule_slot_lazy`), which orders two
    /// slots' events of the same key (`sim::lazy`, rule 5). Only lazy events can have
    /// the same key (numbers the queue gives out are unique), so it is read only
    /// between two of them (both looked up then: `schedule_slot_lazy`) and is left as
    /// it is by the other kinds of event.
    pub(super) notes: Vec<LineageNote>,
    /// A slot whose event was just popped but which still sits at the root: a timer
    /// handler usually schedules the same slot again at once, and then one sift down
    /// replaces the removal and the reinsertion. Settled before anything else.
    popped: Option<u32>,
}

impl<E> Slots<E> {
    pub(super) fn new() -> Self {
        Slots {
            heap: Vec::new(),
            pos: Vec::new(),
            events: Vec::new(),
            notes: Vec::new(),
            popped: None,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.heap.len() - usize::from(self.popped.is_some())
    }

    /// Takes a popped slot out of the heap for good.
    #[inline]
    pub(super) fn settle(&mut self) {
        if let Some(id) = self.popped.take() {
            let last = self.heap.pop().expect("popped slot is in the heap");
            if !self.heap.is_empty() {
                self.sift_down(0, last);
            }
            self.pos[id as usize] = NO_POS;
        }
    }

    /// Sets the lineage of slot `id`'s next event.
    pub(super) fn set_note(&mut self, id: usize, note: LineageNote) {
        if id >= self.notes.len() {
            self.notes.resize_with(id + 1, LineageNote::default);
        }
        self.notes[id] = note;
    }

    /// Another slot whose event has key `k` and a lineage, if any.
    fn other_with_key(&self, id: usize, k: Key) -> Option<u32> {
        self.heap
            .iter()
            .filter(|&&(hk, j)| hk == k && j as usize != id && Some(j) != self.popped)
            .map(|&(_, j)| j)
            .find(|&j| self.notes.get(j as usize).is_some_and(|n| !n.is_empty()))
    }

    /// (key, slot id) of the pending events of slots with a lineage: odd keys (the
    /// events of the even ones, the counter's numbers, are not lazy).
    fn with_notes(&self) -> impl Iterator<Item = (Key, u32)> + '_ {
        self.heap
            .iter()
            .filter(|&&(k, j)| {
                k.seq() % crate::sim::SEQ_STEP != 0
                    && Some(j) != self.popped
                    && self.notes.get(j as usize).is_some_and(|n| !n.is_empty())
            })
            .copied()
    }

    /// Whether heap entry `a` comes after `b`: the later key, or the same key and the
    /// higher lineage (`sim::lazy`, rule 5).
    #[inline(always)]
    fn after(notes: &[LineageNote], a: (Key, u32), b: (Key, u32)) -> bool {
        a.0 > b.0 || (a.0 == b.0 && Self::lineage_after(notes, a.1, b.1))
    }

    /// Two lineages of one key are both looked up (`schedule_slot_lazy`) unless one is
    /// empty (a wake-up's, say), which comes first.
    #[cold]
    fn lineage_after(notes: &[LineageNote], a: u32, b: u32) -> bool {
        let of = |i: u32| -> &[Key] {
            match notes.get(i as usize) {
                None => &[],
                Some(LineageNote::Keys(l)) => l,
                Some(LineageNote::Chain { .. }) => {
                    panic!("a lineage compared before it was looked up")
                }
            }
        };
        let empty = |i: u32| notes.get(i as usize).is_none_or(LineageNote::is_empty);
        match (empty(a), empty(b)) {
            (true, _) => false,
            (false, true) => true,
            (false, false) => of(a) > of(b),
        }
    }

    /// Puts `e` at heap position `i` or above, moving larger parents down.
    fn sift_up(&mut self, mut i: usize, e: (Key, u32)) {
        let h = &mut self.heap;
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = h[parent];
            if !Self::after(&self.notes, p, e) {
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
            if l + 1 < n && Self::after(&self.notes, ch, h[l + 1]) {
                c = l + 1;
                ch = h[c];
            }
            if !Self::after(&self.notes, e, ch) {
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
    pub(super) fn set(&mut self, id: usize, k: Key, event: E) -> Option<Key> {
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
            } else if k > old {
                self.sift_down(p as usize, (k, id as u32));
            } else {
                // The same key, perhaps another lineage: either way.
                self.sift_up(p as usize, (k, id as u32));
                let at = self.pos[id] as usize;
                self.sift_down(at, (k, id as u32));
            }
            Some(old)
        }
    }

    /// Empties slot `id`; returns the key of the event it held.
    pub(super) fn remove(&mut self, id: usize) -> Option<Key> {
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
    pub(super) fn peek(&self) -> Option<Key> {
        debug_assert!(self.popped.is_none());
        self.heap.first().map(|e| e.0)
    }

    /// Whether the slot just popped has a lineage.
    #[inline]
    pub(super) fn popped_has_lineage(&self) -> bool {
        self.popped
            .and_then(|id| self.notes.get(id as usize))
            .is_some_and(|l| !l.is_empty())
    }

    /// Takes the lineage of the slot just popped (empty if it had none).
    pub(super) fn take_popped_note(&mut self) -> LineageNote {
        self.popped
            .and_then(|id| self.notes.get_mut(id as usize))
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Pops the root (after `settle`); it stays in place until the next operation.
    pub(super) fn pop(&mut self) -> Option<(Key, E)> {
        debug_assert!(self.popped.is_none());
        let (k, id) = *self.heap.first()?;
        let e = self.events[id as usize].take().expect("slot event");
        self.popped = Some(id);
        Some((k, e))
    }
}
