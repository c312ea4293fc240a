//! FIFO lanes (`EventQueue::schedule_lane`): events that come in key order per lane (a
//! wired link's arrivals) wait in a FIFO; only each lane's earliest is in the store.

use super::EventQueue;
use super::store::{Entry, NO_LANE, Store, heap_pop, heap_sift_down};
use crate::sim::{EventKey as Key, SimTime};

impl<E> EventQueue<E> {
    /// Schedules `event` at `time` in FIFO lane `lane`: the same as `schedule`, for
    /// events that come in time order per lane (a link's arrivals), so that only each
    /// lane's earliest event is in a heap. `time` must not be before the lane's last.
    #[inline(always)]
    pub(crate) fn schedule_lane(&mut self, lane: usize, time: SimTime, event: E) {
        let key = self.next_key(time);
        let l = &mut self.lanes;
        if lane >= l.lanes.len() {
            l.lanes.resize_with(lane + 1, || Lane {
                waiting: Default::default(),
                tail: Key::MIN,
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
            assert!(ln.tail.time() <= time, "lane {lane} scheduled out of order");
            ln.tail = key;
            ln.waiting.push_back(e);
            l.len += 1;
        } else {
            ln.active = true;
            ln.tail = key;
            self.heap.push(e, self.last);
        }
    }
}

/// FIFO lanes (`schedule_lane`): each lane's events come in key order, so only its
/// earliest (its head) is in the store, as an ordinary entry marked with its lane; the
/// rest wait in order and the next one enters the store when the head is popped.
pub(super) struct Lanes<E> {
    lanes: Vec<Lane<E>>,
    /// Events in all `waiting` queues.
    pub(super) len: usize,
}

impl<E> Lanes<E> {
    pub(super) fn new() -> Self {
        Lanes {
            lanes: Vec::new(),
            len: 0,
        }
    }
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

impl<E> Store<E> {
    /// Pops the earliest event; if it was a lane's head, the lane's next event takes its
    /// place (in the 4-ary heap: one sift down from the root instead of a pop and a push).
    #[inline]
    pub(super) fn pop_from_lanes(&mut self, lanes: &mut Lanes<E>) -> E {
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
