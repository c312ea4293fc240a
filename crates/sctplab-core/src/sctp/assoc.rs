//! An SCTP association endpoint as a sans-IO machine (quinn-proto's shape): set-up with
//! INIT / INIT-ACK / COOKIE-ECHO / COOKIE-ACK and a signed state cookie, verification
//! tags, DATA and SACK through `Outbound` and `Inbound`, HEARTBEAT, graceful SHUTDOWN,
//! and ABORT when the retransmission limit is reached (RFC 9260 sec. 5, 6, 8, 9).
//!
//! The client sends the application's data; the server receives it. The server keeps
//! no association state before a valid COOKIE-ECHO (RFC 9260 sec. 5.1.3).

use super::config::{Knobs, initial_cwnd_bytes};
use super::cookie::{CookieBody, CookieError};
use super::inbound::Inbound;
use super::outbound::{AppSource, Outbound};
use super::path::{Path, Rto};
use crate::endpoint::{Endpoint, EndpointEvent};
use crate::metrics::Window;
use crate::net::wire::{Chunk, InitAckChunk, InitChunk, SctpRepr, TransportRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, SimDuration, SimTime};
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
    /// Client: waiting for the HEARTBEAT-ACK that confirms the path (ns-2 behaviour).
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
    /// Server: the client's initial TSN (packet numbers of SACKs in traces).
    peer_initial_tsn: u32,
    /// Client: the cookie to echo again if T1-cookie expires.
    last_cookie: Option<Vec<u8>>,
    /// Control chunks to send, each with the verification tag its packet carries.
    ctrl: VecDeque<(u32, Chunk)>,
    t1: Option<SimTime>,
    t1_retries: u32,
    t2: Option<SimTime>,
    hb_deadline: Option<SimTime>,
    started: bool,
    stop_pending: bool,
    pub out: Option<Outbound>,
    pub inb: Option<Inbound>,
    rto_before_established: Rto,
    events: VecDeque<EndpointEvent>,
    pub stats: AssocStats,
}

impl Association {
    /// `rng` gives the tags, initial TSNs and the cookie secret (per-endpoint streams).
    pub fn new(role: Role, cfg: AssocCfg, mut rng: RngStream) -> Self {
        let mut secret = [0u8; 32];
        for chunk in secret.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let rto = Rto::new(cfg.rto_initial, cfg.rto_min, cfg.rto_max);
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
            ctrl: VecDeque::new(),
            t1: None,
            t1_retries: 0,
            t2: None,
            hb_deadline: None,
            started: false,
            stop_pending: false,
            out: None,
            inb: None,
            rto_before_established: rto,
            events: VecDeque::new(),
            stats: AssocStats::default(),
        }
    }

    fn nonzero(&mut self) -> u32 {
        loop {
            let v = self.rng.next_u64() as u32;
            if v != 0 {
                return v;
            }
        }
    }

    fn send_ctrl(&mut self, vtag: u32, c: Chunk) {
        self.ctrl.push_back((vtag, c));
    }

    fn t1_timeout(&self) -> SimDuration {
        let backoff = 1u64 << self.t1_retries.min(6);
        self.cfg
            .rto_initial
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
        };
        self.send_ctrl(0, Chunk::Init(init));
        self.t1 = Some(self.now + self.t1_timeout());
    }

    fn on_init(&mut self, vtag: u32, init: &InitChunk) {
        // RFC 9260 8.5.1: an INIT carries tag 0; anything else is silently dropped.
        if vtag != 0 || init.init_tag == 0 {
            self.stats.bad_vtag_drops += 1;
            return;
        }
        self.stats.inits_received += 1;
        // Stateless answer: everything needed later goes into the signed cookie.
        let local_tag = self.nonzero();
        let local_tsn = self.rng.next_u64() as u32;
        let peer_out = init.outbound_streams;
        let body = CookieBody {
            local_tag,
            peer_tag: init.init_tag,
            local_initial_tsn: local_tsn,
            peer_initial_tsn: init.initial_tsn,
            peer_a_rwnd: init.a_rwnd,
            local_a_rwnd: self.cfg.receive_buffer.min(u64::from(u32::MAX)) as u32,
            local_out_streams: 1.min(init.inbound_streams),
            peer_out_streams: peer_out,
            created_ns: self.now.as_nanos(),
            lifetime_ns: self.cfg.cookie_lifetime.as_nanos(),
        };
        let ack = InitAckChunk {
            init_tag: local_tag,
            a_rwnd: body.local_a_rwnd,
            outbound_streams: body.local_out_streams,
            inbound_streams: peer_out,
            initial_tsn: local_tsn,
            state_cookie: body.seal(&self.secret),
        };
        self.send_ctrl(init.init_tag, Chunk::InitAck(ack));
    }

    fn on_init_ack(&mut self, ack: &InitAckChunk) {
        if self.state != State::CookieWait {
            return;
        }
        self.peer_tag = ack.init_tag;
        let streams = self.cfg.streams.min(ack.inbound_streams).max(1);
        let k = self.cfg.knobs.clone();
        let mtu = self.cfg.pmtu.saturating_sub(32) as u64;
        let ssthresh = self.cfg.initial_ssthresh.unwrap_or(u64::from(ack.a_rwnd)) as f64;
        let path = Path::new(
            mtu,
            initial_cwnd_bytes(&k, mtu),
            ssthresh,
            self.rto_before_established.clone(),
        );
        let mut app = AppSource::new(
            self.cfg.total,
            self.cfg.message_size,
            streams,
            self.cfg.unordered,
        );
        app.set_streams(streams);
        if self.stop_pending {
            app.stop();
        }
        self.out = Some(Outbound::new(
            k,
            path,
            self.pending_initial_tsn,
            app,
            self.cfg.pmtu,
            ack.a_rwnd,
            self.cfg.trace_sends,
            self.cfg.window,
        ));
        self.last_cookie = Some(ack.state_cookie.clone());
        self.send_ctrl(
            self.peer_tag,
            Chunk::CookieEcho {
                cookie: ack.state_cookie.clone(),
            },
        );
        self.state = State::CookieEchoed;
        self.t1_retries = 0;
        self.t1 = Some(self.now + self.t1_timeout());
    }

    fn on_cookie_echo(&mut self, vtag: u32, cookie: &[u8]) {
        let body = match CookieBody::open(cookie, &self.secret, self.now.as_nanos()) {
            Ok(b) => b,
            Err(CookieError::Malformed | CookieError::BadMac | CookieError::Stale) => {
                self.stats.cookie_rejects += 1;
                return;
            }
        };
        if vtag != body.local_tag {
            self.stats.bad_vtag_drops += 1;
            return;
        }
        if self.inb.is_none() {
            self.local_tag = body.local_tag;
            self.peer_tag = body.peer_tag;
            self.peer_initial_tsn = body.peer_initial_tsn;
            self.inb = Some(Inbound::new(
                body.peer_initial_tsn,
                self.cfg.receive_buffer,
                body.peer_out_streams,
                self.cfg.delayed_sack,
                self.cfg.window,
                self.cfg.pmtu.saturating_sub(32),
            ));
            self.stats.associations_created += 1;
            self.state = State::Established;
        }
        self.send_ctrl(self.peer_tag, Chunk::CookieAck);
    }

    fn established_client(&mut self) {
        self.t1 = None;
        self.stats.connect_time = Some(self.now.saturating_since(self.cfg.start));
        if self.cfg.knobs.heartbeat_before_data {
            self.state = State::Confirming;
            self.send_heartbeat();
        } else {
            self.state = State::Established;
            self.kick();
        }
    }

    fn send_heartbeat(&mut self) {
        let info = self.now.as_nanos().to_be_bytes().to_vec();
        self.stats.heartbeats += 1;
        self.send_ctrl(self.peer_tag, Chunk::Heartbeat { info });
        let rto = self
            .out
            .as_ref()
            .map_or(self.cfg.rto_initial, |o| o.path.rto.current());
        self.hb_deadline = Some(self.now + self.cfg.heartbeat.unwrap_or(SimDuration::ZERO) + rto);
    }

    fn on_heartbeat_ack(&mut self, info: &[u8]) {
        if let (Ok(bytes), Some(out)) = (<[u8; 8]>::try_from(info), self.out.as_mut()) {
            let sent = SimTime::from_nanos(u64::from_be_bytes(bytes));
            out.path
                .rto
                .sample(self.now.saturating_since(sent).as_secs_f64());
            out.path.error_count = 0;
        }
        if self.state == State::Confirming {
            self.state = State::Established;
            self.kick();
        }
    }

    /// Lets the sender send what it may.
    fn kick(&mut self) {
        if let Some(out) = self.out.as_mut() {
            if self.state == State::Established {
                out.send_new(self.now);
            }
        }
        self.maybe_shutdown();
    }

    fn maybe_shutdown(&mut self) {
        if self.role != Role::Client || self.state != State::Established {
            return;
        }
        let Some(out) = &self.out else { return };
        if out.done() {
            // Everything delivered and acknowledged: graceful close (RFC 9260 9.2).
            let rto = out.path.rto.current();
            self.state = State::ShutdownSent;
            let cum = self.inb.as_ref().map_or(0, |i| i.cum_tsn);
            self.send_ctrl(self.peer_tag, Chunk::Shutdown { cum_tsn_ack: cum });
            self.t2 = Some(self.now + rto);
        }
    }

    fn abort(&mut self) {
        self.send_ctrl(self.peer_tag, Chunk::Abort { t_bit: false });
        self.stats.aborted = true;
        self.state = State::Done;
        self.t1 = None;
        self.t2 = None;
        self.hb_deadline = None;
        if let Some(out) = self.out.as_mut() {
            out.path.t3 = None;
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

    fn handle_chunk(&mut self, vtag: u32, chunk: &Chunk) {
        match chunk {
            Chunk::Init(init) if self.role == Role::Server => self.on_init(vtag, init),
            Chunk::InitAck(ack) if self.role == Role::Client => self.on_init_ack(ack),
            Chunk::CookieEcho { cookie } if self.role == Role::Server => {
                self.on_cookie_echo(vtag, cookie)
            }
            Chunk::CookieAck if self.state == State::CookieEchoed => self.established_client(),
            Chunk::Heartbeat { info } => {
                let info = info.clone();
                self.send_ctrl(self.peer_tag, Chunk::HeartbeatAck { info });
            }
            Chunk::HeartbeatAck { info } => self.on_heartbeat_ack(info),
            Chunk::Data(d) => {
                if let Some(inb) = self.inb.as_mut() {
                    inb.on_data(self.now, d);
                }
            }
            Chunk::Sack(sack) => {
                self.trace_sack(sack);
                if let Some(out) = self.out.as_mut() {
                    if matches!(self.state, State::Established | State::ShutdownSent) {
                        out.on_sack(self.now, sack);
                    }
                }
                self.maybe_shutdown();
            }
            Chunk::Shutdown { .. } if self.role == Role::Server && self.inb.is_some() => {
                self.state = State::ShutdownAckSent;
                self.send_ctrl(self.peer_tag, Chunk::ShutdownAck);
            }
            Chunk::ShutdownAck if self.state == State::ShutdownSent => {
                self.send_ctrl(self.peer_tag, Chunk::ShutdownComplete { t_bit: false });
                self.state = State::Done;
                self.t2 = None;
            }
            Chunk::ShutdownComplete { .. } if self.state == State::ShutdownAckSent => {
                self.state = State::Done;
            }
            Chunk::Abort { .. } => {
                self.state = State::Done;
                self.stats.aborted = true;
            }
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
        self.now = now;
        let TransportRepr::Sctp(sctp) = &pkt.transport else {
            return;
        };
        let is_init = sctp.chunks.iter().any(|c| matches!(c, Chunk::Init(_)));
        let is_cookie_echo = sctp
            .chunks
            .iter()
            .any(|c| matches!(c, Chunk::CookieEcho { .. }));
        // RFC 9260 8.5: every packet but an INIT (tag 0) and a COOKIE-ECHO (checked
        // against the cookie) must carry our tag, or it is dropped.
        if !is_init && !is_cookie_echo && sctp.vtag != self.local_tag {
            self.stats.bad_vtag_drops += 1;
            return;
        }
        let had_data = sctp.chunks.iter().any(|c| matches!(c, Chunk::Data(_)));
        for c in &sctp.chunks {
            self.handle_chunk(sctp.vtag, c);
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
                            self.send_ctrl(self.peer_tag, Chunk::CookieEcho { cookie });
                        }
                        self.t1 = Some(now + self.t1_timeout());
                    }
                    _ => self.t1 = None,
                }
            }
        }
        if self.t2.is_some_and(|t| now >= t) {
            if self.state == State::ShutdownSent {
                let cum = self.inb.as_ref().map_or(0, |i| i.cum_tsn);
                self.send_ctrl(self.peer_tag, Chunk::Shutdown { cum_tsn_ack: cum });
                let rto = self
                    .out
                    .as_ref()
                    .map_or(self.cfg.rto_initial, |o| o.path.rto.current());
                self.t2 = Some(now + rto);
            } else {
                self.t2 = None;
            }
        }
        if let Some(inb) = self.inb.as_mut() {
            inb.on_timeout(now);
        }
        let mut t3_fired = false;
        if let Some(out) = self.out.as_mut() {
            if out.path.t3.is_some_and(|t| now >= t)
                && matches!(self.state, State::Established | State::ShutdownSent)
            {
                out.on_t3(now);
                t3_fired = true;
            }
        }
        if t3_fired {
            let errors = self.out.as_ref().map_or(0, |o| o.path.error_count);
            if errors > self.cfg.association_max_retrans {
                self.abort();
            }
        }
        if self.hb_deadline.is_some_and(|t| now >= t) {
            self.hb_deadline = None;
            let idle = self.out.as_ref().is_some_and(|o| !o.has_outstanding());
            if self.state == State::Confirming || (self.state == State::Established && idle) {
                self.send_heartbeat();
            }
        }
    }

    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        self.now = now;
        if let Some(inb) = self.inb.as_mut() {
            if inb.wants_sack() && matches!(self.state, State::Established | State::ShutdownAckSent)
            {
                let sack = inb.take_sack();
                self.ctrl.push_back((self.peer_tag, Chunk::Sack(sack)));
            }
        }
        let room = self.cfg.pmtu.saturating_sub(32);
        let mut repr = match std::mem::replace(
            &mut pkt.transport,
            TransportRepr::Udp(crate::net::wire::UdpRepr {
                src_port: 0,
                dst_port: 0,
            }),
        ) {
            TransportRepr::Sctp(mut s) => {
                s.chunks.clear();
                s
            }
            _ => SctpRepr {
                src_port: 0,
                dst_port: 0,
                vtag: 0,
                chunks: Vec::new(),
            },
        };
        let (src, dst) = match self.role {
            Role::Client => (self.cfg.ports.0, self.cfg.ports.1),
            Role::Server => (self.cfg.ports.1, self.cfg.ports.0),
        };
        repr.src_port = src;
        repr.dst_port = dst;
        let mut kind = PacketKind::Control;
        let mut data_num = 0;
        if let Some((vtag, first)) = self.ctrl.pop_front() {
            repr.vtag = vtag;
            let mut used = first.padded_len();
            let only_sack = matches!(first, Chunk::Sack(_));
            repr.chunks.push(first);
            let mut all_sack = only_sack;
            while let Some((v, c)) = self.ctrl.front() {
                if *v != vtag || used + c.padded_len() > room {
                    break;
                }
                used += c.padded_len();
                all_sack &= matches!(c, Chunk::Sack(_));
                let (_, c) = self.ctrl.pop_front().expect("front exists");
                repr.chunks.push(c);
            }
            if all_sack {
                kind = PacketKind::Ack;
            }
        } else if let Some(tx) = self.out.as_mut().and_then(|o| o.tx.pop_front()) {
            repr.vtag = self.peer_tag;
            if let (Some(first), Some(out)) = (tx.chunks.first(), self.out.as_ref()) {
                data_num = out.packet_number(first.tsn);
            }
            repr.chunks.extend(tx.chunks.into_iter().map(Chunk::Data));
            kind = PacketKind::Data;
        } else {
            pkt.transport = TransportRepr::Sctp(repr);
            return false;
        }
        pkt.transport = TransportRepr::Sctp(repr);
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
        pkt.finalize();
        if kind == PacketKind::Ack && self.cfg.window.contains(now) {
            self.stats.ack_packets += 1;
            self.stats.ack_bytes += u64::from(pkt.size);
        }
        if kind == PacketKind::Control && self.cfg.window.contains(now) {
            self.stats.control_packets += 1;
        }
        true
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
        consider(self.hb_deadline);
        if let Some(out) = &self.out {
            if matches!(self.state, State::Established | State::ShutdownSent) {
                consider(out.path.t3);
            }
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
            o.sample(out);
        }
        if let Some(i) = &self.inb {
            out("a_rwnd", f64::from(i.a_rwnd()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::{DataChunk, DataFlags};
    use crate::scenario::schema::SctpVariant;

    fn cfg() -> AssocCfg {
        AssocCfg {
            ports: (50_000, 52_000),
            pmtu: 1500,
            streams: 1,
            receive_buffer: 65_536,
            initial_ssthresh: None,
            knobs: super::super::config::preset(SctpVariant::Rfc4960),
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
        }
    }

    fn server() -> Association {
        Association::new(Role::Server, cfg(), RngStream::new(1, "server"))
    }

    fn client() -> Association {
        Association::new(Role::Client, cfg(), RngStream::new(1, "client"))
    }

    /// Everything `from` wants to send now.
    fn drain(from: &mut Association, now: SimTime) -> Vec<Packet> {
        let mut out = Vec::new();
        loop {
            let mut p = Packet::default();
            if !from.poll_transmit(now, &mut p) {
                return out;
            }
            out.push(p);
        }
    }

    fn sctp(p: &Packet) -> &SctpRepr {
        match &p.transport {
            TransportRepr::Sctp(s) => s,
            _ => panic!("not SCTP"),
        }
    }

    fn packet(vtag: u32, chunks: Vec<Chunk>) -> Packet {
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

    fn init(tag: u32) -> Chunk {
        Chunk::Init(InitChunk {
            init_tag: tag,
            a_rwnd: 65_536,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
        })
    }

    /// The client's INIT, delivered to the server; returns the server's INIT-ACK packet.
    fn handshake_to_init_ack(c: &mut Association, s: &mut Association) -> Packet {
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
        assert!(
            drain(&mut s, late).is_empty(),
            "no COOKIE-ACK for a refused cookie"
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
}
