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
    /// The Tie-Tags (RFC 9260 5.2.1, 5.2.2): the local and peer tags of the TCB that
    /// existed when the INIT ACK was made (a restart or an INIT collision); None for
    /// an INIT that met no TCB, whose tie-tags are 0. Only then does the cookie grow
    /// (by 9 bytes), so every ordinary cookie keeps its size.
    pub tie_tags: Option<(u32, u32)>,
    /// RE-CONFIG and AUTH (sctp/assoc/reconfig.rs): the client's INIT extension
    /// parameters and the server's RANDOM, as one opaque blob. Present only when the
    /// server's flow uses them, so every other cookie keeps its size. Encoded after the
    /// Tie-Tags, zero-padded to 4, then its length in 2 bytes: a tail of 4n + 2 or
    /// 4n + 3 bytes.
    pub ext: Option<Vec<u8>>,
}

/// Marks a cookie tail that ends with the Tie-Tags: addresses are 4 bytes each, so a
/// tail of 4n + 9 bytes (addresses, 8 bytes of tags, this byte) cannot be mistaken
/// for one without.
const TIE_TAGS_MARK: u8 = 0x54;
const TIE_TAGS_LEN: usize = 9;

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

    fn decode(b: &[u8], mut tail: &[u8]) -> Self {
        let mut ext = None;
        if matches!(tail.len() % 4, 2 | 3) {
            let n = tail.len();
            let len = usize::from(u16::from_be_bytes([tail[n - 2], tail[n - 1]]));
            let start = (n - 2).saturating_sub(len.next_multiple_of(4));
            ext = tail.get(start..start + len).map(<[u8]>::to_vec);
            tail = &tail[..start];
        }
        let mut tie_tags = None;
        if tail.len() % 4 == TIE_TAGS_LEN % 4 && tail.len() >= TIE_TAGS_LEN {
            let t = &tail[tail.len() - TIE_TAGS_LEN..];
            if t[8] == TIE_TAGS_MARK {
                tie_tags = Some((
                    u32::from_be_bytes([t[0], t[1], t[2], t[3]]),
                    u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
                ));
                tail = &tail[..tail.len() - TIE_TAGS_LEN];
            }
        }
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
            tie_tags,
            ext,
        }
    }

    /// The cookie bytes: body followed by HMAC-SHA-256(secret, body).
    pub fn seal(&self, secret: &[u8; 32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(BODY_LEN + 4 * self.peer_addrs.len() + MAC_LEN);
        out.extend_from_slice(&self.encode());
        for a in &self.peer_addrs {
            out.extend_from_slice(a);
        }
        if let Some((l, p)) = self.tie_tags {
            out.extend_from_slice(&l.to_be_bytes());
            out.extend_from_slice(&p.to_be_bytes());
            out.push(TIE_TAGS_MARK);
        }
        if let Some(e) = &self.ext {
            let len = e.len().min(usize::from(u16::MAX) - 3);
            out.extend_from_slice(&e[..len]);
            out.resize(out.len() + len.next_multiple_of(4) - len, 0);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        let tag = mac(secret, &out);
        out.extend_from_slice(&tag);
        out
    }

    /// Verifies and decodes a cookie received in a COOKIE-ECHO at `now_ns`.
    pub fn open(cookie: &[u8], secret: &[u8; 32], now_ns: u64) -> Result<CookieBody, CookieError> {
        let c = CookieBody::authenticate(cookie, secret)?;
        if c.stale_by_ns(now_ns).is_some() {
            return Err(CookieError::Stale);
        }
        Ok(c)
    }

    /// How long past its lifetime the cookie is at `now_ns`, if it has expired
    /// (RFC 9260 5.1.5 step 3; 5.2.4 lets a cookie whose tags both match the TCB's
    /// pass even then).
    pub fn stale_by_ns(&self, now_ns: u64) -> Option<u64> {
        let end = self.created_ns.saturating_add(self.lifetime_ns);
        (now_ns > end).then(|| now_ns - end)
    }

    /// Verifies the MAC and decodes, leaving the lifetime to the caller.
    pub fn authenticate(cookie: &[u8], secret: &[u8; 32]) -> Result<CookieBody, CookieError> {
        if cookie.len() < BODY_LEN + MAC_LEN {
            return Err(CookieError::Malformed);
        }
        let (body, tag) = cookie.split_at(cookie.len() - MAC_LEN);
        let mut m = HmacSha256::new_from_slice(secret).map_err(|_| CookieError::BadMac)?;
        m.update(body);
        // Constant-time comparison, as a real endpoint must do.
        m.verify_slice(tag).map_err(|_| CookieError::BadMac)?;
        let (fixed, tail) = body.split_at(BODY_LEN);
        Ok(CookieBody::decode(fixed, tail))
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
            tie_tags: None,
            ext: None,
        }
    }

    /// The extension blob survives with addresses and Tie-Tags before it, and a
    /// cookie without one keeps its size.
    #[test]
    fn ext_blob_round_trips() {
        let secret = [5u8; 32];
        let plain = body().seal(&secret).len();
        for (addrs, tie) in [(vec![], None), (vec![[10, 0, 0, 1]], Some((1, 2)))] {
            for n in [0usize, 1, 5, 36, 81] {
                let b = CookieBody {
                    peer_addrs: addrs.clone(),
                    tie_tags: tie,
                    ext: Some((0..n as u8).collect()),
                    ..body()
                };
                let c = b.seal(&secret);
                assert_eq!(CookieBody::authenticate(&c, &secret), Ok(b));
            }
        }
        assert_eq!(plain, BODY_LEN + MAC_LEN);
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
        assert_eq!(CookieBody::open(&sealed, &secret, 2_000), Ok(mh.clone()));
        // Tie-Tags (a restart's or a collision's cookie) add 9 bytes; with or
        // without addresses they come back as they went in.
        for base in [body(), mh] {
            let tied = CookieBody {
                tie_tags: Some((0xdead_beef, 0x0102_0304)),
                ..base.clone()
            };
            let sealed_tied = tied.seal(&secret);
            assert_eq!(sealed_tied.len(), base.seal(&secret).len() + 9);
            assert_eq!(CookieBody::open(&sealed_tied, &secret, 2_000), Ok(tied));
        }
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
