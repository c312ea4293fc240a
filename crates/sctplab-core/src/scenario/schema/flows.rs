//! `[[flows]]`: the typed entry (`FlowSpec`), the flow types, and the UDP ones (`cbr`,
//! `cbr_pairs`). TCP, SCTP and QUIC entries have modules of their own.

use super::{QuicFlowCfg, SctpCfg, TcpCfg};
use crate::scenario::units::{Duration, Rate, Size};
use serde::Deserialize;

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

/// A typed flow entry.
#[derive(Debug, Clone)]
pub enum FlowSpec {
    Cbr(CbrCfg),
    Tcp(TcpCfg),
    /// Boxed: an SCTP entry is several times the size of the others.
    Sctp(Box<SctpCfg>),
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
