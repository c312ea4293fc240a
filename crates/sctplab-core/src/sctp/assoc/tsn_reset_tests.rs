//! An SSN/TSN reset between two associations (RFC 6525 4.3, 5.1.4, 5.2.4, 5.2.7), the
//! numbers worked out by hand from the ends' initial TSNs: the request waits until
//! every chunk sent is acknowledged; the receiver answers with Sender's Next TSN =
//! its own next TSN (it sent nothing: its initial TSN) and Receiver's Next TSN = the
//! smallest TSN it has not acknowledged + 2^31; the sender's next chunk carries that
//! TSN and SSN 0, and the SACK for it acknowledges that TSN. A lost request is resent
//! by its timer with the same sequence number; a lost response makes the receiver
//! answer the retransmission with the same two TSNs.
use super::super::tests::{cfg, drain, handshake_to_init_ack, sctp};
use super::*;
use crate::net::wire::{ReconfigChunk, ReconfigParam, ReconfigResult};
use crate::sctp::reconfig::Request;

fn pair() -> (Association, Association) {
    let mut config = cfg();
    config.knobs.reconfig = true;
    let mut c = Association::new(Role::Client, config.clone(), RngStream::new(7, "c"));
    let mut s = Association::new(Role::Server, config, RngStream::new(7, "s"));
    let ack = handshake_to_init_ack(&mut c, &mut s);
    c.handle_packet(SimTime::ZERO, &ack);
    let echo = drain(&mut c, SimTime::ZERO);
    s.handle_packet(SimTime::ZERO, &echo[0]);
    let cookie_ack = drain(&mut s, SimTime::ZERO);
    c.handle_packet(SimTime::ZERO, &cookie_ack[0]);
    (c, s)
}

fn reconfig_of(p: &Packet) -> Option<&ReconfigChunk> {
    sctp(p).chunks.iter().find_map(|c| match c {
        Chunk::Reconfig(r) => Some(r),
        _ => None,
    })
}

fn data_of(p: &Packet) -> Vec<(u32, u16)> {
    sctp(p)
        .chunks
        .iter()
        .filter_map(|c| match c {
            Chunk::Data(d) => Some((d.tsn, d.ssn)),
            _ => None,
        })
        .collect()
}

fn sack_cum(p: &Packet) -> Option<u32> {
    sctp(p).chunks.iter().find_map(|c| match c {
        Chunk::Sack(s) => Some(s.cum_tsn_ack),
        _ => None,
    })
}

/// Packets both ways at `t` until both ends are quiet, the server answering each
/// client packet before the next arrives; `drop` decides which of the client's
/// (true) or server's (false) packets are lost. Every packet is logged.
fn pump(
    c: &mut Association,
    s: &mut Association,
    t: SimTime,
    log: &mut Vec<(bool, Packet)>,
    drop: &mut dyn FnMut(bool, &Packet) -> bool,
) {
    loop {
        let from_c = drain(c, t);
        let mut from_s = drain(s, t);
        if from_c.is_empty() && from_s.is_empty() {
            return;
        }
        for p in from_c {
            if !drop(true, &p) {
                s.handle_packet(t, &p);
            }
            log.push((true, p));
            from_s.extend(drain(s, t));
        }
        for p in from_s {
            if !drop(false, &p) {
                c.handle_packet(t, &p);
            }
            log.push((false, p));
        }
    }
}

/// (Response Sequence Number, result, (Sender's, Receiver's) Next TSN).
type Answer = (u32, ReconfigResult, Option<(u32, u32)>);

fn response(p: &Packet) -> Option<Answer> {
    reconfig_of(p)?.params.iter().find_map(|x| match x {
        ReconfigParam::Response {
            resp_seq,
            result,
            tsns,
        } => Some((*resp_seq, *result, *tsns)),
        _ => None,
    })
}

#[test]
fn ssn_tsn_reset_moves_both_tsn_spaces_and_the_ssns() {
    let (mut c, mut s) = pair();
    let t0 = c.pending_initial_tsn;
    let server_initial = c.peer_initial_tsn;
    let t = SimTime::from_nanos(1_000_000_000);
    // The first flight is out (the handshake's kick); the reset is scripted now.
    let first = drain(&mut c, SimTime::ZERO);
    let k = first.iter().map(|p| data_of(p).len() as u32).sum::<u32>();
    assert!(k > 0);
    c.reconfigure(t, Request::ResetAll);
    // 5.1.4: nothing goes while the flight is unacknowledged, and no new message.
    assert!(drain(&mut c, t).iter().all(|p| reconfig_of(p).is_none()));
    let mut log = Vec::new();
    for p in &first {
        s.handle_packet(t, p);
    }
    pump(&mut c, &mut s, t, &mut log, &mut |_, _| false);
    // The request went after the SACK of TSNs t0 .. t0+k-1, with sequence number t0.
    let req = log
        .iter()
        .find_map(|(from_c, p)| reconfig_of(p).filter(|_| *from_c))
        .expect("a request");
    assert_eq!(req.params, [ReconfigParam::SsnTsnReset { req_seq: t0 }]);
    // No DATA between the first flight and the response.
    let resp_at = log
        .iter()
        .position(|(from_c, p)| !*from_c && response(p).is_some())
        .expect("a response");
    assert!(log[..resp_at].iter().all(|(_, p)| data_of(p).is_empty()));
    let receivers_next = t0.wrapping_add(k).wrapping_add(1 << 31);
    assert_eq!(
        response(&log[resp_at].1),
        Some((
            t0,
            ReconfigResult::Performed,
            Some((server_initial, receivers_next))
        ))
    );
    // After it: the next message is TSN t0+k+2^31, SSN 0 (it would have been SSN k),
    // and the server's SACK for it acknowledges that TSN (one 1016-byte chunk per
    // packet: two do not fit the 1468 bytes of room).
    let after: Vec<(u32, u16)> = log[resp_at..]
        .iter()
        .filter(|(from_c, _)| *from_c)
        .flat_map(|(_, p)| data_of(p))
        .collect();
    assert_eq!(after.first(), Some(&(receivers_next, 0)));
    assert_eq!(after.get(1), Some(&(receivers_next.wrapping_add(1), 1)));
    let first_sack_after = log[resp_at + 1..]
        .iter()
        .find_map(|(from_c, p)| sack_cum(p).filter(|_| !*from_c));
    assert_eq!(first_sack_after, Some(receivers_next));
    // Every message of the flow delivered: the k before and 10 - k after the reset.
    assert_eq!(after.len() as u32, 10 - k);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(10_000));
    assert_eq!(
        s.inb.as_ref().map(|i| i.cum_tsn),
        Some(receivers_next.wrapping_add(10 - k - 1))
    );
    let st = c.ext_stats().unwrap().reconfig;
    assert_eq!((st.requests, st.refused, st.streams_reset), (1, 0, 1));
}

#[test]
fn lost_request_and_lost_response_keep_the_sequence_number_and_the_tsns() {
    let (mut c, mut s) = pair();
    let t0 = c.pending_initial_tsn;
    let t = SimTime::from_nanos(1_000_000_000);
    let first = drain(&mut c, SimTime::ZERO);
    let k = first.iter().map(|p| data_of(p).len() as u32).sum::<u32>();
    c.reconfigure(t, Request::ResetAll);
    for p in &first {
        s.handle_packet(t, p);
    }
    // The request is lost.
    let mut log = Vec::new();
    pump(&mut c, &mut s, t, &mut log, &mut |from_c, p| {
        from_c && reconfig_of(p).is_some()
    });
    let due = c.timers.get(Timer::Reconfig).expect("the request's timer");
    c.handle_timeout(due);
    // Resent with the same number; this time its response is lost.
    let mut log2 = Vec::new();
    let mut lost_once = false;
    pump(&mut c, &mut s, due, &mut log2, &mut |from_c, p| {
        let lose = !from_c && !lost_once && response(p).is_some();
        lost_once |= lose;
        lose
    });
    let resent = log2
        .iter()
        .find_map(|(from_c, p)| reconfig_of(p).filter(|_| *from_c))
        .expect("resent");
    assert_eq!(resent.params, [ReconfigParam::SsnTsnReset { req_seq: t0 }]);
    let first_answer = log2.iter().find_map(|(_, p)| response(p)).unwrap();
    let due2 = c.timers.get(Timer::Reconfig).expect("still outstanding");
    c.handle_timeout(due2);
    let mut log3 = Vec::new();
    pump(&mut c, &mut s, due2, &mut log3, &mut |_, _| false);
    // 5.2.1: the same request again gets the same answer, TSNs included.
    let second_answer = log3.iter().find_map(|(_, p)| response(p)).unwrap();
    let receivers_next = t0.wrapping_add(k).wrapping_add(1 << 31);
    assert_eq!(first_answer, second_answer);
    assert_eq!(first_answer.2.map(|x| x.1), Some(receivers_next));
    assert_eq!(s.ext_stats().unwrap().reconfig.responses, 2);
    assert_eq!(c.ext_stats().unwrap().reconfig.retransmissions, 2);
    assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(10_000));
}
