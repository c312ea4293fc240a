//! Satellites and ground stations as parts of the world (issue 39; CONTRACTS.md,
//! "Satellite constellations"): every satellite a node, every grid ISL two link
//! directions, every ground station one satellite interface (`sat<k>`) with an uplink
//! and a downlink whose satellite end follows its handovers. All of them come after the
//! wired and wireless parts, so those keep their numbers.

use super::sat::{SatWorld, Segment, VertexOf};
use super::{Iface, Node, iface_addr};
use crate::net::link::LinkDir;
use crate::net::loss::LossModel;
use crate::net::queue::DropTail;
use crate::net::{IfaceId, LinkDirId, NodeId};
use crate::sat::handover::{Policy, Station};
use crate::sat::network::{Network, StationCfg};
use crate::sat::orbit::GroundPoint;
use crate::sat::{deg_to_rad, propagation_delay_s};
use crate::scenario::Scenario;
use crate::scenario::schema::ScenarioFile;
use crate::sim::SimDuration;

/// The end of a satellite link that has no interface (pcap captures at ground stations
/// only; the ns-2 trace names satellites by node number).
pub(super) const NO_IFACE: IfaceId = IfaceId(u32::MAX);

/// ns-2.35's `sat-iridium.tcl` (the Iridium example): ISLs of 25 Mb/s, ground links of
/// 1.5 Mb/s, and ns-2's default queue of 50 packets (ns-default.tcl).
const DEFAULT_ISL_BPS: u64 = 25_000_000;
const DEFAULT_GSL_BPS: u64 = 1_500_000;
const DEFAULT_QUEUE: u32 = 50;
/// ns-2.35's `sat_handoff_int_` and `term_handoff_int_` (ns-default.tcl).
const DEFAULT_CHECK_S: f64 = 10.0;
const DEFAULT_ISL_MAX_LATITUDE: f64 = 70.0;

/// The satellite part of the world, if the scenario has one. Adds the satellite nodes
/// (with empty adjacency, so the static routes know them and route nothing to them),
/// the stations' satellite interfaces and every satellite link direction.
pub(super) fn build_sat(
    s: &Scenario,
    nodes: &mut Vec<Node>,
    ifaces: &mut Vec<Iface>,
    links: &mut Vec<LinkDir>,
    adjacency: &mut Vec<Vec<(IfaceId, NodeId)>>,
) -> Result<Option<Box<SatWorld>>, String> {
    let f = &s.file;
    if f.constellations.is_empty() {
        return Ok(None);
    }
    let links_from = links.len() as u32;
    let mut segs = Vec::new();
    for c in &f.constellations {
        let built = c
            .built
            .as_deref()
            .ok_or_else(|| format!("constellation {:?} was not built", c.name))?;
        let constellation = built.clone();
        let sat_node0 = nodes.len() as u32;
        for k in 0..constellation.sats.len() {
            let i = nodes.len();
            nodes.push(Node {
                name: constellation.node_name(k),
                snoop: None,
                addr: iface_addr(i, 0),
                ifaces: Vec::new(),
                ports: Vec::new(),
            });
            adjacency.push(Vec::new());
        }
        let grid = if c.isl.as_deref().unwrap_or("grid") == "grid" {
            constellation.grid()
        } else {
            Vec::new()
        };
        let isl_bps = c.isl_bandwidth.map_or(DEFAULT_ISL_BPS, |r| r.0);
        let gsl_bps = c.gsl_bandwidth.map_or(DEFAULT_GSL_BPS, |r| r.0);
        let isl_queue = c.isl_queue.unwrap_or(DEFAULT_QUEUE);
        let gsl_queue = c.gsl_queue.unwrap_or(DEFAULT_QUEUE);
        let (stations, station_nodes) = station_cfgs(f, &c.name, nodes)?;
        let net = Network::new(
            constellation,
            c.isl_max_latitude.unwrap_or(DEFAULT_ISL_MAX_LATITUDE),
            c.isl_check_interval
                .map_or(DEFAULT_CHECK_S, |d| d.0.as_secs_f64()),
            stations,
        );
        // A `"none"` ISL layout has no grid: the network's grid is emptied to match.
        let mut net = net;
        if grid.is_empty() {
            net.clear_grid();
        }
        let isl_dir0 = links.len() as u32;
        let sat_adj = push_isl_links(&net, nodes, links, sat_node0, (isl_bps, isl_queue));
        let gsl_dir0 = links.len() as u32;
        push_gsl_links(
            &net,
            &station_nodes,
            (nodes, ifaces, links),
            sat_node0,
            (gsl_bps, gsl_queue),
        );
        let n_stations = station_nodes.len();
        segs.push(Segment {
            net,
            sat_node0,
            station_nodes,
            isl_dir0,
            gsl_dir0,
            sat_adj,
            tables: vec![None; n_stations],
            handovers_in_window: vec![0; n_stations],
        });
    }
    let mut vertex_of = vec![None; nodes.len()];
    for (si, seg) in segs.iter().enumerate() {
        for k in 0..seg.net.constellation.sats.len() {
            vertex_of[seg.sat_node0 as usize + k] = Some(VertexOf::Sat(si as u32, k as u32));
        }
        for (k, st) in seg.station_nodes.iter().enumerate() {
            vertex_of[st.idx()] = Some(VertexOf::Station(si as u32, k as u32));
        }
    }
    Ok(Some(Box::new(SatWorld::new(segs, vertex_of, links_from))))
}

fn sat_link(
    nodes: &[Node],
    (from, to): (NodeId, NodeId),
    ends: (IfaceId, IfaceId),
    bps: u64,
    queue: u32,
) -> LinkDir {
    LinkDir::new(
        format!("{}->{}", nodes[from.idx()].name, nodes[to.idx()].name),
        (from, to),
        ends,
        bps,
        SimDuration::ZERO,
        DropTail::new(queue, None),
        LossModel::default(),
    )
}

/// Propagation delay between two vertices of `net` at time 0.
fn hop_delay(net: &Network, a: usize, b: usize) -> SimDuration {
    let d = net
        .vertex_position(a, 0.0)
        .distance(net.vertex_position(b, 0.0));
    SimDuration::from_secs_f64(propagation_delay_s(d))
}

/// The ground stations of one constellation: their handover settings and node ids, in
/// scenario order.
fn station_cfgs(
    f: &ScenarioFile,
    constellation: &str,
    nodes: &[Node],
) -> Result<(Vec<StationCfg>, Vec<NodeId>), String> {
    let mut stations = Vec::new();
    let mut station_nodes = Vec::new();
    for g in f
        .ground_stations
        .iter()
        .filter(|g| g.constellation == *constellation)
    {
        let node = nodes
            .iter()
            .position(|n| n.name == g.name)
            .ok_or_else(|| format!("ground station {:?} is no node", g.name))?;
        let point = GroundPoint::from_lat_lon(g.lat, g.lon).map_err(|e| e.to_string())?;
        stations.push(StationCfg {
            station: Station {
                point,
                mask: deg_to_rad(g.min_elevation),
            },
            policy: g
                .handover
                .as_deref()
                .and_then(Policy::parse)
                .unwrap_or(Policy::Ns2),
            interval_s: g
                .handover_interval
                .map_or(DEFAULT_CHECK_S, |d| d.0.as_secs_f64()),
        });
        station_nodes.push(NodeId::from_idx(node));
    }
    Ok((stations, station_nodes))
}

/// Both directions of every ISL of the grid, in grid order, up or down as at time 0;
/// returns each satellite's (neighbour, direction) list.
fn push_isl_links(
    net: &Network,
    nodes: &[Node],
    links: &mut Vec<LinkDir>,
    sat_node0: u32,
    (isl_bps, isl_queue): (u64, u32),
) -> Vec<Vec<(u32, LinkDirId)>> {
    let sat_node = |k: usize| NodeId(sat_node0 + k as u32);
    let mut sat_adj: Vec<Vec<(u32, LinkDirId)>> = vec![Vec::new(); net.constellation.sats.len()];
    let up = net.isl_up().to_vec();
    for (l, isl) in net.grid.iter().enumerate() {
        for (a, b) in [(isl.a, isl.b), (isl.b, isl.a)] {
            let dir = LinkDirId::from_idx(links.len());
            sat_adj[a].push((b as u32, dir));
            let mut link = sat_link(
                nodes,
                (sat_node(a), sat_node(b)),
                (NO_IFACE, NO_IFACE),
                isl_bps,
                isl_queue,
            );
            link.up = up[l];
            link.delay = hop_delay(net, a, b);
            links.push(link);
        }
    }
    sat_adj
}

/// Each station's satellite interface `sat<k>` and both directions of its ground link,
/// to the satellite it is attached to at time 0 (down, and to itself, when none is in view).
fn push_gsl_links(
    net: &Network,
    station_nodes: &[NodeId],
    (nodes, ifaces, links): (&mut [Node], &mut Vec<Iface>, &mut Vec<LinkDir>),
    sat_node0: u32,
    (gsl_bps, gsl_queue): (u64, u32),
) {
    let sat_node = |k: usize| NodeId(sat_node0 + k as u32);
    let n_sats = net.constellation.sats.len();
    for (k, &st) in station_nodes.iter().enumerate() {
        let kk = nodes[st.idx()].ifaces.len();
        let iface = IfaceId::from_idx(ifaces.len());
        let up_dir = LinkDirId::from_idx(links.len());
        ifaces.push(Iface {
            node: st,
            out: up_dir,
            nic: None,
            name: format!("sat{kk}"),
            addr: iface_addr(st.idx(), kk),
        });
        nodes[st.idx()].ifaces.push(iface);
        let attached = net.attached(k);
        // With no satellite in view the link's far end is the station itself, and
        // the link is down.
        let far = attached.map_or(st, sat_node);
        for (from, to, ends) in [(st, far, (iface, NO_IFACE)), (far, st, (NO_IFACE, iface))] {
            let mut link = sat_link(nodes, (from, to), ends, gsl_bps, gsl_queue);
            link.up = attached.is_some();
            if let Some(a) = attached {
                link.delay = hop_delay(net, n_sats + k, a);
            }
            links.push(link);
        }
    }
}
