//! PR-SCTP between two associations, packets handed over by hand with no delay:
//! negotiation (RFC 3758 sec. 3.3), abandonment on a SACK (timed reliability) and at
//! a T3 expiry (limited retransmissions), the FORWARD TSN and the receiver's advance.

use super::tests::{cfg, drain, sctp};
use super::*;
use crate::sctp::streams::{PrPolicy, StreamSourceCfg};

fn ms(n: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(n)
}

/// One stream: a 1000-byte message every 10 ms from time 0 under `pr`.
fn msg_cfg(pr: PrPolicy) -> AssocCfg {
    AssocCfg {
        total: None,
        stream_traffic: vec![StreamSourceCfg {
            stream: 0,
            message_size: 1000,
            interval: Some(SimDuration::from_millis(10)),
            start: SimTime::ZERO,
            stop: None,
            priority: 0,
            weight: 1,
            pr,
        }],
        ..cfg()
    }
}

/// Client and server set up at time 0 (the server's config `server_cfg`).
fn pair(client_cfg: AssocCfg, server_cfg: AssocCfg) -> (Association, Association) {
    let mut c = Association::new(Role::Client, client_cfg, RngStream::new(1, "client"));
    let mut s = Association::new(Role::Server, server_cfg, RngStream::new(1, "server"));
    let t = SimTime::ZERO;
    c.handle_timeout(t);
    for p in drain(&mut c, t) {
        s.handle_packet(t, &p);
    }
    for p in drain(&mut s, t) {
        c.handle_packet(t, &p);
    }
    for p in drain(&mut c, t) {
        if p.kind != PacketKind::Data {
            s.handle_packet(t, &p);
        }
    }
    for p in drain(&mut s, t) {
        c.handle_packet(t, &p);
    }
    assert_eq!(c.state, State::Established);
    (c, s)
}

/// Hands every packet of `from` to `to`; returns the chunks handed over.
fn deliver(from: &mut Association, to: &mut Association, t: SimTime) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for p in drain(from, t) {
        to.handle_packet(t, &p);
        chunks.extend(sctp(&p).chunks.iter().cloned());
    }
    chunks
}

fn forward_tsns(chunks: &[Chunk]) -> Vec<crate::net::wire::ForwardTsnChunk> {
    chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::ForwardTsn(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn both_ends_announce_forward_tsn_supported_when_a_stream_has_a_policy() {
    let mut c = Association::new(
        Role::Client,
        msg_cfg(PrPolicy::Ttl(SimDuration::from_millis(5))),
        RngStream::new(1, "client"),
    );
    c.handle_timeout(SimTime::ZERO);
    let init = drain(&mut c, SimTime::ZERO);
    let Chunk::Init(i) = &sctp(&init[0]).chunks[0] else {
        panic!("INIT")
    };
    assert!(i.forward_tsn);
    // A reliable flow's INIT keeps its bytes: no parameter.
    let mut plain = Association::new(Role::Client, cfg(), RngStream::new(1, "client"));
    plain.handle_timeout(SimTime::ZERO);
    let init = drain(&mut plain, SimTime::ZERO);
    let Chunk::Init(i) = &sctp(&init[0]).chunks[0] else {
        panic!("INIT")
    };
    assert!(!i.forward_tsn);
}

#[test]
fn an_expired_message_is_skipped_within_a_round_trip() {
    // Message 0 (TSN t0, SSN 0) leaves at 0 ms and is lost; its lifetime is 5 ms.
    // Message 1 (t0 + 1, SSN 1) leaves at 10 ms and arrives: the server SACKs cum
    // t0 - 1 with a gap. On that SACK (RFC 3758 sec. 3.5) message 0 has expired and
    // the peer lacks it: abandoned; C1-C3 give a FORWARD TSN to t0 with (0, 0) at
    // once. The server moves its cumulative TSN to t0 and, holding t0 + 1, to t0 + 1;
    // stream 0 skips SSN 0 and delivers SSN 1.
    let ttl = PrPolicy::Ttl(SimDuration::from_millis(5));
    let (mut c, mut s) = pair(msg_cfg(ttl), msg_cfg(ttl));
    let lost = drain(&mut c, ms(0));
    assert_eq!(lost.len(), 1);
    let Chunk::Data(d0) = sctp(&lost[0]).chunks[0] else {
        panic!("DATA")
    };
    c.handle_timeout(ms(10));
    let sent = deliver(&mut c, &mut s, ms(10));
    assert!(matches!(sent[0], Chunk::Data(d) if d.tsn == d0.tsn.wrapping_add(1) && d.ssn == 1));
    let sack = deliver(&mut s, &mut c, ms(10));
    assert!(matches!(&sack[0], Chunk::Sack(k) if k.cum_tsn_ack == d0.tsn.wrapping_sub(1)));
    let fwd = forward_tsns(&deliver(&mut c, &mut s, ms(10)));
    assert_eq!(fwd.len(), 1);
    assert_eq!(
        (fwd[0].new_cum_tsn, fwd[0].streams.clone()),
        (d0.tsn, vec![(0, 0)])
    );
    let inb = s.inb.as_ref().expect("receiver");
    assert_eq!(inb.cum_tsn, d0.tsn.wrapping_add(1));
    assert_eq!(inb.streams[0].delivered_messages, 1);
    let tally = &c
        .out
        .as_ref()
        .and_then(|o| o.app.streams.as_ref())
        .expect("sources")
        .tally;
    assert_eq!(tally[0].abandoned_messages, 1);
    // The server's SACK for the FORWARD TSN acknowledges both: the buffer empties.
    let sack = deliver(&mut s, &mut c, ms(10));
    assert!(matches!(&sack[0], Chunk::Sack(k) if k.cum_tsn_ack == d0.tsn.wrapping_add(1)));
    let src = c
        .out
        .as_ref()
        .and_then(|o| o.app.streams.as_ref())
        .expect("sources");
    assert_eq!(src.held(), 0);
}

#[test]
fn a_message_out_of_retransmissions_is_abandoned_at_the_t3_expiry() {
    // Limited retransmissions with 0 (RFC 7496 sec. 3): message 0 is lost, no SACK
    // comes (message 1 is lost too); at the T3 expiry (RTO.Initial 3 s) both chunks
    // are marked, and since each was sent once and may be retransmitted 0 times both
    // messages are abandoned instead; A5 sends a FORWARD TSN to t0 + 1 with (0, 1),
    // and no DATA is retransmitted.
    let rtx = PrPolicy::Rtx(0);
    let mut client_cfg = msg_cfg(rtx);
    if let Some(s) = client_cfg.stream_traffic.first_mut() {
        s.stop = Some(ms(15));
    }
    let (mut c, mut s) = pair(client_cfg, msg_cfg(rtx));
    let lost = drain(&mut c, ms(0));
    let Chunk::Data(d0) = sctp(&lost[0]).chunks[0] else {
        panic!("DATA")
    };
    c.handle_timeout(ms(10));
    assert_eq!(drain(&mut c, ms(10)).len(), 1, "message 1, lost too");
    let t3 = c.poll_timeout().expect("T3 running");
    assert_eq!(t3, ms(3000));
    c.handle_timeout(t3);
    let out = deliver(&mut c, &mut s, t3);
    assert!(out.iter().all(|c| !matches!(c, Chunk::Data(_))), "{out:?}");
    let fwd = forward_tsns(&out);
    assert_eq!(
        (fwd[0].new_cum_tsn, fwd[0].streams.clone()),
        (d0.tsn.wrapping_add(1), vec![(0, 1)])
    );
    assert_eq!(
        s.inb.as_ref().map(|i| i.cum_tsn),
        Some(d0.tsn.wrapping_add(1))
    );
    let sack = deliver(&mut s, &mut c, t3);
    assert!(matches!(&sack[0], Chunk::Sack(_)));
    let out = c.out.as_ref().expect("sender");
    assert!(!out.has_outstanding());
    assert_eq!(
        out.app.streams.as_ref().map(|s| s.forward_tsn_sent),
        Some(1)
    );
}

#[test]
fn a_peer_without_pr_sctp_gets_reliable_delivery() {
    // The server's flow has no policy: its INIT ACK lacks Forward-TSN-Supported, so
    // the client abandons nothing and T3 retransmits the lost message.
    let ttl = PrPolicy::Ttl(SimDuration::from_millis(5));
    let (mut c, mut s) = pair(msg_cfg(ttl), cfg());
    assert_eq!(
        c.out
            .as_ref()
            .and_then(|o| o.app.streams.as_ref())
            .map(|s| s.pr_on),
        Some(false)
    );
    let lost = drain(&mut c, ms(0));
    let Chunk::Data(d0) = sctp(&lost[0]).chunks[0] else {
        panic!("DATA")
    };
    c.handle_timeout(ms(3000));
    let out = deliver(&mut c, &mut s, ms(3000));
    assert!(
        out.iter()
            .any(|ch| matches!(ch, Chunk::Data(d) if d.tsn == d0.tsn))
    );
    assert!(forward_tsns(&out).is_empty());
}
