//! Runs (`EventQueue::schedule_run`, `schedule_reserved_run`): a batch of events
//! scheduled together (one frame reaching every receiver in range) is sorted once and
//! consumed in order, instead of entering the heap one by one.

use super::EventQueue;
use super::store::{Entry, NO_LANE};
use crate::sim::{EventKey as Key, SimTime};

/// A batch of events sorted by decreasing key: the earliest is the last.
struct Run<E> {
    items: Vec<Entry<E>>,
}

/// The runs with events left, and the empty ones kept to reuse their allocation.
pub(super) struct Runs<E> {
    /// Run storage; `active` lists the runs with events left, `spare` the empty ones.
    runs: Vec<Run<E>>,
    pub(super) active: Vec<u32>,
    spare: Vec<u32>,
    /// Scratch for building a run.
    scratch: Vec<Entry<E>>,
    order: Vec<u64>,
}

impl<E> Runs<E> {
    pub(super) fn new() -> Self {
        Runs {
            runs: Vec::new(),
            active: Vec::new(),
            spare: Vec::new(),
            scratch: Vec::new(),
            order: Vec::new(),
        }
    }

    /// Events in all runs.
    pub(super) fn len(&self) -> usize {
        self.active
            .iter()
            .map(|&r| self.runs[r as usize].items.len())
            .sum()
    }

    /// The earliest key of active run `r` (an entry of `active`).
    #[inline(always)]
    pub(super) fn head(&self, r: u32) -> Key {
        self.runs[r as usize].items.last().expect("active run").key
    }

    /// Pops the earliest event of the run at index `i` of `active`.
    #[inline(always)]
    pub(super) fn pop(&mut self, i: usize) -> E {
        let r = self.active[i] as usize;
        let run = &mut self.runs[r].items;
        let event = run.pop().expect("active run").event;
        if run.is_empty() {
            self.active.swap_remove(i);
            self.spare.push(r as u32);
        }
        event
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

    /// Puts `items` (sorted by decreasing key) in run slot `r`: active if not empty.
    fn install(&mut self, r: usize, items: Vec<Entry<E>>) {
        let n = items.len();
        self.runs[r] = Run { items };
        if n == 0 {
            self.spare.push(r as u32);
        } else {
            self.active.push(r as u32);
        }
    }

    /// Sorts the events in `scratch` (consecutive sequence numbers in their order) into a
    /// new run.
    fn install_scratch(&mut self)
    where
        E: Copy,
    {
        let (r, mut items) = self.free_run();
        let scratch = &self.scratch;
        let n = scratch.len();
        let t0 = scratch
            .iter()
            .map(|e| e.key.time_nanos())
            .min()
            .unwrap_or(0);
        let t1 = scratch
            .iter()
            .map(|e| e.key.time_nanos())
            .max()
            .unwrap_or(0);
        if n <= 1 << 16 && t1 - t0 < 1 << 48 {
            // Sequence numbers are consecutive in input order, so (time, input index)
            // orders the run as (time, sequence) does; one u64 per event sorts faster.
            self.order.clear();
            self.order.extend(
                scratch
                    .iter()
                    .enumerate()
                    .map(|(i, e)| ((e.key.time_nanos() - t0) << 16) | i as u64),
            );
            self.order.sort_unstable_by(|a, b| b.cmp(a));
            items.extend(self.order.iter().map(|&o| scratch[(o & 0xffff) as usize]));
        } else {
            items.extend_from_slice(scratch);
            // Keys are unique, so the unstable sort is deterministic.
            items.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
        self.install(r, items);
    }
}

impl<E> EventQueue<E> {
    /// Schedules a batch of events, in the given order (so with consecutive sequence
    /// numbers): the same as calling `schedule` for each, but cheaper for large batches.
    /// Returns how many there were.
    pub(crate) fn schedule_run(&mut self, events: impl IntoIterator<Item = (SimTime, E)>) -> usize
    where
        E: Copy,
    {
        self.runs.scratch.clear();
        for (time, event) in events {
            let key = self.next_key(time);
            self.runs.scratch.push(Entry {
                key,
                event,
                lane: NO_LANE,
            });
        }
        let n = self.runs.scratch.len();
        self.runs.install_scratch();
        n
    }

    /// `schedule_reserved` for each of a batch of events, as one run (a sorted vector
    /// popped from its end) instead of one heap entry each: for the few receivers of one
    /// frame, whose events all fall within a propagation delay. Returns how many there
    /// were.
    pub(crate) fn schedule_reserved_run(
        &mut self,
        events: impl IntoIterator<Item = (SimTime, u64, E)>,
    ) -> usize
    where
        E: Copy,
    {
        let (r, mut items) = self.runs.free_run();
        for (time, seq, event) in events {
            let k = Key::new(time, seq);
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
        self.runs.install(r, items);
        n
    }
}
