//! PR-SCTP's sender rules (RFC 3758 sec. 3.5): the Advanced.Peer.Ack.Point and the
//! FORWARD TSN that moves the peer's cumulative TSN over abandoned messages. What
//! abandons a message is the policy's (`streams::PrPolicy`, RFC 7496); the glue that
//! applies both to the retransmission buffer is `outbound/prsctp.rs`, the receiver's
//! side `inbound/forward_tsn.rs`.

mod idata;

pub(crate) use idata::{advance_point_interleaved, i_forward_tsn};

use super::streams::Msg;
use crate::net::wire::ForwardTsnChunk;
use std::collections::VecDeque;

/// Serial-number "a < b" on relative TSNs.
pub(crate) fn rel_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// C1-C4 of RFC 3758 sec. 3.5 on the send buffer's message records (TSNs relative to
/// the initial TSN, so the initial TSN - 1 is `u32::MAX`):
/// - C1: the point starts at the cumulative ack `cum_rel` if it is behind it;
/// - C2: it moves up while the next TSN belongs to an abandoned message (a message's
///   chunks are consecutive TSNs, so it jumps to the message's last chunk sent);
/// - C4: for every stream whose ordered messages it skipped, the largest skipped SSN
///   (the messages of one stream are in SSN order in `msgs`).
///
/// Returns the new point and the (stream, SSN) pairs in stream order; C3 (send a
/// FORWARD TSN when the point is beyond the cumulative ack) is the caller's.
pub(crate) fn advance_point(
    msgs: &VecDeque<Msg>,
    point_rel: u32,
    cum_rel: u32,
    unordered: bool,
) -> (u32, Vec<(u16, u16)>) {
    let mut point = if rel_lt(point_rel, cum_rel) {
        cum_rel
    } else {
        point_rel
    };
    let mut pairs: Vec<(u16, u16)> = Vec::new();
    for m in msgs.iter().take_while(|m| m.started()) {
        if !rel_lt(point, m.last_rel) {
            // Wholly at or below the point: skipped already (or acknowledged).
            if m.abandoned && rel_lt(cum_rel, m.last_rel) {
                note_pair(&mut pairs, m, unordered);
            }
            continue;
        }
        if !m.abandoned || rel_lt(point.wrapping_add(1), m.first_rel) {
            break;
        }
        point = m.last_rel;
        note_pair(&mut pairs, m, unordered);
    }
    pairs.sort_unstable_by_key(|&(s, _)| s);
    (point, pairs)
}

fn note_pair(pairs: &mut Vec<(u16, u16)>, m: &Msg, unordered: bool) {
    let (false, Some(ssn)) = (unordered, m.ssn) else {
        return;
    };
    match pairs.iter_mut().find(|(s, _)| *s == m.stream) {
        Some(p) => p.1 = ssn,
        None => pairs.push((m.stream, ssn)),
    }
}

/// The FORWARD TSN for a point beyond the cumulative ack (C3), TSNs made absolute.
pub(crate) fn forward_tsn(
    initial_tsn: u32,
    point_rel: u32,
    cum_rel: u32,
    pairs: Vec<(u16, u16)>,
) -> Option<ForwardTsnChunk> {
    rel_lt(cum_rel, point_rel).then(|| ForwardTsnChunk {
        new_cum_tsn: initial_tsn.wrapping_add(point_rel),
        streams: pairs,
    })
}

#[cfg(test)]
mod tests;
