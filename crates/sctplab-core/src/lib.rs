//! sctplab-core: the simulator as a Rust library (no Python inside).
//!
//! Layers, top to bottom: `scenario` (TOML -> validated types), `world` (arenas built
//! from a scenario, and the run loop), `endpoint` (sans-IO protocol machines), `net`
//! (packets, links, queues, loss, routing), `sim` (clock, events, random streams),
//! `trace` (pcap, ns-2 trace, CSV, series). See docs/architecture.md.

pub mod cc;
pub mod endpoint;
pub mod error;
pub mod live;
pub mod metrics;
pub mod net;
pub mod quic;
pub mod sat;
pub mod scenario;
pub mod sctp;
pub mod sim;
pub mod snoop;
pub mod tcp;
pub mod trace;
pub mod wireless;
pub mod world;

pub use error::Error;
pub use scenario::{Scenario, ScenarioError, load_json, load_toml};
pub use world::{
    RunOptions, RunResult, Shortcuts, export_movement, run_scenario, run_scenario_interruptible,
};

/// The crate version, recorded in run.json.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
