//! Scenario files: TOML parsed and validated once, here, into typed structures.
pub mod aqm;
pub mod asconf;
pub mod bounds;
pub mod cmt;
pub mod dsdv;
pub mod dsr;
mod error;
pub(crate) mod load;
pub mod overrides;
pub mod reconf;
pub mod sat;
pub mod schema;
pub mod send_buffer;
pub mod streams;
pub mod tcp_streams;
pub mod units;
pub(crate) mod validate;
pub mod wireless_aqm;

pub use error::ScenarioError;
pub use load::{Scenario, load_json, load_toml};
pub use schema::FlowSpec;
