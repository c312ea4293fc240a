//! The receiver's NR-SACK (draft-natarajan-tsvwg-sctp-nrsack; ns-2.35 `PassToStream`,
//! `UpdateAllStreams`, `BuildNonRenegTsnBlockList`, `GenChunk(SCTP_CHUNK_NRSACK)`).
//!
//! As in ns-2.35, a TSN above the cumulative TSN is non-renegable once its data has
//! been delivered to the application (an unordered chunk at once, an ordered one when
//! its stream reaches it): this receiver never reneges, and delivered data cannot be
//! taken back. The NR-SACK's Gap Ack Blocks report the other out-of-order TSNs (held,
//! waiting for an earlier one of their stream) and its NR Gap Ack Blocks the delivered
//! ones; the two sets are disjoint.

use super::*;
use crate::net::wire::NrSackChunk;
use std::collections::BTreeSet;

impl Inbound {
    /// This receiver answers with NR-SACKs (the flow's `nr_sack`).
    pub fn set_nr_sack(&mut self) {
        self.nr_delivered = Some(BTreeSet::new());
    }

    pub fn nr_sack_on(&self) -> bool {
        self.nr_delivered.is_some()
    }

    /// `deliver`'s hook: chunk `rel` (relative TSN) went to the application.
    #[inline]
    pub(super) fn note_delivered(&mut self, rel: u32) {
        if let Some(set) = self.nr_delivered.as_mut() {
            let cum_rel = self.cum_tsn.wrapping_sub(self.initial_tsn);
            // At or below the cumulative TSN, or just above it (the chunk `on_data` is
            // about to move it over): never reported in a block.
            if (rel.wrapping_sub(cum_rel) as i32) >= 2 {
                set.insert(rel);
            }
        }
    }

    /// Builds the NR-SACK: the SACK's blocks split into renegable and non-renegable
    /// runs, at most as many blocks as fit the packet (lowest TSNs first), then the
    /// duplicates in the room left.
    pub fn take_nr_sack(&mut self) -> NrSackChunk {
        let sack = self.take_sack();
        let cum_rel = self.cum_tsn.wrapping_sub(self.initial_tsn);
        let set: &mut BTreeSet<u32> = self.nr_delivered.get_or_insert_with(BTreeSet::new);
        // TSNs the cumulative TSN has passed need no NR block (`BuildNonRenegTsnBlockList`).
        while set
            .first()
            .is_some_and(|&r| (r.wrapping_sub(cum_rel) as i32) <= 0)
        {
            set.pop_first();
        }
        // Blocks in TSN order, each marked non-renegable or not: one sweep over the
        // SACK's blocks and the delivered TSNs (both ascending; a delivered TSN outside
        // every block, beyond what the SACK reports, is left out).
        let mut blocks: Vec<((u16, u16), bool)> = Vec::with_capacity(sack.gaps.len() + 1);
        let mut delivered = set.iter().map(|&r| r.wrapping_sub(cum_rel)).peekable();
        for &(start, end) in &sack.gaps {
            let (start, end) = (u32::from(start), u32::from(end));
            let mut at = start;
            while let Some(off) = delivered.next_if(|&off| off <= end) {
                if off < start {
                    continue;
                }
                if off > at {
                    blocks.push(((at as u16, (off - 1) as u16), false));
                }
                match blocks.last_mut() {
                    Some(((_, e), true)) if u32::from(*e) + 1 == off => *e = off as u16,
                    _ => blocks.push(((off as u16, off as u16), true)),
                }
                at = off + 1;
            }
            if at <= end {
                blocks.push(((at as u16, end as u16), false));
            }
        }
        // The fixed part is 4 bytes longer than a SACK's; blocks and duplicates are 4
        // bytes each.
        let room = self.max_chunk_room.min(65_532);
        let max_entries = room.saturating_sub(NrSackChunk::FIXED_LEN) / 4;
        blocks.truncate(max_entries);
        let mut dups = sack.dups;
        dups.truncate(max_entries - blocks.len());
        let (mut gaps, mut nr_gaps) = (Vec::new(), Vec::new());
        for (b, nr) in blocks {
            if nr { nr_gaps.push(b) } else { gaps.push(b) }
        }
        NrSackChunk {
            cum_tsn_ack: sack.cum_tsn_ack,
            a_rwnd: sack.a_rwnd,
            gaps,
            nr_gaps,
            dups,
            flags: sack.flags,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::DataFlags;
    use crate::sctp::inbound::test_support::data;

    #[test]
    fn delivered_out_of_order_data_goes_into_nr_blocks() {
        // Initial TSN 100, two ordered streams. TSN 100 (stream 0, SSN 0) is lost.
        // 101: stream 1 SSN 0, deliverable at once -> non-renegable.
        // 102: stream 0 SSN 1, waits for SSN 0 (TSN 100) -> renegable.
        // 103: stream 1 SSN 1 -> delivered -> non-renegable.
        // 104: unordered on stream 0 -> delivered at once -> non-renegable.
        let mut r = Inbound::new(100, 64_000, 2, None, Window::ALL, 1452, true);
        r.set_nr_sack();
        let whole = DataFlags::UNFRAGMENTED;
        r.on_data(SimTime::ZERO, &data(101, 1, 0, whole));
        r.on_data(SimTime::ZERO, &data(102, 0, 1, whole));
        r.on_data(SimTime::ZERO, &data(103, 1, 1, whole));
        r.on_data(
            SimTime::ZERO,
            &data(104, 0, 0, whole.union(DataFlags::UNORDERED)),
        );
        let s = r.take_nr_sack();
        // Cumulative TSN 99; offsets: 101 -> 2, 102 -> 3, 103 -> 4, 104 -> 5.
        assert_eq!(s.cum_tsn_ack, 99);
        assert_eq!(s.gaps, vec![(3, 3)]);
        assert_eq!(s.nr_gaps, vec![(2, 2), (4, 5)]);
        // TSN 100 arrives: 100 and then 102 are delivered, the cumulative TSN reaches
        // 104 and nothing is left above it.
        r.on_data(SimTime::ZERO, &data(100, 0, 0, whole));
        let s = r.take_nr_sack();
        assert_eq!((s.cum_tsn_ack, s.gaps.len(), s.nr_gaps.len()), (104, 0, 0));
    }
}
