//! CUBIC (RFC 9438): after a congestion event the window follows
//! W_cubic(t) = C (t - K)^3 + W_max (sec. 4.2, eq. 1), concave up to the window of the
//! last event and convex beyond it, with the Reno-friendly estimate W_est as a floor
//! (sec. 4.3), fast convergence (sec. 4.7) and the timeout rule (sec. 4.8). Slow start is
//! HyStart++ (RFC 9406) for the first one, standard slow start otherwise (sec. 4.10).
//! Windows are in segments, times in seconds.

use super::hystart::HyStart;
use super::{Ack, Congestion, CongestionEvent, CwndAfter, WindowState};
use crate::sim::SimTime;

/// RFC 9438 sec. 5: C = 0.4, beta_cubic = 0.7.
pub const C: f64 = 0.4;
pub const BETA: f64 = 0.7;
/// Sec. 4.3 eq. 5: alpha_cubic = 3 (1 - beta) / (1 + beta), the additive increase that
/// makes an AIMD(alpha, beta) flow as fast as Reno's AIMD(1, 0.5) on average.
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// The current congestion-avoidance stage (RFC 9438's "epoch").
#[derive(Copy, Clone, Debug)]
struct Epoch {
    /// t_epoch: when the stage began.
    start: SimTime,
    /// K (sec. 4.2 eq. 2), in seconds.
    k: f64,
    /// W_max of this stage's curve.
    w_max: f64,
    /// The Reno-friendly estimate (sec. 4.3 eq. 4).
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    pub fast_convergence: bool,
    /// Slow start while cwnd <= ssthresh (the flow's `slow_start_at_ssthresh`).
    slow_start_at_ssthresh: bool,
    /// Reduce from FlightSize (RFC 9438 sec. 4.6's formula) instead of cwnd (what Linux,
    /// Windows and ns-3 do, and sec. 4.6 allows): the flow's `window_unit = "bytes"`.
    flight_based_cut: bool,
    /// W_max after the last congestion event; `None` before the first and after a
    /// timeout, when the next stage starts with K = 0 and W_max = its first cwnd
    /// (sec. 4.8, sec. 4.10).
    w_max: Option<f64>,
    /// cwnd at the last congestion event (sec. 4.6's cwnd_prior): alpha becomes 1 once
    /// W_est reaches it (sec. 4.3).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The first ack of the current stretch in which the receiver's window, not cwnd,
    /// limits the flow (cwnd is not updated then; sec. 4.2 takes such periods out of t).
    limited_since: Option<SimTime>,
    hystart: Option<HyStart>,
}

/// RFC 9438 eq. 1.
pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    C * (t - k).powi(3) + w_max
}

/// RFC 9438 eq. 2: the time the curve takes from `cwnd_epoch` to `w_max`.
pub fn k_of(w_max: f64, cwnd_epoch: f64) -> f64 {
    ((w_max - cwnd_epoch) / C).cbrt()
}

impl Cubic {
    pub fn new(
        hystart: bool,
        paced: bool,
        slow_start_at_ssthresh: bool,
        flight_based_cut: bool,
    ) -> Self {
        Cubic {
            fast_convergence: true,
            slow_start_at_ssthresh,
            flight_based_cut,
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            limited_since: None,
            hystart: hystart.then(|| HyStart::new(paced)),
        }
    }

    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// W_max of the current or next stage (`None`: set when the next stage begins).
    pub fn w_max(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_max).or(self.w_max)
    }

    /// K of the current stage.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// The Reno-friendly estimate of the current stage.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    fn in_slow_start(&self, w: &WindowState) -> bool {
        if self.slow_start_at_ssthresh {
            w.cwnd <= w.ssthresh
        } else {
            w.cwnd < w.ssthresh
        }
    }

    pub fn on_ack(&mut self, w: &mut WindowState, ack: &Ack) {
        let mut leftover = None;
        if self.in_slow_start(w) {
            match self.hystart.as_mut() {
                Some(h) if h.active() => {
                    h.on_ack(w, ack);
                    if h.active() || self.in_slow_start(w) {
                        return;
                    }
                    // CSS ended in congestion avoidance: this ack starts the stage.
                }
                // Standard slow start with byte counting (RFC 5681 sec. 3.1, RFC 3465;
                // Linux's `tcp_slow_start`): a stretch ack of N segments counts as N
                // acks of one, but slow start ends at ssthresh and what is left of N
                // grows the window in congestion avoidance. Without the bound, the
                // cumulative ack that ends a timeout's go-back-N recovery (hundreds of
                // segments the receiver already held) would add them all to a window
                // of one.
                _ => {
                    // Slow start while cwnd <= ssthresh reaches ssthresh + 1 (ns-2's
                    // `opencwnd` with `slow_start_at_ssthresh`).
                    let end = if self.slow_start_at_ssthresh {
                        w.ssthresh + 1.0
                    } else {
                        w.ssthresh
                    };
                    let grown = (w.cwnd + ack.segments_acked).min(end.max(w.cwnd));
                    let left = ack.segments_acked - (grown - w.cwnd);
                    w.cwnd = grown;
                    if left <= 0.0 {
                        return;
                    }
                    leftover = Some(left);
                }
            }
        }
        let segments_acked = leftover.unwrap_or(ack.segments_acked);
        if w.cwnd >= ack.rwnd {
            // The receiver's window, not cwnd, limits the flow: growing a window that is
            // not used would only store up a burst (RFC 7661 sec. 4.3; Linux grows only
            // while `tcp_is_cwnd_limited`).
            self.limited_since.get_or_insert(ack.now);
            return;
        }
        if let Some(since) = self.limited_since.take() {
            // RFC 9438 sec. 4.2: "The elapsed time t in Figure 1 MUST NOT include periods
            // during which cwnd has not been updated due to application-limited
            // behavior" (sec. 5.8): the stage's start moves on by the limited period, as
            // Linux's `bictcp_cwnd_event` moves `epoch_start` after an idle period.
            if let Some(e) = self.epoch.as_mut() {
                e.start += ack.now.saturating_since(since);
            }
        }
        let epoch = *self.epoch.get_or_insert_with(|| {
            let cwnd = w.cwnd;
            match self.w_max {
                Some(w_max) => Epoch {
                    start: ack.now,
                    k: k_of(w_max, cwnd),
                    w_max,
                    w_est: cwnd,
                },
                None => {
                    // Sec. 4.8 (after a timeout) and sec. 4.10 (slow start left without
                    // a congestion event): K = 0, W_max = cwnd at the start of the stage,
                    // W_est starts there, and cwnd_prior is that cwnd.
                    self.cwnd_prior = cwnd;
                    Epoch {
                        start: ack.now,
                        k: 0.0,
                        w_max: cwnd,
                        w_est: cwnd,
                    }
                }
            }
        });
        let t = ack.now.saturating_since(epoch.start).as_secs_f64();
        // Sec. 4.2: RTT is the smoothed round-trip time; the ack's own sample stands in
        // before the estimator has one.
        let rtt = if ack.srtt > 0.0 {
            ack.srtt
        } else {
            ack.rtt.unwrap_or(0.0)
        };
        // Sec. 4.3 eq. 4, with alpha = 1 once W_est has reached cwnd_prior.
        let alpha = if epoch.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        };
        let w_est = epoch.w_est + alpha * segments_acked / w.cwnd;
        if let Some(e) = self.epoch.as_mut() {
            e.w_est = w_est;
        }
        if w_cubic(t, epoch.k, epoch.w_max) < w_est {
            // Reno-friendly region (sec. 4.3).
            w.cwnd = w_est;
        } else {
            // Concave and convex regions (sec. 4.4, 4.5): the target one RTT ahead,
            // bounded to [cwnd, 1.5 cwnd] (sec. 4.2), approached by
            // (target - cwnd) / cwnd per acknowledged segment and never passed: a
            // stretch ack of more than a window cannot take cwnd beyond where the curve
            // says it should be one RTT from now.
            let target = w_cubic(t + rtt, epoch.k, epoch.w_max).clamp(w.cwnd, 1.5 * w.cwnd);
            w.cwnd = (w.cwnd + (target - w.cwnd) / w.cwnd * segments_acked).min(target);
        }
    }

    pub fn on_congestion(&mut self, w: &mut WindowState, ev: &CongestionEvent) {
        // The window at the event: cwnd, as far as the receiver's window let it be used.
        let cwnd = w.cwnd.min(ev.rwnd);
        // Sec. 4.7 fast convergence: a flow whose saturation point fell releases
        // bandwidth by remembering less than it reached.
        let previous = self.w_max().unwrap_or(cwnd);
        self.w_max = Some(if self.fast_convergence && cwnd < previous {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        });
        self.cwnd_prior = cwnd;
        // Sec. 4.6: ssthresh = beta * (FlightSize or cwnd), at least 2 segments.
        let base = if self.flight_based_cut {
            ev.flight
        } else {
            cwnd
        };
        let ssthresh = (base * BETA).max(2.0);
        w.ssthresh = ssthresh;
        match ev.cwnd_after {
            CwndAfter::Reduce => w.cwnd = ssthresh,
            CwndAfter::One => w.cwnd = 1.0,
            CwndAfter::Keep => {}
        }
        self.epoch = None;
        self.limited_since = None;
        if ev.kind == Congestion::Timeout {
            // Sec. 4.8: the first stage after a timeout starts with K = 0 and W_max =
            // its first cwnd.
            self.w_max = None;
        }
        // HyStart++ is for the first slow start only (RFC 9406 sec. 4.3).
        if let Some(h) = self.hystart.as_mut() {
            h.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    fn ack(now: SimTime, rtt: f64) -> Ack {
        Ack {
            now,
            segments_acked: 1.0,
            acked_through: 0,
            next_to_send: 0,
            rtt: Some(rtt),
            srtt: rtt,
            rwnd: 1e9,
        }
    }

    fn loss(kind: Congestion, after: CwndAfter) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::ZERO,
            kind,
            cwnd_after: after,
            window_exact: 0.0,
            window_whole: 0,
            flight: 0.0,
            rwnd: 1e9,
        }
    }

    /// Acks one segment at a time, `cwnd` of them per round trip of `rtt` seconds, until
    /// `until` seconds; calls `each` at every whole second.
    fn drive(
        c: &mut Cubic,
        w: &mut WindowState,
        rtt: f64,
        until: f64,
        mut each: impl FnMut(f64, &WindowState),
    ) {
        let mut now = 0.0;
        let mut next_second = 0.0;
        while now <= until + 1e-9 {
            if now + 1e-9 >= next_second {
                each(next_second, w);
                next_second += 1.0;
            }
            let n = w.cwnd.floor().max(1.0) as u32;
            let gap = rtt / f64::from(n);
            for _ in 0..n {
                let t = SimTime::ZERO + SimDuration::from_secs_f64(now);
                c.on_ack(w, &ack(t, rtt));
                now += gap;
            }
        }
    }

    #[test]
    fn k_and_the_curve_after_a_loss_at_100_segments() {
        // Eq. 2: K = cbrt(100 * (1 - 0.7) / 0.4) = cbrt(75) = 4.2172 s. Eq. 1 by hand:
        // W(0) = 70, W(1) = 0.4 * (-3.2172)^3 + 100 = 86.68, W(2) = 95.64, W(3) = 99.28,
        // W(4) = 99.996, W(5) = 100.19, W(K + 1) = 100.4.
        let k = k_of(100.0, 70.0);
        assert!((k - 4.217_163).abs() < 1e-6, "{k}");
        let hand = [
            (0.0, 70.0),
            (1.0, 86.68),
            (2.0, 95.64),
            (3.0, 99.28),
            (4.0, 99.996),
            (5.0, 100.19),
            (k + 1.0, 100.4),
        ];
        for (t, want) in hand {
            let got = w_cubic(t, k, 100.0);
            assert!(
                (got - want).abs() < 0.006,
                "W({t}) = {got}, expected {want}"
            );
        }
    }

    #[test]
    fn window_after_a_loss_follows_the_curve_for_t_0_to_k_plus_1() {
        // A loss at W_max = 100 segments (fast retransmit): cwnd = ssthresh = 70. With a
        // 200 ms RTT the Reno-friendly estimate stays below the curve until K + 1
        // (70 + 0.529 * 26 round trips = 84 < 100.4), so cwnd follows eq. 1; each round
        // trip's acks bring cwnd to W(t + RTT) by its end, so at each second cwnd is the
        // curve's value within a few tenths of a segment.
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        assert_eq!(w.cwnd, 70.0);
        assert_eq!(w.ssthresh, 70.0);
        assert_eq!(c.w_max(), Some(100.0));
        let k = 75f64.cbrt();
        let mut checked = 0;
        drive(&mut c, &mut w, 0.2, k + 1.0, |t, w| {
            let want = w_cubic(t, k, 100.0);
            assert!(
                (w.cwnd - want).abs() < 0.02 * want,
                "t = {t}: cwnd {} vs W(t) {want}",
                w.cwnd
            );
            checked += 1;
        });
        assert_eq!(checked, 6);
        assert!((c.k().unwrap() - k).abs() < 1e-9);
        assert!(c.w_est().unwrap() < w_cubic(k + 1.0, k, 100.0));
    }

    #[test]
    fn time_limited_by_the_receivers_window_is_not_in_t() {
        // Sec. 4.2: t leaves out periods in which cwnd was not updated because the flow
        // was limited. A loss at W_max = 100 (cwnd 70, K = cbrt(75) = 4.21716 s), RTT
        // 100 ms. The ack at 0 s starts the stage; W_cubic(0) = 70 is below W_est =
        // 70 + 0.5294 / 70 = 70.00756, so cwnd = W_est (sec. 4.3).
        let at = |s: f64| SimTime::ZERO + SimDuration::from_secs_f64(s);
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        c.on_ack(&mut w, &ack(at(0.0), 0.1));
        assert!((w.cwnd - 70.00756).abs() < 1e-5, "{}", w.cwnd);
        // From 0.5 s to 3.5 s the receiver's window (10 segments) limits the flow: cwnd
        // stays.
        let mut limited = ack(at(0.5), 0.1);
        limited.rwnd = 10.0;
        c.on_ack(&mut w, &limited);
        limited.now = at(2.0);
        c.on_ack(&mut w, &limited);
        assert!((w.cwnd - 70.00756).abs() < 1e-5, "{}", w.cwnd);
        // At 3.5 s the flow is cwnd-limited again: t = 3.5 - 3 = 0.5 s. W_cubic(0.5) =
        // 0.4 (0.5 - 4.21716)^3 + 100 = 79.45 is above W_est (70.0151), so the concave
        // rule: target = W_cubic(0.6) = 0.4 (-3.61716)^3 + 100 = 81.069, cwnd = 70.00756 +
        // (81.069 - 70.00756) / 70.00756 = 70.1656. With the 3 s left in t it would be
        // W_cubic(3.6) = 99.906 and cwnd 70.4347.
        c.on_ack(&mut w, &ack(at(3.5), 0.1));
        assert!((w.cwnd - 70.1656).abs() < 1e-3, "{}", w.cwnd);
    }

    #[test]
    fn reno_friendly_region_grows_alpha_per_round_trip_then_one() {
        // With a 10 ms RTT the curve is far slower than Reno: cwnd = W_est, which grows by
        // alpha_cubic = 3 * 0.3 / 1.7 = 0.5294 segments per round trip while below
        // cwnd_prior = 100 (eq. 4, 5), then by 1 per round trip.
        assert!((ALPHA - 0.529_411_764_7).abs() < 1e-9);
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        let mut at = Vec::new();
        drive(&mut c, &mut w, 0.01, 2.0, |_, w| at.push(w.cwnd));
        // After 1 s = 100 round trips: 70 + 0.5294 n reaches 100 after n = 56.7 round trips,
        // then 43.3 more at 1 each: about 143.3. Each round trip acks floor(cwnd)
        // segments, a little under cwnd, so allow 1 %.
        assert!((at[1] - 143.3).abs() < 0.01 * 143.3, "{at:?}");
        // W_cubic(1 s) = 86.68 is far below: the Reno-friendly region.
        assert!(w_cubic(1.0, 75f64.cbrt(), 100.0) < at[1]);
        // A further second at 1 segment per round trip: +100.
        assert!((at[2] - at[1] - 100.0).abs() < 1.5, "{at:?}");
    }

    #[test]
    fn fast_convergence_remembers_less_than_the_flow_reached() {
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        // The next loss comes at 80 < W_max = 100: W_max = 80 * (1 + 0.7) / 2 = 68,
        // ssthresh = cwnd = 56, K = cbrt((68 - 56) / 0.4) = cbrt(30) = 3.107 s (sec. 4.7).
        w.cwnd = 80.0;
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        assert!((c.w_max().unwrap() - 68.0).abs() < 1e-12);
        assert!((w.cwnd - 56.0).abs() < 1e-12);
        c.on_ack(&mut w, &ack(SimTime::ZERO, 0.1));
        assert!((c.k().unwrap() - 30f64.cbrt()).abs() < 1e-9);
        // Without fast convergence: W_max = 80, K = cbrt(24 / 0.4) = cbrt(60) = 3.915 s.
        let mut c = Cubic::new(false, false, false, false);
        c.fast_convergence = false;
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        w.cwnd = 80.0;
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        assert_eq!(c.w_max(), Some(80.0));
        c.on_ack(&mut w, &ack(SimTime::ZERO, 0.1));
        assert!((c.k().unwrap() - 60f64.cbrt()).abs() < 1e-9);
        // A loss above the last W_max is not fast convergence: W_max = cwnd.
        w.cwnd = 120.0;
        c.fast_convergence = true;
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        assert_eq!(c.w_max(), Some(120.0));
    }

    #[test]
    fn after_a_timeout_the_first_stage_has_k_zero_from_its_first_cwnd() {
        // Sec. 4.8: ssthresh = 0.7 * 100 = 70, cwnd = 1; slow start to 70; then W(t) =
        // 0.4 t^3 + cwnd at the start of the stage, and W_est starts there too.
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 200.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::Timeout, CwndAfter::One));
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 70.0));
        let mut now = SimTime::ZERO;
        while w.cwnd < w.ssthresh {
            c.on_ack(&mut w, &ack(now, 0.1));
            now += SimDuration::from_millis(1);
        }
        assert_eq!(w.cwnd, 70.0);
        let start = now;
        c.on_ack(&mut w, &ack(start, 0.1));
        assert_eq!(c.k(), Some(0.0));
        assert_eq!(c.w_max(), Some(70.0));
        // Two seconds later the target is W(2 + 0.1) = 70 + 0.4 * 2.1^3 = 73.70; one ack
        // moves cwnd by (target - cwnd) / cwnd.
        let cwnd = w.cwnd;
        c.on_ack(&mut w, &ack(start + SimDuration::from_secs(2), 0.1));
        let target = 70.0 + 0.4 * 2.1f64.powi(3);
        assert!((w.cwnd - (cwnd + (target - cwnd) / cwnd)).abs() < 1e-9);
    }

    #[test]
    fn after_a_timeout_a_stretch_ack_ends_slow_start_at_ssthresh() {
        // A timeout at cwnd = 100: ssthresh = 70, cwnd = 1 (sec. 4.8). The ack that ends
        // go-back-N recovery covers 500 segments the receiver already held. Slow start
        // grows cwnd only while it is below ssthresh (RFC 5681 sec. 3.1; a stretch ack
        // of N counts as N acks of one, Linux `tcp_slow_start`): 69 of the 500 take cwnd
        // to 70; the other 431 are congestion avoidance, the first ack of a stage with
        // K = 0 and W_max = W_est = 70 (sec. 4.8), where the curve is flat (W(0.1) =
        // 70.0004) and W_est = 70 + 1 x 431 / 70 = 76.157 (eq. 4, alpha = 1 once W_est
        // has reached cwnd_prior = 70) is the window.
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 200.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::Timeout, CwndAfter::One));
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 70.0));
        let mut a = ack(SimTime::ZERO + SimDuration::from_secs(3), 0.1);
        a.segments_acked = 500.0;
        c.on_ack(&mut w, &a);
        let want = 70.0 + 431.0 / 70.0;
        assert!((w.cwnd - want).abs() < 1e-9, "cwnd {} vs {want}", w.cwnd);
        assert_eq!(c.k(), Some(0.0));
    }

    #[test]
    fn a_stretch_ack_does_not_take_cwnd_past_the_target() {
        // A loss at W_max = 100: cwnd = 70, K = cbrt(75) (eq. 2). Two seconds into the
        // stage W_cubic(2) = 95.64 is above W_est (eq. 4: 70 + 0.529 x 1 / 70 after the
        // first ack), so the window aims at target = W_cubic(2 + RTT) = W(2.1) = 96.20
        // (sec. 4.4). Growing by (target - cwnd) / cwnd per segment, an ack of 500
        // segments would reach 70 + 26.2 x 500 / 70 = 257; the target is where cwnd
        // should be one RTT from now, so it stops there.
        let mut c = Cubic::new(false, false, false, false);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        c.on_congestion(&mut w, &loss(Congestion::FastRetransmit, CwndAfter::Reduce));
        c.on_ack(&mut w, &ack(SimTime::ZERO, 0.1));
        let mut a = ack(SimTime::ZERO + SimDuration::from_secs(2), 0.1);
        a.segments_acked = 500.0;
        c.on_ack(&mut w, &a);
        let target = w_cubic(2.1, 75f64.cbrt(), 100.0);
        assert!((target - 96.20).abs() < 0.01, "{target}");
        assert!(
            (w.cwnd - target).abs() < 1e-9,
            "cwnd {} vs {target}",
            w.cwnd
        );
    }

    #[test]
    fn the_cut_uses_flight_size_with_byte_counting() {
        let mut c = Cubic::new(false, false, false, true);
        let mut w = WindowState {
            cwnd: 100.0,
            ssthresh: 200.0,
        };
        let mut ev = loss(Congestion::FastRetransmit, CwndAfter::Reduce);
        ev.flight = 60.0;
        c.on_congestion(&mut w, &ev);
        assert!((w.ssthresh - 42.0).abs() < 1e-12);
        assert!((w.cwnd - 42.0).abs() < 1e-12);
        // W_max is still the window reached (sec. 4.6 cwnd_prior, sec. 4.7).
        assert_eq!(c.w_max(), Some(100.0));
    }
}
