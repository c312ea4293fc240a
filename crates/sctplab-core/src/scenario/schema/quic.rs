//! `type = "quic"` flows.

use super::default_message_size;
use crate::scenario::units::{Duration, Size};
use serde::Deserialize;

/// `congestion_control` of a `quic` flow: one of quinn-proto's controllers.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum QuicController {
    /// quinn-proto's NewReno.
    Reno,
    #[default]
    Cubic,
    /// quinn-proto's BBR (docs/models/quic.md says why its one draw from the operating
    /// system leaves runs reproducible).
    Bbr,
}

/// A QUIC connection (quinn-proto): a client that sends on `streams` unidirectional
/// streams and a server (UDP port 443) that reads them (docs/models/quic.md).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct QuicFlowCfg {
    pub name: String,
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub bytes: Option<Size>,
    #[serde(default = "one_quic_stream")]
    pub streams: u32,
    #[serde(default = "default_message_size")]
    pub message_size: Size,
    #[serde(default)]
    pub congestion_control: QuicController,
    /// Per-stream sources replacing the round-robin application (CONTRACTS.md
    /// "Messages"), without the `pr_*` entries.
    #[serde(default)]
    pub stream_traffic: Option<Vec<crate::scenario::streams::StreamTrafficEntry>>,
    /// A fixed UDP payload size (no path MTU discovery); quinn-proto's 1200 B plus what
    /// its discovery finds if absent.
    #[serde(default)]
    pub max_udp_payload: Option<Size>,
    /// The receiver's flow-control credit, as SCTP's `receive_buffer`: quinn's connection
    /// window (MAX_DATA) and each stream's (MAX_STREAM_DATA). quinn-proto's defaults
    /// (1.25 MB per stream, no connection limit) if absent.
    #[serde(default)]
    pub receive_buffer: Option<Size>,
}

fn one_quic_stream() -> u32 {
    1
}
