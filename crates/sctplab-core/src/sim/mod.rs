//! The discrete-event kernel: clock, event queue and random streams.
mod key;
mod lazy;
mod queue;
mod rng;
mod time;
mod timer;

pub use key::{EventKey, SEQ_STEP, seq_below, wake_seq};
pub use lazy::{ArmerChain, LazySeq, Lineage, due_before};
pub use queue::{EventQueue, HistoryCursor};
pub use rng::{RngStream, stream_id};
pub use time::{SimDuration, SimTime};
pub use timer::TimerSlot;
