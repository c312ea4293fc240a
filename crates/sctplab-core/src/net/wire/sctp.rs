//! SCTP packet (RFC 9260 §3): a 12-byte common header followed by chunks.
//! The chunk types live in [`super::sctp_chunk`].
//!
//! Common header (§3.1): source port, destination port, verification tag,
//! checksum. The checksum is the CRC32c of the whole packet computed with
//! the checksum field zeroed (§6.8, Appendix B).

use super::checksum::sctp_crc32c;
use super::sctp_chunk::Chunk;
use super::{WireError, read_u16, read_u32, write_u16, write_u32};

/// Length of the common header.
pub const HEADER_LEN: usize = 12;

const CHECKSUM_AT: usize = 8;

/// An SCTP packet. The chunk list may not be empty on the wire.
///
/// RFC 9260 bundling rules (INIT, INIT ACK and SHUTDOWN COMPLETE travel
/// alone, §6.10) are the protocol code's business and are not enforced here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SctpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub vtag: u32,
    pub chunks: Vec<Chunk>,
}

impl SctpRepr {
    /// Size of the whole SCTP packet: common header plus every chunk with
    /// its padding.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.chunks.iter().map(Chunk::padded_len).sum::<usize>()
    }

    /// Sum of the user data carried by the DATA chunks.
    pub fn data_payload_len(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| match c {
                Chunk::Data(d) => d.payload_len as usize,
                Chunk::IData(d) => d.payload_len as usize,
                _ => 0,
            })
            .sum()
    }

    /// Writes the packet into `buf[..self.buffer_len()]`, including the
    /// CRC32c.
    ///
    /// # Panics
    /// If `buf` is shorter than `buffer_len()` or a chunk does not fit its
    /// 16-bit length field.
    pub fn emit(&self, buf: &mut [u8]) {
        let packet = &mut buf[..self.buffer_len()];
        write_u16(packet, 0, self.src_port);
        write_u16(packet, 2, self.dst_port);
        write_u32(packet, 4, self.vtag);
        let mut at = HEADER_LEN;
        for chunk in &self.chunks {
            at += chunk.emit(&mut packet[at..]);
        }
        // Appendix B: the CRC is bit-reflected, so its least significant
        // byte goes first; Linux and Wireshark agree on this byte order.
        let crc = sctp_crc32c(packet);
        packet[CHECKSUM_AT..CHECKSUM_AT + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// Parses a whole SCTP packet (`buf` is exactly the IP payload). The
    /// CRC32c is verified before anything else is looked at; then every
    /// chunk must parse (see the policy in [`super::sctp_chunk`]) and the
    /// chunks must cover the buffer exactly, up to an unknown chunk that
    /// stops the packet (RFC 9260 3.2), after which nothing is read.
    pub fn parse(buf: &[u8]) -> Result<SctpRepr, WireError> {
        let mut repr = SctpRepr {
            src_port: 0,
            dst_port: 0,
            vtag: 0,
            chunks: Vec::new(),
        };
        repr.parse_into(buf)?;
        Ok(repr)
    }

    /// [`SctpRepr::parse`] into `self`, reusing its chunk list and the gap and
    /// duplicate lists of the SACKs in it, so a receive loop that keeps one
    /// `SctpRepr` allocates nothing per packet once those have grown. On an
    /// error `self` holds some unspecified, valid packet.
    pub fn parse_into(&mut self, buf: &[u8]) -> Result<(), WireError> {
        if buf.len() < HEADER_LEN {
            return Err(WireError::Truncated);
        }
        let stored = u32::from_le_bytes([
            buf[CHECKSUM_AT],
            buf[CHECKSUM_AT + 1],
            buf[CHECKSUM_AT + 2],
            buf[CHECKSUM_AT + 3],
        ]);
        if sctp_crc32c(buf) != stored {
            return Err(WireError::BadChecksum);
        }
        let mut n = 0;
        let mut rest = &buf[HEADER_LEN..];
        let parsed = loop {
            if rest.is_empty() {
                break Ok(());
            }
            let used = match self.chunks.get_mut(n) {
                Some(slot) => Chunk::parse_in_place(rest, slot),
                None => Chunk::parse(rest).map(|(chunk, used)| {
                    self.chunks.push(chunk);
                    used
                }),
            };
            let used = match used {
                Ok(u) => u,
                Err(e) => break Err(e),
            };
            n += 1;
            // RFC 9260 3.2: the receiver discards what follows such a chunk unread.
            if matches!(&self.chunks[n - 1], Chunk::Unknown(u) if u.stops_packet()) {
                break Ok(());
            }
            match rest.get(used..) {
                Some(r) => rest = r,
                None => break Err(WireError::Truncated),
            }
        };
        self.chunks.truncate(n);
        parsed?;
        if self.chunks.is_empty() {
            return Err(WireError::Malformed("SCTP packet without chunks"));
        }
        self.src_port = read_u16(buf, 0)?;
        self.dst_port = read_u16(buf, 2)?;
        self.vtag = read_u32(buf, 4)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::checksum::crc32c;
    use super::super::sctp_chunk::{DataChunk, DataFlags, InitChunk, SackChunk};
    use super::*;

    fn data(tsn: u32, payload_len: u32) -> Chunk {
        Chunk::Data(DataChunk {
            tsn,
            stream: 0,
            ssn: tsn as u16,
            ppid: 0,
            flags: DataFlags::UNFRAGMENTED,
            payload_len,
        })
    }

    fn bundle() -> SctpRepr {
        SctpRepr {
            src_port: 5000,
            dst_port: 5001,
            vtag: 0xcafe_f00d,
            chunks: vec![
                Chunk::Sack(SackChunk {
                    cum_tsn_ack: 10,
                    a_rwnd: 65536,
                    gaps: vec![(2, 2)],
                    dups: vec![],
                    flags: 0,
                }),
                data(11, 3),
                data(12, 5),
                Chunk::CookieEcho { cookie: vec![7; 6] },
            ],
        }
    }

    fn emit_vec(repr: &SctpRepr) -> Vec<u8> {
        let mut buf = vec![0xee; repr.buffer_len()];
        repr.emit(&mut buf);
        buf
    }

    /// Recomputes the CRC of a hand-modified packet so that parsing gets
    /// past the checksum.
    fn fix_crc(buf: &mut [u8]) {
        if buf.len() >= HEADER_LEN {
            let crc = sctp_crc32c(buf);
            buf[8..12].copy_from_slice(&crc.to_le_bytes());
        }
    }

    #[test]
    fn bundle_round_trips() {
        let repr = bundle();
        // 12 + SACK 20 + DATA 20 + DATA 24 (21 padded) + COOKIE ECHO 12 (10 padded).
        assert_eq!(repr.buffer_len(), 12 + 20 + 20 + 24 + 12);
        assert_eq!(repr.data_payload_len(), 8);
        let buf = emit_vec(&repr);
        assert_eq!(SctpRepr::parse(&buf), Ok(repr));
    }

    #[test]
    fn common_header_and_crc_byte_order() {
        let repr = SctpRepr {
            src_port: 0x0102,
            dst_port: 0x0304,
            vtag: 0,
            chunks: vec![Chunk::Init(InitChunk {
                init_tag: 1,
                a_rwnd: 2,
                outbound_streams: 3,
                inbound_streams: 4,
                initial_tsn: 5,
                addrs: vec![],
                forward_tsn: false,
                cookie_preservative: None,
                unrecognized: vec![],
                ecn_capable: false,
                ext: Default::default(),
            })],
        };
        let buf = emit_vec(&repr);
        assert_eq!(buf.len(), 32);
        assert_eq!(&buf[..8], &[1, 2, 3, 4, 0, 0, 0, 0]);
        // The stored checksum is the CRC32c of the packet with the field
        // zeroed, least significant byte first (RFC 9260 Appendix B).
        let mut zeroed = buf.clone();
        zeroed[8..12].fill(0);
        assert_eq!(&buf[8..12], &crc32c(&zeroed).to_le_bytes());
    }

    #[test]
    fn one_full_data_chunk_size() {
        let repr = SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![data(1, 1448)],
        };
        assert_eq!(repr.buffer_len(), 12 + 1464);
        let buf = emit_vec(&repr);
        assert!(buf[12 + 16..].iter().all(|&b| b == 0), "payload is zeros");
        assert_eq!(SctpRepr::parse(&buf), Ok(repr));
    }

    #[test]
    fn corruption_is_detected() {
        let buf = emit_vec(&bundle());
        for i in 0..buf.len() {
            let mut bad = buf.clone();
            bad[i] ^= 0x01;
            assert_eq!(
                SctpRepr::parse(&bad),
                Err(WireError::BadChecksum),
                "byte {i}"
            );
        }
    }

    #[test]
    fn structural_errors_behind_a_valid_crc() {
        let mut empty = emit_vec(&bundle())[..12].to_vec();
        fix_crc(&mut empty);
        assert!(matches!(
            SctpRepr::parse(&empty),
            Err(WireError::Malformed(_))
        ));
        let mut trailing = emit_vec(&bundle());
        trailing.extend_from_slice(&[0, 0]);
        fix_crc(&mut trailing);
        assert_eq!(SctpRepr::parse(&trailing), Err(WireError::Truncated));
    }

    #[test]
    fn unknown_chunks_stop_or_skip_by_their_type_bits() {
        // RFC 9260 3.2. The bundle's first chunk (a SACK) retyped 0x40 (bits 01):
        // the parse ends with it and the rest is not read, not even trailing garbage.
        let mut stop = emit_vec(&bundle());
        stop[12] = 0x40;
        stop.extend_from_slice(&[0xff; 3]);
        fix_crc(&mut stop);
        let p = SctpRepr::parse(&stop).expect("parse");
        assert_eq!(p.chunks.len(), 1);
        assert!(matches!(&p.chunks[0], Chunk::Unknown(u) if u.kind == 0x40));
        // Retyped 0xc0 (bits 11): skipped, the three chunks behind it still parse.
        let mut skip = emit_vec(&bundle());
        skip[12] = 0xc0;
        fix_crc(&mut skip);
        let p = SctpRepr::parse(&skip).expect("parse");
        assert_eq!(p.chunks.len(), 4);
        assert_eq!(p.chunks[1..], bundle().chunks[1..]);
        assert_eq!(SctpRepr::parse(&emit_vec(&p)), Ok(p));
    }

    #[test]
    fn every_prefix_is_an_error_even_with_a_valid_crc() {
        let buf = emit_vec(&bundle());
        for len in 0..buf.len() {
            assert!(SctpRepr::parse(&buf[..len]).is_err(), "prefix {len}");
            // With the CRC recomputed the chunk walk itself must notice,
            // except where the prefix ends exactly on a chunk boundary.
            let mut prefix = buf[..len].to_vec();
            fix_crc(&mut prefix);
            let boundaries = [12, 32, 52, 76, 88];
            assert_eq!(
                SctpRepr::parse(&prefix).is_ok(),
                boundaries[1..].contains(&len),
                "prefix {len}"
            );
        }
    }

    #[test]
    fn mutated_packets_never_panic() {
        let buf = emit_vec(&bundle());
        for i in 0..buf.len() {
            for value in [0x00, 0x01, 0x03, 0x04, 0x07, 0x0b, 0x40, 0x7f, 0xff] {
                let mut bad = buf.clone();
                bad[i] = value;
                fix_crc(&mut bad);
                let _ = SctpRepr::parse(&bad);
            }
        }
    }

    #[test]
    fn parse_into_reuses_and_matches_parse() {
        // One representation across packets of different shapes decodes each exactly
        // as a fresh parse does, and keeps its lists' memory.
        let other = SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![data(1, 8)],
        };
        let mut r = SctpRepr::parse(&emit_vec(&bundle())).expect("bundle");
        for p in [other.clone(), bundle(), other, bundle()] {
            r.parse_into(&emit_vec(&p)).expect("parse");
            assert_eq!(r, p);
        }
        // A SACK decoded where a SACK was keeps that SACK's gap list.
        let gaps_at = |r: &SctpRepr| match &r.chunks[0] {
            Chunk::Sack(s) => s.gaps.as_ptr(),
            c => panic!("{c:?}"),
        };
        let before = gaps_at(&r);
        r.parse_into(&emit_vec(&bundle())).expect("parse");
        assert_eq!(gaps_at(&r), before);
        // A refused packet leaves a valid representation that the next one replaces.
        let mut bad = emit_vec(&bundle());
        bad[20] ^= 1;
        assert_eq!(r.parse_into(&bad), Err(WireError::BadChecksum));
        r.parse_into(&emit_vec(&bundle())).expect("parse");
        assert_eq!(r, bundle());
    }
}
