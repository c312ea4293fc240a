//! The position model on the hot path: a node's trajectory around its last query,
//! precomputed ([`Piece`]), and a reader's copy of it ([`Track`]).

use super::Leg;
use crate::sim::SimTime;

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
pub(super) struct Piece {
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
    pub(super) const EMPTY: Piece = Piece {
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
    pub(super) fn of(leg: &Leg, end: SimTime, now: SimTime) -> Piece {
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
    pub(super) fn at(&self, now: SimTime) -> Option<(f64, f64)> {
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
    pub(super) node: usize,
    pub(super) piece: Piece,
}
