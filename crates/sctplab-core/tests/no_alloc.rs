//! The run loop must not touch the heap per packet once in steady state: an allocation per
//! packet would cost more than the rest of the packet's handling and would make long runs
//! slower per event than short ones.
//!
//! The test counts allocations made during `run_scenario` for a short and a long run of
//! the same scenario. Building the world, the summary and any one-off growth of buffers
//! cost the same in both, so the difference is what the extra packets cost.

use sctplab_core::{RunOptions, load_toml, run_scenario};
#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{counted, take_turn};

/// What one run cost: allocations during `run_scenario`, packets sent and events.
struct Cost {
    allocs: u64,
    packets: u64,
    events: u64,
}

fn run_counting(toml: &str, duration_s: u32) -> Cost {
    let toml = toml.replace("DURATION", &format!("{duration_s}s"));
    let s = load_toml(&toml, "<test>", "no-alloc", &[]).expect("valid scenario");
    let opts = RunOptions::default();
    let (r, allocs) = counted(|| run_scenario(&s, &opts));
    let r = r.expect("run");
    let summary: serde_json::Value = serde_json::from_str(&r.summary_json).expect("json");
    let packets = summary["flows"]
        .as_object()
        .expect("flows")
        .values()
        .map(|f| f["data_packets_sent"].as_u64().expect("packet count"))
        .sum();
    Cost {
        allocs,
        packets,
        events: r.events,
    }
}

/// Runs `toml` for 10 s and 40 s and checks the extra packets allocated (almost) nothing.
fn assert_flat(label: &str, toml: &str) {
    let _turn = take_turn();
    let short = run_counting(toml, 10);
    let long = run_counting(toml, 40);
    let extra_packets = long.packets - short.packets;
    let extra_allocs = long.allocs.saturating_sub(short.allocs);
    eprintln!(
        "{label}: 10 s: {} allocs, {} packets, {} events; 40 s: {} allocs, {} packets, \
         {} events; extra: {extra_allocs} allocs for {extra_packets} packets",
        short.allocs, short.packets, short.events, long.allocs, long.packets, long.events
    );
    // Building the world allocates, so a zero here would mean the counter is not wired up
    // and the comparison below proves nothing.
    assert!(
        short.allocs > 0,
        "{label}: the allocation counter saw nothing"
    );
    assert!(
        extra_packets >= 10_000,
        "{label}: the long run must send many more packets ({extra_packets})"
    );
    // Zero is the expectation; the slack only absorbs one-off growth whose timing differs
    // between the runs (a buffer reaching its high-water mark later), never a per-packet
    // cost, which would show up as tens of thousands.
    assert!(
        extra_allocs * 100 < extra_packets,
        "{label}: {extra_allocs} more allocations for {extra_packets} more packets"
    );
}

/// The benchmark's path: three 10 Mb/s hops, no queueing, no loss.
const CLEAN: &str = r#"
duration = "DURATION"
[[nodes]]
name = "h1"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "h2"
[[links]]
name = "access"
a = "h1"
b = "r1"
bandwidth = "10Mb"
delay = "2ms"
[[links]]
name = "core"
a = "r1"
b = "r2"
bandwidth = "10Mb"
delay = "10ms"
[[links]]
name = "tail"
a = "r2"
b = "h2"
bandwidth = "10Mb"
delay = "2ms"
[[flows]]
name = "cbr"
type = "cbr"
from = "h1"
to = "h2"
rate = "8Mb"
packet_size = "1000B"
"#;

/// The paths the clean run never takes: a full drop-tail queue at an overloaded
/// bottleneck, random loss, two flows, and a measurement window.
const LOSSY: &str = r#"
duration = "DURATION"
[measure]
start = "1s"
[[nodes]]
name = "h1"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "h2"
[[links]]
name = "access"
a = "h1"
b = "r1"
bandwidth = "10Mb"
delay = "2ms"
[[links]]
name = "bottleneck"
a = "r1"
b = "r2"
bandwidth = "2Mb"
delay = "50ms"
queue = 20
[[links]]
name = "tail"
a = "r2"
b = "h2"
bandwidth = "10Mb"
delay = "2ms"
[links.loss]
rate = 0.01
[[flows]]
name = "video"
type = "cbr"
from = "h1"
to = "h2"
rate = "3Mb"
packet_size = "1000B"
[[flows]]
name = "voice"
type = "cbr"
from = "h1"
to = "h2"
rate = "64Kb"
packet_size = "160B"
"#;

#[test]
fn no_allocation_per_packet_on_a_clean_path() {
    assert_flat("clean", CLEAN);
}

#[test]
fn no_allocation_per_packet_with_queue_drops_and_loss() {
    assert_flat("lossy", LOSSY);
}
