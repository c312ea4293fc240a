//! TCP-snoop (Balakrishnan, Seshan, Amir and Katz 1995, and ns-2.35's `Snoop`):
//! - a new in-sequence segment to the mobile host is cached and forwarded, unless the
//!   base station's queue towards the mobile host drops it (ns-2.35 caches only while
//!   the interface queue has room): that loss is congestion, left to the sender;
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

    /// A data segment towards the mobile host; `room` says whether the base station's
    /// queue towards it accepts the segment.
    pub fn on_data(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        cfg: &SnoopCfg,
        stats: &mut SnoopStats,
        room: bool,
    ) {
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
        // A segment the base station's own queue drops is congestion: left uncached, its
        // duplicate acks reach the sender (ns-2.35 `Snoop::snoop_data`).
        if room && self.cache.len() < cfg.cache_packets {
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

#[cfg(test)]
mod tests {
    //! The agent driven packet by packet: mobile host = node 2, fixed host = node 0,
    //! 1000-byte segments; segment i starts at byte 1 + 1000 i (ISS 0).
    use super::super::{SnoopAgent, SnoopCfg, Verdict};
    use crate::net::wire::{TcpFlags, TcpOptions, TcpRepr, TransportRepr};
    use crate::net::{FlowId, NodeId, Packet};
    use crate::sim::{SimDuration, SimTime};

    const MSS: u32 = 1000;

    fn cfg(dupack_thresh: u32) -> SnoopCfg {
        SnoopCfg {
            mobile: NodeId(2),
            cache_packets: 1000,
            dupack_thresh,
            timer_min: SimDuration::from_millis(10),
            timer_max: SimDuration::from_secs(1),
            tcp: true,
            sctp: true,
        }
    }

    fn tcp(seq: u32, ack: u32) -> TransportRepr {
        TransportRepr::Tcp(TcpRepr {
            src_port: 1,
            dst_port: 2,
            seq,
            ack,
            flags: TcpFlags::ACK,
            window: 65_535,
            options: TcpOptions::default(),
        })
    }

    /// Data segment `i` (0-based) towards the mobile host.
    fn data(i: u32) -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(2),
            transport: tcp(1 + i * MSS, 1),
            payload_len: MSS,
            data_num: i + 1,
            ..Packet::default()
        }
    }

    /// An ack from the mobile host asking for segment `next` (0-based).
    fn ack(next: u32) -> Packet {
        let TransportRepr::Tcp(mut t) = tcp(1, 1 + next * MSS) else {
            unreachable!()
        };
        (t.src_port, t.dst_port) = (2, 1);
        Packet {
            flow: FlowId(0),
            src: NodeId(2),
            dst: NodeId(0),
            transport: TransportRepr::Tcp(t),
            ..Packet::default()
        }
    }

    fn ms(n: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(n)
    }

    /// Data segments of the local retransmissions queued, 0-based.
    fn local_rtx(a: &mut SnoopAgent) -> Vec<u32> {
        std::iter::from_fn(|| a.poll_transmit())
            .map(|p| p.data_num - 1)
            .collect()
    }

    /// An agent that has forwarded segments 0..n with room in the queue.
    fn agent_with(n: u32, dupack_thresh: u32) -> SnoopAgent {
        let mut a = SnoopAgent::new(cfg(dupack_thresh));
        for i in 0..n {
            assert_eq!(a.on_packet(ms(0), &data(i), true), Verdict::Forward);
        }
        a
    }

    #[test]
    fn first_dupack_repairs_locally_and_its_duplicates_are_hidden() {
        // Balakrishnan et al. sec. 3.1 / seed 003: segment 1 lost on the wireless hop;
        // the first duplicate ack for it makes the agent resend it from the cache, and
        // that and the further duplicates never reach the sender.
        let mut a = agent_with(6, 1);
        assert_eq!(a.on_packet(ms(30), &ack(1), false), Verdict::Forward);
        for k in 0..4 {
            assert_eq!(a.on_packet(ms(31 + k), &ack(1), false), Verdict::Suppress);
        }
        assert_eq!(local_rtx(&mut a), vec![1]);
        assert_eq!(a.on_packet(ms(60), &ack(6), false), Verdict::Forward);
        let st = &a.stats[&FlowId(0)];
        assert_eq!((st.local_retransmissions, st.suppressed_acks), (1, 4));
    }

    #[test]
    fn dupack_thresh_two_lets_the_first_duplicate_through() {
        // ns-2.35's Snoop (RTX_THRESH 1): the first duplicate ack goes to the sender,
        // the second starts the local repair.
        let mut a = agent_with(6, 2);
        assert_eq!(a.on_packet(ms(30), &ack(1), false), Verdict::Forward);
        assert_eq!(a.on_packet(ms(31), &ack(1), false), Verdict::Forward);
        assert!(local_rtx(&mut a).is_empty());
        assert_eq!(a.on_packet(ms(32), &ack(1), false), Verdict::Suppress);
        assert_eq!(local_rtx(&mut a), vec![1]);
        assert_eq!(a.on_packet(ms(33), &ack(1), false), Verdict::Suppress);
    }

    #[test]
    fn several_losses_in_one_window_are_repaired_one_after_the_other() {
        // Segments 2 and 5 of 0..9 lost: duplicates for 2 (from 3, 4) repair 2; the new
        // ack for 5 once 2 (and 3, 4) arrive is forwarded; duplicates for 5 (from 6..9)
        // repair 5. The sender sees only new acks.
        let mut a = agent_with(10, 1);
        assert_eq!(a.on_packet(ms(30), &ack(2), false), Verdict::Forward);
        assert_eq!(a.on_packet(ms(31), &ack(2), false), Verdict::Suppress);
        assert_eq!(a.on_packet(ms(32), &ack(2), false), Verdict::Suppress);
        assert_eq!(local_rtx(&mut a), vec![2]);
        assert_eq!(a.on_packet(ms(50), &ack(5), false), Verdict::Forward);
        for k in 0..4 {
            assert_eq!(a.on_packet(ms(51 + k), &ack(5), false), Verdict::Suppress);
        }
        assert_eq!(local_rtx(&mut a), vec![5]);
        assert_eq!(a.on_packet(ms(80), &ack(10), false), Verdict::Forward);
        assert_eq!(a.poll_timeout(), None, "cache empty, timer off");
    }

    #[test]
    fn the_local_timer_resends_a_loss_no_duplicate_ack_reports() {
        // The last segment (2 of 0..2) is lost: no later segment makes duplicates, so the
        // local timer repairs it. Before any RTT sample the timeout is `timer_max` (1 s)
        // from the first cached segment; the sample from the ack of 0 and 1 (sent at 0,
        // acked at 40 ms) gives srtt 40 ms, rttvar 20 ms: 40 + 4 * 20 = 120 ms from the
        // ack, so the timer fires at 160 ms and backs off to 240 ms.
        let mut a = agent_with(3, 1);
        assert_eq!(a.poll_timeout(), Some(ms(1000)));
        assert_eq!(a.on_packet(ms(40), &ack(2), false), Verdict::Forward);
        assert_eq!(a.poll_timeout(), Some(ms(160)));
        a.handle_timeout(ms(160));
        assert_eq!(local_rtx(&mut a), vec![2]);
        assert_eq!(a.poll_timeout(), Some(ms(160 + 240)));
        assert_eq!(a.stats[&FlowId(0)].local_timeouts, 1);
    }

    #[test]
    fn a_lost_local_retransmission_is_resent_by_the_timer() {
        // Segment 1 is lost, repaired on the first duplicate ack at 41 ms, and the local
        // retransmission is lost too: no new ack comes, so the timer (re-armed at 41 ms
        // with 120 ms: one 40 ms sample, srtt + 4 rttvar as above) resends segment 1 at
        // 161 ms, and the duplicates stay hidden meanwhile.
        let mut a = agent_with(4, 1);
        assert_eq!(a.on_packet(ms(40), &ack(1), false), Verdict::Forward);
        assert_eq!(a.on_packet(ms(41), &ack(1), false), Verdict::Suppress);
        assert_eq!(local_rtx(&mut a), vec![1]);
        assert_eq!(a.poll_timeout(), Some(ms(41 + 120)));
        assert_eq!(a.on_packet(ms(42), &ack(1), false), Verdict::Suppress);
        a.handle_timeout(ms(161));
        assert_eq!(local_rtx(&mut a), vec![1]);
        let st = &a.stats[&FlowId(0)];
        assert_eq!((st.local_retransmissions, st.local_timeouts), (2, 1));
        assert_eq!(a.on_packet(ms(200), &ack(4), false), Verdict::Forward);
    }

    #[test]
    fn a_segment_the_base_station_queue_drops_is_left_to_the_sender() {
        // ns-2.35 `snoop_data` caches only while the interface queue has room: segment 1
        // arrives when the queue is full and is dropped there, which is congestion. Its
        // duplicate acks all go to the sender (which fast-retransmits and cuts cwnd), and
        // the agent never resends it.
        let mut a = SnoopAgent::new(cfg(1));
        assert_eq!(a.on_packet(ms(0), &data(0), true), Verdict::Forward);
        assert_eq!(a.on_packet(ms(0), &data(1), false), Verdict::Forward);
        for i in 2..6 {
            assert_eq!(a.on_packet(ms(0), &data(i), true), Verdict::Forward);
        }
        assert_eq!(a.on_packet(ms(40), &ack(1), false), Verdict::Forward);
        for k in 0..4 {
            assert_eq!(a.on_packet(ms(41 + k), &ack(1), false), Verdict::Forward);
        }
        assert!(local_rtx(&mut a).is_empty());
        // The sender's fast retransmission of 1 gets through; the mobile host acks all.
        assert_eq!(a.on_packet(ms(100), &data(1), true), Verdict::Forward);
        assert_eq!(a.on_packet(ms(140), &ack(6), false), Verdict::Forward);
        let st = &a.stats[&FlowId(0)];
        assert_eq!((st.local_retransmissions, st.suppressed_acks), (0, 0));
    }
}
