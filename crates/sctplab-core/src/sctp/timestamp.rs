//! ns-2.35's Agent/SCTP/Timestamp (`sctp-timestamp.cc`), the flow key `timestamp`: a
//! TIMESTAMP chunk (net/wire/sctp_chunk/timestamp.rs) first in every packet with DATA or
//! a SACK, so that every acknowledged transmission, retransmissions included, can be
//! timed and Karn's rule (RFC 9260 6.3.1 C5) is not needed.
//!
//! - Sender (`BundleControlChunks`, `AddToSendBuffer`, `RtxMarkedChunks`): a DATA
//!   packet's chunk carries the clock (seconds, as a 32-bit float); each chunk keeps the
//!   time of its last transmission. The RTO estimator's one-chunk-per-round-trip timing
//!   (6.3.1 C4) is off.
//! - Receiver (`ProcessTimestampChunk`): the timestamp of the first DATA packet since its
//!   last SACK is echoed in the next SACK's chunk (later ones are ignored meanwhile, so
//!   a delayed SACK times the first packet it acknowledges).
//! - Sender (`ProcessTimestampChunk`, `SendBufferDequeueUpTo`, `ProcessGapAckBlocks`):
//!   the echo is kept until the next one; every chunk a SACK newly acknowledges
//!   (cumulatively or by a gap block) whose last transmission time, as a 32-bit float,
//!   equals the echo gives an RTT sample of now minus that time to the destination it
//!   was last sent to: one sample per such chunk, as ns-2 calls `RttUpdate` per chunk.
//!
//! ns-2 sizes the chunk at 12 bytes on every DATA and SACK packet, with or without its
//! flags (`ControlChunkReservation`: its room is taken from the packet's data).

use crate::net::wire::TimestampChunk;
use crate::sim::SimTime;

use super::path::Path;

/// Bytes a TIMESTAMP chunk takes in every DATA and SACK packet of a `timestamp` flow.
pub const CHUNK_LEN: usize = TimestampChunk::LEN;

/// Bytes every packet keeps for the TIMESTAMP chunk: 12 with `timestamp`, else 0. ns-2
/// takes them from its `uiMaxDataSize`, which is also its MTU in cwnd arithmetic (the
/// initial cwnd, the increase, the cuts), as the destinations' `mtu` here.
pub fn reserved(k: &super::Knobs) -> usize {
    if k.timestamp { CHUNK_LEN } else { 0 }
}

/// A time as the chunk carries it: ns-2's `(float) Scheduler::instance().clock()`.
pub fn wire_time(t: SimTime) -> f32 {
    t.as_secs_f64() as f32
}

/// One end's TIMESTAMP state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timestamps {
    /// The timestamp the next SACK (or DATA) packet echoes (ns-2 `eNeedTimestampEcho`,
    /// `fOutTimestampEcho`).
    pending_echo: Option<f32>,
    /// The last echo received (ns-2 `fInTimestampEcho`), for the sender's SACK rule.
    pub echo_in: Option<f32>,
}

impl Timestamps {
    /// A TIMESTAMP chunk received: a timestamp is kept for echoing unless one is
    /// already waiting; an echo replaces the last one.
    pub fn on_chunk(&mut self, c: &TimestampChunk) {
        if let Some(ts) = c.timestamp {
            if self.pending_echo.is_none() {
                self.pending_echo = Some(ts);
            }
        }
        if let Some(e) = c.echo {
            self.echo_in = Some(e);
        }
    }

    /// The chunk for a packet sent at `now`: the clock on a DATA packet (ns-2 sets it
    /// when new or marked data is being sent and no SACK is), and the waiting echo on
    /// any, which it uses up.
    pub fn chunk(&mut self, now: SimTime, data: bool) -> TimestampChunk {
        TimestampChunk {
            timestamp: data.then(|| wire_time(now)),
            echo: self.pending_echo.take(),
        }
    }
}

/// The sender's rule for a chunk a SACK newly acknowledges, last transmitted at
/// `last_tx` to the destination `p`: an RTT sample when the SACK's packet echoed that
/// transmission's timestamp (ns-2 compares `fInTimestampEcho == (float) dTxTimestamp`).
#[inline]
pub fn sample(now: SimTime, echo: Option<f32>, last_tx: SimTime, p: &mut Path) {
    if echo.is_some_and(|e| e.to_bits() == wire_time(last_tx).to_bits()) {
        p.rto.sample(now.saturating_since(last_tx).as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sctp::path::Rto;
    use crate::sim::SimDuration;

    fn ms(v: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(v)
    }

    #[test]
    fn receiver_echoes_the_first_timestamp_since_its_last_sack() {
        let mut r = Timestamps::default();
        let ts = |t: u64| TimestampChunk {
            timestamp: Some(wire_time(ms(t))),
            echo: None,
        };
        // Two DATA packets, sent at 1.000 s and 1.010 s, acknowledged by one delayed
        // SACK: the SACK echoes 1.000 s (ns-2 ignores the second while one waits).
        r.on_chunk(&ts(1000));
        r.on_chunk(&ts(1010));
        let sack = r.chunk(ms(1300), false);
        assert_eq!(sack.timestamp, None);
        assert_eq!(sack.echo, Some(1.0));
        // Used up: the next SACK echoes the next DATA packet's, or nothing.
        assert_eq!(r.chunk(ms(1301), false).echo, None);
        r.on_chunk(&ts(1020));
        assert_eq!(r.chunk(ms(1320), false).echo, Some(wire_time(ms(1020))));
        // A DATA packet carries the clock.
        assert_eq!(r.chunk(ms(2500), true).timestamp, Some(2.5));
    }

    #[test]
    fn a_retransmission_is_timed_by_its_own_echo() {
        // ns-2.35 `RttUpdate` (RFC 9260 6.3.1 C2): a first sample R gives SRTT = R,
        // RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 3R, bounded by RTO.Min 1 s.
        let mut p = Path::new(
            [10, 0, 0, 2],
            1500,
            3000.0,
            65536.0,
            Rto::new(
                SimDuration::from_secs(3),
                SimDuration::from_secs(1),
                SimDuration::from_secs(60),
            ),
        );
        // A chunk first sent at 1.000 s is lost and retransmitted at 2.000 s (after a
        // T3 expiry); the SACK for the retransmission arrives at 2.400 s echoing 2.000 s.
        let last_tx = ms(2000);
        // The first transmission's echo does not time the retransmission.
        sample(ms(2400), Some(wire_time(ms(1000))), last_tx, &mut p);
        assert_eq!(p.rto.srtt(), None);
        // No echo at all: nothing.
        sample(ms(2400), None, last_tx, &mut p);
        assert_eq!(p.rto.srtt(), None);
        // Its own echo: R = 0.4 s, SRTT 0.4, RTTVAR 0.2, RTO 1.2 s.
        sample(ms(2400), Some(2.0), last_tx, &mut p);
        assert_eq!(p.rto.srtt(), Some(0.4));
        assert_eq!(p.rto.current(), SimDuration::from_millis(1200));
        // A second chunk of the same packet acked by the same SACK is a second sample
        // (ns-2 updates per chunk): R = 0.4 again, RTTVAR = 0.75 x 0.2 + 0.25 x 0 =
        // 0.15, SRTT 0.4, RTO 0.4 + 0.6 = 1.0 s.
        sample(ms(2400), Some(2.0), last_tx, &mut p);
        assert_eq!(p.rto.current(), SimDuration::from_millis(1000));
    }
}
