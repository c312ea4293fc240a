//! The receiving half of an association (RFC 9260 sec. 6.2, 6.5, 6.6, 6.7): TSN
//! bookkeeping, the receive buffer and a_rwnd, per-stream ordered delivery with message
//! reassembly, duplicate TSNs, and when to send a SACK.
//!
//! The buffer follows ns-2.35's Agent/SCTP: an accepted chunk takes its length (header
//! included) from the window until it is delivered to the application, which consumes
//! at once; a chunk that does not fit is dropped without a SACK. Out-of-order chunks of
//! one stream hold buffer space while other streams keep delivering (head-of-line
//! blocking is per stream).

use crate::metrics::Window;
use crate::net::wire::{DataChunk, DataFlags, SackChunk};
use crate::sim::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

mod forward_tsn;
pub(super) mod gap_runs;
pub mod idata;
mod idata_rx;
mod nr_sack;
mod tsn_reset;

#[derive(Clone, Copy, Debug)]
struct Held {
    stream: u16,
    flags: DataFlags,
    chunk_len: u32,
    payload: u32,
}

#[derive(Clone, Debug, Default)]
pub struct StreamIn {
    next_ssn: u16,
    /// Buffered ordered chunks by SSN, then TSN relative to the peer's initial TSN
    /// (fragments of one message; relative, so a message whose TSNs wrap past 2^32
    /// keeps its fragments in order).
    pending: BTreeMap<(u16, u32), Held>,
    blocked_since: Option<SimTime>,
    /// Partial delivery of the message at `next_ssn` under way: the relative TSN of its
    /// next fragment to hand up (RFC 9260 6.9).
    partial: Option<u32>,
    /// Fragments of unordered messages by relative TSN, until a message is whole
    /// (RFC 9260 6.9: reassembled like any other; delivered whatever its SSN).
    unordered: BTreeMap<u32, Held>,
    /// Partial delivery of an unordered message under way: its next relative TSN.
    unordered_partial: Option<u32>,
    pub hol_blocked_ns: u64,
    pub delivered_bytes: u64,
    pub delivered_messages: u64,
}

pub struct Inbound {
    pub cum_tsn: u32,
    /// Received state of TSNs cum+1, cum+2, ... (None: missing).
    above: VecDeque<Option<Held>>,
    dups: Vec<u32>,
    buffer: u64,
    held: u64,
    pub streams: Vec<StreamIn>,
    window: Window,
    pub delivered_bytes: u64,
    pub delivered_total: u64,
    /// Highest TSN received, relative to the initial TSN (seed 001's goodput).
    pub highest_tsn: u32,
    initial_tsn: u32,
    pub dropped_no_buffer: u64,
    /// With `stream_traffic`: (stream, relative TSN of the last chunk, delivery time)
    /// of every message delivered in the measurement window, for the delay statistics.
    pub msg_log: Option<Vec<(u16, u32, SimTime)>>,
    /// FORWARD TSN chunks received, and the chunks they made this end discard.
    pub forward_tsns: u64,
    pub chunks_skipped: u64,
    /// DATA chunks for a stream this end does not have: acknowledged and discarded
    /// (RFC 9260 6.5).
    pub invalid_stream_chunks: u64,
    /// DATA chunks dropped because their TSN lies further beyond the cumulative TSN
    /// than `max_ahead` (see `Inbound::new`).
    pub dropped_beyond_window: u64,
    max_ahead: i64,
    /// Times a message was started in parts to make room (RFC 9260 6.9).
    pub partial_deliveries: u64,
    /// I-DATA reassembly (`idata_rx.rs`), from the first I-DATA chunk on.
    idata: Option<Box<idata::IDataReassembly>>,
    idata_out: Vec<idata::Message>,
    // SACK policy.
    delayed: Option<SimDuration>,
    packets_unacked: u32,
    pub sack_deadline: Option<SimTime>,
    sack_now: bool,
    first_data_seen: bool,
    max_chunk_room: usize,
    /// RFC 9260 6.2 (true) or ns-2.35 (false) for a chunk dropped for want of space.
    sack_on_drop: bool,
    /// ns-2.35: a chunk of the packet being handled was dropped for want of space after
    /// the last chunk that asked for a SACK.
    drop_cancels_sack: bool,
    /// CMT's delayed ack (`set_cmt_dac`): SACKs wait for the second packet or the timer
    /// even with gaps, and carry the packets they acknowledge in their flags.
    cmt_dac: bool,
    /// The pending SACK is the delayed-SACK timer's.
    sack_by_timer: bool,
    /// The received runs above the cumulative TSN (`gap_runs.rs`): a SACK's gap
    /// blocks without a walk over `above`.
    runs: gap_runs::GapRuns,
    /// NR-SACK (`nr_sack.rs`): relative TSNs above the cumulative TSN already delivered.
    nr_delivered: Option<std::collections::BTreeSet<u32>>,
}

/// The furthest TSN beyond the cumulative TSN a receive buffer of `buffer` bytes can
/// be asked to hold: every TSN in between is outstanding at the sender or held here,
/// and each DATA chunk is at least 17 bytes (16 of header and one of user data, RFC
/// 9260 3.3.1), so no sender keeping to the advertised window goes further. Never less
/// than the 4096 TSNs of Linux's and usrsctp's fixed mapping arrays
/// (`SCTP_TSN_MAP_SIZE`, `SCTP_MAPPING_ARRAY` bits), so a small buffer does not refuse
/// what real stacks accept. Beyond it a chunk would only cost memory (one entry per
/// TSN in between): 2^30 TSNs ahead used to ask for 16 GiB.
fn max_tsns_ahead(buffer: u64) -> i64 {
    let min_chunk = DataChunk::len_for(1) as u64;
    (buffer / min_chunk).clamp(4096, i32::MAX as u64) as i64
}

impl StreamIn {
    /// RE-CONFIG (RFC 6525 5.2.2): the stream's next expected SSN is 0 again.
    pub fn reset_ssn(&mut self) {
        self.next_ssn = 0;
    }

    /// Whether ordered chunks of SSN `ssn` are held. The keys are ordered by SSN as a
    /// plain number: a first key above `ssn` answers without a search by range (the
    /// usual case while a hole holds a stream back, CMT's paths reordering).
    fn holds(&self, ssn: u16) -> bool {
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
    pub fn new(
        peer_initial_tsn: u32,
        buffer: u64,
        streams: u16,
        delayed: Option<SimDuration>,
        window: Window,
        max_chunk_room: usize,
        sack_on_drop: bool,
    ) -> Self {
        Inbound {
            cum_tsn: peer_initial_tsn.wrapping_sub(1),
            runs: gap_runs::GapRuns::default(),
            above: VecDeque::new(),
            dups: Vec::new(),
            buffer,
            held: 0,
            streams: vec![StreamIn::default(); usize::from(streams.max(1))],
            window,
            delivered_bytes: 0,
            delivered_total: 0,
            highest_tsn: 0,
            initial_tsn: peer_initial_tsn,
            msg_log: None,
            forward_tsns: 0,
            chunks_skipped: 0,
            dropped_no_buffer: 0,
            invalid_stream_chunks: 0,
            dropped_beyond_window: 0,
            max_ahead: max_tsns_ahead(buffer),
            partial_deliveries: 0,
            idata: None,
            idata_out: Vec::new(),
            delayed,
            packets_unacked: 0,
            sack_deadline: None,
            sack_now: false,
            first_data_seen: false,
            max_chunk_room,
            sack_on_drop,
            drop_cancels_sack: false,
            cmt_dac: false,
            sack_by_timer: false,
            nr_delivered: None,
        }
    }

    pub fn a_rwnd(&self) -> u32 {
        self.buffer
            .saturating_sub(self.held)
            .min(u64::from(u32::MAX)) as u32
    }

    fn offset(&self, tsn: u32) -> i64 {
        i64::from(tsn.wrapping_sub(self.cum_tsn) as i32)
    }

    /// How far beyond the cumulative TSN a DATA chunk may lie (see `max_tsns_ahead`).
    pub fn max_ahead(&self) -> u32 {
        self.max_ahead as u32
    }

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
    fn admit(
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
    fn on_data_invalid_stream(&mut self, d: &DataChunk) -> bool {
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
    fn mark_received(&mut self, off: i64, tsn: u32, held: Held) {
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
    fn advance_cum_tsn(&mut self) {
        while let Some(Some(_)) = self.above.front() {
            self.above.pop_front();
            self.cum_tsn = self.cum_tsn.wrapping_add(1);
        }
        self.runs.trim(self.cum_tsn);
    }

    /// Hands chunk `h` (relative TSN `rel`) to the application.
    fn deliver(&mut self, now: SimTime, h: Held, rel: u32) {
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
    fn hand_up(&mut self, now: SimTime, stream: u16, bytes: u64, end_rel: Option<u32>) {
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
    fn deliver_unordered(&mut self, now: SimTime, stream: usize, rel: u32) {
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
    fn deliver_unordered_from(&mut self, now: SimTime, stream: usize, from: u32) {
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

    fn fits(&self, chunk_len: u32) -> bool {
        u64::from(chunk_len) <= self.buffer.saturating_sub(self.held)
    }

    /// RFC 9260 6.9: a receiver out of buffer space while it waits for the rest of a
    /// message "SHOULD dispatch part of its inbound message through a partial delivery
    /// API". The candidate is the first undelivered message of a stream whose first
    /// fragment is in; of several, the one that began at the lowest TSN. Its fragments
    /// are handed up in TSN order as far as they are contiguous, and the rest follows
    /// as it arrives (`deliver_in_order`). Without this, a message larger than the
    /// buffer could never complete and the association would stall for good.
    /// Returns whether buffer space was freed.
    fn start_partial_delivery(&mut self, now: SimTime) -> bool {
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

    /// Delivers whole messages of `stream` in SSN order while the next one is complete,
    /// after the rest of a message being delivered in parts.
    fn deliver_in_order(&mut self, now: SimTime, stream: usize) {
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

    /// Closes open head-of-line intervals at the end of the run.
    pub fn finish(&mut self, now: SimTime) {
        for s in &mut self.streams {
            if let Some(t) = s.blocked_since.take() {
                s.hol_blocked_ns += now.saturating_since(t).as_nanos();
            }
        }
    }

    pub fn all_delivered(&self, total: u64) -> bool {
        self.delivered_total >= total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(tsn: u32, stream: u16, ssn: u16, flags: DataFlags) -> DataChunk {
        DataChunk {
            tsn,
            stream,
            ssn,
            ppid: 0,
            flags,
            payload_len: 1000,
        }
    }

    fn inbound(buffer: u64, streams: u16) -> Inbound {
        Inbound::new(100, buffer, streams, None, Window::ALL, 1468, true)
    }

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
