//! The receiving half with I-DATA (RFC 8260 sec. 2.2.3): TSNs, duplicates, the
//! receive window and the SACK are DATA's (`on_data`); what differs is that the
//! fragments are reassembled by (stream, MID, FSN) in `idata.rs`, so messages whose
//! fragments were interleaved on the wire are delivered as each completes. There
//! is partial delivery of ordered messages when the buffer is full (`idata_pd.rs`).

use super::idata::{Fragment, IDataReassembly, Message};
use super::*;
use crate::net::wire::sctp_idata::{IDataChunk, SkippedMessage};

impl Inbound {
    /// Handles one I-DATA chunk; returns whether it was accepted (new and buffered).
    pub fn on_idata(&mut self, now: SimTime, d: &IDataChunk) -> bool {
        if usize::from(d.stream) >= self.streams.len() {
            let as_data = DataChunk {
                tsn: d.tsn,
                stream: d.stream,
                ssn: 0,
                ppid: 0,
                flags: d.flags,
                payload_len: d.payload_len,
            };
            return self.on_data_invalid_stream(&as_data);
        }
        let chunk_len = IDataChunk::len_for(d.payload_len as usize) as u32;
        // As `on_data`, with I-DATA's partial delivery.
        let Some(off) = self.admit(now, d.tsn, chunk_len, Self::start_idata_partial_delivery)
        else {
            return false;
        };
        let held = Held {
            stream: d.stream,
            flags: d.flags,
            chunk_len,
            payload: d.payload_len,
        };
        self.mark_received(off, d.tsn, held);
        self.advance_cum_tsn();
        let n = self.streams.len() as u16;
        let r = self
            .idata
            .get_or_insert_with(|| Box::new(IDataReassembly::new(n)));
        let frag = Fragment {
            tsn: d.tsn,
            stream: d.stream,
            mid: d.mid,
            fsn: d.fsn(),
            flags: d.flags,
            payload: d.payload_len,
        };
        let mut out = std::mem::take(&mut self.idata_out);
        // A fragment not kept (a message already delivered or skipped, a duplicate
        // FSN, a contradiction) fills its TSN but holds no buffer.
        if r.on_fragment(&frag, &mut out) {
            self.held += u64::from(chunk_len);
        }
        for m in out.drain(..) {
            self.deliver_message(now, m);
        }
        self.idata_out = out;
        true
    }

    /// An I-FORWARD-TSN's entries (the cumulative TSN has moved already).
    pub fn on_idata_skip(&mut self, now: SimTime, skipped: &[SkippedMessage]) {
        let Some(r) = self.idata.as_mut() else {
            return;
        };
        let (bytes0, frags0) = (r.held_bytes, r.fragments_skipped);
        let mut out = Vec::new();
        r.on_skip(skipped, &mut out);
        // What left the reassembly: messages delivered, and the skipped fragments,
        // whose buffer (payload and headers) is free again.
        let delivered: u64 = out.iter().map(|m| m.bytes).sum();
        let skipped_payload = bytes0.saturating_sub(r.held_bytes + delivered);
        let frags = r.fragments_skipped - frags0;
        let hdr = IDataChunk::HEADER_LEN as u64;
        self.held = self.held.saturating_sub(skipped_payload + frags * hdr);
        self.chunks_skipped += frags;
        for m in out {
            self.deliver_message(now, m);
        }
    }

    /// Hands whole message `m` to the application: its fragments' buffer is free.
    pub(super) fn deliver_message(&mut self, now: SimTime, m: Message) {
        let hdr = IDataChunk::HEADER_LEN as u64;
        self.held = self
            .held
            .saturating_sub(m.bytes + u64::from(m.fragments) * hdr);
        let end = m.ends.then(|| m.last_tsn.wrapping_sub(self.initial_tsn));
        self.hand_up(now, m.stream, m.bytes, end);
    }

    /// The buffer is full: a message is handed up in parts to make room (RFC 8260
    /// sec. 2 with RFC 9260 sec. 6.9; `idata_pd.rs`). Whether buffer space was freed.
    fn start_idata_partial_delivery(&mut self, now: SimTime) -> bool {
        let Some(r) = self.idata.as_mut() else {
            return false;
        };
        let mut out = std::mem::take(&mut self.idata_out);
        let held = self.held;
        if r.start_partial(self.cum_tsn, &mut out) {
            self.partial_deliveries += 1;
        }
        for m in out.drain(..) {
            self.deliver_message(now, m);
        }
        self.idata_out = out;
        self.held < held
    }

    /// I-DATA fragments dropped as contradicting their message (summary.json).
    pub fn idata_malformed(&self) -> u64 {
        self.idata.as_ref().map_or(0, |r| r.malformed)
    }
}
