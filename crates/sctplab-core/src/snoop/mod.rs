//! Snoop agents at a base station (Balakrishnan et al. 1995; seed 003 sec. 3): a sans-IO
//! machine that sees every packet the base station forwards, caches data heading to the
//! mobile host, repairs wireless losses locally (on duplicate acks and on its own timer)
//! and hides the duplicate acks those repairs answer, so the fixed sender does not take
//! wireless losses for congestion. `tcp.rs` is TCP-snoop, `sctp.rs` SCTP-snoop.
//! docs/models/snoop.md documents both and their knobs.

mod sctp;
mod tcp;

use crate::net::wire::TransportRepr;
use crate::net::{FlowId, NodeId, Packet};
use crate::sim::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Debug)]
pub struct SnoopCfg {
    /// The mobile host: data to it is cached, acks from it are snooped.
    pub mobile: NodeId,
    /// Packets (TCP segments or SCTP chunks) cached per connection at most.
    pub cache_packets: usize,
    /// The duplicate ack (or SACK) that starts a local repair: 1 as in Balakrishnan et al.
    /// and seed 003; ns-2.35's `Snoop` lets the first through and repairs on the second.
    pub dupack_thresh: u32,
    pub timer_min: SimDuration,
    pub timer_max: SimDuration,
    pub tcp: bool,
    pub sctp: bool,
}

/// What to do with a packet the base station is forwarding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Forward,
    /// A duplicate ack or SACK the local repair answers: the sender never sees it.
    Suppress,
}

/// Local retransmissions of one segment or chunk at most; then its repair is left to the
/// sender (Balakrishnan et al.; ns-2.35's `SNOOP_MAX_RXMIT`).
pub(crate) const MAX_LOCAL_RTX: u32 = 10;

/// Per-flow counters (summary.json adds them to the flow as `snoop_*`).
#[derive(Clone, Debug, Default)]
pub struct SnoopStats {
    pub local_retransmissions: u64,
    pub local_timeouts: u64,
    pub suppressed_acks: u64,
    pub cache_peak: usize,
}

/// Wireless-hop RTT estimate for the local retransmission timer (RFC 6298's weights),
/// bounded by the agent's timer knobs.
#[derive(Clone, Debug, Default)]
pub(crate) struct LocalRtt {
    srtt: Option<f64>,
    rttvar: f64,
    backoff: u32,
}

impl LocalRtt {
    pub fn sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        self.backoff = 0;
    }

    pub fn timeout(&self, cfg: &SnoopCfg) -> SimDuration {
        let base = match self.srtt {
            Some(s) => SimDuration::from_secs_f64(s + 4.0 * self.rttvar),
            None => cfg.timer_max,
        };
        let backed = base.saturating_mul(1u64 << self.backoff.min(16));
        backed.max(cfg.timer_min).min(cfg.timer_max)
    }

    pub fn back_off(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }
}

/// The connection `is_it` picks, created on its first packet. A base station carries few
/// connections, so a linear search beats hashing here.
fn conn_for<C>(conns: &mut Vec<C>, is_it: impl Fn(&C) -> bool, new: impl FnOnce() -> C) -> &mut C {
    let i = match conns.iter().position(is_it) {
        Some(i) => i,
        None => {
            conns.push(new());
            conns.len() - 1
        }
    };
    &mut conns[i]
}

pub struct SnoopAgent {
    pub cfg: SnoopCfg,
    tcp: Vec<tcp::TcpConn>,
    sctp: Vec<sctp::SctpConn>,
    /// Local retransmissions, ready to be forwarded towards the mobile host.
    out: VecDeque<Packet>,
    pub stats: BTreeMap<FlowId, SnoopStats>,
}

impl SnoopAgent {
    pub fn new(cfg: SnoopCfg) -> Self {
        SnoopAgent {
            cfg,
            tcp: Vec::new(),
            sctp: Vec::new(),
            out: VecDeque::new(),
            stats: BTreeMap::new(),
        }
    }

    /// A packet the base station is about to forward. `room`: whether the interface queue
    /// it goes to accepts it now. Data that the base station's own queue drops is not
    /// cached, so its loss reaches the sender's congestion control (ns-2.35 `snoop.cc`
    /// `snoop_data` inserts only while the interface queue is below its limit).
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, room: bool) -> Verdict {
        let to_mobile = pkt.dst == self.cfg.mobile;
        let from_mobile = pkt.src == self.cfg.mobile;
        if !to_mobile && !from_mobile {
            return Verdict::Forward;
        }
        let stats = self.stats.entry(pkt.flow).or_default();
        match &pkt.transport {
            TransportRepr::Tcp(t) if self.cfg.tcp => {
                let key = if to_mobile {
                    (t.src_port, t.dst_port)
                } else {
                    (t.dst_port, t.src_port)
                };
                let conn = conn_for(
                    &mut self.tcp,
                    |c| c.key == key && c.flow == pkt.flow,
                    || tcp::TcpConn::new(key, pkt.flow),
                );
                if to_mobile {
                    conn.on_data(now, pkt, &self.cfg, stats, room);
                    Verdict::Forward
                } else {
                    conn.on_ack(now, pkt, &self.cfg, stats, &mut self.out)
                }
            }
            TransportRepr::Sctp(s) if self.cfg.sctp => {
                let key = if to_mobile {
                    (s.src_port, s.dst_port)
                } else {
                    (s.dst_port, s.src_port)
                };
                let conn = conn_for(
                    &mut self.sctp,
                    |c| c.key == key && c.flow == pkt.flow,
                    || sctp::SctpConn::new(key, pkt.flow),
                );
                if to_mobile {
                    conn.on_to_mobile(now, pkt, &self.cfg, stats, room);
                    Verdict::Forward
                } else {
                    conn.on_from_mobile(now, pkt, &self.cfg, stats, &mut self.out)
                }
            }
            _ => Verdict::Forward,
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime) {
        for c in &mut self.tcp {
            if c.deadline.is_some_and(|t| now >= t) {
                let stats = self.stats.entry(c.flow).or_default();
                c.on_timer(now, &self.cfg, stats, &mut self.out);
            }
        }
        for c in &mut self.sctp {
            if c.deadline.is_some_and(|t| now >= t) {
                let stats = self.stats.entry(c.flow).or_default();
                c.on_timer(now, &self.cfg, stats, &mut self.out);
            }
        }
    }

    /// The next local retransmission: a complete packet, addressed as the original.
    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.tcp
            .iter()
            .filter_map(|c| c.deadline)
            .chain(self.sctp.iter().filter_map(|c| c.deadline))
            .min()
    }
}
