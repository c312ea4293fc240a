//! `[wireless.dsdv]`: the constants of ns-2.35's `Agent/DSDV` (dsdv/dsdv.cc, dsdv.h,
//! ns-default.tcl), read when `[wireless] routing = "dsdv"` (docs/scenario.md,
//! docs/models/wireless.md).

use super::error::ScenarioError;
use super::load::Scenario;
use super::units::Duration;
use crate::sim::SimDuration;
use crate::wireless::dsdv::DsdvCfg;
use serde::Deserialize;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct DsdvSchema {
    /// `perup_`.
    pub update_interval: Duration,
    /// `wst0_`.
    pub initial_settling_time: Duration,
    /// `alpha_`.
    pub settling_weight: f64,
    /// `min_update_periods_`.
    pub missed_updates: u32,
    /// `use_mac_`.
    pub mac_link_breaks: bool,
    /// `be_random_`.
    pub randomize: bool,
    /// `DSDV_STARTUP_JITTER`.
    pub startup_jitter: Duration,
    /// `DSDV_BROADCAST_JITTER`.
    pub broadcast_jitter: Duration,
    /// `DSDV_MIN_TUP_PERIOD`.
    pub min_triggered_interval: Duration,
    /// `MAX_QUEUE_LENGTH`.
    pub queue_limit: u32,
    /// `IP_DEF_TTL`.
    pub ttl: u8,
}

impl Default for DsdvSchema {
    fn default() -> Self {
        let c = DsdvCfg::ns2();
        DsdvSchema {
            update_interval: Duration(c.update_interval),
            initial_settling_time: Duration(c.initial_settling_time),
            settling_weight: c.settling_weight,
            missed_updates: c.missed_updates,
            mac_link_breaks: c.mac_link_breaks,
            randomize: c.randomize,
            startup_jitter: Duration(c.startup_jitter),
            broadcast_jitter: Duration(c.broadcast_jitter),
            min_triggered_interval: Duration(c.min_triggered_interval),
            queue_limit: c.queue_limit as u32,
            ttl: c.ttl,
        }
    }
}

impl DsdvSchema {
    pub fn cfg(&self) -> DsdvCfg {
        DsdvCfg {
            update_interval: self.update_interval.0,
            initial_settling_time: self.initial_settling_time.0,
            settling_weight: self.settling_weight,
            missed_updates: self.missed_updates,
            mac_link_breaks: self.mac_link_breaks,
            randomize: self.randomize,
            startup_jitter: self.startup_jitter.0,
            broadcast_jitter: self.broadcast_jitter.0,
            min_triggered_interval: self.min_triggered_interval.0,
            queue_limit: self.queue_limit as usize,
            ttl: self.ttl,
        }
    }
}

/// Values valid in type but not in effect: a zero update interval re-arms the periodic
/// update at the instant it fires, for ever; a neighbour time-out of zero updates
/// loses every neighbour as it is heard; a weight outside 0..1 is no average; a TTL of
/// zero sends nothing.
pub(super) fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let Some(w) = &s.file.wireless else {
        return Ok(());
    };
    let d = &w.dsdv;
    let err = |key: &str, msg: String| {
        Err(ScenarioError::new(
            source,
            format!("wireless.dsdv.{key}"),
            msg,
        ))
    };
    if d.update_interval.0 == SimDuration::ZERO {
        return err(
            "update_interval",
            "must be greater than zero: the periodic update re-arms itself about this long \
             after it fires (ns-2.35: \"15s\")"
                .into(),
        );
    }
    if d.missed_updates == 0 {
        return err(
            "missed_updates",
            "must be at least 1: a neighbour is lost after this many update intervals \
             unheard (ns-2.35: 3)"
                .into(),
        );
    }
    if !(0.0..=1.0).contains(&d.settling_weight) {
        return err(
            "settling_weight",
            format!(
                "{} is not a weight; expected a number from 0 to 1 (ns-2.35: 0.875)",
                d.settling_weight
            ),
        );
    }
    if d.ttl == 0 {
        return err("ttl", "must be at least 1 (ns-2.35: 32)".into());
    }
    Ok(())
}
