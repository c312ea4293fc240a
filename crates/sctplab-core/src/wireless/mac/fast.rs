//! The MAC's fast paths: what the world's accelerators (`world/`: quiet and
//! waiting NICs, deferred timers, the air log) call instead of the plain entry points,
//! and the facts they rest on. None of this is ns-2's; each path leaves the MAC in the
//! state the plain rules (`mac.rs`, `dcf.rs`) would have left it in.
//!
//! # Equivalence contract
//!
//! `Mac::mode()` says how the world may drive a MAC after an input, in the spirit of
//! smoltcp's `PollAt`:
//!
//! - `Mode::General`: every timer runs when it falls due, through `handle_timeout`.
//! - `Mode::Quiet`: its pending timers only change its own state (a reception end of a
//!   frame it will not act on, a NAV end), so the world may run them late, just before
//!   the MAC's next input (`quiet_timeout`), and may hand it overheard frames in one step
//!   (`quiet_rx_start_idle`, `quiet_overhear`, `quiet_overhear_after_nav`).
//! - `Mode::Waiting`: it waits for the medium with its backoff paused; nothing comes out
//!   before `wait_end(wait_bound(..))`, so the world may do the same provided it looks
//!   again before then (`waiting_timeout`, `waiting_overhear`, `wait_bound_sense`).
//!
//! Each path must give the whole MAC state (timers and their start numbers, NAV,
//! backoff, frames held, counters, queue, random stream) that the general path gives:
//! `mac/differential.rs` checks that on random reachable states; `world/manet_equivalence.rs`,
//! `world/mac_digest.rs` and `tests/manet_snapshots.rs` check whole runs.
//!
//! # Two pieces of bookkeeping the world needs
//!
//! - Lazy power: the power of an arriving frame only matters when it overlaps another
//!   (capture), so the world may pass NaN ("not computed") to `rx_start` while the MAC is
//!   not receiving (`needs_power`) and supply it later (`set_rx_power`).
//! - Counted deliveries (`Frame::quiet_up`): a receiver's copy of a broadcast frame whose
//!   delivery would only be dropped by the routing agent as a duplicate (a route request
//!   it has seen) is counted (`take_quiet_ups`) instead of put out, so that its reception
//!   keeps the MAC quiet. The mark rides on the frame (the MAC keeps the frame being
//!   received, and a collision may replace it by another copy), which is why it is a
//!   field of `Frame` rather than a table in the world; and the count stays in the MAC
//!   because only the MAC's reception rules, run at the reception's end (often inside
//!   a fast path that does not go through the world), decide whether the frame was
//!   received whole (not collided, errored or lost to its own transmission). For the
//!   ns-2 trace (which writes a line for each delivery) the MAC also keeps each counted
//!   delivery when asked (`keep_counted_deliveries`, `take_counted_deliveries`).

use crate::sim::{EventKey, SimDuration, SimTime};

use super::super::frame::{Frame, MacAddr};
use super::{BACKOFF, DEFER, IF, Mac, NAV, NO_TIMER, RECV, RxFrame, RxState, SEND, TxState, due};
use crate::net::PacketId;

/// The timers a quiet or waiting MAC has none of, as bits of `Mac::running`.
const ACTIVE_TIMERS: u8 = (1 << DEFER) | (1 << BACKOFF) | (1 << SEND) | (1 << IF);

/// How the world may drive a MAC until its next input (`Mac::mode`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Every timer runs when due, through `handle_timeout`.
    General,
    /// Its timers only change its own state and may run late (`Mac::timers_are_quiet`).
    Quiet,
    /// It waits for the medium with its backoff paused (`Mac::waits_quietly`).
    Waiting,
}

/// A lower bound of when a waiting MAC's backoff can end (`Mac::wait_bound`): the
/// medium is not idle before `idle_from`, and at least `rest` of the backoff's slots are
/// left to count after a DIFS of idle medium.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct WaitBound {
    idle_from: SimTime,
    rest: SimDuration,
}

impl Mac {
    /// Whether an arriving frame's power is needed (the MAC is receiving another, so
    /// capture decides), and whether the frame being received lacks its power (NaN was
    /// passed to `rx_start`).
    #[inline]
    pub(crate) fn needs_power(&self) -> (bool, bool) {
        let receiving = self.rx_state != RxState::Idle;
        (
            receiving,
            receiving && self.rx.is_some_and(|r| r.power.is_nan()),
        )
    }

    /// Supplies the power of the frame being received (see `rx_start`).
    pub(crate) fn set_rx_power(&mut self, power_w: f64) {
        if let Some(r) = self.rx.as_mut() {
            r.power = power_w;
        }
    }

    /// How the world may drive this MAC until its next input (see the module's
    /// contract). Both non-general modes need it idle (transmit state idle, transmitter
    /// off, no CTS/ACK to send, no defer, backoff, response or transmission timer) with
    /// at most a reception end of a frame it will not act on (`rx_end_is_passive`) and a
    /// NAV end pending. `Quiet` then also has nothing to send (no packet, frame or
    /// backoff); `Waiting` holds a packet whose backoff is paused and no failure pends.
    /// The two are exclusive: a paused backoff is a running one.
    #[inline]
    pub(crate) fn mode(&self) -> Mode {
        debug_assert!(!self.backoff.paused || self.backoff.busy);
        if self.tx_state != TxState::Idle
            || self.tx_active
            || self.ctrl.is_some()
            || self.running & ACTIVE_TIMERS != 0
            || !self.rx_end_is_passive()
        {
            Mode::General
        } else if !self.backoff.busy && !self.holding && self.tx.is_none() && self.rts.is_none() {
            Mode::Quiet
        } else if self.backoff.paused && !self.resume_pending {
            Mode::Waiting
        } else {
            Mode::General
        }
    }

    /// Whether the reception in progress, if any, ends without the MAC acting on it:
    /// collided or errored (`receive_end` only counts and sets the NAV), addressed to
    /// another station and not tapped (sets the NAV; a tapped one goes up as
    /// `Overheard`, `Mac::taps`), or a counted delivery (`Frame::quiet_up`).
    #[inline(always)]
    fn rx_end_is_passive(&self) -> bool {
        self.timers[RECV] == NO_TIMER
            || self.rx.is_none_or(|rx| {
                self.rx_state == RxState::Coll
                    || rx.error
                    || rx.frame.quiet_up
                    || (rx.frame.dst != self.addr
                        && !rx.frame.dst.is_broadcast()
                        && !self.taps(&rx.frame))
            })
    }

    /// `mode() == Mode::Quiet`: the MAC's pending timers only change its own state when
    /// they fire: it is idle with nothing to send and at most a reception end and a NAV
    /// end are pending, where the reception is of a frame it will not act on. Then
    /// `receive_end` only counts and sets the NAV, and `nav_handler` has no backoff to
    /// resume: no frame, event or timer other than the NAV comes out. The world may then
    /// run such timers late, just before the MAC's next input.
    #[inline]
    pub(crate) fn timers_are_quiet(&self) -> bool {
        self.mode() == Mode::Quiet
    }

    /// `mode() == Mode::Waiting`: the MAC only waits for the medium with its backoff
    /// paused: nothing but a reception end (of a frame it will not act on) and a NAV end
    /// can fire, and neither puts out anything (they may resume the backoff, whose own
    /// end is the first thing that can; see `wait_bound`). The packet it holds and the
    /// RTS made for it wait for that end. The world may run such a MAC's timers and
    /// overheard frames late too, provided it looks again before that time.
    #[inline]
    pub(crate) fn waits_quietly(&self) -> bool {
        self.mode() == Mode::Waiting
    }

    /// Whether the backoff is paused.
    #[inline(always)]
    pub(crate) fn backoff_paused(&self) -> bool {
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
    pub(crate) fn wait_bound(&self, now: SimTime) -> WaitBound {
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
    pub(crate) fn wait_end(&self, b: WaitBound) -> SimTime {
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
    pub(crate) fn wait_bound_sense(
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

    /// `poll_timeout` in nanoseconds, `u64::MAX` for none: one load and no 128-bit
    /// comparison, for the catch-up's per-frame tests (a timer due at `SimTime::MAX`
    /// itself reads as none, which only ever makes those tests fail, never pass).
    #[inline(always)]
    pub(crate) fn next_deadline_nanos(&self) -> u64 {
        self.next.1.time_nanos()
    }

    /// `handle_timeout` for a MAC whose timers are quiet (`timers_are_quiet`): only a
    /// reception end and a NAV end can be due. The same state changes, without the
    /// general dispatch: no backoff runs, so leaving the receive state and the NAV end
    /// (`nav_handler`, which only resumes a paused backoff) check nothing else.
    #[inline]
    pub(crate) fn quiet_timeout(&mut self, now: SimTime) {
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
                    self.quiet_up(&rx.frame);
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
    pub(crate) fn waiting_timeout(&mut self, now: SimTime) {
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
    pub(crate) fn quiet_rx_start_idle(
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
    pub(crate) fn rx_start_idle(
        &mut self,
        now: SimTime,
        frame: &Frame,
        power_w: f64,
        decodable: bool,
    ) {
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
    pub(crate) fn quiet_overhear(
        &mut self,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: Option<&Frame>,
    ) {
        debug_assert!(self.quiet_overhear_fits(at));
        self.overhear_in_one_step(at, airtime, duration, decodable, quiet_up);
        debug_assert!(!self.backoff.paused);
    }

    /// Whether the NAV's timer is the only one running and ends at `t`.
    #[inline(always)]
    pub(crate) fn only_nav_due_at(&self, t: SimTime) -> bool {
        self.running == 1 << NAV && self.next.1.time_nanos() == t.as_nanos()
    }

    /// `quiet_timeout(nav_end)` and then `quiet_overhear(at, ..)`, at a quiet MAC whose
    /// only running timer is the NAV's, ending at `nav_end` before the frame arrives at
    /// `at`. The NAV's end only stops it (no backoff runs), and the reception's end,
    /// later, sets it anew and restarts its timer: the same state as after
    /// `quiet_overhear` alone.
    #[inline(always)]
    pub(crate) fn quiet_overhear_after_nav(
        &mut self,
        nav_end: SimTime,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: Option<&Frame>,
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
    pub(crate) fn waiting_overhear(
        &mut self,
        at: SimTime,
        airtime: SimDuration,
        duration: SimDuration,
        decodable: bool,
        quiet_up: Option<&Frame>,
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
        quiet_up: Option<&Frame>,
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
        if let Some(f) = quiet_up.filter(|_| decodable) {
            self.quiet_up(f);
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
    pub(crate) fn quiet_overhear_fits(&self, at: SimTime) -> bool {
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
    pub(crate) fn waiting_overhear_fits(&self, at: SimTime) -> bool {
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

    /// The delivery of a received DATA frame (already counted as delivered) is only
    /// counted when the world marked the frame `Frame::quiet_up`: as a delivery the
    /// routing agent takes if its reception ended before `quiet_up_until`. True then
    /// (nothing goes up).
    #[inline]
    pub(super) fn delivery_counted_only(&mut self, f: &Frame) -> bool {
        if !f.quiet_up {
            return false;
        }
        self.count_quiet_up(f);
        true
    }

    /// A `Frame::quiet_up` frame `f` received whole at `now` (its reception's end), as
    /// a delivery the routing agent takes if it does so before the run ends; kept
    /// whole if the world asked for that (`keep_counted_deliveries`).
    #[inline]
    fn count_quiet_up(&mut self, f: &Frame) {
        if self.now < self.fast.quiet_up_until {
            self.fast.quiet_ups += 1;
        }
        if self.fast.keep {
            self.keep_delivery(f);
        }
    }

    #[cold]
    #[inline(never)]
    fn keep_delivery(&mut self, f: &Frame) {
        self.fast.kept.push(CountedDelivery {
            at: self.now,
            from: f.src,
            packet: f.packet,
        });
    }

    /// `count_quiet_up` on the fast paths, which also count the delivery itself.
    #[inline]
    fn quiet_up(&mut self, f: &Frame) {
        self.counters.delivered += 1;
        self.count_quiet_up(f);
    }

    /// Keep each counted delivery (`take_counted_deliveries`): what a plain run's MAC
    /// would have put out, for the ns-2 trace (`--trace ns2`), which writes a line for
    /// it.
    pub(crate) fn keep_counted_deliveries(&mut self) {
        self.fast.keep = true;
    }

    /// The counted deliveries kept since the last call, in the order the MAC made them
    /// (its reception ends' order).
    pub(crate) fn take_counted_deliveries(&mut self, into: &mut Vec<CountedDelivery>) {
        into.append(&mut self.fast.kept);
    }

    /// Deliveries of `Frame::quiet_up` frames the routing agent takes before the run
    /// ends (see `set_quiet_up_until`), taken out of the count.
    pub(crate) fn take_quiet_ups(&mut self) -> u64 {
        std::mem::take(&mut self.fast.quiet_ups)
    }

    /// The world delivers a packet to routing some time after its reception ends, and
    /// not at all once the run has ended: `Frame::quiet_up` deliveries count for
    /// routing only if their reception ends before `t`.
    pub(crate) fn set_quiet_up_until(&mut self, t: SimTime) {
        self.fast.quiet_up_until = t;
    }
}

/// A delivery the MAC only counted (`Frame::quiet_up`), as a plain MAC would have put
/// it out (`MacEvent::Received`): when its reception ended, from whom, which packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CountedDelivery {
    pub at: SimTime,
    pub from: MacAddr,
    pub packet: Option<PacketId>,
}

/// The counted deliveries' bookkeeping (see the module's doc).
#[derive(Clone, Debug)]
pub(super) struct FastState {
    /// Deliveries of `Frame::quiet_up` frames counted instead of put out, those whose
    /// reception ended before `quiet_up_until` (the world's routing agent would have
    /// taken the packet before the run's end).
    quiet_ups: u64,
    quiet_up_until: SimTime,
    /// Keep each counted delivery in `kept` (`keep_counted_deliveries`).
    keep: bool,
    kept: Vec<CountedDelivery>,
}

impl Default for FastState {
    fn default() -> Self {
        FastState {
            quiet_ups: 0,
            quiet_up_until: SimTime::MAX,
            keep: false,
            kept: Vec::new(),
        }
    }
}
