//! The TIMESTAMP chunk of ns-2.35's Agent/SCTP/Timestamp (`sctp-timestamp.h`,
//! `SctpTimestampChunk_S`; sctp/timestamp.rs has the rules): a 4-byte chunk header and
//! two 32-bit IEEE-754 floats, the sender's clock in seconds and the echo of the peer's,
//! 12 bytes with no padding. Flag bit 0 says the timestamp is set, bit 1 the echo.
//!
//! ns-2.35 numbers its chunk types by an enum (`SCTP_CHUNK_TIMESTAMP` is 16, which the
//! real world gives NR-SACK) and never puts them on a wire. No RFC or draft defines the
//! chunk, so this one takes type 0xB0, unassigned by IANA, whose high-order bits 10 tell
//! an endpoint that does not know it to skip it and go on without reporting (RFC 9260
//! sec. 3.2): a real stack, or tshark, passes over it.

use super::super::{WireError, read_u32, write_u32};
use super::params::expect_value_len;

/// Chunk type of TIMESTAMP (this simulator's choice, see the module docs).
pub const TIMESTAMP: u8 = 0xB0;
/// Flag bit 0: `timestamp` holds the sender's clock (ns-2 `SCTP_TIMESTAMP_FLAG_TS`).
pub const FLAG_TS: u8 = 0x01;
/// Flag bit 1: `echo` holds a timestamp received from the peer
/// (ns-2 `SCTP_TIMESTAMP_FLAG_ECHO`).
pub const FLAG_ECHO: u8 = 0x02;

/// The value's length: two 4-byte floats.
pub(super) const VALUE_LEN: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimestampChunk {
    /// The sender's clock in seconds when `FLAG_TS` is set.
    pub timestamp: Option<f32>,
    /// A timestamp the peer sent, when `FLAG_ECHO` is set.
    pub echo: Option<f32>,
}

// The floats come from a clock and are compared bit for bit (`f32::to_bits`): no NaN
// is ever put into one, and a parsed NaN compares unequal to every timestamp anyway.
impl Eq for TimestampChunk {}

impl TimestampChunk {
    /// Header and value: ns-2's `sizeof(SctpTimestampChunk_S)`.
    pub const LEN: usize = 12;

    pub(super) fn flags(&self) -> u8 {
        (if self.timestamp.is_some() { FLAG_TS } else { 0 })
            | (if self.echo.is_some() { FLAG_ECHO } else { 0 })
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.timestamp.map_or(0, f32::to_bits));
        write_u32(value, 4, self.echo.map_or(0, f32::to_bits));
    }

    /// A value of any other length is malformed (fixed-size chunk, module docs of
    /// `sctp_chunk`); a field whose flag is clear is ignored.
    pub(super) fn parse_value(value: &[u8], flags: u8) -> Result<Self, WireError> {
        expect_value_len(value, VALUE_LEN)?;
        let ts = f32::from_bits(read_u32(value, 0)?);
        let echo = f32::from_bits(read_u32(value, 4)?);
        Ok(TimestampChunk {
            timestamp: (flags & FLAG_TS != 0).then_some(ts),
            echo: (flags & FLAG_ECHO != 0).then_some(echo),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Chunk;
    use super::*;

    #[test]
    fn timestamp_chunk_is_twelve_bytes_with_its_flags_and_floats() {
        // 1.5 s is 0x3FC00000 in IEEE-754 single precision, 0.25 s 0x3E800000.
        let c = Chunk::Timestamp(TimestampChunk {
            timestamp: Some(1.5),
            echo: Some(0.25),
        });
        assert_eq!((c.len(), c.padded_len()), (12, 12));
        let mut buf = [0xFFu8; 12];
        assert_eq!(c.emit(&mut buf), 12);
        assert_eq!(buf, [0xB0, 0x03, 0, 12, 0x3F, 0xC0, 0, 0, 0x3E, 0x80, 0, 0]);
        assert_eq!(Chunk::parse(&buf), Ok((c, 12)));
        // Only the echo (a SACK packet of ns-2's receiver): the timestamp field is zero
        // and ignored.
        let c = Chunk::Timestamp(TimestampChunk {
            timestamp: None,
            echo: Some(1.5),
        });
        c.emit(&mut buf);
        assert_eq!(&buf[..8], &[0xB0, 0x02, 0, 12, 0, 0, 0, 0]);
        assert_eq!(Chunk::parse(&buf), Ok((c, 12)));
        // A fixed-size chunk of the wrong size is malformed.
        let short = [0xB0, 0x01, 0, 8, 0, 0, 0, 0];
        assert_eq!(Chunk::parse(&short), Err(WireError::BadLength));
    }
}
