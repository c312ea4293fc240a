//! Which NICs are quiet, and the wake-ups of those that wait quietly.
//!
//! Contract. A NIC is quiet after an input when its MAC's pending timers can only change
//! its own state (`Mac::timers_are_quiet`: overhearing others with nothing to send) or
//! when it waits for the medium with its backoff paused (`Mac::waits_quietly`, with
//! `Fast::wait_quietly`); only an input changes that, and `arm_mac_timer_lazily` notes
//! it after each one (`Fast::loud`). A quiet NIC's timer events and receptions are
//! lazy (`virtual_timer.rs`, `air_log.rs`); when it stops being quiet they enter the
//! queue with the keys they would have had. A waiting MAC gets a wake-up
//! (`Event::MacWake`, an odd sequence number from `sim::wake_seq`, not counted as an
//! event) one nanosecond before the earliest time its backoff could end
//! (`Wireless::wait_end`), so that it enters the queue before it could put anything out.
//! Guards: `waiting_macs_deferred_change_nothing` (`wireless/tests.rs`), the MAC
//! differential tests of the wait predicates (`wireless::mac::differential`).

use super::SWEEP_EVERY;
use crate::sim::{LazySeq, SimTime, lazy, wake_seq};
use crate::world::wireless::Wireless;
use crate::world::{Event, World};

impl Wireless {
    /// The earliest time waiting `nic`'s MAC (`Mac::waits_quietly`) can put anything out
    /// unless an input comes first: `Mac::wait_bound` at its last input (`now`), with the
    /// frames it will sense that are already on the air (`Mac::wait_bound_sense`): its
    /// deferred receptions and, if it was quiet (its log cursor is then meaningful), the
    /// logged frames it has not read, which are read into its list now (the catch-up
    /// takes them from there).
    pub(super) fn wait_end(&mut self, now: SimTime, nic: u32, was_quiet: bool) -> SimTime {
        if was_quiet && self.fast.log_cursor[nic as usize] < self.log_end() {
            self.pull_log(nic);
        }
        let n = &self.nics[nic as usize];
        let mut b = n.mac.wait_bound(now);
        for r in &n.fast.deferred_rx {
            let f = &self.fast.air_frames[(r.log - self.fast.log_base) as usize];
            if !n.mac.wait_bound_sense(&mut b, r.at, f.airtime, f.duration) {
                break;
            }
        }
        n.mac.wait_end(b)
    }
}

impl World {
    /// `World::arm_mac_timer` with deferred MAC timers on (`Fast::deferred_mac_timers`):
    /// besides (re)arming the NIC's timer event, which stays virtual while the MAC is
    /// quiet, it notes whether the MAC is quiet or waits quietly, sets or cancels a
    /// waiting MAC's wake-up, and when the MAC stops being quiet puts its lazy events
    /// into the queue with their keys.
    pub(in crate::world::wireless) fn arm_mac_timer_lazily(&mut self, now: SimTime, nic: u32) {
        let w = self
            .wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds");
        let defer = w.fast.deferred_mac_timers;
        let i = nic as usize;
        let quiet_mac = w.nics[i].mac.timers_are_quiet();
        let waiting = !quiet_mac && defer && w.fast.wait_quietly && w.nics[i].mac.waits_quietly();
        let quiet = quiet_mac || waiting;
        w.nics[i].fast.waiting = waiting;
        let was_quiet = w.is_quiet(i);
        // The wake-up of a waiting MAC: one just before its backoff can end; none for
        // the others.
        let wake_slot = w.nics.len() + i;
        if waiting {
            let at = SimTime::from_nanos(w.wait_end(now, nic, was_quiet).as_nanos() - 1);
            if w.nics[i].fast.wake_at.is_none_or(|p| at < p) {
                debug_assert!(at > now);
                // An odd number no real event takes, below every number given out
                // since the first few events: a wake-up comes first among the events
                // at its time, and it takes no number from the counter.
                self.queue
                    .schedule_wake(wake_slot, at, wake_seq(nic), Event::MacWake(nic));
                w.nics[i].fast.wake_at = Some(at);
            }
        } else if w.nics[i].fast.wake_at.take().is_some() {
            self.queue.cancel_wake(wake_slot);
        }
        if quiet != was_quiet {
            w.fast.loud[i / 64] ^= 1 << (i % 64);
        }
        if quiet && !was_quiet {
            // It got real events for every frame logged so far.
            w.fast.log_cursor[i] = w.log_end();
        }
        // Deferred receptions (and those of frames logged but not yet read) enter the
        // queue with their keys once the MAC stops being quiet.
        if !quiet && was_quiet {
            w.pull_log(nic);
            let mut list = std::mem::take(&mut w.nics[i].fast.deferred_rx);
            for d in list.drain(..) {
                let (frame, sender) = w.logged(d.log);
                let slot = w.alloc_frame(frame, sender as u32);
                w.frames[slot as usize].left = 1;
                lazy::enter_queue(&mut self.queue, d.key(), Event::RxStart(nic, slot));
            }
            w.nics[i].fast.deferred_rx = list;
        }
        debug_assert!(quiet || w.nics[i].fast.deferred_rx.is_empty());
        let n = &mut w.nics[i];
        let replaced = n.mac_timer.slot.pending();
        if let Some((t, g)) = n.mac_timer.slot.after_input(n.mac.poll_timeout(), now) {
            if let (Some(p), Some(_)) = (replaced, n.mac_timer.virt) {
                // The virtual event it replaces would have been popped as stale.
                self.queue.note_superseded(p);
            }
            if defer && quiet {
                if n.mac_timer.virt.is_none() {
                    self.queue.cancel_slot(nic as usize);
                }
                n.mac_timer.virt = Some(LazySeq::Known(lazy::reserve(&mut self.queue)));
            } else {
                n.mac_timer.virt = None;
                self.queue
                    .schedule_slot(nic as usize, t, Event::MacTimer(nic, g));
            }
            return;
        }
        if let (Some(v), Some(at)) = (n.mac_timer.virt, replaced) {
            // The pending virtual event enters the queue with its key once the MAC
            // stops being quiet. It keeps its generation: it is the live event.
            // With its lineage: another NIC's virtual event can have the same key
            // (`sim::lazy`, rule 5).
            if !(defer && quiet) {
                let (seq, note) = v.note(&w.fast.virt_chain[i], &self.queue);
                n.mac_timer.virt = None;
                let g = n.mac_timer.slot.generation();
                self.queue
                    .schedule_slot_lazy(nic as usize, at, seq, note, Event::MacTimer(nic, g));
            }
        }
    }

    /// A waiting MAC's wake-up (`Fast::wait_quietly`): it catches up to now and
    /// enters the queue with its timer if its backoff runs, or waits on. No input
    /// reaches the MAC, and the pop does not count as an event.
    pub(in crate::world) fn mac_wake(&mut self, now: SimTime, nic: u32) {
        self.queue.uncount_last_pop();
        self.wl().nics[nic as usize].fast.wake_at = None;
        let key = self.queue.last_key();
        self.mac_catch_up(nic, key);
        let w = self.wl();
        let i = nic as usize;
        debug_assert!(!w.nics[i].mac.has_output());
        if w.nics[i].mac.waits_quietly() {
            // Still waiting (most wake-ups: another station's frame paused the backoff
            // again). The catch-up left its virtual timer event no later than the MAC's
            // next deadline, and it stays quiet, so `arm_mac_timer` would only set the
            // wake-up.
            debug_assert!(!w.nics[i].mac.timers_are_quiet() && w.is_quiet(i));
            debug_assert!(w.nics[i].mac.poll_timeout().is_none_or(|t| {
                w.nics[i]
                    .mac_timer
                    .slot
                    .pending()
                    .is_some_and(|p| t.max(now) >= p)
            }));
            let at = SimTime::from_nanos(w.wait_end(now, nic, true).as_nanos() - 1);
            debug_assert!(at > now);
            w.nics[i].fast.wake_at = Some(at);
            let slot = w.nics.len() + i;
            self.queue
                .schedule_wake(slot, at, wake_seq(nic), Event::MacWake(nic));
        } else {
            self.arm_mac_timer(now, nic);
        }
        if self.queue.pops() - self.wl().fast.swept_at_pop >= SWEEP_EVERY {
            self.sweep_mac_timers();
        }
    }
}
