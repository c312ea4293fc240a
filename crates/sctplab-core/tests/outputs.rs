//! What a run records must not change what it computes (summary.json, `events`
//! included), and `--max-output` bounds what it writes (issue 30, items 2 and 9).

use sctplab_core::trace::TraceConfig;
use sctplab_core::{Error, RunOptions, load_toml, run_scenario};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn scenario(file: &str, sets: &[(&str, &str)]) -> sctplab_core::Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_toml(&text, file, "outputs", &sets).expect("valid scenario")
}

/// A fresh folder per call: tests run in parallel threads.
fn fresh_dir(tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sctplab-outputs-{tag}-{}-{call}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn everything(dir: &Path) -> TraceConfig {
    let mut t = TraceConfig {
        out_dir: Some(dir.to_path_buf()),
        pcap: true,
        ..TraceConfig::default()
    };
    t.set_traces(sctplab_core::trace::TRACE_KINDS).unwrap();
    t
}

fn summary(s: &sctplab_core::Scenario, trace: TraceConfig) -> Result<String, Error> {
    run_scenario(
        s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .map(|r| r.summary_json)
}

/// summary.json, byte for byte, whatever the run records: pcap, every trace, series.
fn assert_recording_changes_nothing(file: &str, sets: &[(&str, &str)]) {
    let s = scenario(file, sets);
    let plain = summary(&s, TraceConfig::default()).expect("run");
    let dir = fresh_dir("all");
    let recorded = summary(&s, everything(&dir)).expect("run with traces");
    assert!(dir.join("trace.tr").metadata().unwrap().len() > 0);
    assert_eq!(
        plain, recorded,
        "{file}: --pcap --trace changed summary.json"
    );
    let mut sampled = TraceConfig::default();
    sampled
        .set_series(sctplab_core::trace::series::VARIABLES)
        .unwrap();
    let sampled = summary(&s, sampled).expect("run with series");
    assert_eq!(plain, sampled, "{file}: --series changed summary.json");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recording_leaves_wired_summaries_alone() {
    // SCTP with four streams, CBR over a lossy path, TCP (two variants), SCTP-snoop
    // and multihomed SCTP with a failover (shortened to 120 s: the link is down from 20 s to 100 s).
    assert_recording_changes_nothing("example-sctp.toml", &[]);
    assert_recording_changes_nothing("example-cbr.toml", &[]);
    assert_recording_changes_nothing("example-tcp.toml", &[]);
    assert_recording_changes_nothing("snoop.toml", &[]);
    assert_recording_changes_nothing("example-multihoming.toml", &[("duration", "\"120s\"")]);
}

#[test]
fn recording_leaves_manet_summaries_alone() {
    // The wireless fast paths stay on whatever is recorded: the traces of a fast run
    // are those of that run (world/wireless/fast/traced.rs), and `events` stays.
    let forty = [
        ("duration", "\"40s\""),
        ("measure.end", "\"40s\""),
        ("flows.transport.stop", "\"40s\""),
    ];
    assert_recording_changes_nothing("manet-tcp.toml", &forty);
}

#[test]
fn sampling_is_not_counted_as_model_events_in_wireless_runs_either() {
    // Sample events are the run's own bookkeeping.
    let s = scenario(
        "manet-sctp.toml",
        &[
            ("duration", "\"25s\""),
            ("measure.end", "\"25s\""),
            ("flows.transport.stop", "\"25s\""),
        ],
    );
    let plain = summary(&s, TraceConfig::default()).expect("run");
    let mut sampled = TraceConfig::default();
    sampled.set_series(&["cwnd", "queue"]).unwrap();
    assert_eq!(plain, summary(&s, sampled).expect("run with series"));
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                dir_bytes(&e.path())
            } else {
                m.len()
            }
        })
        .sum()
}

#[test]
fn max_output_stops_a_run_whose_files_pass_it() {
    // example-cbr: 12,031 events over 10 s, 15.7 MB of pcap and ns-2 trace when
    // recorded whole; a 20 kB cap stops it early on.
    let s = scenario("example-cbr.toml", &[]);
    let dir = fresh_dir("cap");
    let mut trace = everything(&dir);
    trace.max_output = Some(20_000);
    let e = summary(&s, trace).expect_err("the cap must stop the run");
    let Error::Usage(msg) = &e else {
        panic!("expected a usage error (exit status 2), got {e:?}")
    };
    assert!(!msg.contains('\n'), "{msg}");
    assert!(msg.starts_with("--max-output 20.0 kB: "), "{msg}");
    assert!(msg.contains(" s of 10 s simulated (about "), "{msg}");
    let at: f64 = msg
        .split(" at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {msg}"));
    assert!(at > 0.0 && at < 1.0, "{msg}");
    // Nothing is written after the record that passed the cap: the files hold the cap
    // and less than one more record (every packet here is at most 1,500 bytes: a pcap
    // record of 16 + 1,500, or one line of text), flushed, whole records only.
    let kept = dir_bytes(&dir);
    assert!(
        (20_000..20_000 + 16 + 1_500).contains(&kept),
        "{kept} bytes kept"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_output_is_checked_at_the_end_of_a_short_run() {
    // example-sctp ends after 3,046 events, before the first periodic look: the check
    // at the end holds the cap all the same.
    let s = scenario("example-sctp.toml", &[]);
    let dir = fresh_dir("short");
    let mut trace = everything(&dir);
    trace.max_output = Some(1_000);
    let e = summary(&s, trace).expect_err("the cap must stop the run");
    assert!(
        matches!(&e, Error::Usage(m) if m.starts_with("--max-output 1.00 kB: ")),
        "{e:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cap_the_files_stay_under_changes_nothing() {
    let s = scenario("example-sctp.toml", &[]);
    let plain = summary(&s, TraceConfig::default()).expect("run");
    let dir = fresh_dir("under");
    let mut trace = everything(&dir);
    trace.max_output = Some(1_000_000_000);
    trace.output_notes = true;
    assert_eq!(plain, summary(&s, trace).expect("run under the cap"));
    let _ = std::fs::remove_dir_all(&dir);
}
