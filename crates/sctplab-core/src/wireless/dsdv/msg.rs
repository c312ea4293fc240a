//! DSDV's update message as ns-2.35's `Agent/DSDV` builds it (dsdv/dsdv.cc `makeUpdate`,
//! `processUpdate`): a count byte, then per advertised destination its address (4
//! bytes), metric (1) and sequence number (4). DSDV has no RFC; this layout is ns-2's.
//!
//! Two lengths, as for AODV (`aodv/msg.rs`):
//! - [`DsdvUpdate::ns2_len`]: what ns-2 charges on the air, `12 n + 20` (its comment
//!   says "DSDV + IP": 12 bytes an entry and a 20-byte IP header, no UDP header);
//! - [`DsdvUpdate::encoded_len`]: the bytes of the layout above, `1 + 9 n`, which the
//!   pcap trace carries as the payload of UDP port [`DSDV_PORT`].

use crate::net::wire::WireError;

/// ns-2's `ROUTER_PORT` (dsdv.h), the port DSDV updates are addressed to; our packets
/// carry it as their UDP port.
pub const DSDV_PORT: u16 = 0xff;

/// ns-2's IP header length, charged to every update (dsdv.cc `IP_HDR_LEN`).
const NS2_IP_HDR_LEN: u32 = 20;
/// Bytes ns-2 charges per advertised destination.
const NS2_ENTRY_LEN: u32 = 12;
/// Bytes per destination in the encoded layout.
const ENTRY_LEN: usize = 9;

/// One advertised destination.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Advert {
    pub dst: u32,
    /// Hops from the sender; [`super::BIG`] is "unreachable".
    pub metric: u8,
    pub seqnum: u32,
}

/// A full ("periodic") or incremental ("triggered") update; both have the same layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsdvUpdate {
    pub entries: Vec<Advert>,
}

impl DsdvUpdate {
    /// Bytes ns-2.35 charges: `change_count * 12 + IP_HDR_LEN`.
    pub fn ns2_len(&self) -> u32 {
        NS2_ENTRY_LEN * self.entries.len() as u32 + NS2_IP_HDR_LEN
    }

    /// Length of the encoded layout (ns-2's `allocdata((change_count * 9) + 1)`).
    pub fn encoded_len(&self) -> usize {
        1 + ENTRY_LEN * self.entries.len()
    }

    /// Writes the layout into `buf[..encoded_len()]` and returns its length. The count
    /// is one byte, as in ns-2 (an update lists at most 255 destinations).
    ///
    /// # Panics
    /// If `buf` is shorter than `encoded_len()`.
    pub fn encode(&self, buf: &mut [u8]) -> usize {
        let len = self.encoded_len();
        let out = &mut buf[..len];
        out[0] = self.entries.len() as u8;
        for (e, chunk) in self
            .entries
            .iter()
            .zip(out[1..].chunks_exact_mut(ENTRY_LEN))
        {
            chunk[..4].copy_from_slice(&e.dst.to_be_bytes());
            chunk[4] = e.metric;
            chunk[5..].copy_from_slice(&e.seqnum.to_be_bytes());
        }
        len
    }

    /// Reads an update; a count that runs past the buffer is an error.
    pub fn decode(buf: &[u8]) -> Result<DsdvUpdate, WireError> {
        let (&n, rest) = buf.split_first().ok_or(WireError::Truncated)?;
        let body = rest
            .get(..ENTRY_LEN * n as usize)
            .ok_or(WireError::Truncated)?;
        let entries = body
            .chunks_exact(ENTRY_LEN)
            .map(|c| Advert {
                dst: u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
                metric: c[4],
                seqnum: u32::from_be_bytes([c[5], c[6], c[7], c[8]]),
            })
            .collect();
        Ok(DsdvUpdate { entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update() -> DsdvUpdate {
        DsdvUpdate {
            entries: vec![
                Advert {
                    dst: 0x0a00_0001,
                    metric: 0,
                    seqnum: 4,
                },
                Advert {
                    dst: 0x0a00_0002,
                    metric: 250,
                    seqnum: 7,
                },
            ],
        }
    }

    #[test]
    fn sizes_are_ns2s() {
        // Two entries: 2 * 12 + 20 on the air, 1 + 2 * 9 encoded.
        assert_eq!(update().ns2_len(), 44);
        assert_eq!(update().encoded_len(), 19);
        assert_eq!(DsdvUpdate { entries: vec![] }.ns2_len(), 20);
    }

    #[test]
    fn encoding_round_trips() {
        let mut buf = [0u8; 19];
        assert_eq!(update().encode(&mut buf), 19);
        assert_eq!(buf[0], 2);
        assert_eq!(&buf[1..10], &[10, 0, 0, 1, 0, 0, 0, 0, 4]);
        assert_eq!(DsdvUpdate::decode(&buf), Ok(update()));
        assert_eq!(DsdvUpdate::decode(&buf[..18]), Err(WireError::Truncated));
        assert_eq!(DsdvUpdate::decode(&[]), Err(WireError::Truncated));
    }

    /// A received update is hostile input: any bytes decode to an update or an error,
    /// never a panic, and what decodes encodes back to the bytes it used.
    #[test]
    fn any_bytes_decode_or_fail_cleanly() {
        let mut r = crate::sim::RngStream::new(7, "dsdv-decode-fuzz");
        for _ in 0..2000 {
            let len = (r.next_u64() % 64) as usize;
            let buf: Vec<u8> = (0..len).map(|_| r.next_u64() as u8).collect();
            if let Ok(m) = DsdvUpdate::decode(&buf) {
                let mut again = vec![0u8; m.encoded_len()];
                m.encode(&mut again);
                assert_eq!(again[..], buf[..m.encoded_len()]);
            }
        }
    }
}
