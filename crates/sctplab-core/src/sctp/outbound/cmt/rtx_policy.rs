//! Where a retransmission goes under CMT (ToN 2006 sec. V; ns-2.35
//! `SctpCMTAgent::SelectRtxDest`), and CMT-PF's choice among potentially-failed
//! destinations when no other is left (`SelectFromPFDests`).

use super::*;
use crate::sctp::path::PathState;

/// ns-2.35's `CmtRtxPolicy_E` (scenario key `cmt_rtx_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtxPolicy {
    /// RTX_TO_SAME: the destination the chunk was last sent to.
    Same,
    /// RTX_ASAP: any active destination with cwnd room, ties by coin flips.
    Asap,
    /// RTX_CWND: the active destination with the largest cwnd.
    Cwnd,
    /// RTX_SSTHRESH: the active destination with the largest ssthresh.
    Ssthresh,
    /// RTX_LOSSRATE: the destination with the lowest loss rate.
    Lossrate,
}

impl Outbound {
    /// Bytes outstanding on `d` not counting chunks marked for retransmission (ns-2.35
    /// `RtxMarkedChunks` takes them out while it runs).
    pub(super) fn effective_outstanding(&self, ps: &PathSet, d: usize) -> f64 {
        ps.paths[d].outstanding - self.marked_bytes(d)
    }

    /// May a retransmission packet go to `d` now: its cwnd has room, or a fast
    /// retransmit marked a chunk sent there and this call has sent it no packet yet
    /// (ns-2.35's "modified rtx mechanisms": one packet regardless of cwnd for the
    /// destination that suffered the loss).
    fn rtx_room(&self, ps: &PathSet, d: usize, limit_one: bool) -> bool {
        let Some(c) = self.cmt.as_deref() else {
            return false;
        };
        let cd = &c.dests[d];
        (limit_one && cd.rtx_limit_one && cd.packets_sent < 1)
            || self.effective_outstanding(ps, d) < ps.paths[d].cwnd
    }

    /// The destination for a retransmission of a chunk last sent to `last` under the
    /// flow's policy, or None when the policy's choice has no room now (the chunk waits
    /// for a later call). `limit_one`: fast retransmit's one packet.
    pub(super) fn cmt_rtx_dest(
        &mut self,
        ps: &mut PathSet,
        last: usize,
        limit_one: bool,
    ) -> Option<usize> {
        let policy = self.cmt.as_deref()?.k.rtx_policy;
        let pf = self.cmt.as_deref()?.k.pf;
        let n = ps.len();
        let chosen = match policy {
            RtxPolicy::Asap => {
                let mut chosen = None;
                for d in 0..n {
                    if self.rtx_room(ps, d, limit_one) && ps.paths[d].is_active() {
                        let keep = chosen.is_some() && self.cmt.as_deref_mut()?.coin();
                        if !keep {
                            chosen = Some(d);
                        }
                    }
                }
                chosen
            }
            RtxPolicy::Same => {
                // ns-2.35 walks on from an inactive destination with `GetNextDest` (and
                // loops forever when every one is inactive; here the chunk stays put).
                let mut d = last;
                for _ in 0..n {
                    if ps.paths[d].state != PathState::Inactive {
                        break;
                    }
                    d = (d + 1) % n;
                }
                Some(d)
            }
            RtxPolicy::Cwnd | RtxPolicy::Ssthresh => {
                // CMT-PF: with every destination potentially failed, one of them is made
                // active and takes the retransmission whatever its cwnd.
                if pf {
                    if let Some(d) = self.cmt_select_from_pf(ps) {
                        return Some(d);
                    }
                }
                let mut best = 0.0;
                let mut chosen = None;
                for d in 0..n {
                    let p = &ps.paths[d];
                    if !p.is_active() {
                        continue;
                    }
                    let v = if policy == RtxPolicy::Cwnd {
                        p.cwnd
                    } else {
                        p.ssthresh
                    };
                    if best < v {
                        best = v;
                        chosen = Some(d);
                    } else if best == v && self.cmt.as_deref_mut()?.coin() {
                        chosen = Some(d);
                    }
                }
                chosen
            }
            RtxPolicy::Lossrate => {
                let mut best = 10.0;
                let mut chosen = None;
                for d in 0..n {
                    if ps.paths[d].state == PathState::Inactive {
                        continue;
                    }
                    let v = self.cmt.as_deref()?.loss_rate(d);
                    if best > v {
                        best = v;
                        chosen = Some(d);
                    } else if best == v && self.cmt.as_deref_mut()?.coin() {
                        chosen = Some(d);
                    }
                }
                chosen
            }
        };
        chosen.filter(|&d| self.rtx_room(ps, d, limit_one))
    }

    /// CMT-PF (ns-2.35 `SelectFromPFDests`): when every destination is potentially
    /// failed, the one with the fewest errors (ties: the most recently potentially
    /// failed, then a coin flip) becomes active with a cwnd of one MTU, its T3 and
    /// heartbeat stopped. None while any destination is in another state.
    pub(super) fn cmt_select_from_pf(&mut self, ps: &mut PathSet) -> Option<usize> {
        if ps
            .paths
            .iter()
            .any(|p| p.state != PathState::PotentiallyFailed)
        {
            return None;
        }
        let mut least = i64::from(self.k.path_max_retrans);
        let mut recent = SimTime::ZERO;
        let mut chosen = None;
        for d in 0..ps.len() {
            let p = &ps.paths[d];
            let errors = i64::from(p.error_count);
            let since = p.pf_since;
            if errors < least {
                (chosen, least, recent) = (Some(d), errors, since);
            } else if errors == least {
                if since > recent {
                    (chosen, least, recent) = (Some(d), errors, since);
                } else if since == recent && self.cmt.as_deref_mut()?.coin() {
                    chosen = Some(d);
                }
            }
        }
        let d = chosen?;
        let p = &mut ps.paths[d];
        p.t3 = None;
        p.hb_pending = None;
        p.cwnd = p.mtu;
        p.state = PathState::Active;
        Some(d)
    }
}

impl Cmt {
    /// RTX_LOSSRATE's loss rate of destination `d`. ns-2.35 reads a rate set from Tcl
    /// per destination (`SetLossrate`, 0 unless a script sets it); here it is measured:
    /// chunks sent there that had to be retransmitted over chunks sent there.
    pub(super) fn loss_rate(&self, d: usize) -> f64 {
        let cd = &self.dests[d];
        if cd.chunks_sent == 0 {
            0.0
        } else {
            cd.chunks_lost as f64 / cd.chunks_sent as f64
        }
    }
}
