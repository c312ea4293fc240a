//! The DATA chunk (RFC 9260 §3.3.1) and its flags.

use std::fmt;
use std::ops::BitOr;

use super::super::{WireError, read_u16, read_u32, write_u16, write_u32};
use super::CHUNK_HEADER_LEN;

/// DATA chunk flags (RFC 9260 §3.3.1; I bit from RFC 7053). The upper four
/// bits are reserved and dropped by [`DataFlags::from_bits`].
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DataFlags(u8);

impl DataFlags {
    /// E: last fragment of a user message.
    pub const END: DataFlags = DataFlags(0x01);
    /// B: first fragment of a user message.
    pub const BEGIN: DataFlags = DataFlags(0x02);
    /// U: unordered delivery; the SSN is ignored.
    pub const UNORDERED: DataFlags = DataFlags(0x04);
    /// I: the receiver should SACK immediately (RFC 7053).
    pub const IMMEDIATE: DataFlags = DataFlags(0x08);
    /// B and E: a whole message in one chunk.
    pub const UNFRAGMENTED: DataFlags = DataFlags(0x03);

    const MASK: u8 = 0x0f;

    pub const fn empty() -> DataFlags {
        DataFlags(0)
    }

    pub const fn from_bits(bits: u8) -> DataFlags {
        DataFlags(bits & DataFlags::MASK)
    }

    pub const fn bits(self) -> u8 {
        self.0
    }

    pub const fn contains(self, other: DataFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: DataFlags) -> DataFlags {
        DataFlags(self.0 | other.0)
    }
}

impl BitOr for DataFlags {
    type Output = DataFlags;
    fn bitor(self, rhs: DataFlags) -> DataFlags {
        self.union(rhs)
    }
}

/// Prints the letters RFC 9260 uses, e.g. `DataFlags(UBE)`.
impl fmt::Debug for DataFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataFlags(")?;
        for (flag, letter) in [
            (DataFlags::IMMEDIATE, "I"),
            (DataFlags::UNORDERED, "U"),
            (DataFlags::BEGIN, "B"),
            (DataFlags::END, "E"),
        ] {
            if self.contains(flag) {
                f.write_str(letter)?;
            }
        }
        f.write_str(")")
    }
}

/// DATA chunk (§3.3.1). The user data is `payload_len` zero bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    pub tsn: u32,
    pub stream: u16,
    pub ssn: u16,
    pub ppid: u32,
    pub flags: DataFlags,
    pub payload_len: u32,
}

impl DataChunk {
    /// Chunk header plus TSN, stream id, SSN and PPID.
    pub const HEADER_LEN: usize = 16;

    /// Length field of a DATA chunk carrying `payload_len` bytes.
    pub const fn len_for(payload_len: usize) -> usize {
        DataChunk::HEADER_LEN + payload_len
    }

    /// Writes TSN, stream, SSN and PPID into the chunk's value; the payload is zeros.
    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.tsn);
        write_u16(value, 4, self.stream);
        write_u16(value, 6, self.ssn);
        write_u32(value, 8, self.ppid);
        value[12..].fill(0);
    }

    /// Parses a DATA chunk's value; `len` is the chunk length field.
    pub(super) fn parse_value(value: &[u8], flags: u8, len: usize) -> Result<DataChunk, WireError> {
        if value.len() < DataChunk::HEADER_LEN - CHUNK_HEADER_LEN {
            return Err(WireError::BadLength);
        }
        Ok(DataChunk {
            tsn: read_u32(value, 0)?,
            stream: read_u16(value, 4)?,
            ssn: read_u16(value, 6)?,
            ppid: read_u32(value, 8)?,
            flags: DataFlags::from_bits(flags),
            // len <= 65535, so this cannot truncate.
            payload_len: (len - DataChunk::HEADER_LEN) as u32,
        })
    }
}
