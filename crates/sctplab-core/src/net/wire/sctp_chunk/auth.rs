//! AUTH (RFC 4895 sec. 4.2) and the INIT / INIT ACK parameters that announce it and
//! RE-CONFIG: RANDOM, CHUNKS, HMAC-ALGO (RFC 4895 sec. 3.1-3.3) and Supported
//! Extensions (RFC 5061 sec. 4.2.7). `init.rs` carries them in [`InitExtensions`].

use super::super::{WireError, read_u16, write_u16};
use super::pad4;
use super::params::{PARAM_HEADER_LEN, emit_param, walk_params};

/// AUTH chunk type (RFC 4895 sec. 4.2): 15.
pub const AUTH: u8 = 15;

/// Parameter types (RFC 4895 sec. 3; RFC 5061 sec. 4.2.7). All have high-order bits
/// 10: a peer without the extension skips them silently (RFC 9260 3.2.1).
pub const PARAM_RANDOM: u16 = 0x8002;
pub const PARAM_CHUNKS: u16 = 0x8003;
pub const PARAM_HMAC_ALGO: u16 = 0x8004;
pub const PARAM_SUPPORTED_EXTENSIONS: u16 = 0x8008;

/// HMAC identifiers (RFC 4895 sec. 3.3).
pub const HMAC_SHA1: u16 = 1;
pub const HMAC_SHA256: u16 = 3;

/// AUTH chunk (RFC 4895 sec. 4.2): the endpoint pair shared key it uses, the HMAC
/// algorithm, and the HMAC over itself (HMAC field zero) and every chunk behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthChunk {
    pub key_id: u16,
    pub hmac_id: u16,
    pub hmac: Vec<u8>,
}

impl AuthChunk {
    /// Shared Key Identifier and HMAC Identifier.
    const FIXED_LEN: usize = 4;

    pub(super) fn value_len(&self) -> usize {
        Self::FIXED_LEN + self.hmac.len()
    }

    pub(super) fn emit_value(&self, value: &mut [u8]) {
        write_u16(value, 0, self.key_id);
        write_u16(value, 2, self.hmac_id);
        value[Self::FIXED_LEN..].copy_from_slice(&self.hmac);
    }

    /// The HMAC's length is checked by the association against the algorithm (sec.
    /// 6.3); here only that the fixed fields are there.
    pub(super) fn parse_value(value: &[u8]) -> Result<AuthChunk, WireError> {
        if value.len() < Self::FIXED_LEN {
            return Err(WireError::BadLength);
        }
        Ok(AuthChunk {
            key_id: read_u16(value, 0)?,
            hmac_id: read_u16(value, 2)?,
            hmac: value[Self::FIXED_LEN..].to_vec(),
        })
    }
}

/// The extension parameters of an INIT or INIT ACK this module decodes beyond RFC 9260's:
/// emitted in this order after the addresses. Empty (the default) emits nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitExtensions {
    /// Supported Extensions (RFC 5061 4.2.7): chunk types this end speaks.
    pub supported: Vec<u8>,
    /// RANDOM (RFC 4895 3.1): 32 random bytes.
    pub random: Option<Vec<u8>>,
    /// CHUNKS (RFC 4895 3.2): the chunk types this end wants authenticated.
    pub chunks: Option<Vec<u8>>,
    /// HMAC-ALGO (RFC 4895 3.3): identifiers in order of preference.
    pub hmac_algo: Option<Vec<u16>>,
}

/// No extension parameter (what an absent `ext` stands for).
static EMPTY: InitExtensions = InitExtensions {
    supported: Vec::new(),
    random: None,
    chunks: None,
    hmac_algo: None,
};

impl InitExtensions {
    /// An INIT's or INIT ACK's extensions, empty when it has none.
    pub fn of(ext: &Option<Box<InitExtensions>>) -> &InitExtensions {
        ext.as_deref().unwrap_or(&EMPTY)
    }

    /// Boxed for an INIT / INIT ACK, or None when there is no parameter (boxed so
    /// that every `Chunk`, DATA included, stays as small as before).
    pub fn boxed(self) -> Option<Box<InitExtensions>> {
        (self != EMPTY).then(|| Box::new(self))
    }

    /// Whether the parameter type is one of these.
    pub(super) fn knows(ptype: u16) -> bool {
        matches!(
            ptype,
            PARAM_RANDOM | PARAM_CHUNKS | PARAM_HMAC_ALGO | PARAM_SUPPORTED_EXTENSIONS
        )
    }

    /// The parameters as (type, value), in emission order.
    fn params(&self) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        if !self.supported.is_empty() {
            out.push((PARAM_SUPPORTED_EXTENSIONS, self.supported.clone()));
        }
        if let Some(r) = &self.random {
            out.push((PARAM_RANDOM, r.clone()));
        }
        if let Some(c) = &self.chunks {
            out.push((PARAM_CHUNKS, c.clone()));
        }
        if let Some(h) = &self.hmac_algo {
            out.push((
                PARAM_HMAC_ALGO,
                h.iter().flat_map(|id| id.to_be_bytes()).collect(),
            ));
        }
        out
    }

    /// The parameters' lengths without padding, in emission order (for `tlvs_len`: the
    /// last parameter of a chunk leaves its padding out of the chunk length).
    pub(super) fn lens(&self) -> Vec<usize> {
        self.params()
            .iter()
            .map(|(_, v)| PARAM_HEADER_LEN + v.len())
            .collect()
    }

    /// Writes the parameters, each padded to 4 as far as `buf` reaches; returns the
    /// bytes they take padded.
    pub(super) fn emit(&self, buf: &mut [u8]) -> usize {
        let mut at = 0;
        for (t, v) in self.params() {
            emit_param(&mut buf[at..], t, &v);
            let end = at + pad4(PARAM_HEADER_LEN + v.len());
            let stop = end.min(buf.len());
            buf[at + PARAM_HEADER_LEN + v.len()..stop].fill(0);
            at = end;
        }
        at
    }

    /// Takes one known parameter's value; a HMAC-ALGO of odd length is malformed.
    pub(super) fn take(&mut self, ptype: u16, v: &[u8]) -> Result<(), WireError> {
        match ptype {
            PARAM_SUPPORTED_EXTENSIONS => self.supported = v.to_vec(),
            PARAM_RANDOM => self.random = Some(v.to_vec()),
            PARAM_CHUNKS => self.chunks = Some(v.to_vec()),
            PARAM_HMAC_ALGO => {
                if v.len() % 2 != 0 {
                    return Err(WireError::BadLength);
                }
                self.hmac_algo = Some(
                    v.chunks_exact(2)
                        .map(|b| u16::from_be_bytes([b[0], b[1]]))
                        .collect(),
                );
            }
            _ => {}
        }
        Ok(())
    }

    /// One parameter as it went on the wire (type, length, value; no padding): the
    /// pieces of RFC 4895's key vector (sec. 6.1).
    pub fn tlv(ptype: u16, value: &[u8]) -> Vec<u8> {
        let mut t = vec![0u8; PARAM_HEADER_LEN + value.len()];
        emit_param(&mut t, ptype, value);
        t
    }

    /// The parameters as TLVs, each padded to 4 (to keep them, e.g. in a cookie).
    pub fn to_tlvs(&self) -> Vec<u8> {
        let mut buf = vec![0u8; self.lens().into_iter().map(pad4).sum()];
        self.emit(&mut buf);
        buf
    }

    /// The parameters back from [`InitExtensions::to_tlvs`]; unknown types are skipped.
    pub fn from_tlvs(tlvs: &[u8]) -> Result<InitExtensions, WireError> {
        let mut ext = InitExtensions::default();
        let mut bad = false;
        walk_params(tlvs, |t, v| bad |= ext.take(t, v).is_err())?;
        if bad {
            return Err(WireError::BadLength);
        }
        Ok(ext)
    }
}
