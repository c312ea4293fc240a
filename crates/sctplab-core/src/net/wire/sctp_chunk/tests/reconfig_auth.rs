//! RE-CONFIG (RFC 6525) and AUTH (RFC 4895) encodings, byte for byte from the RFCs'
//! figures, and malformed ones rejected without a panic.

use super::*;
use crate::net::wire::WireError;

fn reconfig(params: Vec<ReconfigParam>) -> Chunk {
    Chunk::Reconfig(ReconfigChunk { params })
}

/// RFC 6525 4.1 (figure): type 13, length 16 + 2 x 3 = 22, then the three sequence
/// numbers / TSN and the stream list; the chunk length leaves the final 2 bytes of
/// padding out (RFC 9260 3.2), so it is 4 + 22 = 26 and the chunk takes 28.
#[test]
fn outgoing_reset_bytes() {
    let c = reconfig(vec![ReconfigParam::OutgoingSsnReset {
        req_seq: 0x0102_0304,
        resp_seq: 5,
        last_tsn: 9,
        streams: vec![1, 2, 3],
    }]);
    let want: Vec<u8> = vec![
        0x82, 0, 0, 26, // RE-CONFIG, flags, length
        0, 13, 0, 22, // Outgoing SSN Reset Request, length
        1, 2, 3, 4, // request sequence number
        0, 0, 0, 5, // response sequence number
        0, 0, 0, 9, // sender's last assigned TSN
        0, 1, 0, 2, 0, 3, // streams
        0, 0, // padding
    ];
    assert_eq!(emit_vec(&c), want);
    assert_eq!(Chunk::parse(&want), Ok((c, 28)));
}

/// A response to an SSN/TSN reset (4.4, 20 bytes with both TSNs) bundled with an Add
/// Outgoing Streams request (4.5, 12 bytes, two reserved zero bytes).
#[test]
fn response_and_add_streams_bytes() {
    let c = reconfig(vec![
        ReconfigParam::Response {
            resp_seq: 7,
            result: ReconfigResult::InProgress,
            tsns: Some((0x10, 0x20)),
        },
        ReconfigParam::AddOutgoingStreams {
            req_seq: 8,
            count: 0x0203,
        },
    ]);
    let want: Vec<u8> = vec![
        0x82, 0, 0, 36, // 4 + 20 + 12
        0, 16, 0, 20, 0, 0, 0, 7, 0, 0, 0, 6, 0, 0, 0, 0x10, 0, 0, 0, 0x20, // response
        0, 17, 0, 12, 0, 0, 0, 8, 2, 3, 0, 0, // add outgoing streams
    ];
    assert_eq!(emit_vec(&c), want);
    assert_eq!(Chunk::parse(&want), Ok((c, 36)));
}

/// RFC 4895 4.2: type 15, key id, HMAC id, the HMAC (20 bytes for SHA-1).
#[test]
fn auth_bytes() {
    let c = Chunk::Auth(AuthChunk {
        key_id: 0,
        hmac_id: HMAC_SHA1,
        hmac: (1..=20).collect(),
    });
    let mut want = vec![15, 0, 0, 28, 0, 0, 0, 1];
    want.extend(1..=20u8);
    assert_eq!(emit_vec(&c), want);
    assert_eq!(Chunk::parse(&want), Ok((c, 28)));
}

/// RANDOM (32 bytes), CHUNKS of one type (length 5: padded, and the chunk length stops
/// at 5 when it is the INIT's last parameter), HMAC-ALGO and Supported Extensions.
#[test]
fn init_extensions_round_trip() {
    let ext = InitExtensions {
        supported: vec![0x82, 0x0f],
        random: Some(vec![0xab; 32]),
        chunks: Some(vec![0x82]),
        hmac_algo: Some(vec![HMAC_SHA256, HMAC_SHA1]),
    };
    let init = Chunk::Init(InitChunk {
        init_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        addrs: vec![],
        cookie_preservative: None,
        forward_tsn: false,
        unrecognized: vec![],
        ecn_capable: false,
        ext: ext.clone().boxed(),
    });
    // Header 4, fixed fields 16, Supported Extensions 4+2 padded to 8, RANDOM 4+32,
    // CHUNKS 4+1 padded to 8, HMAC-ALGO 4+4 (last, needs no padding): 80.
    assert_eq!(init.len(), 80);
    let buf = emit_vec(&init);
    assert_eq!(&buf[20..26], &[0x80, 0x08, 0, 6, 0x82, 0x0f]);
    assert_eq!(&buf[64..69], &[0x80, 0x03, 0, 5, 0x82]);
    assert_eq!(&buf[72..80], &[0x80, 0x04, 0, 8, 0, 3, 0, 1]);
    assert_eq!(Chunk::parse(&buf).map(|p| p.0), Ok(init));
    // As the INIT's last parameter, CHUNKS's padding is outside the chunk length.
    let short = InitExtensions {
        hmac_algo: None,
        supported: vec![],
        ..ext
    };
    let init = Chunk::Init(InitChunk {
        init_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        addrs: vec![],
        cookie_preservative: None,
        forward_tsn: false,
        unrecognized: vec![],
        ecn_capable: false,
        ext: short.boxed(),
    });
    assert_eq!(init.len(), 4 + 16 + 36 + 5);
    assert_eq!(init.padded_len(), 64);
    let buf = emit_vec(&init);
    assert_eq!(Chunk::parse(&buf).map(|p| p.0), Ok(init));
}

/// Malformed RE-CONFIG and AUTH chunks are errors (counted and dropped by whoever
/// parses them), never a panic.
#[test]
fn malformed_reconfig_and_auth_rejected() {
    let bad: Vec<Vec<u8>> = vec![
        // No parameter.
        vec![0x82, 0, 0, 4],
        // Three parameters (sec. 3.1: at most two).
        vec![
            0x82, 0, 0, 28, 0, 15, 0, 8, 0, 0, 0, 1, 0, 15, 0, 8, 0, 0, 0, 2, 0, 15, 0, 8, 0, 0, 0,
            3,
        ],
        // SSN/TSN reset of 9 bytes.
        vec![0x82, 0, 0, 13, 0, 15, 0, 9, 0, 0, 0, 1, 7, 0, 0, 0],
        // Incoming reset with half a stream number.
        vec![0x82, 0, 0, 13, 0, 14, 0, 9, 0, 0, 0, 1, 7, 0, 0, 0],
        // Response of 10 bytes, and one with result 99.
        vec![0x82, 0, 0, 14, 0, 16, 0, 10, 0, 0, 0, 1, 0, 0, 0, 0],
        vec![0x82, 0, 0, 16, 0, 16, 0, 12, 0, 0, 0, 1, 0, 0, 0, 99],
        // A parameter type RFC 6525 does not define.
        vec![0x82, 0, 0, 12, 0, 99, 0, 8, 0, 0, 0, 1],
        // Parameter longer than the chunk.
        vec![0x82, 0, 0, 12, 0, 15, 0, 40, 0, 0, 0, 1],
        // AUTH without its HMAC identifier.
        vec![15, 0, 0, 6, 0, 1, 0, 0],
    ];
    for b in bad {
        assert!(Chunk::parse(&b).is_err(), "{b:?}");
    }
    // HMAC-ALGO of odd length inside an INIT.
    let mut init = vec![1, 0, 0, 27, 0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 1, 0, 0, 0, 1];
    init.extend([0x80, 0x04, 0, 7, 0, 1, 0, 0]);
    assert_eq!(Chunk::parse(&init).map(|p| p.0), Err(WireError::BadLength));
    // Every prefix of a valid RE-CONFIG and AUTH is an error too.
    for c in [
        reconfig(vec![ReconfigParam::IncomingSsnReset {
            req_seq: 3,
            streams: vec![4, 5],
        }]),
        Chunk::Auth(AuthChunk {
            key_id: 1,
            hmac_id: HMAC_SHA256,
            hmac: vec![9; 32],
        }),
    ] {
        let buf = emit_vec(&c);
        for len in 0..buf.len() {
            assert!(Chunk::parse(&buf[..len]).is_err(), "{c:?} prefix {len}");
        }
    }
}

/// The extensions ride boxed: an INIT ACK (the largest chunk) grows by one pointer, and
/// with it every `Chunk` in a packet's list, DATA included (120 -> 128 bytes).
#[test]
fn chunk_stays_small() {
    assert!(std::mem::size_of::<Chunk>() <= 128);
}
