//! The size ns-2.35 gives a data packet at its mobile node's MAC, for
//! `[wireless] ns2_packet_sizes` (like-for-like comparisons with ns-2.35).
//!
//! Our packets carry real headers, counted once; ns-2.35 counts differently
//! (docs/validation.md, "Known differences in what is sent"):
//! - its agents' sizes: a UDP agent's packet is the application's bytes with no UDP or IP
//!   header (`Agent/UDP`, `packetSize_`); an SCTP agent counts the IP header (20), the
//!   common header (12) and the chunks (sctp.cc, `ipHeaderSize_`); a TCP agent counts
//!   `tcpip_base_hdr_size_` (40) plus 8 bytes per SACK block (tcp-sink.cc, Sack1);
//! - AODV then adds a 20-byte IP header to every packet its node originates except TCP
//!   segments and acks (aodv.cc `AODV::recv`: `ch->size() += IP_HDR_LEN` unless `PT_TCP`
//!   or `PT_ACK`), and the packet keeps that size on every hop; DSDV adds it to every
//!   packet its node originates, TCP ones included (dsdv.cc `DSDV_Agent::recv`).
//!
//! So an SCTP packet of two 700-byte DATA chunks is 1452 bytes (ours 1432), an SCTP SACK
//! 68 (ours 48), a CBR datagram of 512 bytes 532 (ours 540), a TCP ack with n SACK
//! blocks 40 + 8n (ours 40 + 2 + 8n padded to 4). Routing and ARP packets already have
//! ns-2's sizes. Only the MAC's airtime uses this size; the transport counters keep the
//! real sizes.

use crate::net::Packet;
use crate::net::wire::TransportRepr;

/// ns-2.35's `IP_HDR_LEN`, which its AODV agent adds (see the module docs).
pub const AODV_IP_HDR: u32 = 20;

/// The IP header ns-2.35's routing agent adds to the packets its node originates: to
/// TCP ones (`tcp`) and to the others (`other`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Ns2Sizes {
    pub other: u32,
    pub tcp: u32,
}

impl Ns2Sizes {
    /// AODV: every packet but TCP's.
    pub const AODV: Ns2Sizes = Ns2Sizes {
        other: AODV_IP_HDR,
        tcp: 0,
    };
    /// DSDV: every packet.
    pub const DSDV: Ns2Sizes = Ns2Sizes {
        other: AODV_IP_HDR,
        tcp: AODV_IP_HDR,
    };
    /// DSR: every packet its node originates (dsragent.cc `recv`: `cmh->size() +=
    /// IP_HDR_LEN` before the source route), then the header (`SrField::mac_size`).
    pub const DSR: Ns2Sizes = Ns2Sizes::DSDV;
}
/// ns-2.35's `tcpip_base_hdr_size_`.
const TCPIP_BASE: u32 = 40;
/// Bytes per SACK block in ns-2.35's TCP header accounting.
const SACK_BLOCK: u32 = 8;
/// Our UDP header, which ns-2's UDP agent does not count.
const UDP_HDR: u32 = 8;
/// Our IPv4 header (no options).
const IP_HDR: u32 = 20;

/// The size the MAC charges `pkt`: ns-2.35's (`ns2_size`) with `ns2`, else its own,
/// plus a DSR source-route header it carries (`SrField::mac_size`).
#[inline]
pub fn mac_size(pkt: &Packet, ns2: Option<Ns2Sizes>) -> u32 {
    let base = match ns2 {
        Some(hdrs) => ns2_size(pkt, hdrs),
        None => pkt.size,
    };
    match pkt.sr.as_deref() {
        None => base,
        Some(f) => f.mac_size(base, ns2.is_some()),
    }
}

/// The size ns-2.35 gives `pkt` at the MAC. `routing` is what its routing agent adds
/// to the packets a node originates: [`Ns2Sizes::AODV`], [`Ns2Sizes::DSDV`], or nothing
/// without a routing agent that adds one.
pub fn ns2_size(pkt: &Packet, routing: Ns2Sizes) -> u32 {
    let routing_ip_hdr = routing.other;
    if pkt.routing.is_some() || pkt.arp.is_some() {
        return pkt.size;
    }
    match &pkt.transport {
        TransportRepr::Tcp(t) => {
            TCPIP_BASE
                + pkt.payload_len
                + SACK_BLOCK * t.options.sack_blocks_emitted() as u32
                + routing.tcp
        }
        // The UDP agent's payload only; AODV's IP header on top.
        TransportRepr::Udp(_) => pkt.size - IP_HDR - UDP_HDR + routing_ip_hdr,
        // The agent counts the IP header already; AODV adds another.
        TransportRepr::Sctp(_) => pkt.size + routing_ip_hdr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::{SackBlocks, TcpOptions, TcpRepr, UdpRepr};

    #[test]
    fn sizes_of_seed_004s_packets_are_ns2s() {
        // CBR: 512 bytes of payload, 540 on our wire; ns-2 512 + AODV's 20 = 532.
        let mut p = Packet {
            transport: TransportRepr::Udp(UdpRepr {
                src_port: 1,
                dst_port: 2,
            }),
            payload_len: 512,
            ..Packet::default()
        };
        p.finalize();
        assert_eq!(p.size, 540);
        assert_eq!(ns2_size(&p, Ns2Sizes::AODV), 532);
        assert_eq!(ns2_size(&p, Ns2Sizes::default()), 512);
        // TCP segment of 1400 bytes: 1440 in both; an ack with two SACK blocks: ns-2
        // 40 + 16 = 56 (ours 20 + 20 + 2 + 16 padded to 60).
        let mut t = TcpRepr {
            src_port: 1,
            dst_port: 2,
            seq: 0,
            ack: 0,
            flags: Default::default(),
            window: 0,
            options: TcpOptions::default(),
        };
        p.transport = TransportRepr::Tcp(t);
        p.payload_len = 1400;
        p.finalize();
        assert_eq!((p.size, ns2_size(&p, Ns2Sizes::AODV)), (1440, 1440));
        let mut sack = SackBlocks::new();
        sack.push((1, 2));
        sack.push((3, 4));
        t.options.sack = sack;
        p.transport = TransportRepr::Tcp(t);
        p.payload_len = 0;
        p.finalize();
        assert_eq!((p.size, ns2_size(&p, Ns2Sizes::AODV)), (60, 56));
        // DSDV adds its 20-byte IP header to TCP packets too (dsdv.cc `recv`).
        assert_eq!(ns2_size(&p, Ns2Sizes::DSDV), 76);
    }
}
