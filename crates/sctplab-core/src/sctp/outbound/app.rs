//! The application side of the sender: messages spread over the streams and cut into
//! chunks.

use super::*;

/// The application: a bulk or finite stream of messages spread over the streams
/// round-robin (seed 001), each cut into chunks of at most `max_payload` bytes.
#[derive(Clone, Debug)]
pub struct AppSource {
    pub total: Option<u64>,
    pub message_size: u64,
    pub unordered: bool,
    produced: u64,
    ssns: Vec<u16>,
    next_stream: usize,
    /// The message being cut: (stream, ssn, bytes left, first chunk not yet cut).
    current: Option<(u16, u16, u64, bool)>,
    stopped: bool,
    /// `stream_traffic`: per-stream sources replace the round-robin messages above.
    pub streams: Option<Box<crate::sctp::streams::StreamSources>>,
    /// RE-CONFIG (sctp/reconfig): no new message is begun while an outgoing stream
    /// reset is pending or in flight (the one being cut is finished).
    pub hold: bool,
    /// I-DATA (RFC 8260 sec. 2.1): per stream the next Message Identifier, and the
    /// (MID, FSN) of the chunk cut last. Messages here go one at a time, so I-DATA
    /// changes only their numbering.
    mids: Vec<u32>,
    ids: (u32, u32),
}

impl AppSource {
    pub fn new(total: Option<u64>, message_size: u64, streams: u16, unordered: bool) -> Self {
        AppSource {
            total,
            message_size: message_size.max(1),
            unordered,
            produced: 0,
            ssns: vec![0; usize::from(streams.max(1))],
            next_stream: 0,
            current: None,
            stopped: false,
            streams: None,
            hold: false,
            mids: vec![0; usize::from(streams.max(1))],
            ids: (0, 0),
        }
    }

    /// A message is partly cut: a stream reset must wait until it is whole.
    pub fn mid_message(&self) -> bool {
        match &self.streams {
            Some(s) => s.mid_message(),
            None => self.current.is_some(),
        }
    }

    /// RFC 6525 5.1.2: after a performed outgoing reset the streams (all if `streams`
    /// is empty) start again at SSN 0; `add` streams are added after the others.
    pub fn reconfigure(&mut self, streams: &[u16], add: u16) {
        if let Some(s) = self.streams.as_mut() {
            return s.reconfigure(streams, add);
        }
        crate::sctp::streams::reset_ssns(&mut self.ssns, streams, add);
        // RFC 8260 sec. 2.3.2: a reset stream's MIDs start again at 0 too.
        if streams.is_empty() {
            self.mids.fill(0);
        }
        for &s in streams {
            if let Some(m) = self.mids.get_mut(usize::from(s)) {
                *m = 0;
            }
        }
        self.mids.resize(self.ssns.len().max(self.mids.len()), 0);
    }

    pub fn set_streams(&mut self, n: u16) {
        self.ssns.truncate(usize::from(n.max(1)));
        self.next_stream %= self.ssns.len();
    }

    pub fn stop(&mut self) {
        self.stopped = true;
        if let Some(s) = self.streams.as_mut() {
            s.stop();
        }
    }

    /// A packet of new data is being started (for the stream scheduler).
    pub(super) fn packet_start(&mut self) {
        if let Some(s) = self.streams.as_mut() {
            s.packet_start();
        }
    }

    pub(super) fn has_data(&self) -> bool {
        if let Some(s) = &self.streams {
            return !s.exhausted();
        }
        self.current.is_some() || (!self.stopped && self.total.is_none_or(|t| self.produced < t))
    }

    pub fn exhausted(&self) -> bool {
        !self.has_data()
    }

    /// Payload of the next chunk if cut at `max_payload`, without cutting it.
    pub(super) fn peek_payload(&mut self, max_payload: u64) -> Option<u64> {
        if self.hold && !self.mid_message() {
            return None;
        }
        if let Some(s) = self.streams.as_mut() {
            s.hold_new = self.hold;
            return s.peek_payload(max_payload);
        }
        match self.current {
            Some((_, _, left, _)) => Some(left.min(max_payload)),
            None if self.has_data() => {
                let size = match self.total {
                    Some(t) => self.message_size.min(t - self.produced),
                    None => self.message_size,
                };
                Some(size.min(max_payload))
            }
            None => None,
        }
    }

    /// (MID, FSN) of the chunk cut last, for I-DATA.
    pub(super) fn last_ids(&self) -> (u32, u32) {
        match &self.streams {
            Some(s) => s.last_ids,
            None => self.ids,
        }
    }

    /// Cuts the next chunk: (stream, ssn, flags, payload bytes).
    pub(super) fn next_chunk(&mut self, max_payload: u64) -> Option<(u16, u16, DataFlags, u32)> {
        if let Some(s) = self.streams.as_mut() {
            if self.hold && !s.mid_message() {
                return None;
            }
            s.hold_new = self.hold;
            return s.next_chunk(max_payload);
        }
        if self.current.is_none() {
            if !self.has_data() || self.hold {
                return None;
            }
            let size = match self.total {
                Some(t) => self.message_size.min(t - self.produced),
                None => self.message_size,
            };
            self.produced += size;
            let stream = self.next_stream;
            self.next_stream = (self.next_stream + 1) % self.ssns.len();
            let ssn = self.ssns[stream];
            self.ssns[stream] = ssn.wrapping_add(1);
            self.current = Some((stream as u16, ssn, size, true));
            if let Some(m) = self.mids.get_mut(stream) {
                self.ids = (*m, 0);
                *m = m.wrapping_add(1);
            }
        } else {
            self.ids.1 = self.ids.1.wrapping_add(1);
        }
        let (stream, ssn, left, first) = self.current?;
        let take = left.min(max_payload);
        let mut flags = DataFlags::empty();
        if first {
            flags = flags.union(DataFlags::BEGIN);
        }
        if take == left {
            flags = flags.union(DataFlags::END);
            self.current = None;
        } else {
            self.current = Some((stream, ssn, left - take, false));
        }
        if self.unordered {
            flags = flags.union(DataFlags::UNORDERED);
        }
        Some((
            stream,
            if self.unordered { 0 } else { ssn },
            flags,
            take as u32,
        ))
    }
}
