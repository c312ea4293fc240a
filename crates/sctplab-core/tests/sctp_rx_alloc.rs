//! The SCTP receive path as the live driver runs it (decode a datagram, hand it to the
//! association) must not touch the heap per packet in steady state. Two associations
//! exchange real encoded packets in-process; the allocations made while decoding and
//! handling are counted, for the old decoder (`SctpRepr::parse`, a new chunk list per
//! packet) and for the reused one (`SctpRepr::parse_into`).

use sctplab_core::endpoint::Endpoint;
use sctplab_core::net::wire::{SctpRepr, TransportRepr};
use sctplab_core::net::{Packet, PacketKind};
use sctplab_core::sctp::{AssocCfg, Association, Role};
use sctplab_core::sim::{RngStream, SimTime};
#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{counted, take_turn};

fn cfg(sets: &[(&str, &str)]) -> AssocCfg {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    AssocCfg {
        ports: (6000, 5001),
        local_addrs: vec![[127, 0, 0, 1]],
        primary_peer: [127, 0, 0, 2],
        ..sctplab_core::live::assoc_config(None, &sets).expect("flow")
    }
}

/// Allocations on the server's receive path (all packets after the first `warm`),
/// with the old decoder and the reused one, and the SACK decoding at the client.
#[derive(Debug, Default)]
struct Cost {
    data_packets: u64,
    rx_reused: u64,
    rx_parse: u64,
    sack_packets: u64,
    sack_reused: u64,
    sack_parse: u64,
    lost: u64,
}

/// A transfer of `bytes` from client to server over a lossless instant channel,
/// except every `drop_every`-th DATA packet (0: none), which is lost.
fn transfer(bytes: u64, drop_every: u64, warm: u64) -> Cost {
    let c = cfg(&[
        ("bytes", &format!("{bytes}B")),
        ("message_size", "1000B"),
        ("delayed_sack", "false"),
    ]);
    let mut client = Association::new(Role::Client, c.clone(), RngStream::new(1, "c"));
    let mut server = Association::new(
        Role::Server,
        AssocCfg {
            local_addrs: vec![[127, 0, 0, 2]],
            ..c
        },
        RngStream::new(1, "s"),
    );
    let mut out = Packet::default();
    let mut buf = Vec::new();
    // The receivers' reused packets, as `live::Session` keeps them.
    let mut rx_server = Packet::default();
    let mut rx_client = Packet::default();
    for (p, src) in [
        (&mut rx_server, [127, 0, 0, 1]),
        (&mut rx_client, [127, 0, 0, 2]),
    ] {
        p.ip.src = src;
        p.transport = TransportRepr::Sctp(SctpRepr::parse(&sample()).expect("sample"));
    }
    let mut cost = Cost::default();
    let mut now = SimTime::ZERO;
    let mut data_seen = 0u64;
    for _ in 0..1_000_000 {
        if client.poll_timeout().is_some_and(|t| t <= now) {
            client.handle_timeout(now);
        }
        if server.poll_timeout().is_some_and(|t| t <= now) {
            server.handle_timeout(now);
        }
        let mut moved = false;
        while client.poll_transmit(now, &mut out) {
            moved = true;
            encode(&out, &mut buf);
            if out.kind == PacketKind::Data {
                data_seen += 1;
                if drop_every > 0 && data_seen % drop_every == 0 {
                    cost.lost += 1;
                    continue;
                }
            }
            let steady = out.kind == PacketKind::Data && data_seen > warm;
            let ((), parse) = counted(|| drop(SctpRepr::parse(&buf)));
            let ((), reused) = counted(|| {
                if let TransportRepr::Sctp(r) = &mut rx_server.transport {
                    r.parse_into(&buf).expect("valid packet");
                }
                server.handle_packet(now, &rx_server);
            });
            if steady {
                cost.data_packets += 1;
                cost.rx_parse += parse;
                cost.rx_reused += reused;
            }
        }
        while server.poll_transmit(now, &mut out) {
            moved = true;
            encode(&out, &mut buf);
            let steady = data_seen > warm;
            let ((), parse) = counted(|| drop(SctpRepr::parse(&buf)));
            let ((), reused) = counted(|| {
                if let TransportRepr::Sctp(r) = &mut rx_client.transport {
                    r.parse_into(&buf).expect("valid packet");
                }
            });
            if steady {
                cost.sack_packets += 1;
                cost.sack_parse += parse;
                cost.sack_reused += reused;
            }
            // The client's handling also sends (new DATA is queued on a SACK), so it
            // is not counted here.
            client.handle_packet(now, &rx_client);
        }
        if client.is_done() && server.is_done() {
            return cost;
        }
        if !moved {
            let next = [client.poll_timeout(), server.poll_timeout()]
                .into_iter()
                .flatten()
                .min()
                .expect("a pending timer");
            now = next.max(now);
        }
    }
    panic!("transfer did not finish: {cost:?}");
}

fn encode(p: &Packet, buf: &mut Vec<u8>) {
    let TransportRepr::Sctp(r) = &p.transport else {
        panic!("SCTP")
    };
    buf.clear();
    buf.resize(r.buffer_len(), 0);
    r.emit(buf);
}

/// A packet to start the reused representations from (a COOKIE ACK).
fn sample() -> Vec<u8> {
    let r = SctpRepr {
        src_port: 1,
        dst_port: 2,
        vtag: 3,
        chunks: vec![sctplab_core::net::wire::Chunk::CookieAck],
    };
    let mut b = vec![0; r.buffer_len()];
    r.emit(&mut b);
    b
}

fn check(label: &str, cost: &Cost) {
    eprintln!("{label}: {cost:?}");
    assert!(cost.data_packets >= 1000, "{label}: {cost:?}");
    // The old decoder allocates the chunk list of every packet: the counter is live.
    assert!(cost.rx_parse >= cost.data_packets, "{label}: {cost:?}");
    assert!(cost.sack_parse >= cost.sack_packets, "{label}: {cost:?}");
    // The reused one, and the server's machine behind it, allocate nothing per packet:
    // at most once per loss (the receiver starts holding out-of-order chunks for the
    // stream), with slack for one-off growth (a buffer reaching its high-water mark
    // late).
    assert!(
        cost.rx_reused * 100 < cost.data_packets || cost.rx_reused <= cost.lost,
        "{label}: {cost:?}"
    );
    assert!(
        cost.sack_reused * 100 < cost.sack_packets,
        "{label}: {cost:?}"
    );
}

#[test]
fn receive_path_allocates_nothing_per_packet() {
    let _turn = take_turn();
    // 3 MB in 1000-byte messages: about 2000 DATA packets of two chunks (MTU 1500).
    check("lossless", &transfer(3_000_000, 0, 200));
    // One DATA packet in 50 lost: SACKs with gap blocks, out-of-order chunks held by
    // the receiver, fast retransmissions.
    check("lossy", &transfer(3_000_000, 50, 200));
}
