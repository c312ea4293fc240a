//! QUIC (RFC 9000-9002) on the simulated network: quinn-proto's sans-IO connection
//! behind the `Endpoint` trait, one quinn `Endpoint` per flow end.
//!
//! The mapping (docs/models/quic.md):
//! - time: quinn's `Instant` is a fixed base instant plus the simulated time, so quinn
//!   sees exactly the simulated clock's differences;
//! - datagrams: each datagram quinn emits is the payload of one IPv4/UDP packet (server
//!   port 443), carried byte for byte by the simulated network and handed to the peer's
//!   quinn `Endpoint`;
//! - timers: quinn's `poll_timeout` is the endpoint's deadline in the event queue;
//! - randomness: every seed quinn and rustls take comes from the run seed (`setup`,
//!   `crypto`).

pub mod app;
pub mod crypto;
pub mod keylog;
pub mod live;
pub mod messages;
pub mod setup;

use crate::endpoint::{Endpoint, EndpointEvent, SendKind};
use crate::metrics::Window;
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{Packet, PacketKind};
use crate::sim::{RngStream, SimDuration, SimTime};
use bytes::BytesMut;
use quinn_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Event, ServerConfig, StreamEvent,
    VarInt,
};
use setup::Controller;
use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The server's UDP port (CONTRACTS.md "QUIC").
pub const SERVER_PORT: u16 = 443;

/// A flow's QUIC parameters, from the scenario.
#[derive(Clone, Debug)]
pub struct QuicCfg {
    pub name: String,
    pub seed: u64,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub bytes: Option<u64>,
    pub streams: u32,
    pub message_size: u32,
    /// `stream_traffic`: per-stream sources instead of the bulk application.
    pub stream_traffic: Vec<crate::sctp::streams::StreamSourceCfg>,
    pub controller: Controller,
    pub max_udp_payload: Option<u16>,
    /// `receive_buffer`: the flow-control windows both ends advertise (quinn's defaults
    /// if `None`).
    pub receive_buffer: Option<u64>,
    /// (client address, client port), (server address, server port).
    pub client: ([u8; 4], u16),
    pub server: ([u8; 4], u16),
    pub window: Window,
    pub trace_sends: bool,
    /// Where the client logs its TLS secrets (`keylog.txt` with `--pcap`).
    pub key_log: Option<Arc<dyn rustls::KeyLog>>,
}

/// Counters for summary.json, each counted over the measurement window unless said.
#[derive(Clone, Debug, Default)]
pub struct QuicStats {
    /// Datagrams that carried at least one STREAM frame.
    pub data_packets_sent: u64,
    /// Datagrams that carried ACK frames and neither STREAM nor CRYPTO frames.
    pub ack_packets: u64,
    pub ack_bytes: u64,
    /// Every datagram sent (whole run).
    pub datagrams_sent: u64,
    pub connect_time: Option<SimDuration>,
    pub completion_time: Option<SimDuration>,
}

enum Role {
    Client {
        config: Option<ClientConfig>,
        source: app::ClientApp,
    },
    Server {
        config: Arc<ServerConfig>,
        sink: app::Sink,
    },
}

pub struct QuicEndpoint {
    cfg: QuicCfg,
    role: Role,
    base: Instant,
    endpoint: quinn_proto::Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    /// Feeds rustls's randomness while this endpoint runs (`crypto::with_rng`).
    tls_rng: Option<RngStream>,
    /// Datagrams the quinn `Endpoint` itself answered with (no connection involved).
    responses: VecDeque<Vec<u8>>,
    buf: Vec<u8>,
    deadline: Option<SimTime>,
    stopped: bool,
    closed: bool,
    events: VecDeque<EndpointEvent>,
    next_num: u32,
    pub stats: QuicStats,
}

impl QuicEndpoint {
    /// Both ends of a flow. Errors are one line (a dependency refusing its input).
    pub fn pair(cfg: &QuicCfg) -> Result<(QuicEndpoint, QuicEndpoint), String> {
        let mut transport = setup::transport(cfg.controller, cfg.streams, cfg.max_udp_payload);
        if let Some(b) = cfg.receive_buffer {
            setup::receive_buffer(&mut transport, b)?;
        }
        Self::pair_with(cfg, transport)
    }

    /// Both ends with the given transport configuration (tests look into quinn's
    /// controllers through it).
    pub(crate) fn pair_with(
        cfg: &QuicCfg,
        transport: quinn_proto::TransportConfig,
    ) -> Result<(QuicEndpoint, QuicEndpoint), String> {
        let label = format!("flow:{}:quic", cfg.name);
        let id = crypto::identity(&mut RngStream::new(
            cfg.seed,
            &format!("{label}:server:identity"),
        ))?;
        let transport = Arc::new(transport);
        let client_cfg = setup::client_config(
            cfg.seed,
            &format!("{label}:client"),
            &id.cert,
            transport.clone(),
            cfg.key_log.clone(),
        )?;
        let server_cfg = Arc::new(setup::server_config(
            cfg.seed,
            &format!("{label}:server"),
            &id,
            transport,
        )?);
        let make = |side: &str, role: Role| -> QuicEndpoint {
            let ep_cfg = Arc::new(setup::endpoint_config(cfg.seed, &format!("{label}:{side}")));
            let server = match &role {
                Role::Server { config, .. } => Some(config.clone()),
                Role::Client { .. } => None,
            };
            QuicEndpoint {
                cfg: cfg.clone(),
                role,
                base: Instant::now(),
                endpoint: quinn_proto::Endpoint::new(ep_cfg, server, true, None),
                conn: None,
                tls_rng: Some(RngStream::new(cfg.seed, &format!("{label}:{side}:tls"))),
                responses: VecDeque::new(),
                buf: Vec::new(),
                deadline: None,
                stopped: false,
                closed: false,
                events: VecDeque::new(),
                next_num: 1,
                stats: QuicStats::default(),
            }
        };
        let mut client = make(
            "client",
            Role::Client {
                config: Some(client_cfg),
                source: if cfg.stream_traffic.is_empty() {
                    app::ClientApp::Bulk(app::Source::new(cfg.streams, cfg.bytes, cfg.message_size))
                } else {
                    app::ClientApp::Messages(messages::MessageSource::new(
                        &cfg.stream_traffic,
                        cfg.streams,
                    ))
                },
            },
        );
        let server = make(
            "server",
            Role::Server {
                config: server_cfg,
                sink: app::Sink::new(
                    cfg.streams,
                    cfg.message_size,
                    &cfg.stream_traffic,
                    cfg.window,
                ),
            },
        );
        // The client's first deadline is its start; the server waits for a datagram.
        client.deadline = Some(cfg.start);
        Ok((client, server))
    }

    fn instant(&self, t: SimTime) -> Instant {
        self.base + Duration::from_nanos(t.as_nanos())
    }

    fn sim_time(&self, t: Instant) -> SimTime {
        let d = t.saturating_duration_since(self.base);
        SimTime::from_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }

    fn is_client(&self) -> bool {
        matches!(self.role, Role::Client { .. })
    }

    pub fn start_time(&self) -> SimTime {
        self.cfg.start
    }

    /// quinn's own counters (lost packets, congestion window, RTT, frames).
    pub fn quinn_stats(&self) -> Option<quinn_proto::ConnectionStats> {
        self.conn.as_ref().map(|(_, c)| c.stats())
    }

    /// The server's per-stream delivery (empty at the client).
    pub fn sink(&self) -> Option<&app::Sink> {
        match &self.role {
            Role::Server { sink, .. } => Some(sink),
            Role::Client { .. } => None,
        }
    }

    /// The client's `stream_traffic` sources (`None` at the server or without them).
    pub fn message_source(&self) -> Option<&messages::MessageSource> {
        match &self.role {
            Role::Client {
                source: app::ClientApp::Messages(m),
                ..
            } => Some(m),
            _ => None,
        }
    }

    pub fn window(&self) -> Window {
        self.cfg.window
    }

    pub fn controller(&self) -> Controller {
        self.cfg.controller
    }

    /// The client opens the connection at `start`.
    fn connect(&mut self, now: SimTime) {
        let Role::Client { config, .. } = &mut self.role else {
            return;
        };
        let Some(config) = config.take() else {
            return;
        };
        let remote = sock(self.cfg.server);
        let at = self.instant(now);
        // An error here is a configuration quinn refuses; the flow then sends nothing
        // (the configuration was checked when the pair was built, so it does not happen).
        if let Ok(c) = self
            .endpoint
            .connect(at, config, remote, crypto::SERVER_NAME)
        {
            self.conn = Some(c);
        }
    }

    /// Exchanges endpoint events, handles the application's events, lets the source write
    /// and works out the next deadline.
    fn drive(&mut self, now: SimTime) {
        let at = self.instant(now);
        if let Some((ch, conn)) = self.conn.as_mut() {
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(back) = self.endpoint.handle_event(*ch, ev) {
                    conn.handle_event(back);
                }
            }
            while let Some(ev) = conn.poll() {
                match (&mut self.role, ev) {
                    (Role::Client { source, .. }, Event::Connected) => {
                        self.stats.connect_time = Some(now.saturating_since(self.cfg.start));
                        source.open(conn);
                    }
                    (Role::Client { source, .. }, Event::Stream(StreamEvent::Available { .. })) => {
                        source.open(conn)
                    }
                    (Role::Client { source, .. }, Event::Stream(StreamEvent::Finished { .. })) => {
                        source.on_acked()
                    }
                    (Role::Server { sink, .. }, Event::Stream(StreamEvent::Readable { id })) => {
                        sink.read(now, conn, id)
                    }
                    (Role::Server { sink, .. }, Event::Stream(StreamEvent::Opened { .. })) => {
                        sink.read_all(now, conn)
                    }
                    _ => {}
                }
            }
            if let Role::Client { source, .. } = &mut self.role {
                if !conn.is_handshaking() && !self.closed {
                    if !self.stopped && self.cfg.stop.is_some_and(|s| now >= s) {
                        self.stopped = true;
                        source.stop(now, conn);
                    }
                    source.write(now, conn);
                    // Every byte acknowledged: the client closes (CONTRACTS:
                    // completion_time_s).
                    if source.complete() {
                        self.closed = true;
                        self.stats.completion_time = Some(now.saturating_since(self.cfg.start));
                        conn.close(at, VarInt::from_u32(0), bytes::Bytes::new());
                    }
                }
            }
        }
        self.update_deadline(now);
    }

    fn update_deadline(&mut self, now: SimTime) {
        let quinn = self
            .conn
            .as_mut()
            .and_then(|(_, c)| c.poll_timeout())
            .map(|t| self.sim_time(t));
        let own = match &self.role {
            Role::Client {
                config: Some(_), ..
            } => Some(self.cfg.start),
            Role::Client { source, .. } if !self.stopped && !self.closed => {
                let app = source.next_wakeup(now);
                match (self.cfg.stop, app) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
            _ => None,
        };
        self.deadline = match (quinn, own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// Classifies and counts a datagram about to be sent, from the change in quinn's
    /// frame counters over the `poll_transmit` that built it.
    fn count_sent(
        &mut self,
        now: SimTime,
        before: &quinn_proto::FrameStats,
        after: &quinn_proto::FrameStats,
        ip_size: u32,
    ) -> PacketKind {
        self.stats.datagrams_sent += 1;
        let in_window = self.cfg.window.contains(now);
        if after.stream > before.stream {
            if in_window {
                self.stats.data_packets_sent += 1;
            }
            PacketKind::Data
        } else if after.acks > before.acks && after.crypto == before.crypto {
            if in_window {
                self.stats.ack_packets += 1;
                self.stats.ack_bytes += u64::from(ip_size);
            }
            PacketKind::Ack
        } else {
            PacketKind::Control
        }
    }
}

fn sock(a: ([u8; 4], u16)) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::from(a.0), a.1))
}

impl Endpoint for QuicEndpoint {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let at = self.instant(now);
        let (local, remote) = if self.is_client() {
            (self.cfg.client, self.cfg.server)
        } else {
            (self.cfg.server, self.cfg.client)
        };
        let data = BytesMut::from(&pkt.datagram[..]);
        let mut rng = self.tls_rng.take();
        crypto::with_rng(&mut rng, || {
            let ev = self.endpoint.handle(
                at,
                sock(remote),
                Some(Ipv4Addr::from(local.0).into()),
                None,
                data,
                &mut self.buf,
            );
            match ev {
                Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                    if let Some((mine, conn)) = self.conn.as_mut() {
                        if *mine == ch {
                            conn.handle_event(ev);
                        }
                    }
                }
                Some(DatagramEvent::NewConnection(incoming)) => {
                    let config = match &self.role {
                        Role::Server { config, .. } => Some(config.clone()),
                        Role::Client { .. } => None,
                    };
                    if self.conn.is_some() || config.is_none() {
                        // One connection per flow: a second is refused.
                        let t = self.endpoint.refuse(incoming, &mut self.buf);
                        self.responses.push_back(self.buf[..t.size].to_vec());
                    } else {
                        match self.endpoint.accept(incoming, at, &mut self.buf, config) {
                            Ok(c) => self.conn = Some(c),
                            Err(e) => {
                                if let Some(t) = e.response {
                                    self.responses.push_back(self.buf[..t.size].to_vec());
                                }
                            }
                        }
                    }
                }
                Some(DatagramEvent::Response(t)) => {
                    self.responses.push_back(self.buf[..t.size].to_vec());
                }
                None => {}
            }
            self.drive(now);
        });
        self.tls_rng = rng;
    }

    fn handle_timeout(&mut self, now: SimTime) {
        let mut rng = self.tls_rng.take();
        crypto::with_rng(&mut rng, || {
            if self.conn.is_none() && now >= self.cfg.start {
                self.connect(now);
            }
            let at = self.instant(now);
            if let Some((_, conn)) = self.conn.as_mut() {
                conn.handle_timeout(at);
            }
            self.drive(now);
        });
        self.tls_rng = rng;
    }

    fn poll_transmit(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        let (local, remote) = if self.is_client() {
            (self.cfg.client, self.cfg.server)
        } else {
            (self.cfg.server, self.cfg.client)
        };
        pkt.datagram.clear();
        let kind = if let Some(d) = self.responses.pop_front() {
            pkt.datagram.extend_from_slice(&d);
            PacketKind::Control
        } else {
            let at = self.instant(now);
            let Some((_, conn)) = self.conn.as_mut() else {
                return false;
            };
            let before = conn.stats().frame_tx;
            let mut rng = self.tls_rng.take();
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            let t = crypto::with_rng(&mut rng, || conn.poll_transmit(at, 1, &mut buf));
            self.tls_rng = rng;
            let Some(t) = t else {
                self.buf = buf;
                self.update_deadline(now);
                return false;
            };
            pkt.datagram.extend_from_slice(&buf[..t.size]);
            self.buf = buf;
            let after = conn.stats().frame_tx;
            let ip_size = (crate::net::wire::IPV4_HEADER_LEN + 8 + t.size) as u32;
            self.count_sent(now, &before, &after, ip_size)
        };
        pkt.transport = TransportRepr::Udp(UdpRepr {
            src_port: local.1,
            dst_port: remote.1,
        });
        pkt.ip.dst = remote.0;
        pkt.payload_len = pkt.datagram.len() as u32;
        pkt.kind = kind;
        pkt.data_num = if kind == PacketKind::Data {
            self.next_num
        } else {
            0
        };
        pkt.ack_num = 0;
        if kind == PacketKind::Data {
            if self.cfg.trace_sends {
                self.events.push_back(EndpointEvent::Sent {
                    seq: self.next_num,
                    kind: SendKind::New,
                    dest: [0; 4],
                });
            }
            self.next_num += 1;
        }
        pkt.finalize();
        true
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn is_done(&self) -> bool {
        match &self.conn {
            Some((_, c)) => c.is_drained(),
            None => false,
        }
    }

    fn endless(&self) -> bool {
        self.is_client() && self.cfg.bytes.is_none() && self.cfg.stop.is_none()
    }

    fn sample(&self, out: &mut dyn FnMut(&'static str, f64)) {
        if let (true, Some((_, c))) = (self.is_client(), &self.conn) {
            let s = c.stats();
            out("cwnd", s.path.cwnd as f64);
            out("srtt", s.path.rtt.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod bbr_tests;
#[cfg(test)]
mod tests;
