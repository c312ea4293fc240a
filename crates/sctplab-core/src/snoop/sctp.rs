//! SCTP-snoop as seed 003 sec. 3 and Figs. 1-2 describe it:
//! - INIT and INIT-ACK pass through and tell the agent the association (single-homed
//!   here: one address per end, so there is one path to repair on);
//! - a new in-order DATA chunk to the mobile host is cached and forwarded (not cached if
//!   the base station's queue towards the mobile host drops it: congestion); an old TSN
//!   (sender retransmission) is forwarded uncached; a new TSN beyond a gap is forwarded
//!   after the gap is marked as lost upstream (congestion);
//! - a SACK that advances the cumulative TSN cleans the cache (cumulative and gap-acked
//!   chunks), samples the wireless RTT and is forwarded;
//! - the first duplicate SACK (same cumulative TSN) makes the agent retransmit the
//!   chunks its gap-ack blocks show missing, and is discarded; further duplicate SACKs
//!   are discarded; a duplicate SACK whose holes were lost upstream goes to the sender;
//! - a local timer retransmits the oldest cached chunk when no progress comes;
//! - `dupack_thresh` > 1 forwards the first duplicate SACKs before repairing; a chunk is
//!   retransmitted locally at most `MAX_LOCAL_RTX` times, and one the sender retransmits
//!   is left to the sender.
//!
//! TSNs are offsets from the first TSN seen (serial arithmetic, RFC 9260 sec. 1.6).

use super::{LocalRtt, MAX_LOCAL_RTX, SnoopCfg, SnoopStats, Verdict};
use crate::net::wire::{Chunk, DataChunk, TransportRepr};
use crate::net::{FlowId, Packet, PacketKind};
use crate::sim::SimTime;
use std::collections::{BTreeMap, VecDeque};

struct Cached {
    /// The packet that carried the chunk, as the template of a local retransmission.
    template: Packet,
    chunk: DataChunk,
    forwarded_at: SimTime,
    local_rtx: u32,
    /// The sender sent this chunk again: its loss is the sender's to repair.
    sender_rtx: bool,
}

pub(crate) struct SctpConn {
    pub key: (u16, u16),
    pub flow: FlowId,
    initial_tsn: Option<u32>,
    /// Next TSN offset expected in sequence from the sender.
    next: i64,
    cum: i64,
    cache: BTreeMap<i64, Cached>,
    upstream: Vec<i64>,
    recovering: bool,
    /// Duplicate SACKs seen for the current cumulative TSN.
    dup_sacks: u32,
    rtt: LocalRtt,
    pub deadline: Option<SimTime>,
}

impl SctpConn {
    pub fn new(key: (u16, u16), flow: FlowId) -> Self {
        SctpConn {
            key,
            flow,
            initial_tsn: None,
            next: 0,
            cum: -1,
            cache: BTreeMap::new(),
            upstream: Vec::new(),
            recovering: false,
            dup_sacks: 0,
            rtt: LocalRtt::default(),
            deadline: None,
        }
    }

    fn off(&self, tsn: u32) -> i64 {
        let base = self.initial_tsn.unwrap_or(tsn);
        i64::from(tsn.wrapping_sub(base) as i32)
    }

    fn arm(&mut self, now: SimTime, cfg: &SnoopCfg) {
        self.deadline = (!self.cache.is_empty()).then(|| now + self.rtt.timeout(cfg));
    }

    pub fn on_to_mobile(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        room: bool,
    ) {
        let TransportRepr::Sctp(s) = &pkt.transport else {
            return;
        };
        for c in &s.chunks {
            match c {
                Chunk::Init(init) => {
                    // The sender's initial TSN numbers its DATA (seed 003 Fig. 1: the agent
                    // learns the association from INIT / INIT-ACK).
                    self.initial_tsn = Some(init.initial_tsn);
                }
                Chunk::Data(d) => {
                    if self.initial_tsn.is_none() {
                        self.initial_tsn = Some(d.tsn);
                    }
                    let off = self.off(d.tsn);
                    if off < self.next {
                        // A sender retransmission: forwarded, not cached again; the sender
                        // now repairs it, so duplicate SACKs must reach it again.
                        self.upstream.retain(|&u| u != off);
                        if let Some(c) = self.cache.get_mut(&off) {
                            c.sender_rtx = true;
                            self.recovering = false;
                        }
                        continue;
                    }
                    for gap in self.next..off {
                        self.upstream.push(gap);
                    }
                    self.next = off + 1;
                    // Chunks the base station's own queue drops are congestion: left
                    // uncached, the sender sees their loss (as TCP-snoop does).
                    if room && self.cache.len() < cfg.cache_packets {
                        let mut template = pkt.clone();
                        if let TransportRepr::Sctp(t) = &mut template.transport {
                            t.chunks.clear();
                        }
                        self.cache.insert(
                            off,
                            Cached {
                                template,
                                chunk: *d,
                                forwarded_at: now,
                                local_rtx: 0,
                                sender_rtx: false,
                            },
                        );
                        stats.cache_peak = stats.cache_peak.max(self.cache.len());
                    }
                }
                _ => {}
            }
        }
        if self.deadline.is_none() {
            self.arm(now, cfg);
        }
    }

    fn retransmit(
        &mut self,
        offs: &[i64],
        now: SimTime,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) {
        // One packet per chunk: these chunks filled a packet each when first sent.
        for off in offs {
            if let Some(c) = self.cache.get_mut(off) {
                c.local_rtx += 1;
                c.forwarded_at = now;
                let mut p = c.template.clone();
                if let TransportRepr::Sctp(t) = &mut p.transport {
                    t.chunks.push(Chunk::Data(c.chunk));
                }
                p.kind = PacketKind::Data;
                let first = self.initial_tsn.unwrap_or(c.chunk.tsn);
                p.data_num = c.chunk.tsn.wrapping_sub(first).wrapping_add(1);
                p.retransmission = true;
                p.finalize();
                out.push_back(p);
                stats.local_retransmissions += 1;
            }
        }
    }

    pub fn on_from_mobile(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) -> Verdict {
        let TransportRepr::Sctp(s) = &pkt.transport else {
            return Verdict::Forward;
        };
        let Some(sack) = s.chunks.iter().find_map(|c| match c {
            Chunk::Sack(sack) => Some(sack),
            _ => None,
        }) else {
            return Verdict::Forward;
        };
        if self.initial_tsn.is_none() {
            return Verdict::Forward;
        }
        let cum = self.off(sack.cum_tsn_ack);
        let gaps: Vec<(i64, i64)> = sack
            .gaps
            .iter()
            .map(|&(a, b)| (cum + i64::from(a), cum + i64::from(b)))
            .collect();
        // Gap-acked chunks arrived: drop them from the cache.
        for &(a, b) in &gaps {
            for off in a..=b {
                self.cache.remove(&off);
            }
        }
        if cum > self.cum {
            let mut sample = None;
            while let Some((&off, c)) = self.cache.first_key_value() {
                if off > cum {
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
            self.cum = cum;
            self.upstream.retain(|&u| u > cum);
            self.recovering = false;
            self.dup_sacks = 0;
            self.arm(now, cfg);
            return Verdict::Forward;
        }
        if cum < self.cum {
            return Verdict::Forward; // an old SACK: the sender discards it itself
        }
        // A duplicate SACK: TSNs below the highest gap-acked one and not acked are missing.
        let highest = gaps.iter().map(|&(_, b)| b).max().unwrap_or(cum);
        let missing: Vec<i64> = ((cum + 1)..highest)
            .filter(|off| !gaps.iter().any(|&(a, b)| a <= *off && *off <= b))
            .collect();
        let senders = |m: &i64| match self.cache.get(m) {
            Some(c) => c.sender_rtx || c.local_rtx >= MAX_LOCAL_RTX,
            None => true,
        };
        if missing
            .iter()
            .any(|m| self.upstream.contains(m) || senders(m))
        {
            // Lost before the base station, not cached, already retransmitted by the
            // sender, or tried locally often enough: the sender must see it.
            return Verdict::Forward;
        }
        if !self.recovering {
            self.dup_sacks += 1;
            if self.dup_sacks < cfg.dupack_thresh {
                return Verdict::Forward;
            }
            self.recovering = true;
            self.retransmit(&missing, now, stats, out);
            self.arm(now, cfg);
        }
        stats.suppressed_acks += 1;
        Verdict::Suppress
    }

    pub fn on_timer(
        &mut self,
        now: SimTime,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        out: &mut VecDeque<Packet>,
    ) {
        self.deadline = None;
        // Only the chunk right after the cumulative TSN is worth resending; if it is not cached (lost
        // upstream), the sender repairs it and the timer waits for progress.
        let Some((&off, c)) = self.cache.first_key_value() else {
            return;
        };
        if off != self.cum + 1 {
            return;
        }
        if c.local_rtx >= MAX_LOCAL_RTX || c.sender_rtx {
            // Left to the sender (unreachable mobile host, or the sender repairs it).
            self.recovering = false;
            return;
        }
        stats.local_timeouts += 1;
        self.rtt.back_off();
        self.retransmit(&[off], now, stats, out);
        self.arm(now, cfg);
    }
}
