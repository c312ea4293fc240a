//! Seeded property tests for every wire decoder (issue 13, item 6): SCTP
//! packets and chunks, TCP headers and options, UDP, IPv4 and AODV.
//!
//! Each decoder gets (a) random bytes, (b) valid encodings of random values
//! with random mutations and truncations, and (c) the round trip
//! `parse(emit(x)) == x` on the valid encodings. The decoders promise (see
//! `net/wire/mod.rs`) never to panic, whatever the input, so "no panic" is
//! the first property. Whenever a mutated buffer is accepted, the decoded
//! value must itself survive a second round trip, so a decoder can never
//! return something its own encoder cannot write back.
//!
//! Checksums (CRC32c, internet checksum) would reject almost every mutation
//! before the inner parsers see it, so half of the mutated buffers get their
//! checksum recomputed after the mutation. The RNG is the simulator's own
//! seeded stream: a failure reproduces from the seed and iteration printed
//! in the assertion message.

use sctplab_core::net::wire::checksum::{internet_checksum, ipv4_transport_checksum, sctp_crc32c};
use sctplab_core::net::wire::sctp_chunk::chunk_type;
use sctplab_core::net::wire::{
    Chunk, DataChunk, DataFlags, ErrorCause, InitAckChunk, InitChunk, IpProtocol, Ipv4Repr,
    SackBlocks, SackChunk, SctpRepr, TcpFlags, TcpOptions, TcpRepr, TransportRepr, UdpRepr,
    UnknownChunk, emit_ipv4_packet, parse_ipv4_packet,
};
use sctplab_core::sim::{RngStream, SimTime};
use sctplab_core::wireless::aodv::{AodvMsg, Rerr, Rrep, Rreq, Unreachable};

const SEED: u64 = 0x5c7b_1ab0_f022;
/// Iterations per property; together the tests run in about a second in a
/// debug build.
const ITERS: usize = 4000;

struct Gen(RngStream);

impl Gen {
    fn new(component: &str) -> Gen {
        Gen(RngStream::new(SEED, component))
    }
    fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn u32(&mut self) -> u32 {
        self.u64() as u32
    }
    fn u16(&mut self) -> u16 {
        self.u64() as u16
    }
    fn u8(&mut self) -> u8 {
        self.u64() as u8
    }
    fn bool(&mut self) -> bool {
        self.u64() & 1 == 1
    }
    /// Uniform in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.u64() % n as u64) as usize
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.u8()).collect()
    }
    fn addr(&mut self) -> [u8; 4] {
        self.u32().to_be_bytes()
    }

    /// Applies 1 to 4 random edits: flip a bit, overwrite a byte with an
    /// interesting value, truncate, append, or insert/delete a byte.
    fn mutate(&mut self, buf: &mut Vec<u8>) {
        for _ in 0..1 + self.below(4) {
            let len = buf.len();
            match self.below(6) {
                0 if len > 0 => {
                    let at = self.below(len);
                    buf[at] ^= 1 << self.below(8);
                }
                1 if len > 0 => {
                    let at = self.below(len);
                    buf[at] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x7f, 0x80, 0xff][self.below(8)];
                }
                2 => buf.truncate(self.below(len + 1)),
                3 => {
                    let extra = self.below(9);
                    let tail = self.bytes(extra);
                    buf.extend_from_slice(&tail);
                }
                4 => {
                    let at = self.below(len + 1);
                    let b = self.u8();
                    buf.insert(at, b);
                }
                _ if len > 0 => {
                    let at = self.below(len);
                    buf.remove(at);
                }
                _ => {}
            }
        }
    }
}

/// How often each input class was accepted by the decoder under test. A
/// property checked only on accepted inputs is vacuous if nothing is ever
/// accepted, so every test asserts that each class reaches the accept path
/// a minimum number of times (and is rejected at least sometimes).
#[derive(Default)]
struct Accepted(std::collections::BTreeMap<&'static str, (usize, usize)>);

impl Accepted {
    fn record(&mut self, class: &'static str, ok: bool) {
        let e = self.0.entry(class).or_default();
        e.0 += usize::from(ok);
        e.1 += 1;
    }

    /// Every class accepted at least `min_ok` times out of its tries.
    fn assert_reached(&self, min_ok: usize) {
        eprintln!("accepted / tried: {:?}", self.0);
        for (class, &(ok, tried)) in &self.0 {
            assert!(
                ok >= min_ok,
                "{class}: only {ok} of {tried} inputs accepted, the properties on accepted inputs are barely exercised"
            );
        }
    }
}

// ---------------------------------------------------------------- SCTP

fn gen_chunk(g: &mut Gen) -> Chunk {
    match g.below(19) {
        0 => Chunk::Data(DataChunk {
            tsn: g.u32(),
            stream: g.u16(),
            ssn: g.u16(),
            ppid: g.u32(),
            flags: DataFlags::from_bits(g.u8() & 0x0f),
            payload_len: g.below(300) as u32,
        }),
        1 => Chunk::Init(InitChunk {
            init_tag: g.u32(),
            a_rwnd: g.u32(),
            outbound_streams: g.u16(),
            inbound_streams: g.u16(),
            initial_tsn: g.u32(),
            addrs: (0..g.below(4)).map(|_| g.addr()).collect(),
            cookie_preservative: None,
            forward_tsn: g.below(2) == 1,
            unrecognized: vec![],
            ecn_capable: false,
            ext: Default::default(),
        }),
        2 => {
            let cookie_len = g.below(40);
            Chunk::InitAck(InitAckChunk {
                init_tag: g.u32(),
                a_rwnd: g.u32(),
                outbound_streams: g.u16(),
                inbound_streams: g.u16(),
                initial_tsn: g.u32(),
                addrs: (0..g.below(4)).map(|_| g.addr()).collect(),
                forward_tsn: g.below(2) == 1,
                unrecognized: vec![],
                reported: vec![],
                state_cookie: g.bytes(cookie_len),
                ecn_capable: false,
                ext: Default::default(),
            })
        }
        3 => Chunk::Sack(SackChunk {
            cum_tsn_ack: g.u32(),
            a_rwnd: g.u32(),
            gaps: (0..g.below(6)).map(|_| (g.u16(), g.u16())).collect(),
            dups: (0..g.below(4)).map(|_| g.u32()).collect(),
            flags: 0,
        }),
        4 => {
            let n = g.below(24);
            Chunk::Heartbeat { info: g.bytes(n) }
        }
        5 => {
            let n = g.below(24);
            Chunk::HeartbeatAck { info: g.bytes(n) }
        }
        6 => Chunk::Abort { t_bit: g.bool() },
        7 => Chunk::Shutdown {
            cum_tsn_ack: g.u32(),
        },
        8 => Chunk::ShutdownAck,
        9 => {
            let n = g.below(40);
            Chunk::CookieEcho { cookie: g.bytes(n) }
        }
        10 => Chunk::CookieAck,
        11 => Chunk::Error {
            t_bit: g.bool(),
            causes: (0..g.below(3))
                .map(|_| {
                    let n = g.below(12);
                    ErrorCause {
                        code: g.u16(),
                        info: g.bytes(n),
                    }
                })
                .collect(),
        },
        // Unknown types that skip (RFC 9260 3.2, high bit set), so a packet of them
        // still parses to the end.
        12 => {
            let n = g.below(12);
            // Skip the high-bit types the module decodes (FORWARD TSN, RE-CONFIG,
            // ASCONF, ASCONF-ACK, ns-2's TIMESTAMP: `chunk_type::is_known`).
            let mut kind = 0x80 | g.u8();
            while chunk_type::is_known(kind) {
                kind = 0x80 | kind.wrapping_add(1);
            }
            Chunk::Unknown(UnknownChunk {
                kind,
                flags: g.u8(),
                value: g.bytes(n),
            })
        }
        13 => Chunk::ForwardTsn(sctplab_core::net::wire::ForwardTsnChunk {
            new_cum_tsn: g.u32(),
            streams: (0..g.below(5)).map(|_| (g.u16(), g.u16())).collect(),
        }),
        14 => {
            let n = g.below(40);
            Chunk::Auth(sctplab_core::net::wire::AuthChunk {
                key_id: g.u16(),
                hmac_id: g.u16(),
                hmac: g.bytes(n),
            })
        }
        15 => {
            use sctplab_core::net::wire::{ReconfigChunk, ReconfigParam, ReconfigResult};
            let one = |g: &mut Gen| match g.below(6) {
                0 => ReconfigParam::OutgoingSsnReset {
                    req_seq: g.u32(),
                    resp_seq: g.u32(),
                    last_tsn: g.u32(),
                    streams: (0..g.below(5)).map(|_| g.u16()).collect(),
                },
                1 => ReconfigParam::IncomingSsnReset {
                    req_seq: g.u32(),
                    streams: (0..g.below(5)).map(|_| g.u16()).collect(),
                },
                2 => ReconfigParam::SsnTsnReset { req_seq: g.u32() },
                3 => ReconfigParam::Response {
                    resp_seq: g.u32(),
                    result: ReconfigResult::InProgress,
                    tsns: g.bool().then(|| (g.u32(), g.u32())),
                },
                4 => ReconfigParam::AddOutgoingStreams {
                    req_seq: g.u32(),
                    count: g.u16(),
                },
                _ => ReconfigParam::AddIncomingStreams {
                    req_seq: g.u32(),
                    count: g.u16(),
                },
            };
            let params = (0..1 + g.below(2)).map(|_| one(g)).collect();
            Chunk::Reconfig(ReconfigChunk { params })
        }
        16 => {
            use sctplab_core::net::wire::{AsconfChunk, AsconfOp, AsconfParam};
            let ops = [AsconfOp::AddIp, AsconfOp::DeleteIp, AsconfOp::SetPrimary];
            let params = (0..g.below(4))
                .map(|_| AsconfParam::Request {
                    op: ops[g.below(3)],
                    corr_id: g.u32(),
                    addr: g.addr(),
                })
                .collect();
            Chunk::Asconf(AsconfChunk {
                serial: g.u32(),
                addr: g.addr(),
                params,
            })
        }
        17 => {
            use sctplab_core::net::wire::{AsconfAckChunk, AsconfResponse, ErrorCause};
            let responses = (0..g.below(4))
                .map(|_| {
                    if g.bool() {
                        AsconfResponse::Success { corr_id: g.u32() }
                    } else {
                        let n = g.below(20);
                        AsconfResponse::Error {
                            corr_id: g.u32(),
                            causes: vec![ErrorCause {
                                code: g.u16(),
                                info: g.bytes(n),
                            }],
                        }
                    }
                })
                .collect();
            Chunk::AsconfAck(AsconfAckChunk {
                serial: g.u32(),
                responses,
            })
        }
        _ => Chunk::ShutdownComplete { t_bit: g.bool() },
    }
}

fn gen_sctp(g: &mut Gen) -> SctpRepr {
    SctpRepr {
        src_port: g.u16(),
        dst_port: g.u16(),
        vtag: g.u32(),
        chunks: (0..1 + g.below(4)).map(|_| gen_chunk(g)).collect(),
    }
}

fn emit_chunk(c: &Chunk) -> Vec<u8> {
    let mut buf = vec![0; c.padded_len()];
    assert_eq!(c.emit(&mut buf), buf.len());
    buf
}

fn emit_sctp(p: &SctpRepr) -> Vec<u8> {
    let mut buf = vec![0; p.buffer_len()];
    p.emit(&mut buf);
    buf
}

/// Recomputes the CRC32c of an SCTP packet after a mutation (RFC 9260
/// Appendix B: stored least significant byte first, as `emit` does).
fn fix_sctp_crc(buf: &mut [u8]) {
    if buf.len() >= 12 {
        let crc = sctp_crc32c(buf);
        buf[8..12].copy_from_slice(&crc.to_le_bytes());
    }
}

const KNOWN_CHUNKS: [u8; 13] = [
    chunk_type::DATA,
    chunk_type::INIT,
    chunk_type::INIT_ACK,
    chunk_type::SACK,
    chunk_type::HEARTBEAT,
    chunk_type::HEARTBEAT_ACK,
    chunk_type::ABORT,
    chunk_type::SHUTDOWN,
    chunk_type::SHUTDOWN_ACK,
    chunk_type::ERROR,
    chunk_type::COOKIE_ECHO,
    chunk_type::COOKIE_ACK,
    chunk_type::SHUTDOWN_COMPLETE,
];

/// Random bytes, but mostly with a known chunk type and a length field that
/// matches the buffer (or is random), so the per-type parsers are reached.
fn chunkish_bytes(g: &mut Gen) -> Vec<u8> {
    let n = g.below(80);
    let mut buf = g.bytes(n);
    if buf.len() >= 4 && g.below(4) != 0 {
        buf[0] = KNOWN_CHUNKS[g.below(KNOWN_CHUNKS.len())];
        let len = if g.bool() { buf.len() } else { g.below(96) };
        buf[2..4].copy_from_slice(&(len as u16).to_be_bytes());
    }
    buf
}

/// Whatever `Chunk::parse` accepts must be consistent and re-encodable.
fn check_chunk_parse(buf: &[u8], ctx: &str) -> bool {
    let Ok((chunk, used)) = Chunk::parse(buf) else {
        return false;
    };
    assert!(used <= buf.len(), "{ctx}: used {used} > {}", buf.len());
    assert_eq!(used % 4, 0, "{ctx}: chunk not padded to 4");
    // Unknown parameters are skipped, so the re-encoding may be shorter,
    // never longer, than what was consumed.
    assert!(chunk.padded_len() <= used, "{ctx}: {chunk:?} grew");
    let again = emit_chunk(&chunk);
    assert_eq!(
        Chunk::parse(&again),
        Ok((chunk.clone(), again.len())),
        "{ctx}: re-encoded chunk does not round-trip"
    );
    true
}

fn check_sctp_parse(buf: &[u8], ctx: &str) -> bool {
    let Ok(p) = SctpRepr::parse(buf) else {
        return false;
    };
    assert!(!p.chunks.is_empty(), "{ctx}: packet without chunks");
    assert!(p.buffer_len() <= buf.len(), "{ctx}: {p:?} grew");
    let again = emit_sctp(&p);
    assert_eq!(
        SctpRepr::parse(&again).as_ref(),
        Ok(&p),
        "{ctx}: re-encoded packet does not round-trip"
    );
    true
}

#[test]
fn sctp_chunks_round_trip() {
    let mut g = Gen::new("wire_fuzz/chunk_rt");
    for i in 0..ITERS {
        let chunk = gen_chunk(&mut g);
        let buf = emit_chunk(&chunk);
        assert_eq!(buf.len(), chunk.padded_len());
        assert_eq!(
            Chunk::parse(&buf),
            Ok((chunk.clone(), buf.len())),
            "iteration {i}: {chunk:?}"
        );
    }
}

#[test]
fn sctp_packets_round_trip() {
    let mut g = Gen::new("wire_fuzz/sctp_rt");
    for i in 0..ITERS {
        let p = gen_sctp(&mut g);
        let buf = emit_sctp(&p);
        assert_eq!(SctpRepr::parse(&buf).as_ref(), Ok(&p), "iteration {i}");
    }
}

#[test]
fn sctp_chunk_parse_survives_random_and_mutated_bytes() {
    let mut accepted = Accepted::default();
    let mut g = Gen::new("wire_fuzz/chunk_mut");
    for i in 0..ITERS {
        // Random bytes, but mostly with a known type and a plausible length
        // so the per-type parsers are reached.
        let buf = chunkish_bytes(&mut g);
        accepted.record(
            "random",
            check_chunk_parse(&buf, &format!("random {i}: {buf:02x?}")),
        );

        let mut buf = emit_chunk(&gen_chunk(&mut g));
        g.mutate(&mut buf);
        accepted.record(
            "mutated",
            check_chunk_parse(&buf, &format!("mutated {i}: {buf:02x?}")),
        );
    }
    accepted.assert_reached(20);
}

#[test]
fn sctp_packet_parse_survives_random_and_mutated_bytes() {
    let mut accepted = Accepted::default();
    let mut g = Gen::new("wire_fuzz/sctp_mut");
    for i in 0..ITERS {
        // A random common header and one or two chunk-like pieces, each
        // padded to 4 as chunks are, then the CRC fixed most of the time.
        let mut buf = g.bytes(12);
        for _ in 0..1 + g.below(2) {
            let mut piece = chunkish_bytes(&mut g);
            piece.resize(piece.len().div_ceil(4) * 4, 0);
            buf.extend(piece);
        }
        if g.below(4) != 0 {
            fix_sctp_crc(&mut buf);
        }
        accepted.record(
            "random",
            check_sctp_parse(&buf, &format!("random {i}: {buf:02x?}")),
        );

        let mut buf = emit_sctp(&gen_sctp(&mut g));
        g.mutate(&mut buf);
        if g.bool() {
            fix_sctp_crc(&mut buf);
        }
        accepted.record(
            "mutated",
            check_sctp_parse(&buf, &format!("mutated {i}: {buf:02x?}")),
        );
    }
    accepted.assert_reached(20);
}

// ---------------------------------------------------------------- TCP

fn gen_options(g: &mut Gen) -> TcpOptions {
    TcpOptions {
        mss: g.bool().then(|| g.u16()),
        window_scale: g.bool().then(|| g.u8()),
        sack_permitted: g.bool(),
        timestamps: g.bool().then(|| (g.u32(), g.u32())),
        sack: (0..g.below(SackBlocks::CAPACITY + 1))
            .map(|_| (g.u32(), g.u32()))
            .collect(),
    }
}

/// What survives encoding: the SACK blocks that fit next to the other
/// options in 40 bytes (the rest are trimmed by design, RFC 2018 §3).
fn trimmed(o: &TcpOptions) -> TcpOptions {
    let mut t = *o;
    t.sack = o.sack.iter().take(o.sack_blocks_emitted()).collect();
    t
}

fn emit_options(o: &TcpOptions) -> Vec<u8> {
    let mut buf = vec![0; o.buffer_len()];
    assert_eq!(o.emit(&mut buf), buf.len());
    buf
}

fn gen_tcp(g: &mut Gen) -> TcpRepr {
    TcpRepr {
        src_port: g.u16(),
        dst_port: g.u16(),
        seq: g.u32(),
        ack: g.u32(),
        flags: TcpFlags::from_bits(g.u8()),
        window: g.u16(),
        options: gen_options(g),
    }
}

const SRC: [u8; 4] = [10, 0, 0, 1];
const DST: [u8; 4] = [10, 0, 1, 2];

fn emit_tcp(t: &TcpRepr, payload: usize) -> Vec<u8> {
    let mut buf = vec![0; t.header_len() + payload];
    t.emit(&mut buf, SRC, DST, payload);
    buf
}

/// Recomputes the TCP checksum (pseudo header included) of a segment.
fn fix_tcp_checksum(buf: &mut [u8]) {
    if buf.len() >= 20 {
        buf[16..18].fill(0);
        let c = ipv4_transport_checksum(SRC, DST, IpProtocol::TCP, buf);
        buf[16..18].copy_from_slice(&c.to_be_bytes());
    }
}

fn check_options_parse(buf: &[u8], ctx: &str) -> bool {
    let Ok(o) = TcpOptions::parse(buf) else {
        return false;
    };
    assert!(o.buffer_len() <= 40, "{ctx}: {o:?} does not fit 40 bytes");
    let again = emit_options(&o);
    assert_eq!(
        TcpOptions::parse(&again),
        Ok(trimmed(&o)),
        "{ctx}: re-encoded options do not round-trip"
    );
    true
}

fn check_tcp_parse(buf: &[u8], ctx: &str) -> bool {
    let Ok((t, payload)) = TcpRepr::parse(buf, SRC, DST) else {
        return false;
    };
    assert!(
        20 + payload.len() <= buf.len(),
        "{ctx}: {t:?} longer than its segment"
    );
    let again = emit_tcp(&t, payload.len());
    let (back, back_payload) = TcpRepr::parse(&again, SRC, DST)
        .unwrap_or_else(|e| panic!("{ctx}: re-encoded {t:?} rejected: {e}"));
    let expected = TcpRepr {
        options: trimmed(&t.options),
        ..t
    };
    assert_eq!(back, expected, "{ctx}");
    assert_eq!(back_payload.len(), payload.len(), "{ctx}");
    true
}

#[test]
fn tcp_options_round_trip() {
    let mut g = Gen::new("wire_fuzz/tcpopt_rt");
    for i in 0..ITERS {
        let o = gen_options(&mut g);
        let buf = emit_options(&o);
        assert!(
            buf.len() <= 40 && buf.len() % 4 == 0,
            "iteration {i}: {o:?}"
        );
        assert_eq!(TcpOptions::parse(&buf), Ok(trimmed(&o)), "iteration {i}");
    }
}

#[test]
fn tcp_segments_round_trip() {
    let mut g = Gen::new("wire_fuzz/tcp_rt");
    for i in 0..ITERS {
        let t = gen_tcp(&mut g);
        let payload = g.below(64);
        let buf = emit_tcp(&t, payload);
        let (back, data) = TcpRepr::parse(&buf, SRC, DST)
            .unwrap_or_else(|e| panic!("iteration {i}: {t:?} rejected: {e}"));
        let expected = TcpRepr {
            options: trimmed(&t.options),
            ..t
        };
        assert_eq!((back, data.len()), (expected, payload), "iteration {i}");
    }
}

#[test]
fn tcp_parsers_survive_random_and_mutated_bytes() {
    let mut accepted = Accepted::default();
    let mut g = Gen::new("wire_fuzz/tcp_mut");
    let kinds = [0u8, 1, 2, 3, 4, 5, 8, 30, 254];
    for i in 0..ITERS {
        // Options area from option-like pieces: a known kind followed by a
        // length that is right, wrong or past the end.
        let mut buf = Vec::new();
        for _ in 0..g.below(8) {
            buf.push(kinds[g.below(kinds.len())]);
            let len = [2u8, 3, 4, 10, 18, 34, 0, 1, 60][g.below(9)];
            buf.push(len);
            let body = g.below(12);
            buf.extend(g.bytes(body));
        }
        accepted.record(
            "pieces",
            check_options_parse(&buf, &format!("pieces {i}: {buf:02x?}")),
        );

        let n = g.below(48);
        let buf = g.bytes(n);
        accepted.record(
            "random",
            check_options_parse(&buf, &format!("random {i}: {buf:02x?}")),
        );

        let mut buf = emit_options(&gen_options(&mut g));
        g.mutate(&mut buf);
        accepted.record(
            "mutated options",
            check_options_parse(&buf, &format!("mutated options {i}: {buf:02x?}")),
        );

        let n = g.below(80);
        let mut buf = g.bytes(n);
        if g.bool() {
            fix_tcp_checksum(&mut buf);
        }
        accepted.record(
            "random segment",
            check_tcp_parse(&buf, &format!("random segment {i}: {buf:02x?}")),
        );

        let payload = g.below(16);
        let mut buf = emit_tcp(&gen_tcp(&mut g), payload);
        g.mutate(&mut buf);
        if g.bool() {
            fix_tcp_checksum(&mut buf);
        }
        accepted.record(
            "mutated segment",
            check_tcp_parse(&buf, &format!("mutated segment {i}: {buf:02x?}")),
        );
    }
    accepted.assert_reached(20);
}

// ---------------------------------------------------------------- IPv4 / UDP

fn gen_transport(g: &mut Gen) -> TransportRepr {
    match g.below(3) {
        0 => TransportRepr::Udp(UdpRepr {
            src_port: g.u16(),
            dst_port: g.u16(),
        }),
        1 => TransportRepr::Tcp(gen_tcp(g)),
        _ => TransportRepr::Sctp(gen_sctp(g)),
    }
}

fn gen_ip(g: &mut Gen) -> Ipv4Repr {
    let (src, dst, protocol, ttl, ident) = (g.addr(), g.addr(), g.u8(), g.u8(), g.u16());
    Ipv4Repr {
        src,
        dst,
        protocol,
        ttl,
        ident,
        // Every ECN codepoint, without a draw of its own (the generator's stream stays).
        ecn: (ident & 0b11) as u8,
        payload_len: 0,
    }
}

/// Recomputes the IPv4 header checksum over the header its IHL announces.
fn fix_ipv4_checksum(buf: &mut [u8]) {
    let ihl = usize::from(buf.first().copied().unwrap_or(0) & 0x0f) * 4;
    if ihl >= 20 && buf.len() >= ihl {
        buf[10..12].fill(0);
        let c = internet_checksum(&buf[..ihl]);
        buf[10..12].copy_from_slice(&c.to_be_bytes());
    }
}

fn check_ipv4_parse(buf: &[u8], ctx: &str) -> bool {
    if let Ok((ip, payload)) = Ipv4Repr::parse(buf) {
        assert_eq!(ip.payload_len, payload.len(), "{ctx}");
        assert!(20 + payload.len() <= buf.len(), "{ctx}: {ip:?} overruns");
        let mut again = vec![0; ip.total_len()];
        ip.emit(&mut again);
        let (back, _) =
            Ipv4Repr::parse(&again).unwrap_or_else(|e| panic!("{ctx}: {ip:?} rejected: {e}"));
        assert_eq!(back, ip, "{ctx}");
    }
    let Ok((ip, transport, app_len)) = parse_ipv4_packet(buf) else {
        return false;
    };
    assert_eq!(ip.protocol, transport.ip_protocol(), "{ctx}");
    let mut again = Vec::new();
    emit_ipv4_packet(&ip, &transport, app_len, &mut again);
    let back =
        parse_ipv4_packet(&again).unwrap_or_else(|e| panic!("{ctx}: {transport:?} rejected: {e}"));
    let expected_transport = match transport {
        TransportRepr::Tcp(t) => TransportRepr::Tcp(TcpRepr {
            options: trimmed(&t.options),
            ..t
        }),
        other => other,
    };
    assert_eq!(back.1, expected_transport, "{ctx}");
    assert_eq!(back.2, app_len, "{ctx}");
    true
}

#[test]
fn ipv4_packets_round_trip() {
    let mut g = Gen::new("wire_fuzz/ip_rt");
    let mut out = Vec::new();
    for i in 0..ITERS {
        let ip = gen_ip(&mut g);
        let transport = gen_transport(&mut g);
        let app = g.below(200);
        emit_ipv4_packet(&ip, &transport, app, &mut out);
        let (back_ip, back_t, back_app) = parse_ipv4_packet(&out)
            .unwrap_or_else(|e| panic!("iteration {i}: {transport:?} rejected: {e}"));
        let app = if matches!(transport, TransportRepr::Sctp(_)) {
            transport_data_len(&transport)
        } else {
            app
        };
        let expected_t = match transport {
            TransportRepr::Tcp(t) => TransportRepr::Tcp(TcpRepr {
                options: trimmed(&t.options),
                ..t
            }),
            other => other,
        };
        assert_eq!(
            (back_ip.src, back_ip.dst, back_ip.ttl, back_ip.ident),
            (ip.src, ip.dst, ip.ttl, ip.ident),
            "iteration {i}"
        );
        assert_eq!(back_ip.protocol, expected_t.ip_protocol(), "iteration {i}");
        assert_eq!(back_ip.total_len(), out.len(), "iteration {i}");
        assert_eq!((back_t, back_app), (expected_t, app), "iteration {i}");
    }
}

fn transport_data_len(t: &TransportRepr) -> usize {
    match t {
        TransportRepr::Sctp(s) => s.data_payload_len(),
        _ => 0,
    }
}

#[test]
fn ipv4_and_udp_parsers_survive_random_and_mutated_bytes() {
    let mut accepted = Accepted::default();
    let mut g = Gen::new("wire_fuzz/ip_mut");
    let mut out = Vec::new();
    for i in 0..ITERS {
        let n = g.below(80);
        let mut buf = g.bytes(n);
        if buf.len() >= 20 && g.bool() {
            // A plausible first byte and total length so the checks past
            // the version reach the header checksum and the fragment bits.
            buf[0] = 0x40 | (5 + g.below(3) as u8);
            let total = if g.bool() { buf.len() } else { g.below(96) };
            buf[2..4].copy_from_slice(&(total as u16).to_be_bytes());
            if g.below(4) != 0 {
                // Not a fragment (DF may stay), so the header is accepted.
                buf[6] &= 0x40;
                buf[7] = 0;
            }
            fix_ipv4_checksum(&mut buf);
        }
        accepted.record("random header", Ipv4Repr::parse(&buf).is_ok());
        // A random transport behind a random header is almost never valid:
        // the whole-packet path is exercised by the mutated class below.
        check_ipv4_parse(&buf, &format!("random {i}: {buf:02x?}"));
        let _ = UdpRepr::parse(&buf, SRC, DST);

        let ip = gen_ip(&mut g);
        let transport = gen_transport(&mut g);
        let app = g.below(24);
        emit_ipv4_packet(&ip, &transport, app, &mut out);
        let mut buf = out.clone();
        g.mutate(&mut buf);
        match g.below(3) {
            0 => fix_ipv4_checksum(&mut buf),
            1 => {
                // Keep the IP header intact and fix the inner checksums,
                // so the transport parsers see the mutation.
                fix_ipv4_checksum(&mut buf);
                if buf.len() > 20 {
                    let seg = &mut buf[20..];
                    match transport {
                        TransportRepr::Sctp(_) => fix_sctp_crc(seg),
                        TransportRepr::Tcp(_) => {
                            if seg.len() >= 20 {
                                seg[16..18].fill(0);
                                let c =
                                    ipv4_transport_checksum(ip.src, ip.dst, IpProtocol::TCP, seg);
                                seg[16..18].copy_from_slice(&c.to_be_bytes());
                            }
                        }
                        TransportRepr::Udp(_) => {}
                    }
                }
            }
            _ => {}
        }
        accepted.record(
            "mutated",
            check_ipv4_parse(&buf, &format!("mutated {i}: {buf:02x?}")),
        );
        if let Ok((u, data)) = UdpRepr::parse(&buf, SRC, DST) {
            assert!(8 + data.len() <= buf.len(), "mutated {i}: {u:?}");
        }
    }
    accepted.assert_reached(20);
}

// ---------------------------------------------------------------- AODV

fn gen_aodv(g: &mut Gen) -> AodvMsg {
    match g.below(3) {
        0 => AodvMsg::Rreq(Rreq {
            hop_count: g.u8(),
            bcast_id: g.u32(),
            dst: g.u32(),
            dst_seqno: g.u32(),
            src: g.u32(),
            src_seqno: g.u32(),
            timestamp: SimTime::ZERO,
        }),
        1 => AodvMsg::Rrep(Rrep {
            hop_count: g.u8(),
            dst: g.u32(),
            dst_seqno: g.u32(),
            orig: g.u32(),
            // Whole seconds that still fit the millisecond field.
            lifetime_s: g.u32() % (u32::MAX / 1000),
            timestamp: SimTime::ZERO,
        }),
        _ => AodvMsg::Rerr(Rerr {
            unreachable: (0..1 + g.below(6))
                .map(|_| Unreachable {
                    dst: g.u32(),
                    seqno: g.u32(),
                })
                .collect(),
        }),
    }
}

fn check_aodv_decode(buf: &[u8], ctx: &str) -> bool {
    let Ok(m) = AodvMsg::decode(buf) else {
        return false;
    };
    assert!(m.encoded_len() <= buf.len(), "{ctx}: {m:?} overruns");
    let mut again = vec![0; m.encoded_len()];
    m.encode(&mut again);
    assert_eq!(AodvMsg::decode(&again).as_ref(), Ok(&m), "{ctx}");
    true
}

#[test]
fn aodv_messages_round_trip_and_survive_mutation() {
    let mut accepted = Accepted::default();
    let mut g = Gen::new("wire_fuzz/aodv");
    for i in 0..ITERS {
        let m = gen_aodv(&mut g);
        let mut buf = vec![0; m.encoded_len()];
        assert_eq!(m.encode(&mut buf), buf.len());
        assert_eq!(AodvMsg::decode(&buf).as_ref(), Ok(&m), "iteration {i}");

        g.mutate(&mut buf);
        accepted.record(
            "mutated",
            check_aodv_decode(&buf, &format!("mutated {i}: {buf:02x?}")),
        );

        let n = g.below(64);
        let mut buf = g.bytes(n);
        if let Some(b) = buf.first_mut() {
            *b = 1 + (*b % 3);
        }
        accepted.record(
            "random",
            check_aodv_decode(&buf, &format!("random {i}: {buf:02x?}")),
        );
    }
    accepted.assert_reached(20);
}
