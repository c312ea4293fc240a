//! End to end: one UDP CBR flow over a three-hop wired path, through `run_scenario`.
//!
//! Unlike the kernel benchmark this pays for everything a real run does per packet
//! (endpoint polling, routing, queues, link state, summary counters), so its events/s is
//! the number users see. Traces are off: they measure the disk, not the simulator.
//!
//! Run with: `cargo bench -p sctplab-bench --bench wired`.

use criterion::{Criterion, SamplingMode, Throughput};
use sctplab_core::{RunOptions, load_toml, run_scenario};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// 1000-byte payloads at 8 Mb/s is one packet per millisecond, 8.224 Mb/s on the wire:
/// the 10 Mb/s links stay busy without queueing, so the run is steady from the start.
/// Each packet costs 7 events (the source timer, then TxDone and Arrive on each hop), so
/// 60 simulated seconds is about 420 000 events: long enough that building the world is
/// noise, short enough for several samples in a few seconds of measurement.
const SCENARIO: &str = r#"
name = "bench-wired"
duration = "60s"

[[nodes]]
name = "h1"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "h2"

[[links]]
name = "access"
a = "h1"
b = "r1"
bandwidth = "10Mb"
delay = "2ms"

[[links]]
name = "core"
a = "r1"
b = "r2"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
name = "tail"
a = "r2"
b = "h2"
bandwidth = "10Mb"
delay = "2ms"

[[flows]]
name = "cbr"
type = "cbr"
from = "h1"
to = "h2"
rate = "8Mb"
packet_size = "1000B"
"#;

fn wired(c: &mut Criterion) {
    let scenario = load_toml(SCENARIO, "<bench>", "bench-wired", &[]).expect("valid scenario");
    let opts = RunOptions::default();
    // Runs are deterministic, so one run tells every iteration's event count.
    let probe = run_scenario(&scenario, &opts).expect("run");
    let (events, sim_s) = (probe.events, probe.sim_time_s);

    // Criterion reports time and events/s; simulated seconds per wall second needs the
    // total wall time, which `iter_custom` lets us keep alongside.
    let total_wall = Cell::new(Duration::ZERO);
    let total_runs = Cell::new(0u64);

    let mut group = c.benchmark_group("wired_cbr_3hop");
    // Each iteration takes tens of milliseconds: flat sampling with few samples keeps the
    // run within the measurement time instead of criterion's linear ramp overshooting it.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.throughput(Throughput::Elements(events));
    group.bench_function("60s_8Mbps_1000B", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let r = run_scenario(&scenario, &opts).expect("run");
                assert_eq!(r.events, events, "runs must be deterministic");
            }
            let elapsed = start.elapsed();
            total_wall.set(total_wall.get() + elapsed);
            total_runs.set(total_runs.get() + iters);
            elapsed
        });
    });
    group.finish();

    let runs = total_runs.get();
    if runs > 0 {
        let per_run = total_wall.get().as_secs_f64() / runs as f64;
        println!(
            "wired_cbr_3hop: {events} events and {sim_s:.1} simulated s per run; \
             mean over {runs} runs (warm-up included): {:.3} s wall, \
             {:.2} M events/s, {:.0} simulated s per wall s",
            per_run,
            events as f64 / per_run / 1e6,
            sim_s / per_run
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    wired(&mut c);
    c.final_summary();
}
