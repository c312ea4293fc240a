//! SCTP basics: finite transfers with loss, delayed SACKs, timeouts and ABORT,
//! fragmentation and bundling, determinism.

mod common;

use common::summary as run;

fn scenario(flow_extra: &str, loss: &str, duration: Option<&str>) -> String {
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
bandwidth = "2Mb"
delay = "20ms"
queue = 200
{loss}
[[flows]]
name = "s"
type = "sctp"
from = "a"
to = "b"
{flow_extra}
"#
    )
}

#[test]
fn finite_transfers_complete_under_loss_for_every_variant() {
    for v in [
        "original",
        "newreno",
        "newreno-star",
        "newreno-2star",
        "rfc4960",
        "rfc9260",
        "ns2",
    ] {
        let text = scenario(
            &format!("variant = \"{v}\"\nbytes = \"300KB\"\nstreams = 3"),
            "[links.loss]\nrate = 0.03\ndata_only = true",
            None,
        );
        let a = run(&text, 3);
        assert_eq!(a, run(&text, 3), "{v}: same seed, different summary");
        let f = &a["flows"]["s"];
        assert_eq!(f["delivered_bytes"], 300_000, "{v}: {f}");
        assert!(f["retransmissions"].as_u64().unwrap() > 0, "{v}");
        assert_eq!(f["aborted"], false, "{v}");
        assert!(f["completion_time_s"].as_f64().is_some(), "{v}");
        let per_stream: u64 = f["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["delivered_bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(per_stream, 300_000, "{v}");
    }
}

#[test]
fn delayed_sacks_halve_the_sacks_without_loss() {
    // Every second packet is SACKed (RFC 9260 6.2), plus the first one (ns-2): 100
    // one-chunk packets give 51 SACKs; without delay, 100.
    let flow = |delayed: bool| {
        format!("variant = \"rfc4960\"\nbytes = \"144800B\"\ndelayed_sack = {delayed}")
    };
    let with = run(&scenario(&flow(true), "", None), 1);
    let without = run(&scenario(&flow(false), "", None), 1);
    assert_eq!(with["flows"]["s"]["data_packets_sent"], 100);
    assert_eq!(without["flows"]["s"]["ack_packets"], 100);
    assert_eq!(with["flows"]["s"]["ack_packets"], 51);
}

#[test]
fn a_dead_path_ends_in_abort_after_the_retransmission_limit() {
    // Every DATA packet is lost: T3 fires, RTO doubles (1, 2, 4, ... 60 s), and after
    // Association.Max.Retrans = 2 expiries in a row the client aborts.
    let text = scenario(
        "variant = \"rfc4960\"\nbytes = \"10KB\"\nassociation_max_retrans = 2",
        "[links.loss]\nrate = 1.0\ndata_only = true",
        Some("100s"),
    );
    let f = &run(&text, 1)["flows"]["s"];
    assert_eq!(f["aborted"], true, "{f}");
    assert_eq!(f["timeouts"], 3);
    assert_eq!(f["delivered_bytes"], 0);
}

#[test]
fn large_messages_are_fragmented_and_small_ones_bundled() {
    // 4000-byte messages in 1452-byte chunks: 3 chunks each (1452, 1452, 1096).
    let big = run(
        &scenario(
            "variant = \"rfc4960\"\nbytes = \"40KB\"\nmessage_size = \"4000B\"",
            "",
            None,
        ),
        1,
    );
    assert_eq!(big["flows"]["s"]["data_chunks_sent"], 30);
    assert_eq!(big["flows"]["s"]["streams"][0]["delivered_messages"], 10);
    // 700-byte messages: two 716-byte chunks fit one 1500-byte packet (seed 004).
    let small = run(
        &scenario(
            "variant = \"rfc4960\"\nbytes = \"70KB\"\nmessage_size = \"700B\"",
            "",
            None,
        ),
        1,
    );
    assert_eq!(small["flows"]["s"]["data_chunks_sent"], 100);
    assert_eq!(small["flows"]["s"]["data_packets_sent"], 50);
}
