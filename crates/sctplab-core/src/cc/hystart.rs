//! HyStart++ (RFC 9406): slow start that watches the minimum RTT of each round trip and,
//! when it rises by more than a threshold, leaves standard slow start for conservative
//! slow start (CSS), which grows a quarter as fast; CSS goes back to slow start if the
//! RTT falls again below its baseline, and ends in congestion avoidance after
//! `CSS_ROUNDS` rounds. Used for the first slow start only (sec. 4.3): a loss, a
//! timeout or the end of CSS finishes it.

use super::{Ack, WindowState};

/// RFC 9406 sec. 4.3's constants (their recommended values).
pub const MIN_RTT_THRESH: f64 = 0.004;
pub const MAX_RTT_THRESH: f64 = 0.016;
pub const MIN_RTT_DIVISOR: f64 = 8.0;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;
/// Segments one ack may add to cwnd without pacing (sec. 4.3: L = 8 for a non-paced
/// sender, infinity for a paced one).
pub const NON_PACED_L: f64 = 8.0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start with the delay-increase check.
    SlowStart,
    /// Conservative slow start.
    Css,
    /// Finished: the caller's own rules apply from here on.
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    limit: f64,
    phase: Phase,
    last_round_min_rtt: f64,
    current_round_min_rtt: f64,
    rtt_sample_count: u32,
    /// The round ends with the ack that covers this segment (sec. 4.2's `windowEnd`).
    window_end: Option<i64>,
    css_baseline_min_rtt: f64,
    css_rounds: u32,
}

impl HyStart {
    pub fn new(paced: bool) -> Self {
        HyStart {
            limit: if paced { f64::INFINITY } else { NON_PACED_L },
            phase: Phase::SlowStart,
            last_round_min_rtt: f64::INFINITY,
            current_round_min_rtt: f64::INFINITY,
            rtt_sample_count: 0,
            window_end: None,
            css_baseline_min_rtt: f64::INFINITY,
            css_rounds: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// Slow start ended by a loss or a timeout (sec. 4.2: the usual reduction applies;
    /// later slow starts are standard, sec. 4.3).
    pub fn finish(&mut self) {
        self.phase = Phase::Done;
    }

    /// One new ack in slow start (cwnd below ssthresh): grows cwnd as slow start or CSS
    /// does and runs the round's checks (sec. 4.2). After it, `phase()` is `Done` when CSS
    /// has ended in congestion avoidance (ssthresh = cwnd).
    pub fn on_ack(&mut self, w: &mut WindowState, ack: &Ack) {
        if self.phase == Phase::Done {
            return;
        }
        // A new round starts with the first ack and with the ack that covers the end of
        // the previous one.
        if self.window_end.is_none_or(|end| ack.acked_through >= end) {
            if self.phase == Phase::Css {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    // "If CSS_ROUNDS rounds are complete, enter congestion avoidance by
                    // setting the ssthresh to the current cwnd."
                    w.ssthresh = w.cwnd;
                    self.phase = Phase::Done;
                    return;
                }
            }
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = f64::INFINITY;
            self.rtt_sample_count = 0;
            self.window_end = Some(ack.next_to_send);
        }
        let n = ack.segments_acked.min(self.limit);
        w.cwnd += match self.phase {
            Phase::Css => n / CSS_GROWTH_DIVISOR,
            _ => n,
        };
        if let Some(rtt) = ack.rtt {
            self.current_round_min_rtt = self.current_round_min_rtt.min(rtt);
            self.rtt_sample_count += 1;
        }
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart => {
                if self.current_round_min_rtt.is_finite() && self.last_round_min_rtt.is_finite() {
                    let thresh = (self.last_round_min_rtt / MIN_RTT_DIVISOR)
                        .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if self.current_round_min_rtt >= self.last_round_min_rtt + thresh {
                        self.css_baseline_min_rtt = self.current_round_min_rtt;
                        self.css_rounds = 0;
                        self.phase = Phase::Css;
                    }
                }
            }
            Phase::Css => {
                // The rise was spurious (jitter): back to slow start.
                if self.current_round_min_rtt < self.css_baseline_min_rtt {
                    self.css_baseline_min_rtt = f64::INFINITY;
                    self.phase = Phase::SlowStart;
                }
            }
            Phase::Done => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimTime;

    /// Drives one round of `acks` acks of one segment each, from segment `first`, every
    /// one with an RTT sample of `rtt`; the round ends with the ack of the segment after
    /// them. Returns that segment.
    fn round(h: &mut HyStart, w: &mut WindowState, first: i64, acks: i64, rtt: f64) -> i64 {
        for i in 0..acks {
            let ack = Ack {
                now: SimTime::ZERO,
                segments_acked: 1.0,
                acked_through: first + i,
                next_to_send: first + acks,
                rtt: Some(rtt),
                srtt: rtt,
                rwnd: 1e9,
            };
            h.on_ack(w, &ack);
        }
        first + acks
    }

    fn start() -> (HyStart, WindowState) {
        let w = WindowState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        (HyStart::new(false), w)
    }

    #[test]
    fn rtt_rise_above_the_threshold_enters_css() {
        // Round 1 at 100 ms. RttThresh = max(4 ms, min(100/8 = 12.5 ms, 16 ms)) = 12.5 ms
        // (sec. 4.2): 112 ms stays in slow start, 112.5 ms enters CSS.
        let (mut h, mut w) = start();
        let mut next = round(&mut h, &mut w, 0, 10, 0.100);
        assert_eq!(h.phase(), Phase::SlowStart);
        next = round(&mut h, &mut w, next, 10, 0.112);
        assert_eq!(h.phase(), Phase::SlowStart);
        // Each of the 20 one-segment acks added one segment (slow start).
        assert_eq!(w.cwnd, 30.0);
        let before = w.cwnd;
        // Over 112 ms the threshold is 112/8 = 14 ms: 125 ms stays, 127 ms leaves.
        let (mut h2, mut w2) = (h.clone(), w);
        round(&mut h2, &mut w2, next, 10, 0.125);
        assert_eq!(h2.phase(), Phase::SlowStart);
        round(&mut h, &mut w, next, 10, 0.127);
        assert_eq!(h.phase(), Phase::Css);
        // Slow start until the 8th sample of the round (8 segments), then CSS: the last
        // two acks add 1/4 segment each (CSS_GROWTH_DIVISOR).
        assert!((w.cwnd - (before + 8.0 + 0.5)).abs() < 1e-12, "{}", w.cwnd);
    }

    #[test]
    fn fewer_than_eight_samples_never_decide() {
        let (mut h, mut w) = start();
        let next = round(&mut h, &mut w, 0, 7, 0.050);
        round(&mut h, &mut w, next, 7, 0.500);
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn thresholds_are_clamped_to_4_and_16_ms() {
        // 10 ms base: 10/8 = 1.25 ms, clamped to 4 ms: 13.9 ms stays, 14.1 ms leaves.
        let (mut h, mut w) = start();
        let next = round(&mut h, &mut w, 0, 8, 0.010);
        round(&mut h, &mut w, next, 8, 0.0139);
        assert_eq!(h.phase(), Phase::SlowStart);
        let (mut h, mut w) = start();
        let next = round(&mut h, &mut w, 0, 8, 0.010);
        round(&mut h, &mut w, next, 8, 0.0141);
        assert_eq!(h.phase(), Phase::Css);
        // 600 ms base: 75 ms, clamped to 16 ms: 615.9 ms stays, 616.1 ms leaves.
        let (mut h, mut w) = start();
        let next = round(&mut h, &mut w, 0, 8, 0.600);
        round(&mut h, &mut w, next, 8, 0.6159);
        assert_eq!(h.phase(), Phase::SlowStart);
        let (mut h, mut w) = start();
        let next = round(&mut h, &mut w, 0, 8, 0.600);
        round(&mut h, &mut w, next, 8, 0.6161);
        assert_eq!(h.phase(), Phase::Css);
    }

    #[test]
    fn css_grows_a_quarter_and_ends_after_five_rounds() {
        let (mut h, mut w) = start();
        let mut next = round(&mut h, &mut w, 0, 8, 0.100);
        next = round(&mut h, &mut w, next, 8, 0.120);
        assert_eq!(h.phase(), Phase::Css);
        // The round CSS began in counts as the first of the five; four more full rounds
        // of 8 acks add 8/4 = 2 segments each.
        for k in 0..4 {
            let before = w.cwnd;
            next = round(&mut h, &mut w, next, 8, 0.120);
            assert_eq!(h.phase(), Phase::Css, "round {k}");
            assert!((w.cwnd - before - 2.0).abs() < 1e-12);
        }
        // The first ack of the sixth round completes the fifth CSS round: ssthresh = cwnd.
        let cwnd = w.cwnd;
        round(&mut h, &mut w, next, 1, 0.120);
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(w.ssthresh, cwnd);
        assert_eq!(w.cwnd, cwnd);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls_below_its_baseline() {
        let (mut h, mut w) = start();
        let mut next = round(&mut h, &mut w, 0, 8, 0.100);
        next = round(&mut h, &mut w, next, 8, 0.120);
        assert_eq!(h.phase(), Phase::Css);
        round(&mut h, &mut w, next, 8, 0.110);
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn one_ack_adds_at_most_l_segments_without_pacing() {
        let (mut h, mut w) = start();
        let ack = Ack {
            now: SimTime::ZERO,
            segments_acked: 20.0,
            acked_through: 19,
            next_to_send: 40,
            rtt: None,
            srtt: 0.1,
            rwnd: 1e9,
        };
        h.on_ack(&mut w, &ack);
        assert_eq!(w.cwnd, 18.0);
        let mut paced = HyStart::new(true);
        let mut w = WindowState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        paced.on_ack(&mut w, &ack);
        assert_eq!(w.cwnd, 30.0);
    }
}
