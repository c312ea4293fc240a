//! Loading: TOML (or JSON) text -> overrides -> typed schema -> cross-reference checks.
//!
//! `input` reads the text and applies the `--set` overrides, `typed` turns the table into
//! the schema's types (flows by their `type`), `movement` reads `[mobility] file`; the
//! checks themselves are `scenario::validate`'s.

use super::schema::{CbrCfg, CbrPairsCfg, FlowSpec, ScenarioFile};
use crate::sim::{SimDuration, SimTime};

mod input;
mod movement;
mod typed;

pub use input::{load_json, load_toml};
pub(super) use typed::typed;

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub file: ScenarioFile,
    pub flows: Vec<FlowSpec>,
    /// Flow generators (`type = "cbr_pairs"`), expanded per run seed.
    pub generators: Vec<CbrPairsCfg>,
    /// The movement legs of `[mobility] file`, read and checked when the scenario loads.
    pub movement: Option<Vec<Vec<crate::wireless::mobility::Leg>>>,
    /// The scenario after overrides, as TOML: running it again gives the same run.
    pub resolved_toml: String,
}

impl Scenario {
    /// The CBR flows the generators draw for this run seed, with their start times, in
    /// generator order: `<name>.<i>` between distinct ordered pairs of `among`.
    pub fn generated_flows(&self, seed: u64) -> Vec<CbrCfg> {
        let mut out = Vec::new();
        for g in &self.generators {
            let mut rng = crate::sim::RngStream::new(seed, &format!("flows:{}:pairs", g.name));
            let n = g.among.len();
            let lo = g.start_min.map_or(SimDuration::ZERO, |d| d.0);
            let hi = g.start_max.map_or(lo, |d| d.0).max(lo);
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            // Membership in a set: `count` may be up to n(n - 1), and a scan of the list
            // per draw made that quadratic. The draws and their order are unchanged.
            let mut drawn = std::collections::HashSet::new();
            while pairs.len() < g.count as usize {
                let a = (rng.uniform() * n as f64) as usize % n;
                let b = (rng.uniform() * n as f64) as usize % n;
                if a != b && drawn.insert((a, b)) {
                    pairs.push((a, b));
                }
            }
            for (i, (a, b)) in pairs.into_iter().enumerate() {
                let span = (hi.as_nanos() - lo.as_nanos()) as f64;
                let start = SimDuration::from_nanos(lo.as_nanos() + (rng.uniform() * span) as u64);
                out.push(CbrCfg {
                    name: format!("{}.{i}", g.name),
                    from: g.among[a].clone(),
                    to: g.among[b].clone(),
                    start: Some(super::units::Duration(start)),
                    stop: g.stop,
                    rate: g.rate,
                    packet_size: g.packet_size,
                    jitter: g.jitter,
                });
            }
        }
        out
    }

    pub fn duration(&self) -> Option<SimDuration> {
        self.file.duration.map(|d| d.0)
    }
    /// Measurement window [start, end); end defaults to the end of the run.
    pub fn window(&self) -> (SimTime, Option<SimTime>) {
        let start = self
            .file
            .measure
            .start
            .map_or(SimTime::ZERO, |d| SimTime::ZERO + d.0);
        let end = self.file.measure.end.map(|d| SimTime::ZERO + d.0);
        (start, end)
    }
}
