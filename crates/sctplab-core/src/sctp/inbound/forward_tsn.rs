//! The receiver's side of PR-SCTP (RFC 3758 sec. 3.6): a FORWARD TSN moves the
//! cumulative TSN over the TSNs the sender abandoned, and the ordered streams it names
//! skip the abandoned messages, so what waited behind them is delivered.

use super::*;
use crate::net::wire::ForwardTsnChunk;

/// Serial-number "a <= b" on SSNs (RFC 9260 1.6).
fn ssn_le(a: u16, b: u16) -> bool {
    (b.wrapping_sub(a) as i16) >= 0
}

impl Inbound {
    /// RFC 3758 sec. 3.6: the cumulative TSN becomes the New Cumulative TSN if that is
    /// ahead, every TSN up to it counting as received (fragments held there whose
    /// message can no longer complete are discarded); for each (stream, SSN) pair,
    /// the complete messages up to that SSN are delivered in order and the others
    /// skipped, then delivery goes on as usual. The chunk is answered by a SACK at
    /// once (the RFC asks for one as for DATA; the FORWARD TSN closes a gap, and a
    /// DATA chunk that does is acknowledged at once too). A New Cumulative TSN behind
    /// the cumulative TSN changes nothing; one further ahead than a DATA chunk could
    /// be (`max_ahead`) is dropped and counted, as such a DATA chunk is.
    pub fn on_forward_tsn(&mut self, now: SimTime, f: &ForwardTsnChunk) {
        self.forward_tsns += 1;
        self.sack_now = true;
        let off = self.offset(f.new_cum_tsn);
        if off > self.max_ahead {
            self.dropped_beyond_window += 1;
            return;
        }
        if off > 0 {
            let drain = (off as usize).min(self.above.len());
            self.above.drain(..drain);
            self.cum_tsn = f.new_cum_tsn;
            self.highest_tsn = self
                .highest_tsn
                .max(f.new_cum_tsn.wrapping_sub(self.initial_tsn).wrapping_add(1));
            self.discard_unordered_skipped();
            self.advance_cum_tsn();
        }
        for &(stream, ssn) in &f.streams {
            let i = usize::from(stream);
            if i >= self.streams.len() {
                continue;
            }
            self.skip_ordered(now, i, ssn);
        }
    }

    /// Unordered fragments at or below the (new) cumulative TSN belong to messages whose
    /// missing fragments the sender abandoned: they go, and so does a partial
    /// delivery among them.
    pub(super) fn discard_unordered_skipped(&mut self) {
        let base = self.cum_tsn.wrapping_sub(self.initial_tsn);
        let below = |rel: u32| (rel.wrapping_sub(base) as i32) <= 0;
        let mut freed = 0u64;
        let mut n = 0u64;
        for s in &mut self.streams {
            s.unordered.retain(|&rel, h| {
                let keep = !below(rel);
                if !keep {
                    freed += u64::from(h.chunk_len);
                    n += 1;
                }
                keep
            });
            if s.unordered_partial.is_some_and(below) {
                s.unordered_partial = None;
            }
        }
        self.held -= freed;
        self.chunks_skipped += n;
    }

    /// Delivers the complete ordered messages of stream `i` up to `ssn` and skips the
    /// incomplete ones, then continues in order.
    pub(super) fn skip_ordered(&mut self, now: SimTime, i: usize, ssn: u16) {
        loop {
            self.deliver_in_order(now, i);
            let next = self.streams[i].next_ssn;
            if !ssn_le(next, ssn) {
                break;
            }
            // The message at `next` is incomplete and abandoned: its fragments go.
            let s = &mut self.streams[i];
            let keys: Vec<(u16, u32)> = s
                .pending
                .range((next, 0)..=(next, u32::MAX))
                .map(|(&k, _)| k)
                .collect();
            let mut freed = 0u64;
            for k in &keys {
                if let Some(h) = s.pending.remove(k) {
                    freed += u64::from(h.chunk_len);
                }
            }
            s.partial = None;
            s.next_ssn = next.wrapping_add(1);
            self.held -= freed;
            self.chunks_skipped += keys.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::inbound::test_support::{data, inbound};

    fn fwd(new_cum_tsn: u32, streams: Vec<(u16, u16)>) -> ForwardTsnChunk {
        ForwardTsnChunk {
            new_cum_tsn,
            streams,
        }
    }

    #[test]
    fn forward_tsn_moves_the_cumulative_tsn_over_a_gap_and_unblocks_the_stream() {
        // Peer's initial TSN 100, two streams, 1016-byte chunks, buffer 100 000.
        // Arrive: 100 (s0 ssn0), 103 (s0 ssn2), 104 (s1 ssn1). 101 (s0 ssn1) and
        // 102 (s1 ssn0) are lost and abandoned. Cumulative TSN 100, gaps 3-4.
        // FORWARD TSN: new cumulative TSN 102, pairs (0, 1), (1, 0) (RFC 3758 3.2).
        // 3.6: cum TSN -> 102, then 103 and 104 are in: cum TSN 104, no gaps;
        // stream 0 skips SSN 1 and delivers SSN 2; stream 1 skips SSN 0, delivers 1.
        let mut r = inbound(100_000, 2);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED;
        r.on_data(t, &data(100, 0, 0, f));
        r.on_data(t, &data(103, 0, 2, f));
        r.on_data(t, &data(104, 1, 1, f));
        let s = r.take_sack();
        assert_eq!((s.cum_tsn_ack, s.gaps), (100, vec![(3, 4)]));
        assert_eq!(r.streams[0].delivered_messages, 1);
        r.on_forward_tsn(t, &fwd(102, vec![(0, 1), (1, 0)]));
        assert!(r.wants_sack());
        let s = r.take_sack();
        assert_eq!((s.cum_tsn_ack, s.gaps), (104, vec![]));
        assert_eq!(r.streams[0].delivered_messages, 2);
        assert_eq!(r.streams[1].delivered_messages, 1);
        assert_eq!(r.a_rwnd(), 100_000);
        // The sender's next message on stream 0 is SSN 3: delivered at once.
        r.on_data(t, &data(105, 0, 3, f));
        assert_eq!(r.streams[0].delivered_messages, 3);
    }

    #[test]
    fn forward_tsn_discards_the_fragments_of_an_abandoned_message() {
        // A 3-fragment message on stream 0, SSN 0, TSNs 100-102: 100 and 102 arrive,
        // 101 is lost and the message abandoned. FORWARD TSN (102, [(0, 0)]): the two
        // held fragments (2 x 1016 B) are discarded, nothing delivered, the stream's
        // next SSN is 1, cumulative TSN 102.
        let mut r = inbound(100_000, 1);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, DataFlags::BEGIN));
        r.on_data(t, &data(102, 0, 0, DataFlags::END));
        assert_eq!(r.a_rwnd(), 100_000 - 2 * 1016);
        r.on_forward_tsn(t, &fwd(102, vec![(0, 0)]));
        assert_eq!((r.cum_tsn, r.a_rwnd(), r.chunks_skipped), (102, 100_000, 2));
        assert_eq!(r.streams[0].delivered_messages, 0);
        r.on_data(t, &data(103, 0, 1, DataFlags::UNFRAGMENTED));
        assert_eq!(r.streams[0].delivered_messages, 1);
    }

    #[test]
    fn a_stale_or_absurd_forward_tsn_changes_nothing() {
        let mut r = inbound(100_000, 1);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, DataFlags::UNFRAGMENTED));
        r.on_data(t, &data(101, 0, 1, DataFlags::UNFRAGMENTED));
        // Behind the cumulative TSN (101): nothing moves, a SACK is due.
        r.on_forward_tsn(t, &fwd(100, vec![(0, 0)]));
        assert_eq!((r.cum_tsn, r.streams[0].delivered_messages), (101, 2));
        assert!(r.wants_sack());
        // 2^30 ahead: dropped and counted like a DATA chunk that far ahead.
        r.on_forward_tsn(t, &fwd(101 + (1 << 30), vec![]));
        assert_eq!((r.cum_tsn, r.dropped_beyond_window), (101, 1));
        // A stream this end does not have is ignored.
        r.on_forward_tsn(t, &fwd(102, vec![(7, 3)]));
        assert_eq!(r.cum_tsn, 102);
    }
}
