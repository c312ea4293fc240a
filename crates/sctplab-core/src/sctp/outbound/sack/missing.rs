//! The missing-report rule of RFC 9260 7.2.4 without CMT: which chunk a SACK reports
//! missing, and when the reports mark it for fast retransmission. The two passes over a
//! SACK, `missing_reports` (the flight walk) and `report_holes` (`sack/single.rs`, the
//! holes between the gap blocks), visit different chunks but must decide alike, so
//! both ask this. The threshold's mark (`mark_at_threshold`) is CMT's too.

use super::super::*;

/// One SACK's missing-report rule: HTNA (a chunk is reported when a chunk sent after
/// it was newly acked), the modified HTNA of New-Reno SCTP, RFC 9260 7.2.4's reports
/// in fast recovery, and the `multiple_fast_rtx` variant.
#[derive(Clone, Copy)]
pub(super) struct MissingRule {
    /// Highest TSN newly acknowledged by this SACK.
    htna: Option<u32>,
    /// Highest TSN the SACK reports.
    highest_sacked: u32,
    /// Every hole below `highest_sacked` is reported, not only those below HTNA: the
    /// modified HTNA applies, or RFC 9260 7.2.4 in fast recovery (a SACK advancing the
    /// cumulative ack reports every hole below its highest gap-acked TSN).
    below_highest: bool,
    threshold: u32,
    multiple_fast_rtx: bool,
}

impl Outbound {
    /// The rule for the SACK being processed, once its chunks' gap acks are counted
    /// (`htna` is final). `new_cum`: the SACK advanced the cumulative ack.
    pub(super) fn missing_rule(
        &self,
        htna: Option<u32>,
        highest_sacked: u32,
        new_cum: bool,
        was_in_fast_recovery: bool,
    ) -> MissingRule {
        let modified = self.k.modified_htna
            && new_cum
            && htna.is_some_and(|h| tsn_le(h, self.recover))
            && self.k.fast_recovery;
        let rfc_fr = self.k.fast_recovery_miss_reports && was_in_fast_recovery && new_cum;
        MissingRule {
            htna,
            highest_sacked,
            below_highest: modified || rfc_fr,
            threshold: self.k.fast_rtx_threshold,
            multiple_fast_rtx: self.k.multiple_fast_rtx,
        }
    }
}

impl MissingRule {
    /// Counts a missing report on `s` (a chunk not gap-acked) if the SACK reports it;
    /// true when that marks it for fast retransmission.
    #[inline(always)]
    pub(super) fn report(
        &self,
        s: &mut Sent,
        counts: &mut SentCounts,
        mark_floor: &mut u32,
    ) -> bool {
        let htna = self.htna;
        let below_htna = htna.is_some_and(|h| tsn_lt(s.tsn, h));
        let reported = if s.fast_rtxed && self.multiple_fast_rtx {
            // A report counts against the retransmission only when data sent after it
            // got through; otherwise the retransmission may just be in flight and every
            // SACK of the window would retransmit it again.
            below_htna && htna.is_some_and(|h| tsn_le(s.rtx_at, h))
        } else {
            below_htna || (self.below_highest && tsn_lt(s.tsn, self.highest_sacked))
        };
        if !reported {
            return false;
        }
        s.missing += 1;
        mark_at_threshold(
            s,
            self.threshold,
            self.multiple_fast_rtx,
            counts,
            mark_floor,
        )
    }
}

/// RFC 9260 7.2.4: a chunk whose missing reports reached `threshold` is marked for fast
/// retransmission, once unless `multiple_fast_rtx`; true when this marks it. Every pass
/// that counts reports ends here: `MissingRule::report`, and CMT's (cmt/sfr.rs,
/// cmt/lists.rs), which count theirs by SFR and DAC.
#[inline(always)]
pub(in crate::sctp::outbound) fn mark_at_threshold(
    s: &mut Sent,
    threshold: u32,
    multiple_fast_rtx: bool,
    counts: &mut SentCounts,
    mark_floor: &mut u32,
) -> bool {
    let eligible = !s.fast_rtxed || multiple_fast_rtx;
    if s.missing < threshold || !eligible || s.mark.is_some() {
        return false;
    }
    s.mark = Some(Mark::Fast);
    counts.mark(s);
    if tsn_lt(s.tsn, *mark_floor) {
        *mark_floor = s.tsn;
    }
    s.fast_rtxed = true;
    true
}
