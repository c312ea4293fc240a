//! ns-2.35's `CMUPriQueue` (queue/dsr-priqueue.cc), the interface queue ns-2 scripts
//! give DSR (`-ifqType CMUPriQueue`): four FIFO bands served in strict priority, each
//! holding at most 50 waiting packets (`IFQ_MAXLEN`; ns-2 ignores the script's
//! `ifqLen` here), a packet arriving at a full band dropped. Routing packets take the
//! first band (`IFQ_RTPROTO`), audio and video the second, TCP's pure
//! acknowledgements (`PT_ACK`) the third, everything else the last.
//!
//! The same operations as [`super::ifq::Ifq`] (the MAC pulls from it when ready, as
//! ns-2's `prq_resume` does): `take_next_hop` is `prq_get_nexthop`, the first packet
//! for a neighbour scanning the bands in priority order, which DSR calls in a loop on
//! a link failure to salvage them.

use super::ifq::IfqEntry;
use std::collections::VecDeque;

/// The waiting packets a band holds at most (`IFQ_MAXLEN`).
pub const CMU_BAND_LIMIT: usize = 50;

/// Which band a packet goes to (`prq_assign_queue`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Band {
    /// `PT_AODV`, `PT_DSR`, `PT_MESSAGE` (DSDV), `PT_TORA`, `PT_IMEP`.
    Routing = 0,
    /// `PT_AUDIO`, `PT_VIDEO`.
    Realtime = 1,
    /// `PT_ACK`: TCP segments without data.
    LowDelay = 2,
    Normal = 3,
}

/// The band of `p` (`prq_assign_queue`): routing packets; TCP segments without data
/// (ns-2's `PT_ACK`); the rest (no audio or video here).
#[inline]
pub fn ifq_band(p: &crate::net::Packet, routing: bool) -> Band {
    if routing {
        Band::Routing
    } else if p.kind == crate::net::PacketKind::Ack
        && matches!(p.transport, crate::net::wire::TransportRepr::Tcp(_))
    {
        Band::LowDelay
    } else {
        Band::Normal
    }
}

#[derive(Clone, Debug)]
pub struct CmuPriQueue {
    bands: [VecDeque<IfqEntry>; 4],
    limit: usize,
    drops: u64,
}

impl Default for CmuPriQueue {
    fn default() -> Self {
        CmuPriQueue::new(CMU_BAND_LIMIT)
    }
}

impl CmuPriQueue {
    /// Bands of at most `limit` waiting packets each (ns-2: [`CMU_BAND_LIMIT`]).
    pub fn new(limit: usize) -> Self {
        CmuPriQueue {
            bands: Default::default(),
            limit,
            drops: 0,
        }
    }

    /// A packet arrives (`prq_enqueue`): returned if its band is full (dropped).
    pub fn enqueue(&mut self, e: IfqEntry, band: Band) -> Option<IfqEntry> {
        let q = &mut self.bands[band as usize];
        if q.len() >= self.limit {
            self.drops += 1;
            return Some(e);
        }
        q.push_back(e);
        None
    }

    /// The next packet for the MAC: the head of the first non-empty band
    /// (`prq_dequeue`).
    pub fn pop(&mut self) -> Option<IfqEntry> {
        self.bands.iter_mut().find_map(VecDeque::pop_front)
    }

    /// Removes and returns the first waiting packet for `next_hop`, bands in priority
    /// order (`prq_get_nexthop`).
    pub fn take_next_hop(&mut self, next_hop: super::frame::MacAddr) -> Option<IfqEntry> {
        self.bands.iter_mut().find_map(|q| {
            let i = q.iter().position(|e| e.next_hop == next_hop)?;
            q.remove(i)
        })
    }

    /// Removes every waiting packet for which `pred` is true, bands in priority order,
    /// appending them to `out` (the order of `take_next_hop` called in a loop).
    pub fn remove_where<F: FnMut(&IfqEntry) -> bool>(
        &mut self,
        mut pred: F,
        out: &mut Vec<IfqEntry>,
    ) {
        for q in &mut self.bands {
            let mut i = 0;
            while i < q.len() {
                if pred(&q[i]) {
                    out.extend(q.remove(i));
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Packets waiting in all bands (`prq_length`).
    pub fn len(&self) -> usize {
        self.bands.iter().map(VecDeque::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.bands.iter().all(VecDeque::is_empty)
    }

    /// Waiting packets in the order the MAC would take them.
    pub fn iter(&self) -> impl Iterator<Item = &IfqEntry> {
        self.bands.iter().flatten()
    }

    /// Packets dropped at a full band since it was built.
    pub fn drops(&self) -> u64 {
        self.drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketId;
    use crate::wireless::frame::MacAddr;

    fn e(i: u32, hop: u32) -> IfqEntry {
        IfqEntry {
            packet: PacketId(i),
            ip_bytes: 100,
            next_hop: MacAddr(hop),
        }
    }

    #[test]
    fn bands_are_served_in_priority_order_fifo_within() {
        let mut q = CmuPriQueue::default();
        q.enqueue(e(0, 1), Band::Normal);
        q.enqueue(e(1, 1), Band::LowDelay);
        q.enqueue(e(2, 1), Band::Routing);
        q.enqueue(e(3, 1), Band::Normal);
        q.enqueue(e(4, 1), Band::Routing);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|x| x.packet.0).collect();
        // Routing first in arrival order (unlike PriQueue, which puts each at the head),
        // then the TCP ack, then data.
        assert_eq!(order, vec![2, 4, 1, 0, 3]);
    }

    #[test]
    fn a_full_band_drops_the_arrival_and_leaves_the_others() {
        // IF_QFULL: ifq_len >= ifq_maxlen (50): 50 wait, the 51st is dropped.
        let mut q = CmuPriQueue::default();
        for i in 0..50 {
            assert_eq!(q.enqueue(e(i, 1), Band::Normal), None);
        }
        assert_eq!(q.enqueue(e(50, 1), Band::Normal), Some(e(50, 1)));
        assert_eq!(q.enqueue(e(51, 1), Band::Routing), None);
        assert_eq!((q.len(), q.drops()), (51, 1));
        assert_eq!(q.pop(), Some(e(51, 1)));
    }

    #[test]
    fn next_hop_filter_scans_bands_in_priority_order() {
        let mut q = CmuPriQueue::default();
        q.enqueue(e(0, 7), Band::Normal);
        q.enqueue(e(1, 8), Band::Routing);
        q.enqueue(e(2, 7), Band::Routing);
        q.enqueue(e(3, 7), Band::LowDelay);
        // DSR's loop: while ((p = ifq->prq_get_nexthop(to))) ...
        let mut taken = Vec::new();
        while let Some(x) = q.take_next_hop(MacAddr(7)) {
            taken.push(x.packet.0);
        }
        assert_eq!(taken, vec![2, 3, 0]);
        assert_eq!(q.iter().map(|x| x.packet.0).collect::<Vec<_>>(), vec![1]);
    }
}
