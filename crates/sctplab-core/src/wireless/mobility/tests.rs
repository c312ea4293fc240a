use super::*;
use crate::sim::SimDuration;

/// `s` seconds after time zero (shared by the mobility and setdest tests).
pub(in crate::wireless) fn t(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(s)
}

/// Two positions within `tol` metres of each other in each coordinate.
pub(in crate::wireless) fn close(a: (f64, f64), b: (f64, f64), tol: f64) -> bool {
    (a.0 - b.0).abs() <= tol && (a.1 - b.1).abs() <= tol
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
