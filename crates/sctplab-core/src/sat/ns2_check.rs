//! The model against ns-2.35 itself: testdata/ns2_polar.tcl builds a small polar
//! constellation and two terminals in ns-2.35's satellite module and dumps (`dump_sats`)
//! every node's latitude and longitude (to 0.01 deg) and every link that is up, at five
//! instants; testdata/ns2_polar.out is what `ns` printed. Here the same constellation is
//! built with `sat::` and compared: positions, the inter-satellite links up (latitude
//! threshold 60 deg), and which satellite each terminal is attached to (the `ns2`
//! handover policy, 8.2-deg mask, checks every 10 s, no randomisation). And
//! testdata/ns2_delay.tcl sends a packet every 7.3 s between two terminals over an
//! Iridium-like constellation for 6100 s: each packet's path and one-way delay are
//! compared with the route `sat::network` computes (shortest delay, recomputed when a
//! link changes) and the hop-by-hop delay over it.

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

/// testdata/ns2_delay.txt: per packet delivered in ns2_delay.tcl, its uid, the times it
/// entered the first link and reached the far terminal, and its path.
const DELAY: &str = include_str!("testdata/ns2_delay.txt");

/// ns2_delay.tcl's constellation: 6 planes of 11, plane p's node at 30 p deg E,
/// satellite i at alpha 360 i / 11 + 360 p / 22 (mod 360); Berkeley and Boston.
fn iridium_like() -> Network {
    let mut sats = Vec::new();
    for p in 0..6u32 {
        for i in 0..11u32 {
            let alpha = (360.0 * f64::from(i) / 11.0 + 360.0 * f64::from(p) / 22.0) % 360.0;
            let o = CircularOrbit::from_ns2(780.0, 86.4, 30.0 * f64::from(p), alpha).unwrap();
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
    Network::new(c, 60.0, 10.0, vec![st(37.9, -122.3), st(42.3, -71.1)])
}

#[test]
fn routes_and_one_way_delays_over_time_match_ns2() {
    use super::LIGHT_KM_S;
    use super::network::Vertex;
    let mut net = iridium_like();
    let n = net.constellation.sats.len();
    let number = |v: &Vertex| match *v {
        Vertex::Sat(k) => k,
        Vertex::Station(s) => n + s,
    };
    // ns-2.35's CBR sends at 1.0 s and then every 7.3 s, the time summed in doubles.
    let mut t = 1.0f64;
    let mut route_time = 0.0;
    let mut paths_seen = BTreeSet::new();
    let mut rows = 0;
    for (k, line) in DELAY.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            f[0].parse::<usize>().unwrap(),
            k,
            "every packet was delivered"
        );
        let sent: f64 = f[1].parse().unwrap();
        let received: f64 = f[2].parse().unwrap();
        let theirs: Vec<usize> = f[3..].iter().map(|x| x.parse().unwrap()).collect();
        assert!(
            (t - sent).abs() < 5.1e-5,
            "packet {k} sent at {t} vs {sent}"
        );
        // Routes are recomputed when a link appears or disappears, with the delays of
        // that instant; a check due at the packet's instant runs first (ns-2.35 scheduled
        // it earlier).
        while let Some(at) = net.next_check(t) {
            if net.advance_to(at) {
                route_time = at;
            }
        }
        let route = net.route(0, 1, route_time).expect("a route");
        let ours: Vec<usize> = route.iter().map(number).collect();
        assert_eq!(ours, theirs, "packet {k} at {t}");
        // Each hop: the packet at 1.5 Mb/s up and down, 25 Mb/s between satellites, and
        // the distance when the hop's transmission starts over the speed of light.
        let mut now = t;
        for w in ours.windows(2) {
            let bw = if w[0] >= n || w[1] >= n { 1.5e6 } else { 25e6 };
            let pos = |v: usize| match v < n {
                true => net.constellation.position(v, now),
                false => net.stations[v - n].station.point.position(now),
            };
            // ns-2.35's SatMac::sendDown charges LINK_HDRSIZE (16) bytes of link
            // header: 116 bytes.
            now += 928.0 / bw + pos(w[0]).distance(pos(w[1])) / LIGHT_KM_S;
        }
        assert!(
            // ns-2.35 prints times to 0.1 ms: within half of that (the largest
            // difference is 50.5 us).
            (now - received).abs() < 5.2e-5,
            "packet {k}: {now} vs {received}"
        );
        paths_seen.insert(ours);
        rows += 1;
        t += 7.3;
    }
    assert_eq!(rows, 836);
    // The route changed many times over the run (41 different paths).
    assert!(paths_seen.len() > 30, "{}", paths_seen.len());
}
