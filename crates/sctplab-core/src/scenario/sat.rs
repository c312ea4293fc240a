//! `[[constellations]]` and `[[ground_stations]]` (CONTRACTS.md, "Satellite
//! constellations"; docs/models/satellite.md): typed and checked here, each
//! constellation built once (its TLE file read once) and kept on its entry for the world
//! (`world/sat_build.rs`). Ground stations become nodes of the scenario, so that flows,
//! links and the checks of both name them as any node.

use super::error::ScenarioError;
use super::load::typed;
use super::units::{Duration, Length, Rate};
use crate::sat::constellation::{Constellation, PlaneTopology, Satellite};
use crate::sat::handover::Policy;
use crate::sat::orbit::{CircularOrbit, Orbit, OrbitError};
use crate::sat::walker::{WalkerKind, WalkerSpec, layout};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// The constellation kinds `kind` names.
pub const CONSTELLATION_KINDS: [&str; 4] = ["walker_delta", "walker_star", "tle", "explicit"];
/// The shortest `handover_interval` and `isl_check_interval`: every check instant
/// computes every satellite's position (ns-2.35's defaults are 10 s, Starlink's slot 15 s).
pub const MIN_CHECK_INTERVAL: crate::sim::SimDuration = crate::sim::SimDuration::from_millis(100);
const MIN_CHECK_MESSAGE: &str =
    "must be at least 100ms (each check instant computes every satellite's position)";

/// The handover policies `handover` names.
pub const HANDOVER_POLICIES: [&str; 4] = ["ns2", "highest", "longest_visible", "slotted"];

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ConstellationCfg {
    pub name: String,
    pub kind: String,
    #[serde(default)]
    pub tle_file: Option<String>,
    #[serde(default)]
    pub satellites: Vec<ExplicitSatCfg>,
    #[serde(default)]
    pub planes: Option<u32>,
    #[serde(default)]
    pub per_plane: Option<u32>,
    #[serde(default)]
    pub altitude: Option<Length>,
    /// Degrees.
    #[serde(default)]
    pub inclination: Option<f64>,
    /// Walker's F.
    #[serde(default)]
    pub phasing: Option<u32>,
    /// `"none"` or `"grid"`; default `"grid"` (`"none"` for `tle`, which has no planes).
    #[serde(default)]
    pub isl: Option<String>,
    /// Degrees; default 70, ns-2.35's `latitude_threshold_`.
    #[serde(default)]
    pub isl_max_latitude: Option<f64>,
    #[serde(default)]
    pub isl_bandwidth: Option<Rate>,
    #[serde(default)]
    pub isl_queue: Option<u32>,
    #[serde(default)]
    pub gsl_bandwidth: Option<Rate>,
    #[serde(default)]
    pub gsl_queue: Option<u32>,
    /// Default 10 s, ns-2.35's `sat_handoff_int_`.
    #[serde(default)]
    pub isl_check_interval: Option<Duration>,
    /// The constellation `check` built from these keys.
    #[serde(skip)]
    pub built: Option<std::sync::Arc<Constellation>>,
}

/// One `explicit` satellite: ns-2.35's `set-position` arguments.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ExplicitSatCfg {
    pub altitude: Length,
    pub inclination: f64,
    pub longitude: f64,
    pub alpha: f64,
    pub plane: u32,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct GroundStationCfg {
    pub name: String,
    pub lat: f64,
    pub lon: f64,
    pub constellation: String,
    /// Degrees; default 0, ns-2.35's `elevation_mask_`.
    #[serde(default)]
    pub min_elevation: f64,
    /// Default `"ns2"`.
    #[serde(default)]
    pub handover: Option<String>,
    /// Default 10 s, ns-2.35's `term_handoff_int_`.
    #[serde(default)]
    pub handover_interval: Option<Duration>,
}

/// If the scenario has satellite tables: their keys checked and the constellations
/// built, in file order (none when it has no satellite tables).
pub(crate) fn check(root: &Value, source: &str) -> Result<Vec<Constellation>, ScenarioError> {
    let has = |k: &str| root.get(k).is_some();
    if !has("constellations") && !has("ground_stations") {
        return Ok(Vec::new());
    }
    let consts: Vec<ConstellationCfg> = match root.get("constellations") {
        Some(v) => typed::<Consts>(&named(v, "constellations"), source, "")?.constellations,
        None => Vec::new(),
    };
    let mut built = Vec::new();
    for c in &consts {
        let at = |key: &str| format!("constellations.{}.{key}", c.name);
        if built.iter().any(|b: &Constellation| b.name == c.name) {
            return Err(ScenarioError::new(
                source,
                at("name"),
                "is used by another constellation",
            ));
        }
        built.push(constellation(c, source, &at)?);
    }
    let stations: Vec<GroundStationCfg> = match root.get("ground_stations") {
        Some(v) => typed::<Stations>(&named(v, "ground_stations"), source, "")?.ground_stations,
        None => Vec::new(),
    };
    let node_names: Vec<&str> = root
        .get("nodes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|n| n.get("name")?.as_str()).collect())
        .unwrap_or_default();
    for (k, g) in stations.iter().enumerate() {
        let at = |key: &str| format!("ground_stations.{}.{key}", g.name);
        let err = |key: &str, m: String| ScenarioError::new(source, at(key), m);
        if stations[..k].iter().any(|o| o.name == g.name) || node_names.contains(&g.name.as_str()) {
            return Err(err(
                "name",
                format!("{:?} is already a node's name", g.name),
            ));
        }
        if !(-90.0..=90.0).contains(&g.lat) {
            return Err(err(
                "lat",
                format!("{} is outside [-90, 90] degrees", g.lat),
            ));
        }
        if !(-180.0..=180.0).contains(&g.lon) {
            return Err(err(
                "lon",
                format!("{} is outside [-180, 180] degrees", g.lon),
            ));
        }
        if !built.iter().any(|b| b.name == g.constellation) {
            return Err(err(
                "constellation",
                format!("{:?} is not a [[constellations]] name", g.constellation),
            ));
        }
        if !(0.0..90.0).contains(&g.min_elevation) {
            return Err(err(
                "min_elevation",
                format!("{} is outside [0, 90) degrees", g.min_elevation),
            ));
        }
        if let Some(h) = &g.handover {
            if Policy::parse(h).is_none() {
                return Err(err(
                    "handover",
                    format!(
                        "unknown policy {h:?} (expected {})",
                        HANDOVER_POLICIES.join(", ")
                    ),
                ));
            }
        }
        if g.handover_interval
            .is_some_and(|d| d.0 < MIN_CHECK_INTERVAL)
        {
            return Err(err("handover_interval", MIN_CHECK_MESSAGE.into()));
        }
    }
    for b in &built {
        for k in 0..b.sats.len() {
            let n = b.node_name(k);
            if node_names.contains(&n.as_str()) || stations.iter().any(|g| g.name == n) {
                return Err(ScenarioError::new(
                    source,
                    format!("constellations.{}.name", b.name),
                    format!("its satellite node {n:?} has the name of another node"),
                ));
            }
        }
    }
    Ok(built)
}

/// Keeps what `check` built on the typed entries, and makes every ground station a node
/// (after the `[[nodes]]`, in file order) so that flows and links can name it.
pub(crate) fn attach(file: &mut crate::scenario::schema::ScenarioFile, built: Vec<Constellation>) {
    for (cfg, c) in file.constellations.iter_mut().zip(built) {
        cfg.built = Some(std::sync::Arc::new(c));
    }
    for g in &file.ground_stations {
        file.nodes.push(crate::scenario::schema::NodeCfg {
            name: g.name.clone(),
            wlan: 0,
            x: None,
            y: None,
        });
    }
}

/// Connected components of the nodes as `validate` checks flows against: the wired
/// links, plus the ground stations of one constellation joined to each other (the
/// satellites may join them; whether they do at a given instant is the run's business).
pub(crate) fn components_with_stations(
    file: &crate::scenario::schema::ScenarioFile,
    adjacency: &[Vec<(crate::net::IfaceId, crate::net::NodeId)>],
) -> Vec<u32> {
    if file.ground_stations.is_empty() {
        return crate::net::routing::components(adjacency);
    }
    let mut adj = adjacency.to_vec();
    let index = |name: &str| file.nodes.iter().position(|n| n.name == name);
    for (k, g) in file.ground_stations.iter().enumerate() {
        for h in &file.ground_stations[k + 1..] {
            if h.constellation != g.constellation {
                continue;
            }
            if let (Some(a), Some(b)) = (index(&g.name), index(&h.name)) {
                let dummy = crate::net::IfaceId(u32::MAX);
                adj[a].push((dummy, crate::net::NodeId::from_idx(b)));
                adj[b].push((dummy, crate::net::NodeId::from_idx(a)));
            }
        }
    }
    crate::net::routing::components(&adj)
}

/// The table `{key = value}`, so that error paths start with `key`.
fn named(v: &Value, key: &str) -> Value {
    let mut t = Table::new();
    t.insert(key.to_string(), v.clone());
    Value::Table(t)
}

#[derive(Deserialize)]
struct Consts {
    constellations: Vec<ConstellationCfg>,
}

#[derive(Deserialize)]
struct Stations {
    ground_stations: Vec<GroundStationCfg>,
}

fn constellation(
    c: &ConstellationCfg,
    source: &str,
    at: &dyn Fn(&str) -> String,
) -> Result<Constellation, ScenarioError> {
    let err = |key: &str, m: String| ScenarioError::new(source, at(key), m);
    let kind = c.kind.as_str();
    if !CONSTELLATION_KINDS.contains(&kind) {
        return Err(err(
            "kind",
            format!(
                "unknown kind {:?} (expected {})",
                c.kind,
                CONSTELLATION_KINDS.join(", ")
            ),
        ));
    }
    check_keys(c, kind, &err)?;
    let (sats, topology) = match kind {
        "walker_delta" | "walker_star" => walker_satellites(c, kind, &err)?,
        "explicit" => explicit_satellites(c, &err)?,
        _ => tle_satellites(c, source, &err)?,
    };
    Ok(Constellation::new(&c.name, sats, topology))
}

type KeyError<'a> = dyn Fn(&str, String) -> ScenarioError + 'a;
type Placed = (Vec<Satellite>, PlaneTopology);

fn km(l: Length) -> f64 {
    l.meters() / 1000.0
}

/// Keys that belong to another kind, and the ISL and link keys' ranges.
fn check_keys(c: &ConstellationCfg, kind: &str, err: &KeyError) -> Result<(), ScenarioError> {
    let walker_keys = [
        ("planes", c.planes.is_some()),
        ("per_plane", c.per_plane.is_some()),
        ("altitude", c.altitude.is_some()),
        ("inclination", c.inclination.is_some()),
        ("phasing", c.phasing.is_some()),
    ];
    let is_walker = kind.starts_with("walker");
    if !is_walker {
        if let Some((k, _)) = walker_keys.iter().find(|(_, given)| *given) {
            return Err(err(
                k,
                format!("applies to walker_delta and walker_star, not {kind}"),
            ));
        }
    }
    if kind != "explicit" && !c.satellites.is_empty() {
        return Err(err(
            "satellites",
            format!("applies to explicit, not {kind}"),
        ));
    }
    if kind != "tle" && c.tle_file.is_some() {
        return Err(err("tle_file", format!("applies to tle, not {kind}")));
    }
    let isl = c
        .isl
        .as_deref()
        .unwrap_or(if kind == "tle" { "none" } else { "grid" });
    if isl != "none" && isl != "grid" {
        return Err(err(
            "isl",
            format!("unknown value {isl:?} (expected none or grid)"),
        ));
    }
    if kind == "tle" && isl == "grid" {
        return Err(err(
            "isl",
            "a tle constellation has no planes: expected none".into(),
        ));
    }
    if let Some(l) = c.isl_max_latitude {
        if !(0.0..=90.0).contains(&l) {
            return Err(err(
                "isl_max_latitude",
                format!("{l} is outside [0, 90] degrees"),
            ));
        }
    }
    if c.isl_check_interval
        .is_some_and(|d| d.0 < MIN_CHECK_INTERVAL)
    {
        return Err(err("isl_check_interval", MIN_CHECK_MESSAGE.into()));
    }
    for (key, v) in [("isl_queue", c.isl_queue), ("gsl_queue", c.gsl_queue)] {
        if v == Some(0) {
            return Err(err(key, "must be at least 1 packet".into()));
        }
    }
    for (key, v) in [
        ("isl_bandwidth", c.isl_bandwidth),
        ("gsl_bandwidth", c.gsl_bandwidth),
    ] {
        if v.is_some_and(|r| r.0 == 0) {
            return Err(err(key, "must be greater than 0".into()));
        }
    }
    Ok(())
}

/// A Walker delta or star layout (Walker's planes, satellites per plane, phasing F).
fn walker_satellites(
    c: &ConstellationCfg,
    kind: &str,
    err: &KeyError,
) -> Result<Placed, ScenarioError> {
    let need = |k: &str| err(k, format!("is required for {kind}"));
    let spec = WalkerSpec {
        kind: if kind == "walker_delta" {
            WalkerKind::Delta
        } else {
            WalkerKind::Star
        },
        planes: c.planes.ok_or_else(|| need("planes"))?,
        per_plane: c.per_plane.ok_or_else(|| need("per_plane"))?,
        altitude_km: km(c.altitude.ok_or_else(|| need("altitude"))?),
        inclination_deg: c.inclination.ok_or_else(|| need("inclination"))?,
        phasing: c.phasing.unwrap_or(0),
    };
    let placed = layout(&spec).map_err(|(k, m)| err(k, m))?;
    let sats = placed
        .into_iter()
        .map(|p| Satellite {
            plane: p.plane,
            index: p.index,
            orbit: Orbit::Circular(p.orbit),
        })
        .collect();
    let topo = if kind == "walker_delta" {
        PlaneTopology::Ring
    } else {
        PlaneTopology::Seam
    };
    Ok((sats, topo))
}

/// ns-2.35's `set-position` entries, planes in increasing plane number.
fn explicit_satellites(c: &ConstellationCfg, err: &KeyError) -> Result<Placed, ScenarioError> {
    if c.satellites.is_empty() {
        return Err(err(
            "satellites",
            "is required for explicit (one entry per satellite)".into(),
        ));
    }
    let mut planes: Vec<u32> = c.satellites.iter().map(|s| s.plane).collect();
    planes.sort_unstable();
    planes.dedup();
    let mut sats = Vec::new();
    for (rank, &p) in planes.iter().enumerate() {
        let in_plane = c
            .satellites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.plane == p);
        for ((i, s), index) in in_plane.zip(0u32..) {
            let o = CircularOrbit::from_ns2(km(s.altitude), s.inclination, s.longitude, s.alpha)
                .map_err(|e| {
                    let key = match e {
                        OrbitError::AltitudeBelowSurface(_) => "altitude",
                        OrbitError::Inclination(_) => "inclination",
                        OrbitError::Alpha(_) => "alpha",
                        _ => "longitude",
                    };
                    err(&format!("satellites.{i}.{key}"), e.to_string())
                })?;
            sats.push(Satellite {
                plane: rank as u32,
                index,
                orbit: Orbit::Circular(o),
            });
        }
    }
    Ok((sats, PlaneTopology::Seam))
}

/// Element sets from `tle_file`, propagated with SGP4.
fn tle_satellites(
    c: &ConstellationCfg,
    source: &str,
    err: &KeyError,
) -> Result<Placed, ScenarioError> {
    let Some(file) = &c.tle_file else {
        return Err(err("tle_file", "is required for tle".into()));
    };
    let path = resolve(file, source);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| err("tle_file", format!("cannot read {}: {e}", path.display())))?;
    let els = crate::sat::tle::parse_tle_text(&text)
        .map_err(|m| err("tle_file", format!("{}: {m}", path.display())))?;
    let orbits = crate::sat::tle::orbits(&els)
        .map_err(|m| err("tle_file", format!("{}: {m}", path.display())))?;
    let sats = orbits
        .into_iter()
        .enumerate()
        .map(|(i, o)| Satellite {
            plane: 0,
            index: i as u32,
            orbit: Orbit::Tle(Box::new(o)),
        })
        .collect();
    Ok((sats, PlaneTopology::None))
}

/// `tle_file` as written: absolute, or relative to the scenario file's folder when the
/// source is a file, else to the working directory.
fn resolve(file: &str, source: &str) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let src = Path::new(source);
    match src.parent() {
        Some(dir) if src.is_file() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::load_toml;

    const LEO: &str = r#"
duration = "60s"
[[constellations]]
name = "shell"
kind = "walker_delta"
planes = 4
per_plane = 6
altitude = "550km"
inclination = 53.0
phasing = 1
[[ground_stations]]
name = "paris"
lat = 48.85
lon = 2.35
constellation = "shell"
min_elevation = 25.0
handover = "slotted"
handover_interval = "15s"
[[ground_stations]]
name = "nyc"
lat = 40.71
lon = -74.0
constellation = "shell"
[[flows]]
name = "f"
type = "tcp"
variant = "sack"
from = "paris"
to = "nyc"
"#;

    fn ok(text: &str) -> crate::scenario::Scenario {
        load_toml(text, "leo.toml", "leo", &[]).expect("accepted")
    }

    fn err(text: &str) -> String {
        match load_toml(text, "leo.toml", "leo", &[]) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    }

    fn with(from: &str, to: &str) -> String {
        assert!(LEO.contains(from), "{from}");
        err(&LEO.replacen(from, to, 1))
    }

    #[test]
    fn a_valid_constellation_loads_and_its_stations_are_nodes() {
        let s = ok(LEO);
        let names: Vec<&str> = s.file.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["paris", "nyc"]);
        let c = s.file.constellations[0].built.as_deref().expect("built");
        assert_eq!(c.sats.len(), 24);
        // A flow to a satellite is to no node.
        let e = with("to = \"nyc\"", "to = \"shell-0-1\"");
        assert!(
            e.starts_with("leo.toml: flows.f.to: unknown node \"shell-0-1\""),
            "{e}"
        );
    }

    #[test]
    fn bad_values_name_file_key_and_expectation() {
        let cases = [
            (
                "altitude = \"550km\"",
                "altitude = \"-550km\"",
                "leo.toml: constellations.shell.altitude:",
            ),
            (
                "lat = 48.85",
                "lat = 91.0",
                "leo.toml: ground_stations.paris.lat: 91 is outside [-90, 90] degrees",
            ),
            (
                "lon = 2.35",
                "lon = -180.5",
                "leo.toml: ground_stations.paris.lon: -180.5 is outside [-180, 180] degrees",
            ),
            (
                "kind = \"walker_delta\"",
                "kind = \"rosette\"",
                "leo.toml: constellations.shell.kind: unknown kind \"rosette\" (expected walker_delta, walker_star, tle, explicit)",
            ),
            (
                "phasing = 1",
                "phasing = 4",
                "leo.toml: constellations.shell.phasing: expected 0..3",
            ),
            (
                "planes = 4\n",
                "",
                "leo.toml: constellations.shell.planes: is required for walker_delta",
            ),
            (
                "handover = \"slotted\"",
                "handover = \"nearest\"",
                "leo.toml: ground_stations.paris.handover: unknown policy \"nearest\"",
            ),
            (
                "constellation = \"shell\"\nmin",
                "constellation = \"other\"\nmin",
                "leo.toml: ground_stations.paris.constellation: \"other\" is not a [[constellations]] name",
            ),
            (
                "min_elevation = 25.0",
                "min_elevation = 90.0",
                "leo.toml: ground_stations.paris.min_elevation:",
            ),
            (
                "handover_interval = \"15s\"",
                "handover_interval = \"0s\"",
                "leo.toml: ground_stations.paris.handover_interval: must be at least 100ms",
            ),
            (
                "phasing = 1",
                "phasing = 1\nisl = \"mesh\"",
                "leo.toml: constellations.shell.isl: unknown value \"mesh\"",
            ),
            (
                "phasing = 1",
                "phasing = 1\nisl_max_latitude = 95.0",
                "leo.toml: constellations.shell.isl_max_latitude:",
            ),
            (
                "phasing = 1",
                "phasing = 1\ncolour = 3",
                "leo.toml: constellations.shell.colour: unknown field `colour`",
            ),
            (
                "name = \"nyc\"",
                "name = \"paris\"",
                "leo.toml: ground_stations.paris.name:",
            ),
            (
                "name = \"nyc\"",
                "name = \"shell-0-1\"",
                "leo.toml: constellations.shell.name: its satellite node \"shell-0-1\"",
            ),
            (
                "lat = 48.85",
                "lat = nan",
                "leo.toml: ground_stations.paris.lat: NaN is outside",
            ),
        ];
        for (from, to, want) in cases {
            let e = with(from, to);
            assert!(e.starts_with(want), "{to:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn explicit_entries_are_checked_as_ns2_set_position() {
        let text = r#"
[[constellations]]
name = "iri"
kind = "explicit"
satellites = [
  { altitude = "780km", inclination = 86.4, longitude = 0.0, alpha = 0.0, plane = 1 },
  { altitude = "780km", inclination = 86.4, longitude = 0.0, alpha = 360.0, plane = 1 },
]
"#;
        let e = err(text);
        assert!(
            e.starts_with(
                "leo.toml: constellations.iri.satellites.1.alpha: alpha 360 deg is out of range"
            ),
            "{e}"
        );
        ok(&format!(
            "duration = \"1s\"\n{}\n[[nodes]]\nname = \"h\"\n",
            text.replace("alpha = 360.0", "alpha = 32.7")
        ));
        let e = err(&text.replace("kind = \"explicit\"", "kind = \"explicit\"\nplanes = 2"));
        assert!(e.starts_with("leo.toml: constellations.iri.planes: applies to walker_delta and walker_star, not explicit"), "{e}");
    }

    #[test]
    fn tle_files_are_read_and_bad_lines_named() {
        let dir = std::env::temp_dir().join(format!("sctplab-sat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.tle");
        std::fs::write(
            &good,
            "ISS (ZARYA)\n1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927\n\
             2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537\n",
        )
        .unwrap();
        let bad = dir.join("bad.tle");
        std::fs::write(
            &bad,
            "ISS\n1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927\nX junk\n",
        )
        .unwrap();
        let scen = |f: &std::path::Path, isl: &str| {
            format!(
                "duration = \"1s\"\n[[constellations]]\nname = \"t\"\nkind = \"tle\"\ntle_file = {:?}\n{isl}\n",
                f.display().to_string()
            )
        };
        ok(&scen(&good, "[[nodes]]\nname = \"h\""));
        let e = err(&scen(&bad, ""));
        assert!(
            e.starts_with("leo.toml: constellations.t.tle_file: "),
            "{e}"
        );
        assert!(
            e.ends_with("bad.tle: line 3: expected TLE line 2, found \"X junk\""),
            "{e}"
        );
        let e = err(&scen(&good, "isl = \"grid\""));
        assert!(
            e.starts_with("leo.toml: constellations.t.isl: a tle constellation has no planes"),
            "{e}"
        );
        let e = err(&scen(&dir.join("missing.tle"), ""));
        assert!(
            e.starts_with("leo.toml: constellations.t.tle_file: cannot read"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
