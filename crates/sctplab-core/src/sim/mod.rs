//! The discrete-event kernel: clock, event queue and random streams.
mod key;
pub(crate) mod lazy;
mod queue;
mod rng;
mod time;
mod timer;

pub(crate) use key::{EventKey, SEQ_STEP, wake_seq};
pub(crate) use lazy::{ArmerChain, LazySeq, ReservedEvent, due_before, may_tie};
pub use queue::EventQueue;
pub(crate) use queue::HistoryCursor;
pub use rng::{RngStream, stream_id};
pub use time::{SimDuration, SimTime};
pub(crate) use timer::TimerSlot;
