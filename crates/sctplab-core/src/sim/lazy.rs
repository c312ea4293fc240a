//! Lazy events: events an owner keeps out of the queue while they can only change that
//! owner, each with the key (time, sequence number) it would have had in the queue.
//!
//! The rules every owner follows (the wired link's end of transmission, a quiet wireless
//! NIC's MAC timer events, its deferred receptions and the air-log receptions it reads:
//! `world/wireless/fast/`):
//!
//! 1. A lazy event changes only its owner (a catch-up that leaves output behind is an
//!    internal error: `Wireless::check_caught_up`).
//! 2. Before any real input reaches the owner (the event just popped, key `before`),
//!    the owner runs its lazy events that come before it, in key order (`due_before`).
//!    A lazy event that stops being lazy enters the queue with its key
//!    (`EventQueue::schedule_reserved`, `schedule_slot_reserved`).
//! 3. Each lazy event is run or put into the queue while the pop history still holds
//!    its time (`EventQueue::HISTORY` pops; the wireless world sweeps every
//!    `SWEEP_EVERY` pops), since the numbers of the events it arms are looked up there.
//! 4. A lazy event armed by a real input takes its number then (`EventQueue::reserve_seq`:
//!    `LazySeq::Known`). One armed by another lazy event gets the number the queue's
//!    counter would have given it while its armer was handled: the odd number just below
//!    the counter at the first pop after the armer (`sim::seq_below`). Looking that up
//!    needs the armer's own number only when a pop fell at the armer's very time, so a
//!    chain of such events keeps the times of its links (`ArmerChain`) and resolves its
//!    number only on a tie in time (`LazySeq::Chain`).
//!
//! The keys themselves follow the even/odd rule of `sim::key`.

use super::{EventQueue, HistoryCursor, SimTime};

/// Whether a lazy event at `at`, with the number `seq()` (asked for only on a tie in
/// time), comes before the real input with key `before` and so runs before it (rule 2).
#[inline(always)]
pub fn due_before(at: SimTime, seq: impl FnOnce() -> u64, before: (SimTime, u64)) -> bool {
    at < before.0 || (at == before.0 && seq() <= before.1)
}

/// The sequence number of a lazy event (rule 4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LazySeq {
    /// Reserved from the queue when it was armed by a real input.
    Known(u64),
    /// Armed by a chain of lazy events: the first of them was armed by the event
    /// numbered .0, each later one by the one before it, and this one by the last. Their
    /// times are the owner's `ArmerChain`, oldest first. The number is the one the
    /// counter would have given while the last link was handled, looked up only when
    /// needed (a tie in time, entering the queue, or the periodic sweep), and a link's
    /// own number only when an event was popped at the very time of the link after it.
    Chain(u64),
}

/// Links a chain may have before its number is looked up and it starts again: an owner
/// that pins its chain regularly (the wireless sweep) only meets this bound in the odd
/// long catch-up (the end of a run).
pub const MAX_CHAIN: usize = 64;

/// The times of the links of an owner's pending `LazySeq::Chain`, in a fixed array: a
/// link is added at nearly every lazy event, and a store here is cheaper than a `Vec`
/// push.
#[derive(Clone, Copy)]
pub struct ArmerChain {
    len: usize,
    times: [SimTime; MAX_CHAIN],
}

impl Default for ArmerChain {
    fn default() -> Self {
        ArmerChain {
            len: 0,
            times: [SimTime::ZERO; MAX_CHAIN],
        }
    }
}

impl ArmerChain {
    /// The number of an event armed at `e` by the event that the event (`a`, `seq`)
    /// armed: the chain starts afresh with those two links.
    #[inline(always)]
    pub fn start_pair(&mut self, a: SimTime, seq: u64, e: SimTime) -> LazySeq {
        self.times[0] = a;
        self.times[1] = e;
        self.len = 2;
        LazySeq::Chain(seq)
    }
}

impl LazySeq {
    /// The number (rule 4).
    pub fn resolve<E>(self, chain: &ArmerChain, q: &EventQueue<E>) -> u64 {
        self.resolve_from(chain, q, &mut HistoryCursor::default())
    }

    /// `resolve`, the outermost lookup through `cur` (within one catch-up the armers'
    /// times do not go back; the inner ones, only needed on a tie, do).
    pub fn resolve_from<E>(
        self,
        chain: &ArmerChain,
        q: &EventQueue<E>,
        cur: &mut HistoryCursor,
    ) -> u64 {
        match self {
            LazySeq::Known(s) => s,
            LazySeq::Chain(base) => match chain.times[..chain.len].split_last() {
                Some((&t, rest)) => q.seq_after_lazy_from(cur, t, || chain_seq(q, base, rest)),
                None => base,
            },
        }
    }

    /// The number of an event armed by the lazy event (`at`, self); `chain` is the
    /// owner's.
    pub fn child<E>(
        self,
        at: SimTime,
        chain: &mut ArmerChain,
        q: &EventQueue<E>,
        cur: &mut HistoryCursor,
    ) -> LazySeq {
        let base = match self {
            LazySeq::Chain(b) if chain.len < MAX_CHAIN => {
                chain.times[chain.len] = at;
                chain.len += 1;
                return LazySeq::Chain(b);
            }
            LazySeq::Chain(_) => self.resolve_from(chain, q, cur),
            LazySeq::Known(s) => s,
        };
        chain.times[0] = at;
        chain.len = 1;
        LazySeq::Chain(base)
    }

    /// `self.child(p, ..).child(e, ..)`: the number of an event armed at `e` by the
    /// event that the lazy event (`p`, self) armed, both links added at once while the
    /// chain has room for them.
    #[inline(always)]
    pub fn grandchild<E>(
        self,
        p: SimTime,
        e: SimTime,
        chain: &mut ArmerChain,
        q: &EventQueue<E>,
        cur: &mut HistoryCursor,
    ) -> LazySeq {
        match self {
            LazySeq::Chain(b) if chain.len + 2 <= MAX_CHAIN => {
                let k = chain.len;
                chain.times[k] = p;
                chain.times[k + 1] = e;
                chain.len = k + 2;
                LazySeq::Chain(b)
            }
            _ => self.child(p, chain, q, cur).child(e, chain, q, cur),
        }
    }
}

/// The number of the event armed by the last of `times`, the first of them armed by the
/// event numbered `base` (see `LazySeq::Chain`).
fn chain_seq<E>(q: &EventQueue<E>, base: u64, times: &[SimTime]) -> u64 {
    match times.split_last() {
        Some((&t, rest)) => q.seq_after_lazy(t, || chain_seq(q, base, rest)),
        None => base,
    }
}

#[cfg(test)]
mod tests;
