//! Retransmission: packets of marked chunks, fast retransmit (RFC 2960/4960/9260
//! 7.2.4) and T3-rtx expiry (6.3.3, 7.2.3).

use super::*;
use crate::cc::Congestion;
use crate::sctp::{path_bbr, path_cc};

impl Outbound {
    /// Retransmits chunks marked for retransmission: one packet regardless of cwnd
    /// (fast retransmit, RFC 4960 7.2.4 step 3; T3, 6.3.3 E3) or as many packets as cwnd
    /// allows, not counting marked chunks as outstanding meanwhile (ns-2
    /// `RtxMarkedChunks`). The destination is chosen once per call from the first marked
    /// chunk (ns-2 does the same): an active alternate when the knobs ask for one
    /// (RFC 9260 6.4), and a chunk moved there moves its bytes from the old
    /// destination's outstanding count to the new one's.
    pub(super) fn rtx_marked(&mut self, now: SimTime, one_packet: bool, ps: &mut PathSet) -> usize {
        // PR-SCTP: abandoned messages are never retransmitted (outbound/prsctp.rs).
        self.drop_abandoned_marks(now);
        if self.cmt.is_some() {
            return self.cmt_rtx_marked(now, one_packet, ps);
        }
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
                let padded = (s.chunk_len as usize).div_ceil(4) * 4;
                if used + padded > self.room && !chunks.is_empty() {
                    floor = s.tsn;
                    break;
                }
                used += padded;
                self.counts.unmark(s);
                self.counts.resent(s);
                s.mark = None;
                s.txs += 1;
                s.missing = 0;
                s.rtx_at = next_tsn;
                if self.k.timestamp {
                    s.sent_at = now; // timed by its own echo (sctp/timestamp.rs)
                }
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
            self.finish_rtx_packet(now, chunks, kinds, ps, dest);
            packets += 1;
        }
        packets
    }

    /// Hands over a packet of retransmitted chunks for destination `dest`: T3, records,
    /// counters and the peer's window.
    pub(super) fn finish_rtx_packet(
        &mut self,
        now: SimTime,
        chunks: Vec<DataChunk>,
        kinds: Vec<SendKind>,
        ps: &mut PathSet,
        dest: usize,
    ) {
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
    }

    /// RFC 2960/4960 7.2.4: cut cwnd (once per window with fast recovery) of each
    /// destination the newly marked chunks were sent to, then send one packet of marked
    /// chunks whatever cwnd and the flight size say. RFC 9260 7.2.4 step 3 (RFC 8540
    /// sec. 3.15) sends that packet only "if not in Fast Recovery" when this procedure
    /// began; without `fast_rtx_ignores_cwnd_in_recovery` chunks marked during fast
    /// recovery go as cwnd allows, like any other marked chunk.
    pub(super) fn fast_retransmit(&mut self, now: SimTime, ps: &mut PathSet) {
        if self.cmt.is_some() {
            return self.cmt_fast_retransmit(now, ps);
        }
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
                self.cut(now, ps, j);
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
        if let Some(c) = self.coupled.as_deref_mut() {
            c.on_loss(i);
        }
        let p = &mut ps.paths[i];
        let mtu = p.mtu;
        // ns-2.35 `Timeout` cuts only while cwnd > 1 MTU, so a second expiry in a row
        // keeps the first one's ssthresh; RFC 4960/9260 7.2.3 cut on every expiry.
        // ns-2.35's CMT agent (`SctpCMTAgent::Timeout`) cuts on every expiry.
        if self.k.t3_ssthresh_every_expiry || self.cmt.is_some() || p.cwnd > mtu {
            // With a controller its cut replaces the halving (7.2.3; RFC 9438 sec. 4.8).
            if !path_cc::on_congestion(p, now, Congestion::Timeout) {
                let floor = f64::from(self.k.ssthresh_floor_mtus) * mtu;
                p.ssthresh = (p.cwnd / 2.0).max(floor);
            }
        }
        p.cwnd = mtu;
        // BBR's recovery after the expiry lasts until what is outstanding now is acked.
        path_bbr::note_t3(p, self.next_tsn.wrapping_sub(1));
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
}
