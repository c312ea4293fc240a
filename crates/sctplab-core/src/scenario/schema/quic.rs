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
    /// Accepted by the schema, refused by validation (docs/models/quic.md: quinn-proto
    /// 0.11's BBR seeds itself from the operating system).
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
    /// A fixed UDP payload size (no path MTU discovery); quinn-proto's 1200 B plus what
    /// its discovery finds if absent.
    #[serde(default)]
    pub max_udp_payload: Option<Size>,
}

fn one_quic_stream() -> u32 {
    1
}
