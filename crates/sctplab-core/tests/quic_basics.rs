//! QUIC (quinn-proto on the simulated clock) against hand calculations: handshake
//! timing, finite transfers, bottleneck use, determinism, bad input.

mod common;

use common::summary as run;

fn scenario(flow_extra: &str, bandwidth: &str, delay: &str, duration: Option<&str>) -> String {
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
bandwidth = "{bandwidth}"
delay = "{delay}"
queue = 100
[[flows]]
name = "q"
type = "quic"
from = "a"
to = "b"
{flow_extra}
"#
    )
}

#[test]
fn smoke() {
    let s = run(&scenario("bytes = \"100KB\"", "1Mb", "10ms", None), 1);
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
}
