//! I-DATA between two associations, packets handed over by hand with no delay:
//! negotiation and the fallback to DATA (RFC 8260 sec. 2.2.1), interleaving on the
//! wire, and delivery at the receiver.

use super::super::tests::{cfg, drain, sctp};
use super::*;
use crate::net::wire::DataFlags;
use crate::sctp::streams::{PrPolicy, Scheduler, StreamSourceCfg};

/// Two streams, round robin: stream 0 one 4000-byte message at time 0, stream 1 a
/// 100-byte message every second from time 0; `interleaving` as given.
fn two_streams(interleaving: bool) -> AssocCfg {
    let src = |stream: u16, size: u64| StreamSourceCfg {
        stream,
        message_size: size,
        interval: Some(SimDuration::from_secs(1)),
        start: SimTime::ZERO,
        stop: None,
        priority: 0,
        weight: 1,
        pr: PrPolicy::None,
    };
    let mut c = AssocCfg {
        total: None,
        streams: 2,
        stream_traffic: vec![src(0, 4000), src(1, 100)],
        ..cfg()
    };
    c.knobs.scheduler = Scheduler::Rr;
    c.knobs.interleaving = interleaving;
    c
}

/// Client and server through the handshake at time 0; returns the INIT's and INIT
/// ACK's Supported Extensions and the client's first flight of data, which the
/// server has received.
fn run(client: AssocCfg, server: AssocCfg) -> (Association, Association, Vec<Vec<u8>>, Vec<Chunk>) {
    let mut c = Association::new(Role::Client, client, RngStream::new(1, "client"));
    let mut s = Association::new(Role::Server, server, RngStream::new(1, "server"));
    let t = SimTime::ZERO;
    let mut lists = Vec::new();
    let mut note = |chunks: &[Chunk]| {
        for ch in chunks {
            match ch {
                Chunk::Init(i) => lists.push(InitExtensions::of(&i.ext).supported.clone()),
                Chunk::InitAck(a) => lists.push(InitExtensions::of(&a.ext).supported.clone()),
                _ => {}
            }
        }
    };
    c.handle_timeout(t);
    let mut data = Vec::new();
    for round in 0..3 {
        for p in drain(&mut c, t) {
            note(&sctp(&p).chunks);
            if round == 2 {
                data.extend(sctp(&p).chunks.iter().cloned());
            }
            s.handle_packet(t, &p);
        }
        for p in drain(&mut s, t) {
            note(&sctp(&p).chunks);
            c.handle_packet(t, &p);
        }
    }
    (c, s, lists, data)
}

/// (stream, MID, FSN, B, E) of the I-DATA chunks, in TSN order.
fn idata(chunks: &[Chunk]) -> Vec<(u16, u32, u32, bool, bool)> {
    let mut v: Vec<_> = chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::IData(d) => Some(*d),
            _ => None,
        })
        .collect();
    v.sort_by_key(|d| d.tsn);
    v.iter()
        .map(|d| {
            let f = d.flags;
            (
                d.stream,
                d.mid,
                d.fsn(),
                f.contains(DataFlags::BEGIN),
                f.contains(DataFlags::END),
            )
        })
        .collect()
}

#[test]
fn both_ends_list_i_data_and_the_small_message_goes_between_fragments() {
    let (c, s, lists, data) = run(two_streams(true), two_streams(true));
    assert_eq!(lists, vec![vec![I_DATA], vec![I_DATA]]);
    assert!(c.idata_on() && s.idata_on());
    assert!(!data.iter().any(|c| matches!(c, Chunk::Data(_))));
    // Max payload with the 20-byte header: (1500 - 32 - 20) rounded down to 4 =
    // 1448, so the 4000-byte message is 1448 + 1448 + 1104. Round robin per chunk
    // (RFC 8260 sec. 3.2): stream 0's first fragment, stream 1's message, then
    // stream 0's other two (stream 1 has nothing more at time 0).
    assert_eq!(
        idata(&data),
        vec![
            (0, 0, 0, true, false),
            (1, 0, 0, true, true),
            (0, 0, 1, false, false),
            (0, 0, 2, false, true),
        ]
    );
    let inb = s.inb.as_ref().expect("server receives");
    assert_eq!(inb.streams[0].delivered_messages, 1);
    assert_eq!(inb.streams[0].delivered_bytes, 4000);
    assert_eq!(inb.streams[1].delivered_messages, 1);
    // Everything delivered: the whole receive buffer is free again.
    assert_eq!(inb.a_rwnd(), 65_536);
}

#[test]
fn a_peer_without_i_data_gets_data() {
    // RFC 8260 sec. 2.2.1: I-DATA only when both list it; the client falls back to
    // DATA, whose fragments of one message take consecutive TSNs (the small message
    // waits for all three; 1500 - 32 - 16 = 1452: 1452 + 1452 + 1096).
    let (c, s, lists, data) = run(two_streams(true), two_streams(false));
    assert_eq!(lists, vec![vec![I_DATA], vec![]]);
    assert!(!c.idata_on() && !s.idata_on());
    let order: Vec<(u16, u32)> = data
        .iter()
        .filter_map(|c| match c {
            Chunk::Data(d) => Some((d.stream, d.payload_len)),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec![(0, 1452), (0, 1452), (0, 1096), (1, 100)]);
    assert!(!data.iter().any(|c| matches!(c, Chunk::IData(_))));
}

#[test]
fn i_data_without_negotiation_is_not_taken_as_data() {
    let (_c, mut s, _, _) = run(two_streams(false), two_streams(false));
    let before = s.stats.unknown_chunks;
    let d = crate::net::wire::sctp_idata::IDataChunk {
        tsn: 1,
        stream: 0,
        mid: 0,
        ppid_fsn: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 10,
    };
    s.on_interleaving_chunk(&Chunk::IData(d));
    assert_eq!(s.stats.unknown_chunks, before + 1);
}
