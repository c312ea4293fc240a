//! The per-stream reassembly buffer (`StreamIn`, `Held`) and delivery to the
//! application (RFC 9260 6.6, 6.9): ordered messages in SSN order once whole, with
//! head-of-line blocking per stream; unordered ones as soon as they are whole.

use super::*;
use std::collections::BTreeMap;

/// A chunk received and not yet delivered: what its delivery needs and the buffer it
/// holds (`chunk_len`, header included, ns-2's accounting).
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    pub(super) stream: u16,
    pub(super) flags: DataFlags,
    pub(super) chunk_len: u32,
    pub(super) payload: u32,
}

#[derive(Clone, Debug, Default)]
pub struct StreamIn {
    pub(super) next_ssn: u16,
    /// Buffered ordered chunks by SSN, then TSN relative to the peer's initial TSN
    /// (fragments of one message; relative, so a message whose TSNs wrap past 2^32
    /// keeps its fragments in order).
    pub(super) pending: BTreeMap<(u16, u32), Held>,
    pub(super) blocked_since: Option<SimTime>,
    /// Partial delivery of the message at `next_ssn` under way: the relative TSN of its
    /// next fragment to hand up (RFC 9260 6.9).
    pub(super) partial: Option<u32>,
    /// Fragments of unordered messages by relative TSN, until a message is whole
    /// (RFC 9260 6.9: reassembled like any other; delivered whatever its SSN).
    pub(super) unordered: BTreeMap<u32, Held>,
    /// Partial delivery of an unordered message under way: its next relative TSN.
    pub(super) unordered_partial: Option<u32>,
    pub hol_blocked_ns: u64,
    pub delivered_bytes: u64,
    pub delivered_messages: u64,
}

impl StreamIn {
    /// RE-CONFIG (RFC 6525 5.2.2): the stream's next expected SSN is 0 again.
    pub fn reset_ssn(&mut self) {
        self.next_ssn = 0;
    }

    /// Whether ordered chunks of SSN `ssn` are held. The keys are ordered by SSN as a
    /// plain number: a first key above `ssn` answers without a search by range (the
    /// usual case while a hole holds a stream back, CMT's paths reordering).
    pub(super) fn holds(&self, ssn: u16) -> bool {
        match self.pending.first_key_value() {
            None => false,
            Some((&(first, _), _)) if first > ssn => false,
            Some((&(first, _), _)) if first == ssn => true,
            Some(_) => self
                .pending
                .range((ssn, 0)..=(ssn, u32::MAX))
                .next()
                .is_some(),
        }
    }
}

impl Inbound {
    /// Hands chunk `h` (relative TSN `rel`) to the application.
    pub(super) fn deliver(&mut self, now: SimTime, h: Held, rel: u32) {
        self.note_delivered(rel);
        self.held -= u64::from(h.chunk_len);
        let end = h.flags.contains(DataFlags::END).then_some(rel);
        self.hand_up(now, h.stream, u64::from(h.payload), end);
    }

    /// `bytes` of stream `stream` reach the application, with `end_rel` the relative
    /// TSN of a message's last chunk when they complete one: the total, and inside
    /// the measurement window the flow's and the stream's counts and the message log
    /// (DATA per chunk, I-DATA per whole message).
    #[inline(always)]
    pub(super) fn hand_up(&mut self, now: SimTime, stream: u16, bytes: u64, end_rel: Option<u32>) {
        self.delivered_total += bytes;
        if self.window.contains(now) {
            let s = &mut self.streams[usize::from(stream)];
            self.delivered_bytes += bytes;
            s.delivered_bytes += bytes;
            if let Some(rel) = end_rel {
                s.delivered_messages += 1;
                if let Some(log) = self.msg_log.as_mut() {
                    log.push((stream, rel, now));
                }
            }
        }
    }

    /// Delivers the unordered message the fragment at relative TSN `rel` belongs to if
    /// all its fragments are in (a first fragment, consecutive TSNs, a last one), or
    /// the fragments that continue an unordered message delivered in parts.
    pub(super) fn deliver_unordered(&mut self, now: SimTime, stream: usize, rel: u32) {
        let s = &self.streams[stream];
        if let Some(next) = s.unordered_partial {
            if next == rel {
                self.deliver_unordered_from(now, stream, rel);
                return;
            }
        }
        let mut first = rel;
        loop {
            let Some(h) = s.unordered.get(&first) else {
                return;
            };
            if h.flags.contains(DataFlags::BEGIN) {
                break;
            }
            first = first.wrapping_sub(1);
        }
        let mut last = rel;
        loop {
            let Some(h) = s.unordered.get(&last) else {
                return;
            };
            if h.flags.contains(DataFlags::END) {
                break;
            }
            last = last.wrapping_add(1);
        }
        self.deliver_unordered_from(now, stream, first);
    }

    /// Hands up the contiguous unordered fragments of `stream` from relative TSN `from`
    /// to the end of their message, or as far as they go (partial delivery).
    pub(super) fn deliver_unordered_from(&mut self, now: SimTime, stream: usize, from: u32) {
        let mut k = from;
        while let Some(h) = self.streams[stream].unordered.remove(&k) {
            self.deliver(now, h, k);
            k = k.wrapping_add(1);
            if h.flags.contains(DataFlags::END) {
                self.streams[stream].unordered_partial = None;
                return;
            }
        }
        self.streams[stream].unordered_partial = Some(k);
    }

    /// Delivers whole messages of `stream` in SSN order while the next one is complete,
    /// after the rest of a message being delivered in parts.
    pub(super) fn deliver_in_order(&mut self, now: SimTime, stream: usize) {
        loop {
            let s = &self.streams[stream];
            let next = s.next_ssn;
            if let Some(tsn) = s.partial {
                let Some(h) = s.pending.get(&(next, tsn)).copied() else {
                    break;
                };
                self.streams[stream].pending.remove(&(next, tsn));
                self.deliver(now, h, tsn);
                let s = &mut self.streams[stream];
                if h.flags.contains(DataFlags::END) {
                    s.partial = None;
                    s.next_ssn = next.wrapping_add(1);
                } else {
                    s.partial = Some(tsn.wrapping_add(1));
                }
                continue;
            }
            // Nothing held back for `next` (a stream without loss, or a hole in front
            // of what is held): no message to look for.
            if !s.holds(next) {
                break;
            }
            // The next message whole in one chunk and alone under its SSN (the common
            // case when paths reorder, CMT): delivered without a search by range.
            let mut held = s.pending.iter();
            if let Some((&(ssn, tsn), &h)) = held.next() {
                let alone = held.next().is_none_or(|(&(other, _), _)| other != ssn);
                let whole = h.flags.contains(DataFlags::BEGIN) && h.flags.contains(DataFlags::END);
                if ssn == next && alone && whole {
                    self.streams[stream].pending.pop_first();
                    self.deliver(now, h, tsn);
                    self.streams[stream].next_ssn = next.wrapping_add(1);
                    continue;
                }
            }
            // The message's fragments (first, last, how many), read in place.
            let range = (next, 0)..=(next, u32::MAX);
            let mut frags = s.pending.range(range.clone());
            let first = frags.next().map(|(&(_, t), &h)| (t, h));
            let (mut last, mut n) = (first, usize::from(first.is_some()));
            for (&(_, t), &h) in frags {
                last = Some((t, h));
                n += 1;
            }
            let complete = match (first, last) {
                (Some((t0, h0)), Some((t1, h1))) => {
                    h0.flags.contains(DataFlags::BEGIN)
                        && h1.flags.contains(DataFlags::END)
                        && t1.wrapping_sub(t0) as usize + 1 == n
                }
                _ => false,
            };
            if !complete {
                break;
            }
            while let Some((&key, &h)) = self.streams[stream].pending.range(range.clone()).next() {
                self.streams[stream].pending.remove(&key);
                self.deliver(now, h, key.1);
            }
            self.streams[stream].next_ssn = next.wrapping_add(1);
        }
        let s = &mut self.streams[stream];
        match (s.pending.is_empty(), s.blocked_since) {
            (false, None) => s.blocked_since = Some(now),
            (true, Some(t)) => {
                s.hol_blocked_ns += now.saturating_since(t).as_nanos();
                s.blocked_since = None;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::inbound::test_support::{data, inbound};

    #[test]
    fn unordered_fragments_are_reassembled_before_delivery() {
        // RFC 9260 6.9: the receiver reassembles a fragmented user message before
        // delivering it, the U bit only lifts the SSN order. Fragments 100 (first) and
        // 102 (last) arrive, 101 is late: nothing is handed up until it comes, then one
        // 3000-byte message. An unfragmented unordered chunk goes up at once meanwhile.
        let mut r = inbound(100_000, 1);
        let t = SimTime::ZERO;
        let u = DataFlags::UNORDERED;
        r.on_data(t, &data(100, 0, 0, DataFlags::BEGIN | u));
        r.on_data(t, &data(102, 0, 0, DataFlags::END | u));
        r.on_data(t, &data(103, 0, 0, DataFlags::UNFRAGMENTED | u));
        assert_eq!(r.streams[0].delivered_bytes, 1000);
        assert_eq!(r.streams[0].delivered_messages, 1);
        assert_eq!(r.a_rwnd(), 100_000 - 2 * 1016);
        r.on_data(t, &data(101, 0, 0, u));
        assert_eq!(r.streams[0].delivered_bytes, 4000);
        assert_eq!(r.streams[0].delivered_messages, 2);
        assert_eq!(r.a_rwnd(), 100_000);
    }

    #[test]
    fn a_message_whose_tsns_wrap_is_reassembled() {
        // RFC 9260 1.6: TSNs are serial numbers; a three-fragment message at TSNs
        // 2^32 - 2, 2^32 - 1, 0 is one message (6.9), delivered when its last fragment
        // arrives. Fragments kept in plain TSN order would put the last one (TSN 0)
        // first and the stream would wait for a first fragment forever.
        let mut r = Inbound::new(u32::MAX - 1, 100_000, 1, None, Window::ALL, 1468, true);
        let t = SimTime::ZERO;
        r.on_data(t, &data(u32::MAX - 1, 0, 0, DataFlags::BEGIN));
        r.on_data(t, &data(u32::MAX, 0, 0, DataFlags::empty()));
        assert_eq!(r.streams[0].delivered_messages, 0);
        r.on_data(t, &data(0, 0, 0, DataFlags::END));
        assert_eq!(r.cum_tsn, 0);
        assert_eq!(r.streams[0].delivered_messages, 1);
        assert_eq!(r.streams[0].delivered_bytes, 3000);
        // The next message follows normally.
        r.on_data(t, &data(1, 0, 1, DataFlags::UNFRAGMENTED));
        assert_eq!(r.streams[0].delivered_messages, 2);
        assert_eq!(r.a_rwnd(), 100_000);
    }

    #[test]
    fn head_of_line_blocking_is_per_stream() {
        let mut r = inbound(100_000, 2);
        let f = DataFlags::UNFRAGMENTED;
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, f)); // stream 0 ssn 0
        // TSN 101 (stream 1, ssn 0) is lost; 102 (stream 0, ssn 1) still delivers.
        r.on_data(t, &data(102, 0, 1, f));
        r.on_data(t, &data(103, 1, 1, f)); // stream 1 ssn 1 waits for ssn 0
        assert_eq!(r.streams[0].delivered_bytes, 2000);
        assert_eq!(r.streams[1].delivered_bytes, 0);
        assert_eq!(r.a_rwnd(), 100_000 - 1016);
        r.on_data(SimTime::from_nanos(5_000), &data(101, 1, 0, f));
        assert_eq!(r.streams[1].delivered_bytes, 2000);
        assert_eq!(r.streams[1].hol_blocked_ns, 5_000);
        assert_eq!(r.a_rwnd(), 100_000);
        assert_eq!(r.cum_tsn, 103);
    }

    #[test]
    fn fragments_are_delivered_as_one_message() {
        let mut r = inbound(100_000, 1);
        let t = SimTime::ZERO;
        r.on_data(t, &data(100, 0, 0, DataFlags::BEGIN));
        r.on_data(t, &data(102, 0, 0, DataFlags::END));
        assert_eq!(r.delivered_total, 0);
        r.on_data(t, &data(101, 0, 0, DataFlags::empty()));
        assert_eq!(r.delivered_total, 3000);
        assert_eq!(r.streams[0].delivered_messages, 1);
    }
}
