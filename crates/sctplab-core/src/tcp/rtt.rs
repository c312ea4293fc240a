//! Retransmission timer arithmetic, as ns-2.35's `TcpAgent` does it (tcp.cc
//! `rtt_update`, `rtt_timeout`, `rtt_backoff`): Jacobson's estimator (RFC 6298 sec. 2
//! weights 1/8 and 1/4, RTO = SRTT + 4 RTTVAR) kept in integer clock ticks, samples
//! timed one segment per round trip with Karn's rule, the minimum RTO applied before
//! backoff (RFC 6298 sec. 2.4 and 5.5, ns-2 `rfc2988_`), and the RTO capped at `max`.

use crate::sim::SimDuration;

/// Fixed-point fractions of the smoothed values, as BSD and ns-2 keep them.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// RTO = SRTT + 2^RTTVAR_EXP * RTTVAR.
const RTTVAR_EXP: u32 = 2;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    tick_s: f64,
    min_s: f64,
    max_s: f64,
    /// 8 * SRTT in ticks; 0 until the first sample.
    srtt: i64,
    /// 4 * RTTVAR in ticks.
    rttvar: i64,
    /// Current RTO before backoff, in seconds.
    rtxcur_s: f64,
    pub backoff: u32,
    /// The last sample in ticks (for series and summaries).
    pub last_rtt_ticks: i64,
    /// `timeout()` for the (`rtxcur_s` bits, `backoff`) it was computed from: the timer
    /// is re-armed on every ack, the estimate changes once per round trip at most.
    memo: Option<(u64, u32, SimDuration)>,
}

impl RttEstimator {
    pub fn new(
        initial: SimDuration,
        min: SimDuration,
        max: SimDuration,
        tick: SimDuration,
    ) -> Self {
        RttEstimator {
            tick_s: tick.as_secs_f64(),
            min_s: min.as_secs_f64(),
            max_s: max.as_secs_f64(),
            srtt: 0,
            rttvar: 0,
            rtxcur_s: initial.as_secs_f64(),
            backoff: 1,
            last_rtt_ticks: 0,
            memo: None,
        }
    }

    /// Takes one RTT sample of `rtt_s` seconds, measured for a segment sent at
    /// `sent_s` (the tick phase of the send time decides the rounding, as in ns-2 with
    /// a boot time of zero).
    pub fn update(&mut self, rtt_s: f64, sent_s: f64) {
        let tickoff = sent_s.rem_euclid(self.tick_s);
        let mut ticks = ((rtt_s + tickoff) / self.tick_s) as i64;
        if ticks < 1 {
            ticks = 1;
        }
        self.last_rtt_ticks = ticks;
        if self.srtt != 0 {
            // delta arithmetic is done in a 16-bit short in ns-2; our ticks stay far below
            // that for any RTT under five minutes at 10 ms ticks.
            let mut delta = ticks - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.rttvar >> RTTVAR_BITS;
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = ticks << SRTT_BITS;
            self.rttvar = ticks << (RTTVAR_BITS - 1);
        }
        let scaled = (self.rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.srtt;
        self.rtxcur_s = (scaled >> SRTT_BITS) as f64 * self.tick_s;
    }

    /// The timeout to arm now, in seconds.
    pub fn timeout_s(&self) -> f64 {
        let base = if self.rtxcur_s < self.min_s {
            self.min_s
        } else {
            self.rtxcur_s
        };
        let mut t = base * f64::from(self.backoff);
        if t > self.max_s {
            t = self.max_s;
        }
        if t < 2.0 * self.tick_s {
            t = 2.0 * self.tick_s;
        }
        t
    }

    pub fn timeout(&mut self) -> SimDuration {
        let key = (self.rtxcur_s.to_bits(), self.backoff);
        match self.memo {
            Some((bits, backoff, t)) if (bits, backoff) == key => t,
            _ => {
                let t = SimDuration::from_secs_f64(self.timeout_s());
                self.memo = Some((key.0, key.1, t));
                t
            }
        }
    }

    /// Doubles the backoff after a timeout; after three doublings the smoothed RTT is
    /// folded into the variance so that a stale estimate stops dominating.
    pub fn back_off(&mut self) {
        if self.backoff < 64 || self.timeout_s() < self.max_s {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    /// Smoothed RTT in seconds (0 before the first sample).
    pub fn srtt_s(&self) -> f64 {
        (self.srtt as f64 / f64::from(1u32 << SRTT_BITS)) * self.tick_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimDuration::from_secs(3),
            SimDuration::from_millis(200),
            SimDuration::from_secs(60),
            SimDuration::from_millis(10),
        )
    }

    #[test]
    fn initial_rto_until_first_sample() {
        assert_eq!(est().timeout_s(), 3.0);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rtt_variance() {
        // RFC 6298 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 3R.
        let mut e = est();
        e.update(0.2, 0.0);
        assert!((e.srtt_s() - 0.2).abs() < 1e-12);
        assert!((e.timeout_s() - 0.6).abs() < 1e-9, "{}", e.timeout_s());
    }

    #[test]
    fn second_sample_uses_jacobson_weights() {
        // R1 = 200 ms (20 ticks): srtt 20, rttvar 10. R2 = 305 ms (30 ticks, truncated):
        // delta 10 -> srtt = 20 + 10/8 = 21.25 (8*srtt = 170); |delta| - rttvar = 0 -> rttvar
        // stays 10 (4*rttvar = 40). RTO = (40*8/4*... ) = srtt + 4 rttvar = 21.25 + 40
        // = 61.25 ticks, truncated to 61 ticks = 0.61 s.
        let mut e = est();
        e.update(0.2, 0.0);
        e.update(0.305, 0.0);
        assert!((e.timeout_s() - 0.61).abs() < 1e-9, "{}", e.timeout_s());
    }

    #[test]
    fn minimum_applies_before_backoff_and_maximum_after() {
        let mut e = est();
        e.update(0.01, 0.0); // 1 tick: RTO 3 ticks = 30 ms, below the 200 ms minimum
        assert!((e.timeout_s() - 0.2).abs() < 1e-12);
        e.back_off();
        assert!((e.timeout_s() - 0.4).abs() < 1e-12);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.timeout_s(), 60.0);
    }

    #[test]
    fn remembered_timeout_follows_samples_and_backoff() {
        // The memo against the timeout computed afresh, through samples that change the
        // estimate, back-offs and the sender's reset of the backoff.
        let mut e = est();
        let fresh = |e: &RttEstimator| SimDuration::from_secs_f64(e.timeout_s());
        assert_eq!(e.timeout(), SimDuration::from_secs(3));
        for (i, rtt) in [0.2, 0.2, 0.35, 0.05, 1.7, 0.3].into_iter().enumerate() {
            e.update(rtt, i as f64 * 0.013);
            assert_eq!(e.timeout(), fresh(&e));
            assert_eq!(e.timeout(), fresh(&e));
            e.back_off();
            assert_eq!(e.timeout(), fresh(&e));
            e.backoff = 1;
            assert_eq!(e.timeout(), fresh(&e));
        }
    }
}
