//! The endpoints' ECN reactions in whole runs: TCP's ECE/CWR (RFC 3168 sec. 6.1) and
//! SCTP's ECNE/CWR chunks (RFC 9260 appendix A) behind a discipline that marks instead
//! of dropping. The rules one by one are unit-tested in `src/tcp/ecn.rs` and
//! `src/sctp/ecn.rs`.

mod common;

/// One flow over a 10 Mb/s, 20 ms bottleneck with room for 1000 packets (so the hard
/// limit is never reached by a flow that slows down) run by `aqm`.
fn dumbbell(aqm: &str, flow: &str) -> String {
    let topology = common::dumbbell_topology(aqm);
    format!(
        r#"
duration = "30s"
[measure]
start = "5s"
{topology}
[[flows]]
from = "a"
to = "b"
{flow}
"#
    )
}

const TCP: &str = r#"name = "f"
type = "tcp"
variant = "sack"
window = 1000
ecn = true"#;

const SCTP: &str = r#"name = "f"
type = "sctp"
variant = "newreno"
receive_buffer = "4MB"
ecn = true"#;

/// RFC 3168 sec. 6.1.2 and RFC 9260 appendix A: a CE mark is answered by a window cut
/// and never by a retransmission. Behind CoDel with `ecn = true` nothing of the flow is
/// dropped (the 1000-packet limit is never reached), so the flow retransmits nothing,
/// yet its cuts keep the queueing delay near CoDel's 5 ms target (RFC 8289) instead of
/// letting the sender fill the buffer, and the link stays busy.
#[test]
fn marks_slow_the_sender_without_retransmissions() {
    for (name, flow) in [("tcp", TCP), ("sctp", SCTP)] {
        let s = common::summary(
            &dumbbell(r#"aqm = { kind = "codel", ecn = true }"#, flow),
            1,
        );
        let (f, l) = (&s["flows"]["f"], &s["links"]["r1->r2"]);
        assert!(f["ce_marks"].as_u64().unwrap() > 0, "{name}: {f}");
        assert!(f["ecn_reductions"].as_u64().unwrap() > 0, "{name}: {f}");
        assert_eq!(f["retransmissions"], 0, "{name}: {f}");
        assert_eq!(f["timeouts"], 0, "{name}: {f}");
        assert_eq!(l["aqm_drops"], 0, "{name}: {l}");
        assert_eq!(l["queue_drops"], 0, "{name}: {l}");
        let delay = l["queue_delay_mean_s"].as_f64().unwrap();
        assert!(delay < 0.02, "{name}: {l}");
        assert!(l["utilization"].as_f64().unwrap() > 0.8, "{name}: {l}");
        // At most one cut per round trip (about 50 ms here with the 5 ms standing
        // queue): 25 s of measurement allow no more than 500.
        assert!(f["ecn_reductions"].as_u64().unwrap() < 500, "{name}: {f}");
    }
}

/// Without `ecn` on the flow nothing changes: no marks, no ECN keys in its summary.
#[test]
fn flows_without_ecn_have_no_ecn_keys() {
    for flow in [TCP, SCTP] {
        let flow = flow.replace("ecn = true", "ecn = false");
        let s = common::summary(
            &dumbbell(r#"aqm = { kind = "codel", ecn = true }"#, &flow),
            1,
        );
        let f = &s["flows"]["f"];
        assert!(f.get("ecn_reductions").is_none(), "{f}");
        assert_eq!(f["ce_marks"], 0);
        assert!(s["links"]["r1->r2"]["aqm_drops"].as_u64().unwrap() > 0);
    }
}

/// An ECN flow behind a drop-tail link sees no mark and makes no cut for one.
#[test]
fn no_marks_no_cuts() {
    for flow in [TCP, SCTP] {
        let s = common::summary(&dumbbell("", flow), 1);
        assert_eq!(s["flows"]["f"]["ecn_reductions"], 0);
        assert_eq!(s["flows"]["f"]["ce_marks"], 0);
    }
}
