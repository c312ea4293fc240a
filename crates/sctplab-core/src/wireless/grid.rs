//! A uniform-grid spatial index over node positions: which nodes are within R of a point,
//! without scanning every node.
//!
//! Nodes are binned by where they were at the last refresh. Since then a node can have
//! moved at most `max_speed * |now - binned_at|` (the slack), so a query looks at every
//! cell within R + slack of the point and keeps the nodes whose exact current position is
//! within R. The answer is therefore exactly a brute-force scan's, whatever the binning;
//! the refresh (rebinning everyone at the current time) only keeps the slack, and so the
//! number of cells visited, small. It happens lazily inside a query once the slack
//! exceeds a bound. ns-2's channel does the same job with a list sorted by X
//! (`WirelessChannel::getAffectedNodes`, mac/channel.cc).
//!
//! Steady state allocates nothing: the bins are rebuilt in place and results go to a
//! vector the caller owns.

use super::mobility::Area;
use crate::sim::SimTime;

/// Whether `p` lies within `r` of `c` (the predicate both the index and a scan use).
#[inline]
pub fn within(p: (f64, f64), c: (f64, f64), r: f64) -> bool {
    let dx = p.0 - c.0;
    let dy = p.1 - c.1;
    dx * dx + dy * dy <= r * r
}

/// At most this many cells, however small the cell size asked for.
const MAX_CELLS: usize = 1 << 20;

#[derive(Clone, Debug)]
pub struct Grid {
    cell: f64,
    nx: usize,
    ny: usize,
    /// Node ids grouped by cell: cell `c` holds `members[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<u32>,
    members: Vec<u32>,
    /// Scratch for rebinning: each node's cell, then each cell's fill cursor.
    node_cell: Vec<u32>,
    cursor: Vec<u32>,
    n: usize,
    binned_at: Option<SimTime>,
    max_speed: f64,
    max_slack: f64,
    refreshes: u64,
}

impl Grid {
    /// An index for `n` nodes in `area`, with square cells of side `cell_m` (the
    /// carrier-sense range is a good choice) and nodes never faster than `max_speed` m/s.
    /// The index rebins once the slack would exceed `cell_m / 8`.
    pub fn new(area: Area, n: usize, cell_m: f64, max_speed: f64) -> Self {
        let min_cell = (area.x_max * area.y_max / MAX_CELLS as f64).sqrt();
        let cell = if cell_m.is_finite() && cell_m > 0.0 {
            cell_m.max(min_cell)
        } else {
            area.x_max.max(area.y_max)
        };
        // The area bound above holds the cell count to MAX_CELLS only for a square
        // area: a long thin one (1e13 m x 1 m) has ~MAX_CELLS cells per unit of aspect
        // ratio. Wider cells keep the count bounded; the answers do not depend on it.
        let cells = |c: f64| {
            let n = |side: f64| (side / c).ceil().max(1.0);
            n(area.x_max) * n(area.y_max)
        };
        let mut cell = cell;
        while cells(cell) > MAX_CELLS as f64 {
            cell *= 2.0;
        }
        let nx = ((area.x_max / cell).ceil() as usize).max(1);
        let ny = ((area.y_max / cell).ceil() as usize).max(1);
        assert!(n < u32::MAX as usize, "too many nodes for the grid");
        Grid {
            cell,
            nx,
            ny,
            cell_start: vec![0; nx * ny + 1],
            members: vec![0; n],
            node_cell: vec![0; n],
            cursor: vec![0; nx * ny],
            n,
            binned_at: None,
            max_speed: if max_speed.is_finite() {
                max_speed.max(0.0)
            } else {
                0.0
            },
            max_slack: cell / 8.0,
            refreshes: 0,
        }
    }

    /// Sets how far nodes may have drifted before a query rebins them (metres).
    pub fn with_max_slack(mut self, max_slack_m: f64) -> Self {
        self.max_slack = max_slack_m.max(0.0);
        self
    }

    /// Number of rebinnings so far.
    pub fn refreshes(&self) -> u64 {
        self.refreshes
    }

    /// The bound on how far any node can be from where it was binned, at `now`.
    pub fn slack(&self, now: SimTime) -> f64 {
        match self.binned_at {
            None => f64::INFINITY,
            Some(_) if self.max_speed == 0.0 => 0.0,
            Some(at) => {
                let dt = if now >= at { now - at } else { at - now };
                self.max_speed * dt.as_secs_f64()
            }
        }
    }

    #[inline]
    fn axis_cell(&self, v: f64, cells: usize) -> usize {
        // `as` saturates (and maps NaN to 0); positions outside the area go to edge cells,
        // which the clamped query ranges below still visit.
        ((v / self.cell).floor() as i64).clamp(0, cells as i64 - 1) as usize
    }

    #[inline]
    fn cell_of(&self, p: (f64, f64)) -> usize {
        self.axis_cell(p.1, self.ny) * self.nx + self.axis_cell(p.0, self.nx)
    }

    /// Rebins every node at its position at `now` (`pos(i)` must give node i's position
    /// at `now`).
    pub fn refresh(&mut self, now: SimTime, mut pos: impl FnMut(usize) -> (f64, f64)) {
        self.cell_start.fill(0);
        for i in 0..self.n {
            let c = self.cell_of(pos(i));
            self.node_cell[i] = c as u32;
            self.cell_start[c + 1] += 1;
        }
        for c in 0..self.nx * self.ny {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.cursor
            .copy_from_slice(&self.cell_start[..self.nx * self.ny]);
        for i in 0..self.n {
            let c = self.node_cell[i] as usize;
            self.members[self.cursor[c] as usize] = i as u32;
            self.cursor[c] += 1;
        }
        self.binned_at = Some(now);
        self.refreshes += 1;
    }

    /// Puts into `out` (cleared first) every node whose position at `now` is within `r`
    /// of `center`, in increasing node order, so the result does not depend on the
    /// binning. `pos(i)` gives node i's exact position at `now`; it is called for the
    /// candidates only (and for every node when the index rebins).
    pub fn query(
        &mut self,
        now: SimTime,
        center: (f64, f64),
        r: f64,
        mut pos: impl FnMut(usize) -> (f64, f64),
        out: &mut Vec<usize>,
    ) {
        out.clear();
        if self.binned_at.is_none() || self.slack(now) > self.max_slack {
            self.refresh(now, &mut pos);
        }
        let reach = r + self.slack(now);
        let x0 = self.axis_cell(center.0 - reach, self.nx);
        let x1 = self.axis_cell(center.0 + reach, self.nx);
        let y0 = self.axis_cell(center.1 - reach, self.ny);
        let y1 = self.axis_cell(center.1 + reach, self.ny);
        if x0 == 0 && y0 == 0 && x1 + 1 == self.nx && y1 + 1 == self.ny {
            // Every cell: a scan in node order needs no sort (a small area, or a large
            // range).
            for id in 0..self.n {
                if within(pos(id), center, r) {
                    out.push(id);
                }
            }
            return;
        }
        for cy in y0..=y1 {
            let row = cy * self.nx;
            let lo = self.cell_start[row + x0] as usize;
            let hi = self.cell_start[row + x1 + 1] as usize;
            // Cells x0..=x1 of one row are contiguous in `members`.
            for &id in &self.members[lo..hi] {
                let id = id as usize;
                if within(pos(id), center, r) {
                    out.push(id);
                }
            }
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{RngStream, SimDuration};
    use crate::wireless::mobility::{Mobility, WaypointCfg};

    fn brute(m: &mut Mobility, now: SimTime, c: (f64, f64), r: f64) -> Vec<usize> {
        (0..m.len())
            .filter(|&i| within(m.position(i, now), c, r))
            .collect()
    }

    /// Random topologies (seeded): the index must return exactly what a scan returns,
    /// with nodes moving between queries, with and without rebinning in between.
    fn check(seed: u64, n: usize, area: Area, max_slack: Option<f64>) {
        let cfg = WaypointCfg {
            max_speed: 20.0,
            pause: SimDuration::from_secs(1),
        };
        let mut m = Mobility::random_waypoint(area, n, cfg, seed).unwrap();
        let mut g = Grid::new(area, n, 250.0, m.max_speed());
        if let Some(s) = max_slack {
            g = g.with_max_slack(s);
        }
        let mut r = RngStream::new(seed, "grid-test");
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        let mut nonempty = 0;
        for _ in 0..3000 {
            now += SimDuration::from_secs_f64(r.uniform() * 0.5);
            let c = (
                r.uniform() * area.x_max * 1.2 - 0.1 * area.x_max,
                r.uniform() * area.y_max * 1.2 - 0.1 * area.y_max,
            );
            let radius = r.uniform() * 700.0;
            g.query(now, c, radius, |i| m.position(i, now), &mut out);
            let want = brute(&mut m, now, c, radius);
            assert_eq!(out, want, "t={now} c={c:?} r={radius}");
            nonempty += usize::from(!out.is_empty());
        }
        assert!(nonempty > 100, "the test should exercise non-empty answers");
        match max_slack {
            Some(s) if s.is_infinite() => assert_eq!(g.refreshes(), 1),
            _ => assert!(g.refreshes() > 1),
        }
    }

    #[test]
    fn matches_brute_force_with_default_refresh() {
        check(1, 50, Area::new(1000.0, 300.0).unwrap(), None);
        check(2, 200, Area::new(3000.0, 2000.0).unwrap(), None);
    }

    #[test]
    fn matches_brute_force_without_ever_rebinning() {
        // Binned once at t = 0, then only the slack keeps the answer exact.
        check(
            3,
            120,
            Area::new(2500.0, 2500.0).unwrap(),
            Some(f64::INFINITY),
        );
    }

    #[test]
    fn matches_brute_force_rebinning_every_query() {
        check(4, 80, Area::new(2000.0, 500.0).unwrap(), Some(0.0));
    }

    #[test]
    fn fixed_nodes_and_exact_boundary() {
        let area = Area::new(1000.0, 1000.0).unwrap();
        // Nodes 0..4 on a line 100 m apart; a query of radius exactly 200 m around node 2
        // reaches nodes 0..=4 (distance 200 counts as within).
        let pts: Vec<_> = (0..5).map(|i| (100.0 + 100.0 * i as f64, 500.0)).collect();
        let mut m = Mobility::fixed(area, &pts).unwrap();
        let mut g = Grid::new(area, 5, 150.0, m.max_speed());
        let mut out = vec![99];
        g.query(
            SimTime::ZERO,
            pts[2],
            200.0,
            |i| m.position(i, SimTime::ZERO),
            &mut out,
        );
        assert_eq!(out, vec![0, 1, 2, 3, 4]);
        g.query(
            SimTime::ZERO,
            pts[0],
            199.0,
            |i| m.position(i, SimTime::ZERO),
            &mut out,
        );
        assert_eq!(out, vec![0, 1]);
        // Static nodes never need rebinning.
        let late = SimTime::ZERO + SimDuration::from_secs(10_000);
        g.query(late, pts[4], 100.0, |i| m.position(i, late), &mut out);
        assert_eq!(out, vec![3, 4]);
        assert_eq!(g.refreshes(), 1);
    }

    /// Issue 29: a 1e13 m x 1 m area asked for 3.2e9 cells (13 GB) because the cell
    /// bound only held for square areas. Every shape now stays within MAX_CELLS and still
    /// answers exactly.
    #[test]
    fn thin_areas_stay_within_the_cell_bound() {
        for (w, h) in [
            (1e13, 1.0),
            (1.0, 1e13),
            (1e7, 3.0),
            (1e13, 1e13),
            (1e-6, 1e-6),
        ] {
            let area = Area::new(w, h).unwrap();
            let g = Grid::new(area, 3, 550.0, 0.0);
            assert!(g.nx * g.ny <= MAX_CELLS, "{w} x {h}: {} x {}", g.nx, g.ny);
            assert_eq!(g.cell_start.len(), g.nx * g.ny + 1);
        }
        let area = Area::new(1e13, 1.0).unwrap();
        let pts = [(0.0, 0.5), (500.0, 0.5), (5e12, 1.0)];
        let mut m = Mobility::fixed(area, &pts).unwrap();
        let mut g = Grid::new(area, 3, 550.0, m.max_speed());
        let mut out = Vec::new();
        g.query(
            SimTime::ZERO,
            pts[0],
            550.0,
            |i| m.position(i, SimTime::ZERO),
            &mut out,
        );
        assert_eq!(out, vec![0, 1]);
    }
}
