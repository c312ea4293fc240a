//! Builders shared by the receiving half's unit tests.

use super::*;

/// A DATA chunk with 1000 bytes of user data (1016 bytes with its header).
pub(super) fn data(tsn: u32, stream: u16, ssn: u16, flags: DataFlags) -> DataChunk {
    DataChunk {
        tsn,
        stream,
        ssn,
        ppid: 0,
        flags,
        payload_len: 1000,
    }
}

/// A receiver of the peer's initial TSN 100: no delayed SACK, the chunk room of a
/// 1500-byte packet (1500 - 20 - 12), and RFC 9260 6.2's SACK on a drop.
pub(super) fn inbound(buffer: u64, streams: u16) -> Inbound {
    Inbound::new(100, buffer, streams, None, Window::ALL, 1468, true)
}
