//! The adapter alone: two endpoints joined by a fixed one-way delay, no network model.

use super::*;

/// One direction's datagrams in flight: (arrival time, packet).
type InFlight = Vec<(SimTime, Packet)>;

fn cfg(seed: u64, bytes: Option<u64>, streams: u32) -> QuicCfg {
    QuicCfg {
        name: "q".into(),
        seed,
        start: SimTime::ZERO,
        stop: None,
        bytes,
        streams,
        message_size: 1000,
        stream_traffic: Vec::new(),
        controller: Controller::Cubic,
        max_udp_payload: None,
        receive_buffer: None,
        client: ([10, 0, 0, 1], 50_000),
        server: ([10, 0, 0, 2], SERVER_PORT),
        window: Window::ALL,
        trace_sends: false,
        key_log: None,
    }
}

/// Runs a pair until both are drained (or `limit` steps), with `delay` each way.
/// Returns every datagram in send order (client's and server's interleaved) and the pair.
fn run_pair(
    c: &QuicCfg,
    delay: SimDuration,
    limit: usize,
) -> (Vec<Vec<u8>>, QuicEndpoint, QuicEndpoint) {
    let (mut client, mut server) = QuicEndpoint::pair(c).expect("pair");
    let mut wire: Vec<Vec<u8>> = Vec::new();
    let (mut to_server, mut to_client): (InFlight, InFlight) = (Vec::new(), Vec::new());
    let mut now = SimTime::ZERO;
    for _ in 0..limit {
        for (ep, out) in [(&mut client, &mut to_server), (&mut server, &mut to_client)] {
            let mut p = Packet::default();
            while ep.poll_transmit(now, &mut p) {
                wire.push(p.datagram.clone());
                out.push((now + delay, p.clone()));
            }
        }
        if client.is_done() && server.is_done() {
            break;
        }
        // The next thing to happen: an arrival or a deadline.
        let next = [
            to_server.first().map(|x| x.0),
            to_client.first().map(|x| x.0),
            client.poll_timeout(),
            server.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(t) = next else { break };
        now = now.max(t);
        while to_server.first().is_some_and(|x| x.0 <= now) {
            let (_, p) = to_server.remove(0);
            server.handle_packet(now, &p);
        }
        while to_client.first().is_some_and(|x| x.0 <= now) {
            let (_, p) = to_client.remove(0);
            client.handle_packet(now, &p);
        }
        for ep in [&mut client, &mut server] {
            if ep.poll_timeout().is_some_and(|d| d <= now) {
                ep.handle_timeout(now);
            }
        }
    }
    (wire, client, server)
}

#[test]
fn same_seed_same_bytes_on_the_wire_other_seed_other_bytes() {
    let d = SimDuration::from_millis(10);
    let (a, ca, _) = run_pair(&cfg(1, Some(20_000), 2), d, 10_000);
    let (b, _, _) = run_pair(&cfg(1, Some(20_000), 2), d, 10_000);
    let (c, _, _) = run_pair(&cfg(2, Some(20_000), 2), d, 10_000);
    assert!(ca.stats.completion_time.is_some(), "the transfer completes");
    assert_eq!(a, b, "seed 1 twice: every datagram identical");
    assert_ne!(a[0], c[0], "seed 2: the first Initial already differs");
}

#[test]
fn both_ends_drain_after_the_client_closes() {
    let d = SimDuration::from_millis(5);
    let (_, client, server) = run_pair(&cfg(3, Some(50_000), 3), d, 10_000);
    assert!(client.is_done() && server.is_done());
    let sink = server.sink().expect("server");
    // 50000 B over 3 streams: 16667, 16667, 16666 (the first streams take the rest).
    let per: Vec<u64> = sink.streams.iter().map(|s| s.total_bytes).collect();
    assert_eq!(per, vec![16_667, 16_667, 16_666]);
    // With no network model, the handshake takes exactly two one-way delays.
    assert_eq!(
        client.stats.connect_time,
        Some(SimDuration::from_millis(10))
    );
}

#[test]
fn a_garbage_datagram_is_dropped_without_harm() {
    let (_, mut server) = QuicEndpoint::pair(&cfg(4, Some(1_000), 1)).expect("pair");
    for len in [0usize, 1, 20, 1200, 1500] {
        let p = Packet {
            datagram: (0..len).map(|i| (i * 7 + 3) as u8).collect(),
            ..Packet::default()
        };
        server.handle_packet(SimTime::ZERO, &p);
    }
    let mut out = Packet::default();
    // Whatever quinn answers (a version negotiation, nothing), no connection exists.
    while server.poll_transmit(SimTime::ZERO, &mut out) {}
    assert!(server.quinn_stats().is_none());
}
