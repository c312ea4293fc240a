//! Issue 29: values valid in type but unbounded or meaningless in effect. Each is either
//! refused in one line at its key, or runs in bounded time and memory.

use sctplab_core::{Error, RunOptions, export_movement, load_toml, run_scenario};

const MANET: &str = r#"
duration = "2s"
[wireless]
width = "1000m"
height = "1000m"
[mobility]
model = "random_waypoint"
max_speed = "10m/s"
[[nodes]]
name = "n0"
wlan = 1
[[nodes]]
name = "n1"
wlan = 1
[[flows]]
name = "c"
type = "cbr"
from = "n0"
to = "n1"
rate = "64Kb"
"#;

const WIRED: &str = r#"
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
bandwidth = "10Mb"
delay = "10ms"
"#;

fn flow(kind: &str) -> String {
    let variant = if kind == "tcp" { "newreno" } else { "rfc9260" };
    format!(
        "{WIRED}\n[[flows]]\nname = \"f\"\ntype = \"{kind}\"\nvariant = \"{variant}\"\n\
         from = \"a\"\nto = \"b\"\n"
    )
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The one-line error `text` with `sets` gives.
fn refused(text: &str, sets: &[(&str, &str)]) -> String {
    let e = load_toml(text, "t.toml", "t", &set(sets)).expect_err("must be refused");
    let line = e.to_string();
    assert!(!line.contains('\n'), "{line}");
    line
}

fn runs(text: &str, sets: &[(&str, &str)]) {
    let s = load_toml(text, "t.toml", "t", &set(sets)).expect("valid");
    run_scenario(&s, &RunOptions::default()).expect("the run ends");
}

#[test]
fn zero_aodv_intervals_are_refused() {
    for key in ["purge_interval", "bcast_id_save"] {
        let k = format!("wireless.aodv.{key}");
        let line = refused(MANET, &[(&k, "0s")]);
        assert!(
            line.starts_with(&format!("--set {k}=0s: {k}: must be greater than zero")),
            "{line}"
        );
    }
}

#[test]
fn speeds_at_or_above_light_are_refused() {
    for v in ["299792458m/s", "1000000000m/s", "18000000000000m/s"] {
        let line = refused(MANET, &[("mobility.max_speed", v)]);
        assert!(
            line.contains("mobility.max_speed: ") && line.contains("speed of light"),
            "{line}"
        );
    }
    // Just below light is a speed; with one node moving for a millisecond it is cheap.
    runs(
        MANET,
        &[
            ("mobility.max_speed", "299792457m/s"),
            ("duration", "0.001s"),
        ],
    );
}

#[test]
fn trajectories_of_too_many_legs_are_refused_at_the_key_that_changed() {
    // 10 m/s in 1 um x 1 um: legs of nanoseconds, some 10^10 in 2 s.
    let line = refused(
        MANET,
        &[
            ("wireless.width", "0.000001m"),
            ("wireless.height", "0.000001m"),
        ],
    );
    assert!(
        line.starts_with("--set wireless.width=0.000001m: wireless.width: random waypoint"),
        "{line}"
    );
    let line = refused(
        MANET,
        &[("mobility.max_speed", "100000000m/s"), ("duration", "900s")],
    );
    assert!(line.contains("legs"), "{line}");
    // The seed studies' movement is far from the bound (50 nodes, 20 m/s, 1500 m x
    // 300 m, 900 s: about 1800 legs by the estimate).
    let legs = sctplab_core::scenario::bounds::expected_legs(50, 900.0, (1500.0, 300.0), 20.0, 0.0);
    assert!(
        (legs - (50.0 * (900.0 / 25.0 + 1.0))).abs() < 1e-6,
        "{legs}"
    );
}

#[test]
fn a_huge_aodv_queue_limit_and_a_thin_area_run() {
    // Both used to abort: a 68 GB `with_capacity` and a 13 GB grid.
    runs(MANET, &[("wireless.aodv.queue_limit", "4294967295")]);
    runs(
        MANET,
        &[
            ("wireless.width", "10000000000000m"),
            ("wireless.height", "1m"),
            ("mobility.max_speed", "1m/s"),
        ],
    );
}

#[test]
fn tcp_windows_are_bounded_by_what_a_run_holds() {
    let text = flow("tcp");
    let line = refused(
        &text,
        &[
            ("flows.f.window", "4294967295"),
            ("flows.f.initial_window", "4294967295"),
        ],
    );
    assert!(
        line.contains("flows.f.window: ") && line.contains("at most 4000000"),
        "{line}"
    );
    let line = refused(&text, &[("flows.f.initial_window", "1e308")]);
    assert!(line.contains("flows.f.initial_window: "), "{line}");
    // The largest window, opened by the first ack: bounded work.
    runs(
        &text,
        &[
            ("flows.f.window", "4000000"),
            ("flows.f.initial_window", "4000000"),
            ("duration", "0.1s"),
        ],
    );
}

#[test]
fn sctp_values_that_never_work_are_refused() {
    let text = flow("sctp");
    for (key, value, want) in [
        ("initial_cwnd", "1e308", "a_rwnd is 32 bits"),
        ("initial_cwnd", "\"5GB\"", "a_rwnd is 32 bits"),
        ("initial_cwnd", "\"0B\"", "must be greater than zero"),
        ("rto_initial", "0s", "must be greater than zero"),
        ("rto_min", "0s", "must be greater than zero"),
        ("rto_max", "0s", "must not exceed rto_max"),
        ("cookie_lifetime", "0s", "must be greater than zero"),
    ] {
        let k = format!("flows.f.{key}");
        let line = refused(&text, &[(&k, value)]);
        assert!(line.contains(want), "{key}={value}: {line}");
    }
    // All three RTOs at zero: refused at the first.
    let line = refused(
        &text,
        &[
            ("flows.f.rto_initial", "0s"),
            ("flows.f.rto_min", "0s"),
            ("flows.f.rto_max", "0s"),
        ],
    );
    assert!(line.contains("must be greater than zero"), "{line}");
    // The largest initial cwnd a peer's window allows still runs.
    runs(
        &text,
        &[
            ("flows.f.initial_cwnd", "\"4294967295B\""),
            ("duration", "0.5s"),
        ],
    );
}

#[test]
fn cbr_pairs_refuse_pairs_a_cbr_flow_would_refuse() {
    let generator = |among: &str| {
        format!(
            "{WIRED}\n[[nodes]]\nname = \"w\"\nwlan = 1\n[wireless]\nwidth = \"100m\"\n\
             height = \"100m\"\n[[flows]]\nname = \"bg\"\ntype = \"cbr_pairs\"\ncount = 2\n\
             rate = \"8Kb\"\namong = {among}\n"
        )
    };
    let line = refused(
        &generator(r#"["a", "w"]"#),
        &[("nodes.w.x", "\"1m\""), ("nodes.w.y", "\"1m\"")],
    );
    assert!(
        line.contains("flows.bg.among.1: ") && line.contains("wireless"),
        "{line}"
    );
    let line = refused(
        &generator(r#"["a", "c"]"#),
        &[("nodes.w.x", "\"1m\""), ("nodes.w.y", "\"1m\"")],
    );
    assert!(
        line.contains("flows.bg.among.1: no path between \"a\" and \"c\""),
        "{line}"
    );
}

#[test]
fn a_movement_file_of_too_many_legs_is_refused_before_it_is_built() {
    // Within a run's budget (an estimated 6e7 legs), past a movement file's 10^6.
    let s = load_toml(
        MANET,
        "t.toml",
        "t",
        &set(&[("mobility.max_speed", "1000000m/s"), ("duration", "10000s")]),
    )
    .expect("valid");
    let e = export_movement(&s, 1).expect_err("too many legs");
    let Error::Scenario(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.path, "mobility.max_speed");
    assert!(e.message.contains("1000000 legs"), "{}", e.message);
    // A modest one is written.
    let s = load_toml(MANET, "t.toml", "t", &[]).expect("valid");
    assert!(
        export_movement(&s, 1)
            .expect("movement")
            .contains("setdest")
    );
}

#[test]
fn flows_beyond_the_port_plan_are_refused_and_many_pairs_draw_quickly() {
    // 150 wired nodes on a line: 22 350 ordered pairs.
    let mut text = String::from("duration = \"1s\"\n");
    for i in 0..150 {
        text += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for i in 1..150 {
        text += &format!(
            "[[links]]\nname = \"l{i}\"\na = \"n{}\"\nb = \"n{i}\"\nbandwidth = \"1Mb\"\n\
             delay = \"1ms\"\n",
            i - 1
        );
    }
    let among: Vec<String> = (0..150).map(|i| format!("\"n{i}\"")).collect();
    text += &format!(
        "[[flows]]\nname = \"bg\"\ntype = \"cbr_pairs\"\ncount = 22350\nrate = \"8Kb\"\n\
         among = [{}]\n",
        among.join(", ")
    );
    let line = refused(&text, &[]);
    assert!(
        line.starts_with("t.toml: flows.bg.count: the scenario has 22350 flows"),
        "{line}"
    );
    // 22 000 of the 22 350 pairs (near the coupon collector's worst case) are drawn
    // with a set lookup per draw, not a scan of the pairs so far.
    let s = load_toml(&text, "t.toml", "t", &set(&[("flows.bg.count", "22000")])).expect("valid");
    let flows = s.generated_flows(1);
    assert_eq!(flows.len(), 22_000);
    let distinct: std::collections::HashSet<(&str, &str)> = flows
        .iter()
        .map(|f| (f.from.as_str(), f.to.as_str()))
        .collect();
    assert_eq!(distinct.len(), 22_000);
}
