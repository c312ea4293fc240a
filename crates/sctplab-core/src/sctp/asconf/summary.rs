//! summary.json keys of a flow that scripts address changes (none otherwise, so every
//! other flow's summary keeps its bytes); docs/models/sctp.md lists them.

use crate::sctp::Association;
use serde_json::{Value, json};

pub fn add_summary_keys(flow: &mut Value, client: &Association, server: &Association) {
    let (Some(c), Some(s)) = (client.asconf_stats(), server.asconf_stats()) else {
        return;
    };
    let Some(obj) = flow.as_object_mut() else {
        return;
    };
    let (c_on, c, c_unexpected) = c;
    let (s_on, s, s_unexpected) = s;
    let pairs = [
        ("asconf_negotiated", json!(c_on && s_on)),
        // ASCONF chunks sent (first copies) and resent by their timer, by both ends.
        ("asconf_sent", json!(c.sent + s.sent)),
        (
            "asconf_retransmissions",
            json!(c.retransmissions + s.retransmissions),
        ),
        // Address requests the peer performed and refused.
        (
            "asconf_requests_performed",
            json!(c.succeeded + s.succeeded),
        ),
        ("asconf_requests_refused", json!(c.refused + s.refused)),
        // ASCONFs answered again from the cache, and discarded as stale or out of
        // order, plus ASCONF chunks that arrived while ASCONF was not negotiated.
        ("asconf_duplicates", json!(c.duplicates + s.duplicates)),
        (
            "asconf_discarded",
            json!(c.discarded + s.discarded + c_unexpected + s_unexpected),
        ),
        // What the data receiver did to its view of the sender's addresses.
        (
            "peer_addresses_added",
            json!(s.addresses_added + c.addresses_added),
        ),
        (
            "peer_addresses_deleted",
            json!(s.addresses_deleted + c.addresses_deleted),
        ),
        (
            "peer_primaries_set",
            json!(s.primaries_set + c.primaries_set),
        ),
    ];
    for (k, v) in pairs {
        obj.insert(k.to_string(), v);
    }
}
