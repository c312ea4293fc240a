//! The sending half of an association: the application's messages cut into DATA chunks,
//! the retransmission buffer, SACK processing with the HTNA missing-report rule, fast
//! retransmit and (optionally) fast recovery, T3-rtx, and the sending rules with
//! Max.Burst (RFC 2960/4960/9260 sec. 6 and 7, SCTP Implementer's Guide, seed 002
//! sec. 2, and ns-2.35's Agent/SCTP where the seeds' numbers depend on it).
//!
//! Units follow ns-2 and the RFCs: cwnd, ssthresh, partial_bytes_acked and outstanding
//! bytes count chunk bytes (16-byte chunk header included, padding excluded), and "MTU"
//! is what one packet can carry in chunks (PMTU - 32).

use super::config::{GrowthRule, Knobs, MaxBurstRule};
use super::path::PathSet;
use crate::endpoint::{EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{DataChunk, DataFlags, SackChunk};
use crate::sim::SimTime;
use std::collections::VecDeque;

/// Serial-number comparison of TSNs (RFC 1982 as RFC 9260 sec. 1.6 asks).
pub fn tsn_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}
pub fn tsn_le(a: u32, b: u32) -> bool {
    a == b || tsn_lt(a, b)
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mark {
    Fast,
    Timeout,
}

#[derive(Clone, Debug)]
struct Sent {
    tsn: u32,
    stream: u16,
    ssn: u16,
    flags: DataFlags,
    payload: u32,
    chunk_len: u32,
    txs: u32,
    gap_acked: bool,
    missing: u32,
    mark: Option<Mark>,
    /// Fast-retransmitted once already: without `multiple_fast_rtx` later losses need T3
    /// (ns-2 `eIneligibleForFastRtx`).
    fast_rtxed: bool,
    /// The next new TSN when this chunk was last retransmitted: with `multiple_fast_rtx`,
    /// only SACKs newly acking TSNs from there on report a fast-retransmitted chunk
    /// missing again.
    rtx_at: u32,
    pba_counted: bool,
    /// Index of the destination the chunk was last sent to.
    dest: usize,
}

/// The application: a bulk or finite stream of messages spread over the streams
/// round-robin (seed 001), each cut into chunks of at most `max_payload` bytes.
#[derive(Clone, Debug)]
pub struct AppSource {
    pub total: Option<u64>,
    pub message_size: u64,
    pub unordered: bool,
    produced: u64,
    ssns: Vec<u16>,
    next_stream: usize,
    /// The message being cut: (stream, ssn, bytes left, first chunk not yet cut).
    current: Option<(u16, u16, u64, bool)>,
    stopped: bool,
}

impl AppSource {
    pub fn new(total: Option<u64>, message_size: u64, streams: u16, unordered: bool) -> Self {
        AppSource {
            total,
            message_size: message_size.max(1),
            unordered,
            produced: 0,
            ssns: vec![0; usize::from(streams.max(1))],
            next_stream: 0,
            current: None,
            stopped: false,
        }
    }

    pub fn set_streams(&mut self, n: u16) {
        self.ssns.truncate(usize::from(n.max(1)));
        self.next_stream %= self.ssns.len();
    }

    pub fn stop(&mut self) {
        self.stopped = true;
    }

    fn has_data(&self) -> bool {
        self.current.is_some() || (!self.stopped && self.total.is_none_or(|t| self.produced < t))
    }

    pub fn exhausted(&self) -> bool {
        !self.has_data()
    }

    /// Payload of the next chunk if cut at `max_payload`, without cutting it.
    fn peek_payload(&self, max_payload: u64) -> Option<u64> {
        match self.current {
            Some((_, _, left, _)) => Some(left.min(max_payload)),
            None if self.has_data() => {
                let size = match self.total {
                    Some(t) => self.message_size.min(t - self.produced),
                    None => self.message_size,
                };
                Some(size.min(max_payload))
            }
            None => None,
        }
    }

    /// Cuts the next chunk: (stream, ssn, flags, payload bytes).
    fn next_chunk(&mut self, max_payload: u64) -> Option<(u16, u16, DataFlags, u32)> {
        if self.current.is_none() {
            if !self.has_data() {
                return None;
            }
            let size = match self.total {
                Some(t) => self.message_size.min(t - self.produced),
                None => self.message_size,
            };
            self.produced += size;
            let stream = self.next_stream;
            self.next_stream = (self.next_stream + 1) % self.ssns.len();
            let ssn = self.ssns[stream];
            self.ssns[stream] = ssn.wrapping_add(1);
            self.current = Some((stream as u16, ssn, size, true));
        }
        let (stream, ssn, left, first) = self.current?;
        let take = left.min(max_payload);
        let mut flags = DataFlags::empty();
        if first {
            flags = flags.union(DataFlags::BEGIN);
        }
        if take == left {
            flags = flags.union(DataFlags::END);
            self.current = None;
        } else {
            self.current = Some((stream, ssn, left - take, false));
        }
        if self.unordered {
            flags = flags.union(DataFlags::UNORDERED);
        }
        Some((
            stream,
            if self.unordered { 0 } else { ssn },
            flags,
            take as u32,
        ))
    }
}

/// What `Outbound::sent` holds, tallied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SentCounts {
    /// Chunks marked for retransmission.
    marked: u32,
    /// Chunks acked by a gap block.
    gap_acked: u32,
    /// The sum of the `chunk_len` of every chunk held.
    bytes: u64,
    /// The sum of the `chunk_len` of the gap-acked ones.
    gap_acked_bytes: u64,
    /// Chunks per destination index (last sent there).
    per_dest: Vec<u32>,
    /// `chunk_len` of the marked chunks per destination index.
    marked_bytes: Vec<u64>,
    /// Gap-acked chunks per destination index.
    gap_per_dest: Vec<u32>,
}

impl SentCounts {
    /// The same tallies counted from scratch.
    fn of<'a>(sent: impl Iterator<Item = &'a Sent>) -> SentCounts {
        let mut c = SentCounts::default();
        for s in sent {
            c.add(s);
            if s.gap_acked {
                c.gap_ack(s, true);
            }
            if s.mark.is_some() {
                c.mark(s);
            }
        }
        c
    }

    /// A chunk gets a retransmission mark.
    fn mark(&mut self, s: &Sent) {
        self.marked += 1;
        if s.dest >= self.marked_bytes.len() {
            self.marked_bytes.resize(s.dest + 1, 0);
        }
        self.marked_bytes[s.dest] += u64::from(s.chunk_len);
    }

    /// A chunk loses its retransmission mark.
    fn unmark(&mut self, s: &Sent) {
        self.marked -= 1;
        self.marked_bytes[s.dest] -= u64::from(s.chunk_len);
    }

    /// A chunk is gap-acked (`on`) or no longer gap-acked.
    fn gap_ack(&mut self, s: &Sent, on: bool) {
        if s.dest >= self.gap_per_dest.len() {
            self.gap_per_dest.resize(s.dest + 1, 0);
        }
        if on {
            self.gap_acked += 1;
            self.gap_acked_bytes += u64::from(s.chunk_len);
            self.gap_per_dest[s.dest] += 1;
        } else {
            self.gap_acked -= 1;
            self.gap_acked_bytes -= u64::from(s.chunk_len);
            self.gap_per_dest[s.dest] -= 1;
        }
    }

    /// Whether destination `d` holds a chunk that is not gap-acked.
    fn has_unacked(&self, d: usize) -> bool {
        self.per_dest.get(d).copied().unwrap_or(0) > self.gap_per_dest.get(d).copied().unwrap_or(0)
    }

    /// A chunk enters `sent` (unmarked, not gap-acked).
    fn add(&mut self, s: &Sent) {
        self.bytes += u64::from(s.chunk_len);
        if s.dest >= self.per_dest.len() {
            self.per_dest.resize(s.dest + 1, 0);
        }
        self.per_dest[s.dest] += 1;
    }

    /// A chunk leaves `sent`.
    fn remove(&mut self, s: &Sent) {
        self.bytes -= u64::from(s.chunk_len);
        self.per_dest[s.dest] -= 1;
        if s.gap_acked {
            self.gap_ack(s, false);
        }
        if s.mark.is_some() {
            self.unmark(s);
        }
    }

    /// A chunk moves from destination `from` to `to`.
    fn moved(&mut self, from: usize, to: usize) {
        self.per_dest[from] -= 1;
        if to >= self.per_dest.len() {
            self.per_dest.resize(to + 1, 0);
        }
        self.per_dest[to] += 1;
    }

    /// Trailing zero counts do not matter: compare as if both were equally long.
    fn same_as(&self, other: &SentCounts) -> bool {
        let n = self.per_dest.len().max(other.per_dest.len());
        let at = |v: &Vec<u32>, i: usize| v.get(i).copied().unwrap_or(0);
        let m = self.marked_bytes.len().max(other.marked_bytes.len());
        let at64 = |v: &Vec<u64>, i: usize| v.get(i).copied().unwrap_or(0);
        self.marked == other.marked
            && self.gap_acked == other.gap_acked
            && self.bytes == other.bytes
            && self.gap_acked_bytes == other.gap_acked_bytes
            && (0..n).all(|i| at(&self.per_dest, i) == at(&other.per_dest, i))
            && (0..m).all(|i| at64(&self.marked_bytes, i) == at64(&other.marked_bytes, i))
            && (0..n).all(|i| at(&self.gap_per_dest, i) == at(&other.gap_per_dest, i))
    }
}

/// A packet of DATA chunks decided on, waiting for `poll_transmit`.
#[derive(Clone, Debug, Default)]
pub struct TxPacket {
    pub chunks: Vec<DataChunk>,
    /// Index of the destination in the association's `PathSet`.
    pub dest: usize,
}

#[derive(Clone, Debug, Default)]
pub struct OutStats {
    pub data_packets_sent: u64,
    /// Data packets that carry no new data. New data waits while chunks are marked for
    /// retransmission (ns-2 `SendMuch`), so a packet holds new chunks or retransmitted
    /// ones, never both.
    pub retransmitted_packets: u64,
    pub chunks_sent: u64,
    pub new_bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub timeout_retransmissions: u64,
    pub timeouts: u64,
    pub sacks_received: u64,
    pub fast_recoveries: u64,
}

pub struct Outbound {
    pub k: Knobs,
    initial_tsn: u32,
    next_tsn: u32,
    pub cum_ack: u32,
    sent: VecDeque<Sent>,
    /// Tallies of `sent` kept as it changes, so that a SACK without gap blocks and the
    /// checks for marked chunks need not walk it.
    counts: SentCounts,
    /// No chunk below this TSN is marked for retransmission: retransmitting a large
    /// marked flight packet by packet starts each packet's search here instead of at the
    /// front of `sent`, so the whole flight costs one walk, not one per packet.
    mark_floor: u32,
    /// No chunk above this TSN is gap-acked: a SACK's pass over the flight stops at its
    /// highest gap-acked TSN or this, whichever is higher (nothing beyond changes), so a
    /// SACK costs the span it reports, not the whole flight.
    gap_hi: u32,
    /// The SACK's gap blocks as offsets from the cumulative TSN, sorted (reused).
    blocks: Vec<(u32, u32)>,
    /// Chunks `rtx_marked` looked at, for the test that its work stays linear.
    #[cfg(test)]
    rtx_visits: u64,
    /// Chunk lists of packets already handed over, kept to reuse their allocations.
    spare_chunks: Vec<Vec<DataChunk>>,
    pub app: AppSource,
    /// Largest chunk payload that fits one packet, and the room for chunks per packet.
    max_payload: u64,
    room: usize,
    pub peer_rwnd: f64,
    /// Highest TSN outstanding when fast recovery began (ns-2 `uiRecover`).
    recover: u32,
    /// ns-2's Max.Burst: a SACK acknowledged a retransmitted chunk.
    apply_max_burst: bool,
    pub tx: VecDeque<TxPacket>,
    pub events: VecDeque<EndpointEvent>,
    trace_sends: bool,
    window: Window,
    pub stats: OutStats,
    pub all_acked_at: Option<SimTime>,
}

impl Outbound {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        k: Knobs,
        initial_tsn: u32,
        app: AppSource,
        pmtu: usize,
        peer_rwnd: u32,
        trace_sends: bool,
        window: Window,
    ) -> Self {
        let room = pmtu.saturating_sub(32);
        // A chunk is padded to 4 bytes and must fit the room with its 16-byte header.
        let max_payload = ((room.saturating_sub(DataChunk::HEADER_LEN)) / 4 * 4).max(4) as u64;
        Outbound {
            k,
            initial_tsn,
            next_tsn: initial_tsn,
            cum_ack: initial_tsn.wrapping_sub(1),
            sent: VecDeque::new(),
            counts: SentCounts::default(),
            mark_floor: initial_tsn,
            gap_hi: initial_tsn.wrapping_sub(1),
            blocks: Vec::new(),
            #[cfg(test)]
            rtx_visits: 0,
            spare_chunks: Vec::new(),
            app,
            max_payload,
            room,
            peer_rwnd: f64::from(peer_rwnd),
            recover: initial_tsn.wrapping_sub(1),
            apply_max_burst: false,
            tx: VecDeque::new(),
            events: VecDeque::new(),
            trace_sends,
            window,
            stats: OutStats::default(),
            all_acked_at: None,
        }
    }

    pub fn packet_number(&self, tsn: u32) -> u32 {
        tsn.wrapping_sub(self.initial_tsn).wrapping_add(1)
    }

    pub fn has_outstanding(&self) -> bool {
        !self.sent.is_empty()
    }

    pub fn done(&self) -> bool {
        self.sent.is_empty() && self.app.exhausted()
    }

    fn slow_start(&self, ps: &PathSet, i: usize) -> bool {
        let p = &ps.paths[i];
        if self.k.slow_start_at_ssthresh {
            p.cwnd <= p.ssthresh
        } else {
            p.cwnd < p.ssthresh
        }
    }

    fn in_fast_recovery(&self) -> bool {
        self.k.fast_recovery && tsn_lt(self.cum_ack, self.recover)
    }

    /// Bytes of marked chunks last sent to destination `i` (still in its outstanding
    /// count until resent).
    fn marked_bytes(&self, i: usize) -> f64 {
        self.counts.marked_bytes.get(i).copied().unwrap_or(0) as f64
    }

    /// How many chunks from the front of `sent` have TSNs up to `last`.
    fn walk_len(&self, last: u32) -> usize {
        match self.sent.front() {
            Some(front) if tsn_le(front.tsn, last) => {
                (last.wrapping_sub(front.tsn) as usize + 1).min(self.sent.len())
            }
            _ => 0,
        }
    }

    /// Index in `sent` of the first chunk that may be marked (`mark_floor`).
    fn mark_floor_index(&self) -> usize {
        let Some(front) = self.sent.front() else {
            return 0;
        };
        if tsn_le(self.mark_floor, front.tsn) {
            0
        } else {
            // TSNs in `sent` are consecutive: only the cumulative ack removes chunks.
            (self.mark_floor.wrapping_sub(front.tsn) as usize).min(self.sent.len())
        }
    }

    fn any_marked(&self) -> bool {
        self.counts.marked > 0
    }

    /// Debug builds check the tallies against a count from scratch.
    fn check_counts(&self) {
        debug_assert!(
            self.counts.same_as(&SentCounts::of(self.sent.iter())),
            "sent tallies drifted: {:?} against {:?}",
            self.counts,
            SentCounts::of(self.sent.iter())
        );
    }

    /// An empty chunk list for a new packet (a used one when there is one).
    fn chunk_list(&mut self) -> Vec<DataChunk> {
        self.spare_chunks.pop().unwrap_or_default()
    }

    /// Takes back the (emptied) chunk list of a packet handed over.
    pub fn recycle_chunks(&mut self, mut chunks: Vec<DataChunk>) {
        chunks.clear();
        if self.spare_chunks.len() < 64 {
            self.spare_chunks.push(chunks);
        }
    }

    fn record(&mut self, now: SimTime, c: &DataChunk, kind: SendKind, dest: [u8; 4]) {
        let in_window = self.window.contains(now);
        if in_window {
            self.stats.chunks_sent += 1;
            match kind {
                SendKind::New => self.stats.new_bytes_sent += u64::from(c.payload_len),
                SendKind::FastRtx => {
                    self.stats.retransmissions += 1;
                    self.stats.fast_retransmissions += 1;
                }
                SendKind::RtoRtx => {
                    self.stats.retransmissions += 1;
                    self.stats.timeout_retransmissions += 1;
                }
            }
        }
        if self.trace_sends {
            self.events.push_back(EndpointEvent::Sent {
                seq: self.packet_number(c.tsn),
                kind,
                dest,
            });
        }
    }

    fn queue_packet(
        &mut self,
        now: SimTime,
        chunks: Vec<DataChunk>,
        ps: &mut PathSet,
        dest: usize,
    ) {
        if chunks.is_empty() {
            return;
        }
        let p = &mut ps.paths[dest];
        if self.window.contains(now) {
            self.stats.data_packets_sent += 1;
            p.data_packets_sent += 1;
        }
        p.last_send = now;
        p.idle_base = Some(now);
        if p.t3.is_none() {
            p.t3 = Some(now + p.rto.current());
        }
        self.tx.push_back(TxPacket { chunks, dest });
    }

    fn data_chunk(s: &Sent) -> DataChunk {
        DataChunk {
            tsn: s.tsn,
            stream: s.stream,
            ssn: s.ssn,
            ppid: 0,
            flags: s.flags,
            payload_len: s.payload,
        }
    }

    /// Retransmits chunks marked for retransmission: one packet regardless of cwnd
    /// (fast retransmit, RFC 4960 7.2.4 step 3; T3, 6.3.3 E3) or as many packets as cwnd
    /// allows, not counting marked chunks as outstanding meanwhile (ns-2
    /// `RtxMarkedChunks`). The destination is chosen once per call from the first marked
    /// chunk (ns-2 does the same): an active alternate when the knobs ask for one
    /// (RFC 9260 6.4), and a chunk moved there moves its bytes from the old
    /// destination's outstanding count to the new one's.
    fn rtx_marked(&mut self, now: SimTime, one_packet: bool, ps: &mut PathSet) -> usize {
        if !self.any_marked() {
            return 0;
        }
        let from = self.mark_floor_index();
        let Some(at) = self.sent.range(from..).position(|s| s.mark.is_some()) else {
            return 0;
        };
        #[cfg(test)]
        {
            self.rtx_visits += at as u64 + 1;
        }
        let first = &self.sent[from + at];
        self.mark_floor = first.tsn;
        let alternate = match first.mark {
            Some(Mark::Fast) => self.k.fast_rtx_to_alternate,
            _ => self.k.retransmit_to_alternate,
        };
        let dest = ps.rtx_dest(first.dest, alternate, self.k.ns2_paths);
        self.decay_idle_cwnd(now, ps, dest);
        let mut packets = 0;
        loop {
            let effective = ps.paths[dest].outstanding - self.marked_bytes(dest);
            if !one_packet && effective >= ps.paths[dest].cwnd {
                break;
            }
            if one_packet && packets == 1 {
                break;
            }
            let mut used = 0usize;
            let mut chunks = self.chunk_list();
            let mut kinds = Vec::new();
            let next_tsn = self.next_tsn;
            let from = self.mark_floor_index();
            // Where the next packet's search starts: past every chunk this one took.
            let mut floor = next_tsn;
            for s in self.sent.range_mut(from..) {
                #[cfg(test)]
                {
                    self.rtx_visits += 1;
                }
                let Some(mark) = s.mark else { continue };
                let len = DataChunk::len_for(s.payload as usize);
                let padded = len.div_ceil(4) * 4;
                if used + padded > self.room && !chunks.is_empty() {
                    floor = s.tsn;
                    break;
                }
                used += padded;
                self.counts.unmark(s);
                s.mark = None;
                s.txs += 1;
                s.missing = 0;
                s.rtx_at = next_tsn;
                if s.dest != dest {
                    let old = &mut ps.paths[s.dest];
                    old.outstanding = (old.outstanding - f64::from(s.chunk_len)).max(0.0);
                    if old.rtt_pending.is_some_and(|(t, _)| t == s.tsn) {
                        old.rtt_pending = None; // Karn's rule
                    }
                    ps.paths[dest].outstanding += f64::from(s.chunk_len);
                    self.counts.moved(s.dest, dest);
                    s.dest = dest;
                }
                chunks.push(Self::data_chunk(s));
                kinds.push(if mark == Mark::Fast {
                    SendKind::FastRtx
                } else {
                    SendKind::RtoRtx
                });
            }
            self.mark_floor = floor;
            if chunks.is_empty() {
                self.recycle_chunks(chunks);
                break;
            }
            // RFC 4960 7.2.4 step 4 / 6.3.2 R3: retransmitting the earliest outstanding
            // chunk restarts T3, or the timer set for its first transmission would fire
            // before the retransmission can be acknowledged.
            let earliest = self.sent.iter().find(|s| !s.gap_acked).map(|s| s.tsn);
            if earliest.is_some_and(|e| chunks.iter().any(|c| c.tsn == e)) {
                let p = &mut ps.paths[dest];
                p.t3 = Some(now + p.rto.current());
            }
            for (c, kind) in chunks.iter().zip(kinds) {
                self.record(now, c, kind, ps.paths[dest].addr);
                if self.window.contains(now) {
                    ps.paths[dest].retransmissions += 1;
                }
                self.peer_rwnd = (self.peer_rwnd - f64::from(c.payload_len + 16)).max(0.0);
                let p = &mut ps.paths[dest];
                if p.rtt_pending.is_some_and(|(t, _)| t == c.tsn) {
                    p.rtt_pending = None; // Karn's rule
                }
            }
            if self.window.contains(now) {
                self.stats.retransmitted_packets += 1;
            }
            self.queue_packet(now, chunks, ps, dest);
            packets += 1;
        }
        packets
    }

    /// RFC 9260 7.2.1: "When the endpoint does not transmit data on a given transport
    /// address, the cwnd of the transport address SHOULD be adjusted to max(cwnd/2,
    /// 4*MTU) per RTO." Applied when data is next about to go to destination `i`, one
    /// halving per whole RTO since its last DATA (or the last halving), so an alternate
    /// that sat idle after a failover does not reuse a stale window.
    fn decay_idle_cwnd(&mut self, now: SimTime, ps: &mut PathSet, i: usize) {
        if !self.k.idle_cwnd_decay {
            return;
        }
        let p = &mut ps.paths[i];
        let Some(base) = p.idle_base else { return };
        let rto = p.rto.current();
        if rto.as_nanos() == 0 {
            return;
        }
        let periods = now.saturating_since(base).as_nanos() / rto.as_nanos();
        if periods == 0 {
            return;
        }
        let floor = 4.0 * p.mtu;
        for _ in 0..periods.min(64) {
            if p.cwnd <= floor {
                break;
            }
            p.cwnd = (p.cwnd / 2.0).max(floor);
        }
        p.idle_base = Some(base + rto.saturating_mul(periods));
    }

    /// Sends new data to the current data destination while its cwnd and the peer's
    /// window allow (RFC 4960 6.1 A-B: the sender may exceed cwnd by up to one MTU less
    /// a byte when cwnd is not yet full).
    pub fn send_new(&mut self, now: SimTime, ps: &mut PathSet) {
        if self.any_marked() || ps.is_empty() {
            return;
        }
        let d = ps.data_dest;
        self.decay_idle_cwnd(now, ps, d);
        // Max.Burst 0 turns burst limiting off, as RFC 6458 sec. 8.1.24 (SCTP_MAX_BURST)
        // defines it and Linux and usrsctp do; every rule would otherwise stall at 0.
        let rule = if self.k.max_burst == 0 {
            MaxBurstRule::Off
        } else {
            self.k.max_burst_rule
        };
        let burst_limit = match rule {
            MaxBurstRule::Guide => {
                // Implementer's guide v7: clamp cwnd to outstanding + Max.Burst * MTU.
                let p = &mut ps.paths[d];
                let cap = p.outstanding + f64::from(self.k.max_burst) * p.mtu;
                if cap < p.cwnd {
                    p.cwnd = cap;
                }
                None
            }
            MaxBurstRule::Packets => Some(self.k.max_burst),
            MaxBurstRule::Ns2 if self.apply_max_burst => Some(self.k.max_burst),
            _ => None,
        };
        self.apply_max_burst = false;
        let mut packets = 0u32;
        while ps.paths[d].outstanding < ps.paths[d].cwnd && burst_limit.is_none_or(|b| packets < b)
        {
            let mut used = 0usize;
            let mut chunks = self.chunk_list();
            loop {
                let room_left = self.room - used;
                if room_left < DataChunk::HEADER_LEN + 4 {
                    break;
                }
                let max_here = (((room_left - DataChunk::HEADER_LEN) / 4) * 4) as u64;
                let Some(p) = self.app.peek_payload(self.max_payload) else {
                    break;
                };
                // Bundle only whole chunks: a message is fragmented at max_payload, never
                // at whatever room a packet has left.
                if p > max_here {
                    break;
                }
                // With the peer's window closed, one chunk may still go as a probe when
                // nothing is outstanding to the receiver, on any destination (RFC 9260
                // 6.1 A; ns-2 `SendMuch` tests `TotalOutstanding()`): a destination of
                // its own with nothing in flight must not open a second probe.
                let rwnd_ok = (p as f64 + DataChunk::HEADER_LEN as f64) <= self.peer_rwnd;
                let probe =
                    !rwnd_ok && chunks.is_empty() && ps.paths.iter().all(|q| q.outstanding == 0.0);
                if !rwnd_ok && !probe {
                    break;
                }
                let Some((stream, ssn, flags, payload)) = self.app.next_chunk(self.max_payload)
                else {
                    break;
                };
                let tsn = self.next_tsn;
                self.next_tsn = self.next_tsn.wrapping_add(1);
                let len = DataChunk::len_for(payload as usize);
                used += len.div_ceil(4) * 4;
                let s = Sent {
                    tsn,
                    stream,
                    ssn,
                    flags,
                    payload,
                    chunk_len: len as u32,
                    txs: 1,
                    gap_acked: false,
                    missing: 0,
                    mark: None,
                    fast_rtxed: false,
                    rtx_at: tsn,
                    pba_counted: false,
                    dest: d,
                };
                let c = Self::data_chunk(&s);
                self.counts.add(&s);
                self.sent.push_back(s);
                let path = &mut ps.paths[d];
                path.outstanding += len as f64;
                self.peer_rwnd = (self.peer_rwnd - len as f64).max(0.0);
                if path.rtt_pending.is_none() {
                    path.rtt_pending = Some((tsn, now));
                }
                self.record(now, &c, SendKind::New, ps.paths[d].addr);
                chunks.push(c);
                // A packet started below cwnd is filled up to the MTU (RFC 4960 6.1 B allows
                // overshooting cwnd by less than one MTU; ns-2 `GenMultipleDataChunks`).
                if probe || self.room - used < DataChunk::HEADER_LEN + 4 {
                    break;
                }
            }
            if chunks.is_empty() {
                self.recycle_chunks(chunks);
                break;
            }
            self.queue_packet(now, chunks, ps, d);
            // A first transmission starts a new heartbeat period (RFC 9260 8.3 "idle";
            // ns-2 `SendMuch` sets `dIdleSince`).
            ps.paths[d].hb_base = now;
            packets += 1;
        }
    }

    fn cut(&mut self, ps: &mut PathSet, i: usize) {
        let p = &mut ps.paths[i];
        let mtu = p.mtu;
        let floor = f64::from(self.k.ssthresh_floor_mtus) * mtu;
        let half = if self.k.cwnd_whole_mtus {
            ((p.cwnd / mtu / 2.0).floor()) * mtu
        } else {
            p.cwnd / 2.0
        };
        p.ssthresh = half.max(floor);
        p.cwnd = p.ssthresh;
        p.pba = 0.0;
    }

    fn adjust_cwnd(&mut self, ps: &mut PathSet, i: usize, newly: f64) {
        let p = &mut ps.paths[i];
        if self.k.slow_start_at_ssthresh && p.cwnd <= p.ssthresh
            || !self.k.slow_start_at_ssthresh && p.cwnd < p.ssthresh
        {
            // RFC 4960 7.2.1: only when the full cwnd was in use.
            if p.outstanding >= p.cwnd {
                p.cwnd += newly.min(p.mtu);
            }
        } else if p.pba >= p.cwnd && p.outstanding >= p.cwnd {
            // RFC 4960 7.2.2.
            p.pba = if p.cwnd <= p.pba { p.pba - p.cwnd } else { 0.0 };
            p.cwnd += p.mtu;
        }
    }

    /// RFC 9260 7.2.1 and 7.2.2 (RFC 8540 sec. 3.22, 3.26) for a SACK that newly
    /// acknowledges `newly` bytes sent to destination `i`, with the flight size from
    /// before the SACK: no condition that the cumulative ack advances; in congestion
    /// avoidance partial_bytes_acked collects every newly acked byte and is pulled back
    /// to cwnd when the window was not full, so that a long spell below cwnd cannot bank
    /// growth for later.
    fn grow_9260(&mut self, ps: &mut PathSet, i: usize, newly: f64) {
        let slow_start = self.slow_start(ps, i);
        let p = &mut ps.paths[i];
        let full = p.outstanding >= p.cwnd;
        if slow_start {
            if full {
                p.cwnd += newly.min(p.mtu);
            }
            return;
        }
        p.pba += newly;
        if p.pba > p.cwnd && !full {
            p.pba = p.cwnd;
        }
        if p.pba >= p.cwnd && full {
            p.pba -= p.cwnd;
            p.cwnd += p.mtu;
        }
    }

    fn rtt_sample(now: SimTime, s: &Sent, ps: &mut PathSet) {
        let p = &mut ps.paths[s.dest];
        if let Some((tsn, at)) = p.rtt_pending {
            if tsn == s.tsn {
                if s.txs == 1 && s.mark != Some(Mark::Timeout) {
                    p.rto.sample(now.saturating_since(at).as_secs_f64());
                }
                p.rtt_pending = None;
            }
        }
    }

    /// A newly acknowledged chunk clears the error counter of the destination it was
    /// last sent to (RFC 9260 8.3), unless it was waiting for a timeout retransmission:
    /// data that got through before a failure must not hide it (ns-2
    /// `SendBufferDequeueUpTo`).
    fn note_acked(s: &Sent, ps: &mut PathSet) {
        if s.mark != Some(Mark::Timeout) {
            ps.scratch[s.dest].clear_errors = true;
        }
    }

    /// Processes a SACK (ns-2 `ProcessSackChunk` / `ProcessGapAckBlocks`, RFC 4960
    /// 6.2.1, 7.2), per destination for cwnd, outstanding bytes and T3. Returns false for
    /// a stale SACK. Destinations whose error counter the SACK clears are flagged in
    /// `ps.scratch[i].clear_errors` for the association to act on.
    pub fn on_sack(&mut self, now: SimTime, sack: &SackChunk, ps: &mut PathSet) -> bool {
        for j in 0..ps.scratch.len() {
            let in_ca = !self.slow_start(ps, j);
            ps.scratch[j] = Default::default();
            ps.scratch[j].in_ca = in_ca;
        }
        if tsn_lt(sack.cum_tsn_ack, self.cum_ack) {
            return false;
        }
        if self.window.contains(now) {
            self.stats.sacks_received += 1;
        }
        let new_cum = tsn_lt(self.cum_ack, sack.cum_tsn_ack);
        let was_in_fast_recovery = self.in_fast_recovery();
        // RFC 4960 as ns-2 codes it counts partial_bytes_acked chunk by chunk while the
        // SACK is processed; RFC 9260's rule works on the SACK's total (`grow_9260`).
        let ns2_pba = self.k.growth_rule == GrowthRule::Rfc4960;
        let mut any_newly = false;
        let mut htna: Option<u32> = None;
        // Cumulative part.
        while let Some(front) = self.sent.front() {
            if !tsn_le(front.tsn, sack.cum_tsn_ack) {
                break;
            }
            let s = self.sent.pop_front().expect("front exists");
            self.counts.remove(&s);
            if !s.gap_acked {
                let sc = &mut ps.scratch[s.dest];
                sc.first_outstanding_acked = true;
                sc.newly += f64::from(s.chunk_len);
                any_newly = true;
                htna = Some(s.tsn);
                let p = &mut ps.paths[s.dest];
                if ns2_pba && sc.in_ca && p.outstanding >= p.cwnd {
                    p.pba += f64::from(s.chunk_len);
                }
                Self::note_acked(&s, ps);
            }
            if s.fast_rtxed || s.txs > 1 {
                self.apply_max_burst = true;
            }
            Self::rtt_sample(now, &s, ps);
        }
        self.cum_ack = sack.cum_tsn_ack;
        // Gap blocks: offsets from the cumulative TSN.
        let mut highest_sacked = htna.unwrap_or(self.cum_ack);
        let cum = self.cum_ack;
        let block = |k: usize| {
            let (a, b) = sack.gaps[k];
            (
                cum.wrapping_add(u32::from(a)),
                cum.wrapping_add(u32::from(b)),
            )
        };
        // Without gap blocks nothing above the cumulative TSN is acked or reported
        // missing (every chunk left is above it, and so above the highest TSN newly
        // acked): one pass does what the general passes below would (same results).
        let mut fast_needed = false;
        let mut marked = None;
        if sack.gaps.is_empty() {
            if self.counts.gap_acked > 0 {
                let end = self.walk_len(self.gap_hi);
                for s in self.sent.range_mut(..end).filter(|s| s.gap_acked) {
                    // A SACK older than one already seen (or reneging): count it again.
                    s.gap_acked = false;
                    ps.paths[s.dest].outstanding += f64::from(s.chunk_len);
                }
                self.counts.gap_acked = 0;
                self.counts.gap_acked_bytes = 0;
                self.counts.gap_per_dest.iter_mut().for_each(|n| *n = 0);
            }
            for (d, &n) in self.counts.per_dest.iter().enumerate() {
                if n > 0 {
                    let sc = &mut ps.scratch[d];
                    sc.unacked_seen = true;
                    sc.has_any = true;
                    sc.has_unacked = true;
                }
            }
            // Every chunk left is outstanding; their lengths are integers, so the sum
            // is the one the chunk-by-chunk f64 sum gives (exact below 2^53).
            marked = Some((self.counts.marked > 0, self.counts.bytes as f64));
        } else {
            for k in 0..sack.gaps.len() {
                let (_, end) = block(k);
                if tsn_lt(highest_sacked, end) {
                    highest_sacked = end;
                }
            }
            // Blocks sorted by start: one merge with the flight decides coverage.
            self.blocks.clear();
            self.blocks
                .extend(sack.gaps.iter().map(|&(a, b)| (u32::from(a), u32::from(b))));
            self.blocks.sort_unstable();
            let mut next_block = 0;
            let mut covered_to: Option<u32> = None;
            // Chunks above both the highest TSN this SACK reports and the highest ever
            // gap-acked are neither newly acked, un-acked nor reported missing here.
            let bound = if tsn_lt(highest_sacked, self.gap_hi) {
                self.gap_hi
            } else {
                highest_sacked
            };
            let walk = self.walk_len(bound);
            for i in 0..walk {
                let s = &mut self.sent[i];
                let off = s.tsn.wrapping_sub(cum);
                while let Some(&(a, b)) = self.blocks.get(next_block) {
                    if a > off {
                        break;
                    }
                    covered_to = Some(covered_to.map_or(b, |c| c.max(b)));
                    next_block += 1;
                }
                let covered = covered_to.is_some_and(|c| c >= off);
                let d = s.dest;
                if covered {
                    if !s.gap_acked {
                        s.gap_acked = true;
                        self.counts.gap_ack(s, true);
                        if tsn_lt(self.gap_hi, s.tsn) {
                            self.gap_hi = s.tsn;
                        }
                        let sc = &mut ps.scratch[d];
                        if !sc.unacked_seen {
                            sc.first_outstanding_acked = true;
                        }
                        sc.newly += f64::from(s.chunk_len);
                        any_newly = true;
                        if htna.is_none_or(|h| tsn_lt(h, s.tsn)) {
                            htna = Some(s.tsn);
                        }
                        if ns2_pba && sc.in_ca && new_cum && !s.pba_counted {
                            s.pba_counted = true;
                            ps.paths[d].pba += f64::from(s.chunk_len);
                        }
                        // A chunk marked for retransmission that arrived after all was
                        // counted out while marked; the mark goes.
                        if s.mark.is_some() {
                            self.counts.unmark(s);
                        }
                        let was = s.mark.take();
                        if was != Some(Mark::Timeout) {
                            ps.scratch[d].clear_errors = true;
                        }
                        let s = self.sent[i].clone();
                        Self::rtt_sample(now, &s, ps);
                    }
                } else if s.gap_acked {
                    // A SACK older than one already seen (or reneging): count it again.
                    self.counts.gap_ack(s, false);
                    s.gap_acked = false;
                    ps.paths[d].outstanding += f64::from(s.chunk_len);
                }
                if !self.sent[i].gap_acked {
                    ps.scratch[d].unacked_seen = true;
                }
            }
            // Missing reports (HTNA, and the modified HTNA of New-Reno SCTP).
            let threshold = self.k.fast_rtx_threshold;
            let modified = self.k.modified_htna
                && new_cum
                && htna.is_some_and(|h| tsn_le(h, self.recover))
                && self.k.fast_recovery;
            // RFC 4960/9260 7.2.4: in fast recovery, a SACK advancing the cumulative ack
            // reports every hole below its highest gap-acked TSN.
            let rfc_fr = self.k.fast_recovery_miss_reports && was_in_fast_recovery && new_cum;
            for s in self.sent.range_mut(..walk) {
                if s.gap_acked {
                    continue;
                }
                let below_htna = htna.is_some_and(|h| tsn_lt(s.tsn, h));
                let reported = if s.fast_rtxed && self.k.multiple_fast_rtx {
                    // A report counts against the retransmission only when data sent after
                    // it got through; otherwise the retransmission may just be in flight
                    // and every SACK of the window would retransmit it again.
                    below_htna && htna.is_some_and(|h| tsn_le(s.rtx_at, h))
                } else {
                    below_htna || ((modified || rfc_fr) && tsn_lt(s.tsn, highest_sacked))
                };
                if reported {
                    s.missing += 1;
                    let eligible = !s.fast_rtxed || self.k.multiple_fast_rtx;
                    if s.missing >= threshold && eligible && s.mark.is_none() {
                        s.mark = Some(Mark::Fast);
                        self.counts.mark(s);
                        if tsn_lt(s.tsn, self.mark_floor) {
                            self.mark_floor = s.tsn;
                        }
                        s.fast_rtxed = true;
                        fast_needed = true;
                    }
                }
            }
            for (d, &n) in self.counts.per_dest.iter().enumerate() {
                if n > 0 {
                    let sc = &mut ps.scratch[d];
                    sc.has_any = true;
                    sc.has_unacked = self.counts.has_unacked(d);
                }
            }
        }
        // cwnd grows before the outstanding count drops (ns-2 `ProcessSackChunk`).
        let growth_allowed = self.k.cwnd_growth_in_recovery || !self.in_fast_recovery();
        for j in 0..ps.paths.len() {
            let newly = ps.scratch[j].newly;
            match self.k.growth_rule {
                GrowthRule::Rfc4960 => {
                    if new_cum && newly > 0.0 && growth_allowed {
                        self.adjust_cwnd(ps, j, newly);
                    }
                }
                GrowthRule::Rfc9260 => {
                    if newly > 0.0 && growth_allowed {
                        self.grow_9260(ps, j, newly);
                    }
                }
            }
            let sc = ps.scratch[j];
            let p = &mut ps.paths[j];
            p.outstanding = (p.outstanding - newly).max(0.0);
            if !sc.has_any || p.outstanding <= 0.0 {
                p.pba = 0.0;
            }
            if !sc.has_unacked {
                // RFC 4960 6.3.2 R2: everything sent here is acknowledged.
                p.t3 = None;
            } else if sc.first_outstanding_acked || p.t3.is_none() {
                // RFC 4960 6.3.2 R3: restart when the earliest outstanding TSN is acked.
                p.t3 = Some(now + p.rto.current());
            }
        }
        if any_newly {
            ps.assoc_errors = 0;
        }
        if fast_needed {
            self.fast_retransmit(now, ps);
        } else if marked.map_or_else(|| self.any_marked(), |m| m.0) {
            self.rtx_marked(now, false, ps);
            marked = None;
        }
        let total_out: f64 = match marked {
            // Nothing was marked or sent since the pass: every chunk is outstanding.
            Some((_, out)) => out,
            // Integer lengths: the same sum the chunk-by-chunk f64 sum gave (exact below
            // 2^53), without walking the flight on every SACK.
            None => (self.counts.bytes - self.counts.gap_acked_bytes) as f64,
        };
        self.peer_rwnd = (f64::from(sack.a_rwnd) - total_out).max(0.0);
        self.check_counts();
        true
    }

    /// After a SACK and the association's reaction to it: sends what may be sent.
    pub fn after_sack(&mut self, now: SimTime, ps: &mut PathSet) {
        self.send_new(now, ps);
        if self.sent.is_empty() && self.app.exhausted() && self.all_acked_at.is_none() {
            self.all_acked_at = Some(now);
        }
    }

    /// RFC 2960/4960 7.2.4: cut cwnd (once per window with fast recovery) of each
    /// destination the newly marked chunks were sent to, then send one packet of marked
    /// chunks whatever cwnd and the flight size say. RFC 9260 7.2.4 step 3 (RFC 8540
    /// sec. 3.15) sends that packet only "if not in Fast Recovery" when this procedure
    /// began; without `fast_rtx_ignores_cwnd_in_recovery` chunks marked during fast
    /// recovery go as cwnd allows, like any other marked chunk.
    fn fast_retransmit(&mut self, now: SimTime, ps: &mut PathSet) {
        let one_packet = self.k.fast_rtx_ignores_cwnd_in_recovery || !self.in_fast_recovery();
        let recover = self.recover;
        let mut cut_any = false;
        for j in 0..ps.paths.len() {
            let cut = self.sent.iter().any(|s| {
                s.dest == j
                    && s.mark == Some(Mark::Fast)
                    && (!self.k.fast_recovery || tsn_lt(recover, s.tsn))
            });
            if cut {
                self.cut(ps, j);
                ps.paths[j].rtt_pending = None;
                cut_any = true;
            }
        }
        if cut_any {
            if self.k.fast_recovery {
                self.recover = self.next_tsn.wrapping_sub(1);
            }
            if self.window.contains(now) {
                self.stats.fast_recoveries += 1;
            }
        }
        self.rtx_marked(now, one_packet, ps);
    }

    /// T3-rtx expiry on destination `i` (RFC 4960 6.3.3, 7.2.3): its chunks are marked
    /// and one packet of them is retransmitted (to an alternate when the knobs say so).
    /// The association has already counted the error and changed the path's state.
    pub fn on_t3(&mut self, now: SimTime, i: usize, ps: &mut PathSet) {
        ps.paths[i].t3 = None;
        if !self.sent.iter().any(|s| s.dest == i) {
            return;
        }
        let p = &mut ps.paths[i];
        let mtu = p.mtu;
        // ns-2.35 `Timeout` cuts only while cwnd > 1 MTU, so a second expiry in a row
        // keeps the first one's ssthresh; RFC 4960/9260 7.2.3 cut on every expiry.
        if self.k.t3_ssthresh_every_expiry || p.cwnd > mtu {
            let floor = f64::from(self.k.ssthresh_floor_mtus) * mtu;
            p.ssthresh = (p.cwnd / 2.0).max(floor);
        }
        p.cwnd = mtu;
        if self.k.t3_exits_fast_recovery && self.in_fast_recovery() {
            // Slow start from 1 MTU replaces fast recovery (Linux, usrsctp): a later fast
            // retransmit may cut again and the next SACKs may grow cwnd.
            self.recover = self.cum_ack;
        }
        p.pba = 0.0;
        p.rto.back_off();
        p.rtt_pending = None;
        for s in self.sent.iter_mut() {
            if !s.gap_acked && s.dest == i {
                if s.mark.is_none() {
                    self.counts.mark(s);
                    if tsn_lt(s.tsn, self.mark_floor) {
                        self.mark_floor = s.tsn;
                    }
                }
                s.mark = Some(Mark::Timeout);
                s.missing = 0;
            }
        }
        self.rtx_marked(now, true, ps);
        // E3 starts the timer on the destination the retransmission went to (the send
        // did). Restarting it here too while chunks sent here remain is this model's
        // rule, not RFC 9260's (which restarts it with the next DATA sent here). ns-2.35
        // (`ns2_paths`) restarts it at the next SACK (`ProcessSackChunk`, 6.3.2 R3: a
        // destination with bytes outstanding and no timer running; `on_sack` does the
        // same), never here: `Timeout` stops it and `RtxMarkedChunks` restarts only a
        // destination that still has unmarked bytes outstanding, which a T3 leaves none
        // of. With every destination down no SACK comes, so the expired destination
        // stays without a timer until a retransmission is sent to it.
        if !self.k.ns2_paths && self.sent.iter().any(|s| s.dest == i) {
            let p = &mut ps.paths[i];
            p.t3 = Some(now + p.rto.current());
        }
    }

    /// For sampling: cwnd, ssthresh, pba, outstanding (bytes) of the destination new
    /// data goes to.
    pub fn sample(&self, ps: &PathSet, out: &mut dyn FnMut(&'static str, f64)) {
        if let Some(p) = ps.paths.get(ps.data_dest) {
            out("cwnd", p.cwnd);
            out("ssthresh", p.ssthresh);
            out("pba", p.pba);
            out("flight", p.outstanding);
        }
        out("rwnd", self.peer_rwnd);
    }

    /// Counts a T3 expiry (before the association decides whether it is fatal).
    pub fn count_timeout(&mut self, now: SimTime) {
        if self.window.contains(now) {
            self.stats.timeouts += 1;
        }
    }

    /// Whether any chunk in the retransmission buffer was last sent to destination `i`.
    pub fn has_chunks_on(&self, i: usize) -> bool {
        self.sent.iter().any(|s| s.dest == i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::config::Variant;
    use crate::sctp::config::preset;
    use crate::sctp::path::{Path, Rto};
    use crate::sim::SimDuration;

    /// One MTU of cwnd: a 1048-byte PMTU leaves 1016 bytes of chunks, one 1000-byte
    /// message in a 1016-byte chunk per packet, so every step below is one chunk.
    const M: f64 = 1016.0;

    /// A sender with one destination, TSNs from 1 (packet number = TSN), and the
    /// variant's knobs except a fast-retransmit threshold no test reaches, so the growth
    /// rules are seen alone.
    fn sender(v: Variant, cwnd: f64, ssthresh: f64, total: Option<u64>) -> (Outbound, PathSet) {
        let mut k = preset(v);
        k.fast_rtx_threshold = 100;
        let app = AppSource::new(total, 1000, 1, false);
        let o = Outbound::new(k, 1, app, 1048, 1 << 20, false, Window::ALL);
        let rto = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        let ps = PathSet::new(vec![Path::new([10, 0, 0, 2], 1016, cwnd, ssthresh, rto)]);
        (o, ps)
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    /// Delivers a SACK (gap blocks as TSN offsets from `cum`) and lets the sender refill
    /// its window; returns (cwnd, pba) after it.
    fn sack(
        o: &mut Outbound,
        ps: &mut PathSet,
        ms: u64,
        cum: u32,
        gaps: &[(u16, u16)],
    ) -> (f64, f64) {
        let s = SackChunk {
            cum_tsn_ack: cum,
            a_rwnd: 1 << 20,
            gaps: gaps.to_vec(),
            dups: Vec::new(),
        };
        assert!(o.on_sack(t(ms), &s, ps));
        o.after_sack(t(ms), ps);
        (ps.paths[0].cwnd, ps.paths[0].pba)
    }

    #[test]
    fn fast_recovery_sack_advancing_the_cum_ack_reports_every_hole() {
        // TSNs 1 and 3 are lost. SACKs (gap blocks as TSNs):
        //   S1 cum 0, {2}      HTNA 2: TSN 1 has 1 report;
        //   S2 cum 0, {2},{4}  HTNA 4: TSN 1 2 reports, TSN 3 1;
        //   S3 cum 0, {2},{4-5} HTNA 5: TSN 1 3 reports -> fast retransmit, fast recovery
        //                      (exit point: highest TSN sent); TSN 3 2 reports;
        //   S4 cum 2, {4-5}    (the retransmitted 1 arrived) newly acks only TSN 1, so
        //                      HTNA = 1 reports nothing; RFC 4960/9260 7.2.4 ("in Fast
        //                      Recovery and a SACK arrives that advances the Cumulative
        //                      TSN Ack Point": every TSN reported missing) gives TSN 3
        //                      its 3rd report -> fast retransmission of 3 (no second cut:
        //                      3 is below the exit point).
        // Without the rule TSN 3 stays at 2 reports and waits for more SACKs or T3.
        for (rule, fast_rtx) in [(true, 2), (false, 1)] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
            o.k.fast_rtx_threshold = 3;
            o.k.fast_recovery_miss_reports = rule;
            o.send_new(t(0), &mut ps);
            sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
            sack(&mut o, &mut ps, 110, 0, &[(2, 2), (4, 4)]);
            sack(&mut o, &mut ps, 120, 0, &[(2, 2), (4, 5)]);
            assert_eq!(o.stats.fast_retransmissions, 1, "TSN 1");
            assert_eq!(o.stats.fast_recoveries, 1);
            let cwnd = ps.paths[0].cwnd;
            sack(&mut o, &mut ps, 220, 2, &[(2, 3)]);
            assert_eq!(o.stats.fast_retransmissions, fast_rtx, "rule {rule}");
            assert_eq!(o.stats.fast_recoveries, 1, "one cut per window");
            assert_eq!(ps.paths[0].cwnd, cwnd, "no growth in fast recovery");
        }
    }

    #[test]
    fn t3_cuts_ssthresh_on_every_expiry_in_the_rfc_presets() {
        // Set-up: cwnd 16 MTU, four chunks out (Max.Burst 4). First expiry: ssthresh =
        // max(16/2, 4) = 8 MTU, cwnd 1 MTU (RFC 4960/9260 7.2.3, and ns-2 alike). A second
        // expiry with no SACK between: the RFCs give ssthresh = max(1/2, 4) = 4 MTU; ns-2
        // (`Timeout`: only if cwnd > 1 MTU) keeps 8 MTU.
        for (every, second) in [(true, 4.0), (false, 8.0)] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 16.0 * M, 1e9, None);
            o.k.t3_ssthresh_every_expiry = every;
            o.send_new(t(0), &mut ps);
            o.on_t3(t(3000), 0, &mut ps);
            assert_eq!((ps.paths[0].ssthresh / M, ps.paths[0].cwnd / M), (8.0, 1.0));
            o.on_t3(t(9000), 0, &mut ps);
            let p = &ps.paths[0];
            assert_eq!((p.ssthresh / M, p.cwnd / M), (second, 1.0), "every {every}");
        }
        assert!(!preset(Variant::Ns2).t3_ssthresh_every_expiry);
        assert!(preset(Variant::Rfc9260).t3_ssthresh_every_expiry);
    }

    #[test]
    fn t3_ends_fast_recovery_only_where_a_stack_does_so() {
        // TSN 1 is lost and fast-retransmitted on the third SACK (gaps {2}, {2-3},
        // {2-4}): fast recovery until the highest TSN sent is acked. The retransmission
        // is lost too and T3 expires: cwnd 1 MTU, TSN 1 goes again. Its SACK (cum 4)
        // advances the cumulative ack but not past the exit point.
        // Leaving fast recovery on T3 (Linux, usrsctp `sctp_t3rxt_timer`): slow start,
        // the window was full (flight >= 1 MTU) -> cwnd = 1 + min(1016 B newly acked,
        // MTU) = 2 MTU. Staying in it (RFC 9260 7.2.3 and 7.2.4 end fast recovery only
        // when the cumulative ack reaches the exit point; ns-2.35 keeps its recover
        // point): no growth, cwnd 1 MTU.
        for (exits, cwnd) in [(true, 2.0), (false, 1.0)] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 4.0 * M, 1e9, None);
            o.k.t3_exits_fast_recovery = exits;
            o.k.fast_rtx_threshold = 3;
            o.send_new(t(0), &mut ps);
            sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
            sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
            sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
            assert_eq!(o.stats.fast_recoveries, 1);
            o.on_t3(t(1200), 0, &mut ps);
            assert_eq!(ps.paths[0].cwnd, M);
            let (c, _) = sack(&mut o, &mut ps, 1400, 4, &[]);
            assert_eq!(c / M, cwnd, "exits {exits}");
        }
        assert!(!preset(Variant::Ns2).t3_exits_fast_recovery);
        assert!(!preset(Variant::Rfc4960).t3_exits_fast_recovery);
        assert!(!preset(Variant::Rfc9260).t3_exits_fast_recovery);
        assert!(preset(Variant::Usrsctp).t3_exits_fast_recovery);
    }

    #[test]
    fn a_lost_fast_retransmission_is_fast_retransmitted_again_with_multiple_fast_rtx() {
        // TSN 1 is lost; SACKs gap-acking 2, 2-3, 2-4 give it 3 missing reports: fast
        // retransmit (its counter restarts at 0). Each gap ack freed one MTU, so TSNs 5
        // and 6 went before the retransmission and 7 right after it. The retransmission
        // is lost too; the next SACKs gap-ack 5, 6, 7, 8, 9 (8 and 9 sent as those
        // SACKs free the window). A report only counts against the retransmission when
        // the SACK newly acks data sent after it (HTNA >= 7): SACKs for 7, 8, 9 give 3
        // reports, SACKs for 5 and 6 none (the retransmission might still be in flight).
        // `multiple_fast_rtx` (ns-2.35 Agent/SCTP/MultipleFastRtx, usrsctp
        // `sctp_strike_gap_ack_chunks`): TSN 1 is fast-retransmitted a second time on the
        // SACK for 9. RFC 9260 7.2.4 step 5 ("ineligible for a subsequent Fast
        // Retransmit") and ns-2.35's Agent/SCTP (`eIneligibleForFastRtx`): never twice;
        // T3 repairs.
        for (repeat, count) in [(true, 2), (false, 1)] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 4.0 * M, 1e9, None);
            o.k.fast_rtx_threshold = 3;
            o.k.multiple_fast_rtx = repeat;
            o.send_new(t(0), &mut ps);
            sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
            sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
            sack(&mut o, &mut ps, 120, 0, &[(2, 4)]);
            assert_eq!(o.stats.fast_retransmissions, 1);
            assert_eq!(o.next_tsn, 8, "TSNs 5-7 were sent");
            sack(&mut o, &mut ps, 300, 0, &[(2, 5)]);
            sack(&mut o, &mut ps, 310, 0, &[(2, 6)]);
            sack(&mut o, &mut ps, 320, 0, &[(2, 7)]);
            assert!(o.next_tsn > 9, "TSNs 8 and 9 were sent");
            sack(&mut o, &mut ps, 330, 0, &[(2, 8)]);
            assert_eq!(o.stats.fast_retransmissions, 1, "two reports only");
            sack(&mut o, &mut ps, 340, 0, &[(2, 9)]);
            assert_eq!(o.stats.fast_retransmissions, count, "repeat {repeat}");
            assert_eq!(o.stats.fast_recoveries, 1, "still one cut");
        }
        assert!(!preset(Variant::Ns2).multiple_fast_rtx);
        assert!(!preset(Variant::Rfc4960).multiple_fast_rtx);
        assert!(!preset(Variant::Rfc9260).multiple_fast_rtx);
        assert!(preset(Variant::Usrsctp).multiple_fast_rtx);
    }

    #[test]
    fn rfc9260_fast_retransmit_in_fast_recovery_waits_for_cwnd() {
        // cwnd 8 MTU, no burst limit: TSNs 1-8 go; 1 and 3 are lost. SACKs (gap blocks
        // as TSNs; each frees one MTU, so TSNs 9 and 10 follow S1 and S2):
        //   S1 cum 0, {2};  S2 cum 0, {2},{4};  S3 cum 0, {2},{4-5}: TSN 1 has 3 reports
        //   -> fast retransmit outside fast recovery: ssthresh = cwnd = max(8/2, 4) =
        //   4 MTU, exit point TSN 10, TSN 1 goes at once whatever cwnd says.
        //   S4 cum 2, {4-5}: advances the cumulative ack in fast recovery, so TSN 3 gets
        //   its 3rd report (7.2.4) and is marked. Flight: TSNs 3, 6-10 = 6 MTU, 5 MTU of
        //   it unmarked, above cwnd 4 MTU.
        //   RFC 4960 7.2.4 step 3: the packet goes regardless of cwnd -> 2 fast rtx.
        //   RFC 9260 7.2.4 step 3 (RFC 8540 sec. 3.15): only "if not in Fast Recovery":
        //   TSN 3 waits -> 1 fast rtx.
        //   S5 cum 2, {4-7}: TSNs 6 and 7 leave the flight: 3 MTU unmarked < cwnd 4 MTU,
        //   TSN 3 goes (2 fast rtx in both).
        for (ignores, after_s4) in [(true, 2), (false, 1)] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
            o.k.fast_rtx_threshold = 3;
            o.k.max_burst_rule = MaxBurstRule::Off;
            o.k.fast_rtx_ignores_cwnd_in_recovery = ignores;
            o.send_new(t(0), &mut ps);
            sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
            sack(&mut o, &mut ps, 110, 0, &[(2, 2), (4, 4)]);
            assert_eq!(o.next_tsn, 11, "TSNs 9 and 10 were sent");
            sack(&mut o, &mut ps, 120, 0, &[(2, 2), (4, 5)]);
            assert_eq!(o.stats.fast_retransmissions, 1, "TSN 1 regardless of cwnd");
            assert_eq!(ps.paths[0].cwnd, 4.0 * M);
            sack(&mut o, &mut ps, 220, 2, &[(2, 3)]);
            assert_eq!(o.stats.fast_retransmissions, after_s4, "ignores {ignores}");
            sack(&mut o, &mut ps, 230, 2, &[(2, 5)]);
            assert_eq!(o.stats.fast_retransmissions, 2, "ignores {ignores}");
            assert_eq!(o.stats.fast_recoveries, 1);
        }
        assert!(preset(Variant::Rfc4960).fast_rtx_ignores_cwnd_in_recovery);
        assert!(!preset(Variant::Rfc9260).fast_rtx_ignores_cwnd_in_recovery);
        assert!(preset(Variant::Ns2).fast_rtx_ignores_cwnd_in_recovery);
    }

    #[test]
    fn retransmitting_a_large_marked_flight_walks_it_once() {
        // 20 000 one-chunk packets in flight, then T3: every chunk is marked and one
        // packet goes. With the window opened wide, the other 19 999 go packet by
        // packet. Each packet's search starts where the previous one stopped, so
        // `rtx_marked` looks at about two chunks per packet (the one it sends and the
        // one that ends the packet); restarting every search at the front of the
        // flight, as it once did, would look at 2 * 10^8.
        const N: u64 = 20_000;
        let (mut o, mut ps) = sender(Variant::Rfc4960, N as f64 * M, 1e12, None);
        o.k.max_burst_rule = MaxBurstRule::Off;
        o.peer_rwnd = 1e12;
        o.send_new(t(0), &mut ps);
        assert_eq!(o.sent.len() as u64, N);
        o.on_t3(t(3000), 0, &mut ps);
        assert_eq!(o.stats.timeout_retransmissions, 1);
        ps.paths[0].cwnd = 2.0 * N as f64 * M;
        let sent = o.rtx_marked(t(3000), false, &mut ps) as u64;
        assert_eq!(sent, N - 1);
        assert_eq!(o.stats.timeout_retransmissions, N);
        assert!(o.rtx_visits <= 3 * N, "{} chunk visits", o.rtx_visits);
        // SACK-driven, on a smaller flight (debug builds recount the flight on every
        // SACK): after T3, SACKs acking one chunk each let cwnd (slow start from 1 MTU)
        // send the marked chunks a few at a time; the same bound holds over the repair.
        const S: u32 = 2_000;
        let (mut o, mut ps) = sender(Variant::Rfc4960, f64::from(S) * M, 1e12, None);
        o.k.max_burst_rule = MaxBurstRule::Off;
        o.peer_rwnd = 1e12;
        o.send_new(t(0), &mut ps);
        o.on_t3(t(3000), 0, &mut ps);
        for k in 1..=S {
            sack(&mut o, &mut ps, 3000 + u64::from(k), k, &[]);
        }
        assert_eq!(o.counts.marked, 0, "every marked chunk went");
        assert!(
            o.rtx_visits <= 3 * u64::from(S),
            "{} chunk visits",
            o.rtx_visits
        );
    }

    #[test]
    fn an_idle_destination_halves_cwnd_per_rto() {
        // Congestion avoidance (ssthresh 2 MTU), cwnd 32 MTU, no burst limit: TSNs 1-32
        // go at 0. The SACK at 100 ms acks all of them: pba 32 MTU >= cwnd with the
        // window full -> cwnd 33 MTU (7.2.2), and the RTT sample of 0.1 s gives RTO =
        // max(0.1 + 4 x 0.05, RTO.Min 1 s) = 1 s. Then nothing is sent.
        // RFC 9260 7.2.1: max(cwnd/2, 4 MTU) per RTO without data: at 0.95 s, less than
        // one RTO after the last DATA, 33 MTU; at 2.05 s, two whole RTOs since the DATA
        // at 0: 33/4 = 8.25 MTU; at 5.05 s (three more RTOs from 2 s): 8.25/2 -> floor
        // 4 MTU. Without the rule (ns2 and seed presets): 33 MTU throughout.
        for (decay, expect) in [(true, [33.0, 8.25, 4.0]), (false, [33.0, 33.0, 33.0])] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 32.0 * M, 2.0 * M, Some(32_000));
            o.k.max_burst_rule = MaxBurstRule::Off;
            o.k.idle_cwnd_decay = decay;
            o.send_new(t(0), &mut ps);
            let (c, _) = sack(&mut o, &mut ps, 100, 32, &[]);
            assert_eq!(c / M, 33.0);
            assert_eq!(ps.paths[0].rto.current().as_secs_f64(), 1.0);
            let mut got = [0.0; 3];
            for (g, ms) in got.iter_mut().zip([950, 2050, 5050]) {
                o.send_new(t(ms), &mut ps);
                *g = ps.paths[0].cwnd / M;
            }
            assert_eq!(got, expect, "decay {decay}");
        }
        assert!(preset(Variant::Rfc9260).idle_cwnd_decay);
        assert!(preset(Variant::Rfc4960).idle_cwnd_decay);
        assert!(!preset(Variant::Ns2).idle_cwnd_decay);
        assert!(!preset(Variant::Newreno).idle_cwnd_decay);
    }

    #[test]
    fn max_burst_zero_means_no_limit() {
        // RFC 6458 sec. 8.1.24: Max.Burst 0 disables burst limiting. cwnd 8 MTU, an
        // empty flight: all 8 one-chunk packets go at once under every rule (the guide's
        // clamp outstanding + 0 MTU and "at most 0 packets" would send nothing, ever).
        for rule in [
            MaxBurstRule::Guide,
            MaxBurstRule::Packets,
            MaxBurstRule::Ns2,
        ] {
            let (mut o, mut ps) = sender(Variant::Rfc4960, 8.0 * M, 1e9, None);
            o.k.max_burst = 0;
            o.k.max_burst_rule = rule;
            o.apply_max_burst = true;
            o.send_new(t(0), &mut ps);
            assert_eq!(o.next_tsn, 9, "{rule:?}");
            assert_eq!(ps.paths[0].cwnd, 8.0 * M, "{rule:?}");
        }
    }

    #[test]
    fn rfc9260_slow_start_grows_on_sacks_that_do_not_advance_the_cumulative_ack() {
        // cwnd 4 MTU, ssthresh far above: slow start. TSNs 1-4 fill cwnd (flight 4 MTU).
        // TSN 1 is missing; SACKs report 2, then 2-3, in gap blocks (cum ack stays 0).
        // RFC 4960 7.2.1 grows cwnd only when "an incoming SACK advances the Cumulative
        // TSN Ack Point": cwnd stays 4 MTU on both. RFC 9260 7.2.1 drops that condition:
        // cwnd full and not in fast recovery, so cwnd += min(newly acked, MTU):
        //   SACK 1: flight 4 M >= cwnd 4 M -> cwnd 5 M; the sender refills to 5 M
        //           (flight 3 M after the SACK, TSNs 5 and 6 go);
        //   SACK 2: flight 5 M >= cwnd 5 M -> cwnd 6 M.
        for (v, expect) in [
            (Variant::Rfc4960, [4.0, 4.0]),
            (Variant::Rfc9260, [5.0, 6.0]),
        ] {
            let (mut o, mut ps) = sender(v, 4.0 * M, 1e9, None);
            o.send_new(t(0), &mut ps);
            assert_eq!(ps.paths[0].outstanding, 4.0 * M);
            let (c1, _) = sack(&mut o, &mut ps, 100, 0, &[(2, 2)]);
            let (c2, _) = sack(&mut o, &mut ps, 110, 0, &[(2, 3)]);
            assert_eq!([c1 / M, c2 / M], expect, "{v:?}");
        }
    }

    #[test]
    fn rfc9260_partial_bytes_acked_grows_on_every_sack() {
        // Congestion avoidance: cwnd 4 MTU > ssthresh 2 MTU. TSNs 1-4 fill cwnd; TSN 2
        // is lost. SACK a acks TSN 1 cumulatively; SACKs b, c, d gap-ack TSNs 3, 4, 5
        // (the sender refills cwnd after each, so the flight before every SACK is 4 M).
        // RFC 4960 7.2.2: pba counts only on SACKs that advance the cumulative ack ->
        //   pba 1 M after a, and stays 1 M; cwnd stays 4 M.
        // RFC 9260 7.2.2: pba counts every newly acked byte -> 1, 2, 3 M, then 4 M >=
        //   cwnd with the flight (4 M) >= cwnd: pba = 4 M - 4 M = 0, cwnd 5 M.
        for (v, cwnds, pbas) in [
            (Variant::Rfc4960, [4.0, 4.0, 4.0, 4.0], [1.0, 1.0, 1.0, 1.0]),
            (Variant::Rfc9260, [4.0, 4.0, 4.0, 5.0], [1.0, 2.0, 3.0, 0.0]),
        ] {
            let (mut o, mut ps) = sender(v, 4.0 * M, 2.0 * M, None);
            o.send_new(t(0), &mut ps);
            let steps = [
                sack(&mut o, &mut ps, 100, 1, &[]),
                sack(&mut o, &mut ps, 110, 1, &[(2, 2)]),
                sack(&mut o, &mut ps, 120, 1, &[(2, 3)]),
                sack(&mut o, &mut ps, 130, 1, &[(2, 4)]),
            ];
            assert_eq!(steps.map(|s| s.0 / M), cwnds, "{v:?} cwnd");
            assert_eq!(steps.map(|s| s.1 / M), pbas, "{v:?} pba");
        }
    }

    #[test]
    fn rfc9260_partial_bytes_acked_is_pulled_back_to_cwnd_below_a_full_window() {
        // Set-up: congestion avoidance (cwnd 4 MTU, ssthresh 2 MTU) with pba already at
        // 3 MTU, and an application with only three 1000-byte messages: flight 3 M < cwnd.
        // One SACK acks TSNs 1 and 2 (2 M).
        // RFC 9260 7.2.2: pba = 3 + 2 = 5 M > cwnd while the flight was below cwnd ->
        //   pba = cwnd = 4 M; no growth (the window was not full); one chunk remains out,
        //   so pba is not zeroed.
        // RFC 4960 as ns-2 codes it (pba counts only while cwnd is full): pba stays 3 M.
        for (v, pba) in [(Variant::Rfc4960, 3.0), (Variant::Rfc9260, 4.0)] {
            let (mut o, mut ps) = sender(v, 4.0 * M, 2.0 * M, Some(3000));
            ps.paths[0].pba = 3.0 * M;
            o.send_new(t(0), &mut ps);
            assert_eq!(ps.paths[0].outstanding, 3.0 * M);
            let (c, p) = sack(&mut o, &mut ps, 100, 2, &[]);
            assert_eq!((c / M, p / M), (4.0, pba), "{v:?}");
            // Everything acknowledged: pba = 0 (7.2.2, both texts).
            assert_eq!(sack(&mut o, &mut ps, 110, 3, &[]).1, 0.0, "{v:?}");
        }
    }
}
