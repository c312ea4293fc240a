//! Collectors that write what a run asked for: pcap files, the ns-2 text trace,
//! sends/acks CSV and sampled series. Nothing is recorded unless asked.
pub mod anim;
pub mod csv;
pub mod ieee80211;
pub mod ns2;
pub mod pcap;
pub mod series;

use std::path::PathBuf;

/// What to record, and where. Paths follow CONTRACTS.md (`DIR/pcap/<node>-<iface>.pcap`,
/// `DIR/trace.tr`, `DIR/sends.csv`, `DIR/acks.csv`).
#[derive(Clone, Debug, Default)]
pub struct TraceConfig {
    pub out_dir: Option<PathBuf>,
    pub pcap: bool,
    pub ns2: bool,
    pub sends: bool,
    pub acks: bool,
    /// `--trace anim`: `DIR/anim.jsonl` (`anim`).
    pub anim: bool,
    /// Variable names to sample (`cwnd`, `queue`, ...); empty for none.
    pub series: Vec<String>,
    /// Where sampled rows go in chunks as the run goes (see `series::Series`); none:
    /// they are all held in memory, up to `series::MAX_IN_MEMORY_VALUES`.
    pub series_spill: Option<PathBuf>,
    /// Free bytes on the spill file's disk: a series that would need more is refused.
    pub series_disk_limit: Option<u64>,
    /// `--max-output`: the run stops with `Error::Usage` once its pcap and trace files
    /// hold more bytes than this (`world::tracer::Tracer::check_output`).
    pub max_output: Option<u64>,
    /// One line on stderr each time those files pass 100 MB, 1 GB, 10 GB, ..., with
    /// what they will hold at the end of the run at the rate so far.
    pub output_notes: bool,
}

/// Trace kinds accepted by `--trace`.
pub const TRACE_KINDS: &[&str] = &["ns2", "sends", "acks", "anim"];

impl TraceConfig {
    /// Parses `--trace` kinds; the error names the offending kind.
    pub fn set_traces<S: AsRef<str>>(&mut self, kinds: &[S]) -> Result<(), String> {
        for k in kinds {
            match k.as_ref().trim() {
                "ns2" => self.ns2 = true,
                "sends" => self.sends = true,
                "acks" => self.acks = true,
                "anim" => self.anim = true,
                "" => {}
                other => {
                    return Err(format!(
                        "unknown trace kind {other:?}; expected one of {TRACE_KINDS:?}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Parses `--series` variable names.
    pub fn set_series<S: AsRef<str>>(&mut self, names: &[S]) -> Result<(), String> {
        for n in names {
            let n = n.as_ref().trim();
            if n.is_empty() {
                continue;
            }
            if !series::VARIABLES.contains(&n) {
                return Err(format!(
                    "unknown series variable {n:?}; expected one of {:?}",
                    series::VARIABLES
                ));
            }
            if !self.series.iter().any(|s| s == n) {
                self.series.push(n.to_string());
            }
        }
        Ok(())
    }

    pub fn needs_dir(&self) -> bool {
        self.pcap || self.ns2 || self.sends || self.acks || self.anim
    }
}
