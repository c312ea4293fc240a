//! ASCONF and ASCONF-ACK (RFC 5061 sec. 4.1, 4.2) byte for byte from the RFC's figures,
//! and malformed ones rejected without a panic.

use super::*;
use crate::net::wire::WireError;

/// Sec. 4.1.1 with 4.2.1, 4.2.2 and 4.2.4: type 0xC1, the Sequence Number, the
/// sender's IPv4 Address Parameter (type 5, length 8), then each request as type,
/// length 16, correlation id and an IPv4 Address Parameter. 4 + 4 + 8 + 3 x 16 = 64.
#[test]
fn asconf_bytes() {
    let c = Chunk::Asconf(AsconfChunk {
        serial: 0x0102_0304,
        addr: [10, 0, 0, 1],
        params: vec![
            AsconfParam::Request {
                op: AsconfOp::AddIp,
                corr_id: 1,
                addr: [11, 0, 0, 1],
            },
            AsconfParam::Request {
                op: AsconfOp::DeleteIp,
                corr_id: 2,
                addr: [10, 0, 0, 1],
            },
            AsconfParam::Request {
                op: AsconfOp::SetPrimary,
                corr_id: 3,
                addr: [11, 0, 0, 1],
            },
        ],
    });
    #[rustfmt::skip]
    let want: Vec<u8> = vec![
        0xc1, 0, 0, 64, // ASCONF, flags, length
        1, 2, 3, 4, // Sequence Number
        0, 5, 0, 8, 10, 0, 0, 1, // Address Parameter
        0xc0, 0x01, 0, 16, 0, 0, 0, 1, 0, 5, 0, 8, 11, 0, 0, 1, // Add IP Address
        0xc0, 0x02, 0, 16, 0, 0, 0, 2, 0, 5, 0, 8, 10, 0, 0, 1, // Delete IP Address
        0xc0, 0x04, 0, 16, 0, 0, 0, 3, 0, 5, 0, 8, 11, 0, 0, 1, // Set Primary Address
    ];
    assert_eq!(emit_vec(&c), want);
    assert_eq!(Chunk::parse(&want), Ok((c, 64)));
}

/// Sec. 4.1.2 with 4.2.5 and 4.2.3: type 0x80, the Sequence Number, a Success
/// Indication (0xC005, length 8) and an Error Cause Indication (0xC003) carrying a
/// "Request to Delete Last Remaining IP Address" cause (0x00A0, sec. 4.3.1) whose
/// information is the request's TLV (16 bytes): the indication is 8 + 4 + 16 = 28
/// bytes, the chunk 4 + 4 + 8 + 28 = 44.
#[test]
fn asconf_ack_bytes() {
    let tlv = vec![0xc0, 0x02, 0, 16, 0, 0, 0, 2, 0, 5, 0, 8, 10, 0, 0, 1];
    let c = Chunk::AsconfAck(AsconfAckChunk {
        serial: 7,
        responses: vec![
            AsconfResponse::Success { corr_id: 1 },
            AsconfResponse::Error {
                corr_id: 2,
                causes: vec![ErrorCause {
                    code: asconf_cause::DELETE_LAST_ADDRESS,
                    info: tlv.clone(),
                }],
            },
        ],
    });
    let mut want: Vec<u8> = vec![
        0x80, 0, 0, 44, // ASCONF-ACK
        0, 0, 0, 7, // Sequence Number
        0xc0, 0x05, 0, 8, 0, 0, 0, 1, // Success Indication
        0xc0, 0x03, 0, 28, 0, 0, 0, 2, // Error Cause Indication
        0, 0xa0, 0, 20, // the cause: code, length 4 + 16
    ];
    want.extend(&tlv);
    assert_eq!(emit_vec(&c), want);
    assert_eq!(Chunk::parse(&want), Ok((c, 44)));
    // An ASCONF-ACK reporting full success may carry no response (sec. 5.2, V2).
    let empty = Chunk::AsconfAck(AsconfAckChunk {
        serial: 9,
        responses: Vec::new(),
    });
    assert_eq!(emit_vec(&empty), vec![0x80, 0, 0, 8, 0, 0, 0, 9]);
}

/// A request type this end does not know keeps its TLV and correlation id.
#[test]
fn unknown_asconf_parameter_kept_for_the_error() {
    let buf = vec![
        0xc1, 0, 0, 24, 0, 0, 0, 1, 0, 5, 0, 8, 10, 0, 0, 1, // header, address
        0xc0, 0x06, 0, 8, 0, 0, 0, 4, // Adaptation Layer Indication (4.2.7)
    ];
    let Ok((Chunk::Asconf(a), 24)) = Chunk::parse(&buf) else {
        panic!("not parsed");
    };
    assert_eq!(
        a.params,
        vec![AsconfParam::Unrecognized {
            corr_id: 4,
            tlv: buf[16..24].to_vec()
        }]
    );
    // Emitted back verbatim.
    assert_eq!(emit_vec(&Chunk::Asconf(a)), buf);
}

/// Malformed ASCONF and ASCONF-ACK chunks are errors (counted and dropped by the
/// association), never a panic.
#[test]
fn malformed_asconf_rejected() {
    let bad: Vec<Vec<u8>> = vec![
        // No Sequence Number; no Address Parameter.
        vec![0xc1, 0, 0, 4],
        vec![0xc1, 0, 0, 8, 0, 0, 0, 1],
        // IPv6 Address Parameter.
        vec![
            0xc1, 0, 0, 28, 0, 0, 0, 1, 0, 6, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        ],
        // Address Parameter of length 9.
        vec![0xc1, 0, 0, 16, 0, 0, 0, 1, 0, 5, 0, 9, 10, 0, 0, 1],
        // Add IP Address of length 12 (no address inside).
        vec![
            0xc1, 0, 0, 28, 0, 0, 0, 1, 0, 5, 0, 8, 10, 0, 0, 1, 0xc0, 1, 0, 12, 0, 0, 0, 1, 0, 5,
            0, 4,
        ],
        // A parameter too short for a correlation id.
        vec![
            0xc1, 0, 0, 20, 0, 0, 0, 1, 0, 5, 0, 8, 10, 0, 0, 1, 0xc0, 9, 0, 4,
        ],
        // Parameter longer than the chunk.
        vec![
            0xc1, 0, 0, 24, 0, 0, 0, 1, 0, 5, 0, 8, 10, 0, 0, 1, 0xc0, 1, 0, 40, 0, 0, 0, 1,
        ],
        // ASCONF-ACK: no Sequence Number; a Success Indication of 12 bytes; an
        // unknown response type; an Error Cause Indication whose cause overruns it.
        vec![0x80, 0, 0, 4],
        vec![
            0x80, 0, 0, 20, 0, 0, 0, 1, 0xc0, 5, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0,
        ],
        vec![0x80, 0, 0, 16, 0, 0, 0, 1, 0xc0, 1, 0, 8, 0, 0, 0, 1],
        vec![
            0x80, 0, 0, 20, 0, 0, 0, 1, 0xc0, 3, 0, 12, 0, 0, 0, 1, 0, 0xa0, 0, 9,
        ],
    ];
    for b in bad {
        assert!(Chunk::parse(&b).is_err(), "{b:?}");
    }
    // Every prefix of a valid ASCONF is an error too (the length field then overruns).
    let c = Chunk::Asconf(AsconfChunk {
        serial: 1,
        addr: [10, 0, 0, 1],
        params: vec![AsconfParam::Request {
            op: AsconfOp::AddIp,
            corr_id: 1,
            addr: [11, 0, 0, 1],
        }],
    });
    let buf = emit_vec(&c);
    for n in 0..buf.len() {
        assert!(Chunk::parse(&buf[..n]).is_err(), "prefix {n}");
    }
    assert_eq!(
        Chunk::parse(&[0xc1, 0, 0, 8, 0, 0, 0, 1]).map(|p| p.0),
        Err(WireError::Truncated)
    );
}
