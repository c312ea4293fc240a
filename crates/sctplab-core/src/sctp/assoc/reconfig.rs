//! The association's side of RE-CONFIG (RFC 6525, `sctp/reconfig`) and AUTH (RFC 4895,
//! `sctp/auth`) once negotiated (`extensions.rs`): the scripted requests of
//! `[[faults]]`, the requests and responses on the wire with their timer, what a
//! performed request does to the streams, and AUTH's signing and checking.

use super::*;
use crate::net::wire::{ReconfigChunk, ReconfigParam};
use crate::sctp::auth::AuthStats;
use crate::sctp::reconfig::{Action, Local, Outcome, Reconfig, ReconfigStats, Request};

/// What summary.json reports for a flow with RE-CONFIG or AUTH on.
#[derive(Clone, Debug, Default)]
pub struct ExtStats {
    pub reconfig: ReconfigStats,
    pub auth: AuthStats,
    /// Negotiated with the peer.
    pub reconfig_on: bool,
    pub auth_on: bool,
}

impl Association {
    /// A scripted `reset_streams` / `add_streams` (`[[faults]]`).
    pub fn reconfigure(&mut self, now: SimTime, r: Request) {
        self.enter(now);
        if !self.ext_wanted() {
            return;
        }
        let e = self.ext.get_or_insert_with(Default::default);
        if e.reconf.is_none() && self.state != State::Established {
            e.pending.push(r);
            return;
        }
        self.queue_reconfig(r);
    }

    pub(super) fn queue_reconfig(&mut self, r: Request) {
        let Some(rc) = self.ext.as_mut().and_then(|e| e.reconf.as_mut()) else {
            return;
        };
        rc.queue(r);
        let hold = rc.holds_data();
        if let Some(out) = self.out.as_mut() {
            out.app.hold = hold;
        }
        self.reconfig_poll();
    }

    /// Sends the next queued request if it may go now (`kick` calls this after the
    /// sending half has cut what it may: a reset waits for a whole message).
    pub(super) fn reconfig_poll(&mut self) {
        if self.state != State::Established {
            return;
        }
        let (last, mid, in_flight) = match &self.out {
            Some(o) => (
                o.last_assigned_tsn(),
                o.app.mid_message(),
                o.has_outstanding(),
            ),
            None => (
                self.ext
                    .as_ref()
                    .map_or(0, |e| e.local_initial_tsn.wrapping_sub(1)),
                false,
                false,
            ),
        };
        let Some(chunk) = self
            .ext
            .as_mut()
            .and_then(|e| e.reconf.as_mut())
            .and_then(|r| r.poll(last, mid, in_flight))
        else {
            return;
        };
        self.send_reconfig(chunk, 0);
    }

    fn send_reconfig(&mut self, chunk: ReconfigChunk, retries: u32) {
        let dst = self.default_dest();
        let has_request = chunk.params.iter().any(|p| p.req_seq().is_some());
        self.send_ctrl(self.peer_tag, Chunk::Reconfig(chunk), dst);
        if has_request {
            // RFC 6525 5.1.1: the request is guarded by a timer of the destination's
            // RTO, doubled on each expiry as T3-rtx is (RFC 9260 6.3.3).
            let rto = self
                .current_rto()
                .saturating_mul(1u64 << retries.min(6))
                .min(self.cfg.rto_max);
            self.timers.set(Timer::Reconfig, self.now + rto);
        }
    }

    pub(super) fn on_reconfig_timer(&mut self) {
        self.timers.stop(Timer::Reconfig);
        if !matches!(self.state, State::Established | State::ShutdownSent) {
            return;
        }
        let again = self
            .ext
            .as_mut()
            .and_then(|e| e.reconf.as_mut())
            .and_then(Reconfig::on_timer);
        if let Some((chunk, retries)) = again {
            self.send_reconfig(chunk, retries);
        }
    }

    /// A RE-CONFIG from the peer (already past AUTH's check in `handle_packet`).
    pub(super) fn on_reconfig(&mut self, chunk: &ReconfigChunk) {
        if self.ext.as_ref().is_none_or(|e| e.reconf.is_none()) {
            return;
        }
        let local = Local {
            cum_tsn: self
                .inb
                .as_ref()
                .map_or(self.peer_initial_tsn.wrapping_sub(1), |i| i.cum_tsn),
            in_streams: self
                .inb
                .as_ref()
                .map_or(0, |i| i.streams.len().min(usize::from(u16::MAX)) as u16),
            out_streams: self.ext.as_ref().map_or(0, |e| e.out_streams),
            last_assigned_tsn: self.out.as_ref().map_or_else(
                || {
                    self.ext
                        .as_ref()
                        .map_or(0, |e| e.local_initial_tsn.wrapping_sub(1))
                },
                |o| o.last_assigned_tsn(),
            ),
            in_flight: self.out.as_ref().is_some_and(|o| o.has_outstanding()),
        };
        let mut replies = Vec::new();
        let mut actions = Vec::new();
        let mut outcomes = Vec::new();
        let Some(rc) = self.ext.as_mut().and_then(|e| e.reconf.as_mut()) else {
            return;
        };
        for p in &chunk.params {
            match p {
                ReconfigParam::Response {
                    resp_seq,
                    result,
                    tsns,
                } => outcomes.extend(rc.on_response(*resp_seq, *result, *tsns)),
                p => {
                    let (r, a) = rc.on_request(p, local);
                    replies.extend(r);
                    actions.extend(a);
                }
            }
        }
        let outstanding = rc.is_outstanding();
        let hold = rc.holds_data();
        for a in actions {
            self.apply_action(a);
        }
        for o in outcomes {
            self.apply_outcome(o);
        }
        if let Some(out) = self.out.as_mut() {
            out.app.hold = hold;
        }
        if !outstanding {
            self.timers.stop(Timer::Reconfig);
        }
        if !replies.is_empty() {
            let request = replies.iter().any(|p| p.req_seq().is_some());
            let chunk = ReconfigChunk { params: replies };
            if request {
                self.send_reconfig(chunk, 0);
            } else {
                self.send_ctrl(self.peer_tag, Chunk::Reconfig(chunk), self.pkt_src);
            }
        }
        self.kick();
    }

    fn apply_action(&mut self, a: Action) {
        match a {
            Action::ResetIncoming(streams) => {
                if let Some(inb) = self.inb.as_mut() {
                    reset_incoming(inb, &streams);
                }
            }
            Action::AddIncoming(n) => {
                if let Some(inb) = self.inb.as_mut() {
                    let len = inb.streams.len() + usize::from(n);
                    inb.streams.resize_with(len, Default::default);
                }
            }
            Action::AddOutgoing(n) => {
                if let Some(e) = self.ext.as_mut() {
                    e.out_streams = e.out_streams.saturating_add(n);
                }
                if let Some(out) = self.out.as_mut() {
                    out.app.reconfigure(&[], n);
                }
            }
            // RFC 6525 5.2.4 G4, G5 (G2: this end's own TSNs stay; G3: none of its
            // data is in flight, the request was answered "in progress" otherwise).
            Action::ResetAssoc { receivers_next } => {
                if let Some(inb) = self.inb.as_mut() {
                    inb.reset_tsn(self.now, receivers_next);
                }
                self.reset_all_ssns();
            }
        }
    }

    /// Every SSN (and I-DATA MID) both ways starts again at 0 (RFC 6525 5.2.4 G5).
    fn reset_all_ssns(&mut self) {
        if let Some(inb) = self.inb.as_mut() {
            reset_incoming(inb, &[]);
        }
        if let Some(out) = self.out.as_mut() {
            out.app.reconfigure(&[], 0);
        }
    }

    fn apply_outcome(&mut self, o: Outcome) {
        match o {
            Outcome::StreamsReset(streams) => {
                if let Some(out) = self.out.as_mut() {
                    out.app.reconfigure(&streams, 0);
                }
            }
            Outcome::StreamsAdded(n) => self.apply_action(Action::AddOutgoing(n)),
            // The requester's side of a performed SSN/TSN reset (RFC 6525 5.2.7): the
            // peer's data is expected from the Sender's Next TSN on (as after a
            // FORWARD TSN to the one before it), this end's next TSN is the Receiver's
            // Next TSN, and every SSN both ways starts again at 0.
            Outcome::AssocReset {
                senders_next,
                receivers_next,
            } => {
                if let Some(inb) = self.inb.as_mut() {
                    inb.reset_tsn(self.now, senders_next);
                }
                if let Some(out) = self.out.as_mut() {
                    out.reset_tsn(receivers_next);
                }
                self.reset_all_ssns();
                let n = self.ext.as_ref().map_or(0, |e| e.out_streams);
                if let Some(rc) = self.ext.as_mut().and_then(|e| e.reconf.as_mut()) {
                    rc.stats.streams_reset += u64::from(n);
                }
            }
            Outcome::Refused(_) => {}
        }
    }

    /// After a packet with DATA: a deferred reset whose TSNs have all arrived is done
    /// (RFC 6525 5.2.2).
    pub(super) fn reconfig_after_data(&mut self) {
        let Some(cum) = self.inb.as_ref().map(|i| i.cum_tsn) else {
            return;
        };
        let due = self
            .ext
            .as_mut()
            .and_then(|e| e.reconf.as_mut())
            .and_then(|r| r.deferred_due(cum));
        if let (Some(streams), Some(inb)) = (due, self.inb.as_mut()) {
            reset_incoming(inb, &streams);
        }
    }

    /// RFC 4895 6.3: the packet's AUTH check, when AUTH is on.
    pub(super) fn auth_verdict(&mut self, chunks: &[Chunk]) -> Option<crate::sctp::auth::Verdict> {
        self.ext
            .as_mut()
            .and_then(|e| e.auth.as_mut())
            .map(|a| a.verify(chunks))
    }

    /// Whether chunk `k` is dropped for AUTH (counted).
    pub(super) fn auth_drops(
        &mut self,
        v: crate::sctp::auth::Verdict,
        k: usize,
        c: &Chunk,
    ) -> bool {
        self.ext
            .as_mut()
            .and_then(|e| e.auth.as_mut())
            .is_some_and(|a| a.drops(v, k, c))
    }

    /// RFC 4895 6.2: an AUTH chunk before the first chunk the peer wants
    /// authenticated; the bytes it adds.
    pub(super) fn auth_sign(&mut self, chunks: &mut Vec<Chunk>) -> usize {
        self.ext
            .as_mut()
            .and_then(|e| e.auth.as_mut())
            .map_or(0, |a| a.sign(chunks))
    }

    /// RE-CONFIG and AUTH figures, if this end uses either.
    pub fn ext_stats(&self) -> Option<ExtStats> {
        if !self.cfg.knobs.reconfig && self.cfg.knobs.auth.is_none() {
            return None;
        }
        let e = self.ext.as_ref()?;
        Some(ExtStats {
            reconfig: e
                .reconf
                .as_ref()
                .map(|r| r.stats.clone())
                .unwrap_or_default(),
            auth: e.auth.as_ref().map(|a| a.stats.clone()).unwrap_or_default(),
            reconfig_on: e.reconf.is_some(),
            auth_on: e.auth.is_some(),
        })
    }
}

fn reset_incoming(inb: &mut Inbound, streams: &[u16]) {
    if streams.is_empty() {
        inb.streams.iter_mut().for_each(|s| s.reset_ssn());
    }
    for &s in streams {
        if let Some(st) = inb.streams.get_mut(usize::from(s)) {
            st.reset_ssn();
        }
    }
}

impl Association {
    /// The flow scripts RE-CONFIG requests: both ends announce it (`[[faults]]`
    /// `reset_streams` / `add_streams`, world/build.rs).
    pub fn enable_reconfig(&mut self) {
        self.cfg.knobs.reconfig = true;
    }
}

#[cfg(test)]
#[path = "tsn_reset_tests.rs"]
mod tsn_reset_tests;

#[cfg(test)]
mod tests {
    //! An association pair with AUTH and RE-CONFIG: a request stripped of its AUTH or
    //! with a forged HMAC is dropped and counted, the genuine one performed; a lost
    //! request is resent by its timer with the same sequence number.
    use super::super::tests::{cfg, drain, handshake_to_init_ack};
    use super::*;
    use crate::net::wire::ReconfigResult;
    use crate::sctp::auth::AuthCfg;

    fn pair() -> (Association, Association) {
        let mut config = cfg();
        config.knobs.reconfig = true;
        config.knobs.auth = Some(AuthCfg::new(&[], false));
        let mut c = Association::new(Role::Client, config.clone(), RngStream::new(1, "c"));
        let mut s = Association::new(Role::Server, config, RngStream::new(1, "s"));
        let ack = handshake_to_init_ack(&mut c, &mut s);
        c.handle_packet(SimTime::ZERO, &ack);
        let echo = drain(&mut c, SimTime::ZERO);
        s.handle_packet(SimTime::ZERO, &echo[0]);
        let cookie_ack = drain(&mut s, SimTime::ZERO);
        c.handle_packet(SimTime::ZERO, &cookie_ack[0]);
        assert_eq!((c.state, s.state), (State::Established, State::Established));
        (c, s)
    }

    fn chunks(p: &Packet) -> Vec<Chunk> {
        super::super::tests::sctp(p).chunks.clone()
    }

    fn with_chunks(p: &Packet, chunks: Vec<Chunk>) -> Packet {
        let mut q = p.clone();
        if let TransportRepr::Sctp(s) = &mut q.transport {
            s.chunks = chunks;
        }
        q
    }

    #[test]
    fn forged_and_unauthenticated_requests_dropped_genuine_performed() {
        let (mut c, mut s) = pair();
        let t = SimTime::from_nanos(1_000_000_000);
        c.reconfigure(t, Request::ResetStreams(vec![0]));
        let sent = drain(&mut c, t);
        let req = sent
            .iter()
            .find(|p| chunks(p).iter().any(|x| matches!(x, Chunk::Reconfig(_))))
            .expect("a RE-CONFIG");
        let cs = chunks(req);
        let at = cs.iter().position(|x| matches!(x, Chunk::Auth(_))).unwrap();
        assert!(matches!(cs[at + 1], Chunk::Reconfig(_)));
        // Without its AUTH chunk: dropped, counted, unanswered.
        let bare: Vec<Chunk> = cs
            .iter()
            .filter(|x| !matches!(x, Chunk::Auth(_)))
            .cloned()
            .collect();
        s.handle_packet(t, &with_chunks(req, bare));
        assert!(
            drain(&mut s, t)
                .iter()
                .all(|p| chunks(p).iter().all(|x| !matches!(x, Chunk::Reconfig(_))))
        );
        // With one HMAC bit flipped: the AUTH fails, the RE-CONFIG behind it goes.
        let mut forged = cs.clone();
        if let Chunk::Auth(a) = &mut forged[at] {
            a.hmac[3] ^= 0x10;
        }
        s.handle_packet(t, &with_chunks(req, forged));
        assert!(
            drain(&mut s, t)
                .iter()
                .all(|p| chunks(p).iter().all(|x| !matches!(x, Chunk::Reconfig(_))))
        );
        let st = s.ext_stats().unwrap();
        assert_eq!((st.auth.dropped, st.auth.bad), (2, 1));
        assert_eq!(st.reconfig.responses, 0);
        // The genuine request. Control chunks leave ahead of queued DATA, so it arrives
        // before the TSNs up to its Sender's Last Assigned TSN: "in progress" (RFC 6525
        // 5.2.2); the DATA then completes the deferred reset, and the request resent by
        // the timer is answered "performed". Each answer goes behind an AUTH chunk.
        let result_of = |pkts: &[Packet]| {
            let p = pkts
                .iter()
                .find(|p| chunks(p).iter().any(|x| matches!(x, Chunk::Reconfig(_))))
                .expect("a response")
                .clone();
            let rc = chunks(&p);
            let i = rc
                .iter()
                .position(|x| matches!(x, Chunk::Reconfig(_)))
                .unwrap();
            assert!(i > 0 && matches!(rc[i - 1], Chunk::Auth(_)));
            match &rc[i] {
                Chunk::Reconfig(r) => match r.params[..] {
                    [ReconfigParam::Response { result, .. }] => (result, p),
                    _ => panic!("not a response: {r:?}"),
                },
                _ => unreachable!(),
            }
        };
        assert!(matches!(cs.get(at + 1), Some(Chunk::Reconfig(_))));
        let mut answers = Vec::new();
        for p in &sent {
            s.handle_packet(t, p);
            answers.extend(drain(&mut s, t));
        }
        let (result, resp) = result_of(&answers);
        assert_eq!(result, ReconfigResult::InProgress);
        c.handle_packet(t, &resp);
        assert!(c.timers.is_set(Timer::Reconfig));
        let due = c.timers.get(Timer::Reconfig).unwrap();
        c.handle_timeout(due);
        let again = drain(&mut c, due);
        for p in &again {
            s.handle_packet(due, p);
        }
        let (result, resp) = result_of(&drain(&mut s, due));
        assert_eq!(result, ReconfigResult::Performed);
        c.handle_packet(due, &resp);
        let cst = c.ext_stats().unwrap();
        assert_eq!((cst.reconfig.streams_reset, cst.auth.bad), (1, 0));
        assert_eq!(s.ext_stats().unwrap().auth.bad, 1);
        assert!(!c.timers.is_set(Timer::Reconfig));
    }

    #[test]
    fn lost_request_resent_by_its_timer_with_the_same_sequence_number() {
        let (mut c, _s) = pair();
        let t = SimTime::from_nanos(1_000_000_000);
        c.reconfigure(t, Request::AddStreams(2));
        let seq = |pkts: &[Packet]| {
            pkts.iter()
                .flat_map(chunks)
                .find_map(|x| match x {
                    Chunk::Reconfig(r) => r.params[0].req_seq(),
                    _ => None,
                })
                .expect("a request")
        };
        let first = seq(&drain(&mut c, t));
        // RFC 6525 5.1.1: the client's first request number is its initial TSN.
        assert_eq!(first, c.pending_initial_tsn);
        let due = c.timers.get(Timer::Reconfig).expect("timer running");
        assert_eq!(due, t + c.current_rto());
        let rto = c.current_rto();
        c.handle_timeout(due);
        assert_eq!(seq(&drain(&mut c, due)), first);
        // Backed off: twice the RTO the second time.
        assert_eq!(
            c.timers.get(Timer::Reconfig),
            Some(due + rto.saturating_mul(2))
        );
        assert_eq!(c.ext_stats().unwrap().reconfig.retransmissions, 1);
    }
}
