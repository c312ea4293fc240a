//! Byte-level helpers around an encoded SCTP packet: where the DATA chunks' user data
//! lies (the typed `SctpRepr` keeps lengths only), and the IPv4 + UDP framing of a
//! datagram for the pcap file (RFC 6951: SCTP packet as the UDP payload).

use crate::net::wire::checksum::sctp_crc32c;
use crate::net::wire::sctp_idata::{I_DATA, IDataChunk};
use crate::net::wire::{IPV4_HEADER_LEN, Ipv4Repr, UdpRepr};

/// One DATA or I-DATA chunk of an encoded packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataAt {
    pub tsn: u32,
    pub stream: u16,
    pub flags: u8,
    /// Stream sequence number (RFC 9260 3.3.1); 0 in an I-DATA chunk.
    pub ssn: u16,
    /// I-DATA (RFC 8260 sec. 2.1): the Message Identifier; None in a DATA chunk.
    pub mid: Option<u32>,
    /// User data: `packet[start..end]`.
    pub start: usize,
    pub end: usize,
}

const DATA_HEADER: usize = 16;
const IDATA_HEADER: usize = IDataChunk::HEADER_LEN;

/// Calls `f` for every DATA chunk of `packet` (common header included), in order, and
/// with `idata` (the association speaks I-DATA, RFC 8260) every I-DATA chunk too;
/// without it an I-DATA chunk is of a type this end does not know, whose bits 01 end
/// the packet (RFC 9260 3.2). Stops at the first chunk that does not fit; callers run
/// this only on packets `SctpRepr::parse` accepted.
pub fn for_each_data(packet: &[u8], idata: bool, mut f: impl FnMut(DataAt)) {
    let mut at = 12;
    while at + 4 <= packet.len() {
        let kind = packet[at];
        let len = usize::from(u16::from_be_bytes([packet[at + 2], packet[at + 3]]));
        if len < 4 || at + len > packet.len() {
            return;
        }
        if idata && kind == I_DATA {
            if len >= IDATA_HEADER {
                let c = &packet[at..at + len];
                f(DataAt {
                    tsn: u32::from_be_bytes([c[4], c[5], c[6], c[7]]),
                    stream: u16::from_be_bytes([c[8], c[9]]),
                    flags: c[1],
                    ssn: 0,
                    mid: Some(u32::from_be_bytes([c[12], c[13], c[14], c[15]])),
                    start: at + IDATA_HEADER,
                    end: at + len,
                });
            }
            at += len.next_multiple_of(4);
            continue;
        }
        // RFC 9260 3.2: nothing behind an unknown chunk of type 00 or 01 is processed.
        if crate::net::wire::sctp_chunk::stops_packet(kind) {
            return;
        }
        if kind == 0 && len >= DATA_HEADER {
            let c = &packet[at..at + len];
            f(DataAt {
                tsn: u32::from_be_bytes([c[4], c[5], c[6], c[7]]),
                stream: u16::from_be_bytes([c[8], c[9]]),
                flags: c[1],
                ssn: u16::from_be_bytes([c[10], c[11]]),
                mid: None,
                start: at + DATA_HEADER,
                end: at + len,
            });
        }
        at += len.next_multiple_of(4);
    }
}

/// Recomputes the CRC32c of a packet whose bytes were changed after `emit`.
pub fn reseal(packet: &mut [u8]) {
    if packet.len() >= 12 {
        let crc = sctp_crc32c(packet);
        packet[8..12].copy_from_slice(&crc.to_le_bytes());
    }
}

/// IPv4 and UDP headers in front of `payload`, into `out` (cleared first), as the
/// datagram appeared on the wire: the record a LINKTYPE_RAW pcap file holds.
pub fn frame_udp(
    out: &mut Vec<u8>,
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    ident: u16,
    payload: &[u8],
) {
    let udp_len = 8 + payload.len();
    out.clear();
    out.resize(IPV4_HEADER_LEN + udp_len, 0);
    let ip = Ipv4Repr {
        src: src.0,
        dst: dst.0,
        protocol: 17,
        ttl: 64,
        ident,
        ecn: 0,
        payload_len: udp_len,
    };
    ip.emit(&mut out[..IPV4_HEADER_LEN]);
    out[IPV4_HEADER_LEN + 8..].copy_from_slice(payload);
    UdpRepr {
        src_port: src.1,
        dst_port: dst.1,
    }
    .emit(&mut out[IPV4_HEADER_LEN..], src.0, dst.0, payload.len());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::{Chunk, DataChunk, DataFlags, SctpRepr, parse_ipv4_packet};

    #[test]
    fn data_chunks_are_found_and_resealed_packets_parse() {
        let repr = SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![
                Chunk::CookieAck,
                Chunk::Data(DataChunk {
                    tsn: 9,
                    stream: 2,
                    ssn: 0,
                    ppid: 0,
                    flags: DataFlags::BEGIN,
                    payload_len: 5,
                }),
                Chunk::Data(DataChunk {
                    tsn: 10,
                    stream: 2,
                    ssn: 0,
                    ppid: 0,
                    flags: DataFlags::END,
                    payload_len: 3,
                }),
            ],
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf);
        let mut found = Vec::new();
        for_each_data(&buf, false, |d| found.push(d));
        // 12 common header + 4 COOKIE ACK; DATA 16 + 5 padded to 24; then 16 + 3.
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].tsn, found[0].start, found[0].end), (9, 32, 37));
        assert_eq!((found[1].tsn, found[1].start, found[1].end), (10, 56, 59));
        buf[32..37].copy_from_slice(b"hello");
        assert!(SctpRepr::parse(&buf).is_err(), "stale checksum");
        reseal(&mut buf);
        assert_eq!(SctpRepr::parse(&buf), Ok(repr));
    }

    #[test]
    fn udp_frame_parses_back() {
        let mut out = Vec::new();
        frame_udp(
            &mut out,
            ([127, 0, 0, 1], 9899),
            ([127, 0, 0, 1], 9900),
            7,
            b"abcd",
        );
        assert_eq!(out.len(), 20 + 8 + 4);
        let (ip, _, _) = parse_ipv4_packet(&out).expect("parse");
        assert_eq!((ip.protocol, ip.payload_len), (17, 12));
        let (udp, payload) = UdpRepr::parse(&out[20..], ip.src, ip.dst).expect("udp");
        assert_eq!(
            (udp.src_port, udp.dst_port, payload),
            (9899, 9900, &b"abcd"[..])
        );
    }
}
