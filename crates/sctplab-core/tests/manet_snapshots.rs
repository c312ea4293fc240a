//! Regression snapshots of seed 004's MANET (scenarios/manet-*.toml) cut to 40 s: a
//! guard against unintended change, NOT a correctness oracle. The committed summaries
//! in `tests/snapshots/manet/` are what the code gave when they were written (main
//! `358350d`, before issue 31's restructuring); the values that make the model right
//! are checked elsewhere, against ns-2.35, the RFCs and hand calculations
//! (tests/wireless.rs, `sctplab validate ns2`). A change of model that is meant to
//! change these runs rewrites the files (`SCTPLAB_UPDATE_SNAPSHOTS=1 cargo test -p
//! sctplab-core --test manet_snapshots`) in the same commit and says why; a
//! restructuring or a speed-up must leave them byte for byte (`events` included).
//!
//! The runs are the MANET cases of bench/refcheck.sh, shortened: manet-tcp and
//! manet-sctp, the multihomed SCTP case (two NICs on both endpoints) and the TCP case
//! with fixed endpoints, seeds 1 and 2.

use sctplab_core::{RunOptions, load_toml, run_scenario};
use std::path::{Path, PathBuf};

/// The shortened run: 40 s, the transfer (from 20 s) measured to the end.
const SHORT: [(&str, &str); 3] = [
    ("duration", "\"40s\""),
    ("measure.end", "\"40s\""),
    ("flows.transport.stop", "\"40s\""),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `scenarios/<scenario>.toml` at `seed`, shortened and with `extra` overrides,
/// and compares (or with `SCTPLAB_UPDATE_SNAPSHOTS=1` writes) `<name>-s<seed>.json`.
fn check(name: &str, scenario: &str, extra: &[(&str, &str)], seed: u64) {
    let path = root().join(format!("scenarios/{scenario}.toml"));
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let sets: Vec<(String, String)> = SHORT
        .iter()
        .chain(extra)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let s = load_toml(&text, &path.to_string_lossy(), scenario, &sets).expect("valid");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let file = root().join(format!(
        "crates/sctplab-core/tests/snapshots/manet/{name}-s{seed}.json"
    ));
    if std::env::var_os("SCTPLAB_UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(file.parent().expect("folder")).expect("snapshot folder");
        std::fs::write(&file, &r.summary_json).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&file).expect("committed snapshot");
    if want != r.summary_json {
        let first = want
            .lines()
            .zip(r.summary_json.lines())
            .position(|(a, b)| a != b)
            .map_or(String::from("(lengths differ)"), |i| {
                format!(
                    "line {}: want {:?}, got {:?}",
                    i + 1,
                    want.lines().nth(i).unwrap_or(""),
                    r.summary_json.lines().nth(i).unwrap_or("")
                )
            });
        panic!(
            "{name} seed {seed} differs from {} (a regression guard: if the change is \
             meant, rewrite the snapshots and say why): first difference at {first}",
            file.display()
        );
    }
}

#[test]
fn manet_tcp_40s() {
    for seed in [1, 2] {
        check("manet-tcp", "manet-tcp", &[], seed);
    }
}

#[test]
fn manet_sctp_40s() {
    for seed in [1, 2] {
        check("manet-sctp", "manet-sctp", &[], seed);
    }
}

#[test]
fn manet_sctp_multihomed_40s() {
    let mh = [("nodes.n0.wlan", "2"), ("nodes.n1.wlan", "2")];
    for seed in [1, 2] {
        check("manet-sctp-mh", "manet-sctp", &mh, seed);
    }
}

#[test]
fn manet_tcp_fixed_endpoints_40s() {
    let fixed = [("mobility.fixed", "[\"n0\", \"n1\"]")];
    for seed in [1, 2] {
        check("manet-tcp-fixed", "manet-tcp", &fixed, seed);
    }
}
