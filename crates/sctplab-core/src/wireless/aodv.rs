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

mod msg;
mod rqueue;
#[cfg(test)]
mod tests;

pub use msg::{AODV_UDP_PORT, AodvMsg, NS2_IP_HDR_LEN, Rerr, Rrep, Rreq, Unreachable};

use std::collections::VecDeque;

use crate::net::PacketId;
use crate::sim::{RngStream, SimDuration, SimTime};
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

/// Every AODV constant, with ns-2.35's values in [`AodvCfg::ns2`] (aodv/aodv.h,
/// aodv/aodv_rqueue.h, aodv/aodv.cc).
#[derive(Clone, Debug, PartialEq)]
pub struct AodvCfg {
    /// `ACTIVE_ROUTE_TIMEOUT` 10 s: a route's life is renewed to this on every use.
    pub active_route_timeout: SimDuration,
    /// `MY_ROUTE_TIMEOUT` 10 s: lifetime a destination puts in its own RREP (whole
    /// seconds, as the RREP carries it).
    pub my_route_timeout_s: u32,
    /// `REV_ROUTE_LIFE` 6 s: minimum life of a reverse route set up by a RREQ.
    pub rev_route_life: SimDuration,
    /// `BCAST_ID_SAVE` 6 s: life of a (source, broadcast id) pair in the duplicate cache,
    /// which is also the period of the timer that purges it.
    pub bcast_id_save: SimDuration,
    /// `RREQ_RETRIES` 3: network-wide requests allowed before the long back-off.
    pub rreq_retries: u8,
    /// `MAX_RREQ_TIMEOUT` 10 s: cap on one request's timeout, and the back-off after
    /// the retries are used up.
    pub max_rreq_timeout: SimDuration,
    /// `TTL_START` 5 (expanding ring search; see `fresh_last_hop_count`).
    pub ttl_start: u8,
    /// `TTL_INCREMENT` 2.
    pub ttl_increment: u8,
    /// `TTL_THRESHOLD` 7: from this last TTL on, requests go network-wide.
    pub ttl_threshold: u8,
    /// `NODE_TRAVERSAL_TIME` 30 ms: per-hop time until discovery latencies are measured.
    pub node_traversal_time: SimDuration,
    /// `NETWORK_DIAMETER` 30: TTL of network-wide RREQs, RREPs and originated data.
    pub network_diameter: u8,
    /// `RREP_WAIT_TIME` 1 s. Defined in aodv.h but never read by ns-2.35's aodv.cc;
    /// kept for reference, unused here too.
    pub rrep_wait_time: SimDuration,
    /// `LOCAL_REPAIR_WAIT_TIME` 0.15 s. Defined but never read by ns-2.35 (the
    /// local-repair timer uses the request timeout instead); unused here too.
    pub local_repair_wait_time: SimDuration,
    /// `BAD_LINK_LIFETIME` 3 s. Defined but never read by ns-2.35; unused here too.
    pub bad_link_lifetime: SimDuration,
    /// Broadcast jitter: forwarded RREQs and propagated RERRs wait `U(0,1)` times this
    /// (aodv.cc `forward()`, `sendError()`: 0.01 s).
    pub broadcast_jitter: SimDuration,
    /// `ARP_DELAY` 10 ms: spacing of buffered packets released together.
    pub arp_delay: SimDuration,
    /// Period of the route-table purge timer (aodv.cc `FREQUENCY` 0.5 s), which also
    /// drives RREQ retries.
    pub purge_interval: SimDuration,
    /// `AODV_RTQ_MAX_LEN` 64 packets awaiting a route.
    pub rtq_max_len: usize,
    /// `AODV_RTQ_TIMEOUT` 30 s in that buffer.
    pub rtq_timeout: SimDuration,
    /// `AODV_LOCAL_REPAIR` (defined in ns-2.35).
    pub local_repair: bool,
    /// A fresh route entry's "last hop count" (aodv_rtable.cc: `INFINITY2` = 255), which
    /// disables the expanding ring search for first discoveries. 0 gives RFC 3561's ring.
    pub fresh_last_hop_count: u16,
    /// Schedule the local-repair timer at `now + absolute timeout` as ns-2.35 does
    /// (true), or at the absolute timeout (false).
    pub local_repair_timer_quirk: bool,
}

impl AodvCfg {
    /// ns-2.35's compile-time values.
    pub fn ns2() -> Self {
        AodvCfg {
            active_route_timeout: SimDuration::from_secs(10),
            my_route_timeout_s: 10,
            rev_route_life: SimDuration::from_secs(6),
            bcast_id_save: SimDuration::from_secs(6),
            rreq_retries: 3,
            max_rreq_timeout: SimDuration::from_secs(10),
            ttl_start: 5,
            ttl_increment: 2,
            ttl_threshold: 7,
            node_traversal_time: SimDuration::from_millis(30),
            network_diameter: 30,
            rrep_wait_time: SimDuration::from_secs(1),
            local_repair_wait_time: SimDuration::from_millis(150),
            bad_link_lifetime: SimDuration::from_secs(3),
            broadcast_jitter: SimDuration::from_millis(10),
            arp_delay: SimDuration::from_millis(10),
            purge_interval: SimDuration::from_millis(500),
            rtq_max_len: 64,
            rtq_timeout: SimDuration::from_secs(30),
            local_repair: true,
            fresh_last_hop_count: INFINITY_HOPS,
            local_repair_timer_quirk: true,
        }
    }
}

impl Default for AodvCfg {
    fn default() -> Self {
        AodvCfg::ns2()
    }
}

/// Why AODV dropped a data packet, with ns-2's trace code (trace/cmu-trace.h).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// "NRTE": no route (forwarding with the route down, route expired with packets
    /// buffered, or the request retries used up).
    NoRoute,
    /// "LOOP": a packet this node originated came back to it.
    RouteLoop,
    /// "TTL": the IP TTL reached zero.
    Ttl,
    /// "IFQ" (`DROP_RTR_QFULL`): pushed out of the full route buffer.
    QueueFull,
    /// "TOUT": waited longer than the route buffer allows.
    QueueTimeout,
    /// "CBK": the MAC gave up on it, or it sat in the interface queue behind a broken link.
    MacCallback,
}

impl DropReason {
    pub fn ns2_code(self) -> &'static str {
        match self {
            DropReason::NoRoute => "NRTE",
            DropReason::RouteLoop => "LOOP",
            DropReason::Ttl => "TTL",
            DropReason::QueueFull => "IFQ",
            DropReason::QueueTimeout => "TOUT",
            DropReason::MacCallback => "CBK",
        }
    }
}

/// What to do with a data packet handed to [`Aodv::route`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RouteDecision {
    /// Hand it to the interface queue now, addressed to `next_hop` ([`BROADCAST`] for a
    /// broadcast packet).
    Forward { next_hop: u32 },
    /// AODV keeps it; it comes back later as [`AodvEvent::Forward`] or
    /// [`AodvEvent::Drop`] (possibly already among this call's outputs).
    Queued,
    /// Drop it with this reason (already counted).
    Drop(DropReason),
}

/// A control message to send.
#[derive(Clone, Debug, PartialEq)]
pub struct AodvOut {
    pub msg: AodvMsg,
    pub ip_src: u32,
    /// [`BROADCAST`] or the unicast IP destination.
    pub ip_dst: u32,
    /// The neighbour to send to; [`BROADCAST`] for broadcasts.
    pub next_hop: u32,
    /// IP TTL to send with.
    pub ttl: u8,
    /// Hand the message to the link layer this long after the call that produced it
    /// (broadcast jitter; zero means at once).
    pub delay: SimDuration,
}

impl AodvOut {
    /// Bytes ns-2.35 puts on the air for it (IP header, no UDP header).
    pub fn ns2_len(&self) -> u32 {
        self.msg.ns2_len()
    }
}

/// Something the world must do, taken from [`Aodv::poll_output`] in the order the agent
/// produced it.
#[derive(Clone, Debug, PartialEq)]
pub enum AodvEvent {
    /// Send a control message (its own delay says when it reaches the link layer).
    Send(AodvOut),
    /// A buffered data packet has a route: hand it to the interface queue after `delay`
    /// (ns-2 spaces packets released together by `ARP_DELAY`).
    Forward {
        pkt: PacketId,
        next_hop: u32,
        delay: SimDuration,
    },
    /// Drop a data packet AODV held or was told about (counted already).
    Drop { pkt: PacketId, reason: DropReason },
    /// Remove every packet whose next hop is `next_hop` from this NIC's interface queue
    /// (not the frame the MAC is sending) and drop them as `MacCallback` ("CBK"):
    /// ns-2's `PriQueue::filter(id)` loops in `rt_ll_failed` and `recvError`. ns-2.35
    /// drops them rather than re-routing them.
    PurgeIfq { next_hop: u32 },
}

/// Counts for summaries and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AodvCounters {
    /// RREQs this node originated (discoveries, retries and local repairs).
    pub rreq_sent: u64,
    pub rreq_forwarded: u64,
    pub rreq_received: u64,
    /// RREQs discarded because (source, broadcast id) was in the cache.
    pub rreq_duplicate: u64,
    /// RREPs sent as the destination.
    pub rrep_sent: u64,
    /// RREPs sent by an intermediate node with a fresh enough route.
    pub rrep_intermediate: u64,
    pub rrep_forwarded: u64,
    pub rrep_received: u64,
    /// RREPs not forwarded for want of a reverse route ("NRTE" in ns-2).
    pub rrep_dropped_no_route: u64,
    /// Replies not sent because the reverse route had no next hop (see module docs).
    pub rrep_no_next_hop: u64,
    /// RERRs originated: link breaks and data with no route to forward on.
    pub rerr_sent: u64,
    /// RERRs sent on receipt of a RERR (propagation to precursors).
    pub rerr_forwarded: u64,
    pub rerr_received: u64,
    /// Control messages not forwarded because their TTL ran out.
    pub ctrl_dropped_ttl: u64,
    pub local_repairs: u64,
    /// Local-repair timers that found the route still not repaired.
    pub local_repair_failures: u64,
    /// Neighbours declared lost (`nb_delete`).
    pub link_breaks: u64,
    pub drop_no_route: u64,
    pub drop_route_loop: u64,
    pub drop_ttl: u64,
    pub drop_queue_full: u64,
    pub drop_queue_timeout: u64,
    pub drop_mac_callback: u64,
}

impl AodvCounters {
    fn count_drop(&mut self, reason: DropReason) {
        let c = match reason {
            DropReason::NoRoute => &mut self.drop_no_route,
            DropReason::RouteLoop => &mut self.drop_route_loop,
            DropReason::Ttl => &mut self.drop_ttl,
            DropReason::QueueFull => &mut self.drop_queue_full,
            DropReason::QueueTimeout => &mut self.drop_queue_timeout,
            DropReason::MacCallback => &mut self.drop_mac_callback,
        };
        *c += 1;
    }
}

/// A route entry's state (aodv_rtable.h `RTF_DOWN`, `RTF_UP`, `RTF_IN_REPAIR`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RouteState {
    Down,
    Up,
    InRepair,
}

/// A read-only view of one route entry.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteInfo {
    pub dst: u32,
    pub state: RouteState,
    /// `None` while the route is down.
    pub next_hop: Option<u32>,
    /// `None` while the route is down (ns-2's 255).
    pub hops: Option<u16>,
    pub seqno: u32,
    pub expire: SimTime,
    pub precursors: Vec<u32>,
}

#[derive(Clone, Debug)]
struct Route {
    dst: u32,
    seqno: u32,
    hops: u16,
    last_hop_count: u16,
    next_hop: u32,
    /// Newest first, as ns-2's list insertion at the head.
    precursors: Vec<u32>,
    expire: SimTime,
    state: RouteState,
    /// When another request may go out (absolute; zero = none pending).
    req_timeout: SimTime,
    req_cnt: u8,
    req_last_ttl: u16,
    /// Per-hop discovery latencies in seconds (0 = empty slot).
    disc_latency: [f64; MAX_HISTORY],
    hist_indx: usize,
}

impl Route {
    fn new(dst: u32, fresh_last_hop_count: u16) -> Self {
        Route {
            dst,
            seqno: 0,
            hops: INFINITY_HOPS,
            last_hop_count: fresh_last_hop_count,
            next_hop: NO_HOP,
            precursors: Vec::new(),
            expire: SimTime::ZERO,
            state: RouteState::Down,
            req_timeout: SimTime::ZERO,
            req_cnt: 0,
            req_last_ttl: 0,
            disc_latency: [0.0; MAX_HISTORY],
            hist_indx: 0,
        }
    }

    /// aodv.cc `rt_update`.
    fn update(&mut self, seqno: u32, hops: u8, next_hop: u32, expire: SimTime) {
        self.seqno = seqno;
        self.hops = u16::from(hops);
        self.state = RouteState::Up;
        self.next_hop = next_hop;
        self.expire = expire;
    }

    /// aodv.cc `rt_down`.
    fn down(&mut self) {
        if self.state == RouteState::Down {
            return;
        }
        self.last_hop_count = self.hops;
        self.hops = INFINITY_HOPS;
        self.state = RouteState::Down;
        self.next_hop = NO_HOP;
        self.expire = SimTime::ZERO;
    }

    fn pc_insert(&mut self, id: u32) {
        if !self.precursors.contains(&id) {
            self.precursors.insert(0, id);
        }
    }

    fn pc_delete(&mut self, id: u32) {
        if let Some(i) = self.precursors.iter().position(|&p| p == id) {
            self.precursors.remove(i);
        }
    }

    /// aodv.cc `PerHopTime`: mean of the measured per-hop latencies, else the default.
    fn per_hop_time(&self, default: SimDuration) -> f64 {
        let (n, sum) = self
            .disc_latency
            .iter()
            .filter(|&&l| l > 0.0)
            .fold((0u32, 0.0), |(n, s), &l| (n + 1, s + l));
        if n > 0 {
            sum / f64::from(n)
        } else {
            default.as_secs_f64()
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TimerKind {
    BcastPurge,
    RoutePurge,
    LocalRepair { dst: u32 },
}

#[derive(Copy, Clone, Debug)]
struct Timer {
    at: SimTime,
    /// Insertion order: ns-2's scheduler runs events due at the same time first-in
    /// first-out.
    seq: u64,
    kind: TimerKind,
}

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

    // ---- route table ----

    fn lookup_or_add(&mut self, dst: u32) -> usize {
        if let Some(&i) = self.by_dst.get(&dst) {
            return i;
        }
        self.routes
            .push(Route::new(dst, self.cfg.fresh_last_hop_count));
        let i = self.routes.len() - 1;
        self.by_dst.insert(dst, i);
        i
    }

    /// aodv.cc `rt_purge`, every `purge_interval`.
    fn rt_purge(&mut self, now: SimTime) {
        // One delay for the whole sweep, as in ns-2.
        let mut delay = SimDuration::ZERO;
        for i in (0..self.routes.len()).rev() {
            let dst = self.routes[i].dst;
            let state = self.routes[i].state;
            if state == RouteState::Up && self.routes[i].expire < now {
                while let Some(p) = self.dequeue(now, dst) {
                    self.drop_pkt(p, DropReason::NoRoute);
                }
                let rt = &mut self.routes[i];
                rt.seqno = rt.seqno.wrapping_add(1);
                rt.down();
            } else if state == RouteState::Up {
                while let Some(p) = self.dequeue(now, dst) {
                    self.forward_data(now, i, p, delay);
                    delay = delay + self.cfg.arp_delay;
                }
            } else if self.rq.contains(dst) {
                self.send_request(now, dst);
            }
        }
    }

    // ---- route buffer ----

    fn enqueue(&mut self, now: SimTime, pkt: PacketId, dst: u32) {
        let (events, counters) = (&mut self.out, &mut self.counters);
        self.rq.enqueue(now, pkt, dst, |p, r| {
            counters.count_drop(r);
            events.push_back(AodvEvent::Drop { pkt: p, reason: r });
        });
    }

    fn dequeue(&mut self, now: SimTime, dst: u32) -> Option<PacketId> {
        let (events, counters) = (&mut self.out, &mut self.counters);
        self.rq.dequeue(now, dst, |p, r| {
            counters.count_drop(r);
            events.push_back(AodvEvent::Drop { pkt: p, reason: r });
        })
    }

    fn drop_pkt(&mut self, pkt: PacketId, reason: DropReason) {
        self.counters.count_drop(reason);
        self.out.push_back(AodvEvent::Drop { pkt, reason });
    }

    /// aodv.cc `forward(rt, p, delay)` for a data packet on an up route.
    fn forward_data(&mut self, now: SimTime, i: usize, pkt: PacketId, delay: SimDuration) {
        let rt = &mut self.routes[i];
        rt.expire = now + self.cfg.active_route_timeout;
        self.out.push_back(AodvEvent::Forward {
            pkt,
            next_hop: rt.next_hop,
            delay,
        });
    }

    // ---- discovery ----

    /// aodv.cc `sendRequest`: rate limit, retry accounting, TTL choice and timeout.
    fn send_request(&mut self, now: SimTime, dst: u32) {
        let Some(&i) = self.by_dst.get(&dst) else {
            return;
        };
        let cfg = &self.cfg;
        let rt = &mut self.routes[i];
        if rt.state == RouteState::Up || rt.req_timeout > now {
            return;
        }
        if rt.req_cnt > cfg.rreq_retries {
            // Retries used up: back off, and give up on the packets waiting.
            rt.req_timeout = now + cfg.max_rreq_timeout;
            rt.req_cnt = 0;
            while let Some(p) = self.dequeue(now, dst) {
                self.drop_pkt(p, DropReason::NoRoute);
            }
            return;
        }
        rt.req_last_ttl = rt.req_last_ttl.max(rt.last_hop_count);
        let ttl: u16 = if rt.req_last_ttl == 0 {
            u16::from(cfg.ttl_start)
        } else if rt.req_last_ttl < u16::from(cfg.ttl_threshold) {
            rt.req_last_ttl + u16::from(cfg.ttl_increment)
        } else {
            rt.req_cnt = rt.req_cnt.saturating_add(1);
            u16::from(cfg.network_diameter)
        };
        rt.req_last_ttl = ttl;
        // Twice the ring's round trip at the measured per-hop time, longer after each
        // network-wide attempt, never more than MAX_RREQ_TIMEOUT.
        let mut secs = 2.0 * f64::from(ttl) * rt.per_hop_time(cfg.node_traversal_time);
        if rt.req_cnt > 0 {
            secs *= f64::from(rt.req_cnt);
        }
        let wait = SimDuration::from_secs_f64(secs).min(cfg.max_rreq_timeout);
        rt.req_timeout = now + wait;
        rt.expire = SimTime::ZERO;
        let dst_seqno = rt.seqno;

        self.seqno = self.seqno.wrapping_add(2);
        let bcast_id = self.bid;
        self.bid = self.bid.wrapping_add(1);
        self.counters.rreq_sent += 1;
        self.send(AodvOut {
            msg: AodvMsg::Rreq(Rreq {
                hop_count: 1,
                bcast_id,
                dst,
                dst_seqno,
                src: self.addr,
                src_seqno: self.seqno,
                timestamp: now,
            }),
            ip_src: self.addr,
            ip_dst: BROADCAST,
            next_hop: BROADCAST,
            ttl: u8::try_from(ttl).unwrap_or(u8::MAX),
            // ns-2 sends its own RREQs without jitter.
            delay: SimDuration::ZERO,
        });
    }

    /// Whether route request `(src, bcast_id)`, taken by this agent at the latest at
    /// `by`, would only be counted (`recv_request`: a repeat of one it has seen, not
    /// its own): its entry among the seen requests outlives every purge until then
    /// (a purge drops the entries expired at its time).
    pub fn knows_request(&self, src: u32, bcast_id: u32, by: SimTime) -> bool {
        src != self.addr
            && self
                .bcast_ids
                .get(&(src, bcast_id))
                .is_some_and(|&expire| expire > by)
    }

    /// The routing agent takes `n` repeats of route requests it has seen
    /// (`knows_request`) that the world only counted (`Mac::take_quiet_ups`).
    pub fn count_repeated_requests(&mut self, n: u64) {
        self.counters.rreq_received += n;
        self.counters.rreq_duplicate += n;
    }

    /// aodv.cc `recvRequest`.
    fn recv_request(&mut self, now: SimTime, q: &Rreq, ip_src: u32, ttl: u8) {
        self.counters.rreq_received += 1;
        if q.src == self.addr {
            return;
        }
        if self.bcast_ids.contains_key(&(q.src, q.bcast_id)) {
            self.counters.rreq_duplicate += 1;
            return;
        }
        self.bcast_ids
            .insert((q.src, q.bcast_id), now + self.cfg.bcast_id_save);

        // Reverse route towards the originator.
        let r0 = self.lookup_or_add(q.src);
        let rev_life = now + self.cfg.rev_route_life;
        let rt0 = &mut self.routes[r0];
        rt0.expire = rt0.expire.max(rev_life);
        if q.src_seqno > rt0.seqno
            || (q.src_seqno == rt0.seqno && u16::from(q.hop_count) < rt0.hops)
        {
            let expire = rt0.expire.max(rev_life);
            rt0.update(q.src_seqno, q.hop_count, ip_src, expire);
            if rt0.req_timeout > SimTime::ZERO {
                // This node was itself looking for the originator: the search is over.
                rt0.req_cnt = 0;
                rt0.req_timeout = SimTime::ZERO;
                rt0.req_last_ttl = u16::from(q.hop_count);
                rt0.expire = now + self.cfg.active_route_timeout;
            }
            while let Some(p) = self.dequeue(now, q.src) {
                self.forward_data(now, r0, p, SimDuration::ZERO);
            }
        }

        let rt = self.by_dst.get(&q.dst).copied();
        if q.dst == self.addr {
            // Destination: a sequence number newer than any the requester knows, even.
            self.seqno = self.seqno.max(q.dst_seqno).wrapping_add(1);
            if self.seqno % 2 == 1 {
                self.seqno = self.seqno.wrapping_add(1);
            }
            let lifetime = self.cfg.my_route_timeout_s;
            if self.send_reply(q.src, 1, self.addr, self.seqno, lifetime, q.timestamp) {
                self.counters.rrep_sent += 1;
            }
        } else if let Some(i) = rt.filter(|&i| {
            self.routes[i].hops != INFINITY_HOPS && self.routes[i].seqno >= q.dst_seqno
        }) {
            // An intermediate node with a route at least as fresh as asked for. ns-2 does
            // not require the route to be up: one under repair also answers.
            let (hops, seqno, expire, next) = {
                let r = &self.routes[i];
                (r.hops, r.seqno, r.expire, r.next_hop)
            };
            let lifetime = ns2_lifetime_s(expire, now);
            let hop_count = u8::try_from(hops + 1).unwrap_or(u8::MAX);
            if self.send_reply(q.src, hop_count, q.dst, seqno, lifetime, q.timestamp) {
                self.counters.rrep_intermediate += 1;
            }
            let prev = self.routes[r0].next_hop;
            self.routes[i].pc_insert(prev);
            self.routes[r0].pc_insert(next);
        } else {
            let mut fwd = q.clone();
            fwd.hop_count = fwd.hop_count.saturating_add(1);
            if let Some(i) = rt {
                fwd.dst_seqno = fwd.dst_seqno.max(self.routes[i].seqno);
            }
            if ttl == 0 {
                self.counters.ctrl_dropped_ttl += 1;
                return;
            }
            let delay = self.jitter();
            self.counters.rreq_forwarded += 1;
            self.send(AodvOut {
                msg: AodvMsg::Rreq(fwd),
                ip_src: self.addr,
                ip_dst: BROADCAST,
                next_hop: BROADCAST,
                ttl,
                delay,
            });
        }
    }

    /// aodv.cc `sendReply`: unicast towards `ipdst` along its (reverse) route.
    fn send_reply(
        &mut self,
        ipdst: u32,
        hop_count: u8,
        dst: u32,
        dst_seqno: u32,
        lifetime_s: u32,
        timestamp: SimTime,
    ) -> bool {
        let next_hop = self
            .by_dst
            .get(&ipdst)
            .map_or(NO_HOP, |&i| self.routes[i].next_hop);
        if next_hop == NO_HOP {
            // ns-2 would hand the reply to "node 0"; there is no such neighbour here.
            self.counters.rrep_no_next_hop += 1;
            return false;
        }
        self.send(AodvOut {
            msg: AodvMsg::Rrep(Rrep {
                hop_count,
                dst,
                dst_seqno,
                orig: ipdst,
                lifetime_s,
                timestamp,
            }),
            ip_src: self.addr,
            ip_dst: ipdst,
            next_hop,
            ttl: self.cfg.network_diameter,
            delay: SimDuration::ZERO,
        });
        true
    }

    /// aodv.cc `recvReply`.
    fn recv_reply(&mut self, now: SimTime, p: &Rrep, ip_src: u32, ttl: u8) {
        self.counters.rrep_received += 1;
        let i = self.lookup_or_add(p.dst);
        let rt = &mut self.routes[i];
        let fresher =
            rt.seqno < p.dst_seqno || (rt.seqno == p.dst_seqno && rt.hops > u16::from(p.hop_count));
        if fresher {
            let expire = now + SimDuration::from_secs(u64::from(p.lifetime_s));
            rt.update(p.dst_seqno, p.hop_count, ip_src, expire);
            rt.req_cnt = 0;
            rt.req_timeout = SimTime::ZERO;
            rt.req_last_ttl = u16::from(p.hop_count);
            if p.orig == self.addr && p.hop_count > 0 {
                let per_hop =
                    now.saturating_since(p.timestamp).as_secs_f64() / f64::from(p.hop_count);
                rt.disc_latency[rt.hist_indx] = per_hop;
                rt.hist_indx = (rt.hist_indx + 1) % MAX_HISTORY;
            }
            // Release what waited for this destination, spaced to spare ARP.
            let mut delay = SimDuration::ZERO;
            while let Some(pkt) = self.dequeue(now, p.dst) {
                self.forward_data(now, i, pkt, delay);
                delay = delay + self.cfg.arp_delay;
            }
        }
        if p.orig == self.addr || !fresher {
            return;
        }
        let r0 = self
            .by_dst
            .get(&p.orig)
            .copied()
            .filter(|&r0| self.routes[r0].hops != INFINITY_HOPS);
        let Some(r0) = r0 else {
            self.counters.rrep_dropped_no_route += 1;
            return;
        };
        let next_hop = self.routes[r0].next_hop;
        if ttl == 0 {
            self.counters.ctrl_dropped_ttl += 1;
        } else {
            self.routes[r0].expire = now + self.cfg.active_route_timeout;
            let mut fwd = p.clone();
            fwd.hop_count = fwd.hop_count.saturating_add(1);
            self.counters.rrep_forwarded += 1;
            self.send(AodvOut {
                msg: AodvMsg::Rrep(fwd),
                ip_src: self.addr,
                ip_dst: p.orig,
                next_hop,
                ttl,
                delay: SimDuration::ZERO,
            });
        }
        self.routes[i].pc_insert(next_hop);
    }

    // ---- route errors and link breaks ----

    /// aodv.cc `recvError`.
    fn recv_error(&mut self, _now: SimTime, e: &Rerr, ip_src: u32) {
        self.counters.rerr_received += 1;
        let mut propagate = Vec::new();
        let mut purged = false;
        for u in &e.unreachable {
            let Some(&i) = self.by_dst.get(&u.dst) else {
                continue;
            };
            let rt = &mut self.routes[i];
            if rt.hops != INFINITY_HOPS && rt.next_hop == ip_src && rt.seqno <= u.seqno {
                rt.seqno = u.seqno;
                rt.down();
                if !purged {
                    // ns-2 filters the interface queue once per matching entry; after the
                    // first pass nothing for that neighbour is left.
                    self.out.push_back(AodvEvent::PurgeIfq { next_hop: ip_src });
                    purged = true;
                }
                if !rt.precursors.is_empty() && propagate.len() < MAX_RERR_DESTS {
                    propagate.push(Unreachable {
                        dst: rt.dst,
                        seqno: rt.seqno,
                    });
                    rt.precursors.clear();
                }
            }
        }
        if !propagate.is_empty() {
            self.counters.rerr_forwarded += 1;
            self.send_error(propagate, true);
        }
    }

    /// aodv.cc `sendError`: broadcast, TTL 1, jittered or not.
    fn send_error(&mut self, unreachable: Vec<Unreachable>, jitter: bool) {
        let delay = if jitter {
            self.jitter()
        } else {
            SimDuration::ZERO
        };
        self.send(AodvOut {
            msg: AodvMsg::Rerr(Rerr { unreachable }),
            ip_src: self.addr,
            ip_dst: BROADCAST,
            next_hop: BROADCAST,
            ttl: 1,
            delay,
        });
    }

    /// aodv.cc `nb_delete`: the neighbour set changed (own sequence number + 2), then
    /// `handle_link_failure`.
    fn nb_delete(&mut self, id: u32) {
        self.seqno = self.seqno.wrapping_add(2);
        self.counters.link_breaks += 1;
        let mut lost = Vec::new();
        for rt in self.routes.iter_mut().rev() {
            if rt.hops != INFINITY_HOPS && rt.next_hop == id {
                rt.seqno = rt.seqno.wrapping_add(1);
                if lost.len() < MAX_RERR_DESTS {
                    lost.push(Unreachable {
                        dst: rt.dst,
                        seqno: rt.seqno,
                    });
                }
                rt.down();
            }
            rt.pc_delete(id);
        }
        if !lost.is_empty() {
            // Sent whether or not anyone uses the routes, and without jitter.
            self.counters.rerr_sent += 1;
            self.send_error(lost, false);
        }
    }

    /// aodv.cc `local_rt_repair`.
    fn local_repair(&mut self, now: SimTime, i: usize, pkt: PacketId) {
        self.counters.local_repairs += 1;
        let dst = self.routes[i].dst;
        self.enqueue(now, pkt, dst);
        self.routes[i].state = RouteState::InRepair;
        self.send_request(now, dst);
        let timeout = self.routes[i].req_timeout;
        let at = if self.cfg.local_repair_timer_quirk {
            now + (timeout - SimTime::ZERO)
        } else {
            timeout.max(now)
        };
        self.arm(at, TimerKind::LocalRepair { dst });
    }

    /// aodv.cc `LocalRepairTimer::handle`: not repaired in time, so the route goes down
    /// (ns-2 sends no RERR here despite its comment).
    fn local_repair_timeout(&mut self, dst: u32) {
        let Some(&i) = self.by_dst.get(&dst) else {
            return;
        };
        if self.routes[i].state != RouteState::Up {
            self.counters.local_repair_failures += 1;
            self.routes[i].down();
        }
    }

    // ---- helpers ----

    fn arm(&mut self, at: SimTime, kind: TimerKind) {
        self.timer_seq += 1;
        self.timers.push(Timer {
            at,
            seq: self.timer_seq,
            kind,
        });
    }

    fn jitter(&mut self) -> SimDuration {
        SimDuration::from_secs_f64(self.cfg.broadcast_jitter.as_secs_f64() * self.rng.uniform())
    }
}

/// ns-2's `(u_int32_t)(rt_expire - CURRENT_TIME)`: truncate toward zero, and for a
/// negative difference keep the low 32 bits of the 64-bit integer (x86-64 gcc).
fn ns2_lifetime_s(expire: SimTime, now: SimTime) -> u32 {
    let diff_ns = i128::from(expire.as_nanos()) - i128::from(now.as_nanos());
    let secs = diff_ns / 1_000_000_000;
    (secs as i64) as u32
}
