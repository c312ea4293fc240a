//! The discrete-event kernel: clock, event queue and random streams.
mod queue;
mod rng;
mod time;

pub use queue::{EventQueue, HistoryCursor};
pub use rng::{RngStream, stream_id};
pub use time::{SimDuration, SimTime};
