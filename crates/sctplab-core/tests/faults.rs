//! `[[faults]]`: a link that is down loses every packet in both directions, queued and
//! on the wire included, until it is up again (CONTRACTS.md). Expected counts by hand.

mod common;

const BASE: &str = r#"
duration = "3s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "80Kb"
packet_size = "972B"
"#;

// 972 B payload + 8 UDP + 20 IPv4 = 1000 B: one packet every 972*8/80e3 = 97.2 ms, at
// k * 97.2 ms; each takes 8 ms on the 1 Mb/s wire and arrives 18 ms after it is sent.

#[test]
fn packets_sent_while_down_are_lost_and_counted() {
    let text = format!(
        "{BASE}
[[faults]]
at = \"1.05s\"
link = \"ab\"
action = \"down\"
[[faults]]
at = \"2.05s\"
link = \"ab\"
action = \"up\"
"
    );
    let s = common::summary(&text, 1);
    // Sent in [0, 3 s): k = 0..30 (30 * 97.2 ms = 2.916 s), 31 packets. Lost: those sent
    // in [1.05, 2.05) s: k = 11 (1.0692 s) .. 21 (2.0412 s), 11 packets. The packet sent
    // at k = 10 (0.972 s) arrived at 0.990 s, before the fault. The last one (2.916 s)
    // arrives at 2.934 s, inside the run.
    let f = &s["flows"]["cbr"];
    assert_eq!(f["data_packets_sent"], 31);
    assert_eq!(f["delivered_packets"], 31 - 11);
    assert_eq!(s["links"]["a->b"]["fault_drops"], 11);
    assert_eq!(s["links"]["a->b"]["queue_drops"], 0);
}

#[test]
fn a_packet_on_the_wire_when_the_link_fails_is_lost() {
    // Down at 0.980 s: the packet sent at 0.972 s is in propagation (arrives 0.990 s).
    // Up at 0.985 s, before it would arrive: it is still lost, and the next one (1.0692 s)
    // gets through.
    let text = format!(
        "{BASE}
[[faults]]
at = \"980ms\"
link = \"ab\"
action = \"down\"
[[faults]]
at = \"985ms\"
link = \"ab\"
action = \"up\"
"
    );
    let s = common::summary(&text, 1);
    assert_eq!(s["flows"]["cbr"]["delivered_packets"], 30);
    assert_eq!(s["links"]["a->b"]["fault_drops"], 1);
}

#[test]
fn faults_are_checked() {
    let bad = [
        (
            "[[faults]]\nat = \"1s\"\nlink = \"zz\"\naction = \"down\"\n",
            "unknown link \"zz\"",
        ),
        (
            "[[faults]]\nat = \"1s\"\nlink = \"ab\"\naction = \"up\"\n",
            "already up",
        ),
        (
            "[[faults]]\nat = \"1s\"\nlink = \"ab\"\naction = \"down\"\n[[faults]]\nat = \"2s\"\nlink = \"ab\"\naction = \"down\"\n",
            "already down",
        ),
        (
            "[[faults]]\nat = \"-1s\"\nlink = \"ab\"\naction = \"down\"\n",
            "negative",
        ),
        (
            "[[faults]]\nat = \"9s\"\nlink = \"ab\"\naction = \"down\"\n",
            "after the end of the run",
        ),
        ("[[faults]]\nat = \"1s\"\naction = \"down\"\n", "required"),
    ];
    for (extra, want) in bad {
        let text = format!("{BASE}{extra}");
        let e = sctplab_core::load_toml(&text, "f.toml", "t", &[])
            .expect_err(extra)
            .to_string();
        assert!(e.contains(want), "{extra}: {e}");
        assert!(e.starts_with("f.toml"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
