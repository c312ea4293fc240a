//! Path management (RFC 9260 sec. 8; RFC 7829 sec. 3.2; ns-2.35 `sctp.cc` for the `ns2`
//! preset): heartbeats, HEARTBEAT-ACKs, errors per destination and the association,
//! potentially failed and inactive destinations, the destination of new data.

use super::hb_info::{decode_hb_info, encode_hb_info};
use super::*;

impl Association {
    /// Heartbeat periods start now on every destination.
    pub(super) fn start_heartbeats(&mut self) {
        let now = self.now;
        for j in 0..self.paths.len() {
            let jitter = self.rng.uniform() - 0.5;
            let p = &mut self.paths.paths[j];
            p.hb_base = now;
            p.hb_jitter = jitter;
        }
        if self.cfg.knobs.ns2_paths {
            if let Some(interval) = self.cfg.heartbeat {
                let rto = self.paths.paths[self.paths.primary].rto.current();
                let d = self.ns2_hb_time(rto, interval);
                self.timers.set(Timer::HeartbeatGen, now + d);
                self.hb_gen_started = now;
            }
        }
    }

    /// ns-2 `CalcHeartbeatTime`: RTO + HB.interval + U(-RTO/2, RTO/2).
    pub(super) fn ns2_hb_time(&mut self, rto: SimDuration, interval: SimDuration) -> SimDuration {
        let r = rto.as_secs_f64();
        SimDuration::from_secs_f64(interval.as_secs_f64() + r + r * (self.rng.uniform() - 0.5))
    }

    pub(super) fn send_heartbeat(&mut self, i: usize) {
        let ns2 = self.cfg.knobs.ns2_paths;
        let nonce = if ns2 {
            u64::from(self.rng.next_u64() as u32)
        } else {
            self.rng.next_u64()
        };
        let jitter = self.rng.uniform() - 0.5;
        let now = self.now;
        let port = match self.role {
            Role::Client => self.cfg.ports.1,
            Role::Server => self.cfg.ports.0,
        };
        let p = &mut self.paths.paths[i];
        let info = encode_hb_info(ns2, now, p.addr, port, nonce);
        p.heartbeats += 1;
        p.hb_base = now;
        p.hb_jitter = jitter;
        p.hb_nonce = nonce;
        p.hb_pending = Some(now + p.rto.current());
        let addr = p.addr;
        self.stats.heartbeats += 1;
        self.send_ctrl(self.peer_tag, Chunk::Heartbeat { info }, addr);
    }

    pub(super) fn on_heartbeat_ack(&mut self, info: &[u8]) {
        let Some((sent, addr, nonce)) = decode_hb_info(info) else {
            return;
        };
        let Some(i) = self.paths.index_of(addr) else {
            return;
        };
        // ns-2.35's HEARTBEAT carries only a timestamp and the destination
        // (`SctpHeartbeatChunk_S`), so `ProcessHeartbeatAckChunk` takes any ACK, also
        // one that comes after its HEARTBEAT timed out and a newer one went: it clears
        // the errors, makes the destination active and samples the RTT from the old
        // timestamp. Elsewhere only the ACK of the HEARTBEAT last sent counts (RFC 9260
        // 8.3: the nonce must match).
        if !self.cfg.knobs.ns2_paths && self.paths.paths[i].hb_nonce != nonce {
            return;
        }
        let now = self.now;
        let p = &mut self.paths.paths[i];
        let before = p.state;
        p.hb_pending = None;
        p.rto.sample(now.saturating_since(sent).as_secs_f64());
        p.confirmed = true;
        // RFC 9260 8.3: the ACK clears the destination's and the association's error
        // counters and makes an inactive (or potentially failed) destination active.
        self.paths.assoc_errors = 0;
        self.revive(i);
        self.cmt_heartbeat_ack(i, before);
        if self.state == State::Confirming && self.paths.paths.iter().all(|p| p.confirmed) {
            self.state = State::Established;
            self.start_heartbeats();
            self.kick();
        }
    }

    /// Destination `i` answered: errors cleared, active again, data may return.
    pub(super) fn revive(&mut self, i: usize) {
        let p = &mut self.paths.paths[i];
        if p.deleted {
            return;
        }
        p.error_count = 0;
        if self.cfg.knobs.ns2_paths {
            // ns-2.35 (`ProcessHeartbeatAckChunk`, `SendBufferDequeueUpTo`,
            // `ProcessGapAckBlocks`): the destination is active again and new data
            // returns only if it is the primary; a revived alternate does not draw it
            // away from a destination that is down. After every destination was down
            // (`GetNextDest` hopped the data and the primary with it), new data goes
            // on to the dead one until the primary answers, while each T3 there moves
            // its chunks to the revived one (`RtxMarkedChunks`).
            p.state = PathState::Active;
            let ps = &mut self.paths;
            if i == ps.primary && ps.data_dest != ps.primary {
                ps.data_dest = ps.primary;
                ps.failovers += 1;
                self.stats.failovers = ps.failovers;
            }
            return;
        }
        if p.state != PathState::Active {
            p.state = PathState::Active;
            let k = &self.cfg.knobs;
            self.paths.reselect(k.return_to_primary, k.ns2_paths, None);
            self.stats.failovers = self.paths.failovers;
        }
    }

    /// One more consecutive error on destination `i` (a T3 expiry or an unanswered
    /// HEARTBEAT): RFC 9260 8.2 (inactive above Path.Max.Retrans), RFC 7829 (potentially
    /// failed above PF.Max.Retrans), 8.1 (the association fails above
    /// Association.Max.Retrans). Returns false if the association was aborted.
    pub(super) fn path_error(&mut self, i: usize, counts_for_assoc: bool) -> bool {
        let now = self.now;
        let k = self.cfg.knobs.clone();
        let p = &mut self.paths.paths[i];
        // ns-2 (`Timeout`) counts and fails only destinations that are active (with
        // CMT-PF, `SctpCMTAgent::Timeout`, potentially failed ones too: they go on to
        // inactive above Path.Max.Retrans); unconfirmed ones are retried forever.
        if k.ns2_paths && (p.state == PathState::Inactive || !p.confirmed) {
            p.error_count += 1;
            self.ns2_primary_follows(i);
            return true;
        }
        p.error_count += 1;
        let mut just_failed = None;
        let before = p.state;
        if p.error_count > k.path_max_retrans {
            if p.state != PathState::Inactive {
                p.state = PathState::Inactive;
                p.failed_at.get_or_insert(now);
                just_failed = Some(i);
            }
        } else if p.confirmed
            && p.state == PathState::Active
            && k.pf_max_retrans.is_some_and(|pf| p.error_count > pf)
        {
            p.state = PathState::PotentiallyFailed;
            p.pf_since = now;
        }
        if p.state != before {
            self.paths
                .reselect(k.return_to_primary, k.ns2_paths, just_failed);
            self.stats.failovers = self.paths.failovers;
        }
        if k.ns2_paths {
            self.ns2_primary_follows(i);
        }
        if counts_for_assoc {
            self.paths.assoc_errors += 1;
            if self.paths.assoc_errors > self.cfg.association_max_retrans {
                self.abort();
                return false;
            }
        }
        true
    }

    /// ns-2.35 `Timeout`: after any timeout on the primary, the primary becomes the
    /// destination of new data. ns-2 guards this with `iErrorCount >
    /// changePrimaryThresh_`, whose default -1 ("never") is bound to an unsigned field
    /// and compared as an int, so the test always passes: once the primary has failed
    /// and data has moved, the alternate is the primary and data never returns to the
    /// first one when it recovers.
    pub(super) fn ns2_primary_follows(&mut self, i: usize) {
        if i == self.paths.primary {
            self.paths.primary = self.paths.data_dest;
        }
    }

    /// When the next HEARTBEAT to destination `i` is due under RFC 9260 8.3 (ns-2's
    /// single timer is handled apart): unconfirmed and potentially-failed destinations
    /// are probed at once, one HEARTBEAT per RTO (RFC 9260 5.4, RFC 7829 sec. 3.2);
    /// others once per HB.interval + RTO x (1 + jitter) of idleness.
    pub(super) fn hb_due(&self, i: usize) -> Option<SimTime> {
        if self.cfg.knobs.ns2_paths {
            return None;
        }
        let p = &self.paths.paths[i];
        if p.hb_pending.is_some() || p.deleted {
            return None;
        }
        // RFC 7829 sec. 3.2: a potentially-failed destination is probed whether or
        // not heartbeats are enabled (HB.interval only paces idle active ones).
        if !p.confirmed || p.state == PathState::PotentiallyFailed {
            return Some(p.hb_base);
        }
        let interval = self.cfg.heartbeat?;
        Some(p.hb_base + interval + p.hb_idle())
    }

    pub(super) fn heartbeat_timers(&mut self, now: SimTime) {
        if !matches!(self.state, State::Established | State::Confirming) {
            return;
        }
        let ns2 = self.cfg.knobs.ns2_paths;
        // Unanswered HEARTBEATs: one error each, RTO backed off (RFC 9260 8.3).
        for i in 0..self.paths.len() {
            if self.paths.paths[i].hb_pending.is_none_or(|t| now < t) {
                continue;
            }
            let p = &mut self.paths.paths[i];
            p.hb_pending = None;
            p.rto.back_off();
            let counts = if ns2 {
                p.state != PathState::Inactive
            } else {
                // RFC 9260 8.1: only heartbeats on the path in use for data count.
                i == self.paths.data_dest
            };
            if !self.path_error(i, counts) {
                return;
            }
            // ns-2 `Timeout` (HEARTBEAT): the next one goes at once, so an unanswered
            // destination is probed once per (backed-off) RTO; with heartbeats off only
            // an unconfirmed or (CMT-PF) potentially-failed one.
            let p = &self.paths.paths[i];
            if ns2
                && (self.cfg.heartbeat.is_some()
                    || !p.confirmed
                    || p.state == PathState::PotentiallyFailed)
            {
                self.send_heartbeat(i);
            }
        }
        for i in 0..self.paths.len() {
            if self.hb_due(i).is_some_and(|t| now >= t) {
                self.send_heartbeat(i);
            }
        }
        let hb_gen = self.timers.get(Timer::HeartbeatGen);
        if let (Some(fire), Some(interval)) = (hb_gen, self.cfg.heartbeat) {
            let started = self.hb_gen_started;
            if now >= fire && self.state == State::Established {
                // ns-2 `HeartbeatGenTimerExpiration`: the destination idle the longest
                // gets a HEARTBEAT if it has been idle since the timer started.
                let mut j = 0;
                for (k, p) in self.paths.paths.iter().enumerate() {
                    if p.hb_base < self.paths.paths[j].hb_base {
                        j = k;
                    }
                }
                if self.paths.paths[j].hb_base <= started {
                    self.send_heartbeat(j);
                }
                let rto = self.paths.paths[j].rto.current();
                let d = self.ns2_hb_time(rto, interval);
                self.timers.set(Timer::HeartbeatGen, now + d);
                self.hb_gen_started = now;
            }
        }
    }

    /// CMT (ns-2.35 `SctpCMTAgent::ProcessChunk`, HEARTBEAT-ACK): a destination that
    /// was potentially failed comes back with a cwnd of `cmtPFCwnd_` MTUs; one that was
    /// potentially failed or inactive gets its outstanding chunks retransmitted at once
    /// (`TimeoutRtx`), and with nothing left marked new data may go.
    fn cmt_heartbeat_ack(&mut self, i: usize, before: PathState) {
        let Some(k) = self.cfg.knobs.cmt else { return };
        if self.state != State::Established || before == PathState::Active {
            return;
        }
        if before == PathState::PotentiallyFailed && k.pf {
            let p = &mut self.paths.paths[i];
            p.cwnd = f64::from(k.pf_cwnd_mtus) * p.mtu;
        }
        if let Some(out) = self.out.as_mut() {
            out.cmt_path_returned(self.now, i, &mut self.paths);
        }
    }
}
