//! RFC 3758 sec. 3.5 C1-C4 by hand: which FORWARD TSN a sender sends for given
//! abandoned messages and a given cumulative ack.

use super::*;
use crate::sctp::streams::PrPolicy;
use crate::sim::SimTime;

/// A message of chunks `first..=last` (relative TSNs) on `stream` with `ssn`.
fn msg(stream: u16, ssn: u16, first: u32, last: u32, abandoned: bool) -> Msg {
    Msg {
        stream,
        size: u64::from(last - first + 1) * 1000,
        submitted: SimTime::ZERO,
        pr: PrPolicy::Rtx(0),
        ssn: Some(ssn),
        first_rel: first,
        last_rel: last,
        cut: u64::from(last - first + 1) * 1000,
        abandoned,
        mid: 0,
        fsn: 0,
        tsns: Vec::new(),
    }
}

#[test]
fn the_point_moves_over_abandoned_messages_up_to_the_first_live_one() {
    // RFC 3758 sec. 3.5's example, in messages: cumulative ack 2 (relative); TSNs 3
    // (stream 0, SSN 1) and 4-5 (stream 1, SSN 0, two fragments) abandoned, 6 (stream
    // 0, SSN 2) not, 7 (stream 1, SSN 1) abandoned.
    // C1: point = 2. C2: 3 abandoned -> 3; 4-5 abandoned -> 5; 6 live -> stop.
    // C3: 5 > 2, so a FORWARD TSN with new cumulative TSN initial + 5. C4: stream 0
    // skipped SSN 1, stream 1 SSN 0. TSN 7 lies beyond the live 6: not skipped.
    let msgs: VecDeque<Msg> = [
        msg(0, 0, 2, 2, false),
        msg(0, 1, 3, 3, true),
        msg(1, 0, 4, 5, true),
        msg(0, 2, 6, 6, false),
        msg(1, 1, 7, 7, true),
    ]
    .into();
    let (point, pairs) = advance_point(&msgs, u32::MAX, 2, false);
    assert_eq!((point, pairs.clone()), (5, vec![(0, 1), (1, 0)]));
    let f = forward_tsn(1000, point, 2, pairs).expect("FORWARD TSN due");
    assert_eq!(f.new_cum_tsn, 1005);
    assert_eq!(f.streams, vec![(0, 1), (1, 0)]);
}

#[test]
fn a_resent_forward_tsn_still_names_every_skipped_stream() {
    // The point is already 5 (an earlier FORWARD TSN was lost); the peer's cumulative
    // ack is still 2. The FORWARD TSN sent again names the same streams and SSNs.
    let msgs: VecDeque<Msg> = [
        msg(0, 1, 3, 3, true),
        msg(1, 0, 4, 5, true),
        msg(0, 2, 6, 6, false),
    ]
    .into();
    let (point, pairs) = advance_point(&msgs, 5, 2, false);
    assert_eq!((point, pairs), (5, vec![(0, 1), (1, 0)]));
}

#[test]
fn nothing_to_skip_means_no_forward_tsn() {
    // C1 only: the point follows the cumulative ack; the next message is live.
    let msgs: VecDeque<Msg> = [msg(0, 0, 3, 3, false), msg(0, 1, 4, 4, true)].into();
    let (point, pairs) = advance_point(&msgs, 1, 2, false);
    assert_eq!((point, pairs.clone()), (2, vec![]));
    assert!(forward_tsn(0, point, 2, pairs).is_none());
}

#[test]
fn unordered_messages_are_skipped_without_stream_pairs() {
    // RFC 3758 sec. 3.2: the pairs are for ordered messages only.
    let msgs: VecDeque<Msg> = [msg(3, 0, 0, 1, true)].into();
    let (point, pairs) = advance_point(&msgs, u32::MAX, u32::MAX, true);
    assert_eq!((point, pairs), (1, vec![]));
}

#[test]
fn the_largest_ssn_per_stream_is_reported() {
    // Stream 2's SSNs 4 and 5 are both skipped: one pair, SSN 5.
    let msgs: VecDeque<Msg> = [msg(2, 4, 10, 10, true), msg(2, 5, 11, 12, true)].into();
    let (point, pairs) = advance_point(&msgs, 9, 9, false);
    assert_eq!((point, pairs), (12, vec![(2, 5)]));
}
