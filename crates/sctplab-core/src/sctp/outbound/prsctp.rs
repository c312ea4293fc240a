//! PR-SCTP on the retransmission buffer (RFC 3758 sec. 3.5, RFC 7496): abandoning
//! messages before a retransmission and on every SACK, and the FORWARD TSN that
//! follows. Only with `stream_traffic` sources and a peer that announced
//! Forward-TSN-Supported (`StreamSources::pr_on`); otherwise nothing here acts. With
//! I-DATA the skip goes as an I-FORWARD-TSN (RFC 8260 sec. 2.3, `prsctp/idata.rs`).

use super::*;
use crate::net::wire::Chunk;
use crate::sctp::prsctp;
use crate::sctp::streams::PrPolicy;

impl Outbound {
    fn rel(&self, tsn: u32) -> u32 {
        tsn.wrapping_sub(self.initial_tsn)
    }

    /// Before chunks marked for retransmission go (RFC 3758 sec. 3.5: the sender
    /// checks a message's policy before it retransmits it): a message whose lifetime
    /// has run out, or one of whose chunks would exceed its retransmission limit
    /// (RFC 7496 sec. 3), is abandoned, and the marks of every abandoned message's
    /// chunks go, so they are never retransmitted. Their bytes stay outstanding until
    /// the peer's SACK covers them after the FORWARD TSN.
    pub(super) fn drop_abandoned_marks(&mut self, now: SimTime) {
        if !self.any_marked() || !self.app.streams.as_ref().is_some_and(|s| s.pr_on) {
            return;
        }
        let from = self.mark_floor_index();
        let initial = self.initial_tsn;
        let Some(src) = self.app.streams.as_mut() else {
            return;
        };
        // First decide (a message's chunks may carry different transmission counts),
        // then unmark.
        for s in self.sent.range(from..).filter(|s| s.mark.is_some()) {
            let Some(k) = src.find(s.tsn.wrapping_sub(initial)) else {
                continue;
            };
            let m = &src.msgs[k];
            let give_up = match m.pr {
                PrPolicy::Ttl(ttl) => now >= m.submitted + ttl,
                // `txs` transmissions so far: the next would be retransmission `txs`.
                PrPolicy::Rtx(limit) => s.txs > limit,
                PrPolicy::None | PrPolicy::Prio(_) => false,
            };
            if give_up {
                src.abandon(k);
            }
        }
        for i in from..self.sent.len() {
            let s = &self.sent[i];
            if s.mark.is_none() {
                continue;
            }
            let abandoned = src
                .find(s.tsn.wrapping_sub(initial))
                .is_some_and(|k| src.msgs[k].abandoned);
            if abandoned {
                self.counts.unmark(&self.sent[i]);
                self.sent[i].mark = None;
            }
        }
    }

    /// After a SACK (RFC 3758 sec. 3.5): acknowledged messages leave the send
    /// buffer, lifetimes are checked (timed reliability, on every SACK: of messages not
    /// wholly sent and of those the SACK shows lost, `lost_or_unsent`), then C1-C3:
    /// the Advanced.Peer.Ack.Point moves over abandoned messages and, when it is ahead
    /// of the cumulative ack, a FORWARD TSN is due (sent on every such SACK until
    /// the peer's cumulative ack reaches the point, as usrsctp does).
    pub fn pr_after_sack(&mut self, now: SimTime) -> Option<Chunk> {
        let cum_rel = self.rel(self.cum_ack);
        let pr_on = {
            let src = self.app.streams.as_mut()?;
            src.release(cum_rel);
            src.pr_on
        };
        if !pr_on {
            return None;
        }
        self.pr_expire(now);
        self.forward_tsn_due()
    }

    /// Lifetimes checked before new data is cut (RFC 3758 sec. 3.5: before a
    /// transmission): expired messages not wholly sent, or seen lost, are abandoned. A
    /// FORWARD TSN they call for goes with the next SACK or T3 expiry.
    pub fn pr_expire(&mut self, now: SimTime) {
        let (sent, initial) = (&self.sent, self.initial_tsn);
        if let Some(src) = self.app.streams.as_mut() {
            src.expire(now, |m| lost_or_unsent(sent, initial, m));
        }
    }

    /// A5 (RFC 3758 sec. 3.5): on a T3-rtx expiry the sender tries to advance the point
    /// too (C2-C5), so a lost FORWARD TSN is sent again.
    pub fn pr_after_t3(&mut self) -> Option<Chunk> {
        if !self.app.streams.as_ref().is_some_and(|s| s.pr_on) {
            return None;
        }
        self.forward_tsn_due()
    }

    /// The FORWARD TSN (I-FORWARD-TSN with I-DATA) C3 calls for, if any.
    fn forward_tsn_due(&mut self) -> Option<Chunk> {
        let cum_rel = self.rel(self.cum_ack);
        let initial = self.initial_tsn;
        let src = self.app.streams.as_mut()?;
        let f = if src.interleaving() {
            let (point, skipped) = prsctp::advance_point_interleaved(
                &src.msgs,
                src.point_rel,
                cum_rel,
                src.unordered(),
            );
            src.point_rel = point;
            Chunk::IForwardTsn(prsctp::i_forward_tsn(initial, point, cum_rel, skipped)?)
        } else {
            let (point, pairs) =
                prsctp::advance_point(&src.msgs, src.point_rel, cum_rel, src.unordered());
            src.point_rel = point;
            Chunk::ForwardTsn(prsctp::forward_tsn(initial, point, cum_rel, pairs)?)
        };
        src.forward_tsn_sent += 1;
        Some(f)
    }
}

/// Whether message `m` may be given up on a SACK: part of it is not sent yet, or one
/// of its chunks the peer lacks was reported missing or is marked for retransmission.
/// A message wholly in flight and not reported missing may still arrive: usrsctp checks
/// lifetimes only of chunks it strikes or is about to retransmit
/// (`sctp_strike_gap_ack_chunks`, `sctp_try_advance_peer_ack_point`), and so does this.
fn lost_or_unsent(sent: &VecDeque<Sent>, initial: u32, m: &crate::sctp::streams::Msg) -> bool {
    if !m.fully_cut() {
        return true;
    }
    let Some(front) = sent.front() else {
        return false;
    };
    let front_rel = front.tsn.wrapping_sub(initial);
    let lost = |r: u32| {
        let off = r.wrapping_sub(front_rel) as i32;
        off >= 0
            && sent
                .get(off as usize)
                .is_some_and(|s| !s.gap_acked && (s.missing > 0 || s.mark.is_some()))
    };
    if !m.tsns.is_empty() {
        // I-DATA: the message's own chunks, not the range between its first and last.
        return m.tsns.iter().any(|&r| lost(r));
    }
    let mut r = m.first_rel;
    loop {
        if lost(r) {
            return true;
        }
        if r == m.last_rel {
            return false;
        }
        r = r.wrapping_add(1);
    }
}
