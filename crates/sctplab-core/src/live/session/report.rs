//! What a session reports: the contract's result line and summary.json's flow and
//! live objects.

use super::{Outcome, Session};
use crate::sctp::Role;
use crate::sim::SimTime;
use serde_json::{Value, json};

impl Session {
    /// The contract's result line: messages, bytes and messages per stream handed to
    /// the application (server) or sent and acknowledged (client), and errors.
    pub fn result_line(&mut self) -> String {
        let (messages, bytes, streams, errors) = match self.receiver.as_mut() {
            Some(r) => {
                r.finish();
                let streams: Vec<(usize, u64)> = r
                    .per_stream
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(s, n)| (s, *n))
                    .collect();
                (r.messages, r.bytes, streams, r.errors + r.overflow)
            }
            None => {
                let (m, b, s) = self.sent_messages();
                (m, b, s, self.counters.payload_misses)
            }
        };
        // The contract's key order and spacing: {"messages": M, "bytes": B, ...}.
        let streams: Vec<String> = streams
            .iter()
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!(
            "{{\"messages\": {messages}, \"bytes\": {bytes}, \"streams\": {{{}}}, \"errors\": {errors}}}",
            streams.join(", ")
        )
    }

    /// Client: messages and bytes of a completed transfer, per stream; with PR-SCTP
    /// those not abandoned.
    fn sent_messages(&self) -> (u64, u64, Vec<(usize, u64)>) {
        let mut streams = Vec::new();
        let Some(out) = self.assoc.out.as_ref().filter(|o| o.done()) else {
            return (0, 0, streams);
        };
        if let Some(src) = out.app.streams.as_ref() {
            let mut m = 0;
            for (s, t) in src.tally.iter().enumerate() {
                let n = t.submitted_messages.saturating_sub(t.abandoned_messages);
                if n > 0 {
                    streams.push((s, n));
                    m += n;
                }
            }
            return (m, m * self.message_size, streams);
        }
        let mut m = 0;
        for (s, &n) in self.sender.messages_per_stream().iter().enumerate() {
            if n > 0 {
                streams.push((s, u64::from(n)));
                m += u64::from(n);
            }
        }
        (m, self.total.unwrap_or(0), streams)
    }

    /// summary.json of the session: the flow metrics of a simulated SCTP flow (as
    /// this end sees them) and the live counters.
    pub fn summary(&self) -> Value {
        let secs = |t: Option<SimTime>| t.map_or(Value::Null, |t| json!(t.as_secs_f64()));
        let a = &self.assoc;
        let default_out = crate::sctp::OutStats::default();
        let o = a.out.as_ref().map_or(&default_out, |o| &o.stats);
        let delivered = match (&self.receiver, self.role) {
            (Some(r), _) => r.bytes,
            (None, Role::Client) => self.sender.acked_bytes(),
            (None, Role::Server) => 0,
        };
        // Goodput over the transfer: from this end's association set-up to the last
        // byte acknowledged (client) or delivered (server).
        let span = match (self.established_at, self.transfer_done_at) {
            (Some(a), Some(b)) => b.saturating_since(a).as_secs_f64(),
            _ => 0.0,
        };
        let goodput = if span > 0.0 {
            delivered as f64 * 8.0 / span
        } else {
            0.0
        };
        let c = &self.counters;
        let role = match self.role {
            Role::Client => "client",
            Role::Server => "server",
        };
        let outcome = match self.outcome {
            Outcome::Running => "running",
            Outcome::Graceful => "graceful",
            Outcome::Aborted => "aborted",
            Outcome::TimedOut => "timeout",
        };
        let flow = json!({
            "type": "sctp",
            "role": role,
            "goodput_bps": goodput,
            "delivered_bytes": delivered,
            "data_packets_sent": o.data_packets_sent,
            "retransmitted_packets": o.retransmitted_packets,
            "data_chunks_sent": o.chunks_sent,
            "new_bytes_sent": o.new_bytes_sent,
            "retransmissions": o.retransmissions,
            "fast_retransmissions": o.fast_retransmissions,
            "timeout_retransmissions": o.timeout_retransmissions,
            "timeouts": o.timeouts,
            "fast_recoveries": o.fast_recoveries,
            "ack_packets": a.stats.ack_packets,
            "ack_bytes": a.stats.ack_bytes,
            "sack_packets": a.stats.ack_packets,
            "sack_bytes": a.stats.ack_bytes,
            "connect_time_s": secs(a.stats.connect_time.map(|d| SimTime::ZERO + d)),
            "completion_time_s": secs(self.transfer_done_at),
            "established_at_s": secs(self.established_at),
            "first_delivery_s": secs(self.first_delivery_at),
            "final_cwnd": a.data_path().map_or(Value::Null, |p| json!(p.cwnd)),
            "final_ssthresh": a.data_path().map_or(Value::Null, |p| json!(p.ssthresh)),
            "chunks_dropped_no_buffer": a.inb.as_ref().map_or(0, |i| i.dropped_no_buffer),
            "control_packets": a.stats.control_packets,
            "heartbeats": a.stats.heartbeats,
            "bad_vtag_drops": a.stats.bad_vtag_drops,
            "cookie_rejects": a.stats.cookie_rejects,
            "inits_received": a.stats.inits_received,
            "associations_created": a.stats.associations_created,
            "aborted": a.stats.aborted,
            "unknown_chunks": a.stats.unknown_chunks,
            "errors_sent": a.stats.errors_sent,
            "errors_received": a.stats.errors_received,
            "rule_violations": a.stats.rule_violations,
            "ootb_packets": a.stats.ootb_packets,
            "restarts": a.stats.restarts,
            "chunks_dropped_beyond_window": a.inb.as_ref().map_or(0, |i| i.dropped_beyond_window),
        });
        let mut flow = flow;
        self.extension_summary(&mut flow);
        self.pr_summary(&mut flow);
        // Hostile or malformed packets counted and dropped, of every kind.
        let hostile = c.malformed
            + c.malformed_chunks
            + a.stats.bad_vtag_drops
            + a.stats.rule_violations
            + a.stats.ootb_packets
            + a.stats.cookie_rejects
            + a.inb.as_ref().map_or(0, |i| i.dropped_beyond_window);
        json!({
            "flows": {"live": flow},
            "live": {
                "outcome": outcome,
                "datagrams_in": c.datagrams_in,
                "datagrams_out": c.datagrams_out,
                "malformed": c.malformed,
                "malformed_chunks": c.malformed_chunks,
                "forward_tsn_received": c.forward_tsn_received,
                "hostile_drops": hostile,
                "bad_checksum": c.bad_checksum,
                "misdirected": c.misdirected,
                "send_errors": c.send_errors,
                "payload_misses": c.payload_misses,
                "ssn_restarts": c.ssn_restarts,
            },
        })
    }

    /// PR-SCTP (RFC 3758) as this end saw it, with `--pr`: the sender's abandoned
    /// messages and FORWARD TSNs (CONTRACTS.md "Messages" flow keys), the receiver's
    /// TSNs and messages the peer abandoned.
    fn pr_summary(&self, flow: &mut Value) {
        if !self.pr {
            return;
        }
        let Some(obj) = flow.as_object_mut() else {
            return;
        };
        let src = self.assoc.out.as_ref().and_then(|o| o.app.streams.as_ref());
        if let Some(src) = src {
            let abandoned: u64 = src.tally.iter().map(|t| t.abandoned_messages).sum();
            obj.insert("pr_negotiated".into(), json!(src.pr_on));
            obj.insert("abandoned_messages".into(), json!(abandoned));
            obj.insert("forward_tsn_sent".into(), json!(src.forward_tsn_sent));
        }
        if let Some(r) = self.receiver.as_ref() {
            obj.insert("skipped_tsns".into(), json!(r.skipped_tsns));
            obj.insert("skipped_messages".into(), json!(r.skipped_messages));
            obj.insert("abandoned_fragments".into(), json!(r.abandoned_fragments));
        }
    }
}
