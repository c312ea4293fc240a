//! `stream_traffic` on QUIC flows: per-stream sources and per-stream message delays,
//! against hand calculations from the path.

mod common;

use common::summary as run;
use serde_json::Value;

/// A 10 Mb/s, 50 ms link a -> b (one quic flow, `extra` appended to the flow and
/// `loss` to the link).
fn scenario(flow_extra: &str, loss: &str) -> String {
    format!(
        r#"duration = "3s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "50ms"
queue = 100
{loss}
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
{flow_extra}
"#
    )
}

/// Two streams, one 100-byte message every 100 ms each, stream 1's ticks halfway
/// between stream 0's, until 2 s.
const TWO_TICKING_STREAMS: &str = r#"streams = 2
stop = "2s"
stream_traffic = [
  { stream = 0, message_size = "100B", interval = "100ms" },
  { stream = 1, message_size = "100B", interval = "100ms", start = "50ms" },
]"#;

fn stream(s: &Value, i: usize) -> &Value {
    &s["flows"]["q"]["streams"][i]
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing: {v}"))
}

/// Longest time one datagram of at most 1500 B takes on the 10 Mb/s link.
const MAX_TX: f64 = 1500.0 * 8.0 / 10e6;
const ONE_WAY: f64 = 0.050;

#[test]
fn messages_cross_in_one_way_delay_without_loss() {
    let s = run(&scenario(TWO_TICKING_STREAMS, ""), 1);
    let q = &s["flows"]["q"];
    assert_eq!(q["lost_packets"], 0, "{q}");
    // The handshake completes at the client after 2 x (1228 B at 10 Mb/s + 50 ms) =
    // 101.96 ms; the ticks before it are not messages (the application starts with the
    // connection), so stream 0 sends at 0.2, 0.3, ..., 1.9 s (18 messages) and stream
    // 1 at 0.15, 0.25, ..., 1.95 s (19).
    assert_eq!(stream(&s, 0)["delivered_messages"], 18, "{q}");
    assert_eq!(stream(&s, 1)["delivered_messages"], 19, "{q}");
    for i in 0..2 {
        let st = stream(&s, i);
        // A lone small message on an idle link: the one-way delay plus its own
        // transmission (under one full-size datagram's).
        let (mean, p99) = (f(st, "message_delay_mean_s"), f(st, "message_delay_p99_s"));
        assert!(mean > ONE_WAY && p99 < ONE_WAY + MAX_TX, "stream {i}: {st}");
        assert_eq!(st["abandoned_messages"], 0);
    }
}

/// As `TWO_TICKING_STREAMS`, from 1 s (the connection is quiet by then: the handshake,
/// its acknowledgements and quinn's path MTU probes are over) to 3 s.
const TWO_LATE_STREAMS: &str = r#"streams = 2
stop = "3s"
stream_traffic = [
  { stream = 0, message_size = "100B", interval = "100ms", start = "1s" },
  { stream = 1, message_size = "100B", interval = "100ms", start = "1.05s" },
]"#;

#[test]
fn a_loss_on_one_stream_does_not_delay_the_other() {
    // Drop the flow's first data datagram: stream 0's first message, sent at 1.0 s.
    // Stream 1's first message leaves at 1.05 s and arrives at 1.10 s, after a gap:
    // the server acknowledges it at once (RFC 9000 sec. 13.2.1); the ACK reaches the
    // client at 1.15 s, when the 1.0 s packet is 150 ms old, past RFC 9002 sec.
    // 6.1.2's time threshold (9/8 of the 100 ms RTT), and before a probe timeout
    // (at least RTT + max_ack_delay = 125 ms after the 1.05 s packet), so it is
    // declared lost and its data resent at once, arriving at 1.20 s: a delay of four
    // one-way trips (200 ms) plus a few small transmissions. Stream 1's messages are
    // meanwhile delivered as they arrive, one one-way delay after they were sent, as
    // if nothing was lost: QUIC orders bytes per stream only (RFC 9000 sec. 2.2).
    let text = scenario(TWO_LATE_STREAMS, "loss = { drops = [1] }");
    let s = run(&text.replace("duration = \"3s\"", "duration = \"4s\""), 1);
    let q = &s["flows"]["q"];
    assert_eq!(q["lost_packets"], 1, "{q}");
    let (s0, s1) = (stream(&s, 0), stream(&s, 1));
    assert_eq!(s0["delivered_messages"], 20, "{q}");
    assert_eq!(s1["delivered_messages"], 20, "{q}");
    let p99 = f(s0, "message_delay_p99_s");
    assert!(
        (4.0 * ONE_WAY..4.0 * ONE_WAY + 4.0 * MAX_TX).contains(&p99),
        "stream 0: {s0}"
    );
    // Within stream 0 the bytes stay in order: its second message (sent at 1.1 s,
    // arrived at 1.15 s) waits for the first and is delivered with it at 1.20 s (100
    // ms); the other 18 took one one-way delay each. The sum: 0.2 + 0.1 + 18 x 0.05 s
    // plus the transmissions.
    let total = f(s0, "message_delay_mean_s") * 20.0;
    assert!(
        (4.0 * ONE_WAY + 2.0 * ONE_WAY + 18.0 * ONE_WAY..1.2 + 20.0 * MAX_TX).contains(&total),
        "stream 0: {s0}"
    );
    assert!(
        f(s1, "message_delay_p99_s") < ONE_WAY + MAX_TX,
        "stream 1: {s1}"
    );
}

#[test]
fn a_backlog_and_a_ticking_stream_share_the_connection() {
    // A backlog on stream 0 keeps quinn's buffer full while stream 1 ticks: both
    // deliver, stream 1 every message it sent, and the run is reproducible.
    let flow = r#"streams = 2
stop = "2s"
congestion_control = "reno"
stream_traffic = [
  { stream = 0, message_size = "1KB" },
  { stream = 1, message_size = "200B", interval = "20ms", start = "0.5s", stop = "1.5s" },
]"#;
    let text = scenario(flow, "");
    let (a, b) = (run(&text, 3), run(&text, 3));
    assert_eq!(a, b);
    let s1 = stream(&a, 1);
    // Ticks at 0.5, 0.52, ..., 1.48 s: 50 messages.
    assert_eq!(s1["delivered_messages"], 50, "{s1}");
    assert!(
        stream(&a, 0)["delivered_messages"].as_u64().unwrap() > 1000,
        "{a}"
    );
    // Stream 1's messages wait behind the backlog's packets in the bottleneck queue
    // (up to 100 packets), not behind its bytes in a shared byte stream: each is
    // delivered within the one-way delay plus a full queue's transmission.
    assert!(
        f(s1, "message_delay_p99_s") < ONE_WAY + 101.0 * MAX_TX,
        "{s1}"
    );
}
