//! Partial delivery (RFC 9260 6.9): a receiver out of buffer space hands a message up
//! in parts, so that one larger than the buffer completes instead of stalling the
//! association. DATA's rule; I-DATA's is `idata_pd.rs`.

use super::*;

impl Inbound {
    /// RFC 9260 6.9: a receiver out of buffer space while it waits for the rest of a
    /// message "SHOULD dispatch part of its inbound message through a partial delivery
    /// API". The candidate is the first undelivered message of a stream whose first
    /// fragment is in; of several, the one that began at the lowest TSN. Its fragments
    /// are handed up in TSN order as far as they are contiguous, and the rest follows
    /// as it arrives (`deliver_in_order`). Without this, a message larger than the
    /// buffer could never complete and the association would stall for good.
    /// Returns whether buffer space was freed.
    pub(super) fn start_partial_delivery(&mut self, now: SimTime) -> bool {
        let cum = self.cum_tsn.wrapping_sub(self.initial_tsn);
        let mut best: Option<(i32, usize, u32)> = None;
        for (i, s) in self.streams.iter().enumerate() {
            if s.partial.is_some() {
                continue;
            }
            let next = s.next_ssn;
            let Some((&(_, tsn), h)) = s.pending.range((next, 0)..=(next, u32::MAX)).next() else {
                continue;
            };
            if !h.flags.contains(DataFlags::BEGIN) {
                continue;
            }
            let age = tsn.wrapping_sub(cum) as i32;
            if best.is_none_or(|(a, _, _)| age < a) {
                best = Some((age, i, tsn));
            }
        }
        let Some((_, stream, tsn)) = best else {
            return self.start_unordered_partial_delivery(now);
        };
        let held = self.held;
        self.streams[stream].partial = Some(tsn);
        self.partial_deliveries += 1;
        self.deliver_in_order(now, stream);
        self.held < held
    }

    /// `start_partial_delivery` for unordered messages: the stream holding the
    /// lowest-TSN first fragment of an incomplete unordered message (none under way)
    /// hands it up as far as its fragments are contiguous; the rest follows as it
    /// arrives. Returns whether buffer space was freed.
    fn start_unordered_partial_delivery(&mut self, now: SimTime) -> bool {
        let cum = self.cum_tsn.wrapping_sub(self.initial_tsn);
        let mut best: Option<(i32, usize, u32)> = None;
        for (i, s) in self.streams.iter().enumerate() {
            if s.unordered_partial.is_some() {
                continue;
            }
            for (&rel, h) in &s.unordered {
                if h.flags.contains(DataFlags::BEGIN) {
                    let age = rel.wrapping_sub(cum) as i32;
                    if best.is_none_or(|(a, _, _)| age < a) {
                        best = Some((age, i, rel));
                    }
                    break;
                }
            }
        }
        let Some((_, stream, rel)) = best else {
            return false;
        };
        let held = self.held;
        self.partial_deliveries += 1;
        self.deliver_unordered_from(now, stream, rel);
        self.held < held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::inbound::test_support::{data, inbound};

    #[test]
    fn an_unordered_message_larger_than_the_buffer_is_delivered_in_parts() {
        // Buffer of two 1016-byte chunks; an unordered message of four fragments, TSNs
        // 100-103, in order. 100 and 101 fill the buffer; 102 does not fit, so the
        // message's contiguous start (100, 101) is handed up (6.9 partial delivery),
        // 102 then fits and follows at once, and 103 ends the message.
        let mut r = inbound(2 * 1016, 1);
        let t = SimTime::ZERO;
        let u = DataFlags::UNORDERED;
        for (tsn, f) in [
            (100, DataFlags::BEGIN),
            (101, DataFlags::empty()),
            (102, DataFlags::empty()),
            (103, DataFlags::END),
        ] {
            assert!(r.on_data(t, &data(tsn, 0, 0, f | u)), "{tsn}");
        }
        assert_eq!(r.partial_deliveries, 1);
        assert_eq!(r.streams[0].delivered_bytes, 4000);
        assert_eq!(r.streams[0].delivered_messages, 1);
        assert_eq!(r.a_rwnd(), 2 * 1016);
    }

    #[test]
    fn a_message_larger_than_the_buffer_is_delivered_in_parts() {
        // Buffer 5000 B, 1016-byte chunks (1000 B of data): four fit (4064 B held), a
        // fifth does not (936 B left). One 7000-byte message in seven fragments, TSNs
        // 100-106 on stream 0. Reassembly alone would hold 100-103 for good and drop
        // every later fragment (the association stalls). RFC 9260 6.9: the receiver,
        // out of space while waiting for the rest of the message, hands up what it has.
        //   104 arrives: no room -> partial delivery of 100-103 (4000 B up, 0 held),
        //     104 accepted and, being the next fragment, handed up at once;
        //   105, 106 follow at once; 106 (E) completes the message: one message,
        //     7000 B, nothing held, nothing dropped.
        let mut r = inbound(5000, 1);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, DataFlags::BEGIN));
        for tsn in 101..=103 {
            r.on_data(t, &data(tsn, 0, 0, DataFlags::empty()));
        }
        assert_eq!((r.delivered_total, r.a_rwnd()), (0, 5000 - 4 * 1016));
        assert!(r.on_data(t, &data(104, 0, 0, DataFlags::empty())));
        assert_eq!(
            (r.delivered_total, r.a_rwnd(), r.partial_deliveries),
            (5000, 5000, 1)
        );
        assert_eq!(r.streams[0].delivered_messages, 0);
        r.on_data(t, &data(105, 0, 0, DataFlags::empty()));
        r.on_data(t, &data(106, 0, 0, DataFlags::END));
        assert_eq!(r.delivered_total, 7000);
        assert_eq!(r.streams[0].delivered_messages, 1);
        assert_eq!((r.a_rwnd(), r.dropped_no_buffer), (5000, 0));
        // The next message is reassembled whole again.
        r.on_data(t, &data(107, 0, 1, DataFlags::BEGIN));
        assert_eq!(r.delivered_total, 7000);
        r.on_data(t, &data(108, 0, 1, DataFlags::END));
        assert_eq!(r.delivered_total, 9000);
    }

    #[test]
    fn partial_delivery_stops_at_a_hole() {
        // Same buffer; fragments 100 (B), 101, 103, 104 of one message arrive (102 is
        // lost): 4064 B held. 105 does not fit: partial delivery hands up 100-101 only
        // (103 must wait for 102), freeing 2032 B, and 105 is accepted (3048 B held).
        // When 102 comes, 102-105 go up at once.
        let mut r = inbound(5000, 1);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, DataFlags::BEGIN));
        r.on_data(t, &data(101, 0, 0, DataFlags::empty()));
        r.on_data(t, &data(103, 0, 0, DataFlags::empty()));
        r.on_data(t, &data(104, 0, 0, DataFlags::empty()));
        assert!(r.on_data(t, &data(105, 0, 0, DataFlags::empty())));
        assert_eq!((r.delivered_total, r.a_rwnd()), (2000, 5000 - 3 * 1016));
        r.on_data(t, &data(102, 0, 0, DataFlags::empty()));
        assert_eq!((r.delivered_total, r.a_rwnd()), (6000, 5000));
    }
}
