//! The fast MANET world against the plain one on seed 004's full network (issue 31,
//! step 4): the random equivalence tests in `wireless/tests.rs` use 3-9 nodes for 20 s; this
//! one runs `scenarios/manet-sctp.toml` (46 nodes, AODV, CBR background, the SCTP
//! transfer from 20 s) for 60 s both ways, every shortcut on and every MAC timer and
//! reception an event of the queue (`Shortcuts::NONE`). They must give the same
//! summary.json (all but `events`: the plain run pops every deferred event, so it
//! counts more) and every MAC the same inputs in the same order (`mac_digest`). The
//! plain run and a second fast run write pcap captures and trace.tr, which must agree
//! in their canonical order (world/trace_hold.rs: the lines and records of one time
//! stamp sorted; the tie below orders two frames of one nanosecond differently), and
//! tracing must leave the fast run's summary.json as it is, `events` included. The same
//! network runs both ways under DSR too (issue 40), whose tap reads overheard frames.
//!
//! Every MAC's inputs must agree in full, the order within one instant included. Until
//! issue 31's step 1 they did not at NICs 1 and 28: virtual MAC timer events of NICs 2
//! and 17 took the same key (27.359206664 s, 1378827) and entered the queue in NIC
//! order where the plain run's numbers put 17 first; lineages (`sim::lazy`, rule 5)
//! now order such ties as the plain run does.

use super::Shortcuts;
use super::mac_digest::Digest;
use super::wireless::fast::traced_tests::assert_same_traces;
use crate::trace::TraceConfig;
use std::path::Path;

/// summary.json without its `events` line, the MAC input digests and `events`; with
/// `--pcap --trace ns2` into `dir` if given.
fn run(
    text: &str,
    sets: &[(String, String)],
    shortcuts: Shortcuts,
    dir: Option<&Path>,
) -> (String, Vec<Digest>, u64) {
    let s = crate::load_toml(text, "scenarios/manet-sctp.toml", "manet-sctp", sets).expect("valid");
    let mut trace = TraceConfig::default();
    if let Some(d) = dir {
        trace.out_dir = Some(d.to_path_buf());
        trace.pcap = true;
        trace.set_traces(&["ns2"]).expect("ns2 trace");
    }
    let r = crate::run_scenario(
        &s,
        &crate::RunOptions {
            seed: 1,
            shortcuts,
            trace,
            ..Default::default()
        },
    )
    .expect("run");
    let summary = r
        .summary_json
        .lines()
        .filter(|l| !l.starts_with("  \"events\": "))
        .collect::<Vec<_>>()
        .join("\n");
    (summary, r.mac_digests, r.events)
}

#[test]
fn seed004_network_60s_plain_and_fast_agree() {
    let fast = plain_and_fast_agree(&[], "seed 004, 60 s", 100_000);
    // The transfer ran: a comparison of two idle networks would prove little.
    assert!(fast.contains("\"transport\": {"), "{fast}");
}

/// The same network under DSR (issue 40): its tap reads every unicast DATA frame a
/// MAC overhears, which the accelerators give real events (`Wireless::logs_frame`)
/// while the rest stays lazy. The taps must have read frames.
#[test]
fn seed004_network_under_dsr_60s_plain_and_fast_agree() {
    let fast = plain_and_fast_agree(
        &[("wireless.routing", "\"dsr\"")],
        "seed 004 under DSR, 60 s",
        50_000,
    );
    let tapped: u64 = fast
        .split("\"tapped\": ")
        .skip(1)
        .filter_map(|t| {
            t.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum();
    assert!(tapped > 1000, "tapped {tapped}");
}

/// Runs seed 004's network for 60 s with `extra` settings plain (traced), fast and
/// fast traced; asserts what the module says (traces of over 100,000 pcap records and
/// `min_lines` trace lines: a busy network) and returns the fast summary.
fn plain_and_fast_agree(extra: &[(&str, &str)], label: &str, min_lines: usize) -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/manet-sctp.toml"
    );
    let text = std::fs::read_to_string(path).expect("shipped scenario");
    let sets: Vec<(String, String)> = [
        ("duration", "\"60s\""),
        ("measure.end", "\"60s\""),
        ("flows.transport.stop", "\"60s\""),
    ]
    .iter()
    .chain(extra)
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let tag = label.replace([' ', ','], "");
    let dir = |kind: &str| {
        let d = std::env::temp_dir().join(format!(
            "sctplab-seed004-{}-{tag}-{kind}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    };
    let (plain_dir, fast_dir) = (dir("plain"), dir("fast"));
    let (plain, plain_inputs, plain_events) = run(&text, &sets, Shortcuts::NONE, Some(&plain_dir));
    let (fast, fast_inputs, fast_events) = run(&text, &sets, Shortcuts::ALL, None);
    let traced = run(&text, &sets, Shortcuts::ALL, Some(&fast_dir));
    assert!(
        traced == (fast.clone(), fast_inputs.clone(), fast_events),
        "{label}: --pcap --trace ns2 changed the fast run"
    );
    let (records, lines) = assert_same_traces(&plain_dir, &fast_dir, label);
    let _ = std::fs::remove_dir_all(&plain_dir);
    let _ = std::fs::remove_dir_all(&fast_dir);
    // DSR's 60 s write 1.06 M pcap records and 94 k trace lines.
    assert!(records > 100_000 && lines > min_lines, "{records} {lines}");
    assert_eq!(plain, fast, "{label}: summary.json differs (events aside)");
    assert_eq!(plain_inputs.len(), 46);
    for (nic, (p, f)) in plain_inputs.iter().zip(&fast_inputs).enumerate() {
        assert_eq!(
            p, f,
            "{label}: NIC {nic}: MAC inputs differ (count, instants or order)"
        );
    }
    assert!(
        fast_events < plain_events / 2,
        "{label}: the fast run should pop far fewer events ({fast_events} vs {plain_events})"
    );
    fast
}
