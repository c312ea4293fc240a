//! Which satellite a ground station is attached to, as pure functions of time.
//!
//! Every policy is evaluated at the check instants 0, h, 2h, ... (h the station's
//! `handover_interval`); the first attachment, at time 0, is not a handover.
//! - `Ns2`: ns-2.35's `TermLinkHandoffMgr::handoff` (`sathandoff.cc`): keep the satellite
//!   while it is above the mask; otherwise the one behind it in its plane if that one is
//!   above the mask; otherwise the highest; the first attachment is to the highest.
//! - `Highest`: the highest satellite at every check.
//! - `LongestVisible`: keep the satellite while it is above the mask; otherwise (and
//!   at time 0) the visible one that stays above the mask longest.
//! - `Slotted`: at every check after time 0 a new satellite, the highest visible one
//!   other than the current (Starlink's reassignment every 15 s); the current one is kept
//!   only if no other is visible.

use super::Vec3;
use super::constellation::Constellation;
use super::geometry::{drop_below_mask, elevation};
use super::orbit::GroundPoint;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Ns2,
    Highest,
    LongestVisible,
    Slotted,
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        Some(match s {
            "ns2" => Policy::Ns2,
            "highest" => Policy::Highest,
            "longest_visible" => Policy::LongestVisible,
            "slotted" => Policy::Slotted,
            _ => return None,
        })
    }
}

/// A ground station as the policies see it.
#[derive(Clone, Debug)]
pub struct Station {
    pub point: GroundPoint,
    /// Minimum elevation (rad): a satellite is usable while strictly above it.
    pub mask: f64,
}

/// How far ahead `LongestVisible` looks, and its sampling step and precision (s).
const LOOKAHEAD_S: f64 = 3.0 * 3600.0;
const LOOKAHEAD_STEP_S: f64 = 1.0;
const LOOKAHEAD_TOL_S: f64 = 1e-3;

/// Elevation of satellite `k` from `st` at `t` (rad).
pub fn elevation_of(c: &Constellation, st: &Station, k: usize, t: f64) -> f64 {
    elevation(c.position(k, t), st.point.position(t))
}

/// Every satellite's position at one instant, computed once for all the stations that
/// look at the sky then.
pub struct Sky<'a> {
    pub constellation: &'a Constellation,
    pub t: f64,
    pub positions: Vec<Vec3>,
}

impl<'a> Sky<'a> {
    pub fn at(constellation: &'a Constellation, t: f64) -> Self {
        let positions = (0..constellation.sats.len())
            .map(|k| constellation.position(k, t))
            .collect();
        Sky {
            constellation,
            t,
            positions,
        }
    }

    fn above(&self, st: &Station, g: Vec3, k: usize) -> bool {
        elevation(self.positions[k], g) > st.mask
    }
}

/// The highest satellite above the mask, skipping `except`; ties go to the first in
/// constellation order (ns-2.35 takes a later node only if strictly higher).
pub fn highest(sky: &Sky, st: &Station, except: Option<usize>) -> Option<usize> {
    let g = st.point.position(sky.t);
    let mut best: Option<(usize, f64)> = None;
    for (k, &p) in sky.positions.iter().enumerate() {
        if Some(k) == except {
            continue;
        }
        let e = elevation(p, g);
        if e > st.mask && best.is_none_or(|(_, b)| e > b) {
            best = Some((k, e));
        }
    }
    best.map(|(k, _)| k)
}

/// When satellite `k` drops to or below the mask after `t` (s); `t + LOOKAHEAD_S` if not
/// within it.
pub fn visible_until(c: &Constellation, st: &Station, k: usize, t: f64) -> f64 {
    drop_below_mask(
        |u| elevation_of(c, st, k, u),
        st.mask,
        t,
        LOOKAHEAD_S,
        LOOKAHEAD_STEP_S,
        LOOKAHEAD_TOL_S,
    )
    .unwrap_or(t + LOOKAHEAD_S)
}

/// The visible satellite that stays above the mask longest (ties to the first).
pub fn longest_visible(sky: &Sky, st: &Station) -> Option<usize> {
    let g = st.point.position(sky.t);
    let mut best: Option<(usize, f64)> = None;
    for k in 0..sky.positions.len() {
        if !sky.above(st, g, k) {
            continue;
        }
        let until = visible_until(sky.constellation, st, k, sky.t);
        if best.is_none_or(|(_, b)| until > b) {
            best = Some((k, until));
        }
    }
    best.map(|(k, _)| k)
}

/// The attachment at time 0 (`sky` at time 0).
pub fn initial(policy: Policy, sky: &Sky, st: &Station) -> Option<usize> {
    match policy {
        Policy::LongestVisible => longest_visible(sky, st),
        _ => highest(sky, st, None),
    }
}

/// The attachment decided at a check instant after time 0 (`sky` then), given the
/// current one.
pub fn check(policy: Policy, sky: &Sky, st: &Station, current: Option<usize>) -> Option<usize> {
    let g = st.point.position(sky.t);
    let kept = current.filter(|&k| sky.above(st, g, k));
    match policy {
        Policy::Ns2 => kept.or_else(|| {
            current
                .and_then(|k| sky.constellation.behind(k))
                .filter(|&b| sky.above(st, g, b))
                .or_else(|| highest(sky, st, None))
        }),
        Policy::Highest => highest(sky, st, None),
        Policy::LongestVisible => kept.or_else(|| longest_visible(sky, st)),
        Policy::Slotted => highest(sky, st, current).or(kept),
    }
}

/// A station's attachments over [0, end]: every change as (time, satellite or none),
/// starting with time 0, and the number of handovers (a change from one satellite to
/// another; losing every satellite is not one, and re-attaching after an outage is one
/// only if to a different satellite than the last).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub changes: Vec<(f64, Option<usize>)>,
    pub handovers: u64,
}

/// The check instants are k `interval` for k = 0, 1, ... while at most `end`.
pub fn schedule(
    policy: Policy,
    c: &Constellation,
    st: &Station,
    interval: f64,
    end: f64,
) -> Schedule {
    let mut cur = initial(policy, &Sky::at(c, 0.0), st);
    let mut changes = vec![(0.0, cur)];
    let mut last = cur;
    let mut handovers = 0;
    let mut k: u64 = 1;
    loop {
        let t = k as f64 * interval;
        if t > end {
            break;
        }
        let next = check(policy, &Sky::at(c, t), st, cur);
        if next != cur {
            changes.push((t, next));
            if let Some(n) = next {
                if last.is_some_and(|l| l != n) {
                    handovers += 1;
                }
                last = Some(n);
            }
            cur = next;
        }
        k += 1;
    }
    Schedule { changes, handovers }
}

#[cfg(test)]
mod tests {
    use super::super::constellation::{PlaneTopology, Satellite};
    use super::super::orbit::{CircularOrbit, Orbit};
    use super::*;

    /// One polar plane of `n` satellites at 780 km, alpha = 360 i / n, node at 0 E,
    /// and a station at the north pole (which the Earth's turning does not move).
    fn one_plane(n: u32) -> (Constellation, Station) {
        let sats = (0..n)
            .map(|i| Satellite {
                plane: 0,
                index: i,
                orbit: Orbit::Circular(
                    CircularOrbit::from_ns2(780.0, 90.0, 0.0, 360.0 * f64::from(i) / f64::from(n))
                        .unwrap(),
                ),
            })
            .collect();
        let c = Constellation::new("p", sats, PlaneTopology::Seam);
        let st = Station {
            point: GroundPoint::from_lat_lon(90.0, 0.0).unwrap(),
            mask: 10f64.to_radians(),
        };
        (c, st)
    }

    /// Central angle from the pole to satellite i at t (deg), by hand: its latitude is
    /// 90 - |90 - u| with u = alpha + 360 t / T (mod 360).
    fn gamma_deg(i: u32, n: u32, t: f64, period: f64) -> f64 {
        let u = (360.0 * f64::from(i) / f64::from(n) + 360.0 * t / period).rem_euclid(360.0);
        (90.0 - u).abs().min(360.0 - (90.0 - u).abs())
    }

    fn period(c: &Constellation) -> f64 {
        match &c.sats[0].orbit {
            Orbit::Circular(o) => o.period_s,
            _ => unreachable!(),
        }
    }

    #[test]
    fn slotted_schedule_by_hand() {
        // Eight satellites 45 deg apart, station at the pole, mask 10 deg: from the pole
        // a satellite at 780 km is above 10 deg within a central angle of
        // acos(6378 cos 10 / 7158) - 10 = 18.73 deg, so with 45 deg spacing at most one
        // is visible at a time, and the only other candidate ever is none. Slotted with
        // a 60-s interval: at each check the highest *other* visible satellite, else the
        // current one if still visible. With one visible at a time that is: keep the
        // current while visible, then whichever one is visible. Worked by hand from
        // gamma(i, t) below.
        let (c, st) = one_plane(8);
        let t_orbit = period(&c);
        let reach = ((6378.0 * 10f64.to_radians().cos() / 7158.0)
            .acos()
            .to_degrees())
            - 10.0;
        let s = schedule(Policy::Slotted, &c, &st, 60.0, 1200.0);
        let mut cur: Option<usize> = None;
        let mut want = Vec::new();
        let mut handovers = 0;
        let mut last: Option<usize> = None;
        for k in 0..=20 {
            let t = 60.0 * f64::from(k);
            let vis: Vec<usize> = (0..8)
                .filter(|&i| gamma_deg(i, 8, t, t_orbit) < reach)
                .map(|i| i as usize)
                .collect();
            assert!(vis.len() <= 1, "at most one visible: {vis:?}");
            let others: Vec<usize> = vis.iter().copied().filter(|&i| Some(i) != cur).collect();
            let next = if k == 0 {
                vis.first().copied()
            } else {
                others.first().copied().or(cur.filter(|c| vis.contains(c)))
            };
            if k == 0 || next != cur {
                want.push((t, next));
                if let Some(n) = next {
                    if last.is_some_and(|l| l != n) {
                        handovers += 1;
                    }
                    last = Some(n);
                }
            }
            cur = next;
        }
        assert_eq!(s.changes, want);
        assert_eq!(s.handovers, handovers);
        // Sanity: satellite 2 (alpha 90) starts over the pole; the pass lasts
        // 2 x 18.73 deg of 360 deg of a 6027-s orbit = 627 s, so satellite 2 is
        // held from 0 to 300 s ((18.73 / 360) 6027 = 313.6 s), then none until the
        // next satellite (1, 45 deg behind) comes within 18.73 deg at
        // (45 - 18.73) / 360 x 6027 = 439.8 s, i.e. the check at 480 s.
        assert_eq!(s.changes[0], (0.0, Some(2)));
        assert_eq!(s.changes[1], (360.0, None));
        assert_eq!(s.changes[2], (480.0, Some(1)));
    }

    #[test]
    fn slotted_always_moves_when_another_is_visible() {
        // 24 satellites 15 deg apart: 2 or 3 visible at every instant, so every check
        // after time 0 is a handover.
        let (c, st) = one_plane(24);
        let s = schedule(Policy::Slotted, &c, &st, 15.0, 150.0);
        assert_eq!(s.changes.len(), 11);
        assert_eq!(s.handovers, 10);
        for w in s.changes.windows(2) {
            assert_ne!(w[0].1, w[1].1);
        }
    }

    #[test]
    fn ns2_keeps_then_takes_the_one_behind() {
        // 24 satellites 15 deg apart, ns2 policy, 10-s checks: attach to the highest
        // (satellite 6, alpha 90, over the pole); keep it until it is within 10 deg of
        // the horizon, then the one behind, 5, which is then 15 deg closer to the pole.
        let (c, st) = one_plane(24);
        let t_orbit = period(&c);
        let s = schedule(Policy::Ns2, &c, &st, 10.0, 1000.0);
        assert_eq!(s.changes[0], (0.0, Some(6)));
        // Satellite 6 drops below 10 deg when gamma = 18.73 deg: at 313.6 s, so the
        // check at 320 s hands over to 5.
        let reach = ((6378.0 * 10f64.to_radians().cos() / 7158.0)
            .acos()
            .to_degrees())
            - 10.0;
        let drop = reach / 360.0 * t_orbit;
        let first_check_after = (drop / 10.0).ceil() * 10.0;
        assert_eq!(s.changes[1], (first_check_after, Some(5)));
        assert!(s.handovers >= 3);
        // Every later handover goes to the satellite behind.
        for w in s.changes.windows(2) {
            if let (Some(a), Some(b)) = (w[0].1, w[1].1) {
                assert_eq!(b, c.behind(a).unwrap());
            }
        }
    }

    #[test]
    fn highest_and_longest_visible_differ_as_expected() {
        // At a check where the current satellite is still up, `highest` may move to a
        // higher one while `longest_visible` keeps it; on loss, `longest_visible` takes
        // the rising satellite (ascending towards the pole), which stays longest.
        let (c, st) = one_plane(24);
        let t_orbit = period(&c);
        // Half-way between satellite 6 over the pole and 5 over it: both at 7.5 deg of
        // central angle, 6 going away, 5 coming: longest visible is 5.
        let t = 7.5 / 360.0 * t_orbit;
        assert_eq!(longest_visible(&Sky::at(&c, t), &st), Some(5));
        assert!(visible_until(&c, &st, 5, t) > visible_until(&c, &st, 6, t));
        // A moment later 5 is the highest.
        let later = Sky::at(&c, t + 1.0);
        assert_eq!(highest(&later, &st, None), Some(5));
        assert_eq!(check(Policy::LongestVisible, &later, &st, Some(6)), Some(6));
        assert_eq!(check(Policy::Highest, &later, &st, Some(6)), Some(5));
    }
}
