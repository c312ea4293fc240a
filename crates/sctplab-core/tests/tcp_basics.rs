//! TCP basics against hand calculations: handshake timing, finite transfers, partial last
//! segments, determinism under random loss.

mod common;

use common::summary as run;

fn scenario(flow_extra: &str, link_extra: &str, duration: Option<&str>) -> String {
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
bandwidth = "1Mb"
delay = "10ms"
queue = 100
{link_extra}
[[flows]]
name = "t"
type = "tcp"
from = "a"
to = "b"
{flow_extra}
"#
    )
}

const MS: f64 = 1e-3;

#[test]
fn handshake_takes_one_round_trip_of_syn_and_syn_ack() {
    // SYN and SYN-ACK are 20 (IPv4) + 20 (TCP) + 4 (MSS) + 4 (SACK-permitted, padded)
    // = 48 bytes: 0.384 ms each at 1 Mb/s, plus 10 ms each way.
    let s = run(
        &scenario(
            "variant = \"sack\"\nhandshake = true\nbytes = \"1000B\"",
            "",
            None,
        ),
        1,
    );
    let f = &s["flows"]["t"];
    let connect = 2.0 * (10.0 + 0.384) * MS;
    assert!(
        (f["connect_time_s"].as_f64().unwrap() - connect).abs() < 1e-9,
        "{f}"
    );
    // The one 1040-byte segment leaves when the SYN-ACK arrives: 8.32 ms + 10 ms later
    // the receiver has the last byte.
    let done = connect + (8.32 + 10.0) * MS;
    assert!(
        (f["completion_time_s"].as_f64().unwrap() - done).abs() < 1e-9,
        "{f}"
    );
    // Without SACK the SYN carries only MSS: 44 bytes.
    let s = run(
        &scenario(
            "variant = \"newreno\"\nhandshake = true\nbytes = \"1000B\"",
            "",
            None,
        ),
        1,
    );
    let connect = 2.0 * (10.0 + 0.352) * MS;
    assert!((s["flows"]["t"]["connect_time_s"].as_f64().unwrap() - connect).abs() < 1e-9);
}

#[test]
fn without_handshake_connect_time_is_null() {
    let s = run(
        &scenario("variant = \"reno\"\nbytes = \"1000B\"", "", None),
        1,
    );
    assert!(s["flows"]["t"]["connect_time_s"].is_null());
    let c = s["flows"]["t"]["completion_time_s"].as_f64().unwrap();
    assert!((c - 18.32 * MS).abs() < 1e-9, "{c}");
}

#[test]
fn finite_transfer_delivers_every_byte_and_ends_the_run() {
    // 2500 bytes: segments of 1000, 1000 and 500 bytes.
    let s = run(
        &scenario("variant = \"newreno\"\nbytes = \"2500B\"", "", None),
        1,
    );
    let f = &s["flows"]["t"];
    assert_eq!(f["delivered_bytes"], 2500);
    assert_eq!(f["data_packets_sent"], 3);
    assert_eq!(f["new_bytes_sent"], 2500);
    assert_eq!(f["retransmissions"], 0);
    // IW 2: segments 1 and 2 leave at 0 (8.32 ms each); the ack of 1 (40 B, 0.32 ms)
    // is back at 8.32 + 10 + 0.32 + 10 = 28.64 ms and opens cwnd to 3; segment 3
    // (540 B, 4.32 ms) arrives at 28.64 + 4.32 + 10 = 42.96 ms. The run ends when the
    // sender has every ack: the ack of 3 is back at 42.96 + 0.32 + 10 = 53.28 ms.
    assert!(
        (f["completion_time_s"].as_f64().unwrap() - 42.96 * MS).abs() < 1e-9,
        "{f}"
    );
    assert!(
        (s["sim_time_s"].as_f64().unwrap() - 53.28 * MS).abs() < 1e-9,
        "{s}"
    );
}

#[test]
fn random_loss_is_repaired_and_runs_are_deterministic() {
    for v in ["reno", "newreno", "sack", "fack"] {
        let text = scenario(
            &format!("variant = \"{v}\"\nbytes = \"200KB\"\nwindow = 30"),
            "[links.loss]\nrate = 0.02\ndata_only = true",
            None,
        );
        let a = run(&text, 5);
        let b = run(&text, 5);
        assert_eq!(a, b, "{v}: same seed, different summary");
        let f = &a["flows"]["t"];
        assert_eq!(f["delivered_bytes"], 200_000, "{v}: {f}");
        assert!(
            f["retransmissions"].as_u64().unwrap() > 0,
            "{v}: loss but no retransmission"
        );
        assert!(a["links"]["a->b"]["loss_drops"].as_u64().unwrap() > 0);
    }
}
