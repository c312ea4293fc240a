//! What the world tells the animation trace (`--trace anim`, trace/anim.rs): the header
//! (nodes, links, flows, the radio's range) and every node's movement legs when the run
//! starts, packet hops, drops, flow samples, and the end. The run loop calls in only
//! behind `Tracer::anim_on`, so a run without the trace pays one branch per site.
//!
//! Nothing here schedules an event but the flow samples' `Sample`, which the loop keeps
//! out of `events` as it does for `--series`, so summary.json stays the same
//! (tests/outputs.rs). Wireless hops are taken where a MAC puts a frame on the air,
//! which is an event with or without the wireless shortcuts, so unlike pcap and the
//! ns-2 trace this trace keeps the receptions deferred.

use super::tracer::Tracer;
use super::{FlowKind, NO_FLOW, World};
use crate::endpoint::Endpoint;
use crate::net::{LinkDirId, NodeId, Packet, PacketId, PacketKind};
use crate::sim::{SimDuration, SimTime};
use crate::trace::anim::{AnimTrace, Hop, HopKind, MIN_SAMPLE};
use crate::wireless::frame::Frame;
use crate::wireless::routing::RoutingAgent;
use serde_json::{Value, json};

/// Movement legs written at most (over all nodes), as for a movement file.
const MAX_LEGS: usize = super::MAX_MOVEMENT_LEGS;
/// How far ahead legs are written for a run without `duration`.
const HORIZON_WITHOUT_DURATION: SimDuration = SimDuration::from_secs(3600);

fn kind_of(p: &Packet) -> HopKind {
    if p.routing.is_some() {
        HopKind::Routing
    } else if p.arp.is_some() {
        HopKind::Arp
    } else {
        match p.kind {
            PacketKind::Data => HopKind::Data,
            PacketKind::Ack => HopKind::Ack,
            PacketKind::Control => HopKind::Control,
        }
    }
}

fn flow_of(p: &Packet) -> i64 {
    if p.flow == NO_FLOW {
        -1
    } else {
        i64::from(p.flow.0)
    }
}

impl Tracer {
    #[inline]
    pub fn anim_on(&self) -> bool {
        self.anim.is_some()
    }

    pub(super) fn anim_write(
        &mut self,
        t: SimTime,
        f: impl FnOnce(&mut AnimTrace<super::tracer::Counted>) -> std::io::Result<()>,
    ) {
        if !self.open_for_more() {
            return;
        }
        if let Some(a) = &mut self.anim {
            let r = f(a);
            self.keep(r);
            self.tally(t);
        }
    }

    /// A packet dropped at `node` for `why` (a fixed word: docs/animate.md).
    pub fn anim_drop(&mut self, t: SimTime, node: NodeId, p: &Packet, why: &'static str) {
        let flow = flow_of(p);
        self.anim_write(t, |a| a.drop(t, node.0, flow, why));
    }

    /// A packet reached the node it was sent to: its data bytes count towards its
    /// flow's throughput.
    #[inline]
    pub fn anim_delivered(&mut self, p: &Packet) {
        if let Some(a) = &mut self.anim {
            if p.kind == PacketKind::Data && p.flow != NO_FLOW {
                a.delivered(p.flow.idx(), p.size);
            }
        }
    }
}

impl World {
    /// The header and the legs, when the run starts (the file was opened with the
    /// others in `Tracer::open`).
    pub(super) fn anim_begin(&mut self) {
        let Some(file) = self.tracer.anim_file.take() else {
            return;
        };
        let header = self.anim_header();
        let every = self.series_interval.max(MIN_SAMPLE);
        match AnimTrace::new(file, header, self.flows.len(), every) {
            Ok(a) => self.tracer.anim = Some(a),
            Err(e) => {
                self.tracer.keep(Err(e));
                return;
            }
        }
        self.tracer.tally(SimTime::ZERO);
        self.anim_sat_begin();
        self.anim_route_logs_on();
        let Some(w) = self.wireless.as_deref() else {
            return;
        };
        let until = SimTime::ZERO
            + self.stop_at.map_or(HORIZON_WITHOUT_DURATION, |t| {
                t.saturating_since(SimTime::ZERO)
            });
        let mut left = MAX_LEGS;
        for (i, nics) in w.node_nics.iter().enumerate() {
            if nics.is_empty() || left == 0 {
                continue;
            }
            let n = w.mobility.count_legs_until(i, until, left);
            left -= n;
            if left == 0 {
                // Past the cap (the scenario's bounds keep runs far below it): the page
                // shows the nodes without legs where they start.
                break;
            }
            let legs = w.mobility.legs_until(i, until);
            for leg in legs.iter().take(n) {
                let node = i as u32;
                self.tracer.anim_write(leg.start, |a| {
                    a.leg(node, leg.start, leg.from, leg.to, leg.speed)
                });
            }
        }
    }

    fn anim_header(&self) -> serde_json::Map<String, Value> {
        let nodes: Vec<Value> = (0..self.nodes.len())
            .map(|i| {
                json!({
                    "name": self.nodes[i].name,
                    "wireless": self.is_wireless_node(NodeId::from_idx(i)),
                })
            })
            .collect();
        // Link directions come in pairs (a->b, then b->a): one entry per link.
        let links: Vec<Value> = self
            .links
            .iter()
            .step_by(2)
            .map(|l| {
                json!({
                    "a": l.from.0,
                    "b": l.to.0,
                    "rate_bps": l.rate_bps,
                    "delay_us": l.delay.as_nanos() / 1_000,
                })
            })
            .collect();
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "kind": match f.kind {
                        FlowKind::Cbr => "cbr",
                        FlowKind::Tcp => "tcp",
                        FlowKind::Sctp => "sctp",
                        FlowKind::Quic => "quic",
                    },
                    "src": self.endpoints[f.sender.idx()].node.0,
                    "dst": self.endpoints[f.receiver.idx()].node.0,
                })
            })
            .collect();
        let wireless = self.wireless.as_deref().map(|w| {
            let area = w.mobility.area();
            json!({
                "width_m": area.x_max,
                "height_m": area.y_max,
                "range_m": w.phy.rx_range_m(),
                "cs_range_m": w.cs_range_m,
            })
        });
        let mut h = serde_json::Map::new();
        h.insert("scenario".into(), self.scenario.clone().into());
        h.insert("seed".into(), self.seed.into());
        h.insert(
            "duration_us".into(),
            self.stop_at.map(|t| t.as_nanos() / 1_000).into(),
        );
        h.insert("nodes".into(), nodes.into());
        h.insert("links".into(), links.into());
        h.insert("flows".into(), flows.into());
        h.insert("wireless".into(), wireless.unwrap_or(Value::Null));
        h.insert("satellites".into(), self.anim_sat_header());
        h
    }

    /// A packet starts over a wired link direction; it arrives at `arrive`.
    pub(super) fn anim_link_hop(
        &mut self,
        now: SimTime,
        dir: LinkDirId,
        pid: PacketId,
        arrive: SimTime,
    ) {
        let link = &self.links[dir.idx()];
        let p = self.pool.get(pid);
        let hop = Hop {
            t: now,
            dur: arrive.saturating_since(now),
            from: link.from.0,
            to: i64::from(link.to.0),
            flow: flow_of(p),
            kind: kind_of(p),
        };
        self.tracer.anim_write(now, |a| a.hop(&hop));
    }

    /// A frame a MAC puts on the air: frames that carry a packet (DATA) are hops;
    /// RTS, CTS and ACK are not drawn.
    pub(super) fn anim_frame(&mut self, now: SimTime, nic: u32, frame: &Frame) {
        let Some(pid) = frame.packet else {
            return;
        };
        let Some(w) = self.wireless.as_deref() else {
            return;
        };
        let from = w.nics[nic as usize].node.0;
        let to = if frame.dst.is_broadcast() {
            -1
        } else {
            w.nics
                .get(frame.dst.0 as usize)
                .map_or(-1, |n| i64::from(n.node.0))
        };
        let p = self.pool.get(pid);
        let hop = Hop {
            t: now,
            dur: frame.airtime,
            from,
            to,
            flow: flow_of(p),
            kind: kind_of(p),
        };
        self.tracer.anim_write(now, |a| a.hop(&hop));
    }

    /// A wireless node hands a flow's packet to the link layer for `next_hop` (an
    /// address): where routing sends it, so a change of next hop is a route change.
    /// Routing messages, ARP and broadcasts are not routes.
    pub(super) fn anim_next_hop(
        &mut self,
        now: SimTime,
        node: NodeId,
        pid: PacketId,
        next_hop: u32,
    ) {
        let p = self.pool.get(pid);
        if p.flow == NO_FLOW || p.routing.is_some() || p.arp.is_some() {
            return;
        }
        let Some((next, _)) = super::addr_parts(next_hop.to_be_bytes()) else {
            return;
        };
        let dst = p.dst.0;
        self.tracer
            .anim_write(now, |a| a.next_hop(now, node.0, dst, next as u32));
    }

    /// The route-table changes the routing agent of `nic` made since the last call, as
    /// `table` records (called before the agent's outputs are serviced, only while the
    /// trace is on). Addresses become node numbers as for `route` records.
    pub(in crate::world) fn anim_route_table(&mut self, now: SimTime, nic: u32) {
        let Some(w) = self.wireless.as_deref_mut() else {
            return;
        };
        let n = &mut w.nics[nic as usize];
        let node = n.node.0;
        let Some(log) = n.routing.as_mut().and_then(RoutingAgent::route_log_mut) else {
            return;
        };
        if !log.has_changes() {
            return;
        }
        let node_of = |a: u32| super::addr_parts(a.to_be_bytes()).map(|(n, _)| n as u32);
        let changes: Vec<(u32, Option<(u32, u16)>)> = log
            .drain()
            .filter_map(|c| {
                let dst = node_of(c.dst)?;
                let route = match (c.next_hop.and_then(node_of), c.hops) {
                    (Some(next), Some(hops)) => Some((next, hops)),
                    _ => None,
                };
                Some((dst, route))
            })
            .collect();
        for (dst, route) in changes {
            self.tracer
                .anim_write(now, |a| a.table(now, node, dst, route));
        }
    }

    /// Turns on every routing agent's route-table log (wireless/route_log.rs), before
    /// the agents' first input.
    fn anim_route_logs_on(&mut self) {
        let Some(w) = self.wireless.as_deref_mut() else {
            return;
        };
        for n in &mut w.nics {
            if let Some(log) = n.routing.as_mut().and_then(RoutingAgent::route_log_mut) {
                log.enable();
            }
        }
    }

    /// The flows' throughput and cwnd, at a `Sample` event when one is due.
    pub(super) fn anim_sample(&mut self, now: SimTime) {
        if !self.tracer.anim.as_ref().is_some_and(|a| a.sample_due(now)) {
            return;
        }
        let cwnd: Vec<Option<f64>> = self
            .flows
            .iter()
            .map(|f| {
                let mut c = None;
                self.endpoints[f.sender.idx()].ep.sample(&mut |name, v| {
                    if name == "cwnd" && c.is_none() {
                        c = Some(v);
                    }
                });
                c
            })
            .collect();
        self.tracer.anim_write(now, |a| a.sample(now, &cwnd));
    }

    /// A `[[faults]]` entry takes a link down or brings it up (`dir`: its first
    /// direction; the header lists one entry per link, in direction pairs).
    pub(super) fn anim_link_state(&mut self, now: SimTime, dir: LinkDirId, up: bool) {
        let link = dir.idx() / 2;
        self.tracer.anim_write(now, |a| a.link_state(now, link, up));
    }

    /// The last record: when the run ended.
    pub(super) fn anim_end(&mut self, end: SimTime) {
        self.tracer.anim_write(end, |a| a.end(end));
    }
}
