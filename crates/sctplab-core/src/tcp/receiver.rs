//! The TCP receiver (ns-2's `TCPSink`, `TCPSink/Sack1` and `DelAck` sinks): cumulative
//! acks, SACK blocks built as RFC 2018 sec. 4 asks (the block holding the segment that
//! triggered the ack first, then the most recent earlier blocks, as ns-2's `Sacker`
//! does), optional delayed acks, and the answer to a SYN when the handshake is on.

use super::ecn::ReceiverEcn;
use super::seqmap::SeqMap;
use crate::endpoint::Endpoint;
use crate::metrics::Window;
use crate::net::wire::{SackBlocks, TcpFlags, TcpOptions, TcpRepr, TransportRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Advertised window: the sender is limited by its own `window` knob, as ns-2's one-way
/// agents are, so the receiver advertises the largest unscaled window.
const ADVERTISED_WINDOW: u16 = 65_535;

#[derive(Clone, Debug)]
pub struct ReceiverCfg {
    pub ports: (u16, u16),
    pub map: SeqMap,
    pub sack: bool,
    pub max_sack_blocks: usize,
    pub delayed_ack: Option<SimDuration>,
    pub window: Window,
    pub start: SimTime,
}

#[derive(Clone, Copy, Debug)]
struct PendingAck {
    syn_ack: bool,
    /// Flags the SYN-ACK adds (ECN setup, RFC 3168 sec. 6.1.1).
    syn_flags: TcpFlags,
    /// Send time of the data segment that triggered the ack (echoed for RTT sampling).
    echo: SimTime,
}

pub struct TcpReceiver {
    cfg: ReceiverCfg,
    /// Highest in-order segment received (-1 for none).
    cum: i64,
    /// Highest segment received.
    maxseen: i64,
    /// Whether segment `cum + 1 + i` has arrived.
    seen: VecDeque<bool>,
    /// Earlier SACK blocks, most recent first (ns-2 `SackStack`).
    stack: Vec<(i64, i64)>,
    /// The blocks of the ack being built (kept to reuse its allocation).
    blocks: Vec<(i64, i64)>,
    pending: VecDeque<PendingAck>,
    /// In-order segments not yet acknowledged (delayed acks).
    unacked: u32,
    delack_deadline: Option<SimTime>,
    last_echo: SimTime,
    /// Segment that triggered the ack being built, and whether it was a duplicate.
    trigger: Option<(i64, bool)>,
    high_offset: u64,
    /// RFC 3168 state (`tcp/ecn.rs`); off unless `set_ecn` says so.
    pub(super) ecn: ReceiverEcn,
    pub delivered_bytes: u64,
    pub delivered_total: u64,
    pub ack_packets: u64,
    pub ack_bytes: u64,
    /// Acks carrying at least one SACK block (whole packets, IP header included).
    pub sack_packets: u64,
    pub sack_bytes: u64,
    pub completed_at: Option<SimTime>,
    /// With `stream_traffic` (`tcp/messages.rs`): (time, bytes delivered in order)
    /// whenever the in-order point advances, for the message delays.
    pub msg_log: Option<Vec<(SimTime, u64)>>,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverCfg) -> Self {
        TcpReceiver {
            cfg,
            cum: -1,
            maxseen: -1,
            seen: VecDeque::new(),
            stack: Vec::new(),
            blocks: Vec::new(),
            pending: VecDeque::new(),
            unacked: 0,
            delack_deadline: None,
            last_echo: SimTime::ZERO,
            trigger: None,
            high_offset: 0,
            ecn: ReceiverEcn::default(),
            delivered_bytes: 0,
            delivered_total: 0,
            ack_packets: 0,
            ack_bytes: 0,
            sack_packets: 0,
            sack_bytes: 0,
            completed_at: None,
            msg_log: None,
        }
    }

    /// Logs every advance of the in-order point (`stream_traffic`'s message delays).
    pub fn log_messages(&mut self) {
        self.msg_log = Some(Vec::new());
    }

    /// Makes the receiver ECN-capable (the flow's `ecn`); `handshake`: ECN is agreed on
    /// the SYN, else assumed on at both ends.
    pub fn set_ecn(&mut self, capable: bool, handshake: bool) {
        self.ecn = ReceiverEcn::new(capable, handshake);
    }

    /// Highest in-order segment, 0-based (-1 for none).
    pub fn cum(&self) -> i64 {
        self.cum
    }

    fn record_segment(&mut self, now: SimTime, seg: i64) -> bool {
        let is_dup = seg <= self.cum || {
            let i = (seg - self.cum - 1) as usize;
            self.seen.get(i).copied().unwrap_or(false)
        };
        if is_dup {
            return true;
        }
        let i = (seg - self.cum - 1) as usize;
        while self.seen.len() <= i {
            self.seen.push_back(false);
        }
        self.seen[i] = true;
        self.maxseen = self.maxseen.max(seg);
        while self.seen.front() == Some(&true) {
            self.seen.pop_front();
            self.cum += 1;
            let len = u64::from(self.cfg.map.len_of(self.cum));
            self.delivered_total += len;
            if self.cfg.window.contains(now) {
                self.delivered_bytes += len;
            }
        }
        if let Some(log) = self.msg_log.as_mut() {
            if log.last().is_none_or(|&(_, b)| b < self.delivered_total) {
                log.push((now, self.delivered_total));
            }
        }
        if let Some(total) = self.cfg.map.total {
            if self.completed_at.is_none() && self.delivered_total >= total {
                self.completed_at = Some(now);
            }
        }
        false
    }

    fn is_seen(&self, seg: i64) -> bool {
        seg <= self.cum || {
            let i = (seg - self.cum - 1) as usize;
            self.seen.get(i).copied().unwrap_or(false)
        }
    }

    /// SACK blocks for an ack triggered by segment `trigger` (into `blocks`, emptied
    /// first), updating the block history.
    fn sack_blocks(&mut self, trigger: i64, is_dup: bool, blocks: &mut Vec<(i64, i64)>) {
        let max = self.cfg.max_sack_blocks;
        blocks.clear();
        if self.cum >= self.maxseen {
            self.stack.clear();
            return;
        }
        if max == 0 || !(self.cum < self.maxseen || is_dup) {
            return;
        }
        // The block containing the triggering segment: right edge at the first hole
        // at or after it, left edge one past the last hole below it.
        let mut right = self.maxseen + 1;
        for s in trigger.max(self.cum + 1)..=self.maxseen {
            if !self.is_seen(s) {
                right = s;
                break;
            }
        }
        let recent = if trigger <= self.cum {
            (0, right)
        } else {
            let mut left = self.cum + 1;
            let mut s = right - 1;
            while s > self.cum {
                if !self.is_seen(s) {
                    left = s + 1;
                    break;
                }
                s -= 1;
            }
            blocks.push((left, right));
            (left, right)
        };
        let mut k = 0;
        while blocks.len() < max && k < self.stack.len() {
            let (l, r) = self.stack[k];
            if r > self.maxseen + 1 {
                break;
            }
            if recent.0 <= l && recent.1 >= r {
                self.stack.remove(k);
                continue;
            }
            blocks.push((l, r));
            k += 1;
        }
        if trigger > self.cum {
            self.stack.insert(0, recent);
            self.stack.truncate(max);
        }
    }

    fn queue_ack(&mut self, echo: SimTime) {
        self.pending.push_back(PendingAck {
            syn_ack: false,
            syn_flags: TcpFlags::empty(),
            echo,
        });
        self.unacked = 0;
        self.delack_deadline = None;
    }

    /// Writes the ack `ack` into `pkt` (`poll_transmit`).
    fn transmit_ack(&mut self, now: SimTime, ack: PendingAck, pkt: &mut Packet) -> bool {
        let map = self.cfg.map;
        let mut options = TcpOptions::default();
        let mut flags = TcpFlags::ACK;
        let seq;
        let ack_no;
        if ack.syn_ack {
            flags.insert(TcpFlags::SYN | ack.syn_flags);
            options.mss = Some(map.mss.min(u64::from(u16::MAX)) as u16);
            options.sack_permitted = self.cfg.sack;
            seq = 0;
            ack_no = map.iss.wrapping_add(1);
        } else {
            seq = 1;
            ack_no = map.ack_of_segment(self.cum);
            flags.insert(self.ecn.ack_flags());
            if self.cfg.sack {
                let (trigger, is_dup) = self.trigger.unwrap_or((self.cum, false));
                let mut blocks = std::mem::take(&mut self.blocks);
                self.sack_blocks(trigger, is_dup, &mut blocks);
                let mut sb = SackBlocks::new();
                for &(l, r) in &blocks {
                    sb.push((map.seq_of_segment(l), map.seq_of_segment(r)));
                }
                self.blocks = blocks;
                options.sack = sb;
            }
        }
        pkt.transport = TransportRepr::Tcp(TcpRepr {
            src_port: self.cfg.ports.1,
            dst_port: self.cfg.ports.0,
            seq,
            ack: ack_no,
            flags,
            window: ADVERTISED_WINDOW,
            options,
        });
        pkt.payload_len = 0;
        pkt.kind = if ack.syn_ack {
            PacketKind::Control
        } else {
            PacketKind::Ack
        };
        pkt.data_num = 0;
        pkt.ack_num = (self.cum + 1) as u32;
        pkt.ts_echo = ack.echo;
        let has_sack =
            matches!(&pkt.transport, TransportRepr::Tcp(t) if !t.options.sack.is_empty());
        pkt.finalize();
        if !ack.syn_ack && self.cfg.window.contains(now) {
            self.ack_packets += 1;
            self.ack_bytes += u64::from(pkt.size);
            if has_sack {
                self.sack_packets += 1;
                self.sack_bytes += u64::from(pkt.size);
            }
        }
        true
    }
}

impl Endpoint for TcpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let TransportRepr::Tcp(tcp) = &pkt.transport else {
            return;
        };
        if tcp.flags.contains(TcpFlags::SYN) {
            let syn_flags = self.ecn.on_syn(tcp.flags);
            self.pending.push_back(PendingAck {
                syn_ack: true,
                syn_flags,
                echo: pkt.created,
            });
            return;
        }
        if pkt.payload_len == 0 {
            return;
        }
        let off = self.cfg.map.offset(tcp.seq, self.high_offset);
        self.high_offset = self.high_offset.max(off);
        let seg = self.cfg.map.segment_at(off);
        let before = self.cum;
        let had_gap = self.maxseen > self.cum;
        let is_dup = self.record_segment(now, seg);
        self.last_echo = pkt.created;
        let ce_starts_echo = self.ecn.on_segment(tcp.flags, pkt.ip.ecn);
        match self.cfg.delayed_ack {
            None => self.queue_ack(pkt.created),
            // A CE that starts an echo is acked at once (`ReceiverEcn::on_segment`).
            Some(_) if ce_starts_echo => self.queue_ack(pkt.created),
            Some(delay) => {
                let in_order = !is_dup && seg == before + 1 && !had_gap;
                if in_order {
                    self.unacked += 1;
                    if self.unacked >= 2 {
                        self.queue_ack(pkt.created);
                    } else if self.delack_deadline.is_none() {
                        self.delack_deadline = Some(now + delay);
                    }
                } else {
                    // Out of order, a duplicate, or filling a gap: ack at once
                    // (RFC 5681 sec. 4.2).
                    self.queue_ack(pkt.created);
                }
            }
        }
        self.trigger = Some((seg, is_dup));
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|t| now >= t) {
            let echo = self.last_echo;
            self.queue_ack(echo);
        }
    }

    // Inlined, so that the last call of every service (no ack pending) costs a load
    // instead of a call into `transmit_ack`.
    #[inline]
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        match self.pending.pop_front() {
            Some(ack) => self.transmit_ack(now, ack, pkt),
            None => false,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    fn is_done(&self) -> bool {
        match self.cfg.map.total {
            Some(_) => self.completed_at.is_some() && self.pending.is_empty(),
            None => true,
        }
    }
}
