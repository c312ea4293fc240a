//! Random waypoint as ns-2's `setdest -v 1` generates it
//! (indep-utils/cmu-scen-gen/setdest/setdest.cc), drawn lazily from one random stream
//! per node.

use super::{Area, Leg};
use crate::sim::{RngStream, SimTime};

/// Random waypoint parameters (`setdest -v 1 -M max_speed -p pause`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WaypointCfg {
    /// Each leg's speed is `max_speed * U(0,1)`, m/s.
    pub max_speed: f64,
    /// Time spent at each destination, and before the first leg.
    pub pause: crate::sim::SimDuration,
}

/// The random stream name of node `i`'s movement.
pub fn stream_name(node: usize) -> String {
    format!("mobility:node{node}")
}

#[derive(Clone, Debug)]
pub(super) struct Waypoint {
    pub(super) rng: RngStream,
    /// The stream right after the start position was drawn, for replays from time 0.
    pub(super) rng_at_start: RngStream,
    pub(super) start_pos: (f64, f64),
    area: Area,
    cfg: WaypointCfg,
}

impl Waypoint {
    pub(super) fn new(mut rng: RngStream, area: Area, cfg: WaypointCfg) -> Self {
        // setdest.cc `Node::RandomPosition`: X then Y, uniform over the area. The start may
        // lie on the border (`set X_` is not checked by ns-2).
        let x = rng.uniform() * area.x_max;
        let y = rng.uniform() * area.y_max;
        Waypoint {
            rng_at_start: rng.clone(),
            rng,
            start_pos: (x, y),
            area,
            cfg,
        }
    }

    /// A coordinate uniform over (0, max). setdest draws `uniform() * MAX`; a value on the
    /// border would make ns-2 reject the `setdest` line when the file is replayed, so such
    /// (probability ~2^-53) draws are repeated.
    fn coord(&mut self, max: f64) -> f64 {
        loop {
            let v = self.rng.uniform() * max;
            if v > 0.0 && v < max {
                return v;
            }
        }
    }

    /// The first leg: setdest.cc's `Node::Node` sets the first arrival at `PAUSE`, so the
    /// node waits `pause` at its start (and with pause 0 moves off at time 0).
    pub(super) fn first(&mut self) -> (Leg, SimTime) {
        let wait = Leg::stationary(SimTime::ZERO, self.start_pos);
        if self.cfg.pause > crate::sim::SimDuration::ZERO {
            (wait, SimTime::ZERO + self.cfg.pause)
        } else {
            self.next(&wait, SimTime::ZERO)
        }
    }

    /// The leg after `cur`, which ends at `end` (setdest.cc `Node::Update`): after a move
    /// comes a pause if `pause > 0`; after a pause (or a move, with pause 0) a new
    /// destination, drawn X then Y, then the speed `uniform() * max_speed`.
    pub(super) fn next(&mut self, cur: &Leg, end: SimTime) -> (Leg, SimTime) {
        let here = cur.at(end);
        let pause = self.cfg.pause;
        if cur.moves() && pause > crate::sim::SimDuration::ZERO {
            return (Leg::stationary(end, here), end + pause);
        }
        let x = self.coord(self.area.x_max);
        let y = self.coord(self.area.y_max);
        // setdest asserts the speed is not 0; we draw again instead.
        let speed = loop {
            let v = self.rng.uniform() * self.cfg.max_speed;
            if v > 0.0 {
                break v;
            }
        };
        let leg = Leg::new(end, here, (x, y), speed);
        (leg, leg.arrive)
    }
}
