//! The future-event list, ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, exactly as ns-2's
//! scheduler does, so that cross-checks against ns-2 see the same order of simultaneous
//! events. The queue also owns the clock, so time can only move forward.
//!
//! Every event gets its key (`EventKey`: time, sequence number) when it is scheduled,
//! from one counter, and `pop` always returns the event with the smallest key. Outside
//! the crate only scheduling and popping are public; the world's surface comes in three
//! parts:
//!
//! - scheduling (`schedule`, and for patterns that a store serves cheaply `schedule_lane`
//!   and `schedule_run`), `pop` and the counters (this file);
//! - reserved keys (`reserved.rs`): numbers taken ahead of their events, events put in
//!   with them later, and the number an event kept out of the queue would have had;
//! - slots (`slots.rs`): at most one pending event per slot id, replaced in place.
//!
//! Where an event is kept does not change the order, so the stores serve different
//! patterns cheaply, each in its own file:
//!
//! - ordinary events: a 4-ary min-heap while few are pending, a radix heap beyond a few
//!   thousand (`store.rs`, `radix.rs`);
//! - *runs* (`runs.rs`): a batch of events scheduled together (one frame reaching every
//!   receiver in range) is sorted once and consumed in order;
//! - *lanes* (`lanes.rs`): events that come in key order per lane (a wired link's
//!   arrivals) wait in a FIFO; only each lane's earliest is in the ordinary store;
//! - *slots* (`slots.rs`): an indexed heap of one event per slot (a MAC's next timer);
//! - the pop history (`history.rs`) that reserved keys are looked up in.

mod history;
mod lanes;
mod radix;
mod reserved;
mod runs;
mod slots;
mod store;
#[cfg(test)]
mod tests;

pub(crate) use history::HistoryCursor;
pub(in crate::sim) use reserved::Tie;

use super::key::SEQ_STEP;
use super::lazy::LineageNote;
use super::{EventKey as Key, SimTime};
use history::History;
use lanes::Lanes;
use runs::Runs;
use slots::Slots;
use std::collections::VecDeque;
use store::{Entry, NO_LANE, RADIX_ABOVE, Store};

/// Where the earliest pending event is.
#[derive(Copy, Clone)]
enum Src {
    Heap,
    Run(usize),
    Slot,
}

pub struct EventQueue<E> {
    /// Ordinary events (and the heads of lanes).
    heap: Store<E>,
    runs: Runs<E>,
    slots: Slots<E>,
    lanes: Lanes<E>,
    superseded: SimTime,
    next_seq: u64,
    /// Key of the last event popped.
    last: Key,
    /// The most recent pops (at least `HISTORY` of them once there were that many):
    /// (key, `next_seq` when it was popped), for `seq_after_lazy`.
    history: History,
    /// Whether pops are recorded in `history` (only `seq_after_lazy` reads it).
    keep_history: bool,
    now: SimTime,
    popped: u64,
    /// Pops that were bookkeeping, not events of the model (`uncount_last_pop`).
    uncounted: u64,
    /// (pop number, lineage) of the recent pops of lazy events that entered the queue
    /// with a lineage (`schedule_slot_lazy`), for `seq_after`.
    lazy_pops: VecDeque<(u64, LineageNote)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E> EventQueue<E> {
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: Store::Heap(Vec::with_capacity(cap.min(RADIX_ABOVE + 1))),
            runs: Runs::new(),
            slots: Slots::new(),
            lanes: Lanes::new(),
            superseded: SimTime::ZERO,
            next_seq: 0,
            last: Key::MIN,
            history: History::default(),
            keep_history: true,
            now: SimTime::ZERO,
            popped: 0,
            uncounted: 0,
            lazy_pops: VecDeque::new(),
        }
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
    pub(crate) fn pops(&self) -> u64 {
        self.popped
    }

    /// Leaves the last pop out of `events_processed`: a wake-up the world schedules for
    /// its own bookkeeping (`schedule_wake`), not an event of the model. The pop stays
    /// in the history; a wake-up takes no sequence number, so `seq_after_lazy` answers
    /// as without it.
    pub(crate) fn uncount_last_pop(&mut self) {
        self.uncounted += 1;
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.runs.len() + self.slots.len() + self.lanes.len
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
        Key::new(time, seq)
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

    /// The counter: the number the next event scheduled takes.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The key (time, sequence number) of the last event popped.
    pub(crate) fn last_key(&self) -> Key {
        self.last
    }

    fn earliest(&mut self) -> Option<(Key, Src)> {
        self.slots.settle();
        let mut best: Option<(Key, Src)> = self.heap.peek().map(|k| (k, Src::Heap));
        for (i, &r) in self.runs.active.iter().enumerate() {
            let k = self.runs.head(r);
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
        self.earliest().map(|(k, _)| k.time())
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
            Src::Run(i) => self.runs.pop(i),
            Src::Slot => {
                let e = self.slots.pop().expect("slot event").1;
                // An odd key from a slot: a wake-up or a lazy event, whose lineage
                // `seq_after` may need (`sim::lazy`, rule 5).
                if key.seq() % SEQ_STEP != 0 && self.slots.popped_has_lineage() {
                    self.note_lazy_pop(self.popped);
                }
                e
            }
        };
        let time = key.time();
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
