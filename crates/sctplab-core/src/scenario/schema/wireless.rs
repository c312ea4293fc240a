//! `[wireless]` (with `[wireless.phy]`, `[wireless.mac]`, `[wireless.aodv]`; `[wireless.dsdv]`
//! is in scenario/dsdv.rs) and
//! `[mobility]`.

use super::{default_queue, yes};
use crate::scenario::units::{Duration, Length, Rate, Size, Speed};
use serde::Deserialize;

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum WirelessRouting {
    /// AODV (RFC 3561 as ns-2.35's `aodv` agent).
    #[default]
    Aodv,
    /// Fixed shortest-hop routes over the links within receive range at time 0.
    Static,
    /// DSDV as ns-2.35's `dsdv` agent (`[wireless.dsdv]`).
    Dsdv,
    /// DSR as ns-2.35's `DSRAgent` with CMUPriQueue (`[wireless.dsr]`).
    Dsr,
}

/// `[wireless]`: one shared channel; every wireless NIC has these parameters. Defaults
/// are ns-2.35's (shared/ns2-wireless-defaults.md).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct WirelessCfg {
    /// The area nodes live in: x from 0 to `width`, y from 0 to `height`.
    pub width: Length,
    pub height: Length,
    #[serde(default)]
    pub routing: WirelessRouting,
    /// Interface queue (ns-2 `Queue/DropTail/PriQueue`) limit, packets.
    #[serde(default = "default_queue")]
    pub queue: u32,
    /// Routing packets go to the head of the interface queue (`Prefer_Routing_Protocols`).
    #[serde(default = "yes")]
    pub prefer_routing: bool,
    /// Link-layer delay, each way (ns-2 `LL delay_`).
    #[serde(default = "default_ll_delay")]
    pub ll_delay: Duration,
    /// ARP between the link layer and the interface queue, as ns-2.35's `ARPTable`
    /// (false: next hops resolve instantly, no ARP frames).
    #[serde(default = "yes")]
    pub arp: bool,
    /// A frame reaches the other NICs of its sender's node (at the 1-m distance floor).
    /// ns-2.35's channel delivers it to none of them (channel.cc `sendUp`): false.
    #[serde(default)]
    pub same_node_delivery: bool,
    /// The MAC charges each data packet the size ns-2.35's agents and AODV give it
    /// (wireless/ns2_size.rs), for like-for-like comparisons with ns-2.35.
    #[serde(default)]
    pub ns2_packet_sizes: bool,
    #[serde(default)]
    pub phy: PhySchema,
    #[serde(default)]
    pub mac: MacSchema,
    #[serde(default)]
    pub aodv: AodvSchema,
    #[serde(default)]
    pub dsdv: crate::scenario::dsdv::DsdvSchema,
    #[serde(default)]
    pub dsr: crate::scenario::dsr::DsrSchema,
    /// The interface queue's discipline (the PriQueue's drop-tail without it), the link
    /// key's table typed in a second pass (`wireless_aqm::typed`) into `aqm_cfg`.
    #[serde(default)]
    pub aqm: Option<toml::Table>,
    #[serde(skip)]
    pub aqm_cfg: Option<crate::scenario::aqm::AqmCfg>,
}

fn default_ll_delay() -> Duration {
    Duration(crate::sim::SimDuration::from_micros(25))
}

/// `[wireless.phy]`: `Phy/WirelessPhy`, `Antenna/OmniAntenna`, `Propagation/TwoRayGround`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct PhySchema {
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub system_loss: f64,
    pub antenna_height: Length,
    pub tx_gain: f64,
    pub rx_gain: f64,
    pub rx_threshold_w: f64,
    pub cs_threshold_w: f64,
    pub capture_ratio: f64,
}

impl Default for PhySchema {
    fn default() -> Self {
        PhySchema {
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            system_loss: 1.0,
            antenna_height: Length(1_500_000),
            tx_gain: 1.0,
            rx_gain: 1.0,
            rx_threshold_w: 3.652e-10,
            cs_threshold_w: 1.559e-11,
            capture_ratio: 10.0,
        }
    }
}

/// `[wireless.mac]`: `Mac/802_11`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct MacSchema {
    pub data_rate: Rate,
    pub basic_rate: Rate,
    pub plcp_rate: Rate,
    pub rts_threshold: Size,
    pub slot: Duration,
    pub sifs: Duration,
    pub cw_min: u32,
    pub cw_max: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub preamble_bits: u32,
    pub plcp_header_bits: u32,
}

impl Default for MacSchema {
    fn default() -> Self {
        use crate::sim::SimDuration;
        MacSchema {
            data_rate: Rate(1_000_000),
            basic_rate: Rate(1_000_000),
            plcp_rate: Rate(1_000_000),
            rts_threshold: Size(0),
            slot: Duration(SimDuration::from_micros(20)),
            sifs: Duration(SimDuration::from_micros(10)),
            cw_min: 31,
            cw_max: 1023,
            short_retry_limit: 7,
            long_retry_limit: 4,
            preamble_bits: 144,
            plcp_header_bits: 48,
        }
    }
}

/// `[wireless.aodv]`: the constants of ns-2.35's `aodv` agent (aodv.h, aodv.cc).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct AodvSchema {
    pub active_route_timeout: Duration,
    pub my_route_timeout: Duration,
    pub rev_route_life: Duration,
    pub bcast_id_save: Duration,
    pub rreq_retries: u8,
    pub max_rreq_timeout: Duration,
    pub ttl_start: u8,
    pub ttl_increment: u8,
    pub ttl_threshold: u8,
    pub node_traversal_time: Duration,
    pub network_diameter: u8,
    pub broadcast_jitter: Duration,
    pub arp_delay: Duration,
    pub purge_interval: Duration,
    pub queue_limit: u32,
    pub queue_timeout: Duration,
    pub local_repair: bool,
    /// RFC 3561's expanding ring for a first discovery; ns-2.35 goes network-wide.
    pub ring_search_first: bool,
    pub local_repair_timer_quirk: bool,
}

impl Default for AodvSchema {
    fn default() -> Self {
        use crate::sim::SimDuration;
        let ms = |v| Duration(SimDuration::from_millis(v));
        AodvSchema {
            active_route_timeout: ms(10_000),
            my_route_timeout: ms(10_000),
            rev_route_life: ms(6_000),
            bcast_id_save: ms(6_000),
            rreq_retries: 3,
            max_rreq_timeout: ms(10_000),
            ttl_start: 5,
            ttl_increment: 2,
            ttl_threshold: 7,
            node_traversal_time: ms(30),
            network_diameter: 30,
            broadcast_jitter: ms(10),
            arp_delay: ms(10),
            purge_interval: ms(500),
            queue_limit: 64,
            queue_timeout: ms(30_000),
            local_repair: true,
            ring_search_first: false,
            local_repair_timer_quirk: true,
        }
    }
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    /// Nodes stay where `[[nodes]]` `x`/`y` put them.
    #[default]
    Static,
    /// ns-2 `setdest -v 1`: uniform start positions and destinations, each leg at
    /// `max_speed` x U(0,1), `pause` at each destination.
    RandomWaypoint,
}

/// `[mobility]`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct MobilityCfg {
    #[serde(default)]
    pub model: MobilityModel,
    #[serde(default)]
    pub max_speed: Option<Speed>,
    #[serde(default)]
    pub pause: Option<Duration>,
    /// An ns-2 setdest movement file to replay instead of `model`.
    #[serde(default)]
    pub file: Option<String>,
    /// Nodes held at their start positions while the others move.
    #[serde(default)]
    pub fixed: Vec<String>,
}
