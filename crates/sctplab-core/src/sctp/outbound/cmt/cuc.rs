//! What one SACK tells CMT per destination, gathered in TSN order as ns-2.35 gathers it
//! (`SendBufferDequeueUpTo` for the cumulative part, `ProcessGapAckBlocks` for the gap
//! blocks): the cwnd update for CMT (CUC, ToN 2006 sec. IV-B: a destination's cwnd grows
//! only when the SACK moves its pseudo-cumulative TSN, the lowest TSN sent there not yet
//! acked), and the facts SFR and DAC need (`sfr.rs`, `dac.rs`): which destinations the
//! SACK newly acked by gap blocks, and the highest and lowest TSN it newly acked on each.

use super::*;
use crate::sctp::path::PathState;

impl Outbound {
    /// The start of a SACK and its cumulative part, before `ack_cumulative` removes the
    /// chunks: every destination's per-SACK facts are reset (`ProcessSackChunk`), and a
    /// chunk cumulatively acked that no gap block had acked before moves its
    /// destination's pseudo-cumulative TSN and is its lowest newly acked TSN.
    pub(in crate::sctp::outbound) fn cmt_begin_sack(&mut self, sack: &SackChunk, n: usize) {
        let Some(c) = self.cmt.as_deref_mut() else {
            return;
        };
        c.ensure(n);
        c.packets_sacked = u32::from(sack.flags);
        for d in &mut c.dests {
            d.new_pc = false;
            d.saw_new_ack = false;
            d.lowest_in_sack = None;
            d.burst = 0;
            d.highest_in_sack = sack.cum_tsn_ack;
        }
        if !tsn_lt(self.cum_ack, sack.cum_tsn_ack) {
            return;
        }
        for s in &self.sent {
            if !tsn_le(s.tsn, sack.cum_tsn_ack) {
                break;
            }
            if s.gap_acked {
                continue;
            }
            let d = &mut c.dests[s.dest];
            d.lowest_in_sack.get_or_insert(s.tsn);
            d.find_pc = true;
            d.find_rtx_pc = true;
            d.new_pc = true;
        }
    }

    /// The gap blocks, before `gap_ack_walk` applies them: chunk by chunk up to the one
    /// just past the last block (ns-2.35 looks no further), each destination's expected
    /// pseudo-cumulative TSN is found (the first chunk there neither gap-acked nor
    /// retransmitted, and apart the first retransmitted one), and a newly gap-acked
    /// chunk equal to it moves it; with CUC, such a chunk counts toward
    /// partial_bytes_acked in congestion avoidance once its destination's
    /// pseudo-cumulative TSN has moved in this SACK. A gap-acked first transmission to a
    /// potentially-failed destination clears its errors (CMT-PF).
    pub(in crate::sctp::outbound) fn cmt_gap_pass(&mut self, sack: &SackChunk, ps: &mut PathSet) {
        let Some(c) = self.cmt.as_deref_mut() else {
            return;
        };
        let cum = self.cum_ack;
        self.blocks.clear();
        self.blocks
            .extend(sack.gaps.iter().map(|&(a, b)| (u32::from(a), u32::from(b))));
        self.blocks.sort_unstable();
        let last_end = self.blocks.iter().map(|&(_, b)| b).max().unwrap_or(0);
        let mut next_block = 0;
        let mut covered_to: Option<u32> = None;
        for s in self.sent.iter_mut() {
            let off = s.tsn.wrapping_sub(cum);
            if off > last_end.saturating_add(1) {
                break;
            }
            let d = &mut c.dests[s.dest];
            if d.find_pc && !s.gap_acked && s.txs == 1 {
                d.expected_pc = Some(s.tsn);
                d.find_pc = false;
            }
            if d.find_rtx_pc && !s.gap_acked && s.txs > 1 {
                d.expected_rtx_pc = Some(s.tsn);
                d.find_rtx_pc = false;
            }
            while let Some(&(a, b)) = self.blocks.get(next_block) {
                if a > off {
                    break;
                }
                covered_to = Some(covered_to.map_or(b, |x| x.max(b)));
                next_block += 1;
            }
            if s.gap_acked || covered_to.is_none_or(|x| x < off) {
                continue;
            }
            // Newly gap-acked.
            if d.expected_pc == Some(s.tsn) {
                d.new_pc = true;
                d.find_pc = true;
            }
            if d.expected_rtx_pc == Some(s.tsn) {
                d.new_pc = true;
                d.find_rtx_pc = true;
            }
            d.saw_new_ack = true;
            if tsn_lt(d.highest_in_sack, s.tsn) {
                d.highest_in_sack = s.tsn;
            }
            d.lowest_in_sack.get_or_insert(s.tsn);
            let p = &mut ps.paths[s.dest];
            if c.k.cuc && p.cwnd > p.ssthresh && d.new_pc && !s.pba_counted {
                s.pba_counted = true;
                p.pba += f64::from(s.chunk_len);
            }
            if c.k.pf && p.state == PathState::PotentiallyFailed && s.txs == 1 {
                ps.scratch[s.dest].clear_errors = true;
            }
        }
    }

    /// Whether destination `j`'s cwnd may grow on this SACK: with CUC when its
    /// pseudo-cumulative TSN moved, else when the cumulative TSN did (ns-2.35
    /// `ProcessSackChunk`). CMT has no association-wide fast recovery to wait for.
    pub(in crate::sctp::outbound) fn cmt_may_grow(&self, j: usize, new_cum: bool) -> bool {
        match self.cmt.as_deref() {
            Some(c) if c.k.cuc => c.dests.get(j).is_some_and(|d| d.new_pc),
            _ => new_cum,
        }
    }
}
