//! Integer-nanosecond simulated time. Integer time keeps event order exact and runs
//! byte-identical across machines, which floating-point clocks cannot promise.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant on the simulated clock, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative and NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimDuration(0)
        } else {
            SimDuration((s * NANOS_PER_SEC as f64).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time to serialise `bytes` at `bits_per_sec`, rounded up to whole nanoseconds so that a
    /// link is never faster than its rate.
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> Self {
        let rate = bits_per_sec.max(1);
        // Packet sizes fit in 64 bits (up to 2.3 GB): no 128-bit division.
        if let Some(bit_ns) = bytes.checked_mul(8 * NANOS_PER_SEC) {
            return SimDuration(bit_ns.div_ceil(rate));
        }
        let bits = bytes as u128 * 8;
        let ns = (bits * NANOS_PER_SEC as u128).div_ceil(rate as u128);
        SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
    pub fn min(self, other: Self) -> Self {
        SimDuration(self.0.min(other.0))
    }
    pub fn max(self, other: Self) -> Self {
        SimDuration(self.0.max(other.0))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

impl Sub for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        debug_assert!(earlier <= self, "time difference would be negative");
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}",
            self.0 / NANOS_PER_SEC,
            self.0 % NANOS_PER_SEC
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_bits_over_rate() {
        // 1000 bytes at 1 Mb/s: 8000 bits / 1e6 bit/s = 8 ms exactly.
        assert_eq!(
            SimDuration::transmission(1000, 1_000_000),
            SimDuration::from_millis(8)
        );
        // 1500 bytes at 3 Mb/s: 12000 / 3e6 = 4 ms.
        assert_eq!(
            SimDuration::transmission(1500, 3_000_000),
            SimDuration::from_millis(4)
        );
        // 1 byte at 3 bit/s = 8/3 s = 2.666...s, rounded up to the next nanosecond.
        assert_eq!(SimDuration::transmission(1, 3).as_nanos(), 2_666_666_667);
        // Past 64 bits of bit-nanoseconds (2^61 bytes = 2^64 bits): 2^64 bits at
        // 2^34 bit/s is 2^30 s = 1073741824e9 ns.
        assert_eq!(
            SimDuration::transmission(1 << 61, 1 << 34).as_nanos(),
            1_073_741_824 * 1_000_000_000
        );
    }

    #[test]
    fn display_has_nine_decimals() {
        assert_eq!(
            SimTime::from_nanos(1_000_000_123).to_string(),
            "1.000000123"
        );
    }
}
