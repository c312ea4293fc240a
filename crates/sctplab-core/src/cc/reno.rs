//! The `"reno"` controller: today's congestion-window rules, exactly (every summary of a
//! flow without `congestion_control` is byte-identical to the one before the controller
//! seam): how the window opens on a new ack and how it is cut on a loss, as ns-2.35's
//! `TcpAgent::opencwnd` and `slowdown` do it, or RFC 5681's byte-exact cut with
//! `window_unit = "bytes"`. Windows are in segments, as ns-2's one-way agents count them.

#[derive(Copy, Clone, Debug)]
pub struct CongestionRules {
    /// Slow start while cwnd <= ssthresh (RFC 5681 sec. 3.1 allows either choice at
    /// equality); ns-2 does congestion avoidance when they are equal (`opencwnd`).
    pub slow_start_at_ssthresh: bool,
    /// Halve the exact window (ns-2 `precisionReduce_` true) rather than the window
    /// truncated to whole segments.
    pub precision_reduce: bool,
    /// RFC 5681 byte counting: cuts start from FlightSize, not from the window (the
    /// caller leaves limited-transmit segments out of it at a fast retransmit).
    pub flight_based_cut: bool,
}

impl CongestionRules {
    /// Opens the window for one new ack (ns-2 `opencwnd` with `windowOption_ 1`): one
    /// segment per ack in slow start, 1/cwnd per ack in congestion avoidance.
    pub fn open(&self, cwnd: &mut f64, ssthresh: f64) {
        let slow_start = if self.slow_start_at_ssthresh {
            *cwnd <= ssthresh
        } else {
            *cwnd < ssthresh
        };
        if slow_start {
            *cwnd += 1.0;
        } else {
            *cwnd += 1.0 / *cwnd;
        }
    }

    /// Cuts after a loss (ns-2 `slowdown`): ssthresh becomes half the window in whole
    /// segments (at least 2); cwnd becomes that half (fast retransmit) or one segment
    /// (timeout, and FACK's fast retransmit), or is left alone.
    /// `windowd` is the exact window, `window` the truncated one, both capped by the
    /// receiver window; `flight` the segments outstanding. Returns (ssthresh, cwnd).
    pub fn cut(
        &self,
        windowd: f64,
        window: i64,
        flight: f64,
        cwnd: f64,
        halve_cwnd: bool,
        restart_cwnd: bool,
    ) -> (f64, f64) {
        if self.flight_based_cut {
            // RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS), byte-exact; after a
            // fast retransmit cwnd = ssthresh (sec. 3.2 step 4, inflation kept apart).
            let ssthresh = (flight / 2.0).max(2.0);
            let cwnd = if halve_cwnd {
                ssthresh
            } else if restart_cwnd {
                1.0
            } else {
                cwnd
            };
            return (ssthresh, cwnd);
        }
        let halfwin = if self.precision_reduce {
            windowd / 2.0
        } else {
            (window / 2) as f64
        };
        let ssthresh = (halfwin as i64).max(2) as f64;
        let cwnd = if halve_cwnd {
            halfwin
        } else if restart_cwnd {
            1.0
        } else {
            cwnd
        };
        (ssthresh, cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS2: CongestionRules = CongestionRules {
        slow_start_at_ssthresh: false,
        precision_reduce: true,
        flight_based_cut: false,
    };

    #[test]
    fn congestion_avoidance_at_equality_in_ns2_mode() {
        let mut c = 8.0;
        NS2.open(&mut c, 8.0);
        assert!((c - 8.125).abs() < 1e-12);
        let rfc = CongestionRules {
            slow_start_at_ssthresh: true,
            ..NS2
        };
        let mut c = 8.0;
        rfc.open(&mut c, 8.0);
        assert_eq!(c, 9.0);
    }

    #[test]
    fn halving_keeps_fractions_only_with_precision_reduce() {
        // Seed 000 sec. 6.1: cwnd 8 halves to 4. A window of 15 halves to 7.5 with
        // precisionReduce_ and to 7 without; ssthresh is whole segments either way.
        assert_eq!(NS2.cut(8.0, 8, 8.0, 20.0, true, false), (4.0, 4.0));
        assert_eq!(NS2.cut(15.0, 15, 15.0, 20.0, true, false), (7.0, 7.5));
        let truncating = CongestionRules {
            precision_reduce: false,
            ..NS2
        };
        assert_eq!(
            truncating.cut(15.5, 15, 15.5, 20.0, true, false),
            (7.0, 7.0)
        );
        assert_eq!(NS2.cut(3.0, 3, 3.0, 20.0, false, true), (2.0, 1.0));
    }
}
