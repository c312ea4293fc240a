//! Queue disciplines on a link direction in a whole run: the link key `aqm`, the flow key
//! `ecn`, and the summary keys `aqm_drops`, `ecn_marks`, `queue_delay_mean_s`, `ce_marks`
//! (CONTRACTS.md "Congestion control, AQM and ECN"). The unit tests of each discipline's
//! rules are in `src/net/aqm/`.

mod common;

/// Two CBR flows from a to b whose packets leave a at the same instants: 1000 B at
/// 1 Mb/s is 8 ms on the wire, so of each pair one starts at once and the other waits
/// 8 ms: a mean wait of 4 ms (hand calculation).
const PAIRS: &str = r#"
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
name = "c1"
type = "cbr"
from = "a"
to = "b"
rate = "80Kb"
packet_size = "972B"
[[flows]]
name = "c2"
type = "cbr"
from = "a"
to = "b"
rate = "80Kb"
packet_size = "972B"
"#;

#[test]
fn queue_delay_mean_is_the_wait_before_transmission() {
    let s = common::summary(PAIRS, 1);
    // 31 pairs (k * 97.2 ms, k = 0..30), the last transmission ending at 2.932 s.
    assert_eq!(s["links"]["a->b"]["tx_packets"], 62);
    assert_eq!(s["links"]["a->b"]["queue_delay_mean_s"], 0.004);
    // Nothing crossed b->a: no packet, no mean.
    assert!(s["links"]["b->a"]["queue_delay_mean_s"].is_null());
    for key in ["aqm_drops", "ecn_marks"] {
        assert_eq!(s["links"]["a->b"][key], 0, "{key}");
    }
    assert_eq!(s["flows"]["c1"]["ce_marks"], 0);
}

#[test]
fn queue_delay_series_averages_each_interval() {
    let text = PAIRS.replace(
        "duration = \"3s\"",
        "duration = \"3s\"\n[series]\ninterval = \"1s\"",
    );
    let r = common::run_traced(&text, "pairs", &[], &["queue_delay"]);
    let v: Vec<f64> = r
        .series
        .iter()
        .filter(|(_, var, _)| var == "queue_delay")
        .map(|x| x.2)
        .collect();
    // Two link directions, samples at 0, 1, 2 s: the first sees nothing yet (0); each
    // later one averages whole pairs (4 ms) on a->b and nothing (0) on b->a.
    assert_eq!(v.len(), 6, "{v:?}");
    let mut sorted = v.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(sorted, vec![0.0, 0.0, 0.0, 0.0, 0.004, 0.004]);
}

/// A bufferbloated bottleneck: 10 Mb/s with room for 1000 packets, one bulk TCP flow and
/// one SCTP association.
fn bloat(aqm: &str, tcp_ecn: bool) -> String {
    let topology = common::dumbbell_topology(aqm);
    format!(
        r#"
duration = "20s"
[measure]
start = "5s"
{topology}
[[flows]]
name = "t1"
type = "tcp"
variant = "sack"
from = "a"
to = "b"
window = 1000
ecn = {tcp_ecn}
[[flows]]
name = "s1"
type = "sctp"
variant = "newreno"
from = "a"
to = "b"
"#
    )
}

/// RFC 8289's claim, qualitatively: CoDel keeps the bottleneck's queueing delay near its
/// 5 ms target where drop-tail lets the 1000-packet buffer fill (hundreds of ms), and the
/// link stays busy.
#[test]
fn codel_removes_the_standing_queue() {
    let tail = common::summary(&bloat("", false), 1);
    let codel = common::summary(&bloat(r#"aqm = { kind = "codel" }"#, false), 1);
    let (t, c) = (&tail["links"]["r1->r2"], &codel["links"]["r1->r2"]);
    assert!(t["queue_delay_mean_s"].as_f64().unwrap() > 0.1, "{t}");
    assert!(c["queue_delay_mean_s"].as_f64().unwrap() < 0.02, "{c}");
    assert_eq!(t["aqm_drops"], 0);
    assert!(c["aqm_drops"].as_u64().unwrap() > 0);
    assert!(c["utilization"].as_f64().unwrap() > 0.8, "{c}");
}

/// With `ecn = true` on the discipline, the ECN-capable flow's packets are marked, not
/// dropped, and the marks arrive at its receiver; the other flow is never marked.
#[test]
fn ce_marks_reach_the_receiver_of_the_ecn_flow_only() {
    for aqm in [
        r#"aqm = { kind = "codel", ecn = true }"#,
        r#"aqm = { kind = "fq_codel", ecn = true }"#,
        r#"aqm = { kind = "red", ecn = true }"#,
        r#"aqm = { kind = "pie", ecn = true }"#,
    ] {
        let s = common::summary(&bloat(aqm, true), 1);
        let marks = s["links"]["r1->r2"]["ecn_marks"].as_u64().unwrap();
        let ce = s["flows"]["t1"]["ce_marks"].as_u64().unwrap();
        assert!(ce > 0, "{aqm}: {s}");
        // Marked on the bottleneck, counted on arrival: only those marked within a
        // one-way delay of either end of the window fall on the other side of it.
        assert!(
            ce.abs_diff(marks) < 20,
            "{aqm}: {marks} marks, {ce} at the receiver"
        );
        assert_eq!(s["flows"]["s1"]["ce_marks"], 0, "{aqm}");
    }
}

/// Without `ecn` on the discipline, ECN-capable packets are dropped like any other.
#[test]
fn a_discipline_without_ecn_never_marks() {
    let s = common::summary(&bloat(r#"aqm = { kind = "red" }"#, true), 1);
    assert_eq!(s["links"]["r1->r2"]["ecn_marks"], 0);
    assert_eq!(s["flows"]["t1"]["ce_marks"], 0);
    assert!(s["links"]["r1->r2"]["aqm_drops"].as_u64().unwrap() > 0);
}

/// The same scenario and seed give the same summary under every discipline.
#[test]
fn disciplines_are_deterministic() {
    for aqm in [
        r#"aqm = { kind = "red" }"#,
        r#"aqm = { kind = "pie", ecn = true }"#,
        r#"aqm = { kind = "fq_codel" }"#,
    ] {
        let a = common::summary(&bloat(aqm, true), 7);
        let b = common::summary(&bloat(aqm, true), 7);
        assert_eq!(a, b, "{aqm}");
    }
}

/// sctplab.validation.red's path (seed 000's GEO dumbbell, RED at ns-2.35's defaults on
/// the bottleneck, limit 100, one TCP-SACK flow with the handshake and ns-2.35's
/// default limited transmit, `singledup_ 1`) on rates and delays that are powers of two
/// (2^24 and 2^22 b/s, 2^-9 and 2^-2 s), so that ns-2's double-precision clock adds
/// without rounding: an arrival at n2 then meets the departure of the same instant in
/// the order ours has (the departure, scheduled first), where on 10 Mb/s and 2 ms a
/// rounding error puts some arrivals first. ns-2.35 over 10 s (`ns` on
/// python/sctplab/ns2/red_dumbbell.tcl with these links): 899 packets sent on n2->n3, 66
/// dropped there (all forced: RED's limit is 100 x 500 bytes, 34 packets of 1488), and
/// 2.6028534 packets waiting on average (its queue monitor's integrator).
#[test]
fn red_matches_ns2_on_a_clock_without_rounding() {
    let text = r#"
duration = "10s"
[[nodes]]
name = "n0"
[[nodes]]
name = "n2"
[[nodes]]
name = "n3"
[[nodes]]
name = "n4"
[[links]]
name = "l0"
a = "n0"
b = "n2"
bandwidth = "16777216b"
delay = "1953125ns"
[[links]]
name = "l2"
a = "n2"
b = "n3"
bandwidth = "4194304b"
delay = "250ms"
queue = 100
aqm = { kind = "red" }
[[links]]
name = "l3"
a = "n3"
b = "n4"
bandwidth = "16777216b"
delay = "1953125ns"
[[flows]]
name = "tcp"
type = "tcp"
variant = "sack"
from = "n0"
to = "n4"
segment_size = "1448B"
window = 300
initial_ssthresh = 300
limited_transmit = true
delayed_ack = false
handshake = true
"#;
    let s = common::summary(text, 1);
    let l = &s["links"]["n2->n3"];
    assert_eq!(l["tx_packets"], 899, "{l}");
    assert_eq!(l["queue_drops"], 66, "{l}");
    assert_eq!(l["aqm_drops"], 0, "{l}");
    // Little's law over the run: packets per second times their mean wait.
    let waiting = 899.0 / 10.0 * l["queue_delay_mean_s"].as_f64().unwrap();
    assert!(
        (waiting / 2.602_853_4 - 1.0).abs() < 1e-3,
        "{waiting} packets waiting against ns-2.35's 2.6028534"
    );
}
