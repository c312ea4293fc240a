//! The runs of TSNs received above the cumulative TSN, kept as chunks arrive, so that a
//! SACK's Gap Ack Blocks (RFC 9260 3.3.4) are a copy of this list instead of a walk over
//! every TSN between the cumulative TSN and the highest one received. Under CMT the
//! paths reorder, and a SACK may carry one block per packet in flight on the slower
//! path: the walk cost the receiver the whole window per SACK.
//!
//! Runs are inclusive TSN ranges in serial order (RFC 9260 1.6), disjoint and never
//! adjacent, all above the cumulative TSN; `Inbound` updates them where it marks a TSN
//! received (`mark_received`) and where the cumulative TSN moves.

use std::collections::VecDeque;

/// Received TSNs above the cumulative TSN, as maximal runs.
#[derive(Clone, Debug, Default)]
pub(super) struct GapRuns {
    runs: VecDeque<(u32, u32)>,
}

impl GapRuns {
    /// TSN `tsn`, above `cum` and in no run yet, was received.
    pub(super) fn insert(&mut self, cum: u32, tsn: u32) {
        let off = |t: u32| t.wrapping_sub(cum);
        let o = off(tsn);
        // Most arrivals extend the highest run or start one above it.
        if let Some(last) = self.runs.back_mut() {
            if off(last.1) < o {
                if last.1.wrapping_add(1) == tsn {
                    last.1 = tsn;
                } else {
                    self.runs.push_back((tsn, tsn));
                }
                return;
            }
        } else {
            self.runs.push_back((tsn, tsn));
            return;
        }
        // A hole below the highest run: the first run starting above `tsn`.
        let i = self.runs.partition_point(|&(s, _)| off(s) < o);
        let joins_prev = i > 0 && self.runs[i - 1].1.wrapping_add(1) == tsn;
        let joins_next = i < self.runs.len() && self.runs[i].0 == tsn.wrapping_add(1);
        match (joins_prev, joins_next) {
            (true, true) => {
                self.runs[i - 1].1 = self.runs[i].1;
                self.runs.remove(i);
            }
            (true, false) => self.runs[i - 1].1 = tsn,
            (false, true) => self.runs[i].0 = tsn,
            (false, false) => self.runs.insert(i, (tsn, tsn)),
        }
    }

    /// The cumulative TSN is now `cum`: runs at or below it go, one it reaches into
    /// starts above it.
    pub(super) fn trim(&mut self, cum: u32) {
        while let Some(first) = self.runs.front_mut() {
            if (first.1.wrapping_sub(cum) as i32) <= 0 {
                self.runs.pop_front();
            } else {
                if (first.0.wrapping_sub(cum) as i32) <= 0 {
                    first.0 = cum.wrapping_add(1);
                }
                break;
            }
        }
    }

    pub(super) fn clear(&mut self) {
        self.runs.clear();
    }

    /// The Gap Ack Blocks from cumulative TSN `cum`, lowest first, at most `max`
    /// (`block_offsets`: a run starting more than 65535 above `cum` cannot be reported
    /// yet).
    pub(super) fn blocks(&self, cum: u32, max: usize) -> Vec<(u16, u16)> {
        block_offsets(cum, self.runs.iter().copied().take(max))
    }
}

/// The 16-bit offsets from cumulative TSN `cum` of `runs` (inclusive TSN ranges above
/// `cum`, lowest first), as a SACK's Gap Ack Blocks and an NR-SACK's NR Gap Ack Blocks
/// carry them (RFC 9260 3.3.4): a run starting more than 65535 above `cum` ends the
/// list, and one reaching past it is cut there.
pub(in crate::sctp) fn block_offsets(
    cum: u32,
    runs: impl Iterator<Item = (u32, u32)>,
) -> Vec<(u16, u16)> {
    let limit = u32::from(u16::MAX);
    let mut offsets = Vec::with_capacity(runs.size_hint().0);
    for (s, e) in runs {
        let (s, e) = (s.wrapping_sub(cum), e.wrapping_sub(cum));
        if s > limit {
            break;
        }
        offsets.push((s as u16, e.min(limit) as u16));
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks the old way: a walk over the received flags of the TSNs above `cum`.
    fn walk(cum: u32, received: &[u32], max: usize) -> Vec<(u16, u16)> {
        let top = received
            .iter()
            .map(|&t| t.wrapping_sub(cum) as usize)
            .max()
            .unwrap_or(0);
        let span = top.min(usize::from(u16::MAX));
        let mut flags = vec![false; top + 1];
        for &t in received {
            flags[t.wrapping_sub(cum) as usize - 1] = true;
        }
        let got = |i: usize| flags[i];
        let mut gaps = Vec::new();
        let mut i = 0;
        while i < span && gaps.len() < max {
            if got(i) {
                let start = i;
                while i < span && got(i) {
                    i += 1;
                }
                gaps.push(((start + 1) as u16, i as u16));
            } else {
                i += 1;
            }
        }
        gaps
    }

    #[test]
    fn runs_merge_as_holes_fill() {
        // Cumulative TSN 10; 12, 14, 13 (joins both), 17, 16 (joins the next run).
        let mut r = GapRuns::default();
        for t in [12, 14, 13, 17, 16] {
            r.insert(10, t);
        }
        assert_eq!(r.blocks(10, 10), vec![(2, 4), (6, 7)]);
        // 11 arrives: the cumulative TSN moves to 14, leaving 16-17.
        r.trim(14);
        assert_eq!(r.blocks(14, 10), vec![(2, 3)]);
        // A FORWARD TSN to 16 cuts into the run.
        r.trim(16);
        assert_eq!(r.blocks(16, 10), vec![(1, 1)]);
    }

    #[test]
    fn blocks_equal_the_walk_across_tsn_wrap_and_the_offset_limit() {
        // A deterministic shuffle of TSNs above a cumulative TSN near 2^32, some beyond
        // the 16-bit offset limit, checked against the walk every 25 arrivals.
        let cum = u32::MAX - 40;
        let mut rng = 0x9e37_79b9_u64;
        let mut received: Vec<u32> = Vec::new();
        let mut r = GapRuns::default();
        for n in 0..400 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let off = if rng % 7 == 0 {
                65_530 + (rng >> 8) % 12
            } else {
                1 + (rng >> 8) % 200
            } as u32;
            let t = cum.wrapping_add(off);
            if received.contains(&t) {
                continue;
            }
            received.push(t);
            r.insert(cum, t);
            if n % 25 == 0 || n == 399 {
                for max in [3, 500] {
                    assert_eq!(r.blocks(cum, max), walk(cum, &received, max));
                }
            }
        }
    }
}
