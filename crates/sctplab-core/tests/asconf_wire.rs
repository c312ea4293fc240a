//! ASCONF, ASCONF-ACK and a Supported Extensions parameter listing them as tshark
//! decodes them (RFC 5061 sec. 4.1, 4.2): a capture of hand-built packets, every field
//! where the RFC puts it and every CRC32c good.

mod common;
use sctplab_core::net::wire::{
    AsconfAckChunk, AsconfChunk, AsconfOp, AsconfParam, AsconfResponse, Chunk, ErrorCause,
    InitChunk, InitExtensions, Ipv4Repr, SctpRepr, TransportRepr, asconf_cause, emit_ipv4_packet,
};
use sctplab_core::trace::pcap::PcapWriter;

fn packet(chunks: Vec<Chunk>) -> Vec<u8> {
    let ip = Ipv4Repr {
        src: [10, 0, 0, 1],
        dst: [10, 0, 0, 2],
        protocol: 132,
        ttl: 64,
        ident: 0,
        ecn: 0,
        payload_len: 0,
    };
    let sctp = TransportRepr::Sctp(SctpRepr {
        src_port: 5000,
        dst_port: 5001,
        vtag: 0x1234_5678,
        chunks,
    });
    let mut out = Vec::new();
    emit_ipv4_packet(&ip, &sctp, 0, &mut out);
    out
}

#[test]
fn tshark_decodes_asconf_asconf_ack_and_supported_extensions() {
    let Some(tshark) = common::tshark() else {
        eprintln!("tshark not installed: nothing to check against");
        return;
    };
    let init = Chunk::Init(InitChunk {
        init_tag: 0x1234_5678,
        a_rwnd: 65536,
        outbound_streams: 2,
        inbound_streams: 2,
        initial_tsn: 1000,
        addrs: Vec::new(),
        cookie_preservative: None,
        forward_tsn: false,
        unrecognized: Vec::new(),
        ecn_capable: false,
        ext: Some(Box::new(InitExtensions {
            supported: vec![0xc1, 0x80],
            ..InitExtensions::default()
        })),
    });
    let asconf = Chunk::Asconf(AsconfChunk {
        serial: 1000,
        addr: [10, 0, 0, 1],
        params: vec![
            AsconfParam::Request {
                op: AsconfOp::AddIp,
                corr_id: 1,
                addr: [11, 0, 0, 1],
            },
            AsconfParam::Request {
                op: AsconfOp::DeleteIp,
                corr_id: 2,
                addr: [10, 0, 0, 1],
            },
            AsconfParam::Request {
                op: AsconfOp::SetPrimary,
                corr_id: 3,
                addr: [11, 0, 0, 1],
            },
        ],
    });
    let ack = Chunk::AsconfAck(AsconfAckChunk {
        serial: 1000,
        responses: vec![
            AsconfResponse::Success { corr_id: 1 },
            AsconfResponse::Error {
                corr_id: 2,
                causes: vec![ErrorCause {
                    code: asconf_cause::DELETE_SOURCE_ADDRESS,
                    info: vec![0xc0, 0x02, 0, 16, 0, 0, 0, 2, 0, 5, 0, 8, 10, 0, 0, 1],
                }],
            },
            AsconfResponse::Success { corr_id: 3 },
        ],
    });
    let dir = std::env::temp_dir().join(format!("sctplab-asconf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("asconf.pcap");
    let mut w = PcapWriter::new(Vec::new()).expect("pcap header");
    for (k, p) in [packet(vec![init]), packet(vec![asconf]), packet(vec![ack])]
        .iter()
        .enumerate()
    {
        w.write_packet(k as u64 * 1_000_000, p).expect("record");
    }
    std::fs::write(&path, w.into_inner()).expect("pcap written");
    let run = |args: &[&str]| common::tshark_read(tshark, &path, args);
    let verbose = run(&["-V"]);
    assert!(!verbose.contains("Malformed"), "{verbose}");
    assert!(!verbose.contains("Checksum Status: Bad"), "{verbose}");
    assert_eq!(verbose.matches("Checksum Status: Good").count(), 3);
    for want in [
        "Supported Extensions parameter (Supported types: ASCONF, ASCONF_ACK)",
        "Chunk type: ASCONF (193)",
        "Chunk length: 64",
        "Sequence number: 0x000003e8",
        "IPv4 address parameter (Address: 10.0.0.1)",
        "Add IP address parameter (Address: 11.0.0.1, correlation ID: 1)",
        "Delete IP address parameter (Address: 10.0.0.1, correlation ID: 2)",
        "Set primary address parameter (Address: 11.0.0.1, correlation ID: 3)",
        "Chunk type: ASCONF_ACK (128)",
        "Chunk length: 52",
        "Success report parameter (Correlation ID: 1)",
        "Cause code: Request to delete source address (0x00a2)",
        "Success report parameter (Correlation ID: 3)",
    ] {
        assert!(verbose.contains(want), "{want} not in {verbose}");
    }
}
