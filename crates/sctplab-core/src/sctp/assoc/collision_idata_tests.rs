//! An INIT collision (RFC 9260 5.2.1, 5.2.4 (B)) with I-DATA on both ends (RFC 8260
//! sec. 2.2.1): the client's INIT is lost, the peer's INIT reaches it in COOKIE-WAIT,
//! and the peer's COOKIE ECHO of the client's answer sets the client up. Both ends
//! listed I-DATA, so both must use it from then on (sec. 2.1): the client's sending
//! half, rebuilt from its own cookie, sends I-DATA chunks, not DATA. (Before the fix
//! the client never negotiated on this path: it sent DATA, and neither RE-CONFIG nor
//! AUTH was on.) A run cannot show this: a world server never initiates, so the
//! collision needs a second initiating end, as a live peer can be.

use super::super::tests::{cfg, drain, sctp};
use super::super::*;

fn idata_cfg() -> AssocCfg {
    let mut c = cfg();
    c.knobs.interleaving = true;
    c
}

#[test]
fn after_an_init_collision_the_rebuilt_sender_uses_i_data() {
    let mut c = Association::new(Role::Client, idata_cfg(), RngStream::new(3, "c"));
    // The colliding peer: another initiating end, with I-DATA too.
    let mut p = Association::new(Role::Client, idata_cfg(), RngStream::new(3, "p"));
    let t = SimTime::ZERO;
    c.handle_timeout(t);
    let lost_init = drain(&mut c, t);
    assert_eq!(lost_init.len(), 1);
    p.handle_timeout(t);
    for pkt in drain(&mut p, t) {
        c.handle_packet(t, &pkt);
    }
    // c answers the INIT in COOKIE-WAIT; p's COOKIE ECHO of that answer comes back.
    for pkt in drain(&mut c, t) {
        p.handle_packet(t, &pkt);
    }
    assert_eq!(c.state, State::CookieWait);
    assert!(c.out.is_none());
    for pkt in drain(&mut p, t) {
        if sctp(&pkt)
            .chunks
            .iter()
            .any(|x| matches!(x, Chunk::CookieEcho { .. }))
        {
            c.handle_packet(t, &pkt);
        }
    }
    assert_eq!(c.state, State::Established);
    // Negotiated at both ends (the peer on the INIT ACK, the client from its cookie):
    // summary.json's `interleaving_negotiated` and the wire agree.
    assert!(c.idata_on() && p.idata_on(), "both ends listed I-DATA");
    let data: Vec<u8> = drain(&mut c, t)
        .iter()
        .flat_map(|pkt| {
            sctp(pkt)
                .chunks
                .iter()
                .map(Chunk::chunk_type)
                .collect::<Vec<_>>()
        })
        .filter(|&ty| ty == 0 || ty == crate::net::wire::sctp_idata::I_DATA)
        .collect();
    assert!(!data.is_empty(), "the first flight");
    assert!(
        data.iter()
            .all(|&ty| ty == crate::net::wire::sctp_idata::I_DATA),
        "{data:?}"
    );
}
