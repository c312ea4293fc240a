//! A constellation: its satellites grouped by plane, their positions over time, and its
//! inter-satellite links (ISLs) with ns-2.35's rules (`sathandoff.cc`,
//! `SatLinkHandoffMgr::handoff`): intra-plane links always up; an inter-plane link
//! down while either end is above the latitude threshold or the line between them
//! passes below `ATMOS_MARGIN_KM`; no link across the seam of a polar constellation.

use super::geometry::mutually_visible;
use super::orbit::Orbit;
use super::{Vec3, deg_to_rad};

/// One satellite: 0-based plane rank and index in its plane, and its orbit.
#[derive(Clone, Debug)]
pub struct Satellite {
    pub plane: u32,
    pub index: u32,
    pub orbit: Orbit,
}

/// How planes are joined by ISLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneTopology {
    /// Walker delta: plane P-1 is joined to plane 0 (no seam).
    Ring,
    /// Walker star and explicit layouts: a seam between the last plane and the first.
    Seam,
    /// No plane structure (TLE sets): no grid ISLs.
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IslKind {
    IntraPlane,
    InterPlane,
}

/// An ISL of the grid between satellites `a` and `b` (indices into `sats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isl {
    pub a: usize,
    pub b: usize,
    pub kind: IslKind,
}

#[derive(Clone, Debug)]
pub struct Constellation {
    pub name: String,
    /// Plane by plane, each plane's satellites in index order.
    pub sats: Vec<Satellite>,
    /// `planes[p]` is the range of `sats` holding plane `p`.
    pub planes: Vec<std::ops::Range<usize>>,
    pub topology: PlaneTopology,
}

impl Constellation {
    /// From satellites already sorted by plane rank then index (planes 0, 1, ... with no
    /// gap).
    pub fn new(name: &str, sats: Vec<Satellite>, topology: PlaneTopology) -> Self {
        let mut planes: Vec<std::ops::Range<usize>> = Vec::new();
        for (k, s) in sats.iter().enumerate() {
            match planes.last_mut() {
                Some(r) if sats[r.start].plane == s.plane => r.end = k + 1,
                _ => planes.push(k..k + 1),
            }
        }
        Constellation {
            name: name.to_string(),
            sats,
            planes,
            topology,
        }
    }

    /// The node name of satellite `k`: `<name>-<plane>-<index>`.
    pub fn node_name(&self, k: usize) -> String {
        let s = &self.sats[k];
        format!("{}-{}-{}", self.name, s.plane, s.index)
    }

    pub fn position(&self, k: usize, t: f64) -> Vec3 {
        self.sats[k].orbit.position(t)
    }

    /// The satellite behind `k` in its plane (index i - 1, wrapping): the one ns-2.35's
    /// terminal handoff tries first (its `next_` pointer).
    pub fn behind(&self, k: usize) -> Option<usize> {
        if self.topology == PlaneTopology::None {
            return None;
        }
        let r = self.planes.iter().find(|r| r.contains(&k))?;
        if r.len() < 2 {
            return None;
        }
        Some(if k == r.start { r.end - 1 } else { k - 1 })
    }

    /// The ISL grid: a ring in each plane (one link for two satellites), and satellite i
    /// of each plane to satellite i of the next, the last plane to the first only for a
    /// ring of planes.
    pub fn grid(&self) -> Vec<Isl> {
        let mut out = Vec::new();
        if self.topology == PlaneTopology::None {
            return out;
        }
        for r in &self.planes {
            let n = r.len();
            if n < 2 {
                continue;
            }
            let links = if n == 2 { 1 } else { n };
            for j in 0..links {
                out.push(Isl {
                    a: r.start + j,
                    b: r.start + (j + 1) % n,
                    kind: IslKind::IntraPlane,
                });
            }
        }
        let np = self.planes.len();
        let pairs = match self.topology {
            // Two planes in a ring are joined once.
            PlaneTopology::Ring if np > 2 => np,
            _ => np.saturating_sub(1),
        };
        for p in 0..pairs {
            let (r, q) = (&self.planes[p], &self.planes[(p + 1) % np]);
            for i in 0..r.len().min(q.len()) {
                out.push(Isl {
                    a: r.start + i,
                    b: q.start + i,
                    kind: IslKind::InterPlane,
                });
            }
        }
        out
    }
}

/// Whether an inter-plane ISL between positions `a` and `b` is up: both ends at or
/// below `max_latitude_deg` (ns-2.35 takes it down when |latitude| > threshold) and the
/// line between them clear of the atmosphere. Intra-plane ISLs are always up.
pub fn inter_plane_up(a: Vec3, b: Vec3, max_latitude_deg: f64) -> bool {
    let lim = deg_to_rad(max_latitude_deg);
    a.latitude().abs() <= lim && b.latitude().abs() <= lim && mutually_visible(a, b)
}

/// Which grid ISLs are up at time `t`.
pub fn isl_state(c: &Constellation, grid: &[Isl], t: f64, max_latitude_deg: f64) -> Vec<bool> {
    let pos: Vec<Vec3> = (0..c.sats.len()).map(|k| c.position(k, t)).collect();
    isl_up_from(grid, &pos, max_latitude_deg)
}

/// Which grid ISLs are up, given every satellite's position at the instant.
pub fn isl_up_from(grid: &[Isl], pos: &[Vec3], max_latitude_deg: f64) -> Vec<bool> {
    grid.iter()
        .map(|l| match l.kind {
            IslKind::IntraPlane => true,
            IslKind::InterPlane => inter_plane_up(pos[l.a], pos[l.b], max_latitude_deg),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::walker::{WalkerKind, WalkerSpec, layout};
    use super::*;

    fn walker(kind: WalkerKind, planes: u32, per_plane: u32) -> Constellation {
        let spec = WalkerSpec {
            kind,
            planes,
            per_plane,
            altitude_km: 780.0,
            inclination_deg: 90.0,
            phasing: 0,
        };
        let sats = layout(&spec)
            .unwrap()
            .into_iter()
            .map(|p| Satellite {
                plane: p.plane,
                index: p.index,
                orbit: Orbit::Circular(p.orbit),
            })
            .collect();
        let topo = match kind {
            WalkerKind::Delta => PlaneTopology::Ring,
            WalkerKind::Star => PlaneTopology::Seam,
        };
        Constellation::new("c", sats, topo)
    }

    #[test]
    fn polar_grid_by_hand() {
        // 3 planes of 4 (star): rings of 4 links in each plane (12), plane 0-1 and 1-2
        // i-to-i (8), nothing across the seam between plane 2 and plane 0.
        let c = walker(WalkerKind::Star, 3, 4);
        assert_eq!(c.planes, vec![0..4, 4..8, 8..12]);
        assert_eq!(c.node_name(6), "c-1-2");
        let g = c.grid();
        let intra: Vec<(usize, usize)> = g
            .iter()
            .filter(|l| l.kind == IslKind::IntraPlane)
            .map(|l| (l.a, l.b))
            .collect();
        assert_eq!(
            intra,
            vec![
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 4),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 8)
            ]
        );
        let inter: Vec<(usize, usize)> = g
            .iter()
            .filter(|l| l.kind == IslKind::InterPlane)
            .map(|l| (l.a, l.b))
            .collect();
        assert_eq!(
            inter,
            vec![
                (0, 4),
                (1, 5),
                (2, 6),
                (3, 7),
                (4, 8),
                (5, 9),
                (6, 10),
                (7, 11)
            ]
        );
        // A delta layout closes the ring of planes: 4 more, plane 2 to plane 0.
        let d = walker(WalkerKind::Delta, 3, 4);
        let extra: Vec<(usize, usize)> = d.grid()[20..].iter().map(|l| (l.a, l.b)).collect();
        assert_eq!(extra, vec![(8, 0), (9, 1), (10, 2), (11, 3)]);
        // Behind: index i - 1, wrapping.
        assert_eq!(c.behind(4), Some(7));
        assert_eq!(c.behind(6), Some(5));
    }

    #[test]
    fn cross_plane_links_go_down_at_high_latitude() {
        // Star, 6 planes of 4 (nodes 30 deg apart), i = 90 deg, phasing 0: satellite i of
        // every plane has alpha = 90 i deg. At time 0 satellites 1 are over the north pole
        // and satellites 3 over the south pole (|latitude| 90 deg > 70: their inter-plane
        // links are down); satellites 0 and 2 are on the equator, 30 deg apart (the chord's
        // midpoint at 7158 cos 15 deg = 6914 km clears 6528 km): up. Intra-plane links
        // are always up.
        let c = walker(WalkerKind::Star, 6, 4);
        let g = c.grid();
        assert_eq!(g.len(), 6 * 4 + 5 * 4);
        let up = isl_state(&c, &g, 0.0, 70.0);
        for (l, u) in g.iter().zip(&up) {
            let i = l.a % 4;
            let want = l.kind == IslKind::IntraPlane || i == 0 || i == 2;
            assert_eq!(*u, want, "{l:?}");
        }
        // A quarter period later satellites 0 and 2 are over the poles instead.
        let t = match &c.sats[0].orbit {
            Orbit::Circular(o) => o.period_s / 4.0,
            _ => unreachable!(),
        };
        let up = isl_state(&c, &g, t, 70.0);
        for (l, u) in g.iter().zip(&up) {
            let i = l.a % 4;
            let want = l.kind == IslKind::IntraPlane || i == 1 || i == 3;
            assert_eq!(*u, want, "{l:?}");
        }
    }

    #[test]
    fn cross_plane_link_down_below_the_atmosphere_margin() {
        // Two satellites at 780 km on the equator, 60 deg apart: the chord's midpoint is
        // at 7158 cos 30 deg = 6199 km < 6528: down whatever the latitude rule says.
        let r = 7158.0f64;
        let a = Vec3 {
            x: r,
            y: 0.0,
            z: 0.0,
        };
        let b = Vec3 {
            x: r * 120f64.to_radians().cos(),
            y: r * 120f64.to_radians().sin(),
            z: 0.0,
        };
        assert!(!inter_plane_up(a, b, 90.0));
        let b = Vec3 {
            x: r * 30f64.to_radians().cos(),
            y: r * 30f64.to_radians().sin(),
            z: 0.0,
        };
        assert!(inter_plane_up(a, b, 90.0));
    }
}
