//! Walker constellations: `planes` planes of `per_plane` satellites on circular orbits.
//!
//! Walker delta i:T/P/F spreads the P ascending nodes over 360 deg; Walker star (polar,
//! Iridium-like) over 180 deg, which leaves a seam between the last plane and the first,
//! where neighbouring planes go in opposite directions. Satellite `i` of plane `p` starts
//! at alpha = i 360/S + p F 360/T deg (T = P S), the phasing of Walker (1984).

use super::orbit::CircularOrbit;
use super::{EARTH_RADIUS_KM, NS2_PI, deg_to_rad};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkerKind {
    Delta,
    Star,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WalkerSpec {
    pub kind: WalkerKind,
    pub planes: u32,
    pub per_plane: u32,
    pub altitude_km: f64,
    pub inclination_deg: f64,
    pub phasing: u32,
}

/// One satellite of a layout: its plane and index there (both 0-based) and its orbit.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub plane: u32,
    pub index: u32,
    pub orbit: CircularOrbit,
}

/// Ascending node of plane `p` (deg, 0..360).
pub fn plane_node_deg(kind: WalkerKind, planes: u32, p: u32) -> f64 {
    let spread = match kind {
        WalkerKind::Delta => 360.0,
        WalkerKind::Star => 180.0,
    };
    f64::from(p) * spread / f64::from(planes)
}

/// Initial angle from the ascending node of satellite `i` in plane `p` (deg, 0..360).
pub fn initial_angle_deg(spec: &WalkerSpec, p: u32, i: u32) -> f64 {
    let total = f64::from(spec.planes) * f64::from(spec.per_plane);
    let a = f64::from(i) * 360.0 / f64::from(spec.per_plane)
        + f64::from(p) * f64::from(spec.phasing) * 360.0 / total;
    a % 360.0
}

/// The most satellites a Walker layout may have: each is a node with four ISL link
/// directions (a few kB in all), so 100,000 (Starlink's filings are some 42,000) stay
/// within a few hundred MB; `planes x per_plane` beyond it is refused at `per_plane`.
pub const MAX_SATELLITES: u64 = 100_000;

/// The layout, plane by plane, satellites in index order. Errors name the bad key.
pub fn layout(spec: &WalkerSpec) -> Result<Vec<Placed>, (&'static str, String)> {
    if spec.planes == 0 {
        return Err(("planes", "expected at least 1".into()));
    }
    if spec.per_plane == 0 {
        return Err(("per_plane", "expected at least 1".into()));
    }
    let total = u64::from(spec.planes) * u64::from(spec.per_plane);
    if total > MAX_SATELLITES {
        return Err((
            "per_plane",
            format!(
                "planes x per_plane = {total} satellites, more than the {MAX_SATELLITES} a \
                 run holds"
            ),
        ));
    }
    if spec.altitude_km.is_nan() || spec.altitude_km < 0.0 {
        return Err((
            "altitude",
            "below the Earth's surface (expected >= 0)".into(),
        ));
    }
    if !(0.0..180.0).contains(&spec.inclination_deg) {
        return Err(("inclination", "expected 0 <= inclination < 180".into()));
    }
    if spec.phasing >= spec.planes {
        return Err((
            "phasing",
            format!("expected 0..{} (Walker F < planes)", spec.planes - 1),
        ));
    }
    let mut out = Vec::with_capacity(total as usize);
    for p in 0..spec.planes {
        let node = deg_to_rad(plane_node_deg(spec.kind, spec.planes, p));
        for i in 0..spec.per_plane {
            let alpha = deg_to_rad(initial_angle_deg(spec, p, i)) % (2.0 * NS2_PI);
            out.push(Placed {
                plane: p,
                index: i,
                orbit: CircularOrbit::new(
                    EARTH_RADIUS_KM + spec.altitude_km,
                    deg_to_rad(spec.inclination_deg),
                    node,
                    alpha,
                ),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walker_delta_planes_and_phases_by_hand() {
        // Walker delta 53:24/4/1 (4 planes of 6, F = 1): nodes 0, 90, 180, 270 deg;
        // in-plane spacing 60 deg; plane p is shifted by p F 360/24 = 15 p deg.
        let spec = WalkerSpec {
            kind: WalkerKind::Delta,
            planes: 4,
            per_plane: 6,
            altitude_km: 550.0,
            inclination_deg: 53.0,
            phasing: 1,
        };
        let l = layout(&spec).unwrap();
        assert_eq!(l.len(), 24);
        let by_hand_nodes = [0.0, 90.0, 180.0, 270.0];
        for s in &l {
            let node_deg = s.orbit.ascending_node * 180.0 / NS2_PI;
            assert!((node_deg - by_hand_nodes[s.plane as usize]).abs() < 1e-9);
            let alpha_deg = s.orbit.alpha * 180.0 / NS2_PI;
            let by_hand = (60.0 * f64::from(s.index) + 15.0 * f64::from(s.plane)) % 360.0;
            assert!((alpha_deg - by_hand).abs() < 1e-9, "{s:?}");
        }
        // Satellite 5 of plane 3: 300 + 45 = 345 deg.
        let s = &l[3 * 6 + 5];
        assert_eq!((s.plane, s.index), (3, 5));
        assert!((s.orbit.alpha * 180.0 / NS2_PI - 345.0).abs() < 1e-9);
    }

    #[test]
    fn walker_star_spreads_nodes_over_half_a_turn() {
        // Iridium-like star, 6 planes of 11: nodes every 30 deg, 0..150; F = 2 shifts
        // plane p by p 2 360/66 deg.
        let spec = WalkerSpec {
            kind: WalkerKind::Star,
            planes: 6,
            per_plane: 11,
            altitude_km: 780.0,
            inclination_deg: 86.4,
            phasing: 2,
        };
        let l = layout(&spec).unwrap();
        let last = &l[5 * 11];
        assert!((last.orbit.ascending_node * 180.0 / NS2_PI - 150.0).abs() < 1e-9);
        assert!((last.orbit.alpha * 180.0 / NS2_PI - 5.0 * 720.0 / 66.0).abs() < 1e-9);
    }

    #[test]
    fn bad_layouts_name_their_key() {
        let mut spec = WalkerSpec {
            kind: WalkerKind::Delta,
            planes: 4,
            per_plane: 6,
            altitude_km: -10.0,
            inclination_deg: 53.0,
            phasing: 1,
        };
        assert_eq!(layout(&spec).unwrap_err().0, "altitude");
        spec.altitude_km = 550.0;
        spec.phasing = 4;
        assert_eq!(layout(&spec).unwrap_err().0, "phasing");
        spec.phasing = 0;
        spec.planes = 0;
        assert_eq!(layout(&spec).unwrap_err().0, "planes");
        // 72 x 65,535 would be 4.7 million satellites (and u32::MAX x 72 overflows u32).
        spec.planes = 72;
        spec.per_plane = 65_535;
        assert_eq!(layout(&spec).unwrap_err().0, "per_plane");
        spec.per_plane = u32::MAX;
        assert_eq!(layout(&spec).unwrap_err().0, "per_plane");
    }
}
