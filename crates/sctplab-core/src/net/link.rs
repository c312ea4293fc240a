//! One direction of a full-duplex point-to-point link: transmitter, queue (drop-tail, or
//! an AQM discipline, `net/aqm`), serialisation at the link rate, propagation delay, and
//! an optional loss model.

use super::aqm::link::LinkAqm;
use super::ids::{IfaceId, LinkDirId, NodeId};
use super::loss::LossModel;
use super::queue::DropTail;
use crate::sim::{EventQueue, ReservedEvent, SimDuration, SimTime};

/// Counters of one link direction over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct LinkCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Transmitter busy time inside the window, in nanoseconds.
    pub busy_ns: u64,
    pub queue_drops: u64,
    pub loss_drops: u64,
    /// Packets lost because the link was down (`[[faults]]`).
    pub fault_drops: u64,
    /// Packets the AQM discipline dropped (tail drops stay in `queue_drops`).
    pub aqm_drops: u64,
    /// Packets the AQM discipline marked CE.
    pub ecn_marks: u64,
    /// Time waited in the queue by the packets whose transmission ended in the window,
    /// and how many they were (`queue_delay_mean_s`).
    pub queue_delay_ns: u64,
    pub queue_delay_packets: u64,
    /// The same since the last `--series` sample (`queue_delay`), whatever the window.
    pub sample_delay_ns: u64,
    pub sample_delay_packets: u64,
}

#[derive(Clone, Debug)]
pub struct LinkDir {
    /// `"<from>-><to>"`, the key used in summary.json.
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub from_iface: IfaceId,
    pub to_iface: IfaceId,
    /// What the far node did with the last packet that arrived here for a given address
    /// (`forward_memo`), so that the next one for it skips the route lookups.
    pub forward_memo: ForwardMemo,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub queue: DropTail,
    /// The AQM discipline, if the link has `aqm`: FQ-CoDel's queues replace `queue`;
    /// RED, CoDel and PIE decide on packets waiting in `queue` (`LinkAqm`).
    pub aqm: Option<Box<LinkAqm>>,
    pub loss: LossModel,
    /// The transmitter: when its last packet finishes serialising.
    pub tx: Transmitter,
    /// (size, serialisation time) of recent packet sizes (`tx_time_cached`).
    tx_cache: [(u32, SimDuration); TX_CACHE],
    pub counters: LinkCounters,
    /// False while a `[[faults]]` entry holds the link down.
    pub up: bool,
    /// When the link last went down: a packet that was on the wire then is lost.
    pub last_down: Option<SimTime>,
}

/// The forwarding decision of a link's far node for one destination address.
///
/// Wired routes, the owners of addresses and the link each interface sends on are fixed
/// once the world is built, so a node's decision for an address never changes: the
/// packets of a flow that arrive on a link all get the answer the first one got. Only
/// wired decisions are recorded (a wireless next hop comes from AODV, which changes);
/// faults do not change routes (a link that is down drops at `enqueue`, after this).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ForwardMemo {
    addr: [u8; 4],
    /// EMPTY, DELIVER, or the link direction to enqueue on.
    hop: u32,
}

/// A resolved forwarding decision.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hop {
    /// The node owns the address.
    Deliver,
    /// Send on this link direction.
    Out(LinkDirId),
}

impl ForwardMemo {
    const EMPTY: u32 = u32::MAX;
    const DELIVER: u32 = u32::MAX - 1;

    /// The decision recorded for `addr`, if it is the address recorded.
    #[inline]
    pub fn get(&self, addr: [u8; 4]) -> Option<Hop> {
        if self.addr != addr {
            return None;
        }
        match self.hop {
            Self::EMPTY => None,
            Self::DELIVER => Some(Hop::Deliver),
            d => Some(Hop::Out(LinkDirId(d))),
        }
    }

    pub fn set(&mut self, addr: [u8; 4], hop: Hop) {
        self.addr = addr;
        self.hop = match hop {
            Hop::Deliver => Self::DELIVER,
            Hop::Out(d) => {
                debug_assert!(
                    d.0 < Self::DELIVER,
                    "link direction ids stay below the tags"
                );
                d.0
            }
        };
    }
}

impl Default for ForwardMemo {
    fn default() -> Self {
        ForwardMemo {
            addr: [0; 4],
            hop: Self::EMPTY,
        }
    }
}

/// A FIFO transmitter without an event of its own.
///
/// A packet's departure time is known when it starts serialising, so the end of its
/// transmission (ns-2's `Queue::resume` after `LinkDelay`'s transmission time) is a
/// lazy event (`sim::lazy`) with the key (time, sequence number) that its event would
/// have had, the sequence number reserved from the event queue when the transmission
/// starts, exactly where the event used to be scheduled (`ReservedEvent::arm`). The
/// transmitter is busy for an event being handled while that key is still ahead of the
/// event's own key (`ReservedEvent::pending`): the same answer, ties included, as when
/// a `TxDone` event was popped for every packet. Only when a packet has to wait behind
/// it does the `TxDone` enter the queue, with that key, to start the next transmission
/// (`ReservedEvent::enter_queue`); a packet that finds the interface empty costs one
/// event per hop (its arrival at the far end).
#[derive(Clone, Debug, Default)]
pub struct Transmitter {
    /// The end of the last transmission started, if any; in the event queue as a
    /// `TxDone` while packets wait.
    pub end: ReservedEvent,
}

/// Serialisation times remembered per packet size (direct-mapped by the size's low
/// bits): a link carries few sizes, and the division is the costly part.
const TX_CACHE: usize = 4;

impl LinkDir {
    pub fn new(
        name: String,
        (from, to): (NodeId, NodeId),
        (from_iface, to_iface): (IfaceId, IfaceId),
        rate_bps: u64,
        delay: SimDuration,
        queue: DropTail,
        loss: LossModel,
    ) -> Self {
        LinkDir {
            name,
            from,
            to,
            from_iface,
            to_iface,
            forward_memo: ForwardMemo::default(),
            rate_bps,
            delay,
            queue,
            aqm: None,
            loss,
            tx: Transmitter::default(),
            tx_cache: [(u32::MAX, SimDuration::ZERO); TX_CACHE],
            counters: LinkCounters::default(),
            up: true,
            last_down: None,
        }
    }

    pub fn tx_time(&self, bytes: u32) -> SimDuration {
        SimDuration::transmission(u64::from(bytes), self.rate_bps)
    }

    /// `tx_time`, computed once per packet size (while the size stays in the cache).
    #[inline]
    pub fn tx_time_cached(&mut self, bytes: u32) -> SimDuration {
        let e = &mut self.tx_cache[bytes as usize % TX_CACHE];
        if e.0 != bytes {
            *e = (
                bytes,
                SimDuration::transmission(u64::from(bytes), self.rate_bps),
            );
        }
        e.1
    }

    /// Whether a packet arriving at `now` survived the link's faults: the link is up and
    /// did not go down since the packet started its transmission.
    pub fn carried(&self, now: SimTime, bytes: u32) -> bool {
        self.up
            && self.last_down.is_none_or(|d| {
                let sent = now
                    .as_nanos()
                    .saturating_sub(self.delay.as_nanos() + self.tx_time(bytes).as_nanos());
                d < SimTime::from_nanos(sent)
            })
    }

    /// Whether a packet is on the wire for the event being handled (the last one `q`
    /// popped): the end of the last transmission is not behind it (see `Transmitter`).
    #[inline]
    pub fn busy<E>(&self, q: &EventQueue<E>) -> bool {
        self.tx.end.pending(q)
    }

    /// Packets in the interface: waiting plus the one on the wire.
    pub fn occupancy<E>(&self, q: &EventQueue<E>) -> usize {
        self.waiting() + usize::from(self.busy(q))
    }

    /// Packets waiting, under whichever discipline.
    pub fn waiting(&self) -> usize {
        match self.aqm.as_deref() {
            Some(LinkAqm::Queue(a)) => a.len(),
            _ => self.queue.len(),
        }
    }
}

/// The part of `[start, end)` that falls inside `[w0, w1)`, in nanoseconds.
pub fn overlap_ns(start: SimTime, end: SimTime, w0: SimTime, w1: SimTime) -> u64 {
    let a = start.max(w0);
    let b = end.min(w1);
    b.as_nanos().saturating_sub(a.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::loss::LossModel;

    #[test]
    fn forward_memo_answers_only_for_the_recorded_address() {
        let mut m = ForwardMemo::default();
        // The default address is all zeros, but nothing is recorded for it.
        assert_eq!(m.get([0; 4]), None);
        m.set([10, 0, 0, 3], Hop::Out(LinkDirId(7)));
        assert_eq!(m.get([10, 0, 0, 3]), Some(Hop::Out(LinkDirId(7))));
        assert_eq!(m.get([11, 0, 0, 3]), None);
        m.set([11, 0, 0, 3], Hop::Deliver);
        assert_eq!(m.get([11, 0, 0, 3]), Some(Hop::Deliver));
        assert_eq!(m.get([10, 0, 0, 3]), None);
        m.set([10, 0, 0, 1], Hop::Out(LinkDirId(0)));
        assert_eq!(m.get([10, 0, 0, 1]), Some(Hop::Out(LinkDirId(0))));
    }

    fn link() -> LinkDir {
        LinkDir::new(
            "a->b".into(),
            (NodeId(0), NodeId(1)),
            (IfaceId(0), IfaceId(1)),
            1_000_000,
            SimDuration::from_millis(1),
            DropTail::new(10, None),
            LossModel::default(),
        )
    }

    /// ns-2's scheduler runs simultaneous events in the order they were scheduled. A
    /// transmission that ends at t = 8 ms (1000 B at 1 Mb/s) is over for an event at
    /// 8 ms scheduled after the transmission started, and still running for one
    /// scheduled before it, with no event of its own in the queue.
    #[test]
    fn end_of_transmission_keeps_its_place_among_simultaneous_events() {
        let mut q: EventQueue<&str> = EventQueue::default();
        let mut l = link();
        let t8 = SimTime::from_nanos(8_000_000);
        q.schedule(SimTime::ZERO, "start");
        q.schedule(t8, "before");
        assert_eq!(q.pop(), Some((SimTime::ZERO, "start")));
        assert!(!l.busy(&q));
        let end = SimTime::ZERO + l.tx_time_cached(1000);
        assert_eq!(end, t8);
        l.tx.end.arm(end, &mut q);
        q.schedule(t8, "after");
        assert!(l.busy(&q));
        assert_eq!(l.occupancy(&q), 1);
        assert_eq!(q.pop(), Some((t8, "before")));
        assert!(l.busy(&q), "scheduled before the transmission started");
        assert_eq!(q.pop(), Some((t8, "after")));
        assert!(!l.busy(&q), "scheduled after it started");
    }

    #[test]
    fn cached_serialisation_times_match_the_formula() {
        // 1500 B at 1 Mb/s is 12 ms; 40 B is 320 us; sizes that share a cache line
        // (1500 and 40 both map to entry 0) replace each other.
        let mut l = link();
        for b in [1500, 40, 1500, 1501, 40, 0, 65535] {
            assert_eq!(l.tx_time_cached(b), l.tx_time(b), "{b} bytes");
        }
        assert_eq!(l.tx_time_cached(1500), SimDuration::from_millis(12));
        assert_eq!(l.tx_time_cached(40), SimDuration::from_micros(320));
    }
}
