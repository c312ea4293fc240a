//! SCTP SACK processing: one association (the `ns2` preset and RFC 9260 rules) over
//! one 100 Mb/s link, without loss (SACKs with a cumulative TSN only) and with 1 %
//! random loss of data (SACKs with gap blocks: missing reports, fast retransmission).
//! The path has one hop so that the endpoints dominate; throughput is in SACKs handled
//! per second (end to end: the run's other work is included).
//!
//! Run with: `cargo bench -p sctplab-bench --bench sctp_sack`.

use criterion::Criterion;

fn scenario(variant: &str, loss: f64, duration: &str) -> String {
    format!(
        r#"
name = "bench-sctp-sack"
duration = "{duration}"

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "100Mb"
delay = "10ms"
queue = 200

[links.loss]
rate = {loss}
data_only = true

[[flows]]
name = "sctp"
type = "sctp"
variant = "{variant}"
from = "a"
to = "b"
message_size = "1448B"
receive_buffer = "256KiB"
delayed_sack = false
"#
    )
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    // Without loss the window stays open and SACKs come 8 times as often: a shorter run.
    for (variant, loss, duration, name) in [
        ("ns2", 0.0, "20s", "sctp_ns2_sack_no_loss"),
        ("ns2", 0.01, "200s", "sctp_ns2_sack_1pct_loss"),
        ("rfc9260", 0.01, "200s", "sctp_rfc9260_sack_1pct_loss"),
    ] {
        let toml = scenario(variant, loss, duration);
        sctplab_bench::bench_acks(&mut c, name, &toml, "sctp");
    }
    c.final_summary();
}
