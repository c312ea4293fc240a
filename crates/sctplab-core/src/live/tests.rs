//! Sessions over loopback UDP: our client to our server, and crafted packets against
//! a server (the defences of RFC 9260 5.1.3 and 8.5 over a real socket).

use super::*;
use crate::sctp::Role;
use crate::sim::SimTime;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::thread;
use std::time::{Duration, Instant};

pub(super) const LO: Ipv4Addr = Ipv4Addr::LOCALHOST;

pub(super) fn flow(sets: &[(&str, &str)]) -> crate::sctp::AssocCfg {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assoc_config(None, &sets).expect("flow")
}

fn server(timeout_s: u64) -> Session {
    Session::new(server_options(timeout_s)).expect("server socket")
}

pub(super) fn server_options(timeout_s: u64) -> LiveOptions {
    LiveOptions {
        role: Role::Server,
        bind: SocketAddrV4::new(LO, 0),
        remote: None,
        sctp_port: 5001,
        local_sctp_port: None,
        assoc: flow(&[]),
        timeout: Some(Duration::from_secs(timeout_s)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(7),
    }
}

pub(super) fn run_to_end(s: &mut Session) -> Outcome {
    loop {
        let o = s.run_for(Duration::from_millis(100)).expect("io");
        if o != Outcome::Running {
            return o;
        }
    }
}

#[test]
fn client_to_server_1000_messages_over_4_streams() {
    let mut srv = server(30);
    let srv_addr = srv.local_addr();
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.result_line(), srv.summary())
    });
    // 1000 messages of 700 bytes: 700 000 bytes in all.
    let mut cli = Session::new(LiveOptions {
        role: Role::Client,
        bind: SocketAddrV4::new(LO, 0),
        remote: Some(srv_addr),
        sctp_port: 5001,
        local_sctp_port: None,
        assoc: flow(&[
            ("streams", "4"),
            ("bytes", "700000B"),
            ("message_size", "700B"),
        ]),
        timeout: Some(Duration::from_secs(30)),
        linger: Duration::ZERO,
        pcap: None,
        seed: Some(8),
    })
    .expect("client socket");
    let t0 = Instant::now();
    assert_eq!(run_to_end(&mut cli), Outcome::Graceful);
    let (o, line, summary) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    // Round-robin over 4 streams: 250 messages each, in order, intact.
    let v: serde_json::Value = serde_json::from_str(&line).expect("json");
    assert_eq!(v["messages"], 1000);
    assert_eq!(v["bytes"], 700_000);
    assert_eq!(v["errors"], 0);
    for s in ["0", "1", "2", "3"] {
        assert_eq!(v["streams"][s], 250, "{line}");
    }
    assert_eq!(summary["flows"]["live"]["delivered_bytes"], 700_000);
    assert_eq!(summary["live"]["malformed"], 0);
    let c: serde_json::Value = serde_json::from_str(&cli.result_line()).expect("json");
    assert_eq!(c["messages"], 1000);
    assert!(t0.elapsed() < Duration::from_secs(20));
}

/// Forwards datagrams between one client and `server` for `run` of wall time, losing
/// the first `lose` packets toward the server whose first chunk is a
/// SHUTDOWN-COMPLETE; returns how many it lost.
fn relay_losing_shutdown_complete(
    server: SocketAddrV4,
    lose: usize,
    run: Duration,
) -> (SocketAddrV4, thread::JoinHandle<usize>) {
    let sock = std::net::UdpSocket::bind(SocketAddrV4::new(LO, 0)).expect("relay socket");
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .expect("timeout");
    let addr = match sock.local_addr().expect("addr") {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("IPv4 expected, got {other}"),
    };
    let h = thread::spawn(move || {
        let (mut client, mut lost) = (None, 0);
        let mut buf = [0u8; 2048];
        let end = Instant::now() + run;
        while Instant::now() < end {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            if from == std::net::SocketAddr::V4(server) {
                if let Some(c) = client {
                    let _ = sock.send_to(&buf[..n], c);
                }
                continue;
            }
            client = Some(from);
            // Byte 12: the first chunk's type; 14 is SHUTDOWN-COMPLETE.
            if n > 12 && buf[12] == 14 && lost < lose {
                lost += 1;
                continue;
            }
            let _ = sock.send_to(&buf[..n], server);
        }
        lost
    });
    (addr, h)
}

#[test]
fn lingering_client_answers_a_retransmitted_shutdown_ack() {
    // The first SHUTDOWN-COMPLETE is lost: the server's T2-shutdown (RTO.Initial,
    // 500 ms here) resends SHUTDOWN-ACK, the client, whose association is gone,
    // answers with a SHUTDOWN-COMPLETE under the server's tag with the T bit
    // (RFC 9260 8.4 (5)), and the server accepts it (8.5.1 (C)).
    let mut srv = Session::new(LiveOptions {
        assoc: flow(&[("rto_initial", "500ms")]),
        ..server_options(10)
    })
    .expect("server");
    let srv_addr = srv.local_addr();
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv.assoc.stats.bad_vtag_drops)
    });
    let linger = Duration::from_secs(2);
    let (relay, r) = relay_losing_shutdown_complete(srv_addr, 1, Duration::from_secs(4));
    let mut cli = Session::new(LiveOptions {
        role: Role::Client,
        bind: SocketAddrV4::new(LO, 0),
        remote: Some(relay),
        sctp_port: 5001,
        local_sctp_port: None,
        assoc: flow(&[("bytes", "10000B"), ("message_size", "1000B")]),
        timeout: Some(Duration::from_secs(10)),
        linger,
        pcap: None,
        seed: Some(9),
    })
    .expect("client socket");
    let t0 = Instant::now();
    assert_eq!(run_to_end(&mut cli), Outcome::Graceful);
    // run_for reported Running through the whole linger, not only its first slice.
    assert!(t0.elapsed() >= linger, "{:?}", t0.elapsed());
    let (o, bad_tags) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    assert_eq!(bad_tags, 0);
    assert_eq!(
        r.join().expect("relay thread"),
        1,
        "one SHUTDOWN-COMPLETE lost"
    );
}

// ---- Crafted packets over the socket ----------------------------------------------

use crate::net::wire::{Chunk, DataChunk, DataFlags, InitChunk, SctpRepr};
use std::net::UdpSocket;

pub(super) struct Attacker {
    pub(super) sock: UdpSocket,
    to: SocketAddrV4,
}

impl Attacker {
    pub(super) fn new(to: SocketAddrV4) -> Attacker {
        let sock = UdpSocket::bind(SocketAddrV4::new(LO, 0)).expect("bind");
        sock.set_read_timeout(Some(Duration::from_millis(300)))
            .expect("timeout");
        Attacker { sock, to }
    }

    pub(super) fn send_raw(&self, bytes: &[u8]) {
        self.sock.send_to(bytes, self.to).expect("send");
    }

    /// Encodes `chunks` under `vtag`; DATA chunks carry test message `k` of their
    /// stream (one chunk per message).
    pub(super) fn send(&self, vtag: u32, chunks: Vec<Chunk>, k: u32) {
        let repr = SctpRepr {
            src_port: 6000,
            dst_port: 5001,
            vtag,
            chunks,
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf);
        let mut spots = Vec::new();
        super::wire::for_each_data(&buf, false, |d| spots.push(d));
        for d in spots {
            super::payload::fill(&mut buf[d.start..d.end], k, d.stream, 0);
        }
        super::wire::reseal(&mut buf);
        self.send_raw(&buf);
    }

    pub(super) fn recv(&self) -> Option<SctpRepr> {
        let mut buf = [0u8; 2048];
        let (n, _) = self.sock.recv_from(&mut buf).ok()?;
        SctpRepr::parse(&buf[..n]).ok()
    }

    pub(super) fn init(&self, tag: u32, tsn: u32) -> Option<crate::net::wire::InitAckChunk> {
        self.init_with(tag, tsn, vec![])
    }

    /// An INIT carrying the parameter TLVs `params` after its fixed fields.
    fn init_with(
        &self,
        tag: u32,
        tsn: u32,
        params: Vec<Vec<u8>>,
    ) -> Option<crate::net::wire::InitAckChunk> {
        self.send(
            0,
            vec![Chunk::Init(InitChunk {
                init_tag: tag,
                a_rwnd: 65_536,
                outbound_streams: 1,
                inbound_streams: 1,
                initial_tsn: tsn,
                addrs: vec![],
                forward_tsn: false,
                cookie_preservative: None,
                unrecognized: params,
                ecn_capable: false,
                ext: Default::default(),
            })],
            0,
        );
        match self.recv()?.chunks.first()? {
            Chunk::InitAck(ia) => Some(ia.clone()),
            _ => None,
        }
    }
}

pub(super) fn data(tsn: u32, payload_len: u32) -> Chunk {
    Chunk::Data(DataChunk {
        tsn,
        stream: 0,
        ssn: 0,
        ppid: 0,
        flags: DataFlags::UNFRAGMENTED,
        payload_len,
    })
}

/// Datagrams that are not SCTP packets this implementation accepts, each for its own
/// reason (RFC 9260 3, 3.2, 6.8); every one must be counted and dropped.
fn malformed_packets() -> Vec<Vec<u8>> {
    let valid = |chunks: Vec<Chunk>| {
        let repr = SctpRepr {
            src_port: 6000,
            dst_port: 5001,
            vtag: 1,
            chunks,
        };
        let mut b = vec![0u8; repr.buffer_len()];
        repr.emit(&mut b);
        b
    };
    let sealed = |mut b: Vec<u8>| {
        super::wire::reseal(&mut b);
        b
    };
    let mut out = Vec::new();
    // Shorter than the common header.
    out.push(vec![0x13; 7]);
    // A good packet with one bit flipped: the CRC32c no longer matches.
    let mut b = valid(vec![Chunk::CookieAck]);
    b[13] ^= 0x80;
    out.push(b);
    // Common header only, no chunk.
    out.push(sealed(valid(vec![Chunk::CookieAck])[..12].to_vec()));
    // Chunk length 3 (below its own header).
    let mut b = valid(vec![Chunk::CookieAck]);
    b[15] = 3;
    out.push(sealed(b));
    // Chunk length beyond the datagram.
    let mut b = valid(vec![data(1, 8)]);
    b[15] = 200;
    out.push(sealed(b));
    // SACK whose gap count disagrees with its length.
    let mut b = valid(vec![Chunk::Sack(crate::net::wire::SackChunk {
        cum_tsn_ack: 1,
        a_rwnd: 1,
        gaps: vec![(2, 3)],
        dups: vec![],
        flags: 0,
    })]);
    b[12 + 13] = 2;
    out.push(sealed(b));
    // DATA chunk shorter than its fixed header.
    let mut b = valid(vec![data(1, 8)]);
    b[15] = 12;
    out.push(sealed(b[..24].to_vec()));
    out
}

#[test]
fn crafted_packets_over_the_socket() {
    let mut srv = Session::new(LiveOptions {
        assoc: flow(&[("cookie_lifetime", "300ms")]),
        ..server_options(20)
    })
    .expect("server");
    let addr = srv.local_addr();
    let h = thread::spawn(move || {
        let o = run_to_end(&mut srv);
        (o, srv)
    });
    let a = Attacker::new(addr);

    // 1. Malformed datagrams: counted, dropped, no answer.
    let bad = malformed_packets();
    for b in &bad {
        a.send_raw(b);
    }
    assert!(a.recv().is_none(), "nothing answers a malformed packet");

    // 2. INIT flood: each INIT gets a stateless INIT ACK under the INIT's own tag
    // (RFC 9260 5.1.3); no association is created.
    let mut acks = Vec::new();
    for tag in 1..=500u32 {
        let ia = a.init(tag, 1000).expect("INIT ACK");
        acks.push(ia);
    }

    // RFC 9260 3.2.1: of an INIT's unknown parameters, 0x8000 (bits 10: skip) goes
    // unreported and 0xC000 (bits 11: skip and report; Forward-TSN-Supported, which
    // this end does not implement) comes back in an Unrecognized Parameter of the INIT
    // ACK. Behind a 0x0010 parameter (bits 00: stop) nothing is read, so nothing is
    // reported.
    let ia = a
        .init_with(9, 1, vec![vec![0x80, 0, 0, 4], vec![0xc0, 0, 0, 4]])
        .expect("INIT ACK");
    assert_eq!(ia.reported, vec![vec![0xc0, 0, 0, 4]]);
    let ia = a
        .init_with(10, 1, vec![vec![0, 0x10, 0, 4], vec![0xc0, 0, 0, 4]])
        .expect("INIT ACK");
    assert!(ia.reported.is_empty());

    // 3. A tampered cookie, and a genuine one echoed after its 300 ms lifetime: both
    // refused without an answer.
    let mut bad_cookie = acks[0].state_cookie.clone();
    bad_cookie[20] ^= 1;
    a.send(
        acks[0].init_tag,
        vec![Chunk::CookieEcho { cookie: bad_cookie }],
        0,
    );
    assert!(a.recv().is_none(), "no COOKIE ACK for a tampered cookie");
    thread::sleep(Duration::from_millis(400));
    let stale = acks[1].state_cookie.clone();
    a.send(
        acks[1].init_tag,
        vec![Chunk::CookieEcho { cookie: stale }],
        0,
    );
    // RFC 9260 5.1.5 step 3: the stale one gets an ERROR with a Stale Cookie cause
    // (3) saying how late it is, under the tag of the INIT that asked for it.
    let err = a.recv().expect("Stale Cookie ERROR");
    assert_eq!(err.vtag, 2);
    match err.chunks.as_slice() {
        [
            Chunk::Error {
                t_bit: false,
                causes,
            },
        ] => {
            assert_eq!(causes.len(), 1);
            assert_eq!(causes[0].code, 3);
            let late = u32::from_be_bytes(causes[0].info[..4].try_into().expect("4 bytes"));
            assert!(late >= 100_000, "at least 100 ms late: {late} us");
        }
        other => panic!("ERROR expected, got {other:?}"),
    }
    assert!(a.recv().is_none(), "no COOKIE ACK for a stale cookie");

    // 4. A fresh handshake creates the one association.
    let ia = a.init(0xabcd, 7000).expect("INIT ACK");
    let their_tag = ia.init_tag;
    a.send(
        their_tag,
        vec![Chunk::CookieEcho {
            cookie: ia.state_cookie,
        }],
        0,
    );
    let ack = a.recv().expect("COOKIE ACK");
    assert_eq!(ack.vtag, 0xabcd);
    assert!(matches!(ack.chunks[0], Chunk::CookieAck));

    // 5. DATA under a wrong tag: dropped (RFC 9260 8.5), no SACK even after the
    // 200 ms delayed-SACK timer.
    a.send(their_tag ^ 0x5555, vec![data(7000, 100)], 0);
    assert!(a.recv().is_none(), "no SACK for a packet with a wrong tag");
    // The same DATA under the right tag: SACKed, delivered as message 0 of stream 0.
    a.send(their_tag, vec![data(7000, 100)], 0);
    let sack = a.recv().expect("SACK");
    let Some(Chunk::Sack(s)) = sack.chunks.first() else {
        panic!("SACK expected, got {sack:?}")
    };
    assert_eq!(s.cum_tsn_ack, 7000);

    // RFC 9260 3.2: an unknown chunk of type 0xC5 (bits 11) is skipped and reported;
    // the DATA behind it is processed. One of type 0x40 (bits 01) stops the packet:
    // reported, and the DATA behind it discarded.
    let unknown = |kind: u8| {
        Chunk::Unknown(crate::net::wire::UnknownChunk {
            kind,
            flags: 0,
            value: vec![1, 2, 3, 4, 5],
        })
    };
    a.send(their_tag, vec![unknown(0xc5), data(7001, 100)], 1);
    let mut got = Vec::new();
    while let Some(p) = a.recv() {
        assert_eq!(p.vtag, 0xabcd);
        got.extend(p.chunks);
    }
    // Unrecognized Chunk Type (cause 6): the chunk complete with its header, length
    // 4 + 5 = 9 (RFC 9260 3.3.10.6).
    let cause6 = |kind: u8| crate::net::wire::ErrorCause {
        code: 6,
        info: vec![kind, 0, 0, 9, 1, 2, 3, 4, 5],
    };
    assert!(
        got.contains(&Chunk::Error {
            t_bit: false,
            causes: vec![cause6(0xc5)]
        }),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|c| matches!(c, Chunk::Sack(s) if s.cum_tsn_ack == 7001)),
        "{got:?}"
    );
    a.send(their_tag, vec![unknown(0x40), data(7002, 100)], 2);
    let mut got = Vec::new();
    while let Some(p) = a.recv() {
        got.extend(p.chunks);
    }
    assert_eq!(
        got,
        vec![Chunk::Error {
            t_bit: false,
            causes: vec![cause6(0x40)]
        }],
        "no SACK: the DATA behind a stopping chunk is not processed"
    );

    // 6. Graceful shutdown.
    a.send(
        their_tag,
        vec![Chunk::Shutdown {
            cum_tsn_ack: ia.initial_tsn.wrapping_sub(1),
        }],
        0,
    );
    let r = a.recv().expect("SHUTDOWN ACK");
    assert!(matches!(r.chunks[0], Chunk::ShutdownAck));
    a.send(their_tag, vec![Chunk::ShutdownComplete { t_bit: false }], 0);

    let (o, mut srv) = h.join().expect("server thread");
    assert_eq!(o, Outcome::Graceful);
    let st = &srv.assoc.stats;
    assert_eq!(st.inits_received, 503);
    assert_eq!((st.unknown_chunks, st.errors_sent), (2, 3));
    assert_eq!(st.associations_created, 1);
    assert_eq!(st.cookie_rejects, 2);
    assert_eq!(st.bad_vtag_drops, 1);
    assert_eq!(srv.counters.malformed, bad.len() as u64);
    assert_eq!(srv.counters.bad_checksum, 1);
    assert_eq!(
        srv.result_line(),
        r#"{"messages": 2, "bytes": 200, "streams": {"0": 2}, "errors": 0}"#
    );
}

/// Bounded fuzzing of the decoders and the server's machine: mutations of valid
/// packets (resealed so the CRC passes and the chunk parsers are reached) must never
/// panic; whatever parses is fed to a server association.
#[test]
fn mutated_packets_never_panic() {
    use crate::endpoint::Endpoint;
    use crate::net::Packet;
    use crate::net::wire::TransportRepr;
    let seeds: Vec<Vec<u8>> = {
        let mut v = malformed_packets();
        let mk = |chunks: Vec<Chunk>| {
            let repr = SctpRepr {
                src_port: 6000,
                dst_port: 5001,
                vtag: 0,
                chunks,
            };
            let mut b = vec![0u8; repr.buffer_len()];
            repr.emit(&mut b);
            b
        };
        v.push(mk(vec![Chunk::Init(InitChunk {
            init_tag: 9,
            a_rwnd: 1000,
            outbound_streams: 3,
            inbound_streams: 3,
            initial_tsn: 5,
            addrs: vec![[127, 0, 0, 2]],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: false,
            ext: Default::default(),
        })]));
        v.push(mk(vec![
            data(5, 30),
            data(6, 3),
            Chunk::Shutdown { cum_tsn_ack: 4 },
        ]));
        v.push(mk(vec![Chunk::CookieEcho {
            cookie: vec![1; 120],
        }]));
        v.push(mk(vec![Chunk::Heartbeat { info: vec![2; 48] }]));
        v
    };
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let cfg = crate::sctp::AssocCfg {
        ports: (6000, 5001),
        local_addrs: vec![[127, 0, 0, 1]],
        primary_peer: [127, 0, 0, 2],
        ..flow(&[])
    };
    let mut s =
        crate::sctp::Association::new(Role::Server, cfg, crate::sim::RngStream::new(1, "fuzz"));
    let mut pkt = Packet::default();
    let mut out = Packet::default();
    let t0 = Instant::now();
    let mut parsed = 0;
    for i in 0..60_000u64 {
        let mut b = seeds[(next() % seeds.len() as u64) as usize].clone();
        for _ in 0..1 + next() % 4 {
            if b.is_empty() {
                break;
            }
            let at = (next() % b.len() as u64) as usize;
            match next() % 3 {
                0 => b[at] = next() as u8,
                1 => b.truncate(at.max(1)),
                _ => b.insert(at, next() as u8),
            }
        }
        super::wire::reseal(&mut b);
        if let Ok(repr) = SctpRepr::parse(&b) {
            parsed += 1;
            pkt.transport = TransportRepr::Sctp(repr);
            let now = SimTime::from_nanos(i * 1_000_000);
            s.handle_packet(now, &pkt);
            s.handle_timeout(now);
            while s.poll_transmit(now, &mut out) {}
        }
    }
    assert!(parsed > 1000, "mutations reach the machine ({parsed})");
    assert!(t0.elapsed() < Duration::from_secs(30));
}
