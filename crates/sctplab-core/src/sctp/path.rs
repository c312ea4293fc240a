//! Per-destination sender state (RFC 9260 sec. 6.3, 7.2): cwnd, ssthresh,
//! partial_bytes_acked, bytes outstanding, the RTO estimator and the T3-rtx timer live
//! on the path, not the association, so multihoming is an extension, not a rewrite.

use crate::sim::{SimDuration, SimTime};
use std::cell::Cell;

/// Reachability of a destination (RFC 9260 sec. 8.2; RFC 7829 adds PotentiallyFailed).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PathState {
    #[default]
    Active,
    /// RFC 7829 (SCTP-PF): error count above PotentiallyFailed.Max.Retrans; probed by
    /// heartbeats and not used for data while an active destination exists.
    PotentiallyFailed,
    Inactive,
}

impl PathState {
    /// The summary's word for the state: CONTRACTS knows "active" and "inactive"; a
    /// potentially-failed path has not been declared failed, so it reports "active".
    pub fn contract_name(self) -> &'static str {
        match self {
            PathState::Inactive => "inactive",
            PathState::Active | PathState::PotentiallyFailed => "active",
        }
    }
}

/// Per-destination figures for the summary (`Association::paths`).
#[derive(Clone, Debug, PartialEq)]
pub struct PathStats {
    pub data_packets_sent: u64,
    /// DATA chunks retransmitted to this destination.
    pub retransmissions: u64,
    /// HEARTBEAT chunks this end sent to this destination.
    pub heartbeats: u64,
    /// User data bytes newly acknowledged (cumulatively or by a gap block) that were
    /// last sent to this destination (CONTRACTS.md `bytes_acked`).
    pub bytes_acked: u64,
    pub srtt_s: Option<f64>,
    pub rto_s: f64,
    pub state: PathState,
    /// First time the path was marked inactive.
    pub failed_at: Option<SimTime>,
}

#[derive(Clone, Debug)]
pub struct Path {
    /// The peer's address this path leads to.
    pub addr: [u8; 4],
    /// The "MTU" cwnd steps are counted in: the bytes of chunks one packet can carry
    /// (PMTU - 12 common header - 20 IPv4), as ns-2's `uiMaxDataSize`.
    pub mtu: f64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub pba: f64,
    /// Chunk bytes sent here and neither acked nor gap-acked (ns-2 `iOutstandingBytes`;
    /// chunks marked for retransmission are taken out until resent).
    pub outstanding: f64,
    pub rto: Rto,
    pub t3: Option<SimTime>,
    /// TSN timed for the RTT sample in progress and its send time (one per round trip).
    pub rtt_pending: Option<(u32, SimTime)>,
    /// Consecutive errors (T3 expiries, unanswered heartbeats), RFC 9260 sec. 8.2.
    pub error_count: u32,
    pub state: PathState,
    /// Time of the last DATA packet sent to this destination.
    pub last_send: SimTime,
    /// Start of the current idle period for cwnd decay (RFC 9260 7.2.1): the last DATA
    /// sent here or the last halving since; None before the first DATA.
    pub idle_base: Option<SimTime>,
    /// Start of the current heartbeat period: the last DATA or HEARTBEAT sent here
    /// (RFC 9260 8.3 "idle"; ns-2 `dIdleSince`).
    pub hb_base: SimTime,
    /// This period's jitter as a fraction of RTO, uniform in [-0.5, 0.5).
    pub hb_jitter: f64,
    /// A HEARTBEAT is out and unanswered: the deadline for its ACK (one RTO).
    pub hb_pending: Option<SimTime>,
    /// Nonce of the last HEARTBEAT sent here; an ACK must echo it.
    pub hb_nonce: u64,
    /// ns-2's "UNCONFIRMED" destinations: a HEARTBEAT-ACK has not been seen yet.
    pub confirmed: bool,
    pub data_packets_sent: u64,
    pub retransmissions: u64,
    pub heartbeats: u64,
    pub bytes_acked: u64,
    pub failed_at: Option<SimTime>,
    /// When the destination last became potentially failed (CMT-PF's `dPFSince`).
    pub pf_since: SimTime,
    /// The destination's congestion controller other than Reno (`None`: SCTP's own
    /// rules, the `variant`'s knobs, apply; `path_cc`).
    pub cc: Option<Box<super::path_cc::PathCc>>,
    /// The peer deleted this address (RFC 5061, `sctp/assoc/asconf.rs`): inactive for
    /// good, never probed or revived.
    pub deleted: bool,
    /// `hb_idle`'s last answer and the RTO and jitter (bits) it was computed from: the
    /// heartbeat deadline is asked for on every poll, its inputs change once a round
    /// trip or heartbeat.
    hb_idle_memo: Cell<Option<(SimDuration, u64, SimDuration)>>,
}

/// RTO estimator of RFC 9260 sec. 6.3.1 (alpha 1/8, beta 1/4), continuous time.
#[derive(Clone, Debug)]
pub struct Rto {
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    /// `rto` rounded to the nanosecond, kept beside it: it is read on every deadline
    /// poll (heartbeats, T3 starts) and changes only with a sample or a back-off.
    current: SimDuration,
    min: f64,
    max: f64,
}

impl Rto {
    pub fn new(initial: SimDuration, min: SimDuration, max: SimDuration) -> Self {
        let rto = initial.as_secs_f64();
        Rto {
            srtt: None,
            rttvar: 0.0,
            rto,
            current: SimDuration::from_secs_f64(rto),
            min: min.as_secs_f64(),
            max: max.as_secs_f64(),
        }
    }

    pub fn sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (srtt - r).abs();
                self.srtt = Some(0.875 * srtt + 0.125 * r);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.set((srtt + 4.0 * self.rttvar).clamp(self.min, self.max));
    }

    /// RFC 9260 sec. 6.3.3 E2: RTO doubles on each T3 expiry, up to RTO.Max.
    pub fn back_off(&mut self) {
        self.set((self.rto * 2.0).min(self.max));
    }

    fn set(&mut self, rto: f64) {
        self.rto = rto;
        self.current = SimDuration::from_secs_f64(rto);
    }

    #[inline]
    pub fn current(&self) -> SimDuration {
        self.current
    }

    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
}

impl Path {
    pub fn new(addr: [u8; 4], mtu: u64, cwnd: f64, ssthresh: f64, rto: Rto) -> Self {
        Path {
            addr,
            mtu: mtu as f64,
            cwnd,
            ssthresh,
            pba: 0.0,
            outstanding: 0.0,
            rto,
            t3: None,
            rtt_pending: None,
            error_count: 0,
            state: PathState::Active,
            last_send: SimTime::ZERO,
            idle_base: None,
            hb_base: SimTime::ZERO,
            hb_jitter: 0.0,
            hb_pending: None,
            hb_nonce: 0,
            confirmed: true,
            data_packets_sent: 0,
            retransmissions: 0,
            heartbeats: 0,
            bytes_acked: 0,
            failed_at: None,
            pf_since: SimTime::ZERO,
            cc: None,
            deleted: false,
            hb_idle_memo: Cell::new(None),
        }
    }

    /// RTO x (1 + jitter), rounded to the nanosecond: how long an idle, confirmed
    /// destination waits beyond HB.interval for its HEARTBEAT (RFC 9260 8.3), computed
    /// from the RTO as a `SimDuration` as the association's other timers use it.
    pub fn hb_idle(&self) -> SimDuration {
        let rto = self.rto.current();
        let jitter = self.hb_jitter.to_bits();
        match self.hb_idle_memo.get() {
            Some((r, j, d)) if r == rto && j == jitter => d,
            _ => {
                let d = SimDuration::from_secs_f64(rto.as_secs_f64() * (1.0 + self.hb_jitter));
                self.hb_idle_memo.set(Some((rto, jitter, d)));
                d
            }
        }
    }

    pub fn stats(&self) -> PathStats {
        PathStats {
            data_packets_sent: self.data_packets_sent,
            retransmissions: self.retransmissions,
            heartbeats: self.heartbeats,
            bytes_acked: self.bytes_acked,
            srtt_s: self.rto.srtt(),
            rto_s: self.rto.current().as_secs_f64(),
            state: self.state,
            failed_at: self.failed_at,
        }
    }

    /// Usable for data: active and confirmed (RFC 9260 5.4: only HEARTBEATs go to an
    /// unconfirmed address).
    pub fn is_active(&self) -> bool {
        self.state == PathState::Active && self.confirmed
    }
}

/// The peer's destinations (RFC 9260 sec. 6.4, 8): the primary, the one new data goes
/// to, and the association-wide error counter (sec. 8.1).
#[derive(Clone, Debug, Default)]
pub struct PathSet {
    pub paths: Vec<Path>,
    pub primary: usize,
    /// Destination of new data (ns-2 `spNewTxDest`).
    pub data_dest: usize,
    /// Changes of `data_dest`.
    pub failovers: u64,
    pub assoc_errors: u32,
    /// Scratch per destination for SACK processing (kept to avoid allocating).
    pub(crate) scratch: Vec<AckScratch>,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AckScratch {
    pub newly: f64,
    /// User data bytes of the chunks in `newly` (`bytes_acked`).
    pub payload: u64,
    /// The RTT sample this SACK gave for the destination's controller (`cc_rtt_sample`).
    pub rtt: Option<f64>,
    /// The newest packet record among the chunks newly acked here (`path_bbr`).
    pub rec: u32,
    pub in_ca: bool,
    pub first_outstanding_acked: bool,
    pub unacked_seen: bool,
    pub has_unacked: bool,
    pub has_any: bool,
    pub clear_errors: bool,
}

impl PathSet {
    pub fn new(paths: Vec<Path>) -> Self {
        let n = paths.len();
        PathSet {
            paths,
            primary: 0,
            data_dest: 0,
            failovers: 0,
            assoc_errors: 0,
            scratch: vec![AckScratch::default(); n],
        }
    }

    pub fn index_of(&self, addr: [u8; 4]) -> Option<usize> {
        self.paths.iter().position(|p| p.addr == addr)
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The next active destination after `i` in list order, wrapping, `i` itself last
    /// (ns-2 `GetNextDest`'s round robin).
    pub fn next_active(&self, i: usize) -> Option<usize> {
        let n = self.paths.len();
        (1..=n)
            .map(|k| (i + k) % n)
            .find(|&j| self.paths[j].is_active())
    }

    /// RFC 7829 sec. 3.2: with no active destination, the potentially-failed one
    /// with the fewest errors (ties: the earlier in the list).
    pub fn best_pf(&self) -> Option<usize> {
        self.paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.state == PathState::PotentiallyFailed)
            .min_by_key(|(_, p)| p.error_count)
            .map(|(j, _)| j)
    }

    /// Chooses the destination of new data after a change of state (RFC 9260 6.4, 8.2;
    /// RFC 7829 sec. 3.2): the primary when active (unless `return_to_primary` is off
    /// and data has moved to another active one), else the current one while active,
    /// else the next active one, else the best potentially-failed one. With every
    /// destination inactive ("dormant"), ns-2 hops to the next one in the list when the
    /// current one has just failed (`dormantAction_ 0`); RFC presets stay put.
    pub fn reselect(
        &mut self,
        return_to_primary: bool,
        dormant_hop: bool,
        just_failed: Option<usize>,
    ) {
        if self.paths.is_empty() {
            return;
        }
        let cur = self.data_dest;
        let p = self.primary;
        let next = if self.paths[p].is_active()
            && (return_to_primary || cur == p || !self.paths[cur].is_active())
        {
            p
        } else if self.paths[cur].is_active() {
            cur
        } else if let Some(j) = self.next_active(cur) {
            j
        } else if self.paths[cur].state == PathState::PotentiallyFailed
            && self
                .best_pf()
                .is_some_and(|j| self.paths[j].error_count == self.paths[cur].error_count)
        {
            cur
        } else if let Some(j) = self.best_pf() {
            j
        } else if dormant_hop && just_failed == Some(cur) {
            (cur + 1) % self.paths.len()
        } else {
            cur
        };
        if next != cur {
            self.data_dest = next;
            self.failovers += 1;
        }
    }

    /// Where a retransmission of a chunk last sent to `last` goes: an active alternate
    /// if `alternate` and one exists (RFC 9260 6.4), else `last` while it is active,
    /// else any active destination, else the best potentially-failed one, else (every
    /// destination inactive) `last`, or with `dormant_hop` the next one in the list:
    /// ns-2.35 `RtxMarkedChunks` takes `GetNextDest` of the chunk's destination, which
    /// in the dormant state moves on whatever the next one's state (`dormantAction_ 0`),
    /// so retransmissions alternate between dead destinations.
    pub fn rtx_dest(&self, last: usize, alternate: bool, dormant_hop: bool) -> usize {
        if alternate {
            if let Some(j) = self.next_active(last).filter(|&j| j != last) {
                return j;
            }
        }
        if self.paths[last].is_active() {
            return last;
        }
        match self.next_active(last).or_else(|| self.best_pf()) {
            Some(j) => j,
            None if dormant_hop => (last + 1) % self.paths.len(),
            None => last,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc9260_6_3_1() {
        let mut r = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        assert_eq!(r.current(), SimDuration::from_secs(3));
        // R = 0.5 s: SRTT 0.5, RTTVAR 0.25, RTO 1.5 s.
        r.sample(0.5);
        assert_eq!(r.current(), SimDuration::from_millis(1500));
        // R' = 0.3 s: RTTVAR = 0.75*0.25 + 0.25*0.2 = 0.2375; SRTT = 0.875*0.5 + 0.125*0.3
        // = 0.475; RTO = 0.475 + 0.95 = 1.425 s.
        r.sample(0.3);
        assert_eq!(r.current(), SimDuration::from_millis(1425));
        // Small RTTs are held at RTO.Min = 1 s; backoff doubles up to RTO.Max.
        let mut r = Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        );
        r.sample(0.01);
        assert_eq!(r.current(), SimDuration::from_secs(1));
        for _ in 0..10 {
            r.back_off();
        }
        assert_eq!(r.current(), SimDuration::from_secs(60));
    }
}
