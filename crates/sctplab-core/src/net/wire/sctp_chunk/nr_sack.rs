//! The NR-SACK chunk (non-renegable SACK, draft-natarajan-tsvwg-sctp-nrsack; type
//! 0x10 as FreeBSD's and usrsctp's `SCTP_NR_SELECTIVE_ACK`; ns-2.35's
//! `SctpNonRenegSackChunk_S`): a SACK whose Gap Ack Blocks report the out-of-order
//! TSNs the receiver may still renege on and whose NR Gap Ack Blocks, after them,
//! report the ones it will not renege on. The two sets are disjoint (ns-2.35's
//! `GenChunk` and usrsctp's `sctp_send_sack` build them so).
//!
//! Value: Cumulative TSN Ack (4), a_rwnd (4), Number of Gap Ack Blocks (2), Number of
//! NR Gap Ack Blocks (2), Number of Duplicate TSNs (2), Reserved (2), then the Gap Ack
//! Blocks, the NR Gap Ack Blocks (start and end offsets from the cumulative TSN, 2 + 2
//! each) and the duplicate TSNs (4 each).

use super::super::{WireError, len_u16, write_u16, write_u32};
use super::{CHUNK_HEADER_LEN, SackChunk};

/// Chunk type of NR-SACK.
pub const NR_SACK: u8 = 0x10;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NrSackChunk {
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    /// Renegable Gap Ack Blocks `(start, end)`, offsets from `cum_tsn_ack`.
    pub gaps: Vec<(u16, u16)>,
    /// NR Gap Ack Blocks, the same way.
    pub nr_gaps: Vec<(u16, u16)>,
    pub dups: Vec<u32>,
    /// Chunk flags: CMT's delayed-ack count, as in a SACK (ns-2.35 writes it into the
    /// NR-SACK's flags too).
    pub flags: u8,
}

impl NrSackChunk {
    /// Chunk header and the fixed fields.
    pub const FIXED_LEN: usize = 20;

    pub fn len_with(n_gaps: usize, n_nr: usize, n_dups: usize) -> usize {
        Self::FIXED_LEN + 4 * (n_gaps + n_nr + n_dups)
    }

    pub(super) fn value_len(&self) -> usize {
        Self::len_with(self.gaps.len(), self.nr_gaps.len(), self.dups.len()) - CHUNK_HEADER_LEN
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.cum_tsn_ack);
        write_u32(value, 4, self.a_rwnd);
        write_u16(value, 8, len_u16(self.gaps.len(), "NR-SACK gap count"));
        write_u16(
            value,
            10,
            len_u16(self.nr_gaps.len(), "NR-SACK NR gap count"),
        );
        write_u16(value, 12, len_u16(self.dups.len(), "NR-SACK dup count"));
        write_u16(value, 14, 0);
        let mut at = 16;
        for &(start, end) in self.gaps.iter().chain(&self.nr_gaps) {
            write_u16(value, at, start);
            write_u16(value, at + 2, end);
            at += 4;
        }
        for &tsn in &self.dups {
            write_u32(value, at, tsn);
            at += 4;
        }
    }

    pub(super) fn parse_value(value: &[u8], flags: u8) -> Result<Self, WireError> {
        if value.len() + CHUNK_HEADER_LEN < Self::FIXED_LEN {
            return Err(WireError::Truncated);
        }
        let u16_at = |at: usize| u16::from_be_bytes([value[at], value[at + 1]]);
        let u32_at = |at: usize| {
            u32::from_be_bytes([value[at], value[at + 1], value[at + 2], value[at + 3]])
        };
        let (n_gaps, n_nr, n_dups) = (
            usize::from(u16_at(8)),
            usize::from(u16_at(10)),
            usize::from(u16_at(12)),
        );
        // The counts and the chunk length must agree exactly (as for a SACK).
        if value.len() + CHUNK_HEADER_LEN != Self::len_with(n_gaps, n_nr, n_dups) {
            return Err(WireError::BadLength);
        }
        let block = |at: usize| (u16_at(at), u16_at(at + 2));
        let gaps_end = 16 + 4 * n_gaps;
        let nr_end = gaps_end + 4 * n_nr;
        Ok(NrSackChunk {
            cum_tsn_ack: u32_at(0),
            a_rwnd: u32_at(4),
            gaps: (16..gaps_end).step_by(4).map(block).collect(),
            nr_gaps: (gaps_end..nr_end).step_by(4).map(block).collect(),
            dups: (nr_end..nr_end + 4 * n_dups)
                .step_by(4)
                .map(u32_at)
                .collect(),
            flags,
        })
    }

    /// The SACK the sender's loss recovery reads: every block, renegable or not, and
    /// the offsets in `extra` (TSNs freed by earlier NR-SACKs, which stay acked),
    /// sorted and merged where they touch.
    pub fn as_sack(&self, extra: &[(u16, u16)]) -> SackChunk {
        let lists = [&self.gaps[..], &self.nr_gaps[..], extra];
        let valid = |&(s, e): &(u16, u16)| s >= 1 && s <= e;
        let mut gaps: Vec<(u16, u16)> = Vec::with_capacity(lists.iter().map(|l| l.len()).sum());
        let mut add = |(s, e): (u16, u16)| match gaps.last_mut() {
            Some(last) if u32::from(s) <= u32::from(last.1) + 1 => last.1 = last.1.max(e),
            _ => gaps.push((s, e)),
        };
        if lists.iter().all(|l| l.is_sorted()) {
            // Each list in order already (as this crate's receiver and usrsctp build
            // them): merged in one sweep, the order a sort of the three would give.
            let mut at = [0usize; 3];
            loop {
                let mut next: Option<(usize, (u16, u16))> = None;
                for (k, l) in lists.iter().enumerate() {
                    if let Some(&b) = l.get(at[k])
                        && next.is_none_or(|(_, n)| b < n)
                    {
                        next = Some((k, b));
                    }
                }
                let Some((k, b)) = next else { break };
                at[k] += 1;
                if valid(&b) {
                    add(b);
                }
            }
        } else {
            let mut all: Vec<(u16, u16)> = lists
                .iter()
                .flat_map(|l| l.iter().copied())
                .filter(valid)
                .collect();
            all.sort_unstable();
            all.into_iter().for_each(&mut add);
        }
        SackChunk {
            cum_tsn_ack: self.cum_tsn_ack,
            a_rwnd: self.a_rwnd,
            gaps,
            dups: self.dups.clone(),
            flags: self.flags,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Chunk;
    use super::*;

    #[test]
    fn round_trips_with_both_block_lists() {
        let c = Chunk::NrSack(NrSackChunk {
            cum_tsn_ack: 100,
            a_rwnd: 5000,
            gaps: vec![(2, 3)],
            nr_gaps: vec![(5, 6), (9, 9)],
            dups: vec![77],
            flags: 2,
        });
        let mut buf = vec![0u8; c.padded_len()];
        // 20 fixed + 3 blocks + 1 dup = 36 bytes.
        assert_eq!(c.emit(&mut buf), 36);
        assert_eq!(&buf[..4], &[0x10, 2, 0, 36]);
        // Counts: 1 gap block, 2 NR gap blocks, 1 duplicate, reserved 0.
        assert_eq!(&buf[12..20], &[0, 1, 0, 2, 0, 1, 0, 0]);
        let (back, used) = Chunk::parse(&buf).expect("parses");
        assert_eq!((back, used), (c, 36));
    }

    #[test]
    fn counts_that_disagree_with_the_length_are_refused() {
        let mut buf = vec![0u8; 24];
        buf[0] = NR_SACK;
        buf[3] = 24;
        buf[15] = 2; // two NR blocks announced, room for one
        assert!(Chunk::parse(&buf).is_err());
        assert!(Chunk::parse(&buf[..12]).is_err());
    }

    #[test]
    fn the_sack_view_merges_every_block() {
        let nr = NrSackChunk {
            cum_tsn_ack: 10,
            a_rwnd: 0,
            gaps: vec![(2, 3), (8, 8)],
            nr_gaps: vec![(4, 5)],
            dups: vec![],
            flags: 0,
        };
        assert_eq!(nr.as_sack(&[]).gaps, vec![(2, 5), (8, 8)]);
        assert_eq!(nr.as_sack(&[(6, 7)]).gaps, vec![(2, 8)]);
    }
}
