//! Circular orbits and ground points as ns-2.35's `satposition.cc` computes them.
//!
//! `CircularOrbit` is `PolarSatPosition` (any inclination, despite the name), `GeoOrbit`
//! is `GeoSatPosition` and `GroundPoint` is `TermSatPosition`. All three are positions in
//! the non-rotating frame of `sat/mod.rs` as functions of the simulated time in seconds.

use super::tle::TleOrbit;
use super::{
    EARTH_PERIOD_S, EARTH_RADIUS_KM, GEO_ALTITUDE_KM, MU_KM3_S2, NS2_PI, Spherical, Vec3,
    deg_to_rad, fmod,
};

/// Why an orbit's parameters were refused (the caller adds file and key).
#[derive(Clone, Debug, PartialEq)]
pub enum OrbitError {
    AltitudeBelowSurface(f64),
    Inclination(f64),
    Longitude(f64),
    Alpha(f64),
    Latitude(f64),
}

impl std::fmt::Display for OrbitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OrbitError::AltitudeBelowSurface(v) => {
                write!(
                    f,
                    "altitude {v} km is below the Earth's surface (expected >= 0)"
                )
            }
            OrbitError::Inclination(v) => {
                write!(
                    f,
                    "inclination {v} deg is out of range (expected 0 <= i < 180)"
                )
            }
            OrbitError::Longitude(v) => {
                write!(f, "longitude {v} deg is out of range (expected -180..180)")
            }
            OrbitError::Alpha(v) => {
                write!(f, "alpha {v} deg is out of range (expected 0 <= a < 360)")
            }
            OrbitError::Latitude(v) => {
                write!(f, "latitude {v} deg is out of range (expected -90..90)")
            }
        }
    }
}

/// ns-2.35 stores a longitude in -180..180 as an azimuth in 0..2 pi (`set()` of every
/// position class).
fn longitude_to_azimuth(lon_deg: f64) -> f64 {
    if lon_deg < 0.0 {
        deg_to_rad(360.0 + lon_deg)
    } else {
        deg_to_rad(lon_deg)
    }
}

fn check_longitude(lon_deg: f64) -> Result<(), OrbitError> {
    if (-180.0..=180.0).contains(&lon_deg) {
        Ok(())
    } else {
        Err(OrbitError::Longitude(lon_deg))
    }
}

/// A circular orbit: ns-2.35's `PolarSatPosition`.
#[derive(Clone, Debug, PartialEq)]
pub struct CircularOrbit {
    /// Orbit radius (km).
    pub radius_km: f64,
    /// Inclination (rad).
    pub inclination: f64,
    /// Azimuth of the ascending node in the non-rotating frame (rad, 0..2 pi).
    pub ascending_node: f64,
    /// Angle from the ascending node along the orbit at time 0 (rad, 0..2 pi).
    pub alpha: f64,
    /// Orbital period (s): 2 pi sqrt(r^3 / MU).
    pub period_s: f64,
    /// cos and sin of the ascending node and of the inclination, for `position`.
    trig: [f64; 4],
}

impl CircularOrbit {
    /// ns-2.35's `set-position` arguments (`PolarSatPosition::set`): altitude above
    /// `EARTH_RADIUS_KM` (km), inclination (deg), longitude of the ascending node (deg,
    /// -180..180) and initial angle alpha (deg, 0 <= alpha < 360).
    pub fn from_ns2(
        altitude_km: f64,
        inclination_deg: f64,
        longitude_deg: f64,
        alpha_deg: f64,
    ) -> Result<Self, OrbitError> {
        if altitude_km.is_nan() || altitude_km < 0.0 {
            return Err(OrbitError::AltitudeBelowSurface(altitude_km));
        }
        if !(0.0..360.0).contains(&alpha_deg) {
            return Err(OrbitError::Alpha(alpha_deg));
        }
        check_longitude(longitude_deg)?;
        // ns-2.35 accepts 180 in set() but asserts inclination < PI in coord().
        if !(0.0..180.0).contains(&inclination_deg) {
            return Err(OrbitError::Inclination(inclination_deg));
        }
        Ok(Self::new(
            EARTH_RADIUS_KM + altitude_km,
            deg_to_rad(inclination_deg),
            longitude_to_azimuth(longitude_deg),
            deg_to_rad(alpha_deg),
        ))
    }

    /// From the angles in radians (ascending node and alpha already in 0..2 pi).
    pub fn new(radius_km: f64, inclination: f64, ascending_node: f64, alpha: f64) -> Self {
        // ns-2.35 computes r^3 as a product ("can't use pow() because of linux lib").
        let cube = radius_km * radius_km * radius_km;
        CircularOrbit {
            radius_km,
            inclination,
            ascending_node,
            alpha,
            period_s: 2.0 * NS2_PI * (cube / MU_KM3_S2).sqrt(),
            trig: [
                ascending_node.cos(),
                ascending_node.sin(),
                inclination.cos(),
                inclination.sin(),
            ],
        }
    }

    /// Cartesian position at time `t` (km): the point of `coord` in closed form, the
    /// orbit's plane turned by the inclination about the line of nodes, then by the
    /// ascending node about the pole (x = r (cos N cos u - sin N sin u cos i), y = r (sin N
    /// cos u + cos N sin u cos i), z = r sin u sin i). One sine and cosine per call
    /// instead of `coord`'s asin, atan and four more: what every packet hop pays.
    pub fn position(&self, t: f64) -> Vec3 {
        let (su, cu) = self.argument(t).sin_cos();
        let [cn, sn, ci, si] = self.trig;
        let r = self.radius_km;
        Vec3 {
            x: r * (cn * cu - sn * su * ci),
            y: r * (sn * cu + cn * su * ci),
            z: r * su * si,
        }
    }

    /// Angle travelled from the ascending node at time `t` (rad, 0..2 pi): ns-2.35's
    /// `theta_cur`.
    pub fn argument(&self, t: f64) -> f64 {
        let partial = (fmod(t, self.period_s) / self.period_s) * 2.0 * NS2_PI;
        fmod(self.alpha + partial, 2.0 * NS2_PI)
    }

    /// Position at time `t` (`PolarSatPosition::coord`).
    pub fn coord(&self, t: f64) -> Spherical {
        let u = self.argument(t);
        let theta = NS2_PI / 2.0 - (self.inclination.sin() * u.sin()).asin();
        // atan() answers in -pi/2..pi/2: on the half of the orbit where cos(u) < 0 the
        // azimuth is on the other side.
        let mut phi = (self.inclination.cos() * u.tan()).atan() + self.ascending_node;
        if u > NS2_PI / 2.0 && u < 3.0 * NS2_PI / 2.0 {
            phi += NS2_PI;
        }
        Spherical {
            r: self.radius_km,
            theta,
            phi: fmod(phi + 2.0 * NS2_PI, 2.0 * NS2_PI),
        }
    }

    /// Whether the satellite is heading north (`PolarSatPosition::isascending`).
    pub fn is_ascending(&self, t: f64) -> bool {
        let u = self.argument(t);
        !(u > NS2_PI / 2.0 && u < 3.0 * NS2_PI / 2.0)
    }
}

/// A geostationary satellite: ns-2.35's `GeoSatPosition` (on the equator at
/// `GEO_ALTITUDE_KM`, turning with the Earth).
#[derive(Clone, Debug, PartialEq)]
pub struct GeoOrbit {
    pub azimuth0: f64,
}

impl GeoOrbit {
    pub fn from_longitude(longitude_deg: f64) -> Result<Self, OrbitError> {
        check_longitude(longitude_deg)?;
        Ok(GeoOrbit {
            azimuth0: longitude_to_azimuth(longitude_deg),
        })
    }

    pub fn coord(&self, t: f64) -> Spherical {
        Spherical {
            r: EARTH_RADIUS_KM + GEO_ALTITUDE_KM,
            theta: NS2_PI / 2.0,
            phi: fmod(self.azimuth0 + earth_rotation(t), 2.0 * NS2_PI),
        }
    }
}

/// How far the Earth has turned since time 0 (rad, 0..2 pi).
pub fn earth_rotation(t: f64) -> f64 {
    (fmod(t, EARTH_PERIOD_S) / EARTH_PERIOD_S) * 2.0 * NS2_PI
}

/// A point on the Earth's surface: ns-2.35's `TermSatPosition`.
#[derive(Clone, Debug, PartialEq)]
pub struct GroundPoint {
    pub theta: f64,
    pub azimuth0: f64,
    /// R sin theta and R cos theta, fixed for a station: `position` needs only the sine and
    /// cosine of the azimuth per call (the same products as `Spherical::to_cartesian`).
    r_sin_theta: f64,
    r_cos_theta: f64,
}

impl GroundPoint {
    pub fn from_lat_lon(lat_deg: f64, lon_deg: f64) -> Result<Self, OrbitError> {
        if !(-90.0..=90.0).contains(&lat_deg) {
            return Err(OrbitError::Latitude(lat_deg));
        }
        check_longitude(lon_deg)?;
        let theta = deg_to_rad(90.0 - lat_deg);
        Ok(GroundPoint {
            theta,
            azimuth0: longitude_to_azimuth(lon_deg),
            r_sin_theta: EARTH_RADIUS_KM * theta.sin(),
            r_cos_theta: EARTH_RADIUS_KM * theta.cos(),
        })
    }

    pub fn coord(&self, t: f64) -> Spherical {
        Spherical {
            r: EARTH_RADIUS_KM,
            theta: self.theta,
            phi: fmod(self.azimuth0 + earth_rotation(t), 2.0 * NS2_PI),
        }
    }

    /// `coord(t).to_cartesian()`, with theta's part computed once.
    pub fn position(&self, t: f64) -> Vec3 {
        let (sp, cp) = self.coord(t).phi.sin_cos();
        Vec3 {
            x: self.r_sin_theta * cp,
            y: self.r_sin_theta * sp,
            z: self.r_cos_theta,
        }
    }
}

/// Any satellite's orbit.
#[derive(Clone, Debug)]
pub enum Orbit {
    Circular(CircularOrbit),
    Geo(GeoOrbit),
    Tle(Box<TleOrbit>),
}

impl Orbit {
    /// Position (km) at time `t` (s) in the non-rotating frame.
    pub fn position(&self, t: f64) -> Vec3 {
        match self {
            Orbit::Circular(o) => o.position(t),
            Orbit::Geo(o) => o.coord(t).to_cartesian(),
            Orbit::Tle(o) => o.position(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tol {tol})");
    }

    #[test]
    fn period_follows_keplers_third_law() {
        // Iridium's 780 km (ns-2.35's sat-iridium.tcl): r = 7158 km,
        // T = 2 pi sqrt(7158^3 / 398601.2) = 6026.9 s by hand.
        let o = CircularOrbit::from_ns2(780.0, 86.4, 0.0, 0.0).unwrap();
        let by_hand = 2.0 * std::f64::consts::PI * (7158.0f64.powi(3) / 398_601.2).sqrt();
        close(o.period_s, by_hand, 1e-6);
        close(o.period_s, 6026.9, 0.1);
    }

    #[test]
    fn polar_orbit_positions_in_closed_form() {
        // A polar orbit (i = 90 deg) with its ascending node at 30 deg east, starting at
        // the ascending node. Closed form: at a quarter period it is over the north pole,
        // at half a period over the equator on the other side (azimuth 210 deg), and at
        // an eighth of a period at latitude 45 deg on the ascending node's meridian.
        let o = CircularOrbit::from_ns2(1000.0, 90.0, 30.0, 0.0).unwrap();
        let r = 7378.0;
        let t = o.period_s;
        let p0 = o.coord(0.0).to_cartesian();
        let a = 30f64.to_radians();
        close(p0.x, r * a.cos(), 1e-6);
        close(p0.y, r * a.sin(), 1e-6);
        close(p0.z, 0.0, 1e-6);
        let p = o.coord(t / 4.0).to_cartesian();
        close(p.z, r, 1e-6);
        close(p.x.hypot(p.y), 0.0, 1e-3);
        let p = o.coord(t / 2.0).to_cartesian();
        close(p.x, -r * a.cos(), 1e-6);
        close(p.y, -r * a.sin(), 1e-6);
        close(p.z, 0.0, 1e-6);
        let p = o.coord(t / 8.0).to_cartesian();
        let h = r / 2f64.sqrt();
        close(p.x, h * a.cos(), 1e-6);
        close(p.y, h * a.sin(), 1e-6);
        close(p.z, h, 1e-6);
        // Three quarters: the south pole, descending... then ascending again.
        let p = o.coord(3.0 * t / 4.0).to_cartesian();
        close(p.z, -r, 1e-6);
        assert!(o.is_ascending(0.1));
        assert!(!o.is_ascending(t / 2.0));
        assert!(o.is_ascending(0.9 * t));
    }

    #[test]
    fn inclined_orbit_positions_in_closed_form() {
        // i = 53 deg, node at -60 deg (azimuth 300), alpha = 0. After an argument of
        // latitude u the closed form of a circular orbit is
        //   x = r (cos W cos u - sin W sin u cos i)
        //   y = r (sin W cos u + cos W sin u cos i)
        //   z = r sin u sin i
        // evaluated here at a third of the period (u = 120 deg, the branch where ns-2.35
        // adds pi) and at 0.1 of the period (u = 36 deg).
        let o = CircularOrbit::from_ns2(550.0, 53.0, -60.0, 0.0).unwrap();
        let r = 6928.0;
        let (w, i) = (300f64.to_radians(), 53f64.to_radians());
        for (frac, u_deg) in [(1.0 / 3.0, 120.0f64), (0.1, 36.0)] {
            let u = u_deg.to_radians();
            let p = o.coord(frac * o.period_s).to_cartesian();
            close(
                p.x,
                r * (w.cos() * u.cos() - w.sin() * u.sin() * i.cos()),
                1e-6,
            );
            close(
                p.y,
                r * (w.sin() * u.cos() + w.cos() * u.sin() * i.cos()),
                1e-6,
            );
            close(p.z, r * u.sin() * i.sin(), 1e-6);
        }
        // Highest latitude reached is the inclination.
        let top = o.coord(o.period_s / 4.0).latitude();
        close(top, 53f64.to_radians(), 1e-9);
    }

    #[test]
    fn closed_form_position_is_ns2s_coord() {
        // `position` (one sin_cos) and ns-2.35's `coord` (asin, atan and the branch by
        // the half of the orbit) name the same point, on polar, inclined and retrograde
        // orbits, at instants all round the orbit (the branch edges u = 90 and 270 deg
        // included). Within a metre: `coord`'s asin loses precision near the highest
        // latitude (its slope is infinite there), some 10^-8 rad, 0.1 m at 7,158 km.
        for (inc, lon, alpha) in [(86.4, 30.0, 10.0), (53.0, -60.0, 0.0), (97.6, 170.0, 300.0)] {
            let o = CircularOrbit::from_ns2(780.0, inc, lon, alpha).unwrap();
            for k in 0..=400 {
                let t = o.period_s * f64::from(k) / 400.0 + 0.37;
                let (a, b) = (o.position(t), o.coord(t).to_cartesian());
                assert!(a.distance(b) < 1e-3, "{inc} {t}: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn ground_point_and_geo_turn_with_the_earth() {
        // A station at 0 N 90 E: after a quarter sidereal day it has turned to azimuth
        // 180 deg; a GEO satellite over 90 E stays straight overhead, 35786 km up.
        let g = GroundPoint::from_lat_lon(0.0, 90.0).unwrap();
        let s = GeoOrbit::from_longitude(90.0).unwrap();
        let t = EARTH_PERIOD_S / 4.0;
        let p = g.position(t);
        close(p.x, -6378.0, 1e-6);
        close(p.y, 0.0, 1e-6);
        let q = s.coord(t).to_cartesian();
        close(q.distance(p), 35_786.0, 1e-6);
        // Western longitudes wrap to 360 + lon, as ns-2.35's set().
        let w = GroundPoint::from_lat_lon(45.0, -90.0).unwrap();
        close(w.azimuth0, 270f64.to_radians(), 1e-12);
        close(w.coord(0.0).latitude(), 45f64.to_radians(), 1e-12);
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert_eq!(
            CircularOrbit::from_ns2(-1.0, 90.0, 0.0, 0.0),
            Err(OrbitError::AltitudeBelowSurface(-1.0))
        );
        assert!(CircularOrbit::from_ns2(780.0, 180.0, 0.0, 0.0).is_err());
        assert!(CircularOrbit::from_ns2(780.0, 90.0, 181.0, 0.0).is_err());
        assert!(CircularOrbit::from_ns2(780.0, 90.0, 0.0, 360.0).is_err());
        assert!(GroundPoint::from_lat_lon(90.5, 0.0).is_err());
        assert!(GroundPoint::from_lat_lon(0.0, -180.5).is_err());
        assert!(CircularOrbit::from_ns2(f64::NAN, 90.0, 0.0, 0.0).is_err());
    }

    #[test]
    fn the_fast_paths_give_fmod_and_to_cartesian_bit_for_bit() {
        // `fmod` and `GroundPoint::position` only skip work: each must equal `%` and
        // `coord(t).to_cartesian()` exactly, in every branch (x < y, y <= x < 2y, beyond,
        // negative, the edges).
        let y = 2.0 * NS2_PI;
        for x in [
            0.0,
            -0.0,
            1e-300,
            3.0,
            y - 1e-15,
            y,
            y + 1e-15,
            7.5,
            2.0 * y - 1e-12,
            2.0 * y,
            13.0,
            1e6,
            -0.5,
            -7.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(fmod(x, y).to_bits(), (x % y).to_bits(), "{x}");
            assert_eq!(fmod(x, 6027.1).to_bits(), (x % 6027.1).to_bits(), "{x}");
        }
        let g = GroundPoint::from_lat_lon(51.5, -0.13).unwrap();
        for i in 0..2000 {
            let t = i as f64 * 97.3;
            let (a, b) = (g.position(t), g.coord(t).to_cartesian());
            assert_eq!(
                (a.x.to_bits(), a.y.to_bits(), a.z.to_bits()),
                (b.x.to_bits(), b.y.to_bits(), b.z.to_bits()),
                "{t}"
            );
        }
    }
}
