//! One direction of a full-duplex point-to-point link: transmitter, drop-tail queue,
//! serialisation at the link rate, propagation delay, and an optional loss model.

use super::ids::{IfaceId, NodeId, PacketId};
use super::loss::LossModel;
use super::queue::DropTail;
use crate::sim::{SimDuration, SimTime};

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
}

#[derive(Clone, Debug)]
pub struct LinkDir {
    /// `"<from>-><to>"`, the key used in summary.json.
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub from_iface: IfaceId,
    pub to_iface: IfaceId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub queue: DropTail,
    pub loss: LossModel,
    /// The packet being serialised, if any.
    pub transmitting: Option<PacketId>,
    pub counters: LinkCounters,
    /// False while a `[[faults]]` entry holds the link down.
    pub up: bool,
    /// When the link last went down: a packet that was on the wire then is lost.
    pub last_down: Option<SimTime>,
}

impl LinkDir {
    pub fn tx_time(&self, bytes: u32) -> SimDuration {
        SimDuration::transmission(u64::from(bytes), self.rate_bps)
    }

    /// Whether a packet arriving at `now` survived the link's faults: the link is up and
    /// did not go down since the packet started its transmission.
    pub fn carried(&self, now: SimTime, bytes: u32) -> bool {
        let sent = SimTime::from_nanos(
            now.as_nanos()
                .saturating_sub(self.delay.as_nanos() + self.tx_time(bytes).as_nanos()),
        );
        self.up && self.last_down.is_none_or(|d| d < sent)
    }

    /// Packets in the interface: waiting plus the one on the wire.
    pub fn occupancy(&self) -> usize {
        self.queue.len() + usize::from(self.transmitting.is_some())
    }
}

/// The part of `[start, end)` that falls inside `[w0, w1)`, in nanoseconds.
pub fn overlap_ns(start: SimTime, end: SimTime, w0: SimTime, w1: SimTime) -> u64 {
    let a = start.max(w0);
    let b = end.min(w1);
    b.as_nanos().saturating_sub(a.as_nanos())
}
