//! UDP header (RFC 768).

use super::checksum::ipv4_transport_checksum;
use super::{IpProtocol, WireError, len_u16, read_u16, write_u16};

pub const HEADER_LEN: usize = 8;

/// A UDP header. The length and checksum fields are derived when emitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
}

impl UdpRepr {
    /// Bytes of header `emit` writes (the payload is the caller's).
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into `buf[..8]` and the checksum over the IPv4
    /// pseudo header, this header and `buf[8..8 + payload_len]`, which must
    /// already hold the payload.
    ///
    /// # Panics
    /// If `buf` is shorter than `8 + payload_len` or that exceeds 65535.
    pub fn emit(&self, buf: &mut [u8], src_ip: [u8; 4], dst_ip: [u8; 4], payload_len: usize) {
        let len = HEADER_LEN + payload_len;
        let datagram = &mut buf[..len];
        write_u16(datagram, 0, self.src_port);
        write_u16(datagram, 2, self.dst_port);
        write_u16(datagram, 4, len_u16(len, "UDP"));
        write_u16(datagram, 6, 0);
        let checksum = match ipv4_transport_checksum(src_ip, dst_ip, IpProtocol::UDP, datagram) {
            // RFC 768: a computed zero is sent as all ones, since zero on
            // the wire means "no checksum".
            0 => 0xffff,
            c => c,
        };
        write_u16(datagram, 6, checksum);
    }

    /// Parses a UDP datagram (`buf` is the IP payload) and returns the
    /// header and the payload slice. The Length field must fit in `buf`;
    /// bytes beyond it are ignored. A zero checksum means "not computed"
    /// (RFC 768) and is accepted; any other must verify.
    pub fn parse(
        buf: &[u8],
        src_ip: [u8; 4],
        dst_ip: [u8; 4],
    ) -> Result<(UdpRepr, &[u8]), WireError> {
        let len = usize::from(read_u16(buf, 4)?);
        if len < HEADER_LEN {
            return Err(WireError::BadLength);
        }
        let datagram = buf.get(..len).ok_or(WireError::Truncated)?;
        if read_u16(datagram, 6)? != 0
            && ipv4_transport_checksum(src_ip, dst_ip, IpProtocol::UDP, datagram) != 0
        {
            return Err(WireError::BadChecksum);
        }
        let repr = UdpRepr {
            src_port: read_u16(datagram, 0)?,
            dst_port: read_u16(datagram, 2)?,
        };
        Ok((repr, &datagram[HEADER_LEN..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: [u8; 4] = [10, 0, 0, 1];
    const DST: [u8; 4] = [10, 0, 0, 2];

    #[test]
    fn known_answer() {
        // Ports 1000 -> 2000, 4 zero payload bytes, 10.0.0.1 -> 10.0.0.2.
        // Hand calculation of the checksum (16-bit words):
        //   pseudo header: 0a00 + 0001 + 0a00 + 0002 + 0011 + 000c = 0x1420
        //   header:        03e8 + 07d0 + 000c + (0000)            = 0x0bc4
        //   payload: zeros. Sum 0x1fe4, no carry; complement 0xe01b.
        let mut buf = [0u8; 12];
        UdpRepr {
            src_port: 1000,
            dst_port: 2000,
        }
        .emit(&mut buf, SRC, DST, 4);
        assert_eq!(
            buf,
            [0x03, 0xe8, 0x07, 0xd0, 0x00, 0x0c, 0xe0, 0x1b, 0, 0, 0, 0]
        );
    }

    #[test]
    fn round_trip() {
        let repr = UdpRepr {
            src_port: 5001,
            dst_port: 53,
        };
        let mut buf = vec![0u8; 8 + 100];
        buf[8..].fill(0x5a);
        repr.emit(&mut buf, SRC, DST, 100);
        let (parsed, payload) = UdpRepr::parse(&buf, SRC, DST).expect("parse");
        assert_eq!(parsed, repr);
        assert_eq!(payload.len(), 100);
        // Swapping the addresses keeps the sum (addition commutes), but a
        // different address fails the pseudo-header checksum.
        assert_eq!(UdpRepr::parse(&buf, DST, SRC).map(|_| ()), Ok(()));
        assert_eq!(
            UdpRepr::parse(&buf, SRC, [10, 0, 0, 3]).map(|_| ()),
            Err(WireError::BadChecksum)
        );
    }

    #[test]
    fn zero_checksum_is_accepted() {
        let mut buf = [0u8; 8];
        UdpRepr {
            src_port: 1,
            dst_port: 2,
        }
        .emit(&mut buf, SRC, DST, 0);
        write_u16(&mut buf, 6, 0);
        assert!(UdpRepr::parse(&buf, SRC, DST).is_ok());
    }

    #[test]
    fn computed_zero_is_sent_as_ones() {
        // Choose payload so that the one's complement sum is 0xffff. The
        // pseudo header + header words without payload sum to S; adding the
        // word !S (folded) makes the total 0xffff, so the checksum is 0.
        let repr = UdpRepr {
            src_port: 7,
            dst_port: 9,
        };
        let mut buf = [0u8; 10];
        repr.emit(&mut buf, SRC, DST, 2);
        let c = u16::from_be_bytes([buf[6], buf[7]]);
        // With zero payload the checksum c = !S, so the payload word c
        // brings the sum to 0xffff.
        buf[8..10].copy_from_slice(&c.to_be_bytes());
        repr.emit(&mut buf, SRC, DST, 2);
        assert_eq!(&buf[6..8], &[0xff, 0xff]);
        assert!(UdpRepr::parse(&buf, SRC, DST).is_ok());
    }

    #[test]
    fn every_prefix_is_an_error() {
        let mut buf = [0u8; 20];
        UdpRepr {
            src_port: 1,
            dst_port: 2,
        }
        .emit(&mut buf, SRC, DST, 12);
        for len in 0..buf.len() {
            assert!(
                UdpRepr::parse(&buf[..len], SRC, DST).is_err(),
                "prefix {len}"
            );
        }
        let mut bad = buf;
        write_u16(&mut bad, 4, 7);
        assert_eq!(
            UdpRepr::parse(&bad, SRC, DST).map(|_| ()),
            Err(WireError::BadLength)
        );
    }
}
