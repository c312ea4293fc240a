//! `stream_traffic` on a TCP flow (CONTRACTS.md "Messages"; docs/models/tcp.md): the
//! sources SCTP's streams have (`sctp/streams/source.rs`) write their messages into the
//! one byte stream in submission order. A message is submitted when the application
//! writes it into the send buffer, and delivered when its last byte reaches the
//! receiving application in order; nothing separates the sources, so a small message
//! waits behind every byte written before it (head-of-line blocking).
//!
//! The send buffer holds what the application wrote and the peer has not acknowledged
//! cumulatively; its capacity is the flow's `window` in segments (the socket buffers of
//! both ends the same size, as SCTP's send buffer is its `receive_buffer`). The sender
//! sends whole segments only, as ns-2's agents do: the bytes beyond the last whole
//! segment wait until the application writes more, which a backlog source always does
//! (the scenario requires one, `scenario/tcp_streams.rs`).

use crate::endpoint::message_sources::MessageSources;
use crate::sctp::streams::StreamSourceCfg;
use crate::sctp::streams::stats::nearest_rank;
use crate::sim::SimTime;

/// The sending application's sources and what they wrote.
#[derive(Clone, Debug)]
pub struct TcpMessages {
    sources: MessageSources,
    capacity: u64,
    /// Bytes written into the stream so far.
    written: u64,
    /// (stream offset one past the message's last byte, source stream, submission
    /// time) of every message, in stream order.
    log: Vec<(u64, u16, SimTime)>,
}

impl TcpMessages {
    pub fn new(cfgs: &[StreamSourceCfg], capacity: u64) -> Self {
        TcpMessages {
            sources: MessageSources::new(cfgs),
            capacity,
            written: 0,
            log: Vec::new(),
        }
    }

    /// The number of sources (the summary's `streams` entries).
    pub fn sources_len(&self) -> usize {
        self.sources.len()
    }

    /// Bytes written into the stream so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The application writes every due message that fits beside the `unacked` bytes
    /// still held (one into an empty buffer even if larger); returns the bytes written
    /// in all.
    pub fn refill(&mut self, now: SimTime, acked: u64) -> u64 {
        // First come first served, the order SCTP's default scheduler submits in
        // (`endpoint/message_sources.rs`).
        self.sources.advance(now);
        while let Some(i) = self.sources.pick() {
            let held = self.written.saturating_sub(acked);
            let (size, stream) = (self.sources.cfg(i).message_size, self.sources.cfg(i).stream);
            if held > 0 && held + size > self.capacity {
                break;
            }
            self.sources.take(i, now);
            self.written += size;
            self.log.push((self.written, stream, now));
        }
        self.written
    }

    /// When a source next has something to do.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.sources.next_wakeup()
    }

    /// Per stream `0..n`: (messages delivered, their bytes, their delays in seconds
    /// sorted), joining the message log with the receiver's in-order log ((time, bytes
    /// delivered in order), both rising).
    pub fn delays(&self, delivered: &[(SimTime, u64)], n: usize) -> Vec<(u64, u64, Vec<f64>)> {
        let mut out: Vec<(u64, u64, Vec<f64>)> = vec![(0, 0, Vec::new()); n];
        let mut k = 0;
        let mut start = 0;
        for &(end, stream, submitted) in &self.log {
            let size = end - start;
            start = end;
            while delivered.get(k).is_some_and(|&(_, b)| b < end) {
                k += 1;
            }
            let Some(&(at, _)) = delivered.get(k) else {
                break;
            };
            if let Some(e) = out.get_mut(usize::from(stream)) {
                e.0 += 1;
                e.1 += size;
                e.2.push(at.saturating_since(submitted).as_secs_f64());
            }
        }
        for e in &mut out {
            e.2.sort_by(f64::total_cmp);
        }
        out
    }
}

/// The `streams` entries of a TCP flow with `stream_traffic`, one per source stream:
/// `delivered_messages`, `delivered_bytes`, `message_delay_mean_s`,
/// `message_delay_p99_s` (the nearest-rank 99th percentile, as SCTP's).
pub fn streams_summary(
    msgs: &TcpMessages,
    delivered: &[(SimTime, u64)],
    n: usize,
) -> serde_json::Value {
    let num = |x: Option<f64>| {
        x.and_then(serde_json::Number::from_f64)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
    };
    let entries: Vec<serde_json::Value> = msgs
        .delays(delivered, n)
        .into_iter()
        .map(|(m, b, d)| {
            let mean = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
            serde_json::json!({
                "delivered_messages": m,
                "delivered_bytes": b,
                "message_delay_mean_s": num(mean),
                "message_delay_p99_s": num(nearest_rank(&d, 99.0)),
            })
        })
        .collect();
    serde_json::Value::Array(entries)
}
