//! TCP-snoop (Balakrishnan, Seshan, Amir and Katz 1995, and ns-2.35's `Snoop`):
//! - a new in-sequence segment to the mobile host is cached and forwarded;
//! - a segment the cache already holds is a sender retransmission: forwarded, and its
//!   loss is left to the sender;
//! - a segment beyond a gap was preceded by a loss upstream of the base station
//!   (congestion): the gap is remembered, so its duplicate acks go to the sender;
//! - a new ack cleans the cache, gives an RTT sample of the wireless hop, and is
//!   forwarded; an ack below the highest seen is dropped;
//! - the first duplicate ack for a cached segment (the `dupack_thresh`-th; earlier ones
//!   are forwarded) triggers a local retransmission and is suppressed, as are the further
//!   duplicates that segment's loss causes;
//! - if no ack progress comes within the local timeout, the first cached segment is
//!   retransmitted;
//! - a segment is retransmitted locally at most `MAX_LOCAL_RTX` times; a sender
//!   retransmission of the segment under repair ends the suppression of its duplicates.
//!
//! Sequence numbers are byte offsets from the first segment seen, unwrapped.

use super::{LocalRtt, MAX_LOCAL_RTX, SnoopCfg, SnoopStats, Verdict};
use crate::net::wire::TransportRepr;
use crate::net::{FlowId, Packet};
use crate::sim::SimTime;
use std::collections::{BTreeMap, VecDeque};

struct Cached {
    pkt: Packet,
    len: u64,
    forwarded_at: SimTime,
    /// The sender sent this segment again: its loss is the sender's to repair.
    sender_rtx: bool,
    local_rtx: u32,
}

pub(crate) struct TcpConn {
    pub key: (u16, u16),
    pub flow: FlowId,
    base: Option<u32>,
    /// Next byte expected from the sender in sequence.
    next: u64,
    last_ack: u64,
    cache: BTreeMap<u64, Cached>,
    /// Holes ahead of the base station: byte ranges lost before reaching it.
    upstream_gaps: VecDeque<(u64, u64)>,
    /// The segment being repaired locally, if any: duplicates of its ack are suppressed.
    repairing: Option<u64>,
    /// Duplicate acks seen for the current ack point.
    dupacks: u32,
    rtt: LocalRtt,
    pub deadline: Option<SimTime>,
}

impl TcpConn {
    pub fn new(key: (u16, u16), flow: FlowId) -> Self {
        TcpConn {
            key,
            flow,
            base: None,
            next: 0,
            last_ack: 0,
            cache: BTreeMap::new(),
            upstream_gaps: VecDeque::new(),
            repairing: None,
            dupacks: 0,
            rtt: LocalRtt::default(),
            deadline: None,
        }
    }

    fn offset(&self, seq: u32, near: u64) -> u64 {
        let base = self.base.unwrap_or(seq);
        let rel = u64::from(seq.wrapping_sub(base));
        let hi = near & !0xffff_ffff;
        let mut c = hi | rel;
        if c + (1 << 31) < near {
            c += 1 << 32;
        } else if c > near + (1 << 31) && c >= (1 << 32) {
            c -= 1 << 32;
        }
        c
    }

    fn arm(&mut self, now: SimTime, cfg: &SnoopCfg) {
        self.deadline = (!self.cache.is_empty()).then(|| now + self.rtt.timeout(cfg));
    }

    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, cfg: &SnoopCfg, stats: &mut SnoopStats) {
        let TransportRepr::Tcp(t) = &pkt.transport else {
            return;
        };
        let len = u64::from(pkt.payload_len);
        if len == 0 {
            return; // SYN and pure acks towards the mobile carry nothing to cache
        }
        if self.base.is_none() {
            self.base = Some(t.seq);
        }
        let off = self.offset(t.seq, self.next);
        if off < self.next {
            // Seen before: a sender retransmission (or a segment below the ack point).
            if let Some(c) = self.cache.get_mut(&off) {
                c.sender_rtx = true;
                c.forwarded_at = now;
            }
            if self.repairing == Some(off) {
                // The sender repairs it now: its duplicate acks must reach it again.
                self.repairing = None;
            }
            self.upstream_gaps.retain(|&(a, b)| !(a <= off && off < b));
            return;
        }
        if off > self.next {
            self.upstream_gaps.push_back((self.next, off));
        }
        self.next = off + len;
        if self.cache.len() < cfg.cache_packets {
            self.cache.insert(
                off,
                Cached {
                    pkt: pkt.clone(),
                    len,
                    forwarded_at: now,
                    sender_rtx: false,
                    local_rtx: 0,
                },
            );
            stats.cache_peak = stats.cache_peak.max(self.cache.len());
        }
        if self.deadline.is_none() {
            self.arm(now, cfg);
        }
    }

    fn retransmit(
        &mut self,
        off: u64,
        now: SimTime,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) {
        if let Some(c) = self.cache.get_mut(&off) {
            c.local_rtx += 1;
            c.forwarded_at = now;
            let mut p = c.pkt.clone();
            p.retransmission = true;
            out.push_back(p);
            stats.local_retransmissions += 1;
        }
    }

    pub fn on_ack(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) -> Verdict {
        let TransportRepr::Tcp(t) = &pkt.transport else {
            return Verdict::Forward;
        };
        if self.base.is_none() || pkt.payload_len > 0 {
            return Verdict::Forward;
        }
        let ack = self.offset(t.ack, self.last_ack);
        if ack > self.last_ack {
            // New ack: clean the cache, sample the wireless RTT on a segment sent once.
            let mut sample = None;
            while let Some((&off, c)) = self.cache.first_key_value() {
                if off + c.len > ack {
                    break;
                }
                if c.local_rtx == 0 && !c.sender_rtx {
                    sample = Some(now.saturating_since(c.forwarded_at).as_secs_f64());
                }
                self.cache.pop_first();
            }
            if let Some(r) = sample {
                self.rtt.sample(r);
            }
            self.last_ack = ack;
            self.upstream_gaps.retain(|&(_, b)| b > ack);
            self.repairing = None;
            self.dupacks = 0;
            self.arm(now, cfg);
            return Verdict::Forward;
        }
        if ack < self.last_ack {
            return Verdict::Suppress; // older than what the sender already has
        }
        // A duplicate ack: the segment at `ack` did not reach the mobile host.
        if self.repairing == Some(ack) {
            stats.suppressed_acks += 1;
            return Verdict::Suppress;
        }
        self.dupacks += 1;
        let upstream = self.upstream_gaps.iter().any(|&(a, b)| a <= ack && ack < b);
        match self.cache.get(&ack) {
            Some(c) if !c.sender_rtx && !upstream && c.local_rtx < MAX_LOCAL_RTX => {
                if self.dupacks < cfg.dupack_thresh {
                    return Verdict::Forward;
                }
                self.repairing = Some(ack);
                self.retransmit(ack, now, stats, out);
                self.arm(now, cfg);
                stats.suppressed_acks += 1;
                Verdict::Suppress
            }
            // Not cached, lost upstream, the sender is already repairing it, or local
            // repair has been tried often enough.
            _ => Verdict::Forward,
        }
    }

    pub fn on_timer(
        &mut self,
        now: SimTime,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) {
        self.deadline = None;
        // Only the segment at the ack point is worth resending; if it is not cached (lost
        // upstream), the sender repairs it and the timer waits for progress.
        let Some((&off, c)) = self.cache.first_key_value() else {
            return;
        };
        if off != self.last_ack {
            return;
        }
        if c.local_rtx >= MAX_LOCAL_RTX {
            // Give up: the mobile host may be unreachable; the sender's timer takes over
            // and its duplicate acks are no longer hidden.
            self.repairing = None;
            return;
        }
        stats.local_timeouts += 1;
        self.rtt.back_off();
        self.repairing = Some(off);
        self.retransmit(off, now, stats, out);
        self.arm(now, cfg);
    }
}
