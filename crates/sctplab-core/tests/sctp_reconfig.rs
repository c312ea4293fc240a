//! RE-CONFIG (RFC 6525) and AUTH (RFC 4895) in a run: scripted stream resets and adds
//! between per-stream sources, with and without AUTH; what a flow without them sends is
//! unchanged (refcheck covers the shipped scenarios).

mod common;

fn scenario(extra_flow: &str, faults: &str) -> String {
    format!(
        r#"
duration = "12s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "20ms"
[[flows]]
name = "s"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
streams = 3
stop = "10s"
stream_traffic = [
  {{ stream = 0, message_size = "300B", interval = "10ms" }},
  {{ stream = 1, message_size = "3000B", interval = "50ms" }},
  {{ stream = 2, message_size = "100B", interval = "25ms" }},
]
{extra_flow}
{faults}
"#
    )
}

const FAULTS: &str = r#"
[[faults]]
at = "2s"
action = "reset_streams"
flow = "s"
streams = [1]
[[faults]]
at = "3s"
action = "add_streams"
flow = "s"
streams = 2
[[faults]]
at = "4s"
action = "reset_streams"
flow = "s"
streams = [0, 4]
"#;

/// Three requests, each answered "performed": streams 1, then 0 and 4 (added at 3 s)
/// reset, 2 added; every message still delivered (a wrong SSN after a reset would
/// block its stream for good).
#[test]
fn resets_and_adds_are_performed() {
    let s = common::summary(&scenario("", FAULTS), 1);
    let f = &s["flows"]["s"];
    assert_eq!(f["reconfig_requests"], 3, "{f}");
    assert_eq!(f["reconfig_retransmissions"], 0);
    assert_eq!(f["reconfig_refused"], 0);
    assert_eq!(f["streams_reset"], 3);
    assert_eq!(f["streams_added"], 2);
    assert_eq!(f["auth_negotiated"], false);
    assert_eq!(f["auth_chunks_sent"], 0);
    // The sources submit one message per interval from the set-up until the 10 s
    // stop: floor((10 - connect time) / interval) each, and every one is delivered.
    let t0 = f["connect_time_s"].as_f64().unwrap();
    let streams = f["streams"].as_array().unwrap();
    for (k, interval) in [0.010, 0.050, 0.025].into_iter().enumerate() {
        let want = ((10.0 - t0) / interval).floor() as u64;
        assert_eq!(streams[k]["delivered_messages"], want, "stream {k}: {f}");
    }
    assert_eq!(streams.len(), 5);
}

/// With AUTH, every RE-CONFIG (three requests, three responses) goes behind an AUTH
/// chunk and none is dropped; with `auth_chunks = ["sack"]` every SACK is signed too.
#[test]
fn auth_covers_reconfig_and_named_chunks() {
    let s = common::summary(&scenario("auth = true", FAULTS), 1);
    let f = &s["flows"]["s"];
    assert_eq!(f["auth_negotiated"], true);
    assert_eq!(f["auth_chunks_sent"], 6, "{f}");
    assert_eq!(
        (f["auth_drops"].as_u64(), f["auth_bad"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(f["streams_reset"], 3);
    let s = common::summary(
        &scenario(
            "auth = true\nauth_chunks = [\"sack\"]\nauth_hmac = \"sha1\"",
            FAULTS,
        ),
        1,
    );
    let f = &s["flows"]["s"];
    let sacks = f["sack_packets"].as_u64().unwrap();
    assert!(sacks > 100);
    // A SACK bundled with a RE-CONFIG response shares its AUTH; the window counts all.
    let sent = f["auth_chunks_sent"].as_u64().unwrap();
    assert!(sent >= sacks && sent <= sacks + 6, "{sent} vs {sacks}");
    assert_eq!(f["auth_drops"], 0);
}

/// A flow without the keys reports none of them.
#[test]
fn off_by_default() {
    let s = common::summary(&scenario("", ""), 1);
    let f = s["flows"]["s"].as_object().unwrap();
    assert!(!f.contains_key("reconfig_requests"));
    assert!(!f.contains_key("auth_chunks_sent"));
}

const RESET_ASSOC: &str = r#"
[[faults]]
at = "2s"
action = "reset_assoc"
flow = "s"
[[faults]]
at = "5s"
action = "reset_assoc"
flow = "s"
"#;

/// Two SSN/TSN resets (RFC 6525 4.3, `reset_assoc`): each waits for the flight to
/// be acknowledged, is performed, and resets the three streams; every message is still
/// delivered (a wrong TSN or SSN after the reset would stall the flow for good).
#[test]
fn ssn_tsn_resets_are_performed() {
    let s = common::summary(&scenario("", RESET_ASSOC), 1);
    let f = &s["flows"]["s"];
    assert_eq!(f["reconfig_requests"], 2, "{f}");
    assert_eq!(f["reconfig_refused"], 0);
    assert_eq!(f["streams_reset"], 6);
    let t0 = f["connect_time_s"].as_f64().unwrap();
    let streams = f["streams"].as_array().unwrap();
    for (k, interval) in [0.010, 0.050, 0.025].into_iter().enumerate() {
        let want = ((10.0 - t0) / interval).floor() as u64;
        assert_eq!(streams[k]["delivered_messages"], want, "stream {k}: {f}");
    }
}

/// `reset_assoc` takes no `streams`: one line naming the key.
#[test]
fn reset_assoc_with_streams_is_refused() {
    let text = scenario(
        "",
        "[[faults]]\nat = \"2s\"\naction = \"reset_assoc\"\nflow = \"s\"\nstreams = [1]\n",
    );
    let Err(e) = sctplab_core::load_toml(&text, "<test>", "t", &[]) else {
        panic!("accepted");
    };
    let e = e.to_string();
    assert!(
        e.contains("faults.0.streams") && e.contains("reset_assoc") && !e.contains('\n'),
        "{e}"
    );
}
