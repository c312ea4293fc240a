//! The radix heap that holds ordinary events while many are pending (`Store`).
//!
//! It works on the packed integer of the keys (`EventKey::bits`): its buckets are that
//! integer's digits.

use super::store::Entry;
use crate::sim::EventKey as Key;

/// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) over the 128-bit keys, with
/// 8-bit digits. It needs monotone keys, which a future-event list has: every key
/// pushed is above the last key popped from it (`base`). A key whose highest digit
/// differing from `base` is digit `d` goes to bucket (d, its own digit d); it shares
/// every digit above `d` with `base`, so every key of a bucket is below every key of a
/// later bucket in (d, digit) order. A pop takes the least key of the first non-empty
/// bucket, makes it the new base, and spreads the rest of that bucket over lower
/// digits (the other buckets keep their place). An event moves at most once per
/// digit, in practice two or three times (the digits in which pending times differ).
pub(super) struct Radix<E> {
    base: Key,
    /// `DIGITS * RADIX` buckets, bucket (d, v) at `d * RADIX + v`.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `d` set iff some bucket of digit `d` is not empty ...
    levels: u32,
    /// ... and bit `v` of `digits[d]` (words of 64 bits) iff bucket (d, v) is not empty.
    digits: [[u64; RADIX / 64]; DIGITS],
    pub(super) len: usize,
    /// The minimum's (key, bucket), when known.
    min: Option<(Key, u32, u32)>,
}

const DIGIT_BITS: u32 = 8;
const RADIX: usize = 1 << DIGIT_BITS;
const DIGITS: usize = 128 / DIGIT_BITS as usize;

/// The bucket of `k` for base `base`.
#[inline]
fn bucket(k: Key, base: Key) -> u32 {
    let (k, base) = (k.bits(), base.bits());
    let x = k ^ base;
    let d = 127u32.saturating_sub(x.leading_zeros()) / DIGIT_BITS;
    let v = (k >> (d * DIGIT_BITS)) as u32 & (RADIX as u32 - 1);
    d * RADIX as u32 + v
}

impl<E> Radix<E> {
    pub(super) fn new(base: Key) -> Self {
        Radix {
            base,
            buckets: (0..DIGITS * RADIX).map(|_| Vec::new()).collect(),
            levels: 0,
            digits: [[0; RADIX / 64]; DIGITS],
            len: 0,
            min: None,
        }
    }

    #[inline]
    fn mark(&mut self, b: u32) {
        let d = b as usize / RADIX;
        let v = b as usize % RADIX;
        self.levels |= 1 << d;
        self.digits[d][v / 64] |= 1 << (v % 64);
    }

    #[inline]
    fn unmark(&mut self, b: u32) {
        let d = b as usize / RADIX;
        let v = b as usize % RADIX;
        self.digits[d][v / 64] &= !(1 << (v % 64));
        if self.digits[d].iter().all(|&w| w == 0) {
            self.levels &= !(1 << d);
        }
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry<E>) {
        debug_assert!(e.key >= self.base, "radix heap key below its base");
        let b = bucket(e.key, self.base);
        let v = &mut self.buckets[b as usize];
        if let Some((m, ..)) = self.min {
            if e.key < m {
                self.min = Some((e.key, b, v.len() as u32));
            }
        }
        v.push(e);
        self.mark(b);
        self.len += 1;
    }

    #[inline]
    pub(super) fn peek(&mut self) -> Option<Key> {
        if self.min.is_none() && self.len > 0 {
            let d = self.levels.trailing_zeros();
            let words = &self.digits[d as usize];
            let w = words.iter().position(|&w| w != 0).expect("level not empty");
            let b = d * RADIX as u32 + (w * 64) as u32 + words[w].trailing_zeros();
            let v = &self.buckets[b as usize];
            let mut i = 0;
            for (j, e) in v.iter().enumerate().skip(1) {
                if e.key < v[i].key {
                    i = j;
                }
            }
            self.min = Some((v[i].key, b, i as u32));
        }
        self.min.map(|m| m.0)
    }

    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        self.peek()?;
        let (k, b, i) = self.min.take().expect("peeked");
        let top = self.buckets[b as usize].swap_remove(i as usize);
        self.len -= 1;
        self.base = k;
        if self.buckets[b as usize].is_empty() {
            // The usual case below the top digits: a bucket of one.
            self.unmark(b);
            return Some(top);
        }
        // Spread the rest of the bucket below it, relative to the new base; the least
        // of them is the next minimum (anything in a later bucket is above them all).
        let mut rest = std::mem::take(&mut self.buckets[b as usize]);
        self.unmark(b);
        let mut min: Option<(Key, u32, u32)> = None;
        for e in rest.drain(..) {
            let nb = bucket(e.key, k);
            let v = &mut self.buckets[nb as usize];
            if min.is_none_or(|m| e.key < m.0) {
                min = Some((e.key, nb, v.len() as u32));
            }
            v.push(e);
            self.mark(nb);
        }
        if self.buckets[b as usize].is_empty() {
            // Keep the allocation (a bucket of digit 0 may have refilled itself).
            self.buckets[b as usize] = rest;
        }
        self.min = min;
        Some(top)
    }

    /// Empties the radix heap into `out`.
    pub(super) fn drain_into(&mut self, out: &mut Vec<Entry<E>>) {
        for v in &mut self.buckets {
            out.append(v);
        }
        self.levels = 0;
        self.digits = [[0; RADIX / 64]; DIGITS];
        self.len = 0;
        self.min = None;
    }
}
