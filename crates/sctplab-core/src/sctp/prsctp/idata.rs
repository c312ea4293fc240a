//! PR-SCTP's sender rules with I-DATA (RFC 8260 sec. 2.3, RFC 3758 sec. 3.5): with
//! interleaving the chunks of one message need not have consecutive TSNs, so the
//! Advanced.Peer.Ack.Point moves TSN by TSN over chunks of abandoned messages (each
//! message's own list of TSNs, `Msg::tsns`), and the I-FORWARD-TSN names skipped
//! messages by (stream, U, MID) instead of (stream, SSN).

use super::rel_lt;
use crate::net::wire::sctp_idata::{IForwardTsnChunk, SkippedMessage};
use crate::sctp::streams::Msg;
use std::collections::VecDeque;

/// C1-C4 of RFC 3758 sec. 3.5 for I-DATA, on the send buffer's message records
/// (relative TSNs):
/// - C1: the point starts at the cumulative ack `cum_rel` if it is behind it;
/// - C2: it moves up while the next TSN is a chunk of an abandoned message (whose
///   other chunks may lie further on, between other messages' chunks);
/// - C4 (RFC 8260 sec. 2.3.1): per stream and U flag, the largest MID of the
///   abandoned messages with a chunk above the cumulative ack and at or below the
///   new point (a stream's messages have rising MIDs in `msgs`, which holds them in
///   the order of their first chunks). Unordered messages are listed with U set: the
///   receiver drops their fragments by MID.
///
/// Returns the new point and the entries in stream order, ordered before unordered.
pub(crate) fn advance_point_interleaved(
    msgs: &VecDeque<Msg>,
    point_rel: u32,
    cum_rel: u32,
    unordered: bool,
) -> (u32, Vec<SkippedMessage>) {
    let mut point = if rel_lt(point_rel, cum_rel) {
        cum_rel
    } else {
        point_rel
    };
    // The abandoned chunks beyond the point, as distances from it (1 = next TSN).
    let mut ahead: Vec<u32> = msgs
        .iter()
        .filter(|m| m.abandoned)
        .flat_map(|m| m.tsns.iter())
        .map(|&t| t.wrapping_sub(point))
        .filter(|&d| (d as i32) > 0)
        .collect();
    ahead.sort_unstable();
    let mut step = 0;
    for d in ahead {
        if d != step + 1 {
            break;
        }
        step = d;
    }
    point = point.wrapping_add(step);
    let mut skipped: Vec<SkippedMessage> = Vec::new();
    for m in msgs.iter().filter(|m| m.abandoned) {
        let covered = m
            .tsns
            .iter()
            .any(|&t| rel_lt(cum_rel, t) && !rel_lt(point, t));
        if !covered {
            continue;
        }
        match skipped
            .iter_mut()
            .find(|e| e.stream == m.stream && e.unordered == unordered)
        {
            Some(e) => e.mid = m.mid,
            None => skipped.push(SkippedMessage {
                stream: m.stream,
                unordered,
                mid: m.mid,
            }),
        }
    }
    skipped.sort_unstable_by_key(|e| (e.stream, e.unordered));
    (point, skipped)
}

/// The I-FORWARD-TSN for a point beyond the cumulative ack (C3), TSNs made absolute.
pub(crate) fn i_forward_tsn(
    initial_tsn: u32,
    point_rel: u32,
    cum_rel: u32,
    skipped: Vec<SkippedMessage>,
) -> Option<IForwardTsnChunk> {
    rel_lt(cum_rel, point_rel).then(|| IForwardTsnChunk {
        new_cum_tsn: initial_tsn.wrapping_add(point_rel),
        skipped,
    })
}

#[cfg(test)]
#[path = "idata_tests.rs"]
mod tests;
