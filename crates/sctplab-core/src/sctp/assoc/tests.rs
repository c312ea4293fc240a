use super::*;
use crate::net::wire::{DataChunk, DataFlags};
use crate::sctp::config::Variant;

pub(super) fn cfg() -> AssocCfg {
    AssocCfg {
        ports: (50_000, 52_000),
        pmtu: 1500,
        streams: 1,
        receive_buffer: 65_536,
        initial_ssthresh: None,
        knobs: super::super::config::preset(Variant::Rfc4960),
        rto_initial: SimDuration::from_secs(3),
        rto_min: SimDuration::from_secs(1),
        rto_max: SimDuration::from_secs(60),
        delayed_sack: None,
        heartbeat: None,
        cookie_lifetime: SimDuration::from_secs(60),
        association_max_retrans: 10,
        max_init_retrans: 8,
        total: Some(10_000),
        message_size: 1000,
        unordered: false,
        start: SimTime::ZERO,
        stop: None,
        window: Window::ALL,
        trace_sends: false,
        trace_acks: false,
        local_addrs: vec![[10, 0, 0, 1]],
        primary_peer: [10, 0, 0, 2],
        stream_traffic: Vec::new(),
    }
}

pub(super) fn server() -> Association {
    Association::new(Role::Server, cfg(), RngStream::new(1, "server"))
}

pub(super) fn client() -> Association {
    Association::new(Role::Client, cfg(), RngStream::new(1, "client"))
}

/// Everything `from` wants to send now.
pub(super) fn drain(from: &mut Association, now: SimTime) -> Vec<Packet> {
    let mut out = Vec::new();
    loop {
        let mut p = Packet::default();
        if !from.poll_transmit(now, &mut p) {
            return out;
        }
        out.push(p);
    }
}

pub(super) fn sctp(p: &Packet) -> &SctpRepr {
    match &p.transport {
        TransportRepr::Sctp(s) => s,
        _ => panic!("not SCTP"),
    }
}

pub(super) fn packet(vtag: u32, chunks: Vec<Chunk>) -> Packet {
    Packet {
        transport: TransportRepr::Sctp(SctpRepr {
            src_port: 50_000,
            dst_port: 52_000,
            vtag,
            chunks,
        }),
        ..Packet::default()
    }
}

pub(super) fn init(tag: u32) -> Chunk {
    Chunk::Init(InitChunk {
        init_tag: tag,
        a_rwnd: 65_536,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        addrs: vec![],
        forward_tsn: false,
        cookie_preservative: None,
        unrecognized: vec![],
        ecn_capable: false,
        ext: Default::default(),
    })
}

/// The client's INIT, delivered to the server; returns the server's INIT-ACK packet.
pub(super) fn handshake_to_init_ack(c: &mut Association, s: &mut Association) -> Packet {
    c.handle_timeout(SimTime::ZERO);
    let init = drain(c, SimTime::ZERO);
    assert_eq!(init.len(), 1);
    assert_eq!(sctp(&init[0]).vtag, 0, "an INIT carries verification tag 0");
    s.handle_packet(SimTime::ZERO, &init[0]);
    let mut ack = drain(s, SimTime::ZERO);
    assert_eq!(ack.len(), 1);
    ack.remove(0)
}

#[test]
fn inits_allocate_no_association_state() {
    let mut s = server();
    for tag in 1..=1000 {
        s.handle_packet(SimTime::ZERO, &packet(0, vec![init(tag)]));
    }
    assert_eq!(s.stats.inits_received, 1000);
    assert!(s.inb.is_none(), "no TCB before a valid COOKIE-ECHO");
    assert_eq!(s.stats.associations_created, 0);
    let acks = drain(&mut s, SimTime::ZERO);
    assert_eq!(acks.len(), 1000);
    // Each INIT-ACK goes back under the INIT's own tag.
    assert_eq!(sctp(&acks[41]).vtag, 42);
}

#[test]
fn valid_cookie_creates_the_association_once() {
    let (mut c, mut s) = (client(), server());
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &echo[0]);
    // A retransmitted COOKIE-ECHO is answered again but creates nothing new.
    s.handle_packet(SimTime::ZERO, &echo[0]);
    assert_eq!(s.stats.associations_created, 1);
    assert!(s.inb.is_some());
    let cookie_acks = drain(&mut s, SimTime::ZERO);
    assert_eq!(
        cookie_acks.len(),
        1,
        "two COOKIE-ACKs bundled in one packet"
    );
    c.handle_packet(SimTime::ZERO, &cookie_acks[0]);
    assert_eq!(c.state, State::Established);
    assert!(
        drain(&mut c, SimTime::ZERO)
            .iter()
            .any(|p| p.kind == PacketKind::Data)
    );
}

#[test]
fn tampered_and_stale_cookies_are_rejected() {
    let (mut c, mut s) = (client(), server());
    let ack = handshake_to_init_ack(&mut c, &mut s);
    let Some(Chunk::InitAck(ia)) = sctp(&ack).chunks.first().cloned() else {
        panic!("INIT-ACK expected")
    };
    let mut bad = ia.state_cookie.clone();
    bad[10] ^= 0x40;
    s.handle_packet(
        SimTime::ZERO,
        &packet(ia.init_tag, vec![Chunk::CookieEcho { cookie: bad }]),
    );
    assert_eq!(s.stats.cookie_rejects, 1);
    assert!(s.inb.is_none());
    // The genuine cookie after its 60 s lifetime.
    let late = SimTime::from_nanos(61_000_000_000);
    s.handle_packet(
        late,
        &packet(
            ia.init_tag,
            vec![Chunk::CookieEcho {
                cookie: ia.state_cookie.clone(),
            }],
        ),
    );
    assert_eq!(s.stats.cookie_rejects, 2);
    assert!(s.inb.is_none());
    // RFC 9260 5.1.5 step 3: the stale one is answered with an ERROR, "Stale
    // Cookie" (3), 1 s late = 1_000_000 us, under the INIT's tag; no COOKIE-ACK.
    let out = drain(&mut s, late);
    assert_eq!(out.len(), 1);
    assert_eq!(sctp(&out[0]).vtag, c.local_tag);
    assert_eq!(
        sctp(&out[0]).chunks,
        vec![Chunk::Error {
            t_bit: false,
            causes: vec![ErrorCause {
                code: 3,
                info: 1_000_000u32.to_be_bytes().to_vec(),
            }],
        }]
    );
}

#[test]
fn wrong_verification_tag_is_dropped_and_counted() {
    let (mut c, mut s) = (client(), server());
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &echo[0]);
    let good_tag = sctp(&echo[0]).vtag;
    let data = Chunk::Data(DataChunk {
        tsn: 1,
        stream: 0,
        ssn: 0,
        ppid: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len: 100,
    });
    s.handle_packet(SimTime::ZERO, &packet(good_tag ^ 1, vec![data]));
    assert_eq!(s.stats.bad_vtag_drops, 1);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(0));
}

/// Runs client and server over a zero-delay path until neither has anything due
/// before `end`; `lose(to_server, chunk)` drops a packet by its first chunk. Returns
/// (time, to_server, first chunk) of every packet sent, lost ones included.
pub(super) fn exchange(
    c: &mut Association,
    s: &mut Association,
    end: SimTime,
    mut lose: impl FnMut(bool, &Chunk) -> bool,
) -> Vec<(SimTime, bool, Chunk)> {
    let (mut now, mut log) = (SimTime::ZERO, Vec::new());
    c.handle_timeout(now);
    loop {
        let mut moved = false;
        for (to_server, pkts) in [(true, drain(c, now)), (false, drain(s, now))] {
            for p in pkts {
                moved = true;
                let first = sctp(&p).chunks[0].clone();
                log.push((now, to_server, first.clone()));
                if lose(to_server, &first) {
                    continue;
                }
                let to = if to_server { &mut *s } else { &mut *c };
                to.handle_packet(now, &p);
            }
        }
        if moved {
            continue;
        }
        let next = [c.poll_timeout(), s.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        match next {
            Some(t) if t <= end => {
                now = now.max(t);
                for a in [&mut *c, &mut *s] {
                    if a.poll_timeout().is_some_and(|t| t <= now) {
                        a.handle_timeout(now);
                    }
                }
            }
            _ => return log,
        }
    }
}

fn shutdown_acks(log: &[(SimTime, bool, Chunk)]) -> Vec<SimTime> {
    log.iter()
        .filter(|(_, to_server, c)| !to_server && *c == Chunk::ShutdownAck)
        .map(|(t, _, _)| *t)
        .collect()
}

#[test]
fn lost_shutdown_complete_is_recovered_by_t2() {
    // RFC 9260 9.2: the server's SHUTDOWN ACK runs T2-shutdown (RTO: 3 s, the
    // initial value, as the server has measured no RTT); the client, its
    // association gone, answers the resent SHUTDOWN ACK with a SHUTDOWN COMPLETE
    // with the T bit under the tag it carried (8.4 (5)), which the server accepts
    // (8.5.1 (C)).
    let (mut c, mut s) = (client(), server());
    let mut lost = 0;
    let log = exchange(
        &mut c,
        &mut s,
        SimTime::ZERO + SimDuration::from_secs(100),
        |to_server, ch| {
            let first_sc = to_server && matches!(ch, Chunk::ShutdownComplete { .. }) && lost == 0;
            lost += u32::from(first_sc);
            first_sc
        },
    );
    let acks = shutdown_acks(&log);
    assert_eq!(acks.len(), 2, "{log:?}");
    assert_eq!(acks[1] - acks[0], SimDuration::from_secs(3));
    let last = log.last().expect("packets");
    assert_eq!(
        (last.0, last.1, &last.2),
        (acks[1], true, &Chunk::ShutdownComplete { t_bit: true })
    );
    assert_eq!((c.state, s.state), (State::Done, State::Done));
    assert!(!c.stats.aborted && !s.stats.aborted);
    assert_eq!(s.stats.bad_vtag_drops, 0);
}

#[test]
fn t2_backs_off_and_gives_up_after_association_max_retrans() {
    // Every SHUTDOWN COMPLETE lost: the SHUTDOWN ACK is resent after 3, 6, 12, 24,
    // 48 s, then every 60 s (RTO.Max), 10 times in all (Association.Max.Retrans);
    // the 11th expiry, 60 s after the 10th resend, ends the association.
    let (mut c, mut s) = (client(), server());
    let log = exchange(
        &mut c,
        &mut s,
        SimTime::ZERO + SimDuration::from_secs(1000),
        |to_server, ch| to_server && matches!(ch, Chunk::ShutdownComplete { .. }),
    );
    let acks = shutdown_acks(&log);
    let gaps: Vec<u64> = acks
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() as u64)
        .collect();
    assert_eq!(gaps, [3, 6, 12, 24, 48, 60, 60, 60, 60, 60]);
    assert_eq!(s.state, State::Done);
    assert!(s.stats.aborted, "the server gave up");
    assert!(!c.stats.aborted);
}

#[test]
fn t_bit_abort_must_carry_the_peers_tag() {
    // RFC 9260 8.5.1 (B): an ABORT is accepted with our own tag and the T bit clear,
    // or with our peer's tag and the T bit set; the other two mixes are dropped.
    let established = || {
        let (mut c, mut s) = (client(), server());
        let ack = handshake_to_init_ack(&mut c, &mut s);
        c.handle_packet(SimTime::ZERO, &ack);
        let echo = drain(&mut c, SimTime::ZERO);
        s.handle_packet(SimTime::ZERO, &echo[0]);
        assert_ne!(s.local_tag, c.local_tag);
        (c.local_tag, s)
    };
    for (t_bit, peers_tag, accepted) in [
        (false, false, true),
        (true, true, true),
        (true, false, false),
        (false, true, false),
    ] {
        let (client_tag, mut s) = established();
        let tag = if peers_tag { client_tag } else { s.local_tag };
        s.handle_packet(SimTime::ZERO, &packet(tag, vec![Chunk::Abort { t_bit }]));
        assert_eq!(
            s.stats.aborted, accepted,
            "T bit {t_bit}, peer's tag {peers_tag}"
        );
        assert_eq!(s.stats.bad_vtag_drops, u64::from(!accepted));
    }
}

#[test]
fn init_ack_parameters_to_report_ride_behind_the_cookie_echo() {
    // RFC 9260 3.2.2: the receiver of an INIT ACK reports its unrecognized
    // parameters in an ERROR chunk ("Unrecognized Parameters", cause 8) bundled
    // with the COOKIE ECHO, which comes first (6.10).
    let (mut c, mut s) = (client(), server());
    let mut ack = handshake_to_init_ack(&mut c, &mut s);
    let TransportRepr::Sctp(repr) = &mut ack.transport else {
        panic!("SCTP")
    };
    let Some(Chunk::InitAck(ia)) = repr.chunks.first_mut() else {
        panic!("INIT ACK")
    };
    // An unassigned 0xC00F parameter (length 4) and a 6-byte 0x4001 parameter.
    ia.unrecognized = vec![vec![0xc0, 0x0f, 0, 4], vec![0x40, 1, 0, 6, 9, 9]];
    c.handle_packet(SimTime::ZERO, &ack);
    let out = drain(&mut c, SimTime::ZERO);
    assert_eq!(out.len(), 1, "one packet");
    let chunks = &sctp(&out[0]).chunks;
    assert!(matches!(chunks[0], Chunk::CookieEcho { .. }));
    assert_eq!(
        chunks[1],
        Chunk::Error {
            t_bit: false,
            causes: vec![ErrorCause {
                code: 8,
                info: vec![0xc0, 0x0f, 0, 4, 0x40, 1, 0, 6, 9, 9],
            }],
        }
    );
    assert_eq!(c.stats.errors_sent, 1);
}

#[test]
fn unknown_chunks_follow_their_type_bits() {
    // RFC 9260 3.2 on an established server: 0x80 (10) skipped silently, 0xC1 (11)
    // skipped and reported, 0x41 (01) stops the packet and is reported,
    // 0x3F (00) stops it silently; DATA is processed only before a stop.
    let (mut c, mut s) = (client(), server());
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &echo[0]);
    drain(&mut s, SimTime::ZERO);
    let tag = sctp(&echo[0]).vtag;
    let unknown = |kind: u8| {
        Chunk::Unknown(crate::net::wire::UnknownChunk {
            kind,
            flags: 0,
            value: vec![],
        })
    };
    // The client's initial TSN is the first DATA the server expects.
    let first = c.out.as_ref().map_or(0, |o| o.cum_ack.wrapping_add(1));
    let data = |tsn: u32| {
        Chunk::Data(DataChunk {
            tsn,
            stream: 0,
            ssn: tsn.wrapping_sub(first) as u16,
            ppid: 0,
            flags: DataFlags::UNFRAGMENTED,
            payload_len: 100,
        })
    };
    let delivered = |s: &Association| s.inb.as_ref().map_or(0, |i| i.delivered_total);
    let errors = |pkts: &[Packet]| -> Vec<Chunk> {
        pkts.iter()
            .flat_map(|p| sctp(p).chunks.iter())
            .filter(|c| matches!(c, Chunk::Error { .. }))
            .cloned()
            .collect()
    };
    let cause6 = |kind: u8| ErrorCause {
        code: 6,
        info: vec![kind, 0, 0, 4],
    };
    let t = SimTime::from_nanos(1_000_000);
    s.handle_packet(
        t,
        &packet(tag, vec![unknown(0x80), unknown(0xc1), data(first)]),
    );
    assert_eq!(delivered(&s), 100);
    assert_eq!(
        errors(&drain(&mut s, t)),
        vec![Chunk::Error {
            t_bit: false,
            causes: vec![cause6(0xc1)]
        }]
    );
    s.handle_packet(
        t,
        &packet(tag, vec![unknown(0x41), data(first.wrapping_add(1))]),
    );
    assert_eq!(
        delivered(&s),
        100,
        "DATA behind a stopping chunk is discarded"
    );
    assert_eq!(
        errors(&drain(&mut s, t)),
        vec![Chunk::Error {
            t_bit: false,
            causes: vec![cause6(0x41)]
        }]
    );
    s.handle_packet(
        t,
        &packet(tag, vec![data(first.wrapping_add(1)), unknown(0x3f)]),
    );
    assert_eq!(delivered(&s), 200, "chunks before the stop are processed");
    assert!(errors(&drain(&mut s, t)).is_empty());
    assert_eq!(s.stats.unknown_chunks, 4);
    assert_eq!(s.stats.errors_sent, 2);
}
