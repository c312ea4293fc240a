//! TCP header (RFC 9293 §3.1) with the options that matter for loss
//! recovery studies: MSS (RFC 9293 §3.2), window scale and timestamps
//! (RFC 7323) and SACK (RFC 2018).
//!
//! Option layout on emit. Every option is aligned on a 32-bit boundary with
//! leading NOPs, as Linux and the RFCs' own examples do, so the options area
//! is always a multiple of 4 bytes and never needs EOL padding:
//!
//! | option(s)                  | bytes    | encoding                              |
//! |----------------------------|----------|---------------------------------------|
//! | MSS                        | 4        | 2,4,mss                               |
//! | SACK-permitted + timestamps| 12       | 4,2, 8,10,TSval,TSecr                 |
//! | timestamps alone           | 12       | NOP,NOP, 8,10,TSval,TSecr (RFC 7323 Appendix A) |
//! | SACK-permitted alone       | 4        | NOP,NOP, 4,2                          |
//! | window scale               | 4        | NOP, 3,3,shift                        |
//! | SACK with n blocks         | 4 + 8n   | NOP,NOP, 5,2+8n, blocks (RFC 2018 §3) |
//!
//! Limit: at most 40 bytes of options (the data offset is 4 bits of 32-bit
//! words). Everything except SACK blocks needs at most 20 bytes, so only the
//! SACK option can run out of room; it is emitted last and trimmed to the
//! blocks that fit, keeping the first ones (RFC 2018 §4: the first block
//! reports the most recent segment). That gives the RFC 2018 §3 numbers:
//! 4 blocks without timestamps, 3 with timestamps, 2 on a SYN carrying MSS,
//! timestamps and window scale too. [`TcpOptions::sack_blocks_emitted`]
//! tells the protocol code how many blocks will go out.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign};

use super::checksum::ipv4_transport_checksum;
use super::{IpProtocol, WireError, read_u8, read_u16, read_u32, write_u16, write_u32};

/// Length of the fixed TCP header.
pub const HEADER_LEN: usize = 20;
/// Maximum length of the options area (data offset 15 words minus 5).
pub const MAX_OPTIONS_LEN: usize = 40;

const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WINDOW_SCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;

/// The eight TCP control bits (RFC 9293 §3.1; ECE/CWR from RFC 3168).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const URG: TcpFlags = TcpFlags(0x20);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    const NAMES: [(TcpFlags, &'static str); 8] = [
        (TcpFlags::FIN, "FIN"),
        (TcpFlags::SYN, "SYN"),
        (TcpFlags::RST, "RST"),
        (TcpFlags::PSH, "PSH"),
        (TcpFlags::ACK, "ACK"),
        (TcpFlags::URG, "URG"),
        (TcpFlags::ECE, "ECE"),
        (TcpFlags::CWR, "CWR"),
    ];

    pub const fn empty() -> TcpFlags {
        TcpFlags(0)
    }

    /// The flags byte as on the wire (byte 13 of the header).
    pub const fn from_bits(bits: u8) -> TcpFlags {
        TcpFlags(bits)
    }

    pub const fn bits(self) -> u8 {
        self.0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if every flag of `other` is set in `self`.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }

    pub fn insert(&mut self, other: TcpFlags) {
        self.0 |= other.0;
    }

    pub fn remove(&mut self, other: TcpFlags) {
        self.0 &= !other.0;
    }
}

impl BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.union(rhs)
    }
}

impl BitOrAssign for TcpFlags {
    fn bitor_assign(&mut self, rhs: TcpFlags) {
        self.insert(rhs);
    }
}

impl BitAnd for TcpFlags {
    type Output = TcpFlags;
    fn bitand(self, rhs: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 & rhs.0)
    }
}

/// Prints as `TcpFlags(SYN | ACK)`, which reads better in test failures
/// than a number.
impl fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TcpFlags(")?;
        let mut first = true;
        for (flag, name) in TcpFlags::NAMES {
            if self.contains(flag) {
                if !first {
                    f.write_str(" | ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        f.write_str(")")
    }
}

/// Up to four SACK blocks `(left edge, right edge)` (RFC 2018 §3), stored
/// inline: four is the most 40 bytes of options can carry.
#[derive(Clone, Copy, Default)]
pub struct SackBlocks {
    blocks: [(u32, u32); SackBlocks::CAPACITY],
    len: u8,
}

impl SackBlocks {
    pub const CAPACITY: usize = 4;

    pub const fn new() -> SackBlocks {
        SackBlocks {
            blocks: [(0, 0); SackBlocks::CAPACITY],
            len: 0,
        }
    }

    /// Appends a block; returns false (and drops it) when already full.
    pub fn push(&mut self, block: (u32, u32)) -> bool {
        match self.blocks.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = block;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    pub fn clear(&mut self) {
        *self = SackBlocks::new();
    }

    pub const fn len(&self) -> usize {
        self.len as usize
    }

    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len()]
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.as_slice().iter().copied()
    }
}

// Equality and Debug look at the stored blocks only, not stale slots.
impl PartialEq for SackBlocks {
    fn eq(&self, other: &SackBlocks) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SackBlocks {}

impl fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl FromIterator<(u32, u32)> for SackBlocks {
    /// Collects at most [`SackBlocks::CAPACITY`] blocks; the rest are dropped.
    fn from_iter<I: IntoIterator<Item = (u32, u32)>>(iter: I) -> SackBlocks {
        let mut blocks = SackBlocks::new();
        for block in iter.into_iter().take(SackBlocks::CAPACITY) {
            blocks.push(block);
        }
        blocks
    }
}

/// The TCP options this simulator models. See the module docs for the
/// layout and for what is trimmed when 40 bytes are not enough.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// `(TSval, TSecr)`.
    pub timestamps: Option<(u32, u32)>,
    pub sack: SackBlocks,
}

impl TcpOptions {
    /// Bytes of every option except SACK blocks; at most 20.
    const fn fixed_len(&self) -> usize {
        let mut len = 0;
        if self.mss.is_some() {
            len += 4;
        }
        if self.timestamps.is_some() {
            // SACK-permitted, if present, fills the two alignment bytes.
            len += 12;
        } else if self.sack_permitted {
            len += 4;
        }
        if self.window_scale.is_some() {
            len += 4;
        }
        len
    }

    /// How many SACK blocks fit next to options taking `fixed_len` bytes.
    pub const fn max_sack_blocks(fixed_len: usize) -> usize {
        let room = MAX_OPTIONS_LEN.saturating_sub(fixed_len).saturating_sub(4) / 8;
        if room < SackBlocks::CAPACITY {
            room
        } else {
            SackBlocks::CAPACITY
        }
    }

    /// How many of `self.sack` blocks `emit` actually writes.
    pub const fn sack_blocks_emitted(&self) -> usize {
        let max = TcpOptions::max_sack_blocks(self.fixed_len());
        if self.sack.len() < max {
            self.sack.len()
        } else {
            max
        }
    }

    /// Length of the encoded options area: a multiple of 4, at most 40.
    pub const fn buffer_len(&self) -> usize {
        let n = self.sack_blocks_emitted();
        self.fixed_len() + if n > 0 { 4 + 8 * n } else { 0 }
    }

    /// Writes the options into `buf[..self.buffer_len()]` and returns that
    /// length.
    ///
    /// # Panics
    /// If `buf` is shorter than `self.buffer_len()`.
    pub fn emit(&self, buf: &mut [u8]) -> usize {
        let mut at = 0;
        if let Some(mss) = self.mss {
            buf[at..at + 2].copy_from_slice(&[OPT_MSS, 4]);
            write_u16(buf, at + 2, mss);
            at += 4;
        }
        match (self.sack_permitted, self.timestamps) {
            (sack_permitted, Some((tsval, tsecr))) => {
                let lead = if sack_permitted {
                    [OPT_SACK_PERMITTED, 2]
                } else {
                    [OPT_NOP, OPT_NOP]
                };
                buf[at..at + 2].copy_from_slice(&lead);
                buf[at + 2..at + 4].copy_from_slice(&[OPT_TIMESTAMPS, 10]);
                write_u32(buf, at + 4, tsval);
                write_u32(buf, at + 8, tsecr);
                at += 12;
            }
            (true, None) => {
                buf[at..at + 4].copy_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK_PERMITTED, 2]);
                at += 4;
            }
            (false, None) => {}
        }
        if let Some(shift) = self.window_scale {
            buf[at..at + 4].copy_from_slice(&[OPT_NOP, OPT_WINDOW_SCALE, 3, shift]);
            at += 4;
        }
        let n = self.sack_blocks_emitted();
        if n > 0 {
            let len = 2 + 8 * n as u8;
            buf[at..at + 4].copy_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK, len]);
            at += 4;
            for (left, right) in self.sack.iter().take(n) {
                write_u32(buf, at, left);
                write_u32(buf, at + 4, right);
                at += 8;
            }
        }
        at
    }

    /// Parses an options area. EOL ends it, NOPs are skipped, unknown
    /// options are skipped by their length byte. Known options with the
    /// wrong length, or any length running past the area, are BadLength.
    /// A repeated option overwrites the earlier one.
    pub fn parse(buf: &[u8]) -> Result<TcpOptions, WireError> {
        let mut opts = TcpOptions::default();
        let mut at = 0;
        while at < buf.len() {
            let kind = buf[at];
            match kind {
                OPT_EOL => break,
                OPT_NOP => {
                    at += 1;
                    continue;
                }
                _ => {}
            }
            let len = usize::from(read_u8(buf, at + 1)?);
            if len < 2 {
                return Err(WireError::BadLength);
            }
            let body = buf.get(at + 2..at + len).ok_or(WireError::BadLength)?;
            match (kind, body.len()) {
                (OPT_MSS, 2) => opts.mss = Some(read_u16(body, 0)?),
                (OPT_WINDOW_SCALE, 1) => opts.window_scale = Some(body[0]),
                (OPT_SACK_PERMITTED, 0) => opts.sack_permitted = true,
                (OPT_TIMESTAMPS, 8) => {
                    opts.timestamps = Some((read_u32(body, 0)?, read_u32(body, 4)?));
                }
                (OPT_SACK, n) if n > 0 && n % 8 == 0 => {
                    // At most 4 blocks fit in 40 bytes, so none is lost here.
                    let mut sack = SackBlocks::new();
                    for block in body.chunks_exact(8) {
                        sack.push((read_u32(block, 0)?, read_u32(block, 4)?));
                    }
                    opts.sack = sack;
                }
                (
                    OPT_MSS | OPT_WINDOW_SCALE | OPT_SACK_PERMITTED | OPT_TIMESTAMPS | OPT_SACK,
                    _,
                ) => {
                    return Err(WireError::BadLength);
                }
                _ => {} // unknown option: skipped by length
            }
            at += len;
        }
        Ok(opts)
    }
}

/// A TCP header. The data offset, checksum and urgent pointer (always 0)
/// are derived when emitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: TcpFlags,
    pub window: u16,
    pub options: TcpOptions,
}

impl TcpRepr {
    /// Header length with options: 20 to 60, a multiple of 4.
    pub const fn header_len(&self) -> usize {
        HEADER_LEN + self.options.buffer_len()
    }

    /// Bytes `emit` writes: the header (the payload is the caller's).
    pub const fn buffer_len(&self) -> usize {
        self.header_len()
    }

    /// Writes the header into `buf[..header_len]` and the checksum over
    /// the IPv4 pseudo header, the header and the `payload_len` payload bytes
    /// that must already follow it in `buf`.
    ///
    /// # Panics
    /// If `buf` is shorter than `header_len() + payload_len`.
    pub fn emit(&self, buf: &mut [u8], src_ip: [u8; 4], dst_ip: [u8; 4], payload_len: usize) {
        let header_len = self.header_len();
        let segment = &mut buf[..header_len + payload_len];
        write_u16(segment, 0, self.src_port);
        write_u16(segment, 2, self.dst_port);
        write_u32(segment, 4, self.seq);
        write_u32(segment, 8, self.ack);
        // Data offset in the high nibble; reserved bits zero.
        segment[12] = ((header_len / 4) as u8) << 4;
        segment[13] = self.flags.bits();
        write_u16(segment, 14, self.window);
        write_u16(segment, 16, 0); // checksum, filled below
        write_u16(segment, 18, 0); // urgent pointer
        self.options.emit(&mut segment[HEADER_LEN..header_len]);
        let checksum = ipv4_transport_checksum(src_ip, dst_ip, IpProtocol::TCP, segment);
        write_u16(segment, 16, checksum);
    }

    /// Parses a TCP segment (`buf` is the whole IP payload) and returns the
    /// header and the payload slice. Verifies the data offset and the
    /// checksum; the urgent pointer and reserved bits are ignored.
    pub fn parse(
        buf: &[u8],
        src_ip: [u8; 4],
        dst_ip: [u8; 4],
    ) -> Result<(TcpRepr, &[u8]), WireError> {
        let header_len = usize::from(read_u8(buf, 12)? >> 4) * 4;
        if header_len < HEADER_LEN {
            return Err(WireError::BadLength);
        }
        let header = buf.get(..header_len).ok_or(WireError::Truncated)?;
        if ipv4_transport_checksum(src_ip, dst_ip, IpProtocol::TCP, buf) != 0 {
            return Err(WireError::BadChecksum);
        }
        let repr = TcpRepr {
            src_port: read_u16(header, 0)?,
            dst_port: read_u16(header, 2)?,
            seq: read_u32(header, 4)?,
            ack: read_u32(header, 8)?,
            flags: TcpFlags::from_bits(read_u8(header, 13)?),
            window: read_u16(header, 14)?,
            options: TcpOptions::parse(&header[HEADER_LEN..])?,
        };
        Ok((repr, &buf[header_len..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: [u8; 4] = [10, 0, 0, 1];
    const DST: [u8; 4] = [10, 0, 0, 2];

    fn repr(flags: TcpFlags, options: TcpOptions) -> TcpRepr {
        TcpRepr {
            src_port: 40000,
            dst_port: 5001,
            seq: 0x0102_0304,
            ack: 0xa0b0_c0d0,
            flags,
            window: 65535,
            options,
        }
    }

    fn blocks(n: u32) -> SackBlocks {
        (0..n).map(|i| (1000 * i + 100, 1000 * i + 200)).collect()
    }

    fn round_trip(r: &TcpRepr, payload_len: usize) -> Vec<u8> {
        let mut buf = vec![0u8; r.header_len() + payload_len];
        r.emit(&mut buf, SRC, DST, payload_len);
        let (parsed, payload) = TcpRepr::parse(&buf, SRC, DST).expect("parse");
        assert_eq!(&parsed, r);
        assert_eq!(payload.len(), payload_len);
        buf
    }

    #[test]
    fn flags_behave_like_bitflags() {
        let mut f = TcpFlags::SYN | TcpFlags::ACK;
        assert!(f.contains(TcpFlags::SYN));
        assert!(!f.contains(TcpFlags::SYN | TcpFlags::FIN));
        f.remove(TcpFlags::SYN);
        f |= TcpFlags::FIN;
        assert_eq!(f.bits(), 0x11);
        assert_eq!(format!("{f:?}"), "TcpFlags(FIN | ACK)");
        assert_eq!(format!("{:?}", TcpFlags::empty()), "TcpFlags()");
        assert_eq!((f & TcpFlags::ACK), TcpFlags::ACK);
        assert!(TcpFlags::empty().is_empty());
        assert_eq!(
            TcpFlags::CWR.bits() | TcpFlags::ECE.bits() | TcpFlags::URG.bits(),
            0xe0
        );
    }

    #[test]
    fn sack_blocks_container() {
        let mut b = SackBlocks::new();
        assert!(b.is_empty());
        for i in 0..4 {
            assert!(b.push((i, i + 1)));
        }
        assert!(!b.push((9, 10)));
        assert_eq!(b.len(), 4);
        assert_eq!(b.iter().next(), Some((0, 1)));
        let mut c = blocks(2);
        c.clear();
        assert_eq!(c, SackBlocks::new());
        assert_eq!(format!("{:?}", blocks(1)), "[(100, 200)]");
        assert_eq!(blocks(7).len(), 4);
    }

    #[test]
    fn bare_header_known_answer() {
        // SYN from 10.0.0.1:1000 to 10.0.0.2:2000, seq 1, ack 0, window
        // 0x1000, no options. Hand calculation of the checksum:
        //   pseudo header: 0a00+0001+0a00+0002+0006+0014 = 0x141d
        //   header: 03e8+07d0 + 0000+0001 + 0000+0000 + 5002 + 1000 + 0 + 0
        //         = 0x6bbb
        //   sum 0x7fd8, complement 0x8027.
        let r = TcpRepr {
            src_port: 1000,
            dst_port: 2000,
            seq: 1,
            ack: 0,
            flags: TcpFlags::SYN,
            window: 0x1000,
            options: TcpOptions::default(),
        };
        let mut buf = [0u8; 20];
        r.emit(&mut buf, SRC, DST, 0);
        assert_eq!(
            buf,
            [
                0x03, 0xe8, 0x07, 0xd0, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0x10, 0x00, 0x80, 0x27,
                0, 0
            ]
        );
    }

    #[test]
    fn syn_with_mss_and_sack_permitted() {
        // MSS (4) + NOP NOP SACK-permitted (4): 28-byte header, data offset 7.
        let opts = TcpOptions {
            mss: Some(1460),
            sack_permitted: true,
            ..Default::default()
        };
        let buf = round_trip(&repr(TcpFlags::SYN, opts), 0);
        assert_eq!(buf.len(), 28);
        assert_eq!(buf[12] >> 4, 7);
        assert_eq!(&buf[20..28], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2]);
    }

    #[test]
    fn full_syn_options() {
        // MSS 4 + SACK-permitted/timestamps 12 + window scale 4 = 20 bytes.
        let opts = TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((1, 0)),
            sack: SackBlocks::new(),
        };
        let buf = round_trip(&repr(TcpFlags::SYN, opts), 0);
        assert_eq!(buf.len(), 40);
        assert_eq!(&buf[24..28], &[4, 2, 8, 10]);
        assert_eq!(&buf[36..40], &[1, 3, 3, 7]);
    }

    #[test]
    fn three_sack_blocks_with_timestamps_fill_40_bytes() {
        // RFC 2018 §3: timestamps take 10 + 2 bytes, leaving room for 3
        // blocks: NOP NOP + 2 + 3*8 = 28; 12 + 28 = 40 -> 60-byte header.
        let opts = TcpOptions {
            timestamps: Some((123, 456)),
            sack: blocks(3),
            ..Default::default()
        };
        assert_eq!(opts.sack_blocks_emitted(), 3);
        let buf = round_trip(&repr(TcpFlags::ACK, opts), 100);
        assert_eq!(buf.len(), 60 + 100);
        assert_eq!(buf[12] >> 4, 15);
        assert_eq!(&buf[20..24], &[1, 1, 8, 10]);
        assert_eq!(&buf[32..36], &[1, 1, 5, 26]);
    }

    #[test]
    fn four_sack_blocks_without_timestamps() {
        // RFC 2018 §3: 8*4 + 2 = 34 bytes, plus two NOPs = 36 -> 56 header.
        let opts = TcpOptions {
            sack: blocks(4),
            ..Default::default()
        };
        let buf = round_trip(&repr(TcpFlags::ACK, opts), 0);
        assert_eq!(buf.len(), 56);
    }

    #[test]
    fn sack_blocks_are_trimmed_to_fit() {
        let opts = TcpOptions {
            timestamps: Some((1, 2)),
            sack: blocks(4),
            ..Default::default()
        };
        assert_eq!(opts.sack_blocks_emitted(), 3);
        assert_eq!(opts.buffer_len(), 40);
        let r = repr(TcpFlags::ACK, opts);
        let mut buf = vec![0u8; r.header_len()];
        r.emit(&mut buf, SRC, DST, 0);
        let (parsed, _) = TcpRepr::parse(&buf, SRC, DST).expect("parse");
        // The first three blocks survive.
        assert_eq!(parsed.options.sack, blocks(3));
        let crowded = TcpOptions {
            mss: Some(1460),
            window_scale: Some(2),
            timestamps: Some((1, 2)),
            sack: blocks(4),
            ..Default::default()
        };
        assert_eq!(crowded.sack_blocks_emitted(), 2);
        assert_eq!(crowded.buffer_len(), 40);
        assert_eq!(TcpOptions::max_sack_blocks(0), 4);
        assert_eq!(TcpOptions::max_sack_blocks(12), 3);
        assert_eq!(TcpOptions::max_sack_blocks(40), 0);
    }

    #[test]
    fn timestamps_without_sack_permitted_use_nops() {
        let opts = TcpOptions {
            timestamps: Some((7, 8)),
            ..Default::default()
        };
        let buf = round_trip(&repr(TcpFlags::ACK, opts), 0);
        assert_eq!(&buf[20..24], &[1, 1, 8, 10]);
    }

    #[test]
    fn foreign_option_layouts_parse() {
        // EOL-padded MSS + window scale, an unknown option (kind 30, len 4),
        // and bytes after EOL that must be ignored.
        let area = [
            2, 4, 0x02, 0x18, 3, 3, 2, 30, 4, 0xaa, 0xbb, 0, 0xff, 0xff, 0xff, 0xff,
        ];
        let opts = TcpOptions::parse(&area).expect("parse");
        assert_eq!(opts.mss, Some(536));
        assert_eq!(opts.window_scale, Some(2));
        assert!(!opts.sack_permitted);
    }

    #[test]
    fn bad_option_lengths() {
        assert_eq!(TcpOptions::parse(&[2, 3, 0, 0]), Err(WireError::BadLength));
        assert_eq!(TcpOptions::parse(&[30, 1, 0, 0]), Err(WireError::BadLength));
        assert_eq!(TcpOptions::parse(&[30, 9, 0, 0]), Err(WireError::BadLength));
        assert_eq!(TcpOptions::parse(&[5, 2, 0, 0]), Err(WireError::BadLength));
        assert_eq!(TcpOptions::parse(&[1, 1, 1, 8]), Err(WireError::Truncated));
    }

    #[test]
    fn bad_checksum_and_offset() {
        let r = repr(TcpFlags::ACK, TcpOptions::default());
        let mut buf = vec![0u8; 30];
        r.emit(&mut buf, SRC, DST, 10);
        let mut bad = buf.clone();
        bad[25] = 1;
        assert_eq!(
            TcpRepr::parse(&bad, SRC, DST).map(|_| ()),
            Err(WireError::BadChecksum)
        );
        let mut bad = buf.clone();
        bad[12] = 0x40;
        assert_eq!(
            TcpRepr::parse(&bad, SRC, DST).map(|_| ()),
            Err(WireError::BadLength)
        );
        let mut bad = buf;
        bad[12] = 0xf0;
        assert_eq!(
            TcpRepr::parse(&bad, SRC, DST).map(|_| ()),
            Err(WireError::Truncated)
        );
    }

    #[test]
    fn every_prefix_is_an_error_and_garbage_never_panics() {
        let opts = TcpOptions {
            timestamps: Some((123, 456)),
            sack: blocks(3),
            ..Default::default()
        };
        let r = repr(TcpFlags::ACK | TcpFlags::PSH, opts);
        let mut buf = vec![0u8; r.header_len() + 3];
        r.emit(&mut buf, SRC, DST, 3);
        for len in 0..buf.len() {
            assert!(
                TcpRepr::parse(&buf[..len], SRC, DST).is_err(),
                "prefix {len}"
            );
        }
        // Pseudo-random option areas: parse may fail but must not panic.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            let mut area = [0u8; 40];
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 41) as usize;
            for (i, b) in area.iter_mut().enumerate() {
                // Bias towards small values so that known kinds show up.
                *b = (state.rotate_left(i as u32 * 5) % 12) as u8;
            }
            let _ = TcpOptions::parse(&area[..len]);
        }
    }
}
