//! Runs that would never end: the livelock guard (runs without `duration`), the clock
//! reaching its maximum, the wall-clock limit and the interrupt callback (issue 13).

use sctplab_core::{Error, RunOptions, load_toml, run_scenario, run_scenario_interruptible};

const TWO_NODES: &str = r#"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
"#;

fn run(text: &str) -> Result<sctplab_core::RunResult, Error> {
    let s = load_toml(text, "<test>", "t", &[]).expect("valid scenario");
    run_scenario(&s, &RunOptions::default())
}

/// A bulk TCP transfer whose only link goes down for good at 1 s: the sender backs off
/// and retransmits forever, and nothing it sends can arrive.
fn dead_link(extra: &str) -> String {
    format!(
        r#"{extra}
{TWO_NODES}
[[flows]]
name = "bulk"
type = "tcp"
variant = "sack"
from = "a"
to = "b"
bytes = "10MB"
[[faults]]
at = "1s"
link = "ab"
action = "down"
"#
    )
}

#[test]
fn a_run_without_duration_that_cannot_progress_stops_with_one_line() {
    let e = run(&dead_link("")).expect_err("the run must stop");
    let Error::Stopped(msg) = &e else {
        panic!("expected Stopped, got {e:?}")
    };
    assert!(msg.contains("livelock") && msg.contains("bulk"), "{msg}");
    assert!(msg.contains("`duration`"), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    // The last progress is the fault at 1 s (nothing is acknowledged after it). The
    // guard looks every 10 s of simulated time, at the first event after the look is
    // due; events keep coming at least once per backed-off RTO (at most 64 s in ns-2's
    // TCP), so it stops in [1 + 3600, 1 + 3600 + 10 + 64] s.
    let at: f64 = msg
        .strip_prefix("stopped at ")
        .and_then(|r| r.split(' ').next())
        .and_then(|t| t.parse().ok())
        .expect("stop time in the message");
    assert!((3601.0..=3675.0).contains(&at), "stopped at {at}");
}

#[test]
fn a_run_with_duration_may_sit_idle_until_its_end() {
    // The same dead link, but the run has a duration: no guard, it ends at 5000 s.
    let r = run(&dead_link("duration = \"5000s\"")).expect("runs to its duration");
    assert_eq!(r.sim_time_s, 5000.0);
}

#[test]
fn a_flow_with_a_send_pending_is_not_a_livelock() {
    // A CBR source sending one packet every 5000 s (625 B * 8 / 1 b/s, the interval
    // counted on the payload size as ns-2's CBR does) is sure to progress, however
    // sparse: the guard must not stop it at 3600 s. Packets at 0 and 5000 s (the next,
    // 10000 s, is after `stop`); both arrive.
    let text = format!(
        r#"{TWO_NODES}
[[flows]]
name = "slow"
type = "cbr"
from = "a"
to = "b"
rate = "1b"
packet_size = "625B"
stop = "6000s"
"#
    );
    let r = run(&text).expect("a slow flow is not a livelock");
    let s: serde_json::Value = serde_json::from_str(&r.summary_json).expect("json");
    assert_eq!(s["flows"]["slow"]["delivered_packets"], 2);
    assert!(r.sim_time_s > 5000.0, "{}", r.sim_time_s);
}

#[test]
fn simulated_time_past_its_maximum_stops_the_run() {
    // Two hops of 1.8e10 s each (the largest delay a scenario accepts; the u64
    // nanosecond clock holds 1.845e10 s): the first packet would reach c after 3.6e10 s,
    // past the end of time. The source sends every 480000 s (60000 B * 8 / 1 b/s) until
    // 18446744073 s, within a second of the clock's maximum, so a send is always pending
    // and the livelock guard stays quiet; without the clock check the run would go on
    // at the clock's maximum.
    let text = r#"
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
delay = "18000000000s"
[[links]]
name = "bc"
a = "b"
b = "c"
bandwidth = "1Mb"
delay = "18000000000s"
[[flows]]
name = "far"
type = "cbr"
from = "a"
to = "c"
rate = "1b"
packet_size = "60000B"
stop = "18446744073s"
"#;
    let e = run(text).expect_err("must stop");
    assert!(
        matches!(&e, Error::Stopped(m) if m.contains("maximum") && m.contains("`duration`")),
        "{e:?}"
    );
}

/// A CBR flow that keeps the kernel busy for much longer than the limits below.
fn busy() -> sctplab_core::Scenario {
    let text = format!(
        r#"duration = "100000s"
{TWO_NODES}
[[flows]]
name = "fast"
type = "cbr"
from = "a"
to = "b"
rate = "900Kb"
"#
    );
    load_toml(&text, "<test>", "t", &[]).expect("valid")
}

#[test]
fn the_wall_clock_limit_stops_a_long_run() {
    let opts = RunOptions {
        wall_limit: Some(std::time::Duration::from_millis(100)),
        ..RunOptions::default()
    };
    let t = std::time::Instant::now();
    let e = run_scenario(&busy(), &opts).expect_err("must time out");
    assert!(
        matches!(&e, Error::Stopped(m) if m.starts_with("timed out")),
        "{e:?}"
    );
    // Checked every 50 ms of wall time: well under a second.
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
}

#[test]
fn the_interrupt_callback_stops_the_run_quickly() {
    let t = std::time::Instant::now();
    let mut asked = 0;
    let e = run_scenario_interruptible(&busy(), &RunOptions::default(), &mut || {
        asked += 1;
        asked >= 3
    })
    .expect_err("must stop");
    assert!(matches!(e, Error::Interrupted), "{e:?}");
    assert_eq!(asked, 3);
    // Three questions 50 ms apart.
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
}

#[test]
fn packets_piling_up_on_a_very_long_link_stop_the_run_with_one_line() {
    // A 10^9 s link: everything sent stays on the wire. 1 Mb/s of 972-byte payloads is
    // one packet every 7.776 ms, so 1000 packets are alive after about 7.8 s (checked
    // every 4096 events, so the stop comes within a few thousand more).
    let text = r#"
duration = "1000s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "long"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "1000000000s"
[[flows]]
name = "f"
type = "cbr"
from = "a"
to = "b"
rate = "1Mb"
packet_size = "972B"
"#;
    let s = load_toml(text, "<test>", "t", &[]).expect("valid");
    let opts = RunOptions {
        packet_limit: Some(1000),
        ..RunOptions::default()
    };
    let e = run_scenario(&s, &opts).expect_err("must stop");
    let Error::Limit(msg) = &e else {
        panic!("expected Limit, got {e:?}")
    };
    assert!(msg.contains("more than 1000 packets in flight"), "{msg}");
    assert!(
        msg.contains("is a->b (1000000000 s x 10000000 b/s)"),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
}

#[test]
fn a_series_too_large_for_memory_is_refused_at_the_first_sample() {
    // 10 s sampled every 1 ns: 10^10 + 1 samples of the one queue variable of each link
    // direction (2) is 2 * (10^10 + 1) values, far over the 10^7 a run holds. Refused at
    // time 0, before any work.
    let text = format!("duration = \"10s\"\n[series]\ninterval = \"1ns\"\n{TWO_NODES}");
    let s = load_toml(&text, "<test>", "t", &[]).expect("valid");
    let mut trace = sctplab_core::trace::TraceConfig::default();
    trace
        .set_series(&["queue".to_string()])
        .expect("a variable");
    let opts = RunOptions {
        trace,
        ..RunOptions::default()
    };
    let t = std::time::Instant::now();
    let e = run_scenario(&s, &opts).expect_err("must refuse");
    let Error::Usage(msg) = &e else {
        panic!("expected Usage, got {e:?}")
    };
    assert!(
        msg.contains("series.interval") && msg.contains("20000000002 values"),
        "{msg}"
    );
    assert!(t.elapsed().as_secs_f64() < 1.0);
}
