//! The real-time driver: one association, one UDP socket (RFC 6951 encapsulation:
//! each UDP payload is one SCTP packet), the wall clock as `SimTime` since the session
//! began. It feeds the machine what arrives and its timer expiries, and sends what the
//! machine polls out, exactly as the simulator's run loop does, with real message bytes
//! added to DATA chunks (`payload`).
//!
//! The socket waits at most until the association's next deadline, and `run_for`
//! returns after the wall time it is given, so a caller can check for Ctrl-C between
//! slices.

use super::payload::{PayloadReceiver, PayloadSender};
use super::wire::{for_each_data, frame_udp, reseal};
use crate::endpoint::Endpoint;
use crate::net::wire::{Chunk, DataFlags, SctpRepr, TransportRepr, WireError};
use crate::net::{Packet, PacketKind};
use crate::sctp::{AssocCfg, Association, Role, State};
use crate::sim::{RngStream, SimTime};
use crate::trace::pcap::PcapWriter;
use reset::note_ssn;
use std::fs::File;
use std::io::{BufWriter, ErrorKind};
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod interleave;
mod report;
mod reset;

/// Largest UDP payload accepted.
const MAX_DATAGRAM: usize = 65_535;
/// Bytes of out-of-order user data the payload checker keeps at most.
const RECEIVE_STORE_CAP: u64 = 64 << 20;
/// Shortest socket wait, so a deadline that is due keeps the loop turning.
const MIN_WAIT: Duration = Duration::from_micros(50);

pub struct LiveOptions {
    pub role: Role,
    /// Local UDP address.
    pub bind: SocketAddrV4,
    /// Client: the server's UDP address.
    pub remote: Option<SocketAddrV4>,
    /// The server's SCTP port.
    pub sctp_port: u16,
    /// Client: its own SCTP port (default: the server's).
    pub local_sctp_port: Option<u16>,
    /// The association (`config::assoc_config`); its ports and addresses are set here.
    pub assoc: AssocCfg,
    /// Give up after this long (exit status 3 in the CLI).
    pub timeout: Option<Duration>,
    /// Client: how long to stay after SHUTDOWN-COMPLETE, answering a retransmitted
    /// SHUTDOWN-ACK (its SHUTDOWN-COMPLETE was lost) as RFC 9260 8.4 (5) says.
    pub linger: Duration,
    pub pcap: Option<PathBuf>,
    /// Seed of the tags, initial TSN and cookie secret; None: from the OS.
    pub seed: Option<u64>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Running,
    /// SHUTDOWN / SHUTDOWN-ACK / SHUTDOWN-COMPLETE went through.
    Graceful,
    /// ABORT sent or received, or the handshake gave up.
    Aborted,
    TimedOut,
}

/// What arrived and what was refused, beyond the association's own counters.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub datagrams_in: u64,
    pub datagrams_out: u64,
    /// Datagrams that do not decode as an SCTP packet: bad checksum, truncated or
    /// inconsistent lengths. (Chunk types this implementation does not know are not
    /// malformed: the association handles them as RFC 9260 3.2 says.)
    pub malformed: u64,
    pub bad_checksum: u64,
    /// Well-formed packets for another SCTP port, or (client) from another address.
    pub misdirected: u64,
    pub send_errors: u64,
    /// Chunks whose bytes could not be placed (should stay 0).
    pub payload_misses: u64,
    /// AUTH chunks (RFC 4895) in the datagrams that decoded; the machine counts those
    /// that failed their check (`auth_bad`).
    pub auth_received: u64,
    /// Ordered messages whose first fragment carries SSN 0 on a stream whose previous
    /// message had a nonzero SSN other than 65535: the peer reset the stream (RFC 6525
    /// 5.2.2), as a wrap cannot be the cause.
    pub ssn_restarts: u64,
    /// I-DATA and I-FORWARD-TSN chunks (RFC 8260 sec. 2.1, 2.3.1) too short for their
    /// fields, from a peer this end offered interleaving to: each is dropped and the
    /// rest of its packet processed.
    pub malformed_chunks: u64,
    /// FORWARD TSN and I-FORWARD-TSN chunks received (RFC 3758 3.2, RFC 8260 2.3.1).
    pub forward_tsn_received: u64,
}

pub struct Session {
    role: Role,
    sock: UdpSocket,
    local: SocketAddrV4,
    peer: Option<SocketAddrV4>,
    last_from: Option<SocketAddrV4>,
    /// SCTP source ports of the last packet accepted and of the peer: the server's
    /// association is configured before any peer is known, so its packets are
    /// addressed here (an INIT ACK to the INIT's port, the rest to the peer's).
    last_from_port: u16,
    peer_sctp_port: Option<u16>,
    local_sctp_port: u16,
    pub assoc: Association,
    epoch: Instant,
    epoch_unix_ns: u64,
    deadline: Option<Instant>,
    linger: Duration,
    linger_until: Option<Instant>,
    outcome: Outcome,
    pcap: Option<(PcapWriter<BufWriter<File>>, PathBuf)>,
    pcap_ident: u16,
    pkt: Packet,
    rx_pkt: Packet,
    rx_buf: Vec<u8>,
    tx_buf: Vec<u8>,
    frame_buf: Vec<u8>,
    sender: PayloadSender,
    pub receiver: Option<PayloadReceiver>,
    /// When this end's association came up, and when its transfer ended (all data
    /// acknowledged at the client, last message delivered at the server).
    established_at: Option<SimTime>,
    transfer_done_at: Option<SimTime>,
    /// Server: when the first message was handed on.
    first_delivery_at: Option<SimTime>,
    wait_set: Option<Duration>,
    pub counters: Counters,
    total: Option<u64>,
    /// Client: request an Outgoing SSN Reset of every stream once this many bytes are
    /// acknowledged (`reset_streams_after`).
    reset_at_bytes: Option<u64>,
    /// The SSN of the last ordered message begun on each inbound stream.
    last_ssn: Vec<Option<u16>>,
    /// The association's message size and outbound streams (for the reset).
    message_size: u64,
    out_streams: u16,
    /// PR-SCTP offered (`config::apply_pr`); the client's message count, given to its
    /// sources once they exist.
    pr: bool,
    pr_limit: Option<u64>,
}

fn os_seed() -> u64 {
    use std::io::Read;
    let mut b = [0u8; 8];
    if File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok()
    {
        return u64::from_le_bytes(b);
    }
    // No /dev/urandom: std's per-process random hash keys.
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::process::id())
}

fn v4(a: SocketAddr) -> Option<SocketAddrV4> {
    match a {
        SocketAddr::V4(a) => Some(a),
        SocketAddr::V6(_) => None,
    }
}

impl Session {
    pub fn new(opts: LiveOptions) -> std::io::Result<Session> {
        let sock = UdpSocket::bind(opts.bind)?;
        let local = v4(sock.local_addr()?).unwrap_or(opts.bind);
        let (ports, peer_ip) = match opts.role {
            Role::Client => {
                let remote = opts.remote.ok_or_else(|| {
                    std::io::Error::new(ErrorKind::InvalidInput, "client without a remote")
                })?;
                (
                    (
                        opts.local_sctp_port.unwrap_or(opts.sctp_port),
                        opts.sctp_port,
                    ),
                    remote.ip().octets(),
                )
            }
            Role::Server => ((0, opts.sctp_port), [0; 4]),
        };
        let local_sctp_port = match opts.role {
            Role::Client => ports.0,
            Role::Server => ports.1,
        };
        let total = opts.assoc.total;
        let (message_size, out_streams) = (opts.assoc.message_size, opts.assoc.streams);
        let pr = !opts.assoc.stream_traffic.is_empty();
        let pr_limit = match (pr, opts.role) {
            (true, Role::Client) => Some(total.unwrap_or(0) / message_size.max(1)),
            _ => None,
        };
        let cfg = AssocCfg {
            ports,
            local_addrs: vec![local.ip().octets()],
            primary_peer: peer_ip,
            ..opts.assoc
        };
        let seed = opts.seed.unwrap_or_else(os_seed);
        let name = match opts.role {
            Role::Client => "live:client",
            Role::Server => "live:server",
        };
        let assoc = Association::new(opts.role, cfg, RngStream::new(seed, name));
        let pcap = match &opts.pcap {
            Some(path) => {
                let f = File::create(path)?;
                Some((PcapWriter::new(BufWriter::new(f))?, path.clone()))
            }
            None => None,
        };
        let now = Instant::now();
        let epoch_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Ok(Session {
            role: opts.role,
            sock,
            local,
            peer: opts.remote,
            last_from: None,
            last_from_port: 0,
            peer_sctp_port: match opts.role {
                Role::Client => Some(opts.sctp_port),
                Role::Server => None,
            },
            local_sctp_port,
            assoc,
            epoch: now,
            epoch_unix_ns,
            deadline: opts.timeout.map(|t| now + t),
            linger: opts.linger,
            linger_until: None,
            outcome: Outcome::Running,
            pcap,
            pcap_ident: 0,
            pkt: Packet::default(),
            rx_pkt: Packet::default(),
            rx_buf: vec![0; MAX_DATAGRAM],
            tx_buf: Vec::with_capacity(MAX_DATAGRAM),
            frame_buf: Vec::with_capacity(MAX_DATAGRAM + 28),
            sender: PayloadSender::default(),
            receiver: None,
            established_at: None,
            transfer_done_at: None,
            first_delivery_at: None,
            wait_set: None,
            counters: Counters::default(),
            total,
            reset_at_bytes: None,
            last_ssn: Vec::new(),
            message_size,
            out_streams,
            pr,
            pr_limit,
        })
    }

    /// The local UDP address (useful with port 0).
    pub fn local_addr(&self) -> SocketAddrV4 {
        self.local
    }

    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    fn sim_now(&self, at: Instant) -> SimTime {
        SimTime::from_nanos(at.saturating_duration_since(self.epoch).as_nanos() as u64)
    }

    /// Runs for at most `slice` of wall time; returns the outcome so far (`Running`
    /// if the session is not over, which includes a client's linger; `outcome()`
    /// tells how the association ended while the client lingers).
    pub fn run_for(&mut self, slice: Duration) -> std::io::Result<Outcome> {
        let end = Instant::now() + slice;
        loop {
            let at = Instant::now();
            if self.outcome != Outcome::Running {
                match self.linger_until {
                    Some(t) if at < t => {}
                    _ => {
                        self.flush_pcap();
                        return Ok(self.outcome);
                    }
                }
            } else if self.deadline.is_some_and(|d| at >= d) {
                self.outcome = Outcome::TimedOut;
                self.flush_pcap();
                return Ok(self.outcome);
            }
            if at >= end {
                self.flush_pcap();
                // A lingering client is not over yet: a caller that stopped on the
                // final outcome here would cut the linger to one slice.
                return Ok(if self.linger_until.is_some() {
                    Outcome::Running
                } else {
                    self.outcome
                });
            }
            let now = self.sim_now(at);
            if self.assoc.poll_timeout().is_some_and(|t| t <= now) {
                self.assoc.handle_timeout(now);
            }
            self.transmit(now);
            self.check_state(now);
            let mut wait = end.saturating_duration_since(at);
            if let Some(d) = self.deadline {
                wait = wait.min(d.saturating_duration_since(at));
            }
            if let Some(t) = self.linger_until {
                wait = wait.min(t.saturating_duration_since(at));
            }
            if let Some(t) = self.assoc.poll_timeout() {
                wait = wait.min(Duration::from_nanos(
                    t.as_nanos().saturating_sub(now.as_nanos()),
                ));
            }
            let wait = wait.max(MIN_WAIT);
            if self.wait_set != Some(wait) {
                self.sock.set_read_timeout(Some(wait))?;
                self.wait_set = Some(wait);
            }
            let mut rx = std::mem::take(&mut self.rx_buf);
            let got = self.sock.recv_from(&mut rx);
            let r = match got {
                Ok((n, from)) => {
                    let now = self.sim_now(Instant::now());
                    self.on_datagram(now, &rx[..n], from);
                    Ok(())
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock
                            | ErrorKind::TimedOut
                            | ErrorKind::Interrupted
                            | ErrorKind::ConnectionRefused
                    ) =>
                {
                    Ok(())
                }
                Err(e) => Err(e),
            };
            self.rx_buf = rx;
            r?;
        }
    }

    /// The client's PR-SCTP sources stop after its `--messages` (`apply_pr`): set once
    /// they exist (the association builds them on the INIT ACK).
    fn limit_sources(&mut self) {
        let Some(n) = self.pr_limit else { return };
        let src = self.assoc.out.as_mut().and_then(|o| o.app.streams.as_mut());
        if let Some(src) = src {
            src.limit_messages(n);
            self.pr_limit = None;
        }
    }

    fn flush_pcap(&mut self) {
        if let Some((w, _)) = self.pcap.as_mut() {
            // A pcap that cannot be written must not stop the association.
            let _ = w.flush();
        }
    }

    fn record(&mut self, now: SimTime, src: SocketAddrV4, dst: SocketAddrV4, payload: &[u8]) {
        let Some((w, _)) = self.pcap.as_mut() else {
            return;
        };
        self.pcap_ident = self.pcap_ident.wrapping_add(1);
        frame_udp(
            &mut self.frame_buf,
            (src.ip().octets(), src.port()),
            (dst.ip().octets(), dst.port()),
            self.pcap_ident,
            payload,
        );
        let _ = w.write_packet(self.epoch_unix_ns + now.as_nanos(), &self.frame_buf);
    }

    fn check_state(&mut self, now: SimTime) {
        if self.established_at.is_none()
            && matches!(
                self.assoc.state,
                State::Established | State::ShutdownSent | State::ShutdownAckSent
            )
        {
            self.established_at = Some(now);
        }
        if self.transfer_done_at.is_none() {
            let done = match self.role {
                Role::Client => self.assoc.out.as_ref().and_then(|o| o.all_acked_at),
                Role::Server => None,
            };
            self.transfer_done_at = done;
        }
        if self.outcome == Outcome::Running && self.assoc.state == State::Done {
            if self.assoc.stats.aborted {
                self.outcome = Outcome::Aborted;
            } else {
                self.outcome = Outcome::Graceful;
                if self.role == Role::Client && !self.linger.is_zero() {
                    self.linger_until = Some(Instant::now() + self.linger);
                }
            }
        }
    }

    /// Sends everything the association has to send now.
    fn transmit(&mut self, now: SimTime) {
        while self.assoc.poll_transmit(now, &mut self.pkt) {
            let TransportRepr::Sctp(repr) = &mut self.pkt.transport else {
                continue;
            };
            let is_init_ack = repr.chunks.iter().any(|c| matches!(c, Chunk::InitAck(_)));
            repr.dst_port = match (is_init_ack, self.peer_sctp_port) {
                (false, Some(p)) => p,
                _ => self.last_from_port,
            };
            let n = repr.buffer_len();
            self.tx_buf.clear();
            self.tx_buf.resize(n, 0);
            repr.emit(&mut self.tx_buf);
            if self.pkt.kind == PacketKind::Data {
                let idata = self.assoc.idata_on();
                let (sender, counters) = (&mut self.sender, &mut self.counters);
                let buf = &mut self.tx_buf;
                let mut spots = [(0usize, 0usize, 0u32, 0u16, false); 64];
                let mut k = 0;
                for_each_data(buf, idata, |d| {
                    if k < spots.len() {
                        spots[k] = (
                            d.start,
                            d.end,
                            d.tsn,
                            d.stream,
                            d.flags & DataFlags::BEGIN.bits() != 0,
                        );
                        k += 1;
                    }
                });
                for &(s, e, tsn, stream, begin) in &spots[..k] {
                    if !sender.fill_chunk(&mut buf[s..e], tsn, stream, begin) {
                        counters.payload_misses += 1;
                    }
                }
                reseal(buf);
            }
            let dest = if is_init_ack {
                self.last_from
            } else {
                self.peer.or(self.last_from)
            };
            let Some(dest) = dest else { continue };
            self.send(now, dest);
        }
        while self.assoc.poll_event().is_some() {}
        if let Some(out) = self.assoc.out.as_ref() {
            self.sender.acked(out.cum_ack);
        }
    }

    fn send(&mut self, now: SimTime, dest: SocketAddrV4) {
        match self.sock.send_to(&self.tx_buf, dest) {
            Ok(_) => self.counters.datagrams_out += 1,
            Err(_) => self.counters.send_errors += 1,
        }
        let buf = std::mem::take(&mut self.tx_buf);
        self.record(now, self.local, dest, &buf);
        self.tx_buf = buf;
    }

    fn on_datagram(&mut self, now: SimTime, data: &[u8], from: SocketAddr) {
        self.counters.datagrams_in += 1;
        let Some(from) = v4(from) else {
            self.counters.misdirected += 1;
            return;
        };
        self.record(now, from, self.local, data);
        // Decoded into the packet kept for the machine, whose chunk list (and SACK
        // lists) are reused: no allocation per datagram once they have grown.
        if !matches!(self.rx_pkt.transport, TransportRepr::Sctp(_)) {
            self.rx_pkt.transport = TransportRepr::Sctp(SctpRepr {
                src_port: 0,
                dst_port: 0,
                vtag: 0,
                chunks: Vec::new(),
            });
        }
        let TransportRepr::Sctp(repr) = &mut self.rx_pkt.transport else {
            return;
        };
        let (vtag, peer_port, dst_port, has_shutdown_ack) = match repr.parse_into(data) {
            Ok(()) => (
                {
                    if self.assoc.knobs().interleaving {
                        if interleave::parse_past_idata(repr, data).is_err() {
                            self.counters.malformed += 1;
                            return;
                        }
                        interleave::decode(repr, &mut self.counters);
                    }
                    self.counters.forward_tsn_received += repr
                        .chunks
                        .iter()
                        .filter(|c| matches!(c, Chunk::ForwardTsn(_) | Chunk::IForwardTsn(_)))
                        .count() as u64;
                    self.counters.auth_received += repr
                        .chunks
                        .iter()
                        .filter(|c| matches!(c, Chunk::Auth(_)))
                        .count() as u64;
                    repr.vtag
                },
                repr.src_port,
                repr.dst_port,
                repr.chunks.iter().any(|c| matches!(c, Chunk::ShutdownAck)),
            ),
            Err(e) => {
                self.counters.malformed += 1;
                if e == WireError::BadChecksum {
                    self.counters.bad_checksum += 1;
                }
                return;
            }
        };
        if dst_port != self.local_sctp_port
            || (self.role == Role::Client && Some(from) != self.peer)
        {
            self.counters.misdirected += 1;
            return;
        }
        self.last_from = Some(from);
        self.last_from_port = peer_port;
        if self.assoc.state == State::Done {
            // RFC 9260 8.4 (5): after the association is gone, a SHUTDOWN-ACK gets a
            // SHUTDOWN-COMPLETE with the T bit (the peer's own tag reflected).
            if has_shutdown_ack {
                self.shutdown_complete_t(now, vtag, peer_port, from);
            }
            return;
        }
        let had_inb = self.assoc.inb.is_some();
        let restarts = self.assoc.stats.restarts;
        let discarded = self.discarded();
        self.rx_pkt.ip.src = from.ip().octets();
        self.rx_pkt.ip.dst = self.local.ip().octets();
        self.assoc.handle_packet(now, &self.rx_pkt);
        if self.discarded() > discarded {
            // Refused whole (wrong tag, a broken bundling rule, out of the blue, a
            // refused cookie): none of its DATA reaches the payload check.
            self.transmit(now);
            return;
        }
        let restarted = self.assoc.stats.restarts > restarts;
        if self.role == Role::Server && (restarted || !had_inb && self.assoc.inb.is_some()) {
            // A new association, or the peer's restarted one (RFC 9260 5.2.4 (A)):
            // messages count from the new initial TSN, to the new peer.
            self.peer = Some(from);
            self.peer_sctp_port = Some(self.last_from_port);
            let mut rcv = PayloadReceiver::new(self.first_peer_tsn(data));
            rcv.interleave = self.assoc.idata_on();
            rcv.pr = self.pr;
            self.receiver = Some(rcv);
        }
        // DATA the machine refused for lying beyond its window, or discarded for naming a
        // stream it does not have (RFC 9260 6.5), is not kept here either.
        let limit = self
            .assoc
            .inb
            .as_ref()
            .map(|i| (i.cum_tsn, i.max_ahead(), i.streams.len()));
        let idata = self.assoc.idata_on();
        if let Some(rcv) = self.receiver.as_mut() {
            let (last_ssn, counters) = (&mut self.last_ssn, &mut self.counters);
            let before = rcv.messages;
            for_each_data(data, idata, |d| {
                if let Some((cum, max, streams)) = limit {
                    if d.tsn.wrapping_sub(cum) as i32 > max as i32 {
                        return;
                    }
                    if usize::from(d.stream) >= streams {
                        rcv.on_discarded(d.tsn);
                        return;
                    }
                }
                let flags = DataFlags::from_bits(d.flags);
                if flags.contains(DataFlags::BEGIN) && !flags.contains(DataFlags::UNORDERED) {
                    // An I-DATA message's MID starts again at 0 after a reset as an
                    // SSN does (RFC 8260 sec. 2.3.2).
                    let seq = d.mid.map_or(d.ssn, |m| m as u16);
                    note_ssn(last_ssn, counters, d.stream, seq);
                }
                rcv.on_data_at(&d, &data[d.start..d.end], RECEIVE_STORE_CAP);
            });
            if let (true, Some(inb)) = (self.pr, self.assoc.inb.as_ref()) {
                // TSNs the peer abandoned: its FORWARD TSN moved the machine's
                // cumulative TSN past them (RFC 3758 3.6).
                rcv.skip_to(inb.cum_tsn);
            }
            if rcv.messages > before {
                self.first_delivery_at.get_or_insert(now);
                self.transfer_done_at = Some(now);
            }
        }
        self.maybe_reset_streams(now);
        self.limit_sources();
        self.transmit(now);
        self.check_state(now);
    }

    /// Packets the machine refused whole so far.
    fn discarded(&self) -> u64 {
        let st = &self.assoc.stats;
        st.bad_vtag_drops + st.rule_violations + st.ootb_packets + st.cookie_rejects
    }

    /// The peer's initial TSN, once the packet in `data` created the association: the
    /// inbound half starts below it, and `highest_tsn` counts from it when that packet
    /// bundled DATA.
    fn first_peer_tsn(&self, data: &[u8]) -> u32 {
        let Some(inb) = self.assoc.inb.as_ref() else {
            return 0;
        };
        if inb.highest_tsn == 0 {
            return inb.cum_tsn.wrapping_add(1);
        }
        let mut top: Option<u32> = None;
        for_each_data(data, self.assoc.idata_on(), |d| {
            top = Some(match top {
                Some(t) if (d.tsn.wrapping_sub(t) as i32) <= 0 => t,
                _ => d.tsn,
            });
        });
        top.map_or(inb.cum_tsn.wrapping_add(1), |t| {
            t.wrapping_sub(inb.highest_tsn).wrapping_add(1)
        })
    }

    fn shutdown_complete_t(&mut self, now: SimTime, vtag: u32, peer_port: u16, to: SocketAddrV4) {
        let repr = SctpRepr {
            src_port: self.local_sctp_port,
            dst_port: peer_port,
            vtag,
            chunks: vec![Chunk::ShutdownComplete { t_bit: true }],
        };
        self.tx_buf.clear();
        self.tx_buf.resize(repr.buffer_len(), 0);
        repr.emit(&mut self.tx_buf);
        self.send(now, to);
    }
}
