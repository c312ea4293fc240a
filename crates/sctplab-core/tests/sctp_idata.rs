//! I-DATA (RFC 8260 sec. 2) in whole runs of scenarios/example-schedulers.toml with
//! `interleaving = true`: a 200-byte message every 100 ms on stream 1 behind a backlog
//! of 16 KB messages on stream 0, one 1 Mb/s link of 10 ms with a queue of 10 packets.
//! Bounds by hand (tests/sctp_schedulers.rs derives the DATA ones):
//! - with I-DATA a scheduler chooses for every chunk, so a small message that
//!   `priority`, `fair`, `wfq`, `rr_packet` or `rr` picks goes as the next chunk cut,
//!   not after the rest of the 16 KB message being cut. Ahead of it is at most the
//!   flight, about 19 KB (the bandwidth-delay product 2500 B, the queue 10 x 1500 B and
//!   one MTU): 19 000 x 1500 / 1448 x 8 / 10^6 = 0.157 s at 1448 bytes of payload per
//!   packet, plus its own 10 ms path and a packet time (12 ms): under 0.18 s for every
//!   message (the 99th percentile too), where DATA's bound for `priority` is 0.31 s
//!   and `rr` by messages waits seconds. `rr` now qualifies: one chunk per stream in
//!   turn, and stream 1 never has more than one message waiting.
//! - first come first served is unchanged by I-DATA: each small message still waits
//!   behind the 46 KB of the send buffer not in flight, at least 0.38 s.
//! - a capture of the run shows I-DATA chunks tshark decodes with a good CRC32c.

mod common;
use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn scenario(scheduler: &str, interleaving: bool) -> sctplab_core::Scenario {
    scenario_for(scheduler, interleaving, "60s")
}

fn scenario_for(scheduler: &str, interleaving: bool, duration: &str) -> sctplab_core::Scenario {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/example-schedulers.toml"
    );
    let text = std::fs::read_to_string(path).expect("scenario shipped");
    let text = text
        .replace(
            "scheduler = \"fcfs\"",
            &format!("scheduler = \"{scheduler}\"\ninterleaving = {interleaving}"),
        )
        .replace("duration = \"60s\"", &format!("duration = \"{duration}\""))
        .replace("stop = \"55s\"", &format!("stop = \"{duration}\""));
    load_toml(&text, path, "example-schedulers", &[]).expect("valid scenario")
}

fn small_delays(scheduler: &str) -> (f64, f64, Value) {
    let s = scenario(scheduler, true);
    let r = run_scenario(&s, &RunOptions::default()).expect("run");
    let v: Value = serde_json::from_str(&r.summary_json).expect("json");
    let flow = v["flows"]["messages"].clone();
    assert_eq!(flow["interleaving_negotiated"], Value::Bool(true));
    assert_eq!(flow["idata_malformed"], 0);
    let small = &flow["streams"][1];
    assert!(small["delivered_messages"].as_u64().unwrap_or(0) > 500);
    (
        small["message_delay_mean_s"].as_f64().unwrap_or(f64::NAN),
        small["message_delay_p99_s"].as_f64().unwrap_or(f64::NAN),
        flow,
    )
}

#[test]
fn with_i_data_the_small_message_no_longer_waits_for_the_large_one() {
    for s in ["priority", "fair", "wfq", "rr_packet", "rr"] {
        let (mean, p99, _) = small_delays(s);
        assert!(p99 < 0.18, "{s}: p99 {p99}");
        assert!(mean <= p99, "{s}");
    }
}

#[test]
fn first_come_first_served_is_the_same_with_i_data() {
    let (mean, _, _) = small_delays("fcfs");
    assert!(mean >= 0.38, "{mean}");
}

#[test]
fn interleaving_off_leaves_the_summary_without_its_keys() {
    let s = scenario("priority", false);
    let r = run_scenario(&s, &RunOptions::default()).expect("run");
    let v: Value = serde_json::from_str(&r.summary_json).expect("json");
    assert!(
        v["flows"]["messages"]
            .get("interleaving_negotiated")
            .is_none()
    );
}

#[test]
fn tshark_decodes_the_i_data_of_a_run() {
    let Some(tshark) = common::tshark() else {
        eprintln!("tshark not installed: nothing to check against");
        return;
    };
    let dir = std::env::temp_dir().join(format!("sctplab-idata-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = scenario_for("priority", true, "2s");
    let trace = TraceConfig {
        out_dir: Some(dir.clone()),
        pcap: true,
        ..TraceConfig::default()
    };
    run_scenario(
        &s,
        &RunOptions {
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let pcap = dir.join("pcap").join("source-eth0.pcap");
    let run = |args: &[&str]| common::tshark_read(tshark, &pcap, args);
    let verbose = run(&["-V", "-c", "40"]);
    assert!(!verbose.contains("Malformed"), "{verbose}");
    assert!(!verbose.contains("Checksum Status: Bad"));
    assert!(verbose.contains("Supported types: I_DATA"), "{verbose}");
    // Stream 1's messages (MIDs 0, 1, ...) between stream 0's fragments: every
    // I-DATA chunk tshark sees carries a stream, a MID and a TSN.
    let fields = run(&[
        "-Y",
        "sctp.chunk_type == 64",
        "-T",
        "fields",
        "-e",
        "sctp.data_sid",
        "-e",
        "sctp.data_mid",
    ]);
    let lines: Vec<&str> = fields.lines().collect();
    assert!(lines.len() > 50, "{fields}");
    assert!(lines.iter().any(|l| l.contains("0x0001")), "{fields}");
    assert!(!run(&["-Y", "sctp.chunk_type == 0"]).contains("DATA"));
    std::fs::remove_dir_all(&dir).ok();
}
