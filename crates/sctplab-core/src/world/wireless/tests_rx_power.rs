//! `RxPower` answers as `PhyCfg` does, to the bit.

use super::*;
use crate::sim::RngStream;

/// A radio with random power, frequency, loss, antennas and thresholds (either
/// threshold may lie on either side of the cross-over).
fn random_radio(r: &mut RngStream) -> PhyCfg {
    PhyCfg {
        pt_w: 0.01 + r.uniform(),
        freq_hz: 1e8 + r.uniform() * 5e9,
        system_loss: 1.0 + r.uniform() * 3.0,
        antenna_height_m: 0.5 + r.uniform() * 3.0,
        gt: 0.5 + r.uniform() * 2.0,
        gr: 0.5 + r.uniform() * 2.0,
        rx_thresh_w: 10f64.powf(-4.0 - 8.0 * r.uniform()),
        cs_thresh_w: 10f64.powf(-5.0 - 9.0 * r.uniform()),
        ..PhyCfg::default()
    }
}

/// Classifying by distance must agree with classifying the power, at the defaults
/// and random radios: at random distances and at every bound and its neighbours.
#[test]
fn classify_by_distance_is_exact() {
    let mut r = RngStream::new(9, "classify-test");
    let mut cfgs = vec![PhyCfg::default()];
    for i in 0..40 {
        let mut c = random_radio(&mut r);
        if i == 0 {
            // Both thresholds on the free-space side.
            c.cs_thresh_w = c.rx_power(c.crossover_m() * 0.5);
            c.rx_thresh_w = c.rx_power(c.crossover_m() * 0.25);
        }
        cfgs.push(c);
    }
    cfgs.push(PhyCfg {
        system_loss: 0.0,
        ..PhyCfg::default()
    });
    for phy in &cfgs {
        let fast = RxPower::new(phy);
        let mut ds: Vec<f64> = vec![0.0, 0.5, 1.0, phy.crossover_m(), 250.0, 550.0];
        for b in [fast.cs, fast.rx].into_iter().flatten() {
            for v in [b.0, b.1] {
                if v > 0.0 && v.is_finite() {
                    ds.extend([
                        v,
                        f64::from_bits(v.to_bits() + 1),
                        f64::from_bits(v.to_bits() - 1),
                    ]);
                }
            }
        }
        let c = phy.crossover_m();
        ds.extend([
            f64::from_bits(c.to_bits() + 1),
            f64::from_bits(c.to_bits() - 1),
        ]);
        let far = phy.cs_range_m() * 2.0;
        ds.extend((0..3000).map(|_| r.uniform() * far));
        for d in ds {
            assert_eq!(
                fast.classify(d),
                phy.classify(phy.rx_power(d)),
                "d={d} {phy:?}"
            );
            assert_eq!(
                fast.sensed(d),
                phy.classify(phy.rx_power(d)) != Reception::NotSensed,
                "d={d}"
            );
        }
        // `decodable_sure`: below its band decodable, above it not, throughout
        // half its width (the margin `QuietNic::decodable` allows).
        for w in [1e-3, 0.5, 20.0] {
            let Some((lo, hi)) = fast.decodable_sure(w) else {
                continue;
            };
            let mut ds: Vec<f64> = vec![lo, hi];
            for v in [lo, hi] {
                if v > 0.0 {
                    ds.extend([
                        f64::from_bits(v.to_bits() + 1),
                        f64::from_bits(v.to_bits() - 1),
                    ]);
                }
            }
            ds.extend((0..3000).map(|_| r.uniform() * far));
            for d in ds {
                let sure = if d <= lo {
                    true
                } else if d > hi {
                    false
                } else {
                    continue;
                };
                for x in [d - w / 2.0, d, d + w / 2.0] {
                    let x = x.max(0.0);
                    assert_eq!(
                        phy.classify(phy.rx_power(x)) == Reception::Decodable,
                        sure,
                        "d={d} x={x} w={w} {phy:?}"
                    );
                }
            }
        }
    }
    // The default radio takes the short test.
    assert!(
        RxPower::new(&PhyCfg::default())
            .decodable_sure(1e-3)
            .is_some()
    );
}

/// The squared-distance bound must decide as the range test and `sensed` of the
/// distance do together: at the defaults, random radios (thresholds on either side
/// of the cross-over), odd ranges, and at every bound and its neighbours.
#[test]
fn sense_bound_is_exact() {
    let mut r = RngStream::new(11, "sense-bound-test");
    let mut cfgs = vec![PhyCfg::default()];
    for i in 0..60 {
        let mut c = random_radio(&mut r);
        if i % 3 == 0 {
            // Sensed on the free-space side only.
            c.cs_thresh_w = c.rx_power(c.crossover_m() * (0.2 + 0.7 * r.uniform()));
        }
        cfgs.push(c);
    }
    cfgs.push(PhyCfg {
        system_loss: 0.0,
        ..PhyCfg::default()
    });
    let mut exact = 0;
    for phy in &cfgs {
        let fast = RxPower::new(phy);
        let cs = phy.cs_range_m();
        let mut ranges = vec![cs, cs * 0.5, cs * 2.0, phy.crossover_m(), 0.0, 1e300];
        ranges.extend([cs.next_up(), cs.next_down(), f64::INFINITY, f64::NAN]);
        for range in ranges {
            let b = fast.sense_bound(range);
            exact += usize::from(b.exact);
            let mut ss: Vec<f64> = vec![0.0, 1.0, range * range, f64::INFINITY, f64::NAN];
            let mut marks = vec![b.max_sq, range * range];
            for v in [phy.crossover_m(), cs]
                .into_iter()
                .chain(fast.cs.map_or(vec![], |(n, f)| vec![n, f]))
            {
                marks.push(v * v);
                marks.push(last_sq_at_most(v.max(0.0)));
            }
            for m in marks.into_iter().filter(|m| m.is_finite() && *m >= 0.0) {
                let (mut lo, mut hi) = (m, m);
                for _ in 0..3 {
                    lo = lo.next_down().max(0.0);
                    hi = hi.next_up();
                    ss.extend([lo, hi]);
                }
                ss.push(m);
            }
            let far = (cs * 2.0).powi(2);
            ss.extend((0..2000).map(|_| r.uniform() * far));
            for s in ss {
                let old = (s <= range * range) && fast.sensed(s.sqrt());
                let new = s <= b.max_sq && (b.exact || fast.sensed(s.sqrt()));
                assert_eq!(old, new, "s={s} range={range} {b:?} {phy:?}");
            }
        }
    }
    // The bound alone decides for the defaults and most radios.
    let phy = PhyCfg::default();
    assert!(RxPower::new(&phy).sense_bound(phy.cs_range_m()).exact);
    assert!(
        exact > cfgs.len() * 5,
        "{exact} exact of {}",
        cfgs.len() * 10
    );
}

/// The cached form must give exactly `PhyCfg::rx_power`'s bits: at the defaults and
/// random radios, on both sides of the cross-over, at it, and below the 1 m floor.
#[test]
fn rx_power_cache_is_bit_identical() {
    let mut r = RngStream::new(7, "rx-power-test");
    let mut cfgs = vec![PhyCfg::default()];
    for _ in 0..20 {
        cfgs.push(random_radio(&mut r));
    }
    for phy in &cfgs {
        let fast = RxPower::new(phy);
        let c = phy.crossover_m();
        let (below, above) = (
            f64::from_bits(c.to_bits() - 1),
            f64::from_bits(c.to_bits() + 1),
        );
        let mut ds = vec![0.0, 0.3, 1.0, c, below, above, 250.0, 550.0];
        ds.extend((0..2000).map(|_| r.uniform() * 1500.0));
        for d in ds {
            assert_eq!(
                fast.at(d).to_bits(),
                phy.rx_power(d).to_bits(),
                "d={d} {phy:?}"
            );
        }
    }
}
