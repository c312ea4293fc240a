//! What the sender adds for controllers that pace or sample the delivery rate (BBR, and
//! any controller with `pacing = true`): per-packet rate samples (`rate.rs`), the
//! in-flight and loss-recovery state they carry, and the pacing gap after each segment.
//! docs/models/cc.md describes the rules.

use super::config::Variant;
use super::sender::{CwndAction, TcpSender};
use crate::cc::WindowState;
use crate::endpoint::{EndpointEvent, SendKind};
use crate::sim::{SimDuration, SimTime};

impl TcpSender {
    /// Bookkeeping of a data segment as it leaves: the rate estimator's record, and
    /// with pacing the send trace, RTT timing from the wire time, and the next gap.
    pub(super) fn after_transmit(&mut self, now: SimTime, seqno: i64, kind: SendKind, bytes: f64) {
        if let Some(rate) = self.rate.as_mut() {
            let app_limited = self.t_seqno >= self.curseq && self.out.is_empty();
            let flight = (self.maxseq - self.highest_ack - self.delivered_above).max(0) as f64;
            rate.on_send(now, app_limited, flight);
        }
        if !self.cfg.pacing {
            return;
        }
        if self.cfg.trace_sends {
            self.events.push_back(EndpointEvent::Sent {
                seq: (seqno + 1) as u32,
                kind,
                dest: [0; 4],
            });
        }
        // The timed segment's round trip starts on the wire, not in the pacing queue.
        if self.rtt_active && seqno == self.rtt_seq && kind == SendKind::New {
            self.rtt_ts = now;
        }
        let w = WindowState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        let smss = self.cfg.map.mss as f64;
        if let Some(rate) = self.cc.pacing_rate(&w, smss, self.rtt.srtt_s()) {
            self.next_send = now + SimDuration::from_secs_f64(bytes / rate);
        }
    }

    /// Whether loss recovery is under way: fast recovery, or the go-back-N after a
    /// timeout until what was outstanding then is acked.
    pub(super) fn in_loss_recovery(&self) -> bool {
        let after_timeout =
            self.last_cwnd_action == CwndAction::Timeout && self.highest_ack < self.recover;
        after_timeout
            || match self.cfg.variant {
                Variant::Reno | Variant::Newreno => self.last_cwnd_action == CwndAction::Dupack,
                Variant::Sack | Variant::Fack => self.fastrecov,
            }
    }

    /// Segments in flight by what acks have said: sent, not cumulatively acked and not
    /// known delivered above the hole (the SACK pipe during SACK recovery).
    pub(super) fn flight_estimate(&self) -> i64 {
        if self.cfg.variant == Variant::Sack && self.fastrecov {
            // What Linux gives BBR (`tcp_packets_in_flight`): RFC 6675's pipe, which
            // leaves out segments deemed lost. Sack1's own pipe (the recovery's send
            // gate, unchanged) counts every lost segment of the window until recovery
            // ends, which held BBR's packet-conservation window at the whole window.
            return self.sb.pipe_rfc6675(self.maxseq, self.cfg.numdupacks);
        }
        let outstanding = (self.maxseq - self.highest_ack - self.delivered_above).max(0);
        if self.last_cwnd_action == CwndAction::Timeout && self.highest_ack < self.recover {
            // After a timeout what was outstanding and not sent again is lost (Linux's
            // `tcp_enter_loss` marks it so, and `tcp_packets_in_flight` leaves it out;
            // RFC 6675 sec. 5.1 restarts the pipe the same way): only the go-back-N
            // resends are in flight. Counting the lost window kept BBR in Drain, whose
            // exit waits for the flight to fall to one BDP, for the rest of the run.
            let resent = (self.t_seqno - 1 - self.highest_ack).max(0);
            return resent.min(outstanding);
        }
        outstanding
    }

    /// BBR's per-ack input, after the variant has processed the ack (`prior_ack` and
    /// `prior_flight` from before; the flight only when BBR reads it, else 0): what this ack newly delivered (cumulatively, SACKed,
    /// or without SACK one segment per duplicate ack) and the rate sample of the segment
    /// whose send time it echoes. Sends again if the window opened.
    pub(super) fn rate_sample(&mut self, prior_ack: i64, prior_flight: i64, blocks: &[(i64, i64)]) {
        if self.rate.is_none() {
            return;
        }
        let advance = (self.highest_ack - prior_ack).max(0);
        let acked = if self.cfg.variant.uses_sack() {
            // Each segment counts once, when first SACKed or cumulatively acked, from
            // the ack's own blocks (draft-cheng-iccrg-delivery-rate-estimation sec. 3.3),
            // not from Sack1's scoreboard, which ignores SACK information after a timeout
            // and so credited a window SACKed meanwhile to one ack (`sacked.rs`).
            let (covered, newly) = self.sacked_above.on_ack(self.highest_ack, blocks);
            self.delivered_above = self.sacked_above.count();
            advance - covered + newly
        } else {
            // Without SACK a duplicate ack stands for one segment delivered above the
            // hole; the cumulative ack covers what it newly acks, all but the segment
            // that filled the hole assumed counted before (exact with one hole).
            let covered = self.delivered_above.min((advance - 1).max(0));
            let above = self.delivered_above - covered;
            let new_above = i64::from(advance == 0);
            self.delivered_above =
                (above + new_above).min((self.maxseq - self.highest_ack - 1).max(0));
            advance - covered + new_above
        };
        let Some(rate) = self.rate.as_mut() else {
            return;
        };
        let mut rs = rate.on_ack(self.now, self.ack_echo, acked as f64);
        rs.prior_in_flight = prior_flight as f64;
        rs.in_flight = self.flight_estimate() as f64;
        rs.in_recovery = self.in_loss_recovery();
        let mut w = WindowState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        self.cc.on_rate_sample(&mut w, &rs);
        let opened = w.cwnd > self.cwnd;
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
        // The variant sent before this ack's window was known; send what it now allows,
        // where the variant would send at all (not between the first duplicate acks).
        if opened && (self.dupacks == 0 || self.dupacks >= self.cfg.numdupacks) {
            self.send_much();
        }
    }
}
