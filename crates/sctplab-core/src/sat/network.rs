//! A constellation and its ground stations over time: which ISLs are up, which
//! satellite each station is attached to, and the shortest-delay route between two
//! stations, recomputed whenever a link appears or disappears (ns-2.35's centralised
//! `SatRouteObject::recompute`, with `metric_delay_` on: Dijkstra over the links' current
//! propagation delays, ties to the lower node number).
//!
//! Link state changes only at check instants: the ISLs at multiples of
//! `isl_check_interval`, each station's attachment at multiples of its
//! `handover_interval`. Between changes a route stays as computed, while its delay follows
//! the positions (`route_delay`), as a packet's per-hop delay does.

use super::LIGHT_KM_S;
use super::constellation::{Constellation, Isl, isl_state, isl_up_from};
use super::handover::{self, Policy, Station};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One ground station of the network and its handover rule.
#[derive(Clone, Debug)]
pub struct StationCfg {
    pub station: Station,
    pub policy: Policy,
    pub interval_s: f64,
}

/// Node numbering of the routing graph: satellites first, then stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vertex {
    Sat(usize),
    Station(usize),
}

#[derive(Clone, Debug)]
pub struct Network {
    pub constellation: Constellation,
    pub grid: Vec<Isl>,
    pub isl_max_latitude_deg: f64,
    pub isl_check_interval_s: f64,
    pub stations: Vec<StationCfg>,
    // State as of `now`.
    now: f64,
    isl_up: Vec<bool>,
    attached: Vec<Option<usize>>,
    last_attached: Vec<Option<usize>>,
    handovers: Vec<u64>,
    next_isl_check: u64,
    next_station_check: Vec<u64>,
}

impl Network {
    /// The network at time 0: ISLs evaluated, stations attached (not handovers).
    pub fn new(
        constellation: Constellation,
        isl_max_latitude_deg: f64,
        isl_check_interval_s: f64,
        stations: Vec<StationCfg>,
    ) -> Self {
        let grid = constellation.grid();
        let isl_up = isl_state(&constellation, &grid, 0.0, isl_max_latitude_deg);
        let sky = handover::Sky::at(&constellation, 0.0);
        let attached: Vec<Option<usize>> = stations
            .iter()
            .map(|s| handover::initial(s.policy, &sky, &s.station))
            .collect();
        let n = stations.len();
        Network {
            constellation,
            grid,
            isl_max_latitude_deg,
            isl_check_interval_s,
            now: 0.0,
            isl_up,
            last_attached: attached.clone(),
            attached,
            handovers: vec![0; n],
            next_isl_check: 1,
            next_station_check: vec![1; n],
            stations,
        }
    }

    /// No ISLs (a constellation with `isl = "none"`).
    pub fn clear_grid(&mut self) {
        self.grid.clear();
        self.isl_up.clear();
    }

    pub fn now(&self) -> f64 {
        self.now
    }

    pub fn isl_up(&self) -> &[bool] {
        &self.isl_up
    }

    pub fn attached(&self, station: usize) -> Option<usize> {
        self.attached[station]
    }

    pub fn handovers(&self, station: usize) -> u64 {
        self.handovers[station]
    }

    /// The next check instant after `now`, if any is at or before `end`.
    pub fn next_check(&self, end: f64) -> Option<f64> {
        let mut t = self.next_isl_check as f64 * self.isl_check_interval_s;
        for (k, s) in self.stations.iter().enumerate() {
            t = t.min(self.next_station_check[k] as f64 * s.interval_s);
        }
        (t <= end).then_some(t)
    }

    /// Runs every check instant up to and including `t`; true if any link appeared or
    /// disappeared (the moment ns-2.35 recomputes routes).
    pub fn advance_to(&mut self, t: f64) -> bool {
        let mut changed = false;
        while let Some(at) = self.next_check(t) {
            changed |= self.check_at(at);
        }
        self.now = self.now.max(t);
        changed
    }

    fn check_at(&mut self, at: f64) -> bool {
        let mut changed = false;
        let isl_due = self.next_isl_check as f64 * self.isl_check_interval_s == at;
        let due: Vec<usize> = (0..self.stations.len())
            .filter(|&k| self.next_station_check[k] as f64 * self.stations[k].interval_s == at)
            .collect();
        // One computation of the positions for every check due at this instant.
        let sky = handover::Sky::at(&self.constellation, at);
        if isl_due {
            let up = isl_up_from(&self.grid, &sky.positions, self.isl_max_latitude_deg);
            changed |= up != self.isl_up;
            self.isl_up = up;
            self.next_isl_check += 1;
        }
        for k in due {
            let s = &self.stations[k];
            let next = handover::check(s.policy, &sky, &s.station, self.attached[k]);
            if next != self.attached[k] {
                changed = true;
                if let Some(n) = next {
                    if self.last_attached[k].is_some_and(|l| l != n) {
                        self.handovers[k] += 1;
                    }
                    self.last_attached[k] = Some(n);
                }
                self.attached[k] = next;
            }
            self.next_station_check[k] += 1;
        }
        self.now = at;
        changed
    }

    fn n_vertices(&self) -> usize {
        self.constellation.sats.len() + self.stations.len()
    }

    fn vertex(&self, v: usize) -> Vertex {
        let n = self.constellation.sats.len();
        if v < n {
            Vertex::Sat(v)
        } else {
            Vertex::Station(v - n)
        }
    }

    fn position(&self, v: usize, t: f64) -> super::Vec3 {
        match self.vertex(v) {
            Vertex::Sat(k) => self.constellation.position(k, t),
            Vertex::Station(k) => self.stations[k].station.point.position(t),
        }
    }

    /// The links that are up now, as (vertex, vertex) pairs.
    fn adjacency(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.n_vertices()];
        for (l, &up) in self.grid.iter().zip(&self.isl_up) {
            if up {
                adj[l.a].push(l.b);
                adj[l.b].push(l.a);
            }
        }
        let n = self.constellation.sats.len();
        for (k, a) in self.attached.iter().enumerate() {
            if let Some(s) = *a {
                adj[n + k].push(s);
                adj[s].push(n + k);
            }
        }
        adj
    }

    /// Shortest-delay route from station `from` to station `to` over the links up now,
    /// with the delays at time `t`; stations do not relay (a route enters a station only
    /// at its end). None if no route.
    pub fn route(&self, from: usize, to: usize, t: f64) -> Option<Vec<Vertex>> {
        let n = self.constellation.sats.len();
        let (src, dst) = (n + from, n + to);
        let adj = self.adjacency();
        let pos: Vec<super::Vec3> = (0..self.n_vertices())
            .map(|v| self.position(v, t))
            .collect();
        let mut dist = vec![f64::INFINITY; adj.len()];
        let mut prev = vec![usize::MAX; adj.len()];
        let mut heap = BinaryHeap::new();
        dist[src] = 0.0;
        heap.push(Item(0.0, src));
        while let Some(Item(d, v)) = heap.pop() {
            if d > dist[v] {
                continue;
            }
            if v == dst {
                break;
            }
            if v != src && v >= n {
                continue;
            }
            for &w in &adj[v] {
                let nd = d + pos[v].distance(pos[w]) / LIGHT_KM_S;
                if nd < dist[w] {
                    dist[w] = nd;
                    prev[w] = v;
                    heap.push(Item(nd, w));
                }
            }
        }
        if !dist[dst].is_finite() || src == dst {
            return None;
        }
        let mut path = vec![dst];
        while let Some(&v) = path.last() {
            if v == src {
                break;
            }
            path.push(prev[v]);
        }
        path.reverse();
        Some(path.into_iter().map(|v| self.vertex(v)).collect())
    }

    /// Every satellite's next hop toward station `to` over the links up now, with the
    /// delays at time `t` (Dijkstra from the station outwards: the links are symmetric),
    /// as a vertex number (satellites `0..n`, the station `n + to`), or `usize::MAX`
    /// where none leads there. Stations do not relay. What the run loop forwards by:
    /// one table per destination station, until the next link change.
    pub fn toward(&self, to: usize, t: f64) -> Vec<usize> {
        let n = self.constellation.sats.len();
        let dst = n + to;
        let adj = self.adjacency();
        let mut dist = vec![f64::INFINITY; adj.len()];
        let mut next = vec![usize::MAX; adj.len()];
        let mut pos: Vec<Option<super::Vec3>> = vec![None; adj.len()];
        let at = |v: usize, pos: &mut Vec<Option<super::Vec3>>| -> super::Vec3 {
            *pos[v].get_or_insert_with(|| self.position(v, t))
        };
        let mut heap = BinaryHeap::new();
        dist[dst] = 0.0;
        heap.push(Item(0.0, dst));
        while let Some(Item(d, v)) = heap.pop() {
            if d > dist[v] || (v >= n && v != dst) {
                continue;
            }
            let pv = at(v, &mut pos);
            for &w in &adj[v] {
                if w >= n {
                    continue;
                }
                let nd = d + pv.distance(at(w, &mut pos)) / LIGHT_KM_S;
                if nd < dist[w] {
                    dist[w] = nd;
                    next[w] = v;
                    heap.push(Item(nd, w));
                }
            }
        }
        next.truncate(n);
        next
    }

    /// Position of vertex `v` (satellites first, then stations) at `t`.
    pub fn vertex_position(&self, v: usize, t: f64) -> super::Vec3 {
        self.position(v, t)
    }

    /// One-way propagation delay (s) of `route` at time `t`.
    pub fn route_delay(&self, route: &[Vertex], t: f64) -> f64 {
        let n = self.constellation.sats.len();
        let idx = |v: Vertex| match v {
            Vertex::Sat(k) => k,
            Vertex::Station(k) => n + k,
        };
        route
            .windows(2)
            .map(|w| {
                self.position(idx(w[0]), t)
                    .distance(self.position(idx(w[1]), t))
                    / LIGHT_KM_S
            })
            .sum()
    }
}

/// Min-heap entry: smaller delay first, then the lower vertex number (ns-2.35's
/// Dijkstra scans nodes in number order and keeps the first of equal distances).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Item(f64, usize);

impl Eq for Item {}

impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then_with(|| o.1.cmp(&self.1))
    }
}

impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

#[cfg(test)]
mod tests {
    use super::super::constellation::{PlaneTopology, Satellite};
    use super::super::orbit::{CircularOrbit, GroundPoint, Orbit};
    use super::*;

    fn plane(n: u32, node_deg: f64, p: u32) -> Vec<Satellite> {
        (0..n)
            .map(|i| Satellite {
                plane: p,
                index: i,
                orbit: Orbit::Circular(
                    CircularOrbit::from_ns2(
                        780.0,
                        90.0,
                        node_deg,
                        360.0 * f64::from(i) / f64::from(n),
                    )
                    .unwrap(),
                ),
            })
            .collect()
    }

    fn station(lat: f64, lon: f64) -> StationCfg {
        StationCfg {
            station: Station {
                point: GroundPoint::from_lat_lon(lat, lon).unwrap(),
                mask: 10f64.to_radians(),
            },
            policy: Policy::Ns2,
            interval_s: 10.0,
        }
    }

    #[test]
    fn pole_to_pole_delay_by_hand() {
        // One polar plane of 24 (15 deg apart), stations at both poles. At time 0
        // satellite 6 (alpha 90) is over the north pole and 18 (alpha 270) over the
        // south pole, each attached to its station straight up (780 km). The two ways
        // round the ring are 12 hops each of chord 2 x 7158 sin 7.5 deg: a tie up to
        // the last bits of the positions, so either way round (6 -> 5 -> ... -> 18 or
        // 6 -> 7 -> ... -> 18) is a shortest route.
        let c = Constellation::new("p", plane(24, 0.0, 0), PlaneTopology::Seam);
        let net = Network::new(c, 70.0, 10.0, vec![station(90.0, 0.0), station(-90.0, 0.0)]);
        assert_eq!(net.attached(0), Some(6));
        assert_eq!(net.attached(1), Some(18));
        let r = net.route(0, 1, 0.0).unwrap();
        assert_eq!(r.len(), 2 + 13);
        assert_eq!(r[1], Vertex::Sat(6));
        assert!(r[2] == Vertex::Sat(5) || r[2] == Vertex::Sat(7), "{r:?}");
        assert_eq!(r[13], Vertex::Sat(18));
        let chord = 2.0 * 7158.0 * 7.5f64.to_radians().sin();
        let by_hand = (2.0 * 780.0 + 12.0 * chord) / 299_793.0;
        assert!(
            (net.route_delay(&r, 0.0) - by_hand).abs() < 1e-9,
            "{}",
            net.route_delay(&r, 0.0)
        );
        // The same route a second later is longer up and down, the ring the same.
        assert!(net.route_delay(&r, 1.0) > by_hand);
    }

    #[test]
    fn route_changes_when_a_cross_plane_link_goes_down() {
        // Two polar planes of 24 (alpha 65 + 15 i deg), nodes at 0 and 15 E, and stations
        // at 65 N on those meridians. At time 0 satellite 0 of each plane is over its
        // station at latitude 65 (<= 70): the route is one cross-plane ISL. The
        // satellites climb 360 / 6027 deg/s: at the ISL check of 80 s they are at
        // 69.78 deg, at 90 s at 70.38 deg, above 70: that link goes down, the stations
        // keep their satellites (5.4 deg of arc away, high in the sky), and the route
        // goes down a plane to satellites 23 (55.4 deg), across and back up.
        let mk = |node: f64, p: u32| -> Vec<Satellite> {
            (0..24)
                .map(|i| Satellite {
                    plane: p,
                    index: i,
                    orbit: Orbit::Circular(
                        CircularOrbit::from_ns2(
                            780.0,
                            90.0,
                            node,
                            (65.0 + 15.0 * f64::from(i)) % 360.0,
                        )
                        .unwrap(),
                    ),
                })
                .collect()
        };
        let mut sats = mk(0.0, 0);
        sats.extend(mk(15.0, 1));
        let c = Constellation::new("p", sats, PlaneTopology::Seam);
        let mut net = Network::new(c, 70.0, 10.0, vec![station(65.0, 0.0), station(65.0, 15.0)]);
        assert_eq!((net.attached(0), net.attached(1)), (Some(0), Some(24)));
        let direct = vec![
            Vertex::Station(0),
            Vertex::Sat(0),
            Vertex::Sat(24),
            Vertex::Station(1),
        ];
        assert_eq!(net.route(0, 1, 0.0).unwrap(), direct);
        let link = net.grid.iter().position(|l| (l.a, l.b) == (0, 24)).unwrap();
        net.advance_to(85.0);
        assert!(net.isl_up()[link], "up at the check of 80 s");
        assert_eq!(net.route(0, 1, 85.0).unwrap(), direct);
        assert!(net.advance_to(90.0));
        assert!(!net.isl_up()[link], "down at the check of 90 s");
        assert_eq!((net.attached(0), net.attached(1)), (Some(0), Some(24)));
        let around = net.route(0, 1, 90.0).unwrap();
        assert_eq!(
            around,
            vec![
                Vertex::Station(0),
                Vertex::Sat(0),
                Vertex::Sat(23),
                Vertex::Sat(47),
                Vertex::Sat(24),
                Vertex::Station(1),
            ]
        );
        assert!(net.route_delay(&around, 90.0) > net.route_delay(&direct, 90.0));
        assert_eq!(net.handovers(0), 0);
        // The tables the run loop forwards by follow the same route hop by hop: toward
        // station 1 (vertex 48 + 1), satellite 0 goes to 23, 23 to 47, 47 to 24, 24 down.
        let next = net.toward(1, 90.0);
        assert_eq!((next[0], next[23], next[47], next[24]), (23, 47, 24, 49));
    }
}
