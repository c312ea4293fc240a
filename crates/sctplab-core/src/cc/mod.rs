//! Congestion control as a machine of its own (docs/models/cc.md): a controller is told
//! of new acks, congestion events and RTT samples and sets the congestion window and
//! slow-start threshold, and says at what rate to pace. Loss recovery (which segment to
//! resend, window inflation, when recovery ends) stays with the transport, as ns-3
//! splits `TcpCongestionOps` from `TcpRecoveryOps` and quinn-proto has its `Controller`
//! trait; the window state lives with the transport and the controller acts on it
//! (ns-3's `TcpSocketState`, Linux's `tcp_sock`), so recovery rules that touch the
//! window (NewReno's partial-window deflation, ns-2 FACK's restart) keep working.
//!
//! Units are explicit: every window here is in segments of `smss` bytes (a fraction
//! is part of a segment). TCP uses its MSS; SCTP, per destination, its path's largest
//! DATA payload, and converts a byte window as `bytes / smss`. Times are seconds.
//!
//! The controllers are an enum, not trait objects, so the per-ack call is a direct,
//! inlinable match (smoltcp's `AnyController` does the same).

mod bbr;
pub mod coupled;
mod cubic;
mod hystart;
pub mod rate_sample;
mod reno;

pub use bbr::{Bbr, Mode as BbrMode};
pub use cubic::Cubic;
pub use hystart::HyStart;
pub use reno::CongestionRules;

use crate::sim::SimTime;

/// Which controller a flow runs (`congestion_control` in a scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Today's window rules, exactly: ns-2.35's `opencwnd` and `slowdown` as the
    /// `variant` and knobs of the flow fix them (`CongestionRules`).
    #[default]
    Reno,
    /// RFC 9438, with HyStart++ (RFC 9406) unless switched off.
    Cubic,
    /// BBR v1 (Linux 4.9 `tcp_bbr.c`, ns-3 `TcpBbr`), paced.
    Bbr,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Reno => "reno",
            Algorithm::Cubic => "cubic",
            Algorithm::Bbr => "bbr",
        }
    }
}

/// The window state a controller acts on, in segments.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WindowState {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// A new cumulative ack, outside loss recovery (or inside it where the recovery
/// algorithm lets the window grow, as ns-2's FACK does).
#[derive(Copy, Clone, Debug)]
pub struct Ack {
    pub now: SimTime,
    /// Segments this ack newly acknowledges cumulatively (at least 1).
    pub segments_acked: f64,
    /// Highest segment number this ack covers and the next segment number to be sent
    /// (SND.NXT in segments): a round trip ends when an ack covers what was next to be
    /// sent when it began (RFC 9406 sec. 4.2's `windowEnd`).
    pub acked_through: i64,
    pub next_to_send: i64,
    /// An RTT sample taken from this ack (the echoed send time of the segment that
    /// caused it, as TCP timestamps give, RFC 7323 sec. 4), in seconds.
    pub rtt: Option<f64>,
    /// The sender's smoothed RTT (RFC 6298), in seconds; 0 before the first sample.
    pub srtt: f64,
    /// The receiver's window in segments: a window above it cannot be used, so
    /// controllers that grow with time stop growing there (RFC 7661's concern).
    pub rwnd: f64,
}

/// A per-packet delivery-rate sample for an ack (Linux `tcp_rate.c`, ns-3
/// `TcpRateLinux`; draft-cheng-iccrg-delivery-rate-estimation): `delivered` segments
/// were delivered over `interval` seconds between the send of the packet this ack is
/// for (P) and now. Counts are in segments.
#[derive(Copy, Clone, Debug)]
pub struct RateSample {
    pub now: SimTime,
    /// Segments delivered between P's send and this ack.
    pub delivered: f64,
    /// max(send interval, ack interval) of the sample, seconds.
    pub interval: f64,
    /// RTT of P, seconds.
    pub rtt: Option<f64>,
    /// Segments delivered when P was sent (round-trip counting).
    pub prior_delivered: f64,
    /// Segments delivered in all, after this ack.
    pub total_delivered: f64,
    /// Segments this ack newly delivered (cumulatively or above a hole).
    pub acked: f64,
    /// Segments newly marked lost by this ack.
    pub losses: f64,
    /// Segments in flight after this ack and before it.
    pub in_flight: f64,
    pub prior_in_flight: f64,
    /// P was sent while the application had nothing more to send.
    pub app_limited: bool,
    /// The transport is in loss recovery (fast recovery or after a timeout).
    pub in_recovery: bool,
}

/// What caused a cut.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Fast retransmit (duplicate acks or SACK information): loss recovery begins.
    FastRetransmit,
    /// Retransmission timeout with data outstanding.
    Timeout,
}

/// What the recovery algorithm does with cwnd at the cut; the controller says by how
/// much it is reduced.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CwndAfter {
    /// cwnd becomes the reduced window (RFC 5681 sec. 3.2 step 4; RFC 9438 sec. 4.6).
    Reduce,
    /// cwnd restarts at one segment (a timeout, RFC 5681 sec. 3.1; ns-2 FACK's fast
    /// retransmit).
    One,
    /// cwnd is left as it is.
    Keep,
}

/// A congestion event and the windows it is measured against.
#[derive(Copy, Clone, Debug)]
pub struct CongestionEvent {
    pub now: SimTime,
    pub kind: Congestion,
    pub cwnd_after: CwndAfter,
    /// The usable window, unrounded and in whole segments (ns-2's `windowd()` and
    /// `window()`: cwnd plus any inflation, capped by the receiver's window).
    pub window_exact: f64,
    pub window_whole: i64,
    /// Segments in flight (FlightSize), limited-transmit segments left out at a fast
    /// retransmit.
    pub flight: f64,
    /// The receiver's window in segments.
    pub rwnd: f64,
}

/// One flow's (or one SCTP destination's) congestion controller.
#[derive(Clone, Debug)]
pub enum Controller {
    Reno(CongestionRules),
    Cubic(Box<Cubic>),
    Bbr(Box<Bbr>),
}

impl Controller {
    pub fn algorithm(&self) -> Algorithm {
        match self {
            Controller::Reno(_) => Algorithm::Reno,
            Controller::Cubic(_) => Algorithm::Cubic,
            Controller::Bbr(_) => Algorithm::Bbr,
        }
    }

    /// Whether the controller needs a rate sample per ack (`on_rate_sample`).
    #[inline]
    pub fn wants_rate_samples(&self) -> bool {
        matches!(self, Controller::Bbr(_))
    }

    /// Whether the next rate sample's `prior_in_flight` can matter (`Bbr::
    /// reads_prior_in_flight`).
    pub fn reads_prior_in_flight(&self) -> bool {
        matches!(self, Controller::Bbr(b) if b.reads_prior_in_flight())
    }

    /// Every ack's delivery-rate sample, in recovery too (BBR's model and window).
    pub fn on_rate_sample(&mut self, w: &mut WindowState, rs: &RateSample) {
        if let Controller::Bbr(b) = self {
            if let Some(rtt) = rs.rtt {
                b.init_pacing_rate(w.cwnd, rtt);
            }
            b.on_sample(w, rs);
        }
    }

    /// Grows the window for a new ack.
    #[inline]
    pub fn on_ack(&mut self, w: &mut WindowState, ack: &Ack) {
        match self {
            Controller::Reno(r) => r.open(&mut w.cwnd, w.ssthresh),
            Controller::Cubic(c) => c.on_ack(w, ack),
            // BBR sets its window from every ack's rate sample instead.
            Controller::Bbr(_) => {}
        }
    }

    /// Cuts the window for a congestion event.
    pub fn on_congestion(&mut self, w: &mut WindowState, ev: &CongestionEvent) {
        match self {
            Controller::Reno(r) => {
                let (ssthresh, cwnd) = r.cut(
                    ev.window_exact,
                    ev.window_whole,
                    ev.flight,
                    w.cwnd,
                    ev.cwnd_after == CwndAfter::Reduce,
                    ev.cwnd_after == CwndAfter::One,
                );
                w.ssthresh = ssthresh;
                w.cwnd = cwnd;
            }
            Controller::Cubic(c) => c.on_congestion(w, ev),
            Controller::Bbr(b) => b.on_congestion(w, ev.kind == Congestion::Timeout, ev.flight),
        }
    }

    /// The rate the controller wants segments paced at, in bytes per second, given the
    /// window and the smoothed RTT (`None`: not paced by the controller's choice; the
    /// sender may still pace at its default rate when the flow's `pacing` is on).
    pub fn pacing_rate(&self, w: &WindowState, smss: f64, srtt: f64) -> Option<f64> {
        if let Controller::Bbr(b) = self {
            let r = b.pacing_rate_bytes();
            return (r > 0.0).then_some(r);
        }
        window_pacing_rate(w, smss, srtt)
    }

    /// Whether the controller is in slow start (or HyStart++'s conservative slow
    /// start), for series and tests.
    pub fn in_slow_start(&self, w: &WindowState) -> bool {
        match self {
            Controller::Bbr(b) => b.mode() == BbrMode::Startup,
            _ => w.cwnd < w.ssthresh,
        }
    }
}

/// The pacing rate of a window-based controller, bytes per second: cwnd per smoothed
/// RTT, 200 % of it in slow start and 120 % after (Linux's `tcp_update_pacing_rate`);
/// none before the first RTT sample.
pub fn window_pacing_rate(w: &WindowState, smss: f64, srtt: f64) -> Option<f64> {
    if srtt <= 0.0 {
        return None;
    }
    let gain = if w.cwnd < w.ssthresh { 2.0 } else { 1.2 };
    Some(gain * w.cwnd * smss / srtt)
}
