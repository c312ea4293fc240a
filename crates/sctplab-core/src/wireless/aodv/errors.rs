//! Route errors and link breaks (RFC 3561 6.11-6.12; aodv.cc `recvError`,
//! `sendError`, `nb_delete`, `local_rt_repair`, `handle_link_failure`).

use crate::net::PacketId;
use crate::sim::{SimDuration, SimTime};

use super::{
    Aodv, AodvEvent, AodvMsg, AodvOut, BROADCAST, INFINITY_HOPS, MAX_RERR_DESTS, Rerr, RouteState,
    TimerKind, Unreachable,
};

impl Aodv {
    /// aodv.cc `recvError`.
    pub(super) fn recv_error(&mut self, _now: SimTime, e: &Rerr, ip_src: u32) {
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
                self.log.note(rt.dst, None, None);
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
    pub(super) fn send_error(&mut self, unreachable: Vec<Unreachable>, jitter: bool) {
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
    pub(super) fn nb_delete(&mut self, id: u32) {
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
                self.log.note(rt.dst, None, None);
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
    pub(super) fn local_repair(&mut self, now: SimTime, i: usize, pkt: PacketId) {
        self.counters.local_repairs += 1;
        let dst = self.routes[i].dst;
        self.enqueue(now, pkt, dst);
        self.routes[i].state = RouteState::InRepair;
        self.note_route(i);
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
    pub(super) fn local_repair_timeout(&mut self, dst: u32) {
        let Some(&i) = self.by_dst.get(&dst) else {
            return;
        };
        if self.routes[i].state != RouteState::Up {
            self.counters.local_repair_failures += 1;
            self.routes[i].down();
            self.note_route(i);
        }
    }
}
