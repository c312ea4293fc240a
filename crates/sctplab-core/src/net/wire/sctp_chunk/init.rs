//! INIT and INIT ACK (RFC 9260 §3.3.2, §3.3.3) and their parameters: addresses,
//! State Cookie, Cookie Preservative, the ECN Capable and Forward-TSN-Supported
//! extensions, and those this module does not recognize (§3.2.1).

use super::super::sctp_forward_tsn::{
    FORWARD_TSN_SUPPORTED_PARAM_LEN, PARAM_FORWARD_TSN_SUPPORTED,
};
use super::super::{WireError, read_u16, read_u32, write_u16, write_u32};
pub use super::auth::InitExtensions;
use super::ecn::{ECN_CAPABLE_PARAM_LEN, PARAM_ECN_CAPABLE};
use super::pad4;
use super::params::{PARAM_HEADER_LEN, emit_param, emit_tlvs, tlvs_len};

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
/// Initiate Tag, a_rwnd, outbound/inbound streams, initial TSN.
const INIT_FIXED_LEN: usize = 16;

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
    /// Supported Extensions and AUTH's parameters (`auth.rs`), emitted after
    /// Forward-TSN-Supported.
    pub ext: Option<Box<InitExtensions>>,
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
    /// Supported Extensions and AUTH's parameters (`auth.rs`), emitted before the
    /// cookie, after the reported parameters.
    pub ext: Option<Box<InitExtensions>>,
}

impl InitChunk {
    /// Length of the chunk's value (§3.2: the last parameter's padding not counted).
    pub(super) fn value_len(&self) -> usize {
        INIT_FIXED_LEN
            + IPV4_ADDRESS_PARAM_LEN * self.addrs.len()
            + COOKIE_PRESERVATIVE_PARAM_LEN * usize::from(self.cookie_preservative.is_some())
            + FORWARD_TSN_SUPPORTED_PARAM_LEN * usize::from(self.forward_tsn)
            + ECN_CAPABLE_PARAM_LEN * usize::from(self.ecn_capable)
            + tlvs_len(
                InitExtensions::of(&self.ext)
                    .lens()
                    .into_iter()
                    .chain(self.unrecognized.iter().map(Vec::len)),
            )
    }

    /// Writes the fixed fields, the addresses, the Cookie Preservative, ECN Capable,
    /// Forward-TSN-Supported, then the unrecognized parameters, in that order.
    pub(super) fn emit_value(&self, value: &mut [u8]) {
        emit_init_fields(
            value,
            self.init_tag,
            self.a_rwnd,
            self.outbound_streams,
            self.inbound_streams,
            self.initial_tsn,
        );
        let mut at = INIT_FIXED_LEN + emit_addrs(&mut value[INIT_FIXED_LEN..], &self.addrs);
        if let Some(inc) = self.cookie_preservative {
            emit_param(
                &mut value[at..],
                PARAM_COOKIE_PRESERVATIVE,
                &inc.to_be_bytes(),
            );
            at += COOKIE_PRESERVATIVE_PARAM_LEN;
        }
        if self.ecn_capable {
            emit_param(&mut value[at..], PARAM_ECN_CAPABLE, &[]);
            at += ECN_CAPABLE_PARAM_LEN;
        }
        if self.forward_tsn {
            emit_param(&mut value[at..], PARAM_FORWARD_TSN_SUPPORTED, &[]);
            at += FORWARD_TSN_SUPPORTED_PARAM_LEN;
        }
        // The last parameter's padding lies outside the chunk length (3.2).
        at = (at + InitExtensions::of(&self.ext).emit(&mut value[at..])).min(value.len());
        emit_tlvs(&mut value[at..], &self.unrecognized);
    }

    /// Parses an INIT chunk's value.
    pub(super) fn parse_value(value: &[u8]) -> Result<InitChunk, WireError> {
        let (mut init, params) = parse_init_fields(value)?;
        let mut bad_addr = false;
        let mut unrecognized = Vec::new();
        let mut ext = InitExtensions::default();
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
            } else if ext.take(ptype, pvalue).is_err() {
                bad_addr = true;
            }
        })?;
        init.ext = ext.boxed();
        init.unrecognized = unrecognized;
        if bad_addr {
            return Err(WireError::BadLength);
        }
        Ok(init)
    }
}

impl InitAckChunk {
    /// Length of the chunk's value (§3.2: the last parameter's padding not counted).
    pub(super) fn value_len(&self) -> usize {
        INIT_FIXED_LEN
            + IPV4_ADDRESS_PARAM_LEN * self.addrs.len()
            + FORWARD_TSN_SUPPORTED_PARAM_LEN * usize::from(self.forward_tsn)
            + ECN_CAPABLE_PARAM_LEN * usize::from(self.ecn_capable)
            + self
                .reported
                .iter()
                .map(|t| pad4(PARAM_HEADER_LEN + t.len()))
                .sum::<usize>()
            + InitExtensions::of(&self.ext)
                .lens()
                .into_iter()
                .map(pad4)
                .sum::<usize>()
            + tlvs_len(
                std::iter::once(PARAM_HEADER_LEN + self.state_cookie.len())
                    .chain(self.unrecognized.iter().map(Vec::len)),
            )
    }

    /// Writes the fixed fields, the addresses, ECN Capable, Forward-TSN-Supported, the
    /// reported parameters, the State Cookie, then the unrecognized parameters.
    pub(super) fn emit_value(&self, value: &mut [u8]) {
        emit_init_fields(
            value,
            self.init_tag,
            self.a_rwnd,
            self.outbound_streams,
            self.inbound_streams,
            self.initial_tsn,
        );
        let mut at = INIT_FIXED_LEN + emit_addrs(&mut value[INIT_FIXED_LEN..], &self.addrs);
        if self.ecn_capable {
            emit_param(&mut value[at..], PARAM_ECN_CAPABLE, &[]);
            at += ECN_CAPABLE_PARAM_LEN;
        }
        if self.forward_tsn {
            emit_param(&mut value[at..], PARAM_FORWARD_TSN_SUPPORTED, &[]);
            at += FORWARD_TSN_SUPPORTED_PARAM_LEN;
        }
        for t in &self.reported {
            emit_param(&mut value[at..], PARAM_UNRECOGNIZED, t);
            let end = at + pad4(PARAM_HEADER_LEN + t.len());
            value[at + PARAM_HEADER_LEN + t.len()..end].fill(0);
            at = end;
        }
        at += InitExtensions::of(&self.ext).emit(&mut value[at..]);
        // Unrecognized parameters go last: one that stops the parameter walk
        // (§3.2.1) must not hide the cookie from a parser.
        let cookie_end = at + PARAM_HEADER_LEN + self.state_cookie.len();
        emit_param(&mut value[at..], PARAM_STATE_COOKIE, &self.state_cookie);
        let end = (at + pad4(cookie_end - at)).min(value.len());
        value[cookie_end..end].fill(0);
        emit_tlvs(&mut value[end..], &self.unrecognized);
    }

    /// Parses an INIT ACK chunk's value; the State Cookie is mandatory.
    pub(super) fn parse_value(value: &[u8]) -> Result<InitAckChunk, WireError> {
        let (init, params) = parse_init_fields(value)?;
        let mut cookie = None;
        let mut addrs = Vec::new();
        let mut bad_addr = false;
        let mut unrecognized = Vec::new();
        let mut reported = Vec::new();
        let mut forward_tsn = false;
        let mut ecn_capable = false;
        let mut ext = InitExtensions::default();
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
                } else if ext.take(ptype, pvalue).is_err() {
                    bad_addr = true;
                }
            },
        )?;
        if bad_addr {
            return Err(WireError::BadLength);
        }
        let cookie = cookie.ok_or(WireError::Malformed("INIT ACK without State Cookie"))?;
        Ok(InitAckChunk {
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
            ext: ext.boxed(),
        })
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
        ext: None,
    };
    Ok((init, &value[INIT_FIXED_LEN..]))
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
        if known.contains(&ptype) || InitExtensions::knows(ptype) {
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
