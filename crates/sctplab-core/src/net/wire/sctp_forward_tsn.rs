//! PR-SCTP's wire elements (RFC 3758 sec. 3.1, 3.2): the Forward-TSN-Supported
//! parameter of INIT and INIT ACK and the FORWARD TSN chunk. `sctp_chunk/` hooks
//! them into its parameter walk and its `Chunk` enum.

use super::{WireError, read_u16, read_u32, write_u16, write_u32};

/// Forward-TSN-Supported parameter type (RFC 3758 sec. 3.1): 0xC000, whose two
/// high-order bits (11) tell a peer without PR-SCTP to skip it and report it (RFC 9260
/// 3.2.1), which is how the sender learns the peer lacks the extension.
pub const PARAM_FORWARD_TSN_SUPPORTED: u16 = 0xC000;
/// The parameter has no value: type and length only.
pub const FORWARD_TSN_SUPPORTED_PARAM_LEN: usize = 4;

/// FORWARD TSN chunk type (RFC 3758 sec. 3.2): 192, high-order bits 11 (a receiver
/// without PR-SCTP skips it and reports it).
pub const FORWARD_TSN: u8 = 192;

/// FORWARD TSN (RFC 3758 sec. 3.2): the new cumulative TSN and, per stream whose
/// ordered messages were skipped, the largest skipped stream sequence number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardTsnChunk {
    pub new_cum_tsn: u32,
    /// (stream, SSN) pairs, one per stream.
    pub streams: Vec<(u16, u16)>,
}

impl ForwardTsnChunk {
    /// Chunk header (4) and the new cumulative TSN (4).
    pub const FIXED_LEN: usize = 8;

    /// The value of the length field: 8 + 4 per stream (always a multiple of 4).
    pub fn len(&self) -> usize {
        Self::FIXED_LEN + 4 * self.streams.len()
    }

    /// Never empty: the chunk always has its fixed part.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the chunk's value (after the 4-byte chunk header) into `value`.
    pub fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.new_cum_tsn);
        let mut at = 4;
        for &(stream, ssn) in &self.streams {
            write_u16(value, at, stream);
            write_u16(value, at + 2, ssn);
            at += 4;
        }
    }

    /// Parses the chunk's value: 4 bytes of new cumulative TSN, then whole 4-byte
    /// stream/SSN pairs (anything else is a bad length).
    pub fn parse_value(value: &[u8]) -> Result<ForwardTsnChunk, WireError> {
        if value.len() < 4 || (value.len() - 4) % 4 != 0 {
            return Err(WireError::BadLength);
        }
        let new_cum_tsn = read_u32(value, 0)?;
        let mut streams = Vec::with_capacity((value.len() - 4) / 4);
        let mut at = 4;
        while at < value.len() {
            streams.push((read_u16(value, at)?, read_u16(value, at + 2)?));
            at += 4;
        }
        Ok(ForwardTsnChunk {
            new_cum_tsn,
            streams,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::wire::Chunk;

    #[test]
    fn forward_tsn_bytes_are_rfc_3758_sec_3_2() {
        // Type 192, flags 0, length 8 + 4 x 2 = 16, new cumulative TSN 0x01020304,
        // then stream 5 / SSN 7 and stream 9 / SSN 0xffff.
        let c = Chunk::ForwardTsn(ForwardTsnChunk {
            new_cum_tsn: 0x0102_0304,
            streams: vec![(5, 7), (9, 0xffff)],
        });
        let mut buf = [0u8; 16];
        assert_eq!(c.emit(&mut buf), 16);
        assert_eq!(
            buf,
            [192, 0, 0, 16, 1, 2, 3, 4, 0, 5, 0, 7, 0, 9, 0xff, 0xff]
        );
        let (back, used) = Chunk::parse(&buf).expect("parses");
        assert_eq!((back, used), (c, 16));
    }

    #[test]
    fn a_forward_tsn_with_a_half_pair_is_rejected() {
        // Length 10: the new cumulative TSN and two stray bytes.
        let buf = [192u8, 0, 0, 10, 0, 0, 0, 1, 0, 5, 0, 0];
        assert_eq!(Chunk::parse(&buf), Err(WireError::BadLength));
        let short = [192u8, 0, 0, 6, 0, 0, 0, 0];
        assert_eq!(Chunk::parse(&short), Err(WireError::BadLength));
    }
}
