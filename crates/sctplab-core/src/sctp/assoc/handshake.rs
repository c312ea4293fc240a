//! Association set-up and its edge cases (RFC 9260 5.1, 5.2): the stateless INIT
//! ACK and its signed cookie, INIT collisions and peer restarts (Tie-Tags, 5.2.1 to
//! 5.2.4), stale cookies answered with a Stale Cookie ERROR and retried with a Cookie
//! Preservative (5.1.5, 5.2.6), and an INIT ACK without an Initiate Tag (3.3.3); the
//! client's INIT with its T1 back-off, the T2 timeout, and the move to ESTABLISHED.

use super::{Association, Role, State};
use crate::net::wire::{Chunk, ErrorCause, InitAckChunk, InitChunk, cause};
use crate::sctp::cookie::{CookieBody, CookieError};
use crate::sctp::inbound::Inbound;
use crate::sctp::outbound::{AppSource, Outbound};
use crate::sctp::timer::Timer;
use crate::sim::SimDuration;

impl Association {
    /// RFC 9260 3.3.2.1: a single-homed end lists no address (the packet's source is
    /// its sole address); a multihomed one lists them all.
    pub(super) fn listed_addrs(&self) -> Vec<[u8; 4]> {
        if self.cfg.local_addrs.len() > 1 {
            self.cfg.local_addrs.clone()
        } else {
            Vec::new()
        }
    }
    pub(super) fn t1_timeout(&self) -> SimDuration {
        let backoff = 1u64 << self.t1_retries.min(6);
        self.cfg
            .rto_initial
            .saturating_mul(backoff)
            .min(self.cfg.rto_max)
    }
    pub(super) fn t2_timeout(&self) -> SimDuration {
        let backoff = 1u64 << self.t2_retries.min(6);
        self.current_rto()
            .saturating_mul(backoff)
            .min(self.cfg.rto_max)
    }
    pub(super) fn start_client(&mut self) {
        self.timers.stop(Timer::Start);
        self.local_tag = self.nonzero();
        let tsn = self.rng.next_u64() as u32;
        self.pending_initial_tsn = tsn;
        self.state = State::CookieWait;
        self.send_init();
    }
    pub(super) fn send_init(&mut self) {
        let ext = self.init_ext();
        let init = InitChunk {
            init_tag: self.local_tag,
            a_rwnd: self.cfg.receive_buffer.min(u64::from(u32::MAX)) as u32,
            outbound_streams: self.cfg.streams,
            inbound_streams: u16::MAX,
            initial_tsn: self.pending_initial_tsn,
            addrs: self.listed_addrs(),
            forward_tsn: self.pr_local(),
            cookie_preservative: self.cookie_preservative,
            unrecognized: Vec::new(),
            ecn_capable: self.ecn.capable,
            ext: ext.boxed(),
        };
        self.send_ctrl(0, Chunk::Init(init), self.cfg.primary_peer);
        self.timers.set(Timer::T1Init, self.now + self.t1_timeout());
    }
    pub(super) fn established_client(&mut self) {
        self.timers.stop(Timer::T1Init);
        self.stats.connect_time = Some(self.now.saturating_since(self.cfg.start));
        if self.cfg.knobs.heartbeat_before_data {
            // ns-2 (`ProcessChunk`, COOKIE_ECHOED): every destination is unconfirmed and
            // probed; data waits until all have answered.
            self.state = State::Confirming;
            for j in 0..self.paths.len() {
                self.paths.paths[j].confirmed = false;
                self.send_heartbeat(j);
            }
        } else {
            // RFC 9260 5.4: the address the INIT went to is confirmed; others are probed.
            for (j, p) in self.paths.paths.iter_mut().enumerate() {
                p.confirmed = j == 0;
            }
            self.state = State::Established;
            self.start_heartbeats();
            self.kick();
        }
    }

    /// Whether a TCB exists: a client's from its first INIT on, a server's from the
    /// first valid COOKIE ECHO on.
    pub(super) fn has_tcb(&self) -> bool {
        match self.role {
            Role::Client => self.state != State::Closed,
            Role::Server => self.inb.is_some(),
        }
    }

    pub(super) fn on_init(&mut self, init: &InitChunk) {
        // RFC 9260 3.3.2: an Initiate Tag of 0 is silently discarded.
        if init.init_tag == 0 {
            self.stats.rule_violations += 1;
            return;
        }
        self.stats.inits_received += 1;
        match self.state {
            // 5.2.1: an INIT collision. The answer repeats this end's own INIT
            // parameters (its tag and initial TSN unchanged), its state and T1 stay
            // as they are; in COOKIE-ECHOED the cookie carries the Tie-Tags.
            State::CookieWait | State::CookieEchoed => {
                let tie =
                    (self.state == State::CookieEchoed).then_some((self.local_tag, self.peer_tag));
                self.answer_init(init, self.local_tag, self.pending_initial_tsn, tie);
            }
            // 9.2: the SHUTDOWN COMPLETE was probably lost; the INIT is discarded and
            // the SHUTDOWN ACK resent.
            State::ShutdownAckSent => {
                let dst = self.default_dest();
                self.send_ctrl(self.peer_tag, Chunk::ShutdownAck, dst);
            }
            State::Established | State::Confirming | State::ShutdownSent => {
                // 5.2.2: a restarting peer may not bring new addresses.
                let known = |a: &[u8; 4]| self.paths.index_of(*a).is_some();
                if !known(&self.pkt_src) || !init.addrs.iter().all(known) {
                    self.send_ctrl(init.init_tag, Chunk::Abort { t_bit: false }, self.pkt_src);
                    return;
                }
                let (tag, tsn) = (self.nonzero(), self.rng.next_u64() as u32);
                let tie = Some((self.local_tag, self.peer_tag));
                self.answer_init(init, tag, tsn, tie);
            }
            // No TCB (a server before its association, or after it has gone): the
            // stateless answer of 5.1 with Tie-Tags 0. A finished client has no use
            // for an INIT.
            State::Closed | State::Done if self.role == Role::Server => {
                let (tag, tsn) = (self.nonzero(), self.rng.next_u64() as u32);
                self.answer_init(init, tag, tsn, None);
            }
            State::Closed | State::Done => {}
        }
    }

    /// The INIT ACK for `init` with this end's `tag` and initial `tsn`: everything
    /// needed later goes into the signed cookie, nothing is kept (5.1.3).
    fn answer_init(&mut self, init: &InitChunk, tag: u32, tsn: u32, tie: Option<(u32, u32)>) {
        // RFC 9260 5.1.2 C: the INIT's source and the addresses it lists.
        let mut peer_addrs = Vec::new();
        if !init.addrs.is_empty() {
            peer_addrs.push(self.pkt_src);
            for a in &init.addrs {
                if !peer_addrs.contains(a) {
                    peer_addrs.push(*a);
                }
            }
        }
        // 5.2.6: a Cookie Preservative asks for a longer life; granted up to one more
        // Valid.Cookie.Life (the receiver MAY refuse it, 3.3.2.1; a long life makes
        // replays easier).
        let life = self.cfg.cookie_lifetime;
        let extra = init.cookie_preservative.map_or(SimDuration::ZERO, |ms| {
            SimDuration::from_millis(u64::from(ms)).min(life)
        });
        let my_out = match self.role {
            Role::Server => 1,
            Role::Client => self.cfg.streams,
        };
        let body = CookieBody {
            local_tag: tag,
            peer_tag: init.init_tag,
            local_initial_tsn: tsn,
            peer_initial_tsn: init.initial_tsn,
            peer_a_rwnd: init.a_rwnd,
            local_a_rwnd: self.cfg.receive_buffer.min(u64::from(u32::MAX)) as u32,
            local_out_streams: my_out.min(init.inbound_streams),
            peer_out_streams: init.outbound_streams,
            created_ns: self.now.as_nanos(),
            lifetime_ns: (life + extra).as_nanos(),
            peer_addrs,
            tie_tags: tie,
            ext: None,
        };
        let (ext, blob) = self.answer_ext(init);
        let body = CookieBody { ext: blob, ..body };
        let ack = InitAckChunk {
            init_tag: tag,
            a_rwnd: body.local_a_rwnd,
            outbound_streams: body.local_out_streams,
            inbound_streams: init.outbound_streams,
            initial_tsn: tsn,
            addrs: self.listed_addrs(),
            forward_tsn: self.pr_local(),
            unrecognized: Vec::new(),
            // RFC 9260 3.2.2: the INIT's parameters to report go back in the INIT ACK.
            reported: self.reported_params(init),
            state_cookie: body.seal(&self.secret),
            // RFC 9260 appendix A: ECN Capable back when both ends are.
            ecn_capable: self.ecn.capable && init.ecn_capable,
            ext: ext.boxed(),
        };
        self.send_ctrl(init.init_tag, Chunk::InitAck(ack), self.pkt_src);
    }

    /// The client's sending half and destinations, from an INIT ACK or (after an INIT
    /// collision) from the cookie of its own INIT ACK.
    fn set_up_client(
        &mut self,
        peer_a_rwnd: u32,
        peer_in_streams: u16,
        listed: &[[u8; 4]],
        peer_forward_tsn: bool,
    ) {
        let streams = self.cfg.streams.min(peer_in_streams).max(1);
        let ssthresh = self.cfg.initial_ssthresh.unwrap_or(u64::from(peer_a_rwnd)) as f64;
        // RFC 9260 5.1.2 C: the source and the listed addresses; the address the INIT
        // went to is the primary.
        let mut addrs = vec![self.cfg.primary_peer];
        if !listed.is_empty() {
            for a in std::iter::once(&self.pkt_src).chain(listed.iter()) {
                if !addrs.contains(a) {
                    addrs.push(*a);
                }
            }
        }
        self.build_paths(&addrs, ssthresh);
        let mut app = AppSource::new(
            self.cfg.total,
            self.cfg.message_size,
            streams,
            self.cfg.unordered,
        );
        app.set_streams(streams);
        app.streams = self.stream_sources(streams, peer_forward_tsn);
        if self.stop_pending {
            app.stop();
        }
        self.out = Some(Outbound::new(
            self.cfg.knobs.clone(),
            self.pending_initial_tsn,
            app,
            self.cfg.pmtu,
            peer_a_rwnd,
            self.cfg.trace_sends,
            self.cfg.window,
        ));
        // A sender rebuilt after I-DATA was negotiated keeps to it (RFC 8260 sec. 2.1).
        if self.idata_on() {
            if let Some(out) = self.out.as_mut() {
                out.set_idata();
            }
        }
        // CMT's tie-breaks draw from their own stream, seeded only when CMT is on.
        if self.cfg.knobs.cmt.is_some() {
            let seed = self.rng.next_u64();
            if let Some(out) = self.out.as_mut() {
                out.enable_cmt(seed);
            }
        }
    }

    pub(super) fn on_init_ack(&mut self, ack: &InitAckChunk) {
        // 5.2.3: outside COOKIE-WAIT an INIT ACK is discarded.
        if self.state != State::CookieWait {
            return;
        }
        // 3.3.3: an Initiate Tag of 0 destroys the TCB; the ABORT carries the T bit
        // (the packet's tag, ours, reflected).
        if ack.init_tag == 0 {
            self.stats.rule_violations += 1;
            self.send_ctrl(self.local_tag, Chunk::Abort { t_bit: true }, self.pkt_src);
            self.stats.aborted = true;
            self.stop_timers();
            return;
        }
        self.peer_tag = ack.init_tag;
        self.peer_initial_tsn = ack.initial_tsn;
        // RFC 9260 appendix A: ECN is used when both INIT and INIT ACK carry the
        // ECN Capable parameter.
        self.ecn.on = self.ecn.capable && ack.ecn_capable;
        self.set_up_client(ack.a_rwnd, ack.inbound_streams, &ack.addrs, ack.forward_tsn);
        self.ext_on_init_ack(ack);
        self.last_cookie = Some(ack.state_cookie.clone());
        self.cookie_sent_at = self.now;
        self.send_ctrl(
            self.peer_tag,
            Chunk::CookieEcho {
                cookie: ack.state_cookie.clone(),
            },
            self.cfg.primary_peer,
        );
        // RFC 9260 3.2.2: the INIT ACK's parameters to report go in an ERROR chunk
        // bundled behind the COOKIE ECHO (which must come first), one "Unrecognized
        // Parameters" cause holding them all.
        let unrecognized = self.init_ack_unrecognized(ack);
        if !unrecognized.is_empty() {
            let mut info = Vec::new();
            for t in &unrecognized {
                info.resize(info.len().next_multiple_of(4), 0);
                info.extend_from_slice(t);
            }
            let causes = vec![ErrorCause {
                code: cause::UNRECOGNIZED_PARAMETERS,
                info,
            }];
            self.send_error(causes, self.cfg.primary_peer);
        }
        self.state = State::CookieEchoed;
        self.t1_retries = 0;
        self.timers.set(Timer::T1Init, self.now + self.t1_timeout());
    }

    /// A COOKIE ECHO (the first chunk of its packet); returns whether the chunks
    /// behind it may be processed: only when the cookie was accepted and its tag is
    /// now the association's (5.1.5, 5.2.4).
    pub(super) fn on_cookie_echo(&mut self, vtag: u32, cookie: &[u8]) -> bool {
        let body = match CookieBody::authenticate(cookie, &self.secret) {
            Ok(b) => b,
            Err(CookieError::Malformed | CookieError::BadMac | CookieError::Stale) => {
                self.stats.cookie_rejects += 1;
                return false;
            }
        };
        // 5.1.5 step 2: the packet's tag must be the one the cookie gives this end.
        if vtag != body.local_tag {
            self.stats.bad_vtag_drops += 1;
            return false;
        }
        let stale = body.stale_by_ns(self.now.as_nanos());
        if !self.has_tcb() {
            if self.role == Role::Client {
                return false;
            }
            if let Some(late) = stale {
                self.stale_cookie(&body, late);
                return false;
            }
            self.create_from_cookie(&body);
            self.send_ctrl(self.peer_tag, Chunk::CookieAck, self.pkt_src);
            return true;
        }
        // 5.2.4, table 2: the cookie's tags against the TCB's.
        let local = body.local_tag == self.local_tag;
        let peer = body.peer_tag == self.peer_tag;
        if local && peer {
            // (D), valid even when stale: a retransmitted COOKIE ECHO.
            if self.state == State::CookieEchoed {
                self.established_client();
            }
            self.send_ctrl(self.peer_tag, Chunk::CookieAck, self.pkt_src);
            return true;
        }
        if let Some(late) = stale {
            self.stale_cookie(&body, late);
            return false;
        }
        let tie = body.tie_tags == Some((self.local_tag, self.peer_tag));
        if !local && !peer && tie {
            // (A): the peer restarted.
            if self.state == State::ShutdownAckSent {
                let dst = self.default_dest();
                self.send_ctrl(self.peer_tag, Chunk::ShutdownAck, dst);
                let causes = vec![ErrorCause {
                    code: cause::COOKIE_WHILE_SHUTTING_DOWN,
                    info: Vec::new(),
                }];
                self.send_error(causes, dst);
                return false;
            }
            if self.role == Role::Client {
                // A server never initiates here, so a client's peer cannot restart
                // into this case; refused rather than half-handled.
                self.stats.cookie_rejects += 1;
                return false;
            }
            self.stats.restarts += 1;
            self.create_from_cookie(&body);
            self.send_ctrl(self.peer_tag, Chunk::CookieAck, self.pkt_src);
            return true;
        }
        if local && (self.peer_tag == 0 || !peer) {
            // (B): the cookie of this end's answer to a colliding INIT; the peer's
            // tag is the cookie's.
            self.peer_tag = body.peer_tag;
            self.peer_initial_tsn = body.peer_initial_tsn;
            if self.role == Role::Client && self.out.is_none() {
                let listed: Vec<[u8; 4]> = body.peer_addrs.iter().skip(1).copied().collect();
                // The cookie does not say whether the peer speaks PR-SCTP: reliable.
                self.set_up_client(body.peer_a_rwnd, body.local_out_streams, &listed, false);
                // No INIT ACK came: the extensions are negotiated from this end's answer
                // to the colliding INIT, kept in the cookie, as a server does (RFC 8260
                // sec. 2.1: with I-DATA listed by both, the sender just built uses it).
                self.ext_from_cookie(&body);
            }
            if matches!(self.state, State::CookieWait | State::CookieEchoed) {
                self.established_client();
            }
            self.send_ctrl(self.peer_tag, Chunk::CookieAck, self.pkt_src);
            return true;
        }
        // (C), a late cookie, and every other mix: silently discarded.
        self.stats.cookie_rejects += 1;
        false
    }

    /// A new association (or a restarted one) from an accepted cookie: tags, the
    /// receiving half, the destinations.
    fn create_from_cookie(&mut self, body: &CookieBody) {
        self.local_tag = body.local_tag;
        self.peer_tag = body.peer_tag;
        self.peer_initial_tsn = body.peer_initial_tsn;
        self.ext_from_cookie(body);
        self.inb = Some(Inbound::new(
            body.peer_initial_tsn,
            self.cfg.receive_buffer,
            body.peer_out_streams,
            self.cfg.delayed_sack,
            self.cfg.window,
            // The SACK's room: less the TIMESTAMP chunk's with `timestamp` (ns-2.35's
            // gap blocks fit `uiMaxDataSize`).
            self.cfg
                .pmtu
                .saturating_sub(32 + crate::sctp::timestamp::reserved(&self.cfg.knobs)),
            self.cfg.knobs.sack_on_rwnd_drop,
        ));
        if self.cfg.knobs.cmt.is_some_and(|c| c.dac) {
            if let Some(inb) = self.inb.as_mut() {
                inb.set_cmt_dac();
            }
        }
        // NR-SACK as ns-2.35 (`useNonRenegSacks_` set on both agents): no negotiation.
        if self.cfg.knobs.send_buffer.nr_sack {
            if let Some(inb) = self.inb.as_mut() {
                inb.set_nr_sack();
            }
        }
        if !self.cfg.stream_traffic.is_empty() {
            if let Some(inb) = self.inb.as_mut() {
                inb.msg_log = Some(Vec::new());
            }
        }
        let addrs = if body.peer_addrs.is_empty() {
            vec![self.pkt_src]
        } else {
            body.peer_addrs.clone()
        };
        let ssthresh = self
            .cfg
            .initial_ssthresh
            .unwrap_or(u64::from(body.peer_a_rwnd)) as f64;
        self.build_paths(&addrs, ssthresh);
        self.stats.associations_created += 1;
        self.state = State::Established;
        self.timers.stop(Timer::T2Shutdown);
        self.t2_retries = 0;
        self.sack_dest = self.pkt_src;
        // ns-2 confirms destinations only at the INIT's sender; RFC 9260 5.4: the
        // INIT's source is confirmed, the other listed addresses are probed.
        let ns2 = self.cfg.knobs.ns2_paths;
        for (j, p) in self.paths.paths.iter_mut().enumerate() {
            p.confirmed = ns2 || j == 0;
        }
        self.start_heartbeats();
    }

    /// 5.1.5 step 3 and 5.2.4: a cookie past its lifetime is refused with an ERROR
    /// carrying "Stale Cookie" and how late it is, in microseconds rounded up, under
    /// the tag of the INIT that asked for it.
    fn stale_cookie(&mut self, body: &CookieBody, late_ns: u64) {
        self.stats.cookie_rejects += 1;
        self.stats.errors_sent += 1;
        let us = late_ns.div_ceil(1000).min(u64::from(u32::MAX)) as u32;
        let causes = vec![ErrorCause {
            code: cause::STALE_COOKIE,
            info: us.to_be_bytes().to_vec(),
        }];
        self.send_ctrl(
            body.peer_tag,
            Chunk::Error {
                t_bit: false,
                causes,
            },
            self.pkt_src,
        );
    }

    /// An ERROR chunk. Only "Stale Cookie" is acted on (5.2.6), in COOKIE-ECHOED:
    /// a new INIT with a Cookie Preservative asking for the measured round trip of
    /// the COOKIE ECHO and its ERROR plus the reported staleness, at most one second
    /// of it (5.2.6 (3)). Each such retry counts toward Max.Init.Retransmits, so a
    /// peer that keeps answering so cannot hold the client forever.
    pub(super) fn on_error(&mut self, causes: &[ErrorCause]) {
        self.stats.errors_received += 1;
        if self.role != Role::Client || self.state != State::CookieEchoed {
            return;
        }
        let Some(stale) = causes.iter().find(|c| c.code == cause::STALE_COOKIE) else {
            return;
        };
        let late_us = stale
            .info
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_be_bytes);
        let rtt_ms = self
            .now
            .saturating_since(self.cookie_sent_at)
            .as_nanos()
            .div_ceil(1_000_000);
        let late_ms = u64::from(late_us).div_ceil(1000).min(1000);
        self.cookie_preservative = Some((rtt_ms + late_ms).min(u64::from(u32::MAX)) as u32);
        self.t1_retries += 1;
        if self.t1_retries > self.cfg.max_init_retrans {
            self.stats.aborted = true;
            self.stop_timers();
            return;
        }
        self.state = State::CookieWait;
        self.peer_tag = 0;
        self.out = None;
        self.last_cookie = None;
        self.send_init();
    }
}

#[cfg(test)]
#[path = "collision_idata_tests.rs"]
mod collision_idata_tests;
