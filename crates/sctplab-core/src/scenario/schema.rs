//! The scenario file schema. Every table rejects unknown keys. docs/scenario.md documents
//! each key; `tests::docs_cover_the_schema` keeps the two in step.

use super::units::{Duration, Rate, Size};
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

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct LossCfg {
    #[serde(default)]
    pub direction: LossDirection,
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
}

/// A typed flow entry.
#[derive(Debug, Clone)]
pub enum FlowSpec {
    Cbr(CbrCfg),
}

/// The flow types a `[[flows]]` entry may name, with a sentence for error messages.
pub const FLOW_TYPES: &[&str] = &["cbr"];

impl FlowSpec {
    pub fn name(&self) -> &str {
        match self {
            FlowSpec::Cbr(c) => &c.name,
        }
    }
    pub fn endpoints(&self) -> (&str, &str) {
        match self {
            FlowSpec::Cbr(c) => (&c.from, &c.to),
        }
    }
    /// Whether the flow ends by itself (so a run without `duration` can finish).
    pub fn is_finite(&self) -> bool {
        match self {
            FlowSpec::Cbr(c) => c.stop.is_some(),
        }
    }
}
