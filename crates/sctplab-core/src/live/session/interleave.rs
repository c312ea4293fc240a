//! I-DATA and I-FORWARD-TSN from a real peer (RFC 8260 sec. 2). The wire parser leaves
//! both chunks of unknown type (what they are to an end that does not offer
//! interleaving, RFC 9260 3.2); when this end offered I-DATA in its INIT or INIT ACK
//! the driver decodes them for the machine before it sees the packet, so a peer's
//! COOKIE ECHO with I-DATA bundled behind it is understood too (the machine decides
//! on negotiation as it handles the COOKIE ECHO, before the chunks after it).
//!
//! The parser also stops at the first chunk of a type it does not know whose two
//! high-order bits are 00 or 01 (RFC 9260 3.2), and I-DATA's type, 64, is one: with
//! I-DATA offered the driver parses the chunks after it (`parse_past_idata`), so a
//! packet of several I-DATA chunks reaches the machine whole.
//!
//! A chunk too short for its fields (an I-DATA under 20 bytes, an I-FORWARD-TSN whose
//! entries are not whole 8-byte ones) is counted in `malformed_chunks` and dropped;
//! the rest of the packet is processed.

use super::Counters;
use crate::net::wire::sctp_idata::I_DATA;
use crate::net::wire::{Chunk, SctpRepr, WireError};

/// Parses the chunks of `packet` (which `repr` holds parsed up to where the parser
/// stopped) that follow an I-DATA chunk, up to the end or to a chunk of another
/// unknown type that stops the packet. An error is the packet's: the caller counts
/// the datagram malformed, as the parser would have.
pub(super) fn parse_past_idata(repr: &mut SctpRepr, packet: &[u8]) -> Result<(), WireError> {
    if !matches!(repr.chunks.last(), Some(Chunk::Unknown(u)) if u.kind == I_DATA) {
        return Ok(());
    }
    // Where the parsed chunks end: 12 bytes of common header, then each chunk's
    // length padded to 4 bytes (RFC 9260 3.2).
    let mut at = 12;
    for _ in 0..repr.chunks.len() {
        let len = packet
            .get(at + 2..at + 4)
            .map_or(0, |b| usize::from(u16::from_be_bytes([b[0], b[1]])));
        at += len.next_multiple_of(4);
    }
    while let Some(rest) = packet.get(at..).filter(|r| !r.is_empty()) {
        let (chunk, used) = Chunk::parse(rest)?;
        let stops = matches!(&chunk, Chunk::Unknown(u) if u.stops_packet() && u.kind != I_DATA);
        repr.chunks.push(chunk);
        if stops || used == 0 {
            break;
        }
        at += used;
    }
    Ok(())
}

/// Replaces the packet's I-DATA and I-FORWARD-TSN chunks, left unknown by the parser,
/// by their decoded forms, and drops the malformed ones.
pub(super) fn decode(repr: &mut SctpRepr, counters: &mut Counters) {
    let mut bad = 0u64;
    repr.chunks.retain_mut(|c| {
        let Chunk::Unknown(u) = c else {
            return true;
        };
        match u.decode_interleaving() {
            None => true,
            Some(Ok(d)) => {
                *c = d;
                true
            }
            Some(Err(_)) => {
                bad += 1;
                false
            }
        }
    });
    counters.malformed_chunks += bad;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::UnknownChunk;
    use crate::net::wire::sctp_idata::{I_DATA, I_FORWARD_TSN};

    fn unknown(kind: u8, flags: u8, value: Vec<u8>) -> Chunk {
        Chunk::Unknown(UnknownChunk { kind, flags, value })
    }

    #[test]
    fn chunks_after_an_idata_chunk_are_parsed() {
        // Two I-DATA chunks and a SACK: the parser stops after the first I-DATA (type
        // 64, bits 01); the rest is parsed here.
        let idata = |tsn: u32| {
            let mut v = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9];
            v[..4].copy_from_slice(&tsn.to_be_bytes());
            unknown(I_DATA, 0x03, v)
        };
        let sack = Chunk::Sack(crate::net::wire::SackChunk {
            cum_tsn_ack: 4,
            a_rwnd: 1000,
            gaps: vec![],
            dups: vec![],
            flags: 0,
        });
        let full = SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![idata(10), idata(11), sack],
        };
        let mut buf = vec![0u8; full.buffer_len()];
        full.emit(&mut buf);
        let mut repr = SctpRepr::parse(&buf).expect("parse");
        assert_eq!(repr.chunks.len(), 1, "the parser stops at I-DATA");
        parse_past_idata(&mut repr, &buf).expect("rest");
        assert_eq!(repr, full);
        let mut c = Counters::default();
        decode(&mut repr, &mut c);
        assert!(matches!(&repr.chunks[1], Chunk::IData(d) if d.tsn == 11 && d.payload_len == 2));
        assert_eq!(c.malformed_chunks, 0);
    }

    #[test]
    fn idata_is_decoded_and_malformed_chunks_are_dropped() {
        // RFC 8260 2.1: TSN 7, stream 2, reserved, MID 5, PPID 0 (B and E set: 0x03),
        // then 3 bytes of user data. An I-DATA of 16 bytes (header cut short) and an
        // I-FORWARD-TSN with a 4-byte tail (entries are 8 bytes, sec. 2.3.1) are
        // malformed; a HEARTBEAT-like unknown type 0x80 stays unknown.
        let mut v = vec![0, 0, 0, 7, 0, 2, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0];
        v.extend_from_slice(b"abc");
        let mut repr = SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![
                unknown(I_DATA, 0x03, v),
                unknown(I_DATA, 0x03, vec![0; 12]),
                unknown(I_FORWARD_TSN, 0, vec![0; 8]),
                unknown(I_FORWARD_TSN, 0, vec![0, 0, 0, 9, 0, 1, 0, 0, 0, 0, 0, 4]),
                unknown(0x80, 0, vec![1, 2, 3, 4]),
            ],
        };
        let mut c = Counters::default();
        decode(&mut repr, &mut c);
        assert_eq!(c.malformed_chunks, 2);
        assert_eq!(repr.chunks.len(), 3);
        let Chunk::IData(d) = &repr.chunks[0] else {
            panic!("{:?}", repr.chunks[0]);
        };
        assert_eq!(
            (d.tsn, d.stream, d.mid, d.payload_len),
            (7, 2, 5, 3),
            "{d:?}"
        );
        assert_eq!(d.fsn(), 0);
        let Chunk::IForwardTsn(f) = &repr.chunks[1] else {
            panic!("{:?}", repr.chunks[1]);
        };
        assert_eq!((f.new_cum_tsn, f.skipped.len()), (9, 1));
        assert_eq!((f.skipped[0].stream, f.skipped[0].mid), (1, 4));
        assert!(matches!(&repr.chunks[2], Chunk::Unknown(u) if u.kind == 0x80));
    }
}
