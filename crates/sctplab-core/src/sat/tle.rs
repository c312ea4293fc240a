//! Orbits from two-line element sets, propagated with SGP4 (the `sgp4` crate, pinned in
//! Cargo.toml) in its AFSPC-compatibility mode: WGS72 and the expressions of Vallado's
//! reference code, which the `sgp4` Python package runs. The crate's default mode uses
//! other epoch and sidereal-time expressions and lands 14 m away from the reference for
//! the ISS example at its epoch.
//!
//! Time 0 of a run is the epoch of the first element set in the file. SGP4 answers in
//! TEME, whose x axis points to the vernal equinox; the run's frame (`sat/mod.rs`) has the
//! prime meridian at azimuth 0 at time 0, so positions are turned about the pole by the
//! Greenwich mean sidereal time of that first epoch (IAU-82, the crate's
//! `iau_epoch_to_sidereal_time`). From then on the Earth turns at ns-2.35's rate.

use super::Vec3;

/// An SGP4 orbit placed on the run's clock.
#[derive(Clone, Debug)]
pub struct TleOrbit {
    pub name: Option<String>,
    constants: sgp4::Constants,
    /// Minutes from this element set's epoch to the run's time 0.
    offset_min: f64,
    /// Greenwich mean sidereal time at the run's time 0 (rad).
    gmst0: f64,
}

/// A file's element sets in order, or the first bad line (1-based) and why.
pub fn parse_tle_text(text: &str) -> Result<Vec<sgp4::Elements>, String> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim_end()))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let (n, first) = lines[k];
        // A three-line set starts with a name line (optionally "0 NAME").
        let (name, l1_at) = if first.starts_with("1 ") {
            (None, k)
        } else if first.starts_with("2 ") {
            return Err(format!("line {n}: a line 2 without its line 1"));
        } else {
            let name = first.strip_prefix("0 ").unwrap_or(first).trim().to_string();
            (Some(name), k + 1)
        };
        let Some(&(n1, l1)) = lines.get(l1_at) else {
            return Err(format!("line {n}: a name without element lines"));
        };
        let Some(&(n2, l2)) = lines.get(l1_at + 1) else {
            return Err(format!("line {n1}: a line 1 without its line 2"));
        };
        if !l1.starts_with("1 ") {
            return Err(format!("line {n1}: expected TLE line 1, found {l1:?}"));
        }
        if !l2.starts_with("2 ") {
            return Err(format!("line {n2}: expected TLE line 2, found {l2:?}"));
        }
        let el = sgp4::Elements::from_tle(name, l1.as_bytes(), l2.as_bytes())
            .map_err(|e| format!("lines {n1}-{n2}: {e}"))?;
        out.push(el);
        k = l1_at + 2;
    }
    if out.is_empty() {
        return Err("no element sets".into());
    }
    Ok(out)
}

/// Orbits for every element set, on a clock whose time 0 is the first set's epoch.
pub fn orbits(elements: &[sgp4::Elements]) -> Result<Vec<TleOrbit>, String> {
    let Some(first) = elements.first() else {
        return Err("no element sets".into());
    };
    let gmst0 = sgp4::iau_epoch_to_sidereal_time(first.epoch());
    elements
        .iter()
        .map(|el| {
            let constants = sgp4::Constants::from_elements_afspc_compatibility_mode(el)
                .map_err(|e| format!("{}: {e}", el.norad_id))?;
            let offset_min = (first.datetime - el.datetime)
                .num_nanoseconds()
                .map(|ns| ns as f64 / 60e9)
                .ok_or_else(|| format!("{}: epoch too far from the first", el.norad_id))?;
            let orbit = TleOrbit {
                name: el.object_name.clone(),
                constants,
                offset_min,
                gmst0,
            };
            // Refuse a set SGP4 cannot propagate from the start (decayed, bad elements).
            orbit
                .teme(0.0)
                .map_err(|e| format!("{}: {e}", el.norad_id))?;
            Ok(orbit)
        })
        .collect()
}

impl TleOrbit {
    /// SGP4's TEME position (km) at run time `t` (s).
    pub fn teme(&self, t: f64) -> Result<[f64; 3], sgp4::Error> {
        let p = self
            .constants
            .propagate_afspc_compatibility_mode(sgp4::MinutesSinceEpoch(
                self.offset_min + t / 60.0,
            ))?;
        Ok(p.position)
    }

    /// Position in the run's frame. A satellite SGP4 can no longer propagate (it has
    /// decayed) is put at the Earth's centre, where no station sees it and every ISL to
    /// it passes below the atmosphere.
    pub fn position(&self, t: f64) -> Vec3 {
        match self.teme(t) {
            Ok([x, y, z]) => {
                let (s, c) = self.gmst0.sin_cos();
                Vec3 {
                    x: c * x + s * y,
                    y: -s * x + c * y,
                    z,
                }
            }
            Err(_) => Vec3 {
                x: 0.0,
                y: 0.0,
                z: 0.0,
            },
        }
    }

    /// GMST at the run's time 0 (rad).
    pub fn gmst0(&self) -> f64 {
        self.gmst0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions from the `sgp4` Python package (the oracle: Vallado's SGP4 in C++),
    /// written by scripts/sgp4_oracle.py; tests/test_sat_sgp4_oracle.py checks that this
    /// file is what that package answers.
    const ORACLE: &str = include_str!("testdata/sgp4_oracle.json");

    #[test]
    fn sgp4_matches_the_python_package_within_a_metre() {
        let v: serde_json::Value = serde_json::from_str(ORACLE).unwrap();
        let sets = v["sets"].as_array().unwrap();
        assert!(sets.len() >= 3);
        for set in sets {
            let text = format!(
                "{}\n{}\n",
                set["line1"].as_str().unwrap(),
                set["line2"].as_str().unwrap()
            );
            let els = parse_tle_text(&text).unwrap();
            let o = &orbits(&els).unwrap()[0];
            // The oracle's GMST at the epoch (its gstime(), the same IAU-82 expression
            // evaluated from a Julian date rather than the crate's years since J2000):
            // within 1e-8 rad, 6 cm at the equator.
            let g = set["gmst_epoch"].as_f64().unwrap();
            assert!((o.gmst0() - g).abs() < 1e-8, "gmst {} vs {g}", o.gmst0());
            for s in set["states"].as_array().unwrap() {
                let minutes = s["minutes"].as_f64().unwrap();
                let want: Vec<f64> = s["teme_km"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                let got = o.teme(minutes * 60.0).unwrap();
                let err = ((got[0] - want[0]).powi(2)
                    + (got[1] - want[1]).powi(2)
                    + (got[2] - want[2]).powi(2))
                .sqrt();
                // Within a millimetre (they agree to a micrometre here; the margin is for
                // other platforms' libm).
                assert!(err < 1e-6, "{} at {minutes} min: {err} km", set["name"]);
                // The run frame is TEME turned by -GMST0: same radius and z.
                let p = o.position(minutes * 60.0);
                let r = (want[0].powi(2) + want[1].powi(2) + want[2].powi(2)).sqrt();
                assert!((p.norm() - r).abs() < 1e-3);
                assert!((p.z - want[2]).abs() < 1e-3);
                // And at time 0 the sub-satellite azimuth is the TEME one minus GMST0.
                if minutes == 0.0 {
                    let teme_az = want[1].atan2(want[0]);
                    let az = p.y.atan2(p.x);
                    let d = (teme_az - g - az).rem_euclid(2.0 * std::f64::consts::PI);
                    assert!(!(1e-8..=2.0 * std::f64::consts::PI - 1e-8).contains(&d));
                }
            }
        }
    }

    #[test]
    fn later_sets_are_placed_on_the_first_epoch_clock() {
        // Two copies of the ISS set, the second with an epoch one day later (day 265 vs
        // 264): on the run clock, time 0 is the first epoch, so the second is propagated
        // to -1440 minutes from its own epoch.
        let l1 = "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927";
        let l2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537";
        // (The epoch's digit sum grows by one, and so does the checksum.)
        let l1b = l1
            .replace("08264.51782528", "08265.51782528")
            .replace("0  2927", "0  2928");
        let els = parse_tle_text(&format!("ISS\n{l1}\n{l2}\n{l1b}\n{l2}\n")).unwrap();
        assert_eq!(els[0].object_name.as_deref(), Some("ISS"));
        let os = orbits(&els).unwrap();
        assert!((os[1].offset_min + 1440.0).abs() < 1e-6);
        let direct = os[1]
            .constants
            .propagate_afspc_compatibility_mode(sgp4::MinutesSinceEpoch(-1440.0))
            .unwrap();
        assert_eq!(os[1].teme(0.0).unwrap(), direct.position);
    }

    #[test]
    fn unknown_lines_are_refused_with_their_number() {
        let e = parse_tle_text("ISS\n3 junk\n2 25544\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse_tle_text("\n2 25544  51.6416\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(parse_tle_text("   \n").is_err());
        let e = parse_tle_text("1 25544U 98067A   08264.5178252X\n2 25544 x\n").unwrap_err();
        assert!(e.starts_with("lines 1-2:"), "{e}");
    }
}
