//! Builds the world's arenas from a validated scenario.

use super::Shortcuts;
use super::build_wireless::build_wireless;
use super::tracer::Tracer;
use super::{Ect, EndpointSlot, Event, Fault, Flow, FlowKind, Iface, Node, World, iface_addr};
use crate::endpoint::cbr::{CbrSource, UdpSink};
use crate::endpoint::{AnyEndpoint, Endpoint};
use crate::error::Error;
use crate::metrics::Window;
use crate::net::link::LinkDir;
use crate::net::loss::{DropList, GilbertElliott, LossModel};
use crate::net::queue::DropTail;
use crate::net::routing::StaticRoutes;
use crate::net::wire::IpProtocol;
use crate::net::{EndpointId, FlowId, IfaceId, LinkDirId, NodeId, PacketPool};
use crate::scenario::schema::{
    FaultAction, LinkCfg, LossCfg, LossDirection, LossPosition, SctpCfg, TcpCfg,
};
use crate::scenario::{FlowSpec, Scenario};
use crate::sctp::{AssocCfg, Association, Role};
use crate::sim::{EventQueue, RngStream, SimDuration, SimTime, TimerSlot};
use crate::snoop::{SnoopAgent, SnoopCfg};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::trace::TraceConfig;
use std::collections::HashMap;
use std::sync::Arc;

/// Default sampling interval for `--series`.
pub const DEFAULT_SERIES_INTERVAL: SimDuration = SimDuration::from_millis(10);

/// Ports of flow `i`: (sender, receiver). The first 2000 flows use 50000-51999 and
/// 52000-53999, a range with no protocol dissector registered in Wireshark, so pcap
/// payloads are shown as data rather than misread as some well-known protocol.
fn flow_ports(i: usize) -> (u16, u16) {
    if i < 2000 {
        (50_000 + i as u16, 52_000 + i as u16)
    } else {
        let k = (i - 2000) as u32 * 2 % 40_000;
        (10_000 + k as u16, 10_001 + k as u16)
    }
}

fn loss_model(
    cfg: &LossCfg,
    link: &str,
    dir: &str,
    seed: u64,
    flow_ids: &HashMap<&str, FlowId>,
    only_flow: Option<FlowId>,
) -> LossModel {
    let stream = |model: &str| RngStream::new(seed, &format!("link:{link}:{dir}:loss:{model}"));
    LossModel {
        at_entry: cfg.position == LossPosition::Entry,
        data_only: cfg.data_only,
        bernoulli: cfg.rate.map(|p| (p, stream("bernoulli"))),
        ber: cfg.ber.map(|b| (b, stream("ber"))),
        gilbert: cfg.gilbert.as_ref().map(|g| {
            GilbertElliott::new(
                g.p_good_bad,
                g.p_bad_good,
                g.loss_good,
                g.loss_bad,
                stream("gilbert"),
            )
        }),
        drops: cfg.drops.as_ref().and_then(|nums| {
            let flow = match &cfg.flow {
                Some(name) => flow_ids.get(name.as_str()).copied(),
                None => only_flow,
            }?;
            Some(DropList::new(flow, nums.clone()))
        }),
    }
}

/// The wired part of the topology: nodes, their interfaces, both directions of every
/// link, and each node's neighbours (for the static routes).
struct Topology {
    nodes: Vec<Node>,
    ifaces: Vec<Iface>,
    links: Vec<LinkDir>,
    adjacency: Vec<Vec<(IfaceId, NodeId)>>,
}

/// Names the build resolves once: nodes, flows (configured ones, then those generated
/// from `[[cbr_pairs]]`), and the flow a link's drop list means when it names none.
struct Names<'a> {
    nodes: HashMap<&'a str, NodeId>,
    flows: HashMap<&'a str, FlowId>,
    only_flow: Option<FlowId>,
}

impl World {
    pub(crate) fn build(
        s: &Scenario,
        seed: u64,
        trace: &TraceConfig,
        shortcuts: Shortcuts,
    ) -> Result<World, Error> {
        let f = &s.file;
        let generated: Vec<FlowSpec> = s
            .generated_flows(seed)
            .into_iter()
            .map(FlowSpec::Cbr)
            .collect();
        let all_flows: Vec<&FlowSpec> = s.flows.iter().chain(&generated).collect();
        let names = Names {
            nodes: f
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.as_str(), NodeId::from_idx(i)))
                .collect(),
            flows: all_flows
                .iter()
                .enumerate()
                .map(|(i, fl)| (fl.name(), FlowId::from_idx(i)))
                .collect(),
            only_flow: (s.flows.len() == 1).then_some(FlowId(0)),
        };
        let Topology {
            mut nodes,
            mut ifaces,
            mut links,
            mut adjacency,
        } = wired_topology(s, seed, &names);
        let mut wireless = match &f.wireless {
            Some(w) => Some(Box::new(build_wireless(
                s,
                w,
                seed,
                &mut nodes,
                &mut ifaces,
                shortcuts,
            )?)),
            None => None,
        };
        let sat =
            super::sat_build::build_sat(s, &mut nodes, &mut ifaces, &mut links, &mut adjacency)
                .map_err(|m| crate::ScenarioError::new("<scenario>", "constellations", m))?;
        let routes = StaticRoutes::new(adjacency, ifaces.len());

        let (w_start, w_end) = s.window();
        let window = Window {
            start: w_start,
            end: w_end.unwrap_or(SimTime::MAX),
        };
        let (flows, endpoints) = build_flows(
            s, &all_flows, &names, &mut nodes, &ifaces, window, trace, seed,
        )?;
        let snoops = build_snoops(s, &names, &mut nodes);
        let faults = build_faults(s, &names, &nodes, &ifaces, &flows);

        let tracer = Tracer::open(trace, &nodes, &ifaces)?;
        let unfinished = flows.len();
        let stop_at = s.duration().map(|d| SimTime::ZERO + d);
        if let Some(w) = wireless.as_deref_mut() {
            // The run ends early once every flow has finished, unless one never does.
            let may_end_early = !flows.is_empty()
                && flows
                    .iter()
                    .all(|f| !endpoints[f.sender.idx()].ep.endless());
            w.set_run_end(stop_at, may_end_early);
            w.set_traces(tracer.pcap_on(), tracer.ns2_on());
        }
        Ok(World {
            scenario: s.name.clone(),
            seed,
            nodes,
            ifaces,
            links,
            routes,
            flows,
            endpoints,
            snoops,
            faults,
            pool: PacketPool::default(),
            queue: {
                let mut q = EventQueue::with_capacity(4096);
                // The pop history serves the wireless MACs' virtual events only.
                q.keep_history(wireless.is_some());
                q
            },
            window,
            stop_at,
            series_interval: f.series.interval.map_or(DEFAULT_SERIES_INTERVAL, |d| d.0),
            tracer,
            unfinished,
            wireless,
            sat_links_from: sat.as_ref().map_or(u32::MAX, |w| w.links_from),
            sat,
        })
    }
}

/// Nodes and wired links. Interfaces are numbered a-side then b-side per link, and link
/// direction k is transmitted by interface k.
fn wired_topology(s: &Scenario, seed: u64, names: &Names) -> Topology {
    let f = &s.file;
    let mut nodes: Vec<Node> = f
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| Node {
            name: n.name.clone(),
            snoop: None,
            addr: iface_addr(i, 0),
            ifaces: Vec::new(),
            ports: Vec::new(),
        })
        .collect();
    let mut ifaces: Vec<Iface> = Vec::new();
    let mut links: Vec<LinkDir> = Vec::new();
    let mut adjacency: Vec<Vec<(IfaceId, NodeId)>> = vec![Vec::new(); nodes.len()];
    for l in &f.links {
        let a = names.nodes[l.a.as_str()];
        let b = names.nodes[l.b.as_str()];
        let ia = IfaceId::from_idx(ifaces.len());
        let ib = IfaceId::from_idx(ifaces.len() + 1);
        for (node, out) in [
            (a, LinkDirId::from_idx(links.len())),
            (b, LinkDirId::from_idx(links.len() + 1)),
        ] {
            let k = nodes[node.idx()].ifaces.len();
            nodes[node.idx()]
                .ifaces
                .push(IfaceId::from_idx(ifaces.len()));
            ifaces.push(Iface {
                node,
                out,
                nic: None,
                name: format!("eth{k}"),
                addr: iface_addr(node.idx(), k),
            });
        }
        adjacency[a.idx()].push((ia, b));
        adjacency[b.idx()].push((ib, a));
        for (from, to, fi, ti, dir) in [
            (a, b, ia, ib, LossDirection::AToB),
            (b, a, ib, ia, LossDirection::BToA),
        ] {
            links.push(link_dir(
                l,
                &nodes,
                from,
                to,
                fi,
                ti,
                dir,
                seed,
                &names.flows,
                names.only_flow,
            ));
        }
    }
    Topology {
        nodes,
        ifaces,
        links,
        adjacency,
    }
}

/// Every flow's two endpoints (sender first), bound to their nodes' ports.
#[allow(clippy::too_many_arguments)]
fn build_flows(
    s: &Scenario,
    all_flows: &[&FlowSpec],
    names: &Names,
    nodes: &mut [Node],
    ifaces: &[Iface],
    window: Window,
    trace: &TraceConfig,
    seed: u64,
) -> Result<(Vec<Flow>, Vec<EndpointSlot>), Error> {
    let key_log = quic_key_log(all_flows, trace)?;
    let mut flows = Vec::new();
    let mut endpoints = Vec::new();
    for (i, &spec) in all_flows.iter().enumerate() {
        let flow = FlowId::from_idx(i);
        let ports = flow_ports(i);
        let (from, to) = spec.endpoints();
        let (src, dst) = (names.nodes[from], names.nodes[to]);
        let ends = FlowEnds {
            ports,
            src,
            dst,
            window,
            trace,
            seed,
        };
        let (mut sender, mut receiver, kind, proto) =
            endpoint_pair(spec, &ends, nodes, ifaces, key_log.clone())?;
        if crate::scenario::reconf::flow_reconfigures(s, spec.name()) {
            for ep in [&mut sender, &mut receiver] {
                if let AnyEndpoint::Sctp(a) = ep {
                    a.enable_reconfig();
                }
            }
        }
        if crate::scenario::asconf::flow_uses_asconf(s, spec.name()) {
            for ep in [&mut sender, &mut receiver] {
                if let AnyEndpoint::Sctp(a) = ep {
                    a.enable_asconf();
                }
            }
        }
        let sid = EndpointId::from_idx(endpoints.len());
        let rid = EndpointId::from_idx(endpoints.len() + 1);
        for (ep, node, peer) in [(sender, src, dst), (receiver, dst, src)] {
            endpoints.push(EndpointSlot {
                ep,
                node,
                peer_addr: nodes[peer.idx()].addr,
                flow,
                timer: TimerSlot::default(),
                send_route: None,
                ecn: match spec {
                    FlowSpec::Tcp(c) if c.ecn => Ect::NewData,
                    FlowSpec::Sctp(c) if c.ecn => Ect::Data,
                    _ => Ect::None,
                },
            });
        }
        // A QUIC server listens on 443 for its own client's port only.
        let (server_port, peer_port) = match spec {
            FlowSpec::Quic(_) => (crate::quic::SERVER_PORT, ports.0),
            _ => (ports.1, 0),
        };
        nodes[src.idx()].ports.push((proto, ports.0, 0, sid));
        nodes[dst.idx()]
            .ports
            .push((proto, server_port, peer_port, rid));
        flows.push(Flow {
            name: spec.name().to_string(),
            generated: match spec {
                FlowSpec::Cbr(c) if i >= s.flows.len() => Some((
                    c.from.clone(),
                    c.to.clone(),
                    c.start.map_or(0.0, |d| d.0.as_secs_f64()),
                )),
                _ => None,
            },
            kind,
            sender: sid,
            receiver: rid,
            in_flight: 0,
            finished: false,
            ce_marks: 0,
        });
    }
    Ok((flows, endpoints))
}

/// What a flow's endpoints are made with besides its own configuration.
struct FlowEnds<'a> {
    ports: (u16, u16),
    src: NodeId,
    dst: NodeId,
    window: Window,
    trace: &'a TraceConfig,
    seed: u64,
}

/// A flow's sender and receiver, its kind and its IP protocol.
fn endpoint_pair(
    spec: &FlowSpec,
    e: &FlowEnds,
    nodes: &[Node],
    ifaces: &[Iface],
    key_log: Option<Arc<dyn rustls::KeyLog>>,
) -> Result<(AnyEndpoint, AnyEndpoint, FlowKind, u8), Error> {
    let (ports, src, dst, window, trace, seed) = (e.ports, e.src, e.dst, e.window, e.trace, e.seed);
    Ok(match spec {
        FlowSpec::Cbr(c) => {
            let start = SimTime::ZERO + c.start.map_or(SimDuration::ZERO, |d| d.0);
            let stop = c.stop.map(|d| SimTime::ZERO + d.0);
            let payload = c.packet_size.map_or(1000, |b| b.0 as u32);
            let jitter = c
                .jitter
                .then(|| RngStream::new(seed, &format!("flow:{}:jitter", c.name)));
            (
                AnyEndpoint::CbrSource(
                    CbrSource::new(ports, payload, c.rate.0, start, stop, window, trace.sends)
                        .with_jitter(jitter),
                ),
                AnyEndpoint::UdpSink(UdpSink::new(window)),
                FlowKind::Cbr,
                IpProtocol::UDP,
            )
        }
        FlowSpec::Sctp(c) => {
            let addrs = |n: NodeId| -> Vec<[u8; 4]> {
                nodes[n.idx()]
                    .ifaces
                    .iter()
                    .map(|i| ifaces[i.idx()].addr)
                    .collect()
            };
            let primary = c
                .primary
                .as_deref()
                .and_then(|p| iface_by_label(nodes, ifaces, p))
                .map_or(nodes[dst.idx()].addr, |i| ifaces[i.idx()].addr);
            let (client, server) = sctp_endpoints(
                c,
                ports,
                window,
                trace,
                seed,
                spec.name(),
                (
                    // `bind`: the interfaces the INIT lists (validated).
                    c.bind.as_ref().map_or_else(
                        || addrs(src),
                        |b| {
                            b.iter()
                                .filter_map(|l| iface_by_label(nodes, ifaces, l))
                                .map(|i| ifaces[i.idx()].addr)
                                .collect()
                        },
                    ),
                    addrs(dst),
                    primary,
                ),
            );
            (
                AnyEndpoint::Sctp(Box::new(client)),
                AnyEndpoint::Sctp(Box::new(server)),
                FlowKind::Sctp,
                IpProtocol::SCTP,
            )
        }
        FlowSpec::Tcp(c) => {
            let (snd, rcv) = tcp_endpoints(c, ports, window, trace);
            (
                AnyEndpoint::TcpSender(Box::new(snd)),
                AnyEndpoint::TcpReceiver(Box::new(rcv)),
                FlowKind::Tcp,
                IpProtocol::TCP,
            )
        }
        FlowSpec::Quic(c) => {
            let (snd, rcv) = quic_endpoints(
                c,
                (ports.0, nodes[src.idx()].addr),
                nodes[dst.idx()].addr,
                window,
                trace,
                seed,
                key_log,
            )
            .map_err(|m| crate::ScenarioError::new("<scenario>", format!("flows.{}", c.name), m))?;
            (
                AnyEndpoint::Quic(Box::new(snd)),
                AnyEndpoint::Quic(Box::new(rcv)),
                FlowKind::Quic,
                IpProtocol::UDP,
            )
        }
    })
}

/// The snoop agents of `[[snoop]]`, each attached to its base-station node.
fn build_snoops(s: &Scenario, names: &Names, nodes: &mut [Node]) -> Vec<super::SnoopSlot> {
    let mut snoops = Vec::new();
    for sn in &s.file.snoop {
        let node = names.nodes[sn.node.as_str()];
        nodes[node.idx()].snoop = Some(snoops.len());
        snoops.push(super::SnoopSlot {
            agent: SnoopAgent::new(SnoopCfg {
                mobile: names.nodes[sn.mobile.as_str()],
                cache_packets: sn.cache_packets as usize,
                dupack_thresh: sn.dupack_thresh,
                timer_min: sn.timer_min.0,
                timer_max: sn.timer_max.0,
                tcp: sn.tcp,
                sctp: sn.sctp,
            }),
            node,
            timer: TimerSlot::default(),
        });
    }
    snoops
}

/// The scripted `[[faults]]` with their instants (references were checked when the
/// scenario loaded).
fn build_faults(
    s: &Scenario,
    names: &Names,
    nodes: &[Node],
    ifaces: &[Iface],
    flows: &[Flow],
) -> Vec<(SimTime, Fault)> {
    let link_dirs: HashMap<&str, usize> = s
        .file
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), 2 * i))
        .collect();
    s.file
        .faults
        .iter()
        .filter_map(|fault| {
            let at = SimTime::ZERO + fault.at.0;
            let fault = match fault.action {
                FaultAction::Down => {
                    Fault::LinkDown(LinkDirId::from_idx(link_dirs[fault.link.as_deref()?]))
                }
                FaultAction::Up => {
                    Fault::LinkUp(LinkDirId::from_idx(link_dirs[fault.link.as_deref()?]))
                }
                _ if crate::scenario::asconf::is_asconf(fault) => {
                    let flow = names.flows[fault.flow.as_deref()?];
                    let iface = iface_by_label(nodes, ifaces, fault.address.as_deref()?)?;
                    let c = crate::scenario::asconf::change(fault, ifaces[iface.idx()].addr)?;
                    Fault::Asconf(flows[flow.idx()].sender, c)
                }
                FaultAction::SetPrimary => {
                    let flow = names.flows[fault.flow.as_deref()?];
                    let iface = iface_by_label(nodes, ifaces, fault.primary.as_deref()?)?;
                    Fault::SetPrimary(flows[flow.idx()].sender, ifaces[iface.idx()].addr)
                }
                FaultAction::AddAddress | FaultAction::DeleteAddress => return None,
                FaultAction::ResetStreams | FaultAction::AddStreams | FaultAction::ResetAssoc => {
                    let flow = names.flows[fault.flow.as_deref()?];
                    Fault::Reconfig(
                        flows[flow.idx()].sender,
                        crate::scenario::reconf::request(fault)?,
                    )
                }
            };
            Some((at, fault))
        })
        .collect()
}

/// The interface a `"<node>:<iface>"` label names (validated when the scenario loads).
pub(crate) fn iface_by_label(nodes: &[Node], ifaces: &[Iface], label: &str) -> Option<IfaceId> {
    let (node, iface) = label.split_once(':')?;
    let n = nodes.iter().find(|n| n.name == node)?;
    n.ifaces
        .iter()
        .copied()
        .find(|i| ifaces[i.idx()].name == iface)
}

/// `addrs`: the client's addresses, the server's, and the primary destination.
fn sctp_endpoints(
    c: &SctpCfg,
    ports: (u16, u16),
    window: Window,
    trace: &TraceConfig,
    seed: u64,
    name: &str,
    addrs: (Vec<[u8; 4]>, Vec<[u8; 4]>, [u8; 4]),
) -> (Association, Association) {
    let (client_addrs, server_addrs, primary_peer) = addrs;
    let cfg = AssocCfg {
        start: SimTime::ZERO + c.start.map_or(SimDuration::ZERO, |d| d.0),
        stop: c.stop.map(|d| SimTime::ZERO + d.0),
        window,
        trace_sends: trace.sends,
        trace_acks: trace.acks,
        ..c.assoc_cfg(ports, client_addrs, primary_peer)
    };
    let mut client = Association::new(
        Role::Client,
        cfg.clone(),
        RngStream::new(seed, &format!("flow:{name}:sctp:client")),
    );
    let mut server = Association::new(
        Role::Server,
        AssocCfg {
            local_addrs: server_addrs,
            ..cfg
        },
        RngStream::new(seed, &format!("flow:{name}:sctp:server")),
    );
    if c.ecn {
        client.set_ecn(true);
        server.set_ecn(true);
    }
    (client, server)
}

fn quic_endpoints(
    c: &crate::scenario::schema::QuicFlowCfg,
    client: (u16, [u8; 4]),
    server_addr: [u8; 4],
    window: Window,
    trace: &TraceConfig,
    seed: u64,
    key_log: Option<Arc<dyn rustls::KeyLog>>,
) -> Result<(crate::quic::QuicEndpoint, crate::quic::QuicEndpoint), String> {
    use crate::scenario::schema::QuicController;
    let controller = match c.congestion_control {
        QuicController::Reno => crate::quic::setup::Controller::NewReno,
        QuicController::Cubic => crate::quic::setup::Controller::Cubic,
        QuicController::Bbr => crate::quic::setup::Controller::Bbr,
    };
    let cfg = crate::quic::QuicCfg {
        name: c.name.clone(),
        seed,
        start: SimTime::ZERO + c.start.map_or(SimDuration::ZERO, |d| d.0),
        stop: c.stop.map(|d| SimTime::ZERO + d.0),
        bytes: c.bytes.map(|b| b.0),
        streams: c.streams,
        message_size: u32::try_from(c.message_size.0).unwrap_or(u32::MAX),
        stream_traffic: crate::scenario::streams::quic_sources(c),
        controller,
        max_udp_payload: c
            .max_udp_payload
            .map(|m| u16::try_from(m.0).unwrap_or(u16::MAX)),
        receive_buffer: c.receive_buffer.map(|b| b.0),
        client: (client.1, client.0),
        server: (server_addr, crate::quic::SERVER_PORT),
        window,
        trace_sends: trace.sends,
        key_log,
    };
    crate::quic::QuicEndpoint::pair(&cfg)
}

/// With `--pcap`, the QUIC flows' TLS secrets go to `keylog.txt` in the run folder so
/// Wireshark decrypts the capture (CONTRACTS.md "QUIC"); none without QUIC flows.
fn quic_key_log(
    flows: &[&FlowSpec],
    trace: &TraceConfig,
) -> Result<Option<Arc<dyn rustls::KeyLog>>, Error> {
    let any_quic = flows.iter().any(|f| matches!(f, FlowSpec::Quic(_)));
    let (true, true, Some(dir)) = (any_quic, trace.pcap, trace.out_dir.as_ref()) else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join("keylog.txt");
    let file = crate::quic::keylog::KeyLogFile::create(&path).map_err(|e| Error::io(&path, e))?;
    Ok(Some(Arc::new(file)))
}

fn tcp_endpoints(
    c: &TcpCfg,
    ports: (u16, u16),
    window: Window,
    trace: &TraceConfig,
) -> (TcpSender, TcpReceiver) {
    let (sender, receiver) = c.endpoint_cfgs(ports, window, trace.sends, trace.acks);
    let handshake = sender.handshake;
    let (mut sender, mut receiver) = (TcpSender::new(sender), TcpReceiver::new(receiver));
    if c.ecn {
        sender.set_ecn(true);
        receiver.set_ecn(true, handshake);
    }
    let sources = crate::scenario::tcp_streams::sources(c);
    if !sources.is_empty() {
        // The send buffer holds `window` segments (tcp/messages.rs).
        let capacity = u64::from(c.window) * c.segment_size.0;
        sender.set_messages(crate::tcp::messages::TcpMessages::new(&sources, capacity));
        receiver.log_messages();
    }
    (sender, receiver)
}

#[allow(clippy::too_many_arguments)]
fn link_dir(
    l: &LinkCfg,
    nodes: &[Node],
    from: NodeId,
    to: NodeId,
    from_iface: IfaceId,
    to_iface: IfaceId,
    dir: LossDirection,
    seed: u64,
    flow_ids: &HashMap<&str, FlowId>,
    only_flow: Option<FlowId>,
) -> LinkDir {
    let dir_name = match dir {
        LossDirection::AToB => "a->b",
        _ => "b->a",
    };
    let loss = match &l.loss {
        Some(cfg) if cfg.direction == dir || cfg.direction == LossDirection::Both => {
            loss_model(cfg, &l.name, dir_name, seed, flow_ids, only_flow)
        }
        _ => LossModel::default(),
    };
    let mut link = LinkDir::new(
        format!("{}->{}", nodes[from.idx()].name, nodes[to.idx()].name),
        (from, to),
        (from_iface, to_iface),
        l.bandwidth.0,
        l.delay.0,
        DropTail::new(l.queue, l.queue_bytes.map(|b| b.0)),
        loss,
    );
    link.aqm = l.aqm_cfg.as_ref().map(|cfg| {
        super::aqm::build_link(cfg, l, &format!("link:{}:{dir_name}:aqm", l.name), seed)
    });
    link
}

// Keeps the Event type's size in check: the heap moves it on every push and pop.
const _: () = assert!(std::mem::size_of::<Event>() <= 16);
