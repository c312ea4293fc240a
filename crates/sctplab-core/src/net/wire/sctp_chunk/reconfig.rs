//! RE-CONFIG (RFC 6525 sec. 3, 4): the chunk and its six parameters (Outgoing and
//! Incoming SSN Reset Request, SSN/TSN Reset Request, Re-configuration Response, Add
//! Outgoing and Add Incoming Streams Request).
//!
//! Parse policy: a RE-CONFIG carries one or two parameters (sec. 3.1); each parameter
//! must have exactly the length its type allows (a stream list is 2 bytes per stream);
//! a parameter type not of RFC 6525 makes the chunk malformed (the receiver counts and
//! drops it rather than guessing at a partial request).

use super::super::{WireError, read_u16, read_u32, write_u16, write_u32};
use super::pad4;
use super::params::{PARAM_HEADER_LEN, emit_param, tlvs_len, walk_params};

/// RE-CONFIG chunk type (RFC 6525 sec. 3.1): 130, high-order bits 10 (a receiver
/// without the extension skips it silently).
pub const RE_CONFIG: u8 = 130;

/// Parameter types (RFC 6525 sec. 4).
pub mod reconfig_param {
    pub const OUTGOING_SSN_RESET: u16 = 13;
    pub const INCOMING_SSN_RESET: u16 = 14;
    pub const SSN_TSN_RESET: u16 = 15;
    pub const RESPONSE: u16 = 16;
    pub const ADD_OUTGOING_STREAMS: u16 = 17;
    pub const ADD_INCOMING_STREAMS: u16 = 18;
}

/// Result codes of the Re-configuration Response (RFC 6525 sec. 4.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReconfigResult {
    NothingToDo = 0,
    Performed = 1,
    Denied = 2,
    WrongSsn = 3,
    AlreadyInProgress = 4,
    BadSequenceNumber = 5,
    InProgress = 6,
}

impl ReconfigResult {
    fn from_u32(v: u32) -> Option<Self> {
        use ReconfigResult as R;
        Some(match v {
            0 => R::NothingToDo,
            1 => R::Performed,
            2 => R::Denied,
            3 => R::WrongSsn,
            4 => R::AlreadyInProgress,
            5 => R::BadSequenceNumber,
            6 => R::InProgress,
            _ => return None,
        })
    }
}

/// One RE-CONFIG parameter (RFC 6525 sec. 4.1-4.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReconfigParam {
    /// 4.1: the sender resets its outgoing streams (all when `streams` is empty);
    /// `resp_seq` names the peer's request this one answers (or the last one seen),
    /// `last_tsn` is the sender's last assigned TSN.
    OutgoingSsnReset {
        req_seq: u32,
        resp_seq: u32,
        last_tsn: u32,
        streams: Vec<u16>,
    },
    /// 4.2: the sender asks the peer to reset its outgoing streams.
    IncomingSsnReset { req_seq: u32, streams: Vec<u16> },
    /// 4.3: reset every stream and both TSNs.
    SsnTsnReset { req_seq: u32 },
    /// 4.4: the answer to the request `resp_seq`; the TSN pair only answers an SSN/TSN
    /// reset (Sender's Next TSN, Receiver's Next TSN).
    Response {
        resp_seq: u32,
        result: ReconfigResult,
        tsns: Option<(u32, u32)>,
    },
    /// 4.5: the sender adds outgoing streams.
    AddOutgoingStreams { req_seq: u32, count: u16 },
    /// 4.6: the sender asks the peer to add outgoing streams (its incoming ones).
    AddIncomingStreams { req_seq: u32, count: u16 },
}

impl ReconfigParam {
    /// The parameter's type and its length field (header and value, no padding).
    fn type_len(&self) -> (u16, usize) {
        use reconfig_param as t;
        match self {
            ReconfigParam::OutgoingSsnReset { streams, .. } => {
                (t::OUTGOING_SSN_RESET, 16 + 2 * streams.len())
            }
            ReconfigParam::IncomingSsnReset { streams, .. } => {
                (t::INCOMING_SSN_RESET, 8 + 2 * streams.len())
            }
            ReconfigParam::SsnTsnReset { .. } => (t::SSN_TSN_RESET, 8),
            ReconfigParam::Response { tsns, .. } => {
                (t::RESPONSE, if tsns.is_some() { 20 } else { 12 })
            }
            ReconfigParam::AddOutgoingStreams { .. } => (t::ADD_OUTGOING_STREAMS, 12),
            ReconfigParam::AddIncomingStreams { .. } => (t::ADD_INCOMING_STREAMS, 12),
        }
    }

    /// The request sequence number of a request; `None` for a response.
    pub fn req_seq(&self) -> Option<u32> {
        match self {
            ReconfigParam::OutgoingSsnReset { req_seq, .. }
            | ReconfigParam::IncomingSsnReset { req_seq, .. }
            | ReconfigParam::SsnTsnReset { req_seq }
            | ReconfigParam::AddOutgoingStreams { req_seq, .. }
            | ReconfigParam::AddIncomingStreams { req_seq, .. } => Some(*req_seq),
            ReconfigParam::Response { .. } => None,
        }
    }

    fn value(&self) -> Vec<u8> {
        let (_, len) = self.type_len();
        let mut v = vec![0u8; len - PARAM_HEADER_LEN];
        match self {
            ReconfigParam::OutgoingSsnReset {
                req_seq,
                resp_seq,
                last_tsn,
                streams,
            } => {
                write_u32(&mut v, 0, *req_seq);
                write_u32(&mut v, 4, *resp_seq);
                write_u32(&mut v, 8, *last_tsn);
                write_streams(&mut v[12..], streams);
            }
            ReconfigParam::IncomingSsnReset { req_seq, streams } => {
                write_u32(&mut v, 0, *req_seq);
                write_streams(&mut v[4..], streams);
            }
            ReconfigParam::SsnTsnReset { req_seq } => write_u32(&mut v, 0, *req_seq),
            ReconfigParam::Response {
                resp_seq,
                result,
                tsns,
            } => {
                write_u32(&mut v, 0, *resp_seq);
                write_u32(&mut v, 4, *result as u32);
                if let Some((s, r)) = tsns {
                    write_u32(&mut v, 8, *s);
                    write_u32(&mut v, 12, *r);
                }
            }
            ReconfigParam::AddOutgoingStreams { req_seq, count }
            | ReconfigParam::AddIncomingStreams { req_seq, count } => {
                write_u32(&mut v, 0, *req_seq);
                write_u16(&mut v, 4, *count);
                // Two reserved bytes, zero (4.5, 4.6).
            }
        }
        v
    }

    fn parse(ptype: u16, v: &[u8]) -> Result<ReconfigParam, WireError> {
        use reconfig_param as t;
        let exact = |n: usize| {
            if v.len() == n {
                Ok(())
            } else {
                Err(WireError::BadLength)
            }
        };
        Ok(match ptype {
            t::OUTGOING_SSN_RESET => {
                if v.len() < 12 {
                    return Err(WireError::BadLength);
                }
                ReconfigParam::OutgoingSsnReset {
                    req_seq: read_u32(v, 0)?,
                    resp_seq: read_u32(v, 4)?,
                    last_tsn: read_u32(v, 8)?,
                    streams: read_streams(&v[12..])?,
                }
            }
            t::INCOMING_SSN_RESET => {
                if v.len() < 4 {
                    return Err(WireError::BadLength);
                }
                ReconfigParam::IncomingSsnReset {
                    req_seq: read_u32(v, 0)?,
                    streams: read_streams(&v[4..])?,
                }
            }
            t::SSN_TSN_RESET => {
                exact(4)?;
                ReconfigParam::SsnTsnReset {
                    req_seq: read_u32(v, 0)?,
                }
            }
            t::RESPONSE => {
                let tsns = match v.len() {
                    8 => None,
                    16 => Some((read_u32(v, 8)?, read_u32(v, 12)?)),
                    _ => return Err(WireError::BadLength),
                };
                ReconfigParam::Response {
                    resp_seq: read_u32(v, 0)?,
                    result: ReconfigResult::from_u32(read_u32(v, 4)?)
                        .ok_or(WireError::Malformed("unknown RE-CONFIG result"))?,
                    tsns,
                }
            }
            t::ADD_OUTGOING_STREAMS | t::ADD_INCOMING_STREAMS => {
                exact(8)?;
                let (req_seq, count) = (read_u32(v, 0)?, read_u16(v, 4)?);
                if ptype == t::ADD_OUTGOING_STREAMS {
                    ReconfigParam::AddOutgoingStreams { req_seq, count }
                } else {
                    ReconfigParam::AddIncomingStreams { req_seq, count }
                }
            }
            _ => return Err(WireError::Malformed("unknown RE-CONFIG parameter")),
        })
    }
}

fn write_streams(buf: &mut [u8], streams: &[u16]) {
    for (k, s) in streams.iter().enumerate() {
        write_u16(buf, 2 * k, *s);
    }
}

fn read_streams(v: &[u8]) -> Result<Vec<u16>, WireError> {
    if v.len() % 2 != 0 {
        return Err(WireError::BadLength);
    }
    (0..v.len() / 2).map(|k| read_u16(v, 2 * k)).collect()
}

/// RE-CONFIG chunk (RFC 6525 sec. 3.1): one or two parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReconfigChunk {
    pub params: Vec<ReconfigParam>,
}

impl ReconfigChunk {
    /// Length of the value (the last parameter's padding not counted, RFC 9260 3.2).
    pub(super) fn value_len(&self) -> usize {
        tlvs_len(self.params.iter().map(|p| p.type_len().1))
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        let mut at = 0;
        for p in &self.params {
            let (ptype, len) = p.type_len();
            emit_param(&mut value[at..], ptype, &p.value());
            let end = (at + pad4(len)).min(value.len());
            value[at + len..end].fill(0);
            at = end;
        }
    }

    pub(super) fn parse_value(value: &[u8]) -> Result<ReconfigChunk, WireError> {
        let mut params = Vec::new();
        let mut err = None;
        walk_params(value, |ptype, v| {
            if err.is_some() {
                return;
            }
            match ReconfigParam::parse(ptype, v) {
                Ok(p) => params.push(p),
                Err(e) => err = Some(e),
            }
        })?;
        if let Some(e) = err {
            return Err(e);
        }
        // Sec. 3.1: at least one and at most two parameters.
        if params.is_empty() || params.len() > 2 {
            return Err(WireError::Malformed(
                "RE-CONFIG needs one or two parameters",
            ));
        }
        Ok(ReconfigChunk { params })
    }
}
