//! The adapter against the real stack (issue 38): quinn-proto endpoints on real UDP
//! sockets and the real clock (`quic::live`), through the relay `sctplab live relay`
//! runs (`live::relay`, here in a thread) with a fixed delay and random loss each way,
//! against simulated runs of the same path: a link with that delay and that loss rate
//! each way, fast enough that transmission takes no time worth counting (the relay
//! queues nothing either). Completion times of the two sets of runs must agree within
//! their spread. Loopback only; a few seconds.

mod common;

use sctplab_core::live::relay::{Impairment, Relay, RelayOptions};
use sctplab_core::quic::live::{LiveFlow, connect, serve};
use sctplab_core::quic::setup::Controller;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const ONE_WAY_MS: u64 = 200;
const LOSS: f64 = 0.02;
const BYTES: u64 = 150_000;
const RUNS: u64 = 8;

/// One live run: relay, server and client on loopback; the client's completion time.
fn live_run(seed: u64) -> f64 {
    let lo = Ipv4Addr::LOCALHOST;
    let server_sock = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
    let SocketAddr::V4(server_addr) = server_sock.local_addr().expect("addr") else {
        panic!("v4")
    };
    let imp = Impairment {
        loss: LOSS,
        delay: Duration::from_millis(ONE_WAY_MS),
        ..Impairment::default()
    };
    let mut relay = Relay::new(RelayOptions {
        listen: SocketAddrV4::new(lo, 0),
        server: server_addr,
        to_server: imp.clone(),
        to_client: imp,
        drop_chunks: Vec::new(),
        seed,
    })
    .expect("relay");
    let relay_addr = relay.local_addr().expect("relay addr");
    let stop = Arc::new(AtomicBool::new(false));
    let relay_stop = stop.clone();
    let relay_thread = std::thread::spawn(move || {
        while !relay_stop.load(Ordering::Relaxed) {
            relay.run_for(Duration::from_millis(20)).expect("relay");
        }
    });
    let flow = LiveFlow {
        seed,
        bytes: BYTES,
        streams: 1,
        controller: Controller::Cubic,
        timeout: Duration::from_secs(20),
    };
    let server_flow = flow.clone();
    let server = std::thread::spawn(move || serve(&server_flow, server_sock));
    let client_sock = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
    let c = connect(&flow, client_sock, relay_addr).expect("client");
    let s = server.join().expect("server thread").expect("server");
    stop.store(true, Ordering::Relaxed);
    relay_thread.join().expect("relay thread");
    assert_eq!(s.delivered_bytes, BYTES, "live run {seed}: every byte read");
    eprintln!("live {seed}: {c:?} {s:?}");
    c.completion_time.expect("live run completes").as_secs_f64()
}

/// The same path simulated: a 10 Gb/s link (a 1252-byte datagram takes 1 us) with the
/// delay and Bernoulli loss each way.
fn sim_run(seed: u64) -> f64 {
    let text = format!(
        r#"[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Gb"
delay = "{ONE_WAY_MS}ms"
queue = 10000
loss = {{ rate = {LOSS:?}, direction = "both" }}
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
bytes = "{BYTES}B"
congestion_control = "cubic"
"#
    );
    let s = common::summary(&text, seed);
    let q = &s["flows"]["q"];
    assert_eq!(q["delivered_bytes"], BYTES, "simulated run {seed}");
    q["completion_time_s"].as_f64().expect("completes")
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, var.sqrt())
}

#[test]
fn quinn_on_loopback_and_quinn_on_the_simulated_clock_agree() {
    // The live runs at once, each with its own sockets: they spend nearly all their
    // time waiting out the relay's delay.
    let threads: Vec<_> = (1..=RUNS)
        .map(|seed| std::thread::spawn(move || live_run(seed)))
        .collect();
    let live: Vec<f64> = threads
        .into_iter()
        .map(|t| t.join().expect("live run"))
        .collect();
    let sim: Vec<f64> = (1..=RUNS).map(sim_run).collect();
    let (lm, ls) = mean_sd(&live);
    let (sm, ss) = mean_sd(&sim);
    eprintln!("live {live:?} mean {lm:.4} sd {ls:.4}\nsim  {sim:?} mean {sm:.4} sd {ss:.4}");
    // Without loss the transfer needs at least the handshake (one round trip) and
    // the round trips of slow start; both sets are in that range.
    let rtt = 2.0 * ONE_WAY_MS as f64 / 1000.0;
    for t in live.iter().chain(&sim) {
        assert!(*t > 2.0 * rtt, "{t}");
    }
    // Agreement within their spread: the means differ by less than twice the standard
    // error of their difference.
    let se = (ls * ls / RUNS as f64 + ss * ss / RUNS as f64).sqrt();
    assert!(
        (lm - sm).abs() < 2.0 * se.max(0.002),
        "live {lm:.4} +- {ls:.4} vs simulated {sm:.4} +- {ss:.4}"
    );
}
