//! PR-SCTP with I-DATA between two associations, packets handed over by hand with no
//! delay: two interleaved messages, one abandoned by its lifetime (RFC 3758 sec. 3.5,
//! RFC 7496 sec. 2), the I-FORWARD-TSN that skips it (RFC 8260 sec. 2.3.1), and the
//! receiver that drops its fragments and still gets the other message.

use super::super::tests::{cfg, drain, sctp};
use super::*;
use crate::net::wire::sctp_idata::SkippedMessage;
use crate::sctp::streams::{PrPolicy, Scheduler, StreamSourceCfg};

fn ms(n: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(n)
}

/// Round robin, interleaving: stream 0 one 4000-byte message at time 0 with a 5 ms
/// lifetime, stream 1 one reliable 100-byte message at time 0 (both stop at 15 ms).
fn two_messages() -> AssocCfg {
    let src = |stream: u16, size: u64, pr: PrPolicy| StreamSourceCfg {
        stream,
        message_size: size,
        interval: Some(SimDuration::from_secs(1)),
        start: SimTime::ZERO,
        stop: Some(ms(15)),
        priority: 0,
        weight: 1,
        pr,
    };
    let ttl = PrPolicy::Ttl(SimDuration::from_millis(5));
    let mut c = AssocCfg {
        total: None,
        streams: 2,
        stream_traffic: vec![src(0, 4000, ttl), src(1, 100, PrPolicy::None)],
        ..cfg()
    };
    c.knobs.scheduler = Scheduler::Rr;
    c.knobs.interleaving = true;
    c
}

/// Client and server through the handshake at time 0 (no data handed over).
fn pair() -> (Association, Association) {
    let mut c = Association::new(Role::Client, two_messages(), RngStream::new(1, "client"));
    let mut s = Association::new(Role::Server, two_messages(), RngStream::new(1, "server"));
    let t = SimTime::ZERO;
    c.handle_timeout(t);
    for _ in 0..2 {
        for p in drain(&mut c, t) {
            if p.kind != PacketKind::Data {
                s.handle_packet(t, &p);
            }
        }
        for p in drain(&mut s, t) {
            c.handle_packet(t, &p);
        }
    }
    assert_eq!(c.state, State::Established);
    assert!(c.idata_on() && s.idata_on());
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

#[test]
fn an_expired_interleaved_message_is_skipped_and_the_other_delivered() {
    // The first flight (tests in idata_tests.rs derive it): t0 stream 0 MID 0 FSN 0
    // (1448 bytes), t0+1 stream 1 MID 0 (100 bytes), t0+2 and t0+3 stream 0 FSN 1 and
    // 2. t0 and t0+1 are lost, t0+2 and t0+3 arrive: the server SACKs cum t0-1 with
    // a gap. On that SACK at 10 ms the stream-0 message has outlived its 5 ms and the
    // peer lacks t0: abandoned. C1-C3: point t0-1 -> t0 (the message's); t0+1 is the
    // live stream-1 message, so the point stops there although the abandoned message's
    // chunks run to t0+3. I-FORWARD-TSN: new cumulative TSN t0, (stream 0, U 0, MID 0).
    let (mut c, mut s) = pair();
    let flight = drain(&mut c, ms(0));
    let mut tsns = Vec::new();
    for p in &flight {
        for ch in &sctp(p).chunks {
            if let Chunk::IData(d) = ch {
                tsns.push((d.tsn, d.stream, d.mid));
            }
        }
    }
    tsns.sort_unstable();
    let t0 = tsns[0].0;
    let expect: Vec<(u32, u16, u32)> =
        vec![(t0, 0, 0), (t0 + 1, 1, 0), (t0 + 2, 0, 0), (t0 + 3, 0, 0)];
    assert_eq!(tsns, expect);
    for p in &flight {
        let lost = sctp(p)
            .chunks
            .iter()
            .any(|ch| matches!(ch, Chunk::IData(d) if d.tsn == t0 || d.tsn == t0 + 1));
        if !lost {
            s.handle_packet(ms(0), p);
        }
    }
    c.handle_timeout(ms(10));
    let sacks = deliver(&mut s, &mut c, ms(10));
    assert!(
        sacks
            .iter()
            .any(|k| matches!(k, Chunk::Sack(k) if k.cum_tsn_ack == t0.wrapping_sub(1)))
    );
    let out = deliver(&mut c, &mut s, ms(10));
    let fwd: Vec<_> = out
        .iter()
        .filter_map(|ch| match ch {
            Chunk::IForwardTsn(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    assert!(!out.iter().any(|ch| matches!(ch, Chunk::ForwardTsn(_))));
    assert_eq!(fwd.len(), 1, "{out:?}");
    let entry = SkippedMessage {
        stream: 0,
        unordered: false,
        mid: 0,
    };
    assert_eq!(
        (fwd[0].new_cum_tsn, fwd[0].skipped.clone()),
        (t0, vec![entry])
    );
    // The receiver's cumulative TSN is t0 (t0+1 still missing); the skipped message's
    // two fragments it held are dropped.
    let inb = s.inb.as_ref().expect("receiver");
    assert_eq!(inb.cum_tsn, t0);
    assert_eq!(inb.streams[0].delivered_messages, 0);
    // The stream-1 message, never abandoned, is retransmitted (at the T3 expiry,
    // RTO.Initial 3 s) and delivered; the cumulative TSN then covers t0+3, no stream-0
    // fragment is sent again, and both buffers empty.
    let mut t = ms(10);
    for _ in 0..10 {
        deliver(&mut s, &mut c, t);
        let Some(next) = c.poll_timeout() else { break };
        t = next;
        c.handle_timeout(t);
        let sent = deliver(&mut c, &mut s, t);
        assert!(
            !sent
                .iter()
                .any(|ch| matches!(ch, Chunk::IData(d) if d.stream == 0))
        );
        if s.inb
            .as_ref()
            .is_some_and(|i| i.streams[1].delivered_messages == 1)
        {
            break;
        }
    }
    deliver(&mut s, &mut c, t);
    let inb = s.inb.as_ref().expect("receiver");
    assert_eq!(inb.cum_tsn, t0 + 3);
    assert_eq!(
        (
            inb.streams[1].delivered_messages,
            inb.streams[1].delivered_bytes
        ),
        (1, 100)
    );
    assert_eq!(inb.streams[0].delivered_messages, 0);
    assert_eq!(inb.a_rwnd(), 65_536);
    let src = c
        .out
        .as_ref()
        .and_then(|o| o.app.streams.as_ref())
        .expect("sources");
    assert_eq!(src.tally[0].abandoned_messages, 1);
    assert_eq!(src.tally[1].abandoned_messages, 0);
    assert_eq!(src.held(), 0);
}
