//! I-DATA reassembly by (stream, MID, FSN) and I-FORWARD-TSN skipping, expectations
//! derived by hand from RFC 8260 sec. 2.1 (MID and FSN), 2.2.3 and 2.3.1.

use super::*;

const B: DataFlags = DataFlags::BEGIN;
const E: DataFlags = DataFlags::END;
const BE: DataFlags = DataFlags::UNFRAGMENTED;
const MID: DataFlags = DataFlags::empty();

fn frag(tsn: u32, stream: u16, mid: u32, fsn: u32, flags: DataFlags, payload: u32) -> Fragment {
    Fragment {
        tsn,
        stream,
        mid,
        fsn,
        flags,
        payload,
    }
}

fn unordered(f: Fragment) -> Fragment {
    Fragment {
        flags: f.flags | DataFlags::UNORDERED,
        ..f
    }
}

/// (stream, MID) of each message delivered.
fn ids(out: &[Message]) -> Vec<(u16, u32)> {
    out.iter().map(|m| (m.stream, m.mid)).collect()
}

fn skip(stream: u16, mid: u32, unordered: bool) -> SkippedMessage {
    SkippedMessage {
        stream,
        unordered,
        mid,
    }
}

#[test]
fn fragments_out_of_order_are_put_together_by_fsn() {
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    // FSN 2 (E) first, then 0 (B), then 1: whole only with the last of them.
    assert!(r.on_fragment(&frag(12, 0, 0, 2, E, 300), &mut out));
    assert!(r.on_fragment(&frag(10, 0, 0, 0, B, 1000), &mut out));
    assert!(out.is_empty());
    assert_eq!(r.held_bytes, 1300);
    assert!(r.on_fragment(&frag(11, 0, 0, 1, MID, 1000), &mut out));
    assert_eq!(
        out,
        vec![Message {
            stream: 0,
            mid: 0,
            unordered: false,
            bytes: 2300,
            last_tsn: 12,
            fragments: 3,
            ends: true,
        }]
    );
    assert_eq!(r.held_bytes, 0);
    assert_eq!(r.pending_messages(), 0);
}

#[test]
fn interleaved_messages_of_two_streams_are_delivered_as_each_completes() {
    // The round-robin wire order of streams/interleave/tests.rs: a1 B0 a2 B1 a3 with
    // TSNs 1..5: stream 1's messages are whole at TSNs 2 and 4, stream 0's at 5.
    let mut r = IDataReassembly::new(2);
    let mut out = Vec::new();
    let wire = [
        frag(1, 0, 0, 0, B, 1000),
        frag(2, 1, 0, 0, BE, 500),
        frag(3, 0, 0, 1, MID, 1000),
        frag(4, 1, 1, 0, BE, 500),
        frag(5, 0, 0, 2, E, 1000),
    ];
    let mut after = Vec::new();
    for f in &wire {
        r.on_fragment(f, &mut out);
        after.push(ids(&out));
    }
    assert_eq!(after[1], vec![(1, 0)]);
    assert_eq!(after[3], vec![(1, 0), (1, 1)]);
    assert_eq!(after[4], vec![(1, 0), (1, 1), (0, 0)]);
    assert_eq!(out[2].bytes, 3000);
}

#[test]
fn ordered_messages_wait_for_the_lower_mid() {
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    r.on_fragment(&frag(3, 0, 1, 0, BE, 100), &mut out);
    assert!(out.is_empty());
    r.on_fragment(&frag(2, 0, 0, 1, E, 100), &mut out);
    assert!(out.is_empty());
    r.on_fragment(&frag(1, 0, 0, 0, B, 100), &mut out);
    assert_eq!(ids(&out), vec![(0, 0), (0, 1)]);
    // A fragment of a message already delivered is not kept.
    assert!(!r.on_fragment(&frag(9, 0, 1, 0, BE, 100), &mut out));
}

#[test]
fn unordered_messages_are_delivered_when_whole_whatever_their_mid() {
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    r.on_fragment(&unordered(frag(1, 0, 0, 0, B, 100)), &mut out);
    r.on_fragment(&unordered(frag(2, 0, 1, 0, BE, 100)), &mut out);
    assert_eq!(ids(&out), vec![(0, 1)]);
    assert!(out[0].unordered);
    // An ordered message with the same MID is another message (sec. 2.1).
    r.on_fragment(&frag(3, 0, 0, 0, BE, 100), &mut out);
    assert_eq!(ids(&out), vec![(0, 1), (0, 0)]);
    assert!(!out[1].unordered);
    r.on_fragment(&unordered(frag(4, 0, 0, 1, E, 100)), &mut out);
    assert_eq!(ids(&out), vec![(0, 1), (0, 0), (0, 0)]);
    assert_eq!(out[2].bytes, 200);
}

#[test]
fn contradicting_fragments_are_counted_and_dropped() {
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    assert!(r.on_fragment(&frag(1, 0, 0, 1, E, 100), &mut out));
    // Beyond the last FSN; a second last fragment; B with an FSN other than 0.
    assert!(!r.on_fragment(&frag(2, 0, 0, 2, MID, 100), &mut out));
    assert!(!r.on_fragment(&frag(3, 0, 0, 0, E, 100), &mut out));
    assert!(!r.on_fragment(&frag(4, 0, 1, 3, B, 100), &mut out));
    assert_eq!(r.malformed, 3);
    // A duplicate FSN is not kept but is no contradiction.
    assert!(!r.on_fragment(&frag(5, 0, 0, 1, E, 100), &mut out));
    assert_eq!(r.malformed, 3);
    // A stream this end does not have.
    assert!(!r.on_fragment(&frag(6, 7, 0, 0, BE, 100), &mut out));
    // The message still completes; nothing of the bad ones was kept.
    r.on_fragment(&frag(7, 0, 0, 0, B, 100), &mut out);
    assert_eq!(ids(&out), vec![(0, 0)]);
    assert_eq!(r.held_bytes, 0);
    assert_eq!(r.pending_messages(), 0);
}

#[test]
fn i_forward_tsn_skips_abandoned_messages_across_gaps() {
    // Stream 0 holds: MID 0 partial (FSN 0 of a fragmented message), MID 1 nothing
    // (wholly lost), MID 2 whole, MID 3 partial, MID 4 whole. Stream 1 holds an
    // unordered partial MID 7.
    let mut r = IDataReassembly::new(2);
    let mut out = Vec::new();
    r.on_fragment(&frag(1, 0, 0, 0, B, 100), &mut out);
    r.on_fragment(&frag(5, 0, 2, 0, BE, 100), &mut out);
    r.on_fragment(&frag(6, 0, 3, 0, B, 100), &mut out);
    r.on_fragment(&frag(8, 0, 4, 0, BE, 100), &mut out);
    r.on_fragment(&unordered(frag(9, 1, 7, 0, B, 100)), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.held_bytes, 500);
    // Skip up to MID 1 on stream 0: MID 0's fragment goes, MID 2 is delivered and
    // MID 3 (partial) stops delivery again.
    r.on_skip(&[skip(0, 1, false)], &mut out);
    assert_eq!(ids(&out), vec![(0, 2)]);
    assert_eq!(r.fragments_skipped, 1);
    // Skip MID 3 and the unordered MID 7 of stream 1: MID 4 follows.
    r.on_skip(&[skip(0, 3, false), skip(1, 7, true)], &mut out);
    assert_eq!(ids(&out), vec![(0, 2), (0, 4)]);
    assert_eq!(r.fragments_skipped, 3);
    assert_eq!(r.held_bytes, 0);
    assert_eq!(r.pending_messages(), 0);
    // A stale entry (behind what was delivered) and one for a missing stream change
    // nothing.
    r.on_skip(&[skip(0, 2, false), skip(9, 0, false)], &mut out);
    assert_eq!(out.len(), 2);
    r.on_fragment(&frag(10, 0, 5, 0, BE, 100), &mut out);
    assert_eq!(ids(&out)[2], (0, 5));
}

#[test]
fn skipping_whole_messages_still_delivers_them_in_order() {
    // RFC 3758 sec. 3.6 as sec. 2.3.1 carries it over: whole messages up to the MID
    // are delivered, not dropped. MIDs 1 and 3 are whole, 0 and 2 lost.
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    r.on_fragment(&frag(2, 0, 1, 0, BE, 100), &mut out);
    r.on_fragment(&frag(4, 0, 3, 0, BE, 100), &mut out);
    r.on_skip(&[skip(0, 3, false)], &mut out);
    assert_eq!(ids(&out), vec![(0, 1), (0, 3)]);
}

#[test]
fn a_far_mid_jump_costs_one_pass_and_mids_wrap() {
    let mut r = IDataReassembly::new(1);
    let mut out = Vec::new();
    // Two jumps of almost half the MID space (serial arithmetic, RFC 1982): the next
    // ordered message becomes 2^32 - 2; after it come 2^32 - 1 and 0.
    r.on_skip(&[skip(0, 0x7fff_fffe, false)], &mut out);
    r.on_skip(&[skip(0, 0xffff_fffd, false)], &mut out);
    // Behind the next message now (more than half the space ahead): stale.
    r.on_skip(&[skip(0, 0x7fff_fffe, false)], &mut out);
    r.on_fragment(&frag(3, 0, 0, 0, BE, 100), &mut out);
    r.on_fragment(&frag(2, 0, u32::MAX, 0, BE, 100), &mut out);
    assert!(out.is_empty());
    r.on_fragment(&frag(1, 0, u32::MAX - 1, 0, BE, 100), &mut out);
    assert_eq!(ids(&out), vec![(0, u32::MAX - 1), (0, u32::MAX), (0, 0)]);
}
