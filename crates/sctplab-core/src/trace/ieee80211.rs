//! 802.11 frames as bytes, for pcap files of wireless interfaces (LINKTYPE_IEEE802_11):
//! Wireshark shows each RTS, CTS, DATA and ACK with its Duration field, addresses and, for
//! DATA, the IP datagram behind an LLC/SNAP header.
//!
//! The encoding is the standard one (IEEE 802.11-1999 clause 7: DATA header 24 bytes, no
//! FCS in the capture), which is shorter than the 30-byte header plus FCS ns-2 charges on
//! the air; the simulated airtime follows ns-2's sizes (`Frame::airtime`), the pcap shows
//! what a real station would send.

use crate::wireless::frame::{Frame, FrameKind, MacAddr};

/// A NIC's 48-bit address: locally administered (02:...), the NIC index in the low bytes.
pub fn mac_bytes(a: MacAddr) -> [u8; 6] {
    if a.is_broadcast() {
        return [0xff; 6];
    }
    let [_, b, c, d] = a.0.to_be_bytes();
    [0x02, 0x00, 0x00, b, c, d]
}

/// The BSSID every NIC of the one ad hoc network uses (an IBSS, ToDS = FromDS = 0).
pub const BSSID: [u8; 6] = [0x02, 0x00, 0x00, 0xff, 0xff, 0xfe];

/// RFC 1042 LLC/SNAP header carrying IPv4 (EtherType 0x0800).
const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];

/// Writes `frame` into `out` (cleared first); `ip` is the datagram a DATA frame carries.
pub fn emit_frame(frame: &Frame, ip: &[u8], out: &mut Vec<u8>) {
    emit_frame_typed(frame, 0x0800, ip, out);
}

/// `emit_frame` for a DATA frame whose LLC/SNAP header names `ethertype` (0x0806 for
/// ARP) and whose body is `body`.
pub fn emit_frame_typed(frame: &Frame, ethertype: u16, body: &[u8], out: &mut Vec<u8>) {
    let ip = body;
    out.clear();
    // Frame control: protocol version 0, type and subtype (clause 7.1.3.1.2).
    let (fc0, fc1) = match frame.kind {
        FrameKind::Rts => (0xb4, 0x00),
        FrameKind::Cts => (0xc4, 0x00),
        FrameKind::Ack => (0xd4, 0x00),
        FrameKind::Data => (0x08, if frame.retry { 0x08 } else { 0x00 }),
    };
    out.extend_from_slice(&[fc0, fc1]);
    // Duration/ID in microseconds; ns-2's fields are whole microseconds already.
    let us = (frame.duration.as_nanos() / 1_000).min(0x7fff) as u16;
    out.extend_from_slice(&us.to_le_bytes());
    out.extend_from_slice(&mac_bytes(frame.dst));
    match frame.kind {
        FrameKind::Rts => out.extend_from_slice(&mac_bytes(frame.src)),
        FrameKind::Cts | FrameKind::Ack => {}
        FrameKind::Data => {
            out.extend_from_slice(&mac_bytes(frame.src));
            out.extend_from_slice(&BSSID);
            out.extend_from_slice(&((frame.seq & 0x0fff) << 4).to_le_bytes());
            out.extend_from_slice(&LLC_SNAP_IPV4[..6]);
            out.extend_from_slice(&ethertype.to_be_bytes());
            out.extend_from_slice(ip);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    fn frame(kind: FrameKind) -> Frame {
        Frame {
            kind,
            src: MacAddr(1),
            dst: MacAddr(258),
            duration: SimDuration::from_micros(4854),
            bytes: 20,
            airtime: SimDuration::from_micros(272),
            seq: 5,
            retry: false,
            packet: None,
            quiet_up: false,
        }
    }

    #[test]
    fn control_frames_are_16_and_10_bytes() {
        let mut out = Vec::new();
        emit_frame(&frame(FrameKind::Rts), &[], &mut out);
        // FC b4 00, duration 4854 = 0x12f6 little-endian, RA 02:00:00:00:01:02, TA ...:01.
        assert_eq!(
            out,
            [0xb4, 0, 0xf6, 0x12, 2, 0, 0, 0, 1, 2, 2, 0, 0, 0, 0, 1]
        );
        emit_frame(&frame(FrameKind::Ack), &[], &mut out);
        assert_eq!(out.len(), 10);
        assert_eq!(out[0], 0xd4);
    }

    #[test]
    fn data_frames_carry_the_datagram_behind_llc_snap() {
        let mut f = frame(FrameKind::Data);
        f.retry = true;
        f.dst = MacAddr::BROADCAST;
        let mut out = Vec::new();
        emit_frame(&f, &[0x45, 0, 0, 20], &mut out);
        assert_eq!(&out[..2], &[0x08, 0x08]);
        assert_eq!(&out[4..10], &[0xff; 6]);
        assert_eq!(&out[16..22], &BSSID);
        // Sequence control: sequence 5 in the upper 12 bits.
        assert_eq!(&out[22..24], &[0x50, 0x00]);
        assert_eq!(&out[24..32], &LLC_SNAP_IPV4);
        assert_eq!(&out[32..], &[0x45, 0, 0, 20]);
    }

    #[test]
    fn arp_frames_name_ethertype_0806() {
        let mut out = Vec::new();
        emit_frame_typed(&frame(FrameKind::Data), 0x0806, &[1, 2], &mut out);
        assert_eq!(&out[24..32], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06]);
        assert_eq!(&out[32..], &[1, 2]);
    }
}
