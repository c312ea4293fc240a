//! TCP ack processing: one TCP-SACK flow over one 100 Mb/s link with 1 % random loss of
//! data, so that most of the run is the sender handling acks (new acks, duplicate acks
//! with SACK blocks, the scoreboard, recovery) and the receiver generating them. The
//! path has one hop so that the endpoints, not the links, dominate; throughput is in
//! acks handled per second (end to end: the run's other work is included).
//!
//! Run with: `cargo bench -p sctplab-bench --bench tcp_ack`.

use criterion::Criterion;

const SCENARIO: &str = r#"
name = "bench-tcp-ack"
duration = "200s"

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
rate = 0.01
data_only = true

[[flows]]
name = "tcp"
type = "tcp"
variant = "sack"
from = "a"
to = "b"
segment_size = "1448B"
window = 300
delayed_ack = false
"#;

fn main() {
    let mut c = Criterion::default().configure_from_args();
    sctplab_bench::bench_acks(&mut c, "tcp_sack_ack", SCENARIO, "tcp");
    c.final_summary();
}
