//! Partial delivery with I-DATA (RFC 8260 sec. 2, which keeps RFC 9260 sec. 6.9's
//! partial delivery and lets it interleave: several messages may be under way at
//! once, one per stream here). When a fragment finds no room, the receiver starts
//! handing up the stream's next ordered message whose first fragment (FSN 0) it
//! holds, oldest first fragment first: the fragments in FSN order as far as they are
//! contiguous, then each as the gap before it fills, until the last (E). The buffer
//! they held is free at once; the message counts as delivered when its last
//! fragment is. Unordered messages are not delivered in parts.

use super::*;

impl IDataReassembly {
    /// Starts a partial delivery to make room (the caller's buffer is full): on the
    /// stream whose next ordered message has its FSN 0 fragment here with the lowest
    /// TSN (relative to `cum_tsn`), none under way there. Appends the runs handed up
    /// to `out`; false if there was none to start.
    pub fn start_partial(&mut self, cum_tsn: u32, out: &mut Vec<Message>) -> bool {
        let mut best: Option<(i32, usize)> = None;
        for (i, s) in self.streams.iter().enumerate() {
            if s.pd_fsn.is_some() {
                continue;
            }
            let Some(&(_, tsn)) = s.ordered.get(&s.next_mid).and_then(|p| p.frags.get(&0)) else {
                continue;
            };
            let age = tsn.wrapping_sub(cum_tsn) as i32;
            if best.is_none_or(|(a, _)| age < a) {
                best = Some((age, i));
            }
        }
        let Some((_, i)) = best else {
            return false;
        };
        self.streams[i].pd_fsn = Some(0);
        let before = out.len();
        self.continue_partial(i, out);
        out.len() > before
    }

    /// Hands up stream `i`'s message under partial delivery as far as its fragments
    /// are contiguous; when its last one is up, the message is done and ordered
    /// delivery goes on.
    pub(super) fn continue_partial(&mut self, i: usize, out: &mut Vec<Message>) {
        let s = &mut self.streams[i];
        let (Some(mut next), mid) = (s.pd_fsn, s.next_mid) else {
            return;
        };
        let Some(p) = s.ordered.get_mut(&mid) else {
            return;
        };
        let (mut bytes, mut n, mut last_tsn) = (0u64, 0u32, 0u32);
        while let Some((payload, tsn)) = p.frags.remove(&next) {
            bytes += u64::from(payload);
            n += 1;
            last_tsn = tsn;
            next = next.wrapping_add(1);
        }
        let ends = p.last_fsn.is_some_and(|l| next == l.wrapping_add(1));
        if n > 0 {
            self.held_bytes -= bytes;
            out.push(Message {
                stream: i as u16,
                mid,
                unordered: false,
                bytes,
                last_tsn,
                fragments: n,
                ends,
            });
        }
        let s = &mut self.streams[i];
        if ends {
            s.ordered.remove(&mid);
            s.next_mid = mid.wrapping_add(1);
            s.pd_fsn = None;
            self.deliver_in_order(i, out);
        } else {
            s.pd_fsn = Some(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Window;
    use crate::net::wire::sctp_idata::IDataChunk;
    use crate::sctp::inbound::Inbound;
    use crate::sim::SimTime;

    fn frag(tsn: u32, mid: u32, fsn: u32, flags: DataFlags, payload: u32) -> Fragment {
        Fragment {
            tsn,
            stream: 0,
            mid,
            fsn,
            flags,
            payload,
        }
    }

    fn piece(mid: u32, bytes: u64, last_tsn: u32, fragments: u32, ends: bool) -> Message {
        Message {
            stream: 0,
            mid,
            unordered: false,
            bytes,
            last_tsn,
            fragments,
            ends,
        }
    }

    /// MID 0 in four 1000-byte fragments (FSN 0-3, TSNs 10-13), MID 1 whole (TSN 14,
    /// 100 bytes). FSN 0, 1 and 3 are held: a partial delivery hands up FSN 0-1 (2000
    /// bytes, not the end); the same FSN 1 again is a duplicate; MID 1 waits; FSN 2
    /// completes the run (FSN 2-3, the end), then MID 1 follows in order.
    #[test]
    fn runs_in_fsn_order_then_the_next_message() {
        let mut r = IDataReassembly::new(1);
        let mut out = Vec::new();
        let mid = DataFlags::empty();
        assert!(r.on_fragment(&frag(10, 0, 0, DataFlags::BEGIN, 1000), &mut out));
        assert!(r.on_fragment(&frag(11, 0, 1, mid, 1000), &mut out));
        assert!(r.on_fragment(&frag(13, 0, 3, DataFlags::END, 1000), &mut out));
        assert!(out.is_empty());
        assert!(r.start_partial(9, &mut out));
        assert_eq!(out, [piece(0, 2000, 11, 2, false)]);
        assert_eq!(r.held_bytes, 1000);
        assert!(!r.on_fragment(&frag(21, 0, 1, mid, 1000), &mut out));
        assert!(r.on_fragment(&frag(14, 1, 0, DataFlags::UNFRAGMENTED, 100), &mut out));
        assert_eq!(out.len(), 1);
        assert!(r.on_fragment(&frag(12, 0, 2, mid, 1000), &mut out));
        assert_eq!(
            out[1..],
            [piece(0, 2000, 13, 2, true), piece(1, 100, 14, 1, true)]
        );
        assert_eq!((r.held_bytes, r.pending_messages()), (0, 0));
        assert!(!r.start_partial(14, &mut out));
    }

    /// An I-FORWARD-TSN skipping the message being delivered in parts ends it: the
    /// held FSN 3 is discarded and the stream goes on at MID 1.
    #[test]
    fn a_skip_ends_a_partial_delivery() {
        let mut r = IDataReassembly::new(1);
        let mut out = Vec::new();
        r.on_fragment(&frag(10, 0, 0, DataFlags::BEGIN, 1000), &mut out);
        r.on_fragment(&frag(13, 0, 3, DataFlags::END, 1000), &mut out);
        assert!(r.start_partial(9, &mut out));
        let skip = SkippedMessage {
            stream: 0,
            unordered: false,
            mid: 0,
        };
        r.on_skip(&[skip], &mut out);
        assert_eq!((r.held_bytes, r.fragments_skipped), (0, 1));
        r.on_fragment(&frag(14, 1, 0, DataFlags::UNFRAGMENTED, 100), &mut out);
        assert_eq!(out.last(), Some(&piece(1, 100, 14, 1, true)));
    }

    /// The receiver's side: a buffer of three 1020-byte I-DATA chunks holds FSN 0-2 of
    /// a four-fragment message (peer's initial TSN 100); FSN 3 does not fit, so FSN
    /// 0-2 are handed up (3000 bytes) and FSN 3 is taken and completes the message:
    /// one message of 4000 bytes, one partial delivery, the buffer empty, cumulative
    /// TSN 103.
    #[test]
    fn a_full_buffer_starts_a_partial_delivery() {
        let len = IDataChunk::len_for(1000) as u64;
        let mut r = Inbound::new(100, 3 * len, 1, None, Window::ALL, 1468, true);
        let t = SimTime::ZERO;
        let chunk = |tsn: u32, fsn: u32, flags: DataFlags| IDataChunk {
            tsn,
            stream: 0,
            mid: 0,
            ppid_fsn: fsn,
            flags,
            payload_len: 1000,
        };
        assert!(r.on_idata(t, &chunk(100, 0, DataFlags::BEGIN)));
        assert!(r.on_idata(t, &chunk(101, 1, DataFlags::empty())));
        assert!(r.on_idata(t, &chunk(102, 2, DataFlags::empty())));
        assert_eq!(r.a_rwnd(), 0);
        assert!(r.on_idata(t, &chunk(103, 3, DataFlags::END)));
        assert_eq!(r.partial_deliveries, 1);
        assert_eq!(r.streams[0].delivered_messages, 1);
        assert_eq!(r.streams[0].delivered_bytes, 4000);
        assert_eq!((r.a_rwnd() as u64, r.cum_tsn), (3 * len, 103));
    }
}
