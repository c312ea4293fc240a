//! End-to-end checks of the wireless stack (channel, 802.11 MAC, AODV, mobility) through
//! real scenarios, against hand calculations from ns-2.35's rules.
//!
//! Constants used below (ns-2.35 defaults, seed 004's 2 Mb/s): PLCP preamble + header
//! 192 bit at 1 Mb/s = 192 us; MAC header + FCS 34 B; RTS 20 B, CTS and ACK 14 B at
//! 2 Mb/s; SIFS 10 us, slot 20 us, DIFS 50 us; LL delay 25 us each way; propagation
//! distance / 3e8 m/s rounded to the ns (200 m: 667 ns).

mod common;

use serde_json::Value;

/// Nodes at the given x positions (m) on the line y = 100 m, one NIC each, and one CBR
/// flow from the first to the last node.
fn line(xs: &[u32], routing: &str, extra: &str) -> String {
    let mut s = format!(
        r#"
duration = "5s"
[wireless]
width = "2000m"
height = "300m"
routing = "{routing}"
[wireless.mac]
data_rate = "2Mb"
basic_rate = "2Mb"
{extra}
"#
    );
    for (i, x) in xs.iter().enumerate() {
        s += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\nx = \"{x}m\"\ny = \"100m\"\n");
    }
    s += &format!(
        r#"
[[flows]]
name = "cbr"
type = "cbr"
from = "n0"
to = "n{}"
rate = "100Kb"
packet_size = "512B"
start = "0.5s"
stop = "2s"
"#,
        xs.len() - 1
    );
    s
}

fn flow(s: &Value) -> &Value {
    &s["flows"]["cbr"]
}

#[test]
fn one_hop_delay_is_the_ns2_exchange_timeline() {
    // A 512-B payload is a 540-B IP packet (20 IPv4 + 8 UDP), a 574-B MAC frame.
    // LL down 25 us; ns-2's MAC waits DIFS + k slots (k in 0..=30) even on an idle medium;
    // RTS 192 + 20*8/2 = 272 us; +prop 0.667; SIFS 10; CTS 192 + 14*8/2 = 248 us;
    // +prop; SIFS 10; DATA 192 + 574*8/2 = 2488 us; +prop; LL up 25 us.
    // Delay = 25 + 50 + 20k + 272 + 10 + 248 + 10 + 2488 + 25 us + 3 * 667 ns
    //       = 3128.002... -> 3 128 000 + 2 001 ns + 20 000 k ns.
    // ARP off: with it the first packet also waits for one ARP exchange (its timeline is
    // tests/wireless_arp.rs `first_packet_waits_for_one_arp_exchange`).
    let text = line(&[100, 300], "static", "").replace(
        "routing = \"static\"\n",
        "routing = \"static\"\narp = false\n",
    );
    let s = common::summary(&text, 1);
    let f = flow(&s);
    // 100 kb/s of 512-B payloads: one every 40.96 ms from 0.5 s while t < 2 s: 37.
    assert_eq!(f["data_packets_sent"], 37);
    assert_eq!(f["delivered_packets"], 37);
    let base_ns = 3_128_000 + 2_001;
    let d = (f["max_delay_s"].as_f64().unwrap() * 1e9).round() as i64;
    let k = (d - base_ns) / 20_000;
    assert_eq!(
        d,
        base_ns + 20_000 * k,
        "max delay {d} ns is not 3130.001 us + k slots"
    );
    assert!((0..=30).contains(&k), "k = {k}");
    let mean = f["mean_delay_s"].as_f64().unwrap() * 1e9;
    assert!(mean >= base_ns as f64 && mean <= (base_ns + 600_000) as f64);
    // One RTS, CTS, DATA and ACK per packet; nothing lost, nothing retried.
    let a = &s["nodes"]["n0"]["mac"];
    let b = &s["nodes"]["n1"]["mac"];
    assert_eq!(a["rts_sent"], 37);
    assert_eq!(a["data_sent"], 37);
    assert_eq!(b["cts_sent"], 37);
    assert_eq!(b["ack_sent"], 37);
    assert_eq!(a["short_retries"], 0);

    // With ns-2's sizes (`ns2_packet_sizes`, static routes: no AODV header) the datagram
    // is ns-2's UDP agent's 512 B at the MAC, a 546-B frame: DATA 192 + 546*8/2 = 2376
    // us, 112 us less than 2488. The same seed draws the same backoffs, so every delay,
    // the largest and the mean, is 112 us shorter.
    let ns2 = common::summary(
        &text.replace("arp = false\n", "arp = false\nns2_packet_sizes = true\n"),
        1,
    );
    let g = flow(&ns2);
    assert_eq!(g["delivered_packets"], 37);
    let d2 = (g["max_delay_s"].as_f64().unwrap() * 1e9).round() as i64;
    assert_eq!(d2, d - 112_000);
    let mean2 = g["mean_delay_s"].as_f64().unwrap() * 1e9;
    assert!((mean - mean2 - 112_000.0).abs() < 1.0, "{mean} {mean2}");
    // The flow's counters keep the real sizes.
    assert_eq!(g["delivered_bytes"], f["delivered_bytes"]);
}

#[test]
fn receive_range_is_250_m_and_carrier_sense_550_m() {
    // Two-ray ground with ns-2's defaults: RXThresh at 250.0 m, CSThresh at 550.0 m.
    let delivered = |d: u32| {
        let s = common::summary(&line(&[100, 100 + d], "aodv", ""), 1);
        (
            flow(&s)["delivered_packets"].as_u64().unwrap(),
            s["nodes"]["n1"]["mac"]["rx_errors"].as_u64().unwrap(),
        )
    };
    let (inside, _) = delivered(249);
    assert_eq!(inside, 37);
    // Beyond 250 m the RREQs arrive below RXThresh: sensed (an errored frame each, which
    // the MAC answers with EIFS) but never decoded, so no route and nothing delivered.
    let (outside, errored) = delivered(251);
    assert_eq!(outside, 0);
    assert!(errored > 0);
    let (_, errored_549) = delivered(549);
    assert!(errored_549 > 0);
    // Beyond 550 m the frames are not even sensed.
    let (_, errored_551) = delivered(551);
    assert_eq!(errored_551, 0);
}

#[test]
fn aodv_finds_the_seven_hop_route_of_a_chain() {
    // Eight nodes 200 m apart: each hears only its neighbours (400 m is beyond 250 m).
    let xs: Vec<u32> = (0..8).map(|i| 100 + 200 * i).collect();
    let s = common::summary(&line(&xs, "aodv", ""), 1);
    let f = flow(&s);
    assert_eq!(f["data_packets_sent"], 37);
    let delivered = f["delivered_packets"].as_u64().unwrap();
    assert!(delivered >= 30, "delivered {delivered}");
    // ns-2.35 starts a fresh route entry at hop count 255, so n0's first RREQ goes
    // network-wide (TTL 30) and is answered: one RREQ, one RREP from n7.
    assert_eq!(s["nodes"]["n0"]["routing"]["rreq_sent"], 1);
    assert_eq!(s["nodes"]["n7"]["routing"]["rrep_sent"], 1);
    // Every delivered packet crossed the six intermediate nodes.
    for i in 1..7 {
        let fwd = s["nodes"][format!("n{i}")]["forwarded"].as_u64().unwrap();
        assert!(fwd >= delivered, "n{i} forwarded {fwd} < {delivered}");
    }
    assert_eq!(s["nodes"]["n7"]["forwarded"], 0);
}

#[test]
fn expanding_ring_first_ttl_5_fails_then_ttl_7_succeeds() {
    // RFC 3561's ring (ring_search_first = true): TTL 5 reaches n5 only; after its
    // timeout the TTL-7 request reaches n7, which answers: two RREQs from n0.
    let xs: Vec<u32> = (0..8).map(|i| 100 + 200 * i).collect();
    let s = common::summary(
        &line(&xs, "aodv", "[wireless.aodv]\nring_search_first = true\n"),
        1,
    );
    assert_eq!(s["nodes"]["n0"]["routing"]["rreq_sent"], 2);
    assert_eq!(s["nodes"]["n7"]["routing"]["rrep_sent"], 1);
    assert!(flow(&s)["delivered_packets"].as_u64().unwrap() >= 30);
}

#[test]
fn aodv_repairs_a_route_when_a_middle_node_moves_away() {
    // n0 .. n4 at x = 100..900 step 200; a spare node n5 starts out of everyone's range
    // of n2 and n4 at (500, 290) and moves to (500, 130) by 4 s, where it bridges n2 and
    // n4 (202 m each); at 6 s n2's successor n3 (500, 100) leaves for (500, 299), 283 m
    // from n2. Packets of a second flow that starts after the break must still arrive,
    // over the new route through n5.
    let dir = std::env::temp_dir().join(format!("sctplab-repair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mv = dir.join("move.tcl");
    std::fs::write(
        &mv,
        "$node_(0) set X_ 100.0\n$node_(0) set Y_ 100.0\n$node_(0) set Z_ 0.0\n\
         $node_(1) set X_ 300.0\n$node_(1) set Y_ 100.0\n$node_(1) set Z_ 0.0\n\
         $node_(2) set X_ 500.0\n$node_(2) set Y_ 100.0\n$node_(2) set Z_ 0.0\n\
         $node_(3) set X_ 700.0\n$node_(3) set Y_ 100.0\n$node_(3) set Z_ 0.0\n\
         $node_(4) set X_ 900.0\n$node_(4) set Y_ 100.0\n$node_(4) set Z_ 0.0\n\
         $node_(5) set X_ 700.0\n$node_(5) set Y_ 290.0\n$node_(5) set Z_ 0.0\n\
         $ns_ at 1.0 \"$node_(5) setdest 700.0 130.0 80.0\"\n\
         $ns_ at 6.0 \"$node_(3) setdest 700.0 299.0 1000.0\"\n",
    )
    .unwrap();
    let mut text = format!(
        "duration = \"14s\"\n[wireless]\nwidth = \"1000m\"\nheight = \"300m\"\n\
         [wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"2Mb\"\n\
         [mobility]\nfile = {:?}\n",
        mv.to_str().unwrap()
    );
    for i in 0..6 {
        text += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\n");
    }
    for (name, start, stop) in [("before", "0.5s", "5.5s"), ("after", "8s", "12s")] {
        text += &format!(
            "[[flows]]\nname = \"{name}\"\ntype = \"cbr\"\nfrom = \"n0\"\nto = \"n4\"\n\
             rate = \"40Kb\"\npacket_size = \"512B\"\nstart = \"{start}\"\nstop = \"{stop}\"\n"
        );
    }
    let s = common::summary(&text, 1);
    let _ = std::fs::remove_dir_all(&dir);
    let before = &s["flows"]["before"];
    let after = &s["flows"]["after"];
    // 40 kb/s of 512-B payloads: one every 102.4 ms; "after" sends 40 (8 s .. 11.9936 s).
    assert_eq!(after["data_packets_sent"], 40);
    assert!(before["delivered_packets"].as_u64().unwrap() >= 45);
    assert!(
        after["delivered_packets"].as_u64().unwrap() >= 36,
        "{after}"
    );
    // n2 noticed the break when its MAC gave up on n3.
    assert!(s["nodes"]["n2"]["routing"]["link_breaks"].as_u64().unwrap() >= 1);
    assert!(s["nodes"]["n5"]["forwarded"].as_u64().unwrap() >= 36);
}

#[test]
fn same_seed_same_summary_on_a_mobile_network() {
    let mut text = String::from(
        "duration = \"30s\"\n[wireless]\nwidth = \"1000m\"\nheight = \"300m\"\n\
         [wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"2Mb\"\n\
         [mobility]\nmodel = \"random_waypoint\"\nmax_speed = \"20m/s\"\n",
    );
    for i in 0..12 {
        text += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\n");
    }
    text += "[[flows]]\nname = \"bg\"\ntype = \"cbr_pairs\"\ncount = 4\nrate = \"32Kb\"\n\
             packet_size = \"512B\"\namong = [\"n2\", \"n3\", \"n4\", \"n5\", \"n6\", \"n7\"]\n\
             [[flows]]\nname = \"t\"\ntype = \"tcp\"\nfrom = \"n0\"\nto = \"n1\"\n\
             variant = \"sack\"\nsegment_size = \"1400B\"\nhandshake = true\nstart = \"1s\"\n";
    let a = common::summary(&text, 7);
    let b = common::summary(&text, 7);
    assert_eq!(a, b);
    assert!(a["flows"]["t"]["delivered_bytes"].as_u64().unwrap() > 0);
    let c = common::summary(&text, 8);
    assert_ne!(a["flows"]["bg.0"], c["flows"]["bg.0"]);
}

/// The frames in a pcap file of LINKTYPE_IEEE802_11 (classic pcap: a 24-byte file
/// header, then a 16-byte record header before each frame).
fn pcap_frames(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).expect("pcap file");
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= b.len() {
        let len = u32::from_le_bytes(b[i + 8..i + 12].try_into().unwrap()) as usize;
        out.push(b[i + 16..i + 16 + len].to_vec());
        i += 16 + len;
    }
    out
}

#[test]
fn a_nodes_other_nic_hears_none_of_its_frames_as_in_ns2() {
    // n0 has two NICs (NIC 0 = wlan0, NIC 1 = wlan1), n1 one (NIC 2), 200 m apart; a CBR
    // flow from n0 to n1 leaves by n0's wlan0 (RTS and DATA frames with transmitter
    // address 02:00:00:00:00:00, NIC 0's). ns-2.35's `WirelessChannel::sendUp` skips the
    // transmitting node, so none of them reaches n0's wlan1: its pcap (every frame that
    // reaches the NIC above the receive threshold) holds only n1's frames. With
    // `same_node_delivery = true` wlan1 decodes each of them at the 1-m floor.
    let text = |extra: &str| {
        line(&[100, 300], "static", "")
            .replace("[wireless.mac]", &format!("{extra}\n[wireless.mac]"))
            .replace("name = \"n0\"\nwlan = 1", "name = \"n0\"\nwlan = 2")
    };
    let from_nic0 = |extra: &str| -> (usize, usize) {
        let dir = std::env::temp_dir().join(format!(
            "sctplab-same-node-{}-{}",
            std::process::id(),
            extra.len()
        ));
        let trace = sctplab_core::trace::TraceConfig {
            out_dir: Some(dir.clone()),
            pcap: true,
            ..Default::default()
        };
        let s = sctplab_core::load_toml(&text(extra), "<test>", "t", &[]).expect("valid");
        let opts = sctplab_core::RunOptions {
            seed: 1,
            trace,
            ..Default::default()
        };
        sctplab_core::run_scenario(&s, &opts).expect("run");
        let frames = pcap_frames(&dir.join("pcap").join("n0-wlan1.pcap"));
        let sent = pcap_frames(&dir.join("pcap").join("n0-wlan0.pcap"));
        let _ = std::fs::remove_dir_all(&dir);
        let nic0 = [2u8, 0, 0, 0, 0, 0];
        let by_nic0 = |f: &Vec<u8>| f.len() >= 16 && f[10..16] == nic0;
        (
            frames.iter().filter(|f| by_nic0(f)).count(),
            sent.iter().filter(|f| by_nic0(f)).count(),
        )
    };
    let (heard, sent) = from_nic0("");
    // 37 datagrams (one every 4096 B * 8 / 100 kb/s = 40.96 ms in [0.5 s, 2 s)), each an
    // RTS and a DATA frame with nobody else sending, and the first one's ARP request.
    assert_eq!(sent, 2 * 37 + 1);
    assert_eq!(heard, 0);
    let (heard, sent_too) = from_nic0("same_node_delivery = true");
    assert_eq!(sent_too, sent);
    assert_eq!(heard, sent);
}
