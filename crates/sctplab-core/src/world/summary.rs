//! summary.json: deterministic (keys sorted, no wall-clock values), keys per CONTRACTS.md.

use super::{FlowKind, Iface, Node, World};
use crate::endpoint::AnyEndpoint;
use crate::endpoint::cbr::{CbrSource, UdpSink};
use crate::sim::SimTime;
use crate::wireless::routing::RoutingProtocol;
use serde_json::{Map, Value, json};

/// Floats are written as-is (ryu, shortest round-trip form), so identical runs give
/// identical text; non-finite values become null.
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Appends `"<node>:<iface>"` for an address of the plan, the dotted address otherwise
/// (free of `World` so the sampler can use it while it borrows the tracer).
pub(crate) fn push_addr_label(out: &mut String, nodes: &[Node], ifaces: &[Iface], a: [u8; 4]) {
    use std::fmt::Write;
    let owner = super::addr_parts(a)
        .and_then(|(n, k)| nodes.get(n)?.ifaces.get(k).copied())
        .map(|i| &ifaces[i.idx()]);
    let _ = match owner {
        Some(iface) => write!(out, "{}:{}", nodes[iface.node.idx()].name, iface.name),
        None => write!(out, "{}.{}.{}.{}", a[0], a[1], a[2], a[3]),
    };
}

impl World {
    /// `"<node>:<iface>"` for an address of the plan; the dotted address otherwise.
    fn addr_label(&self, a: [u8; 4]) -> String {
        let mut s = String::new();
        push_addr_label(&mut s, &self.nodes, &self.ifaces, a);
        s
    }

    pub(crate) fn summary_json(&self, end: SimTime) -> String {
        let window_s = self.window.seconds(end);
        let mut flows = Map::new();
        for (fi, flow) in self.flows.iter().enumerate() {
            flows.insert(flow.name.clone(), self.flow_json(fi, flow, window_s, end));
        }
        let links = self.links_json(window_s);
        let mut summary = json!({
            "scenario": self.scenario,
            "seed": self.seed,
            "sim_time_s": num(end.as_secs_f64()),
            "events": self.queue.events_processed(),
            "flows": flows,
            "links": links,
        });
        if let (Some(nodes), Some(obj)) = (self.wireless_nodes_json(), summary.as_object_mut()) {
            obj.insert("nodes".into(), nodes);
        }
        if let Some(obj) = summary.as_object_mut() {
            self.sat_summary(obj);
        }
        let mut text = serde_json::to_string_pretty(&summary).unwrap_or_default();
        text.push('\n');
        text
    }

    /// One flow's entry: its protocol's keys, then what every flow may add (ECN counts,
    /// where a generated flow came from, its snoop agents' counts).
    fn flow_json(&self, fi: usize, flow: &super::Flow, window_s: f64, end: SimTime) -> Value {
        let sender = &self.endpoints[flow.sender.idx()].ep;
        let receiver = &self.endpoints[flow.receiver.idx()].ep;
        let mut entry = match (flow.kind, sender, receiver) {
            (FlowKind::Cbr, AnyEndpoint::CbrSource(src), AnyEndpoint::UdpSink(sink)) => {
                cbr_summary(src, sink, window_s)
            }
            (FlowKind::Tcp, AnyEndpoint::TcpSender(snd), AnyEndpoint::TcpReceiver(rcv)) => {
                tcp_summary(snd, rcv, window_s)
            }
            (FlowKind::Sctp, AnyEndpoint::Sctp(client), AnyEndpoint::Sctp(server)) => {
                sctp_summary(client, server, window_s, end, &|a| self.addr_label(a))
            }
            (FlowKind::Quic, AnyEndpoint::Quic(client), AnyEndpoint::Quic(server)) => {
                quic_summary(client, server, window_s)
            }
            _ => unreachable!("flow kind and endpoint types are built together"),
        };
        if let Some(obj) = entry.as_object_mut() {
            obj.insert("ce_marks".into(), flow.ce_marks.into());
            // ECN-capable TCP and SCTP flows only, so no other summary changes.
            let reductions = match sender {
                AnyEndpoint::TcpSender(s) => s.ecn_reductions(),
                AnyEndpoint::Sctp(c) => c.ecn_reductions(),
                _ => None,
            };
            if let Some(n) = reductions {
                obj.insert("ecn_reductions".into(), n.into());
            }
        }
        if let (Some((from, to, start)), Some(obj)) = (&flow.generated, entry.as_object_mut()) {
            obj.insert("from".into(), from.clone().into());
            obj.insert("to".into(), to.clone().into());
            obj.insert("start_s".into(), num(*start));
        }
        let id = crate::net::FlowId::from_idx(fi);
        let snooped: Vec<&crate::snoop::SnoopStats> = self
            .snoops
            .iter()
            .filter_map(|s| s.agent.stats.get(&id))
            .collect();
        if let (false, Some(obj)) = (snooped.is_empty(), entry.as_object_mut()) {
            let sum = |f: fn(&crate::snoop::SnoopStats) -> u64| -> u64 {
                snooped.iter().map(|s| f(s)).sum()
            };
            obj.insert(
                "snoop_local_retransmissions".into(),
                sum(|s| s.local_retransmissions).into(),
            );
            obj.insert(
                "snoop_local_timeouts".into(),
                sum(|s| s.local_timeouts).into(),
            );
            obj.insert(
                "snoop_suppressed_acks".into(),
                sum(|s| s.suppressed_acks).into(),
            );
            obj.insert(
                "snoop_cache_peak".into(),
                sum(|s| s.cache_peak as u64).into(),
            );
        }
        entry
    }

    /// Every link direction's counters over the measurement window.
    fn links_json(&self, window_s: f64) -> Map<String, Value> {
        let mut links = Map::new();
        // Satellite links are summed in `satellite_links` instead (`sat_summary`).
        let wired = self.links.len().min(self.sat_links_from as usize);
        for link in &self.links[..wired] {
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
                    "fault_drops": c.fault_drops,
                    "aqm_drops": c.aqm_drops,
                    "ecn_marks": c.ecn_marks,
                    "queue_delay_mean_s": if c.queue_delay_packets > 0 {
                        num(c.queue_delay_ns as f64 / c.queue_delay_packets as f64 / 1e9)
                    } else {
                        Value::Null
                    },
                }),
            );
        }
        links
    }
}

fn secs(d: Option<crate::sim::SimDuration>) -> Value {
    d.map_or(Value::Null, |d| num(d.as_secs_f64()))
}

/// A CBR flow's entry: UDP has no acks or retransmissions, so those keys are 0.
fn cbr_summary(src: &CbrSource, sink: &UdpSink, window_s: f64) -> Value {
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
        "sack_packets": 0,
        "sack_bytes": 0,
        "connect_time_s": null,
        "completion_time_s": null,
        "lost_packets": lost,
        "loss_rate": num(if src.sent_packets > 0 { lost as f64 / src.sent_packets as f64 } else { 0.0 }),
        "mean_delay_s": mean_delay,
        "max_delay_s": num(sink.delay_max_ns as f64 / 1e9),
    })
}

fn tcp_summary(snd: &crate::tcp::TcpSender, rcv: &crate::tcp::TcpReceiver, window_s: f64) -> Value {
    let st = &snd.stats;
    let start = snd.start_time();
    let mut flow = json!({
        "type": "tcp",
        "variant": snd.variant_name(),
        "goodput_bps": num(rate(rcv.delivered_bytes, window_s)),
        "delivered_bytes": rcv.delivered_bytes,
        "data_packets_sent": st.data_packets_sent,
        // A segment is new or a retransmission, never both: one packet per retransmission.
        "retransmitted_packets": st.retransmissions,
        "data_bytes_sent": st.data_bytes_sent,
        "new_bytes_sent": st.new_bytes_sent,
        "retransmissions": st.retransmissions,
        "fast_retransmissions": st.fast_retransmissions,
        "timeout_retransmissions": st.timeout_retransmissions,
        "timeouts": st.timeouts,
        "ack_packets": rcv.ack_packets,
        "ack_bytes": rcv.ack_bytes,
        "sack_packets": rcv.sack_packets,
        "sack_bytes": rcv.sack_bytes,
        "connect_time_s": secs(st.connect_time),
        "completion_time_s": secs(rcv.completed_at.map(|t| t.saturating_since(start))),
        "final_cwnd": num(snd.cwnd()),
        "final_ssthresh": num(snd.ssthresh()),
    });
    // With `stream_traffic` only: the entry is unchanged without it.
    if let (Some(m), Some(log), Some(obj)) = (&snd.messages, &rcv.msg_log, flow.as_object_mut()) {
        let n = m.sources_len();
        let streams = crate::tcp::messages::streams_summary(m, log, n);
        obj.insert("streams".into(), streams);
    }
    flow
}

fn sctp_summary(
    client: &crate::sctp::Association,
    server: &crate::sctp::Association,
    window_s: f64,
    end: SimTime,
    label: &dyn Fn([u8; 4]) -> String,
) -> Value {
    let mut paths = Map::new();
    for (addr, p) in client.paths() {
        paths.insert(
            label(addr),
            json!({
                "data_packets_sent": p.data_packets_sent,
                "retransmissions": p.retransmissions,
                "heartbeats": p.heartbeats,
                "bytes_acked": p.bytes_acked,
                "srtt_s": p.srtt_s.map_or(Value::Null, num),
                "rto_s": num(p.rto_s),
                "state": p.state.contract_name(),
                "failed_at_s": p.failed_at.map_or(Value::Null, |t| num(t.as_secs_f64())),
            }),
        );
    }
    let default_out = crate::sctp::OutStats::default();
    let o = client.out.as_ref().map_or(&default_out, |o| &o.stats);
    let (delivered, highest_tsn, streams, dropped, a_rwnd) = match &server.inb {
        Some(inb) => {
            let mut inb_streams = Vec::new();
            for s in &inb.streams {
                // Head-of-line intervals still open at the end of the run count up to it.
                inb_streams.push(json!({
                    "delivered_bytes": s.delivered_bytes,
                    "delivered_messages": s.delivered_messages,
                    "hol_blocked_s": num(s.hol_blocked_ns as f64 / 1e9),
                }));
            }
            (
                inb.delivered_bytes,
                inb.highest_tsn,
                inb_streams,
                inb.dropped_no_buffer,
                Some(inb.a_rwnd()),
            )
        }
        None => (0, 0, Vec::new(), 0, None),
    };
    let _ = end;
    let start = client_start(client);
    let mut flow = json!({
        "type": "sctp",
        "goodput_bps": num(rate(delivered, window_s)),
        "delivered_bytes": delivered,
        "data_packets_sent": o.data_packets_sent,
        "retransmitted_packets": o.retransmitted_packets,
        "data_chunks_sent": o.chunks_sent,
        "new_bytes_sent": o.new_bytes_sent,
        "retransmissions": o.retransmissions,
        "fast_retransmissions": o.fast_retransmissions,
        "timeout_retransmissions": o.timeout_retransmissions,
        "timeouts": o.timeouts,
        "fast_recoveries": o.fast_recoveries,
        "ack_packets": server.stats.ack_packets,
        "ack_bytes": server.stats.ack_bytes,
        // Every SCTP acknowledgement is a SACK chunk.
        "sack_packets": server.stats.ack_packets,
        "sack_bytes": server.stats.ack_bytes,
        "connect_time_s": secs(client.stats.connect_time),
        "completion_time_s": secs(server.stats.completed_at.map(|t| t.saturating_since(start))),
        "highest_tsn": highest_tsn,
        "final_cwnd": client.data_path().map_or(Value::Null, |p| num(p.cwnd)),
        "final_ssthresh": client.data_path().map_or(Value::Null, |p| num(p.ssthresh)),
        "final_a_rwnd": a_rwnd,
        "chunks_dropped_no_buffer": dropped,
        "control_packets": client.stats.control_packets + server.stats.control_packets,
        "heartbeats": client.stats.heartbeats + server.stats.heartbeats,
        "bad_vtag_drops": client.stats.bad_vtag_drops + server.stats.bad_vtag_drops,
        "cookie_rejects": server.stats.cookie_rejects,
        "aborted": client.stats.aborted || server.stats.aborted,
        "streams": streams,
        "paths": paths,
        "failovers": client.stats.failovers,
    });
    crate::sctp::streams::stats::add_summary_keys(&mut flow, client, server);
    crate::sctp::reconfig::summary::add_summary_keys(&mut flow, client, server);
    crate::sctp::asconf::summary::add_summary_keys(&mut flow, client, server);
    crate::sctp::send_buffer::add_summary_keys(&mut flow, client.out.as_ref());
    flow
}

/// A QUIC flow from quinn-proto's counters and the adapter's (docs/models/quic.md says
/// how each is derived).
fn quic_summary(
    client: &crate::quic::QuicEndpoint,
    server: &crate::quic::QuicEndpoint,
    window_s: f64,
) -> Value {
    let (delivered, streams) = match server.sink() {
        Some(sink) => (
            sink.delivered_bytes,
            sink.streams
                .iter()
                .map(|s| {
                    json!({
                        "delivered_bytes": s.delivered_bytes,
                        "delivered_messages": s.delivered_messages,
                    })
                })
                .collect::<Vec<_>>(),
        ),
        None => (0, Vec::new()),
    };
    let qs = client.quinn_stats();
    let path = qs.as_ref().map(|s| &s.path);
    let mut flow = json!({
        "type": "quic",
        "congestion_control": client.controller().contract_name(),
        "goodput_bps": num(rate(delivered, window_s)),
        "delivered_bytes": delivered,
        "data_packets_sent": client.stats.data_packets_sent,
        // quinn-proto 0.11 does not count the packets that carry retransmitted stream
        // data, and the adapter cannot see into its encrypted packets.
        "retransmissions": null,
        "lost_packets": path.map_or(0, |p| p.lost_packets),
        "lost_bytes": path.map_or(0, |p| p.lost_bytes),
        "congestion_events": path.map_or(0, |p| p.congestion_events),
        "ack_packets": server.stats.ack_packets,
        "ack_bytes": server.stats.ack_bytes,
        "connect_time_s": secs(client.stats.connect_time),
        "completion_time_s": secs(client.stats.completion_time),
        "final_cwnd": path.map_or(Value::Null, |p| p.cwnd.into()),
        "srtt_s": path.map_or(Value::Null, |p| num(p.rtt.as_secs_f64())),
        "udp_payload_size": path.map_or(Value::Null, |p| p.current_mtu.into()),
        "streams": streams,
    });
    crate::quic::messages::add_summary_keys(&mut flow, client, server);
    flow
}

/// Adds every number of `from` into `into`, key by key (counters of a node's NICs).
fn add_counts(into: &mut Map<String, Value>, from: Value) {
    if let Value::Object(m) = from {
        for (k, v) in m {
            let sum = into.get(&k).and_then(Value::as_u64).unwrap_or(0) + v.as_u64().unwrap_or(0);
            into.insert(k, sum.into());
        }
    }
}

impl World {
    /// summary.json `nodes`: per wireless node, its NICs' MAC and routing counters
    /// (summed over NICs) and what the node forwarded, over the whole run.
    fn wireless_nodes_json(&self) -> Option<Value> {
        let w = self.wireless.as_deref()?;
        let mut nodes = Map::new();
        for (i, nics) in w.node_nics.iter().enumerate() {
            if nics.is_empty() {
                continue;
            }
            let (mut mac, mut aodv, mut arp) = (Map::new(), Map::new(), Map::new());
            let mut purged = 0;
            for &n in nics {
                let nic = &w.nics[n as usize];
                add_counts(
                    &mut mac,
                    serde_json::to_value(nic.mac.counters()).unwrap_or_default(),
                );
                if let Some(a) = &nic.routing {
                    add_counts(&mut aodv, RoutingProtocol::counters_json(a));
                }
                let arp_counts = nic.arp.as_ref().map(|a| a.counters().clone());
                add_counts(
                    &mut arp,
                    serde_json::to_value(arp_counts.unwrap_or_default()).unwrap_or_default(),
                );
                purged += nic.ifq_purged;
            }
            let c = &w.node_counters[i];
            let mut node = json!({
                "mac": mac,
                "routing": aodv,
                "arp": arp,
                "forwarded": c.forwarded,
                "ttl_drops": c.ttl_drops,
                "ifq_purged": purged,
            });
            // Routing transmissions (each hop counted) and their ns-2 bytes, for every
            // protocol (CONTRACTS: "routing_packets and routing_bytes per node").
            if w.nics[nics[0] as usize].routing.is_some() {
                if let Value::Object(m) = &mut node {
                    m.insert("routing_packets".into(), c.routing_packets.into());
                    m.insert("routing_bytes".into(), c.routing_bytes.into());
                }
            }
            if let Value::Object(m) = &mut node {
                ifq_aqm_keys(m, nics.iter().map(|&n| w.nics[n as usize].mac.ifq()));
            }
            nodes.insert(self.nodes[i].name.clone(), node);
        }
        Some(Value::Object(nodes))
    }
}

/// With `[wireless] aqm`, a node's interface queues' discipline counters over the whole
/// run, under the link keys' names: `aqm_drops`, `ecn_marks` and `queue_delay_mean_s`
/// (the mean time the packets the MACs took had waited in the queue). Absent without it.
fn ifq_aqm_keys<'a>(
    m: &mut Map<String, Value>,
    ifqs: impl Iterator<Item = &'a crate::wireless::ifq::Ifq>,
) {
    let mut sum = crate::wireless::ifq_aqm::IfqAqmCounters::default();
    let mut any = false;
    for c in ifqs.filter_map(|q| q.aqm_counters()) {
        any = true;
        sum.aqm_drops += c.aqm_drops;
        sum.ecn_marks += c.ecn_marks;
        sum.taken += c.taken;
        sum.waited_ns += c.waited_ns;
    }
    if !any {
        return;
    }
    // `null` if no packet left the queue, as the link key.
    let delay = if sum.taken > 0 {
        num(sum.waited_ns as f64 / sum.taken as f64 / 1e9)
    } else {
        Value::Null
    };
    m.insert("aqm_drops".into(), sum.aqm_drops.into());
    m.insert("ecn_marks".into(), sum.ecn_marks.into());
    m.insert("queue_delay_mean_s".into(), delay);
}

fn client_start(c: &crate::sctp::Association) -> SimTime {
    c.start_time()
}

fn rate(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
}
