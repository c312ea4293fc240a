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

mod handshake;
mod screen;

use super::config::{Knobs, initial_cwnd_bytes};
use super::inbound::Inbound;
use super::outbound::Outbound;
use super::path::{Path, PathSet, PathState, PathStats, Rto};
use crate::endpoint::{Endpoint, EndpointEvent};
use crate::metrics::Window;
use crate::net::wire::{
    Chunk, DataChunk, ErrorCause, InitChunk, SCTP_HEADER_LEN, SctpRepr, TransportRepr, cause,
};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, SimDuration, SimTime};
use screen::{Screen, Tags, screen};
use std::collections::VecDeque;

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

/// Heartbeat Info as Linux (>= 5.14, `struct sctp_sender_hb_info`) sends it: a 28-byte
/// socket address (family, port, IPv4 address, zeros), the send time, a 64-bit nonce
/// and the PLPMTUD probe size; 48 bytes, so the HEARTBEAT chunk is 56 bytes.
const HB_INFO_LINUX: usize = 48;
/// ns-2.35's HEARTBEAT (`SctpHeartbeatChunk_S`, 24 bytes on a 64-bit host): a
/// timestamp and a destination pointer, here the send time, address and a nonce.
const HB_INFO_NS2: usize = 16;
const AF_INET: u16 = 2;
/// Distinct invalid stream ids reported in one ERROR chunk: 4 + 8 x 64 = 516 bytes, so
/// the chunk fits a packet of the smallest IPv4 MTU (576) on its own. More in one burst
/// are still acknowledged and discarded, just not all reported.
const MAX_STREAM_ERRORS: usize = 64;

fn encode_hb_info(ns2: bool, sent: SimTime, addr: [u8; 4], port: u16, nonce: u64) -> Vec<u8> {
    if ns2 {
        let mut v = Vec::with_capacity(HB_INFO_NS2);
        v.extend_from_slice(&sent.as_nanos().to_be_bytes());
        v.extend_from_slice(&addr);
        v.extend_from_slice(&(nonce as u32).to_be_bytes());
        v
    } else {
        let mut v = vec![0u8; HB_INFO_LINUX];
        v[0..2].copy_from_slice(&AF_INET.to_be_bytes());
        v[2..4].copy_from_slice(&port.to_be_bytes());
        v[4..8].copy_from_slice(&addr);
        v[28..36].copy_from_slice(&sent.as_nanos().to_be_bytes());
        v[36..44].copy_from_slice(&nonce.to_be_bytes());
        v
    }
}

/// (send time, destination address, nonce) from a Heartbeat Info we wrote.
fn decode_hb_info(info: &[u8]) -> Option<(SimTime, [u8; 4], u64)> {
    let u64_at = |i: usize| -> Option<u64> {
        Some(u64::from_be_bytes(info.get(i..i + 8)?.try_into().ok()?))
    };
    let addr_at = |i: usize| -> Option<[u8; 4]> { info.get(i..i + 4)?.try_into().ok() };
    match info.len() {
        HB_INFO_LINUX => Some((SimTime::from_nanos(u64_at(28)?), addr_at(4)?, u64_at(36)?)),
        HB_INFO_NS2 => {
            let n: [u8; 4] = info.get(12..16)?.try_into().ok()?;
            Some((
                SimTime::from_nanos(u64_at(0)?),
                addr_at(8)?,
                u64::from(u32::from_be_bytes(n)),
            ))
        }
        _ => None,
    }
}

pub struct Association {
    pub role: Role,
    cfg: AssocCfg,
    pub state: State,
    now: SimTime,
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
    t1: Option<SimTime>,
    t1_retries: u32,
    t2: Option<SimTime>,
    /// T2-shutdown expiries so far: the RTO doubles with each (RFC 9260 9.2 follows
    /// 6.3.3), and more than Association.Max.Retrans of them end the association.
    t2_retries: u32,
    /// ns-2's association-wide heartbeat timer: (expiry, time it was started).
    hb_gen: Option<(SimTime, SimTime)>,
    started: bool,
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
        Association {
            role,
            cfg,
            state: State::Closed,
            now: SimTime::ZERO,
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
            t1: None,
            t1_retries: 0,
            t2: None,
            t2_retries: 0,
            hb_gen: None,
            started: false,
            stop_pending: false,
            out: None,
            inb: None,
            paths: PathSet::default(),
            pkt_src: [0; 4],
            sack_dest: primary,
            rto_before_established: rto,
            events: VecDeque::new(),
            stats: AssocStats::default(),
        }
    }

    /// Per-destination figures, in the order the destinations were learnt (the
    /// primary first).
    pub fn paths(&self) -> impl Iterator<Item = ([u8; 4], PathStats)> + '_ {
        self.paths.paths.iter().map(|p| (p.addr, p.stats()))
    }

    /// The destination new data goes to now, if the association exists.
    pub fn data_path(&self) -> Option<&Path> {
        self.paths.paths.get(self.paths.data_dest)
    }

    /// A scripted change of primary destination (RFC 9260 sec. 6.4: the upper layer
    /// may set it). New data moves there if it is active. Unknown addresses are ignored.
    pub fn set_primary(&mut self, now: SimTime, addr: [u8; 4]) {
        self.now = now;
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

    /// An ERROR chunk under the peer's tag (T bit clear, RFC 9260 3.3.10).
    fn send_error(&mut self, causes: Vec<ErrorCause>, dst: [u8; 4]) {
        self.stats.errors_sent += 1;
        self.send_ctrl(
            self.peer_tag,
            Chunk::Error {
                t_bit: false,
                causes,
            },
            dst,
        );
    }

    /// RFC 9260 6.5: a DATA chunk "with an invalid stream identifier" is acknowledged
    /// as usual and discarded (`Inbound::on_data`), and an ERROR with cause Invalid
    /// Stream Identifier (3.3.10.1) goes back at once; it may share the SACK's packet
    /// if it follows the SACK (`flush_stream_errors`). Our own sender never uses such
    /// a stream (its count is min(OS, the peer's MIS), 5.1.1); only a live peer can
    /// send one.
    #[inline(never)]
    fn report_invalid_stream(&mut self, sid: u16) {
        if self.stream_errors.len() < MAX_STREAM_ERRORS && !self.stream_errors.contains(&sid) {
            self.stream_errors.push(sid);
        }
    }

    /// Queues the pending Invalid Stream Identifier causes as one ERROR chunk to where
    /// SACKs go.
    fn flush_stream_errors(&mut self) {
        if self.stream_errors.is_empty() {
            return;
        }
        let causes = self
            .stream_errors
            .drain(..)
            .map(|sid| {
                let [hi, lo] = sid.to_be_bytes();
                ErrorCause {
                    code: cause::INVALID_STREAM_IDENTIFIER,
                    info: vec![hi, lo, 0, 0],
                }
            })
            .collect();
        self.send_error(causes, self.sack_dest);
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

    /// RFC 9260 3.3.2.1: a single-homed end lists no address (the packet's source is
    /// its sole address); a multihomed one lists them all.
    fn listed_addrs(&self) -> Vec<[u8; 4]> {
        if self.cfg.local_addrs.len() > 1 {
            self.cfg.local_addrs.clone()
        } else {
            Vec::new()
        }
    }

    fn t1_timeout(&self) -> SimDuration {
        let backoff = 1u64 << self.t1_retries.min(6);
        self.cfg
            .rto_initial
            .saturating_mul(backoff)
            .min(self.cfg.rto_max)
    }

    fn t2_timeout(&self) -> SimDuration {
        let backoff = 1u64 << self.t2_retries.min(6);
        self.current_rto()
            .saturating_mul(backoff)
            .min(self.cfg.rto_max)
    }

    fn start_client(&mut self) {
        self.started = true;
        self.local_tag = self.nonzero();
        let tsn = self.rng.next_u64() as u32;
        self.pending_initial_tsn = tsn;
        self.state = State::CookieWait;
        self.send_init();
    }

    fn send_init(&mut self) {
        let init = InitChunk {
            init_tag: self.local_tag,
            a_rwnd: self.cfg.receive_buffer.min(u64::from(u32::MAX)) as u32,
            outbound_streams: self.cfg.streams,
            inbound_streams: u16::MAX,
            initial_tsn: self.pending_initial_tsn,
            addrs: self.listed_addrs(),
            cookie_preservative: self.cookie_preservative,
            unrecognized: Vec::new(),
        };
        self.send_ctrl(0, Chunk::Init(init), self.cfg.primary_peer);
        self.t1 = Some(self.now + self.t1_timeout());
    }

    /// The peer's destinations; every one starts with the same congestion state.
    fn build_paths(&mut self, addrs: &[[u8; 4]], ssthresh: f64) {
        let mtu = self.cfg.pmtu.saturating_sub(32) as u64;
        let cwnd = initial_cwnd_bytes(&self.cfg.knobs, mtu);
        let paths = addrs
            .iter()
            .map(|&a| Path::new(a, mtu, cwnd, ssthresh, self.rto_before_established.clone()))
            .collect();
        self.paths = PathSet::new(paths);
    }

    fn established_client(&mut self) {
        self.t1 = None;
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

    /// Heartbeat periods start now on every destination.
    fn start_heartbeats(&mut self) {
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
                self.hb_gen = Some((now + d, now));
            }
        }
    }

    /// ns-2 `CalcHeartbeatTime`: RTO + HB.interval + U(-RTO/2, RTO/2).
    fn ns2_hb_time(&mut self, rto: SimDuration, interval: SimDuration) -> SimDuration {
        let r = rto.as_secs_f64();
        SimDuration::from_secs_f64(interval.as_secs_f64() + r + r * (self.rng.uniform() - 0.5))
    }

    fn send_heartbeat(&mut self, i: usize) {
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

    fn on_heartbeat_ack(&mut self, info: &[u8]) {
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
        p.hb_pending = None;
        p.rto.sample(now.saturating_since(sent).as_secs_f64());
        p.confirmed = true;
        // RFC 9260 8.3: the ACK clears the destination's and the association's error
        // counters and makes an inactive (or potentially failed) destination active.
        self.paths.assoc_errors = 0;
        self.revive(i);
        if self.state == State::Confirming && self.paths.paths.iter().all(|p| p.confirmed) {
            self.state = State::Established;
            self.start_heartbeats();
            self.kick();
        }
    }

    /// Destination `i` answered: errors cleared, active again, data may return.
    fn revive(&mut self, i: usize) {
        let p = &mut self.paths.paths[i];
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
    fn path_error(&mut self, i: usize, counts_for_assoc: bool) -> bool {
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
    fn ns2_primary_follows(&mut self, i: usize) {
        if i == self.paths.primary {
            self.paths.primary = self.paths.data_dest;
        }
    }

    /// Lets the sender send what it may.
    fn kick(&mut self) {
        if let Some(out) = self.out.as_mut() {
            if self.state == State::Established {
                out.send_new(self.now, &mut self.paths);
            }
        }
        self.maybe_shutdown();
    }

    fn current_rto(&self) -> SimDuration {
        self.data_path()
            .map_or(self.cfg.rto_initial, |p| p.rto.current())
    }

    /// RFC 9260 3.3.8: a SHUTDOWN acknowledges the last TSN received in sequence. A
    /// client that only sends has received none: the TSN before the peer's first, not 0
    /// (usrsctp aborts the association when the value is not below its next TSN).
    fn shutdown_cum_ack(&self) -> u32 {
        self.inb
            .as_ref()
            .map_or(self.peer_initial_tsn.wrapping_sub(1), |i| i.cum_tsn)
    }

    fn maybe_shutdown(&mut self) {
        if self.role != Role::Client || self.state != State::Established {
            return;
        }
        let Some(out) = &self.out else { return };
        if out.done() {
            // Everything delivered and acknowledged: graceful close (RFC 9260 9.2).
            self.state = State::ShutdownSent;
            let cum = self.shutdown_cum_ack();
            let dst = self.default_dest();
            self.send_ctrl(self.peer_tag, Chunk::Shutdown { cum_tsn_ack: cum }, dst);
            self.t2 = Some(self.now + self.t2_timeout());
        }
    }

    fn abort(&mut self) {
        let dst = self.default_dest();
        self.send_ctrl(self.peer_tag, Chunk::Abort { t_bit: false }, dst);
        self.stats.aborted = true;
        self.stop_timers();
    }

    fn stop_timers(&mut self) {
        self.state = State::Done;
        self.t1 = None;
        self.t2 = None;
        self.hb_gen = None;
        for p in &mut self.paths.paths {
            p.t3 = None;
            p.hb_pending = None;
        }
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

    fn on_sack(&mut self, sack: &crate::net::wire::SackChunk) {
        self.trace_sack(sack);
        if !matches!(self.state, State::Established | State::ShutdownSent) {
            return;
        }
        let Some(out) = self.out.as_mut() else { return };
        out.on_sack(self.now, sack, &mut self.paths);
        for j in 0..self.paths.len() {
            if self.paths.scratch[j].clear_errors {
                self.revive(j);
            }
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
                self.on_sack(sack);
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
                self.state = State::ShutdownAckSent;
                self.send_ctrl(self.peer_tag, Chunk::ShutdownAck, self.pkt_src);
                // RFC 9260 9.2: the SHUTDOWN ACK is guarded by a T2-shutdown timer of
                // its own, so a lost SHUTDOWN COMPLETE gets it resent. A repeated
                // SHUTDOWN is answered without restarting the timer.
                if self.t2.is_none() {
                    self.t2 = Some(self.now + self.t2_timeout());
                }
            }
            Chunk::ShutdownAck if self.state == State::ShutdownSent => {
                self.send_ctrl(
                    self.peer_tag,
                    Chunk::ShutdownComplete { t_bit: false },
                    self.pkt_src,
                );
                self.stop_timers();
            }
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
            _ => {}
        }
    }

    pub fn knobs(&self) -> &Knobs {
        &self.cfg.knobs
    }

    pub fn start_time(&self) -> SimTime {
        self.cfg.start
    }

    /// When the next HEARTBEAT to destination `i` is due under RFC 9260 8.3 (ns-2's
    /// single timer is handled apart): unconfirmed and potentially-failed destinations
    /// are probed at once, one HEARTBEAT per RTO (RFC 9260 5.4, RFC 7829 sec. 3.2);
    /// others once per HB.interval + RTO x (1 + jitter) of idleness.
    fn hb_due(&self, i: usize) -> Option<SimTime> {
        if self.cfg.knobs.ns2_paths {
            return None;
        }
        let p = &self.paths.paths[i];
        if p.hb_pending.is_some() {
            return None;
        }
        // RFC 7829 sec. 3.2: a potentially-failed destination is probed whether or
        // not heartbeats are enabled (HB.interval only paces idle active ones).
        if !p.confirmed || p.state == PathState::PotentiallyFailed {
            return Some(p.hb_base);
        }
        let interval = self.cfg.heartbeat?;
        let rto = p.rto.current().as_secs_f64();
        Some(p.hb_base + interval + SimDuration::from_secs_f64(rto * (1.0 + p.hb_jitter)))
    }

    fn heartbeat_timers(&mut self, now: SimTime) {
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
        if let (Some((fire, started)), Some(interval)) = (self.hb_gen, self.cfg.heartbeat) {
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
                self.hb_gen = Some((now + d, now));
            }
        }
    }
}

impl Association {
    /// Whether the receiver side has a SACK to send now.
    #[inline]
    fn sack_due(&self) -> bool {
        self.inb.as_ref().is_some_and(Inbound::wants_sack)
            && matches!(self.state, State::Established | State::ShutdownAckSent)
    }

    /// `poll_transmit` once there is something to send: a SACK, control chunks or a
    /// DATA packet.
    fn transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        let sack = if self.sack_due() {
            self.inb.as_mut().map(Inbound::take_sack)
        } else {
            None
        };
        let room = self.cfg.pmtu.saturating_sub(32);
        // The header is built in place, in the packet slot's own SCTP header (whose chunk
        // list keeps its allocation): moving it out and back went through a stack copy
        // written field by field and read 16 bytes at a time, a store-forwarding stall
        // that perf put at a third of this function's samples.
        if !matches!(pkt.transport, TransportRepr::Sctp(_)) {
            pkt.transport = TransportRepr::Sctp(SctpRepr {
                src_port: 0,
                dst_port: 0,
                vtag: 0,
                chunks: Vec::new(),
            });
        }
        let TransportRepr::Sctp(repr) = &mut pkt.transport else {
            unreachable!("set to SCTP just above")
        };
        repr.chunks.clear();
        let (src, dst) = match self.role {
            Role::Client => (self.cfg.ports.0, self.cfg.ports.1),
            Role::Server => (self.cfg.ports.1, self.cfg.ports.0),
        };
        repr.src_port = src;
        repr.dst_port = dst;
        let mut kind = PacketKind::Control;
        let mut data_num = 0;
        // The chunks' padded lengths, added up as they are packed (`finalize_with_len`).
        let chunks_len;
        // A SACK goes behind the control chunks already waiting; alone (the usual case:
        // one per data packet received) it goes straight into the packet.
        let first = match sack {
            Some(sack) => {
                let c = (self.peer_tag, Chunk::Sack(sack), self.sack_dest);
                if self.ctrl.is_empty() && self.stream_errors.is_empty() {
                    Some(c)
                } else {
                    self.ctrl.push_back(c);
                    // RFC 9260 6.5: an ERROR bundled with the SACK follows it.
                    self.flush_stream_errors();
                    self.ctrl.pop_front()
                }
            }
            None => self.ctrl.pop_front(),
        };
        if let Some((vtag, first, to)) = first {
            repr.vtag = vtag;
            pkt.ip.dst = to;
            let mut used = first.padded_len();
            let only_sack = matches!(first, Chunk::Sack(_));
            repr.chunks.push(first);
            let mut all_sack = only_sack;
            while let Some((v, c, d)) = self.ctrl.front() {
                if *v != vtag || *d != to || used + c.padded_len() > room {
                    break;
                }
                used += c.padded_len();
                all_sack &= matches!(c, Chunk::Sack(_));
                let (_, c, _) = self.ctrl.pop_front().expect("front exists");
                repr.chunks.push(c);
            }
            if all_sack {
                kind = PacketKind::Ack;
            }
            chunks_len = used;
        } else if let Some(tx) = self.out.as_mut().and_then(|o| o.tx.pop_front()) {
            repr.vtag = self.peer_tag;
            if let Some(p) = self.paths.paths.get(tx.dest) {
                pkt.ip.dst = p.addr;
            }
            if let (Some(first), Some(out)) = (tx.chunks.first(), self.out.as_ref()) {
                data_num = out.packet_number(first.tsn);
            }
            let mut chunks = tx.chunks;
            chunks_len = chunks
                .iter()
                .map(|d| DataChunk::len_for(d.payload_len as usize).next_multiple_of(4))
                .sum();
            repr.chunks.extend(chunks.drain(..).map(Chunk::Data));
            if let Some(out) = self.out.as_mut() {
                out.recycle_chunks(chunks);
            }
            kind = PacketKind::Data;
        } else {
            return false;
        }
        pkt.payload_len = 0;
        pkt.kind = kind;
        pkt.data_num = data_num;
        pkt.ack_num = match self.inb.as_ref() {
            Some(inb) if kind == PacketKind::Ack => inb
                .cum_tsn
                .wrapping_sub(self.peer_initial_tsn)
                .wrapping_add(1),
            _ => 0,
        };
        pkt.finalize_with_len(SCTP_HEADER_LEN + chunks_len);
        if kind == PacketKind::Ack && self.cfg.window.contains(now) {
            self.stats.ack_packets += 1;
            self.stats.ack_bytes += u64::from(pkt.size);
        }
        if kind == PacketKind::Control && self.cfg.window.contains(now) {
            self.stats.control_packets += 1;
        }
        true
    }
}

impl Endpoint for Association {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        self.now = now;
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
                Chunk::Data(_) => had_data = true,
                Chunk::Unknown(u) if u.stops_packet() => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        let mut chunks = &sctp.chunks[..end];
        let verdict = screen(
            &sctp.chunks,
            Tags {
                vtag: sctp.vtag,
                local: self.local_tag,
                peer: self.peer_tag,
                tcb: self.has_tcb(),
                setting_up: matches!(self.state, State::CookieWait | State::CookieEchoed),
            },
        );
        match verdict {
            Screen::Ours | Screen::Init => {}
            Screen::RuleBroken => {
                self.stats.rule_violations += 1;
                return;
            }
            Screen::BadTag => {
                self.stats.bad_vtag_drops += 1;
                return;
            }
            Screen::OotbDiscard | Screen::OotbShutdownComplete | Screen::OotbAbort => {
                self.stats.ootb_packets += 1;
                // RFC 9260 8.4 (5), (8): the answer reflects the packet's own tag.
                let answer = match verdict {
                    Screen::OotbShutdownComplete => Chunk::ShutdownComplete { t_bit: true },
                    Screen::OotbAbort => Chunk::Abort { t_bit: true },
                    _ => return,
                };
                self.send_ctrl(sctp.vtag, answer, pkt.ip.src);
                return;
            }
            Screen::Reflected => {
                for c in chunks {
                    match c {
                        Chunk::Abort { t_bit: true } => {
                            self.stop_timers();
                            self.stats.aborted = true;
                        }
                        Chunk::ShutdownComplete { t_bit: true }
                            if self.state == State::ShutdownAckSent =>
                        {
                            self.stop_timers();
                        }
                        _ => {}
                    }
                }
                return;
            }
            Screen::CookieEcho => {
                let Some(Chunk::CookieEcho { cookie }) = chunks.first() else {
                    return;
                };
                if !self.on_cookie_echo(sctp.vtag, cookie) {
                    return;
                }
                chunks = &chunks[1..];
            }
        }
        if had_data {
            // RFC 9260 6.4: the SACK goes where the DATA came from.
            self.sack_dest = pkt.ip.src;
        }
        let mut causes = Vec::new();
        for c in chunks {
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
        self.now = now;
        if self.role == Role::Client && !self.started && now >= self.cfg.start {
            self.start_client();
        }
        if let Some(stop) = self.cfg.stop {
            if now >= stop && !self.stop_pending {
                self.stop_pending = true;
                if let Some(out) = self.out.as_mut() {
                    out.app.stop();
                }
                self.maybe_shutdown();
            }
        }
        if self.t1.is_some_and(|t| now >= t) {
            self.t1_retries += 1;
            if self.t1_retries > self.cfg.max_init_retrans {
                self.t1 = None;
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
                        self.t1 = Some(now + self.t1_timeout());
                    }
                    _ => self.t1 = None,
                }
            }
        }
        if self.t2.is_some_and(|t| now >= t) {
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
                    self.t2 = Some(now + self.t2_timeout());
                }
                None => self.t2 = None,
            }
        }
        if let Some(inb) = self.inb.as_mut() {
            inb.on_timeout(now);
        }
        if matches!(self.state, State::Established | State::ShutdownSent) {
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
                        return;
                    }
                }
                if let Some(out) = self.out.as_mut() {
                    out.on_t3(now, i, &mut self.paths);
                }
                // ns-2 `Timeout` (DATA): after the retransmission, an inactive
                // destination gets a HEARTBEAT at once when heartbeats are on, on every
                // expiry, not only the one that failed it (with every destination down
                // each gets one per timeout); CMT-PF (`SctpCMTAgent::Timeout`) probes a
                // potentially-failed one so whether or not heartbeats are on.
                let p = &self.paths.paths[i];
                if has_data
                    && self.cfg.knobs.ns2_paths
                    && ((self.cfg.heartbeat.is_some() && p.state == PathState::Inactive)
                        || p.state == PathState::PotentiallyFailed)
                {
                    self.send_heartbeat(i);
                }
            }
        }
        self.heartbeat_timers(now);
        self.stats.failovers = self.paths.failovers;
    }

    // Inlined, so that the last call of every service (nothing to send) costs a few
    // loads instead of a call into `transmit`; the packet slot is left alone then.
    #[inline]
    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        self.now = now;
        if !self.sack_due()
            && self.ctrl.is_empty()
            && self.out.as_ref().is_none_or(|o| o.tx.is_empty())
        {
            return false;
        }
        self.transmit(now, pkt)
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let mut next: Option<SimTime> = None;
        let mut consider = |t: Option<SimTime>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        if self.role == Role::Client && !self.started {
            consider(Some(self.cfg.start));
        }
        if !self.stop_pending {
            consider(self.cfg.stop);
        }
        consider(self.t1);
        consider(self.t2);
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
        if self.state == State::Established && self.cfg.heartbeat.is_some() {
            consider(self.hb_gen.map(|(t, _)| t));
        }
        if let Some(inb) = &self.inb {
            consider(inb.sack_deadline);
        }
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
mod tests {
    use super::*;
    use crate::net::wire::{DataChunk, DataFlags};
    use crate::sctp::config::Variant;

    pub(super) fn cfg() -> AssocCfg {
        AssocCfg {
            ports: (50_000, 52_000),
            pmtu: 1500,
            streams: 1,
            receive_buffer: 65_536,
            initial_ssthresh: None,
            knobs: super::super::config::preset(Variant::Rfc4960),
            rto_initial: SimDuration::from_secs(3),
            rto_min: SimDuration::from_secs(1),
            rto_max: SimDuration::from_secs(60),
            delayed_sack: None,
            heartbeat: None,
            cookie_lifetime: SimDuration::from_secs(60),
            association_max_retrans: 10,
            max_init_retrans: 8,
            total: Some(10_000),
            message_size: 1000,
            unordered: false,
            start: SimTime::ZERO,
            stop: None,
            window: Window::ALL,
            trace_sends: false,
            trace_acks: false,
            local_addrs: vec![[10, 0, 0, 1]],
            primary_peer: [10, 0, 0, 2],
        }
    }

    pub(super) fn server() -> Association {
        Association::new(Role::Server, cfg(), RngStream::new(1, "server"))
    }

    pub(super) fn client() -> Association {
        Association::new(Role::Client, cfg(), RngStream::new(1, "client"))
    }

    /// Everything `from` wants to send now.
    pub(super) fn drain(from: &mut Association, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        loop {
            let mut p = Packet::default();
            if !from.poll_transmit(now, &mut p) {
                return out;
            }
            out.push(p);
        }
    }

    pub(super) fn sctp(p: &Packet) -> &SctpRepr {
        match &p.transport {
            TransportRepr::Sctp(s) => s,
            _ => panic!("not SCTP"),
        }
    }

    pub(super) fn packet(vtag: u32, chunks: Vec<Chunk>) -> Packet {
        Packet {
            transport: TransportRepr::Sctp(SctpRepr {
                src_port: 50_000,
                dst_port: 52_000,
                vtag,
                chunks,
            }),
            ..Packet::default()
        }
    }

    pub(super) fn init(tag: u32) -> Chunk {
        Chunk::Init(InitChunk {
            init_tag: tag,
            a_rwnd: 65_536,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
            addrs: vec![],
            cookie_preservative: None,
            unrecognized: vec![],
        })
    }

    /// The client's INIT, delivered to the server; returns the server's INIT-ACK packet.
    pub(super) fn handshake_to_init_ack(c: &mut Association, s: &mut Association) -> Packet {
        c.handle_timeout(SimTime::ZERO);
        let init = drain(c, SimTime::ZERO);
        assert_eq!(init.len(), 1);
        assert_eq!(sctp(&init[0]).vtag, 0, "an INIT carries verification tag 0");
        s.handle_packet(SimTime::ZERO, &init[0]);
        let mut ack = drain(s, SimTime::ZERO);
        assert_eq!(ack.len(), 1);
        ack.remove(0)
    }

    #[test]
    fn inits_allocate_no_association_state() {
        let mut s = server();
        for tag in 1..=1000 {
            s.handle_packet(SimTime::ZERO, &packet(0, vec![init(tag)]));
        }
        assert_eq!(s.stats.inits_received, 1000);
        assert!(s.inb.is_none(), "no TCB before a valid COOKIE-ECHO");
        assert_eq!(s.stats.associations_created, 0);
        let acks = drain(&mut s, SimTime::ZERO);
        assert_eq!(acks.len(), 1000);
        // Each INIT-ACK goes back under the INIT's own tag.
        assert_eq!(sctp(&acks[41]).vtag, 42);
    }

    #[test]
    fn valid_cookie_creates_the_association_once() {
        let (mut c, mut s) = (client(), server());
        let ack = handshake_to_init_ack(&mut c, &mut s);
        c.handle_packet(SimTime::ZERO, &ack);
        let echo = drain(&mut c, SimTime::ZERO);
        s.handle_packet(SimTime::ZERO, &echo[0]);
        // A retransmitted COOKIE-ECHO is answered again but creates nothing new.
        s.handle_packet(SimTime::ZERO, &echo[0]);
        assert_eq!(s.stats.associations_created, 1);
        assert!(s.inb.is_some());
        let cookie_acks = drain(&mut s, SimTime::ZERO);
        assert_eq!(
            cookie_acks.len(),
            1,
            "two COOKIE-ACKs bundled in one packet"
        );
        c.handle_packet(SimTime::ZERO, &cookie_acks[0]);
        assert_eq!(c.state, State::Established);
        assert!(
            drain(&mut c, SimTime::ZERO)
                .iter()
                .any(|p| p.kind == PacketKind::Data)
        );
    }

    #[test]
    fn tampered_and_stale_cookies_are_rejected() {
        let (mut c, mut s) = (client(), server());
        let ack = handshake_to_init_ack(&mut c, &mut s);
        let Some(Chunk::InitAck(ia)) = sctp(&ack).chunks.first().cloned() else {
            panic!("INIT-ACK expected")
        };
        let mut bad = ia.state_cookie.clone();
        bad[10] ^= 0x40;
        s.handle_packet(
            SimTime::ZERO,
            &packet(ia.init_tag, vec![Chunk::CookieEcho { cookie: bad }]),
        );
        assert_eq!(s.stats.cookie_rejects, 1);
        assert!(s.inb.is_none());
        // The genuine cookie after its 60 s lifetime.
        let late = SimTime::from_nanos(61_000_000_000);
        s.handle_packet(
            late,
            &packet(
                ia.init_tag,
                vec![Chunk::CookieEcho {
                    cookie: ia.state_cookie.clone(),
                }],
            ),
        );
        assert_eq!(s.stats.cookie_rejects, 2);
        assert!(s.inb.is_none());
        // RFC 9260 5.1.5 step 3: the stale one is answered with an ERROR, "Stale
        // Cookie" (3), 1 s late = 1_000_000 us, under the INIT's tag; no COOKIE-ACK.
        let out = drain(&mut s, late);
        assert_eq!(out.len(), 1);
        assert_eq!(sctp(&out[0]).vtag, c.local_tag);
        assert_eq!(
            sctp(&out[0]).chunks,
            vec![Chunk::Error {
                t_bit: false,
                causes: vec![ErrorCause {
                    code: 3,
                    info: 1_000_000u32.to_be_bytes().to_vec(),
                }],
            }]
        );
    }

    #[test]
    fn wrong_verification_tag_is_dropped_and_counted() {
        let (mut c, mut s) = (client(), server());
        let ack = handshake_to_init_ack(&mut c, &mut s);
        c.handle_packet(SimTime::ZERO, &ack);
        let echo = drain(&mut c, SimTime::ZERO);
        s.handle_packet(SimTime::ZERO, &echo[0]);
        let good_tag = sctp(&echo[0]).vtag;
        let data = Chunk::Data(DataChunk {
            tsn: 1,
            stream: 0,
            ssn: 0,
            ppid: 0,
            flags: DataFlags::UNFRAGMENTED,
            payload_len: 100,
        });
        s.handle_packet(SimTime::ZERO, &packet(good_tag ^ 1, vec![data]));
        assert_eq!(s.stats.bad_vtag_drops, 1);
        assert_eq!(s.inb.as_ref().map(|i| i.delivered_total), Some(0));
    }

    /// Runs client and server over a zero-delay path until neither has anything due
    /// before `end`; `lose(to_server, chunk)` drops a packet by its first chunk. Returns
    /// (time, to_server, first chunk) of every packet sent, lost ones included.
    pub(super) fn exchange(
        c: &mut Association,
        s: &mut Association,
        end: SimTime,
        mut lose: impl FnMut(bool, &Chunk) -> bool,
    ) -> Vec<(SimTime, bool, Chunk)> {
        let (mut now, mut log) = (SimTime::ZERO, Vec::new());
        c.handle_timeout(now);
        loop {
            let mut moved = false;
            for (to_server, pkts) in [(true, drain(c, now)), (false, drain(s, now))] {
                for p in pkts {
                    moved = true;
                    let first = sctp(&p).chunks[0].clone();
                    log.push((now, to_server, first.clone()));
                    if lose(to_server, &first) {
                        continue;
                    }
                    let to = if to_server { &mut *s } else { &mut *c };
                    to.handle_packet(now, &p);
                }
            }
            if moved {
                continue;
            }
            let next = [c.poll_timeout(), s.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(t) if t <= end => {
                    now = now.max(t);
                    for a in [&mut *c, &mut *s] {
                        if a.poll_timeout().is_some_and(|t| t <= now) {
                            a.handle_timeout(now);
                        }
                    }
                }
                _ => return log,
            }
        }
    }

    fn shutdown_acks(log: &[(SimTime, bool, Chunk)]) -> Vec<SimTime> {
        log.iter()
            .filter(|(_, to_server, c)| !to_server && *c == Chunk::ShutdownAck)
            .map(|(t, _, _)| *t)
            .collect()
    }

    #[test]
    fn lost_shutdown_complete_is_recovered_by_t2() {
        // RFC 9260 9.2: the server's SHUTDOWN ACK runs T2-shutdown (RTO: 3 s, the
        // initial value, as the server has measured no RTT); the client, its
        // association gone, answers the resent SHUTDOWN ACK with a SHUTDOWN COMPLETE
        // with the T bit under the tag it carried (8.4 (5)), which the server accepts
        // (8.5.1 (C)).
        let (mut c, mut s) = (client(), server());
        let mut lost = 0;
        let log = exchange(
            &mut c,
            &mut s,
            SimTime::ZERO + SimDuration::from_secs(100),
            |to_server, ch| {
                let first_sc =
                    to_server && matches!(ch, Chunk::ShutdownComplete { .. }) && lost == 0;
                lost += u32::from(first_sc);
                first_sc
            },
        );
        let acks = shutdown_acks(&log);
        assert_eq!(acks.len(), 2, "{log:?}");
        assert_eq!(acks[1] - acks[0], SimDuration::from_secs(3));
        let last = log.last().expect("packets");
        assert_eq!(
            (last.0, last.1, &last.2),
            (acks[1], true, &Chunk::ShutdownComplete { t_bit: true })
        );
        assert_eq!((c.state, s.state), (State::Done, State::Done));
        assert!(!c.stats.aborted && !s.stats.aborted);
        assert_eq!(s.stats.bad_vtag_drops, 0);
    }

    #[test]
    fn t2_backs_off_and_gives_up_after_association_max_retrans() {
        // Every SHUTDOWN COMPLETE lost: the SHUTDOWN ACK is resent after 3, 6, 12, 24,
        // 48 s, then every 60 s (RTO.Max), 10 times in all (Association.Max.Retrans);
        // the 11th expiry, 60 s after the 10th resend, ends the association.
        let (mut c, mut s) = (client(), server());
        let log = exchange(
            &mut c,
            &mut s,
            SimTime::ZERO + SimDuration::from_secs(1000),
            |to_server, ch| to_server && matches!(ch, Chunk::ShutdownComplete { .. }),
        );
        let acks = shutdown_acks(&log);
        let gaps: Vec<u64> = acks
            .windows(2)
            .map(|w| (w[1] - w[0]).as_secs_f64() as u64)
            .collect();
        assert_eq!(gaps, [3, 6, 12, 24, 48, 60, 60, 60, 60, 60]);
        assert_eq!(s.state, State::Done);
        assert!(s.stats.aborted, "the server gave up");
        assert!(!c.stats.aborted);
    }

    #[test]
    fn t_bit_abort_must_carry_the_peers_tag() {
        // RFC 9260 8.5.1 (B): an ABORT is accepted with our own tag and the T bit clear,
        // or with our peer's tag and the T bit set; the other two mixes are dropped.
        let established = || {
            let (mut c, mut s) = (client(), server());
            let ack = handshake_to_init_ack(&mut c, &mut s);
            c.handle_packet(SimTime::ZERO, &ack);
            let echo = drain(&mut c, SimTime::ZERO);
            s.handle_packet(SimTime::ZERO, &echo[0]);
            assert_ne!(s.local_tag, c.local_tag);
            (c.local_tag, s)
        };
        for (t_bit, peers_tag, accepted) in [
            (false, false, true),
            (true, true, true),
            (true, false, false),
            (false, true, false),
        ] {
            let (client_tag, mut s) = established();
            let tag = if peers_tag { client_tag } else { s.local_tag };
            s.handle_packet(SimTime::ZERO, &packet(tag, vec![Chunk::Abort { t_bit }]));
            assert_eq!(
                s.stats.aborted, accepted,
                "T bit {t_bit}, peer's tag {peers_tag}"
            );
            assert_eq!(s.stats.bad_vtag_drops, u64::from(!accepted));
        }
    }

    #[test]
    fn init_ack_parameters_to_report_ride_behind_the_cookie_echo() {
        // RFC 9260 3.2.2: the receiver of an INIT ACK reports its unrecognized
        // parameters in an ERROR chunk ("Unrecognized Parameters", cause 8) bundled
        // with the COOKIE ECHO, which comes first (6.10).
        let (mut c, mut s) = (client(), server());
        let mut ack = handshake_to_init_ack(&mut c, &mut s);
        let TransportRepr::Sctp(repr) = &mut ack.transport else {
            panic!("SCTP")
        };
        let Some(Chunk::InitAck(ia)) = repr.chunks.first_mut() else {
            panic!("INIT ACK")
        };
        // Forward-TSN-Supported (0xC000, length 4) and a 6-byte 0x4001 parameter.
        ia.unrecognized = vec![vec![0xc0, 0, 0, 4], vec![0x40, 1, 0, 6, 9, 9]];
        c.handle_packet(SimTime::ZERO, &ack);
        let out = drain(&mut c, SimTime::ZERO);
        assert_eq!(out.len(), 1, "one packet");
        let chunks = &sctp(&out[0]).chunks;
        assert!(matches!(chunks[0], Chunk::CookieEcho { .. }));
        assert_eq!(
            chunks[1],
            Chunk::Error {
                t_bit: false,
                causes: vec![ErrorCause {
                    code: 8,
                    info: vec![0xc0, 0, 0, 4, 0x40, 1, 0, 6, 9, 9],
                }],
            }
        );
        assert_eq!(c.stats.errors_sent, 1);
    }

    #[test]
    fn unknown_chunks_follow_their_type_bits() {
        // RFC 9260 3.2 on an established server: 0x80 (10) skipped silently, 0xC1 (11)
        // skipped and reported, 0x41 (01) stops the packet and is reported,
        // 0x3F (00) stops it silently; DATA is processed only before a stop.
        let (mut c, mut s) = (client(), server());
        let ack = handshake_to_init_ack(&mut c, &mut s);
        c.handle_packet(SimTime::ZERO, &ack);
        let echo = drain(&mut c, SimTime::ZERO);
        s.handle_packet(SimTime::ZERO, &echo[0]);
        drain(&mut s, SimTime::ZERO);
        let tag = sctp(&echo[0]).vtag;
        let unknown = |kind: u8| {
            Chunk::Unknown(crate::net::wire::UnknownChunk {
                kind,
                flags: 0,
                value: vec![],
            })
        };
        // The client's initial TSN is the first DATA the server expects.
        let first = c.out.as_ref().map_or(0, |o| o.cum_ack.wrapping_add(1));
        let data = |tsn: u32| {
            Chunk::Data(DataChunk {
                tsn,
                stream: 0,
                ssn: tsn.wrapping_sub(first) as u16,
                ppid: 0,
                flags: DataFlags::UNFRAGMENTED,
                payload_len: 100,
            })
        };
        let delivered = |s: &Association| s.inb.as_ref().map_or(0, |i| i.delivered_total);
        let errors = |pkts: &[Packet]| -> Vec<Chunk> {
            pkts.iter()
                .flat_map(|p| sctp(p).chunks.iter())
                .filter(|c| matches!(c, Chunk::Error { .. }))
                .cloned()
                .collect()
        };
        let cause6 = |kind: u8| ErrorCause {
            code: 6,
            info: vec![kind, 0, 0, 4],
        };
        let t = SimTime::from_nanos(1_000_000);
        s.handle_packet(
            t,
            &packet(tag, vec![unknown(0x80), unknown(0xc1), data(first)]),
        );
        assert_eq!(delivered(&s), 100);
        assert_eq!(
            errors(&drain(&mut s, t)),
            vec![Chunk::Error {
                t_bit: false,
                causes: vec![cause6(0xc1)]
            }]
        );
        s.handle_packet(
            t,
            &packet(tag, vec![unknown(0x41), data(first.wrapping_add(1))]),
        );
        assert_eq!(
            delivered(&s),
            100,
            "DATA behind a stopping chunk is discarded"
        );
        assert_eq!(
            errors(&drain(&mut s, t)),
            vec![Chunk::Error {
                t_bit: false,
                causes: vec![cause6(0x41)]
            }]
        );
        s.handle_packet(
            t,
            &packet(tag, vec![data(first.wrapping_add(1)), unknown(0x3f)]),
        );
        assert_eq!(delivered(&s), 200, "chunks before the stop are processed");
        assert!(errors(&drain(&mut s, t)).is_empty());
        assert_eq!(s.stats.unknown_chunks, 4);
        assert_eq!(s.stats.errors_sent, 2);
    }
}
