//! I-DATA, I-FORWARD-TSN and the Supported Extensions parameter as tshark decodes
//! them (RFC 8260 sec. 2, RFC 5061 sec. 4.2.7): a capture of hand-built packets, every
//! field where the RFC puts it and every CRC32c good.

mod common;
use sctplab_core::net::wire::sctp_idata::{
    I_DATA, I_FORWARD_TSN, IDataChunk, IForwardTsnChunk, SkippedMessage,
};
use sctplab_core::net::wire::{
    Chunk, DataFlags, InitChunk, InitExtensions, Ipv4Repr, SctpRepr, TransportRepr,
    emit_ipv4_packet,
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

fn idata(tsn: u32, stream: u16, mid: u32, ppid_fsn: u32, flags: DataFlags) -> Chunk {
    Chunk::IData(IDataChunk {
        tsn,
        stream,
        mid,
        ppid_fsn,
        flags,
        payload_len: 100,
    })
}

#[test]
fn tshark_decodes_i_data_i_forward_tsn_and_supported_extensions() {
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
        forward_tsn: true,
        unrecognized: Vec::new(),
        ecn_capable: false,
        // Supported Extensions (RFC 5061 sec. 4.2.7) listing the two chunk types.
        ext: Some(Box::new(InitExtensions {
            supported: vec![I_DATA, I_FORWARD_TSN],
            ..InitExtensions::default()
        })),
    });
    // Message 0 of stream 0 in two fragments around message 0 of stream 1: what
    // interleaving puts on the wire (sec. 2.1: B carries the PPID, 51; E has FSN 1).
    let data = vec![
        idata(1000, 0, 0, 51, DataFlags::BEGIN),
        idata(1001, 1, 0, 51, DataFlags::UNFRAGMENTED),
        idata(1002, 0, 0, 1, DataFlags::END),
    ];
    let fwd = Chunk::IForwardTsn(IForwardTsnChunk {
        new_cum_tsn: 1005,
        skipped: vec![
            SkippedMessage {
                stream: 0,
                unordered: false,
                mid: 3,
            },
            SkippedMessage {
                stream: 1,
                unordered: true,
                mid: 7,
            },
        ],
    });
    let dir = std::env::temp_dir().join(format!("sctplab-idata-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("idata.pcap");
    let mut w = PcapWriter::new(Vec::new()).expect("pcap header");
    for (k, p) in [packet(vec![init]), packet(data), packet(vec![fwd])]
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
    assert!(
        verbose.contains("Supported Extensions parameter (Supported types: I_DATA, I_FORWARD_TSN)"),
        "{verbose}"
    );
    // Per I-DATA chunk: stream, MID, FSN (absent in a first fragment), PPID (only
    // there), absolute TSN; tshark joins a packet's values with commas.
    let field = |filter: &str, names: &[&str]| -> String {
        let mut args = vec!["-Y", filter, "-T", "fields"];
        for n in names {
            args.extend(["-e", n]);
        }
        run(&args).trim_end().to_string()
    };
    assert_eq!(
        field(
            "sctp.chunk_type == 64",
            &[
                "sctp.data_sid",
                "sctp.data_mid",
                "sctp.data_fsn",
                "sctp.data_payload_proto_id",
                "sctp.data_tsn_raw"
            ]
        ),
        "0x0000,0x0001,0x0000\t0,0,0\t1\t51,51\t1000,1001,1002"
    );
    // tshark reassembles stream 0's message from its two interleaved fragments.
    assert!(
        verbose.contains("Reassembled SCTP Fragments (200 bytes, 2 fragments)"),
        "{verbose}"
    );
    assert!(
        verbose.contains("I_FORWARD_TSN chunk(Cumulative TSN: 1005)"),
        "{verbose}"
    );
    assert!(verbose.contains("U-Bit: Unordered messages"), "{verbose}");
    assert!(verbose.contains("Message identifier: 7"), "{verbose}");
    std::fs::remove_dir_all(&dir).ok();
}
