//! The middle node of a static chain n0 - n1 - n2 (addresses 1, 2, 3; only neighbours
//! hear each other), against ns-2.35 on the same chain (python/sctplab/ns2/dsdv_chain.tcl,
//! nodes 200 m apart, a CBR flow n2 -> n0 from 5 s). ns-2's traces show two outcomes,
//! decided by when n0's second full update reaches n1:
//! - after the triggered update n1 scheduled on first hearing n0 (seed 1): that update,
//!   12 s (twice `wst0_`) after n0's first update, carries n0's entry alone (32 bytes:
//!   `12 * 1 + 20`), and n2 sends its buffered data the instant it hears it;
//! - before it (seed 7): the fresher sequence number sets the hold to twice the new
//!   weighted settling time (0.875 * 6 = 5.25 s) from its arrival, the trigger finds
//!   nothing to send, and a fresher number triggers nothing, so n0 reaches n2 only in a
//!   full update of n1 that falls between a hold's end and n0's next sequence number.
//!
//! Our agent runs with the jitters off (n1's full updates at 0, 11.25, 22.5 s); the
//! arrivals are ns-2's, each shifted by +0.5 s so that no trigger falls within 1 s of
//! n1's own full update at 11.25 s (ns-2's n1 sent its first one at 1.12 s, seed 1, and
//! 1.79 s, seed 7).

use super::tests::{adv, agent_at, run_until, secs, upd};
use super::*;

const N0: u32 = 1;
const N1: u32 = 2;
const N2: u32 = 3;

fn node(addr: u32) -> Dsdv {
    agent_at(addr, "dsdv-chain-test")
}

#[test]
fn n0s_entry_goes_out_in_the_trigger_12_s_after_n1_first_hears_it() {
    // ns-2.35 seed 1: n1 hears n0's first full update at 0.002117 s and n2's at
    // 0.037491 s, sends a 32-byte update at 12.003255 s (12.002117 s + broadcast
    // jitter) and hears n0's next full update only at 12.914144 s.
    let mut n1 = node(N1);
    n1.recv(secs(0.502117), &upd(&[adv(N0, 0, 4)]), N0, 32);
    n1.recv(secs(0.537491), &upd(&[adv(N2, 0, 4)]), N2, 32);
    let sent = run_until(&mut n1, secs(12.502117));
    // The full updates at 0 and 11.25 s hold back both new neighbours (2 * wst0_ = 12 s
    // after first hearing them); the trigger at 12.502117 s carries n0 alone.
    assert_eq!(
        sent,
        vec![
            (SimTime::ZERO, vec![adv(N1, 0, 4)]),
            (secs(11.25), vec![adv(N1, 0, 6)]),
            (secs(12.502117), vec![adv(N0, 1, 4)]),
        ]
    );
    assert_eq!(upd(&sent[2].1).ns2_len(), 32, "ns-2's update is 32 bytes");

    // n2 holds data for n0 (ns-2: its CBR from 5 s sits in the routing queue), then
    // hears that update: the data leaves for n1 at once (ns-2: n2's first data packet
    // goes to next hop 1 at 12.004052 s, the instant n1's update arrives).
    let mut n2 = node(N2);
    n2.recv(secs(0.537491), &upd(&[adv(N1, 0, 4)]), N1, 32);
    let mut ttl = 0;
    let r = n2.route(secs(5.5), PacketId(7), N2, N0, true, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    while n2.poll_output().is_some() {}
    n2.recv(secs(12.504052), &upd(&[adv(N0, 1, 4)]), N1, 32);
    assert_eq!(
        n2.poll_output(),
        Some(RoutingEvent::Forward {
            pkt: PacketId(7),
            next_hop: N1,
            delay: SimDuration::ZERO,
        })
    );
    assert_eq!(
        n2.route_info(N0).map(|r| (r.next_hop, r.metric)),
        Some((N1, 2))
    );
}

#[test]
fn a_fresher_number_before_the_trigger_holds_n0_back_and_triggers_nothing() {
    // ns-2.35 seed 7: n1 hears n0 at 0.012016 s, n2 at 0.206702 s and n0's next full
    // update at 11.594396 s, before the trigger due at 12.012016 s. n1's next updates
    // are 32 bytes at 12.213292 s (n2's trigger: n2 alone) and 44 bytes at 13.599083 s
    // (its full update: itself and n2); none carries n0, and n2 delivers nothing to n0
    // in the 60 s run.
    let mut n1 = node(N1);
    n1.recv(secs(0.512016), &upd(&[adv(N0, 0, 4)]), N0, 32);
    n1.recv(secs(0.706702), &upd(&[adv(N2, 0, 4)]), N2, 32);
    n1.recv(secs(12.094396), &upd(&[adv(N0, 0, 6)]), N0, 32);
    let sent = run_until(&mut n1, secs(22.5));
    assert_eq!(
        sent,
        vec![
            (SimTime::ZERO, vec![adv(N1, 0, 4)]),
            (secs(11.25), vec![adv(N1, 0, 6)]),
            // n0's trigger at 12.512016 s: nothing to send (n0 held to
            // 12.094396 + 2 * 5.25 = 22.594396 s); n2's at 12.706702 s: n2 alone.
            (secs(12.706702), vec![adv(N2, 1, 4)]),
            // The full update at 22.5 s falls inside n0's hold.
            (secs(22.5), vec![adv(N1, 0, 8), adv(N2, 1, 4)]),
        ]
    );
    assert_eq!(n1.counters().triggered_updates_sent, 1);
    // n1 itself has the route all along.
    assert_eq!(
        n1.route_info(N0).map(|r| (r.next_hop, r.metric, r.seqnum)),
        Some((N0, 1, 6))
    );
}
