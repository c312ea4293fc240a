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

use super::frame::{Frame, FrameKind, MacAddr};
use super::ifq::{Ifq, IfqEntry};

#[cfg(test)]
mod bianchi;
#[cfg(test)]
mod differential;
#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

/// Every parameter of ns-2.35's Mac/802_11 that matters in ad hoc mode, plus the PHY's
/// capture threshold (ns-2 hands `CPThresh_` to the MAC on each packet) and the
/// interface queue's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MacCfg {
    /// `SlotTime_`.
    pub slot: SimDuration,
    /// `SIFS_`.
    pub sifs: SimDuration,
    /// `CWMin_`, `CWMax_`. ns-2 draws a backoff as `Random::random() % cw` slots, i.e.
    /// 0..=cw-1 (31 values at CWMin 31).
    pub cw_min: u32,
    pub cw_max: u32,
    /// `RTSThreshold_` in bytes, compared (as ns-2 does) with the MAC frame size
    /// *including* the PLCP preamble and header: IP bytes + 58 at the defaults. RTS/CTS
    /// is used unless that size is below the threshold.
    pub rts_threshold: u32,
    /// `ShortRetryLimit_`, `LongRetryLimit_`.
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// `PreambleLength_`, `PLCPHeaderLength_` (bits), `PLCPDataRate_` (bit/s).
    pub preamble_bits: u32,
    pub plcp_header_bits: u32,
    pub plcp_rate_bps: u64,
    /// `dataRate_`: unicast DATA.
    pub data_rate_bps: u64,
    /// `basicRate_`: RTS, CTS, ACK and (ns-2 `sendDATA`, "see 9.6") broadcast DATA.
    pub basic_rate_bps: u64,
    /// `offsetof(hdr_mac802_11, dh_body)`: fc 2 + duration 2 + four addresses 4x6 +
    /// sequence control 2 = 30 bytes.
    pub data_header_bytes: u32,
    /// `ETHER_FCS_LEN`.
    pub fcs_bytes: u32,
    /// `sizeof(rts_frame)` 20, `sizeof(cts_frame)` 14, `sizeof(ack_frame)` 14.
    pub rts_bytes: u32,
    pub cts_bytes: u32,
    pub ack_bytes: u32,
    /// `DSSS_MaxPropagationDelay`, added twice to each response timeout.
    pub max_propagation_delay: SimDuration,
    /// `bugFix_timer_`: on, channel access goes through the (freezable) backoff timer;
    /// off, through a DIFS + random defer that does not freeze.
    pub bug_fix_timer: bool,
    /// Phy `CPThresh_`: a frame arriving during a reception is ignored (captured) if the
    /// frame being received is at least this many times stronger.
    pub cp_thresh: f64,
    /// Interface queue `limit_` and PriQueue `Prefer_Routing_Protocols`.
    pub ifq_limit: u32,
    pub prefer_routing: bool,
}

impl MacCfg {
    /// ns-2.35's defaults (tcl/lib/ns-default.tcl; compile-time frame sizes from
    /// mac-802_11.h). Both rates are 1 Mb/s there; seed 004 sets both to 2 Mb/s.
    pub fn ns2() -> MacCfg {
        MacCfg {
            slot: SimDuration::from_micros(20),
            sifs: SimDuration::from_micros(10),
            cw_min: 31,
            cw_max: 1023,
            rts_threshold: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            preamble_bits: 144,
            plcp_header_bits: 48,
            plcp_rate_bps: 1_000_000,
            data_rate_bps: 1_000_000,
            basic_rate_bps: 1_000_000,
            data_header_bytes: 30,
            fcs_bytes: 4,
            rts_bytes: 20,
            cts_bytes: 14,
            ack_bytes: 14,
            max_propagation_delay: SimDuration::from_micros(2),
            bug_fix_timer: true,
            cp_thresh: 10.0,
            ifq_limit: 50,
            prefer_routing: true,
        }
    }

    /// `PHY_MIB::getDIFS()`: SIFS + 2 slots.
    pub fn difs(&self) -> SimDuration {
        self.sifs + self.slot.saturating_mul(2)
    }

    /// `PHY_MIB::getPIFS()`: SIFS + 1 slot (unused in DCF, kept for completeness).
    pub fn pifs(&self) -> SimDuration {
        self.sifs + self.slot
    }

    /// `getPLCPhdrLen()`: preamble and PLCP header in whole bytes (ns-2 shifts right 3).
    pub fn plcp_bytes(&self) -> u32 {
        (self.preamble_bits + self.plcp_header_bits) >> 3
    }

    /// `PHY_MIB::getEIFS()`: SIFS + DIFS + an ACK (PLCP included) at the PLCP rate, the
    /// whole ACK at 1 Mb/s as 802.11-1999 9.2.10 reads it: 10 + 50 + 304 = 364 us.
    pub fn eifs(&self) -> SimDuration {
        self.sifs
            + self.difs()
            + SimDuration::transmission(
                u64::from(self.plcp_bytes() + self.ack_bytes),
                self.plcp_rate_bps,
            )
    }

    /// ns-2 `txtime(psz, drt)`: the PLCP part at the PLCP rate plus `mac_bytes` (MAC
    /// header, body, FCS) at `rate_bps`.
    pub fn airtime(&self, mac_bytes: u32, rate_bps: u64) -> SimDuration {
        SimDuration::transmission(u64::from(self.plcp_bytes()), self.plcp_rate_bps)
            + SimDuration::transmission(u64::from(mac_bytes), rate_bps)
    }

    /// `getHdrLen11()`: what ns-2 adds to a packet's size in `sendDATA` (PLCP + MAC
    /// header + FCS = 58 bytes at the defaults).
    pub fn hdr_len11(&self) -> u32 {
        self.plcp_bytes() + self.data_header_bytes + self.fcs_bytes
    }
}

/// What the MAC tells the world.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MacEvent {
    /// A DATA frame for this NIC (or broadcast) was received intact and is not a
    /// duplicate: pass a copy of `packet` up. `from` is the transmitter.
    Received { packet: PacketId, from: MacAddr },
    /// The MAC is done with `packet`: a unicast was acknowledged, or a broadcast's
    /// transmission ended.
    Sent { packet: PacketId },
    /// A unicast reached its retry limit (ns-2 `xmit_failure_` callback, used by AODV's
    /// link-layer detection). The packet goes back to the world.
    Failed { packet: PacketId, next_hop: MacAddr },
    /// The packet was dropped before the MAC took it.
    Dropped {
        packet: PacketId,
        reason: DropReason,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Interface queue overflow (ns-2 trace reason `IFQ`).
    IfqFull,
}

/// Online counters of one NIC (whole run; the world windows them if needed).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MacCounters {
    pub rts_sent: u64,
    pub cts_sent: u64,
    /// Unicast DATA frames put on the air, retransmissions included.
    pub data_sent: u64,
    pub broadcast_sent: u64,
    pub ack_sent: u64,
    /// DATA frames sent with the retry bit.
    pub data_retransmissions: u64,
    /// Increments of the short retry count (RTS without CTS; DATA at or below the RTS
    /// threshold without ACK).
    pub short_retries: u64,
    /// Increments of the long retry count (DATA above the RTS threshold without ACK).
    pub long_retries: u64,
    /// Packets given up at the short / long retry limit (`Failed` events).
    pub failed_short: u64,
    pub failed_long: u64,
    pub acked: u64,
    pub delivered: u64,
    pub duplicates: u64,
    /// Overlapping arrivals resolved as a collision, and as a capture.
    pub collisions: u64,
    pub captures: u64,
    /// Receptions that ended after a collision (dropped, EIFS).
    pub rx_collided: u64,
    /// Receptions that ended errored: below RXThresh, or hit by our own transmission
    /// after it ended (EIFS).
    pub rx_errors: u64,
    /// Receptions that ended while we were transmitting (silently lost).
    pub rx_missed_tx: u64,
    /// Frames for this NIC discarded by the state machine: RTS/DATA while busy
    /// (`DROP_MAC_BUSY`), CTS/ACK not expected (`DROP_MAC_INVALID_STATE`).
    pub busy_discards: u64,
    pub invalid_state_discards: u64,
    /// CTS not sent because the medium was busy (NAV) when SIFS ended.
    pub cts_suppressed: u64,
    pub ifq_drops: u64,
}

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
/// The timers a quiet MAC has none of (`timers_are_quiet`), as bits of `Mac::running`.
const ACTIVE_TIMERS: u8 = (1 << DEFER) | (1 << BACKOFF) | (1 << SEND) | (1 << IF);

/// A lower bound of when a waiting MAC's backoff can end (`Mac::wait_bound`): the
/// medium is not idle before `idle_from`, and at least `rest` of the backoff's slots are
/// left to count after a DIFS of idle medium.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WaitBound {
    idle_from: SimTime,
    rest: SimDuration,
}

/// NIC addresses are small indices; the duplicate cache is a vector indexed by them.
const MAX_DUP_CACHE: usize = 1 << 20;

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
/// overhears touch (`timers_are_quiet`, `needs_power`, `poll_timeout`, `quiet_timeout`,
/// `quiet_rx_start_idle`, the timer bookkeeping) come first and together, the
/// configuration, queues and counters after them, so that those paths load a few cache
/// lines per NIC instead of lines spread over the whole struct (the world's 46 NICs do
/// not fit in the L1 cache).
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

    /// Deliveries of `Frame::quiet_up` frames counted instead of put out, those whose
    /// reception ended before `quiet_up_until` (the world's routing agent would have
    /// taken the packet before the run's end).
    quiet_ups: u64,
    quiet_up_until: SimTime,
}

/// ns-2 `usec()`: a duration as the 16-bit microsecond count of a Duration field,
/// rounded to the nearest microsecond (saturating instead of wrapping above 65535 us).
fn usec(d: SimDuration) -> SimDuration {
    let us = d.as_nanos().saturating_add(500) / 1_000;
    SimDuration::from_micros(us.min(u64::from(u16::MAX)))
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
            quiet_ups: 0,
            quiet_up_until: SimTime::MAX,
            counters: MacCounters::default(),
        }
    }

    pub fn addr(&self) -> MacAddr {
        self.addr
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
        self.resume_after_failure(now);
        let e = IfqEntry {
            packet,
            ip_bytes,
            next_hop,
        };
        if let Some(d) = self.ifq.enqueue(e, routing) {
            self.counters.ifq_drops += 1;
            self.events.push_back(MacEvent::Dropped {
                packet: d.packet,
                reason: DropReason::IfqFull,
            });
        }
        if !self.holding {
            if let Some(e) = self.ifq.pop() {
                self.send(e);
            }
        }
    }

    /// The first bit of `frame` reaches this NIC with `power_w` (ns-2 `Mac802_11::recv`
    /// for an incoming packet). `decodable` is false for frames below RXThresh (but at
    /// least CSThresh): they keep the medium busy and end with EIFS.
    ///
    /// The power only matters when frames overlap (capture), so a caller may pass NaN
    /// ("not computed") when the MAC is not receiving (`needs_power` is false); it must
    /// then supply it with `set_rx_power` before the next frame that arrives while the
    /// MAC is still receiving this one.
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

    /// Whether an arriving frame's power is needed (the MAC is receiving another, so
    /// capture decides), and whether the frame being received lacks its power (NaN was
    /// passed to `rx_start`).
    #[inline]
    pub fn needs_power(&self) -> (bool, bool) {
        let receiving = self.rx_state != RxState::Idle;
        (
            receiving,
            receiving && self.rx.is_some_and(|r| r.power.is_nan()),
        )
    }

    /// Supplies the power of the frame being received (see `rx_start`).
    pub fn set_rx_power(&mut self, power_w: f64) {
        if let Some(r) = self.rx.as_mut() {
            r.power = power_w;
        }
    }

    /// Whether the MAC's pending timers only change its own state when they fire: it is
    /// idle with nothing to send (no packet, frame, backoff, defer or response timer)
    /// and at most a reception end and a NAV end are pending, where the reception is of
    /// a frame it will not act on (addressed to another station, collided or errored).
    /// Then `receive_end` only counts and sets the NAV, and `nav_handler` has no backoff
    /// to resume: no frame, event or timer other than the NAV comes out. The world may
    /// then run such timers late, just before the MAC's next input.
    pub fn timers_are_quiet(&self) -> bool {
        let passive = self.tx_state == TxState::Idle
            && !self.tx_active
            && !self.backoff.busy
            && !self.holding
            && self.tx.is_none()
            && self.rts.is_none()
            && self.ctrl.is_none()
            && self.running & ACTIVE_TIMERS == 0;
        passive
            && (self.timers[RECV] == NO_TIMER
                || self.rx.is_none_or(|rx| {
                    self.rx_state == RxState::Coll
                        || rx.error
                        || rx.frame.quiet_up
                        || (rx.frame.dst != self.addr && !rx.frame.dst.is_broadcast())
                }))
    }

    /// Whether the MAC only waits for the medium with its backoff paused: nothing but a
    /// reception end (of a frame it will not act on, as in `timers_are_quiet`) and a NAV
    /// end can fire, and neither puts out anything (they may resume the backoff, whose
    /// own end is the first thing that can; see `wait_bound`). The packet it holds
    /// and the RTS made for it wait for that end. The world may run
    /// such a MAC's timers and overheard frames late too, provided it looks again before
    /// that time.
    pub fn waits_quietly(&self) -> bool {
        self.backoff.paused
            && self.tx_state == TxState::Idle
            && !self.tx_active
            && !self.resume_pending
            && self.ctrl.is_none()
            && self.running & ACTIVE_TIMERS == 0
            && (self.timers[RECV] == NO_TIMER
                || self.rx.is_none_or(|rx| {
                    self.rx_state == RxState::Coll
                        || rx.error
                        || rx.frame.quiet_up
                        || (rx.frame.dst != self.addr && !rx.frame.dst.is_broadcast())
                }))
    }

    /// Whether the backoff is paused.
    #[inline(always)]
    pub fn backoff_paused(&self) -> bool {
        self.backoff.paused
    }

    /// For a MAC that `waits_quietly`: no frame or event comes out before
    /// `wait_end(wait_bound(now))` unless an input comes first (`now`: the time of its
    /// last input). Its first output is its backoff's end, which needs the medium idle
    /// for DIFS and then its remaining slots. The medium is not idle before the NAV
    /// ends, nor before the reception in progress ends and the NAV that end sets has
    /// run out: EIFS after a collided or errored frame, else the frame's Duration, but
    /// a frame arriving before the end may yet turn it into a collision (EIFS), so the
    /// shorter of the two. Pausing the backoff again takes off only slots counted after
    /// a DIFS, so a later resumption ends later still.
    pub fn wait_bound(&self, now: SimTime) -> WaitBound {
        debug_assert!(self.waits_quietly());
        let mut idle_from = now.max(self.nav);
        if let (Some(rx), k) = (self.rx, self.timers[RECV]) {
            if k != NO_TIMER {
                let d = if self.rx_state == RxState::Coll || rx.error {
                    self.eifs_nav
                } else {
                    rx.frame.duration.min(self.eifs_nav)
                };
                idle_from = idle_from.max(k.time() + d);
            }
        }
        WaitBound {
            idle_from,
            rest: self.backoff.rtime,
        }
    }

    /// The earliest end of a waiting MAC's backoff under `b` (see `wait_bound`).
    #[inline]
    pub fn wait_end(&self, b: WaitBound) -> SimTime {
        b.idle_from + self.difs + b.rest
    }

    /// Takes into `b` a frame (`airtime`, Duration field `duration`) whose first bit
    /// reaches this waiting MAC at `at`, no earlier than those taken before; false (and
    /// `b` unchanged) if it arrives at or after `wait_end(b)`, as do all later ones.
    /// Arriving before the backoff can end, it finds the backoff paused or pauses it,
    /// and the medium stays busy until its reception ends and the NAV that end sets
    /// (at least the shorter of its Duration and EIFS, as in `wait_bound`; a capture
    /// sets EIFS plus its airtime) runs out. Until it arrived, the backoff can have
    /// counted only the whole slots after a DIFS from `b.idle_from`, however often
    /// other frames paused it in between.
    #[inline]
    pub fn wait_bound_sense(
        &self,
        b: &mut WaitBound,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
    ) -> bool {
        if at >= self.wait_end(*b) {
            return false;
        }
        let counting_from = b.idle_from + self.difs;
        if at > counting_from {
            let slot = self.cfg.slot.as_nanos().max(1);
            let slots = (at - counting_from).as_nanos() / slot;
            // Fewer than the slots left: `at` is before `wait_end(b)`.
            b.rest = b.rest - self.cfg.slot.saturating_mul(slots);
        }
        b.idle_from = b.idle_from.max(at + airtime + duration.min(self.eifs_nav));
        true
    }

    /// Whether the MAC has frames or events waiting to be polled.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty() || !self.events.is_empty()
    }

    /// `poll_timeout` in nanoseconds, `u64::MAX` for none: one load and no 128-bit
    /// comparison, for the catch-up's per-frame tests (a timer due at `SimTime::MAX`
    /// itself reads as none, which only ever makes those tests fail, never pass).
    #[inline(always)]
    pub fn next_deadline_nanos(&self) -> u64 {
        self.next.1.time_nanos()
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

    /// `handle_timeout` for a MAC whose timers are quiet (`timers_are_quiet`): only a
    /// reception end and a NAV end can be due. The same state changes, without the
    /// general dispatch: no backoff runs, so leaving the receive state and the NAV end
    /// (`nav_handler`, which only resumes a paused backoff) check nothing else.
    #[inline]
    pub fn quiet_timeout(&mut self, now: SimTime) {
        debug_assert!(self.timers_are_quiet() && !self.resume_pending);
        debug_assert!(!self.backoff.busy && !self.backoff.paused);
        self.now = now;
        loop {
            let (i, k) = self.next;
            if !due(k, now) {
                break;
            }
            self.end_quiet_timer(i);
        }
        debug_assert!(!self.has_output());
    }

    /// Ends the due timer `i` of a MAC that acts on nothing it hears (`quiet_timeout`,
    /// `waiting_timeout`): a reception end (of a frame not for it) or a NAV end.
    #[inline(always)]
    fn end_quiet_timer(&mut self, i: usize) {
        debug_assert!(i == RECV || i == NAV);
        debug_assert_eq!(self.running & !((1 << RECV) | (1 << NAV)), 0);
        self.timers[i] = NO_TIMER;
        self.running &= !(1 << i);
        // The other of the two, if it runs, is now the earliest; (o, NO_TIMER) if it does
        // not: `next` then names no running timer, which `set_timer` handles like
        // (0, NO_TIMER) (a rescan finds the same earliest).
        let o = RECV + NAV - i;
        self.next = (o, self.timers[o]);
        if i == RECV {
            if let Some(rx) = self.rx.take() {
                // `receive_end` of a frame the MAC does not act on, not sending.
                let d = if self.rx_state == RxState::Coll {
                    self.counters.rx_collided += 1;
                    self.eifs_nav
                } else if rx.error {
                    self.counters.rx_errors += 1;
                    self.eifs_nav
                } else {
                    debug_assert!(
                        rx.frame.quiet_up
                            || (rx.frame.dst != self.addr && !rx.frame.dst.is_broadcast())
                    );
                    rx.frame.duration
                };
                // `set_nav`; the NAV timer is then the only one running.
                if self.extend_nav_quiet(self.now + d) {
                    self.next = (NAV, self.timers[NAV]);
                }
                if rx.frame.quiet_up && self.rx_state != RxState::Coll && !rx.error {
                    // `recv_data` of a broadcast frame.
                    self.quiet_up();
                }
            }
            self.rx_state = RxState::Idle;
        }
    }

    /// `handle_timeout` for a MAC that `waits_quietly`: as in `quiet_timeout`, only a
    /// reception end (of a frame it does not act on) and a NAV end can be due, and with
    /// the backoff paused both then only check whether it resumes (`check_backoff_timer`
    /// on leaving the receive state, `nav_handler`: on an idle medium). Once it resumes,
    /// the timers still due go through `handle_timeout`.
    #[inline]
    pub fn waiting_timeout(&mut self, now: SimTime) {
        debug_assert!(self.waits_quietly());
        self.now = now;
        loop {
            let (i, k) = self.next;
            if !due(k, now) {
                return;
            }
            self.end_quiet_timer(i);
            if self.is_idle() {
                self.backoff_resume(self.difs);
                self.handle_timeout(now);
                return;
            }
        }
    }

    /// `rx_start` at a quiet MAC that is not receiving (`needs_power` gives false), for
    /// a frame it will not act on: the reception starts, nothing else changes (no backoff
    /// runs to freeze). Power as in `rx_start` (NaN: not computed).
    #[inline]
    pub fn quiet_rx_start_idle(
        &mut self,
        now: SimTime,
        frame: &Frame,
        power_w: f64,
        decodable: bool,
    ) {
        debug_assert!(self.timers_are_quiet() && !self.resume_pending);
        debug_assert!(self.rx_state == RxState::Idle && !self.tx_active);
        debug_assert!(!self.backoff.busy && !self.backoff.paused);
        self.now = now;
        self.rx_state = RxState::Recv;
        self.rx = Some(RxFrame {
            frame: *frame,
            power: power_w,
            error: !decodable,
        });
        self.timer_seq += 1;
        let at = now + frame.airtime;
        let k = EventKey::new(at, self.timer_seq);
        // The reception timer was stopped: only the NAV's can be earlier.
        debug_assert_eq!(self.timers[RECV], NO_TIMER);
        self.timers[RECV] = k;
        self.running |= 1 << RECV;
        if k < self.next.1 {
            self.next = (RECV, k);
        }
    }

    /// `rx_start` at a MAC that is not receiving (`needs_power` gives false), for the
    /// world's catch-up of a waiting MAC: when no failure pends and its backoff is
    /// paused or not running, the reception starts and nothing else changes (leaving
    /// the idle state only pauses a running backoff, and a paused one stays so on a busy
    /// medium), without the general path's calls.
    #[inline(always)]
    pub fn rx_start_idle(&mut self, now: SimTime, frame: &Frame, power_w: f64, decodable: bool) {
        debug_assert_eq!(self.rx_state, RxState::Idle);
        if self.resume_pending || (self.backoff.busy && !self.backoff.paused) {
            self.rx_start(now, frame, power_w, decodable);
            return;
        }
        self.now = now;
        self.rx_state = RxState::Recv;
        self.rx = Some(RxFrame {
            frame: *frame,
            power: power_w,
            error: !decodable || self.tx_active,
        });
        // Not receiving, so the reception timer was stopped.
        debug_assert_eq!(self.timers[RECV], NO_TIMER);
        self.start_timer(RECV, frame.airtime);
    }

    /// `quiet_rx_start_idle(at, ..)` and then `quiet_timeout` at the reception's end
    /// (`at + airtime`), for an overheard frame (`duration`: its Duration field) whose
    /// reception ends before any other input or timer of this MAC but the NAV's end:
    /// the same state afterwards, without keeping the frame (the reception end drops
    /// it). The caller checks that nothing else happens in between
    /// (`quiet_overhear_fits`).
    #[inline(always)]
    pub fn quiet_overhear(
        &mut self,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: bool,
    ) {
        debug_assert!(self.quiet_overhear_fits(at));
        self.overhear_in_one_step(at, airtime, duration, decodable, quiet_up);
        debug_assert!(!self.backoff.paused);
    }

    /// Whether the NAV's timer is the only one running and ends at `t`.
    #[inline(always)]
    pub fn only_nav_due_at(&self, t: SimTime) -> bool {
        self.running == 1 << NAV && self.next.1.time_nanos() == t.as_nanos()
    }

    /// `quiet_timeout(nav_end)` and then `quiet_overhear(at, ..)`, at a quiet MAC whose
    /// only running timer is the NAV's, ending at `nav_end` before the frame arrives at
    /// `at`. The NAV's end only stops it (no backoff runs), and the reception's end,
    /// later, sets it anew and restarts its timer: the same state as after
    /// `quiet_overhear` alone.
    #[inline(always)]
    pub fn quiet_overhear_after_nav(
        &mut self,
        nav_end: SimTime,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: bool,
    ) {
        debug_assert!(self.timers_are_quiet() && !self.resume_pending);
        debug_assert!(self.only_nav_due_at(nav_end) && self.nav == nav_end && nav_end < at);
        debug_assert!(self.rx_state == RxState::Idle);
        self.overhear_in_one_step(at, airtime, duration, decodable, quiet_up);
        debug_assert!(self.nav > nav_end && !self.backoff.paused);
    }

    /// `quiet_overhear` at a MAC that waits with its backoff paused
    /// (`waiting_overhear_fits`): `rx_start` leaves the backoff paused (the medium turns
    /// busy), and `waiting_timeout` at the reception's end does what `quiet_timeout`
    /// does, and then, if the medium turned idle (a zero Duration, an ACK's, after the
    /// NAV), resumes the backoff (`check_backoff_timer` on leaving the receive state).
    /// The NAV timer such a frame sets ends at once, as `quiet_overhear` has it; nothing
    /// else is due then (the backoff's own end is DIFS later at least).
    #[inline(always)]
    pub fn waiting_overhear(
        &mut self,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: bool,
    ) {
        debug_assert!(self.waiting_overhear_fits(at) && self.waits_quietly());
        self.overhear_in_one_step(at, airtime, duration, decodable, quiet_up);
        if self.is_idle() {
            self.backoff_resume(self.difs);
            debug_assert!(!due(self.next.1, self.now));
        }
    }

    /// The state changes of `quiet_overhear` and `waiting_overhear` up to the
    /// reception's end.
    #[inline(always)]
    fn overhear_in_one_step(
        &mut self,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: bool,
    ) {
        // The reception timer's start takes a number; it stops at the end.
        self.timer_seq += 1;
        let end = at + airtime;
        self.now = end;
        let d = if decodable {
            duration
        } else {
            self.counters.rx_errors += 1;
            self.eifs_nav
        };
        // `set_nav`; the NAV timer is then the earliest (the reception's has stopped).
        self.extend_nav_quiet(end + d);
        self.next = (NAV, self.timers[NAV]);
        if decodable && quiet_up {
            self.quiet_up();
        }
        // Not receiving before (`overhear_fits`), so `pktRx_` is empty: nothing to drop.
        debug_assert!(self.rx_state == RxState::Idle && self.rx.is_none());
        if due(self.next.1, end) {
            // A zero Duration with no NAV before: the NAV ends at once.
            self.timers[NAV] = NO_TIMER;
            self.running &= !(1 << NAV);
            self.next = (RECV, NO_TIMER);
        }
    }

    /// Whether `quiet_overhear` applies to a frame arriving at `at`: the MAC is quiet,
    /// not receiving, and its only running timer (the NAV's, if any) ends after the
    /// reception starts. If the NAV ends during the reception, its end only stops it
    /// (no backoff runs), and the reception's end sets it anew, later: the same state
    /// as `quiet_overhear` leaves.
    ///
    /// The MAC must be quiet (`timers_are_quiet`), as every MAC in a catch-up is: its
    /// last input left it quiet and quiet inputs keep it so. Not tested again here (an
    /// out-of-line call per overheard frame, 2 % of a MANET run's instructions). Then
    /// its transmitter is off, no failure is pending, and of its timers only the
    /// reception's and the NAV's can run, the reception's exactly while it receives:
    /// the receive state alone answers. The caller has checked that its next deadline
    /// comes after `at` (the pending timer event's test).
    #[inline(always)]
    pub fn quiet_overhear_fits(&self, at: SimTime) -> bool {
        debug_assert!(self.timers_are_quiet() && !self.resume_pending);
        let fits = self.rx_state == RxState::Idle;
        debug_assert_eq!(fits, self.overhear_fits(at));
        fits
    }

    /// Whether `waiting_overhear` applies to a frame arriving at `at`: as
    /// `quiet_overhear_fits`, at a MAC that waits for the medium with its backoff paused
    /// (in a catch-up, a MAC that `waits_quietly` or whose backoff resumed since: a
    /// running backoff fails the test, its timer runs).
    ///
    /// In a catch-up the MAC puts out nothing, so it stays as its last input left it
    /// waiting: transmit state idle, transmitter off, no failure pending, no CTS/ACK to
    /// send, and no timer running but the reception's (exactly while it receives), the
    /// NAV's and, once resumed, the backoff's. So a paused backoff and the receive state
    /// answer (debug builds check the full test).
    #[inline(always)]
    pub fn waiting_overhear_fits(&self, at: SimTime) -> bool {
        let fits = self.backoff.paused && self.rx_state == RxState::Idle;
        debug_assert_eq!(
            fits,
            self.backoff.paused
                && self.tx_state == TxState::Idle
                && self.ctrl.is_none()
                && self.overhear_fits(at)
        );
        fits
    }

    /// What `quiet_overhear` needs besides the MAC being quiet or waiting: it is not
    /// receiving, and its only running timer (the NAV's, if any) ends after `at`. The
    /// caller has checked the latter's deadline (the pending timer event's test), which
    /// only debug builds test again.
    #[inline(always)]
    fn overhear_fits(&self, at: SimTime) -> bool {
        debug_assert!(self.next.1.time_nanos() > at.as_nanos());
        self.rx_state == RxState::Idle
            && self.running & !(1 << NAV) == 0
            && !self.tx_active
            && !self.resume_pending
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
        if let Some(e) = self.ifq.pop() {
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

    // ------------------------------------------------------------------ timers

    fn start_timer(&mut self, i: usize, after: SimDuration) {
        self.timer_seq += 1;
        let at = self.now + after;
        self.set_timer(i, EventKey::new(at, self.timer_seq));
    }

    /// `set_nav` on the quiet paths, where no other timer runs: extends the NAV to
    /// `until` and arms its timer without `set_timer`'s bookkeeping (the caller sets
    /// `next`); whether it extended it.
    #[inline(always)]
    fn extend_nav_quiet(&mut self, until: SimTime) -> bool {
        if until > self.nav {
            self.nav = until;
            self.timer_seq += 1;
            self.timers[NAV] = EventKey::new(until, self.timer_seq);
            self.running |= 1 << NAV;
            true
        } else {
            false
        }
    }

    fn stop_timer(&mut self, i: usize) {
        self.set_timer(i, NO_TIMER);
    }

    fn busy(&self, i: usize) -> bool {
        self.timers[i] != NO_TIMER
    }

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
    fn backoff_resume(&mut self, difs: SimDuration) {
        self.backoff.paused = false;
        self.backoff.stime = self.now;
        self.backoff.difs_wait = difs;
        self.start_timer(BACKOFF, self.backoff.rtime + difs);
    }

    fn is_idle(&self) -> bool {
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

    fn set_rx_state(&mut self, s: RxState) {
        self.rx_state = s;
        self.check_backoff_timer();
    }

    fn set_tx_state(&mut self, s: TxState) {
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

    fn backoff_handler(&mut self) {
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

    fn defer_handler(&mut self) {
        if self.check_pkt_ctrl() {
            return;
        }
        if self.check_pkt_rts() {
            return;
        }
        self.check_pkt_tx();
    }

    fn nav_handler(&mut self) {
        if self.is_idle() && self.backoff.paused {
            self.backoff_resume(self.difs);
        }
    }

    /// `send_timer`: a response timeout, or the end of a CTS/ACK/broadcast.
    fn send_timer(&mut self) {
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
    fn send(&mut self, e: IfqEntry) {
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
            kind: FrameKind::Data,
            src: self.addr,
            dst: e.next_hop,
            duration,
            bytes,
            airtime,
            seq: self.seqno,
            retry: false,
            packet: Some(e.packet),
            quiet_up: false,
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
        Frame {
            kind,
            src: self.addr,
            dst,
            duration,
            bytes,
            airtime,
            seq: 0,
            retry: false,
            packet: None,
            quiet_up: false,
        }
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
            if let Some(e) = self.ifq.pop() {
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
    fn capture(&mut self, f: &Frame) {
        self.counters.captures += 1;
        self.set_nav(usec(self.cfg.eifs() + f.airtime));
    }

    /// `collision`: both frames are lost; the reception goes on until the later of the
    /// two ends.
    fn collision(&mut self, f: &Frame, power: f64, error: bool) {
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
    fn recv_timer(&mut self) {
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
        if f.quiet_up {
            self.quiet_up();
            return;
        }
        self.counters.delivered += 1;
        if let Some(packet) = f.packet {
            self.events.push_back(MacEvent::Received {
                packet,
                from: f.src,
            });
        }
    }

    /// A `Frame::quiet_up` frame received whole at `now` (its reception's end): counted
    /// as delivered, and as a delivery the routing agent takes if it does so before the
    /// run ends.
    #[inline]
    fn quiet_up(&mut self) {
        self.counters.delivered += 1;
        if self.now < self.quiet_up_until {
            self.quiet_ups += 1;
        }
    }

    /// Deliveries of `Frame::quiet_up` frames the routing agent takes before the run
    /// ends (see `set_quiet_up_until`), taken out of the count.
    pub fn take_quiet_ups(&mut self) -> u64 {
        std::mem::take(&mut self.quiet_ups)
    }

    /// The world delivers a packet to routing some time after its reception ends, and
    /// not at all once the run has ended: `Frame::quiet_up` deliveries count for
    /// routing only if their reception ends before `t`.
    pub fn set_quiet_up_until(&mut self, t: SimTime) {
        self.quiet_up_until = t;
    }
}
