//! Type-length-value parameters and error causes inside a chunk value (RFC 9260
//! §3.2.1): their header, walk, lengths and padding.

use super::super::{WireError, len_u16, read_u16, write_u16};
use super::pad4;

/// Type and length of a parameter (§3.2.1).
pub(super) const PARAM_HEADER_LEN: usize = 4;

/// Writes a parameter header and value. The caller's slice ends at the
/// parameter's unpadded end; chunk padding covers the rest.
pub(super) fn emit_param(buf: &mut [u8], ptype: u16, value: &[u8]) {
    write_u16(buf, 0, ptype);
    write_u16(
        buf,
        2,
        len_u16(PARAM_HEADER_LEN + value.len(), "SCTP parameter"),
    );
    buf[PARAM_HEADER_LEN..PARAM_HEADER_LEN + value.len()].copy_from_slice(value);
}

pub(super) fn expect_value_len(value: &[u8], len: usize) -> Result<(), WireError> {
    if value.len() == len {
        Ok(())
    } else {
        Err(WireError::BadLength)
    }
}

/// Walks the TLV parameters of a chunk value (§3.2.1), calling `visit` with
/// each type and value. Each parameter is padded to 4 bytes, but the last
/// one's padding may lie outside the chunk length (§3.2), so a missing
/// final pad is accepted.
pub(super) fn walk_params<'a>(
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

/// Bytes a run of TLVs of these unpadded lengths takes inside a chunk length: every
/// one padded to 4 except the last, whose padding the chunk length leaves out (§3.2).
pub(super) fn tlvs_len(lens: impl Iterator<Item = usize>) -> usize {
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
pub(super) fn emit_tlvs(buf: &mut [u8], tlvs: &[Vec<u8>]) {
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
