//! Per-destination outstanding lists: SACK processing under CMT in time proportional to
//! what a SACK changes, not to the flight.
//!
//! CMT spreads consecutive TSNs over the paths, so nearly every SACK carries gap blocks
//! and the single-path walk (`gap_ack_walk`, then the missing reports) covers the whole
//! flight on every SACK, as ns-2.35's `ProcessGapAckBlocks` does. Here the decisions are
//! the same (SFR, CUC, DAC as `sfr.rs`, `cuc.rs` and `dac.rs` state them), found from:
//!
//! - the gap blocks the previous SACK reported (`prev_blocks`): a chunk is gap-acked
//!   exactly when they cover it, so the chunks this SACK newly acks, or no longer acks,
//!   are the differences of two short interval lists;
//! - per destination, the TSNs of the chunks last sent there and not gap-acked, in TSN
//!   order (`lists`). Entries are dropped lazily: an entry whose chunk was acked or went
//!   to another destination is skipped and removed when a walk passes it. A destination's
//!   pseudo-cumulative TSN, its missing reports (only below the highest TSN newly acked
//!   there, SFR) and the T3 restart rule all look at the front of its own list.
//!
//! Used with CMT and SFR (the default); without SFR every hole below the highest TSN
//! newly acked anywhere is reported, and the flight walk stays.

use super::*;
use crate::sctp::outbound::intervals::diff;
use crate::sctp::outbound::sack::{SackPass, mark_at_threshold};

/// Appends `gaps` (a SACK's blocks, offsets from its cumulative TSN) to `out` merged
/// and clipped to offsets 1..=`held`, and returns the highest block end, or None
/// (and `out` in any state) when they do not come in order.
fn merge_blocks(gaps: &[(u16, u16)], held: u32, out: &mut Vec<(u32, u32)>) -> Option<u32> {
    let (mut last_end, mut key) = (0u32, 0u32);
    for &(a, b) in gaps {
        // (a, b) in the order `is_sorted` on the pairs would check.
        let k = u32::from(a) << 16 | u32::from(b);
        if k < key {
            return None;
        }
        key = k;
        merge_block(out, &mut last_end, (u32::from(a), u32::from(b)), held);
    }
    Some(last_end)
}

/// One block of `merge_blocks` (blocks sorted by start), `last_end` the highest end yet.
#[inline(always)]
fn merge_block(out: &mut Vec<(u32, u32)>, last_end: &mut u32, (a, b): (u32, u32), held: u32) {
    *last_end = (*last_end).max(b);
    let (a, b) = (a.max(1), b.min(held));
    if a > b {
        return;
    }
    match out.last_mut() {
        Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
        _ => out.push((a, b)),
    }
}

/// Whether offset `off` lies in `blocks` (sorted, disjoint); `k` is a cursor that only
/// moves forward, for offsets asked in increasing order.
fn covers(blocks: &[(u32, u32)], k: &mut usize, off: u32) -> bool {
    while *k < blocks.len() && blocks[*k].1 < off {
        *k += 1;
    }
    blocks.get(*k).is_some_and(|&(lo, _)| lo <= off)
}

/// The lists and the scratch space of one SACK.
#[derive(Clone, Debug, Default)]
pub(in crate::sctp::outbound) struct DestLists {
    /// Per destination: TSNs of chunks last sent there, not gap-acked (and stale
    /// entries, see the module comment), in TSN order.
    lists: Vec<VecDeque<u32>>,
    /// The previous SACK's gap blocks, merged, within the chunks held, as offsets
    /// from its cumulative TSN `prev_cum`.
    prev_blocks: Vec<(u32, u32)>,
    prev_cum: u32,
    /// This SACK's blocks as offsets from its cumulative TSN, merged and clipped.
    new_blocks: Vec<(u32, u32)>,
    newly: Vec<(u32, u32)>,
    uncovered: Vec<(u32, u32)>,
    /// Per destination: highest and lowest offset this SACK newly gap-acks there.
    max_new: Vec<Option<u32>>,
    min_new: Vec<Option<u32>>,
}

impl Cmt {
    /// Whether SACKs are processed by destination (CMT with SFR).
    pub(in crate::sctp::outbound) fn by_dest(&self) -> bool {
        #[cfg(test)]
        if self.force_walk {
            return false;
        }
        self.k.sfr
    }

    fn list(&mut self, d: usize) -> &mut VecDeque<u32> {
        if self.lists.lists.len() <= d {
            self.lists.lists.resize_with(d + 1, VecDeque::new);
        }
        &mut self.lists.lists[d]
    }

    /// A new chunk `tsn` (above every TSN listed) went to destination `d`.
    pub(in crate::sctp::outbound) fn list_push(&mut self, d: usize, tsn: u32) {
        if self.by_dest() {
            self.list(d).push_back(tsn);
        }
    }

    /// Chunk `tsn` is outstanding on destination `d` again (moved there by a
    /// retransmission, or no longer gap-acked): listed in order, once.
    pub(in crate::sctp::outbound) fn list_insert(&mut self, d: usize, tsn: u32) {
        if !self.by_dest() {
            return;
        }
        let l = self.list(d);
        let at = l.partition_point(|&t| tsn_lt(t, tsn));
        if l.get(at) != Some(&tsn) {
            l.insert(at, tsn);
        }
    }

    /// A SACK without gap blocks (cumulative TSN `cum`): nothing is gap-acked any more,
    /// and the entries it acked leave the lists' fronts, so that a long spell of such
    /// SACKs (one path left) does not let the lists grow.
    pub(in crate::sctp::outbound) fn lists_no_blocks(&mut self, cum: u32) {
        self.lists.prev_blocks.clear();
        for l in &mut self.lists.lists {
            while l.front().is_some_and(|&t| tsn_le(t, cum)) {
                l.pop_front();
            }
        }
    }

    /// Tests: every entry lies above `cum` and no list is longer than `held`.
    #[cfg(test)]
    pub(in crate::sctp::outbound) fn lists_bounded(&self, cum: u32, held: usize) -> bool {
        self.lists
            .lists
            .iter()
            .all(|l| l.len() <= held && l.iter().all(|&t| tsn_lt(cum, t)))
    }
}

impl Outbound {
    /// The gap blocks of a SACK under CMT with SFR: gap acks, CUC, SFR/DAC missing
    /// reports, with the results of `gap_ack_walk` + `Cmt::visit` +
    /// `cmt_missing_reports` (`flags`: the cumulative ack advanced, ns-2's pba
    /// counting for gap-acked chunks). Returns whether a chunk was marked for fast
    /// retransmission.
    pub(in crate::sctp::outbound) fn cmt_gap_blocks_by_dest(
        &mut self,
        now: SimTime,
        sack: &SackChunk,
        ps: &mut PathSet,
        flags: (bool, bool),
        pass: &mut SackPass,
    ) -> bool {
        let n = ps.len();
        let Some(mut c) = self.cmt.take() else {
            return false;
        };
        c.ensure(n);
        if c.lists.lists.len() < n {
            c.lists.lists.resize_with(n, VecDeque::new);
        }
        let (scan, mut prev) = self.cmt_new_blocks(&mut c, sack, n);
        self.cmt_visit_dests(&mut c, &scan, ps);
        self.cmt_apply_gap_acks(now, &mut c, &scan, ps, flags, pass);
        let fast_needed = self.cmt_missing_reports_by_dest(&mut c, &scan, ps);
        // What this SACK gap-acked, for the next one; the previous list's room is
        // the next SACK's.
        let l = &mut c.lists;
        prev.clear();
        l.prev_blocks = std::mem::replace(&mut l.new_blocks, prev);
        l.prev_cum = self.cum_ack;
        self.cmt = Some(c);
        fast_needed
    }

    /// This SACK's blocks merged and clipped to the chunks held (`new_blocks`), the
    /// differences with the previous SACK's (`newly`, `uncovered`), and per destination
    /// the span of chunks newly gap-acked there. Returns the offsets the walks use and
    /// the previous blocks' buffer, to be refilled.
    fn cmt_new_blocks(
        &mut self,
        c: &mut cmt::Cmt,
        sack: &SackChunk,
        n: usize,
    ) -> (GapScan, Vec<(u32, u32)>) {
        let cum = self.cum_ack;
        let front = self.sent.front().map(|s| s.tsn);
        // Offsets (from the cumulative TSN) of the chunks held: 1..=held.
        let held = self.next_tsn.wrapping_sub(1).wrapping_sub(cum);
        let held = if front.is_some() && (held as i32) > 0 {
            held
        } else {
            0
        };
        let l = &mut c.lists;
        // This SACK's blocks, merged and clipped to the chunks held, and the highest
        // block end: ns-2.35's CUC search also sees the chunk just past the last block.
        // Blocks come in order from every receiver this crate knows; others are sorted
        // first.
        l.new_blocks.clear();
        let cmt_last = match merge_blocks(&sack.gaps, held, &mut l.new_blocks) {
            Some(last) => last,
            None => {
                self.blocks.clear();
                self.blocks
                    .extend(sack.gaps.iter().map(|&(a, b)| (u32::from(a), u32::from(b))));
                self.blocks.sort_unstable();
                l.new_blocks.clear();
                let mut last = 0;
                for &g in &self.blocks {
                    merge_block(&mut l.new_blocks, &mut last, g, held);
                }
                last
            }
        };
        let cmt_last = cmt_last.saturating_add(1);
        // The differences with the previous SACK's blocks, whose offsets are from its
        // cumulative TSN, `shift` below this one.
        l.uncovered.clear();
        let prev = std::mem::take(&mut l.prev_blocks);
        let shift = cum.wrapping_sub(l.prev_cum);
        l.newly.clear();
        diff(&l.new_blocks, &prev, shift, &mut l.newly, &mut l.uncovered);
        // Per destination, the span of chunks newly gap-acked there.
        l.max_new.clear();
        l.max_new.resize(n, None);
        l.min_new.clear();
        l.min_new.resize(n, None);
        let base = front.map_or(0, |f| cum.wrapping_add(1).wrapping_sub(f) as usize);
        for &(lo, hi) in &l.newly {
            for off in lo..=hi {
                let s = &self.sent[base + off as usize - 1];
                debug_assert!(!s.gap_acked, "prev_blocks out of step with gap acks");
                l.max_new[s.dest] = Some(off);
                l.min_new[s.dest].get_or_insert(off);
            }
        }
        (
            GapScan {
                held,
                base,
                cmt_last,
            },
            prev,
        )
    }

    /// CUC and the facts SFR and DAC need (`Cmt::visit`).
    fn cmt_visit_dests(&mut self, c: &mut cmt::Cmt, scan: &GapScan, ps: &mut PathSet) {
        let GapScan {
            held,
            base,
            cmt_last,
        } = *scan;
        let cum = self.cum_ack;
        let n = ps.len();
        // CUC and the facts SFR and DAC need (`Cmt::visit`), destination by destination
        // in TSN order: only chunks not gap-acked before this SACK matter there, and past
        // the last one newly acked nothing changes once the pseudo-cumulative searches
        // have stopped.
        let retransmitted = self.counts.retransmitted > 0;
        let cmt::Cmt {
            k: knobs,
            dests,
            lists,
            ..
        } = c;
        for (d, (list, dd)) in lists.lists.iter().zip(dests.iter_mut()).take(n).enumerate() {
            let max_new = lists.max_new[d];
            let mut k = 0;
            for &tsn in list {
                let off = tsn.wrapping_sub(cum);
                if (off as i32) <= 0 {
                    continue;
                }
                if off > cmt_last || off > held {
                    break;
                }
                let s = &mut self.sent[base + off as usize - 1];
                if s.dest != d || s.gap_acked {
                    continue;
                }
                // The entry is not gap-acked, so the previous SACK's blocks did not
                // cover it: this one covers it exactly when it newly acks it.
                let covered = covers(&lists.newly, &mut k, off);
                let searching = dd.find_pc || (dd.find_rtx_pc && retransmitted);
                if !covered && !searching && max_new.is_none_or(|m| off > m) {
                    break;
                }
                super::cuc::visit(knobs, dd, s, covered, ps);
            }
        }
    }

    /// Chunks this SACK no longer gap-acks (counted outstanding again) and those it
    /// newly gap-acks (counts, RTT samples, pba, marks cleared).
    fn cmt_apply_gap_acks(
        &mut self,
        now: SimTime,
        c: &mut cmt::Cmt,
        scan: &GapScan,
        ps: &mut PathSet,
        (new_cum, ns2_pba): (bool, bool),
        pass: &mut SackPass,
    ) {
        let base = scan.base;
        // Gap acks (as `gap_ack_walk`).
        for r in 0..c.lists.uncovered.len() {
            let (lo, hi) = c.lists.uncovered[r];
            for off in lo..=hi {
                let s = &mut self.sent[base + off as usize - 1];
                debug_assert!(s.gap_acked, "prev_blocks out of step with gap acks");
                // A SACK older than one already seen (or reneging): count it again.
                self.counts.gap_ack(s, false);
                s.gap_acked = false;
                ps.paths[s.dest].outstanding += f64::from(s.chunk_len);
                let (d, tsn) = (s.dest, s.tsn);
                c.list_insert(d, tsn);
            }
        }
        for r in 0..c.lists.newly.len() {
            let (lo, hi) = c.lists.newly[r];
            for off in lo..=hi {
                self.newly_gap_acked(now, base + off as usize - 1, ps, (new_cum, ns2_pba), pass);
            }
        }
    }

    /// Missing reports (SFR, DAC) and each list's front, dropping what went stale.
    /// Returns whether a chunk was marked for fast retransmission.
    fn cmt_missing_reports_by_dest(
        &mut self,
        c: &mut cmt::Cmt,
        scan: &GapScan,
        ps: &mut PathSet,
    ) -> bool {
        let GapScan { held, base, .. } = *scan;
        let cum = self.cum_ack;
        let n = ps.len();
        // Missing reports (SFR, DAC) and each list's front, dropping what went stale.
        let dests_sacked = c.dests.iter().filter(|d| d.saw_new_ack).count() as u32;
        let threshold = self.k.fast_rtx_threshold;
        let mut fast_needed = false;
        let (dac_on, packets_sacked) = (c.k.dac, c.packets_sacked);
        for d in 0..n {
            let list = &mut c.lists.lists[d];
            let dd = &c.dests[d];
            let (saw, highest, lowest) = (dd.saw_new_ack, dd.highest_in_sack, dd.lowest_in_sack);
            let mut first_live: Option<u32> = None;
            let mut w = 0;
            let mut r = 0;
            while r < list.len() {
                let tsn = list[r];
                let off = tsn.wrapping_sub(cum);
                let stale = (off as i32) <= 0 || off > held || {
                    let s = &self.sent[base + off as usize - 1];
                    s.dest != d || s.gap_acked
                };
                if !stale {
                    if !(saw && tsn_lt(tsn, highest)) {
                        break;
                    }
                    first_live.get_or_insert(off);
                    let s = &mut self.sent[base + off as usize - 1];
                    s.missing += if dac_on {
                        dac::increment(dests_sacked, lowest, s.tsn, packets_sacked)
                    } else {
                        1
                    };
                    let multiple = self.k.multiple_fast_rtx;
                    let (counts, floor) = (&mut self.counts, &mut self.mark_floor);
                    fast_needed |= mark_at_threshold(s, threshold, multiple, counts, floor);
                    list[w] = tsn;
                    w += 1;
                }
                r += 1;
            }
            if w == 0 {
                // Only stale entries before the first kept one (the usual case): they
                // leave the front one by one, cheaper than a drain.
                for _ in 0..r {
                    list.pop_front();
                }
            } else if w < r {
                list.drain(w..r);
            }
            // RFC 4960 6.3.2 R3 as `gap_ack_walk` decides it: the SACK acked the
            // earliest chunk outstanding on the destination.
            if let Some(m) = c.lists.min_new[d] {
                if first_live.is_none_or(|f| f > m) {
                    ps.scratch[d].first_outstanding_acked = true;
                }
            }
        }
        fast_needed
    }
}

/// Offsets a SACK's walks share: the chunks held are offsets 1..=`held` from the
/// cumulative TSN, at `sent[base + offset - 1]`; CUC's search stops past `cmt_last`.
#[derive(Clone, Copy)]
struct GapScan {
    held: u32,
    base: usize,
    cmt_last: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::config::{Variant, preset};
    use crate::sctp::path::{Path, Rto};
    use crate::sim::SimDuration;

    #[test]
    fn merge_and_covers_by_hand() {
        // Blocks merged and clipped to the chunks held; out of order: None.
        let mut m = Vec::new();
        assert_eq!(merge_blocks(&[(2, 3), (3, 5), (7, 9)], 8, &mut m), Some(9));
        assert_eq!(m, vec![(2, 5), (7, 8)]);
        assert_eq!(merge_blocks(&[(4, 5), (2, 2)], 8, &mut m), None);
        let blocks = [(2, 3), (6, 6)];
        let mut k = 0;
        let hits: Vec<u32> = (1..=7).filter(|&o| covers(&blocks, &mut k, o)).collect();
        assert_eq!(hits, vec![2, 3, 6]);
    }

    /// A CMT sender over two destinations (the `ns2` preset), one chunk per packet.
    fn sender(force_walk: bool) -> (Outbound, PathSet) {
        let mut kn = preset(Variant::Ns2);
        kn.cmt = Some(CmtKnobs::default());
        let app = AppSource::new(None, 1000, 1, false);
        let mut o = Outbound::new(kn, 1, app, 1048, 1 << 24, true, Window::ALL);
        o.enable_cmt(7);
        if let Some(c) = o.cmt.as_deref_mut() {
            c.force_walk = force_walk;
        }
        let rto = || {
            Rto::new(
                SimDuration::from_secs(3),
                SimDuration::from_secs(1),
                SimDuration::from_secs(60),
            )
        };
        let ps = PathSet::new(vec![
            Path::new([10, 0, 0, 2], 1016, 4.0 * 1016.0, 1e9, rto()),
            Path::new([10, 1, 0, 2], 1016, 4.0 * 1016.0, 1e9, rto()),
        ]);
        (o, ps)
    }

    /// The state the two ways of processing a SACK must agree on.
    fn state(o: &Outbound, ps: &PathSet) -> String {
        let c = o.cmt.as_deref().map(|c| format!("{:?}", c.dests));
        let paths: Vec<_> = ps
            .paths
            .iter()
            .map(|p| (p.cwnd, p.ssthresh, p.pba, p.outstanding, p.t3))
            .collect();
        format!("{:?}\n{:?}\n{:?}\n{:?}", o.sent, paths, c, o.counts)
    }

    #[test]
    fn by_destination_decides_as_the_flight_walk() {
        // Both senders see the same SACKs from a receiver that gets each packet with
        // probability 0.9 (lost ones stay lost until sent again), out of order, and
        // now and then an older SACK again: every decision must match after each SACK.
        let (mut a, mut pa) = sender(false);
        let (mut b, mut pb) = sender(true);
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
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
        let mut sacks = 0;
        for step in 0..3000u64 {
            let now = SimTime::from_nanos(step * 1_000_000);
            a.send_new(now, &mut pa);
            b.send_new(now, &mut pb);
            while let Some(p) = a.tx.pop_front() {
                let q = b.tx.pop_front().expect("same sends");
                assert_eq!(format!("{:?}", p.chunks), format!("{:?}", q.chunks));
                in_flight.extend(p.chunks.iter().map(|c| c.tsn));
            }
            // Deliver a random half of what is in flight, in random order.
            let mut keep = Vec::new();
            for &tsn in &in_flight {
                match next() % 20 {
                    0..=1 => {}
                    2..=11 => {
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
            let s = if next() % 10 == 0 {
                old.clone()
            } else {
                let s = SackChunk {
                    cum_tsn_ack: cum,
                    a_rwnd: 1 << 24,
                    gaps,
                    dups: Vec::new(),
                    flags: (next() % 3) as u8,
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
                "after SACK {sacks} at step {step}"
            );
            let c = a.cmt.as_deref().expect("cmt on");
            assert!(
                c.lists_bounded(a.cum_ack, a.sent.len()),
                "lists grew at step {step}"
            );
            a.after_sack(now, &mut pa);
            b.after_sack(now, &mut pb);
            sacks += 1;
            // T3 now and then, so that retransmissions move chunks between paths.
            if step % 97 == 96 {
                for i in 0..2 {
                    a.on_t3(now, i, &mut pa);
                    b.on_t3(now, i, &mut pb);
                }
            }
        }
        assert!(sacks > 2000);
        assert!(a.stats.fast_retransmissions > 10, "{:?}", a.stats);
    }
}
