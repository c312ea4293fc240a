//! Virtual MAC timer events.
//!
//! Contract. While a NIC is quiet (`quiet.rs`) its MAC timer event is not put in the
//! queue but kept virtual (`MacTimerSlot::virt`), a lazy event of the NIC under the
//! rules of `sim::lazy`: one armed by a real input reserves its sequence number then
//! (`sim::lazy::reserve`, `LazySeq::Known`); one armed by a virtual event carries
//! the chain of its armers' times (`LazySeq::Chain`, the NIC's `ArmerChain`), resolved
//! only when needed (a tie in time, entering the queue, the sweep). The catch-up
//! (`catch_up.rs`) runs the due ones in key order before the MAC's next real input; the
//! sweep (`World::sweep_mac_timers`) runs the overdue ones every `SWEEP_EVERY` events,
//! so that their armers are always in the queue's pop history, and pins each pending
//! one's number (`LazySeq::pin`). Two NICs' virtual numbers can be equal; an event
//! entering the queue takes its lineage along, which orders it among events of the same
//! key as the plain run's numbers would (`sim::lazy`, rule 5).
//! Guards: `deferred_quiet_mac_timers_change_no_result` (`wireless/tests.rs`),
//! `world/manet_equivalence.rs`, the per-MAC input digests (`world/mac_digest.rs`),
//! `tied_numbers_of_two_owners_keep_the_plain_order` (`sim/lazy/tests.rs`).

use super::super::Nic;
use crate::sim::{
    ArmerChain, EventKey, EventQueue, HistoryCursor, LazySeq, SimTime, TimerSlot, due_before,
};
use crate::world::Event;
use crate::world::mac_digest::Input;
use crate::world::wireless::Wireless;

/// A NIC's pending MAC timer event: the shared `TimerSlot` (deadline and generation,
/// stale events ignored), plus whether that event is virtual.
#[derive(Default)]
pub(crate) struct MacTimerSlot {
    pub slot: TimerSlot,
    /// The pending event is virtual (not in the queue), with this sequence number (see
    /// `Fast::deferred_mac_timers`, `sim::LazySeq`).
    pub virt: Option<LazySeq>,
}

impl Wireless {
    /// `catch_up` of a NIC with no reception to run (an empty list, no logged frame to
    /// read): its virtual timer events alone, without the log reader and the rest of
    /// the catch-up's set-up (a fifth of the calls at 16 kb/s). The timer's turn is
    /// `catch_up`'s (`timer_turn`).
    #[inline(never)]
    pub(super) fn catch_up_timers(
        &mut self,
        nic: u32,
        before: EventKey,
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        let i = nic as usize;
        let waiting_quiet = self.fast.waiting_quiet;
        let n = &mut self.nics[i];
        let chain = &mut self.fast.virt_chain[i];
        debug_assert!(n.fast.deferred_rx.is_empty());
        let general = n.fast.waiting;
        let mut last = None;
        let mut cur = HistoryCursor::default();
        while let (Some(v), Some(at)) = (n.mac_timer.virt, n.mac_timer.slot.pending()) {
            if !due_before(at, || v.resolve_from(chain, q, &mut cur), before) {
                break;
            }
            last = Some(at);
            timer_turn(n, chain, q, (at, v), general, waiting_quiet);
        }
        self.check_caught_up(nic, last);
        last
    }
}

/// A catch-up's turn of the virtual MAC timer event `(at, v)` that is due: what
/// `World::mac_timer` would have done when popping it, the next deadline armed as a
/// virtual event it armed. Shared by `Wireless::catch_up_as` and
/// `Wireless::catch_up_timers`; always inlined, so each keeps its own code.
#[inline(always)]
pub(super) fn timer_turn(
    n: &mut Nic,
    chain: &mut ArmerChain,
    q: &EventQueue<Event>,
    (at, v): (SimTime, LazySeq),
    general: bool,
    waiting_quiet: bool,
) {
    let next = match n.mac.poll_timeout() {
        Some(t) if t > at => Some(t),
        Some(_) => {
            n.digest.note(Input::Timer, at, || 0);
            if general {
                // In a catch-up the MAC puts out nothing, so besides its backoff being
                // paused it still waits as quietly as at its last input
                // (`Mac::waits_quietly`; debug builds check).
                let paused = n.mac.backoff_paused();
                debug_assert_eq!(paused, n.mac.waits_quietly());
                if waiting_quiet && paused {
                    n.mac.waiting_timeout(at);
                } else {
                    n.mac.handle_timeout(at);
                }
                debug_assert!(!n.mac.has_output(), "a waiting MAC's timer put out");
            } else {
                n.mac.quiet_timeout(at);
            }
            // Every timer due at `at` has fired.
            n.mac.poll_timeout()
        }
        None => None,
    };
    // The virtual event has run (`World::mac_timer`'s `fire`).
    n.mac_timer.slot.fire_live();
    match next {
        Some(t) => {
            debug_assert!(t > at && (general || n.mac.timers_are_quiet()));
            n.mac_timer.slot.arm(t);
            n.mac_timer.virt = Some(v.child(at, chain, q));
        }
        None => n.mac_timer.virt = None,
    }
}
