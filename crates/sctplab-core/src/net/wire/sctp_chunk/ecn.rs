//! Explicit Congestion Notification on the wire (RFC 9260 appendix A): the ECN Capable
//! parameter of INIT and INIT ACK and the ECNE and CWR chunks.

use super::super::{WireError, read_u32};
use super::params::expect_value_len;

/// ECN Capable (RFC 9260 appendix A, type 0x8000): a bare 4-byte header.
pub(super) const PARAM_ECN_CAPABLE: u16 = 0x8000;
pub(super) const ECN_CAPABLE_PARAM_LEN: usize = 4;
/// ECNE and CWR: header and the 32-bit Lowest TSN Number (appendix A).
pub(super) const ECN_CHUNK_VALUE_LEN: usize = 4;
/// usrsctp's ECNE also carries a count of CE-marked packets (draft-stewart-tsvwg-
/// sctpecn); accepted, the count ignored.
const ECNE_WITH_COUNT_VALUE_LEN: usize = 8;

/// Parses an ECNE's value: its Lowest TSN Number, with or without usrsctp's count.
pub(super) fn parse_ecne(value: &[u8]) -> Result<u32, WireError> {
    if value.len() != ECNE_WITH_COUNT_VALUE_LEN {
        expect_value_len(value, ECN_CHUNK_VALUE_LEN)?;
    }
    read_u32(value, 0)
}

/// Parses a CWR's value: exactly its Lowest TSN Number.
pub(super) fn parse_cwr(value: &[u8]) -> Result<u32, WireError> {
    expect_value_len(value, ECN_CHUNK_VALUE_LEN)?;
    read_u32(value, 0)
}
