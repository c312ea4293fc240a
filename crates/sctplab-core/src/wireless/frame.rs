//! What travels on the shared wireless channel: 802.11 frames as the MAC emits them.
//! Shared by the MAC (which builds and interprets frames) and the channel in the world
//! (which delivers them to the NICs in carrier-sense range).

use crate::net::PacketId;
use crate::sim::SimDuration;

/// A wireless NIC's link-layer address: the NIC's index among the world's wireless NICs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MacAddr(pub u32);

impl MacAddr {
    pub const BROADCAST: MacAddr = MacAddr(u32::MAX);

    pub fn is_broadcast(self) -> bool {
        self == MacAddr::BROADCAST
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Data,
    Ack,
}

/// One 802.11 frame on the air. `Copy` and small: the channel hands the same frame to
/// every receiver in range without cloning a packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address (802.11 TA; CTS and ACK carry none on the air, but the
    /// simulator keeps it for traces).
    pub src: MacAddr,
    /// Receiver address (RA); `MacAddr::BROADCAST` for broadcast DATA.
    pub dst: MacAddr,
    /// The Duration/ID field: how long the medium stays reserved after this frame ends
    /// (NAV), as the MAC computed it.
    pub duration: SimDuration,
    /// MAC frame length in bytes: MAC header, body and FCS, without the PLCP preamble
    /// and header.
    pub bytes: u32,
    /// Time on the air: PLCP preamble and header at the PLCP rate plus `bytes` at the
    /// frame's rate.
    pub airtime: SimDuration,
    /// Sequence number (DATA), for duplicate detection at the receiver.
    pub seq: u16,
    /// The retry bit (DATA retransmissions).
    pub retry: bool,
    /// The IP packet a DATA frame carries (a slot of the world's packet pool).
    pub packet: Option<PacketId>,
    /// Not on the air: set by the world on a receiver's own copy of a broadcast frame
    /// whose delivery there only counts (a route request that receiver has seen
    /// before). The MAC then counts the delivery (`Mac::take_quiet_ups`, `mac/fast.rs`)
    /// instead of putting the packet out, and the reception does not keep its timers
    /// from being quiet.
    pub quiet_up: bool,
}

impl Frame {
    /// A frame as a MAC puts it on the air: no sequence number, retry bit or packet yet
    /// (DATA frames set theirs).
    pub fn new(
        kind: FrameKind,
        src: MacAddr,
        dst: MacAddr,
        duration: SimDuration,
        bytes: u32,
        airtime: SimDuration,
    ) -> Frame {
        Frame {
            kind,
            src,
            dst,
            duration,
            bytes,
            airtime,
            seq: 0,
            retry: false,
            packet: None,
            quiet_up: false,
        }
    }
}
