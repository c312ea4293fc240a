//! Byte-exact layouts from RFC 9260 (its appendix A for ECN) checked chunk by chunk.

use super::super::*;
use super::emit_vec;

/// RFC 9260 appendix A's layouts: ECNE type 12 and CWR type 13, flags 0, length 8,
/// the Lowest TSN Number; the ECN Capable parameter 0x8000 with length 4.
#[test]
fn known_answer_ecn_chunks_and_parameter() {
    let ecne = emit_vec(&Chunk::Ecne {
        lowest_tsn: 0x0102_0304,
    });
    assert_eq!(ecne, [12, 0, 0, 8, 1, 2, 3, 4]);
    let cwr = emit_vec(&Chunk::Cwr { lowest_tsn: 5 });
    assert_eq!(cwr, [13, 0, 0, 8, 0, 0, 0, 5]);
    let init = Chunk::Init(InitChunk {
        init_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        addrs: vec![],
        forward_tsn: false,
        cookie_preservative: None,
        unrecognized: vec![],
        ecn_capable: true,
        ext: Default::default(),
    });
    let bytes = emit_vec(&init);
    assert_eq!(bytes.len(), 4 + 16 + 4);
    assert_eq!(&bytes[2..4], &[0, 24]);
    assert_eq!(&bytes[20..], &[0x80, 0, 0, 4]);
    // usrsctp's 12-byte ECNE (with a packet count) is read; a 12-byte CWR is not.
    let long = [12, 0, 0, 12, 0, 0, 0, 9, 0, 0, 0, 3];
    assert_eq!(
        Chunk::parse(&long).ok(),
        Some((Chunk::Ecne { lowest_tsn: 9 }, 12))
    );
    let mut long_cwr = long;
    long_cwr[0] = 13;
    assert!(Chunk::parse(&long_cwr).is_err());
    assert!(Chunk::parse(&[12, 0, 0, 6, 0, 0, 0, 0]).is_err());
}

#[test]
fn known_answer_data_chunk() {
    // §3.3.1 layout: type 0, flags (B|E = 0x03), length 17 = 16 + 1,
    // TSN, stream id, SSN, PPID, one payload byte, three padding bytes.
    let chunk = Chunk::Data(DataChunk {
        tsn: 1,
        stream: 2,
        ssn: 3,
        ppid: 4,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 1,
    });
    assert_eq!(
        emit_vec(&chunk),
        [0, 3, 0, 17, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0]
    );
}

#[test]
fn known_answer_init_ack_and_sack() {
    let init_ack = Chunk::InitAck(InitAckChunk {
        init_tag: 0x0a0b_0c0d,
        a_rwnd: 0x0001_0000,
        outbound_streams: 10,
        inbound_streams: 11,
        initial_tsn: 0x0102_0304,
        addrs: vec![],
        forward_tsn: false,
        unrecognized: vec![],
        reported: vec![],
        state_cookie: vec![0xaa, 0xbb],
        ecn_capable: false,
        ext: Default::default(),
    });
    // §3.3.3: type 2, flags 0, length 26 = 20 + (4 + 2); State Cookie
    // parameter type 7, length 6, cookie, 2 bytes of padding.
    assert_eq!(
        emit_vec(&init_ack),
        [
            2, 0, 0, 26, 0x0a, 0x0b, 0x0c, 0x0d, 0, 1, 0, 0, 0, 10, 0, 11, 1, 2, 3, 4, 0, 7, 0, 6,
            0xaa, 0xbb, 0, 0
        ]
    );
    let sack = Chunk::Sack(SackChunk {
        cum_tsn_ack: 9,
        a_rwnd: 0x100,
        gaps: vec![(2, 4)],
        dups: vec![5],
        flags: 0,
    });
    // §3.3.4: type 3, length 24 = 16 + 4 + 4, one gap, one dup.
    assert_eq!(
        emit_vec(&sack),
        [
            3, 0, 0, 24, 0, 0, 0, 9, 0, 0, 1, 0, 0, 1, 0, 1, 0, 2, 0, 4, 0, 0, 0, 5
        ]
    );
}

#[test]
fn known_answer_address_parameters() {
    // §3.3.2 / §3.3.2.1: INIT of 20 fixed bytes plus two IPv4 Address
    // parameters (type 5, length 8, the address): length 36, no padding.
    let init = Chunk::Init(InitChunk {
        init_tag: 0x0102_0304,
        a_rwnd: 0x0001_0000,
        outbound_streams: 1,
        inbound_streams: 0xffff,
        initial_tsn: 9,
        addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
        forward_tsn: false,
        cookie_preservative: None,
        unrecognized: vec![],
        ecn_capable: false,
        ext: Default::default(),
    });
    assert_eq!(init.len(), 36);
    assert_eq!(
        emit_vec(&init),
        [
            1, 0, 0, 36, 1, 2, 3, 4, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 9, 0, 5, 0, 8, 10, 0,
            0, 1, 0, 5, 0, 8, 11, 0, 0, 1
        ]
    );
    // INIT ACK: fixed part, one address, then the State Cookie (type 7, 4 + 2
    // bytes, padded): length 20 + 8 + 6 = 34, 36 bytes on the wire.
    let ack = Chunk::InitAck(InitAckChunk {
        init_tag: 5,
        a_rwnd: 6,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 7,
        addrs: vec![[12, 1, 2, 3]],
        forward_tsn: false,
        unrecognized: vec![],
        reported: vec![],
        state_cookie: vec![0xaa, 0xbb],
        ecn_capable: false,
        ext: Default::default(),
    });
    assert_eq!((ack.len(), ack.padded_len()), (34, 36));
    let bytes = emit_vec(&ack);
    assert_eq!(
        bytes,
        [
            2, 0, 0, 34, 0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 1, 0, 0, 0, 7, 0, 5, 0, 8, 12, 1, 2, 3,
            0, 7, 0, 6, 0xaa, 0xbb, 0, 0
        ]
    );
    assert_eq!(Chunk::parse(&bytes), Ok((ack, 36)));
    // An address parameter whose length is not 8 is refused.
    let mut bad = emit_vec(&init);
    bad[23] = 7;
    assert!(Chunk::parse(&bad).is_err());
}

#[test]
fn unknown_chunk_types_keep_their_bytes_and_bits() {
    // RFC 9260 3.2: the two high-order bits of the type decide (00 stop, 01 stop
    // and report, 10 skip, 11 skip and report). A 5-byte value: length 9, padded
    // to 12.
    let bytes = [0xc5, 0x07, 0, 9, 1, 2, 3, 4, 5, 0, 0, 0];
    let (chunk, used) = Chunk::parse(&bytes).expect("parse");
    let u = UnknownChunk {
        kind: 0xc5,
        flags: 7,
        value: vec![1, 2, 3, 4, 5],
    };
    assert_eq!((chunk.clone(), used), (Chunk::Unknown(u.clone()), 12));
    assert_eq!(emit_vec(&chunk), bytes);
    assert!(!u.stops_packet() && u.reports());
    for (kind, stops, reports) in [
        (0x3f, true, false),
        (0x40, true, true),
        (0x80, false, false),
        (0xff, false, true),
    ] {
        let u = UnknownChunk {
            kind,
            flags: 0,
            value: vec![],
        };
        assert_eq!(
            (u.stops_packet(), u.reports()),
            (stops, reports),
            "{kind:#x}"
        );
        assert_eq!(stops_packet(kind), stops);
    }
    // Known types never stop a packet as unknown ones.
    assert!(!stops_packet(chunk_type::DATA) && !stops_packet(chunk_type::ERROR));
    // The "Unrecognized Chunk Type" cause (3.3.10.6) holds the chunk as it came,
    // header included, without padding.
    assert_eq!(
        u_cause(&bytes),
        ErrorCause {
            code: 6,
            info: bytes[..9].to_vec()
        }
    );
}

fn u_cause(chunk: &[u8]) -> ErrorCause {
    match Chunk::parse(chunk) {
        Ok((Chunk::Unknown(u), _)) => u.cause(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn known_answer_error_chunk() {
    // 3.3.10: type 9, T bit in the flags; causes are TLVs padded to 4 except the
    // last, whose padding the chunk length leaves out. Cause 6 with a 9-byte
    // chunk: 4 + 9 = 13 (16 padded); cause 8 with one 4-byte parameter: 8.
    // Chunk length 4 + 16 + 8 = 28.
    let err = Chunk::Error {
        t_bit: true,
        causes: vec![
            ErrorCause {
                code: 6,
                info: vec![0xc0, 0, 0, 9, 1, 2, 3, 4, 5],
            },
            ErrorCause {
                code: 8,
                info: vec![0xc0, 0, 0, 4],
            },
        ],
    };
    assert_eq!((err.len(), err.padded_len()), (28, 28));
    let bytes = emit_vec(&err);
    assert_eq!(
        bytes,
        [
            9, 1, 0, 28, 0, 6, 0, 13, 0xc0, 0, 0, 9, 1, 2, 3, 4, 5, 0, 0, 0, 0, 8, 0, 8, 0xc0, 0,
            0, 4
        ]
    );
    assert_eq!(Chunk::parse(&bytes), Ok((err, 28)));
    // One cause of 13 bytes: the chunk length is 17, 20 on the wire.
    let one = Chunk::Error {
        t_bit: false,
        causes: vec![ErrorCause {
            code: 6,
            info: vec![0x40, 0, 0, 9, 1, 2, 3, 4, 5],
        }],
    };
    assert_eq!((one.len(), one.padded_len()), (17, 20));
    assert_eq!(Chunk::parse(&emit_vec(&one)), Ok((one, 20)));
}

#[test]
fn unrecognized_init_parameters_follow_their_type_bits() {
    // 3.2.1 on an INIT: an IPv4 address, 0x8000 (10: skip), 0xC00F (11: skip,
    // report), 0x4001 with 2 value bytes (01: stop, report), then an address that
    // is no longer processed.
    let mut bytes = vec![1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
    bytes.extend([0, 5, 0, 8, 10, 0, 0, 1]);
    bytes.extend([0x80, 0, 0, 4]);
    bytes.extend([0xc0, 0x0f, 0, 4]);
    bytes.extend([0x40, 1, 0, 6, 7, 7, 0, 0]);
    bytes.extend([0, 5, 0, 8, 11, 0, 0, 1]);
    let len = bytes.len() as u16;
    bytes[2..4].copy_from_slice(&len.to_be_bytes());
    let (chunk, used) = Chunk::parse(&bytes).expect("parse");
    assert_eq!(used, bytes.len());
    let Chunk::Init(init) = chunk else {
        panic!("INIT")
    };
    assert_eq!(init.addrs, vec![[10, 0, 0, 1]]);
    assert_eq!(
        init.unrecognized,
        vec![vec![0xc0, 0x0f, 0, 4], vec![0x40, 1, 0, 6, 7, 7]]
    );
    // Type 00 (0x0010): stop without a report; the 0xC00F behind it is not read.
    let mut bytes = vec![1, 0, 0, 28, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
    bytes.extend([0, 0x10, 0, 4, 0xc0, 0x0f, 0, 4]);
    let (chunk, _) = Chunk::parse(&bytes).expect("parse");
    assert!(matches!(chunk, Chunk::Init(i) if i.unrecognized.is_empty()));
    // The recognized parameters of 3.3.2 (Supported Address Types, Cookie
    // Preservative) are not reported.
    let mut bytes = vec![1, 0, 0, 36, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
    bytes.extend([0, 12, 0, 6, 0, 5, 0, 0, 0, 9, 0, 8, 0, 0, 0, 1]);
    let (chunk, _) = Chunk::parse(&bytes).expect("parse");
    assert!(matches!(chunk, Chunk::Init(i) if i.unrecognized.is_empty()));
}

#[test]
fn known_answer_init_ack_reporting_a_parameter() {
    // 3.3.3: an Unrecognized Parameter (type 8) wraps the INIT's 0xC000 parameter
    // (4 + 4 = 8 bytes), then the State Cookie (4 + 2, last, padding not counted):
    // length 20 + 8 + 6 = 34, 36 on the wire.
    let ack = Chunk::InitAck(InitAckChunk {
        init_tag: 5,
        a_rwnd: 6,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 7,
        addrs: vec![],
        forward_tsn: false,
        unrecognized: vec![],
        reported: vec![vec![0xc0, 0, 0, 4]],
        state_cookie: vec![0xaa, 0xbb],
        ecn_capable: false,
        ext: Default::default(),
    });
    assert_eq!((ack.len(), ack.padded_len()), (34, 36));
    let bytes = emit_vec(&ack);
    assert_eq!(
        bytes,
        [
            2, 0, 0, 34, 0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 1, 0, 0, 0, 7, 0, 8, 0, 8, 0xc0, 0, 0, 4,
            0, 7, 0, 6, 0xaa, 0xbb, 0, 0
        ]
    );
    assert_eq!(Chunk::parse(&bytes), Ok((ack, 36)));
    // An INIT ACK whose own unknown 0x4002 parameter (stop, report) follows the
    // cookie: reported, and re-emitted behind the cookie so it still parses.
    let mut bytes = bytes;
    bytes.extend([0x40, 2, 0, 4]);
    bytes[2..4].copy_from_slice(&40u16.to_be_bytes());
    let (chunk, used) = Chunk::parse(&bytes).expect("parse");
    assert_eq!(used, 40);
    let Chunk::InitAck(ia) = &chunk else {
        panic!("INIT ACK")
    };
    assert_eq!(ia.unrecognized, vec![vec![0x40, 2, 0, 4]]);
    assert_eq!(emit_vec(&chunk), bytes);
}
