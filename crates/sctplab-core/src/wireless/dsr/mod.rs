//! DSR (Johnson and Maltz; RFC 4728) as ns-2.35's `Agent/DSRAgent` implements it
//! (dsr/dsragent.cc with its default route cache, dsr/mobicache.cc, and
//! dsr/requesttable.cc), with ns-2.35's constants ([`DsrCfg::ns2`]).
//!
//! - Route discovery: a packet without a cached route waits in the send buffer while
//!   the node sends a non-propagating ("ring zero") request its neighbours answer from
//!   their caches; with no reply `nonprop_request_timeout` later (checked by the send
//!   buffer timer), a propagating one. Requests for one destination back off 0.5 s,
//!   2 s, 8 s, then every 10 s, until a reply arrives. Nodes drop a request they have
//!   seen (the request table), that lists them, or whose route is full; they answer
//!   from their cache when it completes the route without a loop; otherwise they add
//!   themselves and rebroadcast after `U(0, 10 ms)`. The target answers every copy
//!   that reaches it, each along the reversed route.
//! - Source-routed packets: every packet carries its route ([`SrHeader`]); nodes that
//!   forward one, or overhear one (the tap), put the part from themselves on into the
//!   secondary cache. A node that overhears a packet it is listed on further down the
//!   route sends its source a gratuitous reply with the shorter route.
//! - Link failures (the MAC's callback): both caches drop routes with the link, the
//!   packet and every packet in the interface queue for that neighbour are salvaged
//!   (with a cached route, at most 15 times; a node may send one request for a packet
//!   it did not originate) or, for this node's own packets, routed afresh; the
//!   packet's source gets a route error, which every node on its way and every node
//!   that overhears it applies to its cache, and which the source piggybacks on its
//!   next request within 1 s.
//!
//! Sans-IO like `aodv`: inputs [`Dsr::originate`], [`Dsr::recv`], [`Dsr::tap`],
//! [`Dsr::xmit_failed`], [`Dsr::handle_timeout`]; outputs [`Dsr::poll_output`] and
//! [`Dsr::poll_timeout`].
//!
//! Not modelled: ns-2.35's flow-state extension (`dsragent_enable_flowstate`, on in
//! ns-2.35), which replaces an established flow's source route by a 4-byte flow
//! header (or none) after its first packets; here every data packet carries its full
//! source route, as RFC 4728 without its flow-state draft does. ns-2's checks with the
//! global `God` (route replies it knows to be wrong are only traced) have no effect on
//! routing and are left out.

mod cache;
mod cfg;
mod header;
mod reqtable;
mod salvage;
mod tap;
#[cfg(test)]
mod tests;

pub use cache::RouteCache;
pub use cfg::{DsrCfg, DsrCounters};
pub use header::{
    GRAT_ROUTE_ERROR, HeaderSizes, IP_HDR_LEN, LinkDown, MAX_ROUTE_ERRORS, MAX_SR_LEN, Payload,
    Request, SrField, SrHeader, SrPacket,
};

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use crate::net::PacketId;
use crate::sim::{RngStream, SimDuration, SimTime};
use reqtable::{LastType, RequestTable, backoff_test};

/// The broadcast address (as `aodv::BROADCAST`).
pub const BROADCAST: u32 = u32::MAX;
/// The TTL of DSR's own replies and errors (dsragent.cc sets 255).
const CONTROL_TTL: u8 = 255;
/// The TTL of a route request (ns-2's default IP TTL; requests are never decremented).
const REQUEST_TTL: u8 = 32;
/// Gratuitous-reply hold-down slots (`RTREP_HOLDOFF_SIZE`).
const GRAT_HOLD_SLOTS: usize = 10;
/// Slots of the tap's "seen this packet" filter (`TAP_CACHE_SIZE`).
const TAP_CACHE_SIZE: usize = 1024;

/// Why DSR dropped a data packet; the code is ns-2's trace reason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DsrDrop {
    /// "NRTE": no route and no (further) discovery for it.
    NoRoute,
    /// "TOUT": waited in the send buffer beyond `send_timeout`, or pushed out of it.
    SendTimeout,
    /// "SAL": salvaged `salvage_max_attempts` times already.
    Salvage,
    /// "TTL".
    Ttl,
    /// "CBK": a route reply that would be salvaged over the link that just broke.
    MacCallback,
    /// "LOOP": its source route ends here but it is not for this node.
    BadRoute,
}

impl DsrDrop {
    pub fn ns2_code(self) -> &'static str {
        match self {
            DsrDrop::NoRoute => "NRTE",
            DsrDrop::SendTimeout => "TOUT",
            DsrDrop::Salvage => "SAL",
            DsrDrop::Ttl => "TTL",
            DsrDrop::MacCallback => "CBK",
            DsrDrop::BadRoute => "LOOP",
        }
    }
}

/// What the agent asks of the world, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum DsrEvent {
    /// Hand `pkt` to the link layer for `next_hop` ([`BROADCAST`] for a request) after
    /// `delay`.
    Send {
        pkt: SrPacket,
        next_hop: u32,
        delay: SimDuration,
    },
    /// A data packet reached its destination, this node.
    Deliver {
        pkt: PacketId,
    },
    Drop {
        pkt: PacketId,
        reason: DsrDrop,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    /// The send buffer check (`SendBufferTimer`).
    BufferCheck,
    /// A packet this agent handed to itself after a delay (a target's route reply).
    SelfRecv(u64),
}

/// A gratuitous reply hold-down slot (`GratReplyHoldDown`).
#[derive(Clone, Debug, Default)]
struct GratHold {
    route: Vec<u32>,
    at: f64,
}

/// The DSR agent of one wireless NIC.
#[derive(Debug)]
pub struct Dsr {
    cfg: DsrCfg,
    me: u32,
    rng: RngStream,
    cache: RouteCache,
    requests: RequestTable,
    /// `route_request_num`: the next request's number.
    next_request: u32,
    /// Slots of (time put in, packet): ns-2's fixed array, scanned in slot order.
    send_buf: Vec<Option<(SimTime, SrPacket)>>,
    /// The last route error addressed to this node, to piggyback on the next request
    /// (`route_error_held`, `err_from`, `err_to`, `route_error_data_time`).
    held_error: Option<(u32, u32, SimTime)>,
    grat_hold: Vec<GratHold>,
    grat_victim: usize,
    tap_seen: Vec<u64>,
    timers: BinaryHeap<Reverse<(SimTime, u64, Timer)>>,
    timer_seq: u64,
    pending: BTreeMap<u64, SrPacket>,
    out: VecDeque<DsrEvent>,
    counters: DsrCounters,
}

impl Dsr {
    /// An agent for the NIC with address `me`, started at time 0 (ns-2's `startdsr`:
    /// the first send buffer check after `U(1, 2) * buffer_check`).
    pub fn new(cfg: DsrCfg, me: u32, rng: RngStream) -> Dsr {
        let period = cfg.request_period.as_secs_f64();
        let mut d = Dsr {
            cache: RouteCache::new(me, cfg.primary_cache_size, cfg.secondary_cache_size),
            requests: RequestTable::new(cfg.request_table_size, period),
            send_buf: vec![None; cfg.send_buffer_size],
            grat_hold: vec![GratHold::default(); GRAT_HOLD_SLOTS],
            cfg,
            me,
            rng,
            next_request: 1,
            held_error: None,
            grat_victim: 0,
            tap_seen: vec![u64::MAX; TAP_CACHE_SIZE],
            timers: BinaryHeap::new(),
            timer_seq: 0,
            pending: BTreeMap::new(),
            out: VecDeque::new(),
            counters: DsrCounters::default(),
        };
        d.arm_buffer_check(SimTime::ZERO);
        d
    }

    pub fn addr(&self) -> u32 {
        self.me
    }

    pub fn cfg(&self) -> &DsrCfg {
        &self.cfg
    }

    pub fn counters(&self) -> &DsrCounters {
        &self.counters
    }

    pub fn cache(&self) -> &RouteCache {
        &self.cache
    }

    /// Packets waiting in the send buffer.
    pub fn buffered(&self) -> usize {
        self.send_buf.iter().flatten().count()
    }

    /// The route the cache would give a packet for `dst` now (without moving a
    /// secondary route to the primary cache).
    pub fn cached_route(&self, dst: u32) -> Option<Vec<u32>> {
        self.cache.clone().find_route(dst, false)
    }

    fn uniform(&mut self, max: SimDuration) -> SimDuration {
        if self.cfg.randomize {
            SimDuration::from_secs_f64(self.rng.uniform() * max.as_secs_f64())
        } else {
            SimDuration::ZERO
        }
    }

    fn arm(&mut self, at: SimTime, t: Timer) {
        self.timer_seq += 1;
        self.timers.push(Reverse((at, self.timer_seq, t)));
    }

    fn arm_buffer_check(&mut self, now: SimTime) {
        let b = self.cfg.buffer_check;
        let after = b + self.uniform(b);
        self.arm(now + after, Timer::BufferCheck);
    }

    /// A data packet this node originates (`recv` of a packet without a source-route
    /// header): `ip_len` its size with its IP header. A broadcast goes out at once
    /// without a source route (`sendOutBCastPkt`).
    pub fn originate(&mut self, now: SimTime, pkt: PacketId, dst: u32, ip_len: u32, ttl: u8) {
        if dst == BROADCAST {
            self.out.push_back(DsrEvent::Send {
                pkt: SrPacket {
                    src: self.me,
                    dst,
                    ttl,
                    sr: SrHeader::default(),
                    payload: Payload::Data { pkt, ip_len },
                    ns2_stale: 0,
                },
                next_hop: BROADCAST,
                delay: SimDuration::ZERO,
            });
            return;
        }
        let p = SrPacket {
            src: self.me,
            dst,
            ttl,
            sr: SrHeader::default(),
            payload: Payload::Data { pkt, ip_len },
            ns2_stale: 0,
        };
        self.handle_without_sr(now, p, false);
    }

    /// A packet with a source-route header addressed to this node's MAC or broadcast
    /// (dsragent.cc `recv`).
    pub fn recv(&mut self, now: SimTime, p: SrPacket) {
        if p.dst == self.me || p.dst == BROADCAST {
            self.handle_receipt(now, p);
            return;
        }
        if !p.sr.errors.is_empty() {
            // `dsragent_snoop_forwarded_errors`.
            self.process_route_error(now, &p.sr);
        }
        if p.sr.request.is_some() {
            self.handle_route_request(now, p);
        } else {
            self.handle_forwarding(now, p);
        }
    }

    /// `handlePktWithoutSR`: a cached route, else discovery. With `retry` (the send
    /// buffer's check) a packet that must keep waiting is handed back.
    fn handle_without_sr(
        &mut self,
        now: SimTime,
        mut p: SrPacket,
        retry: bool,
    ) -> Option<SrPacket> {
        if p.dst == self.me {
            self.handle_receipt(now, p);
            return None;
        }
        if let Some(route) = self.cache.find_route(p.dst, true) {
            p.sr.addrs = route;
            self.send_with_route(now, p, true, SimDuration::ZERO);
            return None;
        }
        self.get_route_for_packet(now, p, retry)
    }

    /// `getRouteForPacket`: a request toward the packet's destination if the backoff
    /// allows one, and the packet into the send buffer.
    fn get_route_for_packet(&mut self, now: SimTime, p: SrPacket, retry: bool) -> Option<SrPacket> {
        let t = now.as_secs_f64();
        let (period, max_period) = (
            self.cfg.request_period.as_secs_f64(),
            self.cfg.max_request_period.as_secs_f64(),
        );
        let arp_timeout = self.cfg.nonprop_request_timeout.as_secs_f64();
        let (ring_zero, max_salv) = (self.cfg.ring_zero_search, self.cfg.salvage_max_requests);
        let mine = p.src == self.me;
        let e = self.requests.entry(p.dst);
        let mut send = None;
        if backoff_test(e, t, period, max_period) {
            if !mine && e.outstanding > max_salv {
                self.drop_data(&p, DsrDrop::NoRoute);
                return None;
            }
            e.last_type = if ring_zero {
                LastType::Limit0
            } else {
                LastType::Unlimit
            };
            e.last_arp = t;
            send = Some(if ring_zero { 0 } else { MAX_SR_LEN as u8 });
        } else if e.last_type == LastType::Limit0 && mine && t - e.last_arp > arp_timeout {
            // No reply to the ring-zero request: a propagating one (only for this
            // node's own packets, `dsr_salvage_allow_propagating` being 0).
            e.last_type = LastType::Unlimit;
            send = Some(MAX_SR_LEN as u8);
        }
        if let Some(max_prop) = send {
            self.send_request(now, p.dst, max_prop);
        }
        if retry {
            return Some(p);
        }
        self.stick_in_send_buffer(now, p);
        None
    }

    /// `sendOutRtReq`: a new request for `target`.
    fn send_request(&mut self, now: SimTime, target: u32, max_prop: u8) {
        let seq = self.next_request;
        self.next_request += 1;
        let mut sr = SrHeader {
            addrs: vec![self.me],
            request: Some(Request {
                seq,
                max_propagation: max_prop,
            }),
            ..SrHeader::default()
        };
        if let Some((from, to, at)) = self.held_error {
            if now.saturating_since(at) < self.cfg.max_error_hold {
                sr.errors.push(LinkDown {
                    from,
                    to,
                    tell: GRAT_ROUTE_ERROR,
                });
                // Kept for the propagating request if this is a ring-zero one.
                if max_prop > 0 {
                    self.held_error = None;
                }
            }
        }
        if max_prop == 0 {
            self.counters.requests_ring_zero += 1;
        } else {
            self.counters.requests_propagating += 1;
        }
        let p = SrPacket {
            src: self.me,
            dst: target,
            ttl: REQUEST_TTL,
            sr,
            payload: Payload::Control,
            ns2_stale: 0,
        };
        self.send_with_route(now, p, false, SimDuration::ZERO);
    }

    /// `stickPacketInSendBuffer`: the first free slot, else the oldest packet's.
    fn stick_in_send_buffer(&mut self, now: SimTime, p: SrPacket) {
        self.counters.packets_buffered += 1;
        if let Some(slot) = self.send_buf.iter_mut().find(|s| s.is_none()) {
            *slot = Some((now, p));
            return;
        }
        let mut oldest = 0;
        for (i, s) in self.send_buf.iter().enumerate() {
            if let (Some((t, _)), Some((m, _))) = (s, &self.send_buf[oldest]) {
                if t < m {
                    oldest = i;
                }
            }
        }
        if let Some((_, old)) = self.send_buf[oldest].replace((now, p)) {
            self.counters.drop_send_buffer_full += 1;
            self.drop_data(&old, DsrDrop::SendTimeout);
        }
    }

    /// `sendBufferCheck`: packets waiting too long are dropped, the others retried
    /// (a cached route, or the next request the backoff allows).
    fn send_buffer_check(&mut self, now: SimTime) {
        for i in 0..self.send_buf.len() {
            let Some((t, p)) = self.send_buf[i].take() else {
                continue;
            };
            if now.saturating_since(t) > self.cfg.send_timeout {
                self.counters.drop_send_timeout += 1;
                self.drop_data(&p, DsrDrop::SendTimeout);
                continue;
            }
            if let Some(p) = self.handle_without_sr(now, p, true) {
                self.send_buf[i] = Some((t, p));
            }
        }
    }

    /// `handlePacketReceipt`: a packet addressed to this node.
    fn handle_receipt(&mut self, now: SimTime, p: SrPacket) {
        if p.sr.reply.is_some() {
            self.accept_route_reply(now, &p);
        }
        if let Some(req) = p.sr.request {
            self.requests.insert(p.src, req.seq);
            self.return_route_to_requester(now, &p, req.seq);
        }
        if !p.sr.errors.is_empty() {
            self.process_route_error(now, &p.sr);
        }
        if let Some(pkt) = p.data() {
            self.out.push_back(DsrEvent::Deliver { pkt });
        }
    }

    /// `handleRouteRequest`: a request for another node.
    fn handle_route_request(&mut self, now: SimTime, mut p: SrPacket) {
        let Some(req) = p.sr.request else { return };
        let seen = self.requests.get(p.src) >= req.seq;
        if seen || p.sr.addrs.contains(&self.me) || p.sr.addrs.len() >= MAX_SR_LEN {
            return;
        }
        self.requests.insert(p.src, req.seq);
        if (req.max_propagation == 0 || self.cfg.reply_from_cache)
            && self.reply_from_cache(now, &p, req.seq)
        {
            return;
        }
        if p.sr.addrs.len() > usize::from(req.max_propagation) {
            return;
        }
        p.ns2_stale += p.sr.size(HeaderSizes::Ns2);
        p.sr.addrs.push(self.me);
        self.counters.requests_forwarded += 1;
        self.send_with_route(now, p, false, SimDuration::ZERO);
    }

    /// `replyFromRouteCache`: answers a request with the route so far plus a cached
    /// route from this node to the target, if that has no loop through this node.
    fn reply_from_cache(&mut self, now: SimTime, p: &SrPacket, seq: u32) -> bool {
        let Some(rest) = self.cache.find_route(p.dst, false) else {
            return false;
        };
        if rest.len() + p.sr.addrs.len() > MAX_SR_LEN {
            return false;
        }
        let mut complete = p.sr.addrs.clone();
        complete.extend_from_slice(&rest);
        compress_path(&mut complete);
        if !complete.contains(&self.me) {
            return false;
        }
        let mut back = p.sr.addrs.clone();
        back.push(self.me);
        back.reverse();
        self.cache.add_route(&back);
        self.counters.cache_replies_sent += 1;
        let reply = SrPacket {
            src: self.me,
            dst: p.src,
            ttl: CONTROL_TTL,
            sr: SrHeader {
                addrs: back,
                reply: Some((seq, complete)),
                ..SrHeader::default()
            },
            payload: Payload::Control,
            ns2_stale: 0,
        };
        self.send_with_route(now, reply, true, SimDuration::ZERO);
        true
    }

    /// `returnSrcRouteToRequestor`: the target answers with the request's route plus
    /// itself, along the reversed route, after `U(0, request_jitter)` (handed to itself
    /// then, so it passes `handle_forwarding` as ns-2's does).
    fn return_route_to_requester(&mut self, now: SimTime, p: &SrPacket, seq: u32) {
        if p.sr.addrs.len() >= MAX_SR_LEN {
            return;
        }
        let mut route = p.sr.addrs.clone();
        route.push(self.me);
        let mut back = route.clone();
        back.reverse();
        self.cache.add_route(&back);
        self.counters.replies_sent += 1;
        let reply = SrPacket {
            src: self.me,
            dst: p.src,
            ttl: CONTROL_TTL,
            sr: SrHeader {
                addrs: back,
                reply: Some((seq, route)),
                ..SrHeader::default()
            },
            payload: Payload::Control,
            ns2_stale: 0,
        };
        let at = now + self.uniform(self.cfg.request_jitter);
        self.timer_seq += 1;
        let key = self.timer_seq;
        self.pending.insert(key, reply);
        self.arm(at, Timer::SelfRecv(key));
    }

    /// `acceptRouteReply`: the route goes into the cache, the backoff toward the
    /// target resets, and waiting packets with a route now leave, `arp_timeout` apart.
    fn accept_route_reply(&mut self, now: SimTime, p: &SrPacket) {
        let Some((_, route)) = &p.sr.reply else {
            return;
        };
        self.counters.replies_received += 1;
        self.cache.add_route(route);
        if let Some(&target) = route.last() {
            let e = self.requests.entry(target);
            e.outstanding = 0;
            e.last_rt_req = 0.0;
        }
        let mut delay = SimDuration::ZERO;
        for i in 0..self.send_buf.len() {
            let Some((_, p)) = &self.send_buf[i] else {
                continue;
            };
            if let Some(route) = self.cache.find_route(p.dst, true) {
                if let Some((_, mut p)) = self.send_buf[i].take() {
                    p.sr.addrs = route;
                    self.send_with_route(now, p, true, delay);
                    delay = delay + self.cfg.nonprop_request_timeout;
                }
            }
        }
    }

    /// `handleForwarding`: a source-routed packet for which this node is a hop.
    fn handle_forwarding(&mut self, now: SimTime, mut p: SrPacket) {
        if p.sr.cur >= p.sr.addrs.len() || p.sr.addrs[p.sr.cur] != self.me {
            self.counters.drop_bad_route += 1;
            self.drop_data(&p, DsrDrop::BadRoute);
            return;
        }
        // `dsragent_snoop_source_routes`.
        self.cache.notice_route_used(&p.sr.addrs, p.sr.cur);
        if p.ttl == 0 {
            self.counters.drop_ttl += 1;
            self.drop_data(&p, DsrDrop::Ttl);
            return;
        }
        p.ttl -= 1;
        self.send_with_route(now, p, false, SimDuration::ZERO);
    }

    /// `sendOutPacketWithRoute`: a request is broadcast after the request jitter;
    /// another packet goes to the next node of its route (`fresh`: from the start).
    fn send_with_route(&mut self, now: SimTime, mut p: SrPacket, fresh: bool, delay: SimDuration) {
        if p.dst == self.me {
            self.recv(now, p);
            return;
        }
        if fresh {
            p.sr.cur = 0;
        }
        if p.sr.request.is_some() {
            let delay = delay + self.uniform(self.cfg.request_jitter);
            self.out.push_back(DsrEvent::Send {
                pkt: p,
                next_hop: BROADCAST,
                delay,
            });
            return;
        }
        let Some(&next_hop) = p.sr.addrs.get(p.sr.cur + 1) else {
            self.counters.drop_bad_route += 1;
            self.drop_data(&p, DsrDrop::BadRoute);
            return;
        };
        p.sr.cur += 1;
        self.out.push_back(DsrEvent::Send {
            pkt: p,
            next_hop,
            delay,
        });
    }

    fn drop_data(&mut self, p: &SrPacket, reason: DsrDrop) {
        if let Some(pkt) = p.data() {
            if reason == DsrDrop::NoRoute {
                self.counters.drop_no_route += 1;
            }
            self.out.push_back(DsrEvent::Drop { pkt, reason });
        }
    }

    pub fn poll_output(&mut self) -> Option<DsrEvent> {
        self.out.pop_front()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timers.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Runs every timer due at `now`, in the order they were set.
    pub fn handle_timeout(&mut self, now: SimTime) {
        while let Some(&Reverse((t, _, timer))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            match timer {
                Timer::BufferCheck => {
                    self.send_buffer_check(now);
                    self.arm_buffer_check(now);
                }
                Timer::SelfRecv(key) => {
                    if let Some(p) = self.pending.remove(&key) {
                        self.recv(now, p);
                    }
                }
            }
        }
    }
}

/// path.cc `compressPath`: removes double backs (A B C B D becomes A B D).
fn compress_path(path: &mut Vec<u32>) {
    let mut fp = 0;
    while fp < path.len() {
        if let Some(bp) = (fp + 1..path.len()).rev().find(|&bp| path[bp] == path[fp]) {
            path.drain(fp..bp);
        }
        fp += 1;
    }
}
