//! `--trace anim` (issue 41): the animation trace changes nothing the run computes
//! (summary.json byte for byte, `events` included, wireless runs too: the trace takes
//! frames where they go on the air, with the shortcuts on), and its records say what
//! the scenario says (nodes, links, positions, hops over existing links only).

use sctplab_core::trace::TraceConfig;
use sctplab_core::trace::anim::{FILE_NAME, FORMAT, HOPS_PER_BIN, VERSION};
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn scenario(file: &str, sets: &[(&str, &str)]) -> sctplab_core::Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_toml(&text, file, "anim", &sets).expect("valid scenario")
}

fn run(s: &sctplab_core::Scenario, dir: Option<&Path>) -> String {
    let mut trace = TraceConfig::default();
    if let Some(d) = dir {
        trace.out_dir = Some(d.to_path_buf());
        trace.set_traces(&["anim"]).expect("kind");
    }
    run_scenario(
        s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run")
    .summary_json
}

fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sctplab-anim-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Header and records of a trace.
fn read(dir: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(dir.join(FILE_NAME)).expect("anim.jsonl written");
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("every line is JSON"));
    let header = lines.next().expect("header");
    (header, lines.collect())
}

fn tagged<'a>(recs: &'a [Value], tag: &str) -> Vec<&'a Value> {
    recs.iter().filter(|r| r[0] == tag).collect()
}

#[test]
fn wired_trace_matches_the_topology_and_changes_nothing() {
    // example-tcp: h1,h3 - r1 - r2 - h2,h4; a 1% lossy 250 ms bottleneck r1-r2.
    let s = scenario("example-tcp.toml", &[("duration", "\"20s\"")]);
    let dir = fresh_dir("wired");
    assert_eq!(
        run(&s, None),
        run(&s, Some(&dir)),
        "--trace anim changed summary.json"
    );
    let (h, recs) = read(&dir);
    assert_eq!(h["format"], FORMAT);
    assert_eq!(h["version"], VERSION);
    let names: Vec<&str> = h["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["h1", "h3", "r1", "r2", "h2", "h4"]);
    assert!(h["wireless"].is_null());
    let links: Vec<(u64, u64)> = h["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| (l["a"].as_u64().expect("a"), l["b"].as_u64().expect("b")))
        .collect();
    assert_eq!(links, [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)]);
    // The bottleneck's delay is 250 ms.
    assert_eq!(h["links"][2]["delay_us"], 250_000);
    assert!(tagged(&recs, "leg").is_empty(), "wired nodes have no legs");
    let hops = tagged(&recs, "hop");
    assert!(hops.len() > 100);
    for hop in &hops {
        let (a, b) = (hop[3].as_u64().expect("from"), hop[4].as_u64().expect("to"));
        assert!(
            links.contains(&(a, b)) || links.contains(&(b, a)),
            "hop {hop} is not over a link"
        );
    }
    // A 1500-byte packet over the bottleneck: 4 ms of transmission at 3 Mb/s plus
    // 250 ms of propagation (hand calculation).
    let bottleneck_data = hops
        .iter()
        .find(|h| h[3] == 2 && h[4] == 3 && h[6] == "d")
        .expect("a data packet over the bottleneck");
    let dur = bottleneck_data[2].as_u64().expect("dur");
    assert!((250_000..=254_000).contains(&dur), "{dur} us");
    // The 1% loss shows as drops at the bottleneck's sender (20 s, ~1,000 packets).
    assert!(tagged(&recs, "drop").iter().any(|d| d[4] == "loss"));
    // Samples every 100 ms per flow (two flows), rates non-negative.
    let samples = tagged(&recs, "s");
    assert!(samples.len() >= 2 * 190, "{} samples", samples.len());
    assert!(
        samples
            .iter()
            .all(|s| s[4].as_f64().is_some_and(|r| r >= 0.0))
    );
    assert!(
        samples
            .iter()
            .any(|s| s[3].as_f64().is_some_and(|c| c > 0.0))
    );
    assert_eq!(recs.last().expect("end")[0], "end");
    assert_eq!(recs.last().expect("end")[1], 20_000_000);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn manet_trace_keeps_the_shortcuts_and_the_budget() {
    let s = scenario(
        "manet-sctp.toml",
        &[
            ("duration", "\"25s\""),
            ("measure.end", "\"25s\""),
            ("flows.transport.stop", "\"25s\""),
        ],
    );
    let dir = fresh_dir("manet");
    assert_eq!(
        run(&s, None),
        run(&s, Some(&dir)),
        "--trace anim changed summary.json (events included)"
    );
    let (h, recs) = read(&dir);
    let nodes = h["nodes"].as_array().expect("nodes").len();
    let w = &h["wireless"];
    // 1000 m x 300 m (the scenario's area).
    assert_eq!(w["width_m"], 1000.0);
    assert_eq!(w["height_m"], 300.0);
    // ns-2's default radio (two-ray ground, 0.28183815 W, RXThresh 3.652e-10 W): 250 m.
    let range = w["range_m"].as_f64().expect("range");
    assert!((range - 250.0).abs() < 0.5, "range {range}");
    // Every node has legs from 0, inside the area.
    let legs = tagged(&recs, "leg");
    for n in 0..nodes {
        assert!(
            legs.iter().any(|l| l[1] == n as u64 && l[2] == 0),
            "node {n} has no leg from 0"
        );
    }
    let inside = |x: &Value, y: &Value| {
        let (x, y) = (x.as_f64().expect("x"), y.as_f64().expect("y"));
        (0.0..=1000.0).contains(&x) && (0.0..=300.0).contains(&y)
    };
    assert!(
        legs.iter()
            .all(|l| inside(&l[3], &l[4]) && inside(&l[5], &l[6]))
    );
    // Hops: no bin holds more than the budget one by one.
    let mut per_bin = std::collections::HashMap::new();
    for hop in tagged(&recs, "hop") {
        *per_bin
            .entry(hop[1].as_u64().expect("t") / 100_000)
            .or_insert(0u32) += 1;
    }
    assert!(!per_bin.is_empty());
    assert!(per_bin.values().all(|&n| n <= HOPS_PER_BIN));
    // Route changes: a node's new next hop towards a flow's destination, another node.
    let routes = tagged(&recs, "route");
    assert!(!routes.is_empty());
    for r in &routes {
        let (node, dst, next) = (r[2].as_u64(), r[3].as_u64(), r[4].as_u64());
        assert!(
            node != next && next.is_some_and(|n| n < nodes as u64),
            "{r}"
        );
        assert!(dst.is_some_and(|d| d < nodes as u64), "{r}");
    }
    // Routing broadcasts (AODV requests) go to -1.
    assert!(
        tagged(&recs, "hop")
            .iter()
            .any(|h| h[4] == -1 && h[6] == "r")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn faults_show_as_link_state_records() {
    // example-multihoming: link ra_h2 (the second of four) goes down at 20 s and comes
    // back at 100 s.
    let s = scenario("example-multihoming.toml", &[("duration", "\"120s\"")]);
    let dir = fresh_dir("faults");
    assert_eq!(run(&s, None), run(&s, Some(&dir)));
    let (_, recs) = read(&dir);
    let states: Vec<&Value> = tagged(&recs, "link");
    assert_eq!(
        states,
        [
            &serde_json::json!(["link", 20_000_000, 1, "down"]),
            &serde_json::json!(["link", 100_000_000, 1, "up"]),
        ]
    );
    // What was queued or on the wire when it went down is dropped there.
    assert!(tagged(&recs, "drop").iter().any(|d| d[4] == "link_down"));
    let _ = std::fs::remove_dir_all(&dir);
}
