//! When the receiver sends a SACK (RFC 9260 6.2: every second packet or the delayed-SACK
//! timer, at once for gaps and duplicates; ns-2.35's variants and CMT's delayed ack) and
//! what it carries (6.2, 3.3.4: gap blocks first, then duplicates).

use super::*;

impl Inbound {
    /// After a packet with DATA: decide whether a SACK goes out now (RFC 9260 6.2:
    /// at least every second packet, at once for gaps and duplicates).
    pub fn after_packet(&mut self, now: SimTime) {
        let gaps = !self.above.is_empty();
        let first = !self.first_data_seen;
        self.first_data_seen = true;
        let mut second = false;
        match self.delayed {
            None => self.sack_now = true,
            Some(delay) => {
                self.packets_unacked += 1;
                second = self.packets_unacked >= 2;
                // CMT's DAC (ns-2.35 `SctpCMTAgent::ProcessChunk`): no immediate SACK
                // for a gap; the sender counts the packets instead.
                if (gaps && !self.cmt_dac) || first || second {
                    self.sack_now = true;
                } else if self.sack_deadline.is_none() {
                    self.sack_deadline = Some(now + delay);
                }
            }
        }
        if std::mem::take(&mut self.drop_cancels_sack) && !gaps {
            // ns-2.35: the drop clears the SACK flag (`ProcessDataChunk`); only a gap
            // sets it again (`ProcessChunk`). A second packet had already reset the
            // delayed-SACK count and stopped its timer; a first one's timer runs on.
            self.sack_now = false;
            if second {
                self.packets_unacked = 0;
                self.sack_deadline = None;
            }
        }
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if self.sack_deadline.is_some_and(|t| now >= t) {
            self.sack_now = true;
            self.sack_by_timer = true;
        }
    }

    /// Turns on CMT's delayed ack at this receiver (ns-2.35 `useCmtDelAck_`).
    pub fn set_cmt_dac(&mut self) {
        self.cmt_dac = true;
    }

    pub fn wants_sack(&self) -> bool {
        self.sack_now
    }

    /// Builds the SACK: cumulative TSN, as many gap blocks as fit in one packet, and the
    /// duplicates seen since the last SACK.
    pub fn take_sack(&mut self) -> SackChunk {
        // RFC 9260 6.2: "as many Gap Ack Blocks as can fit", lowest TSNs first; the
        // duplicate TSNs get the room left, never the other way round. Gap Ack Block
        // offsets are 16 bits from the cumulative TSN (3.3.4): a TSN more than 65535
        // above it cannot be reported yet (its offset would wrap onto a low TSN).
        let max_gaps = SackChunk::max_gaps_fitting(self.max_chunk_room, 0);
        let gaps = self.runs.blocks(self.cum_tsn, max_gaps);
        let mut dups = std::mem::take(&mut self.dups);
        // Gap blocks and duplicate TSNs are 4 bytes each.
        dups.truncate(max_gaps - gaps.len());
        // DAC: the DATA packets since the previous SACK; ns-2.35's
        // `SackGenTimerExpiration` clears its count before building the SACK, so a
        // timer's SACK says 0.
        let flags = if self.cmt_dac && !self.sack_by_timer {
            self.packets_unacked.min(u32::from(u8::MAX)) as u8
        } else {
            0
        };
        self.sack_now = false;
        self.sack_by_timer = false;
        self.sack_deadline = None;
        self.packets_unacked = 0;
        SackChunk {
            cum_tsn_ack: self.cum_tsn,
            a_rwnd: self.a_rwnd(),
            gaps,
            dups,
            flags,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::inbound::test_support::{data, inbound};

    #[test]
    fn a_full_sack_keeps_its_gap_blocks_and_drops_duplicates() {
        // The chunk room is 1468 bytes (1500 - 20 - 12): (1468 - 16) / 4 = 363 four-byte
        // entries. 400 gap blocks exist (every second TSN from 102) and 10
        // duplicates. RFC 9260 6.2: "as many Gap Ack Blocks as can fit", lowest TSNs
        // first: blocks 2-2, 4-4, ..., 726-726 (363 of them), no duplicates.
        let mut r = inbound(10_000_000, 1);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED | DataFlags::UNORDERED;
        for k in 0..400u32 {
            assert!(r.on_data(t, &data(101 + 2 * k, 0, 0, f)));
        }
        for _ in 0..10 {
            assert!(!r.on_data(t, &data(101, 0, 0, f)), "duplicate");
        }
        let s = r.take_sack();
        assert_eq!(s.cum_tsn_ack, 99);
        assert_eq!(s.gaps.len(), 363);
        assert_eq!(s.gaps[0], (2, 2));
        assert_eq!(s.gaps[362], (726, 726));
        assert!(s.dups.is_empty());
        // With room to spare the duplicates are all reported.
        let mut few = inbound(10_000_000, 1);
        few.on_data(t, &data(102, 0, 0, f));
        few.on_data(t, &data(102, 0, 0, f));
        let s = few.take_sack();
        assert_eq!((s.gaps, s.dups), (vec![(3, 3)], vec![102]));
    }

    #[test]
    fn gap_blocks_stop_at_the_16_bit_offset_limit() {
        // RFC 9260 3.3.4: Gap Ack Block offsets are 16-bit numbers from the cumulative
        // TSN (99 here). TSN 101 is offset 2; TSN 99 + 65536 + 2 = 65637 would wrap to
        // offset 2 as well and must not be reported (nor anything past offset 65535).
        let mut r = inbound(1 << 30, 1);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED | DataFlags::UNORDERED;
        assert!(r.on_data(t, &data(101, 0, 0, f)));
        assert!(r.on_data(t, &data(99 + 65_535, 0, 0, f)));
        assert!(r.on_data(t, &data(99 + 65_536 + 2, 0, 0, f)));
        let s = r.take_sack();
        assert_eq!(s.gaps, vec![(2, 2), (65_535, 65_535)]);
    }

    /// Buffer 2500 B, delayed SACKs, two 1016-byte chunks held (468 B free), then one
    /// packet whose one new chunk does not fit. Held chunks wait either above a gap (TSN
    /// 100 lost: 101, 102 held) or, with no gap, behind a missing earlier message of
    /// their stream (TSNs 100, 101 carry SSNs 5, 6; SSN 0 never came). Returns whether
    /// a SACK is due after the packet, and the drop count.
    fn after_drop(sack_on_drop: bool, gap: bool) -> (bool, u64) {
        let delay = Some(SimDuration::from_millis(200));
        let mut r = Inbound::new(100, 2500, 1, delay, Window::ALL, 1468, sack_on_drop);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED;
        let tsns = if gap { [101, 102] } else { [100, 101] };
        for (k, tsn) in tsns.into_iter().enumerate() {
            r.on_data(t, &data(tsn, 0, 5 + k as u16, f));
            r.after_packet(t);
            r.take_sack();
        }
        assert_eq!(r.a_rwnd(), 2500 - 2 * 1016);
        assert!(!r.on_data(t, &data(tsns[1] + 1, 0, 7, f)));
        r.after_packet(t);
        (r.wants_sack(), r.dropped_no_buffer)
    }

    #[test]
    fn a_chunk_dropped_for_want_of_space_is_answered_per_rfc_or_per_ns2() {
        // RFC 9260 6.2: a dropped chunk "MUST immediately" bring a SACK (with the
        // current window), gap or not. ns-2.35 `ProcessDataChunk`: the drop clears the
        // SACK flag; `ProcessChunk` sets it again only when a gap exists.
        assert_eq!(after_drop(true, false), (true, 1));
        assert_eq!(after_drop(true, true), (true, 1));
        assert_eq!(after_drop(false, false), (false, 1));
        assert_eq!(after_drop(false, true), (true, 1));
    }
}
