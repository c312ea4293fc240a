//! SCTP chunks (RFC 9260 §3.2, §3.3).
//!
//! Every chunk starts with type (1 byte), flags (1) and length (2). The
//! length counts the header and value but not the trailing zero padding that
//! brings every chunk, the last one included, to a multiple of 4 bytes
//! (§3.2). Padding counts in the packet size: see [`Chunk::padded_len`].
//!
//! Parse policy:
//! - Chunk types not listed in [`chunk_type`] parse as [`Chunk::Unknown`],
//!   whose two high-order type bits say what the receiver does (§3.2):
//!   [`UnknownChunk::stops_packet`] and [`UnknownChunk::reports`]. A chunk
//!   that stops the packet ends the parse: the bytes after it are not looked
//!   at, as the receiver discards them unprocessed.
//! - Padding must be present, even after the last chunk (the sender MUST
//!   pad, §3.2); its content is ignored.
//! - Fixed-size chunks must have exactly their size; reserved flag bits are
//!   ignored (§3.3: "ignored on receipt").
//! - INIT / INIT ACK parameters this module does not recognize follow the
//!   two high-order bits of their type (§3.2.1): skipped, or the rest of the
//!   chunk's parameters left unprocessed, and those to be reported kept in
//!   `unrecognized`. An ABORT's error causes are bounds-checked by the length
//!   only and dropped.

use std::fmt;
use std::ops::BitOr;

use super::sctp_forward_tsn::{
    FORWARD_TSN_SUPPORTED_PARAM_LEN, ForwardTsnChunk, PARAM_FORWARD_TSN_SUPPORTED,
};
use super::{WireError, len_u16, read_u8, read_u16, read_u32, write_u16, write_u32};

/// Type, flags and length.
pub const CHUNK_HEADER_LEN: usize = 4;

/// Chunk type codes (RFC 9260 §3.2).
pub mod chunk_type {
    pub const DATA: u8 = 0;
    pub const INIT: u8 = 1;
    pub const INIT_ACK: u8 = 2;
    pub const SACK: u8 = 3;
    pub const HEARTBEAT: u8 = 4;
    pub const HEARTBEAT_ACK: u8 = 5;
    pub const ABORT: u8 = 6;
    pub const SHUTDOWN: u8 = 7;
    pub const SHUTDOWN_ACK: u8 = 8;
    pub const ERROR: u8 = 9;
    pub const COOKIE_ECHO: u8 = 10;
    pub const COOKIE_ACK: u8 = 11;
    /// ECN Echo and CWR (RFC 9260 appendix A).
    pub const ECNE: u8 = 12;
    pub const CWR: u8 = 13;
    pub const SHUTDOWN_COMPLETE: u8 = 14;
    /// FORWARD TSN (RFC 3758 sec. 3.2).
    pub const FORWARD_TSN: u8 = super::super::sctp_forward_tsn::FORWARD_TSN;

    /// Whether this module decodes chunks of type `kind`.
    pub const fn is_known(kind: u8) -> bool {
        matches!(kind, 0..=14 | FORWARD_TSN)
    }
}

/// Whether a chunk of type `kind` ends the processing of its packet: an unknown type
/// whose high-order bit is clear (RFC 9260 3.2, bits 00 and 01).
pub const fn stops_packet(kind: u8) -> bool {
    !chunk_type::is_known(kind) && kind & 0x80 == 0
}

/// Heartbeat Info parameter (§3.3.5).
const PARAM_HEARTBEAT_INFO: u16 = 1;
/// IPv4 Address parameter of INIT and INIT ACK (§3.3.2.1): 4-byte header and address.
const PARAM_IPV4_ADDRESS: u16 = 5;
/// Length of an IPv4 Address parameter (no padding needed).
pub const IPV4_ADDRESS_PARAM_LEN: usize = 8;
/// IPv6 Address parameter (§3.3.2.1): recognized, not used (IPv4 only).
const PARAM_IPV6_ADDRESS: u16 = 6;
/// State Cookie parameter of INIT ACK (§3.3.3.1).
const PARAM_STATE_COOKIE: u16 = 7;
/// Unrecognized Parameter of INIT ACK (§3.3.3.1): one INIT parameter reported back.
const PARAM_UNRECOGNIZED: u16 = 8;
/// Cookie Preservative (§3.3.2.1): the suggested cookie life-span increment (§5.2.6).
const PARAM_COOKIE_PRESERVATIVE: u16 = 9;
/// Its length: header and the 32-bit increment.
const COOKIE_PRESERVATIVE_PARAM_LEN: usize = 8;
/// Host Name Address (§3.3.2.1, deprecated): recognized, not used.
const PARAM_HOST_NAME: u16 = 11;
/// Supported Address Types (§3.3.2.1): recognized; only IPv4 is used anyway.
const PARAM_SUPPORTED_ADDRESS_TYPES: u16 = 12;
/// ECN Capable (RFC 9260 appendix A, type 0x8000): a bare 4-byte header.
const PARAM_ECN_CAPABLE: u16 = 0x8000;
const ECN_CAPABLE_PARAM_LEN: usize = 4;
/// Parameters RFC 9260 defines for INIT and INIT ACK (§3.3.2, §3.3.3, appendix A); any
/// other type is unrecognized and handled by its high-order bits (§3.2.1).
const INIT_PARAMS: [u16; 7] = [
    PARAM_IPV4_ADDRESS,
    PARAM_IPV6_ADDRESS,
    PARAM_COOKIE_PRESERVATIVE,
    PARAM_HOST_NAME,
    PARAM_SUPPORTED_ADDRESS_TYPES,
    PARAM_FORWARD_TSN_SUPPORTED,
    PARAM_ECN_CAPABLE,
];
const INIT_ACK_PARAMS: [u16; 7] = [
    PARAM_IPV4_ADDRESS,
    PARAM_IPV6_ADDRESS,
    PARAM_STATE_COOKIE,
    PARAM_UNRECOGNIZED,
    PARAM_HOST_NAME,
    PARAM_FORWARD_TSN_SUPPORTED,
    PARAM_ECN_CAPABLE,
];
/// ECNE and CWR: header and the 32-bit Lowest TSN Number (appendix A).
const ECN_CHUNK_VALUE_LEN: usize = 4;
/// usrsctp's ECNE also carries a count of CE-marked packets (draft-stewart-tsvwg-
/// sctpecn); accepted, the count ignored.
const ECNE_WITH_COUNT_VALUE_LEN: usize = 8;

/// Error cause codes (§3.3.10).
pub mod cause {
    /// Invalid Stream Identifier (§3.3.10.1): the stream id, then two reserved bytes.
    pub const INVALID_STREAM_IDENTIFIER: u16 = 1;
    /// Unrecognized Chunk Type (§3.3.10.6): the chunk, complete with its header.
    pub const UNRECOGNIZED_CHUNK_TYPE: u16 = 6;
    /// Unrecognized Parameters (§3.3.10.8): the complete parameter TLVs.
    pub const UNRECOGNIZED_PARAMETERS: u16 = 8;
    /// Stale Cookie (§3.3.10.3): the measure of staleness in microseconds.
    pub const STALE_COOKIE: u16 = 3;
    /// Cookie Received While Shutting Down (§3.3.10.10): no information.
    pub const COOKIE_WHILE_SHUTTING_DOWN: u16 = 10;
}
/// Type and length of a parameter (§3.2.1).
const PARAM_HEADER_LEN: usize = 4;
/// The T bit of ABORT and SHUTDOWN COMPLETE (§3.3.7, §3.3.13): set when
/// the sender reflected the peer's tag instead of using its own.
const FLAG_T: u8 = 0x01;
/// Initiate Tag, a_rwnd, outbound/inbound streams, initial TSN.
const INIT_FIXED_LEN: usize = 16;

const fn pad4(len: usize) -> usize {
    len.next_multiple_of(4)
}

/// DATA chunk flags (RFC 9260 §3.3.1; I bit from RFC 7053). The upper four
/// bits are reserved and dropped by [`DataFlags::from_bits`].
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DataFlags(u8);

impl DataFlags {
    /// E: last fragment of a user message.
    pub const END: DataFlags = DataFlags(0x01);
    /// B: first fragment of a user message.
    pub const BEGIN: DataFlags = DataFlags(0x02);
    /// U: unordered delivery; the SSN is ignored.
    pub const UNORDERED: DataFlags = DataFlags(0x04);
    /// I: the receiver should SACK immediately (RFC 7053).
    pub const IMMEDIATE: DataFlags = DataFlags(0x08);
    /// B and E: a whole message in one chunk.
    pub const UNFRAGMENTED: DataFlags = DataFlags(0x03);

    const MASK: u8 = 0x0f;

    pub const fn empty() -> DataFlags {
        DataFlags(0)
    }

    pub const fn from_bits(bits: u8) -> DataFlags {
        DataFlags(bits & DataFlags::MASK)
    }

    pub const fn bits(self) -> u8 {
        self.0
    }

    pub const fn contains(self, other: DataFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: DataFlags) -> DataFlags {
        DataFlags(self.0 | other.0)
    }
}

impl BitOr for DataFlags {
    type Output = DataFlags;
    fn bitor(self, rhs: DataFlags) -> DataFlags {
        self.union(rhs)
    }
}

/// Prints the letters RFC 9260 uses, e.g. `DataFlags(UBE)`.
impl fmt::Debug for DataFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataFlags(")?;
        for (flag, letter) in [
            (DataFlags::IMMEDIATE, "I"),
            (DataFlags::UNORDERED, "U"),
            (DataFlags::BEGIN, "B"),
            (DataFlags::END, "E"),
        ] {
            if self.contains(flag) {
                f.write_str(letter)?;
            }
        }
        f.write_str(")")
    }
}

/// DATA chunk (§3.3.1). The user data is `payload_len` zero bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    pub tsn: u32,
    pub stream: u16,
    pub ssn: u16,
    pub ppid: u32,
    pub flags: DataFlags,
    pub payload_len: u32,
}

impl DataChunk {
    /// Chunk header plus TSN, stream id, SSN and PPID.
    pub const HEADER_LEN: usize = 16;

    /// Length field of a DATA chunk carrying `payload_len` bytes.
    pub const fn len_for(payload_len: usize) -> usize {
        DataChunk::HEADER_LEN + payload_len
    }
}

/// INIT chunk (§3.3.2) with its IPv4 Address parameters, the only optional
/// parameters the simulator sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitChunk {
    pub init_tag: u32,
    pub a_rwnd: u32,
    pub outbound_streams: u16,
    pub inbound_streams: u16,
    pub initial_tsn: u32,
    /// IPv4 Address parameters (§3.3.2.1), in order. Empty: the receiver uses
    /// the packet's source address as the sole destination.
    pub addrs: Vec<[u8; 4]>,
    /// Cookie Preservative (§3.3.2.1, type 9): the suggested cookie life-span
    /// increment in milliseconds, sent after a Stale Cookie error (§5.2.6).
    /// Emitted after the addresses.
    pub cookie_preservative: Option<u32>,
    /// Forward-TSN-Supported (RFC 3758 sec. 3.1): this end speaks PR-SCTP.
    /// Emitted after the Cookie Preservative.
    pub forward_tsn: bool,
    /// Parameters not recognized whose type asks for a report (§3.2.1: type
    /// bits 01 or 11), each a complete TLV without padding, in order. Emitted
    /// verbatim after the addresses, the Cookie Preservative and ECN Capable.
    pub unrecognized: Vec<Vec<u8>>,
    /// The ECN Capable parameter (appendix A), emitted after the Cookie Preservative.
    pub ecn_capable: bool,
}

/// INIT ACK chunk (§3.3.3): the INIT fields, IPv4 Address parameters and the
/// mandatory State Cookie parameter (emitted last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitAckChunk {
    pub init_tag: u32,
    pub a_rwnd: u32,
    pub outbound_streams: u16,
    pub inbound_streams: u16,
    pub initial_tsn: u32,
    pub addrs: Vec<[u8; 4]>,
    /// Forward-TSN-Supported (RFC 3758 sec. 3.1); emitted after the addresses.
    pub forward_tsn: bool,
    /// As in [`InitChunk::unrecognized`]; emitted after the cookie.
    pub unrecognized: Vec<Vec<u8>>,
    /// Unrecognized Parameter parameters (§3.3.3.1): the INIT's parameters this
    /// end reports back, one complete TLV each. Emitted before the cookie.
    pub reported: Vec<Vec<u8>>,
    pub state_cookie: Vec<u8>,
    /// The ECN Capable parameter (appendix A), emitted before the cookie.
    pub ecn_capable: bool,
}

/// One error cause of an ERROR chunk (§3.3.10): code and cause-specific information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorCause {
    pub code: u16,
    pub info: Vec<u8>,
}

/// A chunk whose type this module does not know (§3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownChunk {
    pub kind: u8,
    pub flags: u8,
    pub value: Vec<u8>,
}

impl UnknownChunk {
    /// §3.2: type bits 00 and 01 stop the processing of the packet (this chunk and
    /// all after it are discarded); 10 and 11 skip only this chunk.
    pub fn stops_packet(&self) -> bool {
        self.kind & 0x80 == 0
    }

    /// §3.2: type bits 01 and 11 ask for an ERROR chunk with an "Unrecognized Chunk
    /// Type" cause.
    pub fn reports(&self) -> bool {
        self.kind & 0x40 != 0
    }

    /// The chunk as it arrived (header and value, no padding): the information of
    /// its "Unrecognized Chunk Type" cause (§3.3.10.6).
    pub fn cause(&self) -> ErrorCause {
        let len = CHUNK_HEADER_LEN + self.value.len();
        let mut info = Vec::with_capacity(len);
        info.push(self.kind);
        info.push(self.flags);
        info.extend_from_slice(&len_u16(len, "SCTP chunk").to_be_bytes());
        info.extend_from_slice(&self.value);
        ErrorCause {
            code: cause::UNRECOGNIZED_CHUNK_TYPE,
            info,
        }
    }
}

/// SACK chunk (§3.3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SackChunk {
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    /// Gap Ack Blocks `(start, end)`, offsets relative to `cum_tsn_ack`.
    pub gaps: Vec<(u16, u16)>,
    /// Duplicate TSNs received since the last SACK.
    pub dups: Vec<u32>,
    /// The chunk flags, unused by RFC 9260; CMT's delayed ack (ns-2.35
    /// `Agent/SCTP/CMT`, `useCmtDelAck_`) puts there the DATA packets received since
    /// the previous SACK.
    pub flags: u8,
}

impl SackChunk {
    /// Fixed part: chunk header, cumulative TSN ack, a_rwnd, two counts.
    pub const FIXED_LEN: usize = 16;
    /// The largest SACK chunk a 16-bit length can describe, rounded down
    /// to whole 4-byte entries.
    const MAX_LEN: usize = 65532;

    /// Length of a SACK with `n_gaps` gap blocks and `n_dups` duplicate
    /// TSNs: 16 + 4 * n_gaps + 4 * n_dups (always a multiple of 4).
    pub const fn len_with(n_gaps: usize, n_dups: usize) -> usize {
        SackChunk::FIXED_LEN + 4 * n_gaps + 4 * n_dups
    }

    /// How many gap blocks fit in a SACK chunk of at most `room` bytes that
    /// also reports `n_dups` duplicates. Protocol code passes what is left of
    /// the path MTU after the IP and SCTP common headers (and any bundled
    /// chunks); 0 if not even the fixed part and the duplicates fit.
    pub const fn max_gaps_fitting(room: usize, n_dups: usize) -> usize {
        let room = if room < SackChunk::MAX_LEN {
            room
        } else {
            SackChunk::MAX_LEN
        };
        let fixed = SackChunk::len_with(0, n_dups);
        if room < fixed { 0 } else { (room - fixed) / 4 }
    }
}

/// One SCTP chunk. See the module docs for the parse policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    Data(DataChunk),
    Init(InitChunk),
    InitAck(InitAckChunk),
    Sack(SackChunk),
    /// HEARTBEAT (§3.3.5) with its Heartbeat Info parameter's value.
    Heartbeat {
        info: Vec<u8>,
    },
    /// HEARTBEAT ACK (§3.3.6), echoing the Heartbeat Info.
    HeartbeatAck {
        info: Vec<u8>,
    },
    /// ABORT (§3.3.7) without error causes.
    Abort {
        t_bit: bool,
    },
    /// SHUTDOWN (§3.3.8).
    Shutdown {
        cum_tsn_ack: u32,
    },
    /// SHUTDOWN ACK (§3.3.9).
    ShutdownAck,
    /// COOKIE ECHO (§3.3.11): the cookie from the INIT ACK, verbatim.
    CookieEcho {
        cookie: Vec<u8>,
    },
    /// COOKIE ACK (§3.3.12).
    CookieAck,
    /// SHUTDOWN COMPLETE (§3.3.13).
    ShutdownComplete {
        t_bit: bool,
    },
    /// OPERATION ERROR (§3.3.10).
    Error {
        t_bit: bool,
        causes: Vec<ErrorCause>,
    },
    /// FORWARD TSN (RFC 3758 sec. 3.2, `sctp_forward_tsn.rs`).
    ForwardTsn(ForwardTsnChunk),
    /// ECN Echo (appendix A): the lowest TSN of a packet that arrived marked CE.
    Ecne {
        lowest_tsn: u32,
    },
    /// CWR (appendix A): the sender has cut its window for the ECNE of this TSN.
    Cwr {
        lowest_tsn: u32,
    },
    /// A chunk type this module does not know (§3.2).
    Unknown(UnknownChunk),
}

// A chunk always has at least its 4-byte header, so an `is_empty` to go
// with `len` would be meaningless.
#[allow(clippy::len_without_is_empty)]
impl Chunk {
    /// The chunk type code (see [`chunk_type`]).
    pub fn chunk_type(&self) -> u8 {
        match self {
            Chunk::Data(_) => chunk_type::DATA,
            Chunk::Init(_) => chunk_type::INIT,
            Chunk::InitAck(_) => chunk_type::INIT_ACK,
            Chunk::Sack(_) => chunk_type::SACK,
            Chunk::Heartbeat { .. } => chunk_type::HEARTBEAT,
            Chunk::HeartbeatAck { .. } => chunk_type::HEARTBEAT_ACK,
            Chunk::Abort { .. } => chunk_type::ABORT,
            Chunk::Shutdown { .. } => chunk_type::SHUTDOWN,
            Chunk::ShutdownAck => chunk_type::SHUTDOWN_ACK,
            Chunk::CookieEcho { .. } => chunk_type::COOKIE_ECHO,
            Chunk::CookieAck => chunk_type::COOKIE_ACK,
            Chunk::ShutdownComplete { .. } => chunk_type::SHUTDOWN_COMPLETE,
            Chunk::Error { .. } => chunk_type::ERROR,
            Chunk::ForwardTsn(_) => chunk_type::FORWARD_TSN,
            Chunk::Ecne { .. } => chunk_type::ECNE,
            Chunk::Cwr { .. } => chunk_type::CWR,
            Chunk::Unknown(u) => u.kind,
        }
    }

    fn flags(&self) -> u8 {
        match self {
            Chunk::Data(d) => d.flags.bits(),
            Chunk::Abort { t_bit }
            | Chunk::ShutdownComplete { t_bit }
            | Chunk::Error { t_bit, .. } => u8::from(*t_bit) * FLAG_T,
            Chunk::Unknown(u) => u.flags,
            Chunk::Sack(s) => s.flags,
            _ => 0,
        }
    }

    /// The value of the chunk length field: header and value, no padding.
    ///
    /// For chunks ending in a variable-length parameter (INIT ACK's cookie,
    /// the Heartbeat Info) the final parameter's padding is not counted
    /// either, following §3.2: "it does include any padding of
    /// variable-length parameters other than the last parameter".
    pub fn len(&self) -> usize {
        CHUNK_HEADER_LEN
            + match self {
                Chunk::Data(d) => DataChunk::HEADER_LEN - CHUNK_HEADER_LEN + d.payload_len as usize,
                Chunk::Init(i) => {
                    INIT_FIXED_LEN
                        + IPV4_ADDRESS_PARAM_LEN * i.addrs.len()
                        + COOKIE_PRESERVATIVE_PARAM_LEN
                            * usize::from(i.cookie_preservative.is_some())
                        + FORWARD_TSN_SUPPORTED_PARAM_LEN * usize::from(i.forward_tsn)
                        + ECN_CAPABLE_PARAM_LEN * usize::from(i.ecn_capable)
                        + tlvs_len(i.unrecognized.iter().map(Vec::len))
                }
                Chunk::InitAck(ia) => {
                    INIT_FIXED_LEN
                        + IPV4_ADDRESS_PARAM_LEN * ia.addrs.len()
                        + FORWARD_TSN_SUPPORTED_PARAM_LEN * usize::from(ia.forward_tsn)
                        + ECN_CAPABLE_PARAM_LEN * usize::from(ia.ecn_capable)
                        + ia.reported
                            .iter()
                            .map(|t| pad4(PARAM_HEADER_LEN + t.len()))
                            .sum::<usize>()
                        + tlvs_len(
                            std::iter::once(PARAM_HEADER_LEN + ia.state_cookie.len())
                                .chain(ia.unrecognized.iter().map(Vec::len)),
                        )
                }
                Chunk::Error { causes, .. } => {
                    tlvs_len(causes.iter().map(|c| PARAM_HEADER_LEN + c.info.len()))
                }
                Chunk::Unknown(u) => u.value.len(),
                Chunk::ForwardTsn(f) => f.len() - CHUNK_HEADER_LEN,
                Chunk::Sack(s) => {
                    SackChunk::len_with(s.gaps.len(), s.dups.len()) - CHUNK_HEADER_LEN
                }
                Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                    PARAM_HEADER_LEN + info.len()
                }
                Chunk::Shutdown { .. } | Chunk::Ecne { .. } | Chunk::Cwr { .. } => {
                    ECN_CHUNK_VALUE_LEN
                }
                Chunk::CookieEcho { cookie } => cookie.len(),
                Chunk::Abort { .. }
                | Chunk::ShutdownAck
                | Chunk::CookieAck
                | Chunk::ShutdownComplete { .. } => 0,
            }
    }

    /// Bytes the chunk takes in a packet: `len()` rounded up to 4.
    pub fn padded_len(&self) -> usize {
        pad4(self.len())
    }

    /// Writes the chunk and its zero padding into `buf[..padded_len()]` and
    /// returns `padded_len()`. DATA payload is written as zeros.
    ///
    /// # Panics
    /// If `buf` is too short, or the chunk (or its cookie / info parameter)
    /// is longer than a 16-bit length field allows.
    pub fn emit(&self, buf: &mut [u8]) -> usize {
        let len = self.len();
        let padded = pad4(len);
        let out = &mut buf[..padded];
        out[0] = self.chunk_type();
        out[1] = self.flags();
        write_u16(out, 2, len_u16(len, "SCTP chunk"));
        let value = &mut out[CHUNK_HEADER_LEN..len];
        match self {
            Chunk::Data(d) => {
                write_u32(value, 0, d.tsn);
                write_u16(value, 4, d.stream);
                write_u16(value, 6, d.ssn);
                write_u32(value, 8, d.ppid);
                value[12..].fill(0);
            }
            Chunk::Init(i) => {
                emit_init_fields(
                    value,
                    i.init_tag,
                    i.a_rwnd,
                    i.outbound_streams,
                    i.inbound_streams,
                    i.initial_tsn,
                );
                let mut at = INIT_FIXED_LEN + emit_addrs(&mut value[INIT_FIXED_LEN..], &i.addrs);
                if let Some(inc) = i.cookie_preservative {
                    emit_param(
                        &mut value[at..],
                        PARAM_COOKIE_PRESERVATIVE,
                        &inc.to_be_bytes(),
                    );
                    at += COOKIE_PRESERVATIVE_PARAM_LEN;
                }
                if i.ecn_capable {
                    emit_param(&mut value[at..], PARAM_ECN_CAPABLE, &[]);
                    at += ECN_CAPABLE_PARAM_LEN;
                }
                if i.forward_tsn {
                    emit_param(&mut value[at..], PARAM_FORWARD_TSN_SUPPORTED, &[]);
                    at += FORWARD_TSN_SUPPORTED_PARAM_LEN;
                }
                emit_tlvs(&mut value[at..], &i.unrecognized);
            }
            Chunk::InitAck(ia) => {
                emit_init_fields(
                    value,
                    ia.init_tag,
                    ia.a_rwnd,
                    ia.outbound_streams,
                    ia.inbound_streams,
                    ia.initial_tsn,
                );
                let mut at = INIT_FIXED_LEN + emit_addrs(&mut value[INIT_FIXED_LEN..], &ia.addrs);
                if ia.ecn_capable {
                    emit_param(&mut value[at..], PARAM_ECN_CAPABLE, &[]);
                    at += ECN_CAPABLE_PARAM_LEN;
                }
                if ia.forward_tsn {
                    emit_param(&mut value[at..], PARAM_FORWARD_TSN_SUPPORTED, &[]);
                    at += FORWARD_TSN_SUPPORTED_PARAM_LEN;
                }
                for t in &ia.reported {
                    emit_param(&mut value[at..], PARAM_UNRECOGNIZED, t);
                    let end = at + pad4(PARAM_HEADER_LEN + t.len());
                    value[at + PARAM_HEADER_LEN + t.len()..end].fill(0);
                    at = end;
                }
                // Unrecognized parameters go last: one that stops the parameter walk
                // (§3.2.1) must not hide the cookie from a parser.
                let cookie_end = at + PARAM_HEADER_LEN + ia.state_cookie.len();
                emit_param(&mut value[at..], PARAM_STATE_COOKIE, &ia.state_cookie);
                let end = (at + pad4(cookie_end - at)).min(value.len());
                value[cookie_end..end].fill(0);
                emit_tlvs(&mut value[end..], &ia.unrecognized);
            }
            Chunk::Sack(s) => {
                write_u32(value, 0, s.cum_tsn_ack);
                write_u32(value, 4, s.a_rwnd);
                write_u16(value, 8, len_u16(s.gaps.len(), "SACK gap count"));
                write_u16(value, 10, len_u16(s.dups.len(), "SACK dup count"));
                let mut at = 12;
                for &(start, end) in &s.gaps {
                    write_u16(value, at, start);
                    write_u16(value, at + 2, end);
                    at += 4;
                }
                for &tsn in &s.dups {
                    write_u32(value, at, tsn);
                    at += 4;
                }
            }
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                emit_param(value, PARAM_HEARTBEAT_INFO, info);
            }
            Chunk::Shutdown { cum_tsn_ack }
            | Chunk::Ecne {
                lowest_tsn: cum_tsn_ack,
            }
            | Chunk::Cwr {
                lowest_tsn: cum_tsn_ack,
            } => write_u32(value, 0, *cum_tsn_ack),
            Chunk::CookieEcho { cookie } => value.copy_from_slice(cookie),
            Chunk::Error { causes, .. } => {
                let mut at = 0;
                for c in causes {
                    let end = (at + pad4(PARAM_HEADER_LEN + c.info.len())).min(value.len());
                    emit_param(&mut value[at..], c.code, &c.info);
                    value[at + PARAM_HEADER_LEN + c.info.len()..end].fill(0);
                    at = end;
                }
            }
            Chunk::Unknown(u) => value.copy_from_slice(&u.value),
            Chunk::ForwardTsn(f) => f.emit_value(value),
            Chunk::Abort { .. }
            | Chunk::ShutdownAck
            | Chunk::CookieAck
            | Chunk::ShutdownComplete { .. } => {}
        }
        out[len..].fill(0);
        padded
    }

    /// Parses one chunk at the start of `buf` and returns it with the bytes
    /// it occupies including padding.
    pub fn parse(buf: &[u8]) -> Result<(Chunk, usize), WireError> {
        let kind = read_u8(buf, 0)?;
        let flags = read_u8(buf, 1)?;
        let (len, padded) = chunk_extent(buf)?;
        let value = &buf[CHUNK_HEADER_LEN..len];
        let chunk = match kind {
            chunk_type::DATA => {
                if value.len() < DataChunk::HEADER_LEN - CHUNK_HEADER_LEN {
                    return Err(WireError::BadLength);
                }
                Chunk::Data(DataChunk {
                    tsn: read_u32(value, 0)?,
                    stream: read_u16(value, 4)?,
                    ssn: read_u16(value, 6)?,
                    ppid: read_u32(value, 8)?,
                    flags: DataFlags::from_bits(flags),
                    // len <= 65535, so this cannot truncate.
                    payload_len: (len - DataChunk::HEADER_LEN) as u32,
                })
            }
            chunk_type::INIT => {
                let (mut init, params) = parse_init_fields(value)?;
                let mut bad_addr = false;
                let mut unrecognized = Vec::new();
                walk_init_params(params, &INIT_PARAMS, &mut unrecognized, |ptype, pvalue| {
                    if ptype == PARAM_IPV4_ADDRESS {
                        match <[u8; 4]>::try_from(pvalue) {
                            Ok(a) => init.addrs.push(a),
                            Err(_) => bad_addr = true,
                        }
                    } else if ptype == PARAM_COOKIE_PRESERVATIVE {
                        match <[u8; 4]>::try_from(pvalue) {
                            Ok(b) => init.cookie_preservative = Some(u32::from_be_bytes(b)),
                            Err(_) => bad_addr = true,
                        }
                    } else if ptype == PARAM_ECN_CAPABLE {
                        init.ecn_capable = true;
                    } else if ptype == PARAM_FORWARD_TSN_SUPPORTED {
                        init.forward_tsn = true;
                    }
                })?;
                init.unrecognized = unrecognized;
                if bad_addr {
                    return Err(WireError::BadLength);
                }
                Chunk::Init(init)
            }
            chunk_type::INIT_ACK => {
                let (init, params) = parse_init_fields(value)?;
                let mut cookie = None;
                let mut addrs = Vec::new();
                let mut bad_addr = false;
                let mut unrecognized = Vec::new();
                let mut reported = Vec::new();
                let mut forward_tsn = false;
                let mut ecn_capable = false;
                walk_init_params(
                    params,
                    &INIT_ACK_PARAMS,
                    &mut unrecognized,
                    |ptype, pvalue| {
                        if ptype == PARAM_STATE_COOKIE && cookie.is_none() {
                            cookie = Some(pvalue);
                        } else if ptype == PARAM_UNRECOGNIZED {
                            reported.push(pvalue.to_vec());
                        } else if ptype == PARAM_ECN_CAPABLE {
                            ecn_capable = true;
                        } else if ptype == PARAM_FORWARD_TSN_SUPPORTED {
                            forward_tsn = true;
                        } else if ptype == PARAM_IPV4_ADDRESS {
                            match <[u8; 4]>::try_from(pvalue) {
                                Ok(a) => addrs.push(a),
                                Err(_) => bad_addr = true,
                            }
                        }
                    },
                )?;
                if bad_addr {
                    return Err(WireError::BadLength);
                }
                let cookie = cookie.ok_or(WireError::Malformed("INIT ACK without State Cookie"))?;
                Chunk::InitAck(InitAckChunk {
                    init_tag: init.init_tag,
                    a_rwnd: init.a_rwnd,
                    outbound_streams: init.outbound_streams,
                    inbound_streams: init.inbound_streams,
                    initial_tsn: init.initial_tsn,
                    addrs,
                    forward_tsn,
                    unrecognized,
                    reported,
                    state_cookie: cookie.to_vec(),
                    ecn_capable,
                })
            }
            chunk_type::SACK => Chunk::Sack(parse_sack(value, flags)?),
            chunk_type::HEARTBEAT => Chunk::Heartbeat {
                info: parse_heartbeat_info(value)?,
            },
            chunk_type::HEARTBEAT_ACK => Chunk::HeartbeatAck {
                info: parse_heartbeat_info(value)?,
            },
            chunk_type::ABORT => Chunk::Abort {
                t_bit: flags & FLAG_T != 0,
            },
            chunk_type::SHUTDOWN => {
                expect_value_len(value, 4)?;
                Chunk::Shutdown {
                    cum_tsn_ack: read_u32(value, 0)?,
                }
            }
            chunk_type::SHUTDOWN_ACK => {
                expect_value_len(value, 0)?;
                Chunk::ShutdownAck
            }
            chunk_type::COOKIE_ECHO => Chunk::CookieEcho {
                cookie: value.to_vec(),
            },
            chunk_type::COOKIE_ACK => {
                expect_value_len(value, 0)?;
                Chunk::CookieAck
            }
            chunk_type::ECNE => {
                if value.len() != ECNE_WITH_COUNT_VALUE_LEN {
                    expect_value_len(value, ECN_CHUNK_VALUE_LEN)?;
                }
                Chunk::Ecne {
                    lowest_tsn: read_u32(value, 0)?,
                }
            }
            chunk_type::CWR => {
                expect_value_len(value, ECN_CHUNK_VALUE_LEN)?;
                Chunk::Cwr {
                    lowest_tsn: read_u32(value, 0)?,
                }
            }
            chunk_type::SHUTDOWN_COMPLETE => {
                expect_value_len(value, 0)?;
                Chunk::ShutdownComplete {
                    t_bit: flags & FLAG_T != 0,
                }
            }
            chunk_type::ERROR => {
                let mut causes = Vec::new();
                walk_params(value, |code, info| {
                    causes.push(ErrorCause {
                        code,
                        info: info.to_vec(),
                    })
                })?;
                Chunk::Error {
                    t_bit: flags & FLAG_T != 0,
                    causes,
                }
            }
            chunk_type::FORWARD_TSN => Chunk::ForwardTsn(ForwardTsnChunk::parse_value(value)?),
            kind => Chunk::Unknown(UnknownChunk {
                kind,
                flags,
                value: value.to_vec(),
            }),
        };
        Ok((chunk, padded))
    }
}

/// The length a chunk header at the start of `buf` declares and the bytes it occupies with
/// padding, checked against the header size and the buffer.
fn chunk_extent(buf: &[u8]) -> Result<(usize, usize), WireError> {
    let len = usize::from(read_u16(buf, 2)?);
    if len < CHUNK_HEADER_LEN {
        return Err(WireError::BadLength);
    }
    let padded = pad4(len);
    if buf.len() < padded {
        return Err(WireError::Truncated);
    }
    Ok((len, padded))
}

impl Chunk {
    /// [`Chunk::parse`] into `slot`: a SACK read where a SACK was keeps that SACK's
    /// gap and duplicate lists, so a reused chunk list stops allocating once they have
    /// grown. Returns the bytes the chunk occupies; on an error `slot` is unchanged.
    pub fn parse_in_place(buf: &[u8], slot: &mut Chunk) -> Result<usize, WireError> {
        match slot {
            Chunk::Sack(s) if read_u8(buf, 0)? == chunk_type::SACK => {
                let (len, padded) = chunk_extent(buf)?;
                parse_sack_into(&buf[CHUNK_HEADER_LEN..len], s)?;
                s.flags = read_u8(buf, 1)?;
                Ok(padded)
            }
            // DATA and the other fixed chunks own no heap memory: a plain store.
            _ => {
                let (chunk, used) = Chunk::parse(buf)?;
                *slot = chunk;
                Ok(used)
            }
        }
    }
}

fn emit_init_fields(value: &mut [u8], tag: u32, a_rwnd: u32, os: u16, mis: u16, tsn: u32) {
    write_u32(value, 0, tag);
    write_u32(value, 4, a_rwnd);
    write_u16(value, 8, os);
    write_u16(value, 10, mis);
    write_u32(value, 12, tsn);
}

/// Writes one IPv4 Address parameter per address; returns the bytes written.
fn emit_addrs(buf: &mut [u8], addrs: &[[u8; 4]]) -> usize {
    for (k, a) in addrs.iter().enumerate() {
        emit_param(
            &mut buf[k * IPV4_ADDRESS_PARAM_LEN..],
            PARAM_IPV4_ADDRESS,
            a,
        );
    }
    IPV4_ADDRESS_PARAM_LEN * addrs.len()
}

/// Writes a parameter header and value. The caller's slice ends at the
/// parameter's unpadded end; chunk padding covers the rest.
fn emit_param(buf: &mut [u8], ptype: u16, value: &[u8]) {
    write_u16(buf, 0, ptype);
    write_u16(
        buf,
        2,
        len_u16(PARAM_HEADER_LEN + value.len(), "SCTP parameter"),
    );
    buf[PARAM_HEADER_LEN..PARAM_HEADER_LEN + value.len()].copy_from_slice(value);
}

fn expect_value_len(value: &[u8], len: usize) -> Result<(), WireError> {
    if value.len() == len {
        Ok(())
    } else {
        Err(WireError::BadLength)
    }
}

/// Returns the INIT / INIT ACK fixed fields and the parameter area.
fn parse_init_fields(value: &[u8]) -> Result<(InitChunk, &[u8]), WireError> {
    if value.len() < INIT_FIXED_LEN {
        return Err(WireError::BadLength);
    }
    let init = InitChunk {
        init_tag: read_u32(value, 0)?,
        a_rwnd: read_u32(value, 4)?,
        outbound_streams: read_u16(value, 8)?,
        inbound_streams: read_u16(value, 10)?,
        initial_tsn: read_u32(value, 12)?,
        addrs: Vec::new(),
        cookie_preservative: None,
        forward_tsn: false,
        unrecognized: Vec::new(),
        ecn_capable: false,
    };
    Ok((init, &value[INIT_FIXED_LEN..]))
}

/// Walks the TLV parameters of a chunk value (§3.2.1), calling `visit` with
/// each type and value. Each parameter is padded to 4 bytes, but the last
/// one's padding may lie outside the chunk length (§3.2), so a missing
/// final pad is accepted.
fn walk_params<'a>(
    mut params: &'a [u8],
    mut visit: impl FnMut(u16, &'a [u8]),
) -> Result<(), WireError> {
    while !params.is_empty() {
        let ptype = read_u16(params, 0)?;
        let plen = usize::from(read_u16(params, 2)?);
        if plen < PARAM_HEADER_LEN {
            return Err(WireError::BadLength);
        }
        let pvalue = params
            .get(PARAM_HEADER_LEN..plen)
            .ok_or(WireError::BadLength)?;
        visit(ptype, pvalue);
        params = params.get(pad4(plen)..).unwrap_or(&[]);
    }
    Ok(())
}

/// Walks INIT / INIT ACK parameters: `known` types go to `visit`; any other follows
/// the two high-order bits of its type (§3.2.1): 00 stop, 01 stop and report, 10 skip,
/// 11 skip and report, where stopping leaves this and every later parameter
/// unprocessed. Reported parameters are appended to `unrecognized` as complete TLVs.
fn walk_init_params<'a>(
    mut params: &'a [u8],
    known: &[u16],
    unrecognized: &mut Vec<Vec<u8>>,
    mut visit: impl FnMut(u16, &'a [u8]),
) -> Result<(), WireError> {
    while !params.is_empty() {
        let ptype = read_u16(params, 0)?;
        let plen = usize::from(read_u16(params, 2)?);
        if plen < PARAM_HEADER_LEN {
            return Err(WireError::BadLength);
        }
        let tlv = params.get(..plen).ok_or(WireError::BadLength)?;
        if known.contains(&ptype) {
            visit(ptype, &tlv[PARAM_HEADER_LEN..]);
        } else {
            if ptype & 0x4000 != 0 {
                unrecognized.push(tlv.to_vec());
            }
            if ptype & 0x8000 == 0 {
                return Ok(());
            }
        }
        params = params.get(pad4(plen)..).unwrap_or(&[]);
    }
    Ok(())
}

/// Bytes a run of TLVs of these unpadded lengths takes inside a chunk length: every
/// one padded to 4 except the last, whose padding the chunk length leaves out (§3.2).
fn tlvs_len(lens: impl Iterator<Item = usize>) -> usize {
    let mut total = 0;
    let mut last = 0;
    for l in lens {
        total += pad4(l);
        last = pad4(l) - l;
    }
    total - last
}

/// Writes TLVs verbatim, each padded to 4 except where the slice ends first (the
/// chunk's final padding is written by the caller).
fn emit_tlvs(buf: &mut [u8], tlvs: &[Vec<u8>]) {
    let mut at = 0;
    for t in tlvs {
        at += emit_padded(&mut buf[at..], t);
    }
}

/// Writes `t` and zero padding up to 4 (as far as `buf` reaches); returns the bytes
/// the padded TLV takes.
fn emit_padded(buf: &mut [u8], t: &[u8]) -> usize {
    buf[..t.len()].copy_from_slice(t);
    let end = pad4(t.len()).min(buf.len());
    buf[t.len()..end].fill(0);
    pad4(t.len())
}

fn parse_heartbeat_info(value: &[u8]) -> Result<Vec<u8>, WireError> {
    let mut info = None;
    walk_params(value, |ptype, pvalue| {
        if ptype == PARAM_HEARTBEAT_INFO && info.is_none() {
            info = Some(pvalue);
        }
    })?;
    info.map(<[u8]>::to_vec)
        .ok_or(WireError::Malformed("HEARTBEAT without Heartbeat Info"))
}

fn parse_sack(value: &[u8], flags: u8) -> Result<SackChunk, WireError> {
    let mut sack = SackChunk {
        cum_tsn_ack: 0,
        a_rwnd: 0,
        gaps: Vec::new(),
        dups: Vec::new(),
        flags,
    };
    parse_sack_into(value, &mut sack)?;
    Ok(sack)
}

/// Reads a SACK's value into `sack`, reusing its lists; `sack` is untouched on an
/// error (every check comes before the first write).
fn parse_sack_into(value: &[u8], sack: &mut SackChunk) -> Result<(), WireError> {
    let n_gaps = usize::from(read_u16(value, 8)?);
    let n_dups = usize::from(read_u16(value, 10)?);
    // The counts and the chunk length must agree exactly (§3.3.4).
    if value.len() + CHUNK_HEADER_LEN != SackChunk::len_with(n_gaps, n_dups) {
        return Err(WireError::BadLength);
    }
    // The length check above guarantees every read below is in bounds.
    let u16_at = |at: usize| u16::from_be_bytes([value[at], value[at + 1]]);
    let u32_at =
        |at: usize| u32::from_be_bytes([value[at], value[at + 1], value[at + 2], value[at + 3]]);
    sack.cum_tsn_ack = u32_at(0);
    sack.a_rwnd = u32_at(4);
    let gaps_end = 12 + 4 * n_gaps;
    sack.gaps.clear();
    sack.gaps.extend(
        (12..gaps_end)
            .step_by(4)
            .map(|at| (u16_at(at), u16_at(at + 2))),
    );
    sack.dups.clear();
    sack.dups
        .extend((gaps_end..gaps_end + 4 * n_dups).step_by(4).map(u32_at));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_chunks() -> Vec<Chunk> {
        vec![
            Chunk::Data(DataChunk {
                tsn: 0xdead_beef,
                stream: 3,
                ssn: 7,
                ppid: 51,
                flags: DataFlags::UNFRAGMENTED | DataFlags::UNORDERED,
                payload_len: 1448,
            }),
            Chunk::Data(DataChunk {
                tsn: 1,
                stream: 0,
                ssn: 0,
                ppid: 0,
                flags: DataFlags::IMMEDIATE,
                payload_len: 1,
            }),
            Chunk::Init(InitChunk {
                init_tag: 0x1234_5678,
                a_rwnd: 106_496,
                outbound_streams: 10,
                inbound_streams: 65535,
                initial_tsn: 42,
                addrs: vec![],
                forward_tsn: false,
                cookie_preservative: None,
                unrecognized: vec![],
                ecn_capable: false,
            }),
            Chunk::Init(InitChunk {
                init_tag: 7,
                a_rwnd: 65536,
                outbound_streams: 1,
                inbound_streams: 65535,
                initial_tsn: 3,
                addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
                forward_tsn: false,
                cookie_preservative: None,
                unrecognized: vec![],
                ecn_capable: false,
            }),
            Chunk::InitAck(InitAckChunk {
                init_tag: 0x8765_4321,
                a_rwnd: 65536,
                outbound_streams: 5,
                inbound_streams: 5,
                initial_tsn: 1000,
                addrs: vec![],
                forward_tsn: false,
                unrecognized: vec![],
                reported: vec![],
                state_cookie: vec![0xc0; 13],
                ecn_capable: false,
            }),
            Chunk::InitAck(InitAckChunk {
                init_tag: 0x8765_4321,
                a_rwnd: 65536,
                outbound_streams: 5,
                inbound_streams: 5,
                initial_tsn: 1000,
                addrs: vec![[10, 0, 0, 2], [11, 0, 0, 2], [12, 0, 0, 2]],
                forward_tsn: false,
                unrecognized: vec![],
                reported: vec![],
                state_cookie: vec![0xc0; 13],
                ecn_capable: false,
            }),
            Chunk::Sack(SackChunk {
                cum_tsn_ack: 100,
                a_rwnd: 50_000,
                gaps: vec![(2, 3), (5, 9)],
                dups: vec![99],
                flags: 0,
            }),
            Chunk::Sack(SackChunk {
                cum_tsn_ack: 7,
                a_rwnd: 1,
                gaps: vec![],
                dups: vec![],
                flags: 0,
            }),
            Chunk::Heartbeat {
                info: vec![1, 2, 3, 4, 5, 6, 7],
            },
            Chunk::HeartbeatAck { info: vec![9; 8] },
            Chunk::Abort { t_bit: true },
            Chunk::Abort { t_bit: false },
            Chunk::Shutdown {
                cum_tsn_ack: 0xffff_fffe,
            },
            Chunk::ShutdownAck,
            Chunk::CookieEcho {
                cookie: vec![0xc0; 13],
            },
            Chunk::CookieAck,
            Chunk::ShutdownComplete { t_bit: true },
            Chunk::ShutdownComplete { t_bit: false },
            // A retry after a Stale Cookie error (RFC 9260 5.2.6): the Cookie
            // Preservative (type 9, 8 bytes) between the addresses and the rest.
            Chunk::Init(InitChunk {
                init_tag: 8,
                a_rwnd: 65536,
                outbound_streams: 1,
                inbound_streams: 65535,
                initial_tsn: 3,
                addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
                forward_tsn: false,
                cookie_preservative: Some(2050),
                unrecognized: vec![vec![0xc0, 0x0f, 0, 4]],
                ecn_capable: false,
            }),
            // ECN (RFC 9260 appendix A): the ECN Capable parameter and both chunks.
            Chunk::Init(InitChunk {
                init_tag: 9,
                a_rwnd: 65536,
                outbound_streams: 1,
                inbound_streams: 65535,
                initial_tsn: 3,
                addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
                forward_tsn: false,
                cookie_preservative: Some(2050),
                unrecognized: vec![vec![0xc0, 0x0f, 0, 4]],
                ecn_capable: true,
            }),
            Chunk::InitAck(InitAckChunk {
                init_tag: 10,
                a_rwnd: 65536,
                outbound_streams: 1,
                inbound_streams: 1,
                initial_tsn: 77,
                addrs: vec![],
                forward_tsn: false,
                unrecognized: vec![],
                reported: vec![],
                state_cookie: vec![1, 2, 3],
                ecn_capable: true,
            }),
            Chunk::Ecne {
                lowest_tsn: 0x0102_0304,
            },
            Chunk::Cwr {
                lowest_tsn: u32::MAX,
            },
        ]
    }

    /// RFC 9260 appendix A's layouts: ECNE type 12 and CWR type 13, flags 0, length 8,
    /// the Lowest TSN Number; the ECN Capable parameter 0x8000 with length 4.
    #[test]
    fn known_answer_ecn_chunks_and_parameter() {
        let ecne = emit_vec(&Chunk::Ecne {
            lowest_tsn: 0x0102_0304,
        });
        assert_eq!(ecne, [12, 0, 0, 8, 1, 2, 3, 4]);
        let cwr = emit_vec(&Chunk::Cwr { lowest_tsn: 5 });
        assert_eq!(cwr, [13, 0, 0, 8, 0, 0, 0, 5]);
        let init = Chunk::Init(InitChunk {
            init_tag: 1,
            a_rwnd: 2,
            outbound_streams: 3,
            inbound_streams: 4,
            initial_tsn: 5,
            addrs: vec![],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: true,
        });
        let bytes = emit_vec(&init);
        assert_eq!(bytes.len(), 4 + 16 + 4);
        assert_eq!(&bytes[2..4], &[0, 24]);
        assert_eq!(&bytes[20..], &[0x80, 0, 0, 4]);
        // usrsctp's 12-byte ECNE (with a packet count) is read; a 12-byte CWR is not.
        let long = [12, 0, 0, 12, 0, 0, 0, 9, 0, 0, 0, 3];
        assert_eq!(
            Chunk::parse(&long).ok(),
            Some((Chunk::Ecne { lowest_tsn: 9 }, 12))
        );
        let mut long_cwr = long;
        long_cwr[0] = 13;
        assert!(Chunk::parse(&long_cwr).is_err());
        assert!(Chunk::parse(&[12, 0, 0, 6, 0, 0, 0, 0]).is_err());
    }

    fn emit_vec(chunk: &Chunk) -> Vec<u8> {
        let mut buf = vec![0xee; chunk.padded_len()];
        assert_eq!(chunk.emit(&mut buf), chunk.padded_len());
        buf
    }

    #[test]
    fn every_chunk_round_trips() {
        for chunk in sample_chunks() {
            let buf = emit_vec(&chunk);
            assert_eq!(buf.len() % 4, 0);
            assert_eq!(
                usize::from(u16::from_be_bytes([buf[2], buf[3]])),
                chunk.len()
            );
            assert!(
                buf[chunk.len()..].iter().all(|&b| b == 0),
                "padding of {chunk:?}"
            );
            let (parsed, used) = Chunk::parse(&buf).expect("parse");
            assert_eq!(parsed, chunk);
            assert_eq!(used, chunk.padded_len());
        }
    }

    #[test]
    fn sizes() {
        let data = |payload_len| {
            Chunk::Data(DataChunk {
                tsn: 0,
                stream: 0,
                ssn: 0,
                ppid: 0,
                flags: DataFlags::UNFRAGMENTED,
                payload_len,
            })
        };
        assert_eq!(data(1448).len(), 1464);
        assert_eq!(data(1448).padded_len(), 1464);
        assert_eq!(data(1).len(), 17);
        assert_eq!(data(1).padded_len(), 20);
        assert_eq!(DataChunk::len_for(1448), 1464);
        for n in 0..5 {
            for m in 0..4 {
                let sack = Chunk::Sack(SackChunk {
                    cum_tsn_ack: 0,
                    a_rwnd: 0,
                    gaps: vec![(1, 1); n],
                    dups: vec![0; m],
                    flags: 0,
                });
                assert_eq!(sack.len(), 16 + 4 * n + 4 * m);
                assert_eq!(SackChunk::len_with(n, m), 16 + 4 * n + 4 * m);
                assert_eq!(emit_vec(&sack).len(), 16 + 4 * n + 4 * m);
            }
        }
        let init_ack = Chunk::InitAck(InitAckChunk {
            init_tag: 1,
            a_rwnd: 1,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
            addrs: vec![],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![0; 13],
            ecn_capable: false,
        });
        // 20 fixed + 4 parameter header + 13 cookie; 3 bytes of padding.
        assert_eq!(init_ack.len(), 37);
        assert_eq!(init_ack.padded_len(), 40);
        assert_eq!(Chunk::Heartbeat { info: vec![0; 5] }.len(), 13);
        assert_eq!(Chunk::Shutdown { cum_tsn_ack: 0 }.len(), 8);
        assert_eq!(Chunk::CookieAck.len(), 4);
    }

    #[test]
    fn max_gaps_fitting() {
        // 1500-byte MTU minus 20 (IPv4) and 12 (common header): 1468 bytes.
        assert_eq!(SackChunk::max_gaps_fitting(1468, 0), 363);
        assert!(SackChunk::len_with(363, 0) <= 1468);
        assert!(SackChunk::len_with(364, 0) > 1468);
        assert_eq!(SackChunk::max_gaps_fitting(1468, 10), 353);
        assert_eq!(SackChunk::max_gaps_fitting(15, 0), 0);
        assert_eq!(SackChunk::max_gaps_fitting(20, 2), 0);
        assert_eq!(SackChunk::max_gaps_fitting(usize::MAX, 0), (65532 - 16) / 4);
    }

    #[test]
    fn known_answer_data_chunk() {
        // §3.3.1 layout: type 0, flags (B|E = 0x03), length 17 = 16 + 1,
        // TSN, stream id, SSN, PPID, one payload byte, three padding bytes.
        let chunk = Chunk::Data(DataChunk {
            tsn: 1,
            stream: 2,
            ssn: 3,
            ppid: 4,
            flags: DataFlags::UNFRAGMENTED,
            payload_len: 1,
        });
        assert_eq!(
            emit_vec(&chunk),
            [0, 3, 0, 17, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0]
        );
    }

    #[test]
    fn known_answer_init_ack_and_sack() {
        let init_ack = Chunk::InitAck(InitAckChunk {
            init_tag: 0x0a0b_0c0d,
            a_rwnd: 0x0001_0000,
            outbound_streams: 10,
            inbound_streams: 11,
            initial_tsn: 0x0102_0304,
            addrs: vec![],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![0xaa, 0xbb],
            ecn_capable: false,
        });
        // §3.3.3: type 2, flags 0, length 26 = 20 + (4 + 2); State Cookie
        // parameter type 7, length 6, cookie, 2 bytes of padding.
        assert_eq!(
            emit_vec(&init_ack),
            [
                2, 0, 0, 26, 0x0a, 0x0b, 0x0c, 0x0d, 0, 1, 0, 0, 0, 10, 0, 11, 1, 2, 3, 4, 0, 7, 0,
                6, 0xaa, 0xbb, 0, 0
            ]
        );
        let sack = Chunk::Sack(SackChunk {
            cum_tsn_ack: 9,
            a_rwnd: 0x100,
            gaps: vec![(2, 4)],
            dups: vec![5],
            flags: 0,
        });
        // §3.3.4: type 3, length 24 = 16 + 4 + 4, one gap, one dup.
        assert_eq!(
            emit_vec(&sack),
            [
                3, 0, 0, 24, 0, 0, 0, 9, 0, 0, 1, 0, 0, 1, 0, 1, 0, 2, 0, 4, 0, 0, 0, 5
            ]
        );
    }

    #[test]
    fn known_answer_address_parameters() {
        // §3.3.2 / §3.3.2.1: INIT of 20 fixed bytes plus two IPv4 Address
        // parameters (type 5, length 8, the address): length 36, no padding.
        let init = Chunk::Init(InitChunk {
            init_tag: 0x0102_0304,
            a_rwnd: 0x0001_0000,
            outbound_streams: 1,
            inbound_streams: 0xffff,
            initial_tsn: 9,
            addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
            forward_tsn: false,
            cookie_preservative: None,
            unrecognized: vec![],
            ecn_capable: false,
        });
        assert_eq!(init.len(), 36);
        assert_eq!(
            emit_vec(&init),
            [
                1, 0, 0, 36, 1, 2, 3, 4, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 9, 0, 5, 0, 8, 10,
                0, 0, 1, 0, 5, 0, 8, 11, 0, 0, 1
            ]
        );
        // INIT ACK: fixed part, one address, then the State Cookie (type 7, 4 + 2
        // bytes, padded): length 20 + 8 + 6 = 34, 36 bytes on the wire.
        let ack = Chunk::InitAck(InitAckChunk {
            init_tag: 5,
            a_rwnd: 6,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 7,
            addrs: vec![[12, 1, 2, 3]],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![],
            state_cookie: vec![0xaa, 0xbb],
            ecn_capable: false,
        });
        assert_eq!((ack.len(), ack.padded_len()), (34, 36));
        let bytes = emit_vec(&ack);
        assert_eq!(
            bytes,
            [
                2, 0, 0, 34, 0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 1, 0, 0, 0, 7, 0, 5, 0, 8, 12, 1, 2,
                3, 0, 7, 0, 6, 0xaa, 0xbb, 0, 0
            ]
        );
        assert_eq!(Chunk::parse(&bytes), Ok((ack, 36)));
        // An address parameter whose length is not 8 is refused.
        let mut bad = emit_vec(&init);
        bad[23] = 7;
        assert!(Chunk::parse(&bad).is_err());
    }

    #[test]
    fn t_bit_and_reserved_flags() {
        assert_eq!(
            emit_vec(&Chunk::ShutdownComplete { t_bit: true }),
            [14, 1, 0, 4]
        );
        assert_eq!(emit_vec(&Chunk::Abort { t_bit: false }), [6, 0, 0, 4]);
        // Reserved DATA flag bits are ignored on receipt.
        let mut buf = emit_vec(&sample_chunks()[1]);
        buf[1] |= 0xf0;
        let (chunk, _) = Chunk::parse(&buf).expect("parse");
        assert_eq!(chunk, sample_chunks()[1]);
        assert_eq!(
            format!("{:?}", DataFlags::from_bits(0xff)),
            "DataFlags(IUBE)"
        );
    }

    #[test]
    fn foreign_encodings_accepted() {
        // INIT with an optional parameter (Supported Address Types, type 12,
        // length 6, padded to 8) is parsed and the parameter skipped.
        let mut init = emit_vec(&sample_chunks()[2]);
        init.extend_from_slice(&[0, 12, 0, 6, 0, 5, 0, 0]);
        init[3] = 28;
        let (chunk, used) = Chunk::parse(&init).expect("parse");
        assert_eq!((chunk, used), (sample_chunks()[2].clone(), 28));
        // Heartbeat whose chunk length includes the final parameter padding.
        let mut hb = emit_vec(&Chunk::Heartbeat {
            info: vec![1, 2, 3, 4, 5, 6, 7],
        });
        hb[3] = 16;
        let (chunk, _) = Chunk::parse(&hb).expect("parse");
        assert_eq!(
            chunk,
            Chunk::Heartbeat {
                info: vec![1, 2, 3, 4, 5, 6, 7]
            }
        );
        // ABORT with an error cause (User-Initiated Abort, code 12, len 4).
        let (chunk, used) = Chunk::parse(&[6, 0, 0, 8, 0, 12, 0, 4]).expect("parse");
        assert_eq!((chunk, used), (Chunk::Abort { t_bit: false }, 8));
    }

    #[test]
    fn rejects_inconsistent_chunks() {
        assert_eq!(Chunk::parse(&[0, 0, 0, 3]), Err(WireError::BadLength));
        assert_eq!(
            Chunk::parse(&[0, 0, 0, 8, 0, 0, 0, 0]),
            Err(WireError::BadLength)
        );
        assert_eq!(
            Chunk::parse(&[11, 0, 0, 8, 0, 0, 0, 0]),
            Err(WireError::BadLength)
        );
        assert_eq!(Chunk::parse(&[7, 0, 0, 4]), Err(WireError::BadLength));
        // SACK whose counts disagree with its length.
        let mut sack = emit_vec(&sample_chunks()[6]);
        sack[15] = 3; // duplicate count 1 -> 3
        assert_eq!(Chunk::parse(&sack), Err(WireError::BadLength));
        // INIT ACK without a State Cookie.
        let mut init_ack = emit_vec(&sample_chunks()[2]);
        init_ack[0] = chunk_type::INIT_ACK;
        assert!(matches!(
            Chunk::parse(&init_ack),
            Err(WireError::Malformed(_))
        ));
        // HEARTBEAT whose only parameter is not Heartbeat Info.
        let hb = [4, 0, 0, 8, 0, 2, 0, 4];
        assert!(matches!(Chunk::parse(&hb), Err(WireError::Malformed(_))));
        // Parameter longer than the chunk.
        let hb = [4, 0, 0, 8, 0, 1, 0, 9];
        assert_eq!(Chunk::parse(&hb), Err(WireError::BadLength));
    }

    #[test]
    fn every_prefix_is_an_error() {
        for chunk in sample_chunks() {
            let buf = emit_vec(&chunk);
            for len in 0..buf.len() {
                assert!(Chunk::parse(&buf[..len]).is_err(), "{chunk:?} prefix {len}");
            }
        }
    }

    #[test]
    fn garbage_never_panics() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..50_000 {
            let len = (next() % 64) as usize;
            let mut buf = vec![0u8; len];
            for b in &mut buf {
                *b = next() as u8;
            }
            // Keep types and lengths plausible so deeper paths are reached.
            if len >= 4 {
                buf[0] = (next() % 16) as u8;
                buf[2] = 0;
                buf[3] = (next() % 72) as u8;
            }
            let _ = Chunk::parse(&buf);
        }
    }

    #[test]
    fn unknown_chunk_types_keep_their_bytes_and_bits() {
        // RFC 9260 3.2: the two high-order bits of the type decide (00 stop, 01 stop
        // and report, 10 skip, 11 skip and report). A 5-byte value: length 9, padded
        // to 12.
        let bytes = [0xc5, 0x07, 0, 9, 1, 2, 3, 4, 5, 0, 0, 0];
        let (chunk, used) = Chunk::parse(&bytes).expect("parse");
        let u = UnknownChunk {
            kind: 0xc5,
            flags: 7,
            value: vec![1, 2, 3, 4, 5],
        };
        assert_eq!((chunk.clone(), used), (Chunk::Unknown(u.clone()), 12));
        assert_eq!(emit_vec(&chunk), bytes);
        assert!(!u.stops_packet() && u.reports());
        for (kind, stops, reports) in [
            (0x3f, true, false),
            (0x40, true, true),
            (0x80, false, false),
            (0xff, false, true),
        ] {
            let u = UnknownChunk {
                kind,
                flags: 0,
                value: vec![],
            };
            assert_eq!(
                (u.stops_packet(), u.reports()),
                (stops, reports),
                "{kind:#x}"
            );
            assert_eq!(stops_packet(kind), stops);
        }
        // Known types never stop a packet as unknown ones.
        assert!(!stops_packet(chunk_type::DATA) && !stops_packet(chunk_type::ERROR));
        // The "Unrecognized Chunk Type" cause (3.3.10.6) holds the chunk as it came,
        // header included, without padding.
        assert_eq!(
            u_cause(&bytes),
            ErrorCause {
                code: 6,
                info: bytes[..9].to_vec()
            }
        );
    }

    fn u_cause(chunk: &[u8]) -> ErrorCause {
        match Chunk::parse(chunk) {
            Ok((Chunk::Unknown(u), _)) => u.cause(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn known_answer_error_chunk() {
        // 3.3.10: type 9, T bit in the flags; causes are TLVs padded to 4 except the
        // last, whose padding the chunk length leaves out. Cause 6 with a 9-byte
        // chunk: 4 + 9 = 13 (16 padded); cause 8 with one 4-byte parameter: 8.
        // Chunk length 4 + 16 + 8 = 28.
        let err = Chunk::Error {
            t_bit: true,
            causes: vec![
                ErrorCause {
                    code: 6,
                    info: vec![0xc0, 0, 0, 9, 1, 2, 3, 4, 5],
                },
                ErrorCause {
                    code: 8,
                    info: vec![0xc0, 0, 0, 4],
                },
            ],
        };
        assert_eq!((err.len(), err.padded_len()), (28, 28));
        let bytes = emit_vec(&err);
        assert_eq!(
            bytes,
            [
                9, 1, 0, 28, 0, 6, 0, 13, 0xc0, 0, 0, 9, 1, 2, 3, 4, 5, 0, 0, 0, 0, 8, 0, 8, 0xc0,
                0, 0, 4
            ]
        );
        assert_eq!(Chunk::parse(&bytes), Ok((err, 28)));
        // One cause of 13 bytes: the chunk length is 17, 20 on the wire.
        let one = Chunk::Error {
            t_bit: false,
            causes: vec![ErrorCause {
                code: 6,
                info: vec![0x40, 0, 0, 9, 1, 2, 3, 4, 5],
            }],
        };
        assert_eq!((one.len(), one.padded_len()), (17, 20));
        assert_eq!(Chunk::parse(&emit_vec(&one)), Ok((one, 20)));
    }

    #[test]
    fn unrecognized_init_parameters_follow_their_type_bits() {
        // 3.2.1 on an INIT: an IPv4 address, 0x8000 (10: skip), 0xC00F (11: skip,
        // report), 0x4001 with 2 value bytes (01: stop, report), then an address that
        // is no longer processed.
        let mut bytes = vec![1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
        bytes.extend([0, 5, 0, 8, 10, 0, 0, 1]);
        bytes.extend([0x80, 0, 0, 4]);
        bytes.extend([0xc0, 0x0f, 0, 4]);
        bytes.extend([0x40, 1, 0, 6, 7, 7, 0, 0]);
        bytes.extend([0, 5, 0, 8, 11, 0, 0, 1]);
        let len = bytes.len() as u16;
        bytes[2..4].copy_from_slice(&len.to_be_bytes());
        let (chunk, used) = Chunk::parse(&bytes).expect("parse");
        assert_eq!(used, bytes.len());
        let Chunk::Init(init) = chunk else {
            panic!("INIT")
        };
        assert_eq!(init.addrs, vec![[10, 0, 0, 1]]);
        assert_eq!(
            init.unrecognized,
            vec![vec![0xc0, 0x0f, 0, 4], vec![0x40, 1, 0, 6, 7, 7]]
        );
        // Type 00 (0x0010): stop without a report; the 0xC00F behind it is not read.
        let mut bytes = vec![1, 0, 0, 28, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
        bytes.extend([0, 0x10, 0, 4, 0xc0, 0x0f, 0, 4]);
        let (chunk, _) = Chunk::parse(&bytes).expect("parse");
        assert!(matches!(chunk, Chunk::Init(i) if i.unrecognized.is_empty()));
        // The recognized parameters of 3.3.2 (Supported Address Types, Cookie
        // Preservative) are not reported.
        let mut bytes = vec![1, 0, 0, 36, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 9];
        bytes.extend([0, 12, 0, 6, 0, 5, 0, 0, 0, 9, 0, 8, 0, 0, 0, 1]);
        let (chunk, _) = Chunk::parse(&bytes).expect("parse");
        assert!(matches!(chunk, Chunk::Init(i) if i.unrecognized.is_empty()));
    }

    #[test]
    fn known_answer_init_ack_reporting_a_parameter() {
        // 3.3.3: an Unrecognized Parameter (type 8) wraps the INIT's 0xC000 parameter
        // (4 + 4 = 8 bytes), then the State Cookie (4 + 2, last, padding not counted):
        // length 20 + 8 + 6 = 34, 36 on the wire.
        let ack = Chunk::InitAck(InitAckChunk {
            init_tag: 5,
            a_rwnd: 6,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 7,
            addrs: vec![],
            forward_tsn: false,
            unrecognized: vec![],
            reported: vec![vec![0xc0, 0, 0, 4]],
            state_cookie: vec![0xaa, 0xbb],
            ecn_capable: false,
        });
        assert_eq!((ack.len(), ack.padded_len()), (34, 36));
        let bytes = emit_vec(&ack);
        assert_eq!(
            bytes,
            [
                2, 0, 0, 34, 0, 0, 0, 5, 0, 0, 0, 6, 0, 1, 0, 1, 0, 0, 0, 7, 0, 8, 0, 8, 0xc0, 0,
                0, 4, 0, 7, 0, 6, 0xaa, 0xbb, 0, 0
            ]
        );
        assert_eq!(Chunk::parse(&bytes), Ok((ack, 36)));
        // An INIT ACK whose own unknown 0x4002 parameter (stop, report) follows the
        // cookie: reported, and re-emitted behind the cookie so it still parses.
        let mut bytes = bytes;
        bytes.extend([0x40, 2, 0, 4]);
        bytes[2..4].copy_from_slice(&40u16.to_be_bytes());
        let (chunk, used) = Chunk::parse(&bytes).expect("parse");
        assert_eq!(used, 40);
        let Chunk::InitAck(ia) = &chunk else {
            panic!("INIT ACK")
        };
        assert_eq!(ia.unrecognized, vec![vec![0x40, 2, 0, 4]]);
        assert_eq!(emit_vec(&chunk), bytes);
    }
}
