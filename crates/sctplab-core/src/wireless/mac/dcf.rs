//! The DCF rules of ns-2.35's `Mac/802_11` (mac/mac-802_11.cc, mac/mac-timers.cc):
//! backoff, NAV, the timer handlers, transmission and reception, under ns-2's function
//! names so that each can be read beside mac-802_11.cc. Only these rules and the entry
//! points in `mac.rs` decide what the MAC does; the world's accelerators (`fast.rs`)
//! take shortcuts that must leave the same state (its differential tests).

use crate::sim::SimDuration;

use super::super::frame::{Frame, FrameKind, MacAddr};
use super::super::ifq::IfqEntry;
use super::cfg::usec;
use super::{
    BACKOFF, Backoff, DEFER, IF, Mac, MacEvent, NAV, NO_TIMER, RECV, RxFrame, RxState, SEND,
    TxState,
};

/// NIC addresses are small indices; the duplicate cache is a vector indexed by them.
pub(super) const MAX_DUP_CACHE: usize = 1 << 20;

impl Mac {
    /// `BackoffTimer::start`: a random number of slots in 0..cw-1, counted down after
    /// `difs` of idle medium; paused at once if the medium is busy.
    fn backoff_start(&mut self, idle: bool, difs: SimDuration) {
        let cw = u64::from(self.cw.max(1));
        let slots = self.rng.next_u64() % cw;
        self.backoff = Backoff {
            busy: true,
            paused: !idle,
            stime: self.now,
            rtime: self.cfg.slot.saturating_mul(slots),
            difs_wait: difs,
        };
        if idle {
            self.start_timer(BACKOFF, self.backoff.rtime + difs);
        } else {
            self.stop_timer(BACKOFF);
        }
    }

    /// `BackoffTimer::pause`: only whole slots counted down since the DIFS wait ended
    /// are taken off; a partly elapsed slot is counted again after the next DIFS.
    fn backoff_pause(&mut self) {
        let counting_from = self.backoff.stime + self.backoff.difs_wait;
        let slot = self.cfg.slot.as_nanos().max(1);
        let slots = self.now.saturating_since(counting_from).as_nanos() / slot;
        self.backoff.rtime = self.backoff.rtime - self.cfg.slot.saturating_mul(slots);
        self.backoff.paused = true;
        self.backoff.difs_wait = SimDuration::ZERO;
        self.stop_timer(BACKOFF);
    }

    /// `BackoffTimer::resume`: the medium must be idle for `difs` before counting on.
    pub(super) fn backoff_resume(&mut self, difs: SimDuration) {
        self.backoff.paused = false;
        self.backoff.stime = self.now;
        self.backoff.difs_wait = difs;
        self.start_timer(BACKOFF, self.backoff.rtime + difs);
    }

    pub(super) fn is_idle(&self) -> bool {
        self.is_idle_at(self.now)
    }

    /// `checkBackoffTimer`: freeze the backoff while the medium is busy, resume it after
    /// DIFS once it is idle.
    #[inline]
    fn check_backoff_timer(&mut self) {
        // The flags first: a resumed backoff is not paused again (the medium is idle).
        if self.backoff.paused {
            if self.is_idle() {
                self.backoff_resume(self.difs);
            }
        } else if self.backoff.busy && !self.is_idle() {
            self.backoff_pause();
        }
    }

    pub(super) fn set_rx_state(&mut self, s: RxState) {
        self.rx_state = s;
        self.check_backoff_timer();
    }

    pub(super) fn set_tx_state(&mut self, s: TxState) {
        self.tx_state = s;
        self.check_backoff_timer();
    }

    /// `set_nav`: extend the NAV to now + `d` if that is later, and restart its timer.
    fn set_nav(&mut self, d: SimDuration) {
        let until = self.now + d;
        if until > self.nav {
            self.nav = until;
            self.start_timer(NAV, d);
        }
    }

    fn inc_cw(&mut self) {
        self.cw = ((self.cw << 1) + 1).min(self.cfg.cw_max);
    }

    fn rst_cw(&mut self) {
        self.cw = self.cfg.cw_min;
    }

    /// ns-2's `ch->size()` of a frame: MAC bytes plus the PLCP preamble and header.
    fn ns2_size(&self, f: &Frame) -> u32 {
        f.bytes + self.cfg.plcp_bytes()
    }

    // ---------------------------------------------------------- timer handlers

    pub(super) fn backoff_handler(&mut self) {
        self.backoff = Backoff::default();
        if self.ctrl.is_some() {
            // A CTS/ACK is being deferred or sent: this backoff expiry is consumed;
            // tx_resume restarts one for our own frame afterwards.
            return;
        }
        if self.check_pkt_rts() {
            return;
        }
        self.check_pkt_tx();
    }

    pub(super) fn defer_handler(&mut self) {
        if self.check_pkt_ctrl() {
            return;
        }
        if self.check_pkt_rts() {
            return;
        }
        self.check_pkt_tx();
    }

    pub(super) fn nav_handler(&mut self) {
        if self.is_idle() && self.backoff.paused {
            self.backoff_resume(self.difs);
        }
    }

    /// `send_timer`: a response timeout, or the end of a CTS/ACK/broadcast.
    pub(super) fn send_timer(&mut self) {
        match self.tx_state {
            TxState::Rts => self.retransmit_rts(),
            // Sent a CTS but no DATA came; or an ACK went out.
            TxState::Cts | TxState::Ack => self.ctrl = None,
            TxState::Send => self.retransmit_data(),
            TxState::Idle => {}
        }
        self.tx_resume();
    }

    // ------------------------------------------------------------ transmission

    /// `Mac802_11::send`: take a packet from the queue.
    pub(super) fn send(&mut self, e: IfqEntry) {
        self.holding = true;
        let bcast = e.next_hop.is_broadcast();
        let bytes = e.ip_bytes + self.cfg.data_header_bytes + self.cfg.fcs_bytes;
        let (airtime, duration) = if bcast {
            (
                self.cfg.airtime(bytes, self.cfg.basic_rate_bps),
                SimDuration::ZERO,
            )
        } else {
            (
                self.cfg.airtime(bytes, self.cfg.data_rate_bps),
                usec(self.ack_air + self.cfg.sifs),
            )
        };
        self.tx = Some(Frame {
            seq: self.seqno,
            packet: Some(e.packet),
            ..Frame::new(
                FrameKind::Data,
                self.addr,
                e.next_hop,
                duration,
                bytes,
                airtime,
            )
        });
        self.seqno = self.seqno.wrapping_add(1);
        self.make_rts(e.next_hop);

        // With the medium idle ns-2 still backs off (DIFS + random slots, bugFix_timer_);
        // with it busy, the backoff starts frozen. An access already pending (backoff
        // or defer running) is kept.
        if !self.backoff.busy {
            if self.is_idle() {
                if !self.busy(DEFER) {
                    self.start_access();
                }
            } else {
                self.backoff_start(false, SimDuration::ZERO);
            }
        }
    }

    /// DIFS then a random backoff: through the backoff timer (`bugFix_timer_`), or as one
    /// defer of DIFS + random slots (ns-2's older behaviour, never frozen).
    fn start_access(&mut self) {
        if self.cfg.bug_fix_timer {
            let idle = self.is_idle();
            self.backoff_start(idle, self.difs);
        } else {
            let slots = self.rng.next_u64() % u64::from(self.cw.max(1));
            let d = self.difs + self.cfg.slot.saturating_mul(slots);
            self.start_timer(DEFER, d);
        }
    }

    /// `sendRTS`: build the RTS for `pktTx_` unless it is broadcast or below the
    /// threshold. Its Duration covers CTS, DATA and ACK with three SIFS.
    fn make_rts(&mut self, dst: MacAddr) {
        let Some(tx) = self.tx else { return };
        if self.ns2_size(&tx) < self.cfg.rts_threshold || dst.is_broadcast() {
            return;
        }
        let s = self.cfg.sifs;
        let duration = usec(s + self.cts_air + s + tx.airtime + s + self.ack_air);
        self.rts = Some(self.control_frame(FrameKind::Rts, dst, duration));
    }

    fn control_frame(&self, kind: FrameKind, dst: MacAddr, duration: SimDuration) -> Frame {
        let (bytes, airtime) = match kind {
            FrameKind::Rts => (self.cfg.rts_bytes, self.rts_air),
            FrameKind::Cts => (self.cfg.cts_bytes, self.cts_air),
            _ => (self.cfg.ack_bytes, self.ack_air),
        };
        Frame::new(kind, self.addr, dst, duration, bytes, airtime)
    }

    /// `transmit`: put a frame on the air, arm the response timeout and the end of
    /// transmission. A reception in progress is lost (we cannot hear while sending).
    fn transmit(&mut self, f: Frame, timeout: SimDuration) {
        self.tx_active = true;
        if self.rx_state != RxState::Idle {
            if let Some(rx) = self.rx.as_mut() {
                rx.error = true;
            }
        }
        match f.kind {
            FrameKind::Rts => self.counters.rts_sent += 1,
            FrameKind::Cts => self.counters.cts_sent += 1,
            FrameKind::Ack => self.counters.ack_sent += 1,
            FrameKind::Data => {
                if f.dst.is_broadcast() {
                    self.counters.broadcast_sent += 1;
                } else {
                    self.counters.data_sent += 1;
                    if f.retry {
                        self.counters.data_retransmissions += 1;
                    }
                }
            }
        }
        self.out.push_back(f);
        self.start_timer(SEND, timeout);
        self.start_timer(IF, f.airtime);
    }

    /// `check_pktCTRL`: send a pending CTS (only if the medium is idle) or ACK (always,
    /// 802.11 9.2.8). Returns true if it acted.
    fn check_pkt_ctrl(&mut self) -> bool {
        let Some(c) = self.ctrl else { return false };
        if matches!(self.tx_state, TxState::Cts | TxState::Ack) {
            return false;
        }
        let timeout = match c.kind {
            FrameKind::Cts => {
                if !self.is_idle() {
                    self.counters.cts_suppressed += 1;
                    self.ctrl = None;
                    return true;
                }
                self.set_tx_state(TxState::Cts);
                // ns-2's guess at when the DATA must have arrived: the CTS, SIFS and the
                // DATA (CTS duration minus SIFS and ACK), plus two propagation delays.
                let p = self.cfg.max_propagation_delay;
                (self.cts_air + p + c.duration + p) - self.cfg.sifs - self.ack_air
            }
            _ => {
                self.set_tx_state(TxState::Ack);
                self.ack_air
            }
        };
        self.transmit(c, timeout);
        true
    }

    /// `check_pktRTS`: the backoff (or defer) ended; send the RTS if the medium is idle,
    /// else double the window and back off again.
    fn check_pkt_rts(&mut self) -> bool {
        let Some(r) = self.rts else { return false };
        if !self.is_idle() {
            self.inc_cw();
            let idle = self.is_idle();
            self.backoff_start(idle, SimDuration::ZERO);
            return true;
        }
        self.set_tx_state(TxState::Rts);
        let p = self.cfg.max_propagation_delay;
        let timeout = self.rts_air + p + self.cfg.sifs + self.cts_air + p;
        self.transmit(r, timeout);
        true
    }

    /// `check_pktTx`: send the DATA (after SIFS following a CTS, or after the backoff
    /// for broadcast / below-threshold frames).
    fn check_pkt_tx(&mut self) -> bool {
        let Some(t) = self.tx else { return false };
        if !self.is_idle() {
            // Busy again: start over with an RTS and a larger window.
            self.make_rts(t.dst);
            self.inc_cw();
            let idle = self.is_idle();
            self.backoff_start(idle, SimDuration::ZERO);
            return true;
        }
        self.set_tx_state(TxState::Send);
        let timeout = if t.dst.is_broadcast() {
            t.airtime
        } else {
            let p = self.cfg.max_propagation_delay;
            t.airtime + p + self.cfg.sifs + self.ack_air + p
        };
        self.transmit(t, timeout);
        true
    }

    /// `tx_resume`: schedule whatever is pending next, or take the next packet from the
    /// queue (ns-2's MAC callback, run before the transmit state goes idle).
    fn tx_resume(&mut self) {
        let failed = std::mem::take(&mut self.resume_pending);
        if self.ctrl.is_some() {
            self.start_timer(DEFER, self.cfg.sifs);
        } else if self.rts.is_some() {
            if !self.backoff.busy {
                self.start_access();
            }
        } else if let Some(t) = self.tx {
            if !self.backoff.busy {
                if self.ns2_size(&t) < self.cfg.rts_threshold || t.dst.is_broadcast() {
                    self.start_access();
                } else {
                    // CTS received: DATA after SIFS.
                    self.start_timer(DEFER, self.cfg.sifs);
                }
            }
        } else if self.holding {
            if failed {
                // Pull (and go idle) in `resume_after_failure`, after the purge.
                self.resume_pending = true;
                return;
            }
            self.holding = false;
            if let Some(e) = self.pull() {
                self.send(e);
            }
        }
        self.set_tx_state(TxState::Idle);
    }

    /// `RetransmitRTS`: no CTS came.
    fn retransmit_rts(&mut self) {
        self.ssrc += 1;
        self.counters.short_retries += 1;
        if self.ssrc >= self.cfg.short_retry_limit {
            self.rts = None;
            if let Some(packet) = self.tx.take().and_then(|t| t.packet.map(|p| (p, t.dst))) {
                self.counters.failed_short += 1;
                self.events.push_back(MacEvent::Failed {
                    packet: packet.0,
                    next_hop: packet.1,
                });
                self.resume_pending = true;
            }
            self.ssrc = 0;
            self.rst_cw();
        } else {
            if let Some(r) = self.rts.as_mut() {
                r.retry = true;
            }
            self.inc_cw();
            let idle = self.is_idle();
            self.backoff_start(idle, SimDuration::ZERO);
        }
    }

    /// `RetransmitDATA`: no ACK came (or a broadcast ended).
    fn retransmit_data(&mut self) {
        let Some(t) = self.tx else { return };
        if t.dst.is_broadcast() {
            self.tx = None;
            if let Some(packet) = t.packet {
                self.events.push_back(MacEvent::Sent { packet });
            }
            self.rst_cw();
            let idle = self.is_idle();
            self.backoff_start(idle, SimDuration::ZERO);
            return;
        }
        let short = self.ns2_size(&t) <= self.cfg.rts_threshold;
        let (count, limit) = if short {
            self.counters.short_retries += 1;
            self.ssrc += 1;
            (self.ssrc, self.cfg.short_retry_limit)
        } else {
            self.counters.long_retries += 1;
            self.slrc += 1;
            (self.slrc, self.cfg.long_retry_limit)
        };
        if count >= limit {
            self.tx = None;
            if let Some(packet) = t.packet {
                if short {
                    self.counters.failed_short += 1;
                } else {
                    self.counters.failed_long += 1;
                }
                self.events.push_back(MacEvent::Failed {
                    packet,
                    next_hop: t.dst,
                });
                self.resume_pending = true;
            }
            if short {
                self.ssrc = 0;
            } else {
                self.slrc = 0;
            }
            self.rst_cw();
        } else {
            if let Some(tx) = self.tx.as_mut() {
                tx.retry = true;
            }
            self.make_rts(t.dst);
            self.inc_cw();
            let idle = self.is_idle();
            self.backoff_start(idle, SimDuration::ZERO);
        }
    }

    // --------------------------------------------------------------- reception

    /// `capture`: the new frame is ignored, but the medium counts as busy for EIFS plus
    /// its airtime, through the NAV.
    pub(super) fn capture(&mut self, f: &Frame) {
        self.counters.captures += 1;
        self.set_nav(usec(self.cfg.eifs() + f.airtime));
    }

    /// `collision`: both frames are lost; the reception goes on until the later of the
    /// two ends.
    pub(super) fn collision(&mut self, f: &Frame, power: f64, error: bool) {
        self.counters.collisions += 1;
        if self.rx_state == RxState::Recv {
            self.set_rx_state(RxState::Coll);
        }
        let remaining = match self.timers[RECV] {
            NO_TIMER => SimDuration::ZERO,
            k => k.time().saturating_since(self.now),
        };
        if f.airtime > remaining {
            self.rx = Some(RxFrame {
                frame: *f,
                power,
                error,
            });
            self.start_timer(RECV, f.airtime);
        }
    }

    /// `recv_timer`: the reception in progress ends.
    pub(super) fn recv_timer(&mut self) {
        let rx = self.rx.take();
        if let Some(rx) = rx {
            self.receive_end(rx);
        }
        self.set_rx_state(RxState::Idle);
    }

    fn receive_end(&mut self, rx: RxFrame) {
        if self.tx_active {
            // We were sending when it ended: never heard, no NAV.
            self.counters.rx_missed_tx += 1;
            return;
        }
        if self.rx_state == RxState::Coll {
            self.counters.rx_collided += 1;
            self.set_nav(self.eifs_nav);
            return;
        }
        if rx.error {
            self.counters.rx_errors += 1;
            self.set_nav(self.eifs_nav);
            return;
        }
        let f = rx.frame;
        if f.dst != self.addr {
            // 802.11 9.2.5.6: overheard frames set the NAV from their Duration field.
            self.set_nav(f.duration);
        }
        if f.dst != self.addr && !f.dst.is_broadcast() {
            // mac-802_11.cc `recv_timer`: "tap out" every intact DATA frame before the
            // address filter (frames for this station reach the agent anyway).
            if self.taps(&f) {
                if let Some(packet) = f.packet {
                    self.events.push_back(MacEvent::Overheard {
                        packet,
                        from: f.src,
                    });
                }
            }
            return;
        }
        match f.kind {
            FrameKind::Rts => self.recv_rts(&f),
            FrameKind::Cts => self.recv_cts(),
            FrameKind::Ack => self.recv_ack(),
            FrameKind::Data => self.recv_data(&f),
        }
    }

    fn recv_rts(&mut self, f: &Frame) {
        if self.tx_state != TxState::Idle || self.ctrl.is_some() {
            self.counters.busy_discards += 1;
            return;
        }
        let duration = usec(f.duration - self.cfg.sifs - self.cts_air);
        self.ctrl = Some(self.control_frame(FrameKind::Cts, f.src, duration));
        // Stop deferring; tx_resume sets the SIFS defer for the CTS.
        self.stop_timer(DEFER);
        self.tx_resume();
    }

    fn recv_cts(&mut self) {
        if self.tx_state != TxState::Rts {
            self.counters.invalid_state_discards += 1;
            return;
        }
        self.rts = None;
        self.stop_timer(SEND);
        // 802.11 9.2.5.3: a CTS resets the short retry count, not the window.
        self.ssrc = 0;
        self.tx_resume();
    }

    fn recv_ack(&mut self) {
        if self.tx_state != TxState::Send {
            self.counters.invalid_state_discards += 1;
            return;
        }
        self.stop_timer(SEND);
        if let Some(t) = self.tx.take() {
            if self.ns2_size(&t) <= self.cfg.rts_threshold {
                self.ssrc = 0;
            } else {
                self.slrc = 0;
            }
            self.counters.acked += 1;
            if let Some(packet) = t.packet {
                self.events.push_back(MacEvent::Sent { packet });
            }
        }
        self.rst_cw();
        // Post-transmission backoff (frozen now: we are still receiving the ACK).
        let idle = self.is_idle();
        self.backoff_start(idle, SimDuration::ZERO);
        self.tx_resume();
    }

    fn recv_data(&mut self, f: &Frame) {
        if !f.dst.is_broadcast() {
            if self.ns2_size(f) >= self.cfg.rts_threshold {
                // Only DATA that follows our CTS is accepted.
                if self.tx_state == TxState::Cts {
                    self.ctrl = None;
                    self.stop_timer(SEND);
                } else {
                    self.counters.busy_discards += 1;
                    return;
                }
                self.ctrl = Some(self.control_frame(FrameKind::Ack, f.src, SimDuration::ZERO));
                self.tx_resume();
            } else {
                // Basic access: no room for an ACK if a CTS/ACK is already pending.
                if self.ctrl.is_some() {
                    self.counters.busy_discards += 1;
                    return;
                }
                self.ctrl = Some(self.control_frame(FrameKind::Ack, f.src, SimDuration::ZERO));
                if !self.busy(SEND) {
                    self.tx_resume();
                }
            }
            // Duplicate detection by (transmitter, sequence number), after the ACK.
            // Like ns-2's cache sized by node count, an address beyond it is delivered
            // without the check.
            let i = f.src.0 as usize;
            if i < MAX_DUP_CACHE {
                if i >= self.dup_cache.len() {
                    self.dup_cache.resize(i + 1, 0);
                }
                let last = self.dup_cache[i];
                if last != 0 && last == f.seq {
                    self.counters.duplicates += 1;
                    return;
                }
                self.dup_cache[i] = f.seq;
            }
        }
        self.counters.delivered += 1;
        if self.delivery_counted_only(f) {
            return;
        }
        if let Some(packet) = f.packet {
            self.events.push_back(MacEvent::Received {
                packet,
                from: f.src,
            });
        }
    }
}
