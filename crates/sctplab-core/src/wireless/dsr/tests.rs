//! Hand-derived checks of the DSR agent on small fixed topologies. A harness stands in
//! for the world: a packet sent to a neighbour arrives 1 ms after its delay (a broadcast
//! at every neighbour), every other neighbour of the sender overhears it (the tap), and
//! a packet for a node that is not a neighbour any more comes back as a link failure.
//! Jitters are off (`randomize = false`), so every time below is derived by hand from
//! ns-2.35's constants: send buffer checks every 30 ms, the propagating request when a
//! check finds the ring-zero one 30 ms old or more (strictly more).

use super::*;
use std::collections::BTreeSet;

const HOP: SimDuration = SimDuration::from_millis(1);

fn ms(m: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(m)
}

#[derive(Debug)]
enum Action {
    Recv(usize, SrPacket),
    Tap(usize, SrPacket, u64),
    Failed(usize, SrPacket),
}

struct Net {
    agents: Vec<Dsr>,
    links: BTreeSet<(usize, usize)>,
    queue: BTreeMap<(SimTime, u64), Action>,
    seq: u64,
    now: SimTime,
    /// (time, node, packet) for every data packet delivered.
    delivered: Vec<(SimTime, usize, PacketId)>,
    dropped: Vec<(usize, PacketId, DsrDrop)>,
    /// (node, next hop, packet) for every packet the agents sent.
    sent: Vec<(usize, u32, SrPacket)>,
}

/// Node `i` has address `i + 1` (0 is ns-2's "nobody" in route errors).
fn addr(i: usize) -> u32 {
    i as u32 + 1
}

impl Net {
    fn new(n: usize, links: &[(usize, usize)]) -> Net {
        let mut cfg = DsrCfg::ns2();
        cfg.randomize = false;
        let agents = (0..n)
            .map(|i| Dsr::new(cfg.clone(), addr(i), RngStream::new(1, "dsr-test")))
            .collect();
        let mut net = Net {
            agents,
            links: BTreeSet::new(),
            queue: BTreeMap::new(),
            seq: 0,
            now: SimTime::ZERO,
            delivered: Vec::new(),
            dropped: Vec::new(),
            sent: Vec::new(),
        };
        for &(a, b) in links {
            net.link(a, b);
        }
        net
    }

    fn chain(n: usize) -> Net {
        let links: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        Net::new(n, &links)
    }

    fn link(&mut self, a: usize, b: usize) {
        self.links.insert((a.min(b), a.max(b)));
    }

    fn unlink(&mut self, a: usize, b: usize) {
        self.links.remove(&(a.min(b), a.max(b)));
    }

    fn near(&self, a: usize, b: usize) -> bool {
        self.links.contains(&(a.min(b), a.max(b)))
    }

    fn push(&mut self, at: SimTime, a: Action) {
        self.seq += 1;
        self.queue.insert((at, self.seq), a);
    }

    /// Turns node `i`'s outputs into arrivals.
    fn drain(&mut self, i: usize) {
        while let Some(ev) = self.agents[i].poll_output() {
            match ev {
                DsrEvent::Send {
                    pkt,
                    next_hop,
                    delay,
                } => {
                    let at = self.now + delay + HOP;
                    self.seq += 1;
                    let uid = self.seq;
                    let n = self.agents.len();
                    self.sent.push((i, next_hop, pkt.clone()));
                    if next_hop != BROADCAST {
                        let to = next_hop.checked_sub(1).map(|a| a as usize);
                        if !to.is_some_and(|to| self.near(i, to)) {
                            self.push(at, Action::Failed(i, pkt));
                            continue;
                        }
                    }
                    for j in 0..n {
                        if j == i || !self.near(i, j) {
                            continue;
                        }
                        if next_hop == BROADCAST || addr(j) == next_hop {
                            self.push(at, Action::Recv(j, pkt.clone()));
                        } else {
                            self.push(at, Action::Tap(j, pkt.clone(), uid));
                        }
                    }
                }
                DsrEvent::Deliver { pkt } => self.delivered.push((self.now, i, pkt)),
                DsrEvent::Drop { pkt, reason } => self.dropped.push((i, pkt, reason)),
            }
        }
    }

    fn run_until(&mut self, end: SimTime) {
        loop {
            let next_action = self.queue.keys().next().map(|k| k.0);
            let next_timer = (0..self.agents.len())
                .filter_map(|i| self.agents[i].poll_timeout().map(|t| (t, i)))
                .min();
            let t_action = next_action.unwrap_or(SimTime::MAX);
            match next_timer {
                Some((t, i)) if t < t_action && t <= end => {
                    self.now = t;
                    self.agents[i].handle_timeout(t);
                    self.drain(i);
                }
                _ if t_action <= end => {
                    let Some(((t, _), a)) = self.queue.pop_first() else {
                        break;
                    };
                    self.now = t;
                    match a {
                        Action::Recv(j, p) => {
                            self.agents[j].recv(t, p);
                            self.drain(j);
                        }
                        Action::Tap(j, p, uid) => {
                            self.agents[j].tap(t, p.src, &p.sr, p.payload == Payload::Control, uid);
                            self.drain(j);
                        }
                        Action::Failed(j, p) => {
                            self.agents[j].xmit_failed(t, p, Vec::new());
                            self.drain(j);
                        }
                    }
                }
                _ => break,
            }
        }
        self.now = end;
    }

    fn send_data(&mut self, from: usize, to: usize, id: u32) {
        let now = self.now;
        self.agents[from].originate(now, PacketId(id), addr(to), 532, 32);
        self.drain(from);
    }
}

#[test]
fn five_hop_chain_discovery_reply_cache_and_source_route() {
    // Nodes 1..6 in a line (indices 0..5). Node 1 sends a 532-byte IP packet to 6 at 0.
    let mut net = Net::chain(6);
    net.send_data(0, 5, 7);
    // No route: a ring-zero request (seq 1), the packet in the send buffer.
    assert_eq!(net.agents[0].counters().requests_ring_zero, 1);
    assert_eq!(net.agents[0].buffered(), 1);
    // Node 2 has no cached route and the request may not propagate: nothing more.
    // Checks at 30 ms (30 ms since the request: not more, wait) and 60 ms (a
    // propagating request, seq 2). It reaches node 6 at 65 ms, which answers; the
    // reply passes 5, 4, 3, 2 and reaches node 1 at 70 ms; the data leaves at once
    // and arrives at 75 ms.
    net.run_until(ms(59));
    assert_eq!(net.agents[0].counters().requests_propagating, 0);
    net.run_until(ms(100));
    let c = net.agents[0].counters();
    assert_eq!((c.requests_ring_zero, c.requests_propagating), (1, 1));
    assert_eq!(c.replies_received, 1);
    assert_eq!(net.agents[5].counters().replies_sent, 1);
    for i in 1..5 {
        assert_eq!(
            net.agents[i].counters().requests_forwarded,
            1,
            "node {}",
            i + 1
        );
    }
    assert_eq!(net.delivered, vec![(ms(75), 5, PacketId(7))]);
    // The propagating request as nodes 1 to 5 broadcast it. ns-2.35's trace of this
    // chain (6 nodes 200 m apart, DSR, CMUPriQueue) shows "DSR 32", then 48, 68, 92,
    // 120: each forwarder adds its grown header to the size without removing the old.
    let sizes: Vec<(u32, u32)> = net
        .sent
        .iter()
        .filter(|(_, h, p)| *h == BROADCAST && p.sr.request.is_some_and(|r| r.seq == 2))
        .map(|(n, _, p)| (addr(*n), p.air_len(HeaderSizes::Ns2)))
        .collect();
    assert_eq!(sizes, vec![(1, 32), (2, 48), (3, 68), (4, 92), (5, 120)]);
    // The route the reply brought is the primary cache's route to 6.
    assert_eq!(net.agents[0].cached_route(6), Some(vec![1, 2, 3, 4, 5, 6]));
    // The data packet's header on its first hop: the whole route, sent to node 2.
    let (_, hop, data) = net
        .sent
        .iter()
        .find(|(n, _, p)| *n == 0 && p.data().is_some())
        .expect("data sent by node 1");
    assert_eq!(*hop, 2);
    assert_eq!(data.sr.addrs, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(data.sr.cur, 1);
    // ns-2: 4 + 4 * (6 - 1) = 24 bytes of source route; RFC 4728: 4 + 4 + 4 * 4 = 24.
    assert_eq!(data.air_len(HeaderSizes::Ns2), 532 + 24);
    assert_eq!(data.air_len(HeaderSizes::Rfc4728), 532 + 24);
    // Each forwarder takes one off the TTL: 28 on the last hop, as in ns-2.35's trace.
    let last = net
        .sent
        .iter()
        .rfind(|(n, _, p)| *n == 4 && p.data().is_some());
    assert_eq!(last.map(|(_, _, p)| p.ttl), Some(28));
    // The target's reply: route 6 5 4 3 2 1 and the reply's six addresses:
    // 4 + 20 + (5 + 24) = 53, rounded to 56, plus the IP header: "DSR 76" in ns-2.35's
    // trace, which also shows its TTL of 254 as it leaves (255, less the target's own
    // forwarding step).
    let (_, _, reply) = net
        .sent
        .iter()
        .find(|(n, _, p)| *n == 5 && p.sr.reply.is_some())
        .expect("reply sent by node 6");
    assert_eq!(reply.sr.addrs, vec![6, 5, 4, 3, 2, 1]);
    assert_eq!(reply.sr.reply, Some((2, vec![1, 2, 3, 4, 5, 6])));
    assert_eq!(reply.air_len(HeaderSizes::Ns2), 76);
    assert_eq!(reply.ttl, 254);
    // A second packet finds the cached route: no new request.
    net.send_data(0, 5, 8);
    net.run_until(ms(200));
    let c = net.agents[0].counters();
    assert_eq!((c.requests_ring_zero, c.requests_propagating), (1, 1));
    assert_eq!(net.delivered.last(), Some(&(ms(105), 5, PacketId(8))));
}

#[test]
fn route_request_sizes_as_ns2_traces_show_them() {
    // A fresh request: 4 + 8 bytes, plus 20 of IP: ns-2 traces show "DSR 32".
    let req = SrPacket {
        src: 1,
        dst: 6,
        ttl: 32,
        sr: SrHeader {
            addrs: vec![1],
            request: Some(Request {
                seq: 1,
                max_propagation: 0,
            }),
            ..SrHeader::default()
        },
        payload: Payload::Control,
        ns2_stale: 0,
    };
    assert_eq!(req.air_len(HeaderSizes::Ns2), 32);
    // RFC 4728: options header 4, Route Request 8, no recorded hop yet.
    assert_eq!(req.air_len(HeaderSizes::Rfc4728), 32);
    // After 4 more hops: 4 + 16 + 8 = 28 bytes of header (RFC 4 + 8 + 16), plus what
    // ns-2.35 forgot to take off at each hop (see `five_hop_chain...`).
    let mut far = req.clone();
    far.sr.addrs = vec![1, 2, 3, 4, 5];
    assert_eq!(far.air_len(HeaderSizes::Rfc4728), 48);
    far.ns2_stale = 72;
    assert_eq!(far.air_len(HeaderSizes::Ns2), 120);
    // A route error back over two hops: ns-2 4 + 4 * 2 + 16 = 28; RFC 4 + (4 + 4) + 16.
    let err = SrPacket {
        src: 3,
        dst: 1,
        ttl: 255,
        sr: SrHeader {
            addrs: vec![3, 2, 1],
            errors: vec![LinkDown {
                from: 3,
                to: 4,
                tell: 1,
            }],
            ..SrHeader::default()
        },
        payload: Payload::Control,
        ns2_stale: 0,
    };
    assert_eq!(err.air_len(HeaderSizes::Ns2), 20 + 28);
    assert_eq!(err.air_len(HeaderSizes::Rfc4728), 20 + 28);
}

#[test]
fn salvage_after_a_break_and_the_route_error() {
    // 1-2-3-4-5-6 plus node 7 linked to 3 and 5 (indices 0..5 and 6).
    let mut links: Vec<(usize, usize)> = (0..5).map(|i| (i, i + 1)).collect();
    links.extend([(2, 6), (6, 4)]);
    let mut net = Net::new(7, &links);
    // Discovery first. The propagating request reaches 5 through 4 and through 7 at
    // the same time, 4's copy first (3 broadcast to 4 before 7): 5 drops 7's copy as
    // seen, and the route is the chain's.
    net.send_data(0, 5, 1);
    net.run_until(ms(200));
    assert_eq!(net.delivered.len(), 1);
    assert_eq!(net.agents[0].cached_route(6), Some(vec![1, 2, 3, 4, 5, 6]));
    assert_eq!(net.agents[5].counters().replies_sent, 1);
    // Node 3 learned 3 4 5 6 by forwarding; say it also holds 3 7 5 6 from an earlier
    // reply (primary cache).
    net.agents[2].cache.add_route(&[3, 7, 5, 6]);
    // Link 3-4 breaks. Node 1's next packet reaches 3, whose transmission to 4 fails:
    // 3 cuts 3->4 from its caches, salvages the packet over 3 7 5 6, and sends node 1 a
    // route error over 3 2 1.
    net.unlink(2, 3);
    net.send_data(0, 5, 2);
    net.run_until(ms(400));
    assert_eq!(
        net.delivered.last().map(|d| (d.1, d.2)),
        Some((5, PacketId(2)))
    );
    let c3 = net.agents[2].counters();
    assert_eq!((c3.link_failures, c3.salvaged, c3.errors_sent), (1, 1, 1));
    let (_, hop, salvaged) = net
        .sent
        .iter()
        .find(|(n, _, p)| *n == 2 && p.data() == Some(PacketId(2)) && p.sr.salvaged == 1)
        .expect("salvaged packet");
    assert_eq!(*hop, 7);
    assert_eq!(salvaged.sr.addrs, vec![3, 7, 5, 6]);
    let (_, _, err) = net
        .sent
        .iter()
        .find(|(n, _, p)| *n == 2 && !p.sr.errors.is_empty())
        .expect("route error");
    assert_eq!(err.dst, 1);
    assert_eq!(err.sr.addrs, vec![3, 2, 1]);
    assert_eq!(
        err.sr.errors,
        vec![LinkDown {
            from: 3,
            to: 4,
            tell: 1
        }]
    );
    // Node 1 (told) and node 2 (which forwarded the error) no longer use 3->4.
    for i in [0, 1] {
        assert!(
            net.agents[i]
                .cache()
                .routes()
                .all(|r| !r.windows(2).any(|w| w == [3, 4])),
            "node {}",
            i + 1
        );
    }
    assert!(net.dropped.is_empty());
}

#[test]
fn a_route_learned_by_overhearing() {
    // 1-2-3; node 4 joins afterwards, in range of 1 and 2 only.
    let mut net = Net::chain(4);
    net.unlink(2, 3);
    net.send_data(0, 2, 1);
    net.run_until(ms(200));
    assert_eq!(net.delivered.len(), 1);
    net.link(3, 0);
    net.link(3, 1);
    net.send_data(0, 2, 2);
    net.run_until(ms(300));
    assert_eq!(net.delivered.len(), 2);
    // Node 4 heard 1 -> 2 (route 1 2 3, sent to index 1): "me, then the transmitter,
    // then the rest", 4 1 2 3; and 2 -> 3: 4 2 3. Both in the secondary cache; the
    // shorter is the route to 3. It sent nothing.
    let d = &net.agents[3];
    let routes: Vec<&[u32]> = d.cache().routes().collect();
    assert_eq!(routes, vec![&[4, 1, 2, 3][..], &[4, 2, 3][..]]);
    assert_eq!(d.cached_route(3), Some(vec![4, 2, 3]));
    assert_eq!(d.counters().tapped, 2);
    assert!(net.sent.iter().all(|(n, _, _)| *n != 3));
}

#[test]
fn a_gratuitous_reply_shortens_the_route() {
    // 1-2-3-4 discover; then 1 and 3 come in range. Node 3 overhears 1 -> 2 of a packet
    // it would get next hop, and tells 1 the route 1 3 4 over 3 1.
    let mut net = Net::chain(4);
    net.send_data(0, 3, 1);
    net.run_until(ms(200));
    assert_eq!(net.agents[0].cached_route(4), Some(vec![1, 2, 3, 4]));
    net.link(0, 2);
    net.send_data(0, 3, 2);
    net.run_until(ms(300));
    assert_eq!(net.agents[2].counters().grat_replies_sent, 1);
    let (_, hop, grat) = net
        .sent
        .iter()
        .find(|(_, _, p)| p.src == 3 && p.sr.reply.is_some())
        .expect("gratuitous reply");
    assert_eq!(*hop, 1);
    assert_eq!(grat.sr.addrs, vec![3, 1]);
    assert_eq!(grat.sr.reply, Some((0, vec![1, 3, 4])));
    assert_eq!(net.agents[0].cached_route(4), Some(vec![1, 3, 4]));
    // The overheard packet itself still went its way (1 2 3 4).
    assert_eq!(net.delivered.len(), 2);
}

#[test]
fn a_neighbour_answers_the_ring_zero_request_from_its_cache() {
    // 1..6 discover and send; then node 7 comes in range of node 2 only and sends to 6.
    let mut net = Net::chain(7);
    net.unlink(5, 6);
    net.send_data(0, 5, 1);
    net.run_until(ms(200));
    net.link(6, 1);
    net.send_data(6, 5, 2);
    net.run_until(ms(300));
    // Node 2 knows 2 3 4 5 6 from forwarding: it completes the ring-zero request's
    // route [7] to 7 2 3 4 5 6 and answers over 2 7 at once (201 ms, no jitter for a
    // cache reply); node 7 sends at 202 ms, and the packet arrives 5 hops later.
    assert_eq!(net.agents[1].counters().cache_replies_sent, 1);
    let c7 = net.agents[6].counters();
    assert_eq!((c7.requests_ring_zero, c7.requests_propagating), (1, 0));
    assert_eq!(net.agents[6].cached_route(6), Some(vec![7, 2, 3, 4, 5, 6]));
    assert_eq!(net.delivered.last(), Some(&(ms(207), 5, PacketId(2))));
    // The node that answered keeps the route back to the requester.
    assert!(net.agents[1].cache().routes().any(|r| r == [2, 7]));
}

#[test]
fn request_backoff_follows_ns2() {
    // BackOffTest: 0.5 s, then 2 s, 8 s, and 10 s (the cap) after each request.
    let mut t = RequestTable::new(4, 0.5);
    let e = t.entry(9);
    assert!(backoff_test(e, 0.0, 0.5, 10.0));
    assert!(!backoff_test(e, 1.99, 0.5, 10.0));
    assert!(backoff_test(e, 2.0, 0.5, 10.0));
    assert!(!backoff_test(e, 9.99, 0.5, 10.0));
    assert!(backoff_test(e, 10.0, 0.5, 10.0));
    assert!(!backoff_test(e, 19.99, 0.5, 10.0));
    assert!(backoff_test(e, 20.0, 0.5, 10.0));
    assert_eq!(e.outstanding, 4);
}

#[test]
fn request_table_drops_duplicates_and_replaces_round_robin() {
    let mut t = RequestTable::new(2, 0.5);
    t.insert(5, 3);
    assert_eq!(t.get(5), 3);
    t.insert(6, 1);
    t.insert(7, 1);
    // The third node took the first slot.
    assert_eq!(t.get(5), 0);
    assert_eq!(t.get(7), 1);
}

#[test]
fn cache_truncates_at_dead_links_and_evicts_round_robin() {
    let mut c = RouteCache::new(1, 2, 2);
    c.add_route(&[1, 2, 3, 4]);
    // A prefix of a cached path is already there; an extension extends it.
    c.add_route(&[1, 2]);
    c.add_route(&[1, 2, 3, 4, 5]);
    assert_eq!(c.routes().collect::<Vec<_>>(), vec![&[1, 2, 3, 4, 5][..]]);
    c.add_route(&[1, 6]);
    c.add_route(&[1, 7]);
    // Both slots full: the round-robin victim was slot 0.
    assert_eq!(
        c.routes().collect::<Vec<_>>(),
        vec![&[1, 7][..], &[1, 6][..]]
    );
    c.add_route(&[1, 2, 3]);
    assert_eq!(c.notice_dead_link(2, 3), 1);
    assert_eq!(c.find_route(3, true), None);
    assert_eq!(c.find_route(2, true), Some(vec![1, 2]));
    // A route not starting here is refused.
    c.add_route(&[2, 3]);
    assert_eq!(c.find_route(3, true), None);
}

#[test]
fn a_broadcast_goes_out_at_once_without_a_source_route() {
    let mut net = Net::chain(3);
    let now = net.now;
    net.agents[1].originate(now, PacketId(3), BROADCAST, 48, 32);
    net.drain(1);
    let (_, hop, p) = &net.sent[0];
    assert_eq!(
        (*hop, p.sr.addrs.len(), p.air_len(HeaderSizes::Ns2)),
        (BROADCAST, 0, 48)
    );
    assert_eq!(net.agents[1].counters().requests_ring_zero, 0);
}

#[test]
fn compress_path_removes_double_backs() {
    let mut p = vec![1, 2, 3, 2, 4];
    compress_path(&mut p);
    assert_eq!(p, vec![1, 2, 4]);
}

#[test]
fn bad_sizes_are_refused() {
    let mut c = DsrCfg::ns2();
    assert_eq!(c.check(), Ok(()));
    c.primary_cache_size = 0;
    assert_eq!(c.check().map_err(|e| e.0), Err("primary_cache_size"));
}

#[test]
fn malformed_headers_never_panic() {
    // Routes of any length (empty, too long, with this node anywhere or twice), any
    // index, requests, replies and errors in every combination, through every input.
    let mut rng = RngStream::new(7, "dsr-malformed");
    let mut pick = |n: u32| (rng.uniform() * f64::from(n)) as u32;
    let mut net = Net::chain(3);
    for k in 0..600u32 {
        let len = pick(20) as usize;
        let addrs: Vec<u32> = (0..len).map(|_| pick(5)).collect();
        let reply_len = pick(20) as usize;
        let mut sr = SrHeader {
            addrs,
            cur: pick(24) as usize,
            salvaged: pick(256) as u8,
            ..SrHeader::default()
        };
        if pick(2) == 0 {
            sr.request = Some(Request {
                seq: pick(4),
                max_propagation: pick(20) as u8,
            });
        }
        if pick(2) == 0 {
            sr.reply = Some((pick(4), (0..reply_len).map(|_| pick(5)).collect()));
        }
        for _ in 0..pick(5) {
            sr.errors.push(LinkDown {
                from: pick(5),
                to: pick(5),
                tell: pick(5),
            });
        }
        let p = SrPacket {
            src: pick(5),
            dst: if pick(8) == 0 { BROADCAST } else { pick(5) },
            ttl: pick(3) as u8,
            sr,
            payload: if pick(2) == 0 {
                Payload::Control
            } else {
                Payload::Data {
                    pkt: PacketId(k),
                    ip_len: 100,
                }
            },
            ns2_stale: 0,
        };
        let node = pick(3) as usize;
        let now = net.now;
        match pick(3) {
            0 => net.agents[node].recv(now, p),
            1 => {
                net.agents[node].tap(
                    now,
                    p.src,
                    &p.sr,
                    p.payload == Payload::Control,
                    u64::from(k),
                );
            }
            _ => net.agents[node].xmit_failed(now, p.clone(), vec![p]),
        }
        net.drain(node);
        let t = net.now + SimDuration::from_millis(5);
        net.run_until(t);
    }
}

#[test]
fn rfc4728_encoding_is_as_long_as_its_size() {
    let e = LinkDown {
        from: 2,
        to: 3,
        tell: 1,
    };
    let headers = [
        SrHeader {
            addrs: vec![1, 2, 3],
            request: Some(Request {
                seq: 70_000,
                max_propagation: 16,
            }),
            errors: vec![e],
            ..SrHeader::default()
        },
        SrHeader {
            addrs: vec![5, 4, 3, 2, 1],
            cur: 1,
            reply: Some((2, vec![1, 2, 3, 4, 5])),
            ..SrHeader::default()
        },
        SrHeader {
            addrs: vec![1, 2, 3, 4],
            cur: 2,
            salvaged: 1,
            errors: vec![e, e],
            ..SrHeader::default()
        },
    ];
    for h in headers {
        let mut out = Vec::new();
        h.encode_rfc4728(17, &mut out);
        assert_eq!(out.len() as u32, h.size(HeaderSizes::Rfc4728), "{h:?}");
        // The Options header's Payload Length: the options after it.
        assert_eq!(
            usize::from(u16::from_be_bytes([out[2], out[3]])),
            out.len() - 4
        );
        assert_eq!(out[0], 17);
    }
}
