//! DSDV's route table as ns-2.35 keeps it (dsdv/rtable.cc): one entry per destination
//! in an array sorted by address, found by binary search and walked in address order
//! (updates list destinations in that order).

use std::collections::VecDeque;

use crate::net::PacketId;
use crate::sim::SimTime;

/// One destination's entry (ns-2 `rtable_ent`).
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub dst: u32,
    /// The neighbour the route goes through.
    pub hop: u32,
    pub metric: u8,
    pub seqnum: u32,
    /// Not advertised before this time (the settling delay).
    pub advertise_ok_at: SimTime,
    /// The sequence number changed since it was last advertised.
    pub advert_seqnum: bool,
    /// The metric changed since the last full update.
    pub advert_metric: bool,
    pub last_advertised_metric: u8,
    /// When the route last changed (ns-2 sets it for every update heard).
    pub changed_at: SimTime,
    /// When the current sequence number was first heard.
    pub new_seqnum_at: SimTime,
    /// The weighted settling time, seconds.
    pub wst: f64,
    /// The neighbour time-out armed on this entry (its timer's number), ns-2's
    /// `timeout_event`; the deadline lives in the agent's timer heap.
    pub timeout: Option<u64>,
    /// The triggered update pending for this entry (its timer's number and time), ns-2's
    /// `trigger_event`.
    pub trigger: Option<(u64, SimTime)>,
    /// Data packets waiting for a route (ns-2's per-entry `PacketQueue`).
    pub queue: Option<VecDeque<PacketId>>,
}

impl Entry {
    /// ns-2's `bzero`ed entry for `dst`.
    pub fn zeroed(dst: u32) -> Entry {
        Entry {
            dst,
            hop: 0,
            metric: 0,
            seqnum: 0,
            advertise_ok_at: SimTime::ZERO,
            advert_seqnum: false,
            advert_metric: false,
            last_advertised_metric: 0,
            changed_at: SimTime::ZERO,
            new_seqnum_at: SimTime::ZERO,
            wst: 0.0,
            timeout: None,
            trigger: None,
            queue: None,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Table {
    entries: Vec<Entry>,
}

impl Table {
    fn index(&self, dst: u32) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&dst, |e| e.dst)
    }

    /// The position of `dst`'s entry, or where it would go, looked for from `from`, a
    /// hint: an update lists its destinations in address order, so walking on from the
    /// previous one's position finds them all in one pass over the table; a destination
    /// before the hint (an update out of order) falls back to the binary search.
    pub fn find_from(&self, from: usize, dst: u32) -> Result<usize, usize> {
        let from = from.min(self.entries.len());
        if from > 0 && self.entries[from - 1].dst >= dst {
            return self.index(dst);
        }
        let mut i = from;
        while i < self.entries.len() && self.entries[i].dst < dst {
            i += 1;
        }
        match self.entries.get(i) {
            Some(e) if e.dst == dst => Ok(i),
            _ => Err(i),
        }
    }

    pub fn at(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    pub fn at_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }

    /// Inserts `e` at `i`, the position `find_from` gave for its destination.
    pub fn insert_at(&mut self, i: usize, e: Entry) {
        debug_assert_eq!(self.index(e.dst), Err(i));
        self.entries.insert(i, e);
    }

    pub fn get(&self, dst: u32) -> Option<&Entry> {
        self.index(dst).ok().map(|i| &self.entries[i])
    }

    pub fn get_mut(&mut self, dst: u32) -> Option<&mut Entry> {
        self.index(dst).ok().map(|i| &mut self.entries[i])
    }

    /// ns-2's `AddEntry`: overwrites the entry for the same destination, else inserts
    /// in address order.
    pub fn put(&mut self, e: Entry) {
        match self.index(e.dst) {
            Ok(i) => self.entries[i] = e,
            Err(i) => self.entries.insert(i, e),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.entries.iter_mut()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_from_walks_on_and_falls_back_before_the_hint() {
        let mut t = Table::default();
        for d in [2, 5, 9] {
            t.put(Entry::zeroed(d));
        }
        // From the start: found, or the position it would take.
        assert_eq!(t.find_from(0, 5), Ok(1));
        assert_eq!(t.find_from(0, 9), Ok(2));
        assert_eq!(t.find_from(1, 7), Err(2));
        assert_eq!(t.find_from(3, 10), Err(3));
        // A hint past the destination (the entry before it is not smaller): the binary
        // search answers, as `find_from(0, ..)` would.
        assert_eq!(t.find_from(2, 5), Ok(1));
        assert_eq!(t.find_from(10, 1), Err(0));
        assert_eq!(t.find_from(3, 2), Ok(0));
    }
}
