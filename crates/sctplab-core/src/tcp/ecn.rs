//! TCP's ECN (RFC 3168 sec. 6.1) for a flow with `ecn = true`: the negotiation on the
//! SYN and SYN-ACK, ECT(0) on new data segments, the receiver's ECN-Echo (ECE) until
//! the sender's CWR, and the sender's answer to ECE: a window cut as for a loss, once
//! per window of data, with no retransmission. docs/models/aqm.md ("ECN") gives each
//! rule's source and where ours differs from ns-3.37's `TcpSocketBase` and Linux.
//!
//! The state lives here; `sender.rs` and `receiver.rs` call in at a few points (the
//! SYN's flags, a segment's ECN field and flags, an arriving ack or segment).

use super::TcpSender;
use crate::cc::{Congestion, Controller, CwndAfter};
use crate::net::aqm::{CE, ECT0};
use crate::net::wire::TcpFlags;

/// The sender's ECN state.
#[derive(Clone, Debug, Default)]
pub(super) struct SenderEcn {
    /// The flow is ECN-capable (`ecn = true`): the SYN asks for ECN.
    pub capable: bool,
    /// ECN is in use on the connection: negotiated (RFC 3168 sec. 6.1.1), or assumed
    /// from `capable` when there is no handshake (ns-2's one-way agents).
    pub on: bool,
    /// Highest segment sent when the window was last cut for an ECE (-1: never): ECEs
    /// on acks up to it belong to the same window of data and are not answered again
    /// (ns-3.37's `m_recover` on entering `CA_CWR`, Linux's `high_seq`).
    pub high: i64,
    /// A cut was made: the next new data segment carries CWR (sec. 6.1.2).
    pub cwr_pending: bool,
    /// Window cuts made for ECEs in the measurement window (summary `ecn_reductions`).
    pub reductions: u64,
    /// The ack being processed carries an ECE that will cut the window: it does not
    /// grow it first (ns-3.37 enters `CA_CWR` before processing the ack).
    pub hold: bool,
}

impl SenderEcn {
    pub fn new(capable: bool, handshake: bool) -> Self {
        SenderEcn {
            capable,
            on: capable && !handshake,
            high: -1,
            cwr_pending: false,
            reductions: 0,
            hold: false,
        }
    }

    /// The flags an ECN-setup SYN adds (sec. 6.1.1: ECE and CWR).
    pub fn syn_flags(&self) -> TcpFlags {
        if self.capable {
            TcpFlags::ECE | TcpFlags::CWR
        } else {
            TcpFlags::empty()
        }
    }

    /// The SYN-ACK came: ECN is on if this end asked for it and the SYN-ACK is an
    /// ECN-setup SYN-ACK (ECE set, CWR clear, sec. 6.1.1).
    pub fn on_syn_ack(&mut self, flags: TcpFlags) {
        self.on = self.capable && flags.contains(TcpFlags::ECE) && !flags.contains(TcpFlags::CWR);
    }

    /// The ECN field and extra flags of an outgoing data segment: ECT(0) on new data
    /// only (sec. 6.1.5: not on retransmissions; pure acks are the receiver's, sec.
    /// 6.1.4), and CWR on the first new data segment after a cut (sec. 6.1.2).
    pub fn on_data_segment(&mut self, new_data: bool) -> (u8, TcpFlags) {
        if !self.on || !new_data {
            return (0, TcpFlags::empty());
        }
        let flags = if std::mem::take(&mut self.cwr_pending) {
            TcpFlags::CWR
        } else {
            TcpFlags::empty()
        };
        (ECT0, flags)
    }

    /// Whether an ack with these flags, covering segments up to `cum` (it newly acked
    /// something: `new_ack`), asks for a window cut now. ns-3.37 answers only an ECE on
    /// an ack that advances the cumulative ack, and not while a previous answer's window
    /// is still being acknowledged; `in_loss_window` (the ack does not reach past the
    /// segments outstanding at the last loss cut, or recovery is in progress) stands for
    /// Linux's rule that `tcp_enter_cwr` acts only from the Open and Disorder states:
    /// the window of data already had its cut (RFC 3168 sec. 6.1.2, once per window).
    pub fn wants_cut(
        &self,
        flags: TcpFlags,
        cum: i64,
        new_ack: bool,
        in_loss_window: bool,
    ) -> bool {
        self.on && new_ack && flags.contains(TcpFlags::ECE) && cum > self.high && !in_loss_window
    }

    /// A cut was made with `maxseq` the highest segment sent; `counted`: in the
    /// measurement window.
    pub fn cut_made(&mut self, maxseq: i64, counted: bool) {
        self.high = maxseq;
        self.cwr_pending = true;
        self.reductions += u64::from(counted);
    }

    /// Whether the window of data cut for an ECE is still being acknowledged (the
    /// cumulative ack is at `highest_ack`): cwnd does not grow then. ns-3.37 runs only
    /// its recovery algorithm on acks in `CA_CWR` (no `IncreaseWindow`) and Linux does
    /// not raise cwnd while in CWR (`tcp_cong_control`).
    pub fn in_cut_window(&self, highest_ack: i64) -> bool {
        self.hold || self.on && self.high >= 0 && highest_ack <= self.high
    }

    /// Whether a loss found with the cumulative ack at `highest_ack` falls in the window
    /// of data an ECE already cut: then the retransmission goes out without a second
    /// cut (sec. 6.1.2: "the TCP source should not decrease the slow-start threshold,
    /// ssthresh, if it has been decreased within the last round trip time"; Linux's
    /// `tcp_enter_recovery` keeps ssthresh while in CWR, ns-2.35's `ecn()` /
    /// `dupack_action` likewise).
    pub fn loss_in_cut_window(&self, highest_ack: i64) -> bool {
        self.on && self.high >= 0 && highest_ack < self.high
    }
}

impl TcpSender {
    /// Makes the sender ECN-capable (the flow's `ecn`): it negotiates ECN on its SYN
    /// (or, without a handshake, assumes the receiver is capable too).
    pub fn set_ecn(&mut self, capable: bool) {
        self.ecn = SenderEcn::new(capable, self.cfg.handshake);
    }

    /// Window cuts made for ECN-Echo acks in the measurement window; `None` for a
    /// sender that is not ECN-capable.
    pub fn ecn_reductions(&self) -> Option<u64> {
        self.ecn.capable.then_some(self.ecn.reductions)
    }

    /// RFC 3168 sec. 6.1.2: an ECN-Echo on an ack cuts the window as a loss would (the
    /// controller's fast-retransmit cut), once per window of data, and retransmits
    /// nothing. After the variant's own processing of the ack (which did not grow the
    /// window: `SenderEcn::hold`), so that the flight is the one after the ack and a
    /// loss recovery this ack started is seen (`recover` then covers the ack).
    pub(super) fn answer_ece(&mut self, flags: TcpFlags, cum: i64, prior_ack: i64) {
        self.ecn.hold = false;
        let in_loss_window = cum <= self.recover || self.fastrecov;
        if self
            .ecn
            .wants_cut(flags, cum, cum > prior_ack, in_loss_window)
        {
            // BBR v1 sets its window from its model and ignores the CWR state (Linux
            // `tcp_cong_control` runs `bbr_main` instead of the CWR reduction); the
            // CWR flag still goes out.
            let bbr = matches!(self.cc, Controller::Bbr(_));
            if !bbr {
                self.slowdown(Congestion::FastRetransmit, CwndAfter::Reduce);
            }
            let counted = !bbr && self.cfg.window.contains(self.now);
            self.ecn.cut_made(self.maxseq, counted);
        }
    }
}

/// The receiver's ECN state.
#[derive(Clone, Debug, Default)]
pub(super) struct ReceiverEcn {
    pub capable: bool,
    pub on: bool,
    /// A CE-marked segment came and no CWR since: every ack carries ECE (sec. 6.1.3).
    pub echo: bool,
}

impl ReceiverEcn {
    pub fn new(capable: bool, handshake: bool) -> Self {
        ReceiverEcn {
            capable,
            on: capable && !handshake,
            echo: false,
        }
    }

    /// A SYN came: ECN is on if both ends want it (an ECN-setup SYN has ECE and CWR,
    /// sec. 6.1.1); the flags the SYN-ACK adds (ECE alone).
    pub fn on_syn(&mut self, flags: TcpFlags) -> TcpFlags {
        self.on = self.capable && flags.contains(TcpFlags::ECE | TcpFlags::CWR);
        if self.on {
            TcpFlags::ECE
        } else {
            TcpFlags::empty()
        }
    }

    /// A data segment with these flags and this IP ECN field came. Returns true when it
    /// starts an echo (a CE after none pending): the receiver then acks at once, as
    /// Linux enters quick-ack mode on CE (`tcp_ecn_check_ce`); RFC 3168 leaves the ack
    /// timing alone. A CWR ends the echo before the segment's own CE is looked at, so a
    /// CE-marked CWR segment starts a new one (Linux `tcp_ecn_accept_cwr` then
    /// `tcp_ecn_check_ce`).
    pub fn on_segment(&mut self, flags: TcpFlags, ecn: u8) -> bool {
        if !self.on {
            return false;
        }
        if flags.contains(TcpFlags::CWR) {
            self.echo = false;
        }
        if ecn == CE && !self.echo {
            self.echo = true;
            return true;
        }
        false
    }

    /// The flag an ack carries.
    pub fn ack_flags(&self) -> TcpFlags {
        if self.echo {
            TcpFlags::ECE
        } else {
            TcpFlags::empty()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Algorithm;
    use crate::endpoint::Endpoint;
    use crate::metrics::Window;
    use crate::net::Packet;
    use crate::net::wire::TransportRepr;
    use crate::sim::{SimDuration, SimTime};
    use crate::tcp::{
        CongestionRules, ReceiverCfg, SenderCfg, SeqMap, TcpReceiver, TcpSender, Variant,
    };

    /// A sender and a receiver of a SACK flow with the handshake, ECN as given; the
    /// window rules are ns-2's (`"reno"`, `precision_reduce`), the flow's defaults.
    fn pair(sender_ecn: bool, receiver_ecn: bool) -> (TcpSender, TcpReceiver) {
        let map = SeqMap {
            iss: 0,
            mss: 1000,
            total: None,
        };
        let ports = (1000, 2000);
        let sc = SenderCfg {
            variant: Variant::Sack,
            ports,
            map,
            wnd: 100.0,
            initial_window: 2.0,
            initial_ssthresh: 100.0,
            numdupacks: 3,
            limited_transmit: false,
            delay_growth: true,
            rules: CongestionRules {
                slow_start_at_ssthresh: false,
                precision_reduce: true,
                flight_based_cut: false,
            },
            congestion_control: Algorithm::Reno,
            hystart: false,
            pacing: false,
            partial_window_deflation: false,
            reset_timer_first_partial_only: false,
            max_burst: 0,
            rto_initial: SimDuration::from_secs(3),
            rto_min: SimDuration::from_millis(200),
            rto_max: SimDuration::from_secs(60),
            tick: SimDuration::from_millis(10),
            handshake: true,
            sack_permitted: true,
            start: SimTime::ZERO,
            stop: None,
            window: Window::ALL,
            trace_sends: false,
            trace_acks: false,
        };
        let rc = ReceiverCfg {
            ports,
            map,
            sack: true,
            max_sack_blocks: 3,
            delayed_ack: None,
            window: Window::ALL,
            start: SimTime::ZERO,
        };
        let mut snd = TcpSender::new(sc);
        snd.set_ecn(sender_ecn);
        let mut rcv = TcpReceiver::new(rc);
        rcv.set_ecn(receiver_ecn, true);
        (snd, rcv)
    }

    fn flags(p: &Packet) -> TcpFlags {
        match &p.transport {
            TransportRepr::Tcp(t) => t.flags,
            _ => TcpFlags::empty(),
        }
    }

    /// Everything `ep` wants to send now.
    fn drain(ep: &mut dyn Endpoint, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        loop {
            let mut p = Packet::default();
            if !ep.poll_transmit(now, &mut p) {
                return out;
            }
            out.push(p);
        }
    }

    /// One round trip over a lossless path: the sender's packets (those numbered in
    /// `ce` arrive marked CE if they are ECT) to the receiver, its acks back. Returns
    /// both sides' packets.
    fn round(
        s: &mut TcpSender,
        r: &mut TcpReceiver,
        t: &mut u64,
        ce: &[u32],
    ) -> (Vec<Packet>, Vec<Packet>) {
        *t += 10;
        let now = SimTime::from_nanos(*t * 1_000_000);
        s.handle_timeout(now);
        let mut sent = drain(s, now);
        let mut acks = Vec::new();
        for p in &mut sent {
            // A discipline marks only ECN-capable packets.
            if ce.contains(&p.data_num) && p.ip.ecn == ECT0 {
                p.ip.ecn = CE;
            }
            // The receiver answers each packet as it comes, as the world polls it.
            r.handle_packet(now, p);
            acks.extend(drain(r, now));
        }
        *t += 10;
        let now = SimTime::from_nanos(*t * 1_000_000);
        for a in &acks {
            s.handle_packet(now, a);
        }
        (sent, acks)
    }

    #[test]
    fn negotiation_needs_both_ends() {
        // RFC 3168 sec. 6.1.1: ECN-setup SYN (ECE+CWR), ECN-setup SYN-ACK (ECE only).
        let mut s = SenderEcn::new(true, true);
        assert!(!s.on, "not before the SYN-ACK");
        assert_eq!(s.syn_flags(), TcpFlags::ECE | TcpFlags::CWR);
        let mut r = ReceiverEcn::new(true, true);
        let synack = r.on_syn(s.syn_flags());
        assert!(r.on);
        s.on_syn_ack(synack | TcpFlags::SYN | TcpFlags::ACK);
        assert!(s.on);

        // A receiver that is not ECN-capable answers without ECE: off at both ends.
        let mut s = SenderEcn::new(true, true);
        let mut r = ReceiverEcn::new(false, true);
        let synack = r.on_syn(s.syn_flags());
        assert!(!r.on);
        s.on_syn_ack(synack | TcpFlags::SYN | TcpFlags::ACK);
        assert!(!s.on);
        assert_eq!(s.on_data_segment(true), (0, TcpFlags::empty()));

        // A sender that is not ECN-capable sends a plain SYN: the receiver stays off.
        let s = SenderEcn::new(false, true);
        let mut r = ReceiverEcn::new(true, true);
        assert!(r.on_syn(s.syn_flags()).is_empty());
        assert!(!r.on_segment(TcpFlags::ACK, CE));
        assert!(r.ack_flags().is_empty());

        // A SYN-ACK with both ECE and CWR is not an ECN-setup SYN-ACK (sec. 6.1.1).
        let mut s = SenderEcn::new(true, true);
        s.on_syn_ack(TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE | TcpFlags::CWR);
        assert!(!s.on);
    }

    #[test]
    fn echo_lasts_until_cwr() {
        // Sec. 6.1.3: ECE on every ack after a CE until a CWR segment arrives.
        let mut r = ReceiverEcn::new(true, false);
        assert!(!r.on_segment(TcpFlags::ACK, ECT0));
        assert!(r.ack_flags().is_empty());
        assert!(r.on_segment(TcpFlags::ACK, CE), "a new echo starts");
        assert_eq!(r.ack_flags(), TcpFlags::ECE);
        assert!(!r.on_segment(TcpFlags::ACK, CE), "already echoing");
        assert!(!r.on_segment(TcpFlags::ACK, ECT0));
        assert_eq!(r.ack_flags(), TcpFlags::ECE, "still echoing without CWR");
        assert!(!r.on_segment(TcpFlags::ACK | TcpFlags::CWR, ECT0));
        assert!(r.ack_flags().is_empty(), "CWR ends the echo");
        // A CE-marked CWR segment: the CWR ends the old echo, its CE starts a new one.
        r.on_segment(TcpFlags::ACK, CE);
        assert!(r.on_segment(TcpFlags::ACK | TcpFlags::CWR, CE));
        assert_eq!(r.ack_flags(), TcpFlags::ECE);
    }

    #[test]
    fn ect_on_new_data_only_and_cwr_once() {
        let mut s = SenderEcn::new(true, false);
        assert_eq!(s.on_data_segment(true), (ECT0, TcpFlags::empty()));
        // Sec. 6.1.5: a retransmission leaves Not-ECT and does not carry the CWR.
        s.cut_made(10, true);
        assert_eq!(s.on_data_segment(false), (0, TcpFlags::empty()));
        assert_eq!(s.on_data_segment(true), (ECT0, TcpFlags::CWR));
        assert_eq!(s.on_data_segment(true), (ECT0, TcpFlags::empty()));
    }

    #[test]
    fn one_cut_per_window() {
        let mut s = SenderEcn::new(true, false);
        let ece = TcpFlags::ACK | TcpFlags::ECE;
        // ECE on a duplicate ack (no new data acked) is not answered (ns-3.37).
        assert!(!s.wants_cut(ece, 4, false, false));
        assert!(s.wants_cut(ece, 4, true, false));
        // Segments 0..=20 were out when the cut was made.
        s.cut_made(20, true);
        assert!(!s.wants_cut(ece, 12, true, false));
        assert!(!s.wants_cut(ece, 20, true, false));
        // The first ack past segment 20 opens the next window.
        assert!(s.wants_cut(ece, 21, true, false));
        // Not inside a loss recovery's window.
        assert!(!s.wants_cut(ece, 21, true, true));
        // No growth while the cut window is acknowledged.
        assert!(s.in_cut_window(20) && !s.in_cut_window(21));
        // A loss in the cut window is not cut again; one past it is.
        assert!(s.loss_in_cut_window(15));
        assert!(!s.loss_in_cut_window(20));
        assert_eq!(s.reductions, 1);
    }

    /// The machines together: negotiation on the handshake, ECT(0) data, the echo until
    /// CWR, one cut per window, and no retransmission for a mark (RFC 3168 sec. 6.1).
    #[test]
    fn a_mark_cuts_once_and_retransmits_nothing() {
        let (mut s, mut r) = pair(true, true);
        let mut t = 0;
        // SYN (ECE+CWR) and SYN-ACK (ECE).
        let (syn, synack) = round(&mut s, &mut r, &mut t, &[]);
        assert_eq!(
            flags(&syn[0]),
            TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR
        );
        assert_eq!(
            flags(&synack[0]),
            TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE
        );
        assert!(s.ecn.on && r.ecn.on);
        // Slow start until segment 40 is out; every data segment is ECT(0).
        let mut last = 0;
        while last < 40 {
            let (sent, acks) = round(&mut s, &mut r, &mut t, &[]);
            assert!(
                sent.iter()
                    .all(|p| p.ip.ecn == ECT0 && flags(p) == TcpFlags::ACK)
            );
            assert!(
                acks.iter()
                    .all(|a| flags(a) == TcpFlags::ACK && a.ip.ecn == 0)
            );
            last = sent.iter().map(|p| p.data_num).max().unwrap_or(last);
        }
        let before = s.cwnd();
        // Two segments of the next window are marked: the acks from the first on carry
        // ECE.
        let (sent, acks) = round(&mut s, &mut r, &mut t, &[last + 3, last + 6]);
        let n = sent.len();
        assert!(n > 6);
        let ece: Vec<bool> = acks
            .iter()
            .map(|a| flags(a).contains(TcpFlags::ECE))
            .collect();
        assert_eq!(ece.iter().filter(|&&e| e).count(), n - 2, "{ece:?}");
        // One cut for the window (the second mark is in it): the two acks before the
        // ECE grew cwnd by one segment each (slow start), the ECE ack itself does not;
        // ns-2's rules (the flow's defaults) halve that window, ssthresh in whole
        // segments. The window then stays frozen until the round is acknowledged.
        assert_eq!(s.ecn.reductions, 1);
        let cut = (before + 2.0) / 2.0;
        assert_eq!((s.cwnd(), s.ssthresh()), (cut, cut.floor()));
        // The first new data segment after the cut carries CWR, the later ones do not;
        // nothing is retransmitted; the CWR ends the echo.
        let (sent, acks) = round(&mut s, &mut r, &mut t, &[]);
        assert_eq!(flags(&sent[0]), TcpFlags::ACK | TcpFlags::CWR);
        assert!(sent[1..].iter().all(|p| flags(p) == TcpFlags::ACK));
        assert!(sent.iter().all(|p| !p.retransmission && p.ip.ecn == ECT0));
        assert!(acks.iter().all(|a| !flags(a).contains(TcpFlags::ECE)));
        assert_eq!(s.ecn.reductions, 1);
        // A mark on a segment sent after the cut is congestion in a new window: cut
        // again (once per window, not once in all).
        let next = s.out.front().map_or(0, |&(seq, _)| seq as u32 + 1);
        round(&mut s, &mut r, &mut t, &[next]);
        assert_eq!(s.ecn.reductions, 2);
        assert_eq!(s.stats.retransmissions, 0);
    }

    /// A receiver that is not ECN-capable: no ECT, no ECE, no cut.
    #[test]
    fn without_a_capable_receiver_nothing_is_marked_or_cut() {
        let (mut s, mut r) = pair(true, false);
        let mut t = 0;
        round(&mut s, &mut r, &mut t, &[]);
        assert!(!s.ecn.on && !r.ecn.on);
        for k in 0..5 {
            let (sent, acks) = round(&mut s, &mut r, &mut t, &[k * 3 + 1]);
            assert!(sent.iter().all(|p| p.ip.ecn == 0));
            assert!(acks.iter().all(|a| !flags(a).contains(TcpFlags::ECE)));
        }
        assert_eq!(s.ecn.reductions, 0);
    }
}
