//! `[measure]` (the measurement window) and `[series]` (time series).

use crate::scenario::units::Duration;
use serde::Deserialize;

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
