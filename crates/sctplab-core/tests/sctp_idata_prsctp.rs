//! PR-SCTP with I-DATA (RFC 3758, RFC 8260 sec. 2.3) in a whole run of
//! scenarios/example-prsctp.toml with `interleaving = true`: stream 0 a 200-byte
//! message every 20 ms with a 300 ms lifetime, stream 1 an 8 KB message every 500 ms
//! retransmitted at most once, over seed 001's satellite path with 1 % loss on data.
//! The sources stop at 50 s and the run lasts 60 s, so every submitted message has
//! either been delivered or abandoned by the end: nothing is lost silently, and the
//! skips go as I-FORWARD-TSN (a FORWARD TSN would be a chunk the I-DATA receiver
//! drops).
//!
//! Messages submitted, by hand: the sources begin when the association is
//! established, four one-way trips of 260 ms after time 0 (INIT, INIT ACK, COOKIE
//! ECHO, COOKIE ACK) plus transmission times, so between 1.04 s and 1.06 s; their ticks
//! lie on the grid of their interval from 0. Stream 0: 20 ms ticks from 1.06 s to
//! 49.98 s, (49.98 - 1.06) / 0.02 + 1 = 2447 messages; stream 1: 500 ms ticks from
//! 1.5 s to 49.5 s, 97 messages.

use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn run(interleaving: bool) -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/example-prsctp.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario shipped");
    let text = text.replace(
        "streams = 2\n",
        &format!("streams = 2\ninterleaving = {interleaving}\n"),
    );
    let s = load_toml(&text, path, "example-prsctp", &[]).expect("valid scenario");
    let r = run_scenario(&s, &RunOptions::default()).expect("run");
    let v: Value = serde_json::from_str(&r.summary_json).expect("json");
    v["flows"]["messages"].clone()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(u64::MAX)
}

#[test]
fn abandoned_messages_are_counted_and_every_other_one_delivered() {
    let flow = run(true);
    assert_eq!(flow["interleaving_negotiated"], Value::Bool(true));
    assert_eq!(u(&flow["idata_malformed"]), 0);
    assert!(u(&flow["forward_tsn_sent"]) > 0, "{flow}");
    assert!(u(&flow["abandoned_messages"]) > 0, "{flow}");
    let connect = flow["connect_time_s"].as_f64().unwrap_or(f64::NAN);
    assert!((1.04..1.06).contains(&connect), "{connect}");
    let streams = flow["streams"].as_array().expect("streams");
    let mut abandoned = 0;
    for (s, submitted) in streams.iter().zip([2447, 97]) {
        let (del, ab) = (u(&s["delivered_messages"]), u(&s["abandoned_messages"]));
        assert!(del > 0, "{s}");
        assert_eq!(del + ab, submitted, "{s}");
        abandoned += ab;
    }
    // Stream 0's 300 ms lifetime runs out for messages queued behind a loss on a
    // 520 ms round trip.
    assert!(u(&streams[0]["abandoned_messages"]) > 0);
    assert_eq!(u(&flow["abandoned_messages"]), abandoned);
}
