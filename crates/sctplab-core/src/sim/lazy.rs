//! Lazy events: events an owner keeps out of the queue while they can only change that
//! owner, each with the key (time, sequence number) it would have had in the queue.
//!
//! The rules every owner follows (the wired link's end of transmission, `ReservedEvent`;
//! a quiet wireless NIC's MAC timer events, its deferred receptions and the air-log
//! receptions it reads: `world/wireless/fast/`). Owners reserve numbers (`reserve`,
//! `reserve_block`), put lazy events into the queue (`enter_queue`) and ask whether one
//! has passed (`passed`) through this file, not the queue's own calls.
//!
//! 1. A lazy event changes only its owner (a catch-up that leaves output behind is an
//!    internal error: `Wireless::check_caught_up`).
//! 2. Before any real input reaches the owner (the event just popped, key `before`),
//!    the owner runs its lazy events that come before it, in key order (`due_before`).
//!    A lazy event that stops being lazy enters the queue with its key
//!    (`enter_queue`, `EventQueue::schedule_slot_lazy`).
//! 3. Each lazy event is run or put into the queue while the pop history still holds
//!    its time (`EventQueue::HISTORY` pops; the wireless world sweeps every
//!    `SWEEP_EVERY` pops), since the numbers of the events it arms are looked up there.
//! 4. A lazy event armed by a real input takes its number then (`reserve`:
//!    `LazySeq::Known`). One armed by another lazy event gets the number the queue's
//!    counter would have given it while its armer was handled: the odd number just below
//!    the counter at the first pop after the armer (`sim::key::seq_below`). Looking that up
//!    needs the armer's own number only when a pop fell at the armer's very time, so a
//!    chain of such events keeps the times of its links (`ArmerChain`) and resolves its
//!    number only on a tie in time (`LazySeq::Chain`).
//!
//! 5. Two lazy events of different owners can get the same number (their armers were
//!    handled between the same two pops, so rule 4 gives both the number below the
//!    same counter value). The plain run numbered them in the order their armers ran,
//!    so a tie goes to the one whose armer's key is lower, then (armers tied too) to the
//!    lower key of the armer's armer, and so on: the keys of its armers, newest first,
//!    compared in order (`Lineage`). A lineage ends at the first armer with a reserved
//!    (even, unique) number, and at `MAX_LINEAGE` keys; two events alike that far back
//!    keep the queue's order (slot order), the one case the rule leaves open. Only events
//!    that enter the queue meet another owner's, and the queue's slots order them so
//!    (`EventQueue::schedule_slot_lazy`).
//!
//!    Ties are rare (a few per 1,000 s of a 46-node run), so a lineage is looked up only
//!    where one can need it. An event entering the queue takes its chain of armers
//!    (`LineageNote`), looked up if another slot's event has its key, when a number
//!    looked up meets it popped, or at the next sweep if a tie can still need it; a
//!    sweep's pin looks up the number alone, and the lineage only if a tie can need it
//!    (`may_tie`: another pending event has the key). The chain's links are younger
//!    than the last sweep, so the pop history still holds them (rule 3); past the next
//!    sweep no lookup can meet the key of an event popped before it.
//!
//! The keys themselves follow the even/odd rule of `sim::key`.

use super::queue::Tie;
use super::{EventKey, EventQueue, HistoryCursor, SimTime};

/// Whether a lazy event at `at`, with the number `seq()` (asked for only on a tie in
/// time), comes before the real input with key `before` and so runs before it (rule 2).
#[inline(always)]
pub fn due_before(at: SimTime, seq: impl FnOnce() -> u64, before: EventKey) -> bool {
    at < before.time() || (at == before.time() && seq() <= before.seq())
}

/// The number of a lazy event armed by a real input (rule 4), taken from the queue's
/// counter now, where the event would have been scheduled.
#[inline]
pub fn reserve<E>(q: &mut EventQueue<E>) -> u64 {
    q.reserve_seq()
}

/// `n` numbers at once, as `n` calls of `reserve` would: the first is returned, the
/// `i`-th is `first + i * SEQ_STEP` (a frame's receivers, NIC `j` taking the `j`-th:
/// the air log).
#[inline]
pub fn reserve_block<E>(q: &mut EventQueue<E>, n: usize) -> u64 {
    q.reserve_seq_block(n)
}

/// A lazy event with a reserved number that stops being lazy enters the queue with its
/// key (rule 2); the key must still be ahead of the last event popped.
#[inline]
pub fn enter_queue<E>(q: &mut EventQueue<E>, key: EventKey, event: E) {
    q.schedule_reserved(key.time(), key.seq(), event);
}

/// Whether the lazy event with key `key` would have been popped by now: it is not after
/// the last event popped, so the real input being handled comes after it (rule 2).
#[inline]
pub fn passed<E>(q: &EventQueue<E>, key: EventKey) -> bool {
    q.passed(key.time(), key.seq())
}

/// One lazy event with a number reserved when it is armed (rule 4's `LazySeq::Known`),
/// kept out of the queue until its owner needs it there: the wired link's end of
/// transmission (`net::link::Transmitter`). Its owner asks whether it has passed for
/// the event being handled (`pending`) instead of running it; it enters the queue, once,
/// with its key when there is work for it (`enter_queue`).
#[derive(Copy, Clone, Debug)]
pub struct ReservedEvent {
    /// `EventKey::NONE` until armed.
    key: EventKey,
    /// Whether it is in the queue (until popped: `popped`).
    queued: bool,
}

impl Default for ReservedEvent {
    fn default() -> Self {
        ReservedEvent {
            key: EventKey::NONE,
            queued: false,
        }
    }
}

impl ReservedEvent {
    /// Arms it at `at` (replacing an earlier one, which must not be in the queue), its
    /// number reserved now.
    #[inline]
    pub fn arm<E>(&mut self, at: SimTime, q: &mut EventQueue<E>) {
        self.key = EventKey::new(at, reserve(q));
        self.queued = false;
    }

    /// Its time, if it was ever armed.
    #[inline]
    pub fn at(&self) -> Option<SimTime> {
        (self.key != EventKey::NONE).then(|| self.key.time())
    }

    /// Whether it is armed and not passed for the event being handled (the last popped).
    #[inline]
    pub fn pending<E>(&self, q: &EventQueue<E>) -> bool {
        self.key != EventKey::NONE && !passed(q, self.key)
    }

    /// Whether it is in the queue.
    #[inline]
    pub fn queued(&self) -> bool {
        self.queued
    }

    /// Puts it into the queue with its key as `event`, unless it is there already or
    /// was never armed.
    #[inline]
    pub fn enter_queue<E>(&mut self, q: &mut EventQueue<E>, event: E) {
        if !self.queued && self.key != EventKey::NONE {
            self.queued = true;
            enter_queue(q, self.key, event);
        }
    }

    /// Its event was popped from the queue.
    #[inline]
    pub fn popped(&mut self) {
        self.queued = false;
    }
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

/// Armer keys a `Lineage` keeps at most (rule 5).
pub const MAX_LINEAGE: usize = 64;

/// The keys of a lazy event's armers, newest first, up to and including the first
/// with a reserved number (rule 5); empty for an event with a reserved number, which
/// ties with none. Lineages compare in order (`Vec`'s order): the lower one came first
/// in the plain run.
pub type Lineage = Vec<EventKey>;

/// The times of the links of an owner's pending `LazySeq::Chain`, in a fixed array: a
/// link is added at nearly every lazy event, and a store here is cheaper than a `Vec`
/// push.
#[derive(Clone)]
pub struct ArmerChain {
    len: usize,
    times: [SimTime; MAX_CHAIN],
    /// The lineage of the event whose number a pin gave (`LazySeq::pin`): the base of
    /// the chain, or the pending `LazySeq::Known`, when that number is odd.
    pinned: Lineage,
}

impl Default for ArmerChain {
    fn default() -> Self {
        ArmerChain {
            len: 0,
            times: [SimTime::ZERO; MAX_CHAIN],
            pinned: Lineage::new(),
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
    #[cfg(test)]
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
                Some((&t, rest)) => q
                    .seq_after_lazy_from(cur, t, || chain_seq(q, base, rest))
                    .unwrap_or_else(|_| chain_keys(base, chain, q).1),
                None => base,
            },
        }
    }

    /// The number of an event armed by the lazy event (`at`, self); `chain` is the
    /// owner's.
    pub fn child<E>(self, at: SimTime, chain: &mut ArmerChain, q: &EventQueue<E>) -> LazySeq {
        let base = match self {
            LazySeq::Chain(b) if chain.len < MAX_CHAIN => {
                chain.times[chain.len] = at;
                chain.len += 1;
                return LazySeq::Chain(b);
            }
            LazySeq::Chain(_) => match self.pin(chain, q) {
                LazySeq::Known(s) => s,
                LazySeq::Chain(_) => unreachable!("a pin gives a known number"),
            },
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
    ) -> LazySeq {
        match self {
            LazySeq::Chain(b) if chain.len + 2 <= MAX_CHAIN => {
                let k = chain.len;
                chain.times[k] = p;
                chain.times[k + 1] = e;
                chain.len = k + 2;
                LazySeq::Chain(b)
            }
            _ => self.child(p, chain, q).child(e, chain, q),
        }
    }
}

impl LazySeq {
    /// The number, looked up now, as `Known` (`self` if known already): for an owner
    /// that pins its pending event while its armers are still in the pop history
    /// (rule 3). The event's lineage goes with it (`ArmerChain::pinned`).
    pub fn pin<E>(self, chain: &mut ArmerChain, q: &EventQueue<E>) -> LazySeq {
        match self {
            LazySeq::Known(_) => self,
            LazySeq::Chain(_) => {
                let mut lineage = Lineage::new();
                let s = self.lineage(chain, q, &mut lineage);
                chain.pinned = lineage;
                LazySeq::Known(s)
            }
        }
    }

    /// The number, with the event's lineage (rule 5) in `out`: what an event that
    /// enters the queue takes with it (`EventQueue::schedule_slot_lazy`).
    pub fn lineage<E>(self, chain: &ArmerChain, q: &EventQueue<E>, out: &mut Lineage) -> u64 {
        out.clear();
        match self {
            LazySeq::Known(s) => {
                if !is_reserved(s) {
                    out.extend_from_slice(&chain.pinned);
                }
                s
            }
            LazySeq::Chain(base) if chain.len == 0 => LazySeq::Known(base).lineage(chain, q, out),
            LazySeq::Chain(base) => {
                let (keys, seq) = chain_keys(base, chain, q);
                *out = lineage_of(&keys, base, &chain.pinned);
                seq
            }
        }
    }
}

impl LazySeq {
    /// The number, looked up now, as `Known` (`self` if known already), leaving the
    /// lineage to `ArmerChain::settle_pin`: the sweep's pin (rule 5's lineages are only
    /// kept where a tie can need them, which the sweep knows once every owner has
    /// pinned).
    pub fn pin_number<E>(self, chain: &ArmerChain, q: &EventQueue<E>) -> LazySeq {
        match self {
            LazySeq::Known(_) => self,
            LazySeq::Chain(_) => {
                LazySeq::Known(self.resolve_from(chain, q, &mut HistoryCursor::default()))
            }
        }
    }

    /// The number and what the queue keeps of the lineage (`LineageNote`) of the event
    /// entering the queue: the chain of its armers, not yet looked up.
    pub fn note<E>(self, chain: &ArmerChain, q: &EventQueue<E>) -> (u64, LineageNote) {
        let seq = self.resolve_from(chain, q, &mut HistoryCursor::default());
        let note = match self {
            LazySeq::Chain(base) if chain.len > 0 => LineageNote::Chain {
                base,
                times: chain.times[..chain.len].to_vec(),
                pinned: if is_reserved(base) {
                    Lineage::new()
                } else {
                    chain.pinned.clone()
                },
            },
            LazySeq::Known(s) | LazySeq::Chain(s) => LineageNote::Keys(if is_reserved(s) {
                Lineage::new()
            } else {
                chain.pinned.clone()
            }),
        };
        (seq, note)
    }
}

impl ArmerChain {
    /// After the sweep pinned the pending event `v` (`LazySeq::pin_number`): its lineage
    /// if a tie can need it (`may_tie`), else none (`pinned` empty).
    pub fn settle_pin<E>(&mut self, v: LazySeq, needed: bool, q: &EventQueue<E>) {
        let mut lineage = Lineage::new();
        if needed {
            v.lineage(self, q, &mut lineage);
        }
        self.pinned = lineage;
    }
}

/// What the queue keeps of the lineage of a lazy event that entered it (rule 5): the
/// keys, or the chain of its armers, whose keys are looked up only when a tie needs
/// them (its links stay in the pop history until the next sweep, which settles every
/// note: `EventQueue::settle_notes`).
#[derive(Clone, Debug)]
pub enum LineageNote {
    /// The lineage (empty: none, for an event no other can tie with).
    Keys(Lineage),
    /// The base, the links' times and the base's lineage (`ArmerChain`).
    Chain {
        base: u64,
        times: Vec<SimTime>,
        pinned: Lineage,
    },
}

impl Default for LineageNote {
    fn default() -> Self {
        LineageNote::Keys(Lineage::new())
    }
}

impl LineageNote {
    /// Whether the lineage is empty (a `Chain` has at least its last link).
    pub fn is_empty(&self) -> bool {
        matches!(self, LineageNote::Keys(l) if l.is_empty())
    }

    /// The lineage, looked up now if it was not (the links must still be in the pop
    /// history: before the next sweep).
    pub fn keys<E>(&self, q: &EventQueue<E>) -> Lineage {
        match self {
            LineageNote::Keys(l) => l.clone(),
            LineageNote::Chain {
                base,
                times,
                pinned,
            } => lineage_of(&links_keys(*base, times, pinned, q).0, *base, pinned),
        }
    }
}

/// Whether a tie can ever need the lineage of the lazy event with key `k`, pending at a
/// sweep (every owner caught up to the last pop, every pending number pinned), given
/// the keys of every lazy event then pending, in the queue or not (`pending`, sorted,
/// `k` among them), the queue's counter `next_seq` and the largest wake-up number
/// `wake_max`. Rule 5 compares lineages only between events of one key, and a lineage
/// past an armer's key only against another lineage holding that same key. The events
/// that can take `k`'s number are those armed between the two pops that number comes
/// from; all of them have been armed by now (they come before the last pop, which every
/// owner caught up to) unless the counter has not moved since (`k`'s number is the one
/// below it: an event armed from now on could take it too). Wake-ups take odd numbers
/// too (`sim::wake_seq`) and come before lazy events of their key through the
/// lineage's being empty. So the lineage is needed if the number is the one below the
/// counter, a wake-up's, or another pending event's key is `k`; otherwise no tie ever
/// reaches it, the event's own or those of the events it arms.
pub fn may_tie(k: EventKey, pending: &[EventKey], next_seq: u64, wake_max: u64) -> bool {
    let s = k.seq();
    if is_reserved(s) {
        return false;
    }
    if s >= crate::sim::key::seq_below(next_seq) || s <= wake_max {
        return true;
    }
    let i = pending.partition_point(|&p| p < k);
    pending[i..].iter().take_while(|&&p| p == k).count() > 1
}

/// The keys of the links of `chain`, whose first was numbered `base`, oldest first, and
/// the number of the event the last one armed: each link's number looked up with its
/// armer's lineage at hand (rule 5).
fn chain_keys<E>(base: u64, chain: &ArmerChain, q: &EventQueue<E>) -> (Vec<EventKey>, u64) {
    links_keys(base, &chain.times[..chain.len], &chain.pinned, q)
}

/// `chain_keys` of the links at `times`, the base's lineage `pinned`.
fn links_keys<E>(
    base: u64,
    times: &[SimTime],
    pinned: &[EventKey],
    q: &EventQueue<E>,
) -> (Vec<EventKey>, u64) {
    let mut keys = Vec::with_capacity(times.len());
    let mut seq = base;
    let mut cur = HistoryCursor::default();
    for &t in times {
        // The link's own lineage: the links before it.
        let armer = || lineage_of(&keys, base, pinned);
        let next = q.seq_after_tied(&mut cur, EventKey::new(t, seq), armer);
        keys.push(EventKey::new(t, seq));
        seq = next;
    }
    (keys, seq)
}

/// The lineage of an event armed by the last of `keys`, a chain's links oldest first,
/// the first of them numbered `base` (the event armed by none of them if `keys` is
/// empty): `pinned` ends it when `base` was a pin's number (odd).
fn lineage_of(keys: &[EventKey], base: u64, pinned: &[EventKey]) -> Lineage {
    let mut out = Lineage::new();
    for &k in keys.iter().rev() {
        out.push(k);
        if is_reserved(k.seq()) || out.len() == MAX_LINEAGE {
            return out;
        }
    }
    if !is_reserved(base) {
        let room = MAX_LINEAGE - out.len();
        out.extend(pinned.iter().take(room));
    }
    out
}

/// Whether `seq` was reserved from the counter (even), not looked up (odd): unique, so
/// a lineage ends there.
fn is_reserved(seq: u64) -> bool {
    seq % crate::sim::SEQ_STEP == 0
}

/// The number of the event armed by the last of `times`, the first of them armed by the
/// event numbered `base` (see `LazySeq::Chain`).
/// `Err` where a link's lookup meets a tie (rule 5), which only `chain_keys` resolves.
fn chain_seq<E>(q: &EventQueue<E>, base: u64, times: &[SimTime]) -> Result<u64, Tie> {
    match times.split_last() {
        Some((&t, rest)) => q.seq_after_lazy(t, || chain_seq(q, base, rest)),
        None => Ok(base),
    }
}

#[cfg(test)]
mod tests;
