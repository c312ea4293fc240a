//! End-to-end checks of the wireless stack (channel, 802.11 MAC, AODV, mobility) against
//! hand calculations from ns-2.35's rules.

mod common;

fn two_nodes(dist_m: u32, routing: &str) -> String {
    format!(
        r#"
duration = "5s"
[wireless]
width = "1000m"
height = "300m"
routing = "{routing}"
[wireless.mac]
data_rate = "2Mb"
basic_rate = "2Mb"
[[nodes]]
name = "a"
wlan = 1
x = "100m"
y = "100m"
[[nodes]]
name = "b"
wlan = 1
x = "{}m"
y = "100m"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "100Kb"
packet_size = "512B"
stop = "1s"
"#,
        100 + dist_m
    )
}

#[test]
fn debug_two_nodes() {
    let s = common::summary(&two_nodes(200, "static"), 1);
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
    let s = common::summary(&two_nodes(200, "aodv"), 1);
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
}
