//! RFC 5061's sequence-number and ASCONF-ACK rules, with expectations worked out from
//! the RFC's text (sec. 5.1, 5.1.1, 5.2, 5.3, 5.4).

use super::*;

const A: [u8; 4] = [10, 0, 0, 1];
const B: [u8; 4] = [11, 0, 0, 1];
const C: [u8; 4] = [12, 0, 0, 1];

fn ack(serial: u32, responses: Vec<AsconfResponse>) -> AsconfAckChunk {
    AsconfAckChunk { serial, responses }
}

/// 5.1 A2: the first ASCONF carries the sender's Initial TSN; each new one the next
/// number. 5.1.1 C1: a second request waits while one ASCONF is outstanding and then
/// goes with every request queued meanwhile, in order, with fresh correlation ids.
#[test]
fn serial_numbers_and_one_outstanding() {
    let mut s = Asconf::new(0xFFFF_FFFF, 7);
    s.queue(AddrChange::Add(B));
    let first = s.poll(A).expect("an ASCONF");
    assert_eq!(first.serial, 0xFFFF_FFFF);
    assert_eq!(first.addr, A);
    assert_eq!(
        first.params,
        vec![AsconfParam::Request {
            op: AsconfOp::AddIp,
            corr_id: 1,
            addr: B
        }]
    );
    s.queue(AddrChange::Delete(A));
    s.queue(AddrChange::SetPrimary(B));
    assert_eq!(s.poll(B), None, "one outstanding ASCONF");
    assert_eq!(
        s.on_ack(&ack(0xFFFF_FFFF, vec![])),
        AckOutcome::Answered(vec![(AddrChange::Add(B), true)])
    );
    // The next number wraps past 2^32 - 1 to 0.
    let second = s.poll(B).expect("the queued requests");
    assert_eq!(second.serial, 0);
    let ids: Vec<u32> = second.params.iter().map(AsconfParam::corr_id).collect();
    assert_eq!(ids, vec![2, 3]);
    assert_eq!(s.stats.sent, 2);
}

/// 5.1 A6, A7: responses match requests by correlation id; an unreported request
/// before the first error succeeded, one after it failed unless a Success Indication
/// names it.
#[test]
fn ack_rules_unreported_before_and_after_an_error() {
    let mut s = Asconf::new(100, 0);
    for c in [
        AddrChange::Add(B),
        AddrChange::Add(C),
        AddrChange::Delete(A),
        AddrChange::SetPrimary(B),
    ] {
        s.queue(c);
    }
    let chunk = s.poll(A).unwrap();
    assert_eq!(chunk.serial, 100);
    let err = AsconfResponse::Error {
        corr_id: 2,
        causes: vec![],
    };
    let out = s.on_ack(&ack(100, vec![err, AsconfResponse::Success { corr_id: 4 }]));
    assert_eq!(
        out,
        AckOutcome::Answered(vec![
            (AddrChange::Add(B), true),
            (AddrChange::Add(C), false),
            (AddrChange::Delete(A), false),
            (AddrChange::SetPrimary(B), true),
        ])
    );
    assert_eq!((s.stats.succeeded, s.stats.refused), (2, 2));
    assert!(!s.is_outstanding());
}

/// 5.3 F0: an ASCONF-ACK for the next number with nothing outstanding is illegal; an
/// older one is ignored, and so is one for another number while one is outstanding.
#[test]
fn illegal_and_stale_acks() {
    let mut s = Asconf::new(50, 0);
    assert_eq!(s.on_ack(&ack(50, vec![])), AckOutcome::Illegal);
    assert_eq!(s.on_ack(&ack(49, vec![])), AckOutcome::Ignored);
    s.queue(AddrChange::Add(B));
    s.poll(A).unwrap();
    assert_eq!(s.on_ack(&ack(49, vec![])), AckOutcome::Ignored);
    assert_eq!(s.on_ack(&ack(51, vec![])), AckOutcome::Illegal);
    assert!(s.is_outstanding());
}

/// 5.1: the timer resends the same ASCONF (same Sequence Number and correlation ids).
#[test]
fn timer_resends_the_same_asconf() {
    let mut s = Asconf::new(9, 0);
    assert_eq!(s.on_timer(), None);
    s.queue(AddrChange::Delete(A));
    let first = s.poll(B).unwrap();
    assert_eq!(s.on_timer(), Some((first.clone(), 1)));
    assert_eq!(s.on_timer(), Some((first, 2)));
    assert_eq!(s.stats.retransmissions, 2);
}

fn request(op: AsconfOp, corr_id: u32, addr: [u8; 4]) -> AsconfParam {
    AsconfParam::Request { op, corr_id, addr }
}

/// 5.2: the receiver expects the peer's Initial TSN first (5.1 A2; 5.2 E1, E4), answers an
/// earlier number again from its cache (E2), and discards anything else (E5).
#[test]
fn receiver_sequence_numbers_and_cache() {
    let mut r = Asconf::new(0, 1000);
    let add = AsconfChunk {
        serial: 1000,
        addr: A,
        params: vec![request(AsconfOp::AddIp, 1, B)],
    };
    // E5: 1001 is not the next one expected.
    let early = AsconfChunk {
        serial: 1001,
        ..add.clone()
    };
    assert_eq!(r.on_asconf(&early, A, &[A]), (None, vec![]));
    let (first, effects) = r.on_asconf(&add, A, &[A]);
    // V2's note and 4.2.5: full success, no response needed.
    assert_eq!(first, Some(ack(1000, vec![])));
    assert_eq!(effects, vec![Effect::Add(B)]);
    // E2: the same ASCONF again (our ASCONF-ACK was lost): the cached answer, no
    // second addition.
    assert_eq!(r.on_asconf(&add, A, &[A, B]), (first, vec![]));
    assert_eq!(
        (r.stats.received, r.stats.duplicates, r.stats.discarded),
        (1, 1, 1)
    );
}

/// V1: requests in order against the address list as the earlier ones left it; the
/// source address and the last address may not be deleted (5.3 F8, F7); after an error
/// each success is reported; Set Primary or Delete of an address not in the association
/// is "Unresolvable Address" (a rejection 5.2 V2 allows; 5.4: an unknown Set Primary
/// is not honoured).
#[test]
fn receiver_decides_in_order() {
    let mut r = Asconf::new(0, 5);
    let chunk = AsconfChunk {
        serial: 5,
        addr: A,
        params: vec![
            request(AsconfOp::AddIp, 1, B),
            request(AsconfOp::DeleteIp, 2, A),
            request(AsconfOp::SetPrimary, 3, B),
            request(AsconfOp::SetPrimary, 4, C),
            request(AsconfOp::DeleteIp, 5, C),
        ],
    };
    let (ack_sent, effects) = r.on_asconf(&chunk, A, &[A]);
    let ack_sent = ack_sent.unwrap();
    let codes: Vec<(u32, Option<u16>)> = ack_sent
        .responses
        .iter()
        .map(|x| match x {
            AsconfResponse::Success { corr_id } => (*corr_id, None),
            AsconfResponse::Error { corr_id, causes } => (*corr_id, Some(causes[0].code)),
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            (2, Some(asconf_cause::DELETE_SOURCE_ADDRESS)),
            (3, None),
            (4, Some(asconf_cause::UNRESOLVABLE_ADDRESS)),
            (5, Some(asconf_cause::UNRESOLVABLE_ADDRESS)),
        ]
    );
    assert_eq!(effects, vec![Effect::Add(B), Effect::SetPrimary(B)]);
    // The cause carries the refused request's TLV (4.3).
    let AsconfResponse::Error { causes, .. } = &ack_sent.responses[0] else {
        unreachable!()
    };
    assert_eq!(
        causes[0].info,
        vec![0xc0, 0x02, 0, 16, 0, 0, 0, 2, 0, 5, 0, 8, 10, 0, 0, 1]
    );
    // From B now, deleting A leaves B; deleting B then would leave nothing.
    let chunk = AsconfChunk {
        serial: 6,
        addr: B,
        params: vec![request(AsconfOp::DeleteIp, 6, A)],
    };
    let (a, e) = r.on_asconf(&chunk, B, &[A, B]);
    assert_eq!(a, Some(ack(6, vec![])));
    assert_eq!(e, vec![Effect::Delete(A)]);
    let last = AsconfChunk {
        serial: 7,
        addr: B,
        params: vec![request(AsconfOp::DeleteIp, 8, B)],
    };
    // Sent from another address (C, say a new one not yet added) so that the
    // source rule does not apply first.
    let (a, e) = r.on_asconf(&last, C, &[B]);
    assert!(e.is_empty());
    assert!(matches!(
        &a.unwrap().responses[..],
        [AsconfResponse::Error { causes, .. }] if causes[0].code == asconf_cause::DELETE_LAST_ADDRESS
    ));
}

/// A peer may not grow the address list without bound: an Add beyond
/// `MAX_PEER_ADDRS` is refused for want of resources (RFC 5061 5.3 F9), and so are the
/// Adds and Deletes behind it in the same ASCONF (F11): left unreported, which the sender
/// reads as failed (5.1 A7). A Set Primary behind it is still decided, and reported
/// (after an error every success is, for 5.1 A7 to read it as one). Worked through with the sender: Add C
/// refused, Delete of a known address and Add of another left out, Set Primary
/// performed.
#[test]
fn resource_shortage_fails_later_adds_and_deletes() {
    let mut r = Asconf::new(0, 1);
    let have: Vec<[u8; 4]> = (0..MAX_PEER_ADDRS as u8)
        .map(|k| [10, 0, 0, k + 1])
        .collect();
    let mut s = Asconf::new(1, 0);
    for c in [
        AddrChange::Add(C),
        AddrChange::Delete(have[2]),
        AddrChange::SetPrimary(have[1]),
        AddrChange::Add([13, 0, 0, 1]),
    ] {
        s.queue(c);
    }
    let chunk = s.poll(have[0]).unwrap();
    let (a, e) = r.on_asconf(&chunk, have[0], &have);
    assert_eq!(e, vec![Effect::SetPrimary(have[1])]);
    let a = a.unwrap();
    assert_eq!(a.responses.len(), 2);
    assert!(matches!(
        &a.responses[0],
        AsconfResponse::Error { corr_id: 1, causes } if causes[0].code == asconf_cause::RESOURCE_SHORTAGE
    ));
    assert_eq!(a.responses[1], AsconfResponse::Success { corr_id: 3 });
    assert_eq!(
        s.on_ack(&a),
        AckOutcome::Answered(vec![
            (AddrChange::Add(C), false),
            (AddrChange::Delete(have[2]), false),
            (AddrChange::SetPrimary(have[1]), true),
            (AddrChange::Add([13, 0, 0, 1]), false),
        ])
    );
    assert_eq!((r.stats.addresses_deleted, r.stats.primaries_set), (0, 1));
}
