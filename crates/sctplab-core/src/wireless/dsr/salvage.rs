//! What DSR does when a link breaks (dsragent.cc `xmitFailed`, `undeliverablePkt`,
//! `processBrokenRouteError`): route errors, and salvaging packets with cached routes.

use super::{
    CONTROL_TTL, Dsr, DsrDrop, GRAT_ROUTE_ERROR, LinkDown, MAX_ROUTE_ERRORS, Payload, SrHeader,
    SrPacket,
};
use crate::sim::{SimDuration, SimTime};

impl Dsr {
    /// The MAC gave up on `p` (its header as it went on the air: `cur` the next hop's
    /// index); `queued` are the packets the interface queue held for the same next hop,
    /// taken out of it in queue order (ns-2's `prq_get_nexthop` loop). The link is
    /// dead in the cache; `p` and the queued packets are salvaged or re-routed; the
    /// route's first node is sent a route error.
    pub fn xmit_failed(&mut self, now: SimTime, mut p: SrPacket, queued: Vec<SrPacket>) {
        self.counters.link_failures += 1;
        // Undo the increment made when it was sent.
        p.sr.cur = p.sr.cur.saturating_sub(1);
        let cur = p.sr.cur;
        if cur + 1 >= p.sr.addrs.len() || p.sr.request.is_some() {
            self.drop_data(&p, DsrDrop::BadRoute);
            return;
        }
        let (tell, from, to) = (p.sr.addrs[0], p.sr.addrs[cur], p.sr.addrs[cur + 1]);
        self.cache.notice_dead_link(from, to);
        // ns-2 salvages a copy and turns the packet itself into the route error: here
        // the data moves to the copy and the error is a control packet.
        let mut err = SrPacket {
            payload: Payload::Control,
            ..p.clone()
        };
        self.undeliverable(now, p);
        for q in queued {
            self.undeliverable(now, q);
        }
        if tell == self.me || err.sr.errors.len() >= MAX_ROUTE_ERRORS {
            return;
        }
        err.sr.errors.push(LinkDown { from, to, tell });
        err.sr.reply = None;
        err.sr.request = None;
        err.src = self.me;
        err.dst = tell;
        err.ttl = CONTROL_TTL;
        err.sr.addrs.truncate(cur + 1);
        err.sr.addrs.reverse();
        self.counters.errors_sent += 1;
        self.send_with_route(now, err, true, SimDuration::ZERO);
    }

    /// `undeliverablePkt`: this node's own packet looks for a new route; another's is
    /// salvaged with a cached route, or waits in the send buffer for one request.
    pub(super) fn undeliverable(&mut self, now: SimTime, mut p: SrPacket) {
        if p.src == self.me {
            p.sr.addrs.clear();
            self.handle_without_sr(now, p, false);
            return;
        }
        if !self.cfg.salvage_with_cache {
            self.drop_data(&p, DsrDrop::NoRoute);
            return;
        }
        if p.sr.salvaged >= self.cfg.salvage_max_attempts {
            self.counters.drop_salvage_limit += 1;
            self.drop_data(&p, DsrDrop::Salvage);
            return;
        }
        let Some(route) = self.cache.find_route(p.dst, false) else {
            if self.cfg.salvage_max_requests > 0 {
                self.stick_in_send_buffer(now, p);
            } else {
                self.drop_data(&p, DsrDrop::NoRoute);
            }
            return;
        };
        // `dsragent_dont_salvage_bad_replies`: a reply listing the dead link (either
        // way) is cut off; a packet that was only that reply is dropped. ns-2 reads the
        // dead link's far end at `cur + 1` of the header as it is here.
        if let (Some((_, reply)), Some(&to)) = (&p.sr.reply, p.sr.addrs.get(p.sr.cur + 1)) {
            let me = self.me;
            let bad = reply
                .windows(2)
                .any(|w| (w[0] == me && w[1] == to) || (w[0] == to && w[1] == me));
            if bad {
                p.sr.reply = None;
                if p.data().is_none() && p.sr.request.is_none() && p.sr.errors.is_empty() {
                    return;
                }
            }
        }
        p.sr.addrs = route;
        p.sr.cur = 0;
        p.sr.salvaged = p.sr.salvaged.saturating_add(1);
        self.counters.salvaged += 1;
        self.send_with_route(now, p, false, SimDuration::ZERO);
    }

    /// `processBrokenRouteError` on a packet with header `sr`: every link the error
    /// lists goes out of the cache; if the error is for this node, it is held for the
    /// next request, and a nested error goes on to the node the next one is for.
    pub(super) fn process_route_error(&mut self, now: SimTime, sr: &SrHeader) {
        for e in &sr.errors {
            self.cache.notice_dead_link(e.from, e.to);
        }
        let Some(last) = sr.errors.last().copied() else {
            return;
        };
        if last.tell != self.me {
            return;
        }
        self.held_error = Some((last.from, last.to, now));
        if sr.errors.len() == 1 {
            return;
        }
        let mut errors = sr.errors.clone();
        errors.pop();
        let tell = errors.last().map_or(GRAT_ROUTE_ERROR, |e| e.tell);
        let copy = SrPacket {
            src: self.me,
            dst: tell,
            ttl: CONTROL_TTL,
            sr: SrHeader {
                errors,
                salvaged: sr.salvaged,
                reply: sr.reply.clone(),
                ..SrHeader::default()
            },
            payload: Payload::Control,
            ns2_stale: 0,
        };
        self.handle_without_sr(now, copy, false);
    }
}
