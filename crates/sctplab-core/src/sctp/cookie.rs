//! The State Cookie (RFC 9260 sec. 5.1.3): everything the server needs to build the
//! association, signed with an HMAC under a secret only the server knows, so that the
//! server keeps no state until a valid COOKIE-ECHO comes back (the SYN-flood defence
//! seed 000 sec. 2 lists among SCTP's features).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// MAC length in the cookie (full HMAC-SHA-256).
const MAC_LEN: usize = 32;
const BODY_LEN: usize = 4 * 6 + 2 * 2 + 8 * 2;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CookieBody {
    /// The server's verification tag (its INIT-ACK Initiate Tag).
    pub local_tag: u32,
    /// The client's verification tag (its INIT Initiate Tag).
    pub peer_tag: u32,
    pub local_initial_tsn: u32,
    pub peer_initial_tsn: u32,
    pub peer_a_rwnd: u32,
    pub local_a_rwnd: u32,
    /// Streams the server may send on, and the client may send on (negotiated).
    pub local_out_streams: u16,
    pub peer_out_streams: u16,
    /// Creation time and lifetime, in nanoseconds of simulated time.
    pub created_ns: u64,
    pub lifetime_ns: u64,
    /// The client's addresses when its INIT listed any (RFC 9260 5.1.2): the INIT's
    /// source first, then the listed ones. Empty for a single-homed client, whose
    /// address is the COOKIE-ECHO's source, so its cookie keeps its old size.
    pub peer_addrs: Vec<[u8; 4]>,
}

/// Why a COOKIE-ECHO was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CookieError {
    Malformed,
    BadMac,
    Stale,
}

impl CookieBody {
    fn encode(&self) -> [u8; BODY_LEN] {
        let mut b = [0u8; BODY_LEN];
        let mut i = 0;
        for v in [
            self.local_tag,
            self.peer_tag,
            self.local_initial_tsn,
            self.peer_initial_tsn,
            self.peer_a_rwnd,
            self.local_a_rwnd,
        ] {
            b[i..i + 4].copy_from_slice(&v.to_be_bytes());
            i += 4;
        }
        for v in [self.local_out_streams, self.peer_out_streams] {
            b[i..i + 2].copy_from_slice(&v.to_be_bytes());
            i += 2;
        }
        for v in [self.created_ns, self.lifetime_ns] {
            b[i..i + 8].copy_from_slice(&v.to_be_bytes());
            i += 8;
        }
        b
    }

    fn decode(b: &[u8], tail: &[u8]) -> Self {
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_be_bytes(a)
        };
        CookieBody {
            local_tag: u32_at(0),
            peer_tag: u32_at(4),
            local_initial_tsn: u32_at(8),
            peer_initial_tsn: u32_at(12),
            peer_a_rwnd: u32_at(16),
            local_a_rwnd: u32_at(20),
            local_out_streams: u16_at(24),
            peer_out_streams: u16_at(26),
            created_ns: u64_at(28),
            lifetime_ns: u64_at(36),
            peer_addrs: tail
                .chunks_exact(4)
                .map(|a| [a[0], a[1], a[2], a[3]])
                .collect(),
        }
    }

    /// The cookie bytes: body followed by HMAC-SHA-256(secret, body).
    pub fn seal(&self, secret: &[u8; 32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(BODY_LEN + 4 * self.peer_addrs.len() + MAC_LEN);
        out.extend_from_slice(&self.encode());
        for a in &self.peer_addrs {
            out.extend_from_slice(a);
        }
        let tag = mac(secret, &out);
        out.extend_from_slice(&tag);
        out
    }

    /// Verifies and decodes a cookie received in a COOKIE-ECHO at `now_ns`.
    pub fn open(cookie: &[u8], secret: &[u8; 32], now_ns: u64) -> Result<CookieBody, CookieError> {
        if cookie.len() < BODY_LEN + MAC_LEN || (cookie.len() - BODY_LEN - MAC_LEN) % 4 != 0 {
            return Err(CookieError::Malformed);
        }
        let (body, tag) = cookie.split_at(cookie.len() - MAC_LEN);
        let mut m = HmacSha256::new_from_slice(secret).map_err(|_| CookieError::BadMac)?;
        m.update(body);
        // Constant-time comparison, as a real endpoint must do.
        m.verify_slice(tag).map_err(|_| CookieError::BadMac)?;
        let (fixed, tail) = body.split_at(BODY_LEN);
        let c = CookieBody::decode(fixed, tail);
        if now_ns > c.created_ns.saturating_add(c.lifetime_ns) {
            return Err(CookieError::Stale);
        }
        Ok(c)
    }
}

fn mac(secret: &[u8; 32], body: &[u8]) -> [u8; MAC_LEN] {
    // A 32-byte key is always a valid HMAC key.
    let mut m = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    m.update(body);
    let mut out = [0u8; MAC_LEN];
    out.copy_from_slice(&m.finalize().into_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> CookieBody {
        CookieBody {
            local_tag: 0x1111_2222,
            peer_tag: 0x3333_4444,
            local_initial_tsn: 7,
            peer_initial_tsn: 9,
            peer_a_rwnd: 65_536,
            local_a_rwnd: 131_072,
            local_out_streams: 1,
            peer_out_streams: 4,
            created_ns: 1_000,
            lifetime_ns: 60_000_000_000,
            peer_addrs: vec![],
        }
    }

    #[test]
    fn sealed_cookie_opens_to_the_same_body() {
        let secret = [7u8; 32];
        let c = body().seal(&secret);
        assert_eq!(CookieBody::open(&c, &secret, 2_000), Ok(body()));
        // A multihomed client's addresses ride in the signed part, 4 bytes each.
        let mh = CookieBody {
            peer_addrs: vec![[10, 0, 0, 1], [11, 0, 0, 1]],
            ..body()
        };
        let sealed = mh.seal(&secret);
        assert_eq!(sealed.len(), c.len() + 8);
        assert_eq!(CookieBody::open(&sealed, &secret, 2_000), Ok(mh));
    }

    #[test]
    fn tampered_wrong_key_truncated_and_stale_cookies_are_refused() {
        let secret = [7u8; 32];
        let mut c = body().seal(&secret);
        c[4] ^= 1; // a different peer tag
        assert_eq!(
            CookieBody::open(&c, &secret, 2_000),
            Err(CookieError::BadMac)
        );
        let c = body().seal(&secret);
        assert_eq!(
            CookieBody::open(&c, &[8u8; 32], 2_000),
            Err(CookieError::BadMac)
        );
        assert_eq!(
            CookieBody::open(&c[..10], &secret, 2_000),
            Err(CookieError::Malformed)
        );
        assert_eq!(
            CookieBody::open(&c, &secret, 60_000_001_001),
            Err(CookieError::Stale)
        );
    }
}
