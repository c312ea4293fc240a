//! Geometry of satellite links: elevation and visibility from a ground station, the
//! instant a satellite drops below a station's mask, and whether a line between two
//! satellites clears the atmosphere (ns-2.35's `satgeometry.cc`).

use super::{ATMOS_MARGIN_KM, EARTH_RADIUS_KM, Vec3};

/// Elevation (rad, -pi/2..pi/2) of `sat` seen from `ground` (a point on the sphere):
/// the angle between the line of sight and the local horizontal. ns-2.35's
/// `SatGeometry::check_elevation` gets the same angle from the triangle Earth centre /
/// station / satellite (law of cosines), for satellites above the horizon.
pub fn elevation(sat: Vec3, ground: Vec3) -> f64 {
    let los = sat.minus(ground);
    let d = los.norm();
    let g = ground.norm();
    if d == 0.0 || g == 0.0 {
        return -std::f64::consts::FRAC_PI_2;
    }
    (los.dot(ground) / (d * g)).clamp(-1.0, 1.0).asin()
}

/// ns-2.35's test for a ground-satellite link (`check_elevation(...) > mask`): the
/// satellite is above the horizon and its elevation strictly above `mask` (rad).
pub fn visible(sat: Vec3, ground: Vec3, mask: f64) -> bool {
    elevation(sat, ground) > mask
}

/// The first instant in (t0, t0 + horizon] at which `elev(t)` is at or below `mask`, to
/// within `tol` seconds, or None if it stays above at every sample. `elev` is sampled
/// every `step` seconds and the crossing then found by bisection, so a dip shorter than
/// `step` can be missed: a LEO pass lasts minutes, and callers use steps of a second.
pub fn drop_below_mask(
    elev: impl Fn(f64) -> f64,
    mask: f64,
    t0: f64,
    horizon: f64,
    step: f64,
    tol: f64,
) -> Option<f64> {
    if elev(t0) <= mask {
        return Some(t0);
    }
    let end = t0 + horizon;
    let mut lo = t0;
    loop {
        if lo >= end {
            return None;
        }
        let hi = (lo + step).min(end);
        if elev(hi) <= mask {
            let (mut a, mut b) = (lo, hi);
            while b - a > tol {
                let m = 0.5 * (a + b);
                if elev(m) <= mask { b = m } else { a = m }
            }
            return Some(b);
        }
        lo = hi;
    }
}

/// Least distance (km) from the Earth's centre to the segment between `a` and `b`.
pub fn segment_min_radius(a: Vec3, b: Vec3) -> f64 {
    let ab = b.minus(a);
    let len2 = ab.dot(ab);
    if len2 == 0.0 {
        return a.norm();
    }
    // Closest point of the segment to the origin: a + s (b - a), s clamped to [0, 1].
    let s = (-a.dot(ab) / len2).clamp(0.0, 1.0);
    Vec3 {
        x: a.x + s * ab.x,
        y: a.y + s * ab.y,
        z: a.z + s * ab.z,
    }
    .norm()
}

/// ns-2.35's `are_satellites_mutually_visible`: the line between two satellites stays at
/// least `ATMOS_MARGIN_KM` above the surface. ns-2.35 takes the midpoint's distance,
/// sqrt(r^2 - (d/2)^2) with r the first satellite's radius, which is the least distance
/// when both are at one altitude; this takes the least distance over the segment.
pub fn mutually_visible(a: Vec3, b: Vec3) -> bool {
    segment_min_radius(a, b) >= EARTH_RADIUS_KM + ATMOS_MARGIN_KM
}

#[cfg(test)]
mod tests {
    use super::super::orbit::{CircularOrbit, GroundPoint};
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
    }

    #[test]
    fn elevation_by_hand() {
        let g = Vec3 {
            x: 6378.0,
            y: 0.0,
            z: 0.0,
        };
        // Straight overhead.
        close(
            elevation(
                Vec3 {
                    x: 7000.0,
                    y: 0.0,
                    z: 0.0,
                },
                g,
            ),
            90f64.to_radians(),
            1e-12,
        );
        // On the horizontal plane of the station: 0 deg.
        close(
            elevation(
                Vec3 {
                    x: 6378.0,
                    y: 1000.0,
                    z: 0.0,
                },
                g,
            ),
            0.0,
            1e-12,
        );
        // A satellite 1000 km up the station's vertical and 1000 km along the horizon:
        // 45 deg.
        close(
            elevation(
                Vec3 {
                    x: 7378.0,
                    y: 0.0,
                    z: 1000.0,
                },
                g,
            ),
            45f64.to_radians(),
            1e-12,
        );
        // ns-2.35's law-of-cosines form for a satellite at radius S, central angle
        // gamma: tan(el) = (cos gamma - E/S) / sin gamma.
        let (s, gamma) = (7158.0f64, 12f64.to_radians());
        let sat = Vec3 {
            x: s * gamma.cos(),
            y: s * gamma.sin(),
            z: 0.0,
        };
        let by_hand = ((gamma.cos() - 6378.0 / s) / gamma.sin()).atan();
        close(elevation(sat, g), by_hand, 1e-12);
        assert!(visible(sat, g, 0.0));
        assert!(!visible(sat, g, by_hand + 1e-9));
    }

    #[test]
    fn drop_below_mask_from_the_pole_in_closed_form() {
        // A station at the north pole does not move as the Earth turns, and a polar
        // orbit's latitude is 90 deg - |90 deg - u| with u = alpha + 2 pi t / T: the
        // elevation depends only on the central angle gamma = 90 deg - latitude. The mask
        // e is reached where gamma = acos(E cos e / S) - e (the triangle centre / station /
        // satellite), so a satellite starting over the pole drops below it at
        // t = gamma T / (2 pi).
        let o = CircularOrbit::from_ns2(780.0, 90.0, 0.0, 90.0).unwrap();
        let pole = GroundPoint::from_lat_lon(90.0, 0.0).unwrap();
        let mask = 8.2f64.to_radians();
        let (e, s) = (6378.0f64, 7158.0f64);
        let gamma = (e * mask.cos() / s).acos() - mask;
        let by_hand = gamma * o.period_s / (2.0 * std::f64::consts::PI);
        let elev = |t: f64| elevation(o.coord(t).to_cartesian(), pole.position(t));
        let t = drop_below_mask(elev, mask, 0.0, 3600.0, 1.0, 1e-6).unwrap();
        // ns-2.35's truncated pi moves the answer by ~1e-10 s.
        close(t, by_hand, 1e-5);
        // Still above just before, at or below just after.
        assert!(elev(t - 1e-4) > mask);
        assert!(elev(t + 1e-4) < mask);
        // Beyond the horizon asked for: none.
        assert_eq!(
            drop_below_mask(elev, mask, 0.0, by_hand - 1.0, 1.0, 1e-6),
            None
        );
    }

    #[test]
    fn atmosphere_grazing_by_hand() {
        // Two satellites at radius r, separated by central angle 2 a: the chord's
        // midpoint is at r cos a. r = 7158: cos a = 6528 / 7158 gives a = 24.22 deg.
        let r = 7158.0f64;
        let at = |deg: f64| {
            let a = deg.to_radians();
            (
                Vec3 {
                    x: r * a.cos(),
                    y: r * a.sin(),
                    z: 0.0,
                },
                Vec3 {
                    x: r * a.cos(),
                    y: -r * a.sin(),
                    z: 0.0,
                },
            )
        };
        let limit = (6528.0 / r).acos().to_degrees();
        let (a, b) = at(limit - 0.01);
        assert!(mutually_visible(a, b));
        let (a, b) = at(limit + 0.01);
        assert!(!mutually_visible(a, b));
        // ns-2.35's form for equal radii.
        let (a, b) = at(20.0);
        let d = a.distance(b);
        close(segment_min_radius(a, b), (r * r - d * d / 4.0).sqrt(), 1e-9);
    }
}
