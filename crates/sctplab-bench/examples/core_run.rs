//! Core-only run of a scenario: what the Python binding calls (`run_scenario`), without
//! the interpreter, so that `/usr/bin/time` or callgrind measure the simulator alone.
//!
//! Usage: `cargo run --release -p sctplab-bench --example core_run -- SCENARIO.toml
//!         [--seed N] [--set KEY=VALUE]... [--summary FILE] [--traces DIR]
//!         [--shortcuts all|none|LIST]`
//!
//! `--traces DIR` writes every trace (pcap, ns-2 text, sends, acks) into DIR, to compare
//! two builds byte for byte. `--shortcuts` as `sctplab run --shortcuts`.
//!
//! Prints events, simulated seconds, wall seconds and events/s to stderr; writes the
//! summary JSON to FILE when given.

use sctplab_core::{RunOptions, load_toml, run_scenario};

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: core_run SCENARIO.toml [--seed N] [--set K=V]... [--summary FILE]")?;
    let mut seed = 1u64;
    let mut sets = Vec::new();
    let mut summary = None;
    let mut traces = None;
    let mut shortcuts = sctplab_core::Shortcuts::ALL;
    while let Some(a) = args.next() {
        let v = args.next().ok_or(format!("{a} needs a value"))?;
        match a.as_str() {
            "--seed" => seed = v.parse().map_err(|e| format!("--seed: {e}"))?,
            "--set" => {
                let (k, val) = v.split_once('=').ok_or("--set wants KEY=VALUE")?;
                sets.push((k.to_string(), val.to_string()));
            }
            "--summary" => summary = Some(v),
            "--traces" => traces = Some(std::path::PathBuf::from(v)),
            "--shortcuts" => {
                shortcuts =
                    sctplab_core::Shortcuts::parse(&v).map_err(|e| format!("--shortcuts {e}"))?
            }
            _ => return Err(format!("unknown option {a}")),
        }
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let stem = std::path::Path::new(&path)
        .file_stem()
        .map_or("scenario".into(), |s| s.to_string_lossy().into_owned());
    let s = load_toml(&text, &path, &stem, &sets).map_err(|e| e.to_string())?;
    let mut opts = RunOptions {
        seed,
        shortcuts,
        ..RunOptions::default()
    };
    if let Some(dir) = traces {
        opts.trace.out_dir = Some(dir);
        opts.trace.pcap = true;
        opts.trace
            .set_traces(sctplab_core::trace::TRACE_KINDS)
            .map_err(|e| format!("--traces: {e}"))?;
    }
    let r = run_scenario(&s, &opts).map_err(|e| e.to_string())?;
    eprintln!(
        "events {} sim_s {:.3} wall_s {:.3} Mev/s {:.2}",
        r.events,
        r.sim_time_s,
        r.wall_s,
        r.events as f64 / r.wall_s / 1e6
    );
    if let Some(f) = summary {
        std::fs::write(&f, &r.summary_json).map_err(|e| format!("{f}: {e}"))?;
    }
    Ok(())
}
