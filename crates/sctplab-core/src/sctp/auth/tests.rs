//! Key derivation by hand from RFC 4895 sec. 6.1, HMAC known answers from RFC 2202 and
//! RFC 4231, and the sign / verify round trip with forged and missing AUTH chunks.

use super::*;
use crate::net::wire::{ReconfigChunk, ReconfigParam, SackChunk};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// RFC 2202 test case 2 and RFC 4231 test case 2 (key "Jefe").
#[test]
fn hmac_known_answers() {
    let data = b"what do ya want for nothing?";
    assert_eq!(
        hex(&hmac(HMAC_SHA1, b"Jefe", data).unwrap()),
        "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
    );
    assert_eq!(
        hex(&hmac(HMAC_SHA256, b"Jefe", data).unwrap()),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(hmac(2, b"k", data), None);
}

/// The key vector is RANDOM, CHUNKS, HMAC-ALGO as TLVs without padding (sec. 6.1).
#[test]
fn key_vector_by_hand() {
    let ext = InitExtensions {
        supported: vec![0x82],
        random: Some(vec![7; 32]),
        chunks: Some(vec![0x82]),
        hmac_algo: Some(vec![HMAC_SHA1]),
    };
    let mut want = vec![0x80, 0x02, 0, 36];
    want.extend([7; 32]);
    want.extend([0x80, 0x03, 0, 5, 0x82]); // no padding
    want.extend([0x80, 0x04, 0, 6, 0, 1]);
    assert_eq!(key_vector(&ext), want);
}

/// Sec. 6.1: the smaller vector (as a number) goes first; leading zeros do not make a
/// vector larger; equal as numbers, the shorter goes first.
#[test]
fn association_key_order() {
    assert_eq!(association_key(&[9], &[2, 0], &[1, 0]), vec![9, 1, 0, 2, 0]);
    assert_eq!(association_key(&[], &[1, 0], &[2, 0]), vec![1, 0, 2, 0]);
    // 0x0005 < 0x10: the longer vector is the smaller number.
    assert_eq!(association_key(&[], &[0x10], &[0, 5]), vec![0, 5, 0x10]);
    // Equal as numbers: the shorter first, whichever end it is.
    assert_eq!(association_key(&[], &[0, 3], &[3]), vec![3, 0, 3]);
    assert_eq!(association_key(&[], &[3], &[0, 3]), vec![3, 0, 3]);
    // Both ends compute the same key.
    let (a, b) = (vec![5, 6, 7], vec![5, 6, 8]);
    assert_eq!(association_key(&[], &a, &b), association_key(&[], &b, &a));
}

fn pair(prefer_sha1: bool) -> (AuthState, AuthState) {
    let cfg = AuthCfg::new(&[], prefer_sha1);
    let a = AuthState::local_params(&cfg, [1; 32]);
    let b = AuthState::local_params(&cfg, [2; 32]);
    (
        AuthState::new(a.clone(), &b).unwrap(),
        AuthState::new(b, &a).unwrap(),
    )
}

fn reconfig() -> Chunk {
    Chunk::Reconfig(ReconfigChunk {
        params: vec![ReconfigParam::SsnTsnReset { req_seq: 1 }],
    })
}

fn sack() -> Chunk {
    Chunk::Sack(SackChunk {
        cum_tsn_ack: 5,
        a_rwnd: 1000,
        gaps: vec![],
        dups: vec![],
        flags: 0,
    })
}

/// The HMAC by hand: key = vector(end 1) || vector(end 2) (RANDOM 1...1 < 2...2), data =
/// the AUTH chunk with a zero HMAC, then the RE-CONFIG, padded.
#[test]
fn sign_places_auth_before_covered_and_hmac_checks() {
    let (mut a, mut b) = pair(false);
    assert_eq!(a.key(), b.key());
    let mut key = key_vector(&a.local);
    key.extend(key_vector(&b.local));
    assert_eq!(a.key(), &key[..]);
    let mut pkt = vec![sack(), reconfig()];
    let added = a.sign(&mut pkt);
    assert_eq!(added, 4 + 4 + 32);
    assert!(matches!(pkt[1], Chunk::Auth(_)));
    let Chunk::Auth(auth) = &pkt[1] else {
        unreachable!()
    };
    assert_eq!(auth.hmac_id, HMAC_SHA256);
    let mut data = vec![15, 0, 0, 40, 0, 0, 0, 3];
    data.extend([0; 32]);
    data.extend([0x82, 0, 0, 12, 0, 15, 0, 8, 0, 0, 0, 1]);
    assert_eq!(auth.hmac, hmac(HMAC_SHA256, &key, &data).unwrap());
    let v = b.verify(&pkt);
    assert_eq!(v.authenticated_from, 2);
    let kept: Vec<bool> = pkt
        .iter()
        .enumerate()
        .map(|(k, c)| !b.drops(v, k, c))
        .collect();
    assert_eq!(kept, [true, false, true]);
    assert_eq!(b.stats.dropped, 0);
    // A packet with nothing the peer covers gets no AUTH.
    let mut plain = vec![sack()];
    assert_eq!(a.sign(&mut plain), 0);
    assert_eq!(plain.len(), 1);
}

#[test]
fn sha1_when_preferred() {
    let (mut a, _) = pair(true);
    let mut pkt = vec![reconfig()];
    assert_eq!(a.sign(&mut pkt), 28);
}

/// A covered chunk without AUTH, or behind a forged one, is dropped and counted; the
/// chunks before a forged AUTH are kept.
#[test]
fn unauthenticated_and_forged_dropped() {
    let (mut a, mut b) = pair(false);
    let bare = vec![sack(), reconfig()];
    let v = b.verify(&bare);
    assert!(!b.drops(v, 0, &bare[0]));
    assert!(b.drops(v, 1, &bare[1]));
    assert_eq!(b.stats.dropped, 1);
    let mut pkt = vec![sack(), reconfig()];
    a.sign(&mut pkt);
    if let Chunk::Auth(x) = &mut pkt[1] {
        x.hmac[0] ^= 1;
    }
    let v = b.verify(&pkt);
    assert_eq!(b.stats.bad, 1);
    assert!(!b.drops(v, 0, &pkt[0]));
    assert!(b.drops(v, 2, &pkt[2]));
    // Unknown key id and an HMAC identifier we did not list.
    for (key_id, hmac_id) in [(1, HMAC_SHA256), (0, 2)] {
        let mut pkt = vec![reconfig()];
        a.sign(&mut pkt);
        if let Chunk::Auth(x) = &mut pkt[0] {
            x.key_id = key_id;
            x.hmac_id = hmac_id;
        }
        let v = b.verify(&pkt);
        assert!(b.drops(v, 1, &pkt[1]));
    }
    // A truncated HMAC.
    let mut pkt = vec![reconfig()];
    a.sign(&mut pkt);
    if let Chunk::Auth(x) = &mut pkt[0] {
        x.hmac.truncate(20);
    }
    let v = b.verify(&pkt);
    assert!(b.drops(v, 1, &pkt[1]));
    assert_eq!(b.stats.bad, 4);
}

/// A peer without RANDOM or with no HMAC we implement has no AUTH state.
#[test]
fn peer_without_auth() {
    let cfg = AuthCfg::new(&[], false);
    let local = AuthState::local_params(&cfg, [1; 32]);
    assert!(AuthState::new(local.clone(), &InitExtensions::default()).is_none());
    let odd = InitExtensions {
        hmac_algo: Some(vec![2]),
        ..local.clone()
    };
    assert!(AuthState::new(local, &odd).is_none());
    // INIT, INIT ACK, SHUTDOWN COMPLETE and AUTH are never covered (sec. 3.2).
    assert_eq!(
        AuthCfg::new(&[1, 2, 14, 15, 3], false).chunks,
        [0xC1, 0x80, 0x82, 3]
    );
}
