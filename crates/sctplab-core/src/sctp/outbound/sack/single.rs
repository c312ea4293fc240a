//! A SACK's gap blocks on an association without CMT, in time proportional to what the
//! SACK changes and to the holes it reports, not to the flight.
//!
//! `gap_ack_walk` and `missing_reports` visit every chunk up to the highest TSN a SACK
//! (or an earlier one) reports. After a burst of losses, BBR's Startup overshoot or a
//! long-delay path's full window, that is the whole flight on every SACK of the
//! recovery, although a SACK usually gap-acks a chunk or two more than the one before.
//! Here the same decisions come from:
//!
//! - the runs of TSNs gap-acked now (`GapCover::runs`). Without CMT only a SACK's pass
//!   sets or clears `Sent::gap_acked`, and it leaves it set exactly on the chunks the
//!   SACK's blocks cover, so the chunks this SACK newly acks, or no longer acks, are the
//!   differences of two short interval lists;
//! - the holes: chunks the blocks do not cover, below the highest TSN the SACK reports
//!   (above it no chunk is reported missing, RFC 9260 7.2.4, and none is newly acked).
//!
//! The chunks are visited in TSN order as the walks visit them, so the per-chunk steps
//! (RTT and timestamp samples, the highest TSN newly acked) happen in the same order.
//! A destination's "first outstanding TSN acked" (T3 restart, RFC 4960 6.3.2 R3) is
//! whether a chunk newly gap-acked there lies below every hole there.

use super::*;
use crate::sctp::outbound::intervals::diff;

/// The gap-acked runs and the scratch space of one SACK.
#[derive(Clone, Debug, Default)]
pub(in crate::sctp::outbound) struct GapCover {
    /// The runs of gap-acked chunks as offsets `(first, last)` from the cumulative TSN
    /// `runs_cum` of the SACK that set them, sorted, disjoint and not adjacent; after a
    /// later cumulative ack, those at or below it are stale (dropped on use).
    runs: Vec<(u32, u32)>,
    runs_cum: u32,
    /// This SACK's blocks as offsets from its cumulative TSN, merged and clipped to the
    /// chunks held; the runs moved to that TSN when it advanced.
    cov: Vec<(u32, u32)>,
    prev: Vec<(u32, u32)>,
    newly: Vec<(u32, u32)>,
    uncovered: Vec<(u32, u32)>,
    /// Per destination: the lowest offset newly gap-acked there, and the lowest hole.
    min_new: Vec<Option<u32>>,
    first_hole: Vec<Option<u32>>,
}

impl GapCover {
    /// Nothing is gap-acked any more (a SACK without blocks, a TSN reset).
    pub(in crate::sctp::outbound) fn clear(&mut self) {
        self.runs.clear();
    }

    /// Debug builds: the runs are exactly the gap-acked chunks of `sent`.
    fn matches(&self, sent: &VecDeque<Sent>) -> bool {
        let mut k = 0;
        let tsn = |off: u32| self.runs_cum.wrapping_add(off);
        sent.iter().all(|s| {
            while self
                .runs
                .get(k)
                .is_some_and(|&(_, b)| tsn_lt(tsn(b), s.tsn))
            {
                k += 1;
            }
            let covered = self
                .runs
                .get(k)
                .is_some_and(|&(a, _)| tsn_le(tsn(a), s.tsn));
            covered == s.gap_acked
        })
    }
}

/// `blocks` (offsets, any order, possibly overlapping or empty) as sorted, disjoint,
/// non-adjacent intervals within `lo..=hi`: the chunks the walk would find covered.
fn merge_blocks(blocks: &[(u16, u16)], lo: u32, hi: u32, out: &mut Vec<(u32, u32)>) {
    out.clear();
    // A receiver sends its blocks in order (RFC 9260 3.3.4): one pass merges them.
    let mut in_order = true;
    for &(a, b) in blocks {
        let (a, b) = (u32::from(a).max(lo), u32::from(b).min(hi));
        if a > b {
            continue;
        }
        match out.last_mut() {
            Some(last) if a < last.0 => {
                in_order = false;
                break;
            }
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    if in_order {
        return;
    }
    out.clear();
    out.extend(blocks.iter().filter_map(|&(a, b)| {
        let (a, b) = (u32::from(a).max(lo), u32::from(b).min(hi));
        (a <= b).then_some((a, b))
    }));
    if !out.is_sorted() {
        out.sort_unstable();
    }
    let mut k = 0;
    for i in 0..out.len() {
        let (a, b) = out[i];
        if k > 0 && a <= out[k - 1].1.saturating_add(1) {
            out[k - 1].1 = out[k - 1].1.max(b);
        } else {
            out[k] = (a, b);
            k += 1;
        }
    }
    out.truncate(k);
}

impl Outbound {
    /// `gap_blocks` without CMT: `gap_ack_walk` then `missing_reports`, with the same
    /// results, visiting only the chunks whose gap ack changes and the holes.
    /// `highest_sacked`: the highest TSN the SACK reports (`gap_blocks_walk`).
    pub(super) fn gap_blocks_single(
        &mut self,
        now: SimTime,
        sack: &SackChunk,
        ps: &mut PathSet,
        highest_sacked: u32,
        (new_cum, was_in_fast_recovery, ns2_pba): (bool, bool, bool),
        pass: &mut SackPass,
    ) {
        let cum = self.cum_ack;
        let mut g = std::mem::take(&mut self.gap_cover);
        let Some(front) = self.sent.front().map(|s| s.tsn) else {
            g.clear();
            self.gap_cover = g;
            return;
        };
        if g.runs.is_empty() {
            g.runs_cum = cum;
        }
        // Offsets of the chunks held: `lo` (the front, cum + 1) to `hi`.
        let lo = front.wrapping_sub(cum);
        let hi = lo + (self.sent.len() as u32 - 1);
        merge_blocks(&sack.gaps, lo, hi, &mut g.cov);
        let shift = cum.wrapping_sub(g.runs_cum);
        if shift != 0 {
            // The cumulative TSN advanced: the runs from it, those it acked left out.
            g.prev.clear();
            for &(a, b) in &g.runs {
                let b = b.wrapping_sub(shift) as i32;
                if b >= lo as i32 {
                    let a = (a.wrapping_sub(shift) as i32).max(lo as i32);
                    g.prev.push((a as u32, b as u32));
                }
            }
            std::mem::swap(&mut g.runs, &mut g.prev);
            g.runs_cum = cum;
        }
        {
            let GapCover {
                cov,
                runs,
                newly,
                uncovered,
                ..
            } = &mut g;
            newly.clear();
            uncovered.clear();
            diff(cov, runs, 0, newly, uncovered);
        }
        let n = ps.len();
        g.min_new.clear();
        g.min_new.resize(n, None);
        g.first_hole.clear();
        g.first_hole.resize(n, None);
        // No longer covered (an older SACK, or reneging): outstanding again.
        for &(a, b) in &g.uncovered {
            let (i, j) = ((a - lo) as usize, (b - lo) as usize);
            for s in self.sent.range_mut(i..=j) {
                self.counts.gap_ack(s, false);
                s.gap_acked = false;
                ps.paths[s.dest].outstanding += f64::from(s.chunk_len);
            }
        }
        for &(a, b) in &g.newly {
            for off in a..=b {
                let i = (off - lo) as usize;
                let d = self.sent[i].dest;
                if g.min_new[d].is_none() {
                    g.min_new[d] = Some(off);
                }
                self.newly_gap_acked(now, i, ps, (new_cum, ns2_pba), pass);
            }
        }
        let rule = self.missing_rule(pass.htna, highest_sacked, new_cum, was_in_fast_recovery);
        self.report_holes(&mut g, lo, highest_sacked.wrapping_sub(cum), rule, pass);
        for (d, (m, h)) in g.min_new.iter().zip(&g.first_hole).enumerate() {
            if m.is_some_and(|m| h.is_none_or(|h| m < h)) {
                ps.scratch[d].first_outstanding_acked = true;
            }
            if h.is_some() {
                ps.scratch[d].unacked_seen = true;
            }
        }
        // What this SACK gap-acked, for the next one.
        std::mem::swap(&mut g.runs, &mut g.cov);
        self.gap_cover = g;
        debug_assert!(self.gap_cover.matches(&self.sent), "gap runs drifted");
    }

    /// `rule` (`MissingRule`, as `missing_reports` applies it) on the holes below offset
    /// `hs` (the highest TSN the SACK reports; nothing at or above it is reported),
    /// noting each destination's lowest hole.
    fn report_holes(
        &mut self,
        g: &mut GapCover,
        lo: u32,
        hs: u32,
        rule: MissingRule,
        pass: &mut SackPass,
    ) {
        let held = lo + (self.sent.len() as u32 - 1);
        let end = hs.saturating_sub(1).min(held);
        // The holes: between the covered intervals, from the front up to `end`.
        let mut from = lo;
        let mut k = 0;
        while from <= end {
            let to = match g.cov.get(k) {
                Some(&(a, _)) if a <= end => a.saturating_sub(1),
                _ => end,
            };
            if from <= to {
                let (i, j) = ((from - lo) as usize, (to - lo) as usize);
                for s in self.sent.range_mut(i..=j) {
                    if g.first_hole[s.dest].is_none() {
                        g.first_hole[s.dest] = Some(s.tsn.wrapping_sub(self.cum_ack));
                    }
                    pass.fast_needed |= rule.report(s, &mut self.counts, &mut self.mark_floor);
                }
            }
            match g.cov.get(k) {
                Some(&(a, b)) if a <= end => {
                    from = b.saturating_add(1);
                    k += 1;
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::config::{Variant, preset};
    use crate::sctp::path::{Path, Rto};
    use crate::sim::SimDuration;

    /// A sender with two destinations (retransmissions may go to the other one), one
    /// 1000-byte chunk per packet; `walk`: gap blocks by the flight walk.
    fn sender(k: &crate::sctp::config::Knobs, walk: bool) -> (Outbound, PathSet) {
        let app = AppSource::new(None, 1000, 1, false);
        let mut o = Outbound::new(k.clone(), 1, app, 1048, 1 << 24, false, Window::ALL);
        o.force_walk = walk;
        let rto = || {
            Rto::new(
                SimDuration::from_secs(3),
                SimDuration::from_secs(1),
                SimDuration::from_secs(60),
            )
        };
        let ps = PathSet::new(vec![
            Path::new([10, 0, 0, 2], 1016, 40.0 * 1016.0, 1e9, rto()),
            Path::new([10, 1, 0, 2], 1016, 40.0 * 1016.0, 1e9, rto()),
        ]);
        (o, ps)
    }

    /// Everything the two ways of processing a SACK must agree on.
    fn state(o: &Outbound, ps: &PathSet) -> String {
        let paths: Vec<_> = ps
            .paths
            .iter()
            .map(|p| {
                (
                    p.cwnd,
                    p.ssthresh,
                    p.pba,
                    p.outstanding,
                    p.t3,
                    p.rto.current(),
                )
            })
            .collect();
        format!(
            "{:?}\n{:?}\n{:?}\n{:?} {} {} {}",
            o.sent, paths, o.counts, o.stats, o.mark_floor, o.gap_hi, o.peer_rwnd
        )
    }

    #[test]
    fn blocks_and_holes_decide_as_the_flight_walk() {
        // Both senders see the same SACKs from a receiver that gets each packet with
        // probability 0.5 per step and loses 3 % (lost ones stay lost until sent
        // again), out of order; now and then the previous SACK again, a SACK with a
        // block left out (reneging), or blocks out of order, overlapping and past the
        // chunks sent. Every decision must match after each SACK, in every preset.
        let variants = [
            Variant::Ns2,
            Variant::Newreno,
            Variant::Rfc4960,
            Variant::Rfc9260,
            Variant::Usrsctp,
            Variant::Original,
        ];
        for (v, variant) in variants.into_iter().enumerate() {
            let mut k = preset(variant);
            k.multiple_fast_rtx = v % 2 == 1;
            k.fast_recovery_miss_reports = v == 3;
            let (mut a, mut pa) = sender(&k, false);
            let (mut b, mut pb) = sender(&k, true);
            let mut rng = 0x2545_f491_4f6c_dd1d_u64 + v as u64;
            let mut next = move || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            let mut received = std::collections::BTreeSet::new();
            let mut in_flight: Vec<u32> = Vec::new();
            let mut cum = 0u32;
            let mut old: Option<SackChunk> = None;
            let (mut sacks, mut most_held, mut most_holes) = (0, 0, 0);
            for step in 0..2000u64 {
                let now = SimTime::from_nanos(step * 1_000_000);
                a.send_new(now, &mut pa);
                b.send_new(now, &mut pb);
                while let Some(p) = a.tx.pop_front() {
                    let q = b.tx.pop_front().expect("same sends");
                    assert_eq!(format!("{:?}", p.chunks), format!("{:?}", q.chunks));
                    in_flight.extend(p.chunks.iter().map(|c| c.tsn));
                }
                let mut keep = Vec::new();
                for &tsn in &in_flight {
                    match next() % 100 {
                        0..=2 => {}
                        3..=52 => {
                            if tsn > cum {
                                received.insert(tsn);
                            }
                        }
                        _ => keep.push(tsn),
                    }
                }
                in_flight = keep;
                while received.remove(&(cum + 1)) {
                    cum += 1;
                }
                let mut gaps: Vec<(u16, u16)> = Vec::new();
                for &tsn in &received {
                    let off = (tsn - cum) as u16;
                    match gaps.last_mut() {
                        Some(g) if g.1 + 1 == off => g.1 = off,
                        _ => gaps.push((off, off)),
                    }
                }
                match next() % 16 {
                    0 if !gaps.is_empty() => {
                        let i = (next() % gaps.len() as u64) as usize;
                        gaps.remove(i);
                    }
                    1 if gaps.len() > 1 => {
                        gaps.reverse();
                        let (x, y) = gaps[0];
                        gaps.push((x.saturating_sub(3), y));
                        gaps.push((y + 2000, y + 2100));
                        gaps.push((y + 5, y + 1));
                    }
                    _ => {}
                }
                let s = if next() % 10 == 0 {
                    old.clone()
                } else {
                    let s = SackChunk {
                        cum_tsn_ack: cum,
                        a_rwnd: 1 << 24,
                        gaps,
                        dups: Vec::new(),
                        flags: 0,
                    };
                    old = Some(s.clone());
                    Some(s)
                };
                let Some(s) = s else { continue };
                let ra = a.on_sack(now, &s, &mut pa);
                let rb = b.on_sack(now, &s, &mut pb);
                assert_eq!(ra, rb);
                assert_eq!(
                    state(&a, &pa),
                    state(&b, &pb),
                    "{variant:?}: after SACK {sacks} at step {step}"
                );
                most_held = most_held.max(a.sent.len());
                most_holes = most_holes.max(a.sent.iter().filter(|s| !s.gap_acked).count());
                a.after_sack(now, &mut pa);
                b.after_sack(now, &mut pb);
                sacks += 1;
                // T3 now and then: marks, and retransmissions to the other destination.
                if step % 97 == 96 {
                    for i in 0..2 {
                        a.on_t3(now, i, &mut pa);
                        b.on_t3(now, i, &mut pb);
                    }
                }
            }
            assert!(sacks > 1500);
            assert!(
                a.stats.fast_retransmissions > 10,
                "{variant:?}: {:?}",
                a.stats
            );
            assert!(
                most_held > 20 && most_holes > 10,
                "{variant:?}: a flight with holes ({most_held}, {most_holes})"
            );
        }
    }

    #[test]
    fn blocks_merge_into_sorted_disjoint_runs_within_the_chunks_held() {
        let mut out = Vec::new();
        // Out of order, overlapping, adjacent, empty (start > end) and beyond the held
        // offsets 1..=20.
        merge_blocks(
            &[(9, 12), (2, 3), (4, 5), (11, 14), (7, 6), (18, 30)],
            1,
            20,
            &mut out,
        );
        assert_eq!(out, vec![(2, 5), (9, 14), (18, 20)]);
        merge_blocks(&[(0, 2)], 1, 20, &mut out);
        assert_eq!(out, vec![(1, 2)]);
        merge_blocks(&[(25, 30)], 1, 20, &mut out);
        assert!(out.is_empty());
    }
}
