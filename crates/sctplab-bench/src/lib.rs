//! Benchmarks live in `benches/`; this is what several of them share.

use criterion::{Criterion, SamplingMode, Throughput};
use sctplab_core::{RunOptions, load_toml, run_scenario};
use std::time::Instant;

/// Benchmarks `run_scenario` on `toml`, with the throughput in acknowledgements (the
/// summary's `ack_packets` of flow `flow`): the unit of the ack-processing benchmarks.
/// Also prints events per run and events per acknowledgement.
pub fn bench_acks(c: &mut Criterion, name: &str, toml: &str, flow: &str) {
    let scenario = load_toml(toml, "<bench>", name, &[]).expect("valid scenario");
    let opts = RunOptions::default();
    // Runs are deterministic, so one run tells every iteration's counts.
    let probe = run_scenario(&scenario, &opts).expect("run");
    let summary: serde_json::Value =
        serde_json::from_str(&probe.summary_json).expect("summary is JSON");
    let acks = summary["flows"][flow]["ack_packets"]
        .as_u64()
        .expect("the flow reports ack_packets");
    println!(
        "{name}: {acks} acks, {} events per run ({:.2} events per ack)",
        probe.events,
        probe.events as f64 / acks as f64
    );
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.throughput(Throughput::Elements(acks));
    group.bench_function("run", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let r = run_scenario(&scenario, &opts).expect("run");
                assert_eq!(r.events, probe.events, "runs must be deterministic");
            }
            start.elapsed()
        });
    });
    group.finish();
}
