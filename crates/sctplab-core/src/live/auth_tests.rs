//! Forged and malformed AUTH and RE-CONFIG from a live peer (issue 37): a server with
//! AUTH (RFC 4895) and RE-CONFIG (RFC 6525) on counts and drops a RE-CONFIG that comes
//! without an AUTH chunk or behind one whose HMAC is wrong (RFC 4895 6.3), and a
//! datagram whose AUTH or RE-CONFIG chunk is too short for its own fields; none is
//! answered, no stream is reset, and the association still ends gracefully.

use super::tests::{Attacker, flow, run_to_end, server_options};
use super::*;
use crate::net::wire::{
    AuthChunk, Chunk, HMAC_SHA256, InitChunk, InitExtensions, ReconfigChunk, ReconfigParam,
};
use std::thread;

const AUTH: u8 = 0x0f;
const RE_CONFIG: u8 = 0x82;

/// Common header (ports 6000 -> 5001, `vtag`) and `chunk`, CRC32c sealed.
fn raw(vtag: u32, chunk: &[u8]) -> Vec<u8> {
    let mut b = vec![0x17, 0x70, 0x13, 0x89];
    b.extend_from_slice(&vtag.to_be_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(chunk);
    super::wire::reseal(&mut b);
    b
}

fn reset_request(req_seq: u32, last_tsn: u32) -> Chunk {
    Chunk::Reconfig(ReconfigChunk {
        params: vec![ReconfigParam::OutgoingSsnReset {
            req_seq,
            resp_seq: 0,
            last_tsn,
            streams: vec![0],
        }],
    })
}

#[test]
fn forged_and_malformed_auth_and_reconfig_are_counted_and_dropped() {
    let mut opts = server_options(20);
    opts.assoc = flow(&[("auth", "true")]);
    opts.assoc.knobs.reconfig = true;
    let mut srv = Session::new(opts).expect("server");
    let a = Attacker::new(srv.local_addr());
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.summary())
    });
    // The peer announces AUTH (RANDOM, an empty CHUNKS, HMAC-SHA-1) and RE-CONFIG.
    let tsn = 1000;
    a.send(
        0,
        vec![Chunk::Init(InitChunk {
            init_tag: 0x5151,
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
                supported: vec![AUTH, RE_CONFIG],
                random: Some(vec![0x42; 32]),
                chunks: Some(vec![]),
                hmac_algo: Some(vec![1]),
            })),
        })],
        0,
    );
    let Some(Chunk::InitAck(ia)) = a.recv().map(|p| p.chunks[0].clone()) else {
        panic!("no INIT ACK");
    };
    let tag = ia.init_tag;
    a.send(
        tag,
        vec![Chunk::CookieEcho {
            cookie: ia.state_cookie,
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("COOKIE ACK").chunks[0],
        Chunk::CookieAck
    ));
    // RFC 6525 5.1.1: the first request's sequence number is the sender's initial TSN.
    // 1. A RE-CONFIG (covered by default) with no AUTH before it.
    a.send(tag, vec![reset_request(tsn, tsn - 1)], 0);
    // 2. The same behind an AUTH whose HMAC-SHA-256 is not the key's.
    let forged = Chunk::Auth(AuthChunk {
        key_id: 0,
        hmac_id: HMAC_SHA256,
        hmac: vec![0xab; 32],
    });
    a.send(tag, vec![forged, reset_request(tsn, tsn - 1)], 0);
    // 3. An AUTH chunk of 6 bytes: no room for its HMAC Identifier (RFC 4895 4.2).
    a.send_raw(&raw(tag, &[AUTH, 0, 0, 6, 0, 0, 0, 0]));
    // 4. A RE-CONFIG whose Outgoing SSN Reset parameter claims 16 bytes of 4 given.
    a.send_raw(&raw(tag, &[RE_CONFIG, 0, 0, 8, 0, 13, 0, 16]));
    assert!(a.recv().is_none(), "nothing is answered");
    a.send(
        tag,
        vec![Chunk::Shutdown {
            cum_tsn_ack: ia.initial_tsn.wrapping_sub(1),
        }],
        0,
    );
    assert!(matches!(
        a.recv().expect("SHUTDOWN ACK").chunks[0],
        Chunk::ShutdownAck
    ));
    a.send(tag, vec![Chunk::ShutdownComplete { t_bit: false }], 0);
    let (o, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    let f = &summary["flows"]["live"];
    assert_eq!(f["auth_negotiated"], true);
    // One AUTH failed its check; the RE-CONFIG without one and the one behind it.
    assert_eq!(f["auth_bad"], 1, "{f}");
    assert_eq!(f["auth_drops"], 2, "{f}");
    assert_eq!(f["reconfig_responses"], 0, "{f}");
    assert_eq!(f["streams_reset"], 0, "{f}");
    // The two short chunks do not decode.
    assert_eq!(summary["live"]["malformed"], 2, "{summary}");
}
