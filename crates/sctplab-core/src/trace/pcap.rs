//! Classic pcap writer with nanosecond timestamps.
//!
//! File format (the tcpdump/libpcap "savefile" format): a 24-byte global
//! header, then per packet a 16-byte record header followed by the captured
//! bytes. The magic 0xa1b23c4d (instead of 0xa1b2c3d4) tells readers the
//! second timestamp field counts nanoseconds, not microseconds, so simulated
//! times keep their full precision. Link type LINKTYPE_RAW (101): each record
//! is a bare IP datagram, no link-layer header.
//!
//! Everything is written little-endian; readers detect the byte order from
//! the magic, and a fixed order makes files identical across hosts.

use std::io::{self, Write};

/// Magic number of a nanosecond-resolution pcap file.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Maximum bytes stored per record; longer packets are cut and keep their
/// original length in the record header.
pub const SNAPLEN: u32 = 65535;
/// LINKTYPE_RAW: records start with the IPv4/IPv6 header.
pub const LINKTYPE_RAW: u32 = 101;
/// LINKTYPE_IEEE802_11: records are 802.11 frames without FCS (wireless interfaces).
pub const LINKTYPE_IEEE802_11: u32 = 105;

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Writes packets to `W` in pcap format. Wrap files in a `BufWriter`: every
/// record is two `write_all` calls.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header of a LINKTYPE_RAW file and returns the writer.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_linktype(out, LINKTYPE_RAW)
    }

    /// Writes the global header for `linktype` and returns the writer.
    pub fn with_linktype(mut out: W, linktype: u32) -> io::Result<Self> {
        let mut header = [0u8; 24];
        header[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&2u16.to_le_bytes()); // version 2.4
        header[6..8].copy_from_slice(&4u16.to_le_bytes());
        // 8..16: thiszone and sigfigs, both 0 (times are in UTC).
        header[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        header[20..24].copy_from_slice(&linktype.to_le_bytes());
        out.write_all(&header)?;
        Ok(PcapWriter { out })
    }

    /// Writes one record stamped `time_ns` nanoseconds after the epoch
    /// (simulation time zero). Packets longer than [`SNAPLEN`] are cut to it.
    ///
    /// Fails with `InvalidInput`, writing nothing, if the time does not fit
    /// the 32-bit seconds field (about 136 years) or the packet is larger
    /// than 4 GiB.
    pub fn write_packet(&mut self, time_ns: u64, data: &[u8]) -> io::Result<()> {
        let secs = u32::try_from(time_ns / NANOS_PER_SEC).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap timestamp beyond 32-bit seconds",
            )
        })?;
        // Always below 10^9, so it fits.
        let nanos = (time_ns % NANOS_PER_SEC) as u32;
        let orig_len = u32::try_from(data.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "packet larger than 4 GiB"))?;
        let incl_len = orig_len.min(SNAPLEN);
        let mut record = [0u8; 16];
        record[0..4].copy_from_slice(&secs.to_le_bytes());
        record[4..8].copy_from_slice(&nanos.to_le_bytes());
        record[8..12].copy_from_slice(&incl_len.to_le_bytes());
        record[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&record)?;
        self.out.write_all(&data[..incl_len as usize])
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Returns the underlying writer without flushing it.
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(buf: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
    }

    #[test]
    fn global_header() {
        let bytes = PcapWriter::new(Vec::new()).expect("header").into_inner();
        assert_eq!(
            bytes,
            [
                0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 101,
                0, 0, 0
            ]
        );
    }

    #[test]
    fn nanosecond_timestamp_round_trips() {
        let mut w = PcapWriter::new(Vec::new()).expect("header");
        w.write_packet(1_000_000_123, &[0x45, 1, 2]).expect("write");
        w.write_packet(0, &[]).expect("write");
        w.write_packet(u64::from(u32::MAX) * 1_000_000_000 + 999_999_999, &[9])
            .expect("write");
        w.flush().expect("flush");
        let bytes = w.into_inner();
        let rec = &bytes[24..];
        assert_eq!(u32_at(rec, 0), 1);
        assert_eq!(u32_at(rec, 4), 123);
        assert_eq!((u32_at(rec, 8), u32_at(rec, 12)), (3, 3));
        assert_eq!(&rec[16..19], &[0x45, 1, 2]);
        // Rebuilding the time from the record gives back exactly 1.000000123 s.
        let time_ns = u64::from(u32_at(rec, 0)) * 1_000_000_000 + u64::from(u32_at(rec, 4));
        assert_eq!(time_ns, 1_000_000_123);
        let rec = &rec[19..];
        assert_eq!(&rec[..16], &[0; 16]);
        let rec = &rec[16..];
        assert_eq!((u32_at(rec, 0), u32_at(rec, 4)), (u32::MAX, 999_999_999));
        assert_eq!(rec.len(), 17);
    }

    #[test]
    fn out_of_range_time_writes_nothing() {
        let mut w = PcapWriter::new(Vec::new()).expect("header");
        let err = w
            .write_packet((u64::from(u32::MAX) + 1) * 1_000_000_000, &[1])
            .expect_err("too late");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(w.get_ref().len(), 24);
    }

    #[test]
    fn long_packets_are_cut_to_snaplen() {
        let mut w = PcapWriter::new(Vec::new()).expect("header");
        w.write_packet(5, &vec![7u8; 70_000]).expect("write");
        let bytes = w.into_inner();
        assert_eq!(u32_at(&bytes, 24 + 8), 65535);
        assert_eq!(u32_at(&bytes, 24 + 12), 70_000);
        assert_eq!(bytes.len(), 24 + 16 + 65535);
    }
}
