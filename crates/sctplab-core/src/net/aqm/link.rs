//! The forms a wired link direction runs its discipline in (`LinkDir::aqm`).
//!
//! RED, CoDel and PIE serve in arrival order, so their packets wait in the link's own
//! drop-tail FIFO (`net/queue.rs`), each with its arrival time in the packet
//! (`Packet::queued_at`, which drop-tail sets too): the link keeps one queue and one
//! count of its packets and bytes, and the discipline only decides. RED decides at
//! arrival (`Red::decide`); PIE at arrival (`Pie::admit`) and keeps its latency at
//! departure (`Pie::departed`); CoDel passes every arrival the hard limits accept and
//! decides at the head (`codel::dequeue` over `Waiting`). FQ-CoDel serves its flow
//! queues in its own order and keeps them (`AqmQueue`).
//!
//! `Aqm` (what `world/aqm.rs`'s `build` makes, and what the wireless interface queue
//! runs) turns into this form with `LinkAqm::from_aqm`; the decisions are the same
//! functions on the same state in the same order, so the results are identical.

use super::codel::{CodelParams, CodelState, HeadQueue};
use super::pie::Pie;
use super::red::Red;
use super::{Aqm, AqmQueue, Discipline, DropCause, Entry, NOT_ECT};
use crate::net::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::net::queue::DropTail;

/// A link direction's discipline.
#[derive(Clone, Debug)]
pub enum LinkAqm {
    /// In front of the link's FIFO.
    Red(Red),
    /// At the head of the link's FIFO.
    Codel(LinkCodel),
    /// In front of the link's FIFO, with its latency taken at the head.
    Pie(Pie),
    /// With its own queues, which replace the link's FIFO (FQ-CoDel).
    Queue(AqmQueue),
}

/// CoDel's state and parameters for the link's FIFO.
#[derive(Clone, Debug)]
pub struct LinkCodel {
    pub state: CodelState,
    pub params: CodelParams,
    /// The head drops of the last dequeue; the world drains it.
    pub dropped: Vec<(PacketId, DropCause)>,
}

impl LinkAqm {
    /// The link form of a discipline built for a link direction. PIE's own FIFO is
    /// left empty (the link's holds its packets).
    pub fn from_aqm(aqm: Aqm) -> LinkAqm {
        let q = match aqm {
            Aqm::Red(r) => return LinkAqm::Red(r),
            Aqm::Queue(q) => q,
        };
        match q.disc {
            Discipline::Codel(c) => LinkAqm::Codel(LinkCodel {
                state: c.state,
                params: c.params,
                dropped: Vec::new(),
            }),
            Discipline::Pie(p) => LinkAqm::Pie(p),
            Discipline::FqCodel(_) => LinkAqm::Queue(q),
        }
    }

    /// Removes any packet the discipline holds itself (FQ-CoDel's; the others' wait in
    /// the link's FIFO).
    pub fn pop_any(&mut self) -> Option<PacketId> {
        match self {
            LinkAqm::Queue(q) => q.pop_any(),
            _ => None,
        }
    }
}

/// The link's FIFO as CoDel's queue: each packet's entry from the pool (its size, its
/// arrival time, whether it is ECN-capable; none of them changes while it waits).
pub struct Waiting<'a> {
    pub fifo: &'a mut DropTail,
    pub pool: &'a PacketPool,
}

impl HeadQueue for Waiting<'_> {
    #[inline(always)]
    fn pop_head(&mut self) -> Option<Entry> {
        let id = self.fifo.pop()?;
        let p = self.pool.get(id);
        Some(Entry {
            id,
            size: p.size,
            enq_ns: p.queued_at.as_nanos(),
            ect: p.ip.ecn != NOT_ECT,
        })
    }

    #[inline(always)]
    fn waiting_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}
