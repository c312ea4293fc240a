//! summary.json: deterministic (keys sorted, no wall-clock values), keys per CONTRACTS.md.

use super::{FlowKind, World};
use crate::endpoint::AnyEndpoint;
use crate::sim::SimTime;
use serde_json::{Map, Value, json};

/// Floats are written as-is (ryu, shortest round-trip form), so identical runs give
/// identical text; non-finite values become null.
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

impl World {
    pub(crate) fn summary_json(&self, end: SimTime) -> String {
        let window_s = self.window.seconds(end);
        let mut flows = Map::new();
        for flow in &self.flows {
            let sender = &self.endpoints[flow.sender.idx()].ep;
            let receiver = &self.endpoints[flow.receiver.idx()].ep;
            let entry = match (flow.kind, sender, receiver) {
                (FlowKind::Cbr, AnyEndpoint::CbrSource(src), AnyEndpoint::UdpSink(sink)) => {
                    let lost = src
                        .sent_packets
                        .saturating_sub(sink.received_sent_in_window);
                    let mean_delay = if sink.delivered_packets > 0 {
                        num(sink.delay_sum_ns as f64 / sink.delivered_packets as f64 / 1e9)
                    } else {
                        Value::Null
                    };
                    json!({
                        "type": "cbr",
                        "goodput_bps": num(rate(sink.delivered_bytes, window_s)),
                        "delivered_bytes": sink.delivered_bytes,
                        "delivered_packets": sink.delivered_packets,
                        "data_packets_sent": src.sent_packets,
                        "retransmissions": 0,
                        "fast_retransmissions": 0,
                        "timeout_retransmissions": 0,
                        "timeouts": 0,
                        "ack_packets": 0,
                        "ack_bytes": 0,
                        "connect_time_s": null,
                        "completion_time_s": null,
                        "lost_packets": lost,
                        "loss_rate": num(if src.sent_packets > 0 { lost as f64 / src.sent_packets as f64 } else { 0.0 }),
                        "mean_delay_s": mean_delay,
                        "max_delay_s": num(sink.delay_max_ns as f64 / 1e9),
                    })
                }
                (FlowKind::Tcp, AnyEndpoint::TcpSender(snd), AnyEndpoint::TcpReceiver(rcv)) => {
                    tcp_summary(snd, rcv, window_s)
                }
                _ => unreachable!("flow kind and endpoint types are built together"),
            };
            flows.insert(flow.name.clone(), entry);
        }
        let mut links = Map::new();
        for link in &self.links {
            let c = &link.counters;
            let capacity_bits = link.rate_bps as f64 * window_s;
            let util = if capacity_bits > 0.0 {
                // Busy time clipped to the window actually simulated.
                let busy = (c.busy_ns as f64 / 1e9).min(window_s);
                busy / window_s
            } else {
                0.0
            };
            links.insert(
                link.name.clone(),
                json!({
                    "tx_packets": c.tx_packets,
                    "tx_bytes": c.tx_bytes,
                    "utilization": num(util),
                    "queue_drops": c.queue_drops,
                    "loss_drops": c.loss_drops,
                }),
            );
        }
        let summary = json!({
            "scenario": self.scenario,
            "seed": self.seed,
            "sim_time_s": num(end.as_secs_f64()),
            "events": self.queue.events_processed(),
            "flows": flows,
            "links": links,
        });
        let mut text = serde_json::to_string_pretty(&summary).unwrap_or_default();
        text.push('\n');
        text
    }
}

fn secs(d: Option<crate::sim::SimDuration>) -> Value {
    d.map_or(Value::Null, |d| num(d.as_secs_f64()))
}

fn tcp_summary(snd: &crate::tcp::TcpSender, rcv: &crate::tcp::TcpReceiver, window_s: f64) -> Value {
    let st = &snd.stats;
    let start = snd.start_time();
    json!({
        "type": "tcp",
        "variant": snd.variant_name(),
        "goodput_bps": num(rate(rcv.delivered_bytes, window_s)),
        "delivered_bytes": rcv.delivered_bytes,
        "data_packets_sent": st.data_packets_sent,
        "data_bytes_sent": st.data_bytes_sent,
        "new_bytes_sent": st.new_bytes_sent,
        "retransmissions": st.retransmissions,
        "fast_retransmissions": st.fast_retransmissions,
        "timeout_retransmissions": st.timeout_retransmissions,
        "timeouts": st.timeouts,
        "ack_packets": rcv.ack_packets,
        "ack_bytes": rcv.ack_bytes,
        "connect_time_s": secs(st.connect_time),
        "completion_time_s": secs(rcv.completed_at.map(|t| t.saturating_since(start))),
        "final_cwnd": num(snd.cwnd()),
        "final_ssthresh": num(snd.ssthresh()),
    })
}

fn rate(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
}
