//! The routing layer of a mobile node: a routing agent behind the one interface
//! `wireless::routing::RoutingAgent` (AODV, ns-2.35 aodv/aodv.cc; DSDV, dsdv/dsdv.cc),
//! or static routes computed at time 0. The rest of the node reaches the agent only
//! through the functions here: packets to route (`wireless_route`), routing messages
//! from the link layer (`routing_input`), transmit failures (`routing_link_failed`),
//! the agent's output (`service_routing`) and its timer (`routing_timer`). A new
//! protocol plugs in behind `RoutingAgent`; nothing here names one.

use super::{addr_u32, u32_addr};
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{IfaceId, NodeId, Packet, PacketId, PacketKind};
use crate::sim::{SimDuration, SimTime};
use crate::wireless::aodv::{AodvMsg, RouteDecision};
use crate::wireless::ifq::IfqEntry;
use crate::wireless::propagation;
use crate::wireless::routing::{RoutingEvent, RoutingMsg, RoutingOut, RoutingProtocol};
use crate::world::{Event, NO_FLOW, World};
use std::collections::VecDeque;

/// Next hops toward every node over links within `range` at time 0, first-declared node
/// first on ties: `table[from * n + to]`.
pub(crate) fn static_wireless_routes(positions: &[Option<(f64, f64)>], range: f64) -> Vec<u32> {
    let n = positions.len();
    let mut table = vec![u32::MAX; n * n];
    let near = |a: usize, b: usize| match (positions[a], positions[b]) {
        (Some(p), Some(q)) => a != b && propagation::distance(p, q) <= range,
        _ => false,
    };
    for dst in 0..n {
        if positions[dst].is_none() {
            continue;
        }
        // Reverse BFS from the destination; each node's next hop is the lowest-numbered
        // neighbour one hop closer.
        let mut dist = vec![u32::MAX; n];
        dist[dst] = 0;
        let mut frontier = VecDeque::from([dst]);
        while let Some(v) = frontier.pop_front() {
            for u in 0..n {
                if dist[u] == u32::MAX && near(u, v) {
                    dist[u] = dist[v] + 1;
                    frontier.push_back(u);
                }
            }
        }
        for from in 0..n {
            if from == dst || dist[from] == u32::MAX {
                continue;
            }
            if let Some(nb) = (0..n).find(|&u| near(from, u) && dist[u] + 1 == dist[from]) {
                table[from * n + dst] = nb as u32;
            }
        }
    }
    table
}

impl World {
    /// Routes a data packet over the wireless side of `node` (its agent or static routes).
    pub(in crate::world) fn wireless_route(
        &mut self,
        now: SimTime,
        node: NodeId,
        dst: IfaceId,
        pid: PacketId,
    ) {
        let Some(nic) = self.nic_toward(node, dst) else {
            self.discard(pid);
            return;
        };
        let pkt = self.pool.get(pid);
        let local = pkt.forwards == 0;
        let (src, dst_addr) = (addr_u32(pkt.ip.src), addr_u32(pkt.ip.dst));
        let w = self.wireless.as_deref_mut().expect("wireless node");
        if !local {
            w.node_counters[node.idx()].forwarded += 1;
        }
        if let Some(table) = &w.static_next {
            let n = w.node_nics.len();
            let to = self.ifaces[dst.idx()].node.idx();
            let next = table[node.idx() * n + to];
            let pkt = self.pool.get_mut(pid);
            if !local {
                pkt.ip.ttl = pkt.ip.ttl.saturating_sub(1);
            }
            if next == u32::MAX || pkt.ip.ttl == 0 {
                if pkt.ip.ttl == 0 {
                    w.node_counters[node.idx()].ttl_drops += 1;
                }
                self.discard(pid);
                return;
            }
            // The next hop's NIC on the same channel: its first one.
            let nh_nic = w.node_nics[next as usize][0];
            let nh = addr_u32(w.nics[nh_nic as usize].addr);
            self.link_down_after(now, nic, pid, nh, SimDuration::ZERO);
            return;
        }
        let mut ttl = self.pool.get(pid).ip.ttl;
        let agent = w.nics[nic as usize]
            .routing
            .as_mut()
            .expect("a routing agent");
        let decision = agent.route(now, pid, src, dst_addr, local, &mut ttl);
        self.pool.get_mut(pid).ip.ttl = ttl;
        match decision {
            RouteDecision::Forward { next_hop } => {
                self.link_down_after(now, nic, pid, next_hop, SimDuration::ZERO)
            }
            RouteDecision::Queued => {}
            RouteDecision::Drop(why) => self.drop_traced(now, node, "RTR", why.ns2_code(), pid),
        }
        self.service_routing(now, nic);
    }

    /// A routing message the link layer of `nic` passed up goes to its routing agent
    /// (a NIC that carries only its own traffic takes only route requests for itself).
    pub(super) fn routing_input(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let n = &self.wl().nics[nic as usize];
        let (own_only, my_addr) = (n.own_traffic_only, n.addr);
        // The packet is discarded below: its message is taken, not copied.
        let pkt = self.pool.get_mut(pid);
        let msg = pkt.routing.take().expect("routing message");
        let (src, ttl) = (addr_u32(pkt.ip.src), pkt.ip.ttl);
        let for_me = match &msg {
            RoutingMsg::Aodv(AodvMsg::Rreq(q)) => q.dst == addr_u32(my_addr),
            _ => true,
        };
        self.discard(pid);
        if !own_only || for_me {
            if let Some(a) = self.wl().nics[nic as usize].routing.as_mut() {
                a.recv(now, &msg, src, ttl);
            }
            self.service_routing(now, nic);
        }
    }

    /// The link layer of `nic` could not deliver `packet` to `next_hop` (the MAC's
    /// retries ran out, or ARP gave up): the routing agent's transmit-failure callback
    /// takes it (AODV's link-failure handler, DSDV's `lost_link`) for the data packets
    /// it routed. Returns false, the packet not taken, where there is no callback: ns-2
    /// sets none for the agent's own messages (nor ARP's replies), nor with static routes.
    pub(super) fn routing_link_failed(
        &mut self,
        now: SimTime,
        nic: u32,
        packet: PacketId,
        next_hop: u32,
    ) -> bool {
        let pkt = self.pool.get(packet);
        if pkt.sr.is_some() {
            // DSR's callback takes every packet it sent but its broadcasts.
            return self.source_routed_failed(now, nic, packet, next_hop);
        }
        let (dst, fwd) = (addr_u32(pkt.ip.dst), pkt.forwards);
        if pkt.routing.is_some() || pkt.arp.is_some() {
            return false;
        }
        let Some(a) = self.wl().nics[nic as usize].routing.as_mut() else {
            return false;
        };
        let taken = a.link_failed(now, next_hop, packet, dst, fwd);
        self.service_routing(now, nic);
        taken
    }

    /// A control message from the routing agent of `nic` becomes a packet and goes to
    /// the link layer after its delay.
    fn send_routing(&mut self, now: SimTime, nic: u32, out: RoutingOut) {
        let len = out.msg.ns2_len();
        let port = out.msg.udp_port();
        let pid = self.pool.alloc();
        self.pool.stamp(pid);
        let pkt = self.pool.get_mut(pid);
        pkt.flow = NO_FLOW;
        pkt.kind = PacketKind::Control;
        pkt.data_num = 0;
        pkt.ack_num = 0;
        pkt.forwards = 0;
        pkt.created = now;
        pkt.ip.src = u32_addr(out.ip_src);
        pkt.ip.dst = u32_addr(out.ip_dst);
        pkt.ip.ttl = out.ttl;
        pkt.ip.ident = pkt.uid as u16;
        pkt.transport = TransportRepr::Udp(UdpRepr {
            src_port: port,
            dst_port: port,
        });
        // ns-2 charges IP + its own message structs, no UDP header: keep that size.
        pkt.payload_len = len.saturating_sub(28);
        pkt.routing = Some(out.msg);
        pkt.arp = None;
        pkt.finalize();
        let w = self.wl();
        let node = w.nics[nic as usize].node.idx();
        let c = &mut w.node_counters[node];
        c.routing_packets += 1;
        c.routing_bytes += u64::from(len);
        self.link_down_after(now, nic, pid, out.next_hop, out.delay);
    }

    /// Takes the packets for neighbour `next_hop` (an IP address) that `matches`
    /// selects out of `nic`'s interface queue, in the queue's order, and counts them
    /// in `ifq_purged`; the caller hands the emptied list back to `scratch_purge`.
    pub(super) fn purge_ifq(
        &mut self,
        nic: u32,
        next_hop: u32,
        matches: impl Fn(&Packet) -> bool,
    ) -> Vec<IfqEntry> {
        let mac = self.mac_of(next_hop);
        let w = self
            .wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds");
        let pool = &self.pool;
        let mut out = std::mem::take(&mut w.scratch_purge);
        w.nics[nic as usize].mac.ifq_mut().remove_where(
            |e| e.next_hop == mac && matches(pool.get(e.packet)),
            &mut out,
        );
        w.nics[nic as usize].ifq_purged += out.len() as u64;
        out
    }

    /// Drains a routing agent: control messages to send, buffered packets to release or
    /// drop, interface-queue purges, in the one order the agent produced them (ns-2
    /// schedules them so: see `Aodv::poll_output`), then its timer.
    pub(super) fn service_routing(&mut self, now: SimTime, nic: u32) {
        if self.tracer.anim_on() {
            self.anim_route_table(now, nic);
        }
        while let Some(ev) = self.wl().nics[nic as usize]
            .routing
            .as_mut()
            .and_then(RoutingProtocol::poll_output)
        {
            match ev {
                RoutingEvent::Send(out) => self.send_routing(now, nic, out),
                RoutingEvent::Forward {
                    pkt,
                    next_hop,
                    delay,
                } => self.link_down_after(now, nic, pkt, next_hop, delay),
                RoutingEvent::Drop { pkt, reason } => {
                    let node = self.wl().nics[nic as usize].node;
                    self.drop_traced(now, node, "RTR", reason.ns2_code(), pkt)
                }
                RoutingEvent::PurgeIfq { next_hop } => {
                    // ns-2's `PriQueue::filter` matches the IP next hop, which ARP
                    // packets do not carry: an ARP reply for the neighbour stays queued.
                    let mut out = self.purge_ifq(nic, next_hop, |p| p.arp.is_none());
                    let node = self.wl().nics[nic as usize].node;
                    for e in out.drain(..) {
                        self.drop_traced(now, node, "IFQ", "CBK", e.packet);
                    }
                    self.wl().scratch_purge = out;
                }
                RoutingEvent::SourceRouted {
                    pkt,
                    next_hop,
                    delay,
                } => self.send_source_routed(now, nic, pkt, next_hop, delay),
                RoutingEvent::Deliver { pkt } => self.deliver_source_routed(now, nic, pkt),
                RoutingEvent::DropCode { pkt, code } => {
                    let node = self.wl().nics[nic as usize].node;
                    self.drop_traced(now, node, "RTR", code, pkt)
                }
            }
        }
        let w = self.wl();
        let n = &mut w.nics[nic as usize];
        let deadline = n.routing.as_mut().and_then(RoutingProtocol::poll_timeout);
        if let Some((t, g)) = n.routing_timer.after_input(deadline, now) {
            self.queue.schedule(t, Event::RoutingTimer(nic, g));
        }
    }

    pub(in crate::world) fn routing_timer(&mut self, now: SimTime, nic: u32, generation: u32) {
        let n = &mut self.wl().nics[nic as usize];
        if !n.routing_timer.fire(generation) {
            return;
        }
        let Some(a) = n.routing.as_mut() else { return };
        match a.poll_timeout() {
            Some(t) if t > now => {
                let g = n.routing_timer.arm(t);
                self.queue.schedule(t, Event::RoutingTimer(nic, g));
            }
            Some(_) => {
                a.handle_timeout(now);
                self.service_routing(now, nic);
            }
            None => {}
        }
    }

    /// Starts every routing agent's timers (AODV's purge timers and DSDV's first
    /// update run from time 0, as ns-2 starts its agents).
    pub(in crate::world) fn start_wireless(&mut self, now: SimTime) {
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        for nic in 0..n as u32 {
            self.service_routing(now, nic);
        }
    }
}
