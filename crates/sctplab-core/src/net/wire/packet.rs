//! Whole IPv4 datagrams: an IPv4 header, a transport header and zero
//! payload, as the pcap writer and tests need them.

use super::ipv4::{self, Ipv4Repr};
use super::sctp::SctpRepr;
use super::tcp::TcpRepr;
use super::udp::{self, UdpRepr};
use super::{IpProtocol, WireError};

/// The transport part of a datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportRepr {
    Udp(UdpRepr),
    Tcp(TcpRepr),
    Sctp(SctpRepr),
}

impl TransportRepr {
    /// The IP protocol number.
    pub fn ip_protocol(&self) -> u8 {
        match self {
            TransportRepr::Udp(_) => IpProtocol::UDP,
            TransportRepr::Tcp(_) => IpProtocol::TCP,
            TransportRepr::Sctp(_) => IpProtocol::SCTP,
        }
    }

    /// `(source port, destination port)`.
    pub fn ports(&self) -> (u16, u16) {
        match self {
            TransportRepr::Udp(u) => (u.src_port, u.dst_port),
            TransportRepr::Tcp(t) => (t.src_port, t.dst_port),
            TransportRepr::Sctp(s) => (s.src_port, s.dst_port),
        }
    }

    /// Bytes the transport encoding adds before any application payload.
    /// For SCTP this is the whole SCTP packet, since user data lives inside
    /// DATA chunks.
    pub fn header_len(&self) -> usize {
        match self {
            TransportRepr::Udp(_) => udp::HEADER_LEN,
            TransportRepr::Tcp(t) => t.header_len(),
            TransportRepr::Sctp(s) => s.buffer_len(),
        }
    }

    /// The IP payload length for `app_payload_len` bytes of application data
    /// (ignored for SCTP, whose DATA chunks carry their own lengths).
    pub fn ip_payload_len(&self, app_payload_len: usize) -> usize {
        match self {
            TransportRepr::Sctp(s) => s.buffer_len(),
            _ => self.header_len() + app_payload_len,
        }
    }
}

/// Encodes a complete IPv4 datagram into `out`: IPv4 header, transport
/// header and `app_payload_len` zero bytes of payload, all checksums
/// correct.
///
/// `ip.protocol` and `ip.payload_len` are ignored: they are derived from
/// `transport`, so the header can never disagree with the encoding. For
/// SCTP `app_payload_len` is ignored too.
///
/// `out` is cleared and resized to the datagram length, reusing its
/// capacity: calling this in a loop does not allocate once `out` has grown
/// to the largest datagram.
///
/// # Panics
/// If the datagram would exceed 65535 bytes.
pub fn emit_ipv4_packet(
    ip: &Ipv4Repr,
    transport: &TransportRepr,
    app_payload_len: usize,
    out: &mut Vec<u8>,
) {
    let app_payload_len = match transport {
        TransportRepr::Sctp(_) => 0,
        _ => app_payload_len,
    };
    let ip = Ipv4Repr {
        protocol: transport.ip_protocol(),
        payload_len: transport.ip_payload_len(app_payload_len),
        ..*ip
    };
    out.clear();
    // Zero fill: this is also the payload.
    out.resize(ip.total_len(), 0);
    let (header, segment) = out.split_at_mut(ipv4::HEADER_LEN);
    ip.emit(header);
    match transport {
        TransportRepr::Udp(u) => u.emit(segment, ip.src, ip.dst, app_payload_len),
        TransportRepr::Tcp(t) => t.emit(segment, ip.src, ip.dst, app_payload_len),
        TransportRepr::Sctp(s) => s.emit(segment),
    }
}

/// `emit_ipv4_packet` for a UDP datagram whose payload bytes are known (QUIC's encrypted
/// datagrams, `Packet::datagram`): the payload is `payload`, not zeros, and the UDP
/// checksum covers it.
///
/// # Panics
/// If the datagram would exceed 65535 bytes.
pub fn emit_ipv4_udp_with_payload(ip: &Ipv4Repr, udp: &UdpRepr, payload: &[u8], out: &mut Vec<u8>) {
    let transport = TransportRepr::Udp(*udp);
    let ip = Ipv4Repr {
        protocol: transport.ip_protocol(),
        payload_len: transport.ip_payload_len(payload.len()),
        ..*ip
    };
    out.clear();
    out.resize(ipv4::HEADER_LEN + udp::HEADER_LEN, 0);
    out.extend_from_slice(payload);
    let (header, segment) = out.split_at_mut(ipv4::HEADER_LEN);
    ip.emit(header);
    udp.emit(segment, ip.src, ip.dst, payload.len());
}

/// Parses a complete IPv4 datagram into its headers and the application
/// payload length (for SCTP: the total user data of its DATA chunks).
/// Protocols other than UDP, TCP and SCTP give
/// [`WireError::UnsupportedProtocol`].
pub fn parse_ipv4_packet(buf: &[u8]) -> Result<(Ipv4Repr, TransportRepr, usize), WireError> {
    let (ip, payload) = Ipv4Repr::parse(buf)?;
    let (transport, app_len) = match ip.protocol {
        IpProtocol::UDP => {
            let (udp, data) = UdpRepr::parse(payload, ip.src, ip.dst)?;
            (TransportRepr::Udp(udp), data.len())
        }
        IpProtocol::TCP => {
            let (tcp, data) = TcpRepr::parse(payload, ip.src, ip.dst)?;
            (TransportRepr::Tcp(tcp), data.len())
        }
        IpProtocol::SCTP => {
            let sctp = SctpRepr::parse(payload)?;
            let app_len = sctp.data_payload_len();
            (TransportRepr::Sctp(sctp), app_len)
        }
        other => return Err(WireError::UnsupportedProtocol(other)),
    };
    Ok((ip, transport, app_len))
}

#[cfg(test)]
mod tests {
    use super::super::sctp_chunk::{Chunk, DataChunk, DataFlags, SackChunk};
    use super::super::tcp::{SackBlocks, TcpFlags, TcpOptions};
    use super::*;

    fn ip() -> Ipv4Repr {
        Ipv4Repr {
            src: [10, 0, 0, 1],
            dst: [10, 0, 1, 1],
            // Deliberately inconsistent: both are derived from the transport.
            protocol: 0,
            ttl: 64,
            ident: 77,
            ecn: 0,
            payload_len: 0,
        }
    }

    fn sctp_data(payload_len: u32) -> TransportRepr {
        TransportRepr::Sctp(SctpRepr {
            src_port: 5000,
            dst_port: 5000,
            vtag: 0x0102_0304,
            chunks: vec![Chunk::Data(DataChunk {
                tsn: 1,
                stream: 0,
                ssn: 0,
                ppid: 0,
                flags: DataFlags::UNFRAGMENTED,
                payload_len,
            })],
        })
    }

    fn tcp_with_sack() -> TransportRepr {
        let sack: SackBlocks = [(100, 200), (300, 400), (500, 600)].into_iter().collect();
        TransportRepr::Tcp(TcpRepr {
            src_port: 40000,
            dst_port: 80,
            seq: 1,
            ack: 2,
            flags: TcpFlags::ACK,
            window: 1000,
            options: TcpOptions {
                timestamps: Some((5, 6)),
                sack,
                ..Default::default()
            },
        })
    }

    fn round_trip(transport: &TransportRepr, app_len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        emit_ipv4_packet(&ip(), transport, app_len, &mut out);
        let (parsed_ip, parsed_transport, parsed_app) = parse_ipv4_packet(&out).expect("parse");
        assert_eq!(parsed_ip.protocol, transport.ip_protocol());
        assert_eq!(parsed_ip.total_len(), out.len());
        assert_eq!((parsed_ip.src, parsed_ip.ident), (ip().src, ip().ident));
        assert_eq!(&parsed_transport, transport);
        assert_eq!(parsed_app, app_len);
        out
    }

    #[test]
    fn sctp_full_size_data_packet_is_1496_bytes() {
        // 20 (IPv4) + 12 (SCTP common header) + 16 (DATA header) + 1448.
        let transport = sctp_data(1448);
        assert_eq!(transport.header_len(), 12 + 1464);
        let out = round_trip(&transport, 1448);
        assert_eq!(out.len(), 1496);
    }

    #[test]
    fn protocol_and_ports() {
        let udp = TransportRepr::Udp(UdpRepr {
            src_port: 1,
            dst_port: 2,
        });
        assert_eq!((udp.ip_protocol(), udp.ports()), (17, (1, 2)));
        assert_eq!(
            (tcp_with_sack().ip_protocol(), tcp_with_sack().ports()),
            (6, (40000, 80))
        );
        assert_eq!(
            (sctp_data(1).ip_protocol(), sctp_data(1).ports()),
            (132, (5000, 5000))
        );
    }

    #[test]
    fn sctp_ignores_app_payload_len() {
        let mut out = Vec::new();
        emit_ipv4_packet(&ip(), &sctp_data(100), 9999, &mut out);
        assert_eq!(out.len(), 20 + 12 + 116);
    }

    #[test]
    fn udp_and_tcp_round_trip() {
        let udp = TransportRepr::Udp(UdpRepr {
            src_port: 1,
            dst_port: 2,
        });
        assert_eq!(round_trip(&udp, 1472).len(), 1500);
        let tcp = tcp_with_sack();
        assert_eq!(tcp.header_len(), 60);
        assert_eq!(round_trip(&tcp, 1400).len(), 20 + 60 + 1400);
        let sack_only = TransportRepr::Sctp(SctpRepr {
            src_port: 1,
            dst_port: 2,
            vtag: 3,
            chunks: vec![Chunk::Sack(SackChunk {
                cum_tsn_ack: 1,
                a_rwnd: 2,
                gaps: vec![(2, 3)],
                dups: vec![],
                flags: 0,
            })],
        });
        assert_eq!(round_trip(&sack_only, 0).len(), 20 + 12 + 20);
    }

    #[test]
    fn buffer_is_reused() {
        let mut out = Vec::with_capacity(1500);
        let before = out.as_ptr();
        for transport in [
            sctp_data(1448),
            tcp_with_sack(),
            sctp_data(1),
            sctp_data(1448),
        ] {
            emit_ipv4_packet(&ip(), &transport, 1400, &mut out);
            assert_eq!(out.as_ptr(), before);
            assert!(parse_ipv4_packet(&out).is_ok());
        }
        // Stale bytes from a longer packet must not leak into the payload.
        emit_ipv4_packet(
            &ip(),
            &TransportRepr::Udp(UdpRepr {
                src_port: 1,
                dst_port: 2,
            }),
            4,
            &mut out,
        );
        assert_eq!(&out[28..], &[0, 0, 0, 0]);
    }

    #[test]
    fn unknown_protocol() {
        let mut out = Vec::new();
        emit_ipv4_packet(
            &ip(),
            &TransportRepr::Udp(UdpRepr {
                src_port: 1,
                dst_port: 2,
            }),
            0,
            &mut out,
        );
        out[9] = 47;
        out[10..12].fill(0);
        let c = super::super::checksum::internet_checksum(&out[..20]);
        out[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(
            parse_ipv4_packet(&out),
            Err(WireError::UnsupportedProtocol(47))
        );
    }

    #[test]
    fn every_prefix_is_an_error() {
        for (transport, app) in [
            (sctp_data(30), 0),
            (tcp_with_sack(), 10),
            (
                TransportRepr::Udp(UdpRepr {
                    src_port: 1,
                    dst_port: 2,
                }),
                10,
            ),
        ] {
            let mut out = Vec::new();
            emit_ipv4_packet(&ip(), &transport, app, &mut out);
            for len in 0..out.len() {
                assert!(parse_ipv4_packet(&out[..len]).is_err(), "prefix {len}");
            }
            // The transport parsers see the truncation too, not only IPv4.
            let (ip_hdr, _) = Ipv4Repr::parse(&out).expect("parse");
            let segment = &out[20..];
            for len in 0..segment.len() {
                let s = &segment[..len];
                let failed = match &transport {
                    TransportRepr::Udp(_) => UdpRepr::parse(s, ip_hdr.src, ip_hdr.dst).is_err(),
                    TransportRepr::Tcp(_) => TcpRepr::parse(s, ip_hdr.src, ip_hdr.dst).is_err(),
                    TransportRepr::Sctp(_) => SctpRepr::parse(s).is_err(),
                };
                assert!(failed, "segment prefix {len}");
            }
        }
    }
}
