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
//! Throughput counts the IP packet bytes (what ns-2 hands to the MAC: 1000 bytes here)
//! of every acknowledged DATA frame, per second; MAC/PHY headers, control frames and
//! retransmitted copies are not counted.

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

/// n saturated stations sending `ip_bytes` packets to one sink (station n), all in
/// range, zero propagation delay. Throughput over [warmup, end] in bit/s.
fn simulate(cfg: &MacCfg, n: usize, ip_bytes: u32, seed: u64, warmup: u64, end: u64) -> f64 {
    let mut net = Net::new(n + 1, cfg, seed);
    net.keep_logs = false;
    for i in 0..n {
        net.saturated[i] = Some((ip_bytes, MacAddr(n as u32)));
    }
    net.start_saturated(SimTime::ZERO);
    net.run_until(at_us(warmup));
    let acked = |net: &Net| -> u64 { net.macs.iter().map(|m| m.counters().acked).sum() };
    let a0 = acked(&net);
    net.run_until(at_us(end));
    let a1 = acked(&net);
    // Every acknowledged frame was delivered once at the sink.
    assert!(net.macs[n].counters().delivered >= a1);
    (a1 - a0) as f64 * f64::from(ip_bytes) * 8.0 / ((end - warmup) as f64 * 1e-6)
}

#[test]
fn general_tau_equals_bianchis_closed_form() {
    // With W_i = 2^min(i,m) W and no retry limit, tau = sum p^i / sum p^i (W_i + 1)/2
    // must equal Bianchi's eq. (7): tau = 2(1-2p) / ((1-2p)(W+1) + pW(1-(2p)^m)).
    // W = 32, m = 5, at the fixed points for n = 5, 10, 20.
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
    for n in [5, 10, 20] {
        let tau = m.tau(n);
        let p: f64 = 1.0 - (1.0 - tau).powi(n as i32 - 1);
        let eq7 = 2.0 * (1.0 - 2.0 * p)
            / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(5)));
        assert!((tau - eq7).abs() < 1e-9, "n {n}: tau {tau} eq7 {eq7}");
        assert!(p > 0.0 && p < 0.5);
    }
}

#[test]
fn saturation_throughput_against_bianchi() {
    let ip_bytes = 1000;
    let seconds = 40;
    let mut report = String::new();
    let mut worst: f64 = 0.0;
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
        for n in [5usize, 10, 20] {
            let sim = simulate(&cfg, n, ip_bytes, 7, 1_000_000, seconds * 1_000_000);
            let s_b = bianchi.throughput(n);
            let s_x = ns2.throughput(n);
            let gap = (sim - s_x) / s_x;
            worst = worst.max(gap.abs());
            report.push_str(&format!(
                "{} n={n:2}: sim {:.4} Mb/s, extended model {:.4} ({:+.2} %), Bianchi 2000 {:.4} ({:+.2} %)\n",
                if rts { "RTS/CTS" } else { "basic  " },
                sim / 1e6,
                s_x / 1e6,
                100.0 * gap,
                s_b / 1e6,
                100.0 * (sim - s_b) / s_b,
            ));
        }
    }
    println!("{report}");
    assert!(worst < 0.03, "largest gap {:.2} %\n{report}", 100.0 * worst);
}
