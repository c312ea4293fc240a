//! ASCONF and ASCONF-ACK (RFC 5061 sec. 4.1.1, 4.1.2) and their parameters: Add IP
//! Address, Delete IP Address, Set Primary Address (4.2.1, 4.2.2, 4.2.4), Error Cause
//! Indication and Success Indication (4.2.3, 4.2.5).
//!
//! Parse policy: the ASCONF's Sequence Number and its Address Parameter must be there;
//! every parameter's length must fit the chunk; an address is IPv4 (type 5, length 8:
//! this simulator and its live mode are IPv4 only, so an IPv6 address makes the chunk
//! malformed, counted and dropped, never guessed at). A request parameter of another
//! type is kept as [`AsconfParam::Unrecognized`] with its correlation id, so that the
//! receiver can answer it with an Unrecognized Parameters error (RFC 5061 sec. 5.2, V2
//! with RFC 9260 3.2.1); one too short to hold a correlation id makes the chunk
//! malformed. An ASCONF-ACK's response of another type makes the chunk malformed.

use super::super::{WireError, read_u16, read_u32, write_u16, write_u32};
use super::control::{emit_causes, error_value_len};
use super::params::{PARAM_HEADER_LEN, emit_param, tlvs_len, walk_params};
use super::{ErrorCause, pad4};

/// ASCONF chunk type (RFC 5061 sec. 4.1.1): 0xC1, high-order bits 11 (a receiver
/// without the extension skips it and reports it).
pub const ASCONF: u8 = 0xC1;
/// ASCONF-ACK chunk type (sec. 4.1.2): 0x80, bits 10 (skipped silently).
pub const ASCONF_ACK: u8 = 0x80;

/// Parameter types (RFC 5061 sec. 4.2; IPv4 Address, RFC 9260 3.3.2.1).
pub mod asconf_param {
    pub const IPV4_ADDRESS: u16 = 5;
    pub const ADD_IP: u16 = 0xC001;
    pub const DELETE_IP: u16 = 0xC002;
    pub const ERROR_CAUSE_INDICATION: u16 = 0xC003;
    pub const SET_PRIMARY: u16 = 0xC004;
    pub const SUCCESS_INDICATION: u16 = 0xC005;
}

/// Error causes of RFC 5061 sec. 4.3 (and RFC 9260's Unresolvable Address).
pub mod asconf_cause {
    pub const UNRESOLVABLE_ADDRESS: u16 = 5;
    pub const DELETE_LAST_ADDRESS: u16 = 0x00A0;
    pub const RESOURCE_SHORTAGE: u16 = 0x00A1;
    pub const DELETE_SOURCE_ADDRESS: u16 = 0x00A2;
    pub const ILLEGAL_ASCONF_ACK: u16 = 0x00A3;
    pub const NO_AUTHORIZATION: u16 = 0x00A4;
}

/// IPv4 Address parameter: type, length 8, the address.
const ADDR_PARAM_LEN: usize = 8;

/// What an ASCONF request asks (sec. 4.2.1, 4.2.2, 4.2.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AsconfOp {
    AddIp,
    DeleteIp,
    SetPrimary,
}

impl AsconfOp {
    fn ptype(self) -> u16 {
        match self {
            AsconfOp::AddIp => asconf_param::ADD_IP,
            AsconfOp::DeleteIp => asconf_param::DELETE_IP,
            AsconfOp::SetPrimary => asconf_param::SET_PRIMARY,
        }
    }
}

/// One ASCONF parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsconfParam {
    /// A request: its ASCONF-Request Correlation ID and the IPv4 address.
    Request {
        op: AsconfOp,
        corr_id: u32,
        addr: [u8; 4],
    },
    /// A parameter type this end does not know: the whole TLV (for the Unrecognized
    /// Parameters cause) and its correlation id (the first 4 bytes of its value).
    Unrecognized { corr_id: u32, tlv: Vec<u8> },
}

impl AsconfParam {
    pub fn corr_id(&self) -> u32 {
        match self {
            AsconfParam::Request { corr_id, .. } | AsconfParam::Unrecognized { corr_id, .. } => {
                *corr_id
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            AsconfParam::Request { .. } => PARAM_HEADER_LEN + 4 + ADDR_PARAM_LEN,
            AsconfParam::Unrecognized { tlv, .. } => tlv.len(),
        }
    }

    fn emit(&self, buf: &mut [u8]) {
        match self {
            AsconfParam::Request { op, corr_id, addr } => {
                let mut v = [0u8; 4 + ADDR_PARAM_LEN];
                write_u32(&mut v, 0, *corr_id);
                emit_addr(&mut v[4..], *addr);
                emit_param(buf, op.ptype(), &v);
            }
            AsconfParam::Unrecognized { tlv, .. } => buf[..tlv.len()].copy_from_slice(tlv),
        }
    }
}

/// One response of an ASCONF-ACK (sec. 4.2.5, 4.2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsconfResponse {
    Success {
        corr_id: u32,
    },
    Error {
        corr_id: u32,
        causes: Vec<ErrorCause>,
    },
}

impl AsconfResponse {
    pub fn corr_id(&self) -> u32 {
        match self {
            AsconfResponse::Success { corr_id } | AsconfResponse::Error { corr_id, .. } => *corr_id,
        }
    }

    fn len(&self) -> usize {
        PARAM_HEADER_LEN
            + 4
            + match self {
                AsconfResponse::Success { .. } => 0,
                AsconfResponse::Error { causes, .. } => error_value_len(causes),
            }
    }

    fn emit(&self, buf: &mut [u8]) {
        let len = self.len();
        let mut v = vec![0u8; len - PARAM_HEADER_LEN];
        write_u32(&mut v, 0, self.corr_id());
        let ptype = match self {
            AsconfResponse::Success { .. } => asconf_param::SUCCESS_INDICATION,
            AsconfResponse::Error { causes, .. } => {
                emit_causes(&mut v[4..], causes);
                asconf_param::ERROR_CAUSE_INDICATION
            }
        };
        emit_param(buf, ptype, &v);
    }
}

/// ASCONF (sec. 4.1.1): the Sequence Number, an address of the sender that identifies
/// the association, then the requests in the order they are to be performed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsconfChunk {
    pub serial: u32,
    pub addr: [u8; 4],
    pub params: Vec<AsconfParam>,
}

/// ASCONF-ACK (sec. 4.1.2): the Sequence Number it acknowledges and the responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsconfAckChunk {
    pub serial: u32,
    pub responses: Vec<AsconfResponse>,
}

fn emit_addr(buf: &mut [u8], addr: [u8; 4]) {
    write_u16(buf, 0, asconf_param::IPV4_ADDRESS);
    write_u16(buf, 2, ADDR_PARAM_LEN as u16);
    buf[4..8].copy_from_slice(&addr);
}

/// An Address Parameter at the start of `v`: IPv4 only (see the module docs).
fn parse_addr(v: &[u8]) -> Result<[u8; 4], WireError> {
    let ptype = read_u16(v, 0)?;
    let len = usize::from(read_u16(v, 2)?);
    if ptype != asconf_param::IPV4_ADDRESS {
        return Err(WireError::Malformed("ASCONF address is not IPv4"));
    }
    if len != ADDR_PARAM_LEN {
        return Err(WireError::BadLength);
    }
    let a = v.get(4..8).ok_or(WireError::Truncated)?;
    Ok([a[0], a[1], a[2], a[3]])
}

/// Writes TLVs of these lengths with `emit`, each padded to 4 as far as `value` reaches.
fn emit_padded<T>(
    value: &mut [u8],
    items: &[T],
    len: impl Fn(&T) -> usize,
    emit: impl Fn(&T, &mut [u8]),
) {
    let mut at = 0;
    for it in items {
        let l = len(it);
        emit(it, &mut value[at..at + l]);
        let end = (at + pad4(l)).min(value.len());
        value[at + l..end].fill(0);
        at = end;
    }
}

impl AsconfChunk {
    pub(super) fn value_len(&self) -> usize {
        4 + ADDR_PARAM_LEN + tlvs_len(self.params.iter().map(AsconfParam::len))
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.serial);
        emit_addr(&mut value[4..], self.addr);
        emit_padded(
            &mut value[4 + ADDR_PARAM_LEN..],
            &self.params,
            AsconfParam::len,
            |p, b| p.emit(b),
        );
    }

    pub(super) fn parse_value(value: &[u8]) -> Result<AsconfChunk, WireError> {
        let serial = read_u32(value, 0)?;
        let addr = parse_addr(value.get(4..).ok_or(WireError::Truncated)?)?;
        let rest = value.get(4 + ADDR_PARAM_LEN..).unwrap_or(&[]);
        let mut params = Vec::new();
        let mut err = None;
        walk_params(rest, |ptype, v| {
            if err.is_some() {
                return;
            }
            let p = match ptype {
                asconf_param::ADD_IP | asconf_param::DELETE_IP | asconf_param::SET_PRIMARY => {
                    let op = match ptype {
                        asconf_param::ADD_IP => AsconfOp::AddIp,
                        asconf_param::DELETE_IP => AsconfOp::DeleteIp,
                        _ => AsconfOp::SetPrimary,
                    };
                    if v.len() != 4 + ADDR_PARAM_LEN {
                        Err(WireError::BadLength)
                    } else {
                        read_u32(v, 0).and_then(|corr_id| {
                            parse_addr(&v[4..]).map(|addr| AsconfParam::Request {
                                op,
                                corr_id,
                                addr,
                            })
                        })
                    }
                }
                _ if v.len() >= 4 => read_u32(v, 0).map(|corr_id| {
                    let mut tlv = Vec::with_capacity(PARAM_HEADER_LEN + v.len());
                    tlv.extend_from_slice(&ptype.to_be_bytes());
                    tlv.extend_from_slice(&((PARAM_HEADER_LEN + v.len()) as u16).to_be_bytes());
                    tlv.extend_from_slice(v);
                    AsconfParam::Unrecognized { corr_id, tlv }
                }),
                _ => Err(WireError::Malformed(
                    "ASCONF parameter without correlation id",
                )),
            };
            match p {
                Ok(p) => params.push(p),
                Err(e) => err = Some(e),
            }
        })?;
        match err {
            Some(e) => Err(e),
            None => Ok(AsconfChunk {
                serial,
                addr,
                params,
            }),
        }
    }
}

impl AsconfAckChunk {
    pub(super) fn value_len(&self) -> usize {
        4 + tlvs_len(self.responses.iter().map(AsconfResponse::len))
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u32(value, 0, self.serial);
        emit_padded(
            &mut value[4..],
            &self.responses,
            AsconfResponse::len,
            |r, b| r.emit(b),
        );
    }

    pub(super) fn parse_value(value: &[u8]) -> Result<AsconfAckChunk, WireError> {
        let serial = read_u32(value, 0)?;
        let mut responses = Vec::new();
        let mut err = None;
        walk_params(&value[4..], |ptype, v| {
            if err.is_some() {
                return;
            }
            let r = match ptype {
                asconf_param::SUCCESS_INDICATION if v.len() == 4 => {
                    read_u32(v, 0).map(|corr_id| AsconfResponse::Success { corr_id })
                }
                asconf_param::ERROR_CAUSE_INDICATION if v.len() >= 4 => {
                    let mut causes = Vec::new();
                    walk_params(&v[4..], |code, info| {
                        causes.push(ErrorCause {
                            code,
                            info: info.to_vec(),
                        })
                    })
                    .and_then(|()| read_u32(v, 0))
                    .map(|corr_id| AsconfResponse::Error { corr_id, causes })
                }
                asconf_param::SUCCESS_INDICATION | asconf_param::ERROR_CAUSE_INDICATION => {
                    Err(WireError::BadLength)
                }
                _ => Err(WireError::Malformed("unknown ASCONF-ACK parameter")),
            };
            match r {
                Ok(r) => responses.push(r),
                Err(e) => err = Some(e),
            }
        })?;
        match err {
            Some(e) => Err(e),
            None => Ok(AsconfAckChunk { serial, responses }),
        }
    }
}
