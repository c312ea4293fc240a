//! The run loop: pops events in (time, sequence) order and drives links and endpoints.

use super::watch::{CLOCK_EVERY, Watch};
use super::{Ect, Event, NO_FLOW, SendRoute, World, addr_parts};
use crate::endpoint::Endpoint;
use crate::endpoint::EndpointEvent;
use crate::error::Error;
use crate::net::PacketKind;
use crate::net::aqm::link::LinkAqm;
use crate::net::aqm::link::pie_departure;
use crate::net::aqm::{Admit, CE, DropCause, ECT0, NOT_ECT};
use crate::net::link::{Hop, overlap_ns};
use crate::net::{EndpointId, LinkDirId, NodeId, PacketId};
use crate::scenario::Scenario;
use crate::sim::{SimDuration, SimTime};
use crate::trace::TraceConfig;
use crate::trace::series::Series;
use std::time::Instant;

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub seed: u64,
    pub trace: TraceConfig,
    /// Print a heartbeat (simulated time, events/s) to stderr about once a second.
    pub progress: bool,
    /// Stop the run with `Error::Stopped` once it has taken this much wall-clock time.
    pub wall_limit: Option<std::time::Duration>,
    /// The most packets alive at once before the run stops with `Error::Limit`
    /// (default `MAX_PACKETS_ALIVE`).
    pub packet_limit: Option<usize>,
    /// The shortcuts a wireless run takes (default all): none changes summary.json
    /// but for `events` (`Shortcuts`).
    pub shortcuts: super::Shortcuts,
}

/// What a run hands back. `summary_json` is deterministic; the rest is not.
#[derive(Debug)]
pub struct RunResult {
    pub summary_json: String,
    pub series: Series,
    pub events: u64,
    pub sim_time_s: f64,
    pub wall_s: f64,
    /// Packet slots the pool ever created: stays flat in steady state.
    pub packet_slots: usize,
    /// Each wireless NIC's MAC input digest (hash, inputs), in NIC order
    /// (`mac_digest`; test builds only).
    #[cfg(test)]
    pub(crate) mac_digests: Vec<super::mac_digest::Digest>,
}

pub fn run_scenario(s: &Scenario, opts: &RunOptions) -> Result<RunResult, Error> {
    run_scenario_interruptible(s, opts, &mut || false)
}

/// `run_scenario`, asking `interrupted` about every `POLL_EVERY` of wall time whether to
/// stop (the Python binding checks for Ctrl-C there); a `true` ends the run with
/// `Error::Interrupted`. Traces written so far are flushed whatever the outcome.
pub fn run_scenario_interruptible(
    s: &Scenario,
    opts: &RunOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunResult, Error> {
    let started = Instant::now();
    let mut world = World::build(s, opts.seed, &opts.trace, opts.shortcuts)?;
    let mut ctl = Control {
        started,
        wall_limit: opts.wall_limit,
        packet_limit: opts.packet_limit.unwrap_or(MAX_PACKETS_ALIVE),
        interrupted,
    };
    let ran = world.run(opts.progress, &mut ctl).and_then(|end| {
        world.anim_end(end);
        // What the last few thousand events wrote counts too: the cap is a cap. (Here,
        // not in `World::run`, whose size decides what LLVM inlines into the loop.)
        if world.tracer.watches_output() {
            let stop = world.stop_at;
            world
                .tracer
                .check_output(end, stop, false)
                .map_err(Error::Usage)?;
        }
        Ok(end)
    });
    let flushed = world.tracer.finish().map_err(|e| {
        Error::io(
            opts.trace
                .out_dir
                .as_deref()
                .unwrap_or(std::path::Path::new(".")),
            e,
        )
    });
    let end = ran?;
    flushed?;
    let summary_json = world.summary_json(end);
    let series = std::mem::take(&mut world.tracer.series);
    Ok(RunResult {
        summary_json,
        series,
        events: world.queue.events_processed(),
        sim_time_s: end.as_secs_f64(),
        wall_s: started.elapsed().as_secs_f64(),
        packet_slots: world.pool.capacity(),
        #[cfg(test)]
        mac_digests: world.wireless.as_deref().map_or(Vec::new(), |w| {
            w.nics.iter().map(|n| n.digest.value()).collect()
        }),
    })
}

/// The most packets a run holds at once (in queues, on wires, in MAC queues): a few
/// hundred bytes each, so about a gigabyte. Only a link whose delay times bandwidth is
/// absurd (a 10^9 s delay) or a source far faster than its path gets there.
pub(crate) const MAX_PACKETS_ALIVE: usize = 4_000_000;

/// What the run loop checks outside the model: the wall clock and the caller.
pub(crate) struct Control<'a> {
    pub started: Instant,
    pub wall_limit: Option<std::time::Duration>,
    pub packet_limit: usize,
    pub interrupted: &'a mut dyn FnMut() -> bool,
}

impl World {
    /// Runs until the stop time, until every flow has finished, or until nothing is left
    /// to happen. Returns the simulated time at which the run ended, or why it stopped
    /// early (livelock, simulated time at its maximum, wall-clock limit, interrupt).
    pub(crate) fn run(&mut self, progress: bool, ctl: &mut Control) -> Result<SimTime, Error> {
        if let Some(t) = self.stop_at {
            self.queue.schedule(t, Event::Stop);
        }
        self.anim_begin();
        if !self.tracer.series_vars.is_empty() || self.tracer.anim_on() {
            self.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        for (i, &(at, _)) in self.faults.iter().enumerate() {
            self.queue.schedule(at, Event::Fault(i as u32));
        }
        self.start_wireless(SimTime::ZERO);
        self.sat_schedule_next();
        for i in 0..self.endpoints.len() {
            self.service(EndpointId::from_idx(i), SimTime::ZERO);
        }
        let mut watch = Watch::new(self);
        let mut end = SimTime::ZERO;
        let drained = loop {
            let Some((now, ev)) = self.queue.pop() else {
                // Replaced (stale) MAC timer events were never popped; had they been,
                // the clock would have reached the latest of them.
                end = end.max(self.queue.superseded_horizon());
                break true;
            };
            if now == SimTime::MAX {
                // Time saturates rather than wrapping: an event here was scheduled past
                // the end of the clock.
                return Err(Error::Stopped(format!(
                    "stopped at {:.3} s: simulated time would pass its maximum (about 584 \
                     years); set `duration` to end the run",
                    end.as_secs_f64()
                )));
            }
            end = now;
            match ev {
                Event::Stop => break false,
                Event::TxDone(dir) => self.tx_done(now, dir),
                Event::Arrive(dir, pkt, lost) => self.arrive(now, dir, pkt, lost),
                Event::Timer(ep, generation) => self.timer(now, ep, generation),
                Event::SnoopTimer(i, generation) => self.snoop_timer(now, i as usize, generation),
                Event::Fault(i) => {
                    // A scripted change can unblock any flow: it counts as progress.
                    watch.progressed_at = now;
                    self.fault(now, i as usize)
                }
                Event::RxStart(nic, slot) => self.rx_start(now, nic, slot),
                Event::MacTimer(nic, g) => self.mac_timer(now, nic, g),
                Event::MacWake(nic) => self.mac_wake(now, nic),
                Event::RoutingTimer(nic, g) => self.routing_timer(now, nic, g),
                Event::LlEnter(nic, pid) => self.ll_resolve(now, nic, pid),
                Event::LlDown(nic, pid) => self.ll_down(now, nic, pid),
                Event::LlUp(nic, pid) => self.ll_up(now, nic, pid),
                Event::Release(pid) => self.release_broadcast(pid),
                // Not counted as progress (unlike a fault): a flow that no satellite
                // ever carries must still end as a livelock, not run for centuries of
                // check instants.
                Event::SatCheck => self.sat_check(now),
                Event::Sample => {
                    // Sampling observes the model; it is no event of it (summary.json's
                    // `events` must not depend on `--series`).
                    self.queue.uncount_last_pop();
                    self.sample(now);
                    self.check_series_size(now)?;
                }
            }
            if self.unfinished == 0 && !self.flows.is_empty() {
                break false;
            }
            watch.look_at_progress(self, now)?;
            let n = self.queue.events_processed();
            // One test per event: `CLOCK_EVERY` is a multiple of `SWEEP_EVERY`.
            if n % super::wireless::SWEEP_EVERY != 0 {
                continue;
            }
            self.sweep_mac_timers();
            if let Some(m) = self.take_internal_error() {
                return Err(Error::Internal(m));
            }
            if n % CLOCK_EVERY == 0 {
                watch.look_outside(self, now, progress, ctl)?;
            }
        };
        // Deferred MAC timer events that would have run before the end.
        if let Some(t) = self.finish_mac_timers(drained) {
            if drained {
                end = end.max(t);
            }
        }
        if let Some(m) = self.take_internal_error() {
            return Err(Error::Internal(m));
        }
        if progress && watch.wall.elapsed().as_secs_f64() >= 1.0 {
            self.heartbeat(end, watch.wall);
            eprintln!();
        }
        for slot in &mut self.endpoints {
            slot.ep.finish(end);
        }
        Ok(end)
    }

    /// Lets an endpoint act after an input: sends what it wants to send, forwards its
    /// trace events, and (re)schedules its timer.
    // Always inlined (mostly into `deliver`, itself in the run loop): a plain
    // `#[inline]` was not taken, and the call cost about 1 % of the instructions.
    #[inline(always)]
    pub(super) fn service(&mut self, id: EndpointId, now: SimTime) {
        loop {
            let pid = self.pool.alloc();
            let slot = &mut self.endpoints[id.idx()];
            let pkt = self.pool.get_mut(pid);
            // An endpoint that picks its destination (multihomed SCTP) writes it here.
            pkt.ip.dst = [0; 4];
            if !slot.ep.poll_transmit(now, pkt) {
                self.pool.release(pid);
                break;
            }
            let (src, flow, ect) = (slot.node, slot.flow, slot.ecn);
            if pkt.ip.dst == [0; 4] {
                pkt.ip.dst = slot.peer_addr;
            }
            let dst_addr = pkt.ip.dst;
            let memo = slot.send_route.filter(|r| r.addr == dst_addr);
            let (dst_node, src_addr) = match memo {
                Some(r) => (r.dst, r.src_addr),
                None => {
                    let Some(dst_iface) = self.addr_owner(dst_addr) else {
                        self.pool.release(pid);
                        continue;
                    };
                    let dst_node = self.ifaces[dst_iface.idx()].node;
                    // The source address is that of the interface the packet leaves by.
                    let wired = self.routes.next_hop(src, dst_iface);
                    let out = wired
                        .or_else(|| self.wireless_iface_toward(src, dst_iface))
                        .or_else(|| self.sat_iface_toward(src, dst_iface));
                    let src_addr = match out {
                        Some(out) => self.ifaces[out.idx()].addr,
                        None => self.nodes[src.idx()].addr,
                    };
                    // What `forward` does with it: a wired hop (a packet for the node
                    // itself is delivered instead, so it is not kept).
                    if let Some(i) = wired.filter(|_| dst_node != src) {
                        self.endpoints[id.idx()].send_route = Some(SendRoute {
                            addr: dst_addr,
                            dst: dst_node,
                            src_addr,
                            out: self.ifaces[i.idx()].out,
                        });
                    }
                    (dst_node, src_addr)
                }
            };
            self.pool.stamp(pid);
            let pkt = self.pool.get_mut(pid);
            pkt.flow = flow;
            pkt.src = src;
            pkt.dst = dst_node;
            pkt.created = now;
            pkt.forwards = 0;
            pkt.next_hop = 0;
            pkt.routing = None;
            pkt.arp = None;
            pkt.ip.src = src_addr;
            pkt.ip.ttl = 64;
            pkt.ip.ident = pkt.uid as u16;
            if ect != Ect::None
                && pkt.kind == PacketKind::Data
                && !(ect == Ect::NewData && pkt.retransmission)
            {
                pkt.ip.ecn = ECT0;
            }
            self.flows[flow.idx()].in_flight += 1;
            if self.tracer.ns2_on() && self.is_wireless_node(src) {
                self.wtrace_packet('s', now, src, "AGT", "---", pid);
            }
            match memo {
                // `forward`'s decision for this address, as recorded above.
                Some(r) => self.enqueue(now, r.out, pid),
                None => self.forward(now, src, pid),
            }
        }
        let slot = &mut self.endpoints[id.idx()];
        if self.tracer.wants_events() {
            let flow = &self.flows[slot.flow.idx()].name;
            while let Some(ev) = slot.ep.poll_event() {
                let dest = match ev {
                    EndpointEvent::Sent { dest, .. } => {
                        let a = if dest == [0; 4] { slot.peer_addr } else { dest };
                        let (nodes, ifaces) = (&self.nodes, &self.ifaces);
                        addr_parts(a)
                            .and_then(|(n, k)| Some((nodes.get(n)?, *nodes.get(n)?.ifaces.get(k)?)))
                            .map_or(String::new(), |(node, i)| {
                                format!("{}:{}", node.name, ifaces[i.idx()].name)
                            })
                    }
                    _ => String::new(),
                };
                self.tracer.endpoint_event(now, flow, &ev, &dest);
            }
        }
        // Timers move later on almost every ack (RTO restarts). Rather than scheduling a
        // new event each time and leaving stale ones in the heap, keep the pending event
        // when the new deadline is later: it fires first and is re-armed then.
        if let Some((t, g)) = slot.timer.after_input(slot.ep.poll_timeout(), now) {
            self.queue.schedule(t, Event::Timer(id, g));
        }
        let flow = slot.flow;
        self.check_finished(flow);
    }

    fn timer(&mut self, now: SimTime, id: EndpointId, generation: u32) {
        let slot = &mut self.endpoints[id.idx()];
        if !slot.timer.fire(generation) {
            return;
        }
        match slot.ep.poll_timeout() {
            // The deadline moved later since this event was scheduled: re-arm.
            Some(t) if t > now => {
                let g = slot.timer.arm(t);
                self.queue.schedule(t, Event::Timer(id, g));
            }
            Some(_) => {
                slot.ep.handle_timeout(now);
                self.service(id, now);
            }
            None => {}
        }
    }

    fn check_finished(&mut self, flow: crate::net::FlowId) {
        let f = &mut self.flows[flow.idx()];
        if f.finished || f.in_flight > 0 {
            return;
        }
        if self.endpoints[f.sender.idx()].ep.is_done()
            && self.endpoints[f.receiver.idx()].ep.is_done()
        {
            f.finished = true;
            self.unfinished -= 1;
        }
    }

    /// Sends a packet from `node` towards its destination (or delivers it, if it is there).
    fn forward(&mut self, now: SimTime, node: NodeId, pid: PacketId) {
        self.forward_resolving(now, node, pid, None);
    }

    /// `forward` for a packet that has just arrived on `dir` at its far node: the
    /// decision is the one recorded on the link for the packet's address, if it is.
    fn forward_arrived(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        let link = &self.links[dir.idx()];
        match link.forward_memo.get(self.pool.get(pid).ip.dst) {
            Some(Hop::Out(out)) => self.enqueue(now, out, pid),
            Some(Hop::Deliver) => self.deliver(now, link.to, pid),
            None => self.forward_resolving(now, link.to, pid, Some(dir)),
        }
    }

    /// `forward` from the routes; a wired decision for a packet that came in on
    /// `arrived_on` is recorded there (`LinkDir::forward_memo`).
    fn forward_resolving(
        &mut self,
        now: SimTime,
        node: NodeId,
        pid: PacketId,
        arrived_on: Option<LinkDirId>,
    ) {
        let addr = self.pool.get(pid).ip.dst;
        let Some(dst) = self.addr_owner(addr) else {
            self.discard(pid);
            return;
        };
        if self.ifaces[dst.idx()].node == node {
            if let Some(d) = arrived_on {
                self.links[d.idx()].forward_memo.set(addr, Hop::Deliver);
            }
            self.deliver(now, node, pid);
            return;
        }
        match self.routes.next_hop(node, dst) {
            Some(iface) => {
                let dir = self.ifaces[iface.idx()].out;
                if let Some(d) = arrived_on {
                    self.links[d.idx()].forward_memo.set(addr, Hop::Out(dir));
                }
                self.enqueue(now, dir, pid);
            }
            None if self.ifaces[dst.idx()].nic.is_some() => {
                self.wireless_route(now, node, dst, pid)
            }
            None if self.sat.is_some() => self.sat_forward(now, node, dst, pid),
            // Validation rejects flows between disconnected nodes, so this is unreachable
            // for scenario traffic; drop rather than panic.
            None => self.discard(pid),
        }
    }

    /// Whether the wired interface `forward` would put `pid` on accepts it now (what a
    /// snoop agent asks before caching); local delivery and wireless hops count as room.
    fn next_hop_has_room(&mut self, node: NodeId, pid: PacketId) -> bool {
        let Some(dst) = self.addr_owner(self.pool.get(pid).ip.dst) else {
            return true;
        };
        if self.ifaces[dst.idx()].node == node {
            return true;
        }
        match self.routes.next_hop(node, dst) {
            Some(iface) => {
                let link = &self.links[self.ifaces[iface.idx()].out.idx()];
                let size = self.pool.get(pid).size;
                let busy = link.busy(&self.queue);
                match link.aqm.as_deref() {
                    Some(LinkAqm::Queue(a)) => !a.would_overflow(size, busy),
                    _ => !link.queue.would_drop(size, busy),
                }
            }
            None => true,
        }
    }

    // Always inlined (into the run loop's link memo and `service`): as a call of its
    // own, its prologue and the reloads of the link and the packet its callers had
    // just touched cost more than several of its checks.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId) {
        let link = &mut self.links[dir.idx()];
        let pkt = self.pool.get(pid);
        let (from, to) = (link.from.0, link.to.0);
        if !link.up {
            self.fault_drop(now, dir, pid);
            return;
        }
        if link.loss.at_entry && link.loss.is_active() && link.loss.lose(pkt) {
            if self.window.contains(now) {
                link.counters.loss_drops += 1;
            }
            if self.tracer.ns2_on() {
                self.tracer.ns2('d', now, from, to, pkt);
            }
            if self.tracer.anim_on() {
                self.tracer.anim_drop(now, link.from, pkt, "loss");
            }
            self.discard(pid);
            return;
        }
        if self.tracer.ns2_on() {
            self.tracer.ns2('+', now, from, to, pkt);
        }
        let busy = link.busy(&self.queue);
        if let Some(aqm) = link.aqm.as_deref_mut() {
            match aqm {
                // CoDel decides only at the head (RFC 8289 sec. 5): its arrivals take
                // drop-tail's way below. One that goes straight onto the idle wire
                // (nothing waits behind an idle transmitter) leaves the state CoDel's
                // dequeue would leave: sojourn 0, nothing behind it.
                LinkAqm::Codel(c) => {
                    if !busy && !link.queue.would_drop(pkt.size, false) {
                        c.state.pass_idle();
                    }
                }
                // PIE decides at arrival; what it queues, and what the hard limits
                // refuse, takes drop-tail's way below (the same count and trace).
                LinkAqm::Pie(p) => {
                    let full = link.queue.would_drop(pkt.size, busy);
                    let ect = pkt.ip.ecn != NOT_ECT;
                    let bytes = link.queue.bytes();
                    match p.arrival(now.as_nanos(), ect, bytes, busy, full) {
                        Admit::Queued | Admit::Dropped(DropCause::Limit) => {}
                        admit => return self.arrival_verdict(now, dir, pid, busy, admit),
                    }
                }
                LinkAqm::Red(_) => return self.enqueue_red(now, dir, pid),
                LinkAqm::Queue(_) => return self.enqueue_aqm(now, dir, pid),
            }
        }
        if link.queue.would_drop(pkt.size, busy) {
            if self.window.contains(now) {
                link.counters.queue_drops += 1;
            }
            if self.tracer.ns2_on() {
                self.tracer.ns2('d', now, from, to, pkt);
            }
            if self.tracer.anim_on() {
                self.tracer.anim_drop(now, link.from, pkt, "queue");
            }
            self.discard(pid);
            return;
        }
        if !busy {
            self.start_tx(now, dir, pid, SimDuration::ZERO);
        } else {
            link.queue.push(pid, pkt.size);
            self.pool.get_mut(pid).queued_at = now;
            // The end of the transmission now has work to do: it enters the queue with
            // the key it was given when the transmission started (`Transmitter`).
            debug_assert!(link.tx.end.at().is_some(), "a busy transmitter has an end");
            link.tx.end.enter_queue(&mut self.queue, Event::TxDone(dir));
        }
    }

    /// Starts transmitting `pid`, which waited `waited` in the queue.
    pub(super) fn start_tx(
        &mut self,
        now: SimTime,
        dir: LinkDirId,
        pid: PacketId,
        waited: SimDuration,
    ) {
        let satellite = dir.0 >= self.sat_links_from;
        if satellite {
            self.sat_set_delay(dir, now);
        }
        let link = &mut self.links[dir.idx()];
        let pkt = self.pool.get(pid);
        if self.tracer.ns2_on() {
            self.tracer.ns2('-', now, link.from.0, link.to.0, pkt);
        }
        if self.tracer.pcap_on() {
            self.tracer.pcap(link.from_iface.idx(), now, pkt);
        }
        let tx_end = now + link.tx_time_cached(pkt.size);
        if self.window.contains(now) {
            link.counters.tx_packets += 1;
            link.counters.tx_bytes += u64::from(pkt.size);
        }
        link.counters.busy_ns += overlap_ns(now, tx_end, self.window.start, self.window.end);
        // Queueing delay of the packets whose transmission ends in the window.
        if self.window.contains(tx_end) && self.stop_at.is_none_or(|s| tx_end <= s) {
            link.counters.queue_delay_ns += waited.as_nanos();
            link.counters.queue_delay_packets += 1;
        }
        link.counters.sample_delay_ns += waited.as_nanos();
        link.counters.sample_delay_packets += 1;
        // On-the-wire loss is decided as the packet goes onto the wire and takes effect at
        // the far end: a lost packet still occupies the link for its transmission time.
        let lost = !link.loss.at_entry && link.loss.is_active() && link.loss.lose(pkt);
        let arrive = tx_end + link.delay;
        // The end of transmission takes its sequence number here, before the arrival,
        // as when it was scheduled as an event (ns-2's order: `LinkDelay::recv`).
        link.tx.end.arm(tx_end, &mut self.queue);
        if satellite {
            // After a handover a satellite link ends at another satellite, perhaps nearer
            // than the one a packet still on the wire flies to (lost on arrival): its
            // arrivals can overtake, so they go in the general queue, not a FIFO lane
            // (the same keys, so the same order of events).
            self.queue.schedule(arrive, Event::Arrive(dir, pid, lost));
        } else {
            // A link's arrivals come in the order they leave: one FIFO lane per direction.
            self.queue
                .schedule_lane(dir.idx(), arrive, Event::Arrive(dir, pid, lost));
        }
        if self.tracer.anim_on() {
            self.anim_link_hop(now, dir, pid, arrive);
        }
    }

    fn tx_done(&mut self, now: SimTime, dir: LinkDirId) {
        let link = &mut self.links[dir.idx()];
        link.tx.end.popped();
        // RED's, CoDel's and PIE's packets wait in `queue` and leave by drop-tail's way
        // (`net/aqm/link.rs`), unless CoDel drops or marks at the head.
        match link.aqm.as_deref_mut() {
            None | Some(LinkAqm::Red(_)) => {}
            Some(LinkAqm::Codel(c)) => {
                if !c.head_passes(now.as_nanos(), &link.queue, &self.pool) {
                    return self.codel_start_next(now, dir);
                }
            }
            Some(LinkAqm::Pie(p)) => pie_departure(p, now.as_nanos(), &link.queue, &self.pool),
            Some(LinkAqm::Queue(_)) => return self.aqm_start_next(now, dir),
        }
        if let Some(next) = link.queue.pop() {
            let waited = now.saturating_since(self.pool.get(next).queued_at);
            self.start_tx(now, dir, next, waited);
            let link = &mut self.links[dir.idx()];
            if !link.queue.is_empty() {
                debug_assert!(!link.tx.end.queued(), "a transmission just started");
                link.tx.end.enter_queue(&mut self.queue, Event::TxDone(dir));
            }
        }
    }

    fn arrive(&mut self, now: SimTime, dir: LinkDirId, pid: PacketId, lost: bool) {
        let link = &mut self.links[dir.idx()];
        let (from, to, to_iface) = (link.from, link.to, link.to_iface);
        if !link.carried(now, self.pool.get(pid).size) {
            self.fault_drop(now, dir, pid);
            return;
        }
        if lost {
            if self.window.contains(now) {
                link.counters.loss_drops += 1;
            }
            if self.tracer.ns2_on() {
                self.tracer.ns2('d', now, from.0, to.0, self.pool.get(pid));
            }
            if self.tracer.anim_on() {
                self.tracer.anim_drop(now, to, self.pool.get(pid), "loss");
            }
            self.discard(pid);
            return;
        }
        if self.tracer.ns2_on() {
            self.tracer.ns2('r', now, from.0, to.0, self.pool.get(pid));
        }
        if self.tracer.pcap_on() {
            self.tracer.pcap(to_iface.idx(), now, self.pool.get(pid));
        }
        // Most worlds have no snoop agent: then no node needs looking at.
        if let Some(i) = self.snoops.first().and_then(|_| self.nodes[to.idx()].snoop) {
            if self.pool.get(pid).dst != to {
                let room = self.next_hop_has_room(to, pid);
                let verdict = self.snoops[i]
                    .agent
                    .on_packet(now, self.pool.get(pid), room);
                if verdict == crate::snoop::Verdict::Suppress {
                    self.discard(pid);
                    self.service_snoop(i, now);
                    return;
                }
                self.forward(now, to, pid);
                self.service_snoop(i, now);
                return;
            }
        }
        self.forward_arrived(now, dir, pid);
    }

    /// Sends a snoop agent's local retransmissions and (re)arms its timer.
    fn service_snoop(&mut self, i: usize, now: SimTime) {
        while let Some(copy) = self.snoops[i].agent.poll_transmit() {
            let pid = self.pool.alloc();
            let flow = copy.flow;
            *self.pool.get_mut(pid) = copy;
            self.pool.stamp(pid);
            self.flows[flow.idx()].in_flight += 1;
            let node = self.snoops[i].node;
            self.forward(now, node, pid);
        }
        let slot = &mut self.snoops[i];
        if let Some((t, g)) = slot.timer.after_input(slot.agent.poll_timeout(), now) {
            self.queue.schedule(t, Event::SnoopTimer(i as u32, g));
        }
    }

    fn snoop_timer(&mut self, now: SimTime, i: usize, generation: u32) {
        let slot = &mut self.snoops[i];
        if !slot.timer.fire(generation) {
            return;
        }
        match slot.agent.poll_timeout() {
            Some(t) if t > now => {
                let g = slot.timer.arm(t);
                self.queue.schedule(t, Event::SnoopTimer(i as u32, g));
            }
            Some(_) => {
                slot.agent.handle_timeout(now);
                self.service_snoop(i, now);
            }
            None => {}
        }
    }

    #[inline(always)]
    pub(super) fn deliver(&mut self, now: SimTime, node: NodeId, pid: PacketId) {
        if self.tracer.ns2_on() && self.is_wireless_node(node) {
            self.wtrace_packet('r', now, node, "AGT", "---", pid);
        }
        let pkt = self.pool.get(pid);
        if self.tracer.anim_on() {
            self.tracer.anim_delivered(pkt);
        }
        let proto = pkt.ip.protocol;
        let (from_port, port) = pkt.ports();
        let target = self.nodes[node.idx()]
            .ports
            .iter()
            .find(|&&(p, l, r, _)| p == proto && l == port && (r == 0 || r == from_port))
            .map(|&(_, _, _, ep)| ep);
        match target {
            Some(ep) => {
                if pkt.ip.ecn == CE && pkt.kind == PacketKind::Data && self.window.contains(now) {
                    if let Some(f) = self.flows.get_mut(pkt.flow.idx()) {
                        f.ce_marks += 1;
                    }
                }
                self.endpoints[ep.idx()].ep.handle_packet(now, pkt);
                self.discard(pid);
                self.service(ep, now);
            }
            None => self.discard(pid),
        }
    }

    /// Returns a packet to the pool and updates its flow's in-flight count.
    // Always inlined: every delivered packet ends here, and the call cost as much as
    // the few counters it updates.
    #[inline(always)]
    pub(super) fn discard(&mut self, pid: PacketId) {
        let flow = self.pool.get(pid).flow;
        self.pool.release(pid);
        if flow == NO_FLOW {
            return;
        }
        let f = &mut self.flows[flow.idx()];
        f.in_flight = f.in_flight.saturating_sub(1);
        if f.in_flight == 0 {
            self.check_finished(flow);
        }
    }
}
