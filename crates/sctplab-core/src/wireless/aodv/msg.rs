//! AODV control messages: the fields ns-2.35 carries (aodv/aodv_packet.h), the size ns-2
//! charges for them on the air, and a real RFC 3561 section 5 encoding for pcap.
//!
//! Two lengths exist and they differ on purpose:
//! - [`AodvMsg::ns2_len`] is what ns-2.35 puts in the common header's size: a 20-byte IP
//!   header plus `size()` of its own structs (RREQ 7 words, RREP 6 words, RERR
//!   `2 n + 1` words), with no UDP header (ns-2 addresses AODV by port 255 of its own
//!   IP header). This is the default for airtime, queueing and traces.
//! - [`AodvMsg::encoded_len`] is the RFC 3561 message (RREQ 24, RREP 20, RERR
//!   `4 + 8 n` bytes); a real stack adds UDP (8 bytes, port 654) and IPv4 (20 bytes).
//!
//! ns-2 carries a send timestamp in RREQ and RREP to measure discovery latency; the RFC
//! has no such field, so [`AodvMsg::encode`] leaves it out and [`AodvMsg::decode`] sets it
//! to zero.

use crate::net::wire::WireError;
use crate::sim::SimTime;

/// The AODV UDP port (RFC 3561 section 5).
pub const AODV_UDP_PORT: u16 = 654;

/// ns-2's IP header length, added to every AODV message's size (aodv.cc `IP_HDR_LEN`).
pub const NS2_IP_HDR_LEN: u32 = 20;

/// RFC 3561 message type numbers (section 5.1-5.3).
const TYPE_RREQ: u8 = 1;
const TYPE_RREP: u8 = 2;
const TYPE_RERR: u8 = 3;

const RREQ_LEN: usize = 24;
const RREP_LEN: usize = 20;
const RERR_HDR_LEN: usize = 4;
const RERR_ENTRY_LEN: usize = 8;

/// Route request. `hop_count` follows ns-2: the originator sends 1 and each forwarder adds
/// one before rebroadcasting, so a receiver reads its distance from the originator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rreq {
    pub hop_count: u8,
    /// ns-2's broadcast id (RFC: RREQ ID).
    pub bcast_id: u32,
    pub dst: u32,
    pub dst_seqno: u32,
    /// The originator (ns-2 `rq_src`).
    pub src: u32,
    pub src_seqno: u32,
    /// When the originator sent it (ns-2 `rq_timestamp`; not on the RFC wire).
    pub timestamp: SimTime,
}

/// Route reply. The hop towards the destination is the IP source of the packet that
/// carried it (ns-2 writes the forwarder's address into `rp_src` for the same purpose).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rrep {
    pub hop_count: u8,
    pub dst: u32,
    pub dst_seqno: u32,
    /// The RREQ originator, to whom the reply travels (ns-2 uses the IP destination).
    pub orig: u32,
    /// Whole seconds, as ns-2's `sendReply` truncates it (RFC: milliseconds on the wire).
    pub lifetime_s: u32,
    /// The answered RREQ's timestamp (ns-2 `rp_timestamp`; not on the RFC wire).
    pub timestamp: SimTime,
}

/// One unreachable destination in a route error.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unreachable {
    pub dst: u32,
    pub seqno: u32,
}

/// Route error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rerr {
    pub unreachable: Vec<Unreachable>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
}

impl AodvMsg {
    /// Bytes ns-2.35 charges for this message (IP header included, no UDP header):
    /// RREQ 48, RREP 44, RERR 20 + 4 (2 n + 1) (aodv.cc `sendRequest`, `sendReply`,
    /// `sendError` with aodv_packet.h `size()`).
    pub fn ns2_len(&self) -> u32 {
        let words = match self {
            AodvMsg::Rreq(_) => 7,
            AodvMsg::Rrep(_) => 6,
            AodvMsg::Rerr(e) => 2 * e.unreachable.len() as u32 + 1,
        };
        NS2_IP_HDR_LEN + 4 * words
    }

    /// Length of the RFC 3561 encoding (the UDP payload).
    pub fn encoded_len(&self) -> usize {
        match self {
            AodvMsg::Rreq(_) => RREQ_LEN,
            AodvMsg::Rrep(_) => RREP_LEN,
            AodvMsg::Rerr(e) => RERR_HDR_LEN + RERR_ENTRY_LEN * e.unreachable.len(),
        }
    }

    /// Writes the RFC 3561 message into `buf[..encoded_len()]` and returns its length.
    /// Flags are zero (ns-2 sets none); a RERR lists at most 255 destinations.
    ///
    /// # Panics
    /// If `buf` is shorter than `encoded_len()` or a RERR has more than 255 entries.
    pub fn encode(&self, buf: &mut [u8]) -> usize {
        let len = self.encoded_len();
        let out = &mut buf[..len];
        out.fill(0);
        match self {
            AodvMsg::Rreq(q) => {
                out[0] = TYPE_RREQ;
                out[3] = q.hop_count;
                put_u32(out, 4, q.bcast_id);
                put_u32(out, 8, q.dst);
                put_u32(out, 12, q.dst_seqno);
                put_u32(out, 16, q.src);
                put_u32(out, 20, q.src_seqno);
            }
            AodvMsg::Rrep(p) => {
                out[0] = TYPE_RREP;
                out[3] = p.hop_count;
                put_u32(out, 4, p.dst);
                put_u32(out, 8, p.dst_seqno);
                put_u32(out, 12, p.orig);
                put_u32(out, 16, p.lifetime_s.saturating_mul(1000));
            }
            AodvMsg::Rerr(e) => {
                out[0] = TYPE_RERR;
                out[3] = u8::try_from(e.unreachable.len()).expect("RERR lists at most 255");
                for (i, u) in e.unreachable.iter().enumerate() {
                    let at = RERR_HDR_LEN + RERR_ENTRY_LEN * i;
                    put_u32(out, at, u.dst);
                    put_u32(out, at + 4, u.seqno);
                }
            }
        }
        len
    }

    /// Parses an RFC 3561 RREQ, RREP or RERR (the UDP payload). Bytes beyond the message
    /// are ignored; timestamps come back as zero; the RREP lifetime is truncated to whole
    /// seconds.
    pub fn decode(buf: &[u8]) -> Result<AodvMsg, WireError> {
        let kind = *buf.first().ok_or(WireError::Truncated)?;
        match kind {
            TYPE_RREQ => {
                let b = buf.get(..RREQ_LEN).ok_or(WireError::Truncated)?;
                Ok(AodvMsg::Rreq(Rreq {
                    hop_count: b[3],
                    bcast_id: get_u32(b, 4),
                    dst: get_u32(b, 8),
                    dst_seqno: get_u32(b, 12),
                    src: get_u32(b, 16),
                    src_seqno: get_u32(b, 20),
                    timestamp: SimTime::ZERO,
                }))
            }
            TYPE_RREP => {
                let b = buf.get(..RREP_LEN).ok_or(WireError::Truncated)?;
                Ok(AodvMsg::Rrep(Rrep {
                    hop_count: b[3],
                    dst: get_u32(b, 4),
                    dst_seqno: get_u32(b, 8),
                    orig: get_u32(b, 12),
                    lifetime_s: get_u32(b, 16) / 1000,
                    timestamp: SimTime::ZERO,
                }))
            }
            TYPE_RERR => {
                let hdr = buf.get(..RERR_HDR_LEN).ok_or(WireError::Truncated)?;
                let n = usize::from(hdr[3]);
                if n == 0 {
                    // RFC 3561 5.3: DestCount must be at least 1.
                    return Err(WireError::Malformed("RERR with DestCount 0"));
                }
                let b = buf
                    .get(..RERR_HDR_LEN + RERR_ENTRY_LEN * n)
                    .ok_or(WireError::Truncated)?;
                let unreachable = (0..n)
                    .map(|i| {
                        let at = RERR_HDR_LEN + RERR_ENTRY_LEN * i;
                        Unreachable {
                            dst: get_u32(b, at),
                            seqno: get_u32(b, at + 4),
                        }
                    })
                    .collect();
                Ok(AodvMsg::Rerr(Rerr { unreachable }))
            }
            _ => Err(WireError::Unsupported("AODV message type")),
        }
    }
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Callers have already checked that `buf` covers `at..at + 4`.
fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::UdpRepr;

    fn rreq() -> AodvMsg {
        AodvMsg::Rreq(Rreq {
            hop_count: 3,
            bcast_id: 0x0102_0304,
            dst: 0x0a00_0008,
            dst_seqno: 6,
            src: 0x0a00_0001,
            src_seqno: 4,
            timestamp: SimTime::ZERO,
        })
    }
    fn rrep() -> AodvMsg {
        AodvMsg::Rrep(Rrep {
            hop_count: 7,
            dst: 0x0a00_0008,
            dst_seqno: 4,
            orig: 0x0a00_0001,
            lifetime_s: 10,
            timestamp: SimTime::ZERO,
        })
    }
    fn rerr(n: u32) -> AodvMsg {
        AodvMsg::Rerr(Rerr {
            unreachable: (0..n)
                .map(|i| Unreachable {
                    dst: 0x0a00_0010 + i,
                    seqno: 2 * i + 1,
                })
                .collect(),
        })
    }

    #[test]
    fn ns2_sizes() {
        // aodv_packet.h: RREQ size() = 7 * 4 = 28, RREP 6 * 4 = 24, RERR (2n + 1) * 4;
        // aodv.cc adds IP_HDR_LEN = 20 to each.
        assert_eq!(rreq().ns2_len(), 48);
        assert_eq!(rrep().ns2_len(), 44);
        assert_eq!(rerr(1).ns2_len(), 32);
        assert_eq!(rerr(3).ns2_len(), 48);
    }

    #[test]
    fn rfc_layout_known_answer() {
        // RFC 3561 5.1: type 1, flags, reserved, hop count, then five 32-bit fields.
        let mut buf = [0xffu8; 64];
        assert_eq!(rreq().encode(&mut buf), 24);
        assert_eq!(
            &buf[..24],
            &[
                1, 0, 0, 3, 1, 2, 3, 4, 10, 0, 0, 8, 0, 0, 0, 6, 10, 0, 0, 1, 0, 0, 0, 4
            ]
        );
        // 5.2: lifetime in milliseconds: 10 s = 10000 = 0x2710.
        assert_eq!(rrep().encode(&mut buf), 20);
        assert_eq!(
            &buf[..20],
            &[
                2, 0, 0, 7, 10, 0, 0, 8, 0, 0, 0, 4, 10, 0, 0, 1, 0, 0, 0x27, 0x10
            ]
        );
        // 5.3: 4-byte header with DestCount, then (address, seqno) pairs.
        assert_eq!(rerr(2).encode(&mut buf), 20);
        assert_eq!(
            &buf[..20],
            &[
                3, 0, 0, 2, 10, 0, 0, 0x10, 0, 0, 0, 1, 10, 0, 0, 0x11, 0, 0, 0, 3
            ]
        );
    }

    #[test]
    fn round_trip_through_udp_654() {
        let src_ip = [10, 0, 0, 1];
        let dst_ip = [255, 255, 255, 255];
        for msg in [rreq(), rrep(), rerr(1), rerr(5)] {
            let mut buf = vec![0u8; 8 + msg.encoded_len()];
            let n = msg.encode(&mut buf[8..]);
            let udp = UdpRepr {
                src_port: AODV_UDP_PORT,
                dst_port: AODV_UDP_PORT,
            };
            udp.emit(&mut buf, src_ip, dst_ip, n);
            let (hdr, payload) = UdpRepr::parse(&buf, src_ip, dst_ip).expect("valid UDP");
            assert_eq!(hdr, udp);
            assert_eq!(AodvMsg::decode(payload), Ok(msg));
        }
    }

    #[test]
    fn decode_rejects_bad_input() {
        assert_eq!(AodvMsg::decode(&[]), Err(WireError::Truncated));
        assert_eq!(AodvMsg::decode(&[1, 0, 0]), Err(WireError::Truncated));
        assert_eq!(
            AodvMsg::decode(&[3, 0, 0, 2, 0, 0, 0, 0]),
            Err(WireError::Truncated)
        );
        assert!(matches!(
            AodvMsg::decode(&[3, 0, 0, 0]),
            Err(WireError::Malformed(_))
        ));
        assert!(matches!(
            AodvMsg::decode(&[4, 0, 0, 0]),
            Err(WireError::Unsupported(_))
        ));
    }
}
