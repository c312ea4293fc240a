//! Real message bytes for the association's DATA chunks (the simulator's chunks carry a
//! length only) in the test-message format of CONTRACTS.md "Live mode": message k of
//! stream s (k counted per stream from 0) has bytes 0..3 = k big-endian and byte
//! i >= 4 = (s + i) mod 256.
//!
//! Sending: the association cuts messages into chunks with consecutive TSNs (RFC 9260
//! 6.9), so the first transmission of each TSN fixes which message and which offset
//! it carries; retransmissions look the TSN up again.
//!
//! Receiving: chunks are kept by TSN and handed on in TSN order. Because a message's
//! fragments have consecutive TSNs and each stream's messages take increasing TSNs,
//! TSN order is also every stream's message order, so a message arriving with a k
//! other than its stream's next one is out of order (or the peer numbered it wrong).

use super::wire::DataAt;
use crate::net::wire::DataFlags;
use std::collections::{BTreeMap, VecDeque};

/// Byte `i` of message `k` on stream `s`.
#[inline]
pub fn message_byte(k: u32, stream: u16, i: u64) -> u8 {
    if i < 4 {
        k.to_be_bytes()[i as usize]
    } else {
        ((u64::from(stream) + i) % 256) as u8
    }
}

/// Writes bytes `offset..offset + out.len()` of message `k` on `stream` into `out`.
pub fn fill(out: &mut [u8], k: u32, stream: u16, offset: u64) {
    for (j, b) in out.iter_mut().enumerate() {
        *b = message_byte(k, stream, offset + j as u64);
    }
}

/// True if `data` is the whole message `k` of `stream`.
pub fn is_message(data: &[u8], k: u32, stream: u16) -> bool {
    data.iter()
        .enumerate()
        .all(|(i, &b)| b == message_byte(k, stream, i as u64))
}

#[derive(Clone, Copy, Debug, Default)]
struct SentChunk {
    k: u32,
    stream: u16,
    offset: u64,
    len: u32,
    acked: bool,
}

/// What message and offset each TSN the local end sent carries.
#[derive(Default)]
pub struct PayloadSender {
    /// TSN of `chunks[0]`.
    base: u32,
    chunks: VecDeque<SentChunk>,
    next_k: Vec<u32>,
    /// Per stream: the message being cut and the offset of its next fragment. A
    /// message's fragments take increasing TSNs, but with I-DATA other streams'
    /// fragments may lie between them (RFC 8260 sec. 2.1).
    cutting: Vec<Option<(u32, u64)>>,
    started: bool,
    acked_bytes: u64,
}

impl PayloadSender {
    /// Fills the payload of DATA chunk `tsn` (on `stream`, first fragment if `begin`).
    /// Returns false if the chunk cannot be placed (a TSN already forgotten, or a
    /// middle fragment whose predecessor was never seen); the payload is then left as
    /// it is.
    pub fn fill_chunk(&mut self, out: &mut [u8], tsn: u32, stream: u16, begin: bool) -> bool {
        if !self.started {
            self.started = true;
            self.base = tsn;
        }
        let idx = tsn.wrapping_sub(self.base) as usize;
        if idx > self.chunks.len() || (idx as i32) < 0 {
            return false;
        }
        if idx == self.chunks.len() {
            let s = usize::from(stream);
            if self.next_k.len() <= s {
                // Bounded by the 65536 stream identifiers.
                self.next_k.resize(s + 1, 0);
                self.cutting.resize(s + 1, None);
            }
            let (k, offset) = if begin {
                let k = self.next_k[s];
                self.next_k[s] = k.wrapping_add(1);
                (k, 0)
            } else {
                let Some(at) = self.cutting[s] else {
                    return false;
                };
                at
            };
            let len = out.len() as u32;
            self.cutting[s] = Some((k, offset + u64::from(len)));
            self.chunks.push_back(SentChunk {
                k,
                stream,
                offset,
                len,
                acked: false,
            });
        }
        let c = self.chunks[idx];
        fill(out, c.k, c.stream, c.offset);
        true
    }

    /// The peer acknowledged every TSN up to `cum_ack`: count their bytes and forget
    /// them, but keep the last one (the next TSN's index counts from it).
    pub fn acked(&mut self, cum_ack: u32) {
        let upto = cum_ack.wrapping_sub(self.base) as i32;
        if upto < 0 {
            return;
        }
        let upto = (upto as usize).min(self.chunks.len().saturating_sub(1));
        for c in self.chunks.iter_mut().take(upto + 1) {
            if !c.acked {
                c.acked = true;
                self.acked_bytes += u64::from(c.len);
            }
        }
        while self.chunks.len() > 1 && self.chunks[0].acked {
            self.chunks.pop_front();
            self.base = self.base.wrapping_add(1);
        }
    }

    /// User data bytes cumulatively acknowledged.
    pub fn acked_bytes(&self) -> u64 {
        self.acked_bytes
    }

    /// Messages begun on each stream, indexed by stream id.
    pub fn messages_per_stream(&self) -> &[u32] {
        &self.next_k
    }
}

#[derive(Default)]
struct Held {
    stream: u16,
    begin: bool,
    end: bool,
    unordered: bool,
    /// A TSN the machine acknowledged but discarded (a stream it does not have, RFC
    /// 9260 6.5): it only fills its place in the TSN order.
    discarded: bool,
    /// A TSN the peer abandoned (PR-SCTP): the cumulative TSN passed it by a FORWARD
    /// TSN (RFC 3758 3.6) and no chunk of it came.
    skipped: bool,
    /// I-DATA: the Message Identifier (RFC 8260 sec. 2.1).
    mid: Option<u32>,
    data: Vec<u8>,
}

/// Messages received, checked against the test-message format.
#[derive(Default)]
pub struct PayloadReceiver {
    /// TSN of `held[0]`: the next one to hand on.
    next_tsn: u32,
    started: bool,
    held: VecDeque<Option<Held>>,
    held_bytes: u64,
    /// Buffers of chunks already handed on, reused for new ones.
    free: Vec<Vec<u8>>,
    /// The message being put together (fragments so far) and its stream.
    partial: Vec<u8>,
    partial_stream: Option<u16>,
    expected_k: Vec<u32>,
    pub messages: u64,
    pub bytes: u64,
    /// Messages per stream, indexed by stream id.
    pub per_stream: Vec<u64>,
    /// Messages out of order within their stream or with wrong content, and
    /// fragments that do not form a message.
    pub errors: u64,
    /// Chunks refused because the store was full.
    pub overflow: u64,
    /// I-DATA (RFC 8260): messages of different streams may interleave their
    /// fragments, so each stream puts its own message together (`partials`); a
    /// stream's fragments still come in TSN order.
    pub interleave: bool,
    /// With `interleave`: per stream, the message being put together and its MID.
    partials: BTreeMap<u16, (u32, Vec<u8>)>,
    partial_bytes: u64,
    /// PR-SCTP (RFC 3758) offered: the peer may abandon messages, so a message whose
    /// fragments stop, and a message number that skips ahead within its stream, are
    /// abandoned messages, not errors (a number going back still is one).
    pub pr: bool,
    /// TSNs passed by the peer's FORWARD TSN without a chunk, messages of the test
    /// numbering never delivered (abandoned), and fragments of abandoned messages
    /// received and dropped.
    pub skipped_tsns: u64,
    pub skipped_messages: u64,
    pub abandoned_fragments: u64,
}

/// Most chunks kept ahead of the next TSN to hand on; far more than any a_rwnd allows.
const MAX_AHEAD: usize = 1 << 20;
/// Bytes of partly received I-DATA messages kept over all streams: a peer that begins
/// messages on every stream and never ends them cannot grow the store beyond this.
const RECEIVE_PARTIAL_CAP: u64 = 64 << 20;

impl PayloadReceiver {
    /// `initial_tsn`: the peer's initial TSN, from its INIT or INIT ACK.
    pub fn new(initial_tsn: u32) -> Self {
        PayloadReceiver {
            next_tsn: initial_tsn,
            started: true,
            ..PayloadReceiver::default()
        }
    }

    pub fn started(&self) -> bool {
        self.started
    }

    /// Bytes waiting for an earlier TSN.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// DATA chunk `tsn` was acknowledged but its data discarded (RFC 9260 6.5): no
    /// message of it, the TSNs after it are handed on past it.
    pub fn on_discarded(&mut self, tsn: u32) {
        let off = tsn.wrapping_sub(self.next_tsn) as i32;
        if off < 0 || off as usize >= MAX_AHEAD {
            return;
        }
        let i = off as usize;
        while self.held.len() <= i {
            self.held.push_back(None);
        }
        if self.held[i].is_none() {
            self.held[i] = Some(Held {
                discarded: true,
                ..Held::default()
            });
            self.deliver();
        }
    }

    /// The peer's cumulative TSN as this end's machine has it (after a FORWARD TSN or
    /// I-FORWARD-TSN): every TSN up to it that never came was abandoned (RFC 3758 3.6).
    pub fn skip_to(&mut self, cum: u32) {
        let upto = cum.wrapping_sub(self.next_tsn) as i32;
        if upto < 0 {
            return;
        }
        let n = (upto as usize + 1).min(MAX_AHEAD);
        while self.held.len() < n {
            self.held.push_back(None);
        }
        for slot in self.held.iter_mut().take(n) {
            if slot.is_none() {
                *slot = Some(Held {
                    discarded: true,
                    skipped: true,
                    ..Held::default()
                });
                self.skipped_tsns += 1;
            }
        }
        self.deliver();
    }

    /// Stores a DATA or I-DATA chunk found in a packet (`wire::for_each_data`).
    pub fn on_data_at(&mut self, d: &DataAt, payload: &[u8], cap: u64) {
        let flags = DataFlags::from_bits(d.flags);
        let held = Held {
            stream: d.stream,
            begin: flags.contains(DataFlags::BEGIN),
            end: flags.contains(DataFlags::END),
            unordered: flags.contains(DataFlags::UNORDERED),
            discarded: false,
            skipped: false,
            mid: d.mid,
            data: Vec::new(),
        };
        self.store(d.tsn, held, payload, cap);
    }

    /// Stores DATA chunk `tsn`'s payload if it is new; `cap` bounds the bytes held.
    #[allow(clippy::too_many_arguments)]
    pub fn on_chunk(
        &mut self,
        tsn: u32,
        stream: u16,
        begin: bool,
        end: bool,
        unordered: bool,
        payload: &[u8],
        cap: u64,
    ) {
        let held = Held {
            stream,
            begin,
            end,
            unordered,
            discarded: false,
            skipped: false,
            mid: None,
            data: Vec::new(),
        };
        self.store(tsn, held, payload, cap);
    }

    fn store(&mut self, tsn: u32, mut held: Held, payload: &[u8], cap: u64) {
        let off = tsn.wrapping_sub(self.next_tsn) as i32;
        if off < 0 {
            return; // already handed on
        }
        let i = off as usize;
        if i >= MAX_AHEAD || self.held_bytes + payload.len() as u64 > cap {
            self.overflow += 1;
            return;
        }
        while self.held.len() <= i {
            self.held.push_back(None);
        }
        if self.held[i].is_some() {
            return;
        }
        let mut data = self.free.pop().unwrap_or_default();
        data.clear();
        data.extend_from_slice(payload);
        self.held_bytes += data.len() as u64;
        held.data = data;
        self.held[i] = Some(held);
        self.deliver();
    }

    fn deliver(&mut self) {
        while let Some(Some(_)) = self.held.front() {
            let Some(Some(h)) = self.held.pop_front() else {
                break;
            };
            self.next_tsn = self.next_tsn.wrapping_add(1);
            self.held_bytes -= h.data.len() as u64;
            if h.skipped && !self.interleave && self.partial_stream.take().is_some() {
                // The message being put together was abandoned.
                self.abandoned_fragments += 1;
            }
            if h.discarded {
                continue;
            }
            if self.interleave {
                self.deliver_interleaved(h);
                continue;
            }
            if h.begin {
                if self.partial_stream.is_some() {
                    // A new message began before the last one ended.
                    self.fragment_fault();
                }
                self.partial.clear();
                self.partial_stream = Some(h.stream);
            } else if self.partial_stream != Some(h.stream) {
                self.fragment_fault();
                self.partial_stream = None;
                self.free.push(h.data);
                continue;
            }
            self.partial.extend_from_slice(&h.data);
            if h.end {
                self.complete(h.stream, h.unordered);
            }
            self.free.push(h.data);
        }
    }

    /// A fragment that does not continue a message: an error, or with PR-SCTP a piece
    /// of a message the peer abandoned.
    fn fragment_fault(&mut self) {
        if self.pr {
            self.abandoned_fragments += 1;
        } else {
            self.errors += 1;
        }
    }

    /// One I-DATA chunk in TSN order: it begins its stream's message or continues the
    /// one of the same MID (RFC 8260 sec. 2.1: a message's fragments carry its MID,
    /// and the sender cuts them in TSN order); anything else is an error.
    fn deliver_interleaved(&mut self, h: Held) {
        let mid = h.mid.unwrap_or(0);
        if h.begin {
            if let Some((_, old)) = self.partials.remove(&h.stream) {
                // A new message began before the stream's last one ended.
                self.fragment_fault();
                self.partial_bytes -= old.len() as u64;
                self.free.push(old);
            }
            let mut buf = self.free.pop().unwrap_or_default();
            buf.clear();
            self.partials.insert(h.stream, (mid, buf));
        }
        let Some((pmid, buf)) = self.partials.get_mut(&h.stream) else {
            // A fragment of no message begun on its stream.
            self.fragment_fault();
            self.free.push(h.data);
            return;
        };
        if *pmid != mid || self.partial_bytes + h.data.len() as u64 > RECEIVE_PARTIAL_CAP {
            // Another message's fragment, or a message beyond any a test sends.
            if *pmid != mid {
                self.fragment_fault();
            } else {
                self.errors += 1;
            }
            if let Some((_, old)) = self.partials.remove(&h.stream) {
                self.partial_bytes -= old.len() as u64;
                self.free.push(old);
            }
            self.free.push(h.data);
            return;
        }
        buf.extend_from_slice(&h.data);
        self.partial_bytes += h.data.len() as u64;
        self.free.push(h.data);
        if h.end {
            if let Some((_, whole)) = self.partials.remove(&h.stream) {
                self.partial_bytes -= whole.len() as u64;
                // `complete` checks `self.partial`: lend it the whole message.
                let saved = std::mem::replace(&mut self.partial, whole);
                self.complete(h.stream, h.unordered);
                let whole = std::mem::replace(&mut self.partial, saved);
                self.free.push(whole);
            }
        }
    }

    fn complete(&mut self, stream: u16, unordered: bool) {
        self.partial_stream = None;
        let s = usize::from(stream);
        if self.per_stream.len() <= s {
            self.per_stream.resize(s + 1, 0);
            self.expected_k.resize(s + 1, 0);
        }
        let mut k = if unordered {
            // No order to check: the message's own number.
            let mut b = [0u8; 4];
            for (j, x) in self.partial.iter().take(4).enumerate() {
                b[j] = *x;
            }
            u32::from_be_bytes(b)
        } else {
            self.expected_k[s]
        };
        if self.pr && !unordered {
            // Abandoned messages leave gaps in a stream's numbering (RFC 3758 3.6).
            let mut b = [0u8; 4];
            for (j, x) in self.partial.iter().take(4).enumerate() {
                b[j] = *x;
            }
            let got = u32::from_be_bytes(b);
            if got > k && is_message(&self.partial, got, stream) {
                self.skipped_messages += u64::from(got - k);
                self.expected_k[s] = got;
                k = got;
            }
        }
        if !is_message(&self.partial, k, stream) {
            self.errors += 1;
        }
        self.expected_k[s] = self.expected_k[s].wrapping_add(1);
        self.per_stream[s] += 1;
        self.messages += 1;
        self.bytes += self.partial.len() as u64;
    }

    /// Fragments received but never completed count as errors at the end.
    pub fn finish(&mut self) {
        if self.partial_stream.take().is_some() {
            self.fragment_fault();
        }
        if self.pr {
            self.abandoned_fragments += self.partials.len() as u64;
        } else {
            self.errors += self.partials.len() as u64;
        }
        self.partials.clear();
        self.partial_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_message_format() {
        // CONTRACTS.md: message k = 258 (0x00000102) of stream 3: bytes 0..3 =
        // 00 00 01 02, then byte i = (3 + i) mod 256: 7, 8, ..., and byte 253 wraps to 0.
        let mut m = vec![0u8; 300];
        fill(&mut m, 258, 3, 0);
        assert_eq!(&m[..6], &[0, 0, 1, 2, 7, 8]);
        assert_eq!(m[253], 0);
        assert_eq!(m[299], ((3 + 299) % 256) as u8);
        assert!(is_message(&m, 258, 3));
        assert!(!is_message(&m, 257, 3));
        assert!(!is_message(&m, 258, 2));
    }

    /// Sends `n` messages of `size` bytes round-robin over `streams`, cut into chunks of
    /// at most `max` bytes; returns (tsn, stream, begin, end, payload).
    fn cut(n: u32, size: usize, streams: u16, max: usize) -> Vec<(u32, u16, bool, bool, Vec<u8>)> {
        let mut s = PayloadSender::default();
        let mut out = Vec::new();
        let mut tsn = 100u32;
        for m in 0..n {
            let stream = (m % u32::from(streams)) as u16;
            let mut left = size;
            let mut first = true;
            while left > 0 {
                let len = left.min(max);
                let mut buf = vec![0u8; len];
                assert!(s.fill_chunk(&mut buf, tsn, stream, first));
                left -= len;
                out.push((tsn, stream, first, left == 0, buf));
                first = false;
                tsn += 1;
            }
        }
        out
    }

    #[test]
    fn a_discarded_tsn_is_stepped_over() {
        // TSN 99 named a stream the machine lacks (RFC 9260 6.5): acknowledged, data
        // discarded. TSN 100, message 0 of stream 0, arrived first and waits for it;
        // once 99 is known discarded it is handed on: one message, no error.
        let mut r = PayloadReceiver::new(99);
        let mut m = vec![0u8; 50];
        fill(&mut m, 0, 0, 0);
        r.on_chunk(100, 0, true, true, false, &m, u64::MAX);
        assert_eq!((r.messages, r.held_bytes()), (0, 50));
        r.on_discarded(99);
        r.on_discarded(99);
        r.finish();
        assert_eq!((r.messages, r.bytes, r.errors), (1, 50, 0));
        assert_eq!(r.held_bytes(), 0);
    }

    #[test]
    fn fragments_reassemble_in_any_arrival_order() {
        let chunks = cut(12, 2500, 4, 1000);
        assert_eq!(chunks.len(), 36);
        let mut r = PayloadReceiver::new(100);
        // Arrival order: odd positions first, then even ones backwards, with duplicates.
        let mut order: Vec<usize> = (0..36).filter(|i| i % 2 == 1).collect();
        order.extend((0..36).filter(|i| i % 2 == 0).rev());
        order.extend([3, 5, 0]);
        for i in order {
            let (tsn, st, b, e, ref p) = chunks[i];
            r.on_chunk(tsn, st, b, e, false, p, u64::MAX);
        }
        r.finish();
        assert_eq!((r.messages, r.bytes, r.errors), (12, 12 * 2500, 0));
        assert_eq!(r.per_stream, vec![3, 3, 3, 3]);
        assert_eq!(r.held_bytes(), 0);
    }

    #[test]
    fn retransmission_carries_the_same_bytes() {
        let mut s = PayloadSender::default();
        let mut a = vec![0u8; 10];
        let mut b = vec![0u8; 10];
        assert!(s.fill_chunk(&mut a, 7, 1, true));
        assert!(s.fill_chunk(&mut [0u8; 10], 8, 1, false));
        assert!(s.fill_chunk(&mut b, 7, 1, true));
        assert_eq!(a, b);
        s.acked(7);
        let mut c = vec![0u8; 10];
        assert!(s.fill_chunk(&mut c, 9, 1, false), "offset follows TSN 8");
        // Byte 20 of message 0 on stream 1: (1 + 20) mod 256 = 21.
        assert_eq!(c[0], 21);
        assert!(
            !s.fill_chunk(&mut [0u8; 4], 7, 1, true),
            "TSN 7 is forgotten"
        );
        assert!(
            !s.fill_chunk(&mut [0u8; 4], 20, 1, true),
            "TSN 20 skips ahead"
        );
    }

    /// I-DATA (RFC 8260 sec. 2.1): two streams' 2500-byte messages cut at 1000 bytes
    /// with their fragments interleaved in TSN order (stream 0 at TSNs 1, 3, 5; stream
    /// 1 at 2, 4, 6), arriving backwards: both messages whole, no error. Then a
    /// fragment under another MID than its stream's message, and a middle fragment of
    /// no message: two errors.
    #[test]
    fn interleaved_fragments_are_put_together_per_stream() {
        let mut r = PayloadReceiver::new(1);
        r.interleave = true;
        let mut m0 = vec![0u8; 2500];
        let mut m1 = vec![0u8; 2500];
        fill(&mut m0, 0, 0, 0);
        fill(&mut m1, 0, 1, 0);
        let at = |tsn: u32, stream: u16, flags: DataFlags, mid: u32| DataAt {
            tsn,
            stream,
            flags: flags.bits(),
            ssn: 0,
            mid: Some(mid),
            start: 0,
            end: 0,
        };
        let (b, e, none) = (DataFlags::BEGIN, DataFlags::END, DataFlags::empty());
        let chunks = [
            (at(1, 0, b, 0), &m0[..1000]),
            (at(2, 1, b, 0), &m1[..1000]),
            (at(3, 0, none, 0), &m0[1000..2000]),
            (at(4, 1, none, 0), &m1[1000..2000]),
            (at(5, 0, e, 0), &m0[2000..]),
            (at(6, 1, e, 0), &m1[2000..]),
        ];
        for (d, p) in chunks.iter().rev() {
            r.on_data_at(d, p, u64::MAX);
        }
        assert_eq!((r.messages, r.bytes, r.errors), (2, 5000, 0));
        assert_eq!(r.per_stream, vec![1, 1]);
        // Message 1 of stream 0 (MID 1) begins; a fragment of MID 7 cannot join it.
        let mut m = vec![0u8; 2000];
        fill(&mut m, 1, 0, 0);
        r.on_data_at(&at(7, 0, b, 1), &m[..1000], u64::MAX);
        r.on_data_at(&at(8, 0, e, 7), &m[1000..], u64::MAX);
        r.on_data_at(&at(9, 1, e, 1), &m[1000..], u64::MAX);
        r.finish();
        assert_eq!((r.messages, r.errors), (2, 2));
        assert_eq!(r.held_bytes(), 0);
    }

    /// PR-SCTP: stream 0's messages 0, 1, 2 at TSNs 1-2, 3-4, 5; the peer abandoned
    /// message 1 after its first fragment (TSN 4 never comes) and a FORWARD TSN moved
    /// the cumulative TSN to 4: messages 0 and 2 delivered, one skipped, no error.
    #[test]
    fn abandoned_tsns_are_stepped_over() {
        let mut r = PayloadReceiver::new(1);
        r.pr = true;
        let chunks = cut(3, 1500, 1, 1000);
        let mut c = chunks
            .into_iter()
            .map(|(tsn, st, b, e, p)| (tsn - 99, st, b, e, p));
        let (m0a, m0b, m1a, _m1b, m2a, m2b) = (
            c.next().expect("0a"),
            c.next().expect("0b"),
            c.next().expect("1a"),
            c.next().expect("1b"),
            c.next().expect("2a"),
            c.next().expect("2b"),
        );
        for (tsn, st, b, e, p) in [m0a, m0b, m1a] {
            r.on_chunk(tsn, st, b, e, false, &p, u64::MAX);
        }
        r.skip_to(4);
        for (tsn, st, b, e, p) in [m2a, m2b] {
            r.on_chunk(tsn, st, b, e, false, &p, u64::MAX);
        }
        r.finish();
        assert_eq!((r.messages, r.errors), (2, 0));
        assert_eq!(
            (r.skipped_tsns, r.skipped_messages, r.abandoned_fragments),
            (1, 1, 1)
        );
    }

    #[test]
    fn wrong_order_and_content_are_errors() {
        let mut r = PayloadReceiver::new(1);
        let mut m0 = vec![0u8; 8];
        let mut m1 = vec![0u8; 8];
        fill(&mut m0, 0, 0, 0);
        fill(&mut m1, 1, 0, 0);
        // Stream 0's message 1 at TSN 1 and message 0 at TSN 2: both out of order.
        r.on_chunk(1, 0, true, true, false, &m1, u64::MAX);
        r.on_chunk(2, 0, true, true, false, &m0, u64::MAX);
        // A corrupted byte in message 2.
        let mut m2 = vec![0u8; 8];
        fill(&mut m2, 2, 0, 0);
        m2[6] ^= 1;
        r.on_chunk(3, 0, true, true, false, &m2, u64::MAX);
        assert_eq!((r.messages, r.errors), (3, 3));
        // The cap refuses what does not fit.
        r.on_chunk(10, 0, true, true, false, &m0, 4);
        assert_eq!(r.overflow, 1);
    }
}
