//! An association pair with AUTH and ASCONF: an address added, made primary and the
//! old one deleted; a lost ASCONF resent by its timer with the same Sequence Number
//! and answered once; an ASCONF without its AUTH refused and counted; data in flight
//! to a deleted address retransmitted to the other one.

use super::super::tests::{cfg, drain, handshake_to_init_ack, sctp};
use super::*;
use crate::sctp::auth::AuthCfg;

const A: [u8; 4] = [10, 0, 0, 1];
const B: [u8; 4] = [11, 0, 0, 1];
const S1: [u8; 4] = [10, 0, 0, 2];
const S2: [u8; 4] = [11, 0, 0, 2];

/// Client at A (single-homed at first), server at `server_addrs`.
fn pair(server_addrs: Vec<[u8; 4]>) -> (Association, Association) {
    let mut config = cfg();
    config.knobs.auth = Some(AuthCfg::new(&[], false));
    config.total = Some(1_000_000);
    let mut sc = config.clone();
    sc.local_addrs = server_addrs;
    let mut c = Association::new(Role::Client, config, RngStream::new(1, "c"));
    let mut s = Association::new(Role::Server, sc, RngStream::new(1, "s"));
    c.enable_asconf();
    s.enable_asconf();
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &from(&ack, S1));
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &from(&echo[0], A));
    let cookie_ack = drain(&mut s, SimTime::ZERO);
    c.handle_packet(SimTime::ZERO, &from(&cookie_ack[0], S1));
    assert_eq!((c.state, s.state), (State::Established, State::Established));
    assert!(c.asconf_stats().unwrap().0 && s.asconf_stats().unwrap().0);
    (c, s)
}

/// `p` as it arrives from source address `src`.
fn from(p: &Packet, src: [u8; 4]) -> Packet {
    let mut q = p.clone();
    q.ip.src = src;
    q
}

fn chunks(p: &Packet) -> Vec<Chunk> {
    sctp(p).chunks.clone()
}

fn asconf_of(pkts: &[Packet]) -> (Packet, AsconfChunk) {
    for p in pkts {
        let cs = chunks(p);
        if let Some(i) = cs.iter().position(|c| matches!(c, Chunk::Asconf(_))) {
            // RFC 5061 4.1.1: behind an AUTH chunk.
            assert!(i > 0 && matches!(cs[i - 1], Chunk::Auth(_)), "{cs:?}");
            let Chunk::Asconf(a) = &cs[i] else {
                unreachable!()
            };
            return (p.clone(), a.clone());
        }
    }
    panic!("no ASCONF in {pkts:?}");
}

fn ack_of(pkts: &[Packet]) -> Option<(Packet, AsconfAckChunk)> {
    pkts.iter().find_map(|p| {
        chunks(p).iter().find_map(|c| match c {
            Chunk::AsconfAck(a) => Some((p.clone(), a.clone())),
            _ => None,
        })
    })
}

fn addrs(s: &Association) -> Vec<([u8; 4], bool, PathState)> {
    s.paths
        .paths
        .iter()
        .map(|p| (p.addr, p.deleted, p.state))
        .collect()
}

#[test]
fn address_added_made_primary_and_old_one_deleted() {
    let (mut c, mut s) = pair(vec![S1]);
    let t = SimTime::from_nanos(1_000_000_000);
    drain(&mut c, t);
    c.change_address(t, AddrChange::Add(B));
    let (pkt, a) = asconf_of(&drain(&mut c, t));
    // RFC 5061 5.1 A2: the first ASCONF's Sequence Number is the Initial TSN.
    assert_eq!(a.serial, c.pending_initial_tsn);
    assert_eq!(a.addr, A);
    assert!(c.timers.is_set(Timer::Asconf));
    s.handle_packet(t, &from(&pkt, A));
    let out = drain(&mut s, t);
    let (ack_pkt, ack) = ack_of(&out).expect("an ASCONF-ACK");
    assert_eq!((ack.serial, ack.responses.len()), (a.serial, 0));
    assert_eq!(ack_pkt.ip.dst, A, "5.2: to the ASCONF's source");
    // The new destination exists, unconfirmed, and is probed (RFC 9260 5.4).
    assert_eq!(s.paths.index_of(B), Some(1));
    assert!(!s.paths.paths[1].confirmed);
    assert!(out.iter().any(|p| {
        p.ip.dst == B
            && chunks(p)
                .iter()
                .any(|c| matches!(c, Chunk::Heartbeat { .. }))
    }));
    c.handle_packet(t, &from(&ack_pkt, S1));
    assert_eq!(c.local_addrs(), &[A, B]);
    assert!(!c.timers.is_set(Timer::Asconf));
    // Set Primary, then delete A: both in their own ASCONF, numbered on.
    c.change_address(t, AddrChange::SetPrimary(B));
    let (pkt, a2) = asconf_of(&drain(&mut c, t));
    assert_eq!(a2.serial, a.serial.wrapping_add(1));
    s.handle_packet(t, &from(&pkt, A));
    assert_eq!(s.paths.primary, 1);
    let (ack_pkt, _) = ack_of(&drain(&mut s, t)).unwrap();
    c.handle_packet(t, &from(&ack_pkt, S1));
    c.change_address(t, AddrChange::Delete(A));
    let (pkt, a3) = asconf_of(&drain(&mut c, t));
    assert_eq!(a3.serial, a.serial.wrapping_add(2));
    // The Address Parameter names an address that stays.
    assert_eq!(a3.addr, B);
    s.handle_packet(t, &from(&pkt, B));
    let (ack_pkt, ack) = ack_of(&drain(&mut s, t)).unwrap();
    assert!(ack.responses.is_empty());
    assert_eq!(
        addrs(&s),
        vec![
            (A, true, PathState::Inactive),
            (B, false, PathState::Active)
        ]
    );
    c.handle_packet(t, &from(&ack_pkt, S1));
    assert_eq!(c.local_addrs(), &[B]);
    let (on, cs, _) = c.asconf_stats().unwrap();
    assert!(on);
    assert_eq!((cs.sent, cs.succeeded, cs.refused), (3, 3, 0));
    let ss = s.asconf_stats().unwrap().1;
    assert_eq!(
        (
            ss.received,
            ss.addresses_added,
            ss.addresses_deleted,
            ss.primaries_set
        ),
        (3, 1, 1, 1)
    );
    // A deleted destination is never probed again.
    let later = t + SimDuration::from_secs(100);
    s.handle_timeout(later);
    assert!(drain(&mut s, later).iter().all(|p| p.ip.dst != A));
}

#[test]
fn lost_asconf_resent_with_the_same_serial_and_answered_once() {
    let (mut c, mut s) = pair(vec![S1]);
    let t = SimTime::from_nanos(1_000_000_000);
    drain(&mut c, t);
    c.change_address(t, AddrChange::Add(B));
    let (_lost, a) = asconf_of(&drain(&mut c, t));
    // RFC 5061 5.1: the timer runs on the destination's RTO (3 s, RTO.Initial: no RTT
    // measured yet).
    let due = c.timers.get(Timer::Asconf).expect("timer running");
    assert_eq!(due, t + SimDuration::from_secs(3));
    // The DATA sent at t expires on T3-rtx at the same instant; the ASCONF timer is
    // fired alone so that its own effect is seen.
    c.now = due;
    c.on_asconf_timer();
    let (again, a2) = asconf_of(&drain(&mut c, due));
    assert_eq!(a2, a, "the same ASCONF: same Sequence Number and request");
    // B1-B3: an error on the destination and the association, the RTO doubled.
    assert_eq!(c.paths.paths[0].error_count, 1);
    assert_eq!(c.paths.assoc_errors, 1);
    assert_eq!(
        c.timers.get(Timer::Asconf),
        Some(due + SimDuration::from_secs(6))
    );
    s.handle_packet(due, &from(&again, A));
    let (_, first) = ack_of(&drain(&mut s, due)).expect("answered");
    // The copy arrives too (say it was only delayed): answered from the cache, B is
    // not added twice.
    s.handle_packet(due, &from(&again, A));
    let (ack_pkt, second) = ack_of(&drain(&mut s, due)).expect("answered again");
    assert_eq!(first, second);
    assert_eq!(s.paths.len(), 2);
    let ss = s.asconf_stats().unwrap().1;
    assert_eq!((ss.received, ss.duplicates, ss.addresses_added), (1, 1, 1));
    c.handle_packet(due, &from(&ack_pkt, S1));
    assert!(!c.timers.is_set(Timer::Asconf));
    assert_eq!(c.asconf_stats().unwrap().1.retransmissions, 1);
}

#[test]
fn unauthenticated_asconf_refused_and_counted() {
    let (mut c, mut s) = pair(vec![S1]);
    let t = SimTime::from_nanos(1_000_000_000);
    drain(&mut c, t);
    c.change_address(t, AddrChange::Add(B));
    let (pkt, _) = asconf_of(&drain(&mut c, t));
    let mut bare = from(&pkt, A);
    if let TransportRepr::Sctp(r) = &mut bare.transport {
        r.chunks.retain(|x| !matches!(x, Chunk::Auth(_)));
    }
    s.handle_packet(t, &bare);
    assert!(
        ack_of(&drain(&mut s, t)).is_none(),
        "RFC 5061 4.1.1: dropped"
    );
    assert_eq!(s.paths.len(), 1);
    assert_eq!(s.ext_stats().unwrap().auth.dropped, 1);
    assert_eq!(s.asconf_stats().unwrap().1.received, 0);
    // The genuine one is processed.
    s.handle_packet(t, &from(&pkt, A));
    assert!(ack_of(&drain(&mut s, t)).is_some());
    assert_eq!(s.paths.len(), 2);
}

/// The server, at S1 and S2, deletes S1 while the client has DATA in flight there:
/// the client retransmits it to S2 and sends new data there.
#[test]
fn data_in_flight_to_a_deleted_address_goes_to_the_alternate() {
    let (mut c, mut s) = pair(vec![S1, S2]);
    assert_eq!(c.paths.len(), 2);
    let t = SimTime::from_nanos(1_000_000_000);
    c.handle_timeout(t);
    let mut data = drain(&mut c, t);
    // The HEARTBEAT that confirms S2 (RFC 9260 5.4) is answered.
    data.retain(|p| {
        if !chunks(p)
            .iter()
            .any(|x| matches!(x, Chunk::Heartbeat { .. }))
        {
            return true;
        }
        s.handle_packet(t, &from(p, A));
        for r in drain(&mut s, t) {
            c.handle_packet(t, &from(&r, S2));
        }
        false
    });
    assert!(c.paths.paths[1].is_active());
    assert!(!data.is_empty() && data.iter().all(|p| p.ip.dst == S1));
    let in_flight: Vec<u32> = data
        .iter()
        .flat_map(chunks)
        .filter_map(|x| match x {
            Chunk::Data(d) => Some(d.tsn),
            _ => None,
        })
        .collect();
    s.change_address(t, AddrChange::Delete(S1));
    let (pkt, a) = asconf_of(&drain(&mut s, t));
    assert_eq!(a.addr, S2);
    c.handle_packet(t, &from(&pkt, S2));
    assert!(c.paths.paths[0].deleted);
    assert_eq!(c.paths.data_dest, 1);
    let after = drain(&mut c, t);
    assert!(ack_of(&after).is_some());
    let resent: Vec<u32> = after
        .iter()
        .filter(|p| p.ip.dst == S2)
        .flat_map(chunks)
        .filter_map(|x| match x {
            Chunk::Data(d) => Some(d.tsn),
            _ => None,
        })
        .collect();
    assert_eq!(
        resent.first(),
        in_flight.first(),
        "the first chunk in flight, resent to S2"
    );
    assert!(after.iter().all(|p| p.ip.dst != S1));
}

/// RFC 5061 5.3 F0: an (authenticated) ASCONF-ACK for the next Sequence Number with no
/// ASCONF outstanding aborts the association; one for an old number is ignored.
#[test]
fn illegal_asconf_ack_aborts() {
    let (mut c, _s) = pair(vec![S1]);
    let t = SimTime::from_nanos(1_000_000_000);
    c.now = t;
    let old = c.pending_initial_tsn.wrapping_sub(1);
    c.on_asconf_ack(&AsconfAckChunk {
        serial: old,
        responses: Vec::new(),
    });
    assert!(!c.stats.aborted);
    c.on_asconf_ack(&AsconfAckChunk {
        serial: c.pending_initial_tsn,
        responses: Vec::new(),
    });
    assert!(c.stats.aborted);
    assert!(
        drain(&mut c, t)
            .iter()
            .any(|p| chunks(p).iter().any(|x| matches!(x, Chunk::Abort { .. })))
    );
}
