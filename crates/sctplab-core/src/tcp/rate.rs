//! Per-packet delivery-rate estimation for controllers that want it (BBR), as Linux's
//! `net/ipv4/tcp_rate.c` and ns-3's `TcpRateLinux` do it
//! (draft-cheng-iccrg-delivery-rate-estimation): every transmission records how much
//! had been delivered and when; the ack for it gives a sample of
//! (delivered since then) / max(send interval, ack interval).
//!
//! The record of a transmission is found by its send time, which the receiver echoes in
//! every ack (the receiver's `echo`, as TCP timestamps give it), so no per-sequence table
//! is kept: records are in send order and those older than an echoed one are dropped.

use crate::cc::RateSample;
use crate::cc::rate_sample::{RateClocks, SendRecord};
use crate::sim::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    /// The sampler's clocks (`cc/rate_sample.rs`); `delivered` is Linux's
    /// `tp->delivered`.
    clocks: RateClocks,
    /// Records in send order (`sent_at` non-decreasing).
    sent: VecDeque<SendRecord>,
}

impl RateEstimator {
    pub fn new() -> Self {
        RateEstimator::default()
    }

    /// A data segment leaves now (`tcp_rate_skb_sent`); with nothing in flight the
    /// send and delivery clocks restart here. `app_limited`: the application has nothing
    /// more to send after it (`tcp_rate_check_app_limited`), with `in_flight` segments
    /// out.
    pub fn on_send(&mut self, now: SimTime, app_limited: bool, in_flight: f64) {
        let idle = self.sent.is_empty();
        let r = self.clocks.on_send(now, idle, app_limited, in_flight);
        self.sent.push_back(r);
    }

    /// An ack that newly delivers `acked` segments and echoes the send time `echo`
    /// (`tcp_rate_skb_delivered` and `tcp_rate_gen`). The fields the estimator does not
    /// know (flight, recovery, losses) are the caller's to fill in.
    pub fn on_ack(&mut self, now: SimTime, echo: SimTime, acked: f64) -> RateSample {
        while self.sent.front().is_some_and(|s| s.sent_at < echo) {
            self.sent.pop_front();
        }
        let p = self.sent.front().filter(|s| s.sent_at == echo).copied();
        let mut rs = self.clocks.on_delivered(now, acked, None);
        // An ack that newly delivers nothing gives no sample: the draft's P is the most
        // recent of the packets an ack newly ACKs or SACKs (sec. 3.3; Linux
        // `tcp_rate_gen` marks a sample without one invalid).
        if acked <= 0.0 {
            return rs;
        }
        self.clocks.delivered_time = now;
        let Some(p) = p else {
            return rs;
        };
        let rtt = now.saturating_since(echo).as_secs_f64();
        self.clocks.min_rtt = self.clocks.min_rtt.min(rtt);
        rs.rtt = Some(rtt);
        self.clocks.sample(now, &p, &mut rs);
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(t)
    }

    #[test]
    fn a_window_sent_at_once_and_acked_over_a_round_trip_gives_the_ack_rate() {
        // 10 segments at t = 0, acked one per 10 ms from 100 ms (all echo t = 0).
        let mut r = RateEstimator::new();
        for _ in 0..10 {
            r.on_send(ms(0), false, 0.0);
        }
        let mut last = None;
        for i in 0..10 {
            last = Some(r.on_ack(ms(100 + 10 * i), ms(0), 1.0));
        }
        let rs = last.unwrap();
        // P (sent at 0 with nothing delivered, delivered_time 0): 10 delivered over
        // max(0, 190 ms) = 52.6 segments/s.
        assert_eq!(rs.delivered, 10.0);
        assert!((rs.interval - 0.19).abs() < 1e-12);
        assert_eq!(rs.rtt, Some(0.19));
        // Steady state: a segment sent every 10 ms, each acked 100 ms later: 100/s.
        let mut r = RateEstimator::new();
        let mut rs = None;
        for i in 0..50u64 {
            r.on_send(ms(10 * i), false, 10.0);
            if i >= 10 {
                rs = Some(r.on_ack(ms(10 * i), ms(10 * (i - 10)), 1.0));
            }
        }
        let rs = rs.unwrap();
        assert!((rs.delivered / rs.interval - 100.0).abs() < 1e-9, "{rs:?}");
    }

    #[test]
    fn an_ack_that_delivers_nothing_gives_no_sample() {
        // Two segments at 0 ms; the first is acked at 100 ms (1 over 100 ms). A
        // duplicate ack at 101 ms echoing the second one's send but delivering nothing
        // (a resent segment the receiver already had) has no newly delivered P (draft
        // sec. 3.3): no rate, no RTT, and the delivery clock does not move.
        let mut r = RateEstimator::new();
        r.on_send(ms(0), false, 0.0);
        r.on_send(ms(0), false, 1.0);
        let a = r.on_ack(ms(100), ms(0), 1.0);
        assert_eq!(a.delivered, 1.0);
        let d = r.on_ack(ms(101), ms(0), 0.0);
        assert!(
            d.interval < 0.0 && d.delivered == 0.0 && d.rtt.is_none(),
            "{d:?}"
        );
        // The second segment's own ack at 150 ms: 2 delivered since 0 over 150 ms.
        let b = r.on_ack(ms(150), ms(0), 1.0);
        assert_eq!(b.delivered, 2.0);
        assert!((b.interval - 0.15).abs() < 1e-12, "{b:?}");
    }
}
