//! The SACK chunk (RFC 9260 §3.3.4).

use super::super::{WireError, len_u16, read_u16, write_u16, write_u32};
use super::CHUNK_HEADER_LEN;

/// SACK chunk (§3.3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SackChunk {
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    /// Gap Ack Blocks `(start, end)`, offsets relative to `cum_tsn_ack`.
    pub gaps: Vec<(u16, u16)>,
    /// Duplicate TSNs received since the last SACK.
    pub dups: Vec<u32>,
    /// The chunk flags, unused by RFC 9260; CMT's delayed ack (ns-2.35
    /// `Agent/SCTP/CMT`, `useCmtDelAck_`) puts there the DATA packets received since
    /// the previous SACK.
    pub flags: u8,
}

impl SackChunk {
    /// Fixed part: chunk header, cumulative TSN ack, a_rwnd, two counts.
    pub const FIXED_LEN: usize = 16;
    /// The largest SACK chunk a 16-bit length can describe, rounded down
    /// to whole 4-byte entries.
    const MAX_LEN: usize = 65532;

    /// Length of a SACK with `n_gaps` gap blocks and `n_dups` duplicate
    /// TSNs: 16 + 4 * n_gaps + 4 * n_dups (always a multiple of 4).
    pub const fn len_with(n_gaps: usize, n_dups: usize) -> usize {
        SackChunk::FIXED_LEN + 4 * n_gaps + 4 * n_dups
    }

    /// How many gap blocks fit in a SACK chunk of at most `room` bytes that
    /// also reports `n_dups` duplicates. Protocol code passes what is left of
    /// the path MTU after the IP and SCTP common headers (and any bundled
    /// chunks); 0 if not even the fixed part and the duplicates fit.
    pub const fn max_gaps_fitting(room: usize, n_dups: usize) -> usize {
        let room = if room < SackChunk::MAX_LEN {
            room
        } else {
            SackChunk::MAX_LEN
        };
        let fixed = SackChunk::len_with(0, n_dups);
        if room < fixed { 0 } else { (room - fixed) / 4 }
    }

    /// Writes the chunk's value: cumulative TSN ack, a_rwnd, the counts, the gap
    /// blocks and the duplicate TSNs.
    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.cum_tsn_ack);
        write_u32(value, 4, self.a_rwnd);
        write_u16(value, 8, len_u16(self.gaps.len(), "SACK gap count"));
        write_u16(value, 10, len_u16(self.dups.len(), "SACK dup count"));
        let mut at = 12;
        for &(start, end) in &self.gaps {
            write_u16(value, at, start);
            write_u16(value, at + 2, end);
            at += 4;
        }
        for &tsn in &self.dups {
            write_u32(value, at, tsn);
            at += 4;
        }
    }
}

pub(super) fn parse_sack(value: &[u8], flags: u8) -> Result<SackChunk, WireError> {
    let mut sack = SackChunk {
        cum_tsn_ack: 0,
        a_rwnd: 0,
        gaps: Vec::new(),
        dups: Vec::new(),
        flags,
    };
    parse_sack_into(value, &mut sack)?;
    Ok(sack)
}

/// Reads a SACK's value into `sack`, reusing its lists; `sack` is untouched on an
/// error (every check comes before the first write).
pub(super) fn parse_sack_into(value: &[u8], sack: &mut SackChunk) -> Result<(), WireError> {
    let n_gaps = usize::from(read_u16(value, 8)?);
    let n_dups = usize::from(read_u16(value, 10)?);
    // The counts and the chunk length must agree exactly (§3.3.4).
    if value.len() + CHUNK_HEADER_LEN != SackChunk::len_with(n_gaps, n_dups) {
        return Err(WireError::BadLength);
    }
    // The length check above guarantees every read below is in bounds.
    let u16_at = |at: usize| u16::from_be_bytes([value[at], value[at + 1]]);
    let u32_at =
        |at: usize| u32::from_be_bytes([value[at], value[at + 1], value[at + 2], value[at + 3]]);
    sack.cum_tsn_ack = u32_at(0);
    sack.a_rwnd = u32_at(4);
    let gaps_end = 12 + 4 * n_gaps;
    sack.gaps.clear();
    sack.gaps.extend(
        (12..gaps_end)
            .step_by(4)
            .map(|at| (u16_at(at), u16_at(at + 2))),
    );
    sack.dups.clear();
    sack.dups
        .extend((gaps_end..gaps_end + 4 * n_dups).step_by(4).map(u32_at));
    Ok(())
}
