//! The satellite part of the world at run time (issue 39; docs/models/satellite.md):
//! per-packet propagation delays from the positions, links that appear and disappear
//! at the check instants (packets queued on one that goes away are lost and counted as
//! `handover_drops`), forwarding over the shortest-delay routes of `sat::network`
//! (recomputed after every link change, as ns-2.35's centralised satellite routing),
//! `--series path_delay`, and the summary's `satellite_links` and `ground_stations`.

use super::{Event, World};
use crate::net::{IfaceId, LinkDirId, NodeId, PacketId};
use crate::sat::network::Network;
use crate::sat::propagation_delay_s;
use crate::sim::{SimDuration, SimTime};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// The most hops `path_delay` follows before it gives up on a route (a loop).
const MAX_PATH_HOPS: usize = 4096;
const NONE: u32 = u32::MAX;

/// What a world node is in the satellite part: (segment, index) of a satellite or of a
/// ground station.
#[derive(Clone, Copy, Debug)]
pub(super) enum VertexOf {
    Sat(u32, u32),
    Station(u32, u32),
}

/// One constellation with its ground stations and their link directions.
pub(super) struct Segment {
    pub net: Network,
    /// Node number of satellite 0 (the others follow).
    pub sat_node0: u32,
    pub station_nodes: Vec<NodeId>,
    /// Grid ISL `l` is directions `isl_dir0 + 2 l` (a to b) and `+ 1` (b to a).
    pub isl_dir0: u32,
    /// Station `k`'s uplink is `gsl_dir0 + 2 k`, its downlink `+ 1`.
    pub gsl_dir0: u32,
    /// Each satellite's ISL neighbours and the direction toward each.
    pub sat_adj: Vec<Vec<(u32, LinkDirId)>>,
    /// Per destination station: each satellite's link direction toward it (NONE where
    /// no route), computed on first use after a link change.
    pub tables: Vec<Option<Vec<u32>>>,
    /// Handovers inside the measurement window, per station.
    pub handovers_in_window: Vec<u64>,
}

impl Segment {
    fn up_dir(&self, k: u32) -> LinkDirId {
        LinkDirId(self.gsl_dir0 + 2 * k)
    }

    /// Satellite `k`'s link direction toward station `to`, by the routes computed at
    /// the last link change (ns-2.35 recomputes them then, with that instant's delays).
    fn next_dir(&mut self, k: u32, to: u32, routes_at: f64) -> Option<LinkDirId> {
        if self.tables[to as usize].is_none() {
            let n = self.net.constellation.sats.len();
            let next = self.net.toward(to as usize, routes_at);
            let table = next
                .iter()
                .enumerate()
                .map(|(s, &v)| {
                    if v == usize::MAX {
                        NONE
                    } else if v >= n {
                        self.gsl_dir0 + 2 * (v - n) as u32 + 1
                    } else {
                        self.sat_adj[s]
                            .iter()
                            .find(|&&(w, _)| w as usize == v)
                            .map_or(NONE, |&(_, d)| d.0)
                    }
                })
                .collect();
            self.tables[to as usize] = Some(table);
        }
        let d = self.tables[to as usize].as_ref()?[k as usize];
        (d != NONE).then_some(LinkDirId(d))
    }
}

pub(crate) struct SatWorld {
    segs: Vec<Segment>,
    /// Per world node.
    vertex_of: Vec<Option<VertexOf>>,
    /// Every link direction from here on is a satellite link.
    pub links_from: u32,
    /// The check instant (s) the pending `SatCheck` event stands for.
    pending: f64,
    /// The instant of each segment's last link change, whose delays its routes use.
    routes_at: Vec<f64>,
    /// Per destination interface: the (segment, station) whose wired side reaches it.
    egress: HashMap<u32, Option<(u32, u32)>>,
}

impl SatWorld {
    pub(super) fn new(
        segs: Vec<Segment>,
        vertex_of: Vec<Option<VertexOf>>,
        links_from: u32,
    ) -> Self {
        let n = segs.len();
        SatWorld {
            segs,
            vertex_of,
            links_from,
            pending: 0.0,
            routes_at: vec![0.0; n],
            egress: HashMap::new(),
        }
    }

    /// The constellations, for the animation trace (world/anim_sat.rs).
    pub(super) fn segments(&self) -> &[Segment] {
        &self.segs
    }

    fn vertex(&self, node: NodeId) -> Option<VertexOf> {
        self.vertex_of.get(node.idx()).copied().flatten()
    }

    /// Where a satellite-part node is at `t` (km, ns-2.35's frame).
    fn position(&self, node: NodeId, t: f64) -> Option<crate::sat::Vec3> {
        Some(match self.vertex(node)? {
            VertexOf::Sat(s, k) => self.segs[s as usize].net.vertex_position(k as usize, t),
            VertexOf::Station(s, k) => {
                let seg = &self.segs[s as usize];
                seg.net
                    .vertex_position(seg.net.constellation.sats.len() + k as usize, t)
            }
        })
    }

    /// Propagation delay between two satellite-part nodes at `t`.
    fn delay(&self, a: NodeId, b: NodeId, t: f64) -> Option<f64> {
        Some(propagation_delay_s(
            self.position(a, t)?.distance(self.position(b, t)?),
        ))
    }
}

/// A change the check instant makes to a satellite link direction.
enum Change {
    Down(LinkDirId),
    Up(LinkDirId),
    /// A station's link directions now end at this node (itself when no satellite).
    Reattach(LinkDirId, NodeId, bool),
}

impl World {
    /// Satellite link `dir` is about to carry a packet: its propagation delay becomes the
    /// distance between its ends now over the speed of light (CONTRACTS.md: each hop's
    /// delay is the distance when its transmission starts).
    #[cold]
    pub(super) fn sat_set_delay(&mut self, dir: LinkDirId, now: SimTime) {
        let Some(sw) = self.sat.as_deref() else {
            return;
        };
        let link = &self.links[dir.idx()];
        if let Some(d) = sw.delay(link.from, link.to, now.as_secs_f64()) {
            self.links[dir.idx()].delay = SimDuration::from_secs_f64(d);
        }
    }

    /// Schedules the next check instant of any constellation (ISLs or a station).
    pub(super) fn sat_schedule_next(&mut self) {
        let Some(sw) = self.sat.as_deref_mut() else {
            return;
        };
        let end = self.stop_at.map_or(f64::INFINITY, SimTime::as_secs_f64);
        let next = sw
            .segs
            .iter()
            .filter_map(|s| s.net.next_check(end))
            .fold(f64::INFINITY, f64::min);
        if next.is_finite() {
            sw.pending = next;
            let at = SimTime::from_nanos((next * 1e9).round() as u64);
            if self.stop_at.is_none_or(|s| at < s) {
                self.queue.schedule(at, Event::SatCheck);
            }
        }
    }

    /// A check instant: ISLs re-evaluated, stations handed over; every link that went
    /// away loses its queued packets now and the one on the wire on arrival (as a
    /// `[[faults]]` link down), and routes are recomputed on next use.
    pub(super) fn sat_check(&mut self, now: SimTime) {
        let Some(sw) = self.sat.as_deref_mut() else {
            return;
        };
        let at = sw.pending;
        let in_window = self.window.contains(now);
        let mut changes = Vec::new();
        for (si, seg) in sw.segs.iter_mut().enumerate() {
            if seg.net.next_check(at).is_none() {
                continue;
            }
            let isl_before = seg.net.isl_up().to_vec();
            let n_st = seg.station_nodes.len();
            let before: Vec<(Option<usize>, u64)> = (0..n_st)
                .map(|k| (seg.net.attached(k), seg.net.handovers(k)))
                .collect();
            if !seg.net.advance_to(at) {
                continue;
            }
            sw.routes_at[si] = at;
            seg.tables.iter_mut().for_each(|t| *t = None);
            for (l, (&was, &is)) in isl_before.iter().zip(seg.net.isl_up()).enumerate() {
                if was != is {
                    for d in [seg.isl_dir0 + 2 * l as u32, seg.isl_dir0 + 2 * l as u32 + 1] {
                        changes.push(if is {
                            Change::Up(LinkDirId(d))
                        } else {
                            Change::Down(LinkDirId(d))
                        });
                    }
                }
            }
            for (k, &(was, handovers)) in before.iter().enumerate() {
                let is = seg.net.attached(k);
                if in_window {
                    seg.handovers_in_window[k] += seg.net.handovers(k) - handovers;
                }
                if was != is {
                    let st = seg.station_nodes[k];
                    let far = is.map_or(st, |s| NodeId(seg.sat_node0 + s as u32));
                    let up = seg.up_dir(k as u32);
                    changes.push(Change::Reattach(up, far, is.is_some()));
                    changes.push(Change::Reattach(LinkDirId(up.0 + 1), far, is.is_some()));
                }
            }
        }
        let anim = self.tracer.anim_on();
        for c in changes {
            match c {
                Change::Up(d) => {
                    self.links[d.idx()].up = true;
                    if anim && d.0 % 2 == 0 {
                        self.anim_link_state(now, d, true);
                    }
                }
                Change::Down(d) => {
                    if anim && d.0 % 2 == 0 {
                        self.anim_link_state(now, d, false);
                    }
                    self.links[d.idx()].up = false;
                    self.sat_link_gone(now, d);
                }
                Change::Reattach(d, far, up) => {
                    self.sat_link_gone(now, d);
                    let link = &mut self.links[d.idx()];
                    // The uplink's far end is its `to`, the downlink's its `from`.
                    let uplink = link.from_iface != super::sat_build::NO_IFACE;
                    if uplink {
                        link.to = far;
                    } else {
                        link.from = far;
                    }
                    link.up = up;
                    if anim && uplink {
                        let station = link.from;
                        self.anim_attach(now, station, far);
                    }
                }
            }
        }
        if anim {
            self.anim_sat_positions(now);
        }
        self.sat_schedule_next();
    }

    /// Packets queued on a satellite link that goes away are lost now, the one on the
    /// wire on arrival (`LinkDir::carried`); both count as the link's `handover_drops`.
    fn sat_link_gone(&mut self, now: SimTime, dir: LinkDirId) {
        self.links[dir.idx()].last_down = Some(now);
        while let Some(pid) = self.links[dir.idx()].queue.pop() {
            self.fault_drop(now, dir, pid);
        }
    }

    /// Forwarding where the wired routes have no answer: over the satellites.
    pub(super) fn sat_forward(&mut self, now: SimTime, node: NodeId, dst: IfaceId, pid: PacketId) {
        match self.sat_next_dir(node, dst) {
            Some(d) => self.enqueue(now, d, pid),
            None => self.sat_unroutable(now, node, dst, pid),
        }
    }

    /// A packet a satellite cannot route at this instant (the destination's station has
    /// no satellite above its mask, or the constellation is cut in two): lost, and
    /// counted as a `handover_drops` of the destination station's downlink (the ground
    /// link it could not reach; summed in `satellite_links.gsl`).
    fn sat_unroutable(&mut self, now: SimTime, node: NodeId, dst: IfaceId, pid: PacketId) {
        let down = self.sat_egress(dst).and_then(|(si, k)| {
            let sw = self.sat.as_deref()?;
            matches!(sw.vertex(node), Some(VertexOf::Sat(..)))
                .then(|| LinkDirId(sw.segs[si as usize].up_dir(k).0 + 1))
        });
        match down {
            Some(d) => self.fault_drop(now, d, pid),
            None => self.discard(pid),
        }
    }

    /// The link direction `node` sends on toward interface `dst` through a satellite
    /// segment: a satellite by its routing table, a ground station by its uplink, any
    /// other node by wire toward a ground station of the segment.
    fn sat_next_dir(&mut self, node: NodeId, dst: IfaceId) -> Option<LinkDirId> {
        let (si, egress) = self.sat_egress(dst)?;
        let sw = self.sat.as_deref_mut()?;
        let routes_at = sw.routes_at[si as usize];
        match sw.vertex(node) {
            Some(VertexOf::Sat(s, k)) if s == si => {
                sw.segs[s as usize].next_dir(k, egress, routes_at)
            }
            Some(VertexOf::Station(s, k)) if s == si && k != egress => {
                Some(sw.segs[s as usize].up_dir(k))
            }
            _ => {
                let seg = &sw.segs[si as usize];
                for &st in &seg.station_nodes {
                    for &i in &self.nodes[st.idx()].ifaces {
                        if self.ifaces[i.idx()].out.0 >= self.sat_links_from {
                            continue;
                        }
                        if let Some(out) = self.routes.next_hop(node, i) {
                            return Some(self.ifaces[out.idx()].out);
                        }
                    }
                }
                None
            }
        }
    }

    /// The satellite interface a ground station sends on toward `dst` when no wired
    /// route reaches it: the source address of its packets, so that replies come back
    /// the same way (a station with a wired link too is multihomed).
    pub(super) fn sat_iface_toward(&mut self, node: NodeId, dst: IfaceId) -> Option<IfaceId> {
        self.sat.as_ref()?;
        let up = self.sat_next_dir(node, dst)?;
        self.nodes[node.idx()]
            .ifaces
            .iter()
            .copied()
            .find(|&i| self.ifaces[i.idx()].out == up)
    }

    /// The ground station a packet for `dst` leaves the satellites at: its owner, or
    /// the first station whose wired links reach it.
    fn sat_egress(&mut self, dst: IfaceId) -> Option<(u32, u32)> {
        let owner = self.ifaces[dst.idx()].node;
        let sw = self.sat.as_deref_mut()?;
        if let Some(VertexOf::Station(s, k)) = sw.vertex(owner) {
            return Some((s, k));
        }
        if let Some(&e) = sw.egress.get(&dst.0) {
            return e;
        }
        let mut found = None;
        'segs: for (s, seg) in sw.segs.iter().enumerate() {
            for (k, &st) in seg.station_nodes.iter().enumerate() {
                if self.routes.next_hop(st, dst).is_some() {
                    found = Some((s as u32, k as u32));
                    break 'segs;
                }
            }
        }
        sw.egress.insert(dst.0, found);
        found
    }

    /// `--series path_delay`: per flow, the one-way propagation delay of the route its
    /// sender's packets take now (wired hops at their delay, satellite hops at the
    /// distance now), or no sample while there is none.
    pub(super) fn sat_sample(&mut self, now: SimTime) {
        if self.sat.is_none() || !self.tracer.series_vars.iter().any(|v| v == "path_delay") {
            return;
        }
        let t = now.as_secs_f64();
        for fi in 0..self.flows.len() {
            let slot = &self.endpoints[self.flows[fi].sender.idx()];
            let (src, addr) = (slot.node, slot.peer_addr);
            if let Some(d) = self.sat_path_delay(src, addr, t) {
                let series = &mut self.tracer.series;
                let ent = series.entity_id(&self.flows[fi].name);
                let var = series.variable_id("path_delay");
                series.push(t, ent, var, d);
            }
        }
    }

    fn sat_path_delay(&mut self, mut node: NodeId, addr: [u8; 4], t: f64) -> Option<f64> {
        let dst = self.addr_owner(addr)?;
        let mut total = 0.0;
        for _ in 0..MAX_PATH_HOPS {
            if self.ifaces[dst.idx()].node == node {
                return Some(total);
            }
            let dir = match self.routes.next_hop(node, dst) {
                Some(i) => self.ifaces[i.idx()].out,
                None => self.sat_next_dir(node, dst)?,
            };
            let link = &self.links[dir.idx()];
            if !link.up {
                return None;
            }
            total += if dir.0 >= self.sat_links_from {
                self.sat.as_deref()?.delay(link.from, link.to, t)?
            } else {
                link.delay.as_secs_f64()
            };
            node = link.to;
        }
        None
    }

    /// summary.json's `satellite_links` (ISLs and ground links summed) and
    /// `ground_stations` (handovers inside the window).
    pub(super) fn sat_summary(&self, obj: &mut Map<String, Value>) {
        let Some(sw) = self.sat.as_deref() else {
            return;
        };
        // tx_packets, tx_bytes, queue_drops, loss_drops, handover_drops.
        let mut isl = [0u64; 5];
        let mut gsl = [0u64; 5];
        let mut stations = Map::new();
        for seg in &sw.segs {
            for d in seg.isl_dir0..seg.gsl_dir0 {
                add(&mut isl, &self.links[d as usize].counters);
            }
            let n = seg.station_nodes.len() as u32;
            for d in seg.gsl_dir0..seg.gsl_dir0 + 2 * n {
                add(&mut gsl, &self.links[d as usize].counters);
            }
            for (k, st) in seg.station_nodes.iter().enumerate() {
                stations.insert(
                    self.nodes[st.idx()].name.clone(),
                    json!({ "handovers": seg.handovers_in_window[k] }),
                );
            }
        }
        let sum = |c: [u64; 5]| {
            json!({
                "tx_packets": c[0],
                "tx_bytes": c[1],
                "queue_drops": c[2],
                "loss_drops": c[3],
                "handover_drops": c[4],
            })
        };
        obj.insert(
            "satellite_links".into(),
            json!({ "isl": sum(isl), "gsl": sum(gsl) }),
        );
        obj.insert("ground_stations".into(), Value::Object(stations));
    }
}

fn add(into: &mut [u64; 5], c: &crate::net::link::LinkCounters) {
    into[0] += c.tx_packets;
    into[1] += c.tx_bytes;
    into[2] += c.queue_drops;
    into[3] += c.loss_drops;
    // A satellite link is never a `[[faults]]` link: its link-down losses are the
    // packets lost to handovers and ISLs that went away.
    into[4] += c.fault_drops;
}
