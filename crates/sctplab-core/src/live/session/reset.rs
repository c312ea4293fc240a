//! The session's stream reset and AUTH hooks (RFC 6525, RFC 4895): the client's
//! Outgoing SSN Reset of every stream once N messages are acknowledged, the SSN
//! restarts the receiver counts, and the AUTH and RE-CONFIG keys of the summary. The
//! machine does the protocol (`sctp/reconfig`, `sctp/auth`); this is only what the
//! driver adds around it.

use super::{Counters, Session};
use crate::sctp::Role;
use crate::sctp::reconfig::Request;
use crate::sim::SimTime;
use serde_json::{Value, json};

impl Session {
    /// Client: once `messages` messages are acknowledged, ask for an Outgoing SSN Reset
    /// of every outbound stream (RFC 6525 5.1.2); the association must announce
    /// RE-CONFIG (`AssocCfg::knobs.reconfig`).
    pub fn reset_streams_after(&mut self, messages: u64) {
        let size = self.message_size.max(1);
        self.reset_at_bytes = Some(messages.saturating_mul(size));
    }

    pub(super) fn maybe_reset_streams(&mut self, now: SimTime) {
        let Some(at) = self.reset_at_bytes else {
            return;
        };
        if self.role != Role::Client || self.sender.acked_bytes() < at {
            return;
        }
        self.reset_at_bytes = None;
        let streams = (0..self.out_streams).collect();
        self.assoc.reconfigure(now, Request::ResetStreams(streams));
    }

    /// `interleaving_negotiated` with `interleaving` asked for; AUTH (RFC 4895) and
    /// RE-CONFIG (RFC 6525) keys of the flow object, only with `auth` or RE-CONFIG on.
    pub(super) fn extension_summary(&self, flow: &mut Value) {
        let (a, c) = (&self.assoc, &self.counters);
        if let (true, Some(obj)) = (a.knobs().interleaving, flow.as_object_mut()) {
            // RFC 8260 sec. 2.2.1: I-DATA only when both ends listed it; false means
            // the association fell back to DATA.
            obj.insert("interleaving_negotiated".into(), json!(a.idata_on()));
        }
        if let (Some(e), Some(obj)) = (a.ext_stats(), flow.as_object_mut()) {
            // AUTH (RFC 4895) as this end saw it, only with `auth` or RE-CONFIG on.
            obj.insert("auth_negotiated".into(), json!(e.auth_on));
            obj.insert("auth_chunks_sent".into(), json!(e.auth.sent));
            obj.insert("auth_chunks_received".into(), json!(c.auth_received));
            obj.insert("auth_drops".into(), json!(e.auth.dropped));
            obj.insert("auth_bad".into(), json!(e.auth.bad));
            // RE-CONFIG (RFC 6525) as this end saw it.
            obj.insert("reconfig_requests".into(), json!(e.reconfig.requests));
            obj.insert("reconfig_responses".into(), json!(e.reconfig.responses));
            obj.insert("reconfig_refused".into(), json!(e.reconfig.refused));
            obj.insert("streams_reset".into(), json!(e.reconfig.streams_reset));
        }
    }
}

/// Records the SSN of an ordered message's first fragment and counts a restart from 0.
pub(super) fn note_ssn(
    last: &mut Vec<Option<u16>>,
    counters: &mut Counters,
    stream: u16,
    ssn: u16,
) {
    let i = usize::from(stream);
    if last.len() <= i {
        // Bounded by the 65536 stream identifiers.
        last.resize(i + 1, None);
    }
    if ssn == 0 && matches!(last[i], Some(p) if p != 0 && p != u16::MAX) {
        counters.ssn_restarts += 1;
    }
    last[i] = Some(ssn);
}
