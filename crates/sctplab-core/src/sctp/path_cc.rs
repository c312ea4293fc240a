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
}

impl PathCc {
    pub fn cubic(hystart: bool, slow_start_at_ssthresh: bool) -> Self {
        PathCc {
            // Unpaced (SCTP pacing is not built); cut from cwnd, not FlightSize (RFC 9438
            // sec. 4.6 allows either; Linux and ns-3 use cwnd).
            cubic: Cubic::new(hystart, false, slow_start_at_ssthresh, false),
            delivered: 0.0,
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
/// as before the SACK. `slow_start`: the path is in slow start by SCTP's test.
/// `rtt`: the path's RTT sample taken from this SACK, if any. Only for a path with a
/// controller (`p.cc`); the caller applies SCTP's own growth rules otherwise.
pub fn on_sack(p: &mut Path, now: SimTime, newly: f64, slow_start: bool, rtt: Option<f64>) {
    let smss = p.mtu;
    let Some(cc) = p.cc.as_mut() else { return };
    let delivered_before = cc.delivered;
    cc.delivered += newly;
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
        cc.cubic.on_congestion(&mut w, &ev);
    }
    store(p, w);
    true
}

/// The controller a destination starts with under `k` (`None` for Reno: the knobs'
/// rules). BBR is refused for SCTP flows when the scenario is loaded: it needs per-path
/// delivery-rate samples, which SCTP does not keep yet.
pub fn for_knobs(k: &super::config::Knobs) -> Option<Box<PathCc>> {
    match k.congestion_control {
        crate::cc::Algorithm::Cubic => {
            Some(Box::new(PathCc::cubic(k.hystart, k.slow_start_at_ssthresh)))
        }
        crate::cc::Algorithm::Reno | crate::cc::Algorithm::Bbr => None,
    }
}
