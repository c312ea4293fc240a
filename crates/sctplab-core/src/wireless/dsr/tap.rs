//! DSR's promiscuous tap (dsragent.cc `tap`) and the gratuitous route replies it
//! sends to shorten routes (`sendRouteShortening`).

use super::{CONTROL_TTL, Dsr, Payload, SrHeader, SrPacket, TAP_CACHE_SIZE};
use crate::sim::SimTime;

impl Dsr {
    /// A packet this node overheard (addressed to another node's MAC), `uid` its
    /// unique number: each is processed once. Route errors are applied, route replies
    /// and source routes go into the secondary cache, and a data packet this node is
    /// listed on further down its route gets its source a gratuitous reply.
    pub fn tap(&mut self, now: SimTime, p: &SrPacket, uid: u64) {
        if !self.tap_reads(p.src, &p.sr, uid) {
            return;
        }
        self.tap_seen[(uid as usize) & (TAP_CACHE_SIZE - 1)] = uid;
        self.counters.tapped += 1;
        if !p.sr.errors.is_empty() {
            self.process_route_error(now, p);
        }
        if let Some((_, reply)) = &p.sr.reply {
            self.cache.notice_route_used(reply, 0);
        }
        if p.sr.request.is_some() {
            return;
        }
        self.cache.notice_route_used(&p.sr.addrs, p.sr.cur);
        if p.payload == Payload::Control {
            return;
        }
        let cur = p.sr.cur;
        if cur < p.sr.addrs.len() && p.sr.addrs[cur] != self.me {
            for i in cur + 1..p.sr.addrs.len() {
                if p.sr.addrs[i] == self.me {
                    self.send_route_shortening(now, p, cur, i);
                }
            }
        }
    }

    /// Whether `tap` looks at a packet from `src` with header `sr` and number `uid`
    /// (else it changes nothing): with the tap on, a source-routed packet that is
    /// neither about to reach this node anyway nor its own nor one it read already.
    /// The world asks first and copies the packet for `tap` only if so: most of the
    /// frames a node overhears are packets it read at an earlier hop, or its own.
    pub fn tap_reads(&self, src: u32, sr: &SrHeader, uid: u64) -> bool {
        self.cfg.use_tap
            && !sr.addrs.is_empty()
            && sr.addrs.get(sr.cur) != Some(&self.me)
            && src != self.me
            && self.tap_seen[(uid as usize) & (TAP_CACHE_SIZE - 1)] != uid
    }

    /// `sendRouteShortening`: `p` was heard at route index `heard_at` though it would
    /// reach this node only at `xmit_at`; the route's first node gets the route without
    /// the nodes in between, at most once a second for one route.
    fn send_route_shortening(
        &mut self,
        now: SimTime,
        p: &SrPacket,
        heard_at: usize,
        xmit_at: usize,
    ) {
        if !self.cfg.gratuitous_replies || heard_at == 0 {
            return;
        }
        let t = now.as_secs_f64();
        let holddown = self.cfg.grat_reply_holddown.as_secs_f64();
        let slot = match self.grat_hold.iter().position(|g| g.route == p.sr.addrs) {
            Some(i) => {
                if t - self.grat_hold[i].at < holddown {
                    return;
                }
                i
            }
            None => {
                self.grat_hold[self.grat_victim].route = p.sr.addrs.clone();
                self.grat_victim = (self.grat_victim + 1) % self.grat_hold.len();
                // As ns-2 does, the time goes into the slot after the one just filled.
                self.grat_victim
            }
        };
        self.grat_hold[slot].at = t;
        // Back to the source through the node heard: this node, the transmitter, ...
        let mut back: Vec<u32> = p.sr.addrs[..heard_at].to_vec();
        back.push(self.me);
        back.reverse();
        let mut shorter = p.sr.addrs.clone();
        shorter.drain(heard_at..xmit_at);
        self.cache.add_route(&back);
        self.counters.grat_replies_sent += 1;
        let reply = SrPacket {
            src: self.me,
            dst: p.sr.addrs[0],
            ttl: CONTROL_TTL,
            sr: SrHeader {
                addrs: back,
                reply: Some((0, shorter)),
                ..SrHeader::default()
            },
            payload: Payload::Control,
            ns2_stale: 0,
        };
        self.send_with_route(now, reply, true, crate::sim::SimDuration::ZERO);
    }
}
