//! `[[faults]]`: scripted events at given times.

use crate::scenario::units::Duration;
use serde::Deserialize;

/// What a `[[faults]]` entry does. More kinds (loss-rate and delay changes) fit here.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FaultAction {
    /// The link loses every packet in both directions, queued ones included.
    Down,
    /// The link carries packets again.
    Up,
    /// An SCTP flow's sender makes `primary` its primary destination.
    SetPrimary,
    /// RE-CONFIG (RFC 6525): the flow's sender resets the outgoing `streams` listed.
    ResetStreams,
    /// RE-CONFIG (RFC 6525): the flow's sender adds `streams` outgoing streams.
    AddStreams,
    /// RE-CONFIG (RFC 6525 4.3): the flow's sender asks for an SSN/TSN reset (every
    /// stream both ways to SSN 0, new TSNs).
    ResetAssoc,
    /// ASCONF (RFC 5061): the flow's sender adds / deletes its interface `address`.
    AddAddress,
    DeleteAddress,
}

/// `streams` of a `[[faults]]` entry: a list for `reset_streams`, a count for
/// `add_streams`.
#[derive(Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(untagged)]
pub enum FaultStreams {
    List(Vec<u16>),
    Count(u16),
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FaultEntry {
    /// Optional, for `--set faults.<name>.at=...`.
    #[serde(default)]
    pub name: Option<String>,
    pub at: Duration,
    pub action: FaultAction,
    /// The link, for `down` and `up`.
    #[serde(default)]
    pub link: Option<String>,
    /// The SCTP flow, for `set_primary`.
    #[serde(default)]
    pub flow: Option<String>,
    /// The new primary, `"<node>:<iface>"` of the receiving end, for `set_primary`.
    #[serde(default)]
    pub primary: Option<String>,
    /// The streams, for `reset_streams` (a list) and `add_streams` (a count).
    #[serde(default)]
    pub streams: Option<FaultStreams>,
    /// An interface of the flow's sender, `"<node>:<iface>"`, for `add_address`,
    /// `delete_address` and `set_primary` by ASCONF (RFC 5061, `scenario/asconf.rs`).
    #[serde(default)]
    pub address: Option<String>,
}
