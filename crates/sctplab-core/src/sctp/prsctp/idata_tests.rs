//! RFC 3758 sec. 3.5 C1-C4 with I-DATA (RFC 8260 sec. 2.3.1) by hand: which
//! I-FORWARD-TSN a sender sends for interleaved messages, some abandoned.

use super::*;
use crate::sctp::streams::PrPolicy;
use crate::sim::SimTime;

/// A started message of stream `stream` with MID `mid` whose chunks took the relative
/// TSNs `tsns` (rising, not necessarily consecutive).
fn msg(stream: u16, mid: u32, tsns: &[u32], abandoned: bool) -> Msg {
    let n = tsns.len() as u64;
    Msg {
        stream,
        size: n * 1000,
        submitted: SimTime::ZERO,
        pr: PrPolicy::Ttl(crate::sim::SimDuration::from_millis(5)),
        ssn: Some(0),
        first_rel: tsns[0],
        last_rel: tsns[tsns.len() - 1],
        cut: n * 1000,
        abandoned,
        mid,
        fsn: tsns.len() as u32,
        tsns: tsns.to_vec(),
    }
}

fn skip(stream: u16, unordered: bool, mid: u32) -> SkippedMessage {
    SkippedMessage {
        stream,
        unordered,
        mid,
    }
}

/// Stream 0's message A (MID 0) interleaved with stream 1's B (MID 0): A's chunks at
/// relative TSNs 0, 2, 3, B's at 1 (round robin per chunk, RFC 8260 sec. 3.2).
fn a_and_b(a_abandoned: bool, b_abandoned: bool) -> VecDeque<Msg> {
    [
        msg(0, 0, &[0, 2, 3], a_abandoned),
        msg(1, 0, &[1], b_abandoned),
    ]
    .into()
}

#[test]
fn the_point_stops_at_a_live_chunk_inside_an_abandoned_messages_span() {
    // Nothing acknowledged (cumulative ack = initial TSN - 1 = relative u32::MAX), A
    // abandoned. C1: point = -1. C2: TSN 0 is A's -> 0; TSN 1 is B's, live -> stop,
    // though A's span runs to 3 (DATA's consecutive-TSN rule would jump to 3 and skip
    // B). C3: 0 > -1, new cumulative TSN initial + 0. C4: (stream 0, U = 0, MID 0).
    let (point, skipped) =
        advance_point_interleaved(&a_and_b(true, false), u32::MAX, u32::MAX, false);
    assert_eq!((point, skipped.clone()), (0, vec![skip(0, false, 0)]));
    let f = i_forward_tsn(1000, point, u32::MAX, skipped).expect("C3");
    assert_eq!(f.new_cum_tsn, 1000);
}

#[test]
fn once_the_live_chunk_is_acknowledged_the_point_reaches_the_messages_last_chunk() {
    // The peer has 0 and 1 (cumulative ack 1): C1 point = 1; C2: 2 and 3 are A's ->
    // 3; C4: A again (its chunks 2 and 3 lie above the cumulative ack).
    let (point, skipped) = advance_point_interleaved(&a_and_b(true, false), 0, 1, false);
    assert_eq!((point, skipped), (3, vec![skip(0, false, 0)]));
}

#[test]
fn both_abandoned_each_stream_lists_its_largest_mid() {
    // A and B abandoned, then stream 0's MID 1 at TSN 4 abandoned and stream 1's MID 1
    // at TSN 5 live. C2: 0, 1, 2, 3, 4 -> 4; 5 live. C4 per stream the largest MID
    // skipped: stream 0 MID 1, stream 1 MID 0, in stream order.
    let mut msgs = a_and_b(true, true);
    msgs.push_back(msg(0, 1, &[4], true));
    msgs.push_back(msg(1, 1, &[5], false));
    let (point, skipped) = advance_point_interleaved(&msgs, u32::MAX, u32::MAX, false);
    assert_eq!(
        (point, skipped),
        (4, vec![skip(0, false, 1), skip(1, false, 0)])
    );
}

#[test]
fn unordered_messages_are_listed_with_the_u_flag() {
    // RFC 8260 sec. 2.3.1: unordered messages have MIDs of their own and are listed
    // with U = 1 (FORWARD TSN leaves them out).
    let (point, skipped) =
        advance_point_interleaved(&a_and_b(true, false), u32::MAX, u32::MAX, true);
    assert_eq!((point, skipped), (0, vec![skip(0, true, 0)]));
}

#[test]
fn no_i_forward_tsn_without_a_skip() {
    // B abandoned, A live at TSN 0 (the next TSN): the point stays at the cumulative
    // ack and C3 sends nothing.
    let (point, skipped) =
        advance_point_interleaved(&a_and_b(false, true), u32::MAX, u32::MAX, false);
    assert_eq!((point, skipped.clone()), (u32::MAX, vec![]));
    assert!(i_forward_tsn(1000, point, u32::MAX, skipped).is_none());
}
