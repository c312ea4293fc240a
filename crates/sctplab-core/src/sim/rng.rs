//! Per-component random streams.
//!
//! Every random component (a loss model, a traffic source) draws from its own generator,
//! seeded from (run seed, component id). Adding a flow or a link therefore never shifts
//! the random numbers another component sees, and a component's id is derived from its
//! scenario name, not from declaration order.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A stable 64-bit id for a component name (FNV-1a; stable across Rust versions and
/// platforms, unlike `std`'s hasher).
pub fn stream_id(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads nearby (seed, id) pairs into unrelated generator seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Xoshiro256PlusPlus,
}

impl RngStream {
    pub fn new(run_seed: u64, component: &str) -> Self {
        let seed = mix(mix(run_seed) ^ stream_id(component));
        RngStream {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_same_stream() {
        let mut a = RngStream::new(7, "link:l1");
        let mut b = RngStream::new(7, "link:l1");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_differ_by_seed_and_by_name() {
        let first = |seed, name| RngStream::new(seed, name).next_u64();
        assert_ne!(first(1, "a"), first(2, "a"));
        assert_ne!(first(1, "a"), first(1, "b"));
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = RngStream::new(3, "u");
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // Standard error of the mean of U(0,1) is sqrt(1/12/n) ~ 0.00065; allow 5 sigma.
        assert!((mean - 0.5).abs() < 0.0033, "mean {mean}");
    }
}
