//! QUIC (quinn-proto on the simulated clock) against hand calculations: handshake
//! timing, finite transfers, bottleneck use, determinism, bad input.

mod common;

use common::summary as run;

fn scenario(flow_extra: &str, bandwidth: &str, delay: &str, duration: Option<&str>) -> String {
    let dur = duration
        .map(|d| format!("duration = \"{d}\"\n"))
        .unwrap_or_default();
    format!(
        r#"{dur}
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "{bandwidth}"
delay = "{delay}"
queue = 100
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
{flow_extra}
"#
    )
}

const MS: f64 = 1e-3;

#[test]
fn handshake_completes_after_one_round_trip_plus_the_servers_flight() {
    // RFC 9001 sec. 4.1.1: the client's handshake is complete when it has the server's
    // Finished. The client's Initial is padded to 1200 B of UDP payload (RFC 9000 sec.
    // 14.1), 1228 B with the IPv4 and UDP headers; the server's first flight (Initial
    // with ServerHello, Handshake with EncryptedExtensions, the Ed25519 certificate,
    // CertificateVerify, Finished) is coalesced into one datagram, also padded to 1200 B
    // since it holds an ack-eliciting Initial. At 1 Mb/s and 10 ms each way:
    // 2 * (1228 * 8 / 1e6 + 0.010) = 39.648 ms.
    let s = run(&scenario("bytes = \"10KB\"", "1Mb", "10ms", None), 1);
    let t = s["flows"]["q"]["connect_time_s"].as_f64().unwrap();
    let expected = 2.0 * (1228.0 * 8.0 / 1e6 + 10.0 * MS);
    assert!((t - expected).abs() < 1e-9, "{t} vs {expected}");
    // The flight really is one 1228-byte datagram: stop the run at the instant the
    // client completes and count what the server sent.
    let cut = scenario(
        "start = \"0s\"\nbytes = \"10KB\"",
        "1Mb",
        "10ms",
        Some("39.648ms"),
    );
    let s = run(&cut, 1);
    let back = &s["links"]["b->a"];
    assert_eq!(back["tx_packets"], 1, "{s}");
    assert_eq!(back["tx_bytes"], 1228, "{s}");
}

#[test]
fn a_finite_transfer_is_delivered_acknowledged_and_closed() {
    let s = run(
        &scenario("bytes = \"200KB\"\nstreams = 4", "2Mb", "20ms", None),
        5,
    );
    let q = &s["flows"]["q"];
    assert_eq!(q["delivered_bytes"], 200_000);
    let per: Vec<u64> = q["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["delivered_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(per, vec![50_000; 4]);
    let done = q["completion_time_s"].as_f64().unwrap();
    // No faster than the bytes alone take on the link after the handshake.
    let connect = q["connect_time_s"].as_f64().unwrap();
    assert!(done > connect + 200_000.0 * 8.0 / 2e6, "{done}");
    // The run ends by itself (no duration): both ends closed and drained, after the
    // client's close.
    assert!(s["sim_time_s"].as_f64().unwrap() > done);
    assert_eq!(q["lost_packets"], 0);
}

#[test]
fn ten_megabytes_over_ten_megabits_use_the_bottleneck() {
    // Goodput over the transfer (bytes over completion time, handshake included) against
    // the link's 10 Mb/s: at least 90 %.
    for cc in ["cubic", "reno", "bbr"] {
        let flow = format!("bytes = \"10MB\"\ncongestion_control = \"{cc}\"");
        let s = run(&scenario(&flow, "10Mb", "20ms", None), 1);
        let q = &s["flows"]["q"];
        assert_eq!(q["delivered_bytes"], 10_000_000, "{cc}");
        let t = q["completion_time_s"].as_f64().unwrap();
        let goodput = 10_000_000.0 * 8.0 / t;
        assert!(goodput >= 0.9 * 10e6, "{cc}: {goodput} b/s in {t} s: {q}");
    }
}

#[test]
fn same_seed_same_summary_other_seed_other_summary() {
    let text = scenario("bytes = \"300KB\"\nstreams = 2", "2Mb", "15ms", None).replace(
        "queue = 100",
        "queue = 100\nloss = { rate = 0.02, direction = \"both\" }",
    );
    let load = |seed| {
        let s = sctplab_core::load_toml(&text, "<test>", "t", &[]).unwrap();
        let o = sctplab_core::RunOptions {
            seed,
            ..Default::default()
        };
        sctplab_core::run_scenario(&s, &o).unwrap().summary_json
    };
    let (a, b, c) = (load(7), load(7), load(8));
    assert_eq!(a, b);
    assert_ne!(a, c);
    // quinn's BBR draws one number from the operating system per BBR (docs/models/
    // quic.md "Determinism"): the summaries stay identical.
    let text = text.replace("streams = 2", "streams = 2\ncongestion_control = \"bbr\"");
    let bbr = |seed| {
        let s = sctplab_core::load_toml(&text, "<test>", "t", &[]).unwrap();
        let o = sctplab_core::RunOptions {
            seed,
            ..Default::default()
        };
        sctplab_core::run_scenario(&s, &o).unwrap().summary_json
    };
    let runs: Vec<String> = (0..4).map(|_| bbr(7)).collect();
    assert!(
        runs.iter().all(|r| *r == runs[0]),
        "bbr: same seed, same summary"
    );
    assert_ne!(runs[0], bbr(8));
    let v: serde_json::Value = serde_json::from_str(&runs[0]).unwrap();
    assert_eq!(v["flows"]["q"]["congestion_control"], "bbr");
    assert_eq!(v["flows"]["q"]["delivered_bytes"], 300_000);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["flows"]["q"]["delivered_bytes"], 300_000);
    assert!(v["flows"]["q"]["lost_packets"].as_u64().unwrap() > 0, "{v}");
}

fn load_err(flow_extra: &str) -> String {
    let text = scenario(flow_extra, "1Mb", "10ms", Some("5s"));
    sctplab_core::load_toml(&text, "s.toml", "s", &[])
        .expect_err("must fail")
        .to_string()
}

#[test]
fn bad_input_is_one_line() {
    let e = load_err("bytes = \"1MB\"\nstop = \"2s\"");
    assert!(e.contains("flows.q.stop") && e.contains("bulk"), "{e}");
    let e = load_err("congestion_control = \"vegas\"");
    assert!(
        e.contains("flows.q.congestion_control") || e.contains("vegas"),
        "{e}"
    );
    let e = load_err(
        "stream_traffic = [{ stream = 0, message_size = \"1KB\", pr_policy = \"ttl\", pr_value = \"1s\" }]",
    );
    assert_eq!(
        e,
        "s.toml: flows.q.stream_traffic.0.pr_policy: partial reliability is SCTP's (RFC 3758): \
         a quic flow's streams are reliable"
    );
    let e = load_err("stream_traffic = [{ stream = 0, message_size = \"1KB\", weight = 2 }]");
    assert!(e.contains("flows.q.stream_traffic.0.weight"), "{e}");
    let e = load_err("bytes = \"1MB\"\nstream_traffic = [{ stream = 0, message_size = \"1KB\" }]");
    assert!(
        e.contains("flows.q.stream_traffic") && e.contains("bytes"),
        "{e}"
    );
    let e = load_err("streams = 2\nstream_traffic = [{ stream = 2, message_size = \"1KB\" }]");
    assert!(e.contains("flows.q.stream_traffic.0.stream"), "{e}");
    let e = load_err("streams = 0");
    assert!(e.contains("flows.q.streams"), "{e}");
    let e = load_err("max_udp_payload = \"1000B\"");
    assert!(e.contains("flows.q.max_udp_payload"), "{e}");
    for e in [
        load_err("bytes = \"1MB\"\nstop = \"2s\""),
        load_err("congestion_control = \"vegas\""),
    ] {
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // No route: a third node with no link.
    let text = scenario("bytes = \"1MB\"", "1Mb", "10ms", Some("5s"))
        .replace("to = \"b\"", "to = \"c\"")
        + "[[nodes]]\nname = \"c\"\n";
    let e = sctplab_core::load_toml(&text, "s.toml", "s", &[])
        .expect_err("must fail")
        .to_string();
    assert!(e.contains("no path"), "{e}");
}

#[test]
fn max_udp_payload_fixes_the_datagram_size() {
    // 100 kB in datagrams of at most 1200 B of UDP payload: no IPv4 packet on the link
    // is larger than 1228 B, and quinn reports the size it kept.
    let s = run(
        &scenario(
            "bytes = \"100KB\"\nmax_udp_payload = \"1200B\"",
            "1Mb",
            "10ms",
            None,
        ),
        1,
    );
    let q = &s["flows"]["q"];
    assert_eq!(q["udp_payload_size"], 1200, "{q}");
    let link = &s["links"]["a->b"];
    let (n, bytes) = (
        link["tx_packets"].as_u64().unwrap(),
        link["tx_bytes"].as_u64().unwrap(),
    );
    assert!(bytes <= n * 1228, "{link}");
    // Larger than the peer's own limit (its max_udp_payload_size transport parameter,
    // quinn's default 1472 B, RFC 9000 sec. 18.2): quinn keeps to the peer's limit.
    let s = run(
        &scenario(
            "bytes = \"100KB\"\nmax_udp_payload = \"9000B\"",
            "1Mb",
            "10ms",
            None,
        ),
        1,
    );
    assert_eq!(s["flows"]["q"]["udp_payload_size"], 1472);
    assert_eq!(s["flows"]["q"]["delivered_bytes"], 100_000);
}

/// Runs `text` with `--pcap` into a fresh folder and returns the folder.
fn run_with_pcap(text: &str, seed: u64, tag: &str) -> std::path::PathBuf {
    let s = sctplab_core::load_toml(text, "<test>", "t", &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("sctplab-quic-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let trace = sctplab_core::trace::TraceConfig {
        out_dir: Some(dir.clone()),
        pcap: true,
        ..Default::default()
    };
    let o = sctplab_core::RunOptions {
        seed,
        trace,
        ..Default::default()
    };
    sctplab_core::run_scenario(&s, &o).unwrap();
    dir
}

#[test]
fn pcap_carries_the_datagrams_and_keylog_has_the_secrets() {
    let text = scenario("bytes = \"30KB\"\nstreams = 2", "2Mb", "5ms", None);
    let a = run_with_pcap(&text, 3, "a");
    let b = run_with_pcap(&text, 3, "b");
    let c = run_with_pcap(&text, 4, "c");
    let read = |d: &std::path::Path, f: &str| std::fs::read(d.join(f)).unwrap();
    for f in ["pcap/a-eth0.pcap", "pcap/b-eth0.pcap", "keylog.txt"] {
        assert_eq!(read(&a, f), read(&b, f), "{f}: same seed, same bytes");
        assert_ne!(read(&a, f), read(&c, f), "{f}: another seed, other bytes");
    }
    // The client logs the four TLS 1.3 traffic secrets Wireshark needs for QUIC, once.
    let log = String::from_utf8(read(&a, "keylog.txt")).unwrap();
    let labels: Vec<&str> = log.lines().map(|l| l.split(' ').next().unwrap()).collect();
    for want in [
        "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
        "SERVER_HANDSHAKE_TRAFFIC_SECRET",
        "CLIENT_TRAFFIC_SECRET_0",
        "SERVER_TRAFFIC_SECRET_0",
    ] {
        assert_eq!(labels.iter().filter(|l| **l == want).count(), 1, "{log}");
    }
    // The first packet of the client's capture is its Initial: UDP to port 443 with a
    // long header (first byte 11xxxxxx) and version 1 (RFC 9000 sec. 17.2).
    let pcap = read(&a, "pcap/a-eth0.pcap");
    let pkt = &pcap[24 + 16..];
    assert_eq!(&pkt[22..24], &443u16.to_be_bytes());
    let quic = &pkt[28..];
    assert_eq!(quic[0] & 0xc0, 0xc0);
    assert_eq!(&quic[1..5], &[0, 0, 0, 1]);
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn two_quic_flows_to_one_node_share_port_443() {
    // The server node tells the connections apart by the client's port (50000 + flow
    // index), as a QUIC server on one UDP socket tells them apart by connection ID.
    let text = scenario("bytes = \"100KB\"", "2Mb", "10ms", None)
        + "[[flows]]\nname = \"q2\"\ntype = \"quic\"\nfrom = \"a\"\nto = \"b\"\nbytes = \"50KB\"\n";
    let s = run(&text, 2);
    assert_eq!(s["flows"]["q"]["delivered_bytes"], 100_000, "{s}");
    assert_eq!(s["flows"]["q2"]["delivered_bytes"], 50_000, "{s}");
    assert!(s["flows"]["q2"]["completion_time_s"].is_number());
}
