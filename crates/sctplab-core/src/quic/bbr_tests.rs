//! quinn-proto 0.11.19's BBR seeds a PCG generator from the operating system
//! (`Pcg32::from_rng(&mut rand::rng())`) and draws from it once per entry into ProbeBW,
//! to pick the gain cycle's starting phase. The phase sets BBR's `pacing_gain`, which
//! feeds only its `pacing_rate`; quinn's pacer works from the congestion window and
//! the RTT, and reads `pacing_rate` for qlog alone. These tests run the same seeded
//! transfer several times through a bottleneck, each run with its own OS-seeded BBR,
//! and check that the draws differ (the pacing rates BBR reports) while everything
//! quinn acts on (the window) and every byte on the wire stays the same.

use super::*;
use quinn_proto::congestion::{BbrConfig, Controller as Cc, ControllerFactory};
use std::sync::Mutex;

/// (window, pacing rate) BBR reported after a batch of acks or a congestion event.
type Report = (u64, Option<u64>);
type Log = Arc<Mutex<Vec<Report>>>;

/// quinn's BBR, unchanged, with its window and pacing rate logged.
struct Probe {
    inner: Box<dyn Cc>,
    log: Log,
}

impl Probe {
    fn record(&self) {
        let m = self.inner.metrics();
        if let Ok(mut l) = self.log.lock() {
            l.push((self.inner.window(), m.pacing_rate));
        }
    }
}

impl Cc for Probe {
    fn on_sent(&mut self, now: Instant, bytes: u64, pn: u64) {
        self.inner.on_sent(now, bytes, pn)
    }
    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &quinn_proto::RttEstimator,
    ) {
        self.inner.on_ack(now, sent, bytes, app_limited, rtt)
    }
    fn on_end_acks(&mut self, now: Instant, in_flight: u64, app_limited: bool, pn: Option<u64>) {
        self.inner.on_end_acks(now, in_flight, app_limited, pn);
        self.record();
    }
    fn on_congestion_event(&mut self, now: Instant, sent: Instant, pc: bool, lost: u64) {
        self.inner.on_congestion_event(now, sent, pc, lost);
        self.record();
    }
    fn on_mtu_update(&mut self, mtu: u16) {
        self.inner.on_mtu_update(mtu)
    }
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn metrics(&self) -> quinn_proto::congestion::ControllerMetrics {
        self.inner.metrics()
    }
    fn clone_box(&self) -> Box<dyn Cc> {
        Box::new(Probe {
            inner: self.inner.clone_box(),
            log: self.log.clone(),
        })
    }
    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// Builds quinn's BBR and logs the client's (the first one built).
struct ProbeFactory {
    log: Log,
    built: Mutex<u32>,
}

impl ControllerFactory for ProbeFactory {
    fn build(self: Arc<Self>, now: Instant, mtu: u16) -> Box<dyn Cc> {
        let inner = Arc::new(BbrConfig::default()).build(now, mtu);
        let n = self.built.lock().map_or(0, |mut b| {
            *b += 1;
            *b
        });
        let log = if n == 1 {
            self.log.clone()
        } else {
            Arc::new(Mutex::new(Vec::new()))
        };
        Box::new(Probe { inner, log })
    }
}

/// One run of 1.5 MB through a 10 Mb/s, 20 ms bottleneck each way (FIFO, no drops):
/// every datagram in send order and the client's BBR log.
fn run_once(seed: u64) -> (Vec<Vec<u8>>, Vec<Report>) {
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let mut t = setup::transport(Controller::Bbr, 1, None);
    t.congestion_controller_factory(Arc::new(ProbeFactory {
        log: log.clone(),
        built: Mutex::new(0),
    }));
    let cfg = QuicCfg {
        name: "q".into(),
        seed,
        start: SimTime::ZERO,
        stop: None,
        bytes: Some(1_500_000),
        streams: 1,
        message_size: 1000,
        stream_traffic: Vec::new(),
        controller: Controller::Bbr,
        max_udp_payload: None,
        receive_buffer: None,
        client: ([10, 0, 0, 1], 50_000),
        server: ([10, 0, 0, 2], SERVER_PORT),
        window: Window::ALL,
        trace_sends: false,
        key_log: None,
    };
    let (mut client, mut server) = QuicEndpoint::pair_with(&cfg, t).expect("pair");
    let delay = SimDuration::from_millis(20);
    let ns_per_byte = 800; // 10 Mb/s
    let mut wire = Vec::new();
    // Per direction: datagrams in flight (arrival, packet) and when the link is free.
    let mut links: [(VecDeque<(SimTime, Packet)>, SimTime); 2] = [
        (VecDeque::new(), SimTime::ZERO),
        (VecDeque::new(), SimTime::ZERO),
    ];
    let mut now = SimTime::ZERO;
    for _ in 0..200_000 {
        for (ep, link) in [(&mut client, 0), (&mut server, 1)] {
            let mut p = Packet::default();
            while ep.poll_transmit(now, &mut p) {
                wire.push(p.datagram.clone());
                let (q, free) = &mut links[link];
                let tx = SimDuration::from_nanos(ns_per_byte * (p.datagram.len() as u64 + 28));
                *free = (*free).max(now) + tx;
                q.push_back((*free + delay, p.clone()));
            }
        }
        if client.is_done() && server.is_done() {
            break;
        }
        let next = [
            links[0].0.front().map(|x| x.0),
            links[1].0.front().map(|x| x.0),
            client.poll_timeout(),
            server.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(t) = next else { break };
        now = now.max(t);
        while links[0].0.front().is_some_and(|x| x.0 <= now) {
            if let Some((_, p)) = links[0].0.pop_front() {
                server.handle_packet(now, &p);
            }
        }
        while links[1].0.front().is_some_and(|x| x.0 <= now) {
            if let Some((_, p)) = links[1].0.pop_front() {
                client.handle_packet(now, &p);
            }
        }
        for ep in [&mut client, &mut server] {
            if ep.poll_timeout().is_some_and(|d| d <= now) {
                ep.handle_timeout(now);
            }
        }
    }
    assert!(
        client.stats.completion_time.is_some(),
        "the transfer completes"
    );
    let l = log.lock().map(|l| l.clone()).unwrap_or_default();
    (wire, l)
}

#[test]
fn bbr_draws_from_the_os_but_sends_the_same_bytes_for_the_same_seed() {
    let runs: Vec<_> = (0..8).map(|_| run_once(5)).collect();
    let (wire0, log0) = &runs[0];
    let windows = |l: &[Report]| l.iter().map(|x| x.0).collect::<Vec<_>>();
    let rates = |l: &[Report]| l.iter().map(|x| x.1).collect::<Vec<_>>();
    assert!(log0.len() > 100, "BBR saw the transfer's acks");
    for (wire, log) in &runs[1..] {
        assert!(wire == wire0, "same seed: every datagram identical");
        assert_eq!(windows(log), windows(log0), "same windows");
    }
    // Eight OS-seeded draws of the gain cycle's first phase, one of 7 equally likely:
    // all alike with probability 7^-7. They show in the pacing rate BBR computes.
    let distinct: std::collections::BTreeSet<_> = runs.iter().map(|(_, l)| rates(l)).collect();
    assert!(
        distinct.len() > 1,
        "the OS-seeded draws differ between runs"
    );
}
