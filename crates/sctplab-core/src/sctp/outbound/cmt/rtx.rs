//! Retransmission under CMT (ns-2.35 `SctpCMTAgent::FastRtx`, `RtxMarkedChunks`): cwnd
//! is cut once per window per destination (a per-destination recover TSN), and each
//! packet of marked chunks goes where the retransmission policy sends its first chunk.

use super::*;

impl Outbound {
    /// A SACK marked chunks for fast retransmission (RFC 4960 7.2.4 per destination, as
    /// ns-2.35 `FastRtx`): each destination with a marked chunk above its recover TSN is
    /// cut once, its recover TSN becomes the highest TSN outstanding there; destinations
    /// that lost a chunk may take one packet whatever their cwnd.
    pub(in crate::sctp::outbound) fn cmt_fast_retransmit(
        &mut self,
        now: SimTime,
        ps: &mut PathSet,
    ) {
        let n = ps.len();
        let Some(c) = self.cmt.as_deref_mut() else {
            return;
        };
        c.ensure(n);
        let mut cut = vec![false; n];
        for d in &mut c.dests {
            d.rtx_limit_one = false;
        }
        let mut to_cut = Vec::new();
        for s in &self.sent {
            let Some(mark) = s.mark else { continue };
            let d = &mut c.dests[s.dest];
            if !cut[s.dest] && d.recover.is_none_or(|r| tsn_lt(r, s.tsn)) {
                cut[s.dest] = true;
                to_cut.push(s.dest);
            }
            if mark == Mark::Fast {
                d.rtx_limit_one = true;
            }
        }
        for j in to_cut {
            self.cut(now, ps, j);
            ps.paths[j].rtt_pending = None;
            let recover = self.cmt_highest_outstanding(j);
            if let Some(c) = self.cmt.as_deref_mut() {
                c.dests[j].recover = recover;
            }
            if self.window.contains(now) {
                self.stats.fast_recoveries += 1;
            }
        }
        self.cmt_rtx_marked(now, true, ps);
    }

    /// ns-2.35 `GetHighestOutstandingTsn` for CMT: the highest TSN sent to `j` and not
    /// marked; when that is below the highest it found before (or there is none), the
    /// highest TSN sent at all. None (ns-2.35's 0) only before anything was found.
    fn cmt_highest_outstanding(&mut self, j: usize) -> Option<u32> {
        let found = self
            .sent
            .iter()
            .rev()
            .find(|s| s.dest == j && s.mark.is_none())
            .map(|s| s.tsn);
        let highest_sent = self.next_tsn.wrapping_sub(1);
        let d = &mut self.cmt.as_deref_mut()?.dests[j];
        match (found, d.highest_sent) {
            (Some(f), Some(h)) if tsn_lt(f, h) => Some(highest_sent),
            (None, Some(_)) => Some(highest_sent),
            (Some(f), _) => {
                d.highest_sent = Some(f);
                Some(f)
            }
            (None, None) => None,
        }
    }

    /// Sends packets of marked chunks: each packet goes where the policy sends its
    /// first chunk (`cmt_rtx_dest`) and takes the marked chunks after it that fit; a
    /// chunk the policy finds no room for waits and the next one is tried. Stops at the
    /// end of the buffer or at Max.Burst on a destination (ns-2.35 stops the whole call
    /// there too). Returns the packets sent.
    pub(in crate::sctp::outbound) fn cmt_rtx_marked(
        &mut self,
        now: SimTime,
        limit_one: bool,
        ps: &mut PathSet,
    ) -> usize {
        if !self.any_marked() {
            return 0;
        }
        if let Some(c) = self.cmt.as_deref_mut() {
            c.ensure(ps.len());
            for d in &mut c.dests {
                d.packets_sent = 0;
            }
        }
        let mut total = 0;
        let mut i = self.mark_floor_index();
        while i < self.sent.len() {
            // The first marked chunk from `i` picks the packet's destination.
            let Some(at) = self.sent.range(i..).position(|s| s.mark.is_some()) else {
                break;
            };
            i += at;
            let last = self.sent[i].dest;
            let Some(dest) = self.cmt_rtx_dest(ps, last, limit_one) else {
                i += 1;
                continue;
            };
            self.decay_idle_cwnd(now, ps, dest);
            let next_tsn = self.next_tsn;
            let mut chunks = self.chunk_list();
            let mut kinds = Vec::new();
            let mut used = 0usize;
            while i < self.sent.len() {
                let s = &mut self.sent[i];
                let Some(mark) = s.mark else {
                    i += 1;
                    continue;
                };
                let padded = (s.chunk_len as usize).div_ceil(4) * 4;
                if used + padded > self.room && !chunks.is_empty() {
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
                // ns-2.35 CMT: no fast retransmit of a TSN retransmitted once, by
                // timeout or not.
                s.fast_rtxed = true;
                if let Some(c) = self.cmt.as_deref_mut() {
                    c.dests[s.dest].chunks_lost += 1;
                    if s.dest != dest {
                        // CUC: the old destination's pseudo-cumulative TSNs are looked
                        // for again.
                        c.dests[s.dest].find_pc = true;
                        c.dests[s.dest].find_rtx_pc = true;
                    }
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
                    if let Some(c) = self.cmt.as_deref_mut() {
                        c.list_insert(dest, s.tsn);
                    }
                }
                chunks.push(Self::data_chunk(s));
                kinds.push(if mark == Mark::Fast {
                    SendKind::FastRtx
                } else {
                    SendKind::RtoRtx
                });
                i += 1;
            }
            if chunks.is_empty() {
                self.recycle_chunks(chunks);
                continue;
            }
            self.finish_rtx_packet(now, chunks, kinds, ps, dest);
            total += 1;
            let limit = self.k.max_burst_rule == MaxBurstRule::Ns2
                && self.apply_max_burst
                && self.k.max_burst > 0;
            if let Some(c) = self.cmt.as_deref_mut() {
                let d = &mut c.dests[dest];
                d.packets_sent += 1;
                let burst = d.burst;
                d.burst += 1;
                if limit && burst >= self.k.max_burst {
                    break;
                }
            }
        }
        // Where the next search for marked chunks may start.
        self.mark_floor = self
            .sent
            .iter()
            .find(|s| s.mark.is_some())
            .map_or(self.next_tsn, |s| s.tsn);
        total
    }

    /// A destination answered a HEARTBEAT after being potentially failed or inactive
    /// (ns-2.35 calls `TimeoutRtx` on it): its chunks not gap-acked are marked for
    /// retransmission and one packet of them goes by the policy; with nothing left
    /// marked, new data may go.
    pub fn cmt_path_returned(&mut self, now: SimTime, i: usize, ps: &mut PathSet) {
        if self.cmt.is_none() {
            return;
        }
        for s in self.sent.iter_mut() {
            if s.dest == i && !s.gap_acked {
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
        self.cmt_rtx_marked(now, true, ps);
        if !self.any_marked() {
            self.cmt_send_new(now, ps);
        }
    }
}
