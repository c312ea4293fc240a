//! ARP on wireless nodes, end to end, against hand calculations from ns-2.35's rules
//! (mac/arp.cc, mac/ll.cc, tcl/lib/ns-mobilenode.tcl) and PHY/MAC constants.

mod common;

use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `text` with `seed` and the ns-2 trace; returns the summary and the trace lines.
fn traced(text: &str, seed: u64) -> (serde_json::Value, Vec<String>) {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("sctplab-arp-{}-{call}", std::process::id()));
    let mut trace = TraceConfig {
        out_dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    trace.set_traces(&["ns2"]).unwrap();
    let s = load_toml(text, "<test>", "t", &[]).expect("valid");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let mut lines = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tr") {
            lines = std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (serde_json::from_str(&r.summary_json).unwrap(), lines)
}

/// Two nodes (or more) at the given x positions on y = 100 m, static routes, 2 Mb/s,
/// and `flows` appended; `extra` goes into `[wireless]`.
fn scenario(xs: &[u32], duration: &str, extra: &str, mobility: &str, flows: &str) -> String {
    let mut s = format!(
        "duration = \"{duration}\"\n[wireless]\nwidth = \"2000m\"\nheight = \"300m\"\n\
         routing = \"static\"\n{extra}\n[wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"2Mb\"\n\
         {mobility}\n"
    );
    for (i, x) in xs.iter().enumerate() {
        s += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\n");
        if mobility.is_empty() {
            s += &format!("x = \"{x}m\"\ny = \"100m\"\n");
        }
    }
    s + flows
}

const CBR: &str = r#"
[[flows]]
name = "cbr"
type = "cbr"
from = "n0"
to = "n1"
rate = "100Kb"
packet_size = "512B"
start = "0.5s"
stop = "2s"
"#;

/// A trace line's time in ns.
fn t_ns(line: &str) -> i64 {
    let t: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    (t * 1e9).round() as i64
}

/// The MAC send lines of the trace, as (time ns, node, frame type).
fn mac_sends(lines: &[String]) -> Vec<(i64, String, String)> {
    lines
        .iter()
        .filter(|l| l.starts_with("s ") && l.contains(" MAC "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (t_ns(l), f[2].to_string(), f[6].to_string())
        })
        .collect()
}

#[test]
fn first_packet_waits_for_one_arp_exchange() {
    // One CBR packet of 512 B payload (540 B IP) from n0 to n1, 200 m apart, at 0.5 s.
    // ns-2.35's rules and constants (2 Mb/s data and basic rate, PLCP 192 us at 1 Mb/s,
    // MAC header + FCS 34 B, SIFS 10 us, DIFS 50 us, slot 20 us, RTS 272 us, CTS and
    // ACK 248 us, propagation p = 200 m / 3e8 m/s = 667 ns, ARPTable delay_ 5 us, LL
    // delay_ 25 us):
    //   t0        n0's LL finds n1 unresolved: holds the packet, request into the IFQ
    //             after 5 us;
    //   +5+50+20k1  the request, broadcast (no RTS), 28 + 34 = 62 B: 192 + 248 = 440 us;
    //             n1 decodes it p later, learns n0, and its reply enters its IFQ 5 us on;
    //   +5+50+20k2  RTS 272 + p, SIFS, CTS 248 + p, SIFS, reply DATA 440 + p (unicast,
    //             so RTS/CTS/ACK as any packet over the 0-byte RTS threshold);
    //             n0 learns n1 and releases the held packet into its IFQ 5 us on, while
    //             it acks: SIFS + ACK 248 us;
    //   +50+20k3  after the ACK: RTS 272 + p, SIFS, CTS 248 + p, SIFS, DATA
    //             192 + 574*8/2 = 2488 us + p, then LL up 25 us at n1.
    // Sum: 5+50+440 + 5+50+272+10+248+10+440 + 10+248 + 50+272+10+248+10+2488+25
    //      = 4891 us, + 7 p = 4.669 us, so the delay is 4 895 669 ns + 20 000 (k1+k2+k3).
    let (s, lines) = traced(&scenario(&[100, 300], "1s", "", "", CBR), 1);
    let m = mac_sends(&lines);
    let kinds: Vec<(&str, &str)> = m
        .iter()
        .take(9)
        .map(|(_, n, k)| (n.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("_0_", "ARP"),
            ("_1_", "RTS"),
            ("_0_", "CTS"),
            ("_1_", "ARP"),
            ("_0_", "ACK"),
            ("_0_", "RTS"),
            ("_1_", "CTS"),
            ("_0_", "cbr"),
            ("_1_", "ACK"),
        ]
    );
    let t0 = 500_000_000;
    let slots = |gap: i64, fixed: i64| {
        let k = (gap - fixed) / 20_000;
        assert_eq!(
            gap,
            fixed + 20_000 * k,
            "gap {gap} ns not {fixed} + k slots"
        );
        assert!((0..=30).contains(&k), "k = {k}");
        k
    };
    // Request on the air 5 + 50 + 20 k1 us after the packet.
    let k1 = slots(m[0].0 - t0, 55_000);
    // The reply's RTS 440 us + p + 5 + 50 + 20 k2 us after the request started.
    let k2 = slots(m[1].0 - m[0].0, 440_000 + 667 + 55_000);
    // CTS and reply: the fixed exchange.
    assert_eq!(m[2].0 - m[1].0, 272_000 + 667 + 10_000);
    assert_eq!(m[3].0 - m[2].0, 248_000 + 667 + 10_000);
    // n0's ACK SIFS after the reply's end.
    assert_eq!(m[4].0 - m[3].0, 440_000 + 667 + 10_000);
    // The released packet's RTS: DIFS + k3 slots after the ACK.
    let k3 = slots(m[5].0 - m[4].0, 248_000 + 50_000);
    assert_eq!(m[7].0 - m[5].0, 2 * (272_000 + 667 + 10_000) - 24_000);
    // Delivered at the agent: the hand-summed delay.
    let recv = lines
        .iter()
        .find(|l| l.starts_with("r ") && l.contains(" AGT "))
        .unwrap();
    assert_eq!(t_ns(recv) - t0, 4_895_669 + 20_000 * (k1 + k2 + k3));
    // ns-2's trace format for ARP frames (cmu-trace format_arp), sizes 28 + 58 = 86 B
    // at the MAC's send line (PLCP and MAC header included), 28 B at the receiver.
    let req = lines.iter().find(|l| l.contains(" ARP ")).unwrap();
    assert!(
        req.ends_with("_0_ MAC  --- 0 ARP 86 [0 ffffffff 0 806] ------- [REQUEST 0/0 0/1]"),
        "{req}"
    );
    let reply = lines
        .iter()
        .find(|l| l.starts_with("s ") && l.contains("REPLY"))
        .unwrap();
    // Duration of the reply: SIFS + ACK = 258 us = 0x102.
    assert!(reply.ends_with("_1_ MAC  --- 0 ARP 86 [102 0 1 806] ------- [REPLY 1/1 0/0]"));
    // Counters: one request, one reply, the held packet released; n1 never asks (it
    // learnt n0 from the request) and nothing more is asked for in the run.
    let a0 = &s["nodes"]["n0"]["arp"];
    let a1 = &s["nodes"]["n1"]["arp"];
    assert_eq!(a0["requests_sent"], 1);
    assert_eq!(a0["replies_received"], 1);
    assert_eq!(a0["released"], 1);
    assert_eq!(a1["requests_received"], 1);
    assert_eq!(a1["replies_sent"], 1);
    assert_eq!(a1["requests_sent"], 0);
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 13);
}

#[test]
fn the_second_packet_is_sent_at_once() {
    // After the exchange the entry is up for good: packet 2 (0.54096 s, 40.96 ms after
    // the first) waits only LL 25 us + DIFS + k slots for its RTS, as with ARP off.
    let (_, lines) = traced(&scenario(&[100, 300], "1s", "", "", CBR), 1);
    let second = lines
        .iter()
        .position(|l| l.starts_with("s ") && l.contains(" AGT ") && l.contains(" 1 cbr "))
        .unwrap();
    let t = t_ns(&lines[second]);
    let rts = lines[second..]
        .iter()
        .find(|l| l.contains(" MAC ") && l.contains(" RTS "))
        .unwrap();
    let gap = t_ns(rts) - t - 75_000;
    assert!(
        gap >= 0 && gap % 20_000 == 0 && gap <= 30 * 20_000,
        "gap {gap}"
    );
    assert!(!lines[second..].iter().any(|l| l.contains(" ARP ")));
}

/// n1 is within range at time 0 (so the static routes go through it) and then leaves
/// far beyond carrier-sense range before the flow starts: nobody ever answers n0.
const GONE: &str = "[mobility]\nfile = \"MOVE\"\n";

fn gone_scenario(extra: &str) -> (String, std::path::PathBuf) {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sctplab-arp-gone-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mv = dir.join("move.tcl");
    std::fs::write(
        &mv,
        "$node_(0) set X_ 100.0\n$node_(0) set Y_ 100.0\n$node_(0) set Z_ 0.0\n\
         $node_(1) set X_ 300.0\n$node_(1) set Y_ 100.0\n$node_(1) set Z_ 0.0\n\
         $ns_ at 0.01 \"$node_(1) setdest 1900.0 100.0 1000.0\"\n",
    )
    .unwrap();
    let text = scenario(
        &[100, 300],
        "3s",
        extra,
        &GONE.replace("MOVE", mv.to_str().unwrap()),
        CBR,
    );
    (text, dir)
}

#[test]
fn requests_run_out_after_three_and_the_held_packets_are_dropped() {
    // 37 packets (100 kb/s of 512-B payloads: one every 40.96 ms from 0.5 s while
    // t < 2 s) to a neighbour that never answers. ns-2's arpresolve, per destination:
    // packet 1 held, request 1; packet 2 replaces it (1 dropped, "ARP"), request 2;
    // packet 3 likewise, request 3; packet 4 finds the count at ARP_MAX_REQUEST_COUNT = 3:
    // the held packet 3 and packet 4 are given up (no failure callback with static
    // routes: dropped, "ARP"), the count restarts, no request. Cycles of 4 packets:
    // 9 full cycles (36 packets) and packet 37 held at the end.
    //   requests = 9 * 3 + 1 = 28, replaced = 9 * 2 = 18, given up = 9 * 2 = 18.
    let (text, dir) = gone_scenario("");
    let (s, lines) = traced(&text, 1);
    let _ = std::fs::remove_dir_all(&dir);
    let a = &s["nodes"]["n0"]["arp"];
    assert_eq!(a["requests_sent"], 28);
    assert_eq!(a["replaced"], 18);
    assert_eq!(a["gave_up"], 18);
    assert_eq!(a["released"], 0);
    assert_eq!(s["flows"]["cbr"]["data_packets_sent"], 37);
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 0);
    // Every request is a broadcast frame: no RTS, nothing else on the air.
    assert_eq!(s["nodes"]["n0"]["mac"]["broadcast_sent"], 28);
    assert_eq!(s["nodes"]["n0"]["mac"]["rts_sent"], 0);
    // The drops carry ns-2's reason at the IFQ layer: 36 lines "D ... IFQ  ARP".
    let drops = lines
        .iter()
        .filter(|l| l.starts_with("D ") && l.contains(" IFQ  ARP "))
        .count();
    assert_eq!(drops, 36);
}

#[test]
fn without_arp_the_same_packets_go_to_the_mac() {
    // `arp = false` keeps the model without ARP: the 37 packets reach the MAC, each
    // fails after 7 RTS attempts (nobody answers), no ARP frame.
    let (text, dir) = gone_scenario("arp = false");
    let s = common::summary(&text, 1);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(s["nodes"]["n0"]["arp"]["requests_sent"], 0);
    assert_eq!(s["nodes"]["n0"]["mac"]["broadcast_sent"], 0);
    assert_eq!(s["nodes"]["n0"]["mac"]["failed_short"], 37);
}

#[test]
fn tcp_over_one_hop_is_the_same_after_the_first_exchange() {
    // A saturating TCP-SACK transfer over one static hop, opened by a SYN as ns-2's
    // `syn_ true` agents are. With ARP on, the SYN (alone in flight) waits for one exchange, and nothing after it (entries
    // never expire; n1 learnt n0 from the request, so it never asks): exactly one
    // request and one reply in the run. The steady state is then the same process as
    // without ARP; only the MAC's random draws are shifted by the two frames (the
    // request's and the reply's backoffs), so the goodput over 2-20 s agrees within
    // 0.2 %, about four 1400-B segments in the 18-s window of ~1.13 Mb/s (seeds 1-5
    // gave ratios 1.0004, 1, 1, 1, 0.9996: at most one segment apart).
    let flows = r#"
[measure]
start = "2s"
[[flows]]
name = "tcp"
type = "tcp"
from = "n0"
to = "n1"
variant = "sack"
handshake = true
start = "0.5s"
"#;
    let on = common::summary(&scenario(&[100, 300], "20s", "", "", flows), 3);
    let off = common::summary(&scenario(&[100, 300], "20s", "arp = false", "", flows), 3);
    let a0 = &on["nodes"]["n0"]["arp"];
    let a1 = &on["nodes"]["n1"]["arp"];
    assert_eq!(a0["requests_sent"], 1);
    assert_eq!(a1["replies_sent"], 1);
    assert_eq!(a1["requests_sent"], 0);
    assert_eq!(a0["replaced"], 0);
    let g = |s: &serde_json::Value| s["flows"]["tcp"]["goodput_bps"].as_f64().unwrap();
    let (g_on, g_off) = (g(&on), g(&off));
    assert!(g_off > 1.0e6, "{g_off}");
    assert!(
        (g_on / g_off - 1.0).abs() < 0.002,
        "goodput {g_on} with ARP, {g_off} without"
    );
}
