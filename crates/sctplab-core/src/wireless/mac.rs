//! The IEEE 802.11 DCF MAC of one wireless NIC, as ns-2.35's `Mac/802_11` behaves
//! (mac/mac-802_11.{h,cc}, mac/mac-timers.cc) in ad hoc mode, as a sans-IO machine, with
//! ns-2's interface queue (`ifq.rs`) in front of it.
//!
//! # Driving it
//!
//! - `enqueue(now, ..)`: a packet from the node for this NIC (ns-2: LL -> IFQ). The MAC
//!   pulls packets from its queue itself, exactly when ns-2's MAC invokes its callback
//!   (inside `tx_resume`, before the transmit state returns to idle).
//! - `rx_start(now, frame, power, decodable)`: the first bit of a frame reaches this NIC
//!   (the channel calls it at transmission start + propagation delay, only for NICs where
//!   the power is at least CSThresh; `decodable` = power >= RXThresh). The MAC times the
//!   end of the reception itself (the frame's airtime), like ns-2's `mhRecv_`.
//! - `handle_timeout(now)` when `poll_timeout()` is due.
//! - After every input: drain `poll_transmit()` (frames that start on the air at `now`)
//!   and `poll_event()`.
//! - After handling a `Failed` event (routing's link-failure handler, which may purge
//!   the queue): `resume_after_failure(now)`, then drain again. ns-2 runs the failure
//!   callback before the MAC takes its next packet from the queue.
//!
//! # Packet ownership
//!
//! The MAC carries `PacketId`s only. From `enqueue` the packet is the MAC's until it
//! reports `Sent` (acked, or broadcast finished), `Failed` (retry limit; the world hands
//! it to routing's link-failure handler, which may re-queue or drop it) or `Dropped`
//! (interface queue overflow). `Received { packet }` at a receiver names the *sender's*
//! packet, which the sender still owns (it may retransmit it): the world copies it for
//! the receiver. Frames dropped at a receiver (collision, error, duplicate) are only
//! counted, never reported, since the receiver owns nothing.
//!
//! # Where ns-2's rules live
//!
//! Every timer of ns-2's MAC is a deadline here (defer, backoff with pause/resume, NAV,
//! receive, send timeout, interface/end-of-transmission). Timers due at the same instant
//! fire in the order they were started, as ns-2's scheduler orders equal-time events.
//! Function names follow ns-2's where the logic is ns-2's (`tx_resume`, `check_pkt_rts`,
//! ...), so each rule can be read against mac-802_11.cc.
//!
//! This file holds the state and the entry points above; `mac/dcf.rs` the DCF rules
//! (backoff, NAV, timer handlers, transmission, reception), `mac/cfg.rs` the parameters,
//! events and counters. `mac/fast.rs` holds the crate-private shortcuts the world's
//! accelerators take (`Mac::mode`), which must leave the state these rules leave.
//!
//! # ns-2 behaviours kept on purpose
//!
//! - No access after a bare DIFS: with `bugFix_timer_` a packet that finds the medium
//!   idle and no backoff running still waits DIFS + `random % cw` slots (`send()`); after
//!   every exchange, timeout or broadcast `tx_resume` / `recvACK` / `RetransmitDATA`
//!   start a new backoff the same way. Only CTS, ACK and the DATA after a CTS go out
//!   after SIFS without a backoff.
//! - EIFS is a NAV of EIFS set when an errored or collided reception ends; the backoff
//!   then resumes after a further DIFS (so EIFS + DIFS in all), colliders included.
//! - A capture sets the NAV to EIFS + the ignored frame's airtime, which also stops a
//!   CTS to the captured RTS (CTS needs an idle medium).
//! - If a CTS is dropped because the medium is busy while the station's own RTS waits
//!   with no backoff running (its backoff expired during the SIFS before the CTS, or
//!   the packet arrived during that SIFS), nothing restarts the station's access until
//!   an RTS or DATA addressed to it arrives (ns-2's `check_pktCTRL` schedules nothing).

use std::collections::VecDeque;

use crate::net::PacketId;
use crate::sim::{EventKey, RngStream, SimDuration, SimTime};

use super::cmu_priqueue::Band;
use super::frame::{Frame, FrameKind, MacAddr};
use super::ifq::{Ifq, IfqEntry};

mod cfg;
mod dcf;
/// The fast paths the world's accelerators use (crate-private), behind `Mac::mode`.
pub(crate) mod fast;

use cfg::usec;
pub use cfg::{DropReason, MacCfg, MacCounters, MacEvent};

#[cfg(test)]
mod bianchi;
#[cfg(test)]
mod differential;
#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

/// ns-2's `tx_state_` values used in ad hoc mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TxState {
    Idle,
    Rts,
    Cts,
    Send,
    Ack,
}

/// ns-2's `rx_state_`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RxState {
    Idle,
    Recv,
    Coll,
}

/// The frame being received (`pktRx_`), its power and error flag.
#[derive(Copy, Clone, Debug)]
struct RxFrame {
    frame: Frame,
    power: f64,
    error: bool,
}

const DEFER: usize = 0;
const BACKOFF: usize = 1;
const NAV: usize = 2;
const RECV: usize = 3;
const SEND: usize = 4;
const IF: usize = 5;
const N_TIMERS: usize = 6;
/// A running timer is one `EventKey`: its deadline and its start order (to fire
/// equal-time timers as ns-2's scheduler would), so the minimum is the next to fire.
/// `NO_TIMER` when stopped.
const NO_TIMER: EventKey = EventKey::NONE;

/// Whether the timer with key `k` is due at `now` (its deadline is not later). One
/// comparison of the deadline's half of the key: a stopped timer (`NO_TIMER`) has the
/// deadline `SimTime::MAX`, which no input time reaches.
#[inline]
fn due(k: EventKey, now: SimTime) -> bool {
    debug_assert!(now < SimTime::MAX);
    k.time_nanos() <= now.as_nanos()
}

/// ns-2's `BackoffTimer` state besides its deadline.
#[derive(Copy, Clone, Debug, Default)]
struct Backoff {
    busy: bool,
    paused: bool,
    stime: SimTime,
    rtime: SimDuration,
    difs_wait: SimDuration,
}

/// In declaration order (`repr(C)`): the fields the per-frame paths of a NIC that only
/// overhears touch (the timer bookkeeping, `poll_timeout` and the fast paths
/// of `mac/fast.rs`) come first and together, the configuration, queues and counters
/// after them, so that those paths load a few cache lines per NIC instead of lines
/// spread over the whole struct (the world's 46 NICs do not fit in the L1 cache).
/// Measured (callgrind, `core_run scenarios/manet-tcp.toml --seed 1 --set duration=40s
/// --set measure.end=40s`, `--cache-sim=yes`, bench/RESULTS.md): without `repr(C)` the
/// compiler's own order costs 3.0 % more instructions (529.5 M against 514.2 M) and
/// 3.6 % more D1 misses (2.90 M against 2.80 M), so field order here is a performance
/// contract: keep the hot fields first.
#[repr(C)]
#[cfg_attr(test, derive(Clone, Debug))]
pub struct Mac {
    timers: [EventKey; N_TIMERS],
    /// The running timer with the smallest key and that key (`NO_TIMER` if none runs),
    /// kept up to date by `set_timer`.
    next: (usize, EventKey),
    now: SimTime,
    timer_seq: u64,
    /// NAV end (`nav_`).
    nav: SimTime,
    eifs_nav: SimDuration,
    /// `pktRx_`.
    rx: Option<RxFrame>,
    addr: MacAddr,
    /// Bit `i` set while timer `i` runs.
    running: u8,
    tx_state: TxState,
    rx_state: RxState,
    /// The transmitter is on (`tx_active_`, cleared by the interface timer).
    tx_active: bool,
    /// We hold a packet from the queue (ns-2 `callback_` set; the queue is blocked).
    holding: bool,
    /// A `Failed` event is out and `tx_resume` has not yet taken the next packet: ns-2
    /// runs the routing agent's failure callback (AODV `rt_ll_failed`, which purges the
    /// queue of packets for the broken hop) inside `RetransmitRTS` / `RetransmitDATA`,
    /// before `tx_resume` invokes the queue's callback, so the MAC waits for
    /// `resume_after_failure` before pulling.
    resume_pending: bool,
    /// Intact DATA frames for other stations go up too (`Overheard`): ns-2's `tap_`,
    /// set by a routing agent that listens promiscuously (DSR). Among the hot fields:
    /// `mode()` reads it for every frame overheard (it fits in padding here).
    tap: bool,
    backoff: Backoff,

    /// `pktTx_`, `pktRTS_`, `pktCTRL_`.
    tx: Option<Frame>,
    rts: Option<Frame>,
    ctrl: Option<Frame>,

    difs: SimDuration,
    rts_air: SimDuration,
    cts_air: SimDuration,
    ack_air: SimDuration,
    cw: u32,
    ssrc: u32,
    slrc: u32,
    /// Next sequence number (`sta_seqno_`, starts at 1).
    seqno: u16,

    counters: MacCounters,
    cfg: MacCfg,
    rng: RngStream,

    /// Last sequence number received from each transmitter (index = MacAddr), 0 = none.
    dup_cache: Vec<u16>,

    ifq: Ifq,
    out: VecDeque<Frame>,
    events: VecDeque<MacEvent>,
    /// The fast paths' bookkeeping (`fast.rs`).
    fast: fast::FastState,
}

impl Mac {
    pub fn new(cfg: MacCfg, addr: MacAddr, rng: RngStream) -> Mac {
        let difs = cfg.difs();
        let eifs_nav = usec(cfg.eifs());
        let rts_air = cfg.airtime(cfg.rts_bytes, cfg.basic_rate_bps);
        let cts_air = cfg.airtime(cfg.cts_bytes, cfg.basic_rate_bps);
        let ack_air = cfg.airtime(cfg.ack_bytes, cfg.basic_rate_bps);
        let ifq = Ifq::new(cfg.ifq_limit, cfg.prefer_routing);
        let cw = cfg.cw_min;
        Mac {
            cfg,
            addr,
            rng,
            now: SimTime::ZERO,
            difs,
            eifs_nav,
            rts_air,
            cts_air,
            ack_air,
            tx_state: TxState::Idle,
            rx_state: RxState::Idle,
            tx_active: false,
            nav: SimTime::ZERO,
            cw,
            ssrc: 0,
            slrc: 0,
            seqno: 1,
            holding: false,
            resume_pending: false,
            tx: None,
            rts: None,
            ctrl: None,
            rx: None,
            backoff: Backoff::default(),
            timers: [NO_TIMER; N_TIMERS],
            running: 0,
            next: (0, NO_TIMER),
            timer_seq: 0,
            dup_cache: Vec::new(),
            ifq,
            out: VecDeque::with_capacity(4),
            events: VecDeque::with_capacity(8),
            tap: false,
            fast: fast::FastState::default(),
            counters: MacCounters::default(),
        }
    }

    pub fn addr(&self) -> MacAddr {
        self.addr
    }

    /// Pass intact DATA frames addressed to other stations up as `Overheard` events
    /// (ns-2's `Mac::installTap`). A reception this MAC taps is not passive (`mode`),
    /// and the world gives every NIC a real event for a frame some MAC may tap
    /// (`Wireless::logs_frame`): the accelerators defer only what no tap reads.
    pub fn set_tap(&mut self) {
        self.tap = true;
    }

    /// Whether the tap is on (`set_tap`).
    pub fn tap_on(&self) -> bool {
        self.tap
    }

    /// Whether the tap passes `f` up when it arrives intact for another station: a
    /// DATA frame at a MAC with the tap on (`dcf.rs`'s `receive_end`).
    #[inline(always)]
    pub(crate) fn taps(&self, f: &Frame) -> bool {
        self.tap && f.kind == FrameKind::Data
    }

    /// ns-2's `CMUPriQueue` as the interface queue (`-ifqType CMUPriQueue`), for DSR.
    pub fn use_cmu_priqueue(&mut self) {
        self.ifq = Ifq::cmu();
    }

    pub fn cfg(&self) -> &MacCfg {
        &self.cfg
    }

    pub fn counters(&self) -> &MacCounters {
        &self.counters
    }

    /// The interface queue (packets waiting, not the one the MAC holds).
    pub fn ifq(&self) -> &Ifq {
        &self.ifq
    }

    /// For AODV's purge on link failure (`take_next_hop`). Removing packets never
    /// changes when the MAC pulls the next one.
    pub fn ifq_mut(&mut self) -> &mut Ifq {
        &mut self.ifq
    }

    /// Whether the MAC holds a packet (ns-2: the queue is blocked until the callback).
    pub fn holds_packet(&self) -> bool {
        self.holding
    }

    /// Current contention window (diagnostics, tests).
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// ns-2 `is_idle()` at `now`: not receiving, not in a frame exchange, NAV over.
    pub fn is_idle_at(&self, now: SimTime) -> bool {
        self.rx_state == RxState::Idle && self.tx_state == TxState::Idle && self.nav <= now
    }

    /// A packet for `next_hop` enters the interface queue (ns-2 `PriQueue::recv`); if the
    /// MAC holds no packet it takes it at once (`Queue::recv` when not blocked).
    /// `routing` marks routing-protocol packets, which go to the head of the queue.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        packet: PacketId,
        ip_bytes: u32,
        next_hop: MacAddr,
        routing: bool,
    ) {
        let band = if routing { Band::Routing } else { Band::Normal };
        self.enqueue_in(now, packet, ip_bytes, next_hop, band);
    }

    /// `enqueue` with the band ns-2's CMUPriQueue would give the packet (a PriQueue
    /// only tells `Band::Routing` from the rest).
    pub fn enqueue_in(
        &mut self,
        now: SimTime,
        packet: PacketId,
        ip_bytes: u32,
        next_hop: MacAddr,
        band: Band,
    ) {
        self.resume_after_failure(now);
        let e = IfqEntry {
            packet,
            ip_bytes,
            next_hop,
        };
        if let Some(d) = self.ifq.enqueue_in(e, band) {
            self.counters.ifq_drops += 1;
            self.events.push_back(MacEvent::Dropped {
                packet: d.packet,
                reason: DropReason::IfqFull,
            });
        }
        if !self.holding {
            if let Some(e) = self.ifq.pop(now) {
                self.send(e);
            }
        }
    }

    /// `enqueue_in` for an interface queue a discipline runs (`Ifq::has_aqm`), which
    /// needs to know whether the packet is ECN-capable (`ect`).
    pub fn enqueue_aqm(
        &mut self,
        now: SimTime,
        packet: PacketId,
        ip_bytes: u32,
        next_hop: MacAddr,
        band: Band,
        ect: bool,
    ) {
        self.resume_after_failure(now);
        let e = IfqEntry {
            packet,
            ip_bytes,
            next_hop,
        };
        self.ifq.enqueue_aqm(now, e, band, ect, self.holding);
        self.ifq.report(&mut self.events, &mut self.counters);
        if !self.holding {
            if let Some(e) = self.pull() {
                self.send(e);
            }
        }
    }

    /// The next packet from the interface queue at `now`, with what a discipline
    /// dropped or marked on the way reported as events.
    #[inline]
    pub(super) fn pull(&mut self) -> Option<IfqEntry> {
        self.ifq
            .pop_for_mac(self.now, &mut self.events, &mut self.counters)
    }

    /// The first bit of `frame` reaches this NIC with `power_w` (ns-2 `Mac802_11::recv`
    /// for an incoming packet). `decodable` is false for frames below RXThresh (but at
    /// least CSThresh): they keep the medium busy and end with EIFS.
    ///
    /// The power only matters when frames overlap (capture); a caller that computes
    /// powers lazily may pass NaN while the MAC is not receiving (`mac/fast.rs`).
    pub fn rx_start(&mut self, now: SimTime, frame: &Frame, power_w: f64, decodable: bool) {
        self.resume_after_failure(now);
        // A frame arriving while we transmit cannot be received, but the air is busy.
        let error = !decodable || self.tx_active;
        debug_assert!(self.rx_state == RxState::Idle || !power_w.is_nan());
        if self.rx_state == RxState::Idle {
            self.set_rx_state(RxState::Recv);
            self.rx = Some(RxFrame {
                frame: *frame,
                power: power_w,
                error,
            });
            self.start_timer(RECV, frame.airtime);
        } else {
            let cur = self.rx.map_or(0.0, |r| r.power);
            debug_assert!(
                !cur.is_nan(),
                "power of the frame being received not supplied"
            );
            if cur / power_w >= self.cfg.cp_thresh {
                self.capture(frame);
            } else {
                self.collision(frame, power_w, error);
            }
        }
    }

    /// Whether the MAC has frames or events waiting to be polled.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty() || !self.events.is_empty()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        // A timer runs exactly when `next` holds a key: a byte's test instead of a
        // 128-bit comparison.
        debug_assert_eq!(self.running != 0, self.next.1 != NO_TIMER);
        (self.running != 0).then(|| self.next.1.time())
    }

    /// Sets timer `i` to key `k` (`NO_TIMER` stops it) and keeps `next` current.
    #[inline]
    fn set_timer(&mut self, i: usize, k: EventKey) {
        self.timers[i] = k;
        if k == NO_TIMER {
            self.running &= !(1 << i);
        } else {
            self.running |= 1 << i;
        }
        if k < self.next.1 {
            self.next = (i, k);
        } else if self.next.0 == i {
            // The earliest timer moved later or stopped: find the new earliest among
            // the running ones (keys are unique).
            let mut best = (0, NO_TIMER);
            let mut bits = self.running;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.timers[j] < best.1 {
                    best = (j, self.timers[j]);
                }
            }
            self.next = best;
        }
    }

    /// Fires every timer due at or before `now`, in (deadline, start order).
    pub fn handle_timeout(&mut self, now: SimTime) {
        self.resume_after_failure(now);
        loop {
            let (i, k) = self.next;
            if !due(k, now) {
                break;
            }
            self.set_timer(i, NO_TIMER);
            match i {
                DEFER => self.defer_handler(),
                BACKOFF => self.backoff_handler(),
                NAV => self.nav_handler(),
                RECV => self.recv_timer(),
                SEND => self.send_timer(),
                _ => self.tx_active = false, // IF: end of our transmission
            }
            if self.resume_pending {
                // The world handles the `Failed` event first; timers still due at `now`
                // fire on its next call.
                break;
            }
        }
    }

    /// After the world has handled a `Failed` event (routing's link-failure handler,
    /// which may purge this NIC's queue): take the next packet from the queue, as ns-2's
    /// `tx_resume` does right after the failure callback, with the transmit state not yet
    /// idle. Does nothing unless such a pull is pending; `enqueue`, `rx_start` and
    /// `handle_timeout` call it first, so a world that never calls it still gets a pull.
    pub fn resume_after_failure(&mut self, now: SimTime) {
        self.now = now;
        if !std::mem::take(&mut self.resume_pending) {
            return;
        }
        self.holding = false;
        if let Some(e) = self.pull() {
            self.send(e);
        }
        self.set_tx_state(TxState::Idle);
    }

    /// A frame that goes on the air now (the time of the last input).
    pub fn poll_transmit(&mut self) -> Option<Frame> {
        self.out.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<MacEvent> {
        self.events.pop_front()
    }

    fn start_timer(&mut self, i: usize, after: SimDuration) {
        self.timer_seq += 1;
        let at = self.now + after;
        self.set_timer(i, EventKey::new(at, self.timer_seq));
    }

    fn stop_timer(&mut self, i: usize) {
        self.set_timer(i, NO_TIMER);
    }

    fn busy(&self, i: usize) -> bool {
        self.timers[i] != NO_TIMER
    }
}
