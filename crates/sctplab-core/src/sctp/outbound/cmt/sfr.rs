//! Split fast retransmit (SFR, ToN 2006 sec. IV-A; ns-2.35 `ProcessGapAckBlocks`): a
//! SACK reports a TSN missing only if it newly acknowledged, by a gap block, data sent to
//! the same destination, and only below the highest TSN it so acknowledged there. CMT
//! reorders data across paths by design; counting every hole below the highest TSN
//! acked anywhere would fast-retransmit data that is merely on the slower path. The
//! count added is the DAC rule's (`dac.rs`) when DAC is on.

use super::*;
use crate::sctp::outbound::sack::mark_at_threshold;

impl Outbound {
    /// Missing reports for the first `walk` chunks after the gap blocks were applied;
    /// a chunk reaching the threshold is marked for fast retransmission.
    pub(in crate::sctp::outbound) fn cmt_missing_reports(
        &mut self,
        walk: usize,
        htna: Option<u32>,
    ) -> bool {
        let Some(c) = self.cmt.as_deref_mut() else {
            return false;
        };
        let dests_sacked = c.dests.iter().filter(|d| d.saw_new_ack).count() as u32;
        let threshold = self.k.fast_rtx_threshold;
        let mut fast_needed = false;
        for s in self.sent.range_mut(..walk) {
            if s.gap_acked {
                continue;
            }
            let d = &c.dests[s.dest];
            let reported = if c.k.sfr {
                d.saw_new_ack && tsn_lt(s.tsn, d.highest_in_sack)
            } else {
                htna.is_some_and(|h| tsn_lt(s.tsn, h))
            };
            if !reported {
                continue;
            }
            s.missing += if c.k.dac {
                dac::increment(dests_sacked, d.lowest_in_sack, s.tsn, c.packets_sacked)
            } else {
                1
            };
            let multiple = self.k.multiple_fast_rtx;
            let (counts, floor) = (&mut self.counts, &mut self.mark_floor);
            fast_needed |= mark_at_threshold(s, threshold, multiple, counts, floor);
        }
        fast_needed
    }
}
