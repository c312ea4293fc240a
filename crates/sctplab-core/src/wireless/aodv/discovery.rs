//! Route discovery (RFC 3561 6.3-6.7; aodv.cc `sendRequest`, `recvRequest`,
//! `sendReply`, `recvReply`): requests with their retries and duplicate cache, replies
//! and the reverse and forward routes they set up.

use crate::sim::{SimDuration, SimTime};

use super::{
    Aodv, AodvMsg, AodvOut, BROADCAST, DropReason, INFINITY_HOPS, MAX_HISTORY, NO_HOP, RouteState,
    Rrep, Rreq,
};

impl Aodv {
    /// aodv.cc `sendRequest`: rate limit, retry accounting, TTL choice and timeout.
    pub(super) fn send_request(&mut self, now: SimTime, dst: u32) {
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

    /// aodv.cc `recvRequest`.
    pub(super) fn recv_request(&mut self, now: SimTime, q: &Rreq, ip_src: u32, ttl: u8) {
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
            self.note_route(r0);
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
    pub(super) fn send_reply(
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
    pub(super) fn recv_reply(&mut self, now: SimTime, p: &Rrep, ip_src: u32, ttl: u8) {
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
            self.note_route(i);
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

    pub(super) fn jitter(&mut self) -> SimDuration {
        SimDuration::from_secs_f64(self.cfg.broadcast_jitter.as_secs_f64() * self.rng.uniform())
    }
}

/// ns-2's `(u_int32_t)(rt_expire - CURRENT_TIME)`: truncate toward zero, and for a
/// negative difference keep the low 32 bits of the 64-bit integer (x86-64 gcc).
pub(super) fn ns2_lifetime_s(expire: SimTime, now: SimTime) -> u32 {
    let diff_ns = i128::from(expire.as_nanos()) - i128::from(now.as_nanos());
    let secs = diff_ns / 1_000_000_000;
    (secs as i64) as u32
}
