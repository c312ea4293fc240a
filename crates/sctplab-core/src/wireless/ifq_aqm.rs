//! The interface queue under a queue discipline (`[wireless] aqm`, beyond the contract;
//! docs/models/aqm.md "The wireless interface queue"): ns-2.35's `PriQueue` with RED,
//! CoDel or PIE (`net/aqm`) deciding for the data packets.
//!
//! - **Routing packets bypass the discipline.** `PriQueue::recvHighPriority` puts them at
//!   the head, ahead of every data packet; they wait here in a queue of their own that
//!   the MAC empties first (the later one first, as at the PriQueue's head), and no
//!   discipline sees, drops, marks or delays them: an early drop of a route request or
//!   a DSDV update would be taken as a broken route, not as congestion, and none of
//!   them is ECN-capable.
//! - **The hard limit** is the PriQueue's (`queue`, ns-2's `ifqLen`), over both queues
//!   and with ns-2's counting: a data packet arriving while `limit - 1` packets wait is
//!   refused before the discipline sees it; a routing packet that fills the queue to
//!   `limit` pushes out the data packet that arrived last (the PriQueue's tail), or the
//!   last routing packet if no data waits. Both are tail drops (`ifq_drops`).
//! - **Data packets** go through the discipline as on a wired link direction: RED
//!   decides at arrival (its FIFO is this queue's data queue), CoDel and PIE keep theirs
//!   and decide at arrival and when the MAC pulls (CoDel's head drops); with `ecn` an
//!   ECN-capable packet is marked CE instead of dropped. The transmitter is the MAC: it
//!   is busy while it holds a packet, and idle from the pull that found nothing (RED's
//!   idle time, as ns-2's `REDQueue::deque` sets `idletime_`).
//!
//! What the discipline dropped or marked goes out through `take_out` for the MAC to
//! report (the world sets CE on the packet, drops it, traces it).

use super::ifq::IfqEntry;
use crate::net::PacketId;
use crate::net::aqm::{Admit, Aqm, Discipline, DropCause, Entry, Fifo, LinkState};
use crate::sim::SimTime;
use std::collections::VecDeque;

/// What the queue did to a packet other than handing it to the MAC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IfqOut {
    /// Dropped: by the hard limit (`DropCause::Limit`) or by the discipline.
    Dropped(PacketId, DropCause),
    /// Marked CE (RFC 3168 sec. 5); it stays queued or goes to the MAC.
    Marked(PacketId),
}

/// Counters of one interface queue under a discipline, over the whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IfqAqmCounters {
    /// Packets the discipline chose to drop (RED's early drops, CoDel's head drops,
    /// PIE's random drops).
    pub aqm_drops: u64,
    /// Packets the hard limit refused or pushed out.
    pub limit_drops: u64,
    pub ecn_marks: u64,
    /// Packets the MAC took from the queue, and the time they waited in it (ns).
    pub taken: u64,
    pub waited_ns: u64,
}

#[derive(Clone, Debug)]
pub struct IfqAqm {
    disc: Box<Aqm>,
    /// Routing packets, head first, with their arrival times (ns).
    routing: VecDeque<(IfqEntry, u64)>,
    /// The data packets the discipline holds, in arrival order, with their arrival
    /// times (ns): RED's FIFO, and for CoDel and PIE the entries their FIFOs name.
    data: VecDeque<(IfqEntry, u64)>,
    data_bytes: u64,
    limit: usize,
    /// The MAC's last pull found nothing at this time (ns), or it never pulled.
    idle_since_ns: u64,
    out: Vec<IfqOut>,
    pub counters: IfqAqmCounters,
}

impl IfqAqm {
    /// A queue of at most `limit` packets (the one the MAC holds not counted, as the
    /// PriQueue) run by `disc` (`world/aqm.rs`'s `build`; not FQ-CoDel).
    pub fn new(limit: u32, disc: Box<Aqm>) -> Self {
        debug_assert!(!matches!(
            &*disc,
            Aqm::Queue(q) if matches!(q.disc, Discipline::FqCodel(_))
        ));
        IfqAqm {
            disc,
            routing: VecDeque::new(),
            data: VecDeque::new(),
            data_bytes: 0,
            limit: limit as usize,
            idle_since_ns: 0,
            out: Vec::new(),
            counters: IfqAqmCounters::default(),
        }
    }

    /// A packet arrives (`routing`: a routing-protocol packet; `ect`: ECN-capable;
    /// `busy`: the MAC holds a packet).
    pub fn enqueue(&mut self, now: SimTime, e: IfqEntry, routing: bool, ect: bool, busy: bool) {
        let now_ns = now.as_nanos();
        if routing {
            self.routing.push_front((e, now_ns));
            if self.len() >= self.limit {
                let victim = match self.data.back() {
                    Some(&(d, _)) => self.remove_data(d.packet),
                    None => self.routing.pop_back().map(|(r, _)| r),
                };
                if let Some(v) = victim {
                    self.drop_packet(v.packet, DropCause::Limit);
                }
            }
            return;
        }
        if self.len() + 1 >= self.limit {
            self.drop_packet(e.packet, DropCause::Limit);
            return;
        }
        let entry = Entry {
            id: e.packet,
            size: e.ip_bytes,
            enq_ns: now_ns,
            ect,
        };
        let admit = match &mut *self.disc {
            Aqm::Red(red) => {
                let link = LinkState {
                    busy,
                    idle_since_ns: self.idle_since_ns,
                };
                red.decide(
                    now_ns,
                    e.ip_bytes,
                    ect,
                    link,
                    self.data.len(),
                    self.data_bytes,
                )
            }
            Aqm::Queue(q) => match &mut q.disc {
                // The hard limit is checked above, over both queues.
                Discipline::Codel(c) => {
                    c.q.push(entry);
                    Admit::Queued
                }
                Discipline::Pie(p) => p.enqueue(now_ns, entry, false),
                Discipline::FqCodel(_) => Admit::Dropped(DropCause::Limit),
            },
        };
        match admit {
            Admit::Dropped(cause) => self.drop_packet(e.packet, cause),
            Admit::Marked => {
                self.mark(e.packet);
                self.push_data(e, now_ns);
            }
            Admit::Queued => self.push_data(e, now_ns),
        }
    }

    /// The MAC pulls the next packet at `now`: a routing packet first, else the
    /// discipline's choice (which may drop packets at the head on the way, or mark it).
    pub fn pop(&mut self, now: SimTime) -> Option<IfqEntry> {
        let now_ns = now.as_nanos();
        let got = if let Some(r) = self.routing.pop_front() {
            Some(r)
        } else {
            self.pop_data(now)
        };
        let Some((e, at)) = got else {
            self.idle_since_ns = now_ns;
            return None;
        };
        self.counters.taken += 1;
        self.counters.waited_ns += now_ns.saturating_sub(at);
        Some(e)
    }

    fn pop_data(&mut self, now: SimTime) -> Option<(IfqEntry, u64)> {
        let q = match &mut *self.disc {
            Aqm::Red(_) => {
                let d = self.data.pop_front()?;
                self.data_bytes -= u64::from(d.0.ip_bytes);
                return Some(d);
            }
            Aqm::Queue(q) => q,
        };
        let next = q.dequeue(now);
        let mut dropped = std::mem::take(&mut q.dropped);
        for (id, cause) in dropped.drain(..) {
            self.take_data(id);
            self.drop_packet(id, cause);
        }
        if let Aqm::Queue(q) = &mut *self.disc {
            // The emptied list back, to keep its allocation.
            q.dropped = dropped;
        }
        let (entry, mark) = next?;
        let d = self.take_data(entry.id)?;
        if mark {
            self.mark(entry.id);
        }
        Some(d)
    }

    /// Removes and returns the first waiting packet for which `pred` is true, in the
    /// order the MAC would take them (routing packets first).
    pub fn take_first<F: FnMut(&IfqEntry) -> bool>(&mut self, mut pred: F) -> Option<IfqEntry> {
        if let Some(i) = self.routing.iter().position(|(e, _)| pred(e)) {
            return self.routing.remove(i).map(|(e, _)| e);
        }
        let id = self.data.iter().find(|(e, _)| pred(e))?.0.packet;
        self.remove_data(id)
    }

    /// Removes every waiting packet for which `pred` is true, appending them to `out` in
    /// queue order (routing packets first).
    pub fn remove_where<F: FnMut(&IfqEntry) -> bool>(
        &mut self,
        mut pred: F,
        out: &mut Vec<IfqEntry>,
    ) {
        let mut i = 0;
        while i < self.routing.len() {
            if pred(&self.routing[i].0) {
                out.extend(self.routing.remove(i).map(|(e, _)| e));
            } else {
                i += 1;
            }
        }
        let ids: Vec<PacketId> = self
            .data
            .iter()
            .filter(|(e, _)| pred(e))
            .map(|(e, _)| e.packet)
            .collect();
        for id in ids {
            out.extend(self.remove_data(id));
        }
    }

    /// Packets waiting (not the one the MAC holds).
    pub fn len(&self) -> usize {
        self.routing.len() + self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waiting packets, routing packets first, then data in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &IfqEntry> {
        self.routing.iter().chain(self.data.iter()).map(|(e, _)| e)
    }

    /// The drops and marks since the last call, oldest first.
    pub fn take_out(&mut self) -> std::vec::Drain<'_, IfqOut> {
        self.out.drain(..)
    }

    fn push_data(&mut self, e: IfqEntry, now_ns: u64) {
        self.data_bytes += u64::from(e.ip_bytes);
        self.data.push_back((e, now_ns));
    }

    /// Takes packet `id` out of the data queue (the discipline already let it go).
    fn take_data(&mut self, id: PacketId) -> Option<(IfqEntry, u64)> {
        // CoDel and PIE serve in arrival order: the packet is at the front.
        let i = self.data.iter().position(|(e, _)| e.packet == id)?;
        let d = self.data.remove(i)?;
        self.data_bytes -= u64::from(d.0.ip_bytes);
        Some(d)
    }

    /// Takes data packet `id` out of the discipline's queue and the data queue,
    /// outside the discipline's rules (a purge, the hard limit's push-out).
    fn remove_data(&mut self, id: PacketId) -> Option<IfqEntry> {
        if let Aqm::Queue(q) = &mut *self.disc {
            match &mut q.disc {
                Discipline::Codel(c) => fifo_remove(&mut c.q, id),
                Discipline::Pie(p) => fifo_remove(&mut p.q, id),
                Discipline::FqCodel(_) => {}
            }
        }
        self.take_data(id).map(|(e, _)| e)
    }

    fn drop_packet(&mut self, id: PacketId, cause: DropCause) {
        match cause {
            DropCause::Limit => self.counters.limit_drops += 1,
            DropCause::Aqm => self.counters.aqm_drops += 1,
        }
        self.out.push(IfqOut::Dropped(id, cause));
    }

    fn mark(&mut self, id: PacketId) {
        self.counters.ecn_marks += 1;
        self.out.push(IfqOut::Marked(id));
    }
}

/// Removes packet `id` from a discipline's FIFO, keeping its byte count.
fn fifo_remove(f: &mut Fifo, id: PacketId) {
    if let Some(i) = f.q.iter().position(|e| e.id == id) {
        if let Some(e) = f.q.remove(i) {
            f.bytes -= u64::from(e.size);
        }
    }
}
