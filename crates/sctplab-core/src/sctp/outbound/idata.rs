//! The sending half with I-DATA negotiated (RFC 8260 sec. 2): chunks carry a 20-byte
//! header (MID and FSN in place of the SSN), so fewer payload bytes fit a packet;
//! the stream sources interleave messages (`streams/interleave.rs`). Everything else
//! (TSNs, SACKs, congestion control, retransmission) is DATA's.

use super::*;
use crate::net::wire::sctp_idata::IDataChunk;

impl Outbound {
    /// I-DATA was negotiated: from here on every chunk is an I-DATA chunk.
    pub fn set_idata(&mut self) {
        self.hdr = IDataChunk::HEADER_LEN;
        // A chunk is padded to 4 bytes and must fit the room with its header.
        self.max_payload = ((self.room.saturating_sub(self.hdr)) / 4 * 4).max(4) as u64;
        if let Some(s) = self.app.streams.as_mut() {
            s.set_interleave(true);
        }
    }

    /// Whether chunks go as I-DATA.
    pub fn idata(&self) -> bool {
        self.hdr == IDataChunk::HEADER_LEN
    }

    /// The I-DATA chunk for data chunk `d` of a packet being handed over (its record
    /// is in `sent`: nothing is acknowledged before it was sent). The first fragment
    /// carries the PPID (0) where the others carry their FSN (sec. 2.1).
    pub fn to_idata(&self, d: &DataChunk) -> IDataChunk {
        let (mid, fsn) = self
            .sent
            .front()
            .and_then(|f| self.sent.get(d.tsn.wrapping_sub(f.tsn) as usize))
            .filter(|s| s.tsn == d.tsn)
            .map_or((0, 0), |s| s.ids);
        IDataChunk {
            tsn: d.tsn,
            stream: d.stream,
            mid,
            ppid_fsn: if d.flags.contains(DataFlags::BEGIN) {
                d.ppid
            } else {
                fsn
            },
            flags: d.flags,
            payload_len: d.payload_len,
        }
    }
}
