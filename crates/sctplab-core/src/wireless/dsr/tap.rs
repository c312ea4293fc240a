//! DSR's promiscuous tap (dsragent.cc `tap`) and the gratuitous route replies it
//! sends to shorten routes (`sendRouteShortening`).

use super::{CONTROL_TTL, Dsr, Payload, SrHeader, SrPacket, TAP_CACHE_SIZE};
use crate::sim::SimTime;

impl Dsr {
    /// A packet from `src` with header `sr` this node overheard (addressed to another
    /// node's MAC; `control`: DSR's own, without data), `uid` its unique number: each
    /// is processed once. Route errors are applied, route replies and source routes go
    /// into the secondary cache, and a data packet this node is listed on further down
    /// its route gets its source a gratuitous reply. The header is borrowed from the
    /// world's packet (the tap keeps nothing of it but cache entries); returns whether
    /// the tap read it (`tap_reads`: else nothing changed).
    pub fn tap(&mut self, now: SimTime, src: u32, sr: &SrHeader, control: bool, uid: u64) -> bool {
        if !self.tap_reads(src, sr, uid) {
            return false;
        }
        self.tap_seen[(uid as usize) & (TAP_CACHE_SIZE - 1)] = uid;
        self.counters.tapped += 1;
        if !sr.errors.is_empty() {
            self.process_route_error(now, sr);
        }
        if let Some((_, reply)) = &sr.reply {
            self.cache.notice_route_used(reply, 0);
        }
        if sr.request.is_some() {
            return true;
        }
        self.cache.notice_route_used(&sr.addrs, sr.cur);
        if control {
            return true;
        }
        let cur = sr.cur;
        if cur < sr.addrs.len() && sr.addrs[cur] != self.me {
            for i in cur + 1..sr.addrs.len() {
                if sr.addrs[i] == self.me {
                    self.send_route_shortening(now, sr, cur, i);
                }
            }
        }
        true
    }

    /// Whether `tap` looks at a packet from `src` with header `sr` and number `uid`
    /// (else it changes nothing): with the tap on, a source-routed packet that is
    /// neither about to reach this node anyway nor its own nor one it read already.
    /// Most of the frames a node overhears are packets it read at an earlier hop, or
    /// its own.
    pub fn tap_reads(&self, src: u32, sr: &SrHeader, uid: u64) -> bool {
        self.cfg.use_tap
            && !sr.addrs.is_empty()
            && sr.addrs.get(sr.cur) != Some(&self.me)
            && src != self.me
            && self.tap_seen[(uid as usize) & (TAP_CACHE_SIZE - 1)] != uid
    }

    /// `sendRouteShortening`: a packet with header `sr` was heard at route index
    /// `heard_at` though it would reach this node only at `xmit_at`; the route's first
    /// node gets the route without the nodes in between, at most once a second for one
    /// route.
    fn send_route_shortening(
        &mut self,
        now: SimTime,
        sr: &SrHeader,
        heard_at: usize,
        xmit_at: usize,
    ) {
        if !self.cfg.gratuitous_replies || heard_at == 0 {
            return;
        }
        let t = now.as_secs_f64();
        let holddown = self.cfg.grat_reply_holddown.as_secs_f64();
        let slot = match self.grat_hold.iter().position(|g| g.route == sr.addrs) {
            Some(i) => {
                if t - self.grat_hold[i].at < holddown {
                    return;
                }
                i
            }
            None => {
                self.grat_hold[self.grat_victim].route = sr.addrs.clone();
                self.grat_victim = (self.grat_victim + 1) % self.grat_hold.len();
                // As ns-2 does, the time goes into the slot after the one just filled.
                self.grat_victim
            }
        };
        self.grat_hold[slot].at = t;
        // Back to the source through the node heard: this node, the transmitter, ...
        let mut back: Vec<u32> = sr.addrs[..heard_at].to_vec();
        back.push(self.me);
        back.reverse();
        let mut shorter = sr.addrs.clone();
        shorter.drain(heard_at..xmit_at);
        self.cache.add_route(&back);
        self.counters.grat_replies_sent += 1;
        let reply = SrPacket {
            src: self.me,
            dst: sr.addrs[0],
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
