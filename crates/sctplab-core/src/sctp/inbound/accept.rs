//! DATA acceptance (RFC 9260 6.2, 6.5): whether a chunk is taken (not beyond the
//! receive map, not a duplicate, room in the window after any partial delivery), and
//! the cumulative TSN and gap runs it moves. DATA and I-DATA share `admit`.

use super::*;

impl Inbound {
    /// Handles one DATA chunk; returns whether it was accepted (new and buffered).
    pub fn on_data(&mut self, now: SimTime, d: &DataChunk) -> bool {
        if usize::from(d.stream) >= self.streams.len() {
            return self.on_data_invalid_stream(d);
        }
        let chunk_len = DataChunk::len_for(d.payload_len as usize) as u32;
        let Some(off) = self.admit(now, d.tsn, chunk_len, Self::start_partial_delivery) else {
            return false;
        };
        self.held += u64::from(chunk_len);
        let held = Held {
            stream: d.stream,
            flags: d.flags,
            chunk_len,
            payload: d.payload_len,
        };
        self.mark_received(off, d.tsn, held);
        let st = &self.streams[usize::from(held.stream)];
        let next_whole = d.ssn == st.next_ssn
            && st.partial.is_none()
            && d.flags.contains(DataFlags::UNFRAGMENTED)
            && !st.holds(d.ssn);
        if d.flags.contains(DataFlags::UNORDERED) {
            if d.flags.contains(DataFlags::UNFRAGMENTED) {
                self.deliver(now, held, d.tsn.wrapping_sub(self.initial_tsn));
            } else {
                let rel = d.tsn.wrapping_sub(self.initial_tsn);
                let stream = usize::from(held.stream);
                self.streams[stream].unordered.insert(rel, held);
                self.deliver_unordered(now, stream, rel);
            }
        } else if next_whole {
            // The stream's next message, whole in this chunk: delivered at once, as
            // `deliver_in_order` would, without a round trip through `pending` (whose
            // node allocation per chunk would be the receive path's only one).
            self.deliver(now, held, d.tsn.wrapping_sub(self.initial_tsn));
            let st = &mut self.streams[usize::from(held.stream)];
            st.next_ssn = st.next_ssn.wrapping_add(1);
        } else {
            let rel = d.tsn.wrapping_sub(self.initial_tsn);
            self.streams[usize::from(held.stream)]
                .pending
                .insert((d.ssn, rel), held);
        }
        self.advance_cum_tsn();
        self.deliver_in_order(now, usize::from(held.stream));
        true
    }

    /// The tests every data chunk for a stream this end has passes, DATA and I-DATA
    /// alike (RFC 9260 6.2): not further ahead than `max_ahead`, not a duplicate, room
    /// in the buffer, after starting partial deliveries that make room (6.9; DATA's or
    /// I-DATA's `partial_delivery`). The chunk's offset above the cumulative TSN if it
    /// is taken; for one that is not, the counters and the SACK flags are set.
    #[inline(always)]
    pub(super) fn admit(
        &mut self,
        now: SimTime,
        tsn: u32,
        chunk_len: u32,
        partial_delivery: fn(&mut Self, SimTime) -> bool,
    ) -> Option<i64> {
        let off = self.offset(tsn);
        if off > self.max_ahead {
            // Silently dropped, as Linux (`sctp_tsnmap_check`) and usrsctp do beyond
            // their mapping arrays; the per-TSN list below never grows past the bound.
            self.dropped_beyond_window += 1;
            return None;
        }
        let dup = off <= 0
            || self
                .above
                .get((off - 1) as usize)
                .is_some_and(|h| h.is_some());
        // ns-2.35 `ProcessDataChunk` tests the window before anything else: a chunk
        // that does not fit is dropped unseen, duplicate or not.
        let room_first = !self.sack_on_drop;
        if dup && (!room_first || self.fits(chunk_len)) {
            self.dups.push(tsn);
            self.sack_now = true;
            self.drop_cancels_sack = false;
            return None;
        }
        if !dup {
            while !self.fits(chunk_len) && partial_delivery(self, now) {}
        }
        if !self.fits(chunk_len) {
            self.dropped_no_buffer += 1;
            if self.sack_on_drop {
                // RFC 9260 6.2: "the receiver MUST immediately send back a SACK".
                self.sack_now = true;
            } else {
                self.drop_cancels_sack = true;
            }
            return None;
        }
        if self.delayed.is_none() {
            // ns-2 asks for a SACK before each chunk it processes (no delayed SACK).
            self.drop_cancels_sack = false;
        }
        Some(off)
    }

    /// A DATA chunk for a stream this end does not have (`stream` >= the inbound
    /// stream count). RFC 9260 6.5: its TSN is acknowledged "following the normal
    /// procedure" and the data discarded (the caller sends the ERROR, cause 1), so the
    /// sender does not retransmit it for ever. Returns whether the TSN was new.
    #[inline(never)]
    pub(super) fn on_data_invalid_stream(&mut self, d: &DataChunk) -> bool {
        let off = self.offset(d.tsn);
        if off > self.max_ahead {
            self.dropped_beyond_window += 1;
            return false;
        }
        if off <= 0
            || self
                .above
                .get((off - 1) as usize)
                .is_some_and(|h| h.is_some())
        {
            self.dups.push(d.tsn);
            self.sack_now = true;
            self.drop_cancels_sack = false;
            return false;
        }
        self.invalid_stream_chunks += 1;
        // Received but holding no buffer and never delivered: it only fills its TSN.
        let discarded = Held {
            stream: 0,
            flags: d.flags,
            chunk_len: 0,
            payload: 0,
        };
        self.mark_received(off, d.tsn, discarded);
        self.advance_cum_tsn();
        true
    }

    /// Records TSN `tsn`, at offset `off` (> 0) above the cumulative TSN, as received.
    pub(super) fn mark_received(&mut self, off: i64, tsn: u32, held: Held) {
        let i = (off - 1) as usize;
        while self.above.len() <= i {
            self.above.push_back(None);
        }
        self.above[i] = Some(held);
        // The next TSN expected is passed by `advance_cum_tsn` straight after: it never
        // stands in a run (an in-order stream pays nothing here).
        if off > 1 {
            self.runs.insert(self.cum_tsn, tsn);
        }
        self.highest_tsn = self
            .highest_tsn
            .max(tsn.wrapping_sub(self.initial_tsn).wrapping_add(1));
    }

    /// Advances the cumulative TSN over what has arrived.
    pub(super) fn advance_cum_tsn(&mut self) {
        while let Some(Some(_)) = self.above.front() {
            self.above.pop_front();
            self.cum_tsn = self.cum_tsn.wrapping_add(1);
        }
        self.runs.trim(self.cum_tsn);
    }

    pub(super) fn fits(&self, chunk_len: u32) -> bool {
        u64::from(chunk_len) <= self.buffer.saturating_sub(self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::inbound::test_support::{data, inbound};

    #[test]
    fn cumulative_tsn_gaps_and_duplicates() {
        let mut r = inbound(100_000, 1);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED;
        assert!(r.on_data(t, &data(100, 0, 0, f)));
        assert!(r.on_data(t, &data(102, 0, 2, f)));
        assert!(r.on_data(t, &data(103, 0, 3, f)));
        assert!(!r.on_data(t, &data(102, 0, 2, f)), "duplicate");
        assert!(r.on_data(t, &data(105, 0, 5, f)));
        let s = r.take_sack();
        assert_eq!(s.cum_tsn_ack, 100);
        // Gap blocks are offsets from the cumulative TSN: 102-103 and 105.
        assert_eq!(s.gaps, vec![(2, 3), (5, 5)]);
        assert_eq!(s.dups, vec![102]);
        // 4 chunks of 1016 bytes held (101 missing blocks delivery of 102..).
        assert_eq!(r.a_rwnd(), 100_000 - 3 * 1016);
    }

    #[test]
    fn a_full_buffer_drops_the_chunk() {
        let mut r = inbound(2500, 1);
        let t = SimTime::ZERO;
        let f = DataFlags::UNFRAGMENTED;
        r.on_data(t, &data(101, 0, 1, f));
        r.on_data(t, &data(102, 0, 2, f));
        assert_eq!(r.a_rwnd(), 2500 - 2032);
        assert!(!r.on_data(t, &data(103, 0, 3, f)));
        assert_eq!(r.dropped_no_buffer, 1);
    }
}
