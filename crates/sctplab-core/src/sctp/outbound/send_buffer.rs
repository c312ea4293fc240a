//! A finite send buffer and buffer splitting (docs/models/sctp.md "CMT", send buffer).
//!
//! The send buffer is ns-2.35's `initialSwnd_` (`uiAvailSwnd`, sctp.cc `SendMuch`,
//! `GenOneDataChunk`, `SendBufferDequeueUpTo`, `ProcessNonRenegSackBlocks`): the bytes
//! of DATA chunks handed to the association and not yet freed may not exceed
//! `send_buffer`. A chunk is freed when the cumulative TSN passes it and, with NR-SACK,
//! when an NR gap block reports it (the receiver will not renege on it, so the sender
//! need not keep it for a retransmission). The bulk application always has data
//! waiting, so the buffer's free room is what lets a new chunk be cut and sent.
//!
//! Buffer splitting (Dreibholz, Becke, Rathgeb, Tüxen, "On the Use of Concurrent
//! Multipath Transfer over Asymmetric Paths", IEEE GLOBECOM 2010), with usrsctp's rules
//! (`sctp_med_chunk_output`, `SCTP_SEND_BUFFER_SPLITTING` / `SCTP_RECV_BUFFER_SPLITTING`):
//! under CMT a destination gets no new packet while its outstanding bytes exceed its
//! equal share of the send buffer (`send_buffer / destinations`) or of the peer's
//! receive window (`(peer_rwnd + bytes outstanding on every destination) /
//! destinations`), so a slow path cannot fill the whole buffer and block the fast one.

use super::*;
use crate::net::wire::SackChunk;
use crate::sctp::inbound::gap_runs::block_offsets;

/// `buffer_splitting` (CONTRACTS.md): which buffers CMT splits per destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufferSplitting {
    #[default]
    None,
    Sender,
    Receiver,
    Both,
}

impl BufferSplitting {
    fn sender(self) -> bool {
        matches!(self, BufferSplitting::Sender | BufferSplitting::Both)
    }
    fn receiver(self) -> bool {
        matches!(self, BufferSplitting::Receiver | BufferSplitting::Both)
    }
}

/// The flow's send-buffer knobs: `send_buffer` (None: unlimited, as ns-2.35's
/// `initialSwnd_ 0`), `nr_sack` (ns-2.35's `useNonRenegSacks_`) and `buffer_splitting`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendBufferKnobs {
    pub limit: Option<u64>,
    pub nr_sack: bool,
    pub splitting: BufferSplitting,
}

/// Counters of the send buffer and NR-SACK (summary.json keys, only with the knobs on).
#[derive(Clone, Debug, Default)]
pub struct SendBufferStats {
    /// Send opportunities that stopped because the next chunk did not fit the send
    /// buffer (in the measurement window).
    pub full_stops: u64,
    /// Bytes (chunk lengths) freed by NR gap blocks before the cumulative TSN passed
    /// them (in the measurement window).
    pub nr_freed_bytes: u64,
    /// NR-SACK chunks received by the sender (in the measurement window).
    pub nr_sacks: u64,
    /// Packets a destination did not get because it was over its share (splitting).
    pub split_stops: u64,
}

impl Outbound {
    /// Bytes of the send buffer in use: every chunk in the retransmission buffer less
    /// the ones NR gap blocks freed.
    pub fn send_buffer_used(&self) -> u64 {
        self.counts.bytes - self.nr_freed
    }

    /// Whether a chunk of `len` bytes fits the send buffer (always without a limit).
    #[inline]
    pub(super) fn send_buffer_fits(&mut self, now: SimTime, len: u64) -> bool {
        let Some(limit) = self.k.send_buffer.limit else {
            return true;
        };
        let fits = self.send_buffer_used() + len <= limit;
        if !fits && self.window.contains(now) {
            self.sb_stats.full_stops += 1;
        }
        fits
    }

    /// Buffer splitting: whether destination `d` is within its shares (always without
    /// splitting or CMT).
    #[inline]
    pub(super) fn within_split_share(&mut self, now: SimTime, ps: &PathSet, d: usize) -> bool {
        let split = self.k.send_buffer.splitting;
        if split == BufferSplitting::None || self.cmt.is_none() {
            return true;
        }
        let n = ps.len().max(1) as f64;
        let out = ps.paths[d].outstanding;
        let mut ok = true;
        if split.receiver() {
            let total: f64 = ps.paths.iter().map(|p| p.outstanding).sum();
            ok &= out <= (self.peer_rwnd + total) / n;
        }
        if split.sender()
            && let Some(limit) = self.k.send_buffer.limit
        {
            ok &= out <= limit as f64 / n;
        }
        if !ok && self.window.contains(now) {
            self.sb_stats.split_stops += 1;
        }
        ok
    }

    /// NR-SACK (draft-natarajan-tsvwg-sctp-nrsack; ns-2.35 `ProcessNonRenegSackBlocks`):
    /// the chunks the NR gap blocks of `sack` report leave the send buffer. They stay in
    /// the retransmission list (gap-acked, as the SACK's gap blocks include them) until
    /// the cumulative TSN passes them, but no longer count against `send_buffer`. Only
    /// the parts of the blocks outside the runs freed before (`nr_runs`) are visited, so
    /// the work follows the chunks newly freed, not the blocks' length.
    pub fn free_non_renegable(&mut self, now: SimTime, sack: &SackChunk, nr_gaps: &[(u16, u16)]) {
        if self.window.contains(now) {
            self.sb_stats.nr_sacks += 1;
        }
        let (Some(front), Some(back)) = (
            self.sent.front().map(|s| s.tsn),
            self.sent.back().map(|s| s.tsn),
        ) else {
            return;
        };
        // Blocks come in TSN order (a receiver's, as the draft's): the first run a
        // block may touch is looked for from the previous block's on.
        let (mut cursor, mut prev_first) = (0, front);
        for &(start, end) in nr_gaps {
            let first = sack.cum_tsn_ack.wrapping_add(u32::from(start));
            let last = sack.cum_tsn_ack.wrapping_add(u32::from(end));
            // TSNs in `sent` are consecutive from its front.
            let first = if tsn_lt(first, front) { front } else { first };
            let last = if tsn_lt(back, last) { back } else { last };
            if !tsn_lt(last, first) {
                // A short block an earlier NR-SACK freed whole (most blocks when CMT
                // reorders unordered data: one or two TSNs, repeated SACK after SACK)
                // lies inside one run already (runs are the freed chunks, merged), so
                // the runs stay as they are: two flags are cheaper to read than the
                // runs' search. Skipping it leaves `cursor` valid for later blocks.
                if self.nr_block_freed(front, (first, last)) {
                    continue;
                }
                if tsn_lt(first, prev_first) {
                    cursor = 0;
                }
                prev_first = first;
                cursor = self.free_run(now, front, (first, last), cursor);
            }
        }
    }

    /// Whether the chunks `first..=last` (within `sent`, whose front is `front`) are all
    /// freed already, looked at only for blocks of up to `SHORT_NR_BLOCK` TSNs (false
    /// for longer ones: their runs are searched instead).
    #[inline]
    fn nr_block_freed(&self, front: u32, (first, last): (u32, u32)) -> bool {
        /// Longest block whose freed flags are read before the runs are searched.
        const SHORT_NR_BLOCK: u32 = 4;
        let lo = first.wrapping_sub(front);
        let len = last.wrapping_sub(first);
        len < SHORT_NR_BLOCK
            && (lo..=lo + len).all(|i| self.sent.get(i as usize).is_some_and(|s| s.nr_freed))
    }

    /// Frees TSNs `first..=last` (within `sent`, whose front is `front`): the parts no
    /// run covers are marked, and the runs they overlap or touch become one. Runs
    /// before index `from` end below `first`. Returns the index of the run now
    /// holding `first..=last`.
    fn free_run(
        &mut self,
        now: SimTime,
        front: u32,
        (first, last): (u32, u32),
        from: usize,
    ) -> usize {
        let off = |t: u32| t.wrapping_sub(front);
        let (lo, hi) = (off(first), off(last));
        let runs = &self.nr_runs;
        let mut i = from;
        while i < runs.len() && off(runs[i].1) + 1 < lo {
            i += 1;
        }
        let mut j = i;
        while j < runs.len() && off(runs[j].0) <= hi + 1 {
            j += 1;
        }
        let (mut at, mut merged) = (lo, (lo, hi));
        for k in i..j {
            let (s, e) = (off(self.nr_runs[k].0), off(self.nr_runs[k].1));
            merged = (merged.0.min(s), merged.1.max(e));
            if s > at && at <= hi {
                self.nr_mark_freed(now, at, (s - 1).min(hi));
            }
            at = at.max(e + 1);
        }
        if at <= hi {
            self.nr_mark_freed(now, at, hi);
        }
        // Most blocks repeat or extend the run an earlier NR-SACK left: it changes in
        // place; runs joined by this block go; a block apart from all is inserted.
        let run = (front.wrapping_add(merged.0), front.wrapping_add(merged.1));
        if i == j {
            self.nr_runs.insert(i, run);
        } else {
            self.nr_runs[i] = run;
            if j > i + 1 {
                self.nr_runs.drain(i + 1..j);
            }
        }
        i
    }

    /// Marks the chunks at `sent[lo..=hi]` freed (none of them was).
    fn nr_mark_freed(&mut self, now: SimTime, lo: u32, hi: u32) {
        let in_window = self.window.contains(now);
        for i in lo..=hi {
            let s = &mut self.sent[i as usize];
            debug_assert!(!s.nr_freed, "nr_runs out of step with the freed chunks");
            s.nr_freed = true;
            self.nr_freed += u64::from(s.chunk_len);
            if in_window {
                self.sb_stats.nr_freed_bytes += u64::from(s.chunk_len);
            }
        }
    }

    /// A chunk leaves the retransmission buffer (cumulative ack): its NR-freed bytes
    /// are no longer counted apart, and it leaves the front run (chunks leave in TSN
    /// order, so a freed one is the lowest TSN of the runs).
    #[inline]
    pub(super) fn forget_nr_freed(&mut self, s: &Sent) {
        if s.nr_freed {
            self.nr_freed -= u64::from(s.chunk_len);
            if let Some(r) = self.nr_runs.front_mut() {
                debug_assert_eq!(r.0, s.tsn, "nr_runs out of step with the freed chunks");
                if r.0 == r.1 {
                    self.nr_runs.pop_front();
                } else {
                    r.0 = r.0.wrapping_add(1);
                }
            }
        }
    }

    pub fn send_buffer_stats(&self) -> &SendBufferStats {
        &self.sb_stats
    }
}

/// summary.json keys of the send buffer and NR-SACK, only for a flow that sets
/// `send_buffer`, `nr_sack` or `buffer_splitting` (every other summary is unchanged).
pub fn add_summary_keys(flow: &mut serde_json::Value, out: Option<&Outbound>) {
    let Some(o) = out else { return };
    let k = o.k.send_buffer;
    if k == SendBufferKnobs::default() {
        return;
    }
    let s = &o.sb_stats;
    if let Some(map) = flow.as_object_mut() {
        map.insert("send_buffer_full_stops".into(), s.full_stops.into());
        map.insert("nr_sacks_received".into(), s.nr_sacks.into());
        map.insert("nr_freed_bytes".into(), s.nr_freed_bytes.into());
        map.insert("buffer_split_stops".into(), s.split_stops.into());
    }
}

impl Outbound {
    /// Offsets from `cum` of the chunks earlier NR gap blocks freed: they stay acked
    /// whatever a later (or reordered) NR-SACK says, since the receiver will not renege
    /// on them (ns-2.35 never un-acks a chunk with `useNonRenegSacks_`).
    pub fn nr_freed_offsets(&self, cum: u32) -> Vec<(u16, u16)> {
        if self.nr_freed == 0 {
            return Vec::new();
        }
        // Runs the cumulative TSN reached into start just above it.
        let above = self
            .nr_runs
            .iter()
            .filter(|&&(_, e)| tsn_lt(cum, e))
            .map(|&(s, e)| {
                let s = if tsn_lt(cum, s) {
                    s
                } else {
                    cum.wrapping_add(1)
                };
                (s, e)
            });
        block_offsets(cum, above)
    }
}

#[cfg(test)]
#[path = "send_buffer_tests.rs"]
mod tests;
