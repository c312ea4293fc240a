//! The DSR source-route header a packet carries (ns-2.35 dsr/hdr_sr.h), and its size on
//! the air: as ns-2.35 charges it (`hdr_sr::size`) or as RFC 4728 section 6 lays it out.

use crate::net::PacketId;

/// The longest source route (`MAX_SR_LEN`, hdr_sr.h).
pub const MAX_SR_LEN: usize = 16;
/// Route errors one packet can nest (`MAX_ROUTE_ERRORS`, hdr_sr.h).
pub const MAX_ROUTE_ERRORS: usize = 3;
/// The `tell_addr` of a route error piggybacked on a route request
/// (`GRAT_ROUTE_ERROR`, dsragent.h): nobody in particular is told.
pub const GRAT_ROUTE_ERROR: u32 = 0;
/// The IP header ns-2 charges (`IP_HDR_LEN`).
pub const IP_HDR_LEN: u32 = 20;

/// Which header sizes the packets are charged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HeaderSizes {
    /// ns-2.35's `hdr_sr::size()`: a 4-byte fixed part, 4 bytes per source-route
    /// address after the first, 8 for a request, 5 + 4 per address for a reply, 16 per
    /// route error, rounded up to a multiple of 4.
    Ns2,
    /// RFC 4728 section 6: the 4-byte DSR Options header and its options (Source Route
    /// 4 + 4 per intermediate hop, Route Request 8 + 4 per recorded hop, Route Reply
    /// 3 + 4 per hop after the initiator, Route Error 16), no Pad options.
    Rfc4728,
}

/// A route request option (`route_request`, `rtreq_seq`, `max_propagation`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub seq: u32,
    /// How many nodes the request may still pass: 0 for ring-zero (neighbours only).
    pub max_propagation: u8,
}

/// A broken link a route error reports, and whom it is for (`link_down`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkDown {
    pub from: u32,
    pub to: u32,
    pub tell: u32,
}

/// ns-2.35's `hdr_sr` without its flow-state fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SrHeader {
    /// The source route (for a request: the nodes it passed, its initiator first).
    pub addrs: Vec<u32>,
    /// `cur_addr`: on the air, the index of the node the packet is for.
    pub cur: usize,
    /// Times the packet was salvaged (`salvaged`).
    pub salvaged: u8,
    pub request: Option<Request>,
    /// A route reply: the route from the requester to the target (`reply_addrs`), and
    /// the request number it answers (0 for a gratuitous reply).
    pub reply: Option<(u32, Vec<u32>)>,
    pub errors: Vec<LinkDown>,
}

impl SrHeader {
    /// Bytes this header adds to the packet.
    pub fn size(&self, sizes: HeaderSizes) -> u32 {
        match sizes {
            HeaderSizes::Ns2 => self.ns2_size(),
            HeaderSizes::Rfc4728 => self.rfc4728_size(),
        }
    }

    fn ns2_size(&self) -> u32 {
        let n = self.addrs.len() as u32;
        let mut sz = 0;
        if n > 0 || self.request.is_some() || self.reply.is_some() || !self.errors.is_empty() {
            sz += 4;
        }
        if n > 0 {
            sz += 4 * (n - 1);
        }
        if let Some((_, r)) = &self.reply {
            sz += 5 + 4 * r.len() as u32;
        }
        if self.request.is_some() {
            sz += 8;
        }
        sz += 16 * self.errors.len() as u32;
        (sz + 3) & !3
    }

    /// The header in RFC 4728's encoding (section 6): the DSR Options header with
    /// `next_header` (the transport's protocol; 59, "no next header", for DSR's own
    /// packets), then a Route Request (6.2) or a Source Route (6.7), a Route Reply
    /// (6.3) and the Route Errors (6.4, type 1, "node unreachable"), as many bytes as
    /// `size(HeaderSizes::Rfc4728)`. Request numbers are cut to the 16 bits of its
    /// Identification field.
    pub fn encode_rfc4728(&self, next_header: u8, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[next_header, 0, 0, 0]);
        let addr = |out: &mut Vec<u8>, a: u32| out.extend_from_slice(&a.to_be_bytes());
        let n = self.addrs.len();
        if let Some(q) = &self.request {
            let hops = n.saturating_sub(1);
            out.extend_from_slice(&[1, (6 + 4 * hops) as u8]);
            out.extend_from_slice(&(q.seq as u16).to_be_bytes());
            addr(out, 0); // the target: the IP destination, filled in by the caller
            for &a in self.addrs.iter().skip(1) {
                addr(out, a);
            }
        } else if n > 0 {
            let mid = n.saturating_sub(2);
            let segs_left = (n - 1).saturating_sub(self.cur) as u16 & 0x3f;
            let salvage = u16::from(self.salvaged.min(15)) << 6;
            out.extend_from_slice(&[96, (2 + 4 * mid) as u8]);
            out.extend_from_slice(&(salvage | segs_left).to_be_bytes());
            for &a in self.addrs.iter().skip(1).take(mid) {
                addr(out, a);
            }
        }
        if let Some((_, r)) = &self.reply {
            let hops = r.len().saturating_sub(1);
            out.extend_from_slice(&[2, (1 + 4 * hops) as u8, 0]);
            for &a in r.iter().skip(1) {
                addr(out, a);
            }
        }
        for e in &self.errors {
            out.extend_from_slice(&[3, 14, 1, 0]);
            addr(out, e.from);
            addr(out, e.tell);
            addr(out, e.to);
        }
        let len = (out.len() - start - 4) as u16;
        out[start + 2..start + 4].copy_from_slice(&len.to_be_bytes());
    }

    fn rfc4728_size(&self) -> u32 {
        let n = self.addrs.len() as u32;
        let mut opts = 0;
        if self.request.is_some() {
            // Identification and Target Address, then every hop recorded after the
            // initiator (RFC 4728 6.2).
            opts += 8 + 4 * n.saturating_sub(1);
        } else if n > 0 {
            // Source Route option: the hops between source and destination (6.7).
            opts += 4 + 4 * n.saturating_sub(2);
        }
        if let Some((_, r)) = &self.reply {
            // The returned route without the initiator (6.3).
            opts += 3 + 4 * (r.len() as u32).saturating_sub(1);
        }
        // Route Error with the Unreachable Node Address (6.4).
        opts += 16 * self.errors.len() as u32;
        if opts == 0 { 0 } else { 4 + opts }
    }
}

/// What a DSR packet carries besides its header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Nothing: a DSR control packet (`PT_DSR`).
    Control,
    /// The world's data packet, of `ip_len` bytes with its IP header (ns-2's size
    /// before the DSR header is added).
    Data { pkt: PacketId, ip_len: u32 },
}

/// A packet as the DSR agent handles it: IP addresses and TTL, the source-route
/// header, and what it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrPacket {
    pub src: u32,
    pub dst: u32,
    pub ttl: u8,
    pub sr: SrHeader,
    pub payload: Payload,
    /// Bytes of earlier source-route headers ns-2.35 still counts in a forwarded route
    /// request: `handleRouteRequest` adds the grown header to the packet's size without
    /// taking the one it arrived with off (its traces show requests of 32, 48, 68, 92,
    /// 120 bytes over five hops). Counted with [`HeaderSizes::Ns2`] only.
    pub ns2_stale: u32,
}

impl SrPacket {
    /// Bytes on the air (IP header included).
    pub fn air_len(&self, sizes: HeaderSizes) -> u32 {
        let base = match self.payload {
            Payload::Control => IP_HDR_LEN,
            Payload::Data { ip_len, .. } => ip_len,
        };
        let stale = match sizes {
            HeaderSizes::Ns2 => self.ns2_stale,
            HeaderSizes::Rfc4728 => 0,
        };
        base + stale + self.sr.size(sizes)
    }

    pub fn data(&self) -> Option<PacketId> {
        match self.payload {
            Payload::Control => None,
            Payload::Data { pkt, .. } => Some(pkt),
        }
    }
}

/// The source-route header as a world packet carries it on the air (`Packet::sr`): the
/// header, ns-2's stale request bytes, whether the packet is DSR's own (`PT_DSR`, no
/// payload) and which header sizes it is charged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrField {
    pub sr: SrHeader,
    pub ns2_stale: u32,
    pub control: bool,
    pub sizes: HeaderSizes,
}

impl SrField {
    /// The packet's size at the MAC given `base`, its size without DSR (IP header
    /// included; ns-2's with `ns2`): ns-2.35 adds `srh->size()` to the packet
    /// (`sendOutPacketWithRoute`), and a control packet is an IP header and the DSR
    /// header alone (`cmnh->size() = IP_HDR_LEN`).
    pub fn mac_size(&self, base: u32, ns2: bool) -> u32 {
        let stale = if ns2 && self.sizes == HeaderSizes::Ns2 {
            self.ns2_stale
        } else {
            0
        };
        let base = if self.control { IP_HDR_LEN } else { base };
        base + stale + self.sr.size(self.sizes)
    }
}
