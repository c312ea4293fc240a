//! The send buffer, NR-SACK's freeing and buffer splitting, expectations derived by
//! hand. A 1048-byte PMTU leaves 1016 bytes of chunks per packet; 1000-byte messages
//! make 1016-byte chunks, one per packet, TSNs from 1 (M = one chunk).

use super::*;
use crate::sctp::config::{Variant, preset};
use crate::sctp::path::{Path, Rto};
use crate::sim::SimDuration;

const M: f64 = 1016.0;

/// A sender with the `ns2` preset over `dests` destinations, cwnd `cwnd` each (slow
/// start), the peer's window `rwnd`, the send-buffer knobs `sb`, CMT when `cmt`.
fn sender(
    sb: SendBufferKnobs,
    cmt: bool,
    dests: usize,
    cwnd: f64,
    rwnd: u32,
) -> (Outbound, PathSet) {
    let mut k = preset(Variant::Ns2);
    k.send_buffer = sb;
    if cmt {
        k.cmt = Some(crate::sctp::CmtKnobs::default());
    }
    let app = AppSource::new(None, 1000, 1, false);
    let mut o = Outbound::new(k, 1, app, 1048, rwnd, false, Window::ALL);
    o.enable_cmt(7);
    let rto = || {
        Rto::new(
            SimDuration::from_secs(3),
            SimDuration::from_secs(1),
            SimDuration::from_secs(60),
        )
    };
    let paths = (0..dests)
        .map(|i| Path::new([10, i as u8, 0, 2], 1016, cwnd, 1e9, rto()))
        .collect();
    (o, PathSet::new(paths))
}

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

fn sack(cum: u32, gaps: &[(u16, u16)]) -> SackChunk {
    SackChunk {
        cum_tsn_ack: cum,
        a_rwnd: 1 << 24,
        gaps: gaps.to_vec(),
        dups: Vec::new(),
        flags: 0,
    }
}

fn limit(bytes: u64) -> SendBufferKnobs {
    SendBufferKnobs {
        limit: Some(bytes),
        ..SendBufferKnobs::default()
    }
}

fn dests(o: &Outbound) -> Vec<usize> {
    o.sent.iter().map(|s| s.dest).collect()
}

#[test]
fn the_send_buffer_holds_back_new_data_until_the_cumulative_ack_frees_it() {
    // Send buffer 3 chunks (3048 bytes), cwnd 10 MTU: TSNs 1-3 go, the fourth chunk
    // does not fit (ns-2.35 `SendMuch`: uiChunkSize > uiAvailSwnd). SACK cum 1 frees
    // TSN 1's 1016 bytes: TSN 4 goes, and the buffer is full again.
    let (mut o, mut ps) = sender(limit(3 * 1016), false, 1, 10.0 * M, 1 << 24);
    o.send_new(t(0), &mut ps);
    assert_eq!((o.next_tsn, o.send_buffer_used()), (4, 3048));
    assert_eq!(o.send_buffer_stats().full_stops, 1);
    assert!(o.on_sack(t(100), &sack(1, &[]), &mut ps));
    o.after_sack(t(100), &mut ps);
    assert_eq!((o.next_tsn, o.send_buffer_used()), (5, 3048));
}

#[test]
fn nr_gap_blocks_free_the_send_buffer_and_stay_acked() {
    // Send buffer 4 chunks, cwnd 10 MTU: TSNs 1-4 go; TSN 1 is dropped.
    let (mut o, mut ps) = sender(limit(4 * 1016), false, 1, 10.0 * M, 1 << 24);
    o.send_new(t(0), &mut ps);
    assert_eq!(o.next_tsn, 5);
    // A plain SACK (cum 0, gap 2-4) frees nothing: the buffer stays full (4064 bytes)
    // and no new chunk goes, though cwnd has room (1016 bytes outstanding).
    let (mut plain, mut plain_ps) = sender(limit(4 * 1016), false, 1, 10.0 * M, 1 << 24);
    plain.send_new(t(0), &mut plain_ps);
    assert!(plain.on_sack(t(100), &sack(0, &[(2, 4)]), &mut plain_ps));
    plain.after_sack(t(100), &mut plain_ps);
    assert_eq!((plain.next_tsn, plain.send_buffer_used()), (5, 4064));
    // The NR-SACK reports 2-4 as non-renegable (NR gap block 2-4; the sender's loss
    // recovery reads them as a gap block): 3 x 1016 = 3048 bytes freed, 1016 used, so
    // three new chunks (TSNs 5, 6, 7) fill the buffer again.
    let s = sack(0, &[(2, 4)]);
    assert!(o.on_sack(t(100), &s, &mut ps));
    o.free_non_renegable(t(100), &s, &[(2, 4)]);
    o.after_sack(t(100), &mut ps);
    assert_eq!(o.send_buffer_stats().nr_freed_bytes, 3048);
    assert_eq!((o.next_tsn, o.send_buffer_used()), (8, 4064));
    // A later NR-SACK keeps 2-4 acked whatever its blocks: the sender adds them.
    assert_eq!(o.nr_freed_offsets(0), vec![(2, 4)]);
    // The retransmitted TSN 1 and 5-7 arrive: cum 7 removes every chunk, the NR-freed
    // ones without counting their bytes twice.
    assert!(o.on_sack(t(300), &sack(7, &[]), &mut ps));
    assert_eq!(o.nr_freed, 0);
    assert_eq!(o.counts.bytes, 0);
}

#[test]
fn sender_buffer_splitting_gives_each_destination_half_the_send_buffer() {
    // CMT over A and B, cwnd 4 MTU each, send buffer 4 chunks: each destination's
    // share is 4064 / 2 = 2032 bytes, and a destination gets no new packet while its
    // outstanding bytes exceed it (usrsctp: flight_size > max_send_per_dest). A: 0,
    // 1016, 2032 are not above 2032, so TSNs 1, 2, 3 go; at 3048 A stops. B: TSN 4,
    // and then the send buffer (4 chunks) is full.
    let sb = SendBufferKnobs {
        splitting: BufferSplitting::Sender,
        ..limit(4 * 1016)
    };
    let (mut o, mut ps) = sender(sb, true, 2, 4.0 * M, 1 << 24);
    o.send_new(t(0), &mut ps);
    assert_eq!(dests(&o), [0, 0, 0, 1]);
    // Without splitting A's cwnd takes the whole buffer: 1-4 to A, none to B.
    let (mut whole, mut whole_ps) = sender(limit(4 * 1016), true, 2, 4.0 * M, 1 << 24);
    whole.send_new(t(0), &mut whole_ps);
    assert_eq!(dests(&whole), [0, 0, 0, 0]);
}

#[test]
fn receiver_buffer_splitting_gives_each_destination_half_the_peer_window() {
    // CMT over A and B, cwnd 4 MTU each, the peer's window 4 chunks (4064 bytes).
    // Share = (peer_rwnd + outstanding on both) / 2 (usrsctp max_rwnd_per_dest):
    // A: 0 <= (4064 + 0) / 2 -> TSN 1; 1016 <= (3048 + 1016) / 2 -> TSN 2; 2032 <=
    // (2032 + 2032) / 2 -> TSN 3; 3048 > (1016 + 3048) / 2 -> stop. B: 0 <= 2032 ->
    // TSN 4; the window is then closed. Without splitting A takes all four.
    let sb = SendBufferKnobs {
        splitting: BufferSplitting::Receiver,
        ..SendBufferKnobs::default()
    };
    let (mut o, mut ps) = sender(sb, true, 2, 4.0 * M, 4 * 1016);
    o.send_new(t(0), &mut ps);
    assert_eq!(dests(&o), [0, 0, 0, 1]);
    assert_eq!(o.send_buffer_stats().split_stops, 1);
    let (mut whole, mut whole_ps) = sender(SendBufferKnobs::default(), true, 2, 4.0 * M, 4 * 1016);
    whole.send_new(t(0), &mut whole_ps);
    assert_eq!(dests(&whole), [0, 0, 0, 0]);
}
