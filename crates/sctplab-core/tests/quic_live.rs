//! The adapter against the real stack (issue 38): quinn-proto endpoints on real UDP
//! sockets and the real clock (`quic::live`), through the relay `sctplab live relay`
//! runs (`live::relay`, here in a thread) with a fixed delay and random loss each way,
//! against simulated runs of the same path: a link with that delay and that loss rate
//! each way, fast enough that transmission takes no time worth counting (the relay
//! queues nothing either). Completion times of the two sets of runs must agree within
//! their spread. Loopback only; a few seconds.

mod common;

use sctplab_core::live::relay::{Impairment, Relay, RelayOptions};
use sctplab_core::quic::live::{LiveFlow, Transit, connect, serve};
use sctplab_core::quic::setup::Controller;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const ONE_WAY_MS: u64 = 100;
const BYTES: u64 = 100_000;

/// What one run measured, seconds: connect time, completion time and (live runs) the
/// real run's own time: the two ends' processing, the lateness of their timers, and the
/// path's time beyond the relay's delay (relay and kernel), once each way per round
/// trip.
type Times = (f64, f64, f64);

/// One live run: relay, server and client on loopback; the client's completion time.
fn live_run(seed: u64, one_way_ms: u64, loss: f64) -> Times {
    let lo = Ipv4Addr::LOCALHOST;
    let server_sock = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
    let SocketAddr::V4(server_addr) = server_sock.local_addr().expect("addr") else {
        panic!("v4")
    };
    let imp = Impairment {
        loss,
        delay: Duration::from_millis(one_way_ms),
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
        transit: Some(Arc::new(Transit::default())),
    };
    let server_flow = flow.clone();
    let server = std::thread::spawn(move || serve(&server_flow, server_sock));
    let client_sock = UdpSocket::bind(SocketAddrV4::new(lo, 0)).expect("bind");
    let c = connect(&flow, client_sock, relay_addr).expect("client");
    let s = server.join().expect("server thread").expect("server");
    stop.store(true, Ordering::Relaxed);
    relay_thread.join().expect("relay thread");
    assert_eq!(s.delivered_bytes, BYTES, "live run {seed}: every byte read");
    let secs = |d: Option<Duration>| d.expect("live run completes").as_secs_f64();
    let own = c.busy + s.busy + c.timer_lateness + s.timer_lateness;
    // The path's lateness: the mean time a datagram took to cross beyond the relay's
    // delay, once each way per round trip of the run.
    let n = (c.transits + s.transits).max(1);
    let excess = ((c.transit_total + s.transit_total).as_secs_f64() / n as f64
        - one_way_ms as f64 / 1000.0)
        .max(0.0);
    let rtt = 2.0 * one_way_ms as f64 / 1000.0;
    let path = if rtt > 0.0 {
        2.0 * secs(c.completion_time) / rtt * excess
    } else {
        0.0
    };
    (
        secs(c.connect_time),
        secs(c.completion_time),
        own.as_secs_f64() + path,
    )
}

/// The same path simulated: a 10 Gb/s link (a 1252-byte datagram takes 1 us) with the
/// delay and Bernoulli loss each way.
fn sim_run(seed: u64, one_way_ms: u64, loss: f64) -> Times {
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
delay = "{one_way_ms}ms"
queue = 10000
loss = {{ rate = {loss:?}, direction = "both" }}
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
    let t = |k: &str| q[k].as_f64().expect("completes");
    (t("connect_time_s"), t("completion_time_s"), 0.0)
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, var.sqrt())
}

/// Live runs at once, seeds 1..=n, each with its own sockets (they spend nearly all
/// their time waiting out the relay's delay).
fn live_runs(n: u64, one_way_ms: u64, loss: f64) -> Vec<Times> {
    let threads: Vec<_> = (1..=n)
        .map(|seed| std::thread::spawn(move || live_run(seed, one_way_ms, loss)))
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("live run"))
        .collect()
}

fn sim_runs(n: u64, one_way_ms: u64, loss: f64) -> Vec<Times> {
    (1..=n)
        .map(|seed| sim_run(seed, one_way_ms, loss))
        .collect()
}

/// Checks that live and simulated times agree: their means differ by less than three
/// standard errors of the difference (a chance failure about once in 400 runs for
/// normal spreads), the live one being allowed on top
/// the ends' own time (`own`, their mean): processing and late timers, which the
/// simulation counts as zero.
fn agree(what: &str, live: &[f64], sim: &[f64], own: f64) {
    let (lm, ls) = mean_sd(live);
    let (sm, ss) = mean_sd(sim);
    let se = (ls * ls / live.len() as f64 + ss * ss / sim.len() as f64).sqrt();
    eprintln!(
        "{what}: live {lm:.4} +- {ls:.4} {live:.3?}\n{what}: simulated {sm:.4} +- {ss:.4} {sim:.3?}"
    );
    eprintln!("{what}: the live ends' own time {own:.4}");
    assert!(
        lm - sm > -3.0 * se && lm - sm < 3.0 * se + own,
        "{what}: live {lm:.4} +- {ls:.4} vs simulated {sm:.4} +- {ss:.4} (own time {own:.4})"
    );
}

#[test]
fn quinn_on_loopback_and_quinn_on_the_simulated_clock_agree() {
    let pick = |v: &[Times], f: fn(&Times) -> f64| v.iter().map(f).collect::<Vec<_>>();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // No loss: the handshake takes one round trip (RFC 9001 sec. 4.1.1) in both, and
    // the live one no more than that plus the ends' own time.
    let live = live_runs(4, ONE_WAY_MS, 0.0);
    let sim = sim_runs(4, ONE_WAY_MS, 0.0);
    let rtt = 2.0 * ONE_WAY_MS as f64 / 1000.0;
    for (l, s) in live.iter().zip(&sim) {
        assert!((s.0 - rtt).abs() < 0.001, "simulated {s:?}");
        assert!(l.0 >= rtt && l.0 < rtt + l.2, "live {l:?}");
    }
    let own = mean(&pick(&live, |t| t.2));
    agree(
        "completion, no loss",
        &pick(&live, |t| t.1),
        &pick(&sim, |t| t.1),
        own,
    );
    // 2 % loss each way: losses, recoveries and timeouts; the means agree within their
    // spread.
    let live = live_runs(8, ONE_WAY_MS, 0.02);
    let sim = sim_runs(8, ONE_WAY_MS, 0.02);
    let own = mean(&pick(&live, |t| t.2));
    agree(
        "completion, 2 % loss",
        &pick(&live, |t| t.1),
        &pick(&sim, |t| t.1),
        own,
    );
}
