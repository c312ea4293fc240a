//! The Heartbeat Info this end puts in its HEARTBEATs (RFC 9260 3.3.5: opaque to the
//! peer, which echoes it): Linux's layout, or ns-2.35's for the `ns2` preset.

use crate::sim::SimTime;

/// Heartbeat Info as Linux (>= 5.14, `struct sctp_sender_hb_info`) sends it: a 28-byte
/// socket address (family, port, IPv4 address, zeros), the send time, a 64-bit nonce
/// and the PLPMTUD probe size; 48 bytes, so the HEARTBEAT chunk is 56 bytes.
pub(super) const HB_INFO_LINUX: usize = 48;
/// ns-2.35's HEARTBEAT (`SctpHeartbeatChunk_S`, 24 bytes on a 64-bit host): a
/// timestamp and a destination pointer, here the send time, address and a nonce.
pub(super) const HB_INFO_NS2: usize = 16;
pub(super) const AF_INET: u16 = 2;

pub(super) fn encode_hb_info(
    ns2: bool,
    sent: SimTime,
    addr: [u8; 4],
    port: u16,
    nonce: u64,
) -> Vec<u8> {
    if ns2 {
        let mut v = Vec::with_capacity(HB_INFO_NS2);
        v.extend_from_slice(&sent.as_nanos().to_be_bytes());
        v.extend_from_slice(&addr);
        v.extend_from_slice(&(nonce as u32).to_be_bytes());
        v
    } else {
        let mut v = vec![0u8; HB_INFO_LINUX];
        v[0..2].copy_from_slice(&AF_INET.to_be_bytes());
        v[2..4].copy_from_slice(&port.to_be_bytes());
        v[4..8].copy_from_slice(&addr);
        v[28..36].copy_from_slice(&sent.as_nanos().to_be_bytes());
        v[36..44].copy_from_slice(&nonce.to_be_bytes());
        v
    }
}

/// (send time, destination address, nonce) from a Heartbeat Info we wrote.
pub(super) fn decode_hb_info(info: &[u8]) -> Option<(SimTime, [u8; 4], u64)> {
    let u64_at = |i: usize| -> Option<u64> {
        Some(u64::from_be_bytes(info.get(i..i + 8)?.try_into().ok()?))
    };
    let addr_at = |i: usize| -> Option<[u8; 4]> { info.get(i..i + 4)?.try_into().ok() };
    match info.len() {
        HB_INFO_LINUX => Some((SimTime::from_nanos(u64_at(28)?), addr_at(4)?, u64_at(36)?)),
        HB_INFO_NS2 => {
            let n: [u8; 4] = info.get(12..16)?.try_into().ok()?;
            Some((
                SimTime::from_nanos(u64_at(0)?),
                addr_at(8)?,
                u64::from(u32::from_be_bytes(n)),
            ))
        }
        _ => None,
    }
}
