//! Checksums: the internet checksum of RFC 1071 (IPv4, UDP, TCP) and the
//! CRC32c of RFC 9260 Appendix B (SCTP).

use crc::{CRC_32_ISCSI, Crc, Table};

/// CRC-32C (Castagnoli): polynomial 0x1EDC6F41, reflected, initial value and
/// final XOR 0xFFFFFFFF. This is exactly the iSCSI CRC that SCTP adopted
/// (RFC 9260 Appendix B, RFC 3720 Appendix B.4). A static rather than a
/// const so the 16 KiB slice-by-16 table exists once.
static CRC32C: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// Byte offset of the checksum field in the SCTP common header (RFC 9260 §3.1).
const SCTP_CHECKSUM_AT: usize = 8;

/// Adds `data` to a running one's-complement sum (RFC 1071 §4.1): data is
/// read as big-endian 16-bit words and an odd trailing byte is padded with
/// a zero byte on the right. The sum is kept unfolded in a u64, which cannot
/// overflow for any buffer that fits in memory, and folded once at the end.
pub fn sum_words(mut sum: u64, data: &[u8]) -> u64 {
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    sum
}

/// Folds the carries back into 16 bits (end-around carry, RFC 1071 §2(B)).
pub fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The internet checksum of `data`: the one's complement of the one's
/// complement sum. Over a header whose checksum field is zero this is the
/// value to store; over a header with a correct checksum in place it is 0.
pub fn internet_checksum(data: &[u8]) -> u16 {
    !fold(sum_words(0, data))
}

/// Partial sum of the IPv4 pseudo header used by UDP (RFC 768) and TCP
/// (RFC 9293 §3.1): source, destination, zero byte + protocol, and the
/// transport length (header plus payload).
pub fn ipv4_pseudo_header_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, length: usize) -> u64 {
    let sum = sum_words(0, &src);
    let sum = sum_words(sum, &dst);
    // Adding the length as one number equals adding its 16-bit halves once
    // folded, and any valid segment is below 65536 anyway.
    sum + u64::from(protocol) + length as u64
}

/// Checksum of a UDP or TCP segment over IPv4, including the pseudo header.
/// `segment` is the whole transport header plus payload; its checksum field
/// must be zero when computing the value to store. Over a segment with a
/// correct checksum in place the result is 0.
pub fn ipv4_transport_checksum(src: [u8; 4], dst: [u8; 4], protocol: u8, segment: &[u8]) -> u16 {
    let sum = ipv4_pseudo_header_sum(src, dst, protocol, segment.len());
    !fold(sum_words(sum, segment))
}

/// Plain CRC-32C of `data`, as defined in RFC 3720 §12.1 / Appendix B.4.
pub fn crc32c(data: &[u8]) -> u32 {
    CRC32C.checksum(data)
}

/// The SCTP checksum of a whole SCTP packet (common header plus chunks),
/// computed as if the checksum field (bytes 8..12) were zero, whatever it
/// holds now (RFC 9260 §6.8). Never panics, even on packets shorter than the
/// common header (the missing bytes are simply not there).
///
/// The CRC is defined over bit-reflected data, so its least significant byte
/// is the first one transmitted: store it with `to_le_bytes()` (this is what
/// Linux writes and what Wireshark checks, RFC 9260 Appendix B).
pub fn sctp_crc32c(packet: &[u8]) -> u32 {
    let (head, rest) = packet.split_at(packet.len().min(SCTP_CHECKSUM_AT));
    let (field, tail) = rest.split_at(rest.len().min(4));
    let mut digest = CRC32C.digest();
    digest.update(head);
    digest.update(&[0u8; 4][..field.len()]);
    digest.update(tail);
    digest.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_rfc3720_b4_vectors() {
        // RFC 3720 Appendix B.4 lists each CRC as the four bytes on the
        // wire, least significant first; the u32 values are those bytes read
        // little-endian.
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa); // aa 36 91 8a
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62a8_ab43); // 43 ab a8 62
        let incrementing: Vec<u8> = (0u8..32).collect();
        assert_eq!(crc32c(&incrementing), 0x46dd_794e); // 4e 79 dd 46
        let decrementing: Vec<u8> = (0u8..32).rev().collect();
        assert_eq!(crc32c(&decrementing), 0x113f_db5c); // 5c db 3f 11
        assert_eq!(crc32c(&[0u8; 32]).to_le_bytes(), [0xaa, 0x36, 0x91, 0x8a]);
    }

    #[test]
    fn crc32c_standard_check_value() {
        // The "check" value of CRC-32C: the CRC of ASCII "123456789".
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn sctp_crc_ignores_the_checksum_field() {
        let mut packet = [0u8; 32];
        for (i, b) in packet.iter_mut().enumerate() {
            *b = i as u8;
        }
        let mut zeroed = packet;
        zeroed[8..12].fill(0);
        let expected = crc32c(&zeroed);
        assert_eq!(sctp_crc32c(&packet), expected);
        assert_eq!(sctp_crc32c(&zeroed), expected);
        // Short inputs are handled without panicking.
        for len in 0..12 {
            assert_eq!(sctp_crc32c(&packet[..len]), {
                let mut z = packet[..len].to_vec();
                for b in z.iter_mut().skip(8) {
                    *b = 0;
                }
                crc32c(&z)
            });
        }
    }

    #[test]
    fn internet_checksum_rfc1071_example() {
        // RFC 1071 §3 example bytes 00 01 f2 03 f4 f5 f6 f7: the one's
        // complement sum is 0001 + f203 + f4f5 + f6f7 = 0x2ddf0, which folds
        // to 0xddf2; the checksum is its complement 0x220d.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum_words(0, &data)), 0xddf2);
        assert_eq!(internet_checksum(&data), 0x220d);
    }

    #[test]
    fn odd_length_pads_on_the_right() {
        assert_eq!(sum_words(0, &[0xab]), 0xab00);
        assert_eq!(internet_checksum(&[0xab]), !0xab00);
        assert_eq!(internet_checksum(&[]), 0xffff);
    }

    #[test]
    fn checksum_in_place_verifies_to_zero() {
        let src = [10, 0, 0, 1];
        let dst = [10, 0, 0, 2];
        let mut seg = [0x12u8, 0x34, 0x56, 0x78, 0x00, 0x09, 0x00, 0x00, 0x42];
        let c = ipv4_transport_checksum(src, dst, 17, &seg);
        seg[6..8].copy_from_slice(&c.to_be_bytes());
        assert_eq!(ipv4_transport_checksum(src, dst, 17, &seg), 0);
    }
}
