//! The sender's application (docs/models/tcp.md "Applications"): bulk (always
//! backlogged, like ns-2's FTP, until the flow's `stop`), finite (`bytes`), or
//! `stream_traffic`'s messages (`messages.rs`), which write into the send buffer what
//! fits. The sender sees only `curseq`, the segments handed over so far.

use super::sender::{Phase, TcpSender};
use crate::sim::SimTime;

/// Sentinel for "the application never runs out of data" (ns-2 `TCP_MAXSEQ`).
pub(super) const BULK: i64 = i64::MAX / 4;

impl TcpSender {
    /// Replaces the bulk application with `stream_traffic`'s sources.
    pub fn set_messages(&mut self, m: super::messages::TcpMessages) {
        self.messages = Some(Box::new(m));
    }

    /// The application starts: a bulk or finite one hands over all it has.
    pub(super) fn app_begin(&mut self) {
        self.curseq = self.app_total;
        if self.messages.is_some() {
            // The message application starts with the connection (as SCTP's with the
            // association): nothing is written before it is established.
            self.curseq = 0;
        }
    }

    /// `stream_traffic`: the application writes what fits into the send buffer; the
    /// segments it handed over are the whole ones written (`tcp/messages.rs`). True
    /// when that gave new segments. `acked`: the highest segment acknowledged.
    pub(super) fn app_write(&mut self, acked: i64) -> bool {
        if self.phase != Phase::Established {
            return false;
        }
        let Some(m) = self.messages.as_mut() else {
            return false;
        };
        let mss = self.cfg.map.mss;
        let acked = ((acked + 1).max(0) as u64) * mss;
        let segs = (m.refill(self.now, acked) / mss) as i64;
        let grew = segs > self.curseq;
        self.curseq = segs;
        grew
    }

    /// A bulk application's `stop`.
    pub(super) fn app_stop_at(&mut self, now: SimTime) {
        if let (Some(stop), true) = (self.cfg.stop, self.curseq == BULK) {
            if now >= stop {
                // The application stops offering data; what was sent is still delivered.
                self.curseq = self.t_seqno.max(self.maxseq + 1);
                self.app_total = self.curseq;
            }
        }
    }

    /// When the application next has something to do: a message source's next step,
    /// or a bulk application's stop.
    pub(super) fn app_wakeup(&self) -> Option<SimTime> {
        let messages = match (&self.messages, self.phase == Phase::Established) {
            (Some(m), true) => m.next_wakeup(),
            _ => None,
        };
        let stop = if self.curseq == BULK {
            self.cfg.stop
        } else {
            None
        };
        match (messages, stop) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A finite transfer is done when every segment is acked: the timer stops.
    pub(super) fn check_all_acked(&mut self) {
        let finite = self.app_total != BULK && self.curseq == self.app_total;
        if finite && self.highest_ack >= self.curseq - 1 && self.stats.all_acked_at.is_none() {
            self.stats.all_acked_at = Some(self.now);
            self.rtx_deadline = None;
        }
    }
}
