//! IPv4 header (RFC 791 §3.1), without options.

use super::checksum::internet_checksum;
use super::{WireError, len_u16, read_u8, read_u16, write_u16};

/// Length of the IPv4 header this module emits (IHL = 5, no options).
pub const HEADER_LEN: usize = 20;

/// Flags/fragment-offset word with only Don't Fragment set: the simulator
/// never fragments, like a stack doing path MTU discovery (RFC 1191).
const FLAGS_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const FRAG_OFFSET_MASK: u16 = 0x1fff;

/// An IPv4 header. DSCP is emitted as zero and ignored on parse; the ECN field
/// (RFC 3168 sec. 5: the low two bits of the old TOS octet) is carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub protocol: u8,
    pub ttl: u8,
    pub ident: u16,
    /// The ECN codepoint (`net::aqm::{NOT_ECT, ECT0, ECT1, CE}`), two bits.
    pub ecn: u8,
    /// Bytes after the header (the transport segment).
    pub payload_len: usize,
}

impl Ipv4Repr {
    /// Bytes `emit` writes: the header only.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// The Total Length field: header plus payload.
    pub const fn total_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }

    /// Writes the 20-byte header, with DF set and a correct header checksum,
    /// into `buf[..20]`. The payload is not touched.
    ///
    /// # Panics
    /// If `buf` is shorter than 20 bytes or the total length exceeds 65535.
    pub fn emit(&self, buf: &mut [u8]) {
        let header = &mut buf[..HEADER_LEN];
        header[0] = 0x45; // version 4, IHL 5 words
        header[1] = self.ecn & 0b11; // DSCP 0, then the ECN field
        write_u16(header, 2, len_u16(self.total_len(), "IPv4 total"));
        write_u16(header, 4, self.ident);
        write_u16(header, 6, FLAGS_DF);
        header[8] = self.ttl;
        header[9] = self.protocol;
        write_u16(header, 10, 0);
        header[12..16].copy_from_slice(&self.src);
        header[16..20].copy_from_slice(&self.dst);
        let checksum = internet_checksum(header);
        write_u16(header, 10, checksum);
    }

    /// Parses an IPv4 header and returns it with the payload slice.
    ///
    /// Checks the version, IHL (options are accepted and skipped, since the
    /// header checksum covers them), Total Length against the buffer and the
    /// header checksum. Bytes after Total Length (link-layer padding) are
    /// ignored. Fragments are refused: a Repr has no way to express them.
    pub fn parse(buf: &[u8]) -> Result<(Ipv4Repr, &[u8]), WireError> {
        let first = read_u8(buf, 0)?;
        let version = first >> 4;
        if version != 4 {
            return Err(WireError::BadVersion(version));
        }
        let header_len = usize::from(first & 0x0f) * 4;
        if header_len < HEADER_LEN {
            return Err(WireError::BadLength);
        }
        let header = buf.get(..header_len).ok_or(WireError::Truncated)?;
        let total_len = usize::from(read_u16(header, 2)?);
        if total_len < header_len {
            return Err(WireError::BadLength);
        }
        let datagram = buf.get(..total_len).ok_or(WireError::Truncated)?;
        if internet_checksum(header) != 0 {
            return Err(WireError::BadChecksum);
        }
        let frag = read_u16(header, 6)?;
        if frag & FLAG_MF != 0 || frag & FRAG_OFFSET_MASK != 0 {
            return Err(WireError::Unsupported("IPv4 fragment"));
        }
        let repr = Ipv4Repr {
            src: [header[12], header[13], header[14], header[15]],
            dst: [header[16], header[17], header[18], header[19]],
            protocol: header[9],
            ttl: header[8],
            ident: read_u16(header, 4)?,
            ecn: header[1] & 0b11,
            payload_len: total_len - header_len,
        };
        Ok((repr, &datagram[header_len..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Ipv4Repr {
        Ipv4Repr {
            src: [192, 168, 0, 1],
            dst: [192, 168, 0, 199],
            protocol: 17,
            ttl: 64,
            ident: 0,
            ecn: 0,
            payload_len: 95,
        }
    }

    #[test]
    fn known_answer_header() {
        // Hand calculation of the checksum for this header (16-bit words):
        //   4500 + 0073 + 0000 + 4000 + 4011 + (0000) + c0a8 + 0001
        //   + c0a8 + 00c7 = 0x2479c
        //   fold: 0x479c + 0x2 = 0x479e; complement: 0xb861.
        let mut buf = [0u8; 20];
        example().emit(&mut buf);
        let expected = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(buf, expected);
    }

    #[test]
    fn round_trip_with_payload_and_trailing_padding() {
        let repr = Ipv4Repr {
            src: [10, 0, 0, 1],
            dst: [10, 0, 1, 2],
            protocol: 132,
            ttl: 63,
            ident: 0xbeef,
            ecn: 0b11,
            payload_len: 5,
        };
        let mut buf = vec![0u8; repr.total_len() + 3];
        repr.emit(&mut buf);
        buf[20..25].copy_from_slice(b"hello");
        let (parsed, payload) = Ipv4Repr::parse(&buf).expect("parse");
        assert_eq!(parsed, repr);
        assert_eq!(payload, b"hello");
    }

    #[test]
    fn options_are_skipped() {
        // IHL 6: one word of options (four NOPs); the checksum covers them.
        let mut buf = [0u8; 28];
        example().emit(&mut buf);
        let mut hdr = [0u8; 24];
        hdr[..20].copy_from_slice(&buf[..20]);
        hdr[0] = 0x46;
        hdr[20..24].fill(1);
        write_u16(&mut hdr, 2, 28);
        write_u16(&mut hdr, 10, 0);
        let c = internet_checksum(&hdr);
        write_u16(&mut hdr, 10, c);
        let mut packet = hdr.to_vec();
        packet.extend_from_slice(&[9, 9, 9, 9]);
        let (parsed, payload) = Ipv4Repr::parse(&packet).expect("parse");
        assert_eq!(parsed.payload_len, 4);
        assert_eq!(payload, &[9, 9, 9, 9]);
    }

    #[test]
    fn rejects_bad_fields() {
        let mut buf = [0u8; 115];
        example().emit(&mut buf);
        let mut bad = buf;
        bad[11] ^= 1;
        assert_eq!(Ipv4Repr::parse(&bad), Err(WireError::BadChecksum));
        let mut bad = buf;
        bad[0] = 0x65;
        assert_eq!(Ipv4Repr::parse(&bad), Err(WireError::BadVersion(6)));
        let mut bad = buf;
        bad[0] = 0x44;
        assert_eq!(Ipv4Repr::parse(&bad), Err(WireError::BadLength));
        let mut bad = buf;
        write_u16(&mut bad, 2, 19);
        assert_eq!(Ipv4Repr::parse(&bad), Err(WireError::BadLength));
        let mut frag = example();
        frag.payload_len = 0;
        let mut fbuf = [0u8; 20];
        frag.emit(&mut fbuf);
        write_u16(&mut fbuf, 6, FLAG_MF);
        write_u16(&mut fbuf, 10, 0);
        let c = internet_checksum(&fbuf);
        write_u16(&mut fbuf, 10, c);
        assert!(matches!(
            Ipv4Repr::parse(&fbuf),
            Err(WireError::Unsupported(_))
        ));
    }

    #[test]
    fn every_prefix_is_an_error() {
        let mut buf = [0u8; 115];
        example().emit(&mut buf);
        for len in 0..buf.len() {
            assert!(Ipv4Repr::parse(&buf[..len]).is_err(), "prefix {len}");
        }
        assert!(Ipv4Repr::parse(&buf).is_ok());
    }

    #[test]
    #[should_panic(expected = "IPv4 total")]
    fn oversized_datagram_panics() {
        let mut repr = example();
        repr.payload_len = 65516;
        repr.emit(&mut [0u8; 20]);
    }
}
