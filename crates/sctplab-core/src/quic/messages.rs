//! `stream_traffic` on a QUIC flow (CONTRACTS.md "Messages", "QUIC"): each source
//! offers messages of its own size on its own unidirectional stream, every `interval`
//! or as a backlog, between its `start` and `stop`. A message is *submitted* when its
//! first byte enters quinn's send buffer for the stream (the write call that takes it);
//! its delay runs from there to the delivery of its last byte to the receiving
//! application. Both ends know a stream's message boundaries (every message of a
//! stream has the stream's `message_size`), so the k-th message delivered on a stream
//! is the k-th submitted there.
//!
//! Unlike SCTP's one send buffer shared by every stream, quinn keeps one per stream
//! (bounded by the peer's stream flow-control credit and the connection's send
//! window), and its packet builder takes frames from the streams with data by priority,
//! round robin among equal priorities (`TransportConfig::send_fairness`, on by
//! default). The application here writes each stream as far as quinn takes it.

use crate::sctp::streams::StreamSourceCfg;
use crate::sim::{SimDuration, SimTime};
use bytes::Bytes;
use quinn_proto::{Connection, Dir, StreamId};

/// The bytes written are zeros, shared rather than copied.
static ZEROS: [u8; 65_536] = [0; 65_536];

struct StreamSource {
    cfg: StreamSourceCfg,
    /// Interval source: the next tick not yet counted.
    next_tick: SimTime,
    /// Interval source: ticks counted and not yet submitted (quinn's buffer for the
    /// stream was full), the oldest first.
    waiting: u64,
    /// Bytes of the message being written that quinn has not taken yet.
    rest: u64,
    /// No message will be submitted any more (its stop, or the flow's).
    over: bool,
    /// The stream is finished (every byte written, FIN queued).
    finished: bool,
    /// Submission time of every message of the stream, in order.
    submitted: Vec<SimTime>,
}

impl StreamSource {
    fn stopped_at(&self, t: SimTime) -> bool {
        self.cfg.stop.is_some_and(|s| t >= s)
    }

    /// Counts the ticks up to `now`; a backlog source ends at its stop.
    fn advance(&mut self, now: SimTime) {
        if self.over {
            return;
        }
        match self.cfg.interval {
            Some(iv) => {
                while self.next_tick <= now && !self.stopped_at(self.next_tick) {
                    self.waiting += 1;
                    self.next_tick += iv;
                }
                self.over = self.stopped_at(self.next_tick);
            }
            None => self.over = self.stopped_at(now),
        }
    }

    /// Whether a new message is there to submit.
    fn has_message(&self, now: SimTime) -> bool {
        match self.cfg.interval {
            Some(_) => self.waiting > 0,
            None => !self.over && now >= self.cfg.start,
        }
    }

    /// The next time after `now` this source has something to do: its next tick, or
    /// a backlog's start or stop.
    fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        if self.over || self.finished {
            return None;
        }
        match self.cfg.interval {
            Some(_) => Some(self.next_tick),
            None if now < self.cfg.start => Some(self.cfg.start),
            None => self.cfg.stop,
        }
    }
}

/// The client's application with `stream_traffic`.
pub struct MessageSource {
    sources: Vec<StreamSource>,
    /// Stream `i` of the flow (quinn's i-th client-initiated unidirectional stream).
    ids: Vec<StreamId>,
    streams: usize,
    begun: bool,
    stopped: bool,
    /// Streams whose every byte the peer has acknowledged.
    acked: usize,
}

impl MessageSource {
    pub fn new(cfgs: &[StreamSourceCfg], streams: u32) -> Self {
        MessageSource {
            sources: cfgs
                .iter()
                .map(|c| StreamSource {
                    cfg: c.clone(),
                    next_tick: c.start,
                    waiting: 0,
                    rest: 0,
                    over: false,
                    finished: false,
                    submitted: Vec::new(),
                })
                .collect(),
            ids: Vec::new(),
            streams: streams.max(1) as usize,
            begun: false,
            stopped: false,
            acked: 0,
        }
    }

    /// Opens the streams once the connection allows it (every stream up to `streams`,
    /// so stream numbers are quinn's stream indices), gives each source's stream its
    /// priority and finishes the streams without a source.
    pub fn open(&mut self, conn: &mut Connection) {
        while self.ids.len() < self.streams {
            let Some(id) = conn.streams().open(Dir::Uni) else {
                break;
            };
            let i = self.ids.len();
            self.ids.push(id);
            match self.sources.iter().find(|s| usize::from(s.cfg.stream) == i) {
                // RFC 8260 sec. 3.4's priority scheduler serves the smallest value
                // first; quinn sends the largest first.
                Some(s) => {
                    let p = i32::try_from(s.cfg.priority.saturating_neg()).unwrap_or(
                        if s.cfg.priority > 0 {
                            i32::MIN
                        } else {
                            i32::MAX
                        },
                    );
                    let _ = conn.send_stream(id).set_priority(p);
                }
                None => {
                    let _ = conn.send_stream(id).finish();
                }
            }
        }
    }

    /// Brings the sources up to `now` and writes what quinn takes: a message partly
    /// written is continued first, then new ones are submitted. Interval sources'
    /// ticks before the connection was established (the first call) are not messages,
    /// as for SCTP: nothing was there to take them.
    pub fn write(&mut self, now: SimTime, conn: &mut Connection) {
        if !self.begun {
            self.begun = true;
            for s in &mut self.sources {
                if let Some(iv) = s.cfg.interval {
                    if s.next_tick < now && iv > SimDuration::ZERO {
                        let behind = now.saturating_since(s.next_tick).as_nanos();
                        s.next_tick += iv.saturating_mul(behind.div_ceil(iv.as_nanos()));
                    }
                }
            }
        }
        // Due messages first, then the backlogs, as SCTP's send buffer takes them
        // (docs/models/sctp.md "Sources and the send buffer"): quinn's send window
        // (10 MB for the connection) is shared by every stream, and a backlog written
        // first would fill each space acks free before a due message got any of it.
        let (due, backlog): (Vec<usize>, Vec<usize>) =
            (0..self.sources.len()).partition(|&i| self.sources[i].cfg.interval.is_some());
        for i in due.into_iter().chain(backlog) {
            let s = &mut self.sources[i];
            let Some(&id) = self.ids.get(usize::from(s.cfg.stream)) else {
                continue;
            };
            if s.finished {
                continue;
            }
            if !self.stopped {
                s.advance(now);
            }
            let mut stream = conn.send_stream(id);
            loop {
                if s.rest == 0 {
                    if self.stopped || !s.has_message(now) {
                        break;
                    }
                    s.rest = s.cfg.message_size;
                    s.submitted.push(now);
                    s.waiting = s.waiting.saturating_sub(1);
                    // Submission needs quinn to take a first byte (below); until then
                    // the message stays the source's.
                }
                let len = s.rest.min(ZEROS.len() as u64) as usize;
                let mut chunk = [Bytes::from_static(&ZEROS[..len])];
                match stream.write_chunks(&mut chunk) {
                    Ok(w) if w.bytes > 0 => s.rest -= w.bytes as u64,
                    _ => {
                        // Nothing taken: a message not begun is not submitted yet.
                        if s.rest == s.cfg.message_size {
                            s.rest = 0;
                            s.submitted.pop();
                            if s.cfg.interval.is_some() {
                                s.waiting += 1;
                            }
                        }
                        break;
                    }
                }
            }
            let ended = self.stopped || s.over;
            if ended && s.rest == 0 && (self.stopped || s.waiting == 0) {
                s.finished = true;
                let _ = stream.finish();
            }
        }
    }

    /// The flow's stop: no source submits any more; messages partly written are
    /// completed, then every stream ends.
    pub fn stop(&mut self, now: SimTime, conn: &mut Connection) {
        self.stopped = true;
        self.write(now, conn);
    }

    /// A stream's bytes are all acknowledged.
    pub fn on_acked(&mut self) {
        self.acked += 1;
    }

    /// Every stream is open, finished and acknowledged.
    pub fn complete(&self) -> bool {
        self.ids.len() == self.streams && self.acked == self.streams
    }

    /// When a source next has something to do after `now`, if ever (nothing before
    /// the first `write`: the sources begin with the connection).
    pub fn next_wakeup(&self, now: SimTime) -> Option<SimTime> {
        if self.stopped || !self.begun {
            return None;
        }
        self.sources
            .iter()
            .filter_map(|s| s.next_wakeup(now))
            .filter(|&t| t > now)
            .min()
    }

    /// Submission times of stream `stream`'s messages, in order (empty without a
    /// source).
    pub fn submitted(&self, stream: usize) -> &[SimTime] {
        self.sources
            .iter()
            .find(|s| usize::from(s.cfg.stream) == stream)
            .map_or(&[], |s| &s.submitted)
    }

    /// The message size of stream `stream`'s source, if it has one.
    pub fn message_size(&self, stream: usize) -> Option<u64> {
        self.sources
            .iter()
            .find(|s| usize::from(s.cfg.stream) == stream)
            .map(|s| s.cfg.message_size)
    }
}

/// Per-stream message delays (seconds) of the messages delivered in the measurement
/// window: the k-th message delivered on a stream against the k-th submitted there.
pub fn stream_delays(
    src: &MessageSource,
    sink: &super::app::Sink,
    window: &crate::metrics::Window,
) -> Vec<Vec<f64>> {
    sink.streams
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let Some(delivered) = &st.delivered_at else {
                return Vec::new();
            };
            delivered
                .iter()
                .zip(src.submitted(i))
                .filter(|(at, _)| window.contains(**at))
                .map(|(at, sub)| at.saturating_since(*sub).as_secs_f64())
                .collect()
        })
        .collect()
}

/// With `stream_traffic`, adds the message keys to a QUIC flow's summary entry as SCTP
/// has them (CONTRACTS.md "Messages"): per stream `message_delay_mean_s`,
/// `message_delay_p99_s` (nearest rank) and `abandoned_messages` (always 0: QUIC
/// streams are reliable). Without it the entry is left as it was, byte for byte.
pub fn add_summary_keys(
    flow: &mut serde_json::Value,
    client: &super::QuicEndpoint,
    server: &super::QuicEndpoint,
) {
    let (Some(src), Some(sink)) = (client.message_source(), server.sink()) else {
        return;
    };
    let delays = stream_delays(src, sink, &server.window());
    let num = |x: Option<f64>| {
        x.and_then(serde_json::Number::from_f64)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
    };
    let Some(serde_json::Value::Array(entries)) = flow.get_mut("streams") else {
        return;
    };
    for (e, mut d) in entries.iter_mut().zip(delays) {
        d.sort_by(f64::total_cmp);
        let mean = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
        if let Some(e) = e.as_object_mut() {
            e.insert("message_delay_mean_s".into(), num(mean));
            let p99 = crate::sctp::streams::stats::nearest_rank(&d, 99.0);
            e.insert("message_delay_p99_s".into(), num(p99));
            e.insert("abandoned_messages".into(), 0.into());
        }
    }
}
