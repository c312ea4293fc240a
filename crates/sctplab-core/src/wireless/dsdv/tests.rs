//! DSDV's table and updates on a 4-node chain A - B - C - D (addresses 1 to 4), seen
//! from A, with the jitters off (`randomize = false`): every expectation below is worked
//! out by hand from dsdv.cc's rules, step by step in the comments.

use super::*;

const A: u32 = 1;
const B: u32 = 2;
const C: u32 = 3;
const D: u32 = 4;

pub(super) fn secs(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(s)
}

fn agent() -> Dsdv {
    agent_at(A, "dsdv-test")
}

/// An agent at `addr` with the jitters off (`randomize = false`).
pub(super) fn agent_at(addr: u32, stream: &str) -> Dsdv {
    let cfg = DsdvCfg {
        randomize: false,
        ..DsdvCfg::ns2()
    };
    Dsdv::new(cfg, addr, RngStream::new(1, stream))
}

pub(super) fn adv(dst: u32, metric: u8, seqnum: u32) -> Advert {
    Advert {
        dst,
        metric,
        seqnum,
    }
}

pub(super) fn upd(entries: &[Advert]) -> DsdvUpdate {
    DsdvUpdate {
        entries: entries.to_vec(),
    }
}

/// Runs every timer up to and including `t`; returns the updates sent (time, entries,
/// in order).
pub(super) fn run_until(d: &mut Dsdv, t: SimTime) -> Vec<(SimTime, Vec<Advert>)> {
    let mut sent = Vec::new();
    while let Some(at) = d.poll_timeout().filter(|&at| at <= t) {
        d.handle_timeout(at);
        while let Some(ev) = d.poll_output() {
            if let RoutingEvent::Send(o) = ev {
                let RoutingMsg::Dsdv(u) = o.msg else {
                    panic!("not a DSDV update")
                };
                assert_eq!((o.ip_dst, o.next_hop, o.ttl), (BROADCAST, BROADCAST, 32));
                sent.push((at, u.entries));
            }
        }
    }
    sent
}

fn route(d: &Dsdv, dst: u32) -> (u32, u8, u32) {
    let r = d.route_info(dst).expect("an entry");
    (r.next_hop, r.metric, r.seqnum)
}

#[test]
fn first_full_update_carries_own_entry_with_even_seqnum() {
    let mut d = agent();
    // start-dsdv: own entry with sequence number 0, then seqno_ = 2; the first full
    // update (startup jitter 0) adds 2: sequence number 4, metric 0.
    let sent = run_until(&mut d, SimTime::ZERO);
    assert_eq!(sent, vec![(SimTime::ZERO, vec![adv(A, 0, 4)])]);
    // The next one 0.75 * 15 s later (be_random_ off), sequence number 6.
    assert_eq!(d.poll_timeout(), Some(secs(11.25)));
    let sent = run_until(&mut d, secs(11.25));
    assert_eq!(sent, vec![(secs(11.25), vec![adv(A, 0, 6)])]);
    assert_eq!(d.counters().periodic_updates_sent, 2);
}

#[test]
fn table_after_updates_on_a_chain_and_after_the_link_breaks() {
    let mut d = agent();
    run_until(&mut d, secs(0.5));
    // t = 1: B's full update lists itself, C one hop from B and D two hops from B,
    // all at sequence number 4. Each is new to A: metric + 1, next hop B.
    d.recv(
        secs(1.0),
        &upd(&[adv(B, 0, 4), adv(C, 1, 4), adv(D, 2, 4)]),
        B,
        31,
    );
    assert_eq!(route(&d, B), (B, 1, 4));
    assert_eq!(route(&d, C), (B, 2, 4));
    assert_eq!(route(&d, D), (B, 3, 4));
    // A packet for D goes to B; one for B to B itself (metric 1: the destination).
    let mut ttl = 64;
    let r = d.route(secs(1.0), PacketId(1), A, D, true, &mut ttl);
    assert_eq!(r, RouteDecision::Forward { next_hop: B });
    assert_eq!(ttl, 32, "originated packets get IP_DEF_TTL");
    let r = d.route(secs(1.0), PacketId(2), A, B, true, &mut ttl);
    assert_eq!(r, RouteDecision::Forward { next_hop: B });

    // New destinations are held back for twice the initial settling time (2 * 6 s):
    // the full update at 11.25 s lists only A (now at sequence number 6).
    let sent = run_until(&mut d, secs(11.25));
    assert_eq!(sent, vec![(secs(11.25), vec![adv(A, 0, 6)])]);

    // t = 5: B relays D's fresher sequence number 6 at the same distance. Fresher
    // numbers are always taken (metric 3) and trigger nothing; the settling time
    // becomes 0.875 * 6 + 0.125 * (1 - 1) = 5.25 s, so D may be advertised from
    // 5 + 2 * 5.25 = 15.5 s.
    d.recv(secs(5.0), &upd(&[adv(D, 2, 6)]), B, 31);
    assert_eq!(route(&d, D), (B, 3, 6));
    // The same sequence number at a longer distance is ignored.
    d.recv(secs(5.5), &upd(&[adv(C, 4, 4)]), B, 31);
    assert_eq!(route(&d, C), (B, 2, 4));

    // At 13 s B's and C's triggered updates fire (settled, metric changed): the first
    // sends both; the second is within 1 s of the last update (13 s) and waits to
    // 14 s, when both are still marked (only a full update clears the metric mark).
    let sent = run_until(&mut d, secs(14.0));
    let bc = vec![adv(B, 1, 4), adv(C, 2, 4)];
    assert_eq!(sent, vec![(secs(13.0), bc.clone()), (secs(14.0), bc)]);
    assert_eq!(d.counters().triggered_updates_sent, 2);

    // Full updates at 22.5, 33.75 and 45 s list everything, A at 8, 10 and 12.
    let sent = run_until(&mut d, secs(45.0));
    let times: Vec<SimTime> = sent.iter().map(|s| s.0).collect();
    assert_eq!(times, vec![secs(22.5), secs(33.75), secs(45.0)]);
    assert_eq!(
        sent[2].1,
        vec![adv(A, 0, 12), adv(B, 1, 4), adv(C, 2, 4), adv(D, 3, 6)]
    );

    // B was last heard at 5.5 s: 3 * 15 s later (50.5 s) it is lost. Every route
    // through B gets the infinite metric 250 and its sequence number + 1, odd.
    let sent = run_until(&mut d, secs(50.5));
    assert_eq!(route(&d, B), (B, BIG, 5));
    assert_eq!(route(&d, C), (B, BIG, 5));
    assert_eq!(route(&d, D), (B, BIG, 7));
    assert_eq!(d.counters().neighbours_lost, 1);
    assert_eq!(d.counters().routes_broken, 3);
    // A triggered update tells the neighbours at once (3 changes of a table of 4:
    // not more than 3, so not a full update).
    let broken = vec![adv(B, BIG, 5), adv(C, BIG, 5), adv(D, BIG, 7)];
    assert_eq!(sent, vec![(secs(50.5), broken.clone())]);
    // C's and D's triggers at 50.5 s fold into one at 51.5 s, which repeats them.
    let sent = run_until(&mut d, secs(51.5));
    assert_eq!(sent, vec![(secs(51.5), broken)]);

    // A packet for D now waits for a route.
    let r = d.route(secs(52.0), PacketId(3), A, D, true, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    assert_eq!(d.buffered(D), 1);
}

#[test]
fn a_broken_route_heard_from_a_neighbour_is_taken_without_a_trigger() {
    let mut d = agent();
    d.recv(secs(1.0), &upd(&[adv(B, 0, 4), adv(C, 1, 4)]), B, 31);
    run_until(&mut d, secs(20.0));
    let before = d.counters().triggered_updates_sent;
    // B lost C: it advertises C at 250 with the odd sequence number 5. Fresher, so A
    // takes it (advertisable at once), but fresh sequence numbers trigger nothing
    // (TRIGGER_UPDATE_ON_FRESH_SEQNUM is undefined in ns-2.35).
    d.recv(secs(20.5), &upd(&[adv(C, BIG, 5)]), B, 31);
    assert_eq!(route(&d, C), (B, BIG, 5));
    let sent = run_until(&mut d, secs(22.4));
    assert!(sent.is_empty());
    assert_eq!(d.counters().triggered_updates_sent, before);
    // The next full update (22.5 s) carries it.
    let sent = run_until(&mut d, secs(22.5));
    assert_eq!(sent[0].1, vec![adv(A, 0, 8), adv(B, 1, 4), adv(C, BIG, 5)]);
}

#[test]
fn a_neighbour_with_older_news_of_a_loss_is_answered_at_once() {
    let mut d = agent();
    d.recv(secs(1.0), &upd(&[adv(B, 0, 4), adv(C, 1, 6)]), B, 31);
    run_until(&mut d, secs(20.0));
    // B now says C is gone at sequence number 5, older than A's 6 with metric 2: A
    // triggers an update about C now (dsdv.cc "educate this ignorant fellow"). B's
    // entry rides along: its metric mark (set when it was learnt at 1 s) is cleared
    // only by a full update, and the one at 11.25 s held B back (settling until 13 s).
    d.recv(secs(20.5), &upd(&[adv(C, BIG, 5)]), B, 31);
    assert_eq!(route(&d, C), (B, 2, 6));
    let sent = run_until(&mut d, secs(20.5));
    assert_eq!(sent, vec![(secs(20.5), vec![adv(B, 1, 4), adv(C, 2, 6)])]);
}

#[test]
fn hearing_itself_declared_lost_sends_a_full_update_now() {
    let mut d = agent();
    run_until(&mut d, secs(1.0));
    d.recv(secs(2.0), &upd(&[adv(A, BIG, 5)]), B, 31);
    let sent = run_until(&mut d, secs(2.0));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, secs(2.0));
    assert_eq!(sent[0].1[0], adv(A, 0, 6));
}

#[test]
fn buffered_packets_leave_when_a_route_arrives_and_overflow_drops_the_oldest() {
    let mut d = agent();
    let mut ttl = 0;
    for i in 0..6 {
        let r = d.route(secs(1.0), PacketId(i), A, D, true, &mut ttl);
        assert_eq!(r, RouteDecision::Queued);
    }
    // MAX_QUEUE_LENGTH 5: the sixth pushes out the first ("IFQ", DROP_RTR_QFULL).
    assert_eq!(
        d.poll_output(),
        Some(RoutingEvent::Drop {
            pkt: PacketId(0),
            reason: DropReason::QueueFull
        })
    );
    assert_eq!(d.buffered(D), 5);
    // The entry made for D has the infinite metric and sequence number 0; B's news of
    // D (sequence number 2) is fresher and releases the five, in order, to B.
    assert_eq!(route(&d, D), (D, BIG, 0));
    d.recv(secs(2.0), &upd(&[adv(B, 0, 4), adv(D, 1, 2)]), B, 31);
    let out: Vec<RoutingEvent> = std::iter::from_fn(|| d.poll_output()).collect();
    let want: Vec<RoutingEvent> = (1..6)
        .map(|i| RoutingEvent::Forward {
            pkt: PacketId(i),
            next_hop: B,
            delay: SimDuration::ZERO,
        })
        .collect();
    assert_eq!(out, want);
    assert_eq!(d.buffered(D), 0);
}

#[test]
fn a_mac_failure_only_drops_the_packet_as_ns2_35s_use_mac_is_off() {
    let mut d = agent();
    d.recv(secs(1.0), &upd(&[adv(B, 0, 4), adv(C, 1, 4)]), B, 31);
    assert!(d.link_failed(secs(2.0), B, PacketId(7), C));
    assert_eq!(
        d.poll_output(),
        Some(RoutingEvent::Drop {
            pkt: PacketId(7),
            reason: DropReason::MacCallback
        })
    );
    assert_eq!(route(&d, C), (B, 2, 4));
    // With use_mac_ on, the link breaks at once and the packet waits for a new route.
    let mut d = Dsdv::new(
        DsdvCfg {
            randomize: false,
            mac_link_breaks: true,
            ..DsdvCfg::ns2()
        },
        A,
        RngStream::new(1, "dsdv-test"),
    );
    d.recv(secs(1.0), &upd(&[adv(B, 0, 4), adv(C, 1, 4)]), B, 31);
    assert!(d.link_failed(secs(2.0), B, PacketId(7), C));
    assert_eq!(route(&d, C), (B, BIG, 5));
    assert_eq!(d.buffered(C), 1);
}

#[test]
fn forwarded_packets_lose_a_ttl_and_loops_are_dropped() {
    let mut d = agent();
    d.recv(secs(1.0), &upd(&[adv(B, 0, 4)]), B, 31);
    let mut ttl = 1;
    let r = d.route(secs(1.0), PacketId(1), C, B, false, &mut ttl);
    assert_eq!(r, RouteDecision::Drop(DropReason::Ttl));
    let mut ttl = 10;
    let r = d.route(secs(1.0), PacketId(2), C, B, false, &mut ttl);
    assert_eq!((r, ttl), (RouteDecision::Forward { next_hop: B }, 9));
    let r = d.route(secs(1.0), PacketId(3), A, B, false, &mut ttl);
    assert_eq!(r, RouteDecision::Drop(DropReason::RouteLoop));
}

#[test]
fn a_large_change_turns_a_triggered_update_into_a_full_one() {
    let mut d = agent();
    run_until(&mut d, secs(0.0));
    // Four new destinations at once (more than 3, over a third of the table of 6):
    // when their triggers fire (12 s after), the update is a full one, with A's
    // sequence number raised (6), and it replaces the next periodic update.
    d.recv(
        secs(1.0),
        &upd(&[adv(B, 0, 4), adv(C, 1, 4), adv(D, 2, 4), adv(5, 3, 4)]),
        B,
        31,
    );
    let sent = run_until(&mut d, secs(13.0));
    assert_eq!(sent[0], (secs(11.25), vec![adv(A, 0, 6)]));
    assert_eq!(
        sent[1],
        (
            secs(13.0),
            vec![
                adv(A, 0, 8),
                adv(B, 1, 4),
                adv(C, 2, 4),
                adv(D, 3, 4),
                adv(5, 4, 4)
            ]
        )
    );
    assert_eq!(d.counters().periodic_updates_sent, 3);
    // C's trigger, also at 13 s, came within 1 s of that update: folded with D's and
    // 5's into one at 14 s, which finds nothing left to advertise.
    assert_eq!(d.poll_timeout(), Some(secs(14.0)));
    assert!(run_until(&mut d, secs(14.0)).is_empty());
    // The next periodic one is 11.25 s after 13 s.
    assert_eq!(d.poll_timeout(), Some(secs(24.25)));
}

/// An update lists destinations in address order (`make_update` walks the table so) and
/// the lookups walk on in that order; one out of order (a hostile or foreign sender) is
/// taken entry by entry all the same.
#[test]
fn update_out_of_address_order_is_taken_as_in_order() {
    // B's update: itself (metric 0, seq 4), C one hop from B (seq 6), D two (seq 10).
    // A takes each with one more hop, through B: B (B, 1, 4), C (B, 2, 6), D (B, 3, 10).
    let want = [(B, (B, 1, 4)), (C, (B, 2, 6)), (D, (B, 3, 10))];
    for order in [[B, C, D], [D, B, C], [C, D, B]] {
        let mut d = agent();
        let entries: Vec<Advert> = order
            .iter()
            .map(|&x| match x {
                B => adv(B, 0, 4),
                C => adv(C, 1, 6),
                _ => adv(D, 2, 10),
            })
            .collect();
        d.recv(secs(1.0), &upd(&entries), B, 1);
        for (dst, r) in want {
            assert_eq!(route(&d, dst), r, "order {order:?}, destination {dst}");
        }
    }
}
