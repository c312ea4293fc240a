//! A destination's congestion controller when the flow's `congestion_control` is not
//! `"reno"` (docs/models/cc.md, SCTP section): the shared controller (crates cc/) runs
//! per destination (RFC 9260 sec. 7.2: cwnd and ssthresh are per destination), told of
//! the SACKs that newly acknowledge data sent there, of fast retransmits (7.2.4) and of
//! T3 expiries (7.2.3). The path keeps its window in bytes, as the sending rules read it;
//! the controller works in segments, so every call converts explicitly with the path's
//! smss, the chunk bytes one packet carries (PMTU - 32, the "MTU" of sec. 7.2).
//! Loss recovery (fast recovery, T3 marking, the retransmission rules) stays SCTP's.

use super::path::Path;
use crate::cc::{Ack, Congestion, CongestionEvent, Cubic, CwndAfter, WindowState};
use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub struct PathCc {
    cubic: Cubic,
    /// Chunk bytes newly acknowledged (cumulatively or by gap blocks) that were sent to
    /// this destination: HyStart++'s round counting (RFC 9406 sec. 4.2 `windowEnd`) in
    /// delivered bytes, as SCTP has no per-path sequence numbers.
    delivered: f64,
    /// Pacing, and BBR in place of CUBIC (`path_bbr`); None: unpaced CUBIC.
    pub(super) pacing: Option<Box<super::path_bbr::PathPacing>>,
}

impl PathCc {
    pub fn cubic(hystart: bool, slow_start_at_ssthresh: bool) -> Self {
        PathCc {
            // Unpaced (`for_knobs` sets pacing from the flow); cut from cwnd, not
            // FlightSize (RFC 9438 sec. 4.6 allows either; Linux and ns-3 use cwnd).
            cubic: Cubic::new(hystart, false, slow_start_at_ssthresh, false),
            delivered: 0.0,
            pacing: None,
        }
    }

    pub fn controller(&self) -> &Cubic {
        &self.cubic
    }
}

/// The path's byte window as the controller's segments.
fn window(p: &Path) -> WindowState {
    WindowState {
        cwnd: p.cwnd / p.mtu,
        ssthresh: p.ssthresh / p.mtu,
    }
}

fn store(p: &mut Path, w: WindowState) {
    p.cwnd = w.cwnd * p.mtu;
    p.ssthresh = w.ssthresh * p.mtu;
}

/// A SACK newly acknowledged `newly` chunk bytes sent to `p`, with `p.outstanding` still
/// as before the SACK. `slow_start`: the path is in slow start by SCTP's test; `grow`:
/// SCTP's rules let this SACK grow cwnd (not in fast recovery, the growth rule's
/// condition), else it is only counted. `rtt`: the controller's RTT sample from this
/// SACK, if any. Only for a path with a controller (`p.cc`); the caller applies SCTP's
/// own growth rules otherwise.
pub fn on_sack(
    p: &mut Path,
    now: SimTime,
    newly: f64,
    (slow_start, grow): (bool, bool),
    rtt: Option<f64>,
) {
    let smss = p.mtu;
    let Some(cc) = p.cc.as_mut() else { return };
    let delivered_before = cc.delivered;
    cc.delivered += newly;
    if !grow {
        return;
    }
    // RFC 9260 7.2.1 and 7.2.2: cwnd grows only while the window is in full use (RFC
    // 9438 sec. 4.2 defers to the transport for this, as Linux grows only while
    // `tcp_is_cwnd_limited`). It also stands in for the receiver-window check of the
    // controller (`rwnd` below), since a window the receiver limits is not in full use.
    if p.outstanding < p.cwnd {
        return;
    }
    // RFC 9260 7.2.1: in slow start one SACK opens cwnd by at most one MTU; CUBIC keeps
    // the transport's slow start (RFC 9438 sec. 4.10).
    let counted = if slow_start { newly.min(smss) } else { newly };
    let ack = Ack {
        now,
        segments_acked: counted / smss,
        acked_through: (cc.delivered / smss).floor() as i64,
        // What had been sent here when this SACK came: delivered plus outstanding.
        next_to_send: ((delivered_before + p.outstanding) / smss).ceil() as i64,
        rtt,
        srtt: p.rto.srtt().unwrap_or(0.0),
        rwnd: f64::INFINITY,
    };
    let mut w = window(p);
    if let Some(cc) = p.cc.as_mut() {
        cc.cubic.on_ack(&mut w, &ack);
    }
    store(p, w);
}

/// A fast retransmit (RFC 9260 7.2.4 step 2) or a T3 expiry (7.2.3) on `p`: the
/// controller's cut replaces SCTP's halving; after a T3, cwnd is one MTU (7.2.3, RFC
/// 9438 sec. 4.8). Returns false when the path has no controller.
pub fn on_congestion(p: &mut Path, now: SimTime, kind: Congestion) -> bool {
    if p.cc.is_none() {
        return false;
    }
    let mut w = window(p);
    let ev = CongestionEvent {
        now,
        kind,
        cwnd_after: match kind {
            Congestion::FastRetransmit => CwndAfter::Reduce,
            Congestion::Timeout => CwndAfter::One,
        },
        window_exact: w.cwnd,
        window_whole: w.cwnd.floor() as i64,
        flight: p.outstanding / p.mtu,
        rwnd: f64::INFINITY,
    };
    if let Some(cc) = p.cc.as_mut() {
        if !super::path_bbr::on_congestion(cc, &mut w, &ev) {
            cc.cubic.on_congestion(&mut w, &ev);
        }
    }
    store(p, w);
    true
}

/// The controller a destination starts with under `k` (`None` for Reno: the knobs'
/// rules). BBR and pacing are `path_bbr`'s.
pub fn for_knobs(k: &super::config::Knobs) -> Option<Box<PathCc>> {
    match k.congestion_control {
        crate::cc::Algorithm::Cubic => {
            let mut c = PathCc::cubic(k.hystart, k.slow_start_at_ssthresh);
            // Paced, HyStart++ uses L = infinity (RFC 9406 sec. 4.3).
            c.cubic = Cubic::new(k.hystart, k.pacing, k.slow_start_at_ssthresh, false);
            c.pacing = super::path_bbr::pacing_for(k);
            Some(Box::new(c))
        }
        crate::cc::Algorithm::Bbr => {
            // BBR replaces the controller (`path_bbr`); the CUBIC state stays unused.
            let mut c = PathCc::cubic(false, k.slow_start_at_ssthresh);
            c.pacing = super::path_bbr::pacing_for(k);
            Some(Box::new(c))
        }
        crate::cc::Algorithm::Reno => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::path::Rto;
    use crate::sim::SimDuration;

    /// A PMTU of 1500 B: 1468 B of chunks per packet, the smss the windows convert by.
    const M: f64 = 1468.0;

    fn cubic_path(cwnd_mtus: f64, hystart: bool) -> Path {
        let rto = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        let mut p = Path::new([10, 0, 0, 2], 1468, cwnd_mtus * M, 1e12, rto);
        p.cc = Some(Box::new(PathCc::cubic(hystart, true)));
        p
    }

    fn at(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    fn w_max(p: &Path) -> Option<f64> {
        p.cc.as_ref().and_then(|c| c.controller().w_max())
    }

    #[test]
    fn fast_retransmit_cuts_to_beta_times_cwnd_in_bytes() {
        // RFC 9438 sec. 4.6: ssthresh = cwnd = 0.7 W; sec. 4.7: W_max = W (first event).
        // W = 20 MTU = 29360 B -> 14 MTU = 20552 B.
        let mut p = cubic_path(20.0, true);
        p.outstanding = 20.0 * M;
        assert!(on_congestion(&mut p, at(0), Congestion::FastRetransmit));
        assert!(close(p.cwnd, 20552.0), "cwnd {}", p.cwnd);
        assert!(close(p.ssthresh, 20552.0), "ssthresh {}", p.ssthresh);
        assert_eq!(w_max(&p), Some(20.0));
        // A second event below W_max: fast convergence (sec. 4.7), W_max = 14 (1 + 0.7)/2
        // = 11.9 segments, cwnd 0.7 * 14 = 9.8 MTU.
        assert!(on_congestion(&mut p, at(10), Congestion::FastRetransmit));
        assert!(close(p.cwnd, 9.8 * M), "cwnd {}", p.cwnd / M);
        assert!(close(w_max(&p).unwrap_or(0.0), 11.9));
    }

    #[test]
    fn t3_gives_one_mtu_and_the_next_stage_starts_at_k_zero() {
        // RFC 9260 7.2.3 and RFC 9438 sec. 4.8: cwnd = 1 MTU, ssthresh = 0.7 W; the first
        // congestion-avoidance stage after it has K = 0 and W_max = its first cwnd.
        let mut p = cubic_path(20.0, true);
        p.outstanding = 20.0 * M;
        assert!(on_congestion(&mut p, at(0), Congestion::Timeout));
        assert_eq!(p.cwnd, M);
        assert!(close(p.ssthresh, 14.0 * M));
        assert_eq!(w_max(&p), None, "set when the next stage begins");
        // Slow start has brought cwnd above ssthresh to 15 MTU, the window full; a
        // SACK of one MTU starts the stage: W_cubic(0) = W_max = 15 and the
        // Reno-friendly W_est = 15 + 1/15 (alpha = 1: W_est >= cwnd_prior = 15) wins:
        // cwnd = 15 + 1/15 MTU.
        p.cwnd = 15.0 * M;
        p.outstanding = 15.0 * M;
        on_sack(&mut p, at(2000), M, (false, true), Some(0.1));
        let c = p.cc.as_ref().map(|c| c.controller());
        assert_eq!(c.and_then(|c| c.k()), Some(0.0));
        assert_eq!(c.and_then(|c| c.w_max()), Some(15.0));
        assert!(
            close(p.cwnd, (15.0 + 1.0 / 15.0) * M),
            "cwnd {}",
            p.cwnd / M
        );
    }

    #[test]
    fn congestion_avoidance_follows_the_cubic_curve_in_bytes() {
        // After a fast retransmit at W = 20 MTU: cwnd 14, W_max 20, K = cbrt((20 - 14) /
        // 0.4) = cbrt(15) s (eq. 2). No RTT estimate yet, so the target is W_cubic(t).
        // Slow start only below ssthresh (RFC 5681's test; with RFC 9260's cwnd <=
        // ssthresh the first SACK after the cut would be one of slow start).
        let mut p = cubic_path(20.0, false);
        p.cc = Some(Box::new(PathCc::cubic(false, false)));
        p.outstanding = 20.0 * M;
        on_congestion(&mut p, at(0), Congestion::FastRetransmit);
        p.outstanding = 14.0 * M;
        // First SACK of one MTU at 1 s starts the stage (t = 0): W_cubic(0) = 14 <
        // W_est = 14 + alpha/14 with alpha = 3 (1 - 0.7) / (1 + 0.7) (W_est below
        // cwnd_prior = 20): the Reno-friendly region, cwnd = W_est.
        let alpha = 3.0 * 0.3 / 1.7;
        let w1 = 14.0 + alpha / 14.0;
        on_sack(&mut p, at(1000), M, (false, true), None);
        assert!(close(p.cwnd / M, w1), "cwnd {}", p.cwnd / M);
        let k = 15f64.cbrt();
        assert!(close(
            p.cc.as_ref()
                .and_then(|c| c.controller().k())
                .unwrap_or(0.0),
            k
        ));
        // Second SACK at t = K: W_cubic(K) = W_max = 20 above W_est = w1 + alpha / w1:
        // cwnd += (20 - cwnd) / cwnd per acked segment (sec. 4.4).
        p.outstanding = p.cwnd;
        let later = 1000 + (k * 1000.0).round() as u64;
        on_sack(&mut p, at(later), M, (false, true), None);
        let t = (later - 1000) as f64 / 1000.0;
        let target = 0.4 * (t - k).powi(3) + 20.0;
        let w2 = w1 + (target - w1) / w1;
        assert!(close(p.cwnd / M, w2), "cwnd {} expected {w2}", p.cwnd / M);
    }

    #[test]
    fn slow_start_opens_at_most_one_mtu_per_sack_and_only_when_the_window_is_full() {
        // RFC 9260 7.2.1: a SACK of 2 MTU in slow start opens cwnd by 1 MTU.
        let mut p = cubic_path(4.0, false);
        p.outstanding = 4.0 * M;
        on_sack(&mut p, at(100), 2.0 * M, (true, true), Some(0.1));
        assert!(close(p.cwnd, 5.0 * M));
        // A window not in full use does not grow.
        p.outstanding = 3.0 * M;
        on_sack(&mut p, at(200), M, (true, true), Some(0.1));
        assert!(close(p.cwnd, 5.0 * M));
    }
}
