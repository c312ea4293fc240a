//! summary.json keys of a flow with RE-CONFIG or AUTH on (none otherwise, so every
//! other flow's summary keeps its bytes); docs/models/sctp.md lists them.

use crate::sctp::Association;
use serde_json::{Value, json};

pub fn add_summary_keys(flow: &mut Value, client: &Association, server: &Association) {
    let (c, s) = (client.ext_stats(), server.ext_stats());
    if c.is_none() && s.is_none() {
        return;
    }
    let (c, s) = (c.unwrap_or_default(), s.unwrap_or_default());
    let Some(obj) = flow.as_object_mut() else {
        return;
    };
    let pairs = [
        // RE-CONFIG requests sent (first copies) and resent by their timer, by both ends.
        (
            "reconfig_requests",
            json!(c.reconfig.requests + s.reconfig.requests),
        ),
        (
            "reconfig_retransmissions",
            json!(c.reconfig.retransmissions + s.reconfig.retransmissions),
        ),
        // Requests answered with a result other than performed / nothing to do.
        (
            "reconfig_refused",
            json!(c.reconfig.refused + s.reconfig.refused),
        ),
        // Streams the data sender's performed requests reset and added.
        ("streams_reset", json!(c.reconfig.streams_reset)),
        ("streams_added", json!(c.reconfig.streams_added)),
        ("auth_negotiated", json!(c.auth_on && s.auth_on)),
        ("auth_chunks_sent", json!(c.auth.sent + s.auth.sent)),
        // Chunks dropped for want of a valid AUTH, and AUTH chunks that failed.
        ("auth_drops", json!(c.auth.dropped + s.auth.dropped)),
        ("auth_bad", json!(c.auth.bad + s.auth.bad)),
    ];
    for (k, v) in pairs {
        obj.insert(k.to_string(), v);
    }
}
