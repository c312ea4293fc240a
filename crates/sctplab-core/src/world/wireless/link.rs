//! The link layer of a mobile node (ns-2.35 `LL`, mac/ll.cc) with its ARP table
//! (mac/arp.cc) and the inputs and outputs of its interface queue and 802.11 MAC
//! (`wireless::mac`, mac/mac-802_11.cc): packets down from routing through ARP and the
//! LL delay into the queue, frames from the MAC onto the channel, received packets up
//! through the LL, and the MAC's timer event.

use super::u32_addr;
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{PacketId, PacketKind};
use crate::sim::{SimDuration, SimTime};
use crate::wireless::aodv::BROADCAST;
use crate::wireless::arp::{ARP_HDR_LEN, ArpEvent, ArpMsg, ArpOp, ArpTable};
use crate::wireless::cmu_priqueue::ifq_band;
use crate::wireless::mac::MacEvent;
use crate::wireless::ns2_size::mac_size;
use crate::world::mac_digest::Input;
use crate::world::{Event, NO_FLOW, World};

/// How long after a broadcast frame ends its packet stays alive: receivers copy it when
/// their reception ends, up to one propagation delay later (under 2 us at 550 m).
const BROADCAST_RELEASE_GUARD: SimDuration = SimDuration::from_micros(10);

impl World {
    /// Hands a packet to the link layer of `nic` for `next_hop` after `delay` (AODV's
    /// jitter); the LL adds its own delay before the interface queue.
    pub(super) fn link_down_after(
        &mut self,
        now: SimTime,
        nic: u32,
        pid: PacketId,
        next_hop: u32,
        delay: SimDuration,
    ) {
        let ll = self.wl().ll_delay;
        self.pool.get_mut(pid).next_hop = next_hop;
        if self.tracer.anim_on() && next_hop != BROADCAST {
            let node = self.wl().nics[nic as usize].node;
            self.anim_next_hop(now, node, pid, next_hop);
        }
        if self.tracer.ns2_on() {
            let node = self.wl().nics[nic as usize].node;
            let op = if self.pool.get(pid).forwards == 0 {
                's'
            } else {
                'f'
            };
            self.wtrace_packet(op, now, node, "RTR", "---", pid);
        }
        let arp = self.wl().nics[nic as usize].arp.is_some();
        if !arp || next_hop == BROADCAST {
            self.queue
                .schedule(now + delay + ll, Event::LlDown(nic, pid));
        } else if delay == SimDuration::ZERO {
            self.ll_resolve(now, nic, pid);
        } else {
            // ARP looks the next hop up when the packet enters the LL (ns-2 `LL::recv`
            // after AODV's jitter), not when routing hands it over: packets AODV releases
            // spaced by ARP_DELAY find the first one's exchange done.
            self.queue.schedule(now + delay, Event::LlEnter(nic, pid));
        }
    }

    /// A unicast packet in the LL of `nic` with ARP on (`LL::sendDown` -> `arpresolve`):
    /// on to the interface queue after the LL delay if its next hop is resolved, else
    /// held (or given up) by the ARP table.
    pub(in crate::world) fn ll_resolve(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let nh = self.pool.get(pid).next_hop;
        let w = self.wl();
        let ll = w.ll_delay;
        let Some(arp) = w.nics[nic as usize].arp.as_mut() else {
            self.queue.schedule(now + ll, Event::LlDown(nic, pid));
            return;
        };
        if arp.handle_outgoing(now, nh, pid).is_some() {
            self.queue.schedule(now + ll, Event::LlDown(nic, pid));
        } else {
            self.service_arp(now, nic);
        }
    }

    /// Drains an ARP table after an input: held packets released to the interface
    /// queue, replaced ones dropped, given-up ones to routing's link-failure handler, and
    /// requests and replies sent (events first: a released packet goes before the reply
    /// to the same request, as ns-2 schedules them).
    fn service_arp(&mut self, now: SimTime, nic: u32) {
        let node = self.wl().nics[nic as usize].node;
        while let Some(ev) = self.wl().nics[nic as usize]
            .arp
            .as_mut()
            .and_then(ArpTable::poll_event)
        {
            match ev {
                ArpEvent::Release { packet, at, .. } => {
                    self.queue.schedule(at, Event::LlDown(nic, packet));
                }
                ArpEvent::Replaced { packet } => {
                    self.drop_traced(now, node, "IFQ", "ARP", packet);
                }
                ArpEvent::GaveUp { packet, next_hop } => {
                    // arp.cc hands the packet to its transmit-failure callback, if the
                    // routing agent set one (else it is dropped, reason ARP).
                    if !self.routing_link_failed(now, nic, packet, next_hop) {
                        self.drop_traced(now, node, "IFQ", "ARP", packet);
                    }
                }
            }
        }
        while let Some(out) = self.wl().nics[nic as usize]
            .arp
            .as_mut()
            .and_then(ArpTable::poll_transmit)
        {
            let src = self.wl().nics[nic as usize].addr;
            let pid = self.pool.alloc();
            let pkt = self.pool.get_mut(pid);
            // ns-2 gives ARP packets uid 0 and counts them in no agent's numbering.
            pkt.uid = 0;
            pkt.flow = NO_FLOW;
            pkt.kind = PacketKind::Control;
            pkt.data_num = 0;
            pkt.ack_num = 0;
            pkt.forwards = 0;
            pkt.created = now;
            pkt.ip.src = src;
            pkt.ip.dst = u32_addr(out.msg.tpa);
            pkt.ip.ttl = 0;
            pkt.transport = TransportRepr::Udp(UdpRepr {
                src_port: 0,
                dst_port: 0,
            });
            pkt.payload_len = 0;
            pkt.routing = None;
            pkt.arp = Some(out.msg);
            pkt.size = ARP_HDR_LEN;
            pkt.next_hop = match out.msg.op {
                ArpOp::Request => BROADCAST,
                ArpOp::Reply => out.msg.tpa,
            };
            self.queue.schedule(out.at, Event::LlDown(nic, pid));
        }
    }

    /// An ARP packet the MAC of `nic` received goes straight to the ARP table (ns-2
    /// `LL::recv` calls `arpinput` with no LL delay).
    fn arp_input(&mut self, now: SimTime, nic: u32, msg: &ArpMsg) {
        if let Some(a) = self.wl().nics[nic as usize].arp.as_mut() {
            a.handle_arp(now, msg);
            self.service_arp(now, nic);
        }
    }

    pub(in crate::world) fn ll_down(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        self.run_lazy_before_input(nic);
        let pkt = self.pool.get(pid);
        let (routing, nh) = (pkt.is_routing(), pkt.next_hop);
        let band = ifq_band(pkt, routing);
        let size = mac_size(pkt, self.wireless.as_deref().and_then(|w| w.ns2_sizes));
        let mac_nh = self.mac_of(nh);
        let ect = self.pool.get(pid).ip.ecn != crate::net::aqm::NOT_ECT;
        let n = &mut self.wl().nics[nic as usize];
        n.digest.note(Input::Packet, now, || {
            (u64::from(size) << 32) | u64::from(mac_nh.0)
        });
        if n.mac.ifq().has_aqm() {
            // `[wireless] aqm` (wireless/ifq_aqm.rs).
            n.mac.enqueue_aqm(now, pid, size, mac_nh, band, ect);
        } else {
            n.mac.enqueue_in(now, pid, size, mac_nh, band);
        }
        self.service_mac(now, nic);
    }

    /// Drains a MAC after an input: frames onto the channel, events to the layers above,
    /// and its timer.
    // Inlined, the test alone: 7 in 10 inputs leave nothing to drain (a reception start,
    // most timer events), and the out-of-line drain's set-up cost ~50 instructions each.
    #[inline]
    pub(super) fn service_mac(&mut self, now: SimTime, nic: u32) {
        if self.wl().nics[nic as usize].mac.has_output() {
            self.drain_mac(now, nic);
        }
        self.arm_mac_timer(now, nic);
    }

    /// `service_mac`'s drain: frames onto the channel, events to the layers above.
    #[inline(never)]
    fn drain_mac(&mut self, now: SimTime, nic: u32) {
        while let Some(frame) = self.wl().nics[nic as usize].mac.poll_transmit() {
            self.transmit(now, nic, frame);
        }
        while let Some(ev) = self.wl().nics[nic as usize].mac.poll_event() {
            match ev {
                MacEvent::Received { packet, from } => {
                    if self.tracer.ns2_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.wtrace_received(now, node, packet, from);
                    }
                    if let Some(msg) = self.pool.get(packet).arp {
                        self.arp_input(now, nic, &msg);
                        continue;
                    }
                    let copy = self.pool.alloc();
                    let (src, dst) = (packet, copy);
                    let original = self.pool.get(src).clone();
                    *self.pool.get_mut(dst) = original;
                    let pkt = self.pool.get_mut(dst);
                    pkt.forwards += 1;
                    let flow = pkt.flow;
                    if flow != NO_FLOW {
                        self.flows[flow.idx()].in_flight += 1;
                    }
                    let ll = self.wl().ll_delay;
                    self.queue.schedule(now + ll, Event::LlUp(nic, copy));
                }
                MacEvent::Overheard { packet, .. } => self.routing_overheard(now, nic, packet),
                MacEvent::Sent { packet } => {
                    if self.pool.get(packet).next_hop == BROADCAST {
                        self.queue
                            .schedule(now + BROADCAST_RELEASE_GUARD, Event::Release(packet));
                    } else {
                        self.discard(packet);
                    }
                }
                MacEvent::Failed { packet, .. } => {
                    if self.tracer.ns2_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.wtrace_packet('D', now, node, "MAC", "RET", packet);
                    }
                    if self.tracer.anim_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.tracer
                            .anim_drop(now, node, self.pool.get(packet), "RET");
                    }
                    // The MAC's transmit-failure callback (mac-802_11.cc,
                    // `ch->xmit_failure_`), if the routing agent set one.
                    let nh = self.pool.get(packet).next_hop;
                    if !self.routing_link_failed(now, nic, packet, nh) {
                        self.discard(packet);
                    }
                    // Only now may the MAC take its next packet (ns-2 runs the failure
                    // callback before `tx_resume` pulls from the queue).
                    self.wl().nics[nic as usize].mac.resume_after_failure(now);
                    while let Some(frame) = self.wl().nics[nic as usize].mac.poll_transmit() {
                        self.transmit(now, nic, frame);
                    }
                }
                MacEvent::Dropped { packet, .. } => {
                    let node = self.wl().nics[nic as usize].node;
                    self.drop_traced(now, node, "IFQ", "IFQ", packet)
                }
                MacEvent::Marked { packet } => {
                    // RFC 3168 sec. 5: Congestion Experienced.
                    self.pool.get_mut(packet).ip.ecn = crate::net::aqm::CE;
                }
            }
        }
    }

    /// (Re)arms a NIC's timer event after an input: a new event if the MAC's earliest
    /// deadline is before the pending one (whose event is then of an old generation).
    /// With the accelerators on, `World::arm_mac_timer_lazily` does it (and keeps the
    /// event virtual while the MAC is quiet).
    pub(super) fn arm_mac_timer(&mut self, now: SimTime, nic: u32) {
        let w = self.wl();
        if w.fast.deferred_mac_timers {
            self.arm_mac_timer_lazily(now, nic);
            return;
        }
        let n = &mut w.nics[nic as usize];
        if let Some((t, g)) = n.mac_timer.slot.after_input(n.mac.poll_timeout(), now) {
            self.queue
                .schedule_slot(nic as usize, t, Event::MacTimer(nic, g));
        }
    }

    pub(in crate::world) fn mac_timer(&mut self, now: SimTime, nic: u32, generation: u32) {
        self.run_lazy_before_input(nic);
        let n = &mut self.wl().nics[nic as usize];
        if !n.mac_timer.slot.fire(generation) {
            return;
        }
        match n.mac.poll_timeout() {
            Some(t) if t > now => {
                let g = n.mac_timer.slot.arm(t);
                // The NIC's previous timer event (if any) is now of an old generation.
                self.queue
                    .schedule_slot(nic as usize, t, Event::MacTimer(nic, g));
            }
            Some(_) => {
                n.digest.note(Input::Timer, now, || 0);
                n.mac.handle_timeout(now);
                self.service_mac(now, nic);
            }
            None => {}
        }
    }

    /// A packet the MAC received goes up through the LL: to routing, to an agent on this
    /// node, or back down to be forwarded.
    pub(in crate::world) fn ll_up(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let own_only = self.wl().nics[nic as usize].own_traffic_only;
        let node = self.wl().nics[nic as usize].node;
        if self.tracer.ns2_on() {
            self.wtrace_packet('r', now, node, "RTR", "---", pid);
        }
        if self.pool.get(pid).routing.is_some() {
            self.routing_input(now, nic, pid);
            return;
        }
        if self.pool.get(pid).sr.is_some() {
            self.source_routed_input(now, nic, pid);
            return;
        }
        let Some(dst) = self.addr_owner(self.pool.get(pid).ip.dst) else {
            self.discard(pid);
            return;
        };
        if self.ifaces[dst.idx()].node == node {
            self.deliver(now, node, pid);
        } else if own_only {
            self.discard(pid);
        } else {
            self.wireless_route(now, node, dst, pid);
        }
    }
}
