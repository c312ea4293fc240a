//! SACK processing (ns-2 `ProcessSackChunk` / `ProcessGapAckBlocks`, RFC 4960 6.2.1 and
//! 7.2, RFC 9260 7.2): the cumulative and gap-acked chunks, the missing reports that
//! lead to fast retransmit, and the cwnd rules a SACK applies.

use super::*;
use crate::cc::Congestion;
use crate::sctp::{path_bbr, path_cc, timestamp};

mod missing;
mod single;
use missing::MissingRule;
pub(super) use missing::mark_at_threshold;
pub(super) use single::GapCover;

/// What the passes over one SACK found, for the steps after them.
#[derive(Default)]
pub(super) struct SackPass {
    pub(super) any_newly: bool,
    /// Highest TSN newly acknowledged by this SACK (HTNA).
    pub(super) htna: Option<u32>,
    fast_needed: bool,
    /// Without gap blocks: (any chunk marked, bytes outstanding) as the pass left them.
    marked: Option<(bool, f64)>,
}

impl Outbound {
    pub(super) fn cut(&mut self, now: SimTime, ps: &mut PathSet, i: usize) {
        if let Some(c) = self.coupled.as_deref_mut() {
            c.on_loss(i);
        }
        let p = &mut ps.paths[i];
        // RFC 9260 7.2.4 step 2 with a controller: its cut replaces the halving.
        if path_cc::on_congestion(p, now, Congestion::FastRetransmit) {
            p.pba = 0.0;
            return;
        }
        let mtu = p.mtu;
        let floor = f64::from(self.k.ssthresh_floor_mtus) * mtu;
        let half = if self.k.cwnd_whole_mtus {
            ((p.cwnd / mtu / 2.0).floor()) * mtu
        } else {
            p.cwnd / 2.0
        };
        p.ssthresh = half.max(floor);
        p.cwnd = p.ssthresh;
        p.pba = 0.0;
    }

    pub(super) fn adjust_cwnd(&mut self, ps: &mut PathSet, i: usize, newly: f64) {
        let p = &mut ps.paths[i];
        if self.k.slow_start_at_ssthresh && p.cwnd <= p.ssthresh
            || !self.k.slow_start_at_ssthresh && p.cwnd < p.ssthresh
        {
            // RFC 4960 7.2.1: only when the full cwnd was in use.
            if p.outstanding >= p.cwnd {
                p.cwnd += newly.min(p.mtu);
            }
        } else if p.pba >= p.cwnd && p.outstanding >= p.cwnd {
            // RFC 4960 7.2.2.
            p.pba = if p.cwnd <= p.pba { p.pba - p.cwnd } else { 0.0 };
            self.ca_step(ps, i);
        }
    }

    /// RFC 9260 7.2.1 and 7.2.2 (RFC 8540 sec. 3.22, 3.26) for a SACK that newly
    /// acknowledges `newly` bytes sent to destination `i`, with the flight size from
    /// before the SACK: no condition that the cumulative ack advances; in congestion
    /// avoidance partial_bytes_acked collects every newly acked byte and is pulled back
    /// to cwnd when the window was not full, so that a long spell below cwnd cannot bank
    /// growth for later.
    pub(super) fn grow_9260(&mut self, ps: &mut PathSet, i: usize, newly: f64) {
        let slow_start = self.slow_start(ps, i);
        let p = &mut ps.paths[i];
        let full = p.outstanding >= p.cwnd;
        if slow_start {
            if full {
                p.cwnd += newly.min(p.mtu);
            }
            return;
        }
        p.pba += newly;
        if p.pba > p.cwnd && !full {
            p.pba = p.cwnd;
        }
        if p.pba >= p.cwnd && full {
            p.pba -= p.cwnd;
            self.ca_step(ps, i);
        }
    }

    /// Congestion avoidance's step on destination `i`: one MTU (RFC 9260 7.2.2), or
    /// the coupled increase with `coupled_cc` (sctp/coupled_cc.rs).
    #[inline(always)]
    fn ca_step(&self, ps: &mut PathSet, i: usize) {
        match self
            .coupled
            .as_deref()
            .and_then(|c| c.ca_step(&ps.paths, i))
        {
            Some(step) => ps.paths[i].cwnd += step,
            None => ps.paths[i].cwnd += ps.paths[i].mtu,
        }
    }

    pub(super) fn rtt_sample(now: SimTime, s: &Sent, ps: &mut PathSet) {
        let p = &mut ps.paths[s.dest];
        if let Some((tsn, at)) = p.rtt_pending {
            if tsn == s.tsn {
                if s.txs == 1 && s.mark != Some(Mark::Timeout) {
                    p.rto.sample(now.saturating_since(at).as_secs_f64());
                }
                p.rtt_pending = None;
            }
        }
    }

    /// A destination with a controller takes an RTT sample from the highest TSN a SACK
    /// newly acknowledges there (the walks go up in TSN), as TCP's timestamps echo the
    /// segment that caused the ack; Karn's rule leaves retransmitted chunks out.
    #[inline(always)]
    pub(super) fn cc_rtt_sample(now: SimTime, s: &Sent, ps: &mut PathSet) {
        if ps.paths[s.dest].cc.is_some() {
            let sc = &mut ps.scratch[s.dest];
            // The rate sample's packet: the most recently sent one (`path_bbr`).
            sc.rec = sc.rec.max(s.rec);
            if s.txs == 1 && s.mark != Some(Mark::Timeout) {
                sc.rtt = Some(now.saturating_since(s.sent_at).as_secs_f64());
            }
        }
    }

    /// A newly acknowledged chunk clears the error counter of the destination it was
    /// last sent to (RFC 9260 8.3), unless it was waiting for a timeout retransmission:
    /// data that got through before a failure must not hide it (ns-2
    /// `SendBufferDequeueUpTo`).
    pub(super) fn note_acked(s: &Sent, ps: &mut PathSet, cmt_pf: bool) {
        // CMT-PF (ns-2.35 `SctpCMTAgent::SendBufferDequeueUpTo`): only a chunk sent once
        // tells which transmission got through.
        if s.mark != Some(Mark::Timeout) && (!cmt_pf || s.txs == 1) {
            ps.scratch[s.dest].clear_errors = true;
        }
    }

    /// Processes a SACK (ns-2 `ProcessSackChunk` / `ProcessGapAckBlocks`, RFC 4960
    /// 6.2.1, 7.2), per destination for cwnd, outstanding bytes and T3. Returns false for
    /// a stale SACK. Destinations whose error counter the SACK clears are flagged in
    /// `ps.scratch[i].clear_errors` for the association to act on.
    pub fn on_sack(&mut self, now: SimTime, sack: &SackChunk, ps: &mut PathSet) -> bool {
        for j in 0..ps.scratch.len() {
            let in_ca = !self.slow_start(ps, j);
            ps.scratch[j] = Default::default();
            ps.scratch[j].in_ca = in_ca;
        }
        if tsn_lt(sack.cum_tsn_ack, self.cum_ack) {
            return false;
        }
        if self.window.contains(now) {
            self.stats.sacks_received += 1;
        }
        let new_cum = tsn_lt(self.cum_ack, sack.cum_tsn_ack);
        let was_in_fast_recovery = self.in_fast_recovery();
        // RFC 4960 as ns-2 codes it counts partial_bytes_acked chunk by chunk while the
        // SACK is processed; RFC 9260's rule works on the SACK's total (`grow_9260`).
        let ns2_pba = self.k.growth_rule == GrowthRule::Rfc4960;
        self.cmt_begin_sack(sack, ps.len());
        let mut pass = self.ack_cumulative(now, sack.cum_tsn_ack, ps, ns2_pba);
        self.cum_ack = sack.cum_tsn_ack;
        // Without gap blocks nothing above the cumulative TSN is acked or reported
        // missing (every chunk left is above it, and so above the highest TSN newly
        // acked): one pass does what the general passes would (same results).
        if sack.gaps.is_empty() {
            pass.marked = Some(self.without_gap_blocks(ps));
        } else {
            // With CUC, gap-acked chunks count toward partial_bytes_acked by their
            // destination's pseudo-cumulative TSN (`Cmt::visit`).
            let gap_pba = ns2_pba && !self.cmt.as_deref().is_some_and(|c| c.k.cuc);
            let flags = (new_cum, was_in_fast_recovery, gap_pba);
            self.gap_blocks(now, sack, ps, flags, &mut pass);
        }
        self.paths_after_sack(now, ps, new_cum);
        if pass.any_newly {
            ps.assoc_errors = 0;
        }
        let mut marked = pass.marked;
        if pass.fast_needed {
            self.fast_retransmit(now, ps);
        } else if marked.map_or_else(|| self.any_marked(), |m| m.0) {
            self.rtx_marked(now, false, ps);
            marked = None;
        }
        let total_out: f64 = match marked {
            // Nothing was marked or sent since the pass: every chunk is outstanding.
            Some((_, out)) => out,
            // Integer lengths: the same sum the chunk-by-chunk f64 sum gave (exact below
            // 2^53), without walking the flight on every SACK.
            None => (self.counts.bytes - self.counts.gap_acked_bytes) as f64,
        };
        self.peer_rwnd = (f64::from(sack.a_rwnd) - total_out).max(0.0);
        self.check_counts();
        true
    }

    /// The cumulative part of a SACK: chunks up to `cum_tsn_ack` leave the buffer.
    #[inline(always)]
    fn ack_cumulative(
        &mut self,
        now: SimTime,
        cum_tsn_ack: u32,
        ps: &mut PathSet,
        ns2_pba: bool,
    ) -> SackPass {
        let mut pass = SackPass::default();
        let cmt_pf = self.cmt.as_deref().is_some_and(|c| c.k.pf);
        while let Some(front) = self.sent.front() {
            if !tsn_le(front.tsn, cum_tsn_ack) {
                break;
            }
            let s = self.sent.pop_front().expect("front exists");
            self.counts.remove(&s);
            self.forget_nr_freed(&s);
            if !s.gap_acked {
                let sc = &mut ps.scratch[s.dest];
                sc.first_outstanding_acked = true;
                sc.newly += f64::from(s.chunk_len);
                sc.payload += u64::from(s.payload);
                pass.any_newly = true;
                pass.htna = Some(s.tsn);
                let p = &mut ps.paths[s.dest];
                if ns2_pba && sc.in_ca && p.outstanding >= p.cwnd {
                    p.pba += f64::from(s.chunk_len);
                }
                Self::note_acked(&s, ps, cmt_pf);
                Self::cc_rtt_sample(now, &s, ps);
                timestamp::sample(now, self.ts_echo, s.sent_at, &mut ps.paths[s.dest]);
            }
            if s.fast_rtxed || s.txs > 1 {
                self.apply_max_burst = true;
            }
            Self::rtt_sample(now, &s, ps);
        }
        pass
    }

    /// A SACK without gap blocks: whatever was gap-acked is outstanding again (an older
    /// SACK, or reneging). Returns (any chunk marked, bytes outstanding).
    #[inline(always)]
    fn without_gap_blocks(&mut self, ps: &mut PathSet) -> (bool, f64) {
        self.gap_cover.clear();
        if let Some(c) = self.cmt.as_deref_mut() {
            c.lists_no_blocks(self.cum_ack);
        }
        if self.counts.gap_acked > 0 {
            let end = self.walk_len(self.gap_hi);
            for s in self.sent.range_mut(..end).filter(|s| s.gap_acked) {
                // A SACK older than one already seen (or reneging): count it again.
                s.gap_acked = false;
                ps.paths[s.dest].outstanding += f64::from(s.chunk_len);
                if let Some(c) = self.cmt.as_deref_mut() {
                    c.list_insert(s.dest, s.tsn);
                }
            }
            self.counts.gap_acked = 0;
            self.counts.gap_acked_bytes = 0;
            self.counts.gap_per_dest.iter_mut().for_each(|n| *n = 0);
        }
        for (d, &n) in self.counts.per_dest.iter().enumerate() {
            if n > 0 {
                let sc = &mut ps.scratch[d];
                sc.unacked_seen = true;
                sc.has_any = true;
                sc.has_unacked = true;
            }
        }
        // Every chunk left is outstanding; their lengths are integers, so the sum
        // is the one the chunk-by-chunk f64 sum gives (exact below 2^53).
        (self.counts.marked > 0, self.counts.bytes as f64)
    }

    /// A SACK with gap blocks: gap acks, then missing reports. `flags`: (the cumulative
    /// ack advanced, in fast recovery before this SACK, ns-2's pba counting).
    #[inline(always)]
    fn gap_blocks(
        &mut self,
        now: SimTime,
        sack: &SackChunk,
        ps: &mut PathSet,
        flags: (bool, bool, bool),
        pass: &mut SackPass,
    ) {
        let (new_cum, _, ns2_pba) = flags;
        if self.cmt.as_deref().is_some_and(|c| c.by_dest()) {
            pass.fast_needed |=
                self.cmt_gap_blocks_by_dest(now, sack, ps, (new_cum, ns2_pba), pass);
        } else {
            self.gap_blocks_walk(now, sack, ps, flags, pass);
        }
        for (d, &n) in self.counts.per_dest.iter().enumerate() {
            if n > 0 {
                let sc = &mut ps.scratch[d];
                sc.has_any = true;
                sc.has_unacked = self.counts.has_unacked(d);
            }
        }
    }

    /// `gap_blocks` by one walk over the flight (CMT without SFR; without CMT,
    /// `sack/single.rs` decides the same from the blocks and the holes).
    #[inline(always)]
    fn gap_blocks_walk(
        &mut self,
        now: SimTime,
        sack: &SackChunk,
        ps: &mut PathSet,
        flags: (bool, bool, bool),
        pass: &mut SackPass,
    ) {
        let (new_cum, was_in_fast_recovery, ns2_pba) = flags;
        let cum = self.cum_ack;
        let mut highest_sacked = pass.htna.unwrap_or(cum);
        for &(_, b) in &sack.gaps {
            let end = cum.wrapping_add(u32::from(b));
            if tsn_lt(highest_sacked, end) {
                highest_sacked = end;
            }
        }
        #[cfg(test)]
        let single = self.cmt.is_none() && !self.force_walk;
        #[cfg(not(test))]
        let single = self.cmt.is_none();
        if single {
            // Without CMT: only the chunks whose gap ack changes, and the holes.
            self.gap_blocks_single(now, sack, ps, highest_sacked, flags, pass);
            return;
        }
        let walk = self.gap_ack_walk(now, sack, ps, highest_sacked, (new_cum, ns2_pba), pass);
        if self.cmt.is_some() {
            pass.fast_needed |= self.cmt_missing_reports(walk, pass.htna);
        } else {
            let rule = self.missing_rule(pass.htna, highest_sacked, new_cum, was_in_fast_recovery);
            self.missing_reports(walk, rule, pass);
        }
    }

    /// Marks the chunks the gap blocks cover as gap-acked (and un-marks those an older
    /// SACK covered); returns how many chunks from the front were looked at.
    #[inline(always)]
    fn gap_ack_walk(
        &mut self,
        now: SimTime,
        sack: &SackChunk,
        ps: &mut PathSet,
        highest_sacked: u32,
        (new_cum, ns2_pba): (bool, bool),
        pass: &mut SackPass,
    ) -> usize {
        let cum = self.cum_ack;
        // Blocks sorted by start: one merge with the flight decides coverage.
        self.blocks.clear();
        self.blocks
            .extend(sack.gaps.iter().map(|&(a, b)| (u32::from(a), u32::from(b))));
        self.blocks.sort_unstable();
        // CMT looks at the chunks up to the one after the last block (`cmt_visit`).
        let cmt_last = self.cmt.as_ref().map(|_| {
            let last = self.blocks.iter().map(|&(_, b)| b).max().unwrap_or(0);
            last.saturating_add(1)
        });
        let mut next_block = 0;
        let mut covered_to: Option<u32> = None;
        // Chunks above both the highest TSN this SACK reports and the highest ever
        // gap-acked are neither newly acked, un-acked nor reported missing here.
        let bound = if tsn_lt(highest_sacked, self.gap_hi) {
            self.gap_hi
        } else {
            highest_sacked
        };
        let mut walk = self.walk_len(bound);
        if let Some(last) = cmt_last {
            // ns-2.35's CUC search also sees the chunk just past the last block.
            walk = walk.max(self.walk_len(cum.wrapping_add(last)));
        }
        for i in 0..walk {
            let s = &mut self.sent[i];
            let off = s.tsn.wrapping_sub(cum);
            while let Some(&(a, b)) = self.blocks.get(next_block) {
                if a > off {
                    break;
                }
                covered_to = Some(covered_to.map_or(b, |c| c.max(b)));
                next_block += 1;
            }
            let covered = covered_to.is_some_and(|c| c >= off);
            if let (Some(last), Some(c)) = (cmt_last, self.cmt.as_deref_mut()) {
                if off <= last {
                    c.visit(s, covered, ps);
                }
            }
            let d = s.dest;
            if covered {
                if !s.gap_acked {
                    let sc = &mut ps.scratch[d];
                    if !sc.unacked_seen {
                        sc.first_outstanding_acked = true;
                    }
                    self.newly_gap_acked(now, i, ps, (new_cum, ns2_pba), pass);
                }
            } else if s.gap_acked {
                // A SACK older than one already seen (or reneging): count it again.
                self.counts.gap_ack(s, false);
                s.gap_acked = false;
                ps.paths[d].outstanding += f64::from(s.chunk_len);
            }
            if !self.sent[i].gap_acked {
                ps.scratch[d].unacked_seen = true;
            }
        }
        walk
    }

    /// A chunk this SACK gap-acks for the first time, one step shared by the flight walk,
    /// the single-path pass (`sack/single.rs`) and CMT's pass (`cmt/lists.rs`): the
    /// counts, the highest TSN gap-acked and newly acked, ns-2's partial bytes acked, a
    /// retransmission mark dropped, and the RTT samples.
    #[inline(always)]
    pub(in crate::sctp::outbound) fn newly_gap_acked(
        &mut self,
        now: SimTime,
        i: usize,
        ps: &mut PathSet,
        (new_cum, ns2_pba): (bool, bool),
        pass: &mut SackPass,
    ) {
        let s = &mut self.sent[i];
        let d = s.dest;
        s.gap_acked = true;
        self.counts.gap_ack(s, true);
        if tsn_lt(self.gap_hi, s.tsn) {
            self.gap_hi = s.tsn;
        }
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
        // A chunk marked for retransmission that arrived after all was counted out while
        // marked; the mark goes.
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
        timestamp::sample(now, self.ts_echo, s.sent_at, &mut ps.paths[d]);
    }

    /// Missing reports (`MissingRule`) for the first `walk` chunks.
    #[inline(always)]
    fn missing_reports(&mut self, walk: usize, rule: MissingRule, pass: &mut SackPass) {
        for s in self.sent.range_mut(..walk) {
            if !s.gap_acked {
                pass.fast_needed |= rule.report(s, &mut self.counts, &mut self.mark_floor);
            }
        }
    }

    /// Per destination after the passes: cwnd grows before the outstanding count drops
    /// (ns-2 `ProcessSackChunk`), then pba and T3 (RFC 4960 6.3.2 R2, R3).
    #[inline(always)]
    fn paths_after_sack(&mut self, now: SimTime, ps: &mut PathSet, new_cum: bool) {
        let growth_allowed = self.k.cwnd_growth_in_recovery || !self.in_fast_recovery();
        for j in 0..ps.paths.len() {
            let newly = ps.scratch[j].newly;
            if let (Some(c), true) = (self.coupled.as_deref_mut(), newly > 0.0) {
                c.on_acked(j, newly);
            }
            if ps.paths[j].cc.is_some() {
                // The destination's controller grows cwnd (path_cc), on the SACKs SCTP's
                // growth rule would let grow it.
                let may = match self.k.growth_rule {
                    GrowthRule::Rfc4960 => self.cmt_may_grow(j, new_cum),
                    GrowthRule::Rfc9260 => self.cmt_may_grow(j, true),
                };
                if newly > 0.0 {
                    let slow_start = self.slow_start(ps, j);
                    let (rtt, rec) = (ps.scratch[j].rtt, ps.scratch[j].rec);
                    let grow = may && growth_allowed;
                    // BBR (`path_bbr`) takes every SACK's rate sample, in recovery too.
                    let lost = self.marked_bytes(j);
                    let in_recovery = self.in_fast_recovery()
                        || path_bbr::in_t3_recovery(&ps.paths[j], self.cum_ack);
                    let p = &mut ps.paths[j];
                    if !path_bbr::on_sack(p, now, (newly, lost), rec, rtt, in_recovery) {
                        path_cc::on_sack(p, now, newly, (slow_start, grow), rtt);
                    }
                }
            } else {
                match self.k.growth_rule {
                    GrowthRule::Rfc4960 => {
                        if self.cmt_may_grow(j, new_cum) && newly > 0.0 && growth_allowed {
                            self.adjust_cwnd(ps, j, newly);
                        }
                    }
                    GrowthRule::Rfc9260 => {
                        if newly > 0.0 && growth_allowed && self.cmt_may_grow(j, true) {
                            self.grow_9260(ps, j, newly);
                        }
                    }
                }
            }
            let sc = ps.scratch[j];
            let p = &mut ps.paths[j];
            if self.window.contains(now) {
                p.bytes_acked += sc.payload;
            }
            p.outstanding = (p.outstanding - newly).max(0.0);
            if !sc.has_any || p.outstanding <= 0.0 {
                p.pba = 0.0;
            }
            if !sc.has_unacked {
                // RFC 4960 6.3.2 R2: everything sent here is acknowledged.
                p.t3 = None;
            } else if sc.first_outstanding_acked || p.t3.is_none() {
                // RFC 4960 6.3.2 R3: restart when the earliest outstanding TSN is acked.
                p.t3 = Some(now + p.rto.current());
            }
        }
    }

    /// After a SACK and the association's reaction to it: sends what may be sent.
    pub fn after_sack(&mut self, now: SimTime, ps: &mut PathSet) {
        self.send_new(now, ps);
        if self.sent.is_empty() && self.app.exhausted() && self.all_acked_at.is_none() {
            self.all_acked_at = Some(now);
        }
    }
}
