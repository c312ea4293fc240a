//! I-DATA from a live peer (RFC 8260, issue 36): a server that offers interleaving
//! takes I-DATA bundled behind the COOKIE ECHO that sets the association up, puts the
//! messages together from their bytes, and counts and drops an I-DATA or an
//! I-FORWARD-TSN too short for its fields while the rest of the packet is processed.

use super::tests::{Attacker, flow, run_to_end, server_options};
use super::*;
use crate::net::wire::sctp_idata::{I_DATA, I_FORWARD_TSN, IDataChunk};
use crate::net::wire::{Chunk, DataFlags, InitChunk, InitExtensions, SctpRepr, UnknownChunk};
use std::thread;

/// Encodes `chunks` under `vtag`, I-DATA chunk with MID k carrying test message k of
/// its stream, and sends it.
fn send_idata(a: &Attacker, vtag: u32, chunks: Vec<Chunk>) {
    let repr = SctpRepr {
        src_port: 6000,
        dst_port: 5001,
        vtag,
        chunks,
    };
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut buf);
    let mut spots = Vec::new();
    super::wire::for_each_data(&buf, true, |d| spots.push(d));
    for d in spots {
        let k = d.mid.unwrap_or(0);
        super::payload::fill(&mut buf[d.start..d.end], k, d.stream, 0);
    }
    super::wire::reseal(&mut buf);
    a.send_raw(&buf);
}

fn idata(tsn: u32, mid: u32) -> Chunk {
    Chunk::IData(IDataChunk {
        tsn,
        stream: 0,
        mid,
        ppid_fsn: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 100,
    })
}

fn unknown(kind: u8, value: Vec<u8>) -> Chunk {
    Chunk::Unknown(UnknownChunk {
        kind,
        flags: 0x03,
        value,
    })
}

/// The cumulative TSN ack of the next SACK within about 3 s (a delayed SACK goes
/// after 200 ms; a loaded machine may take longer).
fn next_cum_ack(a: &Attacker) -> Option<u32> {
    for _ in 0..10 {
        let Some(p) = a.recv() else { continue };
        let cum = p.chunks.iter().find_map(|c| match c {
            Chunk::Sack(s) => Some(s.cum_tsn_ack),
            _ => None,
        });
        if cum.is_some() {
            return cum;
        }
    }
    None
}

#[test]
fn idata_behind_the_cookie_echo_and_malformed_interleaving_chunks() {
    let mut opts = server_options(20);
    opts.assoc = flow(&[("interleaving", "true")]);
    let mut srv = Session::new(opts).expect("server");
    let a = Attacker::new(srv.local_addr());
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    // The peer lists I-DATA among its Supported Extensions (RFC 8260 2.2.1).
    let tsn = 5000;
    a.send(
        0,
        vec![Chunk::Init(InitChunk {
            init_tag: 0x7171,
            a_rwnd: 65_536,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: tsn,
            addrs: vec![],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: false,
            ext: Some(Box::new(InitExtensions {
                supported: vec![I_DATA, I_FORWARD_TSN],
                random: None,
                chunks: None,
                hmac_algo: None,
            })),
        })],
        0,
    );
    let Some(Chunk::InitAck(ia)) = a.recv().map(|p| p.chunks[0].clone()) else {
        panic!("no INIT ACK");
    };
    let listed = ia
        .ext
        .as_ref()
        .is_some_and(|e| e.supported.contains(&I_DATA));
    assert!(listed, "our INIT ACK offers I-DATA: {ia:?}");
    let tag = ia.init_tag;
    // Message 0 (MID 0) bundled behind the COOKIE ECHO.
    send_idata(
        &a,
        tag,
        vec![
            Chunk::CookieEcho {
                cookie: ia.state_cookie,
            },
            idata(tsn, 0),
        ],
    );
    // The COOKIE ACK and the SACK of message 0 (bundled, RFC 9260 6).
    let mut cum = None;
    for _ in 0..10 {
        let Some(p) = a.recv() else { continue };
        for c in &p.chunks {
            if let Chunk::Sack(s) = c {
                cum = Some(s.cum_tsn_ack);
            }
        }
        if cum.is_some() {
            break;
        }
    }
    assert_eq!(cum, Some(tsn), "the bundled I-DATA is acknowledged");
    // An I-DATA of 16 bytes (its 20-byte header cut short, RFC 8260 2.1), then
    // message 1: the short chunk is dropped, message 1 is taken.
    send_idata(
        &a,
        tag,
        vec![unknown(I_DATA, vec![0; 12]), idata(tsn + 1, 1)],
    );
    assert_eq!(next_cum_ack(&a), Some(tsn + 1));
    // An I-FORWARD-TSN with a 4-byte tail (its entries are 8 bytes, 2.3.1), then
    // message 2.
    send_idata(
        &a,
        tag,
        vec![unknown(I_FORWARD_TSN, vec![0; 8]), idata(tsn + 2, 2)],
    );
    assert_eq!(next_cum_ack(&a), Some(tsn + 2));
    a.send(
        tag,
        vec![Chunk::Shutdown {
            cum_tsn_ack: ia.initial_tsn.wrapping_sub(1),
        }],
        0,
    );
    while let Some(p) = a.recv() {
        if matches!(p.chunks[0], Chunk::ShutdownAck) {
            break;
        }
    }
    a.send(tag, vec![Chunk::ShutdownComplete { t_bit: false }], 0);
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(
        line,
        r#"{"messages": 3, "bytes": 300, "streams": {"0": 3}, "errors": 0}"#
    );
    assert_eq!(summary["flows"]["live"]["interleaving_negotiated"], true);
    assert_eq!(summary["live"]["malformed_chunks"], 2, "{summary}");
    assert_eq!(summary["live"]["hostile_drops"], 2, "{summary}");
}
