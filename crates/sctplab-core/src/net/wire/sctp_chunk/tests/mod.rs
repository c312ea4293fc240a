//! Round trips, sizes and parse-policy checks of the SCTP chunks.

use super::*;

mod asconf;
mod known_answer;
mod reconfig_auth;

fn sample_chunks() -> Vec<Chunk> {
    let mut chunks = vec![
        Chunk::Data(DataChunk {
            tsn: 0xdead_beef,
            stream: 3,
            ssn: 7,
            ppid: 51,
            flags: DataFlags::UNFRAGMENTED | DataFlags::UNORDERED,
            payload_len: 1448,
        }),
        Chunk::Data(DataChunk {
            tsn: 1,
            stream: 0,
            ssn: 0,
            ppid: 0,
            flags: DataFlags::IMMEDIATE,
            payload_len: 1,
        }),
        Chunk::Init(InitChunk {
            init_tag: 0x1234_5678,
            a_rwnd: 106_496,
            outbound_streams: 10,
            inbound_streams: 65535,
            initial_tsn: 42,
            addrs: vec![],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: false,
            ext: Default::default(),
        }),
        Chunk::Init(InitChunk {
            init_tag: 7,
            a_rwnd: 65536,
            outbound_streams: 1,
            inbound_streams: 65535,
            initial_tsn: 3,
            addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: false,
            ext: Default::default(),
        }),
        Chunk::InitAck(InitAckChunk {
            init_tag: 0x8765_4321,
            a_rwnd: 65536,
            outbound_streams: 5,
            inbound_streams: 5,
            initial_tsn: 1000,
            addrs: vec![],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![0xc0; 13],
            ecn_capable: false,
            ext: Default::default(),
        }),
        Chunk::InitAck(InitAckChunk {
            init_tag: 0x8765_4321,
            a_rwnd: 65536,
            outbound_streams: 5,
            inbound_streams: 5,
            initial_tsn: 1000,
            addrs: vec![[10, 0, 0, 2], [11, 0, 0, 2], [12, 0, 0, 2]],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![0xc0; 13],
            ecn_capable: false,
            ext: Default::default(),
        }),
        Chunk::Sack(SackChunk {
            cum_tsn_ack: 100,
            a_rwnd: 50_000,
            gaps: vec![(2, 3), (5, 9)],
            dups: vec![99],
            flags: 0,
        }),
        Chunk::Sack(SackChunk {
            cum_tsn_ack: 7,
            a_rwnd: 1,
            gaps: vec![],
            dups: vec![],
            flags: 0,
        }),
        Chunk::Heartbeat {
            info: vec![1, 2, 3, 4, 5, 6, 7],
        },
        Chunk::HeartbeatAck { info: vec![9; 8] },
        Chunk::Abort { t_bit: true },
        Chunk::Abort { t_bit: false },
        Chunk::Shutdown {
            cum_tsn_ack: 0xffff_fffe,
        },
        Chunk::ShutdownAck,
        Chunk::CookieEcho {
            cookie: vec![0xc0; 13],
        },
        Chunk::CookieAck,
        Chunk::ShutdownComplete { t_bit: true },
        Chunk::ShutdownComplete { t_bit: false },
    ];
    chunks.extend(extension_samples());
    chunks
}

/// Samples using the extensions: Cookie Preservative, unrecognized parameters, ECN.
fn extension_samples() -> Vec<Chunk> {
    vec![
        // A retry after a Stale Cookie error (RFC 9260 5.2.6): the Cookie
        // Preservative (type 9, 8 bytes) between the addresses and the rest.
        Chunk::Init(InitChunk {
            init_tag: 8,
            a_rwnd: 65536,
            outbound_streams: 1,
            inbound_streams: 65535,
            initial_tsn: 3,
            addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
            forward_tsn: false,
            cookie_preservative: Some(2050),
            unrecognized: vec![vec![0xc0, 0x0f, 0, 4]],
            ecn_capable: false,
            ext: Default::default(),
        }),
        // ECN (RFC 9260 appendix A): the ECN Capable parameter and both chunks.
        Chunk::Init(InitChunk {
            init_tag: 9,
            a_rwnd: 65536,
            outbound_streams: 1,
            inbound_streams: 65535,
            initial_tsn: 3,
            addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
            forward_tsn: false,
            cookie_preservative: Some(2050),
            unrecognized: vec![vec![0xc0, 0x0f, 0, 4]],
            ecn_capable: true,
            ext: Default::default(),
        }),
        Chunk::InitAck(InitAckChunk {
            init_tag: 10,
            a_rwnd: 65536,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 77,
            addrs: vec![],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![1, 2, 3],
            ecn_capable: true,
            ext: Default::default(),
        }),
        Chunk::Ecne {
            lowest_tsn: 0x0102_0304,
        },
        Chunk::Cwr {
            lowest_tsn: u32::MAX,
        },
    ]
}

fn emit_vec(chunk: &Chunk) -> Vec<u8> {
    let mut buf = vec![0xee; chunk.padded_len()];
    assert_eq!(chunk.emit(&mut buf), chunk.padded_len());
    buf
}

#[test]
fn every_chunk_round_trips() {
    for chunk in sample_chunks() {
        let buf = emit_vec(&chunk);
        assert_eq!(buf.len() % 4, 0);
        assert_eq!(
            usize::from(u16::from_be_bytes([buf[2], buf[3]])),
            chunk.len()
        );
        assert!(
            buf[chunk.len()..].iter().all(|&b| b == 0),
            "padding of {chunk:?}"
        );
        let (parsed, used) = Chunk::parse(&buf).expect("parse");
        assert_eq!(parsed, chunk);
        assert_eq!(used, chunk.padded_len());
    }
}

#[test]
fn sizes() {
    let data = |payload_len| {
        Chunk::Data(DataChunk {
            tsn: 0,
            stream: 0,
            ssn: 0,
            ppid: 0,
            flags: DataFlags::UNFRAGMENTED,
            payload_len,
        })
    };
    assert_eq!(data(1448).len(), 1464);
    assert_eq!(data(1448).padded_len(), 1464);
    assert_eq!(data(1).len(), 17);
    assert_eq!(data(1).padded_len(), 20);
    assert_eq!(DataChunk::len_for(1448), 1464);
    for n in 0..5 {
        for m in 0..4 {
            let sack = Chunk::Sack(SackChunk {
                cum_tsn_ack: 0,
                a_rwnd: 0,
                gaps: vec![(1, 1); n],
                dups: vec![0; m],
                flags: 0,
            });
            assert_eq!(sack.len(), 16 + 4 * n + 4 * m);
            assert_eq!(SackChunk::len_with(n, m), 16 + 4 * n + 4 * m);
            assert_eq!(emit_vec(&sack).len(), 16 + 4 * n + 4 * m);
        }
    }
    let init_ack = Chunk::InitAck(InitAckChunk {
        init_tag: 1,
        a_rwnd: 1,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        addrs: vec![],
        forward_tsn: false,
        unrecognized: vec![],
        reported: vec![],
        state_cookie: vec![0; 13],
        ecn_capable: false,
        ext: Default::default(),
    });
    // 20 fixed + 4 parameter header + 13 cookie; 3 bytes of padding.
    assert_eq!(init_ack.len(), 37);
    assert_eq!(init_ack.padded_len(), 40);
    assert_eq!(Chunk::Heartbeat { info: vec![0; 5] }.len(), 13);
    assert_eq!(Chunk::Shutdown { cum_tsn_ack: 0 }.len(), 8);
    assert_eq!(Chunk::CookieAck.len(), 4);
}

#[test]
fn max_gaps_fitting() {
    // 1500-byte MTU minus 20 (IPv4) and 12 (common header): 1468 bytes.
    assert_eq!(SackChunk::max_gaps_fitting(1468, 0), 363);
    assert!(SackChunk::len_with(363, 0) <= 1468);
    assert!(SackChunk::len_with(364, 0) > 1468);
    assert_eq!(SackChunk::max_gaps_fitting(1468, 10), 353);
    assert_eq!(SackChunk::max_gaps_fitting(15, 0), 0);
    assert_eq!(SackChunk::max_gaps_fitting(20, 2), 0);
    assert_eq!(SackChunk::max_gaps_fitting(usize::MAX, 0), (65532 - 16) / 4);
}

#[test]
fn t_bit_and_reserved_flags() {
    assert_eq!(
        emit_vec(&Chunk::ShutdownComplete { t_bit: true }),
        [14, 1, 0, 4]
    );
    assert_eq!(emit_vec(&Chunk::Abort { t_bit: false }), [6, 0, 0, 4]);
    // Reserved DATA flag bits are ignored on receipt.
    let mut buf = emit_vec(&sample_chunks()[1]);
    buf[1] |= 0xf0;
    let (chunk, _) = Chunk::parse(&buf).expect("parse");
    assert_eq!(chunk, sample_chunks()[1]);
    assert_eq!(
        format!("{:?}", DataFlags::from_bits(0xff)),
        "DataFlags(IUBE)"
    );
}

#[test]
fn foreign_encodings_accepted() {
    // INIT with an optional parameter (Supported Address Types, type 12,
    // length 6, padded to 8) is parsed and the parameter skipped.
    let mut init = emit_vec(&sample_chunks()[2]);
    init.extend_from_slice(&[0, 12, 0, 6, 0, 5, 0, 0]);
    init[3] = 28;
    let (chunk, used) = Chunk::parse(&init).expect("parse");
    assert_eq!((chunk, used), (sample_chunks()[2].clone(), 28));
    // Heartbeat whose chunk length includes the final parameter padding.
    let mut hb = emit_vec(&Chunk::Heartbeat {
        info: vec![1, 2, 3, 4, 5, 6, 7],
    });
    hb[3] = 16;
    let (chunk, _) = Chunk::parse(&hb).expect("parse");
    assert_eq!(
        chunk,
        Chunk::Heartbeat {
            info: vec![1, 2, 3, 4, 5, 6, 7]
        }
    );
    // ABORT with an error cause (User-Initiated Abort, code 12, len 4).
    let (chunk, used) = Chunk::parse(&[6, 0, 0, 8, 0, 12, 0, 4]).expect("parse");
    assert_eq!((chunk, used), (Chunk::Abort { t_bit: false }, 8));
}

#[test]
fn rejects_inconsistent_chunks() {
    assert_eq!(Chunk::parse(&[0, 0, 0, 3]), Err(WireError::BadLength));
    assert_eq!(
        Chunk::parse(&[0, 0, 0, 8, 0, 0, 0, 0]),
        Err(WireError::BadLength)
    );
    assert_eq!(
        Chunk::parse(&[11, 0, 0, 8, 0, 0, 0, 0]),
        Err(WireError::BadLength)
    );
    assert_eq!(Chunk::parse(&[7, 0, 0, 4]), Err(WireError::BadLength));
    // SACK whose counts disagree with its length.
    let mut sack = emit_vec(&sample_chunks()[6]);
    sack[15] = 3; // duplicate count 1 -> 3
    assert_eq!(Chunk::parse(&sack), Err(WireError::BadLength));
    // INIT ACK without a State Cookie.
    let mut init_ack = emit_vec(&sample_chunks()[2]);
    init_ack[0] = chunk_type::INIT_ACK;
    assert!(matches!(
        Chunk::parse(&init_ack),
        Err(WireError::Malformed(_))
    ));
    // HEARTBEAT whose only parameter is not Heartbeat Info.
    let hb = [4, 0, 0, 8, 0, 2, 0, 4];
    assert!(matches!(Chunk::parse(&hb), Err(WireError::Malformed(_))));
    // Parameter longer than the chunk.
    let hb = [4, 0, 0, 8, 0, 1, 0, 9];
    assert_eq!(Chunk::parse(&hb), Err(WireError::BadLength));
}

#[test]
fn every_prefix_is_an_error() {
    for chunk in sample_chunks() {
        let buf = emit_vec(&chunk);
        for len in 0..buf.len() {
            assert!(Chunk::parse(&buf[..len]).is_err(), "{chunk:?} prefix {len}");
        }
    }
}

#[test]
fn garbage_never_panics() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..50_000 {
        let len = (next() % 64) as usize;
        let mut buf = vec![0u8; len];
        for b in &mut buf {
            *b = next() as u8;
        }
        // Keep types and lengths plausible so deeper paths are reached.
        if len >= 4 {
            buf[0] = (next() % 16) as u8;
            buf[2] = 0;
            buf[3] = (next() % 72) as u8;
        }
        let _ = Chunk::parse(&buf);
    }
}
