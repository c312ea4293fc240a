//! A QUIC flow's `receive_buffer` is its flow-control credit (RFC 9000 sec. 4.1), as
//! SCTP's is its a_rwnd: a window-limited flow delivers at most one buffer per round
//! trip, by hand.

mod common;

use common::summary as run;

/// A 100 Mb/s link with 100 ms each way: 20 s of bulk QUIC (NewReno, no random loss,
/// a queue no window here overflows), with the given extra flow keys.
fn scenario(extra: &str) -> String {
    format!(
        r#"duration = "20s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "100Mb"
delay = "100ms"
queue = 10000
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
congestion_control = "reno"
{extra}
"#
    )
}

fn goodput(extra: &str) -> f64 {
    run(&scenario(extra), 1)["flows"]["q"]["goodput_bps"]
        .as_f64()
        .unwrap()
}

#[test]
fn receive_buffer_bounds_the_goodput_by_one_buffer_per_round_trip() {
    // The round trip is at least the 200 ms of propagation (transmission at 100 Mb/s
    // adds 0.1 ms per datagram), so 64 KiB of credit allows at most
    // 65536 * 8 / 0.2 = 2.62 Mb/s. quinn announces a larger window once it has grown by
    // an eighth (so the sender always holds at least 7/8 of the buffer's credit) and
    // sends such a frame as soon as the application has read, so after slow start
    // (about 3 of the 100 round trips) the flow keeps at least 7/8 of a buffer in
    // flight; 0.75 of the bound leaves room for the start and the handshake's round trip.
    let bound = 65536.0 * 8.0 / 0.2;
    let g = goodput("receive_buffer = \"64KiB\"");
    assert!(g <= bound, "{g} above {bound}");
    assert!(g >= 0.75 * bound, "{g} far below {bound}");
    // Four times the buffer, four times the bound (still window-limited: 10.5 Mb/s of
    // the link's 100).
    let g4 = goodput("receive_buffer = \"256KiB\"");
    assert!(g4 <= 4.0 * bound && g4 >= 0.75 * 4.0 * bound, "{g4}");
    // quinn's defaults (1.25 MB per stream) allow far more than 64 KiB does.
    let free = goodput("");
    assert!(free > 3.0 * bound, "{free}");
}

#[test]
fn receive_buffer_out_of_range_is_one_line() {
    let e = sctplab_core::load_toml(&scenario("receive_buffer = \"100B\""), "s.toml", "s", &[])
        .expect_err("must fail")
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("flows.q.receive_buffer") && e.contains("1024B"),
        "{e}"
    );
}

#[test]
fn a_backlog_does_not_starve_a_ticking_stream_of_the_credit() {
    // With 16 KiB of credit the backlog on stream 0 could take all of it each time the
    // receiver's reads free some; due messages are written first (as SCTP's send buffer
    // takes them), so stream 1 still gets every message it ticks: 0.5, 0.52, ..., 1.48 s,
    // 50 messages. Once written a message is within the credit, and quinn's pacer lets
    // a window go out per smoothed round trip at the latest, so it leaves within one
    // round trip (0.2 s) and arrives after the one-way delay (0.1 s) plus the
    // transmission of what the credit lets queue ahead of it (16 KiB: under 13
    // datagrams of 1500 B at 100 Mb/s).
    let text = scenario(
        r#"streams = 2
stop = "2s"
receive_buffer = "16KiB"
stream_traffic = [
  { stream = 0, message_size = "1KB" },
  { stream = 1, message_size = "200B", interval = "20ms", start = "0.5s", stop = "1.5s" },
]"#,
    );
    let s = run(&text, 3);
    let s1 = &s["flows"]["q"]["streams"][1];
    assert_eq!(s1["delivered_messages"], 50, "{s1}");
    let p99 = s1["message_delay_p99_s"].as_f64().unwrap();
    assert!(p99 < 0.1 + 0.2 + 13.0 * 1500.0 * 8.0 / 100e6, "{s1}");
    assert!(p99 >= 0.1, "{s1}");
}
