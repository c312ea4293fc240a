//! SCTP with `congestion_control = "cubic"` end to end on scenarios/cubic-dumbbell.toml's
//! path, against TCP-CUBIC on the same path and seeds (issue 33: "SCTP with cubic on the
//! same paths behaves like TCP with the same controller").

mod common;

use std::path::Path;

/// The dumbbell with its TCP flow replaced by `flow`, run for `secs` seconds.
fn dumbbell_with(flow: &str, secs: u32) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/cubic-dumbbell.toml");
    let text = std::fs::read_to_string(path).expect("scenario");
    let head = &text[..text.find("[[flows]]").expect("a flow")];
    head.replace("duration = \"120s\"", &format!("duration = \"{secs}s\"")) + flow
}

/// TCP's flow: the shipped one (SACK recovery, 1000-byte segments in 1040-byte packets).
const TCP: &str = r#"[[flows]]
name = "bulk"
type = "tcp"
variant = "sack"
congestion_control = "cubic"
from = "h1"
to = "h2"
window = 1000
"#;

/// SCTP's: the shipped scenarios/sctp-cubic-dumbbell.toml's flow (RFC 9260 rules, one
/// 1000-byte message per 1048-byte packet: 20 IPv4 + 12 common header + 16 DATA chunk
/// header, so a packet carries TCP's payload with 8 more header bytes; a receive buffer
/// above the path's BDP, as TCP's window).
fn sctp_flow() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sctp-cubic-dumbbell.toml");
    let text = std::fs::read_to_string(path).expect("scenario");
    text[text.find("[[flows]]").expect("a flow")..].to_string()
}

fn goodputs(flow: &str, seeds: &[u64], secs: u32) -> Vec<f64> {
    let text = dumbbell_with(flow, secs);
    seeds
        .iter()
        .map(|&s| {
            let v = common::summary(&text, s);
            v["flows"]["bulk"]["goodput_bps"].as_f64().expect("goodput")
        })
        .collect()
}

/// Mean and the half-width of its 95 % confidence interval (Student's t, n - 1 degrees
/// of freedom; t for 4 degrees is 2.776).
fn mean_ci(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, 2.776 * (var / n).sqrt())
}

#[test]
fn sctp_cubic_goodput_is_tcp_cubics_on_the_dumbbell() {
    let seeds = [1, 2, 3, 4, 5];
    let tcp = goodputs(TCP, &seeds, 60);
    let sctp = goodputs(&sctp_flow(), &seeds, 60);
    let (mt, ht) = mean_ci(&tcp);
    let (ms, hs) = mean_ci(&sctp);
    // The numbers docs/models/cc.md quotes (`--nocapture`).
    eprintln!("goodput b/s: tcp-cubic {mt:.0} +- {ht:.0}, sctp-cubic {ms:.0} +- {hs:.0}");
    // The same controller on the same path: the intervals overlap. SCTP's packets carry
    // 1000 payload bytes in 1048 against TCP's 1040 (0.8 % less goodput at the same
    // packet rate), well inside the seed-to-seed spread.
    assert!(
        (mt - ms).abs() <= ht + hs,
        "tcp {mt:.0} +- {ht:.0}, sctp {ms:.0} +- {hs:.0} ({tcp:?} {sctp:?})"
    );
    // And both use most of the 10 Mb/s bottleneck (0.01 % random loss).
    assert!(ms > 0.8e7, "{sctp:?}");
}

/// `flow` with its controller replaced by BBR.
fn with_bbr(flow: &str) -> String {
    flow.replace(
        "congestion_control = \"cubic\"",
        "congestion_control = \"bbr\"",
    )
}

#[test]
fn sctp_bbr_goodput_is_tcp_bbrs_on_the_dumbbell() {
    let seeds = [1, 2, 3, 4, 5];
    let tcp = goodputs(&with_bbr(TCP), &seeds, 60);
    let sctp = goodputs(&with_bbr(&sctp_flow()), &seeds, 60);
    let (mt, ht) = mean_ci(&tcp);
    let (ms, hs) = mean_ci(&sctp);
    // Both pace a packet per (wire size) / (gain x BtlBw x segment size), BtlBw in
    // segments per second, the bottleneck's packet rate: the packet rate at gain 1 is
    // BtlBw x segment / wire size, 1000 / 1040 of it for TCP and 1016 / 1048 (chunk bytes
    // per packet over the packet) for SCTP, so SCTP's goodput is TCP's times the ratio
    // (1.0083) at the same payload per packet (docs/models/cc.md, SCTP section).
    let unit = (1016.0 / 1048.0) / (1000.0 / 1040.0);
    let (mt, ht) = (mt * unit, ht * unit);
    eprintln!(
        "goodput b/s: tcp-bbr {:.0} +- {:.0} (x {unit:.4}: {mt:.0} +- {ht:.0}), sctp-bbr \
         {ms:.0} +- {hs:.0}",
        mt / unit,
        ht / unit
    );
    // BBR per destination, fed by per-destination rate samples and paced per
    // destination, against the TCP sender's BBR: the intervals overlap.
    assert!(
        (mt - ms).abs() <= ht + hs,
        "tcp {mt:.0} +- {ht:.0}, sctp {ms:.0} +- {hs:.0} ({tcp:?} {sctp:?})"
    );
    // Both near the payload capacity (SCTP: 10 Mb/s x 1000 / 1048 = 9.54 Mb/s).
    assert!(ms > 0.9 * 1e7 * 1000.0 / 1048.0, "{sctp:?}");
}

#[test]
fn sctp_bbr_paces_at_its_bottleneck_estimate_without_standing_loss() {
    // Lossless: after Startup's overshoot into the 100-packet queue, ProbeBW keeps
    // the queue from overflowing (as tests/cc_flows.rs checks for TCP): no drop and no
    // retransmission from 10 s on, goodput above 95 % of the payload capacity (10 Mb/s x
    // 1000 / 1048 B), and the pacing rate is 1, 1.25 and 0.75 times the bottleneck's
    // rate in the unit SCTP's windows count, chunk bytes (1016 B per packet).
    let text = dumbbell_with(&with_bbr(&sctp_flow()), 60);
    let sets = [
        ("measure.start".to_string(), "\"10s\"".to_string()),
        ("links.bottleneck.loss.rate".to_string(), "0.0".to_string()),
    ];
    let r = common::run_traced(&text, "sctp-bbr", &sets, &["pacing_rate", "cwnd"]);
    let capacity = 1e7 * 1000.0 / 1048.0;
    let f = &r.summary["flows"]["bulk"];
    let link = &r.summary["links"]["r1->r2"];
    assert_eq!(link["queue_drops"], 0, "{link}");
    assert_eq!(f["retransmissions"], 0, "{f}");
    let goodput = f["goodput_bps"].as_f64().expect("goodput");
    assert!(
        goodput > 0.95 * capacity && goodput <= capacity,
        "{goodput} of {capacity}"
    );
    let rates: Vec<f64> = r
        .series
        .iter()
        .filter(|s| s.1 == "pacing_rate" && s.0 >= 10.0)
        .map(|s| s.2)
        .collect();
    for gain in [1.0, 1.25, 0.75] {
        let want = gain * 1e7 * 1016.0 / 1048.0;
        assert!(
            rates.iter().any(|r| (r - want).abs() < 0.005 * want),
            "no pacing rate near {want}"
        );
    }
}
