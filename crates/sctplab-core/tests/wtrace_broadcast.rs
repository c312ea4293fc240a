//! Broadcasts in the ns-2 wireless trace, end to end, against lines of an ns-2.35 trace
//! (`ns` 2.35: two static nodes 100 m apart, one 512-B CBR packet from node 0 to node 1
//! at 1 s, `-agentTrace ON -routerTrace ON -macTrace ON`, with AODV and with DSDV).
//! ns-2.35's `CMUTrace::format_ip` prints a broadcast's next hop (IP_BROADCAST, -1) as 0.

use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};

/// The lines of the ns-2 trace of a two-node run with `routing`.
fn trace_lines(routing: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!(
        "sctplab-wtrace-bcast-{}-{routing}",
        std::process::id()
    ));
    let mut trace = TraceConfig {
        out_dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    trace.set_traces(&["ns2"]).unwrap();
    let text = format!(
        "duration = \"3s\"\n[wireless]\nwidth = \"500m\"\nheight = \"500m\"\n\
         routing = \"{routing}\"\n\
         [[nodes]]\nname = \"n0\"\nwlan = 1\nx = \"100m\"\ny = \"100m\"\n\
         [[nodes]]\nname = \"n1\"\nwlan = 1\nx = \"200m\"\ny = \"100m\"\n\
         [[flows]]\nname = \"cbr\"\ntype = \"cbr\"\nfrom = \"n0\"\nto = \"n1\"\n\
         rate = \"100Kb\"\npacket_size = \"512B\"\nstart = \"1s\"\nstop = \"1.01s\"\n"
    );
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
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tr") {
            lines.extend(
                std::fs::read_to_string(&p)
                    .unwrap()
                    .lines()
                    .map(str::to_string),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    lines
}

/// The first line containing all of `keys`.
fn line<'a>(lines: &'a [String], keys: &[&str]) -> &'a str {
    lines
        .iter()
        .find(|l| keys.iter().all(|k| l.contains(k)))
        .unwrap_or_else(|| panic!("no line with {keys:?}"))
}

/// (source, destination, ttl, next hop) of a line's IP header `[s:sp d:dp ttl next]`.
fn ip_nodes(l: &str) -> (String, String, String, String) {
    let at = l.find("------- [").expect("an IP header") + "------- [".len();
    let end = at + l[at..].find(']').expect("closing bracket");
    let f: Vec<&str> = l[at..end].split(' ').collect();
    let node = |a: &str| a.split(':').next().unwrap_or_default().to_string();
    (node(f[0]), node(f[1]), f[2].to_string(), f[3].to_string())
}

fn ns2(src: &str, dst: &str, ttl: &str, next: &str) -> (String, String, String, String) {
    (src.into(), dst.into(), ttl.into(), next.into())
}

#[test]
fn aodv_request_broadcast_has_next_hop_zero() {
    let lines = trace_lines("aodv");
    // ns-2.35 at RTR and MAC:
    // `s 1.000000000 _0_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] ...`
    // `s 1.000535000 _0_ MAC  --- 0 AODV 106 [0 ffffffff 0 800] ------- [0:255 -1:255 30 0] ...`
    // (our AODV's port is RFC 3561's 654, ns-2's is its routing port 255: ports not compared).
    for layer in [" RTR ", " MAC "] {
        let l = line(&lines, &["s ", "_0_", layer, "AODV", "(REQUEST)"]);
        assert_eq!(ip_nodes(l), ns2("0", "-1", "30", "0"), "{l}");
    }
    // A unicast keeps its next hop: `s 1.006333667 _0_ RTR  --- 0 cbr 532 ... [0:0 1:0 30 1]`.
    let l = line(&lines, &["s ", "_0_", " RTR ", "cbr"]);
    assert_eq!(ip_nodes(l), ns2("0", "1", "30", "1"), "{l}");
    // The tails carry ns-2.35's type codes: `... [0x2 1 1 [1 0] [0 4]] (REQUEST)` and a
    // `(REPLY)` tail starting `[0x4 ` (aodv_packet.h: AODVTYPE_RREQ 0x02, AODVTYPE_RREP
    // 0x04, AODVTYPE_RERR 0x08, printed with `0x%x`).
    let rreq = line(&lines, &["s ", "_0_", " RTR ", "AODV", "(REQUEST)"]);
    assert!(rreq.contains("] [0x2 "), "{rreq}");
    let rrep = line(&lines, &["AODV", "(REPLY)"]);
    assert!(rrep.contains("] [0x4 "), "{rrep}");
}

#[test]
fn dsdv_update_broadcast_has_next_hop_zero() {
    let lines = trace_lines("dsdv");
    // ns-2.35's first update of node 1, at RTR and MAC:
    // `s 1.114891050 _1_ RTR  --- 2 message 32 [0 0 0 0] ------- [1:255 -1:255 32 0] `
    // `s 1.115206050 _1_ MAC  --- 2 message 90 [0 ffffffff 1 800] ------- [1:255 -1:255 32 0] `
    let rtr = line(&lines, &["s ", "_1_", " RTR ", "message"]);
    assert!(
        rtr.ends_with(" message 32 [0 0 0 0] ------- [1:255 -1:255 32 0] "),
        "{rtr}"
    );
    let mac = line(&lines, &["s ", "_1_", " MAC ", "message"]);
    assert!(
        mac.ends_with(" message 90 [0 ffffffff 1 800] ------- [1:255 -1:255 32 0] "),
        "{mac}"
    );
}
