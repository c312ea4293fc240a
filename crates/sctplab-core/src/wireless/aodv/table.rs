//! The agent's tables (aodv_rtable.{h,cc}, and the route buffer's use in aodv.cc): route
//! entries with their precursors and discovery history, the route-table purge, the
//! buffer of packets waiting for a route, and the agent's timer list.

use crate::net::PacketId;
use crate::sim::{SimDuration, SimTime};

use super::{Aodv, AodvEvent, DropReason, INFINITY_HOPS, MAX_HISTORY, NO_HOP};

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
pub(super) struct Route {
    pub(super) dst: u32,
    pub(super) seqno: u32,
    pub(super) hops: u16,
    pub(super) last_hop_count: u16,
    pub(super) next_hop: u32,
    /// Newest first, as ns-2's list insertion at the head.
    pub(super) precursors: Vec<u32>,
    pub(super) expire: SimTime,
    pub(super) state: RouteState,
    /// When another request may go out (absolute; zero = none pending).
    pub(super) req_timeout: SimTime,
    pub(super) req_cnt: u8,
    pub(super) req_last_ttl: u16,
    /// Per-hop discovery latencies in seconds (0 = empty slot).
    pub(super) disc_latency: [f64; MAX_HISTORY],
    pub(super) hist_indx: usize,
}

impl Route {
    pub(super) fn new(dst: u32, fresh_last_hop_count: u16) -> Self {
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
    pub(super) fn update(&mut self, seqno: u32, hops: u8, next_hop: u32, expire: SimTime) {
        self.seqno = seqno;
        self.hops = u16::from(hops);
        self.state = RouteState::Up;
        self.next_hop = next_hop;
        self.expire = expire;
    }

    /// aodv.cc `rt_down`.
    pub(super) fn down(&mut self) {
        if self.state == RouteState::Down {
            return;
        }
        self.last_hop_count = self.hops;
        self.hops = INFINITY_HOPS;
        self.state = RouteState::Down;
        self.next_hop = NO_HOP;
        self.expire = SimTime::ZERO;
    }

    pub(super) fn pc_insert(&mut self, id: u32) {
        if !self.precursors.contains(&id) {
            self.precursors.insert(0, id);
        }
    }

    pub(super) fn pc_delete(&mut self, id: u32) {
        if let Some(i) = self.precursors.iter().position(|&p| p == id) {
            self.precursors.remove(i);
        }
    }

    /// aodv.cc `PerHopTime`: mean of the measured per-hop latencies, else the default.
    pub(super) fn per_hop_time(&self, default: SimDuration) -> f64 {
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
pub(super) enum TimerKind {
    BcastPurge,
    RoutePurge,
    LocalRepair { dst: u32 },
}

#[derive(Copy, Clone, Debug)]
pub(super) struct Timer {
    pub(super) at: SimTime,
    /// Insertion order: ns-2's scheduler runs events due at the same time first-in
    /// first-out.
    pub(super) seq: u64,
    pub(super) kind: TimerKind,
}

impl Aodv {
    pub(super) fn lookup_or_add(&mut self, dst: u32) -> usize {
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
    pub(super) fn rt_purge(&mut self, now: SimTime) {
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
                self.log.note(dst, None, None);
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

    pub(super) fn enqueue(&mut self, now: SimTime, pkt: PacketId, dst: u32) {
        let (events, counters) = (&mut self.out, &mut self.counters);
        self.rq.enqueue(now, pkt, dst, |p, r| {
            counters.count_drop(r);
            events.push_back(AodvEvent::Drop { pkt: p, reason: r });
        });
    }

    pub(super) fn dequeue(&mut self, now: SimTime, dst: u32) -> Option<PacketId> {
        let (events, counters) = (&mut self.out, &mut self.counters);
        self.rq.dequeue(now, dst, |p, r| {
            counters.count_drop(r);
            events.push_back(AodvEvent::Drop { pkt: p, reason: r });
        })
    }

    pub(super) fn drop_pkt(&mut self, pkt: PacketId, reason: DropReason) {
        self.counters.count_drop(reason);
        self.out.push_back(AodvEvent::Drop { pkt, reason });
    }

    /// aodv.cc `forward(rt, p, delay)` for a data packet on an up route.
    pub(super) fn forward_data(
        &mut self,
        now: SimTime,
        i: usize,
        pkt: PacketId,
        delay: SimDuration,
    ) {
        let rt = &mut self.routes[i];
        rt.expire = now + self.cfg.active_route_timeout;
        self.out.push_back(AodvEvent::Forward {
            pkt,
            next_hop: rt.next_hop,
            delay,
        });
    }

    /// Tells the animation trace's route log what entry `i` is now: its next hop and
    /// hop count while up, none otherwise (a no-op while the log is off).
    pub(super) fn note_route(&mut self, i: usize) {
        let rt = &self.routes[i];
        let up = rt.state == RouteState::Up;
        self.log
            .note(rt.dst, up.then_some(rt.next_hop), up.then_some(rt.hops));
    }

    pub(super) fn arm(&mut self, at: SimTime, kind: TimerKind) {
        self.timer_seq += 1;
        self.timers.push(Timer {
            at,
            seq: self.timer_seq,
            kind,
        });
    }
}
