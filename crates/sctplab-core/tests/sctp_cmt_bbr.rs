//! BBR per destination with CMT (issues 33 and 35): scenarios/cmt.toml's two disjoint
//! paths (each a 10 Mb/s, 20 ms access link into a 2 Mb/s, 20 ms bottleneck), SCTP with
//! `congestion_control = "bbr"` and `cmt = true`. Expectations by hand from the links:
//!
//! - a packet is 1500 bytes on the wire, 1468 of them chunk bytes (SCTP's window unit,
//!   BBR's segment) and 1452 user data, so a 2 Mb/s bottleneck carries 166.7 packets/s:
//!   1.9360 Mb/s of goodput and a gain-1 pacing rate of 2e6 x 1468 / 1500 = 1.9573 Mb/s
//!   (`--series pacing_rate` is in bits per second of chunk bytes);
//! - RTprop = 2 x (20 + 20) ms of propagation + 1.2 ms (1500 B at 10 Mb/s) + 6 ms (at
//!   2 Mb/s) = 87.2 ms (the SACK's serialization is under 0.2 ms, left out).

mod common;

use std::path::Path;

fn cmt_scenario() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/cmt.toml");
    std::fs::read_to_string(path).expect("scenario")
}

/// The bottleneck's gain-1 pacing rate in bits per second of chunk bytes.
fn chunk_rate(bottleneck_bps: f64) -> f64 {
    bottleneck_bps * 1468.0 / 1500.0
}

/// How much one destination's delivery-rate samples can overshoot its bottleneck with
/// CMT. The receiver sends one SACK per two DATA packets whichever path they came by
/// (delayed SACK, RFC 9260 6.2; DAC), so the SACK that reports a delivery is held until
/// the next DATA packet from either path, at most `t_pkt`, one packet time of the faster
/// bottleneck (6 ms at 2 Mb/s), and the holds no longer repeat evenly as on one path. A
/// sample's interval (from one SACK to another, at least RTprop) shrinks by at most one
/// hold: overshoot at most 1 / (1 - t_pkt / RTprop).
fn ack_compression(t_pkt: f64, rtprop: f64) -> f64 {
    1.0 / (1.0 - t_pkt / rtprop)
}

struct Run {
    goodput: f64,
    retransmissions: u64,
    /// bytes_acked per destination (h2:eth0, h2:eth1).
    acked: [f64; 2],
    /// `pacing_rate` samples (b/s) of the primary destination after measure.start (6 s).
    rates: Vec<f64>,
}

fn run(cc: &str, cmt: bool, extra: &[(&str, &str)]) -> Run {
    let mut sets = vec![
        (
            "flows.sctp1.congestion_control".to_string(),
            format!("\"{cc}\""),
        ),
        ("flows.sctp1.cmt".to_string(), cmt.to_string()),
    ];
    sets.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let r = common::run_traced(&cmt_scenario(), "cmt", &sets, &["pacing_rate"]);
    let f = &r.summary["flows"]["sctp1"];
    let acked = |d: &str| f["paths"][d]["bytes_acked"].as_f64().expect("bytes_acked");
    Run {
        goodput: f["goodput_bps"].as_f64().expect("goodput"),
        retransmissions: f["retransmissions"].as_u64().expect("retransmissions"),
        acked: [acked("h2:eth0"), acked("h2:eth1")],
        rates: r
            .series
            .iter()
            .filter(|s| s.1 == "pacing_rate" && s.0 >= 6.0)
            .map(|s| s.2)
            .collect(),
    }
}

fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn max(x: &[f64]) -> f64 {
    x.iter().copied().fold(f64::MIN, f64::max)
}

/// The primary destination's pacing rate is its own bottleneck's at gain 1 most of the
/// time (ProbeBW spends 6 of its 8 phases there), ProbeBW's 1.25 and 0.75 phases show,
/// and the estimate never exceeds the bottleneck by more than ack compression allows.
fn check_pacing(r: &Run, bottleneck_bps: f64, median_tol: f64, overshoot: f64, what: &str) {
    let base = chunk_rate(bottleneck_bps);
    let m = median(&r.rates) / base;
    let top = max(&r.rates) / base;
    eprintln!("{what}: pacing rate / bottleneck: median {m:.4}, max {top:.4}");
    assert!(m >= 1.0 - 0.005 && m <= median_tol, "{what}: median {m}");
    assert!(
        top <= 1.25 * overshoot,
        "{what}: max {top} > 1.25 x {overshoot}"
    );
    for gain in [0.75, 1.25] {
        assert!(
            r.rates
                .iter()
                .any(|&x| x >= gain * base * 0.995 && x <= gain * base * overshoot),
            "{what}: no {gain} phase"
        );
    }
}

#[test]
fn cmt_with_bbr_doubles_one_paths_goodput_as_with_reno() {
    let capacity = 2e6 * 1452.0 / 1500.0;
    for cc in ["reno", "bbr"] {
        let one = run(cc, false, &[]);
        let two = run(cc, true, &[]);
        // The numbers docs/models/sctp.md quotes (`--nocapture`).
        eprintln!(
            "{cc}: cmt {:.0} b/s, one path {:.0} b/s: x {:.3}",
            two.goodput,
            one.goodput,
            two.goodput / one.goodput
        );
        // Issue 35's rule over two equal, disjoint, lossless paths.
        assert!(two.goodput >= 1.8 * one.goodput, "{cc}");
        assert!(two.goodput <= 2.0 * capacity * 1.005, "{cc}");
        // Both destinations carry an equal share (the paths are mirror images).
        let [a, b] = two.acked;
        assert!((a - b).abs() <= 0.01 * a.max(b), "{cc}: {a} {b}");
    }
    // `retransmissions` counts from measure.start (6 s), long after Startup and Drain
    // (a few 87 ms round trips from 1 s). In ProbeBW BBR keeps in flight at most
    // 2 BDP + 5 segments per destination (cwnd gain 2, three quanta, the 1.25 phase's
    // +2): BDP = 166.7 packets/s x 87.2 ms = 14.5 packets, 2.2 more with the estimate's
    // largest overshoot above, so at most 36 in flight and 22 queued at the bottleneck,
    // under its 50-packet limit: no loss, no retransmission on either destination.
    assert_eq!(run("bbr", true, &[]).retransmissions, 0);
}

#[test]
fn each_destination_paces_at_its_own_bottleneck_with_cmt() {
    // `pacing_rate` is the primary destination's: run once with each as the primary.
    let rtprop = 0.0872;
    let bound = ack_compression(1500.0 * 8.0 / 2e6, rtprop);
    for primary in ["h2:eth0", "h2:eth1"] {
        let p = format!("\"{primary}\"");
        let r = run("bbr", true, &[("flows.sctp1.primary", &p)]);
        check_pacing(&r, 2e6, 1.005, bound, &format!("equal paths, {primary}"));
    }
    // Unequal bottlenecks (network B at 1 Mb/s): each destination's estimate follows
    // its own link. Network B's packets take 12 ms at its bottleneck (RTprop 93.2 ms).
    // The SACKs' holds now vary most, so each median may sit above its own rate too, up
    // to the same bound.
    let slow = ("links.rb_h2.bandwidth", "\"1Mb\"");
    let a = run("bbr", true, &[slow, ("flows.sctp1.primary", "\"h2:eth0\"")]);
    check_pacing(&a, 2e6, bound, bound, "2 Mb/s path beside a 1 Mb/s one");
    let b = run("bbr", true, &[slow, ("flows.sctp1.primary", "\"h2:eth1\"")]);
    let bound_b = ack_compression(1500.0 * 8.0 / 2e6, 0.0932);
    check_pacing(&b, 1e6, bound_b, bound_b, "1 Mb/s path beside a 2 Mb/s one");
    // Together they carry at least 95 % of the two bottlenecks' payload capacity.
    let capacity = 3e6 * 1452.0 / 1500.0;
    eprintln!("unequal paths: cmt {:.0} b/s of {capacity:.0}", a.goodput);
    assert!(a.goodput >= 0.95 * capacity, "{}", a.goodput);
}

#[test]
fn one_lossy_path_leaves_bbrs_estimate_and_cmts_gain() {
    // 1 % random loss into h2:eth1. BBR v1 takes no loss as a congestion signal (its
    // bandwidth is a windowed maximum of delivery rates): network B's destination keeps
    // pacing at its bottleneck and CMT still doubles one path's goodput; the losses are
    // retransmitted (RTX_CWND sends them to the destination with the larger cwnd).
    let rtprop = 0.0872;
    let lossy = ("links.rb_h2.loss.rate", "0.01");
    let r = run(
        "bbr",
        true,
        &[lossy, ("flows.sctp1.primary", "\"h2:eth1\"")],
    );
    let bound = ack_compression(1500.0 * 8.0 / 2e6, rtprop);
    check_pacing(&r, 2e6, 1.005, bound, "1 % loss, h2:eth1");
    let one = run("bbr", false, &[]);
    let two = run("bbr", true, &[lossy]);
    let reno_two = run("reno", true, &[lossy]);
    eprintln!(
        "1 % loss on network B: bbr cmt {:.0} b/s ({} retransmissions), reno cmt {:.0} b/s",
        two.goodput, two.retransmissions, reno_two.goodput
    );
    assert!(two.retransmissions > 0);
    assert!(
        two.goodput >= 1.8 * one.goodput,
        "{} {}",
        two.goodput,
        one.goodput
    );
}
