//! I-DATA, I-FORWARD-TSN and Supported Extensions byte for byte (RFC 8260 sec. 2.1,
//! 2.3.1; RFC 5061 sec. 4.2.7), and what a malformed one parses as.

use super::*;
use crate::net::wire::Chunk;

/// Parses `buf` (one chunk) as the wire module does, then decodes it as an
/// interleaving chunk: (chunk, bytes used).
fn parse_decoded(buf: &[u8]) -> (Result<Chunk, WireError>, usize) {
    let (c, used) = Chunk::parse(buf).expect("a chunk");
    let Chunk::Unknown(u) = c else {
        panic!("parsed as {c:?}, not as a chunk of unknown type");
    };
    (u.decode_interleaving().expect("type 64 or 194"), used)
}

#[test]
fn i_data_bytes_are_rfc_8260_sec_2_1() {
    // A middle fragment (no B, no E) of message 0x01020304 on stream 5, FSN 7, TSN
    // 0x0a0b0c0d, 3 bytes of user data: type 64, flags 0, length 20 + 3 = 23, padded
    // to 24; stream 5 and 16 reserved zero bits; MID; FSN; data and one pad byte.
    let c = Chunk::IData(IDataChunk {
        tsn: 0x0a0b_0c0d,
        stream: 5,
        mid: 0x0102_0304,
        ppid_fsn: 7,
        flags: DataFlags::empty(),
        payload_len: 3,
    });
    let mut buf = [0xeeu8; 24];
    assert_eq!(c.emit(&mut buf), 24);
    assert_eq!(
        buf,
        [
            64, 0, 0, 23, 0x0a, 0x0b, 0x0c, 0x0d, 0, 5, 0, 0, 1, 2, 3, 4, 0, 0, 0, 7, 0, 0, 0, 0
        ]
    );
    let (back, used) = parse_decoded(&buf);
    assert_eq!((back, used), (Ok(c), 24));
}

#[test]
fn the_first_fragment_carries_the_ppid_and_fsn_zero() {
    // B set: the fourth word is the PPID (here 51, WebRTC string) and the FSN is 0.
    let d = IDataChunk {
        tsn: 1,
        stream: 0,
        mid: 0,
        ppid_fsn: 51,
        flags: DataFlags::BEGIN | DataFlags::UNORDERED,
        payload_len: 0,
    };
    assert_eq!((d.fsn(), d.ppid()), (0, Some(51)));
    let later = IDataChunk {
        flags: DataFlags::END,
        ..d
    };
    assert_eq!((later.fsn(), later.ppid()), (51, None));
    // Flags go in the chunk header as DATA's do: U = 0x04, B = 0x02.
    let mut buf = [0u8; 20];
    Chunk::IData(d).emit(&mut buf);
    assert_eq!(buf[1], 0x06);
}

#[test]
fn i_forward_tsn_bytes_are_rfc_8260_sec_2_3_1() {
    // New cumulative TSN 0x01020304; stream 9, ordered, MID 0x11223344; stream 2,
    // unordered (U is the last of 15 reserved bits), MID 0xffffffff. Length 8 + 2 x 8.
    let c = Chunk::IForwardTsn(IForwardTsnChunk {
        new_cum_tsn: 0x0102_0304,
        skipped: vec![
            SkippedMessage {
                stream: 9,
                unordered: false,
                mid: 0x1122_3344,
            },
            SkippedMessage {
                stream: 2,
                unordered: true,
                mid: u32::MAX,
            },
        ],
    });
    let mut buf = [0u8; 24];
    assert_eq!(c.emit(&mut buf), 24);
    assert_eq!(
        buf,
        [
            194, 0, 0, 24, 1, 2, 3, 4, 0, 9, 0, 0, 0x11, 0x22, 0x33, 0x44, 0, 2, 0, 1, 0xff, 0xff,
            0xff, 0xff
        ]
    );
    let (back, used) = parse_decoded(&buf);
    assert_eq!((back, used), (Ok(c), 24));
}

#[test]
fn to_this_end_they_are_chunks_of_unknown_type_and_a_malformed_one_an_error() {
    // RFC 9260 3.2: type 64 (bits 01) stops the packet and is reported, 194 (bits 11)
    // is skipped and reported; reading a short I-DATA (8 bytes, under its 20-byte
    // header) or an I-FORWARD-TSN with half an entry is an error, never a panic.
    let short = [64u8, 0, 0, 8, 0, 0, 0, 1];
    let (c, used) = Chunk::parse(&short).expect("parses as unknown");
    assert_eq!(used, 8);
    let Chunk::Unknown(u) = c else {
        panic!("{c:?}")
    };
    assert!(u.stops_packet() && u.reports());
    assert_eq!(u.decode_interleaving(), Some(Err(WireError::BadLength)));
    let half = [194u8, 0, 0, 12, 0, 0, 0, 1, 0, 5, 0, 0];
    assert_eq!(parse_decoded(&half).0, Err(WireError::BadLength));
    let (c, _) = Chunk::parse(&half).expect("parses as unknown");
    assert!(matches!(c, Chunk::Unknown(ref u) if !u.stops_packet() && u.reports()));
    // Other unknown types are not interleaving chunks.
    let other = crate::net::wire::UnknownChunk {
        kind: 0x41,
        flags: 0,
        value: vec![],
    };
    assert_eq!(other.decode_interleaving(), None);
}
