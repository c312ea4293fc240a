//! Message interleaving's wire elements (RFC 8260 sec. 2): the I-DATA and I-FORWARD-TSN
//! chunks (INIT and INIT ACK list them in the Supported Extensions parameter, RFC 5061
//! sec. 4.2.7, which `sctp_chunk/auth.rs`'s `InitExtensions` carries). `sctp_chunk/` hooks the chunks into its `Chunk` enum for
//! emitting; the parser leaves them chunks of unknown type, which is what they are
//! to an end that does not negotiate interleaving (RFC 9260 sec. 3.2 then says what
//! to do with them), and `UnknownChunk::decode_interleaving` reads them.

use super::sctp_chunk::{CHUNK_HEADER_LEN, Chunk, DataFlags, UnknownChunk};
use super::{WireError, read_u16, read_u32, write_u16, write_u32};

/// I-DATA chunk type (RFC 8260 sec. 2.1): 64, high-order bits 01 (an end without it
/// stops processing the packet and reports the chunk, RFC 9260 sec. 3.2).
pub const I_DATA: u8 = 64;
/// I-FORWARD-TSN chunk type (RFC 8260 sec. 2.3.1): 194, bits 11 (skipped and reported).
pub const I_FORWARD_TSN: u8 = 194;

/// I-DATA (RFC 8260 sec. 2.1). The flags are DATA's (I, U, B, E); the 32-bit Message
/// Identifier replaces the SSN, and the field after it is the Payload Protocol
/// Identifier in a message's first fragment (B set) and the Fragment Sequence Number
/// in every other one (the first fragment's FSN is 0 implicitly). The user data is
/// `payload_len` zero bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IDataChunk {
    pub tsn: u32,
    pub stream: u16,
    pub mid: u32,
    /// PPID when `flags` has B, else the FSN (see `fsn`, `ppid`).
    pub ppid_fsn: u32,
    pub flags: DataFlags,
    pub payload_len: u32,
}

impl IDataChunk {
    /// Chunk header (4), TSN, stream identifier and reserved, MID, PPID/FSN.
    pub const HEADER_LEN: usize = 20;

    /// Length field of an I-DATA chunk carrying `payload_len` bytes.
    pub const fn len_for(payload_len: usize) -> usize {
        IDataChunk::HEADER_LEN + payload_len
    }

    /// The fragment's sequence number within its message (sec. 2.1: 0 for the first).
    pub fn fsn(&self) -> u32 {
        if self.flags.contains(DataFlags::BEGIN) {
            0
        } else {
            self.ppid_fsn
        }
    }

    /// The payload protocol identifier, carried by the first fragment only.
    pub fn ppid(&self) -> Option<u32> {
        self.flags
            .contains(DataFlags::BEGIN)
            .then_some(self.ppid_fsn)
    }

    /// Writes the chunk's value (after the 4-byte chunk header); the payload is zeros.
    pub fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.tsn);
        write_u16(value, 4, self.stream);
        write_u16(value, 6, 0);
        write_u32(value, 8, self.mid);
        write_u32(value, 12, self.ppid_fsn);
        value[16..].fill(0);
    }

    /// Parses the chunk's value; `len` is the chunk length field (at least the
    /// 20-byte header, or it is a bad length).
    pub fn parse_value(value: &[u8], flags: u8, len: usize) -> Result<IDataChunk, WireError> {
        if len < IDataChunk::HEADER_LEN || value.len() < IDataChunk::HEADER_LEN - 4 {
            return Err(WireError::BadLength);
        }
        Ok(IDataChunk {
            tsn: read_u32(value, 0)?,
            stream: read_u16(value, 4)?,
            mid: read_u32(value, 8)?,
            ppid_fsn: read_u32(value, 12)?,
            flags: DataFlags::from_bits(flags),
            payload_len: (len - IDataChunk::HEADER_LEN) as u32,
        })
    }
}

/// One I-FORWARD-TSN entry (sec. 2.3.1): the stream, whether the skipped message was
/// sent unordered (U), and the largest skipped Message Identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkippedMessage {
    pub stream: u16,
    pub unordered: bool,
    pub mid: u32,
}

/// I-FORWARD-TSN (RFC 8260 sec. 2.3.1): FORWARD TSN with MIDs, and entries for
/// unordered messages too (their MIDs are a space of their own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IForwardTsnChunk {
    pub new_cum_tsn: u32,
    pub skipped: Vec<SkippedMessage>,
}

impl IForwardTsnChunk {
    /// Chunk header (4) and the new cumulative TSN (4).
    pub const FIXED_LEN: usize = 8;
    const ENTRY_LEN: usize = 8;

    /// The value of the length field: 8 + 8 per entry.
    pub fn len(&self) -> usize {
        Self::FIXED_LEN + Self::ENTRY_LEN * self.skipped.len()
    }

    /// Never empty: the chunk always has its fixed part.
    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.new_cum_tsn);
        for (k, s) in self.skipped.iter().enumerate() {
            let at = 4 + k * Self::ENTRY_LEN;
            write_u16(value, at, s.stream);
            // 15 reserved bits, then U.
            write_u16(value, at + 2, u16::from(s.unordered));
            write_u32(value, at + 4, s.mid);
        }
    }

    /// Parses the chunk's value: the new cumulative TSN, then whole 8-byte entries
    /// (anything else is a bad length); reserved bits are ignored.
    pub fn parse_value(value: &[u8]) -> Result<IForwardTsnChunk, WireError> {
        if value.len() < 4 || (value.len() - 4) % Self::ENTRY_LEN != 0 {
            return Err(WireError::BadLength);
        }
        let new_cum_tsn = read_u32(value, 0)?;
        let mut skipped = Vec::with_capacity((value.len() - 4) / Self::ENTRY_LEN);
        let mut at = 4;
        while at < value.len() {
            skipped.push(SkippedMessage {
                stream: read_u16(value, at)?,
                unordered: read_u16(value, at + 2)? & 1 == 1,
                mid: read_u32(value, at + 4)?,
            });
            at += Self::ENTRY_LEN;
        }
        Ok(IForwardTsnChunk {
            new_cum_tsn,
            skipped,
        })
    }
}

impl UnknownChunk {
    /// An I-DATA or I-FORWARD-TSN read from its bytes (a malformed one is an error);
    /// None for a chunk of any other type.
    pub fn decode_interleaving(&self) -> Option<Result<Chunk, WireError>> {
        let len = CHUNK_HEADER_LEN + self.value.len();
        match self.kind {
            I_DATA => Some(IDataChunk::parse_value(&self.value, self.flags, len).map(Chunk::IData)),
            I_FORWARD_TSN => {
                Some(IForwardTsnChunk::parse_value(&self.value).map(Chunk::IForwardTsn))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
