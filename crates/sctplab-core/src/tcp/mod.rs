//! TCP: a sans-IO sender (Reno, NewReno, SACK, FACK as ns-2.35 models them) and
//! receiver, with the congestion rules separate from the recovery algorithms.
//! docs/models/tcp.md documents every knob and where it comes from.

mod app;
pub mod config;
mod delivery;
mod ecn;
pub mod messages;
mod rate;
mod receiver;
mod recovery;
mod rtt;
mod sacked;
mod scoreboard;
mod sender;
mod seqmap;

pub use crate::cc::CongestionRules;
pub use config::Variant;
pub use receiver::{ReceiverCfg, TcpReceiver};
pub use rtt::RttEstimator;
pub use sender::{SenderCfg, SenderStats, TcpSender};
pub use seqmap::SeqMap;
