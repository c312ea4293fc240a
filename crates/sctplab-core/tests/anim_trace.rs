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

/// Sub-satellite point of a circular orbit in closed form (hand formula, independent of
/// the sat module): argument of latitude u = alpha + 2 pi t / T with T = 2 pi sqrt(r^3 /
/// mu); latitude asin(sin i sin u); longitude the ascending node plus atan2(cos i sin u,
/// cos u), less the Earth's turn 2 pi t / 86164 s (ns-2.35's sidereal day).
fn sub_satellite(alt_km: f64, inc_deg: f64, node_deg: f64, alpha_deg: f64, t: f64) -> (f64, f64) {
    let r = 6378.0 + alt_km;
    let period = 2.0 * std::f64::consts::PI * (r.powi(3) / 398_601.2).sqrt();
    let u = alpha_deg.to_radians() + 2.0 * std::f64::consts::PI * t / period;
    let i = inc_deg.to_radians();
    let lat = (i.sin() * u.sin()).asin().to_degrees();
    let lon = node_deg + (i.cos() * u.sin()).atan2(u.cos()).to_degrees() - 360.0 * t / 86_164.0;
    (lat, (lon + 540.0).rem_euclid(360.0) - 180.0)
}

#[test]
fn leo_trace_has_positions_links_and_handovers_and_changes_nothing() {
    // leo-starlink: 72 planes x 22 at 550 km, 53 deg, phasing 1; London and New York
    // hand over every 15 s; ISLs checked every 10 s (ns-2.35's default).
    let s = scenario("leo-starlink.toml", &[("duration", "\"16s\"")]);
    let dir = fresh_dir("leo");
    assert_eq!(
        run(&s, None),
        run(&s, Some(&dir)),
        "--trace anim changed summary.json"
    );
    let (h, recs) = read(&dir);
    let c = &h["satellites"]["constellations"][0];
    assert_eq!(c["count"], 72 * 22);
    let first = c["first_node"].as_u64().expect("first_node");
    let names = h["nodes"].as_array().expect("nodes");
    // Stations: the scenario's latitude and longitude, whatever the time.
    let st = c["stations"].as_array().expect("stations");
    assert_eq!(st.len(), 2);
    assert_eq!(
        names[st[0]["node"].as_u64().expect("node") as usize]["name"],
        "london"
    );
    assert!((st[0]["lat"].as_f64().expect("lat") - 51.51).abs() < 1e-9);
    assert!((st[0]["lon"].as_f64().expect("lon") + 0.13).abs() < 1e-9);
    assert!((st[1]["lat"].as_f64().expect("lat") - 40.71).abs() < 1e-9);
    assert!((st[1]["lon"].as_f64().expect("lon") + 74.01).abs() < 1e-9);
    // Positions at 0 and at the check instants 10 s and 15 s, one record each.
    let pos = tagged(&recs, "satpos");
    let times: Vec<u64> = pos.iter().map(|r| r[1].as_u64().expect("t")).collect();
    assert_eq!(times, [0, 10_000_000, 15_000_000]);
    for r in &pos {
        assert_eq!(r[2].as_u64(), Some(first));
        let v = r[3].as_array().expect("lat, lon list");
        assert_eq!(v.len(), 2 * 72 * 22);
        let t = r[1].as_f64().expect("t") / 1e6;
        // Satellite (plane p, index i) is node first + 22 p + i; its ascending node is
        // 360 p / 72, its angle at 0 is 360 i / 22 + 360 p / (72 x 22) (Walker delta,
        // phasing 1).
        for (p, i) in [(0u32, 0u32), (0, 5), (17, 3), (71, 21)] {
            let k = (22 * p + i) as usize;
            let alpha = f64::from(i) * 360.0 / 22.0 + f64::from(p) * 360.0 / 1584.0;
            let (lat, lon) = sub_satellite(550.0, 53.0, f64::from(p) * 5.0, alpha, t);
            let got = (
                v[2 * k].as_f64().expect("lat"),
                v[2 * k + 1].as_f64().expect("lon"),
            );
            // Two decimals written: within 0.005 deg, plus ns-2's pi of 13 digits.
            assert!(
                (got.0 - lat).abs() < 0.006 && (got.1 - lon).abs() < 0.006,
                "satellite p{p} i{i} at {t} s: {got:?}, expected ({lat}, {lon})"
            );
        }
    }
    // Each station attached at 0 and handed over at 15 s (slotted), to satellite nodes.
    let att = tagged(&recs, "attach");
    let sat_nodes = first..first + 1584;
    for station in [&st[0]["node"], &st[1]["node"]] {
        let mine: Vec<_> = att.iter().filter(|r| &r[2] == station).collect();
        assert_eq!(mine[0][1], 0);
        assert!(sat_nodes.contains(&mine[0][3].as_u64().expect("a satellite")));
        assert!(
            mine.iter().any(|r| r[1] == 15_000_000),
            "no handover at 15 s"
        );
    }
    // Links that change are ISLs; packets travel over the satellites.
    let (i0, n) = (
        c["first_isl"].as_u64().expect("first_isl"),
        c["isls"].as_u64().expect("isls"),
    );
    for r in tagged(&recs, "link") {
        assert!((i0..i0 + n).contains(&r[2].as_u64().expect("link")));
    }
    let hops = tagged(&recs, "hop");
    assert!(
        hops.iter()
            .any(|r| sat_nodes.contains(&r[3].as_u64().expect("from"))
                && sat_nodes.contains(&r[4].as_u64().unwrap_or(u64::MAX)))
    );
    let size = std::fs::metadata(dir.join(FILE_NAME)).expect("file").len();
    eprintln!("leo-starlink 16 s anim.jsonl: {size} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn polar_shell_isl_records_follow_the_latitude_limit() {
    // The same shell turned polar (86.4 deg, Iridium's inclination): inter-plane ISLs
    // go down above 70 deg of latitude (ns-2.35's default limit) and come back below.
    // Each `link` record's ends, at the `satpos` of the same instant: a link that goes
    // (or is) down has an end above 70 deg, one that comes up has both at or below it.
    let s = scenario(
        "leo-starlink.toml",
        &[
            ("duration", "\"21s\""),
            ("constellations.shell.inclination", "86.4"),
        ],
    );
    let dir = fresh_dir("polar");
    assert_eq!(run(&s, None), run(&s, Some(&dir)));
    let (h, recs) = read(&dir);
    let links = h["links"].as_array().expect("links");
    let first = h["satellites"]["constellations"][0]["first_node"]
        .as_u64()
        .expect("first_node");
    let pos = tagged(&recs, "satpos");
    let lat_at = |t: &Value, node: u64| -> f64 {
        let r = pos
            .iter()
            .find(|r| &r[1] == t)
            .expect("satpos at the instant");
        r[3][2 * (node - first) as usize].as_f64().expect("lat")
    };
    let changes = tagged(&recs, "link");
    assert!(changes.iter().any(|r| r[1] == 0 && r[3] == "down"));
    assert!(changes.iter().any(|r| r[1] != 0 && r[3] == "up"));
    for r in changes {
        let l = &links[r[2].as_u64().expect("link") as usize];
        let (a, b) = (l["a"].as_u64().expect("a"), l["b"].as_u64().expect("b"));
        let high = lat_at(&r[1], a).abs().max(lat_at(&r[1], b).abs());
        if r[3] == "down" {
            assert!(high > 70.0 - 0.006, "{r}: ends at most {high} deg");
        } else {
            assert!(high <= 70.0 + 0.006, "{r}: an end at {high} deg");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
