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

use crate::sim::{RngStream, SimTime};
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
    dir: (f64, f64),
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
struct Waypoint {
    rng: RngStream,
    /// The stream right after the start position was drawn, for replays from time 0.
    rng_at_start: RngStream,
    start_pos: (f64, f64),
    area: Area,
    cfg: WaypointCfg,
}

impl Waypoint {
    fn new(mut rng: RngStream, area: Area, cfg: WaypointCfg) -> Self {
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
    fn first(&mut self) -> (Leg, SimTime) {
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
    fn next(&mut self, cur: &Leg, end: SimTime) -> (Leg, SimTime) {
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

#[derive(Clone, Debug)]
enum Source {
    Fixed,
    Waypoint(Box<Waypoint>),
    /// Legs sorted by start; the first starts at 0. `idx` is the current leg.
    Script {
        legs: Vec<Leg>,
        idx: usize,
    },
}

#[derive(Clone, Debug)]
struct NodeMotion {
    leg: Leg,
    /// When the next leg starts (`SimTime::MAX` if none).
    end: SimTime,
    src: Source,
}

impl NodeMotion {
    fn fixed(at: (f64, f64)) -> Self {
        NodeMotion {
            leg: Leg::stationary(SimTime::ZERO, at),
            end: SimTime::MAX,
            src: Source::Fixed,
        }
    }

    fn script(legs: Vec<Leg>) -> Self {
        let end = legs.get(1).map_or(SimTime::MAX, |l| l.start);
        NodeMotion {
            leg: legs[0],
            end,
            src: Source::Script { legs, idx: 0 },
        }
    }

    /// Makes the cached leg the one in force at `now`.
    #[cold]
    fn seek(&mut self, now: SimTime) {
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

/// The stretch of a node's trajectory around the last query, reduced to what a position
/// costs: `Leg::at` with the leg's start, its window and its clamps precomputed, so that the
/// common query (a time inside the window) is one unsigned comparison, a conversion, a
/// division and two multiply-adds, with no branch on the direction. Bit-identical to
/// `Leg::at` (test `pieces_agree_with_leg_at_bit_for_bit`).
///
/// A moving piece is a leg before its arrival. A parked piece (after the arrival until the
/// next leg, or a node that never moves) is the destination with direction (-0.0, -0.0)
/// and speed 0: `to + (-0.0 * 0.0)` is `to` for every `to`, signed zeros included
/// (`+0.0` would turn a `-0.0` coordinate into `+0.0`).
#[derive(Copy, Clone, Debug)]
struct Piece {
    /// Valid for times `t` with `t - start < span` (unsigned, so earlier times fail too).
    start: u64,
    span: u64,
    from: (f64, f64),
    dir: (f64, f64),
    speed: f64,
    /// A coordinate above `hi` or below `lo` is clamped to it: the destination on the side
    /// the node moves towards, infinite otherwise (as `Leg::at`'s clamps).
    lo: (f64, f64),
    hi: (f64, f64),
}

impl Piece {
    /// A piece no time falls in.
    const EMPTY: Piece = Piece {
        start: 0,
        span: 0,
        from: (0.0, 0.0),
        dir: (0.0, 0.0),
        speed: 0.0,
        lo: (f64::NEG_INFINITY, f64::NEG_INFINITY),
        hi: (f64::INFINITY, f64::INFINITY),
    };

    /// The piece of `leg` (in force until `end`) that holds `now`, `now` being in
    /// `[leg.start, end)`.
    fn of(leg: &Leg, end: SimTime, now: SimTime) -> Piece {
        // Capped at 2^63 so that a time inside converts as a signed integer, exactly.
        let span_to = |from: SimTime, to: SimTime| {
            to.as_nanos()
                .saturating_sub(from.as_nanos())
                .min(i64::MAX as u64)
        };
        if now < leg.arrive {
            let side = |d: f64, to: f64| {
                if d > 0.0 {
                    (f64::NEG_INFINITY, to)
                } else if d < 0.0 {
                    (to, f64::INFINITY)
                } else {
                    (f64::NEG_INFINITY, f64::INFINITY)
                }
            };
            let (lo_x, hi_x) = side(leg.dir.0, leg.to.0);
            let (lo_y, hi_y) = side(leg.dir.1, leg.to.1);
            Piece {
                start: leg.start.as_nanos(),
                span: span_to(leg.start, leg.arrive.min(end)),
                from: leg.from,
                dir: leg.dir,
                speed: leg.speed,
                lo: (lo_x, lo_y),
                hi: (hi_x, hi_y),
            }
        } else {
            Piece {
                start: leg.arrive.as_nanos(),
                span: span_to(leg.arrive, end),
                from: leg.to,
                dir: (-0.0, -0.0),
                speed: 0.0,
                ..Piece::EMPTY
            }
        }
    }

    /// The position at `now` if `now` is in the piece.
    #[inline]
    fn at(&self, now: SimTime) -> Option<(f64, f64)> {
        let dt = now.as_nanos().wrapping_sub(self.start);
        if dt >= self.span {
            return None;
        }
        // `dt < 2^63`: as a signed integer it converts to the same double as
        // `Leg::at`'s unsigned one, in one instruction.
        let s = self.speed * ((dt as i64) as f64 / 1e9);
        let mut x = self.from.0 + self.dir.0 * s;
        let mut y = self.from.1 + self.dir.1 * s;
        if x > self.hi.0 {
            x = self.hi.0;
        }
        if x < self.lo.0 {
            x = self.lo.0;
        }
        if y > self.hi.1 {
            y = self.hi.1;
        }
        if y < self.lo.1 {
            y = self.lo.1;
        }
        Some((x, y))
    }
}

/// One node's piece as a reader keeps it at hand (`Mobility::track`).
#[derive(Copy, Clone, Debug)]
pub struct Track {
    node: usize,
    piece: Piece,
}

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
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    fn t(s: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(s)
    }

    fn close(a: (f64, f64), b: (f64, f64), tol: f64) -> bool {
        (a.0 - b.0).abs() <= tol && (a.1 - b.1).abs() <= tol
    }

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

    #[test]
    fn fixed_nodes_never_move() {
        let area = Area::new(100.0, 100.0).unwrap();
        let mut m = Mobility::fixed(area, &[(1.0, 2.0), (50.0, 60.0)]).unwrap();
        assert_eq!(m.position(1, t(0.0)), (50.0, 60.0));
        assert_eq!(m.position(1, t(1e6)), (50.0, 60.0));
        assert_eq!(m.max_speed(), 0.0);
        assert!(Mobility::fixed(area, &[(101.0, 2.0)]).is_err());
    }

    /// setdest -v 1 with our streams, replayed by hand: node 0's stream gives the start
    /// X, Y, then per leg destination X, Y and speed.
    #[test]
    fn waypoint_follows_setdest_v1_draw_order_with_pause_zero() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 10.0,
            pause: SimDuration::ZERO,
        };
        let mut m = Mobility::random_waypoint(area, 3, cfg, 42).unwrap();
        let mut r = RngStream::new(42, "mobility:node1");
        let start = (r.uniform() * 1000.0, r.uniform() * 300.0);
        let d1 = (r.uniform() * 1000.0, r.uniform() * 300.0);
        let v1 = r.uniform() * 10.0;
        let d2 = (r.uniform() * 1000.0, r.uniform() * 300.0);
        let v2 = r.uniform() * 10.0;
        // Pause 0: the first leg starts at time 0 (setdest: first arrival at TIME + PAUSE = 0).
        assert_eq!(m.position(1, SimTime::ZERO), start);
        let len1 = ((d1.0 - start.0).powi(2) + (d1.1 - start.1).powi(2)).sqrt();
        let t1 = len1 / v1;
        // Halfway through leg 1 the node is at the midpoint.
        let mid = ((start.0 + d1.0) / 2.0, (start.1 + d1.1) / 2.0);
        assert!(close(m.position(1, t(t1 / 2.0)), mid, 1e-6));
        // Right after arriving (rounded up to the ns) it heads for d2 at v2, at once.
        let (leg, _) = m.leg(1, t(t1 + 1e-6));
        assert_eq!(leg.from, d1);
        assert_eq!(leg.to, d2);
        assert_eq!(leg.speed, v2);
        assert!((leg.start.as_secs_f64() - t1).abs() < 2e-9);
    }

    #[test]
    fn waypoint_pauses_before_the_first_leg_and_at_each_destination() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 5.0,
            pause: SimDuration::from_secs(20),
        };
        let mut m = Mobility::random_waypoint(area, 1, cfg, 7).unwrap();
        let mut r = RngStream::new(7, "mobility:node0");
        let start = (r.uniform() * 1000.0, r.uniform() * 300.0);
        let d1 = (r.uniform() * 1000.0, r.uniform() * 300.0);
        let v1 = r.uniform() * 5.0;
        // setdest: first arrival at TIME + PAUSE = 20 s, so the node waits until 20 s.
        assert_eq!(m.position(0, t(19.999)), start);
        let (leg, end) = m.leg(0, t(20.0));
        assert_eq!(
            (leg.start, leg.from, leg.to, leg.speed),
            (t(20.0), start, d1, v1)
        );
        assert_eq!(end, leg.arrive);
        // After arriving: a 20 s pause at d1 (setdest prints `setdest X Y 0.0` there).
        let (pause, pause_end) = m.leg(0, leg.arrive);
        assert_eq!((pause.from, pause.to, pause.speed), (d1, d1, 0.0));
        assert_eq!(pause_end, leg.arrive + SimDuration::from_secs(20));
        assert_eq!(
            m.position(0, SimTime::from_nanos(pause_end.as_nanos() - 1)),
            d1
        );
        let (next, _) = m.leg(0, pause_end);
        assert_eq!(next.from, d1);
        assert!(next.moves());
    }

    #[test]
    fn waypoint_positions_stay_in_the_area_and_speeds_below_max() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 10.0,
            pause: SimDuration::ZERO,
        };
        let mut m = Mobility::random_waypoint(area, 20, cfg, 3).unwrap();
        let mut prev = vec![(0.0, 0.0); 20];
        for k in 0..=9000 {
            let now = t(k as f64 * 0.1);
            for (i, p) in prev.iter_mut().enumerate() {
                let q = m.position(i, now);
                assert!(area.contains(q), "node {i} at {q:?}");
                if k > 0 {
                    // 0.1 s at <= 10 m/s: at most 1 m (plus rounding).
                    let d = ((q.0 - p.0).powi(2) + (q.1 - p.1).powi(2)).sqrt();
                    assert!(d <= 1.0 + 1e-9, "node {i} jumped {d} m");
                }
                *p = q;
            }
        }
    }

    #[test]
    fn queries_back_in_time_replay_the_same_trajectory() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 10.0,
            pause: SimDuration::from_secs(2),
        };
        let mut a = Mobility::random_waypoint(area, 4, cfg, 11).unwrap();
        let mut b = a.clone();
        let times: Vec<SimTime> = (0..2000).map(|k| t(k as f64 * 0.5)).collect();
        let forward: Vec<_> = times.iter().map(|&s| a.position(2, s)).collect();
        // b jumps to the end first, then answers in reverse order.
        b.position(2, t(5000.0));
        for (s, p) in times.iter().zip(&forward).rev() {
            assert_eq!(b.position(2, *s), *p);
        }
        // Same seed, same stream name: another instance agrees; another seed does not.
        let mut c = Mobility::random_waypoint(area, 4, cfg, 11).unwrap();
        assert_eq!(c.position(2, t(300.0)), a.position(2, t(300.0)));
        let mut d = Mobility::random_waypoint(area, 4, cfg, 12).unwrap();
        assert_ne!(d.position(2, t(300.0)), a.position(2, t(300.0)));
    }

    #[test]
    fn pinned_node_stays_at_its_start_and_others_are_unchanged() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 10.0,
            pause: SimDuration::ZERO,
        };
        let mut free = Mobility::random_waypoint(area, 5, cfg, 9).unwrap();
        let mut pinned = free.clone();
        pinned.pin(0);
        pinned.pin(1);
        let start0 = free.position(0, SimTime::ZERO);
        for k in 1..100 {
            let now = t(k as f64 * 7.3);
            assert_eq!(pinned.position(0, now), start0);
            for i in 2..5 {
                assert_eq!(pinned.position(i, now), free.position(i, now));
            }
        }
        assert!(free.position(0, t(500.0)) != start0);
        assert!(pinned.is_fixed(1) && !pinned.is_fixed(2));
    }

    #[test]
    fn scripted_legs_are_looked_up_forwards_and_backwards() {
        let area = Area::new(100.0, 100.0).unwrap();
        // Wait at (10,10) until 1 s, go to (10,30) at 2 m/s (arrive 11 s), then at 20 s go
        // to (40,30) at 3 m/s (arrive 30 s).
        let legs = vec![
            Leg::stationary(SimTime::ZERO, (10.0, 10.0)),
            Leg::new(t(1.0), (10.0, 10.0), (10.0, 30.0), 2.0),
            Leg::new(t(20.0), (10.0, 30.0), (40.0, 30.0), 3.0),
        ];
        let mut m = Mobility::scripted(area, vec![legs]).unwrap();
        assert_eq!(m.max_speed(), 3.0);
        let expect = [
            (0.5, (10.0, 10.0)),
            (6.0, (10.0, 20.0)),
            (15.0, (10.0, 30.0)),
            (25.0, (25.0, 30.0)),
            (99.0, (40.0, 30.0)),
        ];
        for (s, p) in expect {
            assert!(close(m.position(0, t(s)), p, 1e-9), "{s}");
        }
        for (s, p) in expect.iter().rev() {
            assert!(close(m.position(0, t(*s)), *p, 1e-9), "{s}");
        }
        // Jumping over a whole leg forwards.
        let mut m2 = m.clone();
        m2.position(0, SimTime::ZERO);
        assert!(close(m2.position(0, t(25.0)), (25.0, 30.0), 1e-9));
        assert_eq!(m.legs_until(0, t(19.0)).len(), 2);
        assert_eq!(m.legs_until(0, t(20.0)).len(), 3);
    }

    /// `position` (through the precomputed pieces) against `Leg::at` of the leg in force,
    /// bit for bit: random waypoint with and without pauses, a script with a pause, a
    /// zero-speed leg and a `-0.0` coordinate, queried forwards, at leg boundaries and
    /// backwards.
    #[test]
    fn pieces_agree_with_leg_at_bit_for_bit() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let script = vec![
            Leg::stationary(SimTime::ZERO, (-0.0, 10.0)),
            Leg::new(t(1.0), (-0.0, 10.0), (0.0, 200.0), 7.0),
            Leg::new(t(40.0), (0.0, 200.0), (300.0, -0.0), 9.5),
            Leg::new(t(90.0), (300.0, -0.0), (900.0, 250.0), 0.0),
        ];
        let mut models = vec![Mobility::scripted(area, vec![script]).unwrap()];
        for pause in [0, 3] {
            let cfg = WaypointCfg {
                max_speed: 10.0,
                pause: SimDuration::from_secs(pause),
            };
            let mut m = Mobility::random_waypoint(area, 6, cfg, 21 + pause).unwrap();
            m.pin(5);
            models.push(m);
        }
        let mut r = RngStream::new(5, "pieces-test");
        for mut m in models {
            let mut reference = m.clone();
            let mut check = |m: &mut Mobility, node: usize, now: SimTime| {
                let (leg, _) = reference.leg(node, now);
                let want = leg.at(now);
                let got = m.position(node, now);
                assert_eq!(
                    (got.0.to_bits(), got.1.to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "node {node} at {now}: {got:?} against {want:?}"
                );
            };
            let mut now = SimTime::ZERO;
            let mut seen = Vec::new();
            for _ in 0..20_000 {
                now += SimDuration::from_nanos((r.uniform() * 2e8) as u64);
                for node in 0..m.len() {
                    check(&mut m, node, now);
                    // The nanoseconds around the node's leg change and arrival.
                    let (leg, end) = m.leg(node, now);
                    for edge in [leg.arrive, end] {
                        if edge != SimTime::MAX && edge.as_nanos() > 0 {
                            for ns in [edge.as_nanos() - 1, edge.as_nanos()] {
                                check(&mut m, node, SimTime::from_nanos(ns));
                            }
                        }
                    }
                }
                seen.push(now);
            }
            for &back in seen.iter().rev().step_by(97) {
                for node in 0..m.len() {
                    check(&mut m, node, back);
                }
            }
        }
        // The -0.0 coordinates come out as -0.0, parked or moving.
        let area = Area::new(10.0, 10.0).unwrap();
        let mut m = Mobility::fixed(area, &[(-0.0, 1.0)]).unwrap();
        assert!(m.position(0, t(3.0)).0.is_sign_negative());
    }

    /// A reader's copy of a node's piece (`track`, `position_in`) answers as the node's
    /// leg does, bit for bit, also while other queries move the world's piece on (a
    /// catch-up asks for the sender's position in between) or back.
    #[test]
    fn tracked_positions_agree_with_leg_at() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 20.0,
            pause: SimDuration::from_secs(2),
        };
        let mut m = Mobility::random_waypoint(area, 4, cfg, 33).unwrap();
        let mut reference = m.clone();
        let mut r = RngStream::new(6, "track-test");
        let mut tracks: Vec<Track> = (0..m.len()).map(|i| m.track(i)).collect();
        let mut now = SimTime::ZERO;
        for step in 0..20_000 {
            now += SimDuration::from_nanos((r.uniform() * 5e7) as u64);
            let node = step % m.len();
            let got = m.position_in(&mut tracks[node], now);
            let want = reference.leg(node, now).0.at(now);
            assert_eq!(
                (got.0.to_bits(), got.1.to_bits()),
                (want.0.to_bits(), want.1.to_bits()),
                "node {node} at {now}"
            );
            // The world's piece moves later (or earlier) behind the track's back.
            let other = SimDuration::from_nanos((r.uniform() * 4e9) as u64);
            let at = if step % 3 == 0 {
                now + other
            } else {
                SimTime::from_nanos(now.as_nanos().saturating_sub(other.as_nanos()))
            };
            m.position(node, at);
        }
    }

    #[test]
    fn bad_configurations_are_errors() {
        assert!(Area::new(0.0, 10.0).is_err());
        assert!(Area::new(10.0, f64::NAN).is_err());
        let area = Area::new(10.0, 10.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: -1.0,
            pause: SimDuration::ZERO,
        };
        assert!(Mobility::random_waypoint(area, 1, cfg, 1).is_err());
        assert!(Mobility::scripted(area, vec![vec![]]).is_err());
        let late = vec![Leg::stationary(t(1.0), (1.0, 1.0))];
        assert!(Mobility::scripted(area, vec![late]).is_err());
    }
}
