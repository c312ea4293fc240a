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
use crate::sctp::outbound::sack::SackPass;

/// Intervals of `a` not in `b` (both sorted, disjoint, inclusive), appended to `out`.
fn subtract(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let mut j = 0;
    for &(mut lo, hi) in a {
        while j < b.len() && b[j].1 < lo {
            j += 1;
        }
        let mut k = j;
        while lo <= hi {
            match b.get(k) {
                Some(&(blo, bhi)) if blo <= hi => {
                    if blo > lo {
                        out.push((lo, blo - 1));
                    }
                    if bhi >= hi {
                        lo = hi.wrapping_add(1);
                        if bhi == u32::MAX || lo == 0 {
                            break;
                        }
                    } else {
                        lo = lo.max(bhi + 1);
                        k += 1;
                    }
                }
                _ => {
                    out.push((lo, hi));
                    break;
                }
            }
        }
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
    /// The previous SACK's gap blocks as TSNs, merged, within the chunks held.
    prev_blocks: Vec<(u32, u32)>,
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

    /// A SACK without gap blocks: nothing is gap-acked any more.
    pub(in crate::sctp::outbound) fn lists_no_blocks(&mut self) {
        self.lists.prev_blocks.clear();
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
        (new_cum, ns2_pba): (bool, bool),
        pass: &mut SackPass,
    ) -> bool {
        let cum = self.cum_ack;
        let n = ps.len();
        let Some(mut c) = self.cmt.take() else {
            return false;
        };
        c.ensure(n);
        if c.lists.lists.len() < n {
            c.lists.lists.resize_with(n, VecDeque::new);
        }
        let front = self.sent.front().map(|s| s.tsn);
        // Offsets (from the cumulative TSN) of the chunks held: 1..=held.
        let held = self.next_tsn.wrapping_sub(1).wrapping_sub(cum);
        let held = if front.is_some() && (held as i32) > 0 {
            held
        } else {
            0
        };
        let l = &mut c.lists;
        // This SACK's blocks, merged and clipped to the chunks held.
        self.blocks.clear();
        self.blocks
            .extend(sack.gaps.iter().map(|&(a, b)| (u32::from(a), u32::from(b))));
        self.blocks.sort_unstable();
        // ns-2.35's CUC search also sees the chunk just past the last block.
        let cmt_last = self
            .blocks
            .iter()
            .map(|&(_, b)| b)
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        l.new_blocks.clear();
        for &(a, b) in &self.blocks {
            let (a, b) = (a.max(1), b.min(held));
            if a > b {
                continue;
            }
            match l.new_blocks.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => l.new_blocks.push((a, b)),
            }
        }
        // The previous blocks as offsets from this cumulative TSN.
        l.uncovered.clear();
        let mut prev = std::mem::take(&mut l.prev_blocks);
        for p in prev.iter_mut() {
            let (lo, hi) = (p.0.wrapping_sub(cum) as i32, p.1.wrapping_sub(cum) as i32);
            *p = (lo.max(1) as u32, hi.max(0) as u32);
        }
        prev.retain(|&(lo, hi)| hi >= 1 && lo <= hi);
        l.newly.clear();
        subtract(&l.new_blocks, &prev, &mut l.newly);
        subtract(&prev, &l.new_blocks, &mut l.uncovered);
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
        // CUC and the facts SFR and DAC need (`Cmt::visit`), destination by destination
        // in TSN order: only chunks not gap-acked before this SACK matter there, and past
        // the last one newly acked nothing changes once the pseudo-cumulative searches
        // have stopped.
        let retransmitted = self.counts.retransmitted > 0;
        for d in 0..n {
            let list = std::mem::take(&mut c.lists.lists[d]);
            let mut k = 0;
            for &tsn in &list {
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
                let covered = covers(&c.lists.new_blocks, &mut k, off);
                let dd = &c.dests[d];
                let searching = dd.find_pc || (dd.find_rtx_pc && retransmitted);
                if !covered && !searching && c.lists.max_new[d].is_none_or(|m| off > m) {
                    break;
                }
                c.visit(s, covered, ps);
            }
            c.lists.lists[d] = list;
        }
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
                let i = base + off as usize - 1;
                let s = &mut self.sent[i];
                s.gap_acked = true;
                self.counts.gap_ack(s, true);
                if tsn_lt(self.gap_hi, s.tsn) {
                    self.gap_hi = s.tsn;
                }
                let d = s.dest;
                let sc = &mut ps.scratch[d];
                sc.newly += f64::from(s.chunk_len);
                sc.payload += u64::from(s.payload);
                pass.any_newly = true;
                if pass.htna.is_none_or(|h| tsn_lt(h, s.tsn)) {
                    pass.htna = Some(s.tsn);
                }
                if ns2_pba && sc.in_ca && new_cum && !s.pba_counted {
                    s.pba_counted = true;
                    ps.paths[d].pba += f64::from(s.chunk_len);
                }
                // A chunk marked for retransmission that arrived after all was counted
                // out while marked; the mark goes.
                if s.mark.is_some() {
                    self.counts.unmark(s);
                }
                let was = s.mark.take();
                if was != Some(Mark::Timeout) {
                    ps.scratch[d].clear_errors = true;
                }
                let s = &self.sent[i];
                Self::rtt_sample(now, s, ps);
                Self::cc_rtt_sample(now, s, ps);
            }
        }
        // Missing reports (SFR, DAC) and each list's front, dropping what went stale.
        let dests_sacked = c.dests.iter().filter(|d| d.saw_new_ack).count() as u32;
        let threshold = self.k.fast_rtx_threshold;
        let mut fast_needed = false;
        for d in 0..n {
            let mut list = std::mem::take(&mut c.lists.lists[d]);
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
                    s.missing += if c.k.dac {
                        dac::increment(dests_sacked, lowest, s.tsn, c.packets_sacked)
                    } else {
                        1
                    };
                    let eligible = !s.fast_rtxed || self.k.multiple_fast_rtx;
                    if s.missing >= threshold && eligible && s.mark.is_none() {
                        s.mark = Some(Mark::Fast);
                        self.counts.mark(s);
                        if tsn_lt(s.tsn, self.mark_floor) {
                            self.mark_floor = s.tsn;
                        }
                        s.fast_rtxed = true;
                        fast_needed = true;
                    }
                    list[w] = tsn;
                    w += 1;
                }
                r += 1;
            }
            if w < r {
                list.drain(w..r);
            }
            // RFC 4960 6.3.2 R3 as `gap_ack_walk` decides it: the SACK acked the
            // earliest chunk outstanding on the destination.
            if let Some(m) = c.lists.min_new[d] {
                if first_live.is_none_or(|f| f > m) {
                    ps.scratch[d].first_outstanding_acked = true;
                }
            }
            c.lists.lists[d] = list;
        }
        // What this SACK gap-acked, for the next one.
        let l = &mut c.lists;
        prev.clear();
        prev.extend(
            l.new_blocks
                .iter()
                .map(|&(a, b)| (cum.wrapping_add(a), cum.wrapping_add(b))),
        );
        l.prev_blocks = prev;
        self.cmt = Some(c);
        fast_needed
    }
}
