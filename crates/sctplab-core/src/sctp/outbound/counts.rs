//! Tallies of the retransmission buffer, kept as it changes so that common SACKs and
//! the checks for marked chunks need not walk it.

use super::*;

/// What `Outbound::sent` holds, tallied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SentCounts {
    /// Chunks marked for retransmission.
    pub(super) marked: u32,
    /// Chunks acked by a gap block.
    pub(super) gap_acked: u32,
    /// The sum of the `chunk_len` of every chunk held.
    pub(super) bytes: u64,
    /// The sum of the `chunk_len` of the gap-acked ones.
    pub(super) gap_acked_bytes: u64,
    /// Chunks per destination index (last sent there).
    pub(super) per_dest: Vec<u32>,
    /// `chunk_len` of the marked chunks per destination index.
    pub(super) marked_bytes: Vec<u64>,
    /// Gap-acked chunks per destination index.
    pub(super) gap_per_dest: Vec<u32>,
    /// Chunks sent more than once (CMT's search for a retransmitted pseudo-cumulative
    /// TSN can stop early when there are none, `cmt/lists.rs`).
    pub(super) retransmitted: u32,
}

impl SentCounts {
    /// The same tallies counted from scratch.
    pub(super) fn of<'a>(sent: impl Iterator<Item = &'a Sent>) -> SentCounts {
        let mut c = SentCounts::default();
        for s in sent {
            c.add(s);
            if s.gap_acked {
                c.gap_ack(s, true);
            }
            if s.mark.is_some() {
                c.mark(s);
            }
            if s.txs > 1 {
                c.retransmitted += 1;
            }
        }
        c
    }

    /// A chunk gets a retransmission mark.
    pub(super) fn mark(&mut self, s: &Sent) {
        self.marked += 1;
        if s.dest >= self.marked_bytes.len() {
            self.marked_bytes.resize(s.dest + 1, 0);
        }
        self.marked_bytes[s.dest] += u64::from(s.chunk_len);
    }

    /// A chunk loses its retransmission mark.
    pub(super) fn unmark(&mut self, s: &Sent) {
        self.marked -= 1;
        self.marked_bytes[s.dest] -= u64::from(s.chunk_len);
    }

    /// A chunk is gap-acked (`on`) or no longer gap-acked.
    pub(super) fn gap_ack(&mut self, s: &Sent, on: bool) {
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
    pub(super) fn has_unacked(&self, d: usize) -> bool {
        self.per_dest.get(d).copied().unwrap_or(0) > self.gap_per_dest.get(d).copied().unwrap_or(0)
    }

    /// A chunk enters `sent` (unmarked, not gap-acked).
    pub(super) fn add(&mut self, s: &Sent) {
        self.bytes += u64::from(s.chunk_len);
        if s.dest >= self.per_dest.len() {
            self.per_dest.resize(s.dest + 1, 0);
        }
        self.per_dest[s.dest] += 1;
    }

    /// A chunk leaves `sent`.
    pub(super) fn remove(&mut self, s: &Sent) {
        self.bytes -= u64::from(s.chunk_len);
        self.per_dest[s.dest] -= 1;
        if s.gap_acked {
            self.gap_ack(s, false);
        }
        if s.mark.is_some() {
            self.unmark(s);
        }
        if s.txs > 1 {
            self.retransmitted -= 1;
        }
    }

    /// A chunk is sent again (`txs` about to go up).
    pub(super) fn resent(&mut self, s: &Sent) {
        if s.txs == 1 {
            self.retransmitted += 1;
        }
    }

    /// A chunk moves from destination `from` to `to`.
    pub(super) fn moved(&mut self, from: usize, to: usize) {
        self.per_dest[from] -= 1;
        if to >= self.per_dest.len() {
            self.per_dest.resize(to + 1, 0);
        }
        self.per_dest[to] += 1;
    }

    /// Trailing zero counts do not matter: compare as if both were equally long.
    pub(super) fn same_as(&self, other: &SentCounts) -> bool {
        let n = self.per_dest.len().max(other.per_dest.len());
        let at = |v: &Vec<u32>, i: usize| v.get(i).copied().unwrap_or(0);
        let m = self.marked_bytes.len().max(other.marked_bytes.len());
        let at64 = |v: &Vec<u64>, i: usize| v.get(i).copied().unwrap_or(0);
        self.marked == other.marked
            && self.retransmitted == other.retransmitted
            && self.gap_acked == other.gap_acked
            && self.bytes == other.bytes
            && self.gap_acked_bytes == other.gap_acked_bytes
            && (0..n).all(|i| at(&self.per_dest, i) == at(&other.per_dest, i))
            && (0..m).all(|i| at64(&self.marked_bytes, i) == at64(&other.marked_bytes, i))
            && (0..n).all(|i| at(&self.gap_per_dest, i) == at(&other.gap_per_dest, i))
    }
}
