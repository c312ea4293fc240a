//! Request and response sequence numbers and results for each request type, worked
//! out by hand from RFC 6525 5.1 and 5.2 (initial TSNs 1000 and 5000).

use super::*;
use ReconfigResult as R;

fn local(cum_tsn: u32) -> Local {
    Local {
        cum_tsn,
        in_streams: 4,
        out_streams: 2,
        last_assigned_tsn: 4999,
        in_flight: false,
    }
}

fn response(p: &[ReconfigParam]) -> (u32, ReconfigResult) {
    match p {
        [
            ReconfigParam::Response {
                resp_seq, result, ..
            },
        ] => (*resp_seq, *result),
        other => panic!("expected one response, got {other:?}"),
    }
}

/// A's initial TSN is 1000, B's 5000: A's first request carries 1000 and names B's
/// last request as 4999 (none yet); B answers 1000 "performed" and resets stream 1.
#[test]
fn outgoing_reset_performed() {
    let mut a = Reconfig::new(1000, 5000);
    let mut b = Reconfig::new(5000, 1000);
    a.queue(Request::ResetStreams(vec![1]));
    assert!(a.holds_data());
    // Half a message still to cut: the request waits (5.1.2).
    assert_eq!(a.poll(1041, true, false), None);
    let c = a.poll(1041, false, false).unwrap();
    assert_eq!(
        c.params,
        [ReconfigParam::OutgoingSsnReset {
            req_seq: 1000,
            resp_seq: 4999,
            last_tsn: 1041,
            streams: vec![1]
        }]
    );
    // One outstanding at a time.
    a.queue(Request::AddStreams(3));
    assert_eq!(a.poll(1041, false, false), None);
    let (out, act) = b.on_request(&c.params[0], local(1041));
    assert_eq!(response(&out), (1000, R::Performed));
    assert_eq!(act, [Action::ResetIncoming(vec![1])]);
    let (seq, res) = response(&out);
    assert_eq!(
        a.on_response(seq, res, None),
        Some(Outcome::StreamsReset(vec![1]))
    );
    assert!(!a.holds_data());
    // The next request uses 1001.
    let c = a.poll(1050, false, false).unwrap();
    assert_eq!(c.params[0].req_seq(), Some(1001));
    let (out, act) = b.on_request(&c.params[0], local(1050));
    assert_eq!(response(&out), (1001, R::Performed));
    assert_eq!(act, [Action::AddIncoming(3)]);
    assert_eq!(
        a.on_response(1001, R::Performed, None),
        Some(Outcome::StreamsAdded(3))
    );
    assert_eq!((a.stats.requests, b.stats.responses), (2, 2));
    assert_eq!((b.stats.streams_reset, b.stats.streams_added), (1, 3));
}

/// The request is lost: the timer resends it with the same sequence number; a lost
/// response makes B see 1000 twice and answer it again with the same result, and a
/// number further off is a bad sequence number.
#[test]
fn lost_request_and_lost_response() {
    let mut a = Reconfig::new(1000, 5000);
    let mut b = Reconfig::new(5000, 1000);
    a.queue(Request::AddStreams(2));
    let first = a.poll(999, false, false).unwrap();
    let (again, retries) = a.on_timer().unwrap();
    assert_eq!((again.clone(), retries), (first, 1));
    let (out, _) = b.on_request(&again.params[0], local(999));
    assert_eq!(response(&out), (1000, R::Performed));
    // Response lost: the second copy is answered the same, without adding again.
    let (out, act) = b.on_request(&again.params[0], local(999));
    assert_eq!(response(&out), (1000, R::Performed));
    assert!(act.is_empty());
    assert_eq!(b.stats.streams_added, 2);
    let stale = ReconfigParam::AddOutgoingStreams {
        req_seq: 998,
        count: 1,
    };
    assert_eq!(
        response(&b.on_request(&stale, local(999)).0),
        (998, R::BadSequenceNumber)
    );
    assert_eq!(
        a.on_response(1000, R::Performed, None),
        Some(Outcome::StreamsAdded(2))
    );
    assert_eq!(a.stats.retransmissions, 1);
    assert_eq!(a.on_timer(), None);
}

/// Not every TSN up to the sender's last has arrived: "in progress" (6); the request
/// stays outstanding, and once the cumulative TSN gets there the reset is done and a
/// retransmission is answered "performed".
#[test]
fn in_progress_then_performed() {
    let mut a = Reconfig::new(1000, 5000);
    let mut b = Reconfig::new(5000, 1000);
    a.queue(Request::ResetStreams(vec![0, 3]));
    let c = a.poll(1100, false, false).unwrap();
    let (out, act) = b.on_request(&c.params[0], local(1090));
    assert_eq!(response(&out), (1000, R::InProgress));
    assert!(act.is_empty());
    assert_eq!(a.on_response(1000, R::InProgress, None), None);
    assert!(a.is_outstanding() && a.holds_data());
    assert_eq!(b.deferred_due(1099), None);
    assert_eq!(b.deferred_due(1100), Some(vec![0, 3]));
    assert_eq!(b.deferred_due(1101), None);
    let (again, _) = a.on_timer().unwrap();
    let (out, act) = b.on_request(&again.params[0], local(1100));
    assert_eq!(response(&out), (1000, R::Performed));
    assert!(act.is_empty());
    assert_eq!(
        a.on_response(1000, R::Performed, None),
        Some(Outcome::StreamsReset(vec![0, 3]))
    );
}

/// Results per request type: a stream that does not exist is denied (2); an SSN/TSN
/// reset is performed (below); adding past 65535 streams is denied; an Incoming
/// SSN Reset is answered by an Outgoing SSN Reset Request whose response sequence
/// number is the request's (5.2.3), or "already in progress" (4) while B has its own
/// request outstanding.
#[test]
fn results_per_request_type() {
    let mut b = Reconfig::new(5000, 1000);
    let bad_stream = ReconfigParam::OutgoingSsnReset {
        req_seq: 1000,
        resp_seq: 4999,
        last_tsn: 999,
        streams: vec![4],
    };
    assert_eq!(
        response(&b.on_request(&bad_stream, local(999)).0),
        (1000, R::Denied)
    );
    let tsn = ReconfigParam::SsnTsnReset { req_seq: 1001 };
    assert_eq!(
        response(&b.on_request(&tsn, local(999)).0),
        (1001, R::Performed)
    );
    let many = ReconfigParam::AddOutgoingStreams {
        req_seq: 1002,
        count: u16::MAX,
    };
    assert_eq!(
        response(&b.on_request(&many, local(999)).0),
        (1002, R::Denied)
    );
    let add_in = ReconfigParam::AddIncomingStreams {
        req_seq: 1003,
        count: 5,
    };
    let (out, act) = b.on_request(&add_in, local(999));
    assert_eq!(response(&out), (1003, R::Performed));
    assert_eq!(act, [Action::AddOutgoing(5)]);
    let inc = ReconfigParam::IncomingSsnReset {
        req_seq: 1004,
        streams: vec![1],
    };
    let (out, _) = b.on_request(&inc, local(999));
    assert_eq!(
        out,
        [ReconfigParam::OutgoingSsnReset {
            req_seq: 5000,
            resp_seq: 1004,
            last_tsn: 4999,
            streams: vec![1]
        }]
    );
    let inc2 = ReconfigParam::IncomingSsnReset {
        req_seq: 1005,
        streams: vec![0],
    };
    assert_eq!(
        response(&b.on_request(&inc2, local(999)).0),
        (1005, R::AlreadyInProgress)
    );
    assert_eq!(b.stats.refused, 2);
    // A's side: its Incoming SSN Reset is completed by B's Outgoing request.
    let mut a = Reconfig::new(1000, 5000);
    a.queue(Request::ResetIncoming(vec![1]));
    let c = a.poll(999, false, false).unwrap();
    assert_eq!(
        c.params[0],
        ReconfigParam::IncomingSsnReset {
            req_seq: 1000,
            streams: vec![1]
        }
    );
    let reply = ReconfigParam::OutgoingSsnReset {
        req_seq: 5000,
        resp_seq: 1000,
        last_tsn: 4999,
        streams: vec![1],
    };
    let (out, act) = a.on_request(&reply, local(4999));
    assert_eq!(response(&out), (5000, R::Performed));
    assert_eq!(act, [Action::ResetIncoming(vec![1])]);
    assert!(!a.is_outstanding());
    // A response to nothing outstanding is ignored.
    assert_eq!(a.on_response(1000, R::Performed, None), None);
}

fn tsn_response(p: &[ReconfigParam]) -> (u32, ReconfigResult, Option<(u32, u32)>) {
    match p {
        [
            ReconfigParam::Response {
                resp_seq,
                result,
                tsns,
            },
        ] => (*resp_seq, *result, *tsns),
        other => panic!("expected one response, got {other:?}"),
    }
}

/// SSN/TSN reset (RFC 6525 4.3, 5.1.4, 5.2.4). A (initial TSN 1000) has sent TSNs
/// 1000-1041, all acknowledged by B (cumulative TSN 1041); B (initial TSN 5000) has
/// sent nothing (last assigned 4999). A's request waits while a message is half cut
/// or data is in flight, then carries sequence number 1000. B performs it: Sender's
/// Next TSN = B's own next TSN, 5000 (G2); Receiver's Next TSN = the smallest TSN B
/// has not acknowledged, 1042, plus 2^31 = 2147484690 (G1). A applies both.
#[test]
fn ssn_tsn_reset_performed_with_both_next_tsns() {
    let mut a = Reconfig::new(1000, 5000);
    let mut b = Reconfig::new(5000, 1000);
    a.queue(Request::ResetAll);
    assert!(a.holds_data());
    assert_eq!(a.poll(1041, true, false), None);
    assert_eq!(a.poll(1041, false, true), None);
    let c = a.poll(1041, false, false).unwrap();
    assert_eq!(c.params, [ReconfigParam::SsnTsnReset { req_seq: 1000 }]);
    let (out, act) = b.on_request(&c.params[0], local(1041));
    assert_eq!(
        tsn_response(&out),
        (1000, R::Performed, Some((5000, 2_147_484_690)))
    );
    assert_eq!(
        act,
        [Action::ResetAssoc {
            receivers_next: 2_147_484_690
        }]
    );
    assert_eq!(b.stats.streams_reset, 4);
    let (seq, res, tsns) = tsn_response(&out);
    assert_eq!(
        a.on_response(seq, res, tsns),
        Some(Outcome::AssocReset {
            senders_next: 5000,
            receivers_next: 2_147_484_690
        })
    );
    assert!(!a.holds_data() && !a.is_outstanding());
    // The TSN space wraps: cumulative TSN 0xFFFF_FFF0 gives 0xFFFF_FFF1 + 2^31 mod
    // 2^32 = 0x7FFF_FFF1.
    let mut b2 = Reconfig::new(5000, 7);
    let (out, _) = b2.on_request(
        &ReconfigParam::SsnTsnReset { req_seq: 7 },
        local(0xFFFF_FFF0),
    );
    assert_eq!(tsn_response(&out).2, Some((5000, 0x7FFF_FFF1)));
}

/// B has data of its own in flight: "in progress" (6) without using up the sequence
/// number, so A's retransmission (same number, 5.1.1) is decided afresh and
/// performed. A retransmission after that (the response lost) gets the same TSNs
/// though B's cumulative TSN has not moved (5.2.1); B's own request outstanding makes
/// it "already in progress" (4); a "performed" without the TSNs changes nothing.
#[test]
fn ssn_tsn_reset_in_progress_retransmitted_and_refused() {
    let mut a = Reconfig::new(1000, 5000);
    let mut b = Reconfig::new(5000, 1000);
    a.queue(Request::ResetAll);
    let c = a.poll(1041, false, false).unwrap();
    let busy = Local {
        in_flight: true,
        ..local(1041)
    };
    let (out, act) = b.on_request(&c.params[0], busy);
    assert_eq!(tsn_response(&out), (1000, R::InProgress, None));
    assert!(act.is_empty());
    assert_eq!(a.on_response(1000, R::InProgress, None), None);
    assert!(a.is_outstanding());
    let (again, _) = a.on_timer().unwrap();
    assert_eq!(again.params, [ReconfigParam::SsnTsnReset { req_seq: 1000 }]);
    let (out, act) = b.on_request(&again.params[0], local(1041));
    let performed = (1000, R::Performed, Some((5000, 2_147_484_690)));
    assert_eq!(tsn_response(&out), performed);
    assert_eq!(act.len(), 1);
    let (out, act) = b.on_request(&again.params[0], local(1041));
    assert_eq!(tsn_response(&out), performed);
    assert!(act.is_empty());
    // The next request of A's is 1001; B with its own request outstanding refuses it.
    assert!(
        a.on_response(1000, R::Performed, Some((5000, 2_147_484_690)))
            .is_some()
    );
    b.queue(Request::AddStreams(1));
    assert!(b.poll(4999, false, false).is_some());
    a.queue(Request::ResetAll);
    let c = a.poll(1041, false, false).unwrap();
    let (out, _) = b.on_request(&c.params[0], local(1041));
    assert_eq!(tsn_response(&out), (1001, R::AlreadyInProgress, None));
    assert_eq!(
        a.on_response(1001, R::AlreadyInProgress, None),
        Some(Outcome::Refused(R::AlreadyInProgress))
    );
    a.queue(Request::ResetAll);
    let c = a.poll(1041, false, false).unwrap();
    assert_eq!(c.params[0].req_seq(), Some(1002));
    assert_eq!(
        a.on_response(1002, R::Performed, None),
        Some(Outcome::Refused(R::Performed))
    );
    assert_eq!(a.stats.refused, 2);
}
