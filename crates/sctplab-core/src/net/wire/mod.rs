//! Packet wire formats: IPv4, UDP, TCP and SCTP headers as plain "Repr"
//! values that can be emitted to bytes and parsed back.
//!
//! The simulator never carries real application bytes; payloads are zeros.
//! These encoders exist so that traces (pcap) and tests see real, checksummed
//! packets with the sizes a real stack would put on the wire.
//!
//! Conventions shared by every module here:
//! - `buffer_len()` is the number of bytes `emit` writes.
//! - `emit` writes into a caller-provided slice and panics if that slice is
//!   too short or a length does not fit its field (a programming error).
//! - `parse` never panics, whatever the input: every access is bounds-checked
//!   and failures come back as [`WireError`].
//!
//! Sibling modules refer to each other only through `super::`, so this module
//! can be mounted anywhere in a crate.

use std::fmt;

pub mod checksum;
pub mod ipv4;
pub mod packet;
pub mod sctp;
pub mod sctp_chunk;
pub mod sctp_forward_tsn;
pub mod sctp_idata;
pub mod tcp;
pub mod udp;

pub use ipv4::{HEADER_LEN as IPV4_HEADER_LEN, Ipv4Repr};
pub use packet::{TransportRepr, emit_ipv4_packet, emit_ipv4_udp_with_payload, parse_ipv4_packet};
pub use sctp::{HEADER_LEN as SCTP_HEADER_LEN, SctpRepr};
pub use sctp_chunk::{
    AsconfAckChunk, AsconfChunk, AsconfOp, AsconfParam, AsconfResponse, asconf_cause, asconf_param,
};
pub use sctp_chunk::{
    AuthChunk, HMAC_SHA1, HMAC_SHA256, InitExtensions, ReconfigChunk, ReconfigParam, ReconfigResult,
};
pub use sctp_chunk::{
    Chunk, DataChunk, DataFlags, ErrorCause, InitAckChunk, InitChunk, SackChunk, UnknownChunk,
    cause,
};
pub use sctp_chunk::{NrSackChunk, TimestampChunk};
pub use sctp_forward_tsn::ForwardTsnChunk;
pub use tcp::{SackBlocks, TcpFlags, TcpOptions, TcpRepr};
pub use udp::UdpRepr;

/// IP protocol numbers (IANA "Assigned Internet Protocol Numbers").
///
/// A namespace only: protocol fields stay plain `u8` so that numbers this
/// module does not know survive parsing and can be reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpProtocol {}

impl IpProtocol {
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const SCTP: u8 = 132;
}

/// Why a buffer could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The buffer ends before the structure it should contain.
    Truncated,
    /// A length field is impossible: smaller than its header, larger than
    /// its container, or not matching the counts it must agree with.
    BadLength,
    /// The checksum (internet checksum or SCTP CRC32c) does not match.
    BadChecksum,
    /// The IP version field is not 4.
    BadVersion(u8),
    /// An IP protocol number this module does not decode.
    UnsupportedProtocol(u8),
    /// An SCTP chunk type this module does not decode.
    UnsupportedChunk(u8),
    /// Valid on the wire but outside what the Repr types can express
    /// (for example an IPv4 fragment).
    Unsupported(&'static str),
    /// Structurally invalid content not covered by the other variants.
    Malformed(&'static str),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated => f.write_str("buffer truncated"),
            WireError::BadLength => f.write_str("inconsistent length field"),
            WireError::BadChecksum => f.write_str("checksum mismatch"),
            WireError::BadVersion(v) => write!(f, "unexpected IP version {v}"),
            WireError::UnsupportedProtocol(p) => write!(f, "unsupported IP protocol {p}"),
            WireError::UnsupportedChunk(t) => write!(f, "unsupported SCTP chunk type {t}"),
            WireError::Unsupported(what) => write!(f, "unsupported: {what}"),
            WireError::Malformed(what) => write!(f, "malformed: {what}"),
        }
    }
}

impl std::error::Error for WireError {}

// Bounds-checked big-endian readers shared by the parsers. Offsets come from
// attacker-controlled length fields, so even the index arithmetic is checked.

fn read_u8(buf: &[u8], at: usize) -> Result<u8, WireError> {
    buf.get(at).copied().ok_or(WireError::Truncated)
}

fn read_u16(buf: &[u8], at: usize) -> Result<u16, WireError> {
    let end = at.checked_add(2).ok_or(WireError::Truncated)?;
    match buf.get(at..end) {
        Some(&[a, b]) => Ok(u16::from_be_bytes([a, b])),
        _ => Err(WireError::Truncated),
    }
}

fn read_u32(buf: &[u8], at: usize) -> Result<u32, WireError> {
    let end = at.checked_add(4).ok_or(WireError::Truncated)?;
    match buf.get(at..end) {
        Some(&[a, b, c, d]) => Ok(u32::from_be_bytes([a, b, c, d])),
        _ => Err(WireError::Truncated),
    }
}

// Writers used by `emit`; they panic on a short buffer, which `emit`
// documents as a caller error.

fn write_u16(buf: &mut [u8], at: usize, value: u16) {
    buf[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

fn write_u32(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

/// Converts an encoded length to its 16-bit field, panicking with a clear
/// message instead of silently truncating.
fn len_u16(len: usize, what: &str) -> u16 {
    assert!(
        len <= usize::from(u16::MAX),
        "{what} length {len} does not fit a 16-bit field"
    );
    len as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_are_bounds_checked() {
        let buf = [1u8, 2, 3];
        assert_eq!(read_u8(&buf, 2), Ok(3));
        assert_eq!(read_u8(&buf, 3), Err(WireError::Truncated));
        assert_eq!(read_u16(&buf, 1), Ok(0x0203));
        assert_eq!(read_u16(&buf, 2), Err(WireError::Truncated));
        assert_eq!(read_u16(&buf, usize::MAX), Err(WireError::Truncated));
        assert_eq!(read_u32(&buf, 0), Err(WireError::Truncated));
        assert_eq!(read_u32(&[0, 0, 1, 0], 0), Ok(256));
        assert_eq!(read_u32(&buf, usize::MAX - 1), Err(WireError::Truncated));
    }

    #[test]
    fn error_display_and_protocol_numbers() {
        assert_eq!(
            WireError::UnsupportedChunk(9).to_string(),
            "unsupported SCTP chunk type 9"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(WireError::BadChecksum);
        assert_eq!(boxed.to_string(), "checksum mismatch");
        assert_eq!(
            (IpProtocol::TCP, IpProtocol::UDP, IpProtocol::SCTP),
            (6, 17, 132)
        );
    }

    #[test]
    #[should_panic(expected = "does not fit a 16-bit field")]
    fn oversized_length_field_panics() {
        len_u16(65536, "test");
    }
}
