//! quinn-proto on real UDP sockets and the real clock: the check of the adapter
//! (docs/models/quic.md "Checks"). Each end is one quinn `Endpoint` driven by a plain
//! loop over a blocking `std::net::UdpSocket` (what quinn's async runtime glue does):
//! `poll_transmit` until it has nothing, `send_to`; wait on the socket until quinn's
//! `poll_timeout`; `handle` each datagram; `handle_timeout` when the deadline passes.
//! Time is `Instant::now()`. The configuration (TLS identity, transport parameters,
//! seeds) and the applications (bulk source, sink) are the simulated flow's, so what
//! differs from a simulated run is exactly what the adapter maps: the clock, the timers
//! and the datagrams' path.

use super::{app, crypto, setup};
use crate::metrics::Window;
use crate::sim::{RngStream, SimTime};
use bytes::BytesMut;
use quinn_proto::{ConnectionHandle, DatagramEvent, Event, StreamEvent, VarInt};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One flow's parameters, as the simulated flow takes them.
#[derive(Clone, Debug)]
pub struct LiveFlow {
    pub seed: u64,
    pub bytes: u64,
    pub streams: u32,
    pub controller: setup::Controller,
    /// Give up after this long.
    pub timeout: Duration,
    /// Shared by the two ends of one run in one process: when each datagram was sent,
    /// so the receiver measures how long it took to cross (relay and kernel included).
    pub transit: Option<Arc<Transit>>,
}

/// Send times of datagrams by a hash of their bytes (every QUIC datagram's bytes
/// differ: packet numbers and AEAD see to it).
#[derive(Debug, Default)]
pub struct Transit {
    sent: Mutex<HashMap<u64, Instant>>,
}

impl Transit {
    fn key(bytes: &[u8]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        h.finish()
    }

    fn on_send(&self, bytes: &[u8], at: Instant) {
        if let Ok(mut m) = self.sent.lock() {
            m.insert(Self::key(bytes), at);
        }
    }

    fn on_receive(&self, bytes: &[u8], at: Instant) -> Option<Duration> {
        let sent = self.sent.lock().ok()?.remove(&Self::key(bytes))?;
        Some(at.saturating_duration_since(sent))
    }
}

/// What one end saw.
#[derive(Clone, Debug, Default)]
pub struct LiveOutcome {
    /// Client: from `connect` to the handshake's completion (RFC 9001 sec. 4.1.1).
    pub connect_time: Option<Duration>,
    /// Client: from `connect` until every byte is acknowledged and it closes.
    pub completion_time: Option<Duration>,
    /// Server: bytes read in order.
    pub delivered_bytes: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Client: quinn's count of packets declared lost.
    pub lost_packets: u64,
    /// How late quinn's timers were handled, summed over the run: the real clock's
    /// share of a live run's extra time (a simulated timer fires on the nanosecond).
    pub timer_lateness: Duration,
    /// Time the end spent awake (handling datagrams and timers, building and sending
    /// datagrams) rather than waiting on its socket: its processing time, which a
    /// simulated endpoint does not take.
    pub busy: Duration,
    /// With `LiveFlow::transit`: datagrams received whose send time was known, and
    /// their summed time from `send_to` to `recv_from`.
    pub transits: u64,
    pub transit_total: Duration,
}

/// The label the simulated flow named `name` gives its seeds, so a live end with the
/// same name and seed uses the same keys, certificate and connection IDs.
fn label(name: &str) -> String {
    format!("flow:{name}:quic")
}

struct End {
    endpoint: quinn_proto::Endpoint,
    conn: Option<(ConnectionHandle, quinn_proto::Connection)>,
    tls_rng: Option<RngStream>,
    sock: UdpSocket,
    buf: Vec<u8>,
    out: LiveOutcome,
    started: Instant,
    /// When the end last woke up from waiting on its socket.
    awake_since: Option<Instant>,
    transit: Option<Arc<Transit>>,
}

impl End {
    fn new(
        flow: &LiveFlow,
        side: &str,
        server: Option<Arc<quinn_proto::ServerConfig>>,
        sock: UdpSocket,
    ) -> End {
        let l = label("q");
        let ep_cfg = Arc::new(setup::endpoint_config(flow.seed, &format!("{l}:{side}")));
        End {
            endpoint: quinn_proto::Endpoint::new(ep_cfg, server, true, None),
            conn: None,
            tls_rng: Some(RngStream::new(flow.seed, &format!("{l}:{side}:tls"))),
            sock,
            buf: Vec::new(),
            out: LiveOutcome::default(),
            started: Instant::now(),
            awake_since: None,
            transit: flow.transit.clone(),
        }
    }

    /// Sends what quinn has to send.
    fn transmit(&mut self) -> std::io::Result<()> {
        let Some((_, conn)) = self.conn.as_mut() else {
            return Ok(());
        };
        let mut rng = self.tls_rng.take();
        let buf = &mut self.buf;
        let sock = &self.sock;
        let sent = &mut self.out.datagrams_sent;
        let transit = self.transit.as_deref();
        let r = crypto::with_rng(&mut rng, || {
            loop {
                buf.clear();
                let Some(t) = conn.poll_transmit(Instant::now(), 1, buf) else {
                    return Ok(());
                };
                if let Some(tr) = transit {
                    tr.on_send(&buf[..t.size], Instant::now());
                }
                match sock.send_to(&buf[..t.size], t.destination) {
                    Ok(_) => *sent += 1,
                    // A full socket buffer drops the datagram, as a router would.
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
            }
        });
        self.tls_rng = rng;
        r
    }

    /// Waits for one datagram until quinn's next deadline and hands it over, or lets
    /// quinn's timers fire. Returns the endpoint's connection events handled.
    fn step(&mut self, accept: bool) -> std::io::Result<()> {
        let deadline = self.conn.as_mut().and_then(|(_, c)| c.poll_timeout());
        let now = Instant::now();
        if let Some(t) = self.awake_since.take() {
            self.out.busy += now - t;
        }
        let wait = deadline.map_or(Duration::from_millis(50), |d| {
            d.saturating_duration_since(now)
        });
        self.sock.set_read_timeout(Some(
            wait.clamp(Duration::from_micros(20), Duration::from_millis(50)),
        ))?;
        let mut data = [0u8; 65_535];
        let got = self.sock.recv_from(&mut data);
        let woke = Instant::now();
        self.awake_since = Some(woke);
        if let (Ok((n, _)), Some(tr)) = (&got, self.transit.as_deref()) {
            if let Some(d) = tr.on_receive(&data[..*n], woke) {
                self.out.transits += 1;
                self.out.transit_total += d;
            }
        }
        let mut rng = self.tls_rng.take();
        let r = crypto::with_rng(&mut rng, || {
            match got {
                Ok((n, from)) => {
                    self.out.datagrams_received += 1;
                    self.on_datagram(&data[..n], from, accept);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e),
            }
            let now = Instant::now();
            if let Some((_, c)) = self.conn.as_mut() {
                if let Some(d) = c.poll_timeout().filter(|d| *d <= now) {
                    self.out.timer_lateness += now - d;
                    c.handle_timeout(now);
                }
            }
            Ok(())
        });
        self.tls_rng = rng;
        r
    }

    fn on_datagram(&mut self, data: &[u8], from: SocketAddr, accept: bool) {
        let now = Instant::now();
        let local = self.sock.local_addr().ok().map(|a| a.ip());
        let ev = self
            .endpoint
            .handle(now, from, local, None, BytesMut::from(data), &mut self.buf);
        let respond = |buf: &[u8], size: usize, to: SocketAddr| {
            let _ = self.sock.send_to(&buf[..size], to);
        };
        match ev {
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some((mine, conn)) = self.conn.as_mut() {
                    if *mine == ch {
                        conn.handle_event(ev);
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) if accept && self.conn.is_none() => {
                match self.endpoint.accept(incoming, now, &mut self.buf, None) {
                    Ok(c) => self.conn = Some(c),
                    Err(e) => {
                        if let Some(t) = e.response {
                            respond(&self.buf, t.size, t.destination);
                        }
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                let t = self.endpoint.refuse(incoming, &mut self.buf);
                respond(&self.buf, t.size, t.destination);
            }
            Some(DatagramEvent::Response(t)) => respond(&self.buf, t.size, t.destination),
            None => {}
        }
    }

    /// Exchanges endpoint events with the connection; returns the application events.
    fn events(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        if let Some((ch, conn)) = self.conn.as_mut() {
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(back) = self.endpoint.handle_event(*ch, ev) {
                    conn.handle_event(back);
                }
            }
            while let Some(ev) = conn.poll() {
                out.push(ev);
            }
        }
        out
    }

    fn drained(&self) -> bool {
        self.conn.as_ref().is_some_and(|(_, c)| c.is_drained())
    }

    fn timed_out(&self, flow: &LiveFlow) -> bool {
        self.started.elapsed() > flow.timeout
    }
}

/// The TLS identity and both configurations, from the seed as the simulated flow
/// named "q" makes them.
fn configs(
    flow: &LiveFlow,
) -> Result<(quinn_proto::ClientConfig, Arc<quinn_proto::ServerConfig>), String> {
    let l = label("q");
    let id = crypto::identity(&mut RngStream::new(
        flow.seed,
        &format!("{l}:server:identity"),
    ))?;
    let transport = Arc::new(setup::transport(flow.controller, flow.streams, None));
    let client = setup::client_config(
        flow.seed,
        &format!("{l}:client"),
        &id.cert,
        transport.clone(),
        None,
    )?;
    let server = setup::server_config(flow.seed, &format!("{l}:server"), &id, transport)?;
    Ok((client, Arc::new(server)))
}

/// Serves one connection on `sock` until it is drained (or the timeout).
pub fn serve(flow: &LiveFlow, sock: UdpSocket) -> Result<LiveOutcome, String> {
    let (_, server_cfg) = configs(flow)?;
    let mut end = End::new(flow, "server", Some(server_cfg), sock);
    let mut sink = app::Sink::new(flow.streams, 1000, &[], Window::ALL);
    while !end.drained() && !end.timed_out(flow) {
        end.step(true).map_err(|e| format!("server socket: {e}"))?;
        let t = SimTime::ZERO;
        let evs = end.events();
        if let Some((_, conn)) = end.conn.as_mut() {
            for ev in evs {
                match ev {
                    Event::Stream(StreamEvent::Readable { id }) => sink.read(t, conn, id),
                    Event::Stream(StreamEvent::Opened { .. }) => sink.read_all(t, conn),
                    _ => {}
                }
            }
        }
        end.transmit().map_err(|e| format!("server socket: {e}"))?;
    }
    end.out.delivered_bytes = sink.delivered_bytes;
    Ok(end.out)
}

/// Connects to `remote` from `sock`, sends `flow.bytes` on `flow.streams` streams,
/// closes once every byte is acknowledged and returns when the connection is drained.
pub fn connect(
    flow: &LiveFlow,
    sock: UdpSocket,
    remote: SocketAddr,
) -> Result<LiveOutcome, String> {
    let (client_cfg, _) = configs(flow)?;
    let mut end = End::new(flow, "client", None, sock);
    let mut source = app::Source::new(flow.streams, Some(flow.bytes), 1000);
    let mut rng = end.tls_rng.take();
    let c = crypto::with_rng(&mut rng, || {
        end.endpoint
            .connect(Instant::now(), client_cfg, remote, crypto::SERVER_NAME)
    });
    end.tls_rng = rng;
    end.started = Instant::now();
    end.conn = Some(c.map_err(|e| format!("quinn refused to connect: {e}"))?);
    let mut closed = false;
    end.transmit().map_err(|e| format!("client socket: {e}"))?;
    while !end.drained() && !end.timed_out(flow) {
        end.step(false).map_err(|e| format!("client socket: {e}"))?;
        let evs = end.events();
        let elapsed = end.started.elapsed();
        let Some((_, conn)) = end.conn.as_mut() else {
            break;
        };
        for ev in evs {
            match ev {
                Event::Connected => {
                    end.out.connect_time = Some(elapsed);
                    source.open(conn);
                }
                Event::Stream(StreamEvent::Available { .. }) => source.open(conn),
                Event::Stream(StreamEvent::Finished { .. }) => source.on_acked(),
                _ => {}
            }
        }
        if !conn.is_handshaking() && !closed {
            source.write(conn);
            if source.complete() {
                closed = true;
                end.out.completion_time = Some(elapsed);
                end.out.lost_packets = conn.stats().path.lost_packets;
                conn.close(Instant::now(), VarInt::from_u32(0), bytes::Bytes::new());
            }
        }
        end.transmit().map_err(|e| format!("client socket: {e}"))?;
    }
    Ok(end.out)
}
