//! Hostile and unusual packets sent to the machine, each checked against the outcome
//! RFC 9260 prescribes (issue 28): bundles that smuggle chunks past the tag check,
//! out-of-the-blue packets, DATA far beyond the window, stale cookies, INIT
//! collisions, peer restarts and an INIT ACK without an Initiate Tag.

use super::tests::{
    cfg, client, drain, exchange, handshake_to_init_ack, init, packet, sctp, server,
};
use super::*;
use crate::net::wire::{DataChunk, DataFlags, InitAckChunk, SackChunk};

fn data(tsn: u32) -> Chunk {
    data_on(tsn, 0)
}

fn data_on(tsn: u32, stream: u16) -> Chunk {
    Chunk::Data(DataChunk {
        tsn,
        stream,
        ssn: 0,
        ppid: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 100,
    })
}

fn garbage_cookie() -> Chunk {
    Chunk::CookieEcho {
        cookie: vec![0x5a; 80],
    }
}

fn chunks_of(pkts: &[Packet]) -> Vec<(u32, Chunk)> {
    pkts.iter()
        .flat_map(|p| sctp(p).chunks.iter().map(|c| (sctp(p).vtag, c.clone())))
        .collect()
}

/// An established pair, the client's INIT-ACK and COOKIE-ECHO exchanged by hand;
/// returns (client, server, the client's first TSN).
fn established() -> (Association, Association, u32) {
    established_with(cfg())
}

fn established_with(config: AssocCfg) -> (Association, Association, u32) {
    let mut c = Association::new(Role::Client, config.clone(), RngStream::new(1, "client"));
    let mut s = Association::new(Role::Server, config, RngStream::new(1, "server"));
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &echo[0]);
    let cookie_ack = drain(&mut s, SimTime::ZERO);
    c.handle_packet(SimTime::ZERO, &cookie_ack[0]);
    assert_eq!((c.state, s.state), (State::Established, State::Established));
    let first = c.pending_initial_tsn;
    (c, s, first)
}

#[test]
fn init_bundled_with_abort_or_data_is_discarded_whole() {
    // RFC 9260 3.1, 5.1: an INIT travels alone; 8.5.1 (A): a packet under tag 0
    // holding anything else is discarded. The forged bundle used to skip the tag
    // check for the whole packet, and the ABORT behind the INIT ended the
    // association blind.
    let (_, mut s, first) = established();
    let t = SimTime::from_nanos(1_000_000);
    for tag in [0, 0x1234_5678] {
        s.handle_packet(
            t,
            &packet(tag, vec![init(77), Chunk::Abort { t_bit: false }]),
        );
        s.handle_packet(t, &packet(tag, vec![init(77), data(first)]));
    }
    assert_eq!(s.state, State::Established);
    assert!(!s.stats.aborted);
    assert_eq!(s.stats.rule_violations, 4);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(0));
    assert!(drain(&mut s, t).is_empty(), "no INIT ACK, no SACK");
    // The same before any association: no INIT ACK for a bundled INIT.
    let mut fresh = server();
    fresh.handle_packet(t, &packet(0, vec![init(77), Chunk::Abort { t_bit: false }]));
    assert!(drain(&mut fresh, t).is_empty());
    assert_eq!(fresh.stats.inits_received, 0);
}

#[test]
fn cookie_echo_must_be_first_and_must_validate_before_what_follows() {
    // RFC 9260 6.10 / 5.1: a COOKIE ECHO comes first; 5.1.5: what follows it is
    // processed only after the cookie is accepted, under the tag it establishes.
    let (_, mut s, first) = established();
    let t = SimTime::from_nanos(1_000_000);
    let tag = 0x0bad_cafe;
    // A garbage cookie followed by an ABORT, and by DATA 2^30 TSNs ahead.
    s.handle_packet(
        t,
        &packet(tag, vec![garbage_cookie(), Chunk::Abort { t_bit: false }]),
    );
    s.handle_packet(
        t,
        &packet(
            tag,
            vec![garbage_cookie(), data(first.wrapping_add(1 << 30))],
        ),
    );
    assert_eq!(s.stats.cookie_rejects, 2);
    // A COOKIE ECHO behind another chunk: the packet breaks 6.10.
    s.handle_packet(
        t,
        &packet(
            s.local_tag,
            vec![Chunk::Abort { t_bit: false }, garbage_cookie()],
        ),
    );
    assert_eq!(s.stats.rule_violations, 1);
    assert_eq!(s.state, State::Established);
    assert!(!s.stats.aborted);
    assert_eq!(s.inb.as_ref().map(|i| i.highest_tsn), Some(0));
    assert!(drain(&mut s, t).is_empty());

    // A genuine cookie with DATA bundled behind it (RFC 9260 5.1 allows it; usrsctp
    // does it): the association is created and the DATA delivered and SACKed.
    let (mut c, mut s) = (client(), server());
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    let mut chunks = sctp(&echo[0]).chunks.clone();
    let first = c.pending_initial_tsn;
    chunks.push(data(first));
    s.handle_packet(SimTime::ZERO, &packet(sctp(&echo[0]).vtag, chunks));
    assert_eq!(s.state, State::Established);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(100));
    let out = chunks_of(&drain(&mut s, SimTime::ZERO));
    assert!(matches!(out[0].1, Chunk::CookieAck), "{out:?}");
    assert!(
        out.iter()
            .any(|(_, c)| matches!(c, Chunk::Sack(sk) if sk.cum_tsn_ack == first))
    );
}

#[test]
fn out_of_the_blue_packets_leave_the_server_listening() {
    // RFC 9260 8.4 at a server with no association: an ABORT is discarded (2), a
    // SHUTDOWN ACK gets a SHUTDOWN COMPLETE with the T bit (5), a SHUTDOWN COMPLETE
    // or COOKIE ACK is discarded (6, 7), anything else (a HEARTBEAT here) gets an
    // ABORT with the T bit (8), each reflecting the packet's tag; under tag 0 only an
    // INIT is accepted at all (8.5.1 (A)), so a tag-0 HEARTBEAT goes unanswered.
    let mut s = server();
    let t = SimTime::ZERO;
    let hb = || Chunk::Heartbeat { info: vec![1; 8] };
    s.handle_packet(t, &packet(0, vec![Chunk::Abort { t_bit: false }]));
    s.handle_packet(t, &packet(0, vec![hb()]));
    assert_eq!(s.stats.rule_violations, 2);
    assert!(drain(&mut s, t).is_empty());
    s.handle_packet(t, &packet(0x42, vec![Chunk::Abort { t_bit: false }]));
    s.handle_packet(
        t,
        &packet(0x43, vec![Chunk::ShutdownComplete { t_bit: false }]),
    );
    s.handle_packet(t, &packet(0x44, vec![Chunk::CookieAck]));
    assert!(drain(&mut s, t).is_empty());
    s.handle_packet(t, &packet(0x45, vec![hb()]));
    s.handle_packet(t, &packet(0x46, vec![Chunk::ShutdownAck]));
    s.handle_packet(t, &packet(0x47, vec![data(9)]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![
            (0x45, Chunk::Abort { t_bit: true }),
            (0x46, Chunk::ShutdownComplete { t_bit: true }),
            (0x47, Chunk::Abort { t_bit: true }),
        ]
    );
    assert_eq!(s.stats.ootb_packets, 6);
    assert_eq!((s.state, s.stats.aborted), (State::Closed, false));
    assert!(s.inb.is_none());
    // The real client still gets its association and its transfer.
    let mut c = client();
    exchange(
        &mut c,
        &mut s,
        SimTime::ZERO + SimDuration::from_secs(30),
        |_, _| false,
    );
    assert_eq!((c.state, s.state), (State::Done, State::Done));
    assert!(!c.stats.aborted && !s.stats.aborted);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(10_000));
}

#[test]
fn data_far_beyond_the_window_is_dropped_and_counted() {
    // A 64 KiB window holds at most 65536 / 17 = 3855 DATA chunks (17 bytes: the
    // 16-byte header and one byte of data), below the 4096 TSNs of Linux's and
    // usrsctp's mapping arrays, so the receiver keeps 4096 TSNs beyond its cumulative
    // TSN. 2^24 and 2^30 TSNs ahead are dropped (the per-TSN list once grew to the
    // chunk: 280 MB and an aborting 16 GiB allocation); 4096 ahead is accepted.
    let (_, mut s, first) = established();
    let tag = s.local_tag;
    let cum = first.wrapping_sub(1);
    let t = SimTime::from_nanos(1_000_000);
    for ahead in [1u32 << 30, 1 << 24, 4097] {
        s.handle_packet(t, &packet(tag, vec![data(cum.wrapping_add(ahead))]));
    }
    let inb = s.inb.as_ref().expect("association");
    assert_eq!(inb.max_ahead(), 4096);
    assert_eq!(inb.dropped_beyond_window, 3);
    assert_eq!(inb.highest_tsn, 0, "nothing was taken in");
    s.handle_packet(t, &packet(tag, vec![data(cum.wrapping_add(4096))]));
    let inb = s.inb.as_ref().expect("association");
    assert_eq!(inb.dropped_beyond_window, 3);
    assert_eq!(inb.highest_tsn, 4096);
    // A larger buffer moves the bound with it: 1 MiB / 17 = 61680 TSNs.
    let big = Inbound::new(0, 1 << 20, 1, None, crate::metrics::Window::ALL, 1468, true);
    assert_eq!(big.max_ahead(), 61_680);
}

#[test]
fn stale_cookie_is_reported_and_retried_with_a_cookie_preservative() {
    // Valid.Cookie.Life 1 s. The COOKIE ECHO sent at 50 ms reaches the server at
    // 1.5 s, 0.5 s after the cookie expired: RFC 9260 5.1.5 step 3, an ERROR with
    // "Stale Cookie" and a staleness of 500 000 us. At 1.6 s the client (5.2.6 (3))
    // sends a new INIT whose Cookie Preservative asks for the measured round trip
    // (1.6 - 0.05 = 1.55 s) plus the staleness (0.5 s, at most 1 s): 2050 ms. The
    // server grants at most one more lifetime (1 s), so the new cookie, made at 1.6 s,
    // lives 2 s and is accepted at 3.0 s, 1.4 s after it was made.
    let life = AssocCfg {
        cookie_lifetime: SimDuration::from_secs(1),
        ..cfg()
    };
    let mut c = Association::new(Role::Client, life.clone(), RngStream::new(1, "client"));
    let mut s = Association::new(Role::Server, life, RngStream::new(1, "server"));
    let at = |ms: u64| SimTime::from_nanos(ms * 1_000_000);
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(at(50), &ack);
    let echo = drain(&mut c, at(50));
    s.handle_packet(at(1500), &echo[0]);
    assert!(s.inb.is_none());
    let err = drain(&mut s, at(1500));
    assert_eq!(
        chunks_of(&err),
        vec![(
            c.local_tag,
            Chunk::Error {
                t_bit: false,
                causes: vec![ErrorCause {
                    code: 3,
                    info: 500_000u32.to_be_bytes().to_vec(),
                }],
            }
        )]
    );
    c.handle_packet(at(1600), &err[0]);
    assert_eq!(c.state, State::CookieWait);
    let init2 = drain(&mut c, at(1600));
    let Some(Chunk::Init(i)) = sctp(&init2[0]).chunks.first() else {
        panic!("INIT expected")
    };
    assert_eq!(i.cookie_preservative, Some(2050));
    assert_eq!(i.init_tag, c.local_tag, "the same TCB, the same tag");
    s.handle_packet(at(1600), &init2[0]);
    let ack2 = drain(&mut s, at(1600));
    c.handle_packet(at(1600), &ack2[0]);
    let echo2 = drain(&mut c, at(1600));
    s.handle_packet(at(3000), &echo2[0]);
    assert_eq!(s.state, State::Established);
    let cookie_ack = drain(&mut s, at(3000));
    c.handle_packet(at(3000), &cookie_ack[0]);
    assert_eq!(c.state, State::Established);
    assert_eq!((s.stats.cookie_rejects, c.stats.errors_received), (1, 1));
}

#[test]
fn init_collision_is_answered_with_the_original_parameters() {
    // RFC 9260 5.2.1: an INIT received in COOKIE-WAIT is answered with an INIT ACK
    // carrying this end's original Initiate Tag and initial TSN (under the INIT's
    // tag), the state and T1-init left as they are. The peer's COOKIE ECHO of that
    // cookie matches the local tag with no peer tag known yet (5.2.4 (B)): the
    // client takes the peer's tag from the cookie, stops T1 and is established.
    let mut c = client();
    c.handle_timeout(SimTime::ZERO);
    let _lost_init = drain(&mut c, SimTime::ZERO);
    let t1 = c.timers.get(Timer::T1Init);
    let t = SimTime::from_nanos(10_000_000);
    c.handle_packet(t, &packet(0, vec![init(0x7777)]));
    let out = drain(&mut c, t);
    assert_eq!(out.len(), 1);
    assert_eq!(sctp(&out[0]).vtag, 0x7777);
    let Some(Chunk::InitAck(ia)) = sctp(&out[0]).chunks.first().cloned() else {
        panic!("INIT ACK expected")
    };
    assert_eq!(
        (ia.init_tag, ia.initial_tsn),
        (c.local_tag, c.pending_initial_tsn)
    );
    assert_eq!(
        (c.state, c.timers.get(Timer::T1Init)),
        (State::CookieWait, t1)
    );
    assert!(c.out.is_none());
    c.handle_packet(
        t,
        &packet(
            c.local_tag,
            vec![Chunk::CookieEcho {
                cookie: ia.state_cookie,
            }],
        ),
    );
    assert_eq!(c.state, State::Established);
    assert_eq!((c.peer_tag, c.timers.get(Timer::T1Init)), (0x7777, None));
    let out = chunks_of(&drain(&mut c, t));
    assert_eq!(out[0], (0x7777, Chunk::CookieAck));
    assert!(
        out.iter().any(|(_, ch)| matches!(ch, Chunk::Data(_))),
        "data follows"
    );
}

#[test]
fn restarted_peer_replaces_the_association() {
    // RFC 9260 5.2.2: an INIT for an established association (no new address) gets
    // an INIT ACK with a new tag whose cookie carries the current tags as Tie-Tags;
    // 5.2.4 (A): its COOKIE ECHO (both tags new, Tie-Tags matching) is a restart,
    // the association starts again from the new INIT's TSN, the old tag is refused.
    let (_, mut s, first) = established();
    let t = SimTime::from_nanos(1_000_000);
    s.handle_packet(t, &packet(s.local_tag, vec![data(first)]));
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(100));
    drain(&mut s, t);
    let old_server_tag = s.local_tag;
    let restart = Chunk::Init(InitChunk {
        initial_tsn: 5000,
        ..match init(0x9999) {
            Chunk::Init(i) => i,
            _ => unreachable!(),
        }
    });
    s.handle_packet(t, &packet(0, vec![restart]));
    let out = drain(&mut s, t);
    let Some(Chunk::InitAck(InitAckChunk {
        init_tag,
        state_cookie,
        ..
    })) = sctp(&out[0]).chunks.first().cloned()
    else {
        panic!("INIT ACK expected")
    };
    assert_eq!(sctp(&out[0]).vtag, 0x9999);
    assert_ne!(init_tag, old_server_tag);
    assert_eq!(
        s.state,
        State::Established,
        "nothing changes before the cookie"
    );
    s.handle_packet(
        t,
        &packet(
            init_tag,
            vec![Chunk::CookieEcho {
                cookie: state_cookie,
            }],
        ),
    );
    assert_eq!(s.stats.restarts, 1);
    assert_eq!((s.local_tag, s.peer_tag), (init_tag, 0x9999));
    assert_eq!(s.inb.as_ref().map(|i| i.cum_tsn), Some(4999));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![(0x9999, Chunk::CookieAck)]
    );
    s.handle_packet(t, &packet(old_server_tag, vec![data(5000)]));
    assert_eq!(s.stats.bad_vtag_drops, 1);
    s.handle_packet(t, &packet(init_tag, vec![data(5000)]));
    assert_eq!(s.inb.as_ref().map(|i| i.cum_tsn), Some(5000));
}

#[test]
fn init_ack_with_initiate_tag_0_destroys_the_tcb() {
    // RFC 9260 3.3.3: in COOKIE-WAIT, an INIT ACK whose Initiate Tag is 0 destroys
    // the TCB; the ABORT sent carries the T bit.
    let (mut c, mut s) = (client(), server());
    let mut ack = handshake_to_init_ack(&mut c, &mut s);
    let TransportRepr::Sctp(repr) = &mut ack.transport else {
        panic!("SCTP")
    };
    let Some(Chunk::InitAck(ia)) = repr.chunks.first_mut() else {
        panic!("INIT ACK")
    };
    ia.init_tag = 0;
    c.handle_packet(SimTime::ZERO, &ack);
    assert_eq!((c.state, c.stats.aborted), (State::Done, true));
    assert_eq!(
        chunks_of(&drain(&mut c, SimTime::ZERO)),
        vec![(c.local_tag, Chunk::Abort { t_bit: true })]
    );
    assert_eq!(c.poll_timeout(), None, "T1-init stopped");
}

#[test]
fn shutting_down_server_answers_init_and_restart_with_its_shutdown_ack() {
    // RFC 9260 9.2: an INIT in SHUTDOWN-ACK-SENT is discarded and the SHUTDOWN ACK
    // resent; 5.2.4 (A) there: no new association, the SHUTDOWN ACK resent with an
    // ERROR "Cookie Received While Shutting Down" (10).
    let (c, mut s, _) = established();
    let t = SimTime::from_nanos(1_000_000);
    // A restart's cookie, fetched while still established.
    s.handle_packet(t, &packet(0, vec![init(0x9999)]));
    let out = drain(&mut s, t);
    let Some(Chunk::InitAck(ia)) = sctp(&out[0]).chunks.first().cloned() else {
        panic!("INIT ACK expected")
    };
    let shutdown = Chunk::Shutdown {
        cum_tsn_ack: c.peer_initial_tsn.wrapping_sub(1),
    };
    s.handle_packet(t, &packet(s.local_tag, vec![shutdown]));
    assert_eq!(s.state, State::ShutdownAckSent);
    drain(&mut s, t);
    s.handle_packet(t, &packet(0, vec![init(0x8888)]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![(c.local_tag, Chunk::ShutdownAck)]
    );
    s.handle_packet(
        t,
        &packet(
            ia.init_tag,
            vec![Chunk::CookieEcho {
                cookie: ia.state_cookie,
            }],
        ),
    );
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![
            (c.local_tag, Chunk::ShutdownAck),
            (
                c.local_tag,
                Chunk::Error {
                    t_bit: false,
                    causes: vec![ErrorCause {
                        code: 10,
                        info: vec![],
                    }],
                }
            ),
        ]
    );
    assert_eq!((s.state, s.stats.restarts), (State::ShutdownAckSent, 0));
}

#[test]
fn shutdown_ack_while_setting_up_is_out_of_the_blue() {
    // RFC 9260 8.5.1 (E): in COOKIE-WAIT a SHUTDOWN ACK is treated as out of the
    // blue: a SHUTDOWN COMPLETE with the T bit under the packet's tag, nothing else.
    let mut c = client();
    c.handle_timeout(SimTime::ZERO);
    drain(&mut c, SimTime::ZERO);
    c.handle_packet(
        SimTime::ZERO,
        &packet(0x3141_5926, vec![Chunk::ShutdownAck]),
    );
    assert_eq!(
        chunks_of(&drain(&mut c, SimTime::ZERO)),
        vec![(0x3141_5926, Chunk::ShutdownComplete { t_bit: true })]
    );
    assert_eq!(c.state, State::CookieWait);
}

fn sack(cum_tsn_ack: u32, dups: Vec<u32>) -> Chunk {
    Chunk::Sack(SackChunk {
        cum_tsn_ack,
        a_rwnd: 65_536,
        gaps: Vec::new(),
        dups,
        flags: 0,
    })
}

fn invalid_stream(sid: u16) -> Chunk {
    let [hi, lo] = sid.to_be_bytes();
    Chunk::Error {
        t_bit: false,
        causes: vec![ErrorCause {
            code: 1,
            info: vec![hi, lo, 0, 0],
        }],
    }
}

#[test]
fn data_for_a_stream_the_receiver_lacks_is_acknowledged_discarded_and_reported() {
    // The server's inbound stream count is the client's OS, 1 (RFC 9260 5.1.1), so
    // stream 1 does not exist there. RFC 9260 6.5: such a DATA chunk is acknowledged
    // following the normal procedure (no delayed SACK here: a SACK per packet, cum TSN
    // = its TSN, nothing held so a_rwnd stays the 64 KiB buffer), discarded (nothing
    // delivered), and answered by an ERROR with cause 1, Invalid Stream Identifier
    // (3.3.10.1: cause length 8, the stream id then two reserved bytes), which may
    // share the SACK's packet if it follows the SACK.
    let (mut c, mut s, first) = established();
    let (tag, peer) = (s.local_tag, c.local_tag);
    let t = SimTime::from_nanos(1_000_000);
    s.handle_packet(t, &packet(tag, vec![data_on(first, 1)]));
    let out = drain(&mut s, t);
    assert_eq!(out.len(), 1, "SACK and ERROR in one packet");
    assert_eq!(
        chunks_of(&out),
        vec![(peer, sack(first, vec![])), (peer, invalid_stream(1))]
    );
    let inb = s.inb.as_ref().expect("association");
    assert_eq!((inb.delivered_total, inb.invalid_stream_chunks), (0, 1));
    assert_eq!(s.stats.errors_sent, 1);
    // The next TSN, on stream 0 with SSN 0, is that stream's first message: delivered
    // (100 bytes), the cumulative TSN past both, no ERROR.
    s.handle_packet(t, &packet(tag, vec![data(first.wrapping_add(1))]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![(peer, sack(first.wrapping_add(1), vec![]))]
    );
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(100));
    // A retransmission of the discarded chunk is a duplicate (6.2) and still names an
    // invalid stream: reported again, nothing more taken in.
    s.handle_packet(t, &packet(tag, vec![data_on(first, 7)]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![
            (peer, sack(first.wrapping_add(1), vec![first])),
            (peer, invalid_stream(7))
        ]
    );
    assert_eq!(s.inb.as_ref().map(|i| i.invalid_stream_chunks), Some(1));
    // The sender (live mode: a peer's ERROR) counts it and carries on (3.3.10 leaves
    // the handling to the cause; only Stale Cookie is acted on).
    c.handle_packet(t, &packet(peer, vec![invalid_stream(1)]));
    assert_eq!(c.stats.errors_received, 1);
    assert_eq!(c.state, State::Established);
    assert!(!c.stats.aborted);
}

#[test]
fn invalid_stream_error_goes_at_once_while_the_sack_is_delayed() {
    // Delayed SACK 200 ms (RFC 9260 6.2). The first DATA packet is SACKed at once (the
    // first one is); the second, in order, starts the 200 ms timer. Its chunk names
    // stream 3 of 1: 6.5 asks for the ERROR "immediately", so it goes alone at once
    // and the SACK (cum TSN = the second TSN) at 200 ms.
    let (c, mut s, first) = established_with(AssocCfg {
        delayed_sack: Some(SimDuration::from_millis(200)),
        ..cfg()
    });
    let (tag, peer) = (s.local_tag, c.local_tag);
    let t = SimTime::from_nanos(1_000_000);
    s.handle_packet(t, &packet(tag, vec![data(first)]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![(peer, sack(first, vec![]))]
    );
    s.handle_packet(t, &packet(tag, vec![data_on(first.wrapping_add(1), 3)]));
    assert_eq!(
        chunks_of(&drain(&mut s, t)),
        vec![(peer, invalid_stream(3))]
    );
    let due = t + SimDuration::from_millis(200);
    assert_eq!(s.poll_timeout(), Some(due));
    s.handle_timeout(due);
    assert_eq!(
        chunks_of(&drain(&mut s, due)),
        vec![(peer, sack(first.wrapping_add(1), vec![]))]
    );
}
