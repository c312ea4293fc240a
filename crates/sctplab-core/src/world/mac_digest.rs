//! A digest of each MAC's inputs in the order they reach it (issue 31, step 4): kind,
//! time and key of every reception start, timer turn and packet from above. The
//! equivalence tests compare it between a plain run (every MAC timer and reception an
//! event of the queue) and the fast one: a shortcut that reorders a MAC's inputs while
//! the summary happens to come out equal still changes the digest.
//!
//! What counts as one input is the plain run's: a `RxStart` event reaching the MAC, a
//! `MacTimer` event whose deadline is due (`Mac::handle_timeout`), a packet handed down
//! (`Mac::enqueue`). A fast path notes the inputs it stands for (a reception and its end
//! in one step notes both, and the NAV end between them if there was one). The key
//! says which input it is: a reception's frame (`frame_key`: sender, sequence number,
//! kind, size), a packet's size and next hop; timer turns note their time alone. (Not
//! the events' sequence numbers: a fast run gives out numbers in reserved blocks, so
//! they differ from the plain run's while their order agrees, and the order is what the
//! digest checks.)
//!
//! Only test builds compute it: elsewhere the type is empty and `note` does nothing, so
//! normal runs pay nothing for it.

use crate::sim::SimTime;
use crate::wireless::frame::Frame;

/// Which frame a reception is of: its sender, sequence number, kind and size.
pub(crate) fn frame_key(f: &Frame) -> u64 {
    (u64::from(f.src.0) << 40)
        ^ (u64::from(f.seq) << 24)
        ^ ((f.kind as u64) << 20)
        ^ u64::from(f.bytes)
}

/// The kinds of MAC input.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Input {
    Rx = 1,
    Timer = 2,
    Packet = 3,
}

/// The running digest of one MAC's inputs (empty outside test builds).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct InputDigest {
    /// Every input in order.
    #[cfg(test)]
    ordered: u64,
    #[cfg(test)]
    count: u64,
    /// The instants in order, the inputs of one instant in any order: the time of the
    /// instant being noted, the sum of its inputs' hashes, the instants before it.
    #[cfg(test)]
    instant: (u64, u64, u64),
}

/// What `InputDigest` gives at the end of a run.
#[cfg(test)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Digest {
    /// Every input in order.
    pub ordered: u64,
    /// The same inputs, at the same instants in the same order, those of one instant
    /// in any order: equal where `ordered` differs only by inputs that came at the
    /// same nanosecond in another order.
    pub by_instant: u64,
    pub inputs: u64,
}

/// FNV-1a of `words` continuing from `h`: any change of one word changes the result.
#[cfg(test)]
fn fnv(mut h: u64, words: [u64; 3]) -> u64 {
    for w in words {
        for b in w.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

impl InputDigest {
    /// Notes one input: `kind` at `at` with the key `key` gives (0 for timer turns),
    /// called only in test builds, so that normal runs do not compute it.
    #[inline(always)]
    pub(crate) fn note(&mut self, kind: Input, at: SimTime, key: impl FnOnce() -> u64) {
        #[cfg(test)]
        {
            let words = [kind as u64, at.as_nanos(), key()];
            self.ordered = fnv(self.ordered, words);
            self.count += 1;
            let (t, sum, before) = self.instant;
            let one = fnv(0xcbf2_9ce4_8422_2325, words);
            self.instant = if self.count > 1 && t == at.as_nanos() {
                (t, sum.wrapping_add(one), before)
            } else {
                (at.as_nanos(), one, fnv(before, [t, sum, 0]))
            };
        }
        #[cfg(not(test))]
        let _ = (kind, at, key);
    }

    #[cfg(test)]
    pub(crate) fn value(&self) -> Digest {
        let (t, sum, before) = self.instant;
        Digest {
            ordered: self.ordered,
            by_instant: fnv(before, [t, sum, 0]),
            inputs: self.count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_every_word_count() {
        let t = |n| SimTime::from_nanos(n);
        let digest = |inputs: &[(Input, u64, u64)]| {
            let mut d = InputDigest::default();
            for &(k, at, key) in inputs {
                d.note(k, t(at), || key);
            }
            d.value()
        };
        let base = digest(&[(Input::Rx, 5, 7), (Input::Timer, 5, 0), (Input::Rx, 6, 1)]);
        assert_eq!(base.inputs, 3);
        let same = digest(&[(Input::Rx, 5, 7), (Input::Timer, 5, 0), (Input::Rx, 6, 1)]);
        assert_eq!(base, same);
        // One word changed: both digests change.
        for other in [
            [(Input::Rx, 5, 8), (Input::Timer, 5, 0), (Input::Rx, 6, 1)],
            [(Input::Rx, 4, 7), (Input::Timer, 5, 0), (Input::Rx, 6, 1)],
            [
                (Input::Packet, 5, 7),
                (Input::Timer, 5, 0),
                (Input::Rx, 6, 1),
            ],
            [(Input::Rx, 5, 7), (Input::Timer, 5, 0), (Input::Rx, 7, 1)],
        ] {
            let d = digest(&other);
            assert!(d.ordered != base.ordered && d.by_instant != base.by_instant);
        }
        // Two inputs of one instant swapped: only the ordered digest changes.
        let swapped = digest(&[(Input::Timer, 5, 0), (Input::Rx, 5, 7), (Input::Rx, 6, 1)]);
        assert_ne!(swapped.ordered, base.ordered);
        assert_eq!(swapped.by_instant, base.by_instant);
        // Inputs moved from one instant to another: both change.
        let moved = digest(&[(Input::Rx, 5, 7), (Input::Rx, 6, 1), (Input::Timer, 6, 0)]);
        assert_ne!(moved.by_instant, base.by_instant);
    }
}
