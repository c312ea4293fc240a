//! Satellite constellations (issue 39): orbits, Walker layouts, SGP4 for TLE sets, the
//! geometry of inter-satellite and ground-satellite links, and ground-station handover
//! policies, all as pure functions of time. docs/models/satellite.md gives every rule's
//! source in ns-2.35 (`satellite/satposition.cc`, `satgeometry.cc`, `sathandoff.cc`) and
//! every difference.
//!
//! Frame: ns-2.35's. Positions are in an Earth-centred frame that does not rotate; the
//! Earth turns beneath it once every `EARTH_PERIOD_S`, and at time 0 the prime meridian
//! is at azimuth 0 (so a ground station at longitude `lon` starts at azimuth `lon`).
//! Lengths are kilometres and times seconds, as in ns-2.35.

pub mod constellation;
pub mod geometry;
pub mod handover;
pub mod network;
#[cfg(test)]
mod ns2_check;
pub mod orbit;
pub mod tle;
pub mod walker;

/// ns-2.35's `PI` (satgeometry.h): truncated, kept so that angles match its module.
#[allow(clippy::approx_constant)]
pub const NS2_PI: f64 = 3.1415926535897;
/// ns-2.35's `MU`, the Earth's gravitational parameter (km^3/s^2).
pub const MU_KM3_S2: f64 = 398_601.2;
/// ns-2.35's `LIGHT` (km/s).
pub const LIGHT_KM_S: f64 = 299_793.0;
/// ns-2.35's `EARTH_PERIOD`: one sidereal day (s).
pub const EARTH_PERIOD_S: f64 = 86_164.0;
/// ns-2.35's `EARTH_RADIUS` (km), a sphere.
pub const EARTH_RADIUS_KM: f64 = 6_378.0;
/// ns-2.35's `GEO_ALTITUDE` (km).
pub const GEO_ALTITUDE_KM: f64 = 35_786.0;
/// ns-2.35's `ATMOS_MARGIN` (km): an ISL whose line passes lower than this is down.
pub const ATMOS_MARGIN_KM: f64 = 150.0;

/// Degrees to radians with ns-2.35's `DEG_TO_RAD` (its truncated pi).
pub fn deg_to_rad(deg: f64) -> f64 {
    deg * NS2_PI / 180.0
}

/// Radians to degrees with ns-2.35's `RAD_TO_DEG`.
pub fn rad_to_deg(rad: f64) -> f64 {
    rad * 180.0 / NS2_PI
}

/// `x % y` (C's `fmod`) for the angles and times of the orbits, without the call in the
/// cases every packet hop meets. `%` on f64 is a software `fmod` (a loop over the
/// quotient's bits, a tenth of a satellite run's instructions); its result is exact, and
/// so is each shortcut: for 0 <= x < y it is x, and for y <= x < 2y it is x - y, which
/// has no rounding error there (Sterbenz's lemma). Anything else (x >= 2y, negative, NaN)
/// goes to `%`, so the value is always fmod's, bit for bit.
#[inline]
pub fn fmod(x: f64, y: f64) -> f64 {
    if (0.0..y).contains(&x) {
        x
    } else if x >= y && x < 2.0 * y {
        x - y
    } else {
        x % y
    }
}

/// A point in ns-2.35's spherical coordinates (`struct coordinate`): radius (km),
/// polar angle theta from the north pole (0..pi) and azimuth phi (0..2 pi), in the
/// non-rotating frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spherical {
    pub r: f64,
    pub theta: f64,
    pub phi: f64,
}

impl Spherical {
    /// Cartesian (km), as `SatGeometry::spherical_to_cartesian`.
    pub fn to_cartesian(self) -> Vec3 {
        Vec3 {
            x: self.r * self.theta.sin() * self.phi.cos(),
            y: self.r * self.theta.sin() * self.phi.sin(),
            z: self.r * self.theta.cos(),
        }
    }

    /// Latitude (rad, -pi/2..pi/2), as `SatGeometry::get_latitude`.
    pub fn latitude(self) -> f64 {
        NS2_PI / 2.0 - self.theta
    }
}

/// A cartesian point or vector (km) in the non-rotating frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Vec3 {
    pub fn minus(self, o: Vec3) -> Vec3 {
        Vec3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }

    pub fn distance(self, o: Vec3) -> f64 {
        self.minus(o).norm()
    }

    /// Latitude (rad) of the direction of this point from the Earth's centre.
    pub fn latitude(self) -> f64 {
        (self.z / self.norm()).clamp(-1.0, 1.0).asin()
    }
}

/// ns-2.35's `BaseTrace::round(x, 1e8)`: what it applies to every distance (km) and
/// propagation delay (s) of its satellite module.
pub fn ns2_round(x: f64) -> f64 {
    (x * 1.0e8 + 0.5).floor() / 1.0e8
}

/// Propagation delay (s) over `distance_km` at ns-2.35's speed of light, unrounded.
pub fn propagation_delay_s(distance_km: f64) -> f64 {
    distance_km / LIGHT_KM_S
}
