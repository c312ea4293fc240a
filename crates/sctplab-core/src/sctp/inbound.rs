//! The receiving half of an association (RFC 9260 sec. 6.2, 6.5, 6.6, 6.7): TSN
//! bookkeeping, the receive buffer and a_rwnd, per-stream ordered delivery with message
//! reassembly, duplicate TSNs, and when to send a SACK.
//!
//! The buffer follows ns-2.35's Agent/SCTP: an accepted chunk takes its length (header
//! included) from the window until it is delivered to the application, which consumes
//! at once; a chunk that does not fit is dropped without a SACK. Out-of-order chunks of
//! one stream hold buffer space while other streams keep delivering (head-of-line
//! blocking is per stream).
//!
//! This file holds the state; the rules are in `inbound/`: `accept.rs` (DATA acceptance
//! and the window), `delivery.rs` (per-stream reassembly and delivery),
//! `partial_delivery.rs` (6.9), `sack.rs` (when to SACK and what it carries), and the
//! extensions' files (`forward_tsn.rs`, `idata_rx.rs`, `nr_sack.rs`, `tsn_reset.rs`).

use crate::metrics::Window;
use crate::net::wire::{DataChunk, DataFlags, SackChunk};
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

mod accept;
mod delivery;
mod forward_tsn;
pub(super) mod gap_runs;
pub mod idata;
mod idata_rx;
mod nr_sack;
mod partial_delivery;
mod sack;
#[cfg(test)]
mod test_support;
mod tsn_reset;

use delivery::Held;
pub use delivery::StreamIn;

pub struct Inbound {
    pub cum_tsn: u32,
    /// Received state of TSNs cum+1, cum+2, ... (None: missing).
    above: VecDeque<Option<Held>>,
    dups: Vec<u32>,
    buffer: u64,
    held: u64,
    pub streams: Vec<StreamIn>,
    window: Window,
    pub delivered_bytes: u64,
    pub delivered_total: u64,
    /// Highest TSN received, relative to the initial TSN (seed 001's goodput).
    pub highest_tsn: u32,
    initial_tsn: u32,
    pub dropped_no_buffer: u64,
    /// With `stream_traffic`: (stream, relative TSN of the last chunk, delivery time)
    /// of every message delivered in the measurement window, for the delay statistics.
    pub msg_log: Option<Vec<(u16, u32, SimTime)>>,
    /// FORWARD TSN chunks received, and the chunks they made this end discard.
    pub forward_tsns: u64,
    pub chunks_skipped: u64,
    /// DATA chunks for a stream this end does not have: acknowledged and discarded
    /// (RFC 9260 6.5).
    pub invalid_stream_chunks: u64,
    /// DATA chunks dropped because their TSN lies further beyond the cumulative TSN
    /// than `max_ahead` (see `Inbound::new`).
    pub dropped_beyond_window: u64,
    max_ahead: i64,
    /// Times a message was started in parts to make room (RFC 9260 6.9).
    pub partial_deliveries: u64,
    /// I-DATA reassembly (`idata_rx.rs`), from the first I-DATA chunk on.
    idata: Option<Box<idata::IDataReassembly>>,
    idata_out: Vec<idata::Message>,
    // SACK policy.
    delayed: Option<SimDuration>,
    packets_unacked: u32,
    pub sack_deadline: Option<SimTime>,
    sack_now: bool,
    first_data_seen: bool,
    max_chunk_room: usize,
    /// RFC 9260 6.2 (true) or ns-2.35 (false) for a chunk dropped for want of space.
    sack_on_drop: bool,
    /// ns-2.35: a chunk of the packet being handled was dropped for want of space after
    /// the last chunk that asked for a SACK.
    drop_cancels_sack: bool,
    /// CMT's delayed ack (`set_cmt_dac`): SACKs wait for the second packet or the timer
    /// even with gaps, and carry the packets they acknowledge in their flags.
    cmt_dac: bool,
    /// The pending SACK is the delayed-SACK timer's.
    sack_by_timer: bool,
    /// The received runs above the cumulative TSN (`gap_runs.rs`): a SACK's gap
    /// blocks without a walk over `above`.
    runs: gap_runs::GapRuns,
    /// NR-SACK (`nr_sack.rs`): relative TSNs above the cumulative TSN already delivered.
    nr_delivered: Option<std::collections::BTreeSet<u32>>,
}

/// The furthest TSN beyond the cumulative TSN a receive buffer of `buffer` bytes can
/// be asked to hold: every TSN in between is outstanding at the sender or held here,
/// and each DATA chunk is at least 17 bytes (16 of header and one of user data, RFC
/// 9260 3.3.1), so no sender keeping to the advertised window goes further. Never less
/// than the 4096 TSNs of Linux's and usrsctp's fixed mapping arrays
/// (`SCTP_TSN_MAP_SIZE`, `SCTP_MAPPING_ARRAY` bits), so a small buffer does not refuse
/// what real stacks accept. Beyond it a chunk would only cost memory (one entry per
/// TSN in between): 2^30 TSNs ahead used to ask for 16 GiB.
fn max_tsns_ahead(buffer: u64) -> i64 {
    let min_chunk = DataChunk::len_for(1) as u64;
    (buffer / min_chunk).clamp(4096, i32::MAX as u64) as i64
}

impl Inbound {
    pub fn new(
        peer_initial_tsn: u32,
        buffer: u64,
        streams: u16,
        delayed: Option<SimDuration>,
        window: Window,
        max_chunk_room: usize,
        sack_on_drop: bool,
    ) -> Self {
        Inbound {
            cum_tsn: peer_initial_tsn.wrapping_sub(1),
            runs: gap_runs::GapRuns::default(),
            above: VecDeque::new(),
            dups: Vec::new(),
            buffer,
            held: 0,
            streams: vec![StreamIn::default(); usize::from(streams.max(1))],
            window,
            delivered_bytes: 0,
            delivered_total: 0,
            highest_tsn: 0,
            initial_tsn: peer_initial_tsn,
            msg_log: None,
            forward_tsns: 0,
            chunks_skipped: 0,
            dropped_no_buffer: 0,
            invalid_stream_chunks: 0,
            dropped_beyond_window: 0,
            max_ahead: max_tsns_ahead(buffer),
            partial_deliveries: 0,
            idata: None,
            idata_out: Vec::new(),
            delayed,
            packets_unacked: 0,
            sack_deadline: None,
            sack_now: false,
            first_data_seen: false,
            max_chunk_room,
            sack_on_drop,
            drop_cancels_sack: false,
            cmt_dac: false,
            sack_by_timer: false,
            nr_delivered: None,
        }
    }

    pub fn a_rwnd(&self) -> u32 {
        self.buffer
            .saturating_sub(self.held)
            .min(u64::from(u32::MAX)) as u32
    }

    fn offset(&self, tsn: u32) -> i64 {
        i64::from(tsn.wrapping_sub(self.cum_tsn) as i32)
    }

    /// How far beyond the cumulative TSN a DATA chunk may lie (see `max_tsns_ahead`).
    pub fn max_ahead(&self) -> u32 {
        self.max_ahead as u32
    }

    /// Closes open head-of-line intervals at the end of the run.
    pub fn finish(&mut self, now: SimTime) {
        for s in &mut self.streams {
            if let Some(t) = s.blocked_since.take() {
                s.hol_blocked_ns += now.saturating_since(t).as_nanos();
            }
        }
    }

    pub fn all_delivered(&self, total: u64) -> bool {
        self.delivered_total >= total
    }
}
