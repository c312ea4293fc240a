//! Virtual MAC timer events.
//!
//! Contract. While a NIC is quiet (`quiet.rs`) its MAC timer event is not put in the
//! queue but kept virtual (`MacTimerSlot::virt`), with the key it would have had: a
//! virtual event armed by a real input reserves its sequence number then
//! (`EventQueue::reserve_seq`); one armed by a virtual event gets the number its armer's
//! turn would have given it, `EventQueue::seq_after` of the armer's key, looked up only
//! when needed (a tie in time, entering the queue, the sweep: `VirtSeq::Chain`). The
//! catch-up (`catch_up.rs`) runs the due ones in key order before the MAC's next real
//! input; the sweep (`World::sweep_mac_timers`) runs the overdue ones every
//! `SWEEP_EVERY` events, so that `seq_after` always finds their armers in the queue's
//! pop history. Known breach: two NICs' virtual numbers can be equal (the NIC order
//! then decides a tie; `world/manet_equivalence.rs` pins the case its run meets).
//! Guards: `deferred_quiet_mac_timers_change_no_result` (`wireless/tests.rs`),
//! `world/manet_equivalence.rs`, the per-MAC input digests (`world/mac_digest.rs`).

use super::super::Nic;
use crate::sim::{EventQueue, HistoryCursor, SimTime, TimerSlot};
use crate::world::Event;
use crate::world::mac_digest::Input;
use crate::world::wireless::Wireless;

/// A NIC's pending MAC timer event: the shared `TimerSlot` (deadline and generation,
/// stale events ignored), plus whether that event is virtual.
#[derive(Default)]
pub(crate) struct MacTimerSlot {
    pub slot: TimerSlot,
    /// The pending event is virtual (not in the queue), with this sequence number (see
    /// `Fast::deferred_mac_timers`).
    pub virt: Option<VirtSeq>,
}

/// The sequence number of a virtual MAC timer event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VirtSeq {
    /// Reserved from the queue when it was armed.
    Known(u64),
    /// Armed by a chain of virtual events: the first of them was armed by the event
    /// numbered .0, each later one by the one before it, and this one by the last. Their
    /// times are the NIC's `Fast::virt_chain`, oldest first. The number is
    /// `EventQueue::seq_after` of the last one's key, looked up only when needed (a tie
    /// in time, entering the queue, or the periodic sweep), and a link's own number only
    /// when an event was popped at the very time of the link after it.
    Chain(u64),
}

/// Links a chain may have before its number is looked up and it starts again: the
/// sweep pins every chain every `SWEEP_EVERY` events, so this only bounds the odd long
/// catch-up (the end of a run).
pub(super) const MAX_CHAIN: usize = 64;

impl VirtSeq {
    pub(super) fn resolve(self, chain: &ChainTimes, q: &EventQueue<Event>) -> u64 {
        self.resolve_from(chain, q, &mut HistoryCursor::default())
    }

    /// `resolve`, the outermost lookup through `cur` (within one catch-up the armers'
    /// times do not go back; the inner ones, only needed on a tie, do).
    pub(super) fn resolve_from(
        self,
        chain: &ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> u64 {
        match self {
            VirtSeq::Known(s) => s,
            VirtSeq::Chain(base) => match chain.times[..chain.len].split_last() {
                Some((&t, rest)) => q.seq_after_lazy_from(cur, t, || chain_seq(q, base, rest)),
                None => base,
            },
        }
    }

    /// The number of an event armed by the virtual event (`at`, self); `chain` is the
    /// NIC's.
    pub(super) fn child(
        self,
        at: SimTime,
        chain: &mut ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> VirtSeq {
        let base = match self {
            VirtSeq::Chain(b) if chain.len < MAX_CHAIN => {
                chain.times[chain.len] = at;
                chain.len += 1;
                return VirtSeq::Chain(b);
            }
            VirtSeq::Chain(_) => self.resolve_from(chain, q, cur),
            VirtSeq::Known(s) => s,
        };
        chain.times[0] = at;
        chain.len = 1;
        VirtSeq::Chain(base)
    }

    /// `self.child(p, ..).child(e, ..)`: the number of an event armed at `e` by the
    /// event that the virtual event (`p`, self) armed, both links added at once while
    /// the chain has room for them.
    #[inline(always)]
    pub(super) fn grandchild(
        self,
        p: SimTime,
        e: SimTime,
        chain: &mut ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> VirtSeq {
        match self {
            VirtSeq::Chain(b) if chain.len + 2 <= MAX_CHAIN => {
                let k = chain.len;
                chain.times[k] = p;
                chain.times[k + 1] = e;
                chain.len = k + 2;
                VirtSeq::Chain(b)
            }
            _ => self.child(p, chain, q, cur).child(e, chain, q, cur),
        }
    }
}

/// The times of a NIC's chain links (`VirtSeq::Chain`), in a fixed array: a link is
/// added at nearly every virtual event, and a store here is cheaper than a `Vec` push.
#[derive(Clone, Copy)]
pub(crate) struct ChainTimes {
    pub(super) len: usize,
    pub(super) times: [SimTime; MAX_CHAIN],
}

impl Default for ChainTimes {
    fn default() -> Self {
        ChainTimes {
            len: 0,
            times: [SimTime::ZERO; MAX_CHAIN],
        }
    }
}

/// The number of the event armed by the last of `times`, the first of them armed by
/// the event numbered `base` (see `VirtSeq::Chain`).
pub(super) fn chain_seq(q: &EventQueue<Event>, base: u64, times: &[SimTime]) -> u64 {
    match times.split_last() {
        Some((&t, rest)) => q.seq_after_lazy(t, || chain_seq(q, base, rest)),
        None => base,
    }
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
        before: (SimTime, u64),
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
            if at > before.0 || (at == before.0 && v.resolve_from(chain, q, &mut cur) > before.1) {
                break;
            }
            last = Some(at);
            timer_turn(n, chain, q, &mut cur, (at, v), general, waiting_quiet);
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
    chain: &mut ChainTimes,
    q: &EventQueue<Event>,
    cur: &mut HistoryCursor,
    (at, v): (SimTime, VirtSeq),
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
            n.mac_timer.virt = Some(v.child(at, chain, q, cur));
        }
        None => n.mac_timer.virt = None,
    }
}
