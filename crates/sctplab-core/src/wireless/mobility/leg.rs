//! Where a node is along one straight-line movement ([`Leg`]), in the rectangle nodes
//! move in ([`Area`]).

use crate::sim::SimTime;
use std::fmt;

/// The speed of light in vacuum, m/s (exact: it defines the metre). No node moves as
/// fast: scenarios and movement files are refused at or above it.
pub const SPEED_OF_LIGHT_MPS: f64 = 299_792_458.0;

/// The rectangle nodes move in: `[0, x_max] x [0, y_max]` metres (ns-2's flat
/// `Topography`, whose lower corner is the origin).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Area {
    pub x_max: f64,
    pub y_max: f64,
}

impl Area {
    pub fn new(x_max: f64, y_max: f64) -> Result<Self, MobilityError> {
        if !(x_max.is_finite() && x_max > 0.0 && y_max.is_finite() && y_max > 0.0) {
            return Err(MobilityError(format!(
                "area must be positive and finite, got {x_max} x {y_max} m"
            )));
        }
        Ok(Area { x_max, y_max })
    }

    /// Inside or on the border.
    pub fn contains(&self, p: (f64, f64)) -> bool {
        (0.0..=self.x_max).contains(&p.0) && (0.0..=self.y_max).contains(&p.1)
    }

    /// Strictly inside: ns-2's `MobileNode::set_destination` refuses a destination on or
    /// beyond the border (the Tcl command then fails).
    pub fn strictly_contains(&self, p: (f64, f64)) -> bool {
        p.0 > 0.0 && p.0 < self.x_max && p.1 > 0.0 && p.1 < self.y_max
    }
}

/// A mobility configuration that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MobilityError(pub String);

impl fmt::Display for MobilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MobilityError {}

/// One straight-line movement: from `from` at time `start` towards `to` at `speed` m/s;
/// from `arrive` on, the node is at `to`. A leg with `from == to` (a pause) or `speed == 0`
/// keeps the node where it is.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Leg {
    pub start: SimTime,
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub speed: f64,
    /// First instant at which the node is at `to`: the exact arrival time rounded up to
    /// the nanosecond, `SimTime::MAX` if the node never gets there (speed 0).
    pub arrive: SimTime,
    /// Unit direction (ns-2's normalised `dX_`, `dY_`); zero for a pause.
    pub(super) dir: (f64, f64),
}

impl Leg {
    /// The leg ns-2 starts with `setdest to.x to.y speed` at `start` when the node is at
    /// `from` (`MobileNode::set_destination`).
    pub fn new(start: SimTime, from: (f64, f64), to: (f64, f64), speed: f64) -> Leg {
        let dx = to.0 - from.0;
        let dy = to.1 - from.1;
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            return Leg {
                start,
                from,
                to,
                speed,
                arrive: start,
                dir: (0.0, 0.0),
            };
        }
        let arrive = if speed > 0.0 {
            let ns = (len / speed * 1e9).ceil();
            if ns.is_finite() && ns < (u64::MAX - start.as_nanos()) as f64 {
                SimTime::from_nanos(start.as_nanos() + ns as u64)
            } else {
                SimTime::MAX
            }
        } else {
            SimTime::MAX
        };
        Leg {
            start,
            from,
            to,
            speed,
            arrive,
            dir: (dx / len, dy / len),
        }
    }

    /// Standing still at `at` from `start` on.
    pub fn stationary(start: SimTime, at: (f64, f64)) -> Leg {
        Leg::new(start, at, at, 0.0)
    }

    /// Whether the node changes position during this leg.
    pub fn moves(&self) -> bool {
        self.speed > 0.0 && self.from != self.to
    }

    /// Position at `t` (`t >= start`; earlier times give `from`). As ns-2's
    /// `MobileNode::update_position`, each coordinate is clamped at the destination so that
    /// the rounded arrival time never carries the node past it.
    #[inline]
    pub fn at(&self, t: SimTime) -> (f64, f64) {
        if t >= self.arrive {
            return self.to;
        }
        let s = self.speed * t.saturating_since(self.start).as_secs_f64();
        let mut x = self.from.0 + self.dir.0 * s;
        let mut y = self.from.1 + self.dir.1 * s;
        if (self.dir.0 > 0.0 && x > self.to.0) || (self.dir.0 < 0.0 && x < self.to.0) {
            x = self.to.0;
        }
        if (self.dir.1 > 0.0 && y > self.to.1) || (self.dir.1 < 0.0 && y < self.to.1) {
            y = self.to.1;
        }
        (x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wireless::mobility::tests::{close, t};

    #[test]
    fn leg_moves_in_a_straight_line_and_stops_at_the_destination() {
        // From (0,0) to (30,40) at 10 m/s: 50 m, arrival at exactly 5 s.
        let leg = Leg::new(SimTime::ZERO, (0.0, 0.0), (30.0, 40.0), 10.0);
        assert_eq!(leg.arrive, t(5.0));
        // At 2 s: 20 m along (0.6, 0.8) -> (12, 16).
        assert!(close(leg.at(t(2.0)), (12.0, 16.0), 1e-12));
        assert_eq!(leg.at(t(5.0)), (30.0, 40.0));
        assert_eq!(leg.at(t(100.0)), (30.0, 40.0));
        // Zero speed towards another point: never moves, never arrives.
        let still = Leg::new(t(1.0), (5.0, 5.0), (9.0, 9.0), 0.0);
        assert_eq!(still.arrive, SimTime::MAX);
        assert_eq!(still.at(t(50.0)), (5.0, 5.0));
    }

    #[test]
    fn arrival_is_rounded_up_and_clamped() {
        // 1 m at 3 m/s: 0.333... s -> arrival at 333_333_334 ns; at 333_333_333 ns the node
        // is 3 * 0.333333333 = 0.999999999 m along, short of the end.
        let leg = Leg::new(SimTime::ZERO, (0.0, 0.0), (1.0, 0.0), 3.0);
        assert_eq!(leg.arrive, SimTime::from_nanos(333_333_334));
        let p = leg.at(SimTime::from_nanos(333_333_333));
        assert!((p.0 - 0.999_999_999).abs() < 1e-12 && p.0 <= 1.0);
    }
}
