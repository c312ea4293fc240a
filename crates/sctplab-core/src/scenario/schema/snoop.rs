//! `[[snoop]]`: snoop agents on base stations.

use super::yes;
use crate::scenario::units::Duration;
use serde::Deserialize;

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
