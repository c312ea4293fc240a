//! TCP-snoop's repair rules one by one (Balakrishnan et al. 1995; ns-2.35 `snoop.cc`;
//! issue 12 item 10): the local timer, a lost local retransmission, several losses in
//! one window, `dupack_thresh`, and a loss in the base station's own queue, which is
//! congestion and must reach the sender.

mod common;

use serde_json::Value;

/// fh -(10 Mb/s, 20 ms, queue 100)- bs -(2 Mb/s, 10 ms, queue `bs_queue`)- mh, one
/// transfer fh -> mh described by `flow`, optionally a snoop agent at bs with the extra
/// keys in `snoop`, and `wireless_extra` on the wireless link.
fn scenario(flow: &str, bs_queue: u32, wireless_extra: &str, snoop: Option<&str>) -> String {
    let agent = snoop
        .map(|extra| {
            format!("[[snoop]]\nname = \"agent\"\nnode = \"bs\"\nmobile = \"mh\"\n{extra}\n")
        })
        .unwrap_or_default();
    format!(
        r#"duration = "300s"
[[nodes]]
name = "fh"
[[nodes]]
name = "bs"
[[nodes]]
name = "mh"
[[links]]
name = "wired"
a = "fh"
b = "bs"
bandwidth = "10Mb"
delay = "20ms"
queue = 100
[[links]]
name = "wireless"
a = "bs"
b = "mh"
bandwidth = "2Mb"
delay = "10ms"
queue = {bs_queue}
{wireless_extra}
{agent}
[[flows]]
name = "f"
from = "fh"
to = "mh"
{flow}
"#
    )
}

fn run(text: &str) -> Value {
    let s = common::summary(text, 1);
    let mut f = s["flows"]["f"].clone();
    f["queue_drops"] = s["links"]["bs->mh"]["queue_drops"].clone();
    f
}

/// Reno, 1000-byte segments, window 20, `bytes` to send.
fn reno(bytes: &str) -> String {
    format!(
        "type = \"tcp\"\nvariant = \"reno\"\nsegment_size = \"1000B\"\nwindow = 20\nbytes = \"{bytes}\""
    )
}

/// SCTP as seed 003 runs it (ns-2 preset, one 1000-byte chunk per packet).
fn sctp(bytes: &str) -> String {
    format!(
        "type = \"sctp\"\nvariant = \"ns2\"\nmessage_size = \"1000B\"\nmtu = \"1048B\"\nbytes = \"{bytes}\""
    )
}

#[test]
fn a_loss_in_the_base_station_queue_reaches_the_sender() {
    // The wireless hop loses nothing, but the base station's queue (5 or 8 packets) is
    // smaller than the sender's window of 20, so it overflows: congestion. ns-2.35's
    // snoop.cc caches only while the interface queue has room, "since otherwise we want
    // congestion control to kick in". With nothing lost on the wireless hop there is
    // nothing for snoop to repair, so the snooped transfer must behave as the plain one:
    // the sender sees the overflow losses (fast retransmits), cuts its window (ssthresh
    // below that of a run whose 100-packet queue never overflows), and finishes in the plain transfer's time (within 5%).
    // Caching the dropped segments instead hid every overflow and let the queue overflow
    // again and again (TCP with an 8-packet queue: 198 local repairs, no window cut, 1.9
    // times the plain transfer's time).
    for q in [5, 8] {
        for (name, flow) in [("tcp", reno("1MB")), ("sctp", sctp("1MB"))] {
            let plain = run(&scenario(&flow, q, "", None));
            let snooped = run(&scenario(&flow, q, "", Some("")));
            assert!(snooped["queue_drops"].as_u64().unwrap() > 0, "{name} q={q}");
            assert!(
                snooped["fast_retransmissions"].as_u64().unwrap() >= 1,
                "{name} q={q}: {snooped}"
            );
            let ss = |v: &Value| v["final_ssthresh"].as_f64().unwrap();
            let roomy = run(&scenario(&flow, 100, "", Some("")));
            assert!(
                ss(&snooped) < ss(&roomy),
                "{name} q={q}: no window cut: {snooped}"
            );
            let t = |v: &Value| v["completion_time_s"].as_f64().unwrap();
            assert!(
                t(&snooped) <= 1.05 * t(&plain),
                "{name} q={q}: snoop {} s, plain {} s",
                t(&snooped),
                t(&plain)
            );
        }
    }
}

#[test]
fn the_local_timer_repairs_a_last_segment_lost_on_the_wireless_hop() {
    // Segment 20 of 20 is lost on the wireless hop: no later segment makes duplicate
    // acks. Without snoop the sender waits for its retransmission timeout; with snoop
    // the base station's local timer (srtt + 4 rttvar of the wireless hop, tens of ms,
    // against the sender's RTO of at least 200 ms) resends it first, so the sender sees
    // neither a timeout nor a retransmission.
    let plain = run(&scenario(
        &reno("20000B"),
        100,
        "[links.loss]\ndrops = [20]",
        None,
    ));
    assert_eq!(plain["timeouts"], 1, "{plain}");
    let s = run(&scenario(
        &reno("20000B"),
        100,
        "[links.loss]\ndrops = [20]",
        Some(""),
    ));
    assert_eq!(s["snoop_local_timeouts"], 1, "{s}");
    assert_eq!(s["snoop_local_retransmissions"], 1, "{s}");
    assert_eq!(s["timeouts"], 0, "{s}");
    assert_eq!(s["retransmissions"], 0, "{s}");
    assert_eq!(s["delivered_bytes"], 20_000);
}

#[test]
fn several_wireless_losses_in_one_window_are_all_repaired_locally() {
    // Segments 30 and 34 (one window of 20) are lost on the wireless hop: each is resent
    // by the agent on its first duplicate ack, the sender sees no duplicate ack at all and
    // ends with the ssthresh of a loss-free transfer.
    let clean = run(&scenario(&reno("100000B"), 100, "", Some("")));
    let s = run(&scenario(
        &reno("100000B"),
        100,
        "[links.loss]\ndrops = [30, 34]",
        Some(""),
    ));
    assert_eq!(s["snoop_local_retransmissions"], 2, "{s}");
    assert_eq!(s["fast_retransmissions"], 0, "{s}");
    assert_eq!(s["timeouts"], 0, "{s}");
    assert_eq!(s["final_ssthresh"], clean["final_ssthresh"], "{s}");
    assert_eq!(s["delivered_bytes"], 100_000);
    // With `dupack_thresh = 2` (ns-2.35's rule) the first duplicate of each loss reaches
    // the sender: one duplicate ack is below its threshold of 3, so it still does not
    // retransmit.
    let s2 = run(&scenario(
        &reno("100000B"),
        100,
        "[links.loss]\ndrops = [30, 34]",
        Some("dupack_thresh = 2"),
    ));
    assert_eq!(s2["snoop_local_retransmissions"], 2, "{s2}");
    assert_eq!(s2["fast_retransmissions"], 0, "{s2}");
    assert_eq!(s2["timeouts"], 0, "{s2}");
}
