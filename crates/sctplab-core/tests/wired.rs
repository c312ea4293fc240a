//! End-to-end checks of the wired model against hand calculations.

use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn run(toml: &str, seed: u64) -> Value {
    let s = load_toml(toml, "<test>", "test", &[]).expect("valid scenario");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed,
            ..RunOptions::default()
        },
    )
    .expect("run");
    serde_json::from_str(&r.summary_json).expect("json")
}

const TWO_HOPS: &str = r#"
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[[links]]
name = "bc"
a = "b"
b = "c"
bandwidth = "2Mb"
delay = "5ms"
[[flows]]
name = "one"
type = "cbr"
from = "a"
to = "c"
rate = "1Mb"
packet_size = "1000B"
stop = "1ms"
"#;

#[test]
fn one_packet_delay_is_serialisation_plus_propagation_per_hop() {
    let s = run(TWO_HOPS, 1);
    let f = &s["flows"]["one"];
    assert_eq!(f["delivered_packets"], 1);
    // 1000 B payload + 8 UDP + 20 IPv4 = 1028 B = 8224 bit.
    // Hop 1: 8224 / 1e6 s = 8.224 ms + 10 ms; hop 2: 8224 / 2e6 = 4.112 ms + 5 ms.
    let expected_ns: u64 = 8_224_000 + 10_000_000 + 4_112_000 + 5_000_000;
    assert_eq!(f["max_delay_s"].as_f64().unwrap(), expected_ns as f64 / 1e9);
    assert_eq!(s["links"]["a->b"]["tx_bytes"], 1028);
    assert_eq!(s["links"]["b->c"]["tx_packets"], 1);
    assert_eq!(s["links"]["c->b"]["tx_packets"], 0);
}

#[test]
fn bottleneck_overflow_matches_hand_count() {
    // 1000-byte payloads every 4 ms (2 Mb/s of payload) into a bottleneck that needs 8 ms
    // per 1028-byte packet (1.028 Mb/s), limit 10 packets in the interface. Arrival k
    // (k = 0..249) finds k - floor(k/2) packets there until it holds 10: arrivals 0..18
    // are accepted, then every odd arrival is dropped: (249 - 19) / 2 + 1 = 116 drops,
    // 134 packets forwarded.
    let toml = r#"
duration = "3s"
[[nodes]]
name = "src"
[[nodes]]
name = "r"
[[nodes]]
name = "dst"
[[links]]
name = "access"
a = "src"
b = "r"
bandwidth = "100Mb"
delay = "1ms"
[[links]]
name = "bottleneck"
a = "r"
b = "dst"
bandwidth = "1.028Mb"
delay = "10ms"
queue = 10
[[flows]]
name = "cbr"
type = "cbr"
from = "src"
to = "dst"
rate = "2Mb"
packet_size = "1000B"
stop = "1s"
"#;
    let s = run(toml, 1);
    let b = &s["links"]["r->dst"];
    assert_eq!(b["queue_drops"], 116);
    assert_eq!(b["tx_packets"], 134);
    assert_eq!(s["flows"]["cbr"]["data_packets_sent"], 250);
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 134);
    assert_eq!(s["flows"]["cbr"]["lost_packets"], 116);
}

#[test]
fn drop_list_drops_exactly_the_listed_packets() {
    let toml = TWO_HOPS
        .replace("stop = \"1ms\"", "stop = \"100ms\"")
        .replace("rate = \"1Mb\"\npacket", "rate = \"0.8Mb\"\npacket")
        + "[links.loss]\ndrops = [3, 7]\n";
    let s = run(&toml, 1);
    let f = &s["flows"]["one"];
    // 1000-byte payloads every 10 ms for 100 ms: 10 packets, numbers 1..10.
    assert_eq!(f["data_packets_sent"], 10);
    assert_eq!(f["delivered_packets"], 8);
    // `[links.loss]` after the list applies to the last link declared, bc.
    assert_eq!(s["links"]["b->c"]["loss_drops"], 2);
}

#[test]
fn same_seed_same_summary_other_seed_other_losses() {
    let toml = TWO_HOPS
        .replace("stop = \"1ms\"", "stop = \"1s\"")
        .replace("rate = \"1Mb\"\npacket", "rate = \"0.5Mb\"\npacket")
        + "[links.loss]\nrate = 0.1\n";
    let a = run(&toml, 7);
    let b = run(&toml, 7);
    let c = run(&toml, 8);
    assert_eq!(a, b);
    assert_ne!(
        a["links"]["b->c"]["loss_drops"],
        c["links"]["b->c"]["loss_drops"]
    );
}

#[test]
fn measurement_window_limits_counts() {
    let toml = TWO_HOPS
        .replace("stop = \"1ms\"", "stop = \"1s\"")
        .replace("rate = \"1Mb\"\npacket", "rate = \"0.8Mb\"\npacket")
        + "[measure]\nstart = \"0.5s\"\nend = \"1s\"\n";
    let s = run(&toml, 1);
    // Packets leave every 10 ms; 50 of them start in [0.5 s, 1 s).
    assert_eq!(s["flows"]["one"]["data_packets_sent"], 50);
    assert_eq!(s["links"]["a->b"]["tx_packets"], 50);
    // The access link is busy 8.224 ms of every 10 ms.
    let u = s["links"]["a->b"]["utilization"].as_f64().unwrap();
    assert!((u - 0.8224).abs() < 1e-9, "utilization {u}");
}

#[test]
fn finite_flows_end_the_run_without_duration() {
    let toml = TWO_HOPS.replace("duration = \"1s\"\n", "");
    let s = run(&toml, 1);
    assert_eq!(s["flows"]["one"]["delivered_packets"], 1);
    // The run ends as the only packet is delivered: 27.336 ms.
    assert_eq!(s["sim_time_s"].as_f64().unwrap(), 0.027336);
}

#[test]
fn packet_pool_stays_flat_in_steady_state() {
    let long = TWO_HOPS
        .replace("duration = \"1s\"", "duration = \"100s\"")
        .replace("stop = \"1ms\"", "stop = \"100s\"")
        .replace("rate = \"1Mb\"\npacket", "rate = \"0.9Mb\"\npacket");
    let s = load_toml(&long, "<test>", "t", &[]).unwrap();
    let r = run_scenario(&s, &RunOptions::default()).unwrap();
    // ~11 000 packets sent, never more than a handful in flight at once.
    assert!(r.packet_slots <= 8, "pool grew to {} slots", r.packet_slots);
}

#[test]
fn cbr_pairs_draws_distinct_pairs_from_the_seed() {
    let text = r#"
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "1ms"
[[links]]
name = "bc"
a = "b"
b = "c"
bandwidth = "1Mb"
delay = "1ms"
[[flows]]
name = "bg"
type = "cbr_pairs"
count = 6
rate = "8Kb"
packet_size = "100B"
among = ["a", "b", "c"]
start_min = "0.5s"
start_max = "1s"
"#;
    let s1 = run(text, 1);
    let flows = s1["flows"].as_object().unwrap();
    // 3 nodes give exactly 6 ordered pairs: asking for 6 must draw each once.
    let mut pairs: Vec<(String, String)> = (0..6)
        .map(|i| {
            let f = &flows[&format!("bg.{i}")];
            let start = f["start_s"].as_f64().unwrap();
            assert!((0.5..=1.0).contains(&start), "{start}");
            (
                f["from"].as_str().unwrap().into(),
                f["to"].as_str().unwrap().into(),
            )
        })
        .collect();
    pairs.sort();
    let want: Vec<(String, String)> = [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]
    .iter()
    .map(|(x, y)| (x.to_string(), y.to_string()))
    .collect();
    assert_eq!(pairs, want);
    assert_eq!(flows.len(), 6);
    // Same seed, same draw (byte-identical summary).
    assert_eq!(run(text, 1), s1);
}
