//! What one SACK tells CMT per destination, gathered in TSN order as ns-2.35 gathers it
//! (`SendBufferDequeueUpTo` for the cumulative part, `ProcessGapAckBlocks` for the gap
//! blocks, here `Cmt::visit` called from `gap_ack_walk`): the cwnd update for CMT (CUC,
//! ToN 2006 sec. IV-B: a destination's cwnd grows only when the SACK moves its
//! pseudo-cumulative TSN, the lowest TSN sent there not yet acked), and the facts SFR and
//! DAC need (`sfr.rs`, `dac.rs`): which destinations the SACK newly acked by gap blocks,
//! and the highest and lowest TSN it newly acked on each.

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

impl Cmt {
    /// One chunk of the gap blocks' walk (`gap_ack_walk`) before the SACK changes it, up
    /// to the chunk just past the last block (ns-2.35 looks no further): each
    /// destination's expected pseudo-cumulative TSN is found (the first chunk there
    /// neither gap-acked nor retransmitted, and apart the first retransmitted one), and a
    /// newly gap-acked chunk (`covered`, not gap-acked before) equal to it moves it; such
    /// a chunk also tells SFR and DAC its destination saw a new ack (highest and lowest
    /// TSN). With CUC it counts toward partial_bytes_acked in congestion avoidance once
    /// its destination's pseudo-cumulative TSN has moved in this SACK. A gap-acked first
    /// transmission to a potentially-failed destination clears its errors (CMT-PF).
    #[inline]
    pub(in crate::sctp::outbound) fn visit(
        &mut self,
        s: &mut Sent,
        covered: bool,
        ps: &mut PathSet,
    ) {
        visit(&self.k, &mut self.dests[s.dest], s, covered, ps);
    }
}

/// `Cmt::visit` on the state of the chunk's destination `d`, for callers that hold
/// other parts of `Cmt` borrowed. Inlined into the by-destination pass, which calls it
/// about three times per SACK.
#[inline(always)]
pub(super) fn visit(k: &CmtKnobs, d: &mut CmtDest, s: &mut Sent, covered: bool, ps: &mut PathSet) {
    if d.find_pc && !s.gap_acked && s.txs == 1 {
        d.expected_pc = Some(s.tsn);
        d.find_pc = false;
    }
    if d.find_rtx_pc && !s.gap_acked && s.txs > 1 {
        d.expected_rtx_pc = Some(s.tsn);
        d.find_rtx_pc = false;
    }
    if s.gap_acked || !covered {
        return;
    }
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
    if k.cuc && p.cwnd > p.ssthresh && d.new_pc && !s.pba_counted {
        s.pba_counted = true;
        p.pba += f64::from(s.chunk_len);
    }
    if k.pf && p.state == PathState::PotentiallyFailed && s.txs == 1 {
        ps.scratch[s.dest].clear_errors = true;
    }
}
