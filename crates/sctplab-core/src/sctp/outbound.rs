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
use super::path_bbr;
use crate::endpoint::{EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{DataChunk, DataFlags, SackChunk};
use crate::sim::SimTime;
use std::collections::VecDeque;

mod app;
pub mod cmt;
mod counts;
mod idata;
mod intervals;
mod prsctp;
mod rtx;
mod sack;
mod send;
pub mod send_buffer;
#[cfg(test)]
mod tests;

pub use app::AppSource;
use counts::SentCounts;

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
    /// I-DATA's (MID, FSN) of the chunk (RFC 8260 sec. 2.1; unused with DATA).
    ids: (u32, u32),
    /// The next new TSN when this chunk was last retransmitted: with `multiple_fast_rtx`,
    /// only SACKs newly acking TSNs from there on report a fast-retransmitted chunk
    /// missing again.
    rtx_at: u32,
    pba_counted: bool,
    /// An NR gap block reported it: freed from the send buffer (`send_buffer.rs`).
    nr_freed: bool,
    /// Index of the destination the chunk was last sent to.
    dest: usize,
    /// The destination's packet number of its last transmission (`path_bbr`; 0 when
    /// the destination keeps no rate records).
    rec: u32,
    /// When it was first sent (last sent with `timestamp`, whose RTT samples time
    /// retransmissions, sctp/timestamp.rs): a destination's controller takes an RTT sample from
    /// every SACK (HyStart++ needs several per round, RFC 9406 sec. 4.2), where the RTO
    /// estimator times one chunk per round trip (RFC 9260 6.3.1 C4).
    sent_at: SimTime,
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
    /// Without CMT: the runs of gap-acked TSNs (`sack/single.rs`).
    gap_cover: sack::GapCover,
    /// Tests: without CMT, process gap blocks by the flight walk instead.
    #[cfg(test)]
    force_walk: bool,
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
    /// Concurrent multipath transfer (`enable_cmt`); None: one data destination.
    cmt: Option<Box<cmt::Cmt>>,
    /// Coupled congestion avoidance over the destinations (`coupled_cc`).
    coupled: Option<Box<super::coupled_cc::Coupled>>,
    /// Data chunk header length: DATA's 16 bytes, or I-DATA's 20 once negotiated
    /// (`idata.rs`).
    hdr: usize,
    /// A paced destination held new data back: when to try again (`path_bbr`).
    pub pace_wake: Option<SimTime>,
    /// Bytes of chunks in `sent` that NR gap blocks freed (`send_buffer.rs`).
    nr_freed: u64,
    /// The TSNs of those chunks as maximal runs, in TSN order (`send_buffer.rs`).
    nr_runs: VecDeque<(u32, u32)>,
    sb_stats: send_buffer::SendBufferStats,
    /// With `timestamp`: the last echo the peer sent (sctp/timestamp.rs), set by the
    /// association before the SACK of the same packet is processed.
    pub(crate) ts_echo: Option<f32>,
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
        // ns-2.35's Timestamp agent reserves its chunk's 12 bytes in every packet
        // (`ControlChunkReservation`).
        let room = pmtu.saturating_sub(32 + super::timestamp::reserved(&k));
        // A chunk is padded to 4 bytes and must fit the room with its 16-byte header.
        let max_payload = ((room.saturating_sub(DataChunk::HEADER_LEN)) / 4 * 4).max(4) as u64;
        let coupled = k
            .coupled_cc
            .map(|a| Box::new(super::coupled_cc::Coupled::new(a)));
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
            gap_cover: sack::GapCover::default(),
            #[cfg(test)]
            force_walk: false,
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
            cmt: None,
            coupled,
            hdr: DataChunk::HEADER_LEN,
            pace_wake: None,
            nr_freed: 0,
            nr_runs: VecDeque::new(),
            sb_stats: send_buffer::SendBufferStats::default(),
            ts_echo: None,
        }
    }

    pub fn packet_number(&self, tsn: u32) -> u32 {
        tsn.wrapping_sub(self.initial_tsn).wrapping_add(1)
    }

    /// The last TSN given to a chunk (RE-CONFIG's Sender's Last Assigned TSN, RFC
    /// 6525 4.1).
    pub fn last_assigned_tsn(&self) -> u32 {
        self.next_tsn.wrapping_sub(1)
    }

    pub fn has_outstanding(&self) -> bool {
        !self.sent.is_empty()
    }

    /// A performed SSN/TSN reset (RFC 6525 5.2.7): the next TSN is `next`, everything
    /// before it acknowledged. Every TSN the sender keeps moves by the same amount,
    /// the initial TSN too, so packet numbers and the stream sources' relative TSNs
    /// run on. Only with nothing in flight (the request waits for that); otherwise
    /// nothing changes and false.
    pub fn reset_tsn(&mut self, next: u32) -> bool {
        if !self.sent.is_empty() || self.cmt.is_some() {
            return false;
        }
        let shift = next.wrapping_sub(self.next_tsn);
        for t in [
            &mut self.initial_tsn,
            &mut self.next_tsn,
            &mut self.cum_ack,
            &mut self.mark_floor,
            &mut self.gap_hi,
            &mut self.recover,
        ] {
            *t = t.wrapping_add(shift);
        }
        self.gap_cover.clear();
        true
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
        if path_bbr::is_paced(p) {
            self.paced_packet(now, &chunks, ps, dest);
        }
        self.tx.push_back(TxPacket { chunks, dest });
    }

    /// A packet for a destination with a controller: its rate record and pacing gap
    /// (`path_bbr`); its chunks remember the record's number.
    fn paced_packet(&mut self, now: SimTime, chunks: &[DataChunk], ps: &mut PathSet, d: usize) {
        let chunk_bytes: usize = chunks
            .iter()
            .map(|c| (self.hdr + c.payload_len as usize).next_multiple_of(4))
            .sum();
        let in_packet: f64 = chunks
            .iter()
            .map(|c| (self.hdr as u32 + c.payload_len) as f64)
            .sum();
        // On the wire: the chunks, SCTP's common header (12) and IPv4's (20).
        let wire = (chunk_bytes + 32) as f64;
        let prior = ps.paths[d].outstanding - self.marked_bytes(d) - in_packet;
        let app_limited = self.app.exhausted();
        let id = path_bbr::on_packet_sent(&mut ps.paths[d], now, wire, prior, app_limited);
        if id == 0 {
            return;
        }
        let Some(front) = self.sent.front().map(|s| s.tsn) else {
            return;
        };
        for c in chunks {
            if let Some(s) = self.sent.get_mut(c.tsn.wrapping_sub(front) as usize) {
                s.rec = id;
            }
        }
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

    /// For sampling: cwnd, ssthresh, pba, outstanding (bytes) of the destination new
    /// data goes to.
    pub fn sample(&self, ps: &PathSet, out: &mut dyn FnMut(&'static str, f64)) {
        if let Some(p) = ps.paths.get(ps.data_dest) {
            out("cwnd", p.cwnd);
            out("ssthresh", p.ssthresh);
            out("pba", p.pba);
            out("flight", p.outstanding);
            if let Some(r) = path_bbr::pacing_rate(p) {
                // Bits per second, as the summary's rates (TCP's sender does the same).
                out("pacing_rate", 8.0 * r);
            }
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

    /// ECN (sctp/ecn.rs): the destination chunk `tsn` was last sent to while it is in
    /// the retransmission buffer, and the highest TSN assigned so far.
    pub(crate) fn ecn_lookup(&self, tsn: u32) -> (Option<usize>, u32) {
        let dest = self
            .sent
            .front()
            .filter(|f| tsn_le(f.tsn, tsn))
            .and_then(|f| self.sent.get(tsn.wrapping_sub(f.tsn) as usize))
            .map(|s| s.dest);
        (dest, self.next_tsn.wrapping_sub(1))
    }

    /// ECN: an ECNE cuts destination `i`'s window as a fast retransmit does.
    pub(crate) fn ecn_cut(&mut self, now: SimTime, ps: &mut PathSet, i: usize) {
        self.cut(now, ps, i);
    }
}
