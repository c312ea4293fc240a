//! `[wireless] routing = "dsr"` in the world (issue 40): a static 5-node chain
//! n0 - n1 - n2 - n3 - n4 (200 m apart, 250 m range: only neighbours hear each other)
//! with one CBR flow n0 -> n4, and a random-waypoint network run to its end; bad
//! `[wireless.dsr]` values refused in one line.
//!
//! The chain's route discovery, derived by hand from ns-2.35's DSRAgent rules
//! (wireless/dsr/mod.rs): n0's first packet finds no route, so n0 sends a ring-zero
//! request, which n1 cannot answer (empty cache) and does not pass on
//! (`max_propagation` 0); a send-buffer check more than 30 ms later sends one
//! propagating request, which n1, n2 and n3 each rebroadcast once (every later copy is
//! one they have seen or that lists them); n4 answers the one copy that reaches it
//! with one reply along n4 n3 n2 n1 n0. With the route cached, no further request: the
//! flow is one-way, nothing breaks, and nobody hears a route it could shorten. So the
//! routing transmissions are n0: 2 requests; n1, n2, n3: one request and one reply
//! forwarded each; n4: its reply: 9 in all.

mod common;

use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn chain(extra: &str) -> String {
    let mut text = String::from(
        "duration = \"20s\"\n[wireless]\nwidth = \"1200m\"\nheight = \"300m\"\n\
         routing = \"dsr\"\n",
    );
    text += extra;
    for i in 0..5 {
        let x = 100 + 200 * i;
        text += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\nx = \"{x}m\"\ny = \"100m\"\n");
    }
    text += "[[flows]]\nname = \"cbr\"\ntype = \"cbr\"\nfrom = \"n0\"\nto = \"n4\"\n\
             rate = \"16Kb\"\npacket_size = \"512B\"\nstart = \"1s\"\nstop = \"19s\"\n";
    text
}

fn run(text: &str, seed: u64) -> Value {
    let s = load_toml(text, "<test>", "t", &[]).expect("valid");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed,
            ..RunOptions::default()
        },
    )
    .expect("the run ends");
    serde_json::from_str(&r.summary_json).expect("json")
}

fn node<'a>(s: &'a Value, n: &str) -> &'a Value {
    &s["nodes"][n]
}

#[test]
fn a_chain_discovers_its_route_with_one_flood_and_one_reply_and_delivers() {
    for seed in [1, 2, 3] {
        let s = run(&chain(""), seed);
        let f = &s["flows"]["cbr"];
        let (sent, got) = (
            f["data_packets_sent"].as_u64().expect("sent"),
            f["delivered_packets"].as_u64().expect("received"),
        );
        // 16 kb/s of 512-byte packets for 18 s: 4 a second, 72 (the run's own count).
        assert!(sent >= 70, "seed {seed}: {f}");
        assert_eq!(
            got, sent,
            "seed {seed}: every packet arrives on a static chain"
        );
        let r = |n: &str, k: &str| node(&s, n)["routing"][k].as_u64().expect(k);
        assert_eq!(r("n0", "requests_ring_zero"), 1, "seed {seed}");
        assert_eq!(r("n0", "requests_propagating"), 1, "seed {seed}");
        for n in ["n1", "n2", "n3"] {
            assert_eq!(r(n, "requests_forwarded"), 1, "seed {seed} {n}");
            assert_eq!(r(n, "replies_sent") + r(n, "cache_replies_sent"), 0);
        }
        assert_eq!(r("n4", "replies_sent"), 1, "seed {seed}");
        assert_eq!(r("n0", "replies_received"), 1, "seed {seed}");
        let packets: Vec<u64> = (0..5)
            .map(|i| {
                node(&s, &format!("n{i}"))["routing_packets"]
                    .as_u64()
                    .expect("count")
            })
            .collect();
        assert_eq!(packets, vec![2, 2, 2, 2, 1], "seed {seed}");
        // ns-2.35 sizes (IP 20 + hdr_sr::size): n0's requests 20 + 12 each; n4's reply
        // 20 + 4 + 4*4 (route of 5) + 5 + 4*5 (reply route of 5), rounded up: 68.
        let bytes = |n: &str| node(&s, n)["routing_bytes"].as_u64().expect("bytes");
        assert_eq!(bytes("n0"), 64, "seed {seed}");
        assert_eq!(bytes("n4"), 68, "seed {seed}");
        // A request grows by 4 bytes per node it lists; ns-2.35 keeps the old header's
        // bytes in the size too (n1 sends 32 + 16, its reply copy 68).
        assert_eq!(bytes("n1"), 48 + 68, "seed {seed}");
        // n1 overhears n2's frames for n3 (the data, its source routes).
        assert!(r("n1", "tapped") > 0, "seed {seed}: the tap hears nothing");
    }
}

#[test]
fn a_mobile_network_runs_to_its_end() {
    let mut text = String::from(
        "duration = \"60s\"\n[wireless]\nwidth = \"1000m\"\nheight = \"300m\"\n\
         routing = \"dsr\"\n[mobility]\nmodel = \"random_waypoint\"\nmax_speed = \"20m/s\"\n\
         pause = \"0s\"\n",
    );
    for i in 0..15 {
        text += &format!("[[nodes]]\nname = \"m{i}\"\nwlan = 1\n");
    }
    for (k, (a, b)) in [(0, 7), (3, 12), (5, 9), (14, 1)].iter().enumerate() {
        text += &format!(
            "[[flows]]\nname = \"c{k}\"\ntype = \"cbr\"\nfrom = \"m{a}\"\nto = \"m{b}\"\n\
             rate = \"2048b\"\npacket_size = \"64B\"\n"
        );
    }
    text += "[[flows]]\nname = \"t\"\ntype = \"tcp\"\nvariant = \"newreno\"\nfrom = \"m2\"\nto = \"m10\"\n";
    for seed in [1, 2] {
        let s = run(&text, seed);
        let total: u64 = (0..15)
            .map(|i| {
                node(&s, &format!("m{i}"))["routing_packets"]
                    .as_u64()
                    .expect("n")
            })
            .sum();
        assert!(total > 0, "seed {seed}");
        let got: u64 = (0..4)
            .map(|k| {
                s["flows"][format!("c{k}")]["delivered_packets"]
                    .as_u64()
                    .expect("n")
            })
            .sum();
        assert!(got > 0, "seed {seed}: nothing delivered");
        let sum = |k: &str| -> u64 {
            (0..15)
                .map(|i| node(&s, &format!("m{i}"))["routing"][k].as_u64().expect(k))
                .sum()
        };
        let keys = [
            "link_failures",
            "salvaged",
            "errors_sent",
            "tapped",
            "grat_replies_sent",
            "cache_replies_sent",
        ];
        eprintln!(
            "seed {seed}: delivered {got}, routing packets {total}, {:?}",
            keys.map(|k| (k, sum(k)))
        );
        // Links break as nodes move at up to 20 m/s: the MAC's callback reaches the agent,
        // which sends route errors; the tap hears others' packets.
        assert!(
            sum("link_failures") > 0 && sum("errors_sent") > 0,
            "seed {seed}"
        );
        assert!(sum("tapped") > 0, "seed {seed}");
    }
}

fn refused(text: &str, key: &str, value: &str) -> String {
    let sets = vec![(key.to_string(), value.to_string())];
    let e = load_toml(text, "t.toml", "t", &sets).expect_err("must be refused");
    let line = e.to_string();
    assert!(!line.contains('\n'), "{line}");
    line
}

#[test]
fn bad_dsr_values_are_one_line_at_their_key() {
    let text = chain("");
    for (key, value) in [
        ("wireless.dsr.primary_cache_size", "0"),
        ("wireless.dsr.secondary_cache_size", "0"),
        ("wireless.dsr.send_buffer_size", "0"),
        ("wireless.dsr.request_table_size", "0"),
        ("wireless.dsr.buffer_check", "\"0s\""),
    ] {
        let line = refused(&text, key, value);
        assert!(
            line.contains(key) && line.contains("at least") || line.contains("above 0"),
            "{line}"
        );
    }
    let line = refused(&text, "wireless.dsr.header_sizes", "\"rfc9999\"");
    assert!(line.contains("header_sizes"), "{line}");
}

/// The sizes of the DSR packets each node sends or forwards (RTR `s` and `f` lines) on
/// python/sctplab/ns2/dsr_chain.tcl's 6-node chain, in ns-2.35's trace of it (`ns
/// dsr_chain.tcl t.tr 3`): the ring-zero request (32), the propagating one as n0..n4
/// send it (32, 48, 68, 92, 120: ns-2 keeps each old header's bytes), n5's reply and
/// its four forwards (76).
#[test]
fn the_chain_s_dsr_packets_have_ns2_s_sizes_in_the_ns2_trace() {
    let dir = std::env::temp_dir().join(format!("sctplab-dsr-chain-{}", std::process::id()));
    let mut trace = TraceConfig {
        out_dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    trace.set_traces(&["ns2"]).expect("ns2 trace");
    let mut text = String::from(
        "duration = \"3s\"\n[wireless]\nwidth = \"1200m\"\nheight = \"300m\"\n\
         routing = \"dsr\"\nns2_packet_sizes = true\n[wireless.mac]\ndata_rate = \"2Mb\"\n\
         basic_rate = \"2Mb\"\n",
    );
    for i in 0..6 {
        let x = 100 + 200 * i;
        text += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\nx = \"{x}m\"\ny = \"100m\"\n");
    }
    text += "[[flows]]\nname = \"cbr\"\ntype = \"cbr\"\nfrom = \"n0\"\nto = \"n5\"\n\
             rate = \"8192b\"\npacket_size = \"512B\"\nstart = \"1s\"\n";
    let s = load_toml(&text, "<test>", "t", &[]).expect("valid");
    run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let mut lines = Vec::new();
    for e in std::fs::read_dir(&dir).expect("trace dir") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "tr") {
            lines.extend(
                std::fs::read_to_string(&p)
                    .expect("trace")
                    .lines()
                    .map(str::to_string),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let sent: Vec<(String, String)> = lines
        .iter()
        .filter_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            (t.len() > 7 && (t[0] == "s" || t[0] == "f") && t[3] == "RTR" && t[6] == "DSR")
                .then(|| (t[0].to_string(), t[7].to_string()))
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("s", "32"),
        ("s", "32"),
        ("f", "48"),
        ("f", "68"),
        ("f", "92"),
        ("f", "120"),
        ("s", "76"),
        ("f", "76"),
        ("f", "76"),
        ("f", "76"),
        ("f", "76"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(sent, want, "{lines:#?}");
    // The reply's tail as ns-2.35 prints it: 6 addresses, the request number 2, the
    // route n0 -> n5.
    assert!(
        lines.iter().any(|l| l.starts_with("s ")
            && l.contains("_5_ RTR")
            && l.ends_with("6 [0 2] [1 2 6 0->5] [0 0 0 0->0]")),
        "{lines:#?}"
    );
}

/// `--pcap` of the 5-node chain: DSR's packets behind IP protocol 48 with RFC 4728's
/// DSR header, which tshark frames (IP lengths consistent, nothing malformed): n0's two
/// requests and the reply n1 forwards to it, then data with a source route.
#[test]
fn pcap_shows_dsr_packets_as_ip_protocol_48_that_tshark_frames() {
    let Some(tshark) = common::tshark() else {
        eprintln!("tshark not installed: skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("sctplab-dsr-pcap-{}", std::process::id()));
    let trace = TraceConfig {
        out_dir: Some(dir.clone()),
        pcap: true,
        ..TraceConfig::default()
    };
    let text = chain("").replace("duration = \"20s\"", "duration = \"3s\"");
    let s = load_toml(&text, "<test>", "t", &[]).expect("valid");
    run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let pcap = dir.join("pcap").join("n0-wlan0.pcap");
    let out = common::tshark_read(
        tshark,
        &pcap,
        &[
            "-Y",
            "ip.proto == 48",
            "-T",
            "fields",
            "-e",
            "ip.len",
            "-e",
            "ip.src",
        ],
    );
    let all = common::tshark_read(tshark, &pcap, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!all.contains("Malformed"), "{all}");
    let rows: Vec<&str> = out.lines().collect();
    // RFC 4728 sizes: a request from n0 is IP 20 + 4 + 8 = 32 bytes; the reply to it
    // (route n4..n0, reply route of 5) 20 + 4 + (4 + 3 * 4) + (3 + 4 * 4) = 59.
    assert!(
        rows.iter()
            .filter(|r| r.starts_with("32\t10.0.0.1"))
            .count()
            >= 2,
        "{out}"
    );
    assert!(rows.iter().any(|r| r.starts_with("59\t10.0.0.5")), "{out}");
    // Data packets carry the route: UDP 540 + 4 + 4 + 3 * 4 = 560.
    assert!(rows.iter().any(|r| r.starts_with("560\t10.0.0.1")), "{out}");
}
