//! The association's control chunks with a value to encode (RFC 9260 §3.3.5-§3.3.13):
//! HEARTBEAT's info, ERROR's causes and the chunks this module does not know. The
//! fixed-size ones (ABORT, SHUTDOWN*, COOKIE*) need no more than the dispatch in
//! `mod.rs`.

use super::super::{WireError, len_u16};
use super::params::{PARAM_HEADER_LEN, emit_param, tlvs_len, walk_params};
use super::{CHUNK_HEADER_LEN, Chunk, FLAG_T, pad4};

/// Error cause codes (§3.3.10).
pub mod cause {
    /// Invalid Stream Identifier (§3.3.10.1): the stream id, then two reserved bytes.
    pub const INVALID_STREAM_IDENTIFIER: u16 = 1;
    /// Unrecognized Chunk Type (§3.3.10.6): the chunk, complete with its header.
    pub const UNRECOGNIZED_CHUNK_TYPE: u16 = 6;
    /// Unrecognized Parameters (§3.3.10.8): the complete parameter TLVs.
    pub const UNRECOGNIZED_PARAMETERS: u16 = 8;
    /// Stale Cookie (§3.3.10.3): the measure of staleness in microseconds.
    pub const STALE_COOKIE: u16 = 3;
    /// Cookie Received While Shutting Down (§3.3.10.10): no information.
    pub const COOKIE_WHILE_SHUTTING_DOWN: u16 = 10;
}

/// Heartbeat Info parameter (§3.3.5).
const PARAM_HEARTBEAT_INFO: u16 = 1;

/// One error cause of an ERROR chunk (§3.3.10): code and cause-specific information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorCause {
    pub code: u16,
    pub info: Vec<u8>,
}

/// A chunk whose type this module does not know (§3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownChunk {
    pub kind: u8,
    pub flags: u8,
    pub value: Vec<u8>,
}

impl UnknownChunk {
    /// §3.2: type bits 00 and 01 stop the processing of the packet (this chunk and
    /// all after it are discarded); 10 and 11 skip only this chunk.
    pub fn stops_packet(&self) -> bool {
        self.kind & 0x80 == 0
    }

    /// §3.2: type bits 01 and 11 ask for an ERROR chunk with an "Unrecognized Chunk
    /// Type" cause.
    pub fn reports(&self) -> bool {
        self.kind & 0x40 != 0
    }

    /// The chunk as it arrived (header and value, no padding): the information of
    /// its "Unrecognized Chunk Type" cause (§3.3.10.6).
    pub fn cause(&self) -> ErrorCause {
        let len = CHUNK_HEADER_LEN + self.value.len();
        let mut info = Vec::with_capacity(len);
        info.push(self.kind);
        info.push(self.flags);
        info.extend_from_slice(&len_u16(len, "SCTP chunk").to_be_bytes());
        info.extend_from_slice(&self.value);
        ErrorCause {
            code: cause::UNRECOGNIZED_CHUNK_TYPE,
            info,
        }
    }
}

pub(super) fn parse_heartbeat_info(value: &[u8]) -> Result<Vec<u8>, WireError> {
    let mut info = None;
    walk_params(value, |ptype, pvalue| {
        if ptype == PARAM_HEARTBEAT_INFO && info.is_none() {
            info = Some(pvalue);
        }
    })?;
    info.map(<[u8]>::to_vec)
        .ok_or(WireError::Malformed("HEARTBEAT without Heartbeat Info"))
}

/// Writes the Heartbeat Info parameter that is a HEARTBEAT's or HEARTBEAT ACK's value.
pub(super) fn emit_heartbeat_info(value: &mut [u8], info: &[u8]) {
    emit_param(value, PARAM_HEARTBEAT_INFO, info);
}

/// Length of an ERROR chunk's value: its causes as TLVs, the last one unpadded.
pub(super) fn error_value_len(causes: &[ErrorCause]) -> usize {
    tlvs_len(causes.iter().map(|c| PARAM_HEADER_LEN + c.info.len()))
}

/// Writes an ERROR chunk's causes, each padded to 4 as far as the value reaches.
pub(super) fn emit_causes(value: &mut [u8], causes: &[ErrorCause]) {
    let mut at = 0;
    for c in causes {
        let end = (at + pad4(PARAM_HEADER_LEN + c.info.len())).min(value.len());
        emit_param(&mut value[at..], c.code, &c.info);
        value[at + PARAM_HEADER_LEN + c.info.len()..end].fill(0);
        at = end;
    }
}

/// Parses an ERROR chunk's value into its causes.
pub(super) fn parse_error(value: &[u8], flags: u8) -> Result<Chunk, WireError> {
    let mut causes = Vec::new();
    walk_params(value, |code, info| {
        causes.push(ErrorCause {
            code,
            info: info.to_vec(),
        })
    })?;
    Ok(Chunk::Error {
        t_bit: flags & FLAG_T != 0,
        causes,
    })
}
