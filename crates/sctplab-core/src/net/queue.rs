//! Drop-tail interface queue with ns-2's counting.
//!
//! ns-2.35's `DropTail::enque` drops an arriving packet when `length + 1 >= qlim`, where
//! `length` counts only the packets waiting; the packet being transmitted has already
//! left the queue (`Queue::recv` dequeues it as soon as the link is free). So a limit of
//! `qlim` holds at most `qlim - 1` waiting packets plus one on the wire: `qlim` in all.
//! We count the same way: `limit` is the number of packets in the interface, the one in
//! transmission included. (ns-2 drops everything at `qlim = 1`, even on an idle link;
//! here a limit of 1 still lets a packet through an idle interface.)
//! The optional byte limit mirrors ns-2's `queue-in-bytes` test on waiting bytes.

use super::ids::PacketId;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct DropTail {
    waiting: VecDeque<(PacketId, u32)>,
    waiting_bytes: u64,
    limit_packets: u32,
    limit_bytes: Option<u64>,
}

impl DropTail {
    pub fn new(limit_packets: u32, limit_bytes: Option<u64>) -> Self {
        DropTail {
            waiting: VecDeque::with_capacity(limit_packets.min(4096) as usize),
            waiting_bytes: 0,
            limit_packets,
            limit_bytes,
        }
    }

    /// Whether a packet of `size` bytes arriving now must be dropped, given whether the
    /// transmitter is busy.
    pub fn would_drop(&self, size: u32, transmitting: bool) -> bool {
        let in_iface = self.waiting.len() as u64 + u64::from(transmitting);
        if in_iface >= u64::from(self.limit_packets) {
            return true;
        }
        match self.limit_bytes {
            Some(limit) => self.waiting_bytes + u64::from(size) >= limit,
            None => false,
        }
    }

    pub fn push(&mut self, id: PacketId, size: u32) {
        self.waiting.push_back((id, size));
        self.waiting_bytes += u64::from(size);
    }

    pub fn pop(&mut self) -> Option<PacketId> {
        let (id, size) = self.waiting.pop_front()?;
        self.waiting_bytes -= u64::from(size);
        Some(id)
    }

    /// The packet at the head and its size, left in place (what CoDel and PIE read
    /// before it leaves, `net/aqm/link.rs`).
    #[inline]
    pub fn front(&self) -> Option<(PacketId, u32)> {
        self.waiting.front().copied()
    }

    /// Packets waiting (not counting the one in transmission).
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.waiting_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_counts_the_packet_in_transmission() {
        // ns-2 qlim 8: 7 waiting + 1 on the wire, the next arrival is dropped.
        let mut q = DropTail::new(8, None);
        assert!(!q.would_drop(1000, false));
        for i in 0..7 {
            assert!(!q.would_drop(1000, true), "packet {i}");
            q.push(PacketId(i), 1000);
        }
        assert!(q.would_drop(1000, true));
        assert_eq!(q.pop(), Some(PacketId(0)));
        assert!(!q.would_drop(1000, true));
    }

    #[test]
    fn byte_limit_applies_to_waiting_bytes() {
        let mut q = DropTail::new(100, Some(3000));
        q.push(PacketId(0), 1000);
        assert!(!q.would_drop(1000, true));
        q.push(PacketId(1), 1000);
        assert!(q.would_drop(1000, true));
    }
}
