//! The SCTP receiver at the edges of its buffer (issue 12): messages larger than the
//! receive buffer (RFC 9260 6.9 partial delivery) and buffers too small for one chunk.

use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;

fn example(sets: &[(&str, &str)]) -> Result<Value, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/example-sctp.toml"
    );
    let text = std::fs::read_to_string(path).expect("example scenario");
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let s = load_toml(&text, "example-sctp", "t", &sets).map_err(|e| e.to_string())?;
    let r = run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            ..RunOptions::default()
        },
    )
    .expect("run");
    Ok(serde_json::from_str(&r.summary_json).expect("json"))
}

#[test]
fn messages_larger_than_the_receive_buffer_complete() {
    // 1 MB in 65536-byte messages over a 64 KiB (65536 B) buffer: one message needs 46
    // chunks (45 x 1452 B + 196 B of data), 66272 B with headers, more than the buffer.
    // Before partial delivery the receiver held the first 44 fragments and dropped the
    // rest for ever (the run never ended: heartbeats kept the association alive). With
    // RFC 9260 6.9's partial delivery every message gets through: 15 whole messages
    // (983040 B) and a last one of 1000000 - 983040 = 16960 B, 16 messages in all, the
    // whole megabyte delivered and the association shut down normally.
    let v = example(&[("flows.sctp1.message_size", "\"65536B\"")]).expect("valid");
    let f = &v["flows"]["sctp1"];
    assert_eq!(f["aborted"], false);
    assert_eq!(f["delivered_bytes"], 1_000_000);
    let msgs: u64 = f["streams"]
        .as_array()
        .expect("streams")
        .iter()
        .map(|s| s["delivered_messages"].as_u64().expect("count"))
        .sum();
    assert_eq!(msgs, 16);
    assert!(f["completion_time_s"].as_f64().is_some(), "{f}");
    assert!(v["sim_time_s"].as_f64().expect("time") < 3600.0);
}

#[test]
fn a_buffer_smaller_than_one_chunk_is_refused() {
    // mtu 1500: a packet holds 1500 - 32 = 1468 B of chunks, so a chunk carries at most
    // 1452 B of data (16-byte header, whole words): the largest chunk of 1448-byte
    // messages is 1464 B. A 1400-byte buffer could never take it.
    let e = example(&[("flows.sctp1.receive_buffer", "\"1400B\"")]).expect_err("refused");
    assert!(e.contains("flows.sctp1.receive_buffer"), "{e}");
    assert!(e.contains("1464B"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
    // 1464 B is enough.
    assert!(
        example(&[
            ("flows.sctp1.receive_buffer", "\"1464B\""),
            ("duration", "\"5s\"")
        ])
        .is_ok()
    );
}
