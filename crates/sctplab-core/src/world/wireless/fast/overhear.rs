//! A deferred reception at a quiet NIC, and the one-step form of an overheard frame.
//!
//! Contract. `QuietNic::deferred_rx_start` is what the reception's `RxStart` event
//! would have done at a MAC that stays quiet: only its timer may need re-arming, as a
//! virtual event armed by this one. `QuietNic::overhear` runs a reception and its end
//! in one step where nothing else reaches the MAC in between (the MAC idle with at most
//! its NAV running, the next reception after the end), changing the MAC as the two
//! steps would (`Mac::quiet_overhear`, `Mac::waiting_overhear`) and arming the virtual
//! event with the key chain the two steps would have built. Decodability comes from the
//! distance at transmission unless a threshold lies within the distance the nodes can
//! have moved while the frame propagated (`QuietNic::decodable`; debug builds check it
//! against the positions at arrival).
//! Guards: `overheard_frame_in_one_step_changes_nothing`,
//! `waiting_macs_deferred_change_nothing` (`wireless/tests.rs`), the MAC differential
//! tests (`wireless::mac::differential`), the per-MAC input digests.

use super::air_log::{DeferredRx, LogReader};
use super::catch_up::{Pending, QuietNic};
use super::traced::LazyCapture;
use crate::sim::{EventKey, EventQueue, LazySeq, SimDuration, SimTime};
use crate::wireless::frame::Frame;
use crate::wireless::propagation::Reception;
use crate::world::Event;
use crate::world::mac_digest::{Input, frame_key};

impl<'a> QuietNic<'a> {
    /// Whether deferred reception `r` is decodable, and its power if that had to be
    /// computed.
    #[inline(always)]
    pub(super) fn decodable(&mut self, r: DeferredRx) -> (bool, Option<f64>) {
        // The sender's node is looked up only where its position is needed (rarely).
        let sender = |rd: &LogReader<'_>| rd.entries[(r.log - rd.base) as usize].sender_node;
        // Decodability is by the distance when the first bit arrives. While the frame
        // propagated (`dist_tx` / c, rounded to the ns) each node moved at most
        // max_speed * that time; unless a bound lies that close to the distance at
        // transmission, the answer is the same there and needs no positions now.
        // max_speed * that time, with the constant parts summed once (`near_margin`):
        // rounded a little differently, by far less than the slack.
        let (per_m, fixed) = self.near_margin;
        let near = match self.sure {
            // Within the band around the one change of the answer (almost never), the
            // positions decide.
            Some((lo, hi)) => {
                if r.dist_tx <= lo {
                    Some(true)
                } else if r.dist_tx > hi {
                    Some(false)
                } else {
                    None
                }
            }
            None => self
                .rd
                .rx_power
                .decodable_near(r.dist_tx, r.dist_tx * per_m + fixed),
        };
        match near {
            Some(dec) => {
                if cfg!(debug_assertions) {
                    let d = self.rd.power_from(sender(&self.rd) as usize, r.at).0;
                    let exact = self.rd.rx_power.classify(d) == Reception::Decodable;
                    assert_eq!(dec, exact, "decodability at {d} m from {} m", r.dist_tx);
                }
                (dec, None)
            }
            None => {
                let (d, p) = self.rd.power_from(sender(&self.rd) as usize, r.at);
                (
                    self.rd.rx_power.classify(d) == Reception::Decodable,
                    Some(p),
                )
            }
        }
    }

    /// Logged reception `r` and its end in one step, when nothing else happens at the
    /// NIC in between: the MAC is idle with at most its NAV running, which ends after
    /// the reception does, as does the pending virtual timer event; the next reception
    /// (`next`, or the list's first) arrives after the end, which comes before the
    /// input `before`. Then `deferred_rx_start` and the virtual reception-end event
    /// (`catch_up`'s timer turn) would change the MAC as `Mac::quiet_overhear` does
    /// and leave the timer event armed as here (the reception end's, armed by this
    /// reception, then the next deadline's, armed by the reception end): the frame
    /// need not be copied into the MAC nor its end go through the loop. Returns the
    /// end, or `None` (nothing done) when that does not hold.
    ///
    /// A waiting MAC (`general`) instead takes `Mac::rx_start` and `waiting_timeout`
    /// at the end, which change it as `Mac::waiting_overhear` does while its backoff is
    /// paused when the frame arrives (`Mac::waiting_overhear_fits`); if it resumes at
    /// the end, the backoff's end is the next deadline.
    #[inline(always)]
    pub(super) fn overhear(
        &mut self,
        r: DeferredRx,
        next: Option<DeferredRx>,
        before: EventKey,
        q: &mut EventQueue<Event>,
        general: bool,
    ) -> Option<SimTime> {
        let (e, airtime, duration, quiet_up) = self.ends_alone(r, next, before)?;
        let t = &self.n.mac_timer;
        // The MAC's next deadline, none as `u64::MAX`: that only fails the tests below
        // when the end itself saturated at `SimTime::MAX` (then the two steps run).
        let deadline = self.n.mac.next_deadline_nanos();
        let later = deadline > e.as_nanos();
        let pending = match (t.slot.pending(), t.virt) {
            (None, _) if later => Pending::After(None),
            (Some(p), Some(_)) if p > e && later => Pending::After(Some(p)),
            // The NAV ends during the reception, and the pending event is its end.
            (Some(p), Some(v)) if p > r.at && p < e && deadline == p.as_nanos() => {
                Pending::During(p, v)
            }
            _ => return None,
        };
        let fits = if general {
            self.n.mac.waiting_overhear_fits(r.at)
        } else {
            self.n.mac.quiet_overhear_fits(r.at)
        };
        if !fits {
            return None;
        }
        // The plain run's inputs: the reception, the NAV's end during it, its end.
        self.n
            .digest
            .note(Input::Rx, r.at, || frame_key(&self.rd.logged(r.log).0));
        if let Pending::During(p, _) = pending {
            self.n.digest.note(Input::Timer, p, || 0);
        }
        self.n.digest.note(Input::Timer, e, || 0);
        // The power is not needed: no other frame overlaps this one.
        let (decodable, _) = self.decodable(r);
        self.note_capture(r, decodable);
        let quiet_up = self.delivered_frame(r, quiet_up);
        if general {
            self.n
                .mac
                .waiting_overhear(r.at, airtime, duration, decodable, quiet_up);
        } else {
            self.n
                .mac
                .quiet_overhear(r.at, airtime, duration, decodable, quiet_up);
        }
        self.rearm_after(r, e, pending, q);
        Some(e)
    }

    /// `overhear` of `r` at a quiet MAC whose only running timer is the NAV's, ending
    /// at `nav_end`, before `r` arrives, the pending virtual timer event being that end.
    /// Its turn (`Mac::quiet_timeout`) would stop the NAV, arm nothing and leave no
    /// event pending; the reception's end sets the NAV anew, later, either way
    /// (`Mac::quiet_overhear_after_nav`). So both go in the one step when the reception
    /// ends before anything else happens (`ends_alone`); `None` (nothing done) if not.
    #[inline(always)]
    pub(super) fn overhear_after_nav(
        &mut self,
        r: DeferredRx,
        nav_end: SimTime,
        next: Option<DeferredRx>,
        before: EventKey,
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        let (e, airtime, duration, quiet_up) = self.ends_alone(r, next, before)?;
        self.n.digest.note(Input::Timer, nav_end, || 0);
        self.n
            .digest
            .note(Input::Rx, r.at, || frame_key(&self.rd.logged(r.log).0));
        self.n.digest.note(Input::Timer, e, || 0);
        let (decodable, _) = self.decodable(r);
        self.note_capture(r, decodable);
        let quiet_up = self.delivered_frame(r, quiet_up);
        self.n
            .mac
            .quiet_overhear_after_nav(nav_end, r.at, airtime, duration, decodable, quiet_up);
        // After the NAV end's turn, no event is pending.
        self.rearm_after(r, e, Pending::After(None), q);
        Some(e)
    }

    /// With `--pcap`, a decodable reception goes to the NIC's capture as the plain
    /// run's `rx_start` writes it (`World::write_lazy_captures`).
    #[inline(always)]
    fn note_capture(&mut self, r: DeferredRx, decodable: bool) {
        if self.capture && decodable {
            self.captures.push(LazyCapture {
                nic: self.nic,
                at: r.at,
                log: r.log,
            });
        }
    }

    /// The frame of reception `r` if its delivery is only counted (`quiet_up`: a
    /// logged broadcast frame), which the MAC then keeps for the ns-2 trace if asked
    /// (`Mac::keep_counted_deliveries`).
    #[inline(always)]
    fn delivered_frame(&self, r: DeferredRx, quiet_up: bool) -> Option<&'a Frame> {
        let frames: &'a [Frame] = self.rd.frames;
        quiet_up.then(|| &frames[(r.log - self.rd.base) as usize])
    }

    /// The end of reception `r`, its airtime and Duration field, if it ends before the
    /// next reception (`next`, or the list's first) arrives and before `before`.
    #[inline(always)]
    pub(super) fn ends_alone(
        &self,
        r: DeferredRx,
        next: Option<DeferredRx>,
        before: EventKey,
    ) -> Option<(SimTime, SimDuration, SimDuration, bool)> {
        let k = (r.log - self.rd.base) as usize;
        let (airtime, duration, bcast) = {
            let f = &self.rd.frames[k];
            (f.airtime, f.duration, f.dst.is_broadcast())
        };
        let e = r.at + airtime;
        if e >= before.time()
            || next.is_some_and(|s| s.at <= e)
            || self.n.fast.deferred_rx.front().is_some_and(|s| s.at <= e)
        {
            return None;
        }
        // A logged broadcast frame is a quiet delivery wherever it is read (see
        // `LogReader::logged`).
        Some((e, airtime, duration, bcast))
    }

    /// The virtual timer event after the one step of `overhear` (or
    /// `overhear_after_nav`) of reception `r`, ending at `e`, with `pending` the event
    /// pending before it: as the reception's start and end turns would have left it.
    #[inline(always)]
    pub(super) fn rearm_after(
        &mut self,
        r: DeferredRx,
        e: SimTime,
        pending: Pending,
        q: &mut EventQueue<Event>,
    ) {
        let n = &mut *self.n;
        // The reception end's event replaces a pending one after it (`After`) or is
        // armed by the NAV end's turn (`During`); the reception end's turn arms the next
        // deadline's, if any. One generation each, as in the plain run.
        if let Pending::After(Some(p)) = pending {
            q.note_superseded(p);
        }
        let next = n.mac.poll_timeout();
        n.mac_timer.slot.run_in_place_then(next);
        match next {
            Some(t) => {
                debug_assert!(t > e);
                let v = match pending {
                    // Armed by the reception end, itself armed by this reception: the
                    // chain `LazySeq::child` would build, written at once.
                    Pending::After(_) => self.chain.start_pair(r.at, r.seq, e),
                    Pending::During(p, v) => v.grandchild(p, e, self.chain, q),
                };
                n.mac_timer.virt = Some(v);
            }
            // No event pending: the chain is not looked at again before a new one
            // starts it afresh.
            None => n.mac_timer.virt = None,
        }
    }

    /// What `rx_start` would have done with the deferred `RxStart` (at, seq): the MAC
    /// stays quiet, so only its timer may need re-arming, as a virtual event armed by
    /// this one.
    #[inline(always)]
    pub(super) fn deferred_rx_start(
        &mut self,
        r: DeferredRx,
        q: &mut EventQueue<Event>,
        general: bool,
    ) {
        let DeferredRx { at, seq, log, .. } = r;
        let (frame, sender) = self.rd.logged(log);
        self.n.digest.note(Input::Rx, at, || frame_key(&frame));
        let (decodable, power) = self.decodable(r);
        self.note_capture(r, decodable);
        if self.n.mac.needs_power().0 {
            // Receiving another frame: capture needs both powers (`mac_rx_start`).
            if self.n.mac.needs_power().1 {
                let (src, t) = *self.src;
                let p = self.rd.power_from(src as usize, t).1;
                self.n.mac.set_rx_power(p);
            }
            let p = match power {
                Some(p) => p,
                None => self.rd.power_from(sender, at).1,
            };
            self.n.mac.rx_start(at, &frame, p, decodable);
        } else {
            // Not receiving: the power is only needed if a later frame overlaps.
            let p = power.unwrap_or_else(|| {
                *self.src = (sender as u32, at);
                f64::NAN
            });
            if general {
                self.n.mac.rx_start_idle(at, &frame, p, decodable);
            } else {
                self.n.mac.quiet_rx_start_idle(at, &frame, p, decodable);
            }
        }
        let n = &mut *self.n;
        debug_assert!(!n.mac.has_output(), "a deferred reception produced output");
        debug_assert!(general || n.mac.timers_are_quiet());
        let replaced = n.mac_timer.slot.pending();
        if n.mac_timer
            .slot
            .after_input(n.mac.poll_timeout(), at)
            .is_some()
        {
            match (replaced, n.mac_timer.virt) {
                (Some(p), Some(_)) => q.note_superseded(p),
                (Some(_), None) => q.cancel_slot(self.nic as usize),
                _ => {}
            }
            n.mac_timer.virt = Some(LazySeq::Known(seq).child(at, self.chain, q));
        }
    }
}
