//! AODV routing (RFC 3561) as ns-2.35's `Agent/AODV` implements it (aodv/aodv.cc,
//! aodv_rtable.*, aodv_rqueue.*, aodv_packet.h), built the way ns-2.35 builds it:
//! `AODV_LOCAL_REPAIR` and `AODV_LINK_LAYER_DETECTION` on (no HELLOs; a link break is
//! learnt only from the MAC giving up on a unicast data frame), `AODV_USE_LL_METRIC`
//! defined (ns-2.35's aodv.cc never reads it, so it changes nothing), `RREQ_GRAT_RREP`
//! off (no gratuitous replies).
//!
//! One [`Aodv`] runs per wireless NIC; its IPv4 address (a `u32`) is the agent's address
//! and every next hop is a neighbour's IPv4 address (the world maps it to a MAC address).
//! Sans-IO: inputs are [`Aodv::route`], [`Aodv::recv`], [`Aodv::link_failed`] and
//! [`Aodv::handle_timeout`]; outputs are [`Aodv::poll_output`] (control messages to
//! send, buffered data packets released or dropped, interface-queue purges: one queue,
//! in the order they were produced, as ns-2 schedules them) and [`Aodv::poll_timeout`].
//! Drain the output queue after every input.
//!
//! ns-2.35 behaviours kept on purpose (each is what the ns-2 binary does):
//! - The expanding ring search hardly ever runs: a fresh route entry's "last hop count"
//!   is 255 (`INFINITY2`), and `sendRequest` starts from the larger of it and the last
//!   TTL, so the first RREQ for a destination goes network-wide (TTL 30). Only an entry
//!   that was up once and went down restarts from its old hop count. [`AodvCfg::
//!   fresh_last_hop_count`] holds that 255; 0 gives the RFC's TTL_START ring.
//! - RREQ retries are driven by the 0.5 s purge timer, not by a per-request timer: a
//!   retry goes out at the first purge tick at or after the request's timeout.
//! - The local-repair timer is scheduled with the request's absolute timeout used as a
//!   delay (aodv.cc `local_rt_repair`), so it fires at `now + timeout_abs`.
//!   [`AodvCfg::local_repair_timer_quirk`] = false fires it at `timeout_abs` instead.
//! - An intermediate node's RREP lifetime is `(u_int32_t)(expire - now)` in whole
//!   seconds; for a route whose expiry lies in the past (a route under repair has expiry
//!   0) the C cast wraps (x86-64 behaviour: truncate to i64, keep the low 32 bits) and the
//!   requester keeps that route for ~136 years. Mirrored.
//! - Sequence numbers compare as plain unsigned integers (no RFC 3561 6.1 rollover).
//!
//! Layout: this file holds the agent's state and its entry points (the data-packet
//! path, message dispatch, timers); `aodv/table.rs` the route table, the route buffer's
//! use and the timer list; `aodv/discovery.rs` requests and replies; `aodv/errors.rs`
//! route errors, link breaks and local repair; `aodv/cfg.rs` the constants, outputs and
//! counters; `aodv/msg.rs` the messages; `aodv/rqueue.rs` the route buffer. The only
//! thing the world's accelerators read, the duplicate cache's answer for a request about
//! to be delivered, is in `aodv/shortcut.rs` (crate-private).

mod cfg;
mod discovery;
mod errors;
mod msg;
mod rqueue;
mod shortcut;
mod table;
#[cfg(test)]
mod tests;

pub use cfg::{AodvCfg, AodvCounters, AodvEvent, AodvOut, DropReason, RouteDecision};
#[cfg(test)]
use discovery::ns2_lifetime_s;
pub use msg::{AODV_UDP_PORT, AodvMsg, NS2_IP_HDR_LEN, Rerr, Rrep, Rreq, Unreachable};
use table::{Route, Timer, TimerKind};
pub use table::{RouteInfo, RouteState};

use std::collections::VecDeque;

use super::route_log::RouteLog;
use crate::net::PacketId;
use crate::sim::{RngStream, SimTime};
use rqueue::RouteQueue;

/// The limited broadcast address 255.255.255.255 (ns-2 `IP_BROADCAST`), used both as IP
/// destination and as the next hop of broadcast messages.
pub const BROADCAST: u32 = u32::MAX;

/// ns-2's "no hop count" marker (aodv_rtable.h `INFINITY2`).
const INFINITY_HOPS: u16 = 255;
/// Entries in the discovery-latency history (aodv_rtable.h `MAX_HISTORY`).
const MAX_HISTORY: usize = 3;
/// ns-2 sends no next hop for a route that is down (`rt_nexthop = 0`).
const NO_HOP: u32 = 0;
/// At most this many destinations fit in one ns-2 RERR (aodv_packet.h `AODV_MAX_ERRORS`).
const MAX_RERR_DESTS: usize = 100;

/// The agent's maps keyed by addresses (and broadcast ids) hash with FxHash: SipHash was
/// 0.9 % of a MANET run's instructions at 64 kb/s (a route lookup per packet forwarded),
/// and the keys come from the scenario, not from an adversary. Neither map is walked in
/// an order that matters (`by_dst` never, `bcast_ids` only by `retain`), as already with
/// SipHash's random keys.
type AddrMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// The AODV agent of one wireless NIC.
#[derive(Debug)]
pub struct Aodv {
    cfg: AodvCfg,
    addr: u32,
    rng: RngStream,
    /// Own sequence number (ns-2 starts at 2 and keeps it even).
    seqno: u32,
    /// Next broadcast id (ns-2 starts at 1).
    bid: u32,
    /// In creation order; ns-2 walks its table newest first, so loops go in reverse.
    routes: Vec<Route>,
    by_dst: AddrMap<u32, usize>,
    /// (source, broadcast id) -> when the entry may be purged.
    bcast_ids: AddrMap<(u32, u32), SimTime>,
    rq: RouteQueue,
    timers: Vec<Timer>,
    timer_seq: u64,
    /// Everything the agent asks of the world, in the order it asked (see
    /// [`Aodv::poll_output`]).
    out: VecDeque<AodvEvent>,
    counters: AodvCounters,
    /// Route-table changes for the animation trace (off unless it is recorded).
    log: RouteLog,
}

impl Aodv {
    /// An agent for the NIC with address `addr`. Its periodic timers (duplicate-cache
    /// purge every `bcast_id_save`, route purge every `purge_interval`) first run at
    /// time zero, as ns-2 starts every AODV agent at 0.0.
    pub fn new(cfg: AodvCfg, addr: u32, rng: RngStream) -> Aodv {
        let rq = RouteQueue::new(cfg.rtq_max_len, cfg.rtq_timeout);
        let mut a = Aodv {
            cfg,
            addr,
            rng,
            seqno: 2,
            bid: 1,
            routes: Vec::new(),
            by_dst: AddrMap::default(),
            bcast_ids: AddrMap::default(),
            rq,
            timers: Vec::with_capacity(4),
            timer_seq: 0,
            out: VecDeque::with_capacity(16),
            counters: AodvCounters::default(),
            log: RouteLog::default(),
        };
        // aodv.cc `command("start")`: the broadcast-id timer first, then the route timer.
        a.arm(SimTime::ZERO, TimerKind::BcastPurge);
        a.arm(SimTime::ZERO, TimerKind::RoutePurge);
        a
    }

    pub fn addr(&self) -> u32 {
        self.addr
    }

    pub fn cfg(&self) -> &AodvCfg {
        &self.cfg
    }

    pub fn counters(&self) -> &AodvCounters {
        &self.counters
    }

    /// The agent's own destination sequence number.
    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    /// Its route-table changes, for the animation trace.
    pub fn route_log_mut(&mut self) -> &mut RouteLog {
        &mut self.log
    }

    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.rq.len()
    }

    /// The route entry for `dst`, if the table has one.
    pub fn route_info(&self, dst: u32) -> Option<RouteInfo> {
        let rt = &self.routes[*self.by_dst.get(&dst)?];
        let up = rt.hops != INFINITY_HOPS;
        Some(RouteInfo {
            dst: rt.dst,
            state: rt.state,
            next_hop: (rt.next_hop != NO_HOP).then_some(rt.next_hop),
            hops: up.then_some(rt.hops),
            seqno: rt.seqno,
            expire: rt.expire,
            precursors: rt.precursors.clone(),
        })
    }

    /// A data packet needs a next hop (aodv.cc `recv` for non-AODV packets, then
    /// `rt_resolve`). `local`: originated here (ns-2: source is this node and the packet
    /// was never forwarded); otherwise it was received for forwarding. `ttl` is the IP
    /// TTL, updated in place: set to `NETWORK_DIAMETER` for local unicast packets,
    /// decremented for forwarded ones. Packets addressed to this node must be delivered
    /// by the world without calling this.
    pub fn route(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        src: u32,
        dst: u32,
        local: bool,
        ttl: &mut u8,
    ) -> RouteDecision {
        if local {
            if dst != BROADCAST {
                *ttl = self.cfg.network_diameter;
            }
        } else if src == self.addr {
            self.counters.count_drop(DropReason::RouteLoop);
            return RouteDecision::Drop(DropReason::RouteLoop);
        } else {
            *ttl = ttl.saturating_sub(1);
            if *ttl == 0 {
                self.counters.count_drop(DropReason::Ttl);
                return RouteDecision::Drop(DropReason::Ttl);
            }
        }
        if dst == BROADCAST {
            return RouteDecision::Forward {
                next_hop: BROADCAST,
            };
        }
        let i = self.lookup_or_add(dst);
        let rt = &mut self.routes[i];
        match rt.state {
            RouteState::Up => {
                // aodv.cc `forward()`: every use renews the route's life.
                rt.expire = now + self.cfg.active_route_timeout;
                RouteDecision::Forward {
                    next_hop: rt.next_hop,
                }
            }
            _ if src == self.addr => {
                self.enqueue(now, pkt, dst);
                self.send_request(now, dst);
                RouteDecision::Queued
            }
            RouteState::InRepair => {
                self.enqueue(now, pkt, dst);
                RouteDecision::Queued
            }
            RouteState::Down => {
                // rt_resolve: tell upstream at once (no jitter), then drop.
                let u = Unreachable {
                    dst,
                    seqno: rt.seqno,
                };
                self.send_error(vec![u], false);
                self.counters.rerr_sent += 1;
                self.counters.count_drop(DropReason::NoRoute);
                RouteDecision::Drop(DropReason::NoRoute)
            }
        }
    }

    /// An AODV message arrived (broadcast, or unicast through this node). `ip_src` is
    /// the IP source of the packet that carried it, which for every message this module
    /// sends is the neighbour that sent it; `ttl` is its IP TTL as received.
    pub fn recv(&mut self, now: SimTime, msg: &AodvMsg, ip_src: u32, ttl: u8) {
        // aodv.cc `recv`: AODV packets lose one TTL on arrival.
        let ttl = ttl.saturating_sub(1);
        match msg {
            AodvMsg::Rreq(q) => self.recv_request(now, q, ip_src, ttl),
            AodvMsg::Rrep(p) => self.recv_reply(now, p, ip_src, ttl),
            AodvMsg::Rerr(e) => self.recv_error(now, e, ip_src),
        }
    }

    /// The MAC gave up on unicast data packet `pkt` (retry limit) sent to `next_hop`
    /// (aodv.cc `rt_ll_failed`). `num_forwards` is how many times the packet has been
    /// received from a MAC so far (ns-2 `hdr_cmn::num_forwards`, 0 at its source).
    /// Only data packets that went through [`Aodv::route`] belong here; ns-2 gives AODV's
    /// own messages no failure callback, so the world just drops those.
    pub fn link_failed(
        &mut self,
        now: SimTime,
        next_hop: u32,
        pkt: PacketId,
        pkt_dst: u32,
        num_forwards: u32,
    ) {
        if pkt_dst == BROADCAST {
            self.drop_pkt(pkt, DropReason::MacCallback);
            return;
        }
        let Some(&i) = self.by_dst.get(&pkt_dst) else {
            self.drop_pkt(pkt, DropReason::MacCallback);
            return;
        };
        // The break is nearer the destination than the source: repair it here.
        if self.cfg.local_repair && num_forwards > u32::from(self.routes[i].hops) {
            self.local_repair(now, i, pkt);
            return;
        }
        self.drop_pkt(pkt, DropReason::MacCallback);
        self.out.push_back(AodvEvent::PurgeIfq { next_hop });
        self.nb_delete(next_hop);
    }

    /// Runs every timer due at or before `now`.
    pub fn handle_timeout(&mut self, now: SimTime) {
        loop {
            let due = self
                .timers
                .iter()
                .enumerate()
                .filter(|(_, t)| t.at <= now)
                .min_by_key(|(_, t)| (t.at, t.seq))
                .map(|(i, _)| i);
            let Some(i) = due else { break };
            let t = self.timers.swap_remove(i);
            match t.kind {
                TimerKind::BcastPurge => {
                    self.bcast_ids.retain(|_, &mut expire| expire > now);
                    self.arm(t.at + self.cfg.bcast_id_save, TimerKind::BcastPurge);
                }
                TimerKind::RoutePurge => {
                    self.rt_purge(now);
                    self.arm(t.at + self.cfg.purge_interval, TimerKind::RoutePurge);
                }
                TimerKind::LocalRepair { dst } => self.local_repair_timeout(dst),
            }
        }
    }

    /// The earliest pending timer.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timers.iter().map(|t| t.at).min()
    }

    /// The next thing to do, in the order the agent produced them. ns-2.35's agent hands
    /// every packet to its link layer with `Scheduler::schedule(target_, p, delay)`, and
    /// events due at one time run first in, first out, so what it sends reaches the LL
    /// in the order it was produced: `recvRequest` forwards the packets buffered for the
    /// requester before `sendReply`, `recvReply` releases the buffered packets before
    /// forwarding the reply, `rt_purge` releases and requests destination by destination.
    /// That order decides which packet ARP keeps when the next hop is unresolved (it
    /// holds one, the newest): the reply, not the data packet released before it.
    pub fn poll_output(&mut self) -> Option<AodvEvent> {
        self.out.pop_front()
    }

    /// Queues a control message behind everything produced before it.
    fn send(&mut self, o: AodvOut) {
        self.out.push_back(AodvEvent::Send(o));
    }
}
