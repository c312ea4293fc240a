//! SCTP-AUTH (RFC 4895): the association shared key from both endpoints' key vectors
//! (sec. 6.1), HMAC-SHA-1 and HMAC-SHA-256 (sec. 6.2), the AUTH chunk placed before
//! the chunks the peer wants authenticated, and the receiver's check that drops a
//! covered chunk not behind a valid AUTH chunk (sec. 6.3).
//!
//! The simulator carries chunks, not bytes: the HMAC is computed over the chunks'
//! canonical encoding (`Chunk::emit`, DATA payload as zeros), the same bytes the pcap
//! writer puts on the wire, so a capture's AUTH chunks check out.

use crate::net::wire::{AuthChunk, Chunk, HMAC_SHA1, HMAC_SHA256, InitExtensions};
use hmac::{Hmac, KeyInit, Mac};

#[cfg(test)]
mod tests;

/// The chunk types RFC 4895 sec. 3.2 forbids in CHUNKS: INIT, INIT ACK, SHUTDOWN
/// COMPLETE and AUTH itself.
pub const NEVER_COVERED: [u8; 4] = [1, 2, 14, 15];
/// ASCONF, ASCONF-ACK (RFC 5061 sec. 4.1.1: they MUST be authenticated) and
/// RE-CONFIG: what `auth = true` covers without `auth_chunks`.
pub const DEFAULT_COVERED: [u8; 3] = [0xC1, 0x80, 0x82];

/// This end's AUTH set-up, from the flow's `auth`, `auth_chunks` and `auth_hmac`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthCfg {
    /// Chunk types this end wants authenticated (its CHUNKS parameter).
    pub chunks: Vec<u8>,
    /// HMAC identifiers in order of preference (its HMAC-ALGO parameter; SHA-1 is
    /// always among them, sec. 6.1).
    pub hmacs: Vec<u16>,
}

impl AuthCfg {
    /// The default coverage plus `extra`, with the preferred HMAC first and SHA-1 listed.
    pub fn new(extra: &[u8], prefer_sha1: bool) -> Self {
        let mut chunks = DEFAULT_COVERED.to_vec();
        for &c in extra {
            if !chunks.contains(&c) && !NEVER_COVERED.contains(&c) {
                chunks.push(c);
            }
        }
        let hmacs = if prefer_sha1 {
            vec![HMAC_SHA1, HMAC_SHA256]
        } else {
            vec![HMAC_SHA256, HMAC_SHA1]
        };
        AuthCfg { chunks, hmacs }
    }
}

/// The HMAC's length for an identifier this end implements.
pub fn hmac_len(id: u16) -> Option<usize> {
    match id {
        HMAC_SHA1 => Some(20),
        HMAC_SHA256 => Some(32),
        _ => None,
    }
}

/// HMAC (RFC 2104) of `data` under `key` with the algorithm `id`.
pub fn hmac(id: u16, key: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    match id {
        HMAC_SHA1 => {
            let mut m = Hmac::<sha1::Sha1>::new_from_slice(key).ok()?;
            m.update(data);
            Some(m.finalize().into_bytes().to_vec())
        }
        HMAC_SHA256 => {
            let mut m = Hmac::<sha2::Sha256>::new_from_slice(key).ok()?;
            m.update(data);
            Some(m.finalize().into_bytes().to_vec())
        }
        _ => None,
    }
}

/// One endpoint's key vector (sec. 6.1): its RANDOM, CHUNKS and HMAC-ALGO parameters
/// as sent, type and length included, padding left out; a parameter not sent is left
/// out.
pub fn key_vector(ext: &InitExtensions) -> Vec<u8> {
    use crate::net::wire::InitExtensions as E;
    let mut v = Vec::new();
    if let Some(r) = &ext.random {
        v.extend(E::tlv(0x8002, r));
    }
    if let Some(c) = &ext.chunks {
        v.extend(E::tlv(0x8003, c));
    }
    if let Some(h) = &ext.hmac_algo {
        let bytes: Vec<u8> = h.iter().flat_map(|id| id.to_be_bytes()).collect();
        v.extend(E::tlv(0x8004, &bytes));
    }
    v
}

/// Sec. 6.1: the key vectors compared as big-endian numbers; equal as numbers, the
/// shorter is the smaller.
fn numerically_less_or_shorter(a: &[u8], b: &[u8]) -> bool {
    let strip = |v: &[u8]| -> usize { v.iter().take_while(|&&x| x == 0).count() };
    let (sa, sb) = (&a[strip(a)..], &b[strip(b)..]);
    match sa.len().cmp(&sb.len()).then_with(|| sa.cmp(sb)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => a.len() < b.len(),
    }
}

/// The association shared key (sec. 6.1): the endpoint pair shared key, then the
/// numerically smaller key vector, then the larger one.
pub fn association_key(shared: &[u8], local: &[u8], peer: &[u8]) -> Vec<u8> {
    let (first, last) = if numerically_less_or_shorter(local, peer) {
        (local, peer)
    } else {
        (peer, local)
    };
    let mut k = shared.to_vec();
    k.extend_from_slice(first);
    k.extend_from_slice(last);
    k
}

/// The bytes the HMAC covers (sec. 6.2): the AUTH chunk with its HMAC field zero, then
/// every chunk after it, each padded as on the wire.
fn covered_bytes(chunks: &[Chunk]) -> Vec<u8> {
    let len = chunks.iter().map(Chunk::padded_len).sum();
    let mut buf = vec![0u8; len];
    let mut at = 0;
    for c in chunks {
        at += c.emit(&mut buf[at..]);
    }
    if let Some(Chunk::Auth(a)) = chunks.first() {
        // Key id and HMAC id are 4 bytes after the chunk header.
        buf[8..8 + a.hmac.len()].fill(0);
    }
    buf
}

/// Counters of AUTH (summary.json `auth_*`).
#[derive(Clone, Debug, Default)]
pub struct AuthStats {
    /// AUTH chunks this end sent.
    pub sent: u64,
    /// Chunks dropped for want of a valid AUTH before them: covered ones with none,
    /// and everything behind an AUTH that failed its check.
    pub dropped: u64,
    /// AUTH chunks that failed their check (unknown key or HMAC identifier, wrong
    /// HMAC length or value).
    pub bad: u64,
}

/// An association's AUTH state once both ends have announced it.
#[derive(Clone, Debug)]
pub struct AuthState {
    /// What this end sent in its INIT or INIT ACK.
    pub local: InitExtensions,
    /// The chunk types the peer wants authenticated (what we sign).
    peer_chunks: Vec<u8>,
    /// The HMAC we send with: the peer's first listed that we implement (sec. 6.1).
    send_hmac: u16,
    key: Vec<u8>,
    pub stats: AuthStats,
}

/// What the receive check decided for one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Index of the first chunk after a valid AUTH (chunks from there on are
    /// authenticated); `usize::MAX` if none.
    pub authenticated_from: usize,
    /// Index from which every chunk is dropped (behind an AUTH that failed).
    pub drop_from: usize,
}

impl AuthState {
    /// This end's parameters: 32 random bytes (sec. 3.1), its CHUNKS and HMAC-ALGO.
    pub fn local_params(cfg: &AuthCfg, random: [u8; 32]) -> InitExtensions {
        InitExtensions {
            supported: Vec::new(),
            random: Some(random.to_vec()),
            chunks: Some(cfg.chunks.clone()),
            hmac_algo: Some(cfg.hmacs.clone()),
        }
    }

    /// The state once the peer's parameters are known; `None` if the peer did not
    /// announce AUTH (no RANDOM or no HMAC-ALGO) or lists no HMAC we implement.
    pub fn new(local: InitExtensions, peer: &InitExtensions) -> Option<Self> {
        peer.random.as_ref()?;
        let send_hmac = *peer
            .hmac_algo
            .as_ref()?
            .iter()
            .find(|&&id| hmac_len(id).is_some())?;
        // Key identifier 0 with an empty endpoint pair shared key (sec. 6.1: the
        // default when none is configured).
        let key = association_key(&[], &key_vector(&local), &key_vector(peer));
        let peer_chunks = peer
            .chunks
            .clone()
            .unwrap_or_default()
            .into_iter()
            .filter(|c| !NEVER_COVERED.contains(c))
            .collect();
        Some(AuthState {
            local,
            peer_chunks,
            send_hmac,
            key,
            stats: AuthStats::default(),
        })
    }

    pub fn key(&self) -> &[u8] {
        &self.key
    }

    fn we_require(&self, kind: u8) -> bool {
        self.local
            .chunks
            .as_ref()
            .is_some_and(|c| c.contains(&kind) && !NEVER_COVERED.contains(&kind))
    }

    /// Sec. 6.2: an AUTH chunk goes before the first chunk of the packet the peer
    /// wants authenticated, its HMAC over it and everything behind it. Returns the
    /// bytes added to the packet.
    pub fn sign(&mut self, chunks: &mut Vec<Chunk>) -> usize {
        let Some(i) = chunks
            .iter()
            .position(|c| self.peer_chunks.contains(&c.chunk_type()))
        else {
            return 0;
        };
        let len = hmac_len(self.send_hmac).unwrap_or(0);
        chunks.insert(
            i,
            Chunk::Auth(AuthChunk {
                key_id: 0,
                hmac_id: self.send_hmac,
                hmac: vec![0; len],
            }),
        );
        let mac = hmac(self.send_hmac, &self.key, &covered_bytes(&chunks[i..]));
        if let (Some(Chunk::Auth(a)), Some(mac)) = (chunks.get_mut(i), mac) {
            a.hmac = mac;
        }
        self.stats.sent += 1;
        chunks[i].padded_len()
    }

    /// Sec. 6.3: checks the packet's first AUTH chunk. Chunks behind a valid one are
    /// authenticated; an AUTH with an unknown key or HMAC identifier, a wrong HMAC
    /// length or a wrong HMAC is dropped with every chunk behind it.
    pub fn verify(&mut self, chunks: &[Chunk]) -> Verdict {
        let none = Verdict {
            authenticated_from: usize::MAX,
            drop_from: usize::MAX,
        };
        let Some(i) = chunks.iter().position(|c| matches!(c, Chunk::Auth(_))) else {
            return none;
        };
        let Chunk::Auth(a) = &chunks[i] else {
            return none;
        };
        let listed = self
            .local
            .hmac_algo
            .as_ref()
            .is_some_and(|h| h.contains(&a.hmac_id));
        let ok = a.key_id == 0
            && listed
            && hmac_len(a.hmac_id) == Some(a.hmac.len())
            && hmac(a.hmac_id, &self.key, &covered_bytes(&chunks[i..]))
                .is_some_and(|m| constant_time_eq(&m, &a.hmac));
        if ok {
            Verdict {
                authenticated_from: i + 1,
                drop_from: usize::MAX,
            }
        } else {
            self.stats.bad += 1;
            Verdict {
                authenticated_from: usize::MAX,
                drop_from: i,
            }
        }
    }

    /// Whether chunk `k` of a packet with this verdict is dropped (and counts it):
    /// behind a failed AUTH, or covered by our CHUNKS list and not authenticated.
    pub fn drops(&mut self, v: Verdict, k: usize, c: &Chunk) -> bool {
        if matches!(c, Chunk::Auth(_)) {
            return true;
        }
        let drop =
            k >= v.drop_from || (k < v.authenticated_from && self.we_require(c.chunk_type()));
        if drop {
            self.stats.dropped += 1;
        }
        drop
    }
}

/// Compares without stopping at the first difference (an HMAC check should not tell
/// a forger how many bytes were right).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
