//! The stream schedulers (RFC 8260 sec. 3) on scenarios/example-schedulers.toml: a
//! 200-byte message every 100 ms on stream 1 behind a backlog of 16 KB messages on
//! stream 0, DATA chunks, one 1 Mb/s link of 10 ms with a queue of 10 packets, a 64 KiB
//! send buffer. Bounds by hand:
//! - the flight is at most the bandwidth-delay product (1 Mb/s x 20 ms = 2500 B) plus
//!   the queue (10 x 1500 B) plus one MTU: about 19 KB, so at least 64 KiB - 19 KB =
//!   46 KB of the buffer is unsent. First come first served puts each small message
//!   behind all of it: at 1452 bytes of payload per 1500-byte packet that is at least
//!   46 000 x 1500 / 1452 x 8 / 10^6 = 0.38 s of sending before it goes.
//! - `priority` (stream 1's priority 0 is smaller) sends it once the 16 KB message
//!   being cut is complete: at most 16 KB unsent plus the 19 KB flight ahead of it,
//!   35 000 x 1500 / 1452 x 8 / 10^6 = 0.29 s, plus its own 10 ms path and a packet
//!   time: under 0.31 s for every message (the 99th percentile too).
//! - `fair` and `wfq` serve stream 1 as `priority` does (it has cut far fewer bytes),
//!   `rr_packet` too (a packet continuing stream 0's message is pinned to it; the next
//!   one turns to stream 1): the same bound.
//! - `rr` is fair in messages, not bytes: one small message per 16 KB one, at most
//!   one per 16 200 x 1500 / 1452 x 8 / 10^6 = 0.134 s, 7.5 a second where 10 a second
//!   are offered. Stream 1's queue grows by 2.5 messages a second, so a message
//!   submitted at t waits about 2.5 t / 7.5 = t / 3: about 9 s on average over the 55 s
//!   (more than 2 s, conservatively).

use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn delays(scheduler: &str) -> (f64, f64) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/example-schedulers.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario shipped");
    let text = text.replace(
        "scheduler = \"fcfs\"",
        &format!("scheduler = \"{scheduler}\""),
    );
    let s = load_toml(&text, path, "example-schedulers", &[]).expect("valid scenario");
    let r = run_scenario(&s, &RunOptions::default()).expect("run");
    let v: Value = serde_json::from_str(&r.summary_json).expect("json");
    let small = &v["flows"]["messages"]["streams"][1];
    assert!(small["delivered_messages"].as_u64().unwrap_or(0) > 400);
    (
        small["message_delay_mean_s"].as_f64().unwrap_or(f64::NAN),
        small["message_delay_p99_s"].as_f64().unwrap_or(f64::NAN),
    )
}

#[test]
fn a_small_message_waits_behind_the_send_buffer_first_come_first_served() {
    let (mean, _) = delays("fcfs");
    assert!(mean >= 0.38, "{mean}");
}

#[test]
fn round_robin_by_messages_starves_the_small_stream() {
    let (mean, _) = delays("rr");
    assert!(mean > 2.0, "{mean}");
}

#[test]
fn the_other_schedulers_send_it_after_the_message_being_cut() {
    for s in ["priority", "rr_packet", "fair", "wfq"] {
        let (mean, p99) = delays(s);
        assert!(p99 < 0.31, "{s}: p99 {p99}");
        assert!(mean <= p99, "{s}");
    }
}
