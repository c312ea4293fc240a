//! Builders shared by the receiving half's unit tests.

use super::*;

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

pub(super) fn inbound(buffer: u64, streams: u16) -> Inbound {
    Inbound::new(100, buffer, streams, None, Window::ALL, 1468, true)
}
