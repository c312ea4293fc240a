//! Source-routed packets (DSR, ns-2.35 dsr/dsragent.cc) between the world and the agent:
//! the header travels in the world's packet (`Packet::sr`) and the agent sees an
//! `SrPacket` (addresses, TTL, header, and the world's packet if it carries data).
//!
//! - Up: a packet with a header that the MAC passes up goes to the agent
//!   (`source_routed_input`), which forwards it, delivers it here or answers it; one the
//!   MAC decoded for another node goes to the agent's tap (`routing_overheard`), as
//!   ns-2's `Mac802_11::recv_timer` hands every intact DATA frame to `tap_`.
//! - Down: the agent's packets become world packets (`send_source_routed`): a data
//!   packet keeps its slot (and so its uid) with the new header; a control packet
//!   (`PT_DSR`) is a new packet each hop, counted in `routing_packets` and
//!   `routing_bytes`.
//! - Link failure: the packet the MAC gave up on and the interface queue's packets for
//!   the same neighbour go back to the agent (`source_routed_failed`; ns-2's
//!   `XmitFailureCallback` and its `prq_get_nexthop` loop).

use super::{addr_u32, u32_addr};
use crate::net::Packet;
use crate::net::wire::{IPV4_HEADER_LEN, Ipv4Repr, emit_ipv4_packet};
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{PacketId, PacketKind};
use crate::sim::{SimDuration, SimTime};
use crate::wireless::dsr::{HeaderSizes, Payload, SrField, SrPacket};
use crate::world::{NO_FLOW, World};

/// The IP protocol number of a DSR control packet (RFC 4728 section 6.1, "DSR Options
/// header": protocol 48).
pub(crate) const IPPROTO_DSR: u8 = 48;

/// No next header (RFC 8200 section 4.7; RFC 4728 6.1 uses IPv6's numbers).
const NO_NEXT_HEADER: u8 = 59;

/// `p` as a capture shows it (`--pcap`): its IPv4 header with protocol 48, the DSR
/// header in RFC 4728's encoding (`SrHeader::encode_rfc4728`), then the transport
/// segment (none for DSR's own packets).
pub(crate) fn encode_source_routed(p: &Packet, f: &SrField, out: &mut Vec<u8>) {
    let mut dsr = Vec::new();
    if f.control {
        out.clear();
        out.resize(IPV4_HEADER_LEN, 0);
        f.sr.encode_rfc4728(NO_NEXT_HEADER, &mut dsr);
    } else {
        emit_ipv4_packet(&p.ip, &p.transport, p.payload_len as usize, out);
        // The transport's protocol number (the IPv4 header's byte 9).
        f.sr.encode_rfc4728(out[9], &mut dsr);
    }
    if f.sr.request.is_some() && dsr.len() >= 10 {
        // The Route Request's Target Address: the packet's IP destination.
        dsr[6..10].copy_from_slice(&p.ip.dst);
    }
    let payload_len = out.len() - IPV4_HEADER_LEN + dsr.len();
    let ip = Ipv4Repr {
        protocol: IPPROTO_DSR,
        payload_len,
        ..p.ip
    };
    out.splice(IPV4_HEADER_LEN..IPV4_HEADER_LEN, dsr);
    ip.emit(&mut out[..IPV4_HEADER_LEN]);
}

impl World {
    /// Takes `pid` for the agent: its header moves out of the world's packet into the
    /// agent's view (no copy), a control packet's slot is freed (the agent sends a new
    /// packet if it sends one on), a data packet's stays the agent's and gets a header
    /// again when the agent sends it on (`send_source_routed`). Nothing reads a data
    /// packet's header while the agent holds it: the world's traces of a data packet
    /// (a drop, a delivery) show its transport, not its source route.
    fn take_source_routed(&mut self, pid: PacketId) -> Option<SrPacket> {
        let pkt = self.pool.get_mut(pid);
        let f = *pkt.sr.take()?;
        let p = SrPacket {
            src: addr_u32(pkt.ip.src),
            dst: addr_u32(pkt.ip.dst),
            ttl: pkt.ip.ttl,
            sr: f.sr,
            payload: if f.control {
                Payload::Control
            } else {
                Payload::Data {
                    pkt: pid,
                    ip_len: pkt.size,
                }
            },
            ns2_stale: f.ns2_stale,
        };
        if p.payload == Payload::Control {
            self.discard(pid);
        }
        Some(p)
    }

    /// A packet with a source-route header the link layer of `nic` passed up.
    pub(super) fn source_routed_input(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let Some(p) = self.take_source_routed(pid) else {
            self.discard(pid);
            return;
        };
        match self.wl().nics[nic as usize].routing.as_mut() {
            Some(a) if a.source_routes() => a.recv_source_routed(now, p),
            _ => {
                if let Payload::Data { pkt, .. } = p.payload {
                    self.discard(pkt);
                }
                return;
            }
        }
        self.service_routing(now, nic);
    }

    /// The MAC of `nic` decoded a DATA frame for another node, carrying `pid` (still
    /// the sender's packet: the agent reads its header where it lies and keeps nothing
    /// of it).
    pub(in crate::world) fn routing_overheard(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let pkt = self.pool.get(pid);
        let Some(f) = pkt.sr.as_deref() else {
            return;
        };
        let Some(w) = self.wireless.as_deref_mut() else {
            return;
        };
        // An agent given a packet its tap does not read (`Dsr::tap_reads`) changes
        // nothing, so neither would `service_routing`.
        let reads = w.nics[nic as usize]
            .routing
            .as_mut()
            .is_none_or(|a| a.tap(now, addr_u32(pkt.ip.src), &f.sr, f.control, pkt.uid));
        if reads {
            self.service_routing(now, nic);
        }
    }

    /// The MAC (or ARP) of `nic` gave up on the source-routed `pid` for `next_hop`:
    /// it and the interface queue's source-routed packets for that neighbour go back
    /// to the agent. False where `pid` has no header or the agent does not source-route.
    pub(super) fn source_routed_failed(
        &mut self,
        now: SimTime,
        nic: u32,
        pid: PacketId,
        next_hop: u32,
    ) -> bool {
        let routes = self.wl().nics[nic as usize]
            .routing
            .as_ref()
            .is_some_and(|a| a.source_routes());
        if !routes || self.pool.get(pid).sr.is_none() {
            return false;
        }
        let mut out = self.purge_ifq(nic, next_hop, |p| p.sr.is_some());
        let mut queued = Vec::with_capacity(out.len());
        for e in out.drain(..) {
            if let Some(q) = self.take_source_routed(e.packet) {
                queued.push(q);
            }
        }
        self.wl().scratch_purge = out;
        let Some(p) = self.take_source_routed(pid) else {
            return false;
        };
        if let Some(a) = self.wl().nics[nic as usize].routing.as_mut() {
            a.source_routed_failed(now, p, queued);
        }
        self.service_routing(now, nic);
        true
    }

    /// A packet the agent of `nic` sends to `next_hop` after `delay`.
    pub(super) fn send_source_routed(
        &mut self,
        now: SimTime,
        nic: u32,
        p: SrPacket,
        next_hop: u32,
        delay: SimDuration,
    ) {
        let sizes = self.wl().nics[nic as usize]
            .routing
            .as_ref()
            .and_then(|a| a.dsr())
            .map_or(HeaderSizes::Ns2, |d| d.cfg().header_sizes);
        let me = addr_u32(self.wl().nics[nic as usize].addr);
        let control = p.payload == Payload::Control;
        let f = SrField {
            sr: p.sr,
            ns2_stale: p.ns2_stale,
            control,
            sizes,
        };
        let pid = match p.payload {
            Payload::Data { pkt, .. } => {
                if p.src != me {
                    let node = self.wl().nics[nic as usize].node.idx();
                    self.wl().node_counters[node].forwarded += 1;
                }
                pkt
            }
            Payload::Control => {
                // Counted at ns-2.35's size, as AODV's and DSDV's messages are.
                let len = f.mac_size(0, true);
                let node = self.wl().nics[nic as usize].node.idx();
                let c = &mut self.wl().node_counters[node];
                c.routing_packets += 1;
                c.routing_bytes += u64::from(len);
                let pid = self.new_control_packet(now, p.src, p.dst);
                // ns-2 forwards the same packet ('f' in its trace); here each hop sends
                // a new one, marked forwarded where this node is not its source.
                self.pool.get_mut(pid).forwards = u32::from(p.src != me);
                pid
            }
        };
        let pkt = self.pool.get_mut(pid);
        pkt.ip.ttl = p.ttl;
        if control {
            // Its size as ns-2.35 counts it (traces show it; the MAC charges
            // `mac_size`), as AODV's messages keep theirs.
            pkt.size = f.mac_size(0, true);
        }
        pkt.sr = Some(Box::new(f));
        self.link_down_after(now, nic, pid, next_hop, delay);
    }

    /// A DSR control packet: an IP header (protocol 48) and, once sent, its header.
    fn new_control_packet(&mut self, now: SimTime, src: u32, dst: u32) -> PacketId {
        let pid = self.pool.alloc();
        self.pool.stamp(pid);
        let pkt = self.pool.get_mut(pid);
        pkt.flow = NO_FLOW;
        pkt.kind = PacketKind::Control;
        pkt.data_num = 0;
        pkt.ack_num = 0;
        pkt.forwards = 0;
        pkt.created = now;
        pkt.ip.src = u32_addr(src);
        pkt.ip.dst = u32_addr(dst);
        pkt.ip.ident = pkt.uid as u16;
        pkt.transport = TransportRepr::Udp(UdpRepr {
            src_port: 0,
            dst_port: 0,
        });
        pkt.payload_len = 0;
        pkt.routing = None;
        pkt.arp = None;
        pkt.finalize();
        pkt.ip.protocol = IPPROTO_DSR;
        pid
    }

    /// A data packet the agent delivered here: its header comes off (`handlePacketReceipt`).
    pub(super) fn deliver_source_routed(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        self.pool.get_mut(pid).sr = None;
        let node = self.wl().nics[nic as usize].node;
        self.deliver(now, node, pid);
    }
}
