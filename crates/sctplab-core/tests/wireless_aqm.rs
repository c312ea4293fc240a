//! `[wireless] aqm` (beyond the contract; docs/models/aqm.md "The wireless interface
//! queue"): a discipline on every wireless NIC's interface queue, in whole runs of
//! `scenarios/manet-codel.toml`, and its bad input. The queue's rules are unit-tested by
//! hand in `src/wireless/ifq_aqm.rs`.

mod common;

use sctplab_core::load_toml;
use serde_json::Value;
use std::path::Path;

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/manet-codel.toml");
    std::fs::read_to_string(path).expect("scenarios/manet-codel.toml")
}

/// The example with `sets` applied (and 30 s instead of 60), summary.json with seed 1.
fn run(sets: &[(&str, &str)]) -> Value {
    run_text(&example(), sets)
}

fn run_text(text: &str, sets: &[(&str, &str)]) -> Value {
    let mut sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    sets.push(("duration".into(), "30s".into()));
    let s = load_toml(text, "manet-codel.toml", "t", &sets).expect("valid");
    let r = sctplab_core::run_scenario(
        &s,
        &sctplab_core::RunOptions {
            seed: 1,
            ..Default::default()
        },
    )
    .expect("run");
    serde_json::from_str(&r.summary_json).unwrap()
}

fn node_sum(s: &Value, key: &str) -> u64 {
    let nodes = s["nodes"].as_object().expect("nodes");
    nodes.values().map(|n| n[key].as_u64().expect(key)).sum()
}

/// CoDel with `ecn` marks the ECN-capable flows' packets instead of dropping them: the
/// receivers see CE marks and the senders cut their windows for them (Not-ECT packets,
/// the TCP acks and SCTP's SACK-only packets, may still be dropped); without `ecn` the
/// same discipline only drops. Without `aqm` the nodes carry no discipline keys (their
/// summary is the drop-tail PriQueue's as before).
#[test]
fn codel_marks_ecn_capable_flows_at_the_interface_queue() {
    let marked = run(&[]);
    let marks = node_sum(&marked, "ecn_marks");
    let ce: u64 = ["tcp", "sctp"]
        .iter()
        .map(|f| marked["flows"][f]["ce_marks"].as_u64().unwrap())
        .sum();
    assert!(marks > 0 && ce > 0, "marks {marks}, ce {ce}");
    // Every CE a receiver counts was set by a queue (some marked packets are lost on a
    // later hop, or arrive outside the measurement window: `ce_marks` is windowed).
    assert!(ce <= marks, "ce {ce} > marks {marks}");
    for f in ["tcp", "sctp"] {
        let flow = &marked["flows"][f];
        assert!(flow["ecn_reductions"].as_u64().unwrap() > 0, "{f}: {flow}");
    }
    let n0 = &marked["nodes"]["n0"];
    assert!(n0["queue_delay_mean_s"].as_f64().unwrap() > 0.0, "{n0}");

    let dropped = run(&[("wireless.aqm", r#"{kind="codel"}"#)]);
    assert!(node_sum(&dropped, "aqm_drops") > 0);
    assert_eq!(node_sum(&dropped, "ecn_marks"), 0);

    let without: String = example()
        .lines()
        .filter(|l| !l.starts_with("aqm = "))
        .map(|l| format!("{l}\n"))
        .collect();
    let plain = run_text(&without, &[]);
    for (name, n) in plain["nodes"].as_object().unwrap() {
        for key in ["aqm_drops", "ecn_marks", "queue_delay_mean_s"] {
            assert!(n.get(key).is_none(), "{name}: {key} without aqm");
        }
    }
    assert_eq!(plain["flows"]["tcp"]["ce_marks"], 0);
}

/// Bad `wireless.aqm` values: one line naming the key.
#[test]
fn bad_wireless_aqm_is_one_line_at_its_key() {
    let text = example();
    for (value, key, words) in [
        (
            r#"{kind="blue"}"#,
            "wireless.aqm.kind",
            "unknown queue discipline",
        ),
        (
            r#"{kind="codel",target="-5ms"}"#,
            "wireless.aqm.target",
            "negative",
        ),
        (
            r#"{kind="codel",target="0ms"}"#,
            "wireless.aqm.target",
            "greater than zero",
        ),
        (r#"{kind="fq_codel"}"#, "wireless.aqm.kind", "not available"),
        (
            r#"{kind="red",thresh=60}"#,
            "wireless.aqm.thresh",
            "interface queue's",
        ),
        (r#"{kind="pie",colour=1}"#, "wireless.aqm", "colour"),
    ] {
        let e = load_toml(
            &text,
            "m.toml",
            "t",
            &[("wireless.aqm".into(), value.into())],
        )
        .expect_err(value)
        .to_string();
        assert!(!e.contains('\n'), "{value}: {e}");
        assert!(e.contains(key) && e.contains(words), "{value}: {e}");
    }
    for (k, v, words) in [
        ("wireless.routing", "dsr", "CMUPriQueue"),
        ("wireless.prefer_routing", "false", "prefer_routing"),
    ] {
        let e = load_toml(&text, "m.toml", "t", &[(k.into(), v.into())])
            .expect_err(k)
            .to_string();
        assert!(!e.contains('\n'), "{k}: {e}");
        assert!(e.contains("wireless.aqm") && e.contains(words), "{k}: {e}");
    }
}
