//! SCTP (RFC 2960 / 4960 / 9260) with the congestion-control variants of the seeds as
//! presets over named knobs. docs/models/sctp.md documents every knob and preset.

pub mod asconf;
mod assoc;
pub mod auth;
pub mod config;
pub mod cookie;
mod coupled_cc;
mod ecn;
mod inbound;
mod outbound;
mod path;
mod path_bbr;
mod path_cc;
mod prsctp;
pub mod reconfig;
pub mod streams;
mod timer;
pub mod timestamp;

pub use assoc::{AssocCfg, AssocStats, Association, ExtStats, Role, State};
pub use config::Knobs;
pub use coupled_cc::Coupling;
pub use inbound::Inbound;
pub use outbound::cmt::{CmtKnobs, RtxPolicy};
pub use outbound::send_buffer;
pub use outbound::{OutStats, Outbound};
pub use path::{Path, PathSet, PathState, PathStats};
