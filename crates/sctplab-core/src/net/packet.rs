//! Packets in flight and the pool that recycles them.
//!
//! A packet is a typed IPv4 header plus a typed transport header; payload bytes are not
//! stored (they would be zeros), only their length. Sizes are the real encoded sizes.
//! Packets live in a pool and are addressed by `PacketId`, so moving one through a queue
//! or an event costs four bytes, and a freed slot keeps its buffers (SCTP chunk lists)
//! for the next packet: no heap allocation per packet once the pool has warmed up.

use super::ids::{FlowId, NodeId, PacketId};
use super::wire::{IPV4_HEADER_LEN, Ipv4Repr, TransportRepr, UdpRepr};
use crate::sim::SimTime;

/// What a packet is for, as loss models and traces see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// Carries application data (TCP segment with payload, SCTP DATA, UDP datagram).
    Data,
    /// Carries only acknowledgements (TCP pure ACK, SCTP SACK).
    Ack,
    /// Handshake, teardown, heartbeat and other control packets.
    Control,
}

#[derive(Clone, Debug)]
pub struct Packet {
    /// Unique within a run, in creation order (the ns-2 trace's last column).
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: PacketKind,
    /// 1-based number of the first data unit carried (CONTRACTS numbering); 0 if none.
    pub data_num: u32,
    /// Acknowledged packet number shown in traces for acks (ns-2 prints it as `seq`).
    pub ack_num: u32,
    /// Set by the sender on retransmissions (traces only; loss models ignore it).
    pub retransmission: bool,
    pub created: SimTime,
    /// Send time of the data packet an ack answers (ns-2's `ts_echo` header field; a
    /// simulator-side channel for RTT sampling, not encoded on the wire).
    pub ts_echo: SimTime,
    /// When it entered the queue of the link it is on (`queue_delay_mean_s`).
    pub queued_at: SimTime,
    pub ip: Ipv4Repr,
    pub transport: TransportRepr,
    /// Application payload bytes after the transport header (UDP and TCP). SCTP payload is
    /// inside its DATA chunks and counted by the transport header length instead.
    pub payload_len: u32,
    /// Total IPv4 datagram length in bytes, computed by `finalize`.
    pub size: u32,
    /// Times a wireless MAC has received this packet on its way (ns-2 `num_forwards`):
    /// 0 where it was created.
    pub forwards: u32,
    /// The IPv4 next hop (as a number) the link layer sends it to, on wireless NICs.
    pub next_hop: u32,
    /// The routing-protocol message a control packet carries (AODV over UDP port 654,
    /// DSDV over port 255).
    pub routing: Option<crate::wireless::routing::RoutingMsg>,
    /// The ARP message an ARP packet carries (wireless NICs; not an IP packet: `size` is
    /// the ARP packet's 28 bytes and the IP fields are unused).
    pub arp: Option<crate::wireless::arp::ArpMsg>,
    /// The DSR source-route header the packet carries on the air (`routing = "dsr"`;
    /// none elsewhere).
    pub sr: Option<Box<crate::wireless::dsr::SrField>>,
    /// The UDP payload bytes of a packet whose transport needs them carried (QUIC's
    /// encrypted datagrams); empty for every other packet, whose payload is only a length.
    /// Only the endpoint that writes it and its peer read it.
    pub datagram: Vec<u8>,
}

impl Default for Packet {
    fn default() -> Self {
        Packet {
            uid: 0,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(0),
            kind: PacketKind::Data,
            data_num: 0,
            ack_num: 0,
            retransmission: false,
            created: SimTime::ZERO,
            ts_echo: SimTime::ZERO,
            queued_at: SimTime::ZERO,
            ip: Ipv4Repr {
                src: [0; 4],
                dst: [0; 4],
                protocol: 0,
                ttl: 64,
                ident: 0,
                ecn: 0,
                payload_len: 0,
            },
            transport: TransportRepr::Udp(UdpRepr {
                src_port: 0,
                dst_port: 0,
            }),
            payload_len: 0,
            size: 0,
            forwards: 0,
            next_hop: 0,
            routing: None,
            arp: None,
            sr: None,
            datagram: Vec::new(),
        }
    }
}

impl Packet {
    /// A routing protocol's own packet (ns-2's `PT_AODV`, `PT_MESSAGE`, `PT_DSR`), which
    /// the interface queue serves first.
    pub fn is_routing(&self) -> bool {
        self.routing.is_some() || self.sr.as_ref().is_some_and(|f| f.control)
    }

    /// Fills in the IP length fields from the transport header; call after the transport
    /// header and payload length are final.
    // Always inlined: every TCP segment and ack calls it, and with the QUIC adapter as one
    // more caller LLVM stopped inlining it, which cost 2.6 % of a TCP run's instructions.
    #[inline(always)]
    pub fn finalize(&mut self) {
        let transport_len = self.transport_len();
        self.set_lengths(transport_len);
    }

    /// `finalize` for a caller that already knows the transport's encoded length (SCTP's
    /// `poll_transmit` adds up its chunks' lengths as it packs them): the walk over the
    /// chunk list and its per-chunk match cost more than the rest of the packet's
    /// construction. Debug builds check the length against `finalize`'s.
    #[inline]
    pub fn finalize_with_len(&mut self, transport_len: usize) {
        debug_assert_eq!(transport_len, self.transport_len(), "transport length");
        self.set_lengths(transport_len);
    }

    fn transport_len(&self) -> usize {
        self.transport.header_len()
            + match self.transport {
                TransportRepr::Sctp(_) => 0,
                _ => self.payload_len as usize,
            }
    }

    #[inline]
    fn set_lengths(&mut self, transport_len: usize) {
        self.ip.protocol = self.transport.ip_protocol();
        self.ip.payload_len = transport_len;
        self.size = u32::try_from(IPV4_HEADER_LEN + transport_len).unwrap_or(u32::MAX);
    }

    /// Type name used in the ns-2 text trace.
    pub fn ns2_type(&self) -> &'static str {
        match (&self.transport, self.kind) {
            (TransportRepr::Udp(_), _) => "cbr",
            (TransportRepr::Tcp(_), PacketKind::Ack) => "ack",
            (TransportRepr::Tcp(_), _) => "tcp",
            (TransportRepr::Sctp(_), _) => "sctp",
        }
    }

    pub fn ports(&self) -> (u16, u16) {
        self.transport.ports()
    }
}

/// A slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    next_uid: u64,
    live: usize,
}

impl PacketPool {
    /// Takes a slot. Its fields hold whatever the slot's previous packet left, so the
    /// caller must set every field it relies on, and `stamp` it once it is really sent.
    // Always inlined: `service` takes a slot for every poll of an endpoint, the last
    // of which finds nothing to send.
    #[inline(always)]
    pub fn alloc(&mut self) -> PacketId {
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(Packet::default());
                PacketId::from_idx(self.slots.len() - 1)
            }
        };
        let p = &mut self.slots[id.idx()];
        p.retransmission = false;
        // Not ECN-capable unless its sender says so (the world, for an `ecn` flow).
        p.ip.ecn = 0;
        // A recycled slot may hold a DSR header (builders set the fields they use).
        p.sr = None;
        id
    }

    /// Gives a packet that is about to enter the network the next uid, so uids count
    /// packets sent, in order, with no gaps for slots taken and given back unused.
    #[inline]
    pub fn stamp(&mut self, id: PacketId) {
        self.slots[id.idx()].uid = self.next_uid;
        self.next_uid += 1;
    }

    #[inline]
    pub fn release(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id), "packet released twice");
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.idx()]
    }

    /// Packets allocated and not yet released.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots ever created: stays flat in steady state when packets are recycled.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn udp_packet_size_is_headers_plus_payload() {
        let mut p = Packet {
            payload_len: 1000,
            ..Packet::default()
        };
        p.finalize();
        assert_eq!(p.size, 20 + 8 + 1000);
        assert_eq!(p.ip.payload_len, 1008);
    }

    #[test]
    fn released_slots_are_reused() {
        let mut pool = PacketPool::default();
        let a = pool.alloc();
        let b = pool.alloc();
        pool.release(a);
        let c = pool.alloc();
        assert_eq!(c, a);
        pool.stamp(b);
        pool.stamp(c);
        assert_eq!((pool.get(b).uid, pool.get(c).uid), (0, 1));
        assert_eq!(pool.capacity(), 2);
        assert_eq!(pool.live(), 2);
    }
}
