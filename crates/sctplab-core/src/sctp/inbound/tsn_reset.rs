//! The receiving half's part of an SSN/TSN reset (RFC 6525 5.2.4 on the side that
//! performs it, 5.2.7 on the requester's): every TSN up to the highest received
//! counts as received, held messages are handled as after a FORWARD TSN naming every
//! stream (whole ones delivered, the others discarded: G4), and the peer's data is
//! expected from a new TSN on. The SSNs are reset by the association (G5).

use super::*;

impl Inbound {
    /// The peer's next DATA chunk carries TSN `next`. Relative TSNs (message keys,
    /// `highest_tsn`, the message log) run on across the jump: the initial TSN moves
    /// with it.
    pub fn reset_tsn(&mut self, now: SimTime, next: u32) {
        // G4: as a FORWARD TSN to the highest TSN received, with every stream's
        // held messages named.
        let last_seen = self.cum_tsn.wrapping_add(self.above.len() as u32);
        self.above.clear();
        self.runs.clear();
        self.cum_tsn = last_seen;
        self.discard_unordered_skipped();
        for i in 0..self.streams.len() {
            let s = &self.streams[i];
            let next_ssn = s.next_ssn;
            let last = s
                .pending
                .keys()
                .map(|&(ssn, _)| ssn)
                .max_by_key(|&ssn| ssn.wrapping_sub(next_ssn));
            if let Some(ssn) = last {
                self.skip_ordered(now, i, ssn);
            }
        }
        if let Some(mut r) = self.idata.take() {
            let mut out = Vec::new();
            let frags0 = r.fragments_skipped;
            let bytes0 = r.held_bytes;
            r.reset(&mut out);
            let delivered: u64 = out.iter().map(|m| m.bytes).sum();
            let hdr = crate::net::wire::sctp_idata::IDataChunk::HEADER_LEN as u64;
            let frags = r.fragments_skipped - frags0;
            let skipped_payload = bytes0.saturating_sub(r.held_bytes + delivered);
            self.held = self.held.saturating_sub(skipped_payload + frags * hdr);
            self.chunks_skipped += frags;
            self.idata = Some(r);
            for m in out {
                self.deliver_message(now, m);
            }
        }
        self.dups.clear();
        // The next expected TSN keeps its relative number.
        let rel_next = last_seen.wrapping_add(1).wrapping_sub(self.initial_tsn);
        self.initial_tsn = next.wrapping_sub(rel_next);
        self.cum_tsn = next.wrapping_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(tsn: u32, ssn: u16) -> DataChunk {
        DataChunk {
            tsn,
            stream: 0,
            ssn,
            ppid: 0,
            flags: DataFlags::UNFRAGMENTED,
            payload_len: 1000,
        }
    }

    /// Peer's initial TSN 100. 100 (SSN 0) is delivered; 102 (SSN 2) waits behind the
    /// missing 101. The reset to next TSN 5000 (G4: as a FORWARD TSN to 102 naming
    /// SSN 2) skips SSN 1 and delivers SSN 2, frees the buffer and sets the
    /// cumulative TSN to 4999. With the SSNs reset (G5), 5000 carrying SSN 0 is
    /// delivered and acknowledged with no gap; its relative TSN is 3, as 103's would
    /// have been.
    #[test]
    fn reset_delivers_what_is_whole_and_moves_the_tsn_space() {
        let mut r = Inbound::new(100, 100_000, 1, None, Window::ALL, 1468, true);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0));
        r.on_data(t, &data(102, 2));
        assert_eq!(r.a_rwnd(), 100_000 - 1016);
        r.reset_tsn(t, 5000);
        assert_eq!((r.cum_tsn, r.a_rwnd()), (4999, 100_000));
        assert_eq!(r.streams[0].delivered_messages, 2);
        r.streams[0].reset_ssn();
        r.on_data(t, &data(5000, 0));
        let s = r.take_sack();
        assert_eq!((s.cum_tsn_ack, s.gaps), (5000, vec![]));
        assert_eq!(r.streams[0].delivered_messages, 3);
        assert_eq!(r.highest_tsn, 4);
    }
}
