//! Live mode: the simulator's sans-IO SCTP association (`crate::sctp`) driven by the
//! wall clock and a UDP socket (RFC 6951 encapsulation), so it can talk to real SCTP
//! stacks. `config` builds the association from an SCTP flow entry as the simulator
//! does; `payload` gives DATA chunks real bytes (the test-message format of
//! CONTRACTS.md) and checks what arrives; `session` is the driver; `relay` is a seeded
//! UDP impairment relay for tests on loopback.

pub mod config;
pub mod payload;
pub mod relay;
pub mod session;
pub mod wire;

pub use config::{FlowSource, assoc_config, flow_config};
pub use relay::{Impairment, Relay, RelayOptions};
pub use session::{Counters, LiveOptions, Outcome, Session};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod hostile_tests;

#[cfg(test)]
mod auth_tests;

#[cfg(test)]
mod idata_tests;
