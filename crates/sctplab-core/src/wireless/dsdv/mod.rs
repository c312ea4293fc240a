//! DSDV (Perkins and Bhagwat, SIGCOMM 1994) as ns-2.35's `Agent/DSDV` implements it
//! (dsdv/dsdv.cc, dsdv/rtable.cc), with ns-2.35's defaults (ns-default.tcl): full
//! updates every `perup_` = 15 s (each `U(0.75, 1) * perup_` after the last), triggered
//! incremental updates at least 1 s apart, the weighted settling time (`wst0_` = 6 s,
//! `alpha_` = 0.875) delaying the advertisement of a better metric, even sequence
//! numbers for a node's own entry (it adds 2 for every full update) and odd ones for a
//! broken route (the node that loses a neighbour adds 1), the infinite metric 250
//! (`BIG`), and neighbours lost after `min_update_periods_` = 3 update intervals
//! without hearing from them. `use_mac_` is 0 in ns-2.35, so a MAC transmit failure
//! only drops the packet ("CBK").
//!
//! One [`Dsdv`] runs per wireless NIC. Sans-IO like `aodv`: inputs are
//! [`Dsdv::route`], [`Dsdv::recv`], [`Dsdv::link_failed`] and [`Dsdv::handle_timeout`];
//! outputs [`Dsdv::poll_output`] and [`Dsdv::poll_timeout`]. Timers run in ns-2's
//! scheduler order: by time, then in the order they were set.
//!
//! ns-2.35 behaviours kept on purpose:
//! - A triggered update carries every entry whose metric or sequence number is not yet
//!   advertised; the "metric changed" mark is cleared only by a full update, so such an
//!   entry rides along in every triggered update until the next full one. A triggered
//!   update with more than 3 changes, over a third of the table, becomes a full one
//!   (and replaces the next periodic one).
//! - A packet for a destination the table does not know creates an entry with the
//!   infinite metric and sequence number 0, held back from advertisements for a week.
//! - Only a fresher sequence number or a shorter metric at the same sequence number is
//!   taken; a fresher sequence number triggers no update (`TRIGGER_UPDATE_ON_FRESH_SEQNUM`
//!   is undefined), a metric change does, once the settling time has passed.
//! - Buffered packets are released when an update about their destination arrives
//!   with a finite metric, whether or not the table took it; the entry then holds the
//!   update's route (dsdv.cc writes its local copy back). ns-2 releases them before
//!   writing it back, which loops for ever if the table still holds the infinite
//!   metric; here the route is written first.
//!
//! Known differences: ns-2 passes released packets through its `recv` again, which adds
//! a second 20-byte IP header to the size of a packet the node originated and takes a
//! second TTL off a forwarded one; here they keep their size and TTL. With
//! `mac_link_breaks`, a packet whose next hop has no table entry is dropped ("CBK"),
//! where ns-2 neither sends nor frees it.

mod cfg;
mod msg;
mod table;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_chain;

pub use cfg::{DsdvCfg, DsdvCounters};
pub use msg::{Advert, DSDV_PORT, DsdvUpdate};

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::net::PacketId;
use crate::sim::{RngStream, SimDuration, SimTime};

use super::aodv::{BROADCAST, DropReason, RouteDecision};
use super::route_log::RouteLog;
use super::routing::{RoutingEvent, RoutingMsg, RoutingOut};
use table::{Entry, Table};

/// The infinite metric (dsdv/rtable.h `BIG`).
pub const BIG: u8 = 250;
/// How long an entry made for an unknown destination is held back from
/// advertisements ("check back next week", dsdv.cc).
const NEXT_WEEK: SimDuration = SimDuration::from_secs(604_800);

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TimerKind {
    /// The periodic full update (`periodic_callback_`).
    Periodic,
    /// The neighbour time-out on the entry for this destination (`timeout_event`).
    Timeout(u32),
    /// The triggered update pending on the entry for this destination
    /// (`trigger_event`).
    Trigger(u32),
}

/// A route as [`Dsdv::route_info`] shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DsdvRoute {
    pub next_hop: u32,
    pub metric: u8,
    pub seqnum: u32,
}

/// The DSDV agent of one wireless NIC.
#[derive(Debug)]
pub struct Dsdv {
    cfg: DsdvCfg,
    addr: u32,
    rng: RngStream,
    /// Own sequence number: 0 in the entry made at start, then +2 per full update.
    seqno: u32,
    table: Table,
    /// (time, order set, what): ns-2's scheduler queue for this agent; an entry whose
    /// number no longer matches its owner's is a cancelled timer.
    timers: BinaryHeap<Reverse<(SimTime, u64, TimerKind)>>,
    timer_seq: u64,
    /// The periodic update's timer number.
    periodic: Option<u64>,
    /// When the last update (triggered or full) went out (`lasttup_`).
    last_update: Option<SimTime>,
    /// A second NIC of a node carries only its own traffic: it advertises only itself.
    own_only: bool,
    out: VecDeque<RoutingEvent>,
    counters: DsdvCounters,
    /// Route-table changes for the animation trace (off unless it is recorded).
    log: RouteLog,
}

impl Dsdv {
    /// An agent for the NIC with address `addr`, started at time 0 as ns-2's
    /// `start-dsdv`: its own entry (metric 0, sequence number 0) and the first full
    /// update after `U(0, startup_jitter)`.
    pub fn new(cfg: DsdvCfg, addr: u32, rng: RngStream) -> Dsdv {
        let mut d = Dsdv {
            cfg,
            addr,
            rng,
            seqno: 0,
            table: Table::default(),
            timers: BinaryHeap::new(),
            timer_seq: 0,
            periodic: None,
            last_update: None,
            own_only: false,
            out: VecDeque::new(),
            counters: DsdvCounters::default(),
            log: RouteLog::default(),
        };
        let mut me = Entry::zeroed(addr);
        me.hop = addr;
        me.seqnum = d.seqno;
        me.advert_seqnum = true;
        me.advert_metric = true;
        d.table.put(me);
        d.seqno += 2;
        let first = SimTime::ZERO + d.jitter(d.cfg.startup_jitter);
        d.periodic = Some(d.arm(first, TimerKind::Periodic));
        d
    }

    /// Advertise only this NIC's own entry (a NIC that does not forward).
    pub fn set_own_traffic_only(&mut self) {
        self.own_only = true;
    }

    pub fn addr(&self) -> u32 {
        self.addr
    }

    pub fn counters(&self) -> &DsdvCounters {
        &self.counters
    }

    /// The agent's own sequence number as its next full update will not yet show it.
    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    /// The table's entry for `dst`: next hop, metric (`BIG` when broken), sequence number.
    pub fn route_info(&self, dst: u32) -> Option<DsdvRoute> {
        self.table.get(dst).map(|e| DsdvRoute {
            next_hop: e.hop,
            metric: e.metric,
            seqnum: e.seqnum,
        })
    }

    /// Packets held for `dst`.
    pub fn buffered(&self, dst: u32) -> usize {
        self.table
            .get(dst)
            .and_then(|e| e.queue.as_ref())
            .map_or(0, VecDeque::len)
    }

    fn jitter(&mut self, max: SimDuration) -> SimDuration {
        if self.cfg.randomize {
            SimDuration::from_secs_f64(self.rng.uniform() * max.as_secs_f64())
        } else {
            SimDuration::ZERO
        }
    }

    fn arm(&mut self, at: SimTime, kind: TimerKind) -> u64 {
        self.timer_seq += 1;
        self.timers.push(Reverse((at, self.timer_seq, kind)));
        self.timer_seq
    }

    /// The next periodic update, `perup_ * U(0.75, 1)` from now.
    fn rearm_periodic(&mut self, now: SimTime) {
        let frac = 0.75 + self.jitter(SimDuration::from_millis(250)).as_secs_f64();
        let after = SimDuration::from_secs_f64(self.cfg.update_interval.as_secs_f64() * frac);
        self.periodic = Some(self.arm(now + after, TimerKind::Periodic));
    }

    /// dsdv.cc `needTriggeredUpdate`: (re)schedules the entry's triggered update at `t`.
    /// Its route-table changes, for the animation trace.
    pub fn route_log_mut(&mut self) -> &mut RouteLog {
        &mut self.log
    }

    /// Tells the route log what the entry for `dst` is now: the next hop `forward_packet`
    /// would use and the metric, none at the infinite metric; its own entry is no route.
    fn note_route(&mut self, dst: u32) {
        if let Some(e) = self.table.get(dst) {
            let (hop, metric) = (e.hop, e.metric);
            self.note_entry(dst, hop, metric);
        } else if dst != self.addr {
            self.log.note(dst, None, None);
        }
    }

    /// `note_route` for an entry whose next hop and metric are known (no lookup).
    fn note_entry(&mut self, dst: u32, hop: u32, metric: u8) {
        if dst == self.addr {
            return;
        }
        let seen = (metric != BIG).then(|| (if metric > 1 { hop } else { dst }, u16::from(metric)));
        self.log.note(dst, seen.map(|s| s.0), seen.map(|s| s.1));
    }

    fn need_triggered_update(&mut self, dst: u32, t: SimTime) {
        let n = self.arm(t, TimerKind::Trigger(dst));
        if let Some(e) = self.table.get_mut(dst) {
            e.trigger = Some((n, t));
        }
    }

    /// A data packet needs a next hop (dsdv.cc `recv` then `forwardPacket`).
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
            *ttl = self.cfg.ttl;
        } else if src == self.addr {
            self.counters.drop_route_loop += 1;
            return RouteDecision::Drop(DropReason::RouteLoop);
        } else {
            *ttl = ttl.saturating_sub(1);
            if *ttl == 0 {
                self.counters.drop_ttl += 1;
                return RouteDecision::Drop(DropReason::Ttl);
            }
        }
        if dst == BROADCAST {
            // `sendOutBCastPkt`: the broadcast jitter, as for updates.
            let delay = self.jitter(self.cfg.broadcast_jitter);
            self.out.push_back(RoutingEvent::Forward {
                pkt,
                next_hop: BROADCAST,
                delay,
            });
            return RouteDecision::Queued;
        }
        self.forward_packet(now, pkt, dst)
    }

    /// dsdv.cc `forwardPacket`: the next hop, or the destination's queue.
    fn forward_packet(&mut self, now: SimTime, pkt: PacketId, dst: u32) -> RouteDecision {
        let wst0 = self.cfg.initial_settling_time.as_secs_f64();
        let limit = self.cfg.queue_limit;
        match self.table.get_mut(dst) {
            Some(e) if e.metric != BIG => RouteDecision::Forward {
                next_hop: if e.metric > 1 { e.hop } else { dst },
            },
            Some(e) => {
                let q = e.queue.get_or_insert_with(VecDeque::new);
                q.push_back(pkt);
                let mut dropped = Vec::new();
                while q.len() > limit {
                    dropped.extend(q.pop_front());
                }
                self.counters.packets_buffered += 1;
                for p in dropped {
                    self.counters.drop_queue_full += 1;
                    self.out.push_back(RoutingEvent::Drop {
                        pkt: p,
                        reason: DropReason::QueueFull,
                    });
                }
                RouteDecision::Queued
            }
            None => {
                let mut e = Entry::zeroed(dst);
                e.hop = dst;
                e.metric = BIG;
                e.advertise_ok_at = now + NEXT_WEEK;
                e.changed_at = now;
                e.new_seqnum_at = now;
                e.wst = wst0;
                e.queue = Some(VecDeque::from([pkt]));
                self.table.put(e);
                self.counters.packets_buffered += 1;
                RouteDecision::Queued
            }
        }
    }

    /// An update arrived from the neighbour `ip_src` (dsdv.cc `processUpdate`).
    pub fn recv(&mut self, now: SimTime, upd: &DsdvUpdate, ip_src: u32, _ttl: u8) {
        self.counters.updates_received += 1;
        // Where the last advertised destination sits in the table: updates list
        // destinations in address order, as the table keeps them, so each lookup
        // starts there (`Table::find_from`).
        let mut cursor = 0;
        for a in &upd.entries {
            cursor = self.take_advert(now, a, ip_src, cursor);
        }
        // Reschedule the time-out for this neighbour, or make an entry to hang it on.
        let after = self
            .cfg
            .update_interval
            .saturating_mul(u64::from(self.cfg.missed_updates));
        let n = self.arm(now + after, TimerKind::Timeout(ip_src));
        if let Some(e) = self.table.get_mut(ip_src) {
            e.timeout = Some(n);
        } else {
            let mut e = Entry::zeroed(ip_src);
            e.hop = ip_src;
            e.metric = 1;
            e.advertise_ok_at = now + NEXT_WEEK;
            e.changed_at = now;
            e.new_seqnum_at = now;
            e.wst = self.cfg.initial_settling_time.as_secs_f64();
            e.timeout = Some(n);
            self.table.put(e);
            self.note_route(ip_src);
        }
    }

    /// One advertised destination of an update from `sender` (dsdv.cc `processUpdate`
    /// on one entry). ns-2 fills a local copy of the entry and writes it back when it
    /// takes the advertisement (or releases waiting packets); here the changes are
    /// worked out from the old entry's fields and written in place, and the settling
    /// arithmetic is done only for an entry that changes. `cursor`: where the lookup
    /// starts; returns where the next one may start.
    fn take_advert(&mut self, now: SimTime, a: &Advert, sender: u32, cursor: usize) -> usize {
        let metric = if a.metric == BIG {
            BIG
        } else {
            a.metric.saturating_add(1).min(BIG)
        };
        if a.dst == self.addr {
            // "You have the last word on yourself": a neighbour that thinks this node
            // is gone hears a full update at once.
            if metric == BIG && self.periodic.is_some() {
                self.periodic = Some(self.arm(now, TimerKind::Periodic));
            }
            return cursor;
        }
        let i = match self.table.find_from(cursor, a.dst) {
            Ok(i) => i,
            Err(i) => {
                self.take_new_destination(now, a, sender, metric, i);
                return i + 1;
            }
        };
        let p = self.table.at(i);
        let (mut advert_seqnum, mut advert_metric) = (p.advert_seqnum, p.advert_metric);
        let release = p.queue.is_some() && metric != BIG;
        let mut trigger = false;
        let mut taken = false;
        if p.seqnum == a.seqnum {
            if metric < p.metric {
                // Back to the metric last advertised: nothing new to tell.
                let changed = metric != p.last_advertised_metric;
                advert_metric = changed;
                trigger = changed;
                taken = true;
            }
        } else if p.seqnum < a.seqnum {
            advert_seqnum = true;
            advert_metric = metric != p.last_advertised_metric;
            taken = true;
        } else if metric == BIG && p.metric != BIG {
            // The neighbour knows an older sequence number; it thinks the destination
            // is gone and this node has a route: tell it now.
            let e = self.table.at_mut(i);
            e.advertise_ok_at = now;
            e.advert_metric = true;
            self.need_triggered_update(a.dst, now);
            return i + 1;
        }
        if !(taken || release) {
            return i + 1;
        }
        let w = self.cfg.settling_weight;
        let e = self.table.at_mut(i);
        if e.seqnum != a.seqnum {
            // A new sequence number ends the settling-time measurement of the old one:
            // from its first arrival to the last route change.
            let span = e.changed_at.as_secs_f64() - e.new_seqnum_at.as_secs_f64();
            e.wst = w * e.wst + (1.0 - w) * span;
            e.new_seqnum_at = now;
        }
        e.advertise_ok_at = if metric != BIG && e.metric != BIG {
            now + SimDuration::from_secs_f64(e.wst * 2.0)
        } else {
            now
        };
        e.hop = sender;
        e.metric = metric;
        e.seqnum = a.seqnum;
        e.changed_at = now;
        e.advert_seqnum = advert_seqnum;
        e.advert_metric = advert_metric;
        let at = e.advertise_ok_at;
        let queued = if release { e.queue.take() } else { None };
        self.note_entry(a.dst, sender, metric);
        if trigger {
            self.need_triggered_update(a.dst, at);
        }
        if let Some(q) = queued {
            self.release_queued(now, a.dst, q);
        }
        i + 1
    }

    /// `take_advert` for a destination the table does not hold: taken, and a finite
    /// metric schedules a triggered update for when it has settled.
    fn take_new_destination(
        &mut self,
        now: SimTime,
        a: &Advert,
        sender: u32,
        metric: u8,
        at: usize,
    ) {
        let mut e = Entry::zeroed(a.dst);
        e.hop = sender;
        e.metric = metric;
        e.seqnum = a.seqnum;
        e.changed_at = now;
        e.wst = self.cfg.initial_settling_time.as_secs_f64();
        e.new_seqnum_at = now;
        e.advertise_ok_at = if metric != BIG {
            now + SimDuration::from_secs_f64(e.wst * 2.0)
        } else {
            now
        };
        let trigger = metric < BIG;
        e.advert_metric = trigger;
        let ok_at = e.advertise_ok_at;
        self.table.insert_at(at, e);
        self.note_entry(a.dst, sender, metric);
        if trigger {
            self.need_triggered_update(a.dst, ok_at);
        }
    }

    /// Packets that waited for `dst` go out on the route an update just brought.
    fn release_queued(&mut self, now: SimTime, dst: u32, q: VecDeque<PacketId>) {
        for pkt in q {
            self.forward_held(now, pkt, dst);
        }
    }

    /// `forward_packet` for a packet the agent already holds (queued, or handed back
    /// by the MAC): no caller waits for the decision, so it goes out as an event.
    fn forward_held(&mut self, now: SimTime, pkt: PacketId, dst: u32) {
        match self.forward_packet(now, pkt, dst) {
            RouteDecision::Forward { next_hop } => self.out.push_back(RoutingEvent::Forward {
                pkt,
                next_hop,
                delay: SimDuration::ZERO,
            }),
            RouteDecision::Queued => {}
            RouteDecision::Drop(reason) => self.out.push_back(RoutingEvent::Drop { pkt, reason }),
        }
    }

    /// The MAC gave up on `pkt` toward `next_hop` (dsdv.cc `lost_link`). Returns true:
    /// the agent always takes the packet.
    pub fn link_failed(&mut self, now: SimTime, next_hop: u32, pkt: PacketId, dst: u32) -> bool {
        let known = self.table.get(next_hop).map(|e| (e.timeout, e.metric));
        match known {
            Some((timeout, metric)) if self.cfg.mac_link_breaks => {
                if timeout.is_some() || metric != BIG {
                    self.lose_neighbour(now, next_hop);
                }
                self.forward_held(now, pkt, dst);
            }
            _ => {
                self.counters.drop_mac_callback += 1;
                self.out.push_back(RoutingEvent::Drop {
                    pkt,
                    reason: DropReason::MacCallback,
                });
            }
        }
        true
    }

    /// dsdv.cc `helper_callback` for a time-out: every route through `nb` goes to the
    /// infinite metric with the next (odd) sequence number, each with a triggered
    /// update now.
    fn lose_neighbour(&mut self, now: SimTime, nb: u32) {
        self.counters.neighbours_lost += 1;
        let broken: Vec<u32> = self
            .table
            .iter_mut()
            .filter(|e| e.hop == nb && e.metric != BIG)
            .map(|e| {
                e.metric = BIG;
                e.advertise_ok_at = now;
                e.advert_metric = true;
                e.advert_seqnum = true;
                e.seqnum = e.seqnum.wrapping_add(1);
                e.dst
            })
            .collect();
        for dst in broken {
            self.note_route(dst);
            self.counters.routes_broken += 1;
            self.need_triggered_update(dst, now);
        }
        if let Some(e) = self.table.get_mut(nb) {
            e.timeout = None;
        }
    }

    /// dsdv.cc `makeUpdate`: the entries to advertise, and whether it is a full update
    /// (asked for, or more than 3 changes and over a third of the table).
    fn make_update(&mut self, now: SimTime, mut periodic: bool) -> Option<(DsdvUpdate, bool)> {
        let size = self.table.len();
        let changed = self
            .table
            .iter()
            .filter(|e| (e.advert_seqnum || e.advert_metric) && e.advertise_ok_at <= now)
            .count();
        let held = self
            .table
            .iter()
            .filter(|e| e.advertise_ok_at > now)
            .count();
        if changed * 3 > size && changed > 3 {
            periodic = true;
        }
        let mut count = changed;
        if periodic {
            count = size - held;
            // Every full update carries a new (even) sequence number for this node.
            self.seqno = self.seqno.wrapping_add(2);
            let mut me = Entry::zeroed(self.addr);
            me.hop = self.addr;
            me.seqnum = self.seqno;
            me.advert_seqnum = true;
            me.changed_at = now;
            me.new_seqnum_at = now;
            self.table.put(me);
        }
        if count == 0 {
            return None;
        }
        let (addr, own_only) = (self.addr, self.own_only);
        let mut entries = Vec::with_capacity(count);
        for e in self.table.iter_mut() {
            if periodic && e.advertise_ok_at > now {
                continue;
            }
            if periodic || ((e.advert_seqnum || e.advert_metric) && e.advertise_ok_at <= now) {
                if !own_only || e.dst == addr {
                    entries.push(Advert {
                        dst: e.dst,
                        metric: e.metric,
                        seqnum: e.seqnum,
                    });
                }
                e.last_advertised_metric = e.metric;
                e.advert_seqnum = false;
                if periodic {
                    e.advert_metric = false;
                }
            }
        }
        if entries.is_empty() {
            return None;
        }
        Some((DsdvUpdate { entries }, periodic))
    }

    /// An update goes out after the broadcast jitter.
    fn send(&mut self, upd: DsdvUpdate) {
        self.counters.entries_advertised += upd.entries.len() as u64;
        let delay = self.jitter(self.cfg.broadcast_jitter);
        self.out.push_back(RoutingEvent::Send(RoutingOut {
            msg: RoutingMsg::Dsdv(upd),
            ip_src: self.addr,
            ip_dst: BROADCAST,
            next_hop: BROADCAST,
            ttl: self.cfg.ttl,
            delay,
        }));
    }

    fn periodic_update(&mut self, now: SimTime) {
        if let Some((upd, _)) = self.make_update(now, true) {
            self.counters.periodic_updates_sent += 1;
            self.send(upd);
        }
        self.rearm_periodic(now);
        self.last_update = Some(now);
    }

    /// dsdv.cc `DSDVTriggerHandler::handle` for the entry `dst`.
    fn triggered_update(&mut self, now: SimTime, dst: u32) {
        let next_possible = self
            .last_update
            .map(|t| t + self.cfg.min_triggered_interval);
        if let Some(next) = next_possible.filter(|&t| now < t) {
            self.need_triggered_update(dst, next);
            // Earlier triggers are folded into this one.
            for e in self.table.iter_mut() {
                if e.trigger.is_some_and(|(_, t)| t < next) {
                    e.trigger = None;
                }
            }
            return;
        }
        if let Some((upd, periodic)) = self.make_update(now, false) {
            if periodic {
                self.counters.periodic_updates_sent += 1;
                self.rearm_periodic(now);
            } else {
                self.counters.triggered_updates_sent += 1;
            }
            self.send(upd);
            self.last_update = Some(now);
        }
        if let Some(e) = self.table.get_mut(dst) {
            e.trigger = None;
        }
    }

    pub fn poll_output(&mut self) -> Option<RoutingEvent> {
        self.out.pop_front()
    }

    fn live(&self, n: u64, kind: TimerKind) -> bool {
        match kind {
            TimerKind::Periodic => self.periodic == Some(n),
            TimerKind::Timeout(d) => self.table.get(d).is_some_and(|e| e.timeout == Some(n)),
            TimerKind::Trigger(d) => self
                .table
                .get(d)
                .is_some_and(|e| e.trigger.is_some_and(|(m, _)| m == n)),
        }
    }

    /// The earliest live timer (cancelled ones are dropped on the way).
    pub fn poll_timeout(&mut self) -> Option<SimTime> {
        while let Some(&Reverse((t, n, kind))) = self.timers.peek() {
            if self.live(n, kind) {
                return Some(t);
            }
            self.timers.pop();
        }
        None
    }

    /// Runs every timer due at `now`, in ns-2's order.
    pub fn handle_timeout(&mut self, now: SimTime) {
        while let Some(&Reverse((t, n, kind))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if !self.live(n, kind) {
                continue;
            }
            match kind {
                TimerKind::Periodic => self.periodic_update(now),
                TimerKind::Timeout(nb) => self.lose_neighbour(now, nb),
                TimerKind::Trigger(dst) => self.triggered_update(now, dst),
            }
        }
    }
}
