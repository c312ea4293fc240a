//! The congestion controllers end to end on scenarios/cubic-dumbbell.toml: CUBIC's mean
//! window under periodic loss against RFC 9438 sec. 5.1's response function (the
//! deterministic-loss model the RFC derives it from), BBR filling the bottleneck without
//! standing loss, and pacing as a knob.

mod common;

use std::path::Path;

fn dumbbell() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/cubic-dumbbell.toml");
    std::fs::read_to_string(path).expect("scenario")
}

fn set(k: &str, v: &str) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// Time average of `var` over [from, to) from samples at a fixed interval.
fn mean(r: &common::Traced, var: &str, from: f64, to: f64) -> f64 {
    let v: Vec<f64> = r
        .series
        .iter()
        .filter(|s| s.1 == var && s.0 >= from && s.0 < to)
        .map(|s| s.2)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn mean_window_under_periodic_loss_is_the_response_function() {
    // Every 3000th segment is dropped (p = 1/3000, `drops`), nothing else: the loss
    // model of RFC 9438 sec. 5.1. The round trip, by hand: 2 x (1 + 50 + 1) ms of
    // propagation, a 1040-byte segment's transmission at 100, 10 and 100 Mb/s (0.0832 +
    // 0.832 + 0.0832 ms) and a 40-byte ack's (0.0032 + 0.032 + 0.0032 ms): 105.04 ms.
    // The window stays below the path's 126-segment BDP, so no queue builds.
    let p: f64 = 1.0 / 3000.0;
    let rtt: f64 = 0.104 + 0.0832e-3 * 2.0 + 0.832e-3 + 0.0032e-3 * 2.0 + 0.032e-3;
    // Sec. 5.1: AVG_W_cubic = (C (3 + beta) / (4 (1 - beta)))^(1/4) (RTT / p)^(3/4) =
    // 1.0538 x 315.1^0.75 = 78.8 segments; Reno's (and the Reno-friendly estimate's)
    // AVG_W = sqrt(3 / (2 p)) = 67.1, below it, so the cubic regions decide.
    let (c, beta) = (0.4f64, 0.7f64);
    let cubic = (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * (rtt / p).powf(0.75);
    let reno = (3.0 / (2.0 * p)).sqrt();
    assert!((cubic - 78.8).abs() < 0.1 && (reno - 67.08).abs() < 0.01);
    let drops: Vec<String> = (1..=100).map(|k| (k * 3000).to_string()).collect();
    let sets = [
        set("duration", "\"200s\""),
        set("links.bottleneck.loss.rate", "0.0"),
        set(
            "links.bottleneck.loss.drops",
            &format!("[{}]", drops.join(",")),
        ),
    ];
    let r = common::run_traced(&dumbbell(), "cubic-dumbbell", &sets, &["cwnd"]);
    let f = &r.summary["flows"]["bulk"];
    assert_eq!(f["timeouts"], 0, "{f}");
    // From 30 s on (past HyStart++'s slow start and the first epochs), to the end.
    // The model is the fixed point of a fluid window that restarts on the curve at the
    // instant of each loss; the simulated flow also spends about two round trips per
    // 4 s epoch detecting the loss and recovering at beta W_max (-2.5 % for Reno below,
    // the same cause), and fast convergence (sec. 4.7), which the model leaves out,
    // lowers every other W_max by 15 % when a loss comes just before the plateau. Both
    // push the mean below the model: measured 74.4 segments, 5.6 % below.
    let got = mean(&r, "cwnd", 30.0, 200.0);
    assert!(
        got < cubic && got > 0.92 * cubic,
        "mean cwnd {got:.2} segments vs RFC 9438 sec. 5.1's {cubic:.2} (Reno's {reno:.2})"
    );
    // The same flow with the Reno rules: AIMD(1, 0.5) under the same loss has mean
    // window sqrt(3 / (2 p)) (3/4 of W_max = sqrt(8 / (3 p)); RFC 9438 sec. 5.1 and
    // Mathis et al. 1997); CUBIC's is above it, as the response functions say.
    let mut reno_sets = sets.to_vec();
    reno_sets.push(set("flows.bulk.congestion_control", "\"reno\""));
    let r = common::run_traced(&dumbbell(), "cubic-dumbbell", &reno_sets, &["cwnd"]);
    let got_reno = mean(&r, "cwnd", 30.0, 200.0);
    assert!(
        got_reno < reno && got_reno > 0.95 * reno,
        "Reno's mean cwnd {got_reno:.2} vs sqrt(3/(2p)) = {reno:.2}"
    );
    assert!(got > got_reno);
}

/// Payload capacity of the dumbbell's bottleneck: 10 Mb/s carries 1040-byte packets of
/// 1000 payload bytes.
const CAPACITY_BPS: f64 = 10e6 * 1000.0 / 1040.0;

#[test]
fn bbr_fills_the_bottleneck_and_keeps_its_queue_short() {
    // Lossless (no random loss): after Startup's overshoot into the 100-packet queue
    // (BBR v1's known behaviour with a buffer below the BDP), ProbeBW's gain cycle
    // keeps the queue from overflowing again: every drop happens in the first 10 s.
    let run = |measure_start: &str| {
        let sets = [
            set("duration", "\"60s\""),
            set("measure.start", measure_start),
            set("links.bottleneck.loss.rate", "0.0"),
            set("flows.bulk.congestion_control", "\"bbr\""),
        ];
        common::run_traced(
            &dumbbell(),
            "cubic-dumbbell",
            &sets,
            &["pacing_rate", "cwnd"],
        )
    };
    let r = run("\"10s\"");
    let f = &r.summary["flows"]["bulk"];
    let link = &r.summary["links"]["r1->r2"];
    assert_eq!(link["queue_drops"], 0, "{link}");
    assert_eq!(f["retransmissions"], 0, "{f}");
    // Goodput from 10 s to 60 s: the capacity but for ProbeRTT (200 ms of cwnd 4 every
    // 10 s, about 2 %) and the 0.75 phase's dip when the queue it drains is short.
    let goodput = f["goodput_bps"].as_f64().unwrap();
    assert!(
        goodput > 0.95 * CAPACITY_BPS && goodput <= CAPACITY_BPS,
        "{goodput} of {CAPACITY_BPS}"
    );
    // The pacing rate (bits/s) is BtlBw x the phase's gain: 1, 1.25 and 0.75 times the
    // payload capacity in ProbeBW (1/2.885 in Drain, 2.885 in Startup before 10 s).
    let rates: Vec<f64> = r
        .series
        .iter()
        .filter(|s| s.1 == "pacing_rate" && s.0 >= 10.0)
        .map(|s| s.2)
        .collect();
    assert!(!rates.is_empty());
    for gain in [1.0, 1.25, 0.75] {
        let want = gain * CAPACITY_BPS;
        assert!(
            rates.iter().any(|r| (r - want).abs() < 0.005 * want),
            "no pacing rate near {want}"
        );
    }
    assert!(
        rates.iter().all(|&r| r < 1.26 * CAPACITY_BPS),
        "{:?}",
        rates.iter().cloned().fold(0.0, f64::max)
    );
}

#[test]
fn cubic_can_be_paced() {
    let sets = [set("duration", "\"20s\""), set("flows.bulk.pacing", "true")];
    let r = common::run_traced(
        &dumbbell(),
        "cubic-dumbbell",
        &sets,
        &["pacing_rate", "cwnd"],
    );
    let f = &r.summary["flows"]["bulk"];
    assert!(
        f["goodput_bps"].as_f64().unwrap() > 0.8 * CAPACITY_BPS,
        "{f}"
    );
    // Linux's rate for window-based controllers: 1.2 cwnd / SRTT out of slow start.
    assert!(r.series.iter().any(|s| s.1 == "pacing_rate"));
    let unpaced = common::run_traced(&dumbbell(), "cubic-dumbbell", &sets[..1], &["pacing_rate"]);
    assert!(!unpaced.series.iter().any(|s| s.1 == "pacing_rate"));
}

#[test]
fn bbr_recovers_from_startup_overshoot_into_a_one_bdp_buffer() {
    // scenarios/dumbbell.toml without random loss: a 42-packet buffer (one BDP) that
    // Startup's 2.885 gain overflows, losing dozens of segments in one window. BBR's
    // in-flight input is what Linux counts (`tcp_packets_in_flight`: RFC 6675's pipe in
    // recovery, only what was sent again after a timeout), so packet conservation
    // (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`) and Drain's exit see the real
    // flight; then ProbeBW paces at BtlBw. Goodput from 10 s to 20 s is the payload
    // capacity, 10 Mb/s x 1460 / 1500, but for one ProbeRTT (200 ms + an RTT at cwnd 4,
    // about 2.5 %) and the 0.75 phase's dips: at least 90 % of it, with no timeout. (It
    // was 22 kb/s: with Sack1's pipe, which counts lost segments as in flight, recovery
    // sent one segment per ack for ten round trips, BtlBw's 10-round max filter forgot
    // the bottleneck, and a timeout left BBR in Drain.)
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell.toml");
    let text = std::fs::read_to_string(path).expect("scenario");
    let sets = [
        set("duration", "\"20s\""),
        set("links.bottleneck.loss.rate", "0.0"),
        set("flows.bulk.congestion_control", "\"bbr\""),
    ];
    let r = common::run_traced(&text, "dumbbell", &sets, &["cwnd"]);
    let f = &r.summary["flows"]["bulk"];
    let capacity = 10e6 * 1460.0 / 1500.0;
    let goodput = f["goodput_bps"].as_f64().unwrap();
    assert!(
        goodput >= 0.9 * capacity && goodput <= capacity,
        "{goodput} of {capacity}"
    );
    assert_eq!(f["timeouts"], 0, "{f}");
}
