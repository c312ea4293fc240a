//! The buffer of data packets awaiting a route (ns-2.35 aodv/aodv_rqueue.{h,cc}): FIFO,
//! at most `limit` packets, each allowed `timeout` in the buffer. As in ns-2, aged
//! packets are removed only when a packet is added or taken out, never on a timer, and
//! `contains` does not age anything.

use std::collections::VecDeque;

use super::DropReason;
use crate::net::PacketId;
use crate::sim::{SimDuration, SimTime};

#[derive(Copy, Clone, Debug)]
struct Held {
    pkt: PacketId,
    dst: u32,
    /// ns-2 stores `now + timeout` in the common header's timestamp.
    expires: SimTime,
}

#[derive(Debug)]
pub(super) struct RouteQueue {
    q: VecDeque<Held>,
    limit: usize,
    timeout: SimDuration,
}

impl RouteQueue {
    pub(super) fn new(limit: usize, timeout: SimDuration) -> Self {
        RouteQueue {
            // The limit comes from input (up to 2^32 - 1): reserve only what a queue of
            // ns-2's default size needs, and grow as packets come (as `ifq.rs`).
            q: VecDeque::with_capacity(limit.clamp(1, 64)),
            limit: limit.max(1),
            timeout,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.q.len()
    }

    /// Appends `pkt`; a full buffer first gives up its head. Every packet removed is
    /// reported through `dropped`.
    pub(super) fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        dst: u32,
        mut dropped: impl FnMut(PacketId, DropReason),
    ) {
        self.purge(now, &mut dropped);
        let head = if self.q.len() >= self.limit {
            self.q.pop_front()
        } else {
            None
        };
        if let Some(head) = head {
            // aodv_rqueue.cc enque(): the head counts as timed out only if its deadline
            // is not in the future (purge has just removed those strictly past it).
            let why = if head.expires > now {
                DropReason::QueueFull
            } else {
                DropReason::QueueTimeout
            };
            dropped(head.pkt, why);
        }
        self.q.push_back(Held {
            pkt,
            dst,
            expires: now + self.timeout,
        });
    }

    /// Takes out the oldest packet for `dst`, after removing aged packets.
    pub(super) fn dequeue(
        &mut self,
        now: SimTime,
        dst: u32,
        mut dropped: impl FnMut(PacketId, DropReason),
    ) -> Option<PacketId> {
        self.purge(now, &mut dropped);
        let i = self.q.iter().position(|h| h.dst == dst)?;
        self.q.remove(i).map(|h| h.pkt)
    }

    /// Whether a packet for `dst` waits (aodv_rqueue.cc `find`: no ageing).
    pub(super) fn contains(&self, dst: u32) -> bool {
        self.q.iter().any(|h| h.dst == dst)
    }

    /// Drops every packet whose deadline has passed (strictly earlier than `now`).
    fn purge(&mut self, now: SimTime, dropped: &mut impl FnMut(PacketId, DropReason)) {
        if !self.q.iter().any(|h| h.expires < now) {
            return;
        }
        self.q.retain(|h| {
            if h.expires < now {
                dropped(h.pkt, DropReason::QueueTimeout);
                false
            } else {
                true
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(s)
    }

    #[test]
    fn full_buffer_drops_its_head_and_ageing_is_strict() {
        let mut q = RouteQueue::new(2, SimDuration::from_secs(30));
        let mut drops = Vec::new();
        q.enqueue(t(1.0), PacketId(1), 7, |p, r| drops.push((p, r)));
        q.enqueue(t(2.0), PacketId(2), 8, |p, r| drops.push((p, r)));
        // Third packet: the head (deadline 31 s, in the future) goes as "queue full".
        q.enqueue(t(3.0), PacketId(3), 7, |p, r| drops.push((p, r)));
        assert_eq!(drops, vec![(PacketId(1), DropReason::QueueFull)]);
        // At exactly 32 s packet 2's deadline (2 + 30) is not yet strictly past.
        assert_eq!(q.dequeue(t(32.0), 9, |p, r| drops.push((p, r))), None);
        assert_eq!(drops.len(), 1);
        assert!(q.contains(8));
        // Just after it, packet 2 ages out; packet 3 (deadline 33 s) stays.
        assert_eq!(
            q.dequeue(t(32.5), 7, |p, r| drops.push((p, r))),
            Some(PacketId(3))
        );
        assert_eq!(drops[1], (PacketId(2), DropReason::QueueTimeout));
        assert_eq!(q.len(), 0);
    }
}
