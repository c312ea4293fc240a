//! The scenario file schema. Every table rejects unknown keys. docs/scenario.md documents
//! each key; `tests/scenario_docs.rs` keeps the two in step.

use super::units::{Duration, Length, Rate, Size, Speed};
use serde::Deserialize;

fn default_queue() -> u32 {
    // ns-2's default Queue limit_ (tcl/lib/ns-default.tcl).
    50
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Simulated time to run; optional when every flow is finite.
    #[serde(default)]
    pub duration: Option<Duration>,
    #[serde(default)]
    pub measure: MeasureCfg,
    #[serde(default)]
    pub series: SeriesCfg,
    pub nodes: Vec<NodeCfg>,
    #[serde(default)]
    pub links: Vec<LinkCfg>,
    /// Typed in a second pass, by each entry's `type` (see `FlowSpec`).
    #[serde(default)]
    pub flows: Vec<toml::Table>,
    #[serde(default)]
    pub snoop: Vec<SnoopEntry>,
    /// Scripted events at given times (link failures, a change of SCTP primary).
    #[serde(default)]
    pub faults: Vec<FaultEntry>,
    /// The shared 802.11 channel of every wireless NIC (nodes with `wlan > 0`).
    #[serde(default)]
    pub wireless: Option<WirelessCfg>,
    /// How nodes with wireless NICs move.
    #[serde(default)]
    pub mobility: MobilityCfg,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum WirelessRouting {
    /// AODV (RFC 3561 as ns-2.35's `aodv` agent).
    #[default]
    Aodv,
    /// Fixed shortest-hop routes over the links within receive range at time 0.
    Static,
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

/// What a `[[faults]]` entry does. More kinds (loss-rate and delay changes) fit here.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FaultAction {
    /// The link loses every packet in both directions, queued ones included.
    Down,
    /// The link carries packets again.
    Up,
    /// An SCTP flow's sender makes `primary` its primary destination.
    SetPrimary,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FaultEntry {
    /// Optional, for `--set faults.<name>.at=...`.
    #[serde(default)]
    pub name: Option<String>,
    pub at: Duration,
    pub action: FaultAction,
    /// The link, for `down` and `up`.
    #[serde(default)]
    pub link: Option<String>,
    /// The SCTP flow, for `set_primary`.
    #[serde(default)]
    pub flow: Option<String>,
    /// The new primary, `"<node>:<iface>"` of the receiving end, for `set_primary`.
    #[serde(default)]
    pub primary: Option<String>,
}

/// A snoop agent on a base station (seed 003).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SnoopEntry {
    pub name: String,
    /// The base station the agent runs on.
    pub node: String,
    /// The mobile host behind the base station's wireless link.
    pub mobile: String,
    #[serde(default = "yes")]
    pub tcp: bool,
    #[serde(default = "yes")]
    pub sctp: bool,
    #[serde(default = "default_cache_packets")]
    pub cache_packets: u32,
    #[serde(default = "default_snoop_dupack_thresh")]
    pub dupack_thresh: u32,
    #[serde(default = "default_snoop_timer_min")]
    pub timer_min: Duration,
    #[serde(default = "default_snoop_timer_max")]
    pub timer_max: Duration,
}

fn default_cache_packets() -> u32 {
    1000
}
fn default_snoop_dupack_thresh() -> u32 {
    1
}
fn default_snoop_timer_min() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(10))
}
fn default_snoop_timer_max() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(1))
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct MeasureCfg {
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub end: Option<Duration>,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct SeriesCfg {
    #[serde(default)]
    pub interval: Option<Duration>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct NodeCfg {
    pub name: String,
    /// Number of 802.11 NICs (`wlan<k>`, after the node's link interfaces).
    #[serde(default)]
    pub wlan: u32,
    /// Position, for `[mobility] model = "static"`.
    #[serde(default)]
    pub x: Option<Length>,
    #[serde(default)]
    pub y: Option<Length>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    pub name: String,
    pub a: String,
    pub b: String,
    pub bandwidth: Rate,
    pub delay: Duration,
    #[serde(default = "default_queue")]
    pub queue: u32,
    #[serde(default)]
    pub queue_bytes: Option<Size>,
    #[serde(default)]
    pub loss: Option<LossCfg>,
    /// The queue discipline of both directions (drop-tail without it), typed by its
    /// `kind` in a second pass (`aqm::typed_aqm`) into `aqm_cfg`, as flows are.
    #[serde(default)]
    pub aqm: Option<toml::Table>,
    #[serde(skip)]
    pub aqm_cfg: Option<super::aqm::AqmCfg>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LossDirection {
    #[default]
    #[serde(rename = "a->b")]
    AToB,
    #[serde(rename = "b->a")]
    BToA,
    #[serde(rename = "both")]
    Both,
}

/// Where on a link direction the loss models act.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum LossPosition {
    /// As the packet enters the link, before the queue (ns-2's `lossmodel` and
    /// `errormodule`): a lost packet takes no queue space and no transmission time.
    #[default]
    Entry,
    /// On the wire: the packet is queued and transmitted, and lost on arrival.
    Wire,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct LossCfg {
    #[serde(default)]
    pub direction: LossDirection,
    #[serde(default)]
    pub position: LossPosition,
    #[serde(default)]
    pub data_only: bool,
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub ber: Option<f64>,
    #[serde(default)]
    pub drops: Option<Vec<u32>>,
    #[serde(default)]
    pub flow: Option<String>,
    #[serde(default)]
    pub gilbert: Option<GilbertCfg>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct GilbertCfg {
    pub p_good_bad: f64,
    pub p_bad_good: f64,
    #[serde(default)]
    pub loss_good: f64,
    #[serde(default = "one")]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

/// A UDP constant-bit-rate source and its sink.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CbrCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    pub rate: Rate,
    #[serde(default)]
    pub packet_size: Option<Size>,
    /// Jitter each gap as ns-2.35's `random_ 1` (tools/cbr_traffic.cc `next_interval`):
    /// the interval times a uniform factor in [0.5, 1.5), drawn per packet.
    #[serde(default)]
    pub jitter: bool,
}

/// TCP loss-recovery algorithm (ns-2.35's one-way agents of the same names).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    Reno,
    Newreno,
    Sack,
    Fack,
}

/// The congestion controller of a TCP flow (`congestion_control`; docs/models/cc.md).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// Today's window rules, which `variant` and the window knobs fix.
    #[default]
    Reno,
    /// RFC 9438 with HyStart++ (RFC 9406) unless `hystart = false`.
    Cubic,
    /// BBR v1 (Linux 4.9 `tcp_bbr.c`, ns-3 `TcpBbr`), always paced.
    Bbr,
}

impl From<CongestionControl> for crate::cc::Algorithm {
    fn from(c: CongestionControl) -> Self {
        match c {
            CongestionControl::Reno => crate::cc::Algorithm::Reno,
            CongestionControl::Cubic => crate::cc::Algorithm::Cubic,
            CongestionControl::Bbr => crate::cc::Algorithm::Bbr,
        }
    }
}

/// How the TCP congestion window is counted on a loss.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum WindowUnit {
    /// ns-2: the window in whole segments; cuts halve the window (cwnd, capped by the
    /// receiver window).
    #[default]
    Segments,
    /// RFC 5681: cuts set ssthresh = max(FlightSize / 2, 2 SMSS) (eq. 4), in bytes, and
    /// cwnd = ssthresh after a fast retransmit; there FlightSize leaves out what limited
    /// transmit sent (RFC 5681 sec. 3.2 step 2).
    Bytes,
}

/// A TCP connection: a one-way sender and a receiver (sink). Defaults are ns-2.35's
/// `Agent/TCP` and `Agent/TCPSink` defaults; docs/models/tcp.md gives each knob's source.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    pub variant: TcpVariant,
    /// The window's controller; loss recovery stays `variant`'s (docs/models/cc.md).
    #[serde(default)]
    pub congestion_control: CongestionControl,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start; absent: on with `"cubic"`.
    #[serde(default)]
    pub hystart: Option<bool>,
    /// Pace segments at the controller's rate; absent: on with `"bbr"`, off otherwise.
    #[serde(default)]
    pub pacing: Option<bool>,
    /// ECN-capable: new data segments leave as ECT(0) (RFC 3168).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start: Option<Duration>,
    /// The application stops offering new data (bulk transfers only).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Finite transfer of this many bytes; a bulk (always backlogged) transfer if absent.
    #[serde(default)]
    pub bytes: Option<Size>,
    /// Payload bytes per segment (ns-2 `packetSize_`).
    #[serde(default = "default_segment_size")]
    pub segment_size: Size,
    #[serde(default)]
    pub window_unit: WindowUnit,
    /// Largest window in segments, the receiver's advertised window (ns-2 `window_`).
    #[serde(default = "default_window")]
    pub window: u32,
    /// Initial congestion window in segments (ns-2 `windowInit_`).
    #[serde(default = "default_initial_window")]
    pub initial_window: f64,
    /// Initial ssthresh in segments; defaults to `window` (ns-2 `TcpAgent::reset`).
    #[serde(default)]
    pub initial_ssthresh: Option<f64>,
    #[serde(default = "default_dupack_threshold")]
    pub dupack_threshold: u32,
    /// Send a new segment on each of the first two duplicate acks (RFC 3042;
    /// ns-2 `singledup_`).
    #[serde(default = "yes")]
    pub limited_transmit: bool,
    /// Slow start while cwnd <= ssthresh (RFC 5681 allows it); ns-2 does congestion
    /// avoidance when cwnd == ssthresh.
    #[serde(default)]
    pub slow_start_at_ssthresh: bool,
    /// The ack of the first segment does not open the window (ns-2 `delay_growth_`,
    /// meant for its SYN; with no SYN it applies to the first data segment). With
    /// `handshake` the SYN-ACK is that ack, and data acks grow the window as usual. Not
    /// used by `fack`, as in ns-2.
    #[serde(default)]
    pub delay_growth: bool,
    /// Halve the window without truncating to whole segments (ns-2 `precisionReduce_`).
    #[serde(default = "yes")]
    pub precision_reduce: bool,
    /// NewReno: deflate the window by the amount a partial ack acknowledges
    /// (ns-2 `partial_window_deflation_`, RFC 6582).
    #[serde(default = "yes")]
    pub partial_window_deflation: bool,
    /// NewReno: re-arm the retransmission timer only on the first partial ack
    /// (ns-2 `newreno_changes1_`, RFC 6582's "Impatient" variant).
    #[serde(default = "yes")]
    pub reset_timer_on_first_partial_ack_only: bool,
    /// Maximum segments sent in response to one ack; 0 for no limit (ns-2 `maxburst_`).
    #[serde(default)]
    pub max_burst: u32,
    #[serde(default = "default_rto_min")]
    pub rto_min: Duration,
    #[serde(default = "default_rto_initial")]
    pub rto_initial: Duration,
    #[serde(default = "default_rto_max")]
    pub rto_max: Duration,
    /// RTT samples and RTO are computed in ticks of this length (ns-2 `tcpTick_`).
    #[serde(default = "default_clock_granularity")]
    pub clock_granularity: Duration,
    /// The receiver delays acks: one ack per two segments or after `delayed_ack_timeout`,
    /// at once for out-of-order data (RFC 5681 sec. 4.2).
    #[serde(default)]
    pub delayed_ack: bool,
    /// Longest delay of an ack: 100 ms, ns-2.35's `Agent/TCPSink/DelAck` and
    /// `TCPSink/Sack1/DelAck` `interval_` (RFC 5681 4.2 allows up to 500 ms).
    #[serde(default = "default_tcp_delayed_ack_timeout")]
    pub delayed_ack_timeout: Duration,
    /// SACK blocks per ack (ns-2 `maxSackBlocks_`); used by `sack` and `fack`.
    #[serde(default = "default_max_sack_blocks")]
    pub max_sack_blocks: u32,
    /// Open the connection with SYN, SYN-ACK, ACK (and SACK-permitted) so connect time is
    /// measured; without it data starts at once, like ns-2's one-way agents.
    #[serde(default)]
    pub handshake: bool,
}

fn yes() -> bool {
    true
}
fn default_segment_size() -> Size {
    Size(1000)
}
fn default_window() -> u32 {
    20
}
fn default_initial_window() -> f64 {
    2.0
}
fn default_dupack_threshold() -> u32 {
    3
}
fn default_rto_min() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(200))
}
fn default_rto_initial() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(3))
}
fn default_rto_max() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(60))
}
fn default_clock_granularity() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(10))
}
fn default_delayed_ack_timeout() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(200))
}
fn default_tcp_delayed_ack_timeout() -> Duration {
    Duration(crate::sim::SimDuration::from_millis(100))
}
fn default_max_sack_blocks() -> u32 {
    3
}

/// SCTP congestion-control presets (docs/models/sctp.md).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SctpVariant {
    Original,
    Newreno,
    NewrenoStar,
    #[serde(rename = "newreno-2star")]
    Newreno2Star,
    Rfc4960,
    Rfc9260,
    Ns2,
    Usrsctp,
}

/// How Max.Burst limits a burst.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MaxBurstRule {
    Off,
    /// Implementer's guide v7 (seed 002 sec. 2.1): before sending new data,
    /// cwnd = min(cwnd, outstanding + max_burst * MTU).
    Guide,
    /// RFC 4960 sec. 6.1 / RFC 9260 sec. 6.1: at most `max_burst` packets per send
    /// opportunity.
    Packets,
    /// ns-2.35: at most `max_burst` packets in answer to a SACK that acknowledges a
    /// retransmitted chunk.
    Ns2,
}

/// Which text's cwnd growth rules apply (RFC 4960 / RFC 9260 sec. 7.2.1 and 7.2.2).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GrowthRule {
    /// RFC 4960 with the Implementer's Guide, as ns-2.35 codes it: cwnd grows only on a
    /// SACK that advances the cumulative ack; partial_bytes_acked counts cumulatively
    /// acked chunks while cwnd is full and gap-acked ones only on such a SACK.
    Rfc4960,
    /// RFC 9260 (RFC 8540 sec. 3.22, 3.26): every SACK that newly acknowledges data may
    /// grow cwnd; partial_bytes_acked counts every newly acked chunk and is reset to cwnd
    /// when it exceeds cwnd while the flight was below cwnd.
    Rfc9260,
}

/// Initial cwnd: a number of MTUs (`1`, `2.5`) or a size (`"4380B"`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(untagged)]
pub enum InitialCwnd {
    Mtus(f64),
    Bytes(Size),
}

/// An SCTP association: a client that sends data and a server that receives it.
/// Every knob left out takes the variant's value (docs/models/sctp.md).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SctpCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    /// The receiver's interface new data goes to first, `"<node>:<iface>"`.
    #[serde(default)]
    pub primary: Option<String>,
    pub variant: SctpVariant,
    /// ECN-capable: DATA packets leave as ECT(0) (RFC 9260 appendix A).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub bytes: Option<Size>,
    /// Application message size; larger messages are fragmented into several chunks.
    #[serde(default = "default_message_size")]
    pub message_size: Size,
    #[serde(default = "default_mtu")]
    pub mtu: Size,
    #[serde(default = "one_stream")]
    pub streams: u16,
    #[serde(default)]
    pub unordered: bool,
    /// The receiver's buffer: a_rwnd = receive_buffer - bytes held.
    #[serde(default = "default_receive_buffer")]
    pub receive_buffer: Size,
    #[serde(default)]
    pub initial_ssthresh: Option<Size>,
    #[serde(default = "yes")]
    pub delayed_sack: bool,
    #[serde(default = "default_delayed_ack_timeout")]
    pub sack_delay: Duration,
    /// Absent: the variant's RTO.Initial (`sctp::config::rto_initial_secs`).
    #[serde(default)]
    pub rto_initial: Option<Duration>,
    #[serde(default = "default_sctp_rto_min")]
    pub rto_min: Duration,
    #[serde(default = "default_rto_max")]
    pub rto_max: Duration,
    #[serde(default = "yes")]
    pub heartbeat: bool,
    #[serde(default = "default_heartbeat_interval")]
    pub heartbeat_interval: Duration,
    #[serde(default = "default_cookie_lifetime")]
    pub cookie_lifetime: Duration,
    #[serde(default = "default_association_max_retrans")]
    pub association_max_retrans: u32,
    #[serde(default = "default_path_max_retrans")]
    pub path_max_retrans: u32,
    // Multihoming knobs; absent = the variant's value.
    #[serde(default)]
    pub pf_max_retrans: Option<u32>,
    #[serde(default)]
    pub retransmit_to_alternate: Option<bool>,
    #[serde(default)]
    pub fast_rtx_to_alternate: Option<bool>,
    #[serde(default)]
    pub return_to_primary: Option<bool>,
    // Congestion-control knobs; absent = the variant's value.
    #[serde(default)]
    pub fast_rtx_threshold: Option<u32>,
    #[serde(default)]
    pub fast_recovery: Option<bool>,
    #[serde(default)]
    pub cwnd_growth_in_recovery: Option<bool>,
    #[serde(default)]
    pub modified_htna: Option<bool>,
    #[serde(default)]
    pub slow_start_at_ssthresh: Option<bool>,
    #[serde(default)]
    pub cwnd_whole_mtus: Option<bool>,
    #[serde(default)]
    pub ssthresh_floor_mtus: Option<u32>,
    #[serde(default)]
    pub max_burst: Option<u32>,
    #[serde(default)]
    pub max_burst_rule: Option<MaxBurstRule>,
    #[serde(default)]
    pub initial_cwnd: Option<InitialCwnd>,
    #[serde(default)]
    pub heartbeat_before_data: Option<bool>,
    #[serde(default)]
    pub growth_rule: Option<GrowthRule>,
    #[serde(default)]
    pub fast_recovery_miss_reports: Option<bool>,
    #[serde(default)]
    pub t3_ssthresh_every_expiry: Option<bool>,
    #[serde(default)]
    pub t3_exits_fast_recovery: Option<bool>,
    /// ns-2.35's `Agent/SCTP/MultipleFastRtx`; `fast_rtx_repeat` is its older name.
    #[serde(default, alias = "fast_rtx_repeat")]
    pub multiple_fast_rtx: Option<bool>,
    #[serde(default)]
    pub fast_rtx_ignores_cwnd_in_recovery: Option<bool>,
    #[serde(default)]
    pub idle_cwnd_decay: Option<bool>,
    #[serde(default)]
    pub sack_on_rwnd_drop: Option<bool>,
    /// The window's controller per destination; loss recovery stays `variant`'s
    /// (docs/models/cc.md, SCTP section).
    #[serde(default)]
    pub congestion_control: CongestionControl,
    /// HyStart++ (RFC 9406) in CUBIC's first slow start; absent: on with `"cubic"`.
    #[serde(default)]
    pub hystart: Option<bool>,
    /// Pacing; not built for SCTP: only `false` (the default) is accepted.
    #[serde(default)]
    pub pacing: Option<bool>,
    /// Per-stream sources replacing the bulk application (scenario/streams.rs).
    #[serde(default)]
    pub stream_traffic: Option<Vec<super::streams::StreamTrafficEntry>>,
}

fn default_message_size() -> Size {
    Size(1448)
}
fn default_mtu() -> Size {
    Size(1500)
}
fn one_stream() -> u16 {
    1
}
fn default_receive_buffer() -> Size {
    Size(65_536)
}
fn default_sctp_rto_min() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(1))
}
fn default_heartbeat_interval() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(30))
}
fn default_cookie_lifetime() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(60))
}
fn default_association_max_retrans() -> u32 {
    10
}
fn default_path_max_retrans() -> u32 {
    5
}

/// Background traffic: `count` CBR flows between distinct random (from, to) pairs drawn
/// from `among` with the run seed, each starting at a uniform time in
/// [`start_min`, `start_max`] (seed 004's cbrgen-style load). Expanded per run into CBR
/// flows named `<name>.<i>`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CbrPairsCfg {
    pub name: String,
    pub count: u32,
    pub rate: Rate,
    #[serde(default)]
    pub packet_size: Option<Size>,
    pub among: Vec<String>,
    #[serde(default)]
    pub start_min: Option<Duration>,
    #[serde(default)]
    pub start_max: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Jitter each gap as ns-2.35's `random_ 1` (tools/cbr_traffic.cc `next_interval`):
    /// the interval times a uniform factor in [0.5, 1.5), drawn per packet.
    #[serde(default)]
    pub jitter: bool,
}

/// `congestion_control` of a `quic` flow: one of quinn-proto's controllers.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum QuicController {
    /// quinn-proto's NewReno.
    Reno,
    #[default]
    Cubic,
    /// Accepted by the schema, refused by validation (docs/models/quic.md: quinn-proto
    /// 0.11's BBR seeds itself from the operating system).
    Bbr,
}

/// A QUIC connection (quinn-proto): a client that sends on `streams` unidirectional
/// streams and a server (UDP port 443) that reads them (docs/models/quic.md).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct QuicFlowCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub bytes: Option<Size>,
    #[serde(default = "one_quic_stream")]
    pub streams: u32,
    #[serde(default = "default_message_size")]
    pub message_size: Size,
    #[serde(default)]
    pub congestion_control: QuicController,
    /// A fixed UDP payload size (no path MTU discovery); quinn-proto's 1200 B plus what
    /// its discovery finds if absent.
    #[serde(default)]
    pub max_udp_payload: Option<Size>,
}

fn one_quic_stream() -> u32 {
    1
}

/// A typed flow entry.
#[derive(Debug, Clone)]
pub enum FlowSpec {
    Cbr(CbrCfg),
    Tcp(TcpCfg),
    Sctp(SctpCfg),
    Quic(QuicFlowCfg),
}

/// The flow types a `[[flows]]` entry may name, with a sentence for error messages.
pub const FLOW_TYPES: &[&str] = &["cbr", "tcp", "sctp", "quic", "cbr_pairs"];

impl FlowSpec {
    pub fn name(&self) -> &str {
        match self {
            FlowSpec::Cbr(c) => &c.name,
            FlowSpec::Tcp(c) => &c.name,
            FlowSpec::Sctp(c) => &c.name,
            FlowSpec::Quic(c) => &c.name,
        }
    }
    pub fn endpoints(&self) -> (&str, &str) {
        match self {
            FlowSpec::Cbr(c) => (&c.from, &c.to),
            FlowSpec::Tcp(c) => (&c.from, &c.to),
            FlowSpec::Sctp(c) => (&c.from, &c.to),
            FlowSpec::Quic(c) => (&c.from, &c.to),
        }
    }
    /// Whether the flow ends by itself (so a run without `duration` can finish).
    pub fn is_finite(&self) -> bool {
        match self {
            FlowSpec::Cbr(c) => c.stop.is_some(),
            FlowSpec::Tcp(c) => c.bytes.is_some(),
            FlowSpec::Sctp(c) => c.bytes.is_some(),
            FlowSpec::Quic(c) => c.bytes.is_some() || c.stop.is_some(),
        }
    }
}

// The protocol machines have configuration types of their own (`sctp::config`,
// `tcp::config`, `sctp::AssocCfg`, `tcp::{SenderCfg, ReceiverCfg}`); these mappings are
// the one place a flow entry becomes them, for the simulator's world and the live driver
// alike.

impl From<SctpVariant> for crate::sctp::config::Variant {
    fn from(v: SctpVariant) -> Self {
        use crate::sctp::config::Variant as V;
        match v {
            SctpVariant::Original => V::Original,
            SctpVariant::Newreno => V::Newreno,
            SctpVariant::NewrenoStar => V::NewrenoStar,
            SctpVariant::Newreno2Star => V::Newreno2Star,
            SctpVariant::Rfc4960 => V::Rfc4960,
            SctpVariant::Rfc9260 => V::Rfc9260,
            SctpVariant::Ns2 => V::Ns2,
            SctpVariant::Usrsctp => V::Usrsctp,
        }
    }
}

impl From<MaxBurstRule> for crate::sctp::config::MaxBurstRule {
    fn from(r: MaxBurstRule) -> Self {
        use crate::sctp::config::MaxBurstRule as R;
        match r {
            MaxBurstRule::Off => R::Off,
            MaxBurstRule::Guide => R::Guide,
            MaxBurstRule::Packets => R::Packets,
            MaxBurstRule::Ns2 => R::Ns2,
        }
    }
}

impl From<GrowthRule> for crate::sctp::config::GrowthRule {
    fn from(r: GrowthRule) -> Self {
        use crate::sctp::config::GrowthRule as R;
        match r {
            GrowthRule::Rfc4960 => R::Rfc4960,
            GrowthRule::Rfc9260 => R::Rfc9260,
        }
    }
}

impl From<InitialCwnd> for crate::sctp::config::InitialCwnd {
    fn from(c: InitialCwnd) -> Self {
        use crate::sctp::config::InitialCwnd as C;
        match c {
            InitialCwnd::Mtus(m) => C::Mtus(m),
            InitialCwnd::Bytes(b) => C::Bytes(b.0),
        }
    }
}

impl From<TcpVariant> for crate::tcp::Variant {
    fn from(v: TcpVariant) -> Self {
        use crate::tcp::Variant as V;
        match v {
            TcpVariant::Reno => V::Reno,
            TcpVariant::Newreno => V::Newreno,
            TcpVariant::Sack => V::Sack,
            TcpVariant::Fack => V::Fack,
        }
    }
}

impl SctpCfg {
    /// The variant's knobs with this entry's overrides applied.
    pub fn knobs(&self) -> crate::sctp::Knobs {
        let mut k = crate::sctp::config::preset(self.variant.into());
        let set = |dst: &mut u32, v: Option<u32>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        let flag = |dst: &mut bool, v: Option<bool>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        set(&mut k.fast_rtx_threshold, self.fast_rtx_threshold);
        flag(&mut k.fast_recovery, self.fast_recovery);
        flag(&mut k.cwnd_growth_in_recovery, self.cwnd_growth_in_recovery);
        flag(&mut k.modified_htna, self.modified_htna);
        flag(&mut k.slow_start_at_ssthresh, self.slow_start_at_ssthresh);
        flag(&mut k.cwnd_whole_mtus, self.cwnd_whole_mtus);
        set(&mut k.ssthresh_floor_mtus, self.ssthresh_floor_mtus);
        set(&mut k.max_burst, self.max_burst);
        if let Some(v) = self.max_burst_rule {
            k.max_burst_rule = v.into();
        }
        if let Some(v) = self.initial_cwnd {
            k.initial_cwnd = v.into();
        }
        flag(&mut k.heartbeat_before_data, self.heartbeat_before_data);
        k.path_max_retrans = self.path_max_retrans;
        if self.pf_max_retrans.is_some() {
            k.pf_max_retrans = self.pf_max_retrans;
        }
        flag(&mut k.retransmit_to_alternate, self.retransmit_to_alternate);
        flag(&mut k.fast_rtx_to_alternate, self.fast_rtx_to_alternate);
        flag(&mut k.return_to_primary, self.return_to_primary);
        if let Some(v) = self.growth_rule {
            k.growth_rule = v.into();
        }
        flag(
            &mut k.fast_recovery_miss_reports,
            self.fast_recovery_miss_reports,
        );
        flag(
            &mut k.t3_ssthresh_every_expiry,
            self.t3_ssthresh_every_expiry,
        );
        flag(&mut k.t3_exits_fast_recovery, self.t3_exits_fast_recovery);
        flag(&mut k.multiple_fast_rtx, self.multiple_fast_rtx);
        flag(
            &mut k.fast_rtx_ignores_cwnd_in_recovery,
            self.fast_rtx_ignores_cwnd_in_recovery,
        );
        flag(&mut k.sack_on_rwnd_drop, self.sack_on_rwnd_drop);
        flag(&mut k.idle_cwnd_decay, self.idle_cwnd_decay);
        k.congestion_control = self.congestion_control.into();
        k.hystart = self
            .hystart
            .unwrap_or(self.congestion_control == CongestionControl::Cubic);
        k
    }

    /// RTO.Initial: the entry's, else its variant's (RFC 9260 sec. 16: 1 s for `rfc9260`).
    pub fn rto_initial(&self) -> crate::sim::SimDuration {
        self.rto_initial.map_or_else(
            || {
                crate::sim::SimDuration::from_secs(crate::sctp::config::rto_initial_secs(
                    self.variant.into(),
                ))
            },
            |d| d.0,
        )
    }

    /// The association this entry describes, as both drivers build it (the simulator's
    /// world and the live driver): started at once, measured throughout, untraced. The
    /// world then sets the flow's start, stop, measurement window and traces.
    pub fn assoc_cfg(
        &self,
        ports: (u16, u16),
        local_addrs: Vec<[u8; 4]>,
        primary_peer: [u8; 4],
    ) -> crate::sctp::AssocCfg {
        crate::sctp::AssocCfg {
            ports,
            pmtu: self.mtu.0 as usize,
            streams: self.streams,
            receive_buffer: self.receive_buffer.0,
            initial_ssthresh: self.initial_ssthresh.map(|s| s.0),
            knobs: self.knobs(),
            rto_initial: self.rto_initial(),
            rto_min: self.rto_min.0,
            rto_max: self.rto_max.0,
            delayed_sack: self.delayed_sack.then_some(self.sack_delay.0),
            heartbeat: self.heartbeat.then_some(self.heartbeat_interval.0),
            cookie_lifetime: self.cookie_lifetime.0,
            association_max_retrans: self.association_max_retrans,
            max_init_retrans: 8,
            total: self.bytes.map(|b| b.0),
            message_size: self.message_size.0,
            unordered: self.unordered,
            start: crate::sim::SimTime::ZERO,
            stop: None,
            window: crate::metrics::Window::ALL,
            trace_sends: false,
            trace_acks: false,
            local_addrs,
            primary_peer,
            stream_traffic: super::streams::sources(self),
        }
    }
}

impl TcpCfg {
    /// The sender's and the receiver's configurations of this connection, started at
    /// `start`'s offset from time zero and measured over `window`.
    pub fn endpoint_cfgs(
        &self,
        ports: (u16, u16),
        window: crate::metrics::Window,
        trace_sends: bool,
        trace_acks: bool,
    ) -> (crate::tcp::SenderCfg, crate::tcp::ReceiverCfg) {
        use crate::sim::{SimDuration, SimTime};
        let start = SimTime::ZERO + self.start.map_or(SimDuration::ZERO, |d| d.0);
        let map = crate::tcp::SeqMap {
            iss: 0,
            mss: self.segment_size.0,
            total: self.bytes.map(|b| b.0),
        };
        let variant = crate::tcp::Variant::from(self.variant);
        let sack = variant.uses_sack();
        let sender = crate::tcp::SenderCfg {
            variant,
            ports,
            map,
            wnd: f64::from(self.window),
            initial_window: self.initial_window,
            initial_ssthresh: self.initial_ssthresh.unwrap_or(f64::from(self.window)),
            numdupacks: i64::from(self.dupack_threshold),
            limited_transmit: self.limited_transmit,
            delay_growth: self.delay_growth,
            rules: crate::tcp::CongestionRules {
                slow_start_at_ssthresh: self.slow_start_at_ssthresh,
                precision_reduce: self.precision_reduce,
                flight_based_cut: self.window_unit == WindowUnit::Bytes,
            },
            congestion_control: self.congestion_control.into(),
            hystart: self
                .hystart
                .unwrap_or(self.congestion_control == CongestionControl::Cubic),
            pacing: self
                .pacing
                .unwrap_or(self.congestion_control == CongestionControl::Bbr),
            partial_window_deflation: self.partial_window_deflation,
            reset_timer_first_partial_only: self.reset_timer_on_first_partial_ack_only,
            max_burst: self.max_burst,
            rto_initial: self.rto_initial.0,
            rto_min: self.rto_min.0,
            rto_max: self.rto_max.0,
            tick: self.clock_granularity.0,
            handshake: self.handshake,
            sack_permitted: sack,
            start,
            stop: self.stop.map(|d| SimTime::ZERO + d.0),
            window,
            trace_sends,
            trace_acks,
        };
        let receiver = crate::tcp::ReceiverCfg {
            ports,
            map,
            sack,
            max_sack_blocks: self.max_sack_blocks as usize,
            delayed_ack: self.delayed_ack.then_some(self.delayed_ack_timeout.0),
            window,
            start,
        };
        (sender, receiver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::config::{self as sc, preset};

    fn sctp(extra: &str) -> SctpCfg {
        let text = format!("name = \"s\"\nfrom = \"a\"\nto = \"b\"\n{extra}");
        toml::from_str(&text).expect("sctp entry")
    }

    #[test]
    fn each_variant_maps_to_its_preset() {
        for (name, v) in [
            ("original", sc::Variant::Original),
            ("newreno", sc::Variant::Newreno),
            ("newreno-star", sc::Variant::NewrenoStar),
            ("newreno-2star", sc::Variant::Newreno2Star),
            ("rfc4960", sc::Variant::Rfc4960),
            ("rfc9260", sc::Variant::Rfc9260),
            ("ns2", sc::Variant::Ns2),
            ("usrsctp", sc::Variant::Usrsctp),
        ] {
            // path_max_retrans is always the entry's (schema default 5, RFC 9260 16),
            // which is every preset's value too.
            assert_eq!(
                sctp(&format!("variant = \"{name}\"")).knobs(),
                preset(v),
                "{name}"
            );
        }
    }

    #[test]
    fn overrides_reach_the_machine_types() {
        let k = sctp(
            "variant = \"ns2\"\ninitial_cwnd = \"4380B\"\nmax_burst_rule = \"off\"\n\
             growth_rule = \"rfc9260\"\nfast_rtx_threshold = 4\npf_max_retrans = 0\n\
             path_max_retrans = 2",
        )
        .knobs();
        assert_eq!(k.initial_cwnd, sc::InitialCwnd::Bytes(4380));
        assert_eq!(k.max_burst_rule, sc::MaxBurstRule::Off);
        assert_eq!(k.growth_rule, sc::GrowthRule::Rfc9260);
        assert_eq!(k.fast_rtx_threshold, 4);
        assert_eq!(k.pf_max_retrans, Some(0));
        assert_eq!(k.path_max_retrans, 2);
        let k = sctp("variant = \"rfc4960\"\ninitial_cwnd = 2.5").knobs();
        assert_eq!(k.initial_cwnd, sc::InitialCwnd::Mtus(2.5));
    }

    #[test]
    fn multiple_fast_rtx_keeps_its_old_name_as_an_alias() {
        // CONTRACTS.md: `multiple_fast_rtx`, with `fast_rtx_repeat` still accepted.
        assert!(!sctp("variant = \"rfc9260\"").knobs().multiple_fast_rtx);
        for key in ["multiple_fast_rtx", "fast_rtx_repeat"] {
            let k = sctp(&format!("variant = \"rfc9260\"\n{key} = true")).knobs();
            assert!(k.multiple_fast_rtx, "{key}");
        }
    }

    #[test]
    fn rto_initial_follows_the_variant_unless_set() {
        // RFC 9260 sec. 16: RTO.Initial 1 s; RFC 4960 sec. 15 and ns-2.35: 3 s.
        let secs = |e: &str| sctp(e).rto_initial().as_secs_f64();
        assert_eq!(secs("variant = \"rfc9260\""), 1.0);
        assert_eq!(secs("variant = \"rfc4960\""), 3.0);
        assert_eq!(secs("variant = \"ns2\""), 3.0);
        assert_eq!(secs("variant = \"rfc9260\"\nrto_initial = \"3s\""), 3.0);
    }

    #[test]
    fn tcp_entry_maps_onto_sender_and_receiver() {
        let c: TcpCfg = toml::from_str(
            "name = \"t\"\nfrom = \"a\"\nto = \"b\"\nvariant = \"fack\"\nstart = \"1s\"",
        )
        .expect("tcp entry");
        let (s, r) = c.endpoint_cfgs((1, 2), crate::metrics::Window::ALL, false, false);
        assert_eq!(s.variant, crate::tcp::Variant::Fack);
        // FACK rides on SACK (ns-2.35 `Agent/TCP/Fack` with a `TCPSink/Sack1`).
        assert!(s.sack_permitted && r.sack);
        // ns-2 `TcpAgent::reset`: ssthresh starts at window_ (20 by default).
        assert_eq!(s.initial_ssthresh, 20.0);
        assert_eq!(s.start.as_nanos(), 1_000_000_000);
        assert_eq!(r.start, s.start);
    }
}
