//! Each variant's ack processing and sending rule, following ns-2.35's agents:
//! `RenoTcpAgent::recv` (tcp-reno.cc), `NewRenoTcpAgent::recv` (tcp-newreno.cc, RFC 6582
//! partial acks), `Sack1TcpAgent` (tcp-sack1.cc: Fall & Floyd's conservative pipe
//! algorithm, cf. RFC 6675) and `FackTcpAgent` (tcp-fack.cc: Mathis & Mahdavi 1996 as
//! ns-2 implements it, including its cwnd = 1 restart on entering recovery, noted in
//! seed 002 sec. 5). Segment numbers are 0-based; `cum` is the highest segment acked.

use super::sender::{CwndAction, TcpSender, Why};
use crate::cc::{Congestion, CwndAfter};
use crate::sim::SimTime;

impl TcpSender {
    // ----- Reno -----

    pub(super) fn recv_reno(&mut self, cum: i64) {
        if cum > self.last_ack {
            if self.last_cwnd_action == CwndAction::Dupack {
                self.last_cwnd_action = CwndAction::Exited;
            }
            self.dupwnd = 0.0;
            self.recv_newack_helper(cum);
        } else if cum == self.last_ack {
            self.count_dupack(|s| s.reno_fast_retransmit_allowed());
        }
        if cum >= self.last_ack && (self.dupacks == 0 || self.dupacks > self.cfg.numdupacks - 1) {
            self.send_much();
        }
    }

    /// Reno allows a further fast retransmit while the last window action was one
    /// (ns-2 `RenoTcpAgent::allow_fast_retransmit`); both check `recover`.
    fn reno_fast_retransmit_allowed(&self) -> bool {
        self.highest_ack > self.recover
            || self.last_cwnd_action == CwndAction::Dupack
            || self.highest_ack == 0
    }

    /// Duplicate-ack counting shared by Reno and NewReno: fast retransmit at the
    /// threshold, window inflation after it, limited transmit before it.
    fn count_dupack(&mut self, allowed: impl Fn(&Self) -> bool) {
        self.dupacks += 1;
        let k = self.cfg.numdupacks;
        if self.dupacks == k {
            if allowed(self) {
                self.reno_action();
            }
        } else if self.dupacks > k && self.last_cwnd_action == CwndAction::Dupack {
            self.dupwnd += 1.0;
        } else if self.dupacks < k && self.cfg.limited_transmit {
            self.send_one();
        }
    }

    fn reno_action(&mut self) {
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Dupack;
        self.entering_fast_recovery();
        self.slowdown(Congestion::FastRetransmit, CwndAfter::Reduce);
        self.reset_rtx_timer(true, false);
        let s = self.last_ack + 1;
        self.output(s, Why::Fast);
        self.dupwnd = self.cfg.numdupacks as f64;
    }

    // ----- NewReno -----

    pub(super) fn recv_newreno(&mut self, cum: i64) {
        if cum > self.last_ack {
            if cum >= self.recover || self.last_cwnd_action != CwndAction::Dupack {
                if self.dupwnd > 0.0 {
                    self.dupwnd = 0.0;
                    if self.last_cwnd_action == CwndAction::Dupack {
                        self.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(cum);
            } else {
                // A partial ack: retransmit the next hole at once, stay in recovery
                // (RFC 6582 sec. 3.2 step 5).
                if !self.cfg.partial_window_deflation {
                    self.dupwnd = 0.0;
                }
                self.partial_ack(cum);
            }
        } else if cum == self.last_ack {
            self.count_dupack(|s| s.highest_ack > s.recover || s.highest_ack == 0);
        }
        if cum >= self.last_ack {
            if self.dupacks == 0 {
                self.send_much();
            } else if self.dupacks > self.cfg.numdupacks - 1 {
                // ns-2 limits the burst to two segments while in fast recovery.
                self.send_much_basic(2);
            }
        }
    }

    fn partial_ack(&mut self, cum: i64) {
        if !self.cfg.reset_timer_first_partial_only || !self.firstpartial {
            self.firstpartial = true;
            self.newtimer(cum);
        }
        if self.cfg.partial_window_deflation {
            // Deflate by the amount acked, then add back one segment (RFC 6582 step 5).
            let deflate = (cum - self.last_ack) as f64;
            if self.dupwnd > deflate {
                self.dupwnd -= deflate - 1.0;
            } else {
                self.cwnd -= deflate - self.dupwnd;
                self.dupwnd = 1.0;
            }
            if self.cwnd < 1.0 {
                self.cwnd = 1.0;
            }
        }
        self.last_ack = cum;
        self.highest_ack = cum;
        if self.t_seqno < cum + 1 {
            self.t_seqno = cum + 1;
        }
        if self.rtt_active && cum >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.backoff = 1;
        }
        let s = self.last_ack + 1;
        self.output(s, Why::Fast);
    }

    // ----- SACK (ns-2 Sack1) -----

    pub(super) fn recv_sack1(&mut self, cum: i64, blocks: &[(i64, i64)]) {
        let valid = cum >= self.last_ack;
        if !self.fastrecov {
            if cum > self.last_ack {
                self.firstpartial = false;
                self.recv_newack_helper(cum);
                self.timeout_flag = false;
                self.sb.clear();
            } else if cum == self.last_ack && !self.timeout_flag {
                let up = self.sb.update(self.highest_ack, blocks);
                // Only acks that carry new SACK information count as duplicates.
                if up.changed {
                    self.dupacks += 1;
                    if self.dupacks == self.cfg.numdupacks {
                        if self.highest_ack > self.recover || self.highest_ack == 0 {
                            self.sack_action();
                        }
                    } else if self.dupacks < self.cfg.numdupacks && self.cfg.limited_transmit {
                        self.send_one();
                    }
                }
            }
            if valid && self.dupacks == 0 {
                self.send_much();
            }
        } else {
            self.pipe -= 1;
            if cum >= self.recover {
                self.recover = 0;
                self.fastrecov = false;
                self.newack(cum);
                self.timeout_flag = false;
                self.sb.clear();
            } else if cum > self.highest_ack {
                // Partial ack: the retransmission (probably) left the network too, so the
                // pipe shrinks by two (Fall & Floyd 1996 sec. 4, ns-2 Sack1).
                self.highest_ack = cum;
                self.sb.update(self.highest_ack, blocks);
                self.pipe -= 1;
                self.newtimer(cum);
                self.rtt.backoff = 1;
            } else if !self.timeout_flag {
                let up = self.sb.update(self.highest_ack, blocks);
                if up.changed && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if valid {
                self.send_much();
            }
        }
    }

    fn sack_action(&mut self) {
        self.recover = self.maxseq;
        self.pipe = self.maxseq - self.highest_ack - self.cfg.numdupacks;
        self.reset_rtx_timer(true, false);
        self.fastrecov = true;
        self.sb.mark_hole_sent(self.highest_ack + 1);
        self.last_cwnd_action = CwndAction::Dupack;
        self.entering_fast_recovery();
        self.slowdown(Congestion::FastRetransmit, CwndAfter::Reduce);
        let s = self.last_ack + 1;
        self.output(s, Why::Fast);
    }

    pub(super) fn send_much_sack1(&mut self, maxburst: u32) {
        let wnd = self.cfg.wnd as i64;
        let mut win = self.window();
        let mut n = 0;
        loop {
            let open = if self.fastrecov {
                self.pipe < self.cwnd as i64
            } else {
                self.t_seqno <= self.last_ack + win
            };
            if !open || self.last_ack + 1 >= self.curseq {
                break;
            }
            let xmit = match self.sb.next_hole() {
                None => {
                    let room = if self.fastrecov {
                        self.t_seqno <= self.highest_ack + wnd
                    } else {
                        self.t_seqno <= self.highest_ack + win
                    };
                    if room && self.t_seqno < self.curseq {
                        let s = self.t_seqno;
                        self.t_seqno += 1;
                        Some((s, Why::Auto))
                    } else {
                        None
                    }
                }
                Some(hole) if self.recover > 0 && hole <= self.highest_ack + wnd => {
                    self.sb.mark_hole_sent(hole);
                    win = self.window();
                    Some((hole, Why::Fast))
                }
                Some(_) => None,
            };
            let Some((s, why)) = xmit else { break };
            self.output(s, why);
            if self.t_seqno <= s {
                self.t_seqno = s + 1;
            }
            n += 1;
            self.pipe += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    // ----- FACK -----

    /// Ack processing that leaves the window alone (ns-2 `FackTcpAgent::oldack`); FACK
    /// samples the RTT on every ack from the echoed send time.
    fn fack_oldack(&mut self, cum: i64, echo: SimTime) {
        self.last_ack = cum;
        self.highest_ack = cum;
        self.fack = self.fack.max(self.highest_ack);
        self.maxseq = self.maxseq.max(self.highest_ack);
        if self.t_seqno < cum + 1 {
            self.t_seqno = cum + 1;
        }
        self.newtimer(cum);
        if self.rtt_active && cum >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.backoff = 1;
        }
        let tao = self.now.saturating_since(echo).as_secs_f64();
        self.rtt.update(tao, echo.as_secs_f64());
        self.check_all_acked();
    }

    pub(super) fn recv_fack(&mut self, cum: i64, blocks: &[(i64, i64)], echo: SimTime) {
        let acked = cum - self.last_ack;
        let max_sacked = blocks.iter().map(|&(_, r)| r - 1).max().unwrap_or(-2);
        if !self.fastrecov {
            if cum > self.last_ack && blocks.is_empty() {
                self.recv_newack_helper(cum);
                self.fack = self.last_ack;
                self.timeout_flag = false;
                self.sb.clear();
                self.retran_data = 0;
                self.wintrim = 0.0;
            } else if cum >= self.last_ack {
                let up = self.sb.update(self.highest_ack, blocks);
                self.retran_data -= i64::from(up.retran_acked);
                self.fack_oldack(cum, echo);
                self.fack = self.fack.max(max_sacked);
                if self.fack >= self.t_seqno {
                    self.t_seqno = self.fack + 1;
                }
                // FACK counts "duplicate acks" as segments SACKed above the first hole.
                self.dupacks = self.fack - self.last_ack - 1;
                if self.dupacks >= self.cfg.numdupacks {
                    self.recover = self.t_seqno;
                    self.last_cwnd_action = CwndAction::Dupack;
                    self.entering_fast_recovery();
                    // ns-2 FACK restarts cwnd at one segment here (seed 002 sec. 5).
                    self.slowdown(Congestion::FastRetransmit, CwndAfter::One);
                    self.reset_rtx_timer(true, false);
                    self.fastrecov = true;
                    self.sb.mark_retransmitted(self.last_ack + 1, self.t_seqno);
                    self.retran_data += 1;
                    let s = self.last_ack + 1;
                    self.output(s, Why::Fast);
                }
            }
            if self.dupacks == 0 {
                self.send_much();
            }
        } else {
            self.fack_oldack(cum, echo);
            if max_sacked > self.fack {
                self.fack = max_sacked;
            }
            if self.fack >= self.t_seqno {
                self.t_seqno = self.fack + 1;
            }
            let up = self.sb.update(self.highest_ack, blocks);
            self.retran_data -= i64::from(up.retran_acked);
            if self.sb.check_snd_nxt(blocks) {
                self.timeout_flag = true;
            }
            // ns-2's FACK opens the window on every ack during recovery, from the
            // cwnd = 1 it restarted at (seed 002 sec. 5 notes this behaviour).
            // A duplicate ack here reports a segment SACKed: it counts as one, as each
            // ack does in ns-2.
            self.rules_open(acked);
            if blocks.is_empty() && self.last_ack >= self.recover {
                self.fastrecov = false;
                self.timeout_flag = false;
                self.sb.clear();
                self.retran_data = 0;
                self.wintrim = 0.0;
                self.dupacks = 0;
            }
            self.send_much();
        }
    }

    pub(super) fn send_much_fack(&mut self, maxburst: u32) {
        let wnd = self.cfg.wnd as i64;
        let mut win = self.window();
        let mut n = 0;
        while self.t_seqno <= self.fack + win - self.retran_data && !self.timeout_flag {
            let (s, why) = match self.sb.next_unsent_hole() {
                None => {
                    if self.t_seqno >= self.curseq {
                        return;
                    }
                    if self.fastrecov && self.t_seqno > self.highest_ack + wnd {
                        break;
                    }
                    let s = self.t_seqno;
                    self.t_seqno += 1;
                    (s, Why::Auto)
                }
                Some(hole) => {
                    let snd_nxt = self.t_seqno;
                    self.sb.mark_retransmitted(hole, snd_nxt);
                    self.retran_data += 1;
                    win = self.window();
                    (hole, Why::Fast)
                }
            };
            self.output(s, why);
            if self.t_seqno <= s {
                self.t_seqno = s + 1;
            }
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    // ----- timeouts -----

    pub(super) fn timeout(&mut self) {
        self.limited_sent = 0;
        match self.cfg.variant {
            super::Variant::Reno | super::Variant::Newreno => {
                self.dupwnd = 0.0;
                self.dupacks = 0;
                self.recover = self.maxseq;
                self.timeout_common();
            }
            super::Variant::Sack => {
                self.dupacks = 0;
                self.fastrecov = false;
                self.timeout_flag = true;
                if self.highest_ack > self.last_ack {
                    self.last_ack = self.highest_ack;
                }
                self.recover = self.maxseq;
                self.sb.clear();
                self.timeout_common();
            }
            super::Variant::Fack => {
                self.timeout_flag = false;
                if self.highest_ack > self.last_ack {
                    self.last_ack = self.highest_ack;
                }
                self.retran_data = 0;
                self.last_cwnd_action = CwndAction::Timeout;
                let outstanding = self.highest_ack != self.maxseq;
                if outstanding {
                    self.count_timeout();
                    self.slowdown(Congestion::Timeout, CwndAfter::One);
                } else {
                    self.cwnd = self.cfg.initial_window;
                }
                self.sb.clear();
                self.reset_rtx_timer(true, outstanding);
                self.fack = self.last_ack;
                self.t_seqno = self.last_ack + 1;
                self.mark_rto();
            }
        }
        self.send_much();
    }
}
