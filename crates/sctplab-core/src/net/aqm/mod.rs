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
//!
//! RED decides only at arrival and serves in arrival order, so it keeps no queue of its
//! own (`Aqm::Red`): its packets wait in the link's drop-tail FIFO and the link asks
//! `red::Red::decide` before queueing one (`world/aqm.rs`'s `enqueue_red`). The others
//! choose at dequeue time too (CoDel's head drops, FQ-CoDel's scheduler, PIE's
//! deadline) and are built with their own queues (`Aqm::Queue`, an `AqmQueue`), the
//! form the wireless interface queue runs. On a wired link direction CoDel and PIE,
//! which serve in arrival order too, keep their packets in the link's FIFO as RED does
//! (`link::LinkAqm`); FQ-CoDel keeps its `AqmQueue`.

pub mod codel;
pub mod fq_codel;
pub mod link;
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
    #[inline]
    pub fn push(&mut self, e: Entry) {
        self.bytes += u64::from(e.size);
        self.q.push_back(e);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let e = self.q.pop_front()?;
        self.bytes -= u64::from(e.size);
        Some(e)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// A link direction's discipline.
#[derive(Clone, Debug)]
pub enum Aqm {
    /// In front of the link's drop-tail FIFO, which holds its packets.
    Red(red::Red),
    /// With its own queue, which replaces the link's FIFO.
    Queue(AqmQueue),
}

impl Aqm {
    /// Removes any packet the discipline holds (RED's wait in the link's FIFO).
    pub fn pop_any(&mut self) -> Option<PacketId> {
        match self {
            Aqm::Red(_) => None,
            Aqm::Queue(q) => q.pop_any(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Discipline {
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
    #[inline]
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
            Discipline::Codel(c) => {
                if full_packets || full_bytes {
                    return Admit::Dropped(DropCause::Limit);
                }
                c.q.push(e);
                Admit::Queued
            }
            Discipline::Pie(p) => p.enqueue(now, e, full_packets || full_bytes),
            Discipline::FqCodel(f) => {
                f.enqueue(e, fq_codel::FlowKey::of(pkt));
                f.overflow(
                    u64::from(self.limit_packets).saturating_sub(u64::from(link.busy)),
                    self.limit_bytes,
                    &mut self.dropped,
                );
                if self.dropped.is_empty() {
                    return Admit::Queued;
                }
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

    /// A packet arriving at an idle interface whose discipline holds no packet: what
    /// `enqueue` followed at once by `dequeue` would do, without queueing the packet
    /// (about half the packets on a link at 60 % load take this path). `Queued`:
    /// transmit it now; with nothing waiting no discipline drops early or marks (CoDel
    /// needs a sojourn time above target, PIE's safeguard keeps a queue under two
    /// packets), so only the hard limits refuse a packet here.
    #[inline]
    pub fn pass_idle(&mut self, now: SimTime, pkt: &Packet) -> Admit {
        debug_assert!(self.is_empty());
        let now = now.as_nanos();
        let size = pkt.size;
        // `enqueue`'s hard limits with nothing waiting and nothing on the wire.
        let full_bytes = self.limit_bytes.is_some_and(|l| u64::from(size) >= l);
        let full = self.limit_packets == 0 || full_bytes;
        match &mut self.disc {
            Discipline::Codel(c) => {
                if full {
                    return Admit::Dropped(DropCause::Limit);
                }
                c.state.pass_idle();
                Admit::Queued
            }
            Discipline::Pie(p) => p.pass_idle(now, full),
            Discipline::FqCodel(f) => f.pass_idle(size, fq_codel::FlowKey::of(pkt), full),
        }
    }

    /// The next packet to transmit at `now` (its entry: id, size, when it was queued)
    /// and whether it is to be marked CE; packets dropped on the way are left in
    /// `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<(Entry, bool)> {
        let now = now.as_nanos();
        match &mut self.disc {
            Discipline::Codel(c) => c.dequeue(now, &mut self.dropped),
            Discipline::Pie(p) => Some((p.dequeue(now)?, false)),
            Discipline::FqCodel(f) => f.dequeue(now, &mut self.dropped),
        }
    }

    /// Removes any waiting packet, without the discipline's rules (a link going down).
    pub fn pop_any(&mut self) -> Option<PacketId> {
        let e = match &mut self.disc {
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
            Discipline::Codel(c) => c.q.len(),
            Discipline::Pie(p) => p.q.len(),
            Discipline::FqCodel(f) => f.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match &self.disc {
            Discipline::Codel(c) => c.q.bytes,
            Discipline::Pie(p) => p.q.bytes,
            Discipline::FqCodel(f) => f.bytes(),
        }
    }
}

/// Uniform draws for the disciplines that need them (RED, PIE), one stream per link
/// direction so that an AQM never shifts another component's draws.
pub type AqmRng = RngStream;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    /// Every discipline, with limits small enough to refuse packets now and then.
    fn disciplines() -> Vec<AqmQueue> {
        let rng = || AqmRng::new(7, "aqm-test");
        let codel = codel::CodelParams {
            target_ns: 1_000_000,
            interval_ns: 5_000_000,
            mtu: 100,
            ecn: true,
        };
        let fq = fq_codel::FqCodelParams {
            flows: 4,
            quantum: 300,
            codel,
        };
        let pie = pie::PieParams {
            target_ns: 1_000_000,
            t_update_ns: 2_000_000,
            max_burst_ns: 4_000_000,
            mean_pktsize: 100,
            ecn: true,
            ..pie::PieParams::default()
        };
        vec![
            AqmQueue::new(Discipline::Codel(codel::Codel::new(codel)), 6, Some(5000)),
            AqmQueue::new(
                Discipline::FqCodel(fq_codel::FqCodel::new(fq, 99)),
                6,
                Some(5000),
            ),
            AqmQueue::new(Discipline::Pie(pie::Pie::new(pie, rng())), 6, Some(5000)),
        ]
    }

    /// `pass_idle` leaves a discipline exactly as `enqueue` followed at once by `dequeue`
    /// does (the path it replaces), whatever backlog, dropping state, lingering flow
    /// lists or pending PIE updates earlier bursts left behind.
    #[test]
    fn pass_idle_is_enqueue_then_dequeue() {
        for start in disciplines() {
            let (mut general, mut fast) = (start.clone(), start);
            let mut pkt = Packet::default();
            let mut now = SimTime::ZERO;
            let mut idle_since = 0;
            for step in 0u32..400 {
                pkt.ip.src = [10, 0, 0, (step % 5) as u8];
                pkt.ip.ecn = if step % 3 == 0 { NOT_ECT } else { ECT0 };
                pkt.size = 60 + (step * 37) % 1400;
                let id = PacketId(step);
                // Every seventh step a burst of 1..6 packets on a busy link, sent at
                // 1 ms per packet afterwards; otherwise one packet finding it idle.
                if step % 7 == 0 {
                    for q in [&mut general, &mut fast] {
                        for k in 0..=(step / 7) % 6 {
                            let link = LinkState {
                                busy: true,
                                idle_since_ns: idle_since,
                            };
                            q.enqueue(now, PacketId(1000 + k), &pkt, link);
                        }
                    }
                    let t0 = now;
                    for q in [&mut general, &mut fast] {
                        now = t0;
                        while !q.is_empty() {
                            now += SimDuration::from_millis(1);
                            q.dequeue(now);
                        }
                        q.dropped.clear();
                    }
                    idle_since = now.as_nanos();
                }
                now += SimDuration::from_micros(300 + u64::from(step % 11) * 700);
                let link = LinkState {
                    busy: false,
                    idle_since_ns: idle_since,
                };
                let a = general.enqueue(now, id, &pkt, link);
                let sent = if matches!(a, Admit::Dropped(_)) {
                    None
                } else {
                    general.dequeue(now)
                };
                let b = fast.pass_idle(now, &pkt);
                assert_eq!(a, b, "step {step}: {fast:?}");
                if let Some((e, mark)) = sent {
                    assert_eq!((e.id, mark), (id, a == Admit::Marked), "step {step}");
                }
                assert!(general.dropped.is_empty() && general.is_empty());
                assert_eq!(format!("{general:?}"), format!("{fast:?}"), "step {step}");
            }
        }
    }
}
