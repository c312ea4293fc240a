//! Radio propagation and the receiver thresholds of ns-2.35's `Phy/WirelessPhy` with
//! `Propagation/TwoRayGround` and an omni antenna.
//!
//! Received power is Friis free space up to the cross-over distance
//! d_c = 4 pi ht hr / lambda and two-ray ground beyond it (mobile/tworayground.cc,
//! `TwoRayGround::Pr`); the two agree at d_c, so the curve is continuous. A frame is then
//! judged as `WirelessPhy::sendUp` (mac/wireless-phy.cc) does: below `CSThresh_` it is not
//! seen at all, below `RXThresh_` it reaches the MAC marked errored (it only keeps the
//! medium busy), otherwise it is received unless a collision destroys it. Capture is the
//! 802.11 MAC's rule (mac/mac-802_11.cc `recv_timer` path): the frame being received
//! survives an overlapping one when its power is at least `CPThresh_` times stronger.
//!
//! All heights are antenna heights above flat ground (node Z is 0 in every scenario).
//! Pure functions: no state, no randomness.

use crate::sim::SimDuration;
use std::f64::consts::PI;

/// ns-2's `SPEED_OF_LIGHT` (mobile/propagation.h): 3e8 m/s, used both for the wavelength
/// (`lambda = c / freq`) and for the propagation delay (`MobileNode::propdelay`).
pub const SPEED_OF_LIGHT: f64 = 3.0e8;

/// Distances below this are raised to it before computing power or delay: two NICs of
/// one node share a position (CONTRACTS.md, multihoming), and Friis diverges at 0.
pub const MIN_DISTANCE_M: f64 = 1.0;

/// What the PHY makes of one incoming frame, by received power alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reception {
    /// Below the carrier-sense threshold: the frame is not delivered to the MAC at all.
    NotSensed,
    /// Between the carrier-sense and receive thresholds: delivered with the error flag
    /// set, so it occupies the receiver and the medium but is never accepted.
    Errored,
    /// At or above the receive threshold: decodable unless a collision destroys it.
    Decodable,
}

/// Radio parameters of one wireless NIC (transmitter and receiver are assumed alike, as
/// in every ns-2 script that configures the node with one `node-config`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PhyCfg {
    /// Transmit power `Pt_`, watts.
    pub pt_w: f64,
    /// Carrier frequency `freq_`, Hz.
    pub freq_hz: f64,
    /// System loss `L_` (>= 1, dimensionless).
    pub system_loss: f64,
    /// Antenna height above ground (OmniAntenna `Z_`), metres, for both ends.
    pub antenna_height_m: f64,
    /// Transmit antenna gain `Gt_`.
    pub gt: f64,
    /// Receive antenna gain `Gr_`.
    pub gr: f64,
    /// Receive threshold `RXThresh_`, watts.
    pub rx_thresh_w: f64,
    /// Carrier-sense threshold `CSThresh_`, watts.
    pub cs_thresh_w: f64,
    /// Capture ratio `CPThresh_` (linear power ratio; 10 = 10 dB).
    pub cp_thresh: f64,
}

impl Default for PhyCfg {
    /// ns-2.35's defaults (tcl/lib/ns-default.tcl, read from the binary; see
    /// ns2-wireless-defaults.md): a 914 MHz Lucent WaveLAN with 250 m receive and 550 m
    /// carrier-sense range under two-ray ground.
    fn default() -> Self {
        PhyCfg {
            pt_w: 0.281_838_15,
            freq_hz: 914e6,
            system_loss: 1.0,
            antenna_height_m: 1.5,
            gt: 1.0,
            gr: 1.0,
            rx_thresh_w: 3.652e-10,
            cs_thresh_w: 1.559e-11,
            cp_thresh: 10.0,
        }
    }
}

impl PhyCfg {
    /// Wavelength, metres.
    pub fn lambda_m(&self) -> f64 {
        SPEED_OF_LIGHT / self.freq_hz
    }

    /// Distance at which the model switches from Friis to two-ray ground.
    pub fn crossover_m(&self) -> f64 {
        let h = self.antenna_height_m;
        4.0 * PI * h * h / self.lambda_m()
    }

    fn friis(&self, d: f64) -> f64 {
        let m = self.lambda_m() / (4.0 * PI * d);
        self.pt_w * self.gt * self.gr * m * m / self.system_loss
    }

    fn two_ray(&self, d: f64) -> f64 {
        let h = self.antenna_height_m;
        self.pt_w * self.gt * self.gr * (h * h * h * h) / (d * d * d * d * self.system_loss)
    }

    /// Received power in watts at horizontal distance `dist_m` (floored at 1 m).
    #[inline]
    pub fn rx_power(&self, dist_m: f64) -> f64 {
        let d = dist_m.max(MIN_DISTANCE_M);
        // tworayground.cc uses Friis when d <= d_c (inclusive).
        if d <= self.crossover_m() {
            self.friis(d)
        } else {
            self.two_ray(d)
        }
    }

    /// How the PHY treats a frame arriving with power `pr_w` (`WirelessPhy::sendUp`).
    #[inline]
    pub fn classify(&self, pr_w: f64) -> Reception {
        if pr_w < self.cs_thresh_w {
            Reception::NotSensed
        } else if pr_w < self.rx_thresh_w {
            Reception::Errored
        } else {
            Reception::Decodable
        }
    }

    /// Whether a frame being received with power `current_w` survives a new overlapping
    /// frame of power `new_w` (ns-2: `RxPr(current) / RxPr(new) >= CPThresh`).
    #[inline]
    pub fn captures(&self, current_w: f64, new_w: f64) -> bool {
        current_w / new_w >= self.cp_thresh
    }

    /// The distance at which the received power falls to `thresh_w`: the inverse of
    /// [`rx_power`](Self::rx_power). The power falls monotonically with distance, so the
    /// branch is the one whose range contains the answer. ns-2's `TwoRayGround::getDist`
    /// solves only the two-ray branch and omits `L`; the two agree for the defaults.
    pub fn range_for_threshold_m(&self, thresh_w: f64) -> f64 {
        let h = self.antenna_height_m;
        let g = self.pt_w * self.gt * self.gr / (thresh_w * self.system_loss);
        let two_ray = (g * h * h * h * h).sqrt().sqrt();
        if two_ray > self.crossover_m() {
            two_ray
        } else {
            (self.lambda_m() / (4.0 * PI) * g.sqrt()).max(MIN_DISTANCE_M)
        }
    }

    /// Distance up to which frames are decodable (power >= `RXThresh_`).
    pub fn rx_range_m(&self) -> f64 {
        self.range_for_threshold_m(self.rx_thresh_w)
    }

    /// Distance up to which frames are sensed (power >= `CSThresh_`); ns-2's `distCST_`.
    pub fn cs_range_m(&self) -> f64 {
        self.range_for_threshold_m(self.cs_thresh_w)
    }

    /// Propagation delay over `dist_m` (floored at 1 m), rounded to the nanosecond.
    #[inline]
    pub fn prop_delay(&self, dist_m: f64) -> SimDuration {
        prop_delay(dist_m)
    }
}

/// Propagation delay over `dist_m` (floored at 1 m) at ns-2's speed of light, rounded to
/// the nearest nanosecond (ns-2 keeps it as a double; the difference is below 0.5 ns).
#[inline]
pub fn prop_delay(dist_m: f64) -> SimDuration {
    let s = dist_m.max(MIN_DISTANCE_M) / SPEED_OF_LIGHT;
    let ns = s * 1e9;
    if ns < (1u64 << 52) as f64 {
        // `SimDuration::from_secs_f64`'s rounding (half away from zero) as the integer
        // part of `ns + 0.5`, without a call to `round`. The sum is exact or does not
        // matter: `ns` is at least 1 m / c = 3.3 ns, so with 2^e <= ns < 2^(e+1), e <= 51,
        // 0.5 is a multiple of `ns`'s last place and the exact sum is too; below 2^(e+1)
        // it is then representable, and from 2^(e+1) up (to below 2^(e+1) + 0.5) it rounds
        // to a double with the same integer part, 2^(e+1). Through `i64` (the same values
        // in this range) the conversion is one instruction, where the unsigned one takes
        // several on x86-64 (test `propagation_delay_rounds_as_from_secs_f64`).
        //
        // `ns` is at least MIN_DISTANCE_M / c * 1e9 > 0 (`max` turns NaN into the floor)
        // and below 2^52, so `ns + 0.5` is finite and fits an i64: the unchecked
        // conversion is the single truncating instruction, without the NaN and overflow
        // fix-ups of `as` (about 6 instructions fewer per call, 7 M of 1,134 M in
        // callgrind's count of 40 s of manet-tcp, where every overheard frame takes one
        // delay).
        debug_assert!(ns > 0.0 && ns < (1u64 << 52) as f64);
        // SAFETY: `ns + 0.5` is finite and within i64's range (above).
        let whole: i64 = unsafe { (ns + 0.5).to_int_unchecked() };
        SimDuration::from_nanos(whole as u64)
    } else {
        prop_delay_far(s)
    }
}

/// `prop_delay` of `s` seconds, 2^52 ns or more (over a million km), out of line: the
/// inlined call otherwise made the readers of the air log save registers around it on
/// every frame.
#[cold]
#[inline(never)]
fn prop_delay_far(s: f64) -> SimDuration {
    SimDuration::from_secs_f64(s)
}

/// Euclidean distance between two points in the plane.
#[inline]
pub fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    let dx = a.0 - b.0;
    let dy = a.1 - b.1;
    (dx * dx + dy * dy).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_eq(a: f64, b: f64, tol: f64) -> bool {
        ((a - b) / b).abs() < tol
    }

    // Hand calculation for the defaults (Gt = Gr = L = 1, ht = hr = 1.5 m):
    //   lambda = 3e8 / 914e6 = 0.328227571 m
    //   d_c    = 4 pi * 1.5 * 1.5 / lambda = 28.2743339 / 0.328227571 = 86.1425 m
    //   (ns2-wireless-defaults.md rounds this to "86.2"; the exact value is 86.14.)
    //   Pt ht^2 hr^2 = 0.28183815 * 5.0625 = 1.42680563
    //   rx range = (1.42680563 / 3.652e-10)^(1/4) = (3.906916e9)^(1/4) = 250.0107 m
    //   cs range = (1.42680563 / 1.559e-11)^(1/4) = (9.152057e10)^(1/4) = 550.0215 m
    //   ns-2 prints "distCST_ = 550.0" (%0.1f).

    #[test]
    fn default_wavelength_and_crossover() {
        let c = PhyCfg::default();
        assert!((c.lambda_m() - 0.328_227_571).abs() < 1e-9);
        assert!(
            (c.crossover_m() - 86.1425).abs() < 1e-3,
            "{}",
            c.crossover_m()
        );
    }

    #[test]
    fn default_ranges_are_250_and_550_metres() {
        let c = PhyCfg::default();
        assert!(
            (c.rx_range_m() - 250.0107).abs() < 1e-3,
            "{}",
            c.rx_range_m()
        );
        assert!(
            (c.cs_range_m() - 550.0215).abs() < 1e-3,
            "{}",
            c.cs_range_m()
        );
        // As ns-2 prints them with one decimal.
        assert_eq!(format!("{:.1}", c.rx_range_m()), "250.0");
        assert_eq!(format!("{:.1}", c.cs_range_m()), "550.0");
    }

    #[test]
    fn power_just_inside_and_outside_the_ranges() {
        let c = PhyCfg::default();
        // 250.00 m: 1.42680563 / 250^4 = 1.42680563 / 3.90625e9 = 3.652622e-10 >= 3.652e-10.
        let p = c.rx_power(250.0);
        assert!(rel_eq(p, 3.652_622e-10, 1e-6), "{p}");
        assert_eq!(c.classify(p), Reception::Decodable);
        // 250.02 m: 250.02^4 = 3.907500e9 -> 3.651454e-10 < RXThresh, > CSThresh.
        let p = c.rx_power(250.02);
        assert!(rel_eq(p, 3.651_454e-10, 1e-5), "{p}");
        assert_eq!(c.classify(p), Reception::Errored);
        // 550.00 m: 550^4 = 9.150625e10 -> 1.559244e-11 >= CSThresh.
        let p = c.rx_power(550.0);
        assert!(rel_eq(p, 1.559_244e-11, 1e-6), "{p}");
        assert_eq!(c.classify(p), Reception::Errored);
        // 550.03 m: 550.03^4 = 9.152622e10 -> 1.558904e-11 < CSThresh: not seen.
        let p = c.rx_power(550.03);
        assert!(rel_eq(p, 1.558_904e-11, 1e-5), "{p}");
        assert_eq!(c.classify(p), Reception::NotSensed);
    }

    #[test]
    fn friis_below_crossover_two_ray_above_and_continuous() {
        let c = PhyCfg::default();
        // At 10 m, Friis: Pt (lambda / (4 pi d))^2 = 0.28183815 * (0.328227571 / 125.663706)^2
        //   = 0.28183815 * (2.611953e-3)^2 = 0.28183815 * 6.822298e-6 = 1.922783e-6 W.
        assert!(rel_eq(c.rx_power(10.0), 1.922_783e-6, 1e-5));
        // At 100 m, two-ray: 1.42680563 / 1e8 = 1.42680563e-8 W.
        assert!(rel_eq(c.rx_power(100.0), 1.426_805_63e-8, 1e-8));
        // At d_c both formulas give Pt lambda^2 / (4 pi d_c)^2
        //   = 0.28183815 * 0.1077333 / (1082.4982^2 = 1.171802e6) = 2.591168e-8 W.
        let dc = c.crossover_m();
        assert!(rel_eq(c.friis(dc), 2.591_168e-8, 1e-5));
        assert!(rel_eq(c.two_ray(dc), c.friis(dc), 1e-12));
        // The piecewise curve has no jump across d_c.
        assert!(rel_eq(
            c.rx_power(dc * (1.0 - 1e-12)),
            c.rx_power(dc * (1.0 + 1e-12)),
            1e-9
        ));
    }

    #[test]
    fn distances_below_one_metre_are_floored() {
        let c = PhyCfg::default();
        // Friis at 1 m: 0.28183815 * (0.328227571 / 12.5663706)^2 = 0.28183815 * 6.822298e-4
        //   = 1.922783e-4 W, the same at 0 m and 0.5 m.
        assert!(rel_eq(c.rx_power(1.0), 1.922_783e-4, 1e-5));
        assert_eq!(c.rx_power(0.0), c.rx_power(1.0));
        assert_eq!(c.rx_power(0.5), c.rx_power(1.0));
        // 1 m / 3e8 m/s = 3.33 ns -> 3 ns.
        assert_eq!(prop_delay(0.0), SimDuration::from_nanos(3));
    }

    /// The inlined rounding must be `from_secs_f64`'s: at random distances, at ones
    /// whose delay is a whole or half nanosecond (and their neighbours), and huge ones.
    #[test]
    fn propagation_delay_rounds_as_from_secs_f64() {
        let mut r = crate::sim::RngStream::new(5, "prop-delay-test");
        let mut ds = vec![0.0, 1.0, 0.15, 0.45, 1e30, f64::INFINITY];
        for k in 0..4000u32 {
            // k/2 ns is k * 0.15 m.
            let d = f64::from(k) * 0.15;
            ds.extend([
                d,
                f64::from_bits(d.to_bits() + 1),
                f64::from_bits(d.to_bits().saturating_sub(1)),
            ]);
            ds.push(r.uniform() * 3000.0);
        }
        // Half nanoseconds at every scale up to 2^52 ns, where `ns + 0.5` may round.
        for e in 0..53 {
            let p = f64::from(2u32).powi(e);
            for ns in [p - 0.5, p, p + 0.5, (p * (1.0 + r.uniform())).floor() + 0.5] {
                let d = ns * 0.3;
                for k in 0..8u64 {
                    ds.push(f64::from_bits(d.to_bits() + k));
                    ds.push(f64::from_bits(d.to_bits() - k));
                }
            }
        }
        for d in ds {
            let want = SimDuration::from_secs_f64(d.max(MIN_DISTANCE_M) / SPEED_OF_LIGHT);
            assert_eq!(prop_delay(d), want, "d={d}");
        }
    }

    #[test]
    fn propagation_delay_uses_ns2_speed_of_light() {
        // 250 m / 3e8 = 833.33 ns -> 833; 550 m -> 1833.33 -> 1833; 300 m -> exactly 1000.
        assert_eq!(prop_delay(250.0), SimDuration::from_nanos(833));
        assert_eq!(prop_delay(550.0), SimDuration::from_nanos(1833));
        assert_eq!(prop_delay(300.0), SimDuration::from_nanos(1000));
        assert_eq!(
            PhyCfg::default().prop_delay(300.0),
            SimDuration::from_micros(1)
        );
    }

    #[test]
    fn capture_needs_ten_times_the_power() {
        let c = PhyCfg::default();
        assert!(c.captures(1e-9, 1e-10)); // ratio exactly 10: captured (>=)
        assert!(!c.captures(9.9e-10, 1e-10));
    }

    #[test]
    fn range_inside_crossover_uses_friis() {
        // Raise RXThresh so the range falls below d_c: threshold 1.9227825e-6 W is Friis' power
        // at 10 m (computed above), so the solved range must be 10 m.
        let c = PhyCfg {
            rx_thresh_w: 1.922_782_5e-6,
            ..PhyCfg::default()
        };
        assert!((c.rx_range_m() - 10.0).abs() < 1e-4, "{}", c.rx_range_m());
        // And the inverse holds for the two-ray branch with a system loss: L = 2 lowers the
        // power 2x, so the range shrinks by 2^(1/4): 250.0107 / 1.189207 = 210.2331 m.
        let c = PhyCfg {
            system_loss: 2.0,
            ..PhyCfg::default()
        };
        assert!(
            (c.rx_range_m() - 210.2331).abs() < 1e-3,
            "{}",
            c.rx_range_m()
        );
    }
}
