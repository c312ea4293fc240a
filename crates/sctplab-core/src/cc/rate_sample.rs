//! The delivery-rate sampler's rules (draft-cheng-iccrg-delivery-rate-estimation, as
//! Linux's `net/ipv4/tcp_rate.c`), shared by TCP's sender (`tcp/rate.rs`, records found
//! by the echoed send time) and SCTP's destinations (`sctp/path_bbr.rs`, records found
//! by a per-destination packet number). The transports keep their own record lists and
//! decide which record an ack samples; the clocks, the per-packet record and the sample
//! built from it are here.

use super::RateSample;
use crate::sim::SimTime;

/// A packet's state as it leaves (the draft's P.*).
#[derive(Copy, Clone, Debug)]
pub struct SendRecord {
    pub sent_at: SimTime,
    /// Segments delivered when it left (P.delivered).
    pub delivered: f64,
    pub delivered_time: SimTime,
    pub first_sent: SimTime,
    pub app_limited: bool,
}

/// The sender's side of the estimator (the draft's C.*), counts in segments.
#[derive(Clone, Debug)]
pub struct RateClocks {
    /// Segments delivered so far (C.delivered, Linux `tp->delivered`).
    pub delivered: f64,
    pub delivered_time: SimTime,
    pub first_sent: SimTime,
    /// Delivered count below which samples are app-limited (C.app_limited), 0 when not.
    pub app_limited_until: f64,
    /// The smallest RTT seen: shorter sample intervals are refused.
    pub min_rtt: f64,
}

impl Default for RateClocks {
    fn default() -> Self {
        RateClocks {
            delivered: 0.0,
            delivered_time: SimTime::ZERO,
            first_sent: SimTime::ZERO,
            app_limited_until: 0.0,
            min_rtt: f64::INFINITY,
        }
    }
}

impl RateClocks {
    /// A packet leaves now (sec. 3.2 "Transmitting a data packet"): with nothing in
    /// flight (`idle`, by the transport's test) the send and delivery clocks restart
    /// here; `app_limited`: the application has nothing more to send after it, with
    /// `in_flight` segments out. Returns the packet's record.
    #[inline]
    pub fn on_send(
        &mut self,
        now: SimTime,
        idle: bool,
        app_limited: bool,
        in_flight: f64,
    ) -> SendRecord {
        if idle {
            self.first_sent = now;
            self.delivered_time = now;
        }
        if app_limited {
            self.app_limited_until = (self.delivered + in_flight).max(1.0);
        }
        SendRecord {
            sent_at: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            app_limited: self.app_limited_until > 0.0,
        }
    }

    /// An ack newly delivered `acked` segments: the count, and the end of an
    /// app-limited stretch once it is passed. Returns the sample before a record is
    /// known (no interval: the caller fills in what it knows).
    #[inline]
    pub fn on_delivered(&mut self, now: SimTime, acked: f64, rtt: Option<f64>) -> RateSample {
        self.delivered += acked;
        if self.app_limited_until > 0.0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0.0;
        }
        RateSample {
            now,
            delivered: 0.0,
            interval: -1.0,
            rtt,
            prior_delivered: 0.0,
            total_delivered: self.delivered,
            acked,
            losses: 0.0,
            in_flight: 0.0,
            prior_in_flight: 0.0,
            app_limited: false,
            in_recovery: false,
        }
    }

    /// The sample of record `p`, the most recently sent of what the ack newly delivered
    /// (sec. 3.3 "Upon receiving ACK"): delivered since it left over the longer of its
    /// send and ack intervals; the send clock moves to its send time.
    #[inline]
    pub fn sample(&mut self, now: SimTime, p: &SendRecord, rs: &mut RateSample) {
        self.first_sent = p.sent_at;
        let send = p.sent_at.saturating_since(p.first_sent).as_secs_f64();
        let ack = now.saturating_since(p.delivered_time).as_secs_f64();
        rs.prior_delivered = p.delivered;
        rs.delivered = self.delivered - p.delivered;
        rs.app_limited = p.app_limited;
        // Intervals shorter than the minimum RTT come from ack compression and would
        // overestimate the rate (sec. 3.3; Linux `tcp_rate_gen`): no sample.
        let interval = send.max(ack);
        rs.interval = if interval < self.min_rtt {
            -1.0
        } else {
            interval
        };
    }
}
