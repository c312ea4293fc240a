//! An SCTP association endpoint as a sans-IO machine (quinn-proto's shape): set-up with
//! INIT / INIT-ACK / COOKIE-ECHO / COOKIE-ACK and a signed state cookie, verification
//! tags, DATA and SACK through `Outbound` and `Inbound`, HEARTBEAT, graceful SHUTDOWN,
//! and ABORT when the retransmission limit is reached (RFC 9260 sec. 5, 6, 8, 9).
//!
//! Multihoming (RFC 9260 5.1.2, 6.4, 8; RFC 7829): INIT and INIT-ACK list this end's
//! addresses when it has more than one; each end keeps a `PathSet` of the peer's
//! addresses with per-destination congestion state, RTO, T3, error counter and
//! heartbeats. `poll_transmit` writes the destination into `pkt.ip.dst`; replies go to
//! the address the chunk they answer came from (`pkt.ip.src`).
//!
//! The client sends the application's data; the server receives it. The server keeps
//! no association state before a valid COOKIE-ECHO (RFC 9260 sec. 5.1.3).

mod asconf;
mod ecn;
mod errors;
mod extensions;
mod handshake;
mod hb_info;
mod idata;
mod paths;
mod prsctp;
mod reconfig;
mod screen;
mod shutdown;
mod timers;
mod transmit;

use super::config::{Knobs, initial_cwnd_bytes};
use super::inbound::Inbound;
use super::outbound::Outbound;
use super::path::{Path, PathSet, PathState, PathStats, Rto};
use super::timer::{Timer, TimerTable};
use crate::endpoint::{Endpoint, EndpointEvent};
use crate::metrics::Window;
use crate::net::wire::{
    Chunk, DataChunk, ErrorCause, InitChunk, SCTP_HEADER_LEN, SctpRepr, TransportRepr, cause,
};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, SimDuration, SimTime};
use std::cell::Cell;
use std::collections::VecDeque;

pub use reconfig::ExtStats;

#[derive(Clone, Debug)]
pub struct AssocCfg {
    pub ports: (u16, u16),
    pub pmtu: usize,
    pub streams: u16,
    pub receive_buffer: u64,
    pub initial_ssthresh: Option<u64>,
    pub knobs: Knobs,
    pub rto_initial: SimDuration,
    pub rto_min: SimDuration,
    pub rto_max: SimDuration,
    pub delayed_sack: Option<SimDuration>,
    pub heartbeat: Option<SimDuration>,
    pub cookie_lifetime: SimDuration,
    pub association_max_retrans: u32,
    pub max_init_retrans: u32,
    pub total: Option<u64>,
    pub message_size: u64,
    pub unordered: bool,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub window: Window,
    pub trace_sends: bool,
    pub trace_acks: bool,
    /// This endpoint's addresses; the first is the one it uses by default.
    pub local_addrs: Vec<[u8; 4]>,
    /// Client: the peer address its INIT goes to and, after set-up, the primary
    /// destination. Server: ignored (its primary is where the INIT came from).
    pub primary_peer: [u8; 4],
    /// `stream_traffic`: per-stream sources instead of `total`/`message_size`'s
    /// round-robin messages (empty: those). A policy other than `None` makes this end
    /// announce PR-SCTP.
    pub stream_traffic: Vec<crate::sctp::streams::StreamSourceCfg>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    CookieWait,
    CookieEchoed,
    /// Client: waiting for the HEARTBEAT-ACKs that confirm the paths (ns-2 behaviour).
    Confirming,
    Established,
    ShutdownSent,
    ShutdownAckSent,
    /// Finished: by SHUTDOWN-COMPLETE, or by ABORT.
    Done,
}

#[derive(Clone, Debug, Default)]
pub struct AssocStats {
    pub control_packets: u64,
    /// HEARTBEATs this end sent.
    pub heartbeats: u64,
    pub bad_vtag_drops: u64,
    pub cookie_rejects: u64,
    pub inits_received: u64,
    pub associations_created: u64,
    pub ack_packets: u64,
    pub ack_bytes: u64,
    pub aborted: bool,
    pub connect_time: Option<SimDuration>,
    pub completed_at: Option<SimTime>,
    /// Changes of the destination new data goes to.
    pub failovers: u64,
    /// Chunks of a type this end does not know (RFC 9260 3.2), and ERROR chunks sent
    /// and received.
    pub unknown_chunks: u64,
    pub errors_sent: u64,
    pub errors_received: u64,
    /// Packets discarded whole for breaking a rule of RFC 9260: an INIT, INIT ACK or
    /// SHUTDOWN COMPLETE bundled with other chunks, a COOKIE ECHO not first, tag 0 on
    /// anything but an INIT (3.1, 5.1, 6.10, 8.5.1 (A)); also an INIT or INIT ACK
    /// whose Initiate Tag is 0 (3.3.2, 3.3.3).
    pub rule_violations: u64,
    /// Out-of-the-blue packets (8.4): received while no association exists.
    pub ootb_packets: u64,
    /// Associations replaced after the peer restarted (5.2.4 (A)).
    pub restarts: u64,
}

/// Distinct invalid stream ids reported in one ERROR chunk: 4 + 8 x 64 = 516 bytes, so
/// the chunk fits a packet of the smallest IPv4 MTU (576) on its own. More in one burst
/// are still acknowledged and discarded, just not all reported.
const MAX_STREAM_ERRORS: usize = 64;

pub struct Association {
    pub role: Role,
    cfg: AssocCfg,
    pub state: State,
    now: SimTime,
    /// The last `poll_timeout` answer, until the next entry point (`enter`): a paced
    /// sender's wake polls once to see that its deadline has come and once more after
    /// the service, with nothing changed in between.
    poll_memo: Cell<Option<Option<SimTime>>>,
    rng: RngStream,
    secret: [u8; 32],
    local_tag: u32,
    peer_tag: u32,
    /// Client: our initial TSN until the outbound half exists.
    pending_initial_tsn: u32,
    /// The peer's initial TSN: on the server, packet numbers of SACKs in traces; on the
    /// sending-only client, what its SHUTDOWN acknowledges (see `shutdown_cum_ack`).
    peer_initial_tsn: u32,
    /// Client: the cookie to echo again if T1-cookie expires, and when it was first
    /// sent (the round trip a Stale Cookie ERROR measures, RFC 9260 5.2.6).
    last_cookie: Option<Vec<u8>>,
    cookie_sent_at: SimTime,
    /// Client: the Cookie Preservative its INITs carry after a Stale Cookie ERROR.
    cookie_preservative: Option<u32>,
    /// Control chunks to send, each with the verification tag its packet carries and
    /// the destination address.
    ctrl: VecDeque<(u32, Chunk, [u8; 4])>,
    /// Stream ids of DATA chunks this end has no stream for, reported in one ERROR
    /// chunk placed behind the next SACK (RFC 9260 6.5); distinct, at most
    /// `MAX_STREAM_ERRORS`.
    stream_errors: Vec<u16>,
    /// The association-wide timers: start, stop, T1, T2, ns-2's heartbeat timer.
    timers: TimerTable,
    t1_retries: u32,
    /// T2-shutdown expiries so far: the RTO doubles with each (RFC 9260 9.2 follows
    /// 6.3.3), and more than Association.Max.Retrans of them end the association.
    t2_retries: u32,
    /// When ns-2's heartbeat timer (`Timer::HeartbeatGen`) was last started.
    hb_gen_started: SimTime,
    /// The flow's stop time has come: the application offers no more data.
    stop_pending: bool,
    pub out: Option<Outbound>,
    pub inb: Option<Inbound>,
    /// The peer's destinations (empty until the association exists).
    pub paths: PathSet,
    /// Source address of the packet being handled.
    pkt_src: [u8; 4],
    /// Where SACKs go: the source of the latest packet that carried DATA.
    sack_dest: [u8; 4],
    rto_before_established: Rto,
    events: VecDeque<EndpointEvent>,
    /// RFC 9260 appendix A (`sctp/ecn.rs`); off unless `set_ecn` says so.
    ecn: super::ecn::SctpEcn,
    /// RE-CONFIG and AUTH (`assoc/reconfig.rs`); None for a flow that uses neither.
    ext: Option<Box<extensions::Ext>>,
    /// ns-2.35's TIMESTAMP chunk (`timestamp`, sctp/timestamp.rs); None when off.
    ts: Option<super::timestamp::Timestamps>,
    pub stats: AssocStats,
}

impl Association {
    /// `rng` gives the tags, initial TSNs, the cookie secret, heartbeat nonces and
    /// jitter (per-endpoint streams).
    pub fn new(role: Role, cfg: AssocCfg, mut rng: RngStream) -> Self {
        let mut secret = [0u8; 32];
        for chunk in secret.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let rto = Rto::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max);
        let primary = cfg.primary_peer;
        let ts = cfg
            .knobs
            .timestamp
            .then(super::timestamp::Timestamps::default);
        let mut timers = TimerTable::default();
        if role == Role::Client {
            timers.set(Timer::Start, cfg.start);
        }
        if let Some(stop) = cfg.stop {
            timers.set(Timer::Stop, stop);
        }
        Association {
            role,
            cfg,
            state: State::Closed,
            now: SimTime::ZERO,
            poll_memo: Cell::new(None),
            rng,
            secret,
            local_tag: 0,
            peer_tag: 0,
            pending_initial_tsn: 0,
            peer_initial_tsn: 0,
            last_cookie: None,
            cookie_sent_at: SimTime::ZERO,
            cookie_preservative: None,
            ctrl: VecDeque::new(),
            stream_errors: Vec::new(),
            timers,
            t1_retries: 0,
            t2_retries: 0,
            hb_gen_started: SimTime::ZERO,
            stop_pending: false,
            out: None,
            inb: None,
            paths: PathSet::default(),
            pkt_src: [0; 4],
            sack_dest: primary,
            rto_before_established: rto,
            events: VecDeque::new(),
            ecn: super::ecn::SctpEcn::default(),
            ext: None,
            ts,
            stats: AssocStats::default(),
        }
    }

    /// Per-destination figures, in the order the destinations were learnt (the
    /// primary first).
    pub fn paths(&self) -> impl Iterator<Item = ([u8; 4], PathStats)> + '_ {
        self.paths.paths.iter().map(|p| (p.addr, p.stats()))
    }

    /// What the world's livelock guard watches (world/run.rs `progress_mark`): the
    /// state and, once they exist, the sending half's cumulative ack and the receiving
    /// half's cumulative TSN and bytes delivered. Any step forward changes it; a
    /// retransmission or probe that moves none of them does not.
    pub fn progress_token(&self) -> [u64; 4] {
        let (cum_tsn, delivered) = self.inb.as_ref().map_or((u64::MAX, u64::MAX), |i| {
            (u64::from(i.cum_tsn), i.delivered_total)
        });
        let cum_ack = self.out.as_ref().map_or(u64::MAX, |o| u64::from(o.cum_ack));
        [self.state as u64, cum_ack, cum_tsn, delivered]
    }

    /// The destination new data goes to now, if the association exists.
    pub fn data_path(&self) -> Option<&Path> {
        self.paths.paths.get(self.paths.data_dest)
    }

    /// A scripted change of primary destination (RFC 9260 sec. 6.4: the upper layer
    /// may set it). New data moves there if it is active. Unknown addresses are ignored.
    pub fn set_primary(&mut self, now: SimTime, addr: [u8; 4]) {
        self.enter(now);
        let Some(i) = self.paths.index_of(addr) else {
            if self.paths.is_empty() && self.role == Role::Client {
                self.cfg.primary_peer = addr;
            }
            return;
        };
        self.paths.primary = i;
        self.paths.reselect(true, false, None);
        self.stats.failovers = self.paths.failovers;
        self.kick();
    }

    /// Every entry point that can change the association's state starts here: the
    /// time, and the deadline `poll_timeout` gave last is to be computed again.
    fn enter(&mut self, now: SimTime) {
        self.now = now;
        self.poll_memo.set(None);
    }

    /// The earliest deadline of the association's timers (`poll_timeout`).
    fn next_deadline(&self) -> Option<SimTime> {
        // ns-2's heartbeat timer counts only while established with heartbeats on.
        let hb_gen = self.state == State::Established && self.cfg.heartbeat.is_some();
        let mut next = self.timers.next(hb_gen);
        let mut consider = |t: Option<SimTime>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        // One walk over the paths for both kinds of path timer (the earliest deadline
        // does not depend on the order they are looked at).
        let t3 = matches!(self.state, State::Established | State::ShutdownSent);
        let hb = matches!(self.state, State::Established | State::Confirming);
        if t3 || hb {
            for (i, p) in self.paths.paths.iter().enumerate() {
                if t3 {
                    consider(p.t3);
                }
                if hb {
                    consider(p.hb_pending);
                    consider(self.hb_due(i));
                }
            }
        }
        if let Some(inb) = &self.inb {
            consider(inb.sack_deadline);
        }
        consider(self.sources_wakeup());
        consider(self.out.as_ref().and_then(|o| o.pace_wake));
        next
    }

    fn nonzero(&mut self) -> u32 {
        loop {
            let v = self.rng.next_u64() as u32;
            if v != 0 {
                return v;
            }
        }
    }

    fn send_ctrl(&mut self, vtag: u32, c: Chunk, dst: [u8; 4]) {
        self.ctrl.push_back((vtag, c, dst));
    }

    /// Where chunks that answer nothing go: the current data destination, else the
    /// configured primary (client) or the last packet's source (server).
    fn default_dest(&self) -> [u8; 4] {
        match self.paths.paths.get(self.paths.data_dest) {
            Some(p) => p.addr,
            None if self.role == Role::Client => self.cfg.primary_peer,
            None => self.pkt_src,
        }
    }

    /// The peer's destinations; every one starts with the same congestion state.
    fn build_paths(&mut self, addrs: &[[u8; 4]], ssthresh: f64) {
        let reserved = super::timestamp::reserved(&self.cfg.knobs);
        let mtu = self.cfg.pmtu.saturating_sub(32 + reserved) as u64;
        let cwnd = initial_cwnd_bytes(&self.cfg.knobs, mtu);
        let paths = addrs
            .iter()
            .map(|&a| {
                let mut p = Path::new(a, mtu, cwnd, ssthresh, self.rto_before_established.clone());
                p.cc = super::path_cc::for_knobs(&self.cfg.knobs);
                p
            })
            .collect();
        self.paths = PathSet::new(paths);
    }

    /// Lets the sender send what it may.
    fn kick(&mut self) {
        if self.state == State::Established {
            self.refill_sources();
        }
        if let Some(out) = self.out.as_mut() {
            if self.state == State::Established {
                out.send_new(self.now, &mut self.paths);
            }
        }
        if self.ext.is_some() {
            self.reconfig_poll();
        }
        self.maybe_shutdown();
    }

    fn current_rto(&self) -> SimDuration {
        self.data_path()
            .map_or(self.cfg.rto_initial, |p| p.rto.current())
    }

    fn trace_sack(&mut self, sack: &crate::net::wire::SackChunk) {
        if !self.cfg.trace_acks {
            return;
        }
        let Some(out) = &self.out else { return };
        let cum = out.packet_number(sack.cum_tsn_ack);
        let gaps = sack
            .gaps
            .iter()
            .map(|&(a, b)| (cum + u32::from(a), cum + u32::from(b)))
            .collect();
        self.events.push_back(EndpointEvent::AckReceived {
            cum_ack: cum,
            gaps,
            dups: sack.dups.len() as u32,
            rwnd_bytes: u64::from(sack.a_rwnd),
        });
    }

    fn on_sack(&mut self, sack: &crate::net::wire::SackChunk, nr_gaps: Option<&[(u16, u16)]>) {
        self.trace_sack(sack);
        if !matches!(self.state, State::Established | State::ShutdownSent) {
            return;
        }
        let Some(out) = self.out.as_mut() else { return };
        out.on_sack(self.now, sack, &mut self.paths);
        if let Some(nr) = nr_gaps {
            out.free_non_renegable(self.now, sack, nr);
        }
        for j in 0..self.paths.len() {
            if self.paths.scratch[j].clear_errors {
                self.revive(j);
            }
        }
        // PR-SCTP (RFC 3758 sec. 3.5): lifetimes, the Advanced.Peer.Ack.Point, FORWARD
        // TSN; then the sources fill the room the SACK made.
        let fwd = self.out.as_mut().and_then(|o| o.pr_after_sack(self.now));
        self.send_forward_tsn(fwd);
        if self.state == State::Established {
            self.refill_sources();
        }
        if let Some(out) = self.out.as_mut() {
            out.after_sack(self.now, &mut self.paths);
        }
    }

    /// The chunks of every data transfer (DATA, SACK) here; the rest, met a few times
    /// per association, in `handle_rare_chunk`, out of line: inlined into
    /// `handle_packet`, their state made its prologue save and set up some twenty
    /// registers and stack slots on every packet.
    #[inline(always)]
    fn handle_chunk(&mut self, vtag: u32, chunk: &Chunk) {
        match chunk {
            Chunk::Data(d) => {
                if let Some(inb) = self.inb.as_mut() {
                    inb.on_data(self.now, d);
                    if usize::from(d.stream) >= inb.streams.len() {
                        self.report_invalid_stream(d.stream);
                    }
                }
            }
            Chunk::Sack(sack) => {
                self.on_sack(sack, None);
                self.maybe_shutdown();
            }
            c => self.handle_rare_chunk(vtag, c),
        }
    }

    #[inline(never)]
    fn handle_rare_chunk(&mut self, vtag: u32, chunk: &Chunk) {
        match chunk {
            Chunk::Init(init) => self.on_init(init),
            Chunk::InitAck(ack) if self.role == Role::Client => self.on_init_ack(ack),
            Chunk::CookieAck if self.state == State::CookieEchoed => self.established_client(),
            Chunk::Heartbeat { info } => {
                let info = info.clone();
                self.send_ctrl(self.peer_tag, Chunk::HeartbeatAck { info }, self.pkt_src);
            }
            Chunk::HeartbeatAck { info } => self.on_heartbeat_ack(info),
            Chunk::Shutdown { .. } if self.role == Role::Server && self.inb.is_some() => {
                self.on_shutdown();
            }
            Chunk::ShutdownAck if self.state == State::ShutdownSent => self.on_shutdown_ack(),
            // RFC 9260 8.4 (5): the association is gone, so a resent SHUTDOWN ACK (our
            // SHUTDOWN COMPLETE was lost) gets one with the T bit under the tag it
            // carried.
            Chunk::ShutdownAck if self.state == State::Done && !self.stats.aborted => {
                self.send_ctrl(vtag, Chunk::ShutdownComplete { t_bit: true }, self.pkt_src);
            }
            Chunk::ShutdownComplete { .. } if self.state == State::ShutdownAckSent => {
                self.stop_timers();
            }
            Chunk::Abort { .. } => {
                self.stop_timers();
                self.stats.aborted = true;
            }
            // RFC 9260 3.3.10 leaves the handling to the cause; only Stale Cookie is
            // acted on (5.2.6).
            Chunk::Error { causes, .. } => self.on_error(causes),
            Chunk::ForwardTsn(f) if self.inb.is_some() => self.on_forward_tsn(f),
            Chunk::Ecne { lowest_tsn } => self.on_ecne(*lowest_tsn),
            Chunk::Cwr { lowest_tsn } => self.ecn.on_cwr(*lowest_tsn),
            Chunk::Reconfig(r) => self.on_reconfig(r),
            Chunk::Asconf(a) => self.on_asconf(a),
            Chunk::AsconfAck(a) => self.on_asconf_ack(a),
            // Without `nr_sack` this end does not speak NR-SACK (as an I-DATA chunk
            // without interleaving): counted, ignored.
            Chunk::NrSack(_) if !self.cfg.knobs.send_buffer.nr_sack => {
                self.stats.unknown_chunks += 1;
            }
            Chunk::NrSack(nr) => {
                // Loss recovery reads every block; NR blocks also free the send buffer
                // (sctp/outbound/send_buffer.rs).
                let extra = self
                    .out
                    .as_ref()
                    .map(|o| o.nr_freed_offsets(nr.cum_tsn_ack));
                let sack = nr.as_sack(extra.as_deref().unwrap_or(&[]));
                self.on_sack(&sack, Some(&nr.nr_gaps));
                self.maybe_shutdown();
            }
            c @ (Chunk::IData(_) | Chunk::IForwardTsn(_)) => self.on_interleaving_chunk(c),
            // ns-2.35's TIMESTAMP, first in its packet: the echo is in place before the
            // packet's SACK is processed (sctp/timestamp.rs). Without `timestamp`:
            // counted, ignored, as any chunk this end does not speak.
            Chunk::Timestamp(t) => match self.ts.as_mut() {
                Some(ts) => {
                    ts.on_chunk(t);
                    if let Some(out) = self.out.as_mut() {
                        out.ts_echo = ts.echo_in;
                    }
                }
                None => self.stats.unknown_chunks += 1,
            },
            _ => {}
        }
    }

    pub fn knobs(&self) -> &Knobs {
        &self.cfg.knobs
    }

    pub fn start_time(&self) -> SimTime {
        self.cfg.start
    }
}

impl Endpoint for Association {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        self.enter(now);
        let TransportRepr::Sctp(sctp) = &pkt.transport else {
            return;
        };
        self.pkt_src = pkt.ip.src;
        // RFC 9260 3.2: an unknown chunk whose type has the high bit clear ends the
        // packet; it and everything after it go unprocessed.
        // One pass (every packet comes through here) for what the packet holds.
        let (mut end, mut had_data) = (sctp.chunks.len(), false);
        for (i, c) in sctp.chunks.iter().enumerate() {
            match c {
                Chunk::Data(_) | Chunk::IData(_) => had_data = true,
                Chunk::Unknown(u) if u.stops_packet() => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        let mut chunks = &sctp.chunks[..end];
        let Some(first) = self.admit(sctp, chunks, pkt.ip.src) else {
            return;
        };
        chunks = &chunks[first..];
        if had_data {
            // RFC 9260 6.4: the SACK goes where the DATA came from.
            self.sack_dest = pkt.ip.src;
        }
        let mut causes = Vec::new();
        // RFC 4895 6.3: with AUTH on, covered chunks need a valid AUTH before them.
        let auth = if self.ext.is_some() {
            self.auth_verdict(chunks)
        } else {
            None
        };
        for (k, c) in chunks.iter().enumerate() {
            if let Some(v) = auth {
                if self.auth_drops(v, k, c) {
                    continue;
                }
            }
            match c {
                Chunk::Unknown(u) => {
                    self.stats.unknown_chunks += 1;
                    if u.reports() {
                        causes.push(u.cause());
                    }
                }
                c => self.handle_chunk(sctp.vtag, c),
            }
            // RFC 9260 3.3.7: chunks behind an ABORT are ignored.
            if matches!(c, Chunk::Abort { .. }) {
                break;
            }
        }
        // RFC 9260 3.2: chunk types 01 and 11 are reported in one ERROR chunk per
        // packet, to an association's peer only (before one exists there is no tag to
        // send it under; the INIT ACK path answers statelessly).
        if !causes.is_empty()
            && self.peer_tag != 0
            && !matches!(self.state, State::Closed | State::CookieWait | State::Done)
        {
            self.send_error(causes, pkt.ip.src);
        }
        if self.ext.is_some() {
            if had_data {
                self.reconfig_after_data();
            }
            self.reconfig_poll();
        }
        if had_data && pkt.ip.ecn == crate::net::aqm::CE {
            self.ce_arrived(chunks);
        }
        if had_data {
            if let Some(inb) = self.inb.as_mut() {
                inb.after_packet(now);
                if self.cfg.total.is_some()
                    && self.stats.completed_at.is_none()
                    && inb.all_delivered(self.cfg.total.unwrap_or(0))
                {
                    self.stats.completed_at = Some(now);
                }
            }
            // RFC 9260 6.5: the ERROR goes "immediately"; with no SACK due now (a
            // delayed one) it goes alone, else behind the SACK (`transmit`).
            if !self.stream_errors.is_empty() && !self.sack_due() {
                self.flush_stream_errors();
            }
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        self.enter(now);
        if self.timers.is_expired(Timer::Start, now) {
            self.start_client();
        }
        if self.timers.is_expired(Timer::Stop, now) {
            self.on_stop_time();
        }
        if self.timers.is_expired(Timer::T1Init, now) {
            self.on_t1(now);
        }
        if self.timers.is_expired(Timer::T2Shutdown, now) {
            self.on_t2(now);
        }
        if self.timers.is_expired(Timer::Reconfig, now) {
            self.on_reconfig_timer();
        }
        if self.timers.is_expired(Timer::Asconf, now) {
            self.on_asconf_timer();
        }
        if let Some(inb) = self.inb.as_mut() {
            inb.on_timeout(now);
        }
        if self.sources_wakeup().is_some_and(|t| t <= now) {
            self.kick();
        }
        // A paced destination's gap is over (`path_bbr`).
        if let Some(out) = self.out.as_mut() {
            if out.pace_wake.is_some_and(|t| t <= now) {
                out.pace_wake = None;
                self.kick();
            }
        }
        if matches!(self.state, State::Established | State::ShutdownSent) && !self.t3_expiries(now)
        {
            return;
        }
        self.heartbeat_timers(now);
        self.stats.failovers = self.paths.failovers;
    }

    // Inlined, so that the last call of every service (nothing to send) costs a few
    // loads instead of a call into `transmit`; the packet slot is left alone then.
    #[inline]
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        self.enter(now);
        if !self.sack_due()
            && self.ctrl.is_empty()
            && self.out.as_ref().is_none_or(|o| o.tx.is_empty())
        {
            return false;
        }
        self.transmit(now, pkt)
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if let Some(next) = self.poll_memo.get() {
            debug_assert_eq!(next, self.next_deadline(), "poll memo outlived a change");
            return next;
        }
        let next = self.next_deadline();
        self.poll_memo.set(Some(next));
        next
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        if let Some(e) = self.events.pop_front() {
            return Some(e);
        }
        self.out.as_mut().and_then(|o| o.events.pop_front())
    }

    fn is_done(&self) -> bool {
        match (
            self.role,
            self.cfg.total.is_some() || self.cfg.stop.is_some(),
        ) {
            (_, true) => self.state == State::Done,
            (Role::Server, false) => true,
            (Role::Client, false) => false,
        }
    }

    fn finish(&mut self, now: SimTime) {
        self.poll_memo.set(None);
        if let Some(inb) = self.inb.as_mut() {
            inb.finish(now);
        }
    }

    fn sample(&self, out: &mut dyn FnMut(&'static str, f64)) {
        if let Some(o) = &self.out {
            o.sample(&self.paths, out);
        }
        if let Some(i) = &self.inb {
            out("a_rwnd", f64::from(i.a_rwnd()));
        }
    }

    /// The data sender's per-destination state (the receiver sends no data, so it
    /// reports nothing here): windows in chunk bytes, `rto` and `srtt` in seconds,
    /// `state` 1 active, 0.5 potentially failed (RFC 7829), 0 inactive, and `errors`
    /// the destination's error counter (RFC 9260 8.2).
    fn sample_paths(&self, out: &mut dyn FnMut([u8; 4], &'static str, f64)) {
        if self.out.is_none() {
            return;
        }
        for p in &self.paths.paths {
            out(p.addr, "cwnd", p.cwnd);
            out(p.addr, "ssthresh", p.ssthresh);
            out(p.addr, "pba", p.pba);
            out(p.addr, "flight", p.outstanding);
            out(p.addr, "rto", p.rto.current().as_secs_f64());
            if let Some(srtt) = p.rto.srtt() {
                out(p.addr, "srtt", srtt);
            }
            let state = match p.state {
                PathState::Active => 1.0,
                PathState::PotentiallyFailed => 0.5,
                PathState::Inactive => 0.0,
            };
            out(p.addr, "state", state);
            out(p.addr, "errors", f64::from(p.error_count));
        }
    }
}

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod prsctp_tests;
#[cfg(test)]
mod tests;
