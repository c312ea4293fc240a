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
//!
//! One submodule per concern: `data`, `sack`, `init` (INIT, INIT ACK and their
//! parameters), `control` (heartbeat, error causes, unknown chunks), `ecn` (ECNE, CWR,
//! ECN Capable) and `params` (the TLV walk and padding). FORWARD TSN lives in
//! `super::sctp_forward_tsn`, I-DATA and I-FORWARD-TSN in `super::sctp_idata`. This file holds the [`Chunk`] enum and the dispatch of
//! `len`, `emit` and `parse` to them.

mod asconf;
mod auth;
mod control;
mod data;
mod ecn;
mod init;
mod nr_sack;
mod params;
mod reconfig;
mod sack;
#[cfg(test)]
mod tests;
mod timestamp;

pub use asconf::{
    ASCONF, ASCONF_ACK, AsconfAckChunk, AsconfChunk, AsconfOp, AsconfParam, AsconfResponse,
    asconf_cause, asconf_param,
};
pub use auth::{AuthChunk, HMAC_SHA1, HMAC_SHA256, InitExtensions};
pub use control::{ErrorCause, UnknownChunk, cause};
pub use data::{DataChunk, DataFlags};
pub use init::{IPV4_ADDRESS_PARAM_LEN, InitAckChunk, InitChunk};
pub use nr_sack::{NR_SACK, NrSackChunk};
pub use reconfig::{ReconfigChunk, ReconfigParam, ReconfigResult};
pub use sack::SackChunk;
pub use timestamp::TimestampChunk;

use super::sctp_forward_tsn::ForwardTsnChunk;
use super::sctp_idata::{IDataChunk, IForwardTsnChunk};
use super::{WireError, len_u16, read_u8, read_u16, read_u32, write_u16, write_u32};
use control::{emit_causes, emit_heartbeat_info, error_value_len, parse_heartbeat_info};
use ecn::ECN_CHUNK_VALUE_LEN;
use params::{PARAM_HEADER_LEN, expect_value_len};
use sack::{parse_sack, parse_sack_into};

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
    /// I-DATA and I-FORWARD-TSN (RFC 8260 sec. 2.1, 2.3.1): emitted, but parsed as
    /// unknown chunks (`UnknownChunk::decode_interleaving` reads them), as this end
    /// does not negotiate interleaving.
    pub const I_DATA: u8 = super::super::sctp_idata::I_DATA;
    pub const I_FORWARD_TSN: u8 = super::super::sctp_idata::I_FORWARD_TSN;
    /// AUTH (RFC 4895 sec. 4.2) and RE-CONFIG (RFC 6525 sec. 3.1).
    pub const AUTH: u8 = super::auth::AUTH;
    pub const RE_CONFIG: u8 = super::reconfig::RE_CONFIG;
    /// ASCONF and ASCONF-ACK (RFC 5061 sec. 4.1).
    pub const ASCONF: u8 = super::asconf::ASCONF;
    pub const ASCONF_ACK: u8 = super::asconf::ASCONF_ACK;
    /// NR-SACK (draft-natarajan-tsvwg-sctp-nrsack, `nr_sack.rs`).
    pub const NR_SACK: u8 = super::nr_sack::NR_SACK;
    /// ns-2.35's TIMESTAMP (Agent/SCTP/Timestamp, `timestamp.rs`).
    pub const TIMESTAMP: u8 = super::timestamp::TIMESTAMP;

    /// Whether this module decodes chunks of type `kind`.
    pub const fn is_known(kind: u8) -> bool {
        matches!(
            kind,
            0..=15 | FORWARD_TSN | RE_CONFIG | ASCONF | ASCONF_ACK | NR_SACK | TIMESTAMP
        )
    }
}

/// Whether a chunk of type `kind` ends the processing of its packet: an unknown type
/// whose high-order bit is clear (RFC 9260 3.2, bits 00 and 01).
pub const fn stops_packet(kind: u8) -> bool {
    !chunk_type::is_known(kind) && kind & 0x80 == 0
}
/// The T bit of ABORT and SHUTDOWN COMPLETE (§3.3.7, §3.3.13): set when
/// the sender reflected the peer's tag instead of using its own.
const FLAG_T: u8 = 0x01;

const fn pad4(len: usize) -> usize {
    len.next_multiple_of(4)
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
    /// I-DATA (RFC 8260 sec. 2.1, `sctp_idata.rs`); emitted only, see `chunk_type`.
    IData(IDataChunk),
    /// I-FORWARD-TSN (RFC 8260 sec. 2.3.1); emitted only.
    IForwardTsn(IForwardTsnChunk),
    /// A chunk type this module does not know (§3.2).
    Unknown(UnknownChunk),
    /// AUTH (RFC 4895 sec. 4.2, `auth.rs`).
    Auth(AuthChunk),
    /// RE-CONFIG (RFC 6525 sec. 3.1, `reconfig.rs`).
    Reconfig(ReconfigChunk),
    /// ASCONF and ASCONF-ACK (RFC 5061 sec. 4.1, `asconf.rs`).
    Asconf(AsconfChunk),
    AsconfAck(AsconfAckChunk),
    /// NR-SACK (`nr_sack.rs`).
    NrSack(NrSackChunk),
    /// ns-2.35's TIMESTAMP (`timestamp.rs`).
    Timestamp(TimestampChunk),
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
            Chunk::IData(_) => chunk_type::I_DATA,
            Chunk::IForwardTsn(_) => chunk_type::I_FORWARD_TSN,
            Chunk::Unknown(u) => u.kind,
            Chunk::Auth(_) => chunk_type::AUTH,
            Chunk::Reconfig(_) => chunk_type::RE_CONFIG,
            Chunk::Asconf(_) => chunk_type::ASCONF,
            Chunk::AsconfAck(_) => chunk_type::ASCONF_ACK,
            Chunk::NrSack(_) => chunk_type::NR_SACK,
            Chunk::Timestamp(_) => chunk_type::TIMESTAMP,
        }
    }

    fn flags(&self) -> u8 {
        match self {
            Chunk::Data(d) => d.flags.bits(),
            Chunk::IData(d) => d.flags.bits(),
            Chunk::Abort { t_bit }
            | Chunk::ShutdownComplete { t_bit }
            | Chunk::Error { t_bit, .. } => u8::from(*t_bit) * FLAG_T,
            Chunk::Unknown(u) => u.flags,
            Chunk::Sack(s) => s.flags,
            Chunk::NrSack(s) => s.flags,
            Chunk::Timestamp(t) => t.flags(),
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
                Chunk::Init(i) => i.value_len(),
                Chunk::InitAck(ia) => ia.value_len(),
                Chunk::Error { causes, .. } => error_value_len(causes),
                Chunk::Unknown(u) => u.value.len(),
                Chunk::Auth(a) => a.value_len(),
                Chunk::Reconfig(r) => r.value_len(),
                Chunk::Asconf(a) => a.value_len(),
                Chunk::AsconfAck(a) => a.value_len(),
                Chunk::NrSack(n) => n.value_len(),
                Chunk::Timestamp(_) => timestamp::VALUE_LEN,
                Chunk::ForwardTsn(f) => f.len() - CHUNK_HEADER_LEN,
                Chunk::IData(d) => IDataChunk::len_for(d.payload_len as usize) - CHUNK_HEADER_LEN,
                Chunk::IForwardTsn(f) => f.len() - CHUNK_HEADER_LEN,
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
            Chunk::Data(d) => d.emit_value(value),
            Chunk::Init(i) => i.emit_value(value),
            Chunk::InitAck(ia) => ia.emit_value(value),
            Chunk::Sack(s) => s.emit_value(value),
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                emit_heartbeat_info(value, info);
            }
            Chunk::Shutdown { cum_tsn_ack }
            | Chunk::Ecne {
                lowest_tsn: cum_tsn_ack,
            }
            | Chunk::Cwr {
                lowest_tsn: cum_tsn_ack,
            } => write_u32(value, 0, *cum_tsn_ack),
            Chunk::CookieEcho { cookie } => value.copy_from_slice(cookie),
            Chunk::Error { causes, .. } => emit_causes(value, causes),
            Chunk::Unknown(u) => value.copy_from_slice(&u.value),
            Chunk::ForwardTsn(f) => f.emit_value(value),
            Chunk::IData(d) => d.emit_value(value),
            Chunk::IForwardTsn(f) => f.emit_value(value),
            Chunk::Auth(a) => a.emit_value(value),
            Chunk::Reconfig(r) => r.emit_value(value),
            Chunk::Asconf(a) => a.emit_value(value),
            Chunk::AsconfAck(a) => a.emit_value(value),
            Chunk::NrSack(n) => n.emit_value(value),
            Chunk::Timestamp(t) => t.emit_value(value),
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
            chunk_type::DATA => Chunk::Data(DataChunk::parse_value(value, flags, len)?),
            chunk_type::INIT => Chunk::Init(InitChunk::parse_value(value)?),
            chunk_type::INIT_ACK => Chunk::InitAck(InitAckChunk::parse_value(value)?),
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
            chunk_type::ECNE => Chunk::Ecne {
                lowest_tsn: ecn::parse_ecne(value)?,
            },
            chunk_type::CWR => Chunk::Cwr {
                lowest_tsn: ecn::parse_cwr(value)?,
            },
            chunk_type::SHUTDOWN_COMPLETE => {
                expect_value_len(value, 0)?;
                Chunk::ShutdownComplete {
                    t_bit: flags & FLAG_T != 0,
                }
            }
            chunk_type::ERROR => control::parse_error(value, flags)?,
            chunk_type::FORWARD_TSN => Chunk::ForwardTsn(ForwardTsnChunk::parse_value(value)?),
            chunk_type::AUTH => Chunk::Auth(AuthChunk::parse_value(value)?),
            chunk_type::RE_CONFIG => Chunk::Reconfig(ReconfigChunk::parse_value(value)?),
            chunk_type::ASCONF => Chunk::Asconf(AsconfChunk::parse_value(value)?),
            chunk_type::ASCONF_ACK => Chunk::AsconfAck(AsconfAckChunk::parse_value(value)?),
            chunk_type::NR_SACK => Chunk::NrSack(NrSackChunk::parse_value(value, flags)?),
            chunk_type::TIMESTAMP => Chunk::Timestamp(TimestampChunk::parse_value(value, flags)?),
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
