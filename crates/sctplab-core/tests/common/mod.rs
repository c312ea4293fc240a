//! Helpers shared by the integration tests: run a scenario and read back its summary,
//! sends trace and sampled series.
// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// summary.json of a scenario given as TOML text, run with `seed`.
pub fn summary(text: &str, seed: u64) -> Value {
    let s = load_toml(text, "<test>", "t", &[]).expect("valid");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed,
            ..RunOptions::default()
        },
    )
    .expect("run");
    serde_json::from_str(&r.summary_json).unwrap()
}

pub struct Traced {
    pub summary: Value,
    /// (time_s, seq, kind) in send order.
    pub sends: Vec<(f64, u32, String)>,
    /// (time_s, variable, value) of the sampled variables.
    pub series: Vec<(f64, String, f64)>,
}

/// Runs `scenarios/golden/<file>` with seed 1, the `sends` trace and the given series.
pub fn run_golden(file: &str, sets: &[(String, String)], series: &[&str]) -> Traced {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/golden")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("golden scenario");
    run_traced(&text, file, sets, series)
}

/// Runs the scenario `text` (named `file` in messages) with seed 1, the `sends` trace
/// and the given series.
pub fn run_traced(text: &str, file: &str, sets: &[(String, String)], series: &[&str]) -> Traced {
    let s = load_toml(text, file, "golden", sets).expect("valid scenario");
    // Tests run in parallel threads and may run the same scenario: one folder per call.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sctplab-golden-{file}-{}-{call}",
        std::process::id()
    ));
    let mut trace = TraceConfig {
        out_dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    trace.set_traces(&["sends"]).unwrap();
    trace.set_series(series).unwrap();
    let r = run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let sends = std::fs::read_to_string(dir.join("sends.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].to_string(),
            )
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let ser = &r.series;
    let series = (0..ser.len())
        .map(|i| {
            (
                ser.time_s[i],
                ser.variable_names[ser.variable[i] as usize].clone(),
                ser.value[i],
            )
        })
        .collect();
    Traced {
        summary: serde_json::from_str(&r.summary_json).unwrap(),
        sends,
        series,
    }
}

/// The sends after the first transmission of packet `n`, as (number, kind).
pub fn after(r: &Traced, n: u32, count: usize) -> Vec<(u32, String)> {
    let i = r
        .sends
        .iter()
        .position(|s| s.1 == n && s.2 == "new")
        .expect("packet sent");
    r.sends[i + 1..i + 1 + count]
        .iter()
        .map(|s| (s.1, s.2.clone()))
        .collect()
}

/// An expected send order written as (number, kind) pairs.
pub fn seq(items: &[(u32, &str)]) -> Vec<(u32, String)> {
    items.iter().map(|&(n, k)| (n, k.to_string())).collect()
}

/// Last sample of `var` at or before `t` (callers ask shortly after an event, before the
/// next one).
pub fn var_at(r: &Traced, var: &str, t: f64) -> f64 {
    r.series
        .iter()
        .rfind(|s| s.1 == var && s.0 <= t)
        .map(|s| s.2)
        .expect("sampled")
}

/// Time of the first send of packet `n` as `kind` ("new", "fast_rtx", ...).
pub fn time_of(r: &Traced, n: u32, kind: &str) -> f64 {
    r.sends
        .iter()
        .find(|s| s.1 == n && s.2 == kind)
        .expect("sent")
        .0
}

/// a - r1 - r2 - b: 100 Mb/s, 1 ms access links around a 10 Mb/s, 20 ms bottleneck
/// r1 -> r2, every queue 1000 packets; `aqm` is a line of the bottleneck's table (an
/// `aqm = {...}` entry, or empty for drop-tail).
pub fn dumbbell_topology(aqm: &str) -> String {
    format!(
        r#"[[nodes]]
name = "a"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "b"
[[links]]
name = "l1"
a = "a"
b = "r1"
bandwidth = "100Mb"
delay = "1ms"
queue = 1000
[[links]]
name = "bn"
a = "r1"
b = "r2"
bandwidth = "10Mb"
delay = "20ms"
queue = 1000
{aqm}
[[links]]
name = "l3"
a = "r2"
b = "b"
bandwidth = "100Mb"
delay = "1ms"
queue = 1000"#
    )
}

/// tshark's binary, if installed (the wire tests check our captures against it).
pub fn tshark() -> Option<&'static str> {
    ["/usr/bin/tshark", "/usr/local/bin/tshark"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// tshark's text for the capture `pcap` with `args`, SCTP checksums read as CRC32c; a
/// tshark failure fails the test with its stderr.
pub fn tshark_read(tshark: &str, pcap: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(tshark)
        .arg("-r")
        .arg(pcap)
        .args(["-o", "sctp.checksum:crc-32c"])
        .args(args)
        .output()
        .expect("tshark runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
