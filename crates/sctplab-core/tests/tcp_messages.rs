//! `stream_traffic` on TCP flows: messages written into one byte stream in submission
//! order, delivered when their last byte is delivered in order; delays against hand
//! calculations from the path.

mod common;

use common::summary as run;
use serde_json::Value;

/// A 10 Mb/s, 50 ms link a -> b and one newreno flow whose window and initial window
/// (100 segments of 1000 B) never hold the sender back here. Stream 0 is a backlog of
/// 59 800-byte messages that stops at 1 ms: at time 0 it writes one (a second would
/// overflow the 100 000-byte send buffer). Stream 1 writes one 200-byte message at 2 ms,
/// behind those 59 800 bytes: the stream is then 60 000 bytes, 60 whole segments.
fn scenario(loss: &str) -> String {
    format!(
        r#"duration = "2s"
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
queue = 200
{loss}
[[flows]]
name = "t"
type = "tcp"
variant = "newreno"
from = "a"
to = "b"
window = 100
initial_window = 100
stream_traffic = [
  {{ stream = 0, message_size = "59800B", stop = "1ms" }},
  {{ stream = 1, message_size = "200B", interval = "10s", start = "2ms" }},
]
"#
    )
}

fn delay(s: &Value, i: usize) -> f64 {
    let st = &s["flows"]["t"]["streams"][i];
    assert_eq!(st["delivered_messages"], 1, "{st}");
    let d = st["message_delay_mean_s"].as_f64().expect("delay");
    assert_eq!(st["message_delay_p99_s"].as_f64(), Some(d), "{st}");
    d
}

/// One 1040-byte data packet (40 B of IPv4 and TCP headers) at 10 Mb/s.
const TX: f64 = 1040.0 * 8.0 / 10e6;
/// One 40-byte ack at 10 Mb/s.
const ACK_TX: f64 = 40.0 * 8.0 / 10e6;
const ONE_WAY: f64 = 0.050;

#[test]
fn small_message_behind_backlog_arrives_after_the_bytes_before_it() {
    let s = run(&scenario(""), 1);
    let t = &s["flows"]["t"];
    assert_eq!(t["retransmissions"], 0, "{t}");
    // Segments 0..58 leave at 0; segment 59 (the last 800 bytes of the backlog message
    // and the 200-byte message) joins the queue at 2 ms, behind them. The message's
    // last byte is through the link after all (59 800 + 200) bytes and their 60
    // headers: 60 x 1040 B x 8 / 10 Mb/s = 49.92 ms, arrives 50 ms later, and was
    // submitted at 2 ms: 97.92 ms.
    let small = delay(&s, 1);
    assert!(
        (small - (60.0 * TX + ONE_WAY - 0.002)).abs() < 1e-9,
        "{small}"
    );
    // The backlog message's tail shares segment 59 (whole segments only): 99.92 ms.
    let big = delay(&s, 0);
    assert!((big - (60.0 * TX + ONE_WAY)).abs() < 1e-9, "{big}");
    assert_eq!(t["streams"][0]["delivered_bytes"], 59_800);
    assert_eq!(t["streams"][1]["delivered_bytes"], 200);
}

#[test]
fn a_loss_blocks_the_later_small_message_until_its_retransmission() {
    // The second segment (packet 2) is lost as it enters the link.
    let s = run(&scenario("loss = { drops = [2], flow = \"t\" }"), 1);
    let t = &s["flows"]["t"];
    assert_eq!(t["fast_retransmissions"], 1, "{t}");
    // Segments 0 and 2..59 cross at once (segment i >= 2 through the link at i x TX,
    // segment 1 never took its turn). Segments 2, 3, 4 each draw a duplicate ack; the
    // third (segment 4's, through at 4 TX, + 50 ms, + its 40-byte ack's transmission
    // and 50 ms back) makes the sender resend segment 1 at once onto the idle link; it
    // arrives one TX and 50 ms later and delivers the rest of the 60 000 bytes.
    // Segment 59, through at 59 TX + 50 ms = 99.088 ms, waits at the receiver until
    // then: 151.36 ms after the small message's submission at 2 ms.
    let resent_arrives = 4.0 * TX + ONE_WAY + ACK_TX + ONE_WAY + TX + ONE_WAY;
    let small = delay(&s, 1);
    assert!((small - (resent_arrives - 0.002)).abs() < 1e-9, "{small}");
    assert!(small > 59.0 * TX + ONE_WAY - 0.002 + 0.05, "{small}");
}

#[test]
fn tcp_stream_traffic_refuses_what_a_byte_stream_lacks() {
    let bad = |entries: &str| {
        let text = scenario("").replace(
            "stream_traffic = [\n  { stream = 0, message_size = \"59800B\", stop = \"1ms\" },\n  { stream = 1, message_size = \"200B\", interval = \"10s\", start = \"2ms\" },\n]",
            entries,
        );
        match sctplab_core::load_toml(&text, "s.toml", "s", &[]) {
            Ok(_) => String::from("accepted"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        bad(r#"stream_traffic = [{ stream = 0, message_size = "200B", interval = "10ms" }]"#),
        "s.toml: flows.t.stream_traffic: a tcp flow sends whole segments (as ns-2's agents): \
         expected a backlog source (an entry without `interval`) to keep the byte stream full"
    );
    assert_eq!(
        bad(r#"stream_traffic = [{ stream = 0, message_size = "1KB", priority = 2 }]"#),
        "s.toml: flows.t.stream_traffic.0.priority: expected none: a tcp flow carries its \
         sources in one byte stream, in submission order"
    );
    assert_eq!(
        bad(
            r#"stream_traffic = [{ stream = 0, message_size = "1KB", pr_policy = "ttl", pr_value = "1s" }]"#
        ),
        "s.toml: flows.t.stream_traffic.0.pr_policy: partial reliability is SCTP's (RFC 3758): \
         a tcp byte stream is reliable"
    );
    assert_eq!(
        bad(r#"stream_traffic = [{ stream = 1, message_size = "1KB" }]"#),
        "s.toml: flows.t.stream_traffic.0.stream: stream 1: a tcp flow has one byte stream, \
         the numbers label its 1 sources: expected each of 0..0 once"
    );
}

#[test]
fn with_handshake_the_application_starts_with_the_connection() {
    // The SYN-ACK arrives after a little over 100 ms: stream 1's tick at 2 ms came
    // before the application started, so it is no message (as for SCTP and QUIC).
    let early = run(
        &scenario("").replace("to = \"b\"\n", "to = \"b\"\nhandshake = true\n"),
        1,
    );
    assert_eq!(
        early["flows"]["t"]["streams"][1]["delivered_messages"], 0,
        "{early}"
    );
    // With the backlog stopping at 150 ms (it writes one message at the SYN-ACK; the
    // second waits for room, which the first ack makes at about 201 ms) and stream 1
    // starting at 200 ms: by then the 59 800 bytes written at the SYN-ACK have left the link (59 packets
    // in 49.088 ms) and their first ack is not back yet (200.9 ms): the 200-byte message
    // completes segment 59, which crosses the idle link alone: one TX and 50 ms.
    let text = scenario("")
        .replace("to = \"b\"\n", "to = \"b\"\nhandshake = true\n")
        .replace("stop = \"1ms\"", "stop = \"150ms\"")
        .replace("start = \"2ms\"", "start = \"200ms\"");
    let late = run(&text, 1);
    let small = delay(&late, 1);
    assert!((small - (TX + ONE_WAY)).abs() < 1e-9, "{small}");
}

/// After the sources stop and every byte written is acked, the connection is idle but
/// not finished (a message application has no last byte): the retransmission timer
/// keeps running and each expiry with nothing outstanding restarts the window at one
/// segment without cutting ssthresh, counting no timeout and resending nothing. That
/// is ns-2.35's slow-start restart (tcp.cc `TcpAgent::timeout` with its defaults
/// `slow_start_restart_ true`, `restart_bugfix_ true`: `slowdown(CLOSE_CWND_ONE)`, the
/// timer re-armed without backoff); ns-2.35 itself, an `Agent/TCP/Sack1` of window 179
/// and `windowInit_ 3` after a 61-segment `produce`, shows `cwnd_ 1`, `ssthresh_ 179`
/// and `nrexmit_ 0` from the first idle RTO on. RFC 5681 sec. 4.1 restarts at
/// RW = min(IW, cwnd) instead, when sending resumes (docs/models/tcp.md).
#[test]
fn an_idle_connection_restarts_its_window_at_one_segment_as_ns2() {
    // The 60 segments are acked by about 0.2 s; the run goes on idle until 2 s, more
    // than one RTO (1 s at most here).
    let s = run(&scenario(""), 1);
    let t = &s["flows"]["t"];
    assert_eq!(t["final_cwnd"], 1.0, "{t}");
    // No cut: ssthresh stays the initial one (the window, 100).
    assert_eq!(t["final_ssthresh"], 100.0, "{t}");
    assert_eq!(t["timeouts"], 0, "{t}");
    assert_eq!(t["retransmissions"], 0, "{t}");
    // Stopped before the first idle expiry, the window is what the acks opened: the
    // 100-segment initial window plus one per ack in slow start... at least 100.
    let short = run(
        &scenario("").replace("duration = \"2s\"", "duration = \"250ms\""),
        1,
    );
    assert!(
        short["flows"]["t"]["final_cwnd"].as_f64() >= Some(100.0),
        "{short}"
    );
}
