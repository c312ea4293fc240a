//! Snoop agents (seed 003; Balakrishnan et al. 1995): a wireless loss is repaired at the
//! base station without the fixed sender noticing, while a loss upstream of the base
//! station still reaches the sender's congestion control.

mod common;

use serde_json::Value;

fn scenario(
    flow: &str,
    wired_drop: Option<u32>,
    wireless_drop: Option<u32>,
    snoop: bool,
) -> String {
    let wired = wired_drop
        .map(|n| format!("[links.loss]\ndrops = [{n}]\n"))
        .unwrap_or_default();
    let wireless = wireless_drop
        .map(|n| format!("[links.loss]\ndrops = [{n}]\n"))
        .unwrap_or_default();
    let agent = if snoop {
        "[[snoop]]\nname = \"agent\"\nnode = \"bs\"\nmobile = \"mh\"\n"
    } else {
        ""
    };
    format!(
        r#"
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
{wired}
[[links]]
name = "wireless"
a = "bs"
b = "mh"
bandwidth = "2Mb"
delay = "10ms"
queue = 100
{wireless}
{agent}
[[flows]]
name = "f"
from = "fh"
to = "mh"
bytes = "200KB"
{flow}
"#
    )
}

const TCP: &str = "type = \"tcp\"\nvariant = \"newreno\"\nwindow = 20";
fn run(text: &str) -> Value {
    common::summary(text, 1)["flows"]["f"].clone()
}

const SCTP: &str =
    "type = \"sctp\"\nvariant = \"rfc4960\"\nmessage_size = \"1000B\"\nmtu = \"1048B\"";

#[test]
fn a_wireless_loss_is_hidden_from_the_sender() {
    for (name, flow) in [("tcp", TCP), ("sctp", SCTP)] {
        let clean = run(&scenario(flow, None, None, true));
        let without = run(&scenario(flow, None, Some(40), false));
        let with = run(&scenario(flow, None, Some(40), true));
        // Without snoop the sender repairs the loss itself and cuts its window.
        assert_eq!(without["fast_retransmissions"], 1, "{name}: {without}");
        // With snoop: no fast retransmit, no timeout, no window cut at the sender ...
        assert_eq!(with["fast_retransmissions"], 0, "{name}: {with}");
        assert_eq!(with["timeouts"], 0, "{name}");
        assert_eq!(
            with["final_ssthresh"], clean["final_ssthresh"],
            "{name}: ssthresh cut"
        );
        assert_eq!(with["snoop_local_retransmissions"], 1, "{name}");
        assert!(
            with["snoop_suppressed_acks"].as_u64().unwrap() >= 1,
            "{name}"
        );
        // ... and the mobile host still gets every byte (in order: delivered counts
        // only in-order data handed to the application).
        assert_eq!(with["delivered_bytes"], 200_000, "{name}");
        let t = |v: &Value| v["completion_time_s"].as_f64().unwrap();
        assert!(
            t(&with) < t(&without),
            "{name}: snoop did not shorten the transfer"
        );
    }
}

#[test]
fn a_loss_upstream_of_the_base_station_still_reaches_the_sender() {
    for (name, flow) in [("tcp", TCP), ("sctp", SCTP)] {
        let clean = run(&scenario(flow, None, None, true));
        let with = run(&scenario(flow, Some(40), None, true));
        assert_eq!(with["fast_retransmissions"], 1, "{name}: {with}");
        // The sender's congestion control reacts: its window is cut.
        let ss = |v: &Value| v["final_ssthresh"].as_f64().unwrap();
        assert!(ss(&with) < ss(&clean), "{name}: no window cut: {with}");
        assert_eq!(with["snoop_local_retransmissions"], 0, "{name}: {with}");
        assert_eq!(with["delivered_bytes"], 200_000, "{name}");
    }
}
