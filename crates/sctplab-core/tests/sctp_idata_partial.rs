//! Partial delivery with I-DATA in a run (RFC 8260 sec. 2 with RFC 9260 sec. 6.9):
//! 200 KB messages into a 64 KB receive buffer beside 200-byte messages on another
//! stream. Without partial delivery the buffer fills with the first large message's
//! fragments and the association stalls for good (docs/models/sctp.md); with it,
//! every message the sources submit is delivered.

mod common;

const SCENARIO: &str = r#"
duration = "60s"
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
name = "m"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
streams = 2
stop = "20s"
receive_buffer = "64KB"
interleaving = true
stream_traffic = [
  { stream = 0, message_size = "200KB", interval = "5s" },
  { stream = 1, message_size = "200B", interval = "100ms" },
]
"#;

/// The sources submit one message per interval from the set-up until the 20 s stop:
/// floor((20 - connect time) / interval) each, 3 large and 199 small; every one is
/// delivered, with I-DATA negotiated.
#[test]
fn messages_larger_than_the_buffer_are_delivered_in_parts() {
    let s = common::summary(SCENARIO, 1);
    let f = &s["flows"]["m"];
    assert_eq!(f["interleaving_negotiated"], true, "{f}");
    let t0 = f["connect_time_s"].as_f64().unwrap();
    let streams = f["streams"].as_array().unwrap();
    for (k, (interval, size)) in [(5.0, 200_000u64), (0.1, 200)].into_iter().enumerate() {
        let want = ((20.0 - t0) / interval).floor() as u64;
        assert_eq!(streams[k]["delivered_messages"], want, "stream {k}: {f}");
        assert_eq!(streams[k]["delivered_bytes"], want * size, "stream {k}");
    }
    assert_eq!(f["chunks_dropped_no_buffer"], 0, "{f}");
}
