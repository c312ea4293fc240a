//! A node's movement schedule: the leg in force and where the next one comes from
//! (fixed, random waypoint or a script), sought forwards or replayed backwards.

use super::Leg;
use super::waypoint::Waypoint;
use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub(super) enum Source {
    Fixed,
    Waypoint(Box<Waypoint>),
    /// Legs sorted by start; the first starts at 0. `idx` is the current leg.
    Script {
        legs: Vec<Leg>,
        idx: usize,
    },
}

#[derive(Clone, Debug)]
pub(super) struct NodeMotion {
    pub(super) leg: Leg,
    /// When the next leg starts (`SimTime::MAX` if none).
    pub(super) end: SimTime,
    pub(super) src: Source,
}

impl NodeMotion {
    pub(super) fn fixed(at: (f64, f64)) -> Self {
        NodeMotion {
            leg: Leg::stationary(SimTime::ZERO, at),
            end: SimTime::MAX,
            src: Source::Fixed,
        }
    }

    pub(super) fn script(legs: Vec<Leg>) -> Self {
        let end = legs.get(1).map_or(SimTime::MAX, |l| l.start);
        NodeMotion {
            leg: legs[0],
            end,
            src: Source::Script { legs, idx: 0 },
        }
    }

    /// Makes the cached leg the one in force at `now`.
    #[cold]
    pub(super) fn seek(&mut self, now: SimTime) {
        match &mut self.src {
            Source::Fixed => {}
            Source::Waypoint(w) => {
                if now < self.leg.start {
                    w.rng = w.rng_at_start.clone();
                    (self.leg, self.end) = w.first();
                }
                while now >= self.end && self.end != SimTime::MAX {
                    (self.leg, self.end) = w.next(&self.leg, self.end);
                }
            }
            Source::Script { legs, idx } => {
                let starts_by = |k: usize| legs.get(k).is_some_and(|l| l.start <= now);
                if now >= self.leg.start && !starts_by(*idx + 1) {
                    return;
                }
                *idx = if now >= self.leg.start && !starts_by(*idx + 2) {
                    *idx + 1
                } else {
                    // The first leg starts at 0, so at least one leg has started.
                    legs.partition_point(|l| l.start <= now).saturating_sub(1)
                };
                self.leg = legs[*idx];
                self.end = legs.get(*idx + 1).map_or(SimTime::MAX, |l| l.start);
            }
        }
    }
}
