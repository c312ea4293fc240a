//! `[[nodes]]` and `[[links]]`, with a link's loss models (`[links.loss]`).

use super::default_queue;
use crate::scenario::units::{Duration, Length, Rate, Size};
use serde::Deserialize;

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
    pub aqm_cfg: Option<crate::scenario::aqm::AqmCfg>,
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
