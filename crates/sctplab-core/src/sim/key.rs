//! The key that orders events: (time, sequence number), packed into one integer so that
//! one comparison orders two events, and the rules for the sequence numbers.
//!
//! Ties in time go to the lower sequence number, that is to the event scheduled first, as
//! in ns-2's scheduler. The event queue numbers what it schedules from one counter, and
//! the MACs number their own timers the same way (`wireless::mac`), so one key type
//! serves both.
//!
//! The even/odd rule: the queue's counter gives out even numbers only (`SEQ_STEP` apart),
//! so the odd numbers are free for keys the queue never gives out itself:
//!
//! - `seq_below(next)`, the odd number just below a counter value: the number of an
//!   event as if it had been scheduled just before the counter reached `next` (above
//!   every number given out before, below every one given out from then on);
//! - `wake_seq(i)`, the number of owner `i`'s wake-up: bookkeeping events that take no
//!   number from the counter and must come first among the events at their time (odd and
//!   small, so below every number given out after the first few events).

use super::SimTime;

/// (time, sequence number): time in the high 64 bits, so that the derived order is the
/// order of time, then of sequence number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKey(u128);

/// The gap between consecutive numbers the queue's counter gives out (even numbers).
pub const SEQ_STEP: u64 = 2;

impl EventKey {
    /// Below every key.
    pub const MIN: EventKey = EventKey(0);
    /// After every key whose time is before `SimTime::MAX`: "no event" where a key is
    /// kept in a field (a stopped timer).
    pub const NONE: EventKey = EventKey(u128::MAX);

    #[inline(always)]
    pub const fn new(time: SimTime, seq: u64) -> Self {
        EventKey(((time.as_nanos() as u128) << 64) | seq as u128)
    }

    #[inline(always)]
    pub const fn time(self) -> SimTime {
        SimTime::from_nanos(self.time_nanos())
    }

    /// The time in nanoseconds (`time().as_nanos()`).
    #[inline(always)]
    pub const fn time_nanos(self) -> u64 {
        (self.0 >> 64) as u64
    }

    #[inline(always)]
    pub const fn seq(self) -> u64 {
        self.0 as u64
    }

    /// The packed integer, for stores that work on its bits (the radix heap's digits).
    #[inline(always)]
    pub(crate) const fn bits(self) -> u128 {
        self.0
    }
}

/// The free (odd) number just below the counter value `next`: above every number the
/// counter gave out before reaching `next`, below every one it gives out from then on.
/// `next` is a counter value, so even and (once anything was numbered) positive.
#[inline]
pub const fn seq_below(next: u64) -> u64 {
    next - 1
}

/// The number of the wake-up of owner `i` (a NIC): free (odd), and below every number
/// the counter gives out once it has given out more than `i` of them, so a wake-up comes
/// first among the events at its time. Distinct owners get distinct numbers.
#[inline]
pub const fn wake_seq(i: u32) -> u64 {
    SEQ_STEP * i as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    /// Whether `seq` is a number the queue's counter gives out (even), not a free one.
    fn is_counted_seq(seq: u64) -> bool {
        seq % SEQ_STEP == 0
    }

    #[test]
    fn keys_order_by_time_then_sequence() {
        assert!(EventKey::new(t(1), u64::MAX) < EventKey::new(t(2), 0));
        assert!(EventKey::new(t(5), 3) < EventKey::new(t(5), 4));
        assert_eq!(EventKey::new(t(5), 3), EventKey::new(t(5), 3));
        assert!(EventKey::MIN <= EventKey::new(t(0), 0));
        // "No event" is after any key of a time a run can reach.
        assert!(EventKey::new(t(u64::MAX - 1), u64::MAX) < EventKey::NONE);
    }

    #[test]
    fn keys_give_back_their_parts() {
        for (ns, seq) in [(0, 0), (7, 1), (u64::MAX, u64::MAX), (1 << 40, 1 << 63)] {
            let k = EventKey::new(t(ns), seq);
            assert_eq!(k.time(), t(ns));
            assert_eq!(k.time_nanos(), ns);
            assert_eq!(k.seq(), seq);
            assert_eq!(k.bits() >> 64, u128::from(ns));
        }
        assert_eq!(EventKey::NONE.time(), SimTime::MAX);
    }

    /// The counter's numbers are even; the number below a counter value is odd and lies
    /// between the number given out last and the next one.
    #[test]
    fn numbers_below_the_counter_are_free_and_in_between() {
        let mut next = 0;
        for _ in 0..100 {
            let given = next;
            next += SEQ_STEP;
            assert!(is_counted_seq(given));
            let below = seq_below(next);
            assert!(!is_counted_seq(below));
            assert!(given < below && below < next);
        }
    }

    /// Wake-up numbers are free, distinct per owner, and below the counter's numbers
    /// from the (i + 1)-th on.
    #[test]
    fn wake_numbers_are_free_distinct_and_early() {
        for i in 0..1000u32 {
            let w = wake_seq(i);
            assert!(!is_counted_seq(w));
            assert!(w < wake_seq(i + 1));
            let counted_after_i_plus_1 = SEQ_STEP * (u64::from(i) + 1);
            assert!(w < counted_after_i_plus_1);
            assert!(w > SEQ_STEP * u64::from(i));
            // The same as the number just below that counter value.
            assert_eq!(w, seq_below(counted_after_i_plus_1));
        }
        // So a wake-up at time t comes before every event at t numbered after it.
        let wake = EventKey::new(t(9), wake_seq(3));
        assert!(wake < EventKey::new(t(9), 8));
        assert!(wake > EventKey::new(t(8), u64::MAX));
    }
}
