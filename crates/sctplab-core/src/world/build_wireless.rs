//! Builds the wireless part of the world from `[wireless]`: the mobility model, one NIC
//! (MAC, routing agent, ARP table) per `wlan` interface, the channel's grid.

use super::wireless::{MacTimerSlot, Nic, Wireless, static_wireless_routes};
use super::{Iface, Node, Shortcuts, iface_addr};
use crate::error::Error;
use crate::net::{IfaceId, LinkDirId, NodeId};
use crate::scenario::schema::{AodvSchema, MobilityModel, PhySchema, WirelessCfg, WirelessRouting};
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::{RngStream, SimDuration, SimTime, TimerSlot};
use crate::wireless::aodv::{Aodv, AodvCfg};
use crate::wireless::arp::{ArpCfg, ArpTable};
use crate::wireless::dsdv::Dsdv;
use crate::wireless::dsr::Dsr;
use crate::wireless::frame::MacAddr;
use crate::wireless::grid::Grid;
use crate::wireless::mac::{Mac, MacCfg};
use crate::wireless::mobility::{Area, Mobility, WaypointCfg};
use crate::wireless::ns2_size::Ns2Sizes;
use crate::wireless::propagation::PhyCfg;
use crate::wireless::routing::RoutingAgent;

fn mac_cfg(w: &WirelessCfg) -> MacCfg {
    let m = &w.mac;
    MacCfg {
        slot: m.slot.0,
        sifs: m.sifs.0,
        cw_min: m.cw_min,
        cw_max: m.cw_max,
        rts_threshold: u32::try_from(m.rts_threshold.0).unwrap_or(u32::MAX),
        short_retry_limit: m.short_retry_limit,
        long_retry_limit: m.long_retry_limit,
        preamble_bits: m.preamble_bits,
        plcp_header_bits: m.plcp_header_bits,
        plcp_rate_bps: m.plcp_rate.0,
        data_rate_bps: m.data_rate.0,
        basic_rate_bps: m.basic_rate.0,
        cp_thresh: w.phy.capture_ratio,
        ifq_limit: w.queue,
        prefer_routing: w.prefer_routing,
        ..MacCfg::ns2()
    }
}

fn aodv_cfg(a: &AodvSchema) -> AodvCfg {
    AodvCfg {
        active_route_timeout: a.active_route_timeout.0,
        my_route_timeout_s: (a.my_route_timeout.0.as_nanos() / 1_000_000_000) as u32,
        rev_route_life: a.rev_route_life.0,
        bcast_id_save: a.bcast_id_save.0,
        rreq_retries: a.rreq_retries,
        max_rreq_timeout: a.max_rreq_timeout.0,
        ttl_start: a.ttl_start,
        ttl_increment: a.ttl_increment,
        ttl_threshold: a.ttl_threshold,
        node_traversal_time: a.node_traversal_time.0,
        network_diameter: a.network_diameter,
        broadcast_jitter: a.broadcast_jitter.0,
        arp_delay: a.arp_delay.0,
        purge_interval: a.purge_interval.0,
        rtq_max_len: a.queue_limit as usize,
        rtq_timeout: a.queue_timeout.0,
        local_repair: a.local_repair,
        fresh_last_hop_count: if a.ring_search_first { 0 } else { 255 },
        local_repair_timer_quirk: a.local_repair_timer_quirk,
        ..AodvCfg::ns2()
    }
}

pub(crate) fn phy_cfg(p: &PhySchema) -> PhyCfg {
    PhyCfg {
        pt_w: p.tx_power_w,
        freq_hz: p.frequency_hz,
        system_loss: p.system_loss,
        antenna_height_m: p.antenna_height.meters(),
        gt: p.tx_gain,
        gr: p.rx_gain,
        rx_thresh_w: p.rx_threshold_w,
        cs_thresh_w: p.cs_threshold_w,
        cp_thresh: p.capture_ratio,
    }
}

/// The mobility model a scenario asks for (validated: the area is positive, positions
/// lie inside it, a movement file parsed).
pub(crate) fn build_mobility(s: &Scenario, w: &WirelessCfg, seed: u64) -> Result<Mobility, String> {
    let f = &s.file;
    let area = Area::new(w.width.meters(), w.height.meters()).map_err(|e| e.0)?;
    let mut m = if let Some(legs) = &s.movement {
        Mobility::scripted(area, legs.clone()).map_err(|e| e.0)?
    } else {
        match f.mobility.model {
            MobilityModel::Static => {
                let pos: Vec<(f64, f64)> = f
                    .nodes
                    .iter()
                    .map(|n| {
                        (
                            n.x.map_or(0.0, |x| x.meters()),
                            n.y.map_or(0.0, |y| y.meters()),
                        )
                    })
                    .collect();
                Mobility::fixed(area, &pos).map_err(|e| e.0)?
            }
            MobilityModel::RandomWaypoint => Mobility::random_waypoint(
                area,
                f.nodes.len(),
                WaypointCfg {
                    max_speed: f.mobility.max_speed.map_or(0.0, |v| v.meters_per_sec()),
                    pause: f.mobility.pause.map_or(SimDuration::ZERO, |d| d.0),
                },
                seed,
            )
            .map_err(|e| e.0)?,
        }
    };
    for name in &f.mobility.fixed {
        if let Some(i) = f.nodes.iter().position(|n| &n.name == name) {
            m.pin(i);
        }
    }
    Ok(m)
}

/// An interface queue run by `[wireless] aqm` (wireless/ifq_aqm.rs). The discipline is
/// built as a link direction's (`world/aqm.rs`), for a link of the MAC's data rate, no
/// delay and `queue` packets: what RED's automatic parameters read (ns-2.35's
/// `REDQueue` reads them from a link it has none of in front of a MAC).
fn ifq_with_aqm(
    cfg: &crate::scenario::aqm::AqmCfg,
    w: &WirelessCfg,
    stream: &str,
    seed: u64,
) -> crate::wireless::ifq::Ifq {
    let link = crate::scenario::schema::LinkCfg {
        name: "wireless".into(),
        a: String::new(),
        b: String::new(),
        bandwidth: w.mac.data_rate,
        delay: crate::scenario::units::Duration(SimDuration::ZERO),
        queue: w.queue,
        queue_bytes: None,
        loss: None,
        aqm: None,
        aqm_cfg: None,
    };
    let disc = super::aqm::build(cfg, &link, stream, seed);
    crate::wireless::ifq::Ifq::with_aqm(crate::wireless::ifq_aqm::IfqAqm::new(w.queue, disc))
}

pub(super) fn build_wireless(
    s: &Scenario,
    w: &WirelessCfg,
    seed: u64,
    nodes: &mut [Node],
    ifaces: &mut Vec<Iface>,
    shortcuts: Shortcuts,
) -> Result<Wireless, Error> {
    let f = &s.file;
    let mut mobility =
        build_mobility(s, w, seed).map_err(|m| ScenarioError::new("<scenario>", "mobility", m))?;
    let phy = phy_cfg(&w.phy);
    let mac = mac_cfg(w);
    let aodv = aodv_cfg(&w.aodv);
    let dsdv = w.dsdv.cfg();
    let dsr = w.dsr.cfg();
    let w_routing_is_dsr = w.routing == WirelessRouting::Dsr;
    let mut nics = Vec::new();
    let mut node_nics = vec![Vec::new(); nodes.len()];
    for (i, cfg) in f.nodes.iter().enumerate() {
        for local in 0..cfg.wlan as usize {
            let node = NodeId::from_idx(i);
            let k = nodes[i].ifaces.len();
            let nic = nics.len() as u32;
            let iface = IfaceId::from_idx(ifaces.len());
            let addr = iface_addr(i, k);
            let name = format!("wlan{k}");
            nodes[i].ifaces.push(iface);
            ifaces.push(Iface {
                node,
                out: LinkDirId(u32::MAX),
                nic: Some(nic),
                name: name.clone(),
                addr,
            });
            let stream =
                |what: &str| RngStream::new(seed, &format!("node:{}:{name}:{what}", cfg.name));
            let mut nic_mac = Mac::new(mac.clone(), MacAddr(nic), stream("mac"));
            if let Some(a) = &w.aqm_cfg {
                let s = format!("node:{}:{name}:aqm", cfg.name);
                *nic_mac.ifq_mut() = ifq_with_aqm(a, w, &s, seed);
            }
            nics.push(Nic {
                node,
                iface,
                addr,
                mac: nic_mac,
                routing: match w.routing {
                    WirelessRouting::Aodv => Some(RoutingAgent::Aodv(Aodv::new(
                        aodv.clone(),
                        u32::from_be_bytes(addr),
                        stream("aodv"),
                    ))),
                    WirelessRouting::Dsdv => {
                        let mut d =
                            Dsdv::new(dsdv.clone(), u32::from_be_bytes(addr), stream("dsdv"));
                        if local > 0 {
                            d.set_own_traffic_only();
                        }
                        Some(RoutingAgent::Dsdv(d))
                    }
                    WirelessRouting::Dsr => Some(RoutingAgent::Dsr(Dsr::new(
                        dsr.clone(),
                        u32::from_be_bytes(addr),
                        stream("dsr"),
                    ))),
                    WirelessRouting::Static => None,
                },
                arp: w
                    .arp
                    .then(|| ArpTable::new(ArpCfg::ns2(), MacAddr(nic), u32::from_be_bytes(addr))),
                mac_timer: MacTimerSlot::default(),
                routing_timer: TimerSlot::default(),
                own_traffic_only: local > 0,
                ifq_purged: 0,
                fast: Default::default(),
                digest: Default::default(),
            });
            node_nics[i].push(nic);
        }
    }
    let static_next = (w.routing == WirelessRouting::Static).then(|| {
        let positions: Vec<Option<(f64, f64)>> = (0..nodes.len())
            .map(|i| (!node_nics[i].is_empty()).then(|| mobility.position(i, SimTime::ZERO)))
            .collect();
        static_wireless_routes(&positions, phy.rx_range_m())
    });
    let grid = Grid::new(
        mobility.area(),
        nodes.len(),
        phy.cs_range_m(),
        mobility.max_speed(),
    );
    let plcp_bytes = mac.plcp_bytes();
    let same_node_delivery = w.same_node_delivery;
    let ns2_sizes = w.ns2_packet_sizes.then_some(match w.routing {
        WirelessRouting::Aodv => Ns2Sizes::AODV,
        WirelessRouting::Dsdv => Ns2Sizes::DSDV,
        WirelessRouting::Dsr => Ns2Sizes::DSR,
        WirelessRouting::Static => Ns2Sizes::default(),
    });
    // An agent that overhears (DSR's tap) needs every DATA frame its MAC decodes: the
    // MACs pass them up (`Mac::taps`), and the accelerators give such frames real
    // events and defer only what no tap reads (`Wireless::logs_frame`).
    let overhears = nics
        .iter()
        .any(|n| n.routing.as_ref().is_some_and(RoutingAgent::overhears));
    if overhears {
        for n in &mut nics {
            n.mac.set_tap();
        }
    }
    // DSR comes with ns-2.35's CMUPriQueue (`-ifqType CMUPriQueue`; CONTRACTS.md).
    if w_routing_is_dsr {
        for n in &mut nics {
            n.mac.use_cmu_priqueue();
        }
    }
    let mut w = Wireless::new(
        phy,
        mobility,
        grid,
        w.ll_delay.0,
        nics,
        node_nics,
        static_next,
        shortcuts,
    );
    w.plcp_bytes = plcp_bytes;
    w.same_node_delivery = same_node_delivery;
    w.ns2_sizes = ns2_sizes;
    Ok(w)
}
