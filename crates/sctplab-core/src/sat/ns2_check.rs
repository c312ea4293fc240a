//! The model against ns-2.35 itself: testdata/ns2_polar.tcl builds a small polar
//! constellation and two terminals in ns-2.35's satellite module and dumps (`dump_sats`)
//! every node's latitude and longitude (to 0.01 deg) and every link that is up, at five
//! instants; testdata/ns2_polar.out is what `ns` printed. Here the same constellation is
//! built with `sat::` and compared: positions, the inter-satellite links up (latitude
//! threshold 60 deg), and which satellite each terminal is attached to (the `ns2`
//! handover policy, 8.2-deg mask, checks every 10 s, no randomisation).

use super::constellation::{Constellation, IslKind, PlaneTopology, Satellite};
use super::handover::{Policy, Station};
use super::network::{Network, StationCfg};
use super::orbit::{CircularOrbit, GroundPoint, Orbit, earth_rotation};
use super::{NS2_PI, Vec3, rad_to_deg};
use std::collections::{BTreeSet, HashMap};

const OUT: &str = include_str!("testdata/ns2_polar.out");

/// One `dump_sats`: time, node positions (lat, lon in deg) by node number, links as
/// (from node, to node, ns-2.35 link type).
struct Dump {
    t: f64,
    nodes: HashMap<usize, (f64, f64)>,
    links: Vec<(usize, usize, u32)>,
}

fn parse(out: &str) -> Vec<Dump> {
    let mut dumps = Vec::new();
    let mut cur: Option<Dump> = None;
    let mut by_text: HashMap<String, usize> = HashMap::new();
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("Dumping satellites at time ") {
            cur = Some(Dump {
                t: rest.trim().parse().unwrap(),
                nodes: HashMap::new(),
                links: Vec::new(),
            });
            by_text.clear();
            continue;
        }
        if line.starts_with("Dumped satellites") {
            dumps.push(cur.take().unwrap());
            continue;
        }
        let Some(d) = cur.as_mut() else { continue };
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() == 4 {
            let n: usize = f[0].parse().unwrap();
            d.nodes
                .insert(n, (f[1].parse().unwrap(), f[2].parse().unwrap()));
            by_text.insert(format!("{}\t{}", f[1], f[2]), n);
        } else if f.len() == 5 {
            let a = by_text[&format!("{}\t{}", f[0], f[1])];
            let b = by_text[&format!("{}\t{}", f[2], f[3])];
            d.links.push((a, b, f[4].parse().unwrap()));
        }
    }
    dumps
}

/// The Tcl's constellation: plane p (1..3) has its node at 60 (p - 1) deg E and
/// satellite i at alpha 60 i + 20 (p - 1) deg; terminals at 45 N 10 E and 30 S 100 E.
fn network() -> Network {
    let mut sats = Vec::new();
    for p in 0..3u32 {
        for i in 0..6u32 {
            let o = CircularOrbit::from_ns2(
                780.0,
                86.4,
                60.0 * f64::from(p),
                60.0 * f64::from(i) + 20.0 * f64::from(p),
            )
            .unwrap();
            sats.push(Satellite {
                plane: p,
                index: i,
                orbit: Orbit::Circular(o),
            });
        }
    }
    let c = Constellation::new("iri", sats, PlaneTopology::Seam);
    let st = |lat, lon| StationCfg {
        station: Station {
            point: GroundPoint::from_lat_lon(lat, lon).unwrap(),
            mask: super::deg_to_rad(8.2),
        },
        policy: Policy::Ns2,
        interval_s: 10.0,
    };
    Network::new(c, 60.0, 10.0, vec![st(45.0, 10.0), st(-30.0, 100.0)])
}

/// Latitude and Earth-fixed longitude (deg) as ns-2.35's `get_latitude` and
/// `get_longitude` give them.
fn lat_lon(p: Vec3, t: f64) -> (f64, f64) {
    let mut lon = (p.y.atan2(p.x) - earth_rotation(t)) % (2.0 * NS2_PI);
    if lon < -NS2_PI {
        lon += 2.0 * NS2_PI;
    }
    if lon > NS2_PI {
        lon -= 2.0 * NS2_PI;
    }
    (rad_to_deg(p.latitude()), rad_to_deg(lon))
}

#[test]
fn positions_links_and_attachments_match_ns2() {
    let dumps = parse(OUT);
    assert_eq!(dumps.len(), 64);
    let mut net = network();
    let mut attachments_seen = 0;
    for d in &dumps {
        net.advance_to(d.t);
        // Positions: ns-2.35 prints two decimals.
        for k in 0..18 {
            let (lat, lon) = lat_lon(net.constellation.position(k, d.t), d.t);
            let (nlat, nlon) = d.nodes[&k];
            let dlon = (lon - nlon + 540.0).rem_euclid(360.0) - 180.0;
            assert!(
                (lat - nlat).abs() <= 0.0051,
                "t {} sat {k}: lat {lat} vs {nlat}",
                d.t
            );
            assert!(
                dlon.abs() <= 0.0051,
                "t {} sat {k}: lon {lon} vs {nlon}",
                d.t
            );
        }
        // ISLs up (types 6 intra-plane, 7 inter-plane), as unordered pairs.
        let theirs: BTreeSet<(usize, usize, u32)> = d
            .links
            .iter()
            .filter(|l| l.2 == 6 || l.2 == 7)
            .map(|&(a, b, ty)| (a.min(b), a.max(b), ty))
            .collect();
        let ours: BTreeSet<(usize, usize, u32)> = net
            .grid
            .iter()
            .zip(net.isl_up())
            .filter(|(_, up)| **up)
            .map(|(l, _)| {
                let ty = if l.kind == IslKind::IntraPlane { 6 } else { 7 };
                (l.a.min(l.b), l.a.max(l.b), ty)
            })
            .collect();
        assert_eq!(ours, theirs, "ISLs up at {}", d.t);
        // Terminal attachments: ns-2.35's GSL_POLAR links (type 3) from nodes 18, 19.
        for (s, term) in [(0usize, 18usize), (1, 19)] {
            let theirs = d
                .links
                .iter()
                .find(|l| l.0 == term && l.2 == 3)
                .map(|l| l.1);
            assert_eq!(net.attached(s), theirs, "terminal {term} at {}", d.t);
            attachments_seen += usize::from(theirs.is_some());
        }
    }
    // The dumps include attached and unattached terminals.
    assert!((20..128).contains(&attachments_seen), "{attachments_seen}");
}
