//! The TCP sender: a sans-IO machine that thinks in segments, like ns-2.35's one-way
//! agents (`Agent/TCP/Reno`, `/Newreno`, `/Sack1`, `/Fack`), whose behaviour it models
//! rule by rule so that the seeds' numbers can be reproduced and checked against ns-2.
//!
//! This file holds what all variants share: output and its bookkeeping, the
//! retransmission timer and new-ack processing; `sender/controller.rs` the calls into
//! the flow's congestion controller (`crate::cc`). `recovery.rs` holds each variant's
//! ack processing and sending rule.

use super::config::Variant;
use super::ecn::SenderEcn;
use super::rate::RateEstimator;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::seqmap::SeqMap;
use crate::cc::{
    Algorithm, Bbr, Congestion, CongestionRules, Controller, Cubic, CwndAfter, WindowState,
};
use crate::endpoint::{Endpoint, EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{TcpFlags, TcpOptions, TcpRepr, TransportRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

use super::app::BULK;

mod controller;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum CwndAction {
    None,
    Dupack,
    Timeout,
    Exited,
}

/// How a segment came to be output, for sends.csv.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// New data, or go-back-N after a timeout, decided by sequence number.
    Auto,
    /// Fast retransmission, partial-ack or SACK-hole retransmission.
    Fast,
}

#[derive(Clone, Debug)]
pub struct SenderCfg {
    pub variant: Variant,
    pub ports: (u16, u16),
    pub map: SeqMap,
    pub wnd: f64,
    pub initial_window: f64,
    pub initial_ssthresh: f64,
    pub numdupacks: i64,
    pub limited_transmit: bool,
    pub delay_growth: bool,
    /// The `"reno"` controller's rules (ns-2's window knobs); the slow-start boundary
    /// and the FlightSize cut also apply to CUBIC.
    pub rules: CongestionRules,
    pub congestion_control: Algorithm,
    /// HyStart++ for CUBIC's first slow start (RFC 9406).
    pub hystart: bool,
    pub pacing: bool,
    pub partial_window_deflation: bool,
    pub reset_timer_first_partial_only: bool,
    pub max_burst: u32,
    pub rto_initial: SimDuration,
    pub rto_min: SimDuration,
    pub rto_max: SimDuration,
    pub tick: SimDuration,
    pub handshake: bool,
    pub sack_permitted: bool,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub window: Window,
    pub trace_sends: bool,
    pub trace_acks: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Before the application starts.
    Idle,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent {
        retries: u32,
    },
    Established,
}

/// Counters for summary.json, over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub data_bytes_sent: u64,
    pub new_bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub timeout_retransmissions: u64,
    pub timeouts: u64,
    pub acks_received: u64,
    pub connect_time: Option<SimDuration>,
    pub all_acked_at: Option<SimTime>,
}

pub struct TcpSender {
    pub(super) cfg: SenderCfg,
    pub(super) now: SimTime,
    pub(super) phase: Phase,
    syn_deadline: Option<SimTime>,
    syn_sent_at: SimTime,
    /// Segments the application has handed over (ns-2 `curseq_`).
    pub(super) curseq: i64,
    /// Segments the application will hand over in all (`BULK` for a bulk transfer).
    pub(super) app_total: i64,
    // Sequence state, in segments, 0-based, as ns-2 names it.
    pub(super) t_seqno: i64,
    pub(super) maxseq: i64,
    pub(super) last_ack: i64,
    pub(super) highest_ack: i64,
    pub(super) recover: i64,
    pub(super) cwnd: f64,
    pub(super) ssthresh: f64,
    pub(super) dupacks: i64,
    /// Segments limited transmit has sent since the last new ack or timeout.
    pub(super) limited_sent: i64,
    /// Reno/NewReno window inflation during fast recovery (ns-2 `dupwnd_`).
    pub(super) dupwnd: f64,
    pub(super) last_cwnd_action: CwndAction,
    pub(super) first_decrease: bool,
    pub(super) firstpartial: bool,
    // Sack1 and Fack state.
    pub(super) fastrecov: bool,
    pub(super) pipe: i64,
    pub(super) timeout_flag: bool,
    pub(super) sb: Scoreboard,
    pub(super) fack: i64,
    pub(super) retran_data: i64,
    pub(super) wintrim: f64,
    // Retransmission timer and RTT sampling (one timed segment per round trip).
    pub(super) rtt: RttEstimator,
    pub(super) rtt_active: bool,
    pub(super) rtt_seq: i64,
    pub(super) rtt_ts: SimTime,
    pub(super) rtx_deadline: Option<SimTime>,
    /// The congestion controller; the window it acts on is `cwnd` and `ssthresh`.
    pub(super) cc: Controller,
    /// The send time the ack being processed echoes (its RTT sample, RFC 7323 sec. 4).
    pub(super) ack_echo: SimTime,
    /// Delivery-rate samples, for controllers that use them (BBR).
    pub(super) rate: Option<RateEstimator>,
    /// Segments known delivered above the cumulative ack: SACKed ones, or without SACK
    /// one per duplicate ack, not yet covered by it.
    pub(super) delivered_above: i64,
    /// SACKed segments above the cumulative ack from every ack's blocks (BBR's
    /// delivered count; `sacked.rs`).
    pub(super) sacked_above: super::sacked::SackedAbove,
    /// Pacing: the earliest time the next segment may leave.
    pub(super) next_send: SimTime,
    /// Highest segment sent when the last timeout fired: retransmissions at or below it
    /// that no ack information asked for are go-back-N (`rto_rtx`).
    rto_high: i64,
    /// Segments to put on the wire, and whether each is a retransmission; -1 is a SYN.
    pub(super) out: VecDeque<(i64, SendKind)>,
    pub(super) events: VecDeque<EndpointEvent>,
    /// RFC 3168 state (`tcp/ecn.rs`); off unless `set_ecn` says so.
    pub(super) ecn: SenderEcn,
    pub stats: SenderStats,
    /// `stream_traffic`'s application (`tcp/messages.rs`); `None`: the bulk or finite
    /// application of `bytes`.
    pub messages: Option<Box<super::messages::TcpMessages>>,
}

impl TcpSender {
    pub fn new(cfg: SenderCfg) -> Self {
        let rtt = RttEstimator::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max, cfg.tick);
        let app_total = match cfg.map.total {
            Some(t) => t.div_ceil(cfg.map.mss) as i64,
            None => BULK,
        };
        let cc = match cfg.congestion_control {
            Algorithm::Reno => Controller::Reno(cfg.rules),
            Algorithm::Cubic => Controller::Cubic(Box::new(Cubic::new(
                cfg.hystart,
                cfg.pacing,
                cfg.rules.slow_start_at_ssthresh,
                cfg.rules.flight_based_cut,
            ))),
            Algorithm::Bbr => {
                // Linux draws ProbeBW's first phase at random; here a fixed function of
                // the flow's ports (deterministic, and different for parallel flows).
                let draw = usize::from(cfg.ports.0 ^ cfg.ports.1) % 7;
                let phase = if draw == 0 { 0 } else { draw + 1 };
                Controller::Bbr(Box::new(Bbr::new(
                    cfg.initial_window,
                    cfg.map.mss as f64,
                    phase,
                )))
            }
        };
        let rate = cc.wants_rate_samples().then(RateEstimator::new);
        TcpSender {
            cc,
            rate,
            delivered_above: 0,
            sacked_above: Default::default(),
            next_send: SimTime::ZERO,
            ack_echo: SimTime::ZERO,
            app_total,
            now: SimTime::ZERO,
            phase: Phase::Idle,
            syn_deadline: None,
            syn_sent_at: SimTime::ZERO,
            curseq: 0,
            t_seqno: 0,
            maxseq: -1,
            last_ack: -1,
            highest_ack: -1,
            recover: 0,
            cwnd: cfg.initial_window,
            ssthresh: cfg.initial_ssthresh,
            dupacks: 0,
            limited_sent: 0,
            dupwnd: 0.0,
            last_cwnd_action: CwndAction::None,
            first_decrease: true,
            firstpartial: false,
            fastrecov: false,
            pipe: -1,
            timeout_flag: false,
            sb: Scoreboard::new(),
            fack: -1,
            retran_data: 0,
            wintrim: 0.0,
            rtt,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            rtx_deadline: None,
            rto_high: -1,
            out: VecDeque::new(),
            events: VecDeque::new(),
            ecn: SenderEcn::default(),
            stats: SenderStats::default(),
            messages: None,
            cfg,
        }
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    // ----- windows -----

    /// Usable window in segments (ns-2 `window()`): Reno-style inflation counts, Fack
    /// adds its window trim.
    pub(super) fn window(&self) -> i64 {
        match self.cfg.variant {
            Variant::Reno | Variant::Newreno => (self.cwnd + self.dupwnd).min(self.cfg.wnd) as i64,
            Variant::Sack => self.cwnd.min(self.cfg.wnd) as i64,
            Variant::Fack => (self.cwnd.min(self.cfg.wnd) + self.wintrim) as i64,
        }
    }

    /// The same, unrounded (ns-2 `windowd()`).
    pub(super) fn windowd(&self) -> f64 {
        match self.cfg.variant {
            Variant::Reno | Variant::Newreno => (self.cwnd + self.dupwnd).min(self.cfg.wnd),
            _ => self.cwnd.min(self.cfg.wnd),
        }
    }

    // ----- output -----

    /// Queues segment `seqno` for transmission now (ns-2 `output`): RTT timing of new
    /// data, retransmission accounting, and the retransmission timer.
    pub(super) fn output(&mut self, seqno: i64, why: Why) {
        let force_timer = self.highest_ack == self.maxseq;
        let is_new = seqno > self.maxseq;
        let kind = if is_new {
            SendKind::New
        } else if why == Why::Auto && seqno <= self.rto_high {
            SendKind::RtoRtx
        } else {
            SendKind::FastRtx
        };
        let len = u64::from(self.cfg.map.len_of(seqno));
        if self.cfg.window.contains(self.now) {
            self.stats.data_packets_sent += 1;
            self.stats.data_bytes_sent += len;
            match kind {
                SendKind::New => self.stats.new_bytes_sent += len,
                SendKind::FastRtx => {
                    self.stats.retransmissions += 1;
                    self.stats.fast_retransmissions += 1;
                }
                SendKind::RtoRtx => {
                    self.stats.retransmissions += 1;
                    self.stats.timeout_retransmissions += 1;
                }
            }
        }
        // A paced segment is traced when it leaves (`transmit_segment`).
        if self.cfg.trace_sends && !self.cfg.pacing {
            self.events.push_back(EndpointEvent::Sent {
                seq: (seqno + 1) as u32,
                kind,
                dest: [0; 4],
            });
        }
        if self.cfg.pacing && kind != SendKind::New {
            // A paced sender's queue may hold up to a window of new data waiting for its
            // gaps; a retransmission goes before it (Linux sends its retransmission
            // queue first, `tcp_xmit_retransmit_queue`), after earlier ones.
            let at = self.out.iter().position(|&(_, k)| k == SendKind::New);
            self.out.insert(at.unwrap_or(self.out.len()), (seqno, kind));
        } else {
            self.out.push_back((seqno, kind));
        }
        if is_new {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = self.now;
                }
            }
        }
        if self.rtx_deadline.is_none() || force_timer {
            self.set_rtx_timer();
        }
    }

    /// Sends as much as the window allows (ns-2 `TcpAgent::send_much`), used by Reno
    /// and NewReno; Sack1 and Fack have their own.
    pub(super) fn send_much_basic(&mut self, maxburst: u32) {
        let mut win = self.window();
        let mut n = 0;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            let s = self.t_seqno;
            self.output(s, Why::Auto);
            self.t_seqno += 1;
            n += 1;
            win = self.window();
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// Limited transmit on the first and second duplicate ack (RFC 3042; ns-2
    /// `send_one`).
    pub(super) fn send_one(&mut self) {
        if (self.t_seqno as f64) <= self.highest_ack as f64 + self.cfg.wnd
            && self.t_seqno < self.curseq
            && (self.t_seqno as f64) <= self.highest_ack as f64 + self.cwnd + self.dupacks as f64
        {
            let s = self.t_seqno;
            self.output(s, Why::Auto);
            self.t_seqno += 1;
            self.limited_sent += 1;
        }
    }

    // ----- timers -----

    pub(super) fn set_rtx_timer(&mut self) {
        self.rtx_deadline = Some(self.now + self.rtt.timeout());
    }

    /// ns-2 `reset_rtx_timer(mild, backoff)`: re-arm, optionally back off, and for a
    /// non-mild reset go back to the first unacknowledged segment.
    pub(super) fn reset_rtx_timer(&mut self, mild: bool, backoff: bool) {
        if backoff {
            self.rtt.back_off();
        }
        self.set_rtx_timer();
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    /// Re-arms the timer (ns-2 `newtimer`), also when all is acked: it runs on while the
    /// connection idles, and restarts the window (`timeout_common`).
    pub(super) fn newtimer(&mut self, ackno: i64) {
        if self.t_seqno > ackno || ackno < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer();
        } else {
            self.rtx_deadline = None;
        }
    }

    /// An ack that advances the cumulative ack (ns-2 `newack`): RTT sample for the
    /// timed segment (Karn: cleared whenever a retransmission intervenes), timer.
    pub(super) fn newack(&mut self, ackno: i64) {
        self.dupacks = 0;
        self.limited_sent = 0;
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < self.last_ack + 1 {
            self.t_seqno = self.last_ack + 1;
        }
        if self.rtt_active && ackno >= self.rtt_seq {
            self.rtt.backoff = 1;
            self.rtt_active = false;
            let sample = self.now.saturating_since(self.rtt_ts).as_secs_f64();
            self.rtt.update(sample, self.rtt_ts.as_secs_f64());
        }
        self.newtimer(ackno);
        self.check_all_acked();
    }

    /// New ack outside recovery: `newack` then open the window (ns-2
    /// `recv_newack_helper`).
    pub(super) fn recv_newack_helper(&mut self, ackno: i64) {
        let acked = ackno - self.last_ack;
        self.newack(ackno);
        self.rules_open(acked);
        // ns-2's `delay_growth_` keeps the window shut on the ack of its segment 0, the
        // SYN when `syn_` is on. With a handshake our SYN-ACK already leaves cwnd at the
        // initial window, so the first data ack must grow it: applying the rule again
        // here would delay growth twice.
        if self.last_ack == 0
            && self.cfg.delay_growth
            && !self.cfg.handshake
            && self.cfg.variant != Variant::Fack
        {
            self.cwnd = self.cfg.initial_window;
        }
    }

    /// Retransmission timeout shared by all variants (ns-2 `TcpAgent::timeout`).
    pub(super) fn timeout_common(&mut self) {
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        let outstanding = self.highest_ack != self.maxseq;
        self.recover = self.maxseq;
        if !outstanding {
            // Idle: restart the window, keep ssthresh (ns-2.35's `slow_start_restart_`;
            // RFC 5681 sec. 4.1 restarts at min(IW, cwnd) when sending resumes).
            self.cwnd = 1.0;
        } else {
            self.count_timeout();
            self.last_cwnd_action = CwndAction::Timeout;
            self.slowdown(Congestion::Timeout, CwndAfter::One);
        }
        self.reset_rtx_timer(false, outstanding);
        self.last_cwnd_action = CwndAction::Timeout;
        self.mark_rto();
    }

    pub(super) fn count_timeout(&mut self) {
        if self.cfg.window.contains(self.now) {
            self.stats.timeouts += 1;
        }
    }

    /// Retransmissions of what was outstanding at this timeout are go-back-N.
    pub(super) fn mark_rto(&mut self) {
        self.rto_high = self.maxseq;
    }

    /// Called when a fast retransmission starts, so later retransmissions count as
    /// ack-driven.
    pub(super) fn entering_fast_recovery(&mut self) {
        self.rto_high = -1;
    }

    fn trace_ack(&mut self, cum: i64, blocks: &[(i64, i64)], rwnd: u16) {
        if self.cfg.trace_acks {
            let gaps = blocks
                .iter()
                .map(|&(l, r)| ((l + 1) as u32, r as u32))
                .collect();
            self.events.push_back(EndpointEvent::AckReceived {
                cum_ack: (cum + 1) as u32,
                gaps,
                dups: self.dupacks.max(0) as u32,
                rwnd_bytes: u64::from(rwnd),
            });
        }
    }

    fn start_app(&mut self) {
        self.app_begin();
        if self.cfg.handshake {
            self.phase = Phase::SynSent { retries: 0 };
            self.syn_sent_at = self.now;
            self.send_syn();
        } else {
            self.phase = Phase::Established;
            self.app_write(-1);
            self.send_much();
        }
    }

    /// Sends (or resends) the SYN under the retransmission timer's current value: the
    /// initial RTO, doubled per expiry (ns-2.35 times its SYN, segment 0, like data).
    fn send_syn(&mut self) {
        self.out.push_back((-1, SendKind::New));
        self.syn_deadline = Some(self.now + self.rtt.timeout());
    }

    /// The variant's sending rule.
    pub(super) fn send_much(&mut self) {
        match self.cfg.variant {
            Variant::Reno | Variant::Newreno => self.send_much_basic(self.cfg.max_burst),
            Variant::Sack => self.send_much_sack1(self.cfg.max_burst),
            Variant::Fack => self.send_much_fack(self.cfg.max_burst),
        }
    }
}

impl TcpSender {
    /// Writes segment `seqno` into `pkt` (`poll_transmit`).
    fn transmit_segment(
        &mut self,
        now: SimTime,
        seqno: i64,
        kind: SendKind,
        pkt: &mut Packet,
    ) -> bool {
        let retransmission = seqno >= 0 && kind != SendKind::New;
        let map = self.cfg.map;
        let mut options = TcpOptions::default();
        let (seq, flags, payload) = if seqno < 0 {
            options.mss = Some(map.mss.min(u64::from(u16::MAX)) as u16);
            options.sack_permitted = self.cfg.sack_permitted;
            (map.iss, TcpFlags::SYN | self.ecn.syn_flags(), 0)
        } else {
            let (ect, extra) = self.ecn.on_data_segment(kind == SendKind::New);
            pkt.ip.ecn = ect;
            (
                map.seq_of_segment(seqno),
                TcpFlags::ACK | extra,
                map.len_of(seqno),
            )
        };
        pkt.transport = TransportRepr::Tcp(TcpRepr {
            src_port: self.cfg.ports.0,
            dst_port: self.cfg.ports.1,
            seq,
            ack: if seqno < 0 { 0 } else { 1 },
            flags,
            window: 65_535,
            options,
        });
        pkt.payload_len = payload;
        pkt.kind = if seqno < 0 {
            PacketKind::Control
        } else {
            PacketKind::Data
        };
        pkt.data_num = if seqno < 0 { 0 } else { (seqno + 1) as u32 };
        pkt.ack_num = 0;
        pkt.retransmission = retransmission;
        pkt.ts_echo = now;
        pkt.finalize();
        if seqno >= 0 {
            self.after_transmit(now, seqno, kind, f64::from(pkt.size));
        }
        true
    }
}

impl Endpoint for TcpSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        self.now = now;
        let TransportRepr::Tcp(tcp) = &pkt.transport else {
            return;
        };
        if tcp.flags.contains(TcpFlags::SYN) {
            if let Phase::SynSent { retries } = self.phase {
                self.ecn.on_syn_ack(tcp.flags);
                self.phase = Phase::Established;
                self.syn_deadline = None;
                if retries == 0 {
                    // The SYN's round trip is the first RTT sample (RFC 6298 sec. 2.2;
                    // ns-2.35 `newack` times segment 0, the SYN, with `syn_ true`), so a
                    // first data loss waits about 3 RTT, not the 3 s initial RTO. Karn: a
                    // resent SYN gives no sample, and its backoff stays in force for the
                    // data, as in ns-2.35 (RFC 6298 sec. 5.7 would restart at 3 s).
                    let sample = now.saturating_since(self.syn_sent_at).as_secs_f64();
                    self.rtt.update(sample, self.syn_sent_at.as_secs_f64());
                    self.rtt.backoff = 1;
                }
                self.stats.connect_time = Some(now.saturating_since(self.cfg.start));
                self.app_write(self.highest_ack);
                self.send_much();
            }
            return;
        }
        if self.phase != Phase::Established || !tcp.flags.contains(TcpFlags::ACK) {
            return;
        }
        let map = self.cfg.map;
        let near = ((self.highest_ack + 1).max(0) as u64) * map.mss;
        let cum = map.cum_segment(map.offset(tcp.ack, near));
        let mut blocks = [(0i64, 0i64); 4];
        let mut n = 0;
        for (l, r) in tcp.options.sack.iter() {
            let lo = map.segment_at(map.offset(l, near));
            let ro = map.offset(r, near);
            blocks[n] = (lo, ro.div_ceil(map.mss) as i64);
            n += 1;
        }
        let blocks = &blocks[..n];
        if self.cfg.window.contains(now) {
            self.stats.acks_received += 1;
        }
        self.ack_echo = pkt.ts_echo;
        // The flight before the ack is BBR's input only, and read only in two ProbeBW
        // phases: other acks skip the estimate (during SACK recovery a scoreboard pass).
        let prior_flight = if self.rate.is_some() && self.cc.reads_prior_in_flight() {
            self.flight_estimate()
        } else {
            0
        };
        let prior_ack = self.highest_ack;
        // An ECE that will cut the window keeps this ack from growing it first.
        self.ecn.hold = self.ecn.wants_cut(tcp.flags, cum, cum > prior_ack, false);
        if self.messages.is_some() && cum > prior_ack {
            // The ack frees room in the send buffer before the sender looks at it.
            self.app_write(cum);
        }
        match self.cfg.variant {
            Variant::Reno => self.recv_reno(cum),
            Variant::Newreno => self.recv_newreno(cum),
            Variant::Sack => self.recv_sack1(cum, blocks),
            Variant::Fack => self.recv_fack(cum, blocks, pkt.ts_echo),
        }
        self.rate_sample(prior_ack, prior_flight, blocks);
        self.answer_ece(tcp.flags, cum, prior_ack);
        self.trace_ack(cum, blocks, tcp.window);
    }

    fn handle_timeout(&mut self, now: SimTime) {
        self.now = now;
        if self.phase == Phase::Idle && now >= self.cfg.start {
            self.start_app();
            return;
        }
        self.app_stop_at(now);
        if self.syn_deadline.is_some_and(|t| now >= t) {
            if let Phase::SynSent { retries } = self.phase {
                self.phase = Phase::SynSent {
                    retries: retries + 1,
                };
                self.rtt.back_off();
                self.send_syn();
            }
        }
        if self.rtx_deadline.is_some_and(|t| now >= t) {
            self.rtx_deadline = None;
            self.timeout();
        }
        if self.app_write(self.highest_ack) {
            self.send_much();
        }
    }

    // Inlined, so that the last call of every service (nothing queued) costs a load
    // instead of a call into `transmit_segment`.
    #[inline]
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        if self.cfg.pacing && now < self.next_send && !self.out.is_empty() {
            return false;
        }
        match self.out.pop_front() {
            Some((seqno, kind)) => self.transmit_segment(now, seqno, kind, pkt),
            None => false,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let mut next = None::<SimTime>;
        let mut consider = |t: Option<SimTime>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        if self.phase == Phase::Idle {
            consider(Some(self.cfg.start));
        }
        consider(self.app_wakeup());
        consider(self.syn_deadline);
        consider(self.rtx_deadline);
        if self.cfg.pacing && !self.out.is_empty() {
            consider(Some(self.next_send));
        }
        next
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn is_done(&self) -> bool {
        self.stats.all_acked_at.is_some()
    }

    fn sample(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd", self.cwnd);
        out("ssthresh", self.ssthresh);
        let flight = (self.maxseq - self.highest_ack).max(0) as f64;
        out("flight", flight);
        if self.cfg.variant == Variant::Sack && self.fastrecov {
            out("pipe", self.pipe as f64);
        }
        if self.cfg.pacing {
            let w = WindowState {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
            };
            let smss = self.cfg.map.mss as f64;
            if let Some(r) = self.cc.pacing_rate(&w, smss, self.rtt.srtt_s()) {
                // Bits per second, as the summary's rates.
                out("pacing_rate", 8.0 * r);
            }
        }
    }
}

impl TcpSender {
    pub fn start_time(&self) -> SimTime {
        self.cfg.start
    }

    pub fn variant_name(&self) -> &'static str {
        self.cfg.variant.name()
    }
}
