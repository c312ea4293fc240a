//! Bianchi's saturation throughput model of DCF (G. Bianchi, "Performance analysis of
//! the IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000) as an
//! independent oracle for the MAC in one cell.
//!
//! The model, computed here from ns-2's constants:
//! - each station transmits in a generic slot with probability tau, every transmission
//!   collides with probability p = 1 - (1 - tau)^(n-1) (decoupling assumption);
//! - tau from the backoff chain with per-stage windows W_i and a retry limit R: a packet
//!   makes attempt i with probability p^i (i < R) and then spends on average
//!   (W_i + 1)/2 slots at stage i (k idle slots, k uniform in 0..W_i-1, plus the slot it
//!   transmits in), so tau = sum p^i / sum p^i (W_i + 1)/2. With W_i = 2^i W and no
//!   retry limit this is Bianchi's eq. (7);
//! - S = Ps Ptr E[P] / ((1 - Ptr) sigma + Ptr Ps Ts + Ptr (1 - Ps) Tc) (eq. 13).
//!
//! "Extended" means ns-2's rules where they differ from Bianchi's paper: the windows
//! are ns-2's (backoff = random % cw with cw = 31, 63, ..., 1023, i.e. W_i = cw_i values),
//! R = 7 attempts (ShortRetryLimit; RTS failures, and with basic access DATA failures
//! since the frame is below RTSThreshold, count on the short retry count), and after a
//! collision every station, the colliders included, waits EIFS (NAV set by the errored
//! reception) and then DIFS before counting down again: Tc = frame + EIFS + DIFS.
//! Propagation delay is zero.
//!
//! The numbers at the test's cell (2 Mb/s data and basic rate, PLCP 192 us at 1 Mb/s,
//! 1000-byte packets): sigma 20 us, SIFS 10, DIFS 50, EIFS 10 + 50 + 304 = 364 us;
//! DATA 192 + (1000 + 30 + 4) x 4 = 4328 us, RTS 192 + 80 = 272, CTS = ACK = 192 + 56 =
//! 248 us. RTS/CTS: Ts = 272 + 10 + 248 + 10 + 4328 + 10 + 248 + 50 = 5176 us,
//! Tc = 272 + 364 + 50 = 686 us. Basic access: Ts = 4328 + 10 + 248 + 50 = 4636 us,
//! Tc = 4328 + 364 + 50 = 4742 us.
//!
//! Statistics: the simulated throughput is a batch-means estimate (2-s batches after
//! 1 s of warm-up) and each cell's 99 % half-width must stay below 1 % (a third of the
//! 3 % tolerance), so the test measures the model's fit, not the sample. The test also
//! fails if a run is too short for that. ns-2.35's own result on the same cell is in
//! docs/models/wireless.md (`python -m sctplab.validate_cell`).
//!
//! Throughput (the model's E[P] and the simulation's count alike): the bytes of the
//! packet the MAC is handed (ns-2's `ch->size()` on entry to `Mac802_11::send`, the IP
//! packet: 1000 bytes here, i.e. UDP payload + 8 + 20 in sctplab) of every DATA frame
//! acknowledged, per second of simulated time. Not counted: the 30-byte MAC header, the
//! 4-byte FCS and the 24-byte PLCP preamble and header of every frame, RTS/CTS/ACK
//! frames, and the copies of a packet that collided.

use super::harness::*;
use super::*;

struct Model {
    /// Per-stage window (number of equally likely backoff values).
    w: Vec<f64>,
    sigma: f64,
    ts: f64,
    tc: f64,
    payload_bits: f64,
}

impl Model {
    fn tau_of_p(&self, p: f64) -> f64 {
        let mut attempts = 0.0;
        let mut slots = 0.0;
        let mut pi = 1.0;
        for w in &self.w {
            attempts += pi;
            slots += pi * (w + 1.0) / 2.0;
            pi *= p;
        }
        attempts / slots
    }

    /// Fixed point tau = f(1 - (1 - tau)^(n-1)) by bisection (f decreasing in p, so
    /// g(tau) = f(p(tau)) - tau is decreasing).
    fn tau(&self, n: usize) -> f64 {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            let p = 1.0 - (1.0 - mid).powi(n as i32 - 1);
            if self.tau_of_p(p) > mid {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Saturation throughput in bit/s.
    fn throughput(&self, n: usize) -> f64 {
        let tau = self.tau(n);
        let ptr = 1.0 - (1.0 - tau).powi(n as i32);
        let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
        let slot = (1.0 - ptr) * self.sigma + ptr * ps * self.ts + ptr * (1.0 - ps) * self.tc;
        ps * ptr * self.payload_bits / slot
    }
}

/// Frame airtimes from the MAC's own configuration (seconds).
fn secs(d: SimDuration) -> f64 {
    d.as_secs_f64()
}

fn models(cfg: &MacCfg, ip_bytes: u32, rts: bool) -> (Model, Model) {
    let sigma = secs(cfg.slot);
    let sifs = secs(cfg.sifs);
    let difs = secs(cfg.difs());
    let eifs = secs(cfg.eifs());
    let rts_t = secs(cfg.airtime(cfg.rts_bytes, cfg.basic_rate_bps));
    let cts_t = secs(cfg.airtime(cfg.cts_bytes, cfg.basic_rate_bps));
    let ack_t = secs(cfg.airtime(cfg.ack_bytes, cfg.basic_rate_bps));
    let data_t = secs(cfg.airtime(
        ip_bytes + cfg.data_header_bytes + cfg.fcs_bytes,
        cfg.data_rate_bps,
    ));
    let (ts, tc_bianchi, tc_ns2) = if rts {
        (
            rts_t + sifs + cts_t + sifs + data_t + sifs + ack_t + difs,
            rts_t + difs,
            rts_t + eifs + difs,
        )
    } else {
        (
            data_t + sifs + ack_t + difs,
            data_t + difs,
            data_t + eifs + difs,
        )
    };
    let payload_bits = f64::from(ip_bytes) * 8.0;
    // Bianchi's paper: W = 32, m = 5 (W_m = 1024), no retry limit (60 stages stand in
    // for infinity: p^60 is negligible).
    let bianchi = Model {
        w: (0..60)
            .map(|i| 32.0 * f64::from(1u32 << i.min(5)))
            .collect(),
        sigma,
        ts,
        tc: tc_bianchi,
        payload_bits,
    };
    let mut w = Vec::new();
    let mut cw = cfg.cw_min;
    for _ in 0..cfg.short_retry_limit {
        w.push(f64::from(cw));
        cw = ((cw << 1) + 1).min(cfg.cw_max);
    }
    let ns2 = Model {
        w,
        sigma,
        ts,
        tc: tc_ns2,
        payload_bits,
    };
    (bianchi, ns2)
}

/// A throughput estimate: mean over the window and its standard error by batch means.
struct Estimate {
    mean: f64,
    se: f64,
}

/// Batch length for the standard error. Saturated DCF forgets its state within a few
/// hundred frame exchanges (a packet's backoff stages last well under 100 ms even at
/// n = 50), so 2-s batches are close to independent.
const BATCH_US: u64 = 2_000_000;

/// n saturated stations sending `ip_bytes` packets to one sink (station n), all in
/// range, all received at the same power (no capture), zero propagation delay.
/// Throughput over [warmup, warmup + batches x 2 s] in bit/s, counted as the module
/// header says: acknowledged DATA frames x `ip_bytes` x 8.
fn simulate(
    cfg: &MacCfg,
    n: usize,
    ip_bytes: u32,
    seed: u64,
    warmup: u64,
    batches: u64,
) -> Estimate {
    let mut net = Net::new(n + 1, cfg, seed);
    net.keep_logs = false;
    for i in 0..n {
        net.saturated[i] = Some((ip_bytes, MacAddr(n as u32)));
    }
    net.start_saturated(SimTime::ZERO);
    let acked = |net: &Net| -> u64 { net.macs.iter().map(|m| m.counters().acked).sum() };
    net.run_until(at_us(warmup));
    let mut last = acked(&net);
    let mut xs = Vec::new();
    for b in 1..=batches {
        net.run_until(at_us(warmup + b * BATCH_US));
        let a = acked(&net);
        xs.push((a - last) as f64 * f64::from(ip_bytes) * 8.0 / (BATCH_US as f64 * 1e-6));
        last = a;
    }
    // Every acknowledged frame was delivered once at the sink.
    assert!(net.macs[n].counters().delivered >= last);
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    Estimate {
        mean,
        se: (var / k).sqrt(),
    }
}

#[test]
fn general_tau_equals_bianchis_closed_form() {
    // With W_i = 2^min(i,m) W and no retry limit, tau = sum p^i / sum p^i (W_i + 1)/2
    // must equal Bianchi's eq. (7): tau = 2(1-2p) / ((1-2p)(W+1) + pW(1-(2p)^m)).
    // W = 32, m = 5, at the fixed points for n = 5, 10, 20, 50.
    let m = Model {
        w: (0..60)
            .map(|i| 32.0 * f64::from(1u32 << i.min(5)))
            .collect(),
        sigma: 50e-6,
        ts: 1e-3,
        tc: 1e-3,
        payload_bits: 8184.0,
    };
    let w = 32.0;
    for n in [5, 10, 20, 50] {
        let tau = m.tau(n);
        let p: f64 = 1.0 - (1.0 - tau).powi(n as i32 - 1);
        let eq7 = 2.0 * (1.0 - 2.0 * p)
            / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(5)));
        assert!((tau - eq7).abs() < 1e-9, "n {n}: tau {tau} eq7 {eq7}");
        // p = 1/2 is eq. (7)'s removable singularity; the fixed points stay clear of it.
        assert!(p > 0.0 && (p - 0.5).abs() > 0.01, "n {n}: p {p}");
    }
}

/// Tolerance of the simulation against the extended model.
const TOLERANCE: f64 = 0.03;
/// The 99 % half-width of each simulated mean (2.58 standard errors by batch means) must
/// stay below a third of the tolerance, so a pass or a failure is about the model, not
/// the sample.
const MAX_HALF_WIDTH: f64 = TOLERANCE / 3.0;

/// The cell of the comparison: 1000-byte packets, ns-2's defaults with data and basic
/// rate 2 Mb/s (seed 004's), RTS/CTS on every DATA frame or basic access. After 1 s of
/// warm-up, `batches` 2-s batches (RTS/CTS, basic access): basic access needs more, as
/// a collision there wastes a whole DATA frame (4.8 ms against 0.6 ms for an RTS), so the
/// number of frames delivered per batch varies more.
fn check_cells(ns: &[usize], batches: (u64, u64)) {
    let ip_bytes = 1000;
    let mut report = String::new();
    let mut failures = Vec::new();
    for rts in [true, false] {
        let cfg = MacCfg {
            // Basic access: RTSThreshold above the frame (1000 + 58 bytes).
            rts_threshold: if rts { 0 } else { 3000 },
            ..MacCfg {
                data_rate_bps: 2_000_000,
                basic_rate_bps: 2_000_000,
                ..MacCfg::ns2()
            }
        };
        let (bianchi, ns2) = models(&cfg, ip_bytes, rts);
        for &n in ns {
            let b = if rts { batches.0 } else { batches.1 };
            let sim = simulate(&cfg, n, ip_bytes, 7, 1_000_000, b);
            let s_b = bianchi.throughput(n);
            let s_x = ns2.throughput(n);
            let gap = (sim.mean - s_x) / s_x;
            let half = 2.58 * sim.se / sim.mean;
            let line = format!(
                "{} n={n:2}: sim {:.4} Mb/s +- {:.2} % (99 %), extended model {:.4} ({:+.2} %), Bianchi 2000 {:.4} ({:+.2} %)",
                if rts { "RTS/CTS" } else { "basic  " },
                sim.mean / 1e6,
                100.0 * half,
                s_x / 1e6,
                100.0 * gap,
                s_b / 1e6,
                100.0 * (sim.mean - s_b) / s_b,
            );
            if gap.abs() >= TOLERANCE || half >= MAX_HALF_WIDTH {
                failures.push(line.clone());
            }
            report.push_str(&line);
            report.push('\n');
        }
    }
    println!("{report}");
    assert!(
        failures.is_empty(),
        "out of tolerance:\n{}\n\nall:\n{report}",
        failures.join("\n")
    );
}

#[test]
fn saturation_throughput_against_bianchi() {
    // 20 s with RTS/CTS, 50 s with basic access.
    check_cells(&[5, 10, 20], (10, 25));
}

#[test]
fn saturation_throughput_against_bianchi_n50() {
    // n = 50 costs about 2.5 times n = 20 per simulated second (each frame reaches every
    // station), so a run of its own, which the test harness runs beside the other.
    // 20 s with RTS/CTS, 100 s with basic access.
    check_cells(&[50], (10, 50));
}
