//! Node movement as piecewise-linear legs, evaluated on demand.
//!
//! A node's trajectory is a sequence of [`Leg`]s; each starts at a time, goes in a straight
//! line towards a destination at a constant speed and then stays there until the next leg
//! starts. Positions are computed from the current leg when asked (no periodic position
//! events). Three sources of legs:
//!
//! - fixed: the node never moves;
//! - random waypoint as ns-2's `setdest -v 1` generates it
//!   (indep-utils/cmu-scen-gen/setdest/setdest.cc), drawn lazily from one random stream per
//!   node, so a long run needs no pre-generated list yet every query is deterministic;
//! - a script: a list of legs, e.g. read from an ns-2 movement file (`setdest.rs`).
//!
//! Any node can be pinned at its starting position while the others keep moving.
//!
//! Queries are O(1) amortised for non-decreasing times (the current leg is cached and the
//! next one is derived or looked up when the time passes its end). A query earlier than
//! the cached leg is still answered correctly, by replaying the node's trajectory from
//! time 0 (random waypoint) or by binary search (script); that path is for tools, not for
//! the run loop.
//!
//! Files: `leg.rs` (a leg, the area), `waypoint.rs` (random waypoint's draws),
//! `schedule.rs` (each node's legs, sought forwards or replayed), `piece.rs` (the hot
//! path's precomputed stretch of a leg), and here the model all callers use.

mod leg;
mod piece;
mod schedule;
mod waypoint;

pub use leg::{Area, Leg, MobilityError, SPEED_OF_LIGHT_MPS};
pub use piece::Track;
pub use waypoint::{WaypointCfg, stream_name};

use crate::sim::{RngStream, SimTime};
use piece::Piece;
use schedule::{NodeMotion, Source};
use waypoint::Waypoint;

/// Where every node is, at any time.
#[derive(Clone, Debug)]
pub struct Mobility {
    area: Area,
    nodes: Vec<NodeMotion>,
    /// Per node, the piece of its trajectory the last query fell in (the hot part of
    /// `nodes`, contiguous).
    pieces: Vec<Piece>,
    max_speed: f64,
}

impl Mobility {
    /// Nodes that never move.
    pub fn fixed(area: Area, positions: &[(f64, f64)]) -> Result<Self, MobilityError> {
        for (i, p) in positions.iter().enumerate() {
            if !area.contains(*p) {
                return Err(MobilityError(format!(
                    "node {i} at ({}, {}) is outside the {} x {} m area",
                    p.0, p.1, area.x_max, area.y_max
                )));
            }
        }
        Ok(Mobility::with_nodes(
            area,
            positions.iter().map(|p| NodeMotion::fixed(*p)).collect(),
            0.0,
        ))
    }

    /// `n` nodes moving by random waypoint (`setdest -v 1`), node `i` drawing from
    /// `RngStream::new(seed, "mobility:node<i>")`.
    pub fn random_waypoint(
        area: Area,
        n: usize,
        cfg: WaypointCfg,
        seed: u64,
    ) -> Result<Self, MobilityError> {
        if !(cfg.max_speed.is_finite() && cfg.max_speed >= 0.0) {
            return Err(MobilityError(format!(
                "max speed must be a finite non-negative number of m/s, got {}",
                cfg.max_speed
            )));
        }
        let nodes = (0..n)
            .map(|i| {
                let mut w = Waypoint::new(RngStream::new(seed, &stream_name(i)), area, cfg);
                if cfg.max_speed == 0.0 {
                    // setdest would assert on a zero speed; nodes that cannot move stay put.
                    return NodeMotion::fixed(w.start_pos);
                }
                let (leg, end) = w.first();
                NodeMotion {
                    leg,
                    end,
                    src: Source::Waypoint(Box::new(w)),
                }
            })
            .collect();
        Ok(Mobility::with_nodes(area, nodes, cfg.max_speed))
    }

    /// Nodes following given legs. `legs[i]` must be non-empty, sorted by start time, with
    /// the first leg starting at 0 and every position inside the area (as `setdest::parse`
    /// produces them).
    pub fn scripted(area: Area, legs: Vec<Vec<Leg>>) -> Result<Self, MobilityError> {
        let mut max_speed: f64 = 0.0;
        for (i, l) in legs.iter().enumerate() {
            let Some(first) = l.first() else {
                return Err(MobilityError(format!("node {i} has no movement")));
            };
            if first.start != SimTime::ZERO {
                return Err(MobilityError(format!(
                    "node {i}: the first leg must start at time 0"
                )));
            }
            if l.windows(2).any(|w| w[1].start < w[0].start) {
                return Err(MobilityError(format!(
                    "node {i}: legs are not sorted by start time"
                )));
            }
            for leg in l {
                if !(area.contains(leg.from) && area.contains(leg.to)) {
                    return Err(MobilityError(format!(
                        "node {i}: a leg at {} s leaves the area",
                        leg.start
                    )));
                }
                if leg.moves() {
                    max_speed = max_speed.max(leg.speed);
                }
            }
        }
        Ok(Mobility::with_nodes(
            area,
            legs.into_iter().map(NodeMotion::script).collect(),
            max_speed,
        ))
    }

    fn with_nodes(area: Area, nodes: Vec<NodeMotion>, max_speed: f64) -> Self {
        Mobility {
            area,
            pieces: vec![Piece::EMPTY; nodes.len()],
            nodes,
            max_speed,
        }
    }

    /// Keeps `node` at its starting position for the whole run (seed 004's stationary
    /// multihomed endpoints); the other nodes are unaffected.
    pub fn pin(&mut self, node: usize) {
        let start = self.position(node, SimTime::ZERO);
        self.nodes[node] = NodeMotion::fixed(start);
        self.pieces[node] = Piece::EMPTY;
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn area(&self) -> Area {
        self.area
    }

    /// An upper bound on any node's speed, m/s: how fast positions can drift from where a
    /// spatial index last saw them.
    pub fn max_speed(&self) -> f64 {
        self.max_speed
    }

    /// Whether `node` can ever move.
    pub fn is_fixed(&self, node: usize) -> bool {
        matches!(self.nodes[node].src, Source::Fixed)
    }

    /// Position of `node` at `now`. O(1) amortised when `now` does not decrease.
    #[inline]
    pub fn position(&mut self, node: usize, now: SimTime) -> (f64, f64) {
        match self.pieces[node].at(now) {
            Some(p) => {
                debug_assert!(self.agrees_with_leg(node, now, p));
                p
            }
            None => self.position_new_piece(node, now),
        }
    }

    /// A copy of `node`'s current piece, for one reader that asks for that node's
    /// position many times in a row (`position_in`): it keeps the piece at hand instead
    /// of indexing the world's vector at each query.
    pub fn track(&self, node: usize) -> Track {
        Track {
            node,
            piece: self.pieces[node],
        }
    }

    /// `position(t.node, now)` through the reader's copy of the piece, which is renewed
    /// when `now` falls outside it. Any piece of the node answers bit for bit as its leg
    /// does, so a copy older than the world's piece gives the same positions.
    #[inline(always)]
    pub fn position_in(&mut self, t: &mut Track, now: SimTime) -> (f64, f64) {
        match t.piece.at(now) {
            Some(p) => {
                debug_assert!(self.agrees_with_leg(t.node, now, p));
                p
            }
            None => {
                let p = self.position(t.node, now);
                t.piece = self.pieces[t.node];
                p
            }
        }
    }

    /// Whether `p` is `Leg::at(now)` of `node`'s leg at `now`, to the bit (debug checks).
    fn agrees_with_leg(&self, node: usize, now: SimTime, p: (f64, f64)) -> bool {
        let m = &self.nodes[node];
        let leg = if now >= m.leg.start && now < m.end {
            m.leg
        } else {
            let mut m = m.clone();
            m.seek(now);
            m.leg
        };
        let q = leg.at(now);
        p.0.to_bits() == q.0.to_bits() && p.1.to_bits() == q.1.to_bits()
    }

    /// `position` when `now` is outside the node's current piece: the leg in force at
    /// `now` answers, and its piece holding `now` becomes the current one.
    #[cold]
    fn position_new_piece(&mut self, node: usize, now: SimTime) -> (f64, f64) {
        let m = &mut self.nodes[node];
        if now >= m.end || now < m.leg.start {
            m.seek(now);
        }
        self.pieces[node] = Piece::of(&m.leg, m.end, now);
        m.leg.at(now)
    }

    /// The leg `node` follows at `now`, and when the next one starts (`SimTime::MAX` if
    /// none): for traces and for scheduling a leg-change event.
    pub fn leg(&mut self, node: usize, now: SimTime) -> (Leg, SimTime) {
        let m = &mut self.nodes[node];
        if now >= m.end || now < m.leg.start {
            m.seek(now);
        }
        (m.leg, m.end)
    }

    /// Every leg of `node` that starts at or before `until`, in order, without disturbing
    /// the cached state used by [`position`](Self::position).
    pub fn legs_until(&self, node: usize, until: SimTime) -> Vec<Leg> {
        let mut m = self.nodes[node].clone();
        m.seek(SimTime::ZERO);
        let mut out = vec![m.leg];
        while m.end <= until && m.end != SimTime::MAX {
            let end = m.end;
            m.seek(end);
            out.push(m.leg);
        }
        out
    }

    /// How many legs [`legs_until`](Self::legs_until) would return, counted without
    /// keeping them, and no further than `cap` (so a trajectory of billions of legs
    /// costs only the walk up to `cap`).
    pub fn count_legs_until(&self, node: usize, until: SimTime, cap: usize) -> usize {
        let mut m = self.nodes[node].clone();
        m.seek(SimTime::ZERO);
        let mut n = 1;
        while m.end <= until && m.end != SimTime::MAX && n < cap {
            let end = m.end;
            m.seek(end);
            n += 1;
        }
        n
    }
}

#[cfg(test)]
pub(in crate::wireless) mod tests;
