//! The measurement window and online counters.

use crate::sim::SimTime;

/// Rates and counts in summary.json cover `[start, end)` only (CONTRACTS: `[measure]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: SimTime,
    /// `SimTime::MAX` when the window runs to the end of the run.
    pub end: SimTime,
}

impl Window {
    pub const ALL: Window = Window {
        start: SimTime::ZERO,
        end: SimTime::MAX,
    };

    pub fn contains(&self, t: SimTime) -> bool {
        t >= self.start && t < self.end
    }

    /// Length of the window in seconds once the run ended at `run_end`.
    pub fn seconds(&self, run_end: SimTime) -> f64 {
        let end = self.end.min(run_end);
        end.saturating_since(self.start).as_secs_f64()
    }
}
