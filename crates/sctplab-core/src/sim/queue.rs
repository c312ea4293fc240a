//! The future-event list: a binary heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by the order in which events were scheduled, exactly as ns-2's
//! scheduler does, so that cross-checks against ns-2 see the same order of simultaneous
//! events. The queue also owns the clock, so time can only move forward.

use super::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed so that the max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E> EventQueue<E> {
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(cap),
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// The current simulated time: the time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `time`. Scheduling in the past is a model bug, not bad input.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        assert!(
            time >= self.now,
            "event scheduled in the past: {time} < now {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Removes the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = self.heap.pop()?;
        assert!(entry.time >= self.now, "time ran backwards");
        self.now = entry.time;
        self.popped += 1;
        Some((entry.time, entry.event))
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
}
