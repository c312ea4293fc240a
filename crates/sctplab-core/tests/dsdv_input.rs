//! `[wireless] routing = "dsdv"` and `[wireless.dsdv]` (issue 40): bad values are
//! refused in one line at their key; every key is read.

use sctplab_core::{RunOptions, load_toml, run_scenario};

const MANET: &str = r#"
duration = "30s"
[wireless]
width = "600m"
height = "300m"
routing = "dsdv"
[mobility]
model = "random_waypoint"
max_speed = "5m/s"
[[nodes]]
name = "n0"
wlan = 1
[[nodes]]
name = "n1"
wlan = 1
[[nodes]]
name = "n2"
wlan = 1
[[flows]]
name = "c"
type = "cbr"
from = "n0"
to = "n1"
rate = "16Kb"
"#;

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn refused(text: &str, sets: &[(&str, &str)]) -> String {
    let e = load_toml(text, "t.toml", "t", &set(sets)).expect_err("must be refused");
    let line = e.to_string();
    assert!(!line.contains('\n'), "{line}");
    line
}

fn summary(sets: &[(&str, &str)]) -> serde_json::Value {
    let s = load_toml(MANET, "t.toml", "t", &set(sets)).expect("valid");
    let r = run_scenario(&s, &RunOptions::default()).expect("the run ends");
    serde_json::from_str(&r.summary_json).expect("json")
}

#[test]
fn an_unknown_routing_protocol_is_one_line_at_its_key() {
    let text = MANET.replace("routing = \"dsdv\"", "routing = \"olsr\"");
    let line = refused(&text, &[]);
    assert!(
        line.contains("t.toml") && line.contains("routing"),
        "{line}"
    );
    assert!(line.contains("olsr") && line.contains("dsdv"), "{line}");
}

#[test]
fn negative_or_zero_update_intervals_are_refused() {
    let line = refused(MANET, &[("wireless.dsdv.update_interval", "-15s")]);
    assert!(line.contains("wireless.dsdv.update_interval"), "{line}");
    let line = refused(MANET, &[("wireless.dsdv.update_interval", "0s")]);
    assert!(
        line.contains("wireless.dsdv.update_interval: must be greater than zero"),
        "{line}"
    );
}

#[test]
fn meaningless_dsdv_constants_are_refused() {
    for (k, v, what) in [
        ("wireless.dsdv.missed_updates", "0", "at least 1"),
        ("wireless.dsdv.settling_weight", "1.5", "from 0 to 1"),
        ("wireless.dsdv.settling_weight", "-0.1", "from 0 to 1"),
        ("wireless.dsdv.ttl", "0", "at least 1"),
        ("wireless.dsdv.no_such_key", "1", "no_such_key"),
    ] {
        let line = refused(MANET, &[(k, v)]);
        assert!(line.contains(k.rsplit('.').next().unwrap_or(k)), "{line}");
        assert!(line.contains(what), "{line}");
    }
}

#[test]
fn dsdv_nodes_report_their_updates_and_routing_packets() {
    let s = summary(&[]);
    let nodes = s["nodes"].as_object().expect("nodes");
    let mut packets = 0;
    for (name, n) in nodes {
        let r = &n["routing"];
        let sent = r["periodic_updates_sent"].as_u64().unwrap_or(0)
            + r["triggered_updates_sent"].as_u64().unwrap_or(0);
        // Full updates at U(0, 2) s, then every 11.25-15 s: at least 2 in 30 s.
        assert!(
            r["periodic_updates_sent"].as_u64() >= Some(2),
            "{name}: {r}"
        );
        // Each update is one routing packet from this node.
        assert_eq!(n["routing_packets"].as_u64(), Some(sent), "{name}: {n}");
        // 20 bytes of IP header and 12 per entry.
        let entries = r["entries_advertised"].as_u64().unwrap_or(0);
        assert_eq!(
            n["routing_bytes"].as_u64(),
            Some(20 * sent + 12 * entries),
            "{name}: {n}"
        );
        packets += sent;
    }
    assert!(packets > 0);
    // Every key is read: no jitter and a longer interval change the run.
    let other = summary(&[
        ("wireless.dsdv.update_interval", "20s"),
        ("wireless.dsdv.randomize", "false"),
        ("wireless.dsdv.initial_settling_time", "3s"),
        ("wireless.dsdv.settling_weight", "0.5"),
        ("wireless.dsdv.missed_updates", "2"),
        ("wireless.dsdv.mac_link_breaks", "true"),
        ("wireless.dsdv.startup_jitter", "1s"),
        ("wireless.dsdv.broadcast_jitter", "5ms"),
        ("wireless.dsdv.min_triggered_interval", "2s"),
        ("wireless.dsdv.queue_limit", "10"),
        ("wireless.dsdv.ttl", "16"),
    ]);
    assert_ne!(other["nodes"], s["nodes"]);
}
