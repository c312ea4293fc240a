//! The sender's SACK scoreboard: for each segment above the cumulative ack, whether the
//! receiver has SACKed it and whether we retransmitted it.
//!
//! Two retransmission policies read it, matching ns-2.35's two scoreboards:
//! - `next_hole` / `mark_hole_sent` (ns-2 `ScoreBoardRQ`, used by Sack1): holes are
//!   retransmitted in order, each once, and only holes below some SACKed segment count.
//! - `next_unsent_hole` / `mark_retransmitted` (ns-2 `ScoreBoard`, used by Fack): a hole
//!   is eligible until it has been retransmitted; a retransmission SACKed or covered by
//!   the cumulative ack is taken out of `retran_data`, and one whose later data was
//!   SACKed while it was not counts as lost again (`check_snd_nxt`).
//!
//! Segment numbers are 0-based here, as in ns-2.

use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    sacked: bool,
    retran: bool,
    /// t_seqno when this segment was retransmitted (ns-2 `snd_nxt_`).
    snd_nxt: i64,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Segment number of `entries[0]` (one past the cumulative ack).
    base: i64,
    entries: VecDeque<Entry>,
    sacked: usize,
    /// Next segment the in-order hole walk may return (ns-2 `h_seqno_`), -1 when reset.
    hole_ptr: i64,
}

/// What one ack changed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// Anything new was learnt (ns-2 `CheckUpdate`).
    pub changed: bool,
    /// Retransmitted segments now acked or SACKed (ns-2's `UpdateScoreBoard` result).
    pub retran_acked: u32,
}

impl Scoreboard {
    pub fn new() -> Self {
        Scoreboard {
            hole_ptr: -1,
            ..Scoreboard::default()
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.sacked = 0;
        self.hole_ptr = -1;
    }

    /// Highest segment tracked (SACKed or below a SACKed one), if any.
    pub fn highest(&self) -> Option<i64> {
        (!self.entries.is_empty()).then(|| self.base + self.entries.len() as i64 - 1)
    }

    /// Records an ack: cumulative ack `cum` (highest segment acked, -1 for none) and
    /// SACK blocks as half-open `[left, right)` segment ranges.
    pub fn update(&mut self, cum: i64, blocks: &[(i64, i64)]) -> Update {
        let mut up = Update::default();
        let before = self.sacked;
        if self.base <= cum {
            let acked = (cum - self.base + 1) as usize;
            for e in self.entries.drain(..acked.min(self.entries.len())) {
                if e.sacked {
                    self.sacked -= 1;
                }
                if e.retran {
                    up.retran_acked += 1;
                }
                up.changed = true;
            }
            self.base = cum + 1;
        }
        for &(left, right) in blocks {
            let left = left.max(self.base);
            if right <= left {
                continue;
            }
            while self.base + (self.entries.len() as i64) < right {
                self.entries.push_back(Entry::default());
                up.changed = true;
            }
            for s in left..right {
                let e = &mut self.entries[(s - self.base) as usize];
                if !e.sacked {
                    e.sacked = true;
                    self.sacked += 1;
                }
                if e.retran {
                    e.retran = false;
                    up.retran_acked += 1;
                }
            }
        }
        up.changed |= self.sacked != before;
        up
    }

    pub fn is_sacked(&self, seg: i64) -> bool {
        seg >= self.base
            && self
                .entries
                .get((seg - self.base) as usize)
                .is_some_and(|e| e.sacked)
    }

    /// Sack1: the first segment at or after the walk pointer that is not SACKed and lies
    /// below a SACKed segment.
    pub fn next_hole(&mut self) -> Option<i64> {
        if self.hole_ptr < self.base {
            self.hole_ptr = self.base;
        }
        let highest_sacked = self.highest()?;
        let mut s = self.hole_ptr;
        while s < highest_sacked {
            if !self.is_sacked(s) {
                return Some(s);
            }
            s += 1;
        }
        None
    }

    pub fn mark_hole_sent(&mut self, seg: i64) {
        if seg >= self.hole_ptr {
            self.hole_ptr = seg + 1;
        }
    }

    /// Fack: the first tracked segment neither SACKed nor retransmitted.
    pub fn next_unsent_hole(&self) -> Option<i64> {
        self.entries
            .iter()
            .position(|e| !e.sacked && !e.retran)
            .map(|i| self.base + i as i64)
    }

    pub fn mark_retransmitted(&mut self, seg: i64, snd_nxt: i64) {
        if seg >= self.base {
            let i = (seg - self.base) as usize;
            while self.entries.len() <= i {
                self.entries.push_back(Entry::default());
            }
            self.entries[i].retran = true;
            self.entries[i].snd_nxt = snd_nxt;
        }
    }

    /// Fack: a retransmitted segment whose `snd_nxt` lies below a SACK block's right edge
    /// was lost again (data sent after it arrived, it did not). Clears such marks and says
    /// whether any was found.
    pub fn check_snd_nxt(&mut self, blocks: &[(i64, i64)]) -> bool {
        let mut lost_again = false;
        for &(_, right) in blocks {
            for (i, e) in self.entries.iter_mut().enumerate() {
                if self.base + i as i64 >= right {
                    break;
                }
                if e.retran && e.snd_nxt < right {
                    e.retran = false;
                    e.snd_nxt = 0;
                    lost_again = true;
                }
            }
        }
        lost_again
    }

    /// Segments SACKed above the cumulative ack.
    #[cfg(test)]
    pub fn sacked_count(&self) -> usize {
        self.sacked
    }

    /// RFC 6675 sec. 4 `SetPipe` over the segments from the cumulative ack to
    /// `high_data` (the highest segment sent), for Sack1's in-order hole walk: a segment
    /// not SACKed counts once unless `IsLost` (at least `dupthresh` SACKed segments above
    /// it, sec. 4 with segment-sized sequences), and once more if it was retransmitted
    /// (below the walk pointer). Linux's `tcp_packets_in_flight` counts the same way.
    pub fn pipe_rfc6675(&self, high_data: i64, dupthresh: i64) -> i64 {
        // Above the tracked segments nothing is SACKed, so nothing there is lost: each
        // counts once, and again if the hole walk has passed it. That part is counted in
        // closed form, so the walk (every ack of SACK recovery, for BBR's in-flight)
        // covers only the tracked span, not the whole window.
        let top = self.base + self.entries.len() as i64;
        let mut pipe = 0;
        if high_data >= top {
            pipe += high_data - top + 1;
            pipe += (self.hole_ptr.min(high_data + 1) - top).max(0);
        }
        let hi = high_data.min(top - 1);
        if hi < self.base {
            return pipe;
        }
        let mut sacked_above = 0;
        let mut s = hi;
        for e in self.entries.range(..=(hi - self.base) as usize).rev() {
            if e.sacked {
                sacked_above += 1;
            } else {
                pipe += i64::from(sacked_above < dupthresh) + i64::from(s < self.hole_ptr);
            }
            s -= 1;
        }
        pipe
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn rfc6675_pipe_leaves_out_lost_segments() {
        // Cumulative ack 9, segments 10..=19 sent. SACKed: 12, 14, 15, 16. RFC 6675
        // sec. 4 IsLost (3 SACKed above): 10, 11 and 13 are lost; 17, 18, 19 are not
        // (nothing SACKed above them). Pipe by hand: 17, 18, 19 = 3; with 10 and 11
        // retransmitted (the walk passed them), 3 + 2 = 5.
        let mut sb = Scoreboard::new();
        sb.update(9, &[(12, 13), (14, 17)]);
        assert_eq!(sb.pipe_rfc6675(19, 3), 3);
        assert_eq!(sb.next_hole(), Some(10));
        sb.mark_hole_sent(10);
        sb.mark_hole_sent(11);
        assert_eq!(sb.pipe_rfc6675(19, 3), 5);
        // With a duplicate-ack threshold of 4 only 10 and 11 are lost (4 SACKed above
        // them; 13 has 3): 13 counts again, 3 + 1 + 2 = 6.
        assert_eq!(sb.pipe_rfc6675(19, 4), 6);
    }

    use super::*;

    #[test]
    fn holes_are_walked_in_order_once() {
        let mut sb = Scoreboard::new();
        // cum ack 13 (0-based), 14 lost, 15..=20 and 22..=23 SACKed.
        let up = sb.update(13, &[(22, 24), (15, 21)]);
        assert!(up.changed);
        assert_eq!(sb.sacked_count(), 8);
        assert_eq!(sb.next_hole(), Some(14));
        sb.mark_hole_sent(14);
        assert_eq!(sb.next_hole(), Some(21));
        sb.mark_hole_sent(21);
        assert_eq!(sb.next_hole(), None, "nothing SACKed above 23");
    }

    #[test]
    fn cumulative_ack_drops_entries_and_counts_acked_retransmissions() {
        let mut sb = Scoreboard::new();
        sb.update(13, &[(15, 20)]);
        sb.mark_retransmitted(14, 20);
        assert_eq!(sb.next_unsent_hole(), None);
        let up = sb.update(19, &[]);
        assert_eq!(up.retran_acked, 1);
        assert!(sb.highest().is_none());
        assert!(
            !sb.update(19, &[]).changed,
            "same ack twice changes nothing"
        );
    }

    /// RFC 6675 sec. 4 `SetPipe` read literally: every segment from `high_data` down to
    /// the cumulative ack, `IsLost` from the SACKed segments above it.
    fn pipe_by_definition(sb: &Scoreboard, high_data: i64, dupthresh: i64) -> i64 {
        (sb.base..=high_data)
            .filter(|&s| !sb.is_sacked(s))
            .map(|s| {
                let above = (s + 1..=high_data).filter(|&u| sb.is_sacked(u)).count() as i64;
                i64::from(above < dupthresh) + i64::from(s < sb.hole_ptr)
            })
            .sum()
    }

    #[test]
    fn pipe_matches_rfc6675_set_pipe_read_literally() {
        // Scoreboards from a fixed linear congruential sequence: cumulative acks, SACK
        // blocks, holes walked, and the highest segment sent above, below and at the
        // highest SACKed one.
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % m) as i64
        };
        for _ in 0..300 {
            let mut sb = Scoreboard::new();
            let cum = next(20);
            let mut blocks = Vec::new();
            let mut left = cum + 1 + next(4);
            for _ in 0..next(4) {
                let right = left + 1 + next(6);
                blocks.push((left, right));
                left = right + 1 + next(5);
            }
            sb.update(cum, &blocks);
            for _ in 0..next(4) {
                if let Some(h) = sb.next_hole() {
                    sb.mark_hole_sent(h);
                }
            }
            let high = sb.highest().unwrap_or(cum) + next(12) - 3;
            for dupthresh in [1, 3, 4] {
                assert_eq!(
                    sb.pipe_rfc6675(high, dupthresh),
                    pipe_by_definition(&sb, high, dupthresh),
                    "{sb:?} high {high} dupthresh {dupthresh}"
                );
            }
        }
    }

    #[test]
    fn retransmission_lost_again_is_detected() {
        let mut sb = Scoreboard::new();
        sb.update(13, &[(15, 20)]);
        sb.mark_retransmitted(14, 20);
        // Data sent after the retransmission (segment 20) is SACKed; 14 is not.
        assert!(sb.check_snd_nxt(&[(15, 21)]));
        assert_eq!(sb.next_unsent_hole(), Some(14));
    }
}
