//! The interface queue in front of an 802.11 NIC, as ns-2.35's `Queue/DropTail/PriQueue`
//! (queue/priqueue.cc, queue/drop-tail.cc) behaves with `Prefer_Routing_Protocols = 1`.
//!
//! - Drop-tail with ns-2's counting: `DropTail::enque` drops an arriving packet when
//!   `waiting + 1 >= limit`, where `waiting` counts only packets in the queue; the packet
//!   the MAC holds has left it. So `limit = 50` keeps at most 49 waiting, plus the one in
//!   the MAC.
//! - Routing packets (`PriQueue::recvHighPriority`) go to the head, ahead of everything,
//!   other routing packets included; if the queue then holds `limit` or more, the packet
//!   at the tail is dropped instead (possibly a data packet that was waiting).
//! - `take_next_hop` is `PriQueue::filter(nsaddr_t)`: the first packet (from the head)
//!   whose next hop is the given neighbour, which AODV calls in a loop on a link failure.
//!   `remove_where` is the predicate form, `PriQueue::filter(PacketFilter, data)`.
//!
//! The queue does not know whether the MAC is busy: the MAC (`Mac`) owns one and pulls
//! from it when it is ready, as ns-2's MAC callback (`Queue::resume`) does.
//!
//! Two other queues can stand behind the same interface: ns-2.35's `CMUPriQueue` (DSR's)
//! and, with `[wireless] aqm`, the PriQueue with a discipline for its data packets
//! (`ifq_aqm.rs`).

use crate::net::PacketId;
use crate::sim::SimTime;
use std::collections::VecDeque;

use super::cmu_priqueue::{Band, CmuPriQueue};
use super::frame::MacAddr;
use super::ifq_aqm::{IfqAqm, IfqAqmCounters, IfqOut};
use super::mac::{DropReason, MacCounters, MacEvent};
use crate::net::aqm::DropCause;

/// One packet waiting for the MAC: the world's packet, its size as ns-2 counts it at the
/// MAC's entry (IP header included), and the neighbour it is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IfqEntry {
    pub packet: PacketId,
    pub ip_bytes: u32,
    /// `MacAddr::BROADCAST` for a broadcast.
    pub next_hop: MacAddr,
}

#[derive(Clone, Debug)]
pub struct Ifq {
    q: VecDeque<IfqEntry>,
    limit: u32,
    prefer_routing: bool,
    drops: u64,
    /// Another queue instead (then `q` stays empty): one test on the PriQueue's path.
    other: Option<Box<Other>>,
}

#[derive(Clone, Debug)]
enum Other {
    /// ns-2's `CMUPriQueue` (`Ifq::cmu`, DSR's queue).
    Cmu(CmuPriQueue),
    /// The PriQueue with a discipline (`Ifq::with_aqm`).
    Aqm(IfqAqm),
}

impl Ifq {
    pub fn new(limit: u32, prefer_routing: bool) -> Self {
        Ifq {
            q: VecDeque::with_capacity(limit.clamp(1, 4096) as usize),
            limit,
            prefer_routing,
            drops: 0,
            other: None,
        }
    }

    /// ns-2.35's `CMUPriQueue` (`-ifqType CMUPriQueue`, which DSR scripts use): four
    /// bands of 50 packets (wireless/cmu_priqueue.rs).
    pub fn cmu() -> Self {
        Ifq {
            other: Some(Box::new(Other::Cmu(CmuPriQueue::default()))),
            ..Ifq::new(0, false)
        }
    }

    /// The PriQueue of `limit` packets (routing packets at the head) whose data packets
    /// `aqm` runs (wireless/ifq_aqm.rs).
    pub fn with_aqm(aqm: IfqAqm) -> Self {
        Ifq {
            other: Some(Box::new(Other::Aqm(aqm))),
            ..Ifq::new(0, true)
        }
    }

    /// Whether a discipline runs this queue: then packets arrive through `enqueue_aqm`
    /// and the drops and marks come out of `take_aqm_out`.
    #[inline]
    pub fn has_aqm(&self) -> bool {
        matches!(self.other.as_deref(), Some(Other::Aqm(_)))
    }

    /// The discipline's counters, if one runs this queue.
    pub fn aqm_counters(&self) -> Option<&IfqAqmCounters> {
        match self.other.as_deref() {
            Some(Other::Aqm(a)) => Some(&a.counters),
            _ => None,
        }
    }

    /// A packet arrives at a queue a discipline runs (`ect`: ECN-capable; `busy`: the
    /// MAC holds a packet); what it drops or marks waits in `take_aqm_out`.
    pub fn enqueue_aqm(&mut self, now: SimTime, e: IfqEntry, band: Band, ect: bool, busy: bool) {
        if let Some(Other::Aqm(a)) = self.other.as_deref_mut() {
            a.enqueue(now, e, band == Band::Routing, ect, busy);
        }
    }

    /// The discipline's drops and CE marks since the last call as the MAC's events,
    /// oldest first (the world drops the packets, and sets CE before the frame carrying
    /// the packet goes on the air: the MAC sends nothing in the call that took it from
    /// the queue). Tail drops count in `ifq_drops`, as the PriQueue's.
    pub fn report(&mut self, events: &mut VecDeque<MacEvent>, counters: &mut MacCounters) {
        let Some(Other::Aqm(a)) = self.other.as_deref_mut() else {
            return;
        };
        for o in a.take_out() {
            events.push_back(match o {
                IfqOut::Dropped(packet, cause) => {
                    let reason = match cause {
                        DropCause::Limit => {
                            counters.ifq_drops += 1;
                            DropReason::IfqFull
                        }
                        DropCause::Aqm => DropReason::Aqm,
                    };
                    MacEvent::Dropped { packet, reason }
                }
                IfqOut::Marked(packet) => MacEvent::Marked { packet },
            });
        }
    }

    /// A packet arrives in the band ns-2's `prq_assign_queue` gives it; a PriQueue only
    /// tells routing packets (`Band::Routing`) from the others. Not for a queue a
    /// discipline runs (`enqueue_aqm`).
    pub fn enqueue_in(&mut self, e: IfqEntry, band: Band) -> Option<IfqEntry> {
        match self.other.as_deref_mut() {
            Some(Other::Cmu(c)) => c.enqueue(e, band),
            Some(Other::Aqm(_)) => unreachable!("a queue with a discipline takes enqueue_aqm"),
            None => self.enqueue_pri(e, band == Band::Routing),
        }
    }

    /// A packet arrives (`PriQueue::recv`). `routing` marks routing-protocol packets
    /// (ns-2: `PT_AODV`, `PT_DSR`, ...). Returns the packet dropped by the queue, if any:
    /// the arriving one (drop-tail) or, for a routing packet, the one at the tail.
    pub fn enqueue(&mut self, e: IfqEntry, routing: bool) -> Option<IfqEntry> {
        let band = if routing { Band::Routing } else { Band::Normal };
        self.enqueue_in(e, band)
    }

    /// `enqueue` into the PriQueue.
    fn enqueue_pri(&mut self, e: IfqEntry, routing: bool) -> Option<IfqEntry> {
        let limit = self.limit as usize;
        if routing && self.prefer_routing {
            self.q.push_front(e);
            if self.q.len() >= limit {
                self.drops += 1;
                return self.q.pop_back();
            }
            None
        } else if self.q.len() + 1 >= limit {
            self.drops += 1;
            Some(e)
        } else {
            self.q.push_back(e);
            None
        }
    }

    /// The next packet for the MAC, which pulls at `now` (a discipline's clock); what
    /// a discipline dropped or marked on the way waits for `report`.
    #[inline]
    pub fn pop(&mut self, now: SimTime) -> Option<IfqEntry> {
        match self.other.as_deref_mut() {
            None => self.q.pop_front(),
            Some(Other::Cmu(c)) => c.pop(),
            Some(Other::Aqm(a)) => a.pop(now),
        }
    }

    /// `pop` and `report` in one, for the MAC: the PriQueue's path is `pop_front`
    /// behind one test, as before the disciplines (the accelerators' catch-up inlines
    /// it), the others' out of line.
    #[inline]
    pub fn pop_for_mac(
        &mut self,
        now: SimTime,
        events: &mut VecDeque<MacEvent>,
        counters: &mut MacCounters,
    ) -> Option<IfqEntry> {
        if self.other.is_some() {
            return self.pop_other(now, events, counters);
        }
        self.q.pop_front()
    }

    #[inline(never)]
    fn pop_other(
        &mut self,
        now: SimTime,
        events: &mut VecDeque<MacEvent>,
        counters: &mut MacCounters,
    ) -> Option<IfqEntry> {
        let e = self.pop(now);
        self.report(events, counters);
        e
    }

    /// Removes and returns the first waiting packet for `next_hop` (ns-2
    /// `PriQueue::filter(nsaddr_t)`; AODV calls it until it returns nothing).
    pub fn take_next_hop(&mut self, next_hop: MacAddr) -> Option<IfqEntry> {
        match self.other.as_deref_mut() {
            None => {}
            Some(Other::Cmu(c)) => return c.take_next_hop(next_hop),
            Some(Other::Aqm(a)) => return a.take_first(|e| e.next_hop == next_hop),
        }
        let i = self.q.iter().position(|e| e.next_hop == next_hop)?;
        self.q.remove(i)
    }

    /// Removes every waiting packet for which `pred` is true, keeping the order of the
    /// rest, and appends the removed ones to `out` in queue order.
    pub fn remove_where<F: FnMut(&IfqEntry) -> bool>(
        &mut self,
        mut pred: F,
        out: &mut Vec<IfqEntry>,
    ) {
        match self.other.as_deref_mut() {
            None => {}
            Some(Other::Cmu(c)) => return c.remove_where(pred, out),
            Some(Other::Aqm(a)) => return a.remove_where(pred, out),
        }
        let mut i = 0;
        while i < self.q.len() {
            if pred(&self.q[i]) {
                if let Some(e) = self.q.remove(i) {
                    out.push(e);
                }
            } else {
                i += 1;
            }
        }
    }

    /// Packets waiting (not counting the one the MAC holds).
    pub fn len(&self) -> usize {
        self.q.len()
            + match self.other.as_deref() {
                None => 0,
                Some(Other::Cmu(c)) => c.len(),
                Some(Other::Aqm(a)) => a.len(),
            }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> Box<dyn Iterator<Item = &IfqEntry> + '_> {
        match self.other.as_deref() {
            None => Box::new(self.q.iter()),
            Some(Other::Cmu(c)) => Box::new(c.iter()),
            Some(Other::Aqm(a)) => Box::new(a.iter()),
        }
    }

    /// Packets this queue dropped at its limit (overflow), since it was built.
    pub fn drops(&self) -> u64 {
        self.drops
            + match self.other.as_deref() {
                None => 0,
                Some(Other::Cmu(c)) => c.drops(),
                Some(Other::Aqm(a)) => a.counters.limit_drops,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: u32, hop: u32) -> IfqEntry {
        IfqEntry {
            packet: PacketId(i),
            ip_bytes: 100,
            next_hop: MacAddr(hop),
        }
    }

    #[test]
    fn drop_tail_keeps_limit_minus_one_waiting() {
        // ns-2 DropTail::enque with qlim 50: drop when length + 1 >= 50, i.e. when 49
        // are already waiting. Packets 0..48 enter (49 waiting); packet 49 is dropped.
        let mut q = Ifq::new(50, true);
        for i in 0..49 {
            assert_eq!(q.enqueue(e(i, 1), false), None, "packet {i}");
        }
        assert_eq!(q.len(), 49);
        assert_eq!(q.enqueue(e(49, 1), false), Some(e(49, 1)));
        assert_eq!(q.len(), 49);
        assert_eq!(q.drops(), 1);
        // FIFO order for ordinary packets.
        assert_eq!(q.pop(SimTime::ZERO), Some(e(0, 1)));
    }

    #[test]
    fn routing_packets_go_to_the_head_and_push_out_the_tail() {
        let mut q = Ifq::new(5, true);
        for i in 0..3 {
            assert_eq!(q.enqueue(e(i, 1), false), None);
        }
        // Two routing packets: each is put at the head (the later one first).
        assert_eq!(q.enqueue(e(10, 2), true), None);
        // 4 waiting now. recvHighPriority: enqueHead makes 5 >= qlim 5, so the tail
        // (data packet 2) is dropped.
        assert_eq!(q.enqueue(e(11, 2), true), Some(e(2, 1)));
        let order: Vec<u32> = q.iter().map(|x| x.packet.0).collect();
        assert_eq!(order, vec![11, 10, 0, 1]);
        // With Prefer_Routing_Protocols = 0 a routing packet is an ordinary one:
        // 4 waiting, 4 + 1 >= 5, dropped.
        let mut plain = Ifq::new(5, false);
        for i in 0..4 {
            assert_eq!(plain.enqueue(e(i, 1), false), None);
        }
        assert_eq!(plain.enqueue(e(9, 2), true), Some(e(9, 2)));
    }

    #[test]
    fn take_next_hop_removes_first_match_in_order() {
        let mut q = Ifq::new(50, true);
        for (i, hop) in [(0, 1), (1, 2), (2, 1), (3, 3), (4, 1)] {
            q.enqueue(e(i, hop), false);
        }
        // AODV's loop: while ((p = ifqueue->filter(nbr))) drop(p);
        let mut taken = Vec::new();
        while let Some(x) = q.take_next_hop(MacAddr(1)) {
            taken.push(x.packet.0);
        }
        assert_eq!(taken, vec![0, 2, 4]);
        let left: Vec<u32> = q.iter().map(|x| x.packet.0).collect();
        assert_eq!(left, vec![1, 3]);
        let mut out = Vec::new();
        q.remove_where(|x| x.next_hop == MacAddr(3), &mut out);
        assert_eq!(out, vec![e(3, 3)]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn a_cmu_queue_serves_bands_and_filters_in_band_order() {
        // DSR's queue behind the same interface: routing band first, then TCP acks,
        // then the rest; the PriQueue's routing flag maps to the routing band.
        let mut q = Ifq::cmu();
        q.enqueue_in(e(0, 1), Band::Normal);
        q.enqueue_in(e(1, 2), Band::LowDelay);
        q.enqueue(e(2, 1), true);
        q.enqueue_in(e(3, 1), Band::Normal);
        assert_eq!(q.len(), 4);
        let mut out = Vec::new();
        q.remove_where(|x| x.next_hop == MacAddr(1), &mut out);
        assert_eq!(
            out.iter().map(|x| x.packet.0).collect::<Vec<_>>(),
            vec![2, 0, 3]
        );
        assert_eq!(q.pop(SimTime::ZERO), Some(e(1, 2)));
        assert!(q.is_empty() && q.pop(SimTime::ZERO).is_none());
        // Fifty a band, whatever the PriQueue limit.
        for i in 0..51 {
            q.enqueue_in(e(i, 1), Band::Normal);
        }
        assert_eq!((q.len(), q.drops()), (50, 1));
    }
}
