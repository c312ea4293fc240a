//! Mapping between the segment numbers the TCP machines think in (0-based, like ns-2's
//! one-way agents) and the 32-bit byte sequence numbers on the wire.
//!
//! Every segment but the last of a finite transfer carries `mss` bytes, so segment `n`
//! starts at byte `n * mss`; sequence numbers are offsets from the initial sequence
//! number plus one (the SYN's number), unwrapped against the last known position so a
//! transfer longer than 4 GiB keeps counting.

#[derive(Copy, Clone, Debug)]
pub struct SeqMap {
    pub iss: u32,
    pub mss: u64,
    /// Total bytes of a finite transfer.
    pub total: Option<u64>,
}

impl SeqMap {
    pub fn seq_of_segment(&self, seg: i64) -> u32 {
        let off = (seg.max(0) as u64) * self.mss;
        self.iss.wrapping_add(1).wrapping_add(off as u32)
    }

    /// Byte offset of the acknowledgement that covers segments `0..=seg`.
    pub fn ack_of_segment(&self, seg: i64) -> u32 {
        let mut off = ((seg + 1).max(0) as u64) * self.mss;
        if let Some(t) = self.total {
            off = off.min(t);
        }
        self.iss.wrapping_add(1).wrapping_add(off as u32)
    }

    /// Byte offset from the first data byte, unwrapped near `near` (a recent offset).
    pub fn offset(&self, seq: u32, near: u64) -> u64 {
        let rel = seq.wrapping_sub(self.iss.wrapping_add(1));
        let base = near & !0xffff_ffff;
        let mut cand = base | u64::from(rel);
        // Pick the candidate closest to `near`.
        if cand + (1 << 31) < near {
            cand += 1 << 32;
        } else if cand > near + (1 << 31) && cand >= (1 << 32) {
            cand -= 1 << 32;
        }
        cand
    }

    /// Segment number starting at byte offset `off`.
    pub fn segment_at(&self, off: u64) -> i64 {
        (off / self.mss) as i64
    }

    /// Segments fully covered by an ack at byte offset `off`, minus one: the highest
    /// segment acked (-1 for none).
    pub fn cum_segment(&self, off: u64) -> i64 {
        off.div_ceil(self.mss) as i64 - 1
    }

    /// Payload bytes of segment `seg`.
    pub fn len_of(&self, seg: i64) -> u32 {
        let start = (seg.max(0) as u64) * self.mss;
        match self.total {
            Some(t) => t.saturating_sub(start).min(self.mss) as u32,
            None => self.mss as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_acks_round_trip() {
        let m = SeqMap {
            iss: 0xffff_fff0,
            mss: 1000,
            total: Some(2500),
        };
        assert_eq!(m.seq_of_segment(0), 0xffff_fff1);
        let off = m.offset(m.seq_of_segment(2), 0);
        assert_eq!(m.segment_at(off), 2);
        assert_eq!(m.len_of(2), 500);
        // The ack of the last (short) segment covers all 2500 bytes: 3 segments.
        let ack = m.offset(m.ack_of_segment(2), 2000);
        assert_eq!(ack, 2500);
        assert_eq!(m.cum_segment(ack), 2);
        assert_eq!(m.cum_segment(0), -1);
    }

    #[test]
    fn offsets_unwrap_past_four_gibibytes() {
        let m = SeqMap {
            iss: 0,
            mss: 1000,
            total: None,
        };
        let far: u64 = (1 << 32) + 5000;
        let seq = m.iss.wrapping_add(1).wrapping_add(far as u32);
        assert_eq!(m.offset(seq, far - 3000), far);
    }
}
