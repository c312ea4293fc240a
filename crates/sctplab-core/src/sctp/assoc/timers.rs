//! What happens when a timer of the association expires: the flow's start and stop,
//! T1-init/T1-cookie (RFC 9260 5.1, 5.2), T2-shutdown (9.2) and T3-rtx (6.3.3) per
//! destination. `handle_timeout` (assoc.rs) dispatches from the timer table
//! (`sctp/timer.rs`) and the paths; heartbeats are in paths.rs.

use super::*;

impl Association {
    /// The flow's stop time: the application offers no more data (a finite transfer
    /// then shuts down once everything is acknowledged).
    pub(super) fn on_stop_time(&mut self) {
        self.timers.stop(Timer::Stop);
        self.stop_pending = true;
        if let Some(out) = self.out.as_mut() {
            out.app.stop();
        }
        self.maybe_shutdown();
    }

    /// T1 expired: the INIT or COOKIE-ECHO again, RTO doubled, until Max.Init.Retransmits.
    pub(super) fn on_t1(&mut self, now: SimTime) {
        self.t1_retries += 1;
        if self.t1_retries > self.cfg.max_init_retrans {
            self.timers.stop(Timer::T1Init);
            self.state = State::Done;
            self.stats.aborted = true;
        } else {
            match self.state {
                State::CookieWait => self.send_init(),
                State::CookieEchoed => {
                    if let Some(cookie) = self.last_cookie.clone() {
                        self.send_ctrl(
                            self.peer_tag,
                            Chunk::CookieEcho { cookie },
                            self.cfg.primary_peer,
                        );
                    }
                    self.timers.set(Timer::T1Init, now + self.t1_timeout());
                }
                _ => self.timers.stop(Timer::T1Init),
            }
        }
    }

    /// T2-shutdown expired: the SHUTDOWN or SHUTDOWN-ACK again, until
    /// Association.Max.Retrans.
    pub(super) fn on_t2(&mut self, now: SimTime) {
        self.t2_retries += 1;
        let resend = match self.state {
            State::ShutdownSent => Some(Chunk::Shutdown {
                cum_tsn_ack: self.shutdown_cum_ack(),
            }),
            State::ShutdownAckSent => Some(Chunk::ShutdownAck),
            _ => None,
        };
        match resend {
            Some(_) if self.t2_retries > self.cfg.association_max_retrans => {
                // RFC 9260 9.2: the peer is unreachable; the TCB goes away.
                self.stop_timers();
                self.stats.aborted = true;
            }
            Some(chunk) => {
                let dst = self.default_dest();
                self.send_ctrl(self.peer_tag, chunk, dst);
                self.timers.set(Timer::T2Shutdown, now + self.t2_timeout());
            }
            None => self.timers.stop(Timer::T2Shutdown),
        }
    }

    /// T3-rtx expiries on every destination whose timer has come. Returns false if the
    /// association was aborted.
    pub(super) fn t3_expiries(&mut self, now: SimTime) -> bool {
        for i in 0..self.paths.len() {
            if self.paths.paths[i].t3.is_none_or(|t| now < t) {
                continue;
            }
            let has_data = self.out.as_ref().is_some_and(|o| o.has_chunks_on(i));
            if has_data {
                if let Some(out) = self.out.as_mut() {
                    out.count_timeout(now);
                }
                let p = &self.paths.paths[i];
                // ns-2 counts association errors only on active (CMT-PF: and
                // potentially failed) destinations.
                let counts = !self.cfg.knobs.ns2_paths || p.state != PathState::Inactive;
                if !self.path_error(i, counts) {
                    return false;
                }
            }
            if let Some(out) = self.out.as_mut() {
                out.on_t3(now, i, &mut self.paths);
            }
            // RFC 3758 sec. 3.5 A5: a T3-rtx expiry advances the point too.
            let fwd = self.out.as_mut().and_then(|o| o.pr_after_t3());
            self.send_forward_tsn(fwd);
            // ns-2 `Timeout` (DATA): after the retransmission, an inactive
            // destination gets a HEARTBEAT at once when heartbeats are on, on every
            // expiry, not only the one that failed it (with every destination down
            // each gets one per timeout); CMT-PF (`SctpCMTAgent::Timeout`) probes a
            // potentially-failed one so whether or not heartbeats are on.
            let p = &self.paths.paths[i];
            if has_data
                && ((self.cfg.knobs.ns2_paths
                    && ((self.cfg.heartbeat.is_some() && p.state == PathState::Inactive)
                        || p.state == PathState::PotentiallyFailed))
                    || (self.cfg.knobs.heartbeat_after_rto && self.hb_after_rto_applies(i)))
            {
                self.send_heartbeat(i);
            }
        }
        true
    }

    /// ns-2.35 `HbAfterRtoSctpAgent::Timeout`: the HEARTBEAT goes when `GetNextDest` of
    /// the expired destination is another one: some other destination is not inactive,
    /// or (`ns2` presets) every one is and ns-2's dormant state hops to the next.
    fn hb_after_rto_applies(&self, i: usize) -> bool {
        let ps = &self.paths.paths;
        let others = ps
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.state != PathState::Inactive);
        let dormant = ps.iter().all(|p| p.state == PathState::Inactive);
        ps.len() > 1 && (others || (self.cfg.knobs.ns2_paths && dormant))
    }
}
