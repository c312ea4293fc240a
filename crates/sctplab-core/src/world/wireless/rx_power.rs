//! Received power and its thresholds by distance (two-ray ground, ns-2.35
//! mobile/tworayground.cc), computed so that the answer is `PhyCfg`'s to the bit, with
//! fewer operations: the constant parts once (`RxPower::at`), the classification by the
//! distance alone (`RxPower::classify`), and one bound on the squared distance for the
//! carrier-sense range (`SenseBound`). Tests `rx_power_cache_is_bit_identical`,
//! `classify_by_distance_is_exact` and `sense_bound_is_exact` (`tests.rs`) guard it.

use crate::wireless::propagation::{self, PhyCfg, Reception};

/// `PhyCfg::rx_power` with the parts that do not depend on the distance computed once.
/// Every remaining operation is the same, in the same order, so the result is the same
/// to the bit (test `rx_power_cache_is_bit_identical`); it saves three divisions per call.
///
/// It also classifies by distance alone, with no power computed: each branch of the
/// formula (free space up to the cross-over, two-ray ground beyond) is a chain of
/// correctly rounded operations that are each monotone in the distance, so on each
/// branch the distances whose power is at or above a threshold are exactly those up to
/// a last one, found once by bisection over the floating-point numbers. The answer is
/// `PhyCfg::classify` of the power, to the bit (test `classify_by_distance_is_exact`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct RxPower {
    crossover_m: f64,
    lambda_m: f64,
    /// `Pt * Gt * Gr`, `Pt * Gt * Gr * h^4`, `L`.
    p0: f64,
    two_ray_num: f64,
    loss: f64,
    /// The last distance at or below the cross-over, and the last beyond it, whose power
    /// is at or above the carrier-sense (`cs`) and receive (`rx`) thresholds; -1 for
    /// none. `None` when the parameters are not all positive and finite (then the
    /// power is computed and compared).
    cs: Option<(f64, f64)>,
    rx: Option<(f64, f64)>,
    cs_thresh_w: f64,
    rx_thresh_w: f64,
}

impl RxPower {
    pub(crate) fn new(phy: &PhyCfg) -> Self {
        let h = phy.antenna_height_m;
        let p0 = phy.pt_w * phy.gt * phy.gr;
        let mut r = RxPower {
            crossover_m: phy.crossover_m(),
            lambda_m: phy.lambda_m(),
            p0,
            two_ray_num: p0 * (h * h * h * h),
            loss: phy.system_loss,
            cs: None,
            rx: None,
            cs_thresh_w: phy.cs_thresh_w,
            rx_thresh_w: phy.rx_thresh_w,
        };
        let sane = [
            phy.pt_w,
            phy.gt,
            phy.gr,
            phy.antenna_height_m,
            phy.freq_hz,
            phy.system_loss,
            phy.cs_thresh_w,
            phy.rx_thresh_w,
            r.crossover_m,
            r.lambda_m,
            r.p0,
            r.two_ray_num,
        ]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0);
        if sane {
            r.cs = Some(r.last_at_or_above(phy.cs_thresh_w));
            r.rx = Some(r.last_at_or_above(phy.rx_thresh_w));
        }
        r
    }

    /// The last distance on each branch whose power is at or above `thresh` (-1: none).
    fn last_at_or_above(&self, thresh: f64) -> (f64, f64) {
        let ok = |d: f64| not_below(self.at(d), thresh);
        // The largest d in [lo, hi] (both non-negative) with ok(d), if ok is true up to
        // some point and false after it. Non-negative floats order as their bits.
        let last = |lo: f64, hi: f64| -> f64 {
            if !ok(lo) {
                return -1.0;
            }
            if ok(hi) {
                return hi;
            }
            let (mut a, mut b) = (lo.to_bits(), hi.to_bits());
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if ok(f64::from_bits(m)) {
                    a = m;
                } else {
                    b = m;
                }
            }
            f64::from_bits(a)
        };
        let c = self.crossover_m;
        (
            last(0.0, c),
            last(f64::from_bits(c.to_bits() + 1), f64::INFINITY),
        )
    }

    #[inline]
    pub(crate) fn at(&self, dist_m: f64) -> f64 {
        let d = dist_m.max(propagation::MIN_DISTANCE_M);
        if d <= self.crossover_m {
            let m = self.lambda_m / (4.0 * std::f64::consts::PI * d);
            self.p0 * m * m / self.loss
        } else {
            self.two_ray_num / (d * d * d * d * self.loss)
        }
    }

    #[inline]
    fn within(&self, bounds: Option<(f64, f64)>, thresh: f64, d: f64) -> bool {
        match bounds {
            Some((near, far)) => d <= if d <= self.crossover_m { near } else { far },
            None => not_below(self.at(d), thresh),
        }
    }

    /// `PhyCfg::classify(self.at(d))` (with `phy`'s thresholds).
    #[inline]
    pub(crate) fn classify(&self, d: f64) -> Reception {
        if !self.within(self.cs, self.cs_thresh_w, d) {
            Reception::NotSensed
        } else if !self.within(self.rx, self.rx_thresh_w, d) {
            Reception::Errored
        } else {
            Reception::Decodable
        }
    }

    /// Whether a frame is decodable (power at or above RXThresh) at every distance within
    /// `margin` of `d`, or at none; `None` if that is not certain. The answer can change
    /// only just after one of the bounds or the cross-over, so it is certain when none
    /// of those lies in [d - margin, d + margin).
    // Always inlined: left to the inliner it went out of line in the catch-up (a call
    // per overheard frame).
    #[inline(always)]
    pub(crate) fn decodable_near(&self, d: f64, margin: f64) -> Option<bool> {
        let (near, far) = self.rx?;
        let (lo, hi) = (d - margin, d + margin);
        let clear = |b: f64| b < lo || b >= hi;
        (clear(near) && clear(far) && clear(self.crossover_m))
            .then_some(d <= if d <= self.crossover_m { near } else { far })
    }

    /// When the distances at which a frame is decodable (by RXThresh, as in
    /// `decodable_near`) are exactly [0, t], and RXThresh is not below CSThresh (so that
    /// they are sensed too, as `classify` asks): (t - w, t + w). A frame at `d`, with
    /// `margin` at most `w / 2`, is then decodable throughout `margin` of `d` if `d` is at
    /// or below the first, and nowhere if above the second; one or two comparisons
    /// instead of `decodable_near`'s six. With the default radio the decodable set is
    /// [0, far], the cross-over not being a change of the answer.
    pub(crate) fn decodable_sure(&self, w: f64) -> Option<(f64, f64)> {
        let (near, far) = self.rx?;
        let c = self.crossover_m;
        let t = if near == c && far > c {
            far
        } else if near >= 0.0 && near < c && far < 0.0 {
            near
        } else {
            return None;
        };
        (self.rx_thresh_w >= self.cs_thresh_w && w.is_finite() && w > 0.0).then_some((t - w, t + w))
    }

    /// Whether a frame from `d` away is sensed (power at or above CSThresh).
    #[inline]
    pub(crate) fn sensed(&self, d: f64) -> bool {
        self.within(self.cs, self.cs_thresh_w, d)
    }

    /// The range test (`within_range` with `r`) and `sensed` of the distance as one
    /// bound on the squared distance, where that is exact (see `SenseBound`).
    pub(crate) fn sense_bound(&self, r: f64) -> SenseBound {
        let rr = r * r;
        let fallback = SenseBound {
            max_sq: rr,
            exact: false,
        };
        let Some((near, far)) = self.cs else {
            return fallback;
        };
        if rr.is_nan() {
            return fallback;
        }
        // In squared distances s (d = sqrt(s), correctly rounded, so monotone): sensed
        // are those up to `sq(near)` and those above `sq(crossover)` up to `sq(far)`.
        // One bound decides it when the second stretch is empty or continues the first.
        let sq = |x: f64| (x >= 0.0).then(|| last_sq_at_most(x));
        let sc = last_sq_at_most(self.crossover_m);
        let upto = match (sq(near), sq(far)) {
            (sn, None) => sn,
            (sn, Some(sf)) if sf <= sc => sn,
            (Some(sn), Some(sf)) if sn >= sc => Some(sf),
            _ => return fallback,
        };
        SenseBound {
            // Both operands are numbers, so `min` is the smaller one.
            max_sq: upto.map_or(-1.0, |u| u.min(rr)),
            exact: true,
        }
    }
}

/// The largest non-negative `s` with `s.sqrt() <= x` (`x` >= 0). The square root is
/// correctly rounded, hence monotone, and non-negative floats order as their bits.
fn last_sq_at_most(x: f64) -> f64 {
    if f64::INFINITY.sqrt() <= x {
        return f64::INFINITY;
    }
    let (mut a, mut b) = (0u64, f64::INFINITY.to_bits());
    while b - a > 1 {
        let m = a + (b - a) / 2;
        if f64::from_bits(m).sqrt() <= x {
            a = m;
        } else {
            b = m;
        }
    }
    f64::from_bits(a)
}

/// Whether a frame is sensed from a squared distance `s` (a sum of two squares, so
/// non-negative or NaN), as `within_range` and `RxPower::sensed` decide it together:
/// with `exact`, `s <= max_sq` alone (test `sense_bound_is_exact`), which saves the
/// distance's classification on every frame a quiet NIC reads; otherwise `max_sq` is
/// the range's square and `sensed` must still be asked.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SenseBound {
    max_sq: f64,
    exact: bool,
}

/// `!(p < t)`, as `PhyCfg::classify` compares (NaN is not below).
#[inline]
fn not_below(p: f64, t: f64) -> bool {
    p.partial_cmp(&t) != Some(std::cmp::Ordering::Less)
}

/// `propagation::distance(here, p)` if `p` is within `r` of `here` as the grid query
/// decides it (`grid::within(p, here, r)`), with the squares summed once: the
/// differences only change sign, which squaring undoes exactly.
#[inline]
pub(super) fn within_range(here: (f64, f64), p: (f64, f64), r: f64) -> Option<f64> {
    let (dx, dy) = (here.0 - p.0, here.1 - p.1);
    let s = dx * dx + dy * dy;
    let d = (s <= r * r).then(|| s.sqrt());
    debug_assert_eq!(d.is_some(), crate::wireless::grid::within(p, here, r));
    debug_assert!(d.is_none_or(|d| d.to_bits() == propagation::distance(here, p).to_bits()));
    d
}

/// `within_range(here, p, r)` of a frame that is also sensed there, `None` otherwise;
/// `b` is `rx_power.sense_bound(r)`.
#[inline(always)]
pub(super) fn sensed_within(
    here: (f64, f64),
    p: (f64, f64),
    b: SenseBound,
    rx_power: &RxPower,
    r: f64,
) -> Option<f64> {
    let (dx, dy) = (here.0 - p.0, here.1 - p.1);
    let s = dx * dx + dy * dy;
    let d = if s <= b.max_sq {
        let d = s.sqrt();
        (b.exact || rx_power.sensed(d)).then_some(d)
    } else {
        None
    };
    debug_assert_eq!(
        d.map(f64::to_bits),
        within_range(here, p, r)
            .filter(|&d| rx_power.sensed(d))
            .map(f64::to_bits)
    );
    d
}

#[cfg(test)]
#[path = "tests_rx_power.rs"]
mod tests;
