//! Active queue management: the queue disciplines a wired link direction may run instead
//! of drop-tail (docs/models/aqm.md gives every rule's source and every difference).
//!
//! A discipline is a machine on the link direction's queue (shared/DESIGN.md): `enqueue`
//! may drop or ECN-mark the arriving packet, `dequeue` may drop packets at the head (CoDel)
//! or mark the one it returns, and a discipline with periodic work (PIE's probability
//! update every `t_update`) keeps its own deadline, which it catches up with at its next
//! enqueue or dequeue: between those calls the queue does not change, so an update run
//! late sees exactly the state it would have seen on time.
//!
//! The link's `queue` (packets, the one in transmission included) and `queue_bytes`
//! (waiting bytes) stay the hard limits under every discipline; a packet refused by them
//! is a tail drop (`queue_drops`), a packet the discipline chose is an AQM drop
//! (`aqm_drops`). RED reads `queue` as ns-2.35's `Queue/RED` reads `limit_` (in bytes
//! with `queue_in_bytes`), see `red.rs`.

pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;

use super::ids::PacketId;
use super::packet::Packet;
use crate::sim::{RngStream, SimTime};
use std::collections::VecDeque;

/// IPv4 ECN codepoints (RFC 3168 sec. 5).
pub const NOT_ECT: u8 = 0b00;
pub const ECT1: u8 = 0b01;
pub const ECT0: u8 = 0b10;
pub const CE: u8 = 0b11;

/// A packet waiting in a discipline's queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: PacketId,
    pub size: u32,
    /// When it entered the queue, in ns (CoDel's sojourn time, PIE's latency).
    pub enq_ns: u64,
    /// ECN-capable transport (ECT(0), ECT(1) or already CE): may be marked.
    pub ect: bool,
}

/// Why a discipline dropped a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The hard limits (`queue`, `queue_bytes`; RED's `limit_`): `queue_drops`.
    Limit,
    /// The discipline's own decision: `aqm_drops`.
    Aqm,
}

/// What became of an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admit {
    Queued,
    /// Queued with its ECN field set to CE.
    Marked,
    Dropped(DropCause),
}

/// What the world tells a discipline about the link when a packet arrives.
#[derive(Copy, Clone, Debug)]
pub struct LinkState {
    /// A packet is being transmitted.
    pub busy: bool,
    /// When the transmitter last fell idle (the end of its last transmission, or 0): for
    /// RED's idle-time correction of the average.
    pub idle_since_ns: u64,
}

/// A discipline's FIFO with its byte count.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    pub q: VecDeque<Entry>,
    pub bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, e: Entry) {
        self.bytes += u64::from(e.size);
        self.q.push_back(e);
    }

    pub fn pop(&mut self) -> Option<Entry> {
        let e = self.q.pop_front()?;
        self.bytes -= u64::from(e.size);
        Some(e)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[derive(Clone, Debug)]
pub enum Discipline {
    Red(red::Red),
    Codel(codel::Codel),
    FqCodel(fq_codel::FqCodel),
    Pie(pie::Pie),
}

/// A link direction's queue under an AQM discipline, with the hard limits.
#[derive(Clone, Debug)]
pub struct AqmQueue {
    pub disc: Discipline,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    /// Packets the last call dropped other than the arriving one (CoDel's head drops,
    /// FQ-CoDel's overflow drops from the fattest flow); the world drains it.
    pub dropped: Vec<(PacketId, DropCause)>,
}

impl AqmQueue {
    pub fn new(disc: Discipline, limit_packets: u32, limit_bytes: Option<u64>) -> Self {
        AqmQueue {
            disc,
            limit_packets,
            limit_bytes,
            dropped: Vec::new(),
        }
    }

    /// Offers an arriving packet (`pkt`, pool slot `id`) to the discipline at `now`.
    pub fn enqueue(&mut self, now: SimTime, id: PacketId, pkt: &Packet, link: LinkState) -> Admit {
        let e = Entry {
            id,
            size: pkt.size,
            enq_ns: now.as_nanos(),
            ect: pkt.ip.ecn != NOT_ECT,
        };
        let now = now.as_nanos();
        // The drop-tail rule of `net/queue.rs` on the whole discipline's queue.
        let in_iface = self.len() as u64 + u64::from(link.busy);
        let full_packets = in_iface >= u64::from(self.limit_packets);
        let full_bytes = self
            .limit_bytes
            .is_some_and(|l| self.bytes() + u64::from(e.size) >= l);
        match &mut self.disc {
            Discipline::Red(r) => r.enqueue(now, e, link, self.limit_packets, full_bytes),
            Discipline::Codel(c) => {
                if full_packets || full_bytes {
                    return Admit::Dropped(DropCause::Limit);
                }
                c.q.push(e);
                Admit::Queued
            }
            Discipline::Pie(p) => p.enqueue(now, e, full_packets || full_bytes),
            Discipline::FqCodel(f) => {
                f.enqueue(e, fq_codel::flow_hash(pkt));
                f.overflow(
                    u64::from(self.limit_packets).saturating_sub(u64::from(link.busy)),
                    self.limit_bytes,
                    &mut self.dropped,
                );
                match self.dropped.iter().position(|&(d, _)| d == id) {
                    Some(i) => {
                        self.dropped.swap_remove(i);
                        Admit::Dropped(DropCause::Limit)
                    }
                    None => Admit::Queued,
                }
            }
        }
    }

    /// The next packet to transmit at `now` (its entry: id, size, when it was queued)
    /// and whether it is to be marked CE; packets dropped on the way are left in
    /// `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<(Entry, bool)> {
        let now = now.as_nanos();
        match &mut self.disc {
            Discipline::Red(r) => Some((r.q.pop()?, false)),
            Discipline::Codel(c) => c.dequeue(now, &mut self.dropped),
            Discipline::Pie(p) => Some((p.dequeue(now)?, false)),
            Discipline::FqCodel(f) => f.dequeue(now, &mut self.dropped),
        }
    }

    /// Removes any waiting packet, without the discipline's rules (a link going down).
    pub fn pop_any(&mut self) -> Option<PacketId> {
        let e = match &mut self.disc {
            Discipline::Red(r) => r.q.pop(),
            Discipline::Codel(c) => c.q.pop(),
            Discipline::Pie(p) => p.q.pop(),
            Discipline::FqCodel(f) => f.pop_any(),
        };
        e.map(|e| e.id)
    }

    /// Whether a packet of `size` would be refused by the hard limits alone (what a snoop
    /// agent asks before caching).
    pub fn would_overflow(&self, size: u32, busy: bool) -> bool {
        let in_iface = self.len() as u64 + u64::from(busy);
        in_iface >= u64::from(self.limit_packets)
            || self
                .limit_bytes
                .is_some_and(|l| self.bytes() + u64::from(size) >= l)
    }

    /// Packets waiting (not counting the one in transmission).
    #[inline]
    pub fn len(&self) -> usize {
        match &self.disc {
            Discipline::Red(r) => r.q.len(),
            Discipline::Codel(c) => c.q.len(),
            Discipline::Pie(p) => p.q.len(),
            Discipline::FqCodel(f) => f.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match &self.disc {
            Discipline::Red(r) => r.q.bytes,
            Discipline::Codel(c) => c.q.bytes,
            Discipline::Pie(p) => p.q.bytes,
            Discipline::FqCodel(f) => f.bytes(),
        }
    }
}

/// Uniform draws for the disciplines that need them (RED, PIE), one stream per link
/// direction so that an AQM never shifts another component's draws.
pub type AqmRng = RngStream;
