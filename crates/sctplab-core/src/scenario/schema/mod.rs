//! The scenario file schema. Every table rejects unknown keys. docs/scenario.md documents
//! each key; `tests/scenario_docs.rs` keeps the two in step.
//!
//! One module per part of the file: `network` (`[[nodes]]`, `[[links]]` and their loss
//! models), `measure` (`[measure]`, `[series]`), `snoop`, `faults`, `wireless`
//! (`[wireless]`, `[mobility]`), and the `[[flows]]` types (`flows` for the typed entry
//! and CBR, then `tcp`, `sctp`, `quic`). Every type is re-exported here, so
//! `scenario::schema::X` is the one path to each.

use super::units::{Duration, Size};
use serde::Deserialize;

mod faults;
mod flows;
mod measure;
mod network;
mod quic;
mod sctp;
mod snoop;
mod tcp;
mod wireless;

pub use faults::{FaultAction, FaultEntry, FaultStreams};
pub use flows::{CbrCfg, CbrPairsCfg, FLOW_TYPES, FlowSpec};
pub use measure::{MeasureCfg, SeriesCfg};
pub use network::{GilbertCfg, LinkCfg, LossCfg, LossDirection, LossPosition, NodeCfg};
pub use quic::{QuicController, QuicFlowCfg};
pub use sctp::{GrowthRule, InitialCwnd, MaxBurstRule, SctpCfg, SctpVariant};
pub use snoop::SnoopEntry;
pub use tcp::{CongestionControl, TcpCfg, TcpVariant, WindowUnit};
pub use wireless::{
    AodvSchema, MacSchema, MobilityCfg, MobilityModel, PhySchema, WirelessCfg, WirelessRouting,
};

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
    /// Required unless the scenario has ground stations (they become nodes too).
    #[serde(default)]
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
    /// Satellite constellations and their ground stations (scenario/sat.rs checks them
    /// first; world/sat_build.rs makes them nodes and links).
    #[serde(default)]
    pub constellations: Vec<super::sat::ConstellationCfg>,
    #[serde(default)]
    pub ground_stations: Vec<super::sat::GroundStationCfg>,
}

// Defaults more than one part of the file shares (serde's `default = "..."` names them;
// the submodules import them).

fn default_queue() -> u32 {
    // ns-2's default Queue limit_ (tcl/lib/ns-default.tcl).
    50
}

fn yes() -> bool {
    true
}

fn default_rto_max() -> Duration {
    Duration(crate::sim::SimDuration::from_secs(60))
}

fn default_message_size() -> Size {
    Size(1448)
}
