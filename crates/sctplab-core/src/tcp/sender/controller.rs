//! The TCP sender's calls into the flow's congestion controller (`crate::cc`): window
//! growth on an ack that acknowledges new data, and the cut on a loss or timeout, with
//! the ECN rules (RFC 3168 sec. 6.1.2) that suspend either.

use super::TcpSender;
use crate::cc::{Ack, Congestion, CongestionEvent, Controller, CwndAfter, WindowState};

impl TcpSender {
    /// The controller's window growth for an ack that newly acknowledges `acked`
    /// segments (ns-2 `opencwnd` for `"reno"`).
    pub(in crate::tcp) fn rules_open(&mut self, acked: i64) {
        if self.ecn.in_cut_window(self.highest_ack) && !matches!(self.cc, Controller::Bbr(_)) {
            // RFC 3168 sec. 6.1.2: no growth while the window an ECE cut is acknowledged.
            return;
        }
        if let Controller::Reno(rules) = &self.cc {
            // Today's rules, with nothing else computed: the hot path stays as it was.
            rules.open(&mut self.cwnd, self.ssthresh);
            return;
        }
        let ack = Ack {
            now: self.now,
            segments_acked: acked.max(1) as f64,
            acked_through: self.highest_ack,
            next_to_send: self.maxseq + 1,
            rtt: Some(self.now.saturating_since(self.ack_echo).as_secs_f64()),
            srtt: self.rtt.srtt_s(),
            rwnd: self.cfg.wnd,
        };
        let mut w = WindowState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        self.cc.on_ack(&mut w, &ack);
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
    }

    /// Window cut (ns-2 `slowdown`): the controller sets ssthresh and, as the recovery
    /// algorithm asks, reduces cwnd, restarts it at one segment or leaves it.
    pub(in crate::tcp) fn slowdown(&mut self, kind: Congestion, after: CwndAfter) {
        if kind == Congestion::FastRetransmit && self.ecn.loss_in_cut_window(self.highest_ack) {
            // The window of data this loss is in was already cut for an ECE (RFC 3168
            // sec. 6.1.2): retransmit without cutting again.
            return;
        }
        let mut outstanding = (self.maxseq - self.highest_ack).max(0);
        if after == CwndAfter::Reduce {
            // A fast retransmit (the only cut that halves cwnd): FlightSize leaves out
            // what limited transmit sent (RFC 5681 sec. 3.2 step 2, RFC 3042 sec. 2).
            outstanding = (outstanding - self.limited_sent).max(0);
        }
        let ev = CongestionEvent {
            now: self.now,
            kind,
            cwnd_after: after,
            window_exact: self.windowd(),
            window_whole: self.window(),
            flight: outstanding as f64,
            rwnd: self.cfg.wnd,
        };
        let mut w = WindowState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        self.cc.on_congestion(&mut w, &ev);
        self.ssthresh = w.ssthresh;
        self.cwnd = w.cwnd;
        self.first_decrease = false;
    }
}
