//! Tests of the AODV agent: single-agent tests that feed messages by hand, and an
//! in-test harness of ideal links (fixed delay, no loss, no MAC) for multi-hop runs.
//! Every expected value is worked out in the comment next to it from ns-2.35's rules
//! (aodv.cc) with the defaults of `AodvCfg::ns2()`.

use std::collections::{BTreeSet, HashMap};

use super::*;
use crate::sim::SimDuration;

fn t(s: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(s)
}

/// Node i of a test network has address 10.0.0.(i+1).
fn addr(i: usize) -> u32 {
    0x0a00_0001 + i as u32
}

fn node_of(a: u32) -> usize {
    (a - 0x0a00_0001) as usize
}

fn agent(i: usize, cfg: AodvCfg) -> Aodv {
    Aodv::new(cfg, addr(i), RngStream::new(1, &format!("aodv:{i}")))
}

/// Runs every timer of `a` due up to `to`, collecting what it sends and does.
fn advance(a: &mut Aodv, to: SimTime, sent: &mut Vec<(SimTime, AodvOut)>, ev: &mut Vec<AodvEvent>) {
    while let Some(at) = a.poll_timeout() {
        if at > to {
            break;
        }
        a.handle_timeout(at);
        drain(a, at, sent, ev);
    }
}

fn drain(a: &mut Aodv, now: SimTime, sent: &mut Vec<(SimTime, AodvOut)>, ev: &mut Vec<AodvEvent>) {
    while let Some(e) = a.poll_output() {
        match e {
            AodvEvent::Send(o) => sent.push((now, o)),
            e => ev.push(e),
        }
    }
}

fn rreqs(sent: &[(SimTime, AodvOut)]) -> Vec<(SimTime, &Rreq, u8)> {
    sent.iter()
        .filter_map(|(at, o)| match &o.msg {
            AodvMsg::Rreq(q) => Some((*at, q, o.ttl)),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// Harness: nodes on a graph of ideal links.

#[derive(Clone, Debug)]
struct Data {
    src: usize,
    dst: usize,
    ttl: u8,
    /// ns-2 `num_forwards`: MAC receptions so far.
    hops: u32,
    path: Vec<usize>,
}

#[derive(Clone, Debug)]
enum Ev {
    /// A node hands a control message to its link layer.
    CtrlTx {
        from: usize,
        out: AodvOut,
    },
    CtrlRx {
        to: usize,
        from: usize,
        msg: AodvMsg,
        ttl: u8,
    },
    /// A node hands a data packet to its link layer for `next_hop`.
    DataTx {
        from: usize,
        pkt: PacketId,
        next_hop: u32,
    },
    DataRx {
        to: usize,
        pkt: PacketId,
    },
    /// The MAC of `from` gave up on `pkt`.
    MacFail {
        from: usize,
        pkt: PacketId,
        next_hop: u32,
    },
    Originate {
        node: usize,
        pkt: PacketId,
        dst: usize,
    },
    LinkUp(usize, usize),
    LinkDown(usize, usize),
}

struct Net {
    nodes: Vec<Aodv>,
    links: BTreeSet<(usize, usize)>,
    /// One hop: a broadcast or unicast frame arrives this long after the hand-off.
    hop_delay: SimDuration,
    /// Time the MAC spends on retries before reporting a failure.
    fail_delay: SimDuration,
    queue: Vec<(SimTime, u64, Ev)>,
    seq: u64,
    pkts: HashMap<PacketId, Data>,
    next_pkt: u32,
    delivered: Vec<(SimTime, PacketId, Vec<usize>)>,
    drops: Vec<(usize, PacketId, DropReason)>,
    purges: Vec<(usize, u32)>,
    sent: Vec<(SimTime, usize, AodvOut)>,
}

impl Net {
    fn new(n: usize, edges: &[(usize, usize)], cfg: AodvCfg) -> Net {
        let mut net = Net {
            nodes: (0..n).map(|i| agent(i, cfg.clone())).collect(),
            links: BTreeSet::new(),
            hop_delay: SimDuration::from_millis(1),
            fail_delay: SimDuration::from_millis(5),
            queue: Vec::new(),
            seq: 0,
            pkts: HashMap::new(),
            next_pkt: 0,
            delivered: Vec::new(),
            drops: Vec::new(),
            purges: Vec::new(),
            sent: Vec::new(),
        };
        for &(a, b) in edges {
            net.links.insert((a.min(b), a.max(b)));
        }
        net
    }

    fn chain(n: usize, cfg: AodvCfg) -> Net {
        let edges: Vec<_> = (0..n - 1).map(|i| (i, i + 1)).collect();
        Net::new(n, &edges, cfg)
    }

    fn linked(&self, a: usize, b: usize) -> bool {
        self.links.contains(&(a.min(b), a.max(b)))
    }

    fn at(&mut self, when: SimTime, ev: Ev) {
        self.seq += 1;
        self.queue.push((when, self.seq, ev));
    }

    fn originate(&mut self, when: SimTime, node: usize, dst: usize) -> PacketId {
        let pkt = PacketId(self.next_pkt);
        self.next_pkt += 1;
        self.at(when, Ev::Originate { node, pkt, dst });
        pkt
    }

    fn drain(&mut self, k: usize, now: SimTime) {
        while let Some(e) = self.nodes[k].poll_output() {
            match e {
                AodvEvent::Send(o) => {
                    self.sent.push((now, k, o.clone()));
                    self.at(now + o.delay, Ev::CtrlTx { from: k, out: o });
                }
                AodvEvent::Forward {
                    pkt,
                    next_hop,
                    delay,
                } => self.at(
                    now + delay,
                    Ev::DataTx {
                        from: k,
                        pkt,
                        next_hop,
                    },
                ),
                AodvEvent::Drop { pkt, reason } => self.drops.push((k, pkt, reason)),
                AodvEvent::PurgeIfq { next_hop } => self.purges.push((k, next_hop)),
            }
        }
    }

    fn decide(&mut self, k: usize, now: SimTime, pkt: PacketId, d: RouteDecision) {
        match d {
            RouteDecision::Forward { next_hop } => self.at(
                now,
                Ev::DataTx {
                    from: k,
                    pkt,
                    next_hop,
                },
            ),
            RouteDecision::Queued => {}
            RouteDecision::Drop(reason) => self.drops.push((k, pkt, reason)),
        }
    }

    /// Runs events and timers in time order up to `end` (timers first on ties).
    fn run(&mut self, end: SimTime) {
        loop {
            let timer = (0..self.nodes.len())
                .filter_map(|k| self.nodes[k].poll_timeout().map(|at| (at, k)))
                .min();
            let next = self
                .queue
                .iter()
                .enumerate()
                .min_by_key(|(_, (at, seq, _))| (*at, *seq))
                .map(|(i, (at, _, _))| (*at, i));
            match (timer, next) {
                (Some((ta, k)), n) if ta <= end && n.is_none_or(|(te, _)| ta <= te) => {
                    self.nodes[k].handle_timeout(ta);
                    self.drain(k, ta);
                }
                (_, Some((te, i))) if te <= end => {
                    let (now, _, ev) = self.queue.swap_remove(i);
                    self.step(now, ev);
                }
                _ => break,
            }
        }
    }

    fn step(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::Originate { node, pkt, dst } => {
                let mut d = Data {
                    src: node,
                    dst,
                    ttl: 64,
                    hops: 0,
                    path: vec![node],
                };
                let r = self.nodes[node].route(now, pkt, addr(node), addr(dst), true, &mut d.ttl);
                self.pkts.insert(pkt, d);
                self.decide(node, now, pkt, r);
                self.drain(node, now);
            }
            Ev::CtrlTx { from, out } => {
                let to: Vec<usize> = if out.next_hop == BROADCAST {
                    (0..self.nodes.len())
                        .filter(|&n| n != from && self.linked(from, n))
                        .collect()
                } else {
                    let n = node_of(out.next_hop);
                    // A unicast control frame over a broken link is lost (ns-2 gives
                    // AODV messages no failure callback).
                    if self.linked(from, n) {
                        vec![n]
                    } else {
                        vec![]
                    }
                };
                for n in to {
                    let rx = Ev::CtrlRx {
                        to: n,
                        from,
                        msg: out.msg.clone(),
                        ttl: out.ttl,
                    };
                    self.at(now + self.hop_delay, rx);
                }
            }
            Ev::CtrlRx { to, from, msg, ttl } => {
                self.nodes[to].recv(now, &msg, addr(from), ttl);
                self.drain(to, now);
            }
            Ev::DataTx {
                from,
                pkt,
                next_hop,
            } => {
                let n = node_of(next_hop);
                if self.linked(from, n) {
                    self.at(now + self.hop_delay, Ev::DataRx { to: n, pkt });
                } else {
                    self.at(
                        now + self.fail_delay,
                        Ev::MacFail {
                            from,
                            pkt,
                            next_hop,
                        },
                    );
                }
            }
            Ev::MacFail {
                from,
                pkt,
                next_hop,
            } => {
                let d = &self.pkts[&pkt];
                let (dst, hops) = (addr(d.dst), d.hops);
                self.nodes[from].link_failed(now, next_hop, pkt, dst, hops);
                self.drain(from, now);
            }
            Ev::DataRx { to, pkt } => {
                let d = self.pkts.get_mut(&pkt).expect("known packet");
                d.hops += 1;
                d.path.push(to);
                if d.dst == to {
                    let path = d.path.clone();
                    self.delivered.push((now, pkt, path));
                    return;
                }
                let (src, dst) = (addr(d.src), addr(d.dst));
                let mut ttl = d.ttl;
                let r = self.nodes[to].route(now, pkt, src, dst, false, &mut ttl);
                self.pkts.get_mut(&pkt).expect("known packet").ttl = ttl;
                self.decide(to, now, pkt, r);
                self.drain(to, now);
            }
            Ev::LinkUp(a, b) => {
                self.links.insert((a.min(b), a.max(b)));
            }
            Ev::LinkDown(a, b) => {
                self.links.remove(&(a.min(b), a.max(b)));
            }
        }
    }

    fn sent_by(&self, k: usize) -> Vec<(SimTime, &AodvOut)> {
        self.sent
            .iter()
            .filter(|(_, n, _)| *n == k)
            .map(|(at, _, o)| (*at, o))
            .collect()
    }

    fn path_of(&self, pkt: PacketId) -> Option<&Vec<usize>> {
        self.delivered
            .iter()
            .find(|(_, p, _)| *p == pkt)
            .map(|(_, _, path)| path)
    }
}

// ---------------------------------------------------------------------------------
// Discovery over a 7-hop chain.

#[test]
fn chain_discovery_ns2_goes_network_wide_at_once() {
    // 8 nodes 0-1-...-7; node 0 sends to node 7 at 1.1 s.
    let mut net = Net::chain(8, AodvCfg::ns2());
    let pkt = net.originate(t(1.1), 0, 7);
    net.run(t(3.0));

    // ns-2.35: a fresh entry's last hop count is INFINITY2 (255), so sendRequest picks
    // max(0, 255) = 255 >= TTL_THRESHOLD: TTL = NETWORK_DIAMETER = 30, and rt_req_cnt
    // becomes 1. Own seqno 2 + 2 = 4, broadcast id 1, hop count 1, no jitter.
    let q = rreqs(
        &net.sent_by(0)
            .into_iter()
            .map(|(a, o)| (a, o.clone()))
            .collect::<Vec<_>>(),
    )
    .into_iter()
    .map(|(a, q, ttl)| (a, q.clone(), ttl))
    .collect::<Vec<_>>();
    assert_eq!(q.len(), 1, "one request suffices");
    let (at, rq, ttl) = &q[0];
    assert_eq!((*at, *ttl), (t(1.1), 30));
    assert_eq!(
        (
            rq.hop_count,
            rq.bcast_id,
            rq.src_seqno,
            rq.dst_seqno,
            rq.dst
        ),
        (1, 1, 4, 0, addr(7))
    );
    assert_eq!(net.nodes[0].counters().rreq_sent, 1);

    // Destination: seqno = max(2, 0) + 1 = 3, odd, so 4; RREP hop count 1, +1 per
    // forwarder (nodes 6..1): node 0 reads 7 hops, next hop node 1.
    let r = net.nodes[0].route_info(addr(7)).expect("route");
    assert_eq!(r.state, RouteState::Up);
    assert_eq!((r.next_hop, r.hops, r.seqno), (Some(addr(1)), Some(7), 4));
    assert_eq!(net.nodes[7].seqno(), 4);
    assert_eq!(net.nodes[7].counters().rrep_sent, 1);
    for k in 1..7 {
        let c = net.nodes[k].counters();
        assert_eq!((c.rreq_forwarded, c.rrep_forwarded), (1, 1), "node {k}");
    }
    // The reverse route at node 7: RREQ hop count 1 + 6 forwarders = 7, via node 6,
    // with the originator's seqno 4.
    let rev = net.nodes[7].route_info(addr(0)).expect("reverse route");
    assert_eq!(
        (rev.next_hop, rev.hops, rev.seqno),
        (Some(addr(6)), Some(7), 4)
    );
    // Precursors: a forwarder of the RREP adds its next hop towards the originator to
    // the destination's entry; the originator has none.
    assert_eq!(
        net.nodes[3].route_info(addr(7)).expect("rt").precursors,
        vec![addr(2)]
    );
    assert!(
        net.nodes[0]
            .route_info(addr(7))
            .expect("rt")
            .precursors
            .is_empty()
    );

    // The buffered packet followed the chain.
    assert_eq!(net.path_of(pkt), Some(&(0..8).collect::<Vec<_>>()));
    // Duplicates: each of nodes 1..5 hears its downstream neighbour rebroadcast the
    // RREQ it already forwarded; node 6's downstream neighbour is the destination,
    // which does not rebroadcast; node 0 discards its own RREQ without counting it.
    for k in 1..=5 {
        assert_eq!(net.nodes[k].counters().rreq_duplicate, 1, "node {k}");
    }
    assert_eq!(net.nodes[6].counters().rreq_duplicate, 0);
    assert_eq!(net.nodes[0].counters().rreq_duplicate, 0);
}

#[test]
fn chain_discovery_with_expanding_ring() {
    // RFC 3561's ring (fresh last hop count 0): TTL_START 5 first.
    let cfg = AodvCfg {
        fresh_last_hop_count: 0,
        ..AodvCfg::ns2()
    };
    let mut net = Net::chain(8, cfg);
    let pkt = net.originate(t(1.1), 0, 7);
    net.run(t(3.0));

    let sent: Vec<_> = net
        .sent_by(0)
        .into_iter()
        .map(|(a, o)| (a, o.clone()))
        .collect();
    let q = rreqs(&sent);
    assert_eq!(q.len(), 2);
    // First: TTL 5, rt_req_cnt stays 0, timeout 2 * 5 * 0.03 s = 0.3 s -> 1.4 s. It
    // reaches nodes 1..5 only (node 5 gets TTL 1, decrements it to 0 and cannot
    // forward), none of which knows node 7: no answer.
    assert_eq!((q[0].0, q[0].2, q[0].1.bcast_id), (t(1.1), 5, 1));
    // Retries run from the 0.5 s purge timer: the first tick with timeout <= now is
    // 1.5 s. Last TTL 5 < TTL_THRESHOLD 7, so 5 + 2 = 7; broadcast id 2, seqno 6.
    assert_eq!((q[1].0, q[1].2, q[1].1.bcast_id), (t(1.5), 7, 2));
    assert_eq!(q[1].1.src_seqno, 6);
    assert_eq!(net.nodes[5].counters().ctrl_dropped_ttl, 1);
    assert_eq!(net.nodes[6].counters().ctrl_dropped_ttl, 0);

    let r = net.nodes[0].route_info(addr(7)).expect("route");
    assert_eq!(
        (r.state, r.next_hop, r.hops),
        (RouteState::Up, Some(addr(1)), Some(7))
    );
    let (when, _, path) = net
        .delivered
        .iter()
        .find(|d| d.1 == pkt)
        .expect("delivered");
    assert!(*when > t(1.5));
    assert_eq!(path, &(0..8).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------
// Duplicate suppression and the broadcast-id cache.

#[test]
fn duplicate_rreq_suppressed_until_cache_purge() {
    let mut a = agent(3, AodvCfg::ns2());
    let (mut sent, mut ev) = (Vec::new(), Vec::new());
    let q = AodvMsg::Rreq(Rreq {
        hop_count: 2,
        bcast_id: 1,
        dst: addr(9),
        dst_seqno: 0,
        src: addr(0),
        src_seqno: 4,
        timestamp: t(0.99),
    });
    advance(&mut a, t(1.0), &mut sent, &mut ev);
    a.recv(t(1.0), &q, addr(1), 29);
    drain(&mut a, t(1.0), &mut sent, &mut ev);
    // Forwarded once: hop count 3, TTL 29 - 1 = 28, jitter in [0, 10 ms).
    assert_eq!(sent.len(), 1);
    let o = &sent[0].1;
    assert_eq!((o.ttl, o.ip_dst, o.ip_src), (28, BROADCAST, addr(3)));
    assert!(o.delay < SimDuration::from_millis(10));
    assert!(matches!(&o.msg, AodvMsg::Rreq(f) if f.hop_count == 3));
    // Reverse route: via the sender, 2 hops, seqno 4, life REV_ROUTE_LIFE: 7.0 s.
    let rev = a.route_info(addr(0)).expect("reverse route");
    assert_eq!(
        (rev.next_hop, rev.hops, rev.expire),
        (Some(addr(1)), Some(2), t(7.0))
    );

    // The same (source, id) through another neighbour: discarded.
    a.recv(t(1.005), &q, addr(2), 29);
    drain(&mut a, t(1.005), &mut sent, &mut ev);
    assert_eq!(sent.len(), 1);

    // The cache entry expires at 7.0 s but only the BCAST_ID_SAVE timer removes it, at
    // its ticks 0, 6, 12 s: at 6 it is not yet expired, so at 11.9 s still a duplicate.
    advance(&mut a, t(11.9), &mut sent, &mut ev);
    // Meanwhile the purge at 7.5 s (first tick after 7.0) took the reverse route down,
    // bumping its seqno to 5.
    let rev = a.route_info(addr(0)).expect("reverse route");
    assert_eq!((rev.state, rev.seqno), (RouteState::Down, 5));
    a.recv(t(11.9), &q, addr(1), 29);
    drain(&mut a, t(11.9), &mut sent, &mut ev);
    assert_eq!(sent.len(), 1);
    // After the 12 s purge the request is new again and forwarded a second time. Its
    // seqno 4 is older than the entry's 5, so the reverse route stays down.
    advance(&mut a, t(12.0), &mut sent, &mut ev);
    a.recv(t(12.0), &q, addr(1), 29);
    drain(&mut a, t(12.0), &mut sent, &mut ev);
    assert_eq!(sent.len(), 2);
    assert_eq!(a.route_info(addr(0)).expect("rt").state, RouteState::Down);
    let c = a.counters();
    assert_eq!(
        (c.rreq_received, c.rreq_duplicate, c.rreq_forwarded),
        (4, 2, 2)
    );
}

#[test]
fn known_requests_are_those_only_counted() {
    // A request seen at 1.0 s has its cache entry until 1.0 + BCAST_ID_SAVE (6 s) = 7.0 s
    // at least (the purge removes it at the first tick after): `knows_request` answers
    // yes for a repeat taken before then, and never for an unseen request or for the
    // agent's own.
    let mut a = agent(3, AodvCfg::ns2());
    let (mut sent, mut ev) = (Vec::new(), Vec::new());
    let rreq = |src: usize, id: u32| {
        AodvMsg::Rreq(Rreq {
            hop_count: 1,
            bcast_id: id,
            dst: addr(9),
            dst_seqno: 0,
            src: addr(src),
            src_seqno: 4,
            timestamp: t(0.99),
        })
    };
    advance(&mut a, t(1.0), &mut sent, &mut ev);
    assert!(!a.knows_request(addr(0), 1, t(1.0)));
    a.recv(t(1.0), &rreq(0, 1), addr(0), 30);
    drain(&mut a, t(1.0), &mut sent, &mut ev);
    assert!(a.knows_request(addr(0), 1, t(1.005)));
    assert!(a.knows_request(addr(0), 1, t(6.99)));
    assert!(!a.knows_request(addr(0), 1, t(7.0)));
    assert!(!a.knows_request(addr(0), 2, t(1.005)));
    // Its own request, sent and heard back from a neighbour: not a repeat.
    assert!(!a.knows_request(addr(3), 1, t(1.005)));
    // What a repeat delivered at 1.005 s does to the counters, one way or the other.
    let mut b = agent(3, AodvCfg::ns2());
    advance(&mut b, t(1.0), &mut sent, &mut ev);
    b.recv(t(1.0), &rreq(0, 1), addr(0), 30);
    drain(&mut b, t(1.0), &mut sent, &mut ev);
    a.recv(t(1.005), &rreq(0, 1), addr(1), 30);
    drain(&mut a, t(1.005), &mut sent, &mut ev);
    b.count_repeated_requests(1);
    assert_eq!(a.counters(), b.counters());
    assert_eq!(
        (a.counters().rreq_received, a.counters().rreq_duplicate),
        (2, 1)
    );
}

// ---------------------------------------------------------------------------------
// Route lifetime, rediscovery and the request back-off.

#[test]
fn route_expires_after_active_route_timeout_then_rediscovery_backs_off() {
    let mut a = agent(0, AodvCfg::ns2());
    let (mut sent, mut ev) = (Vec::new(), Vec::new());
    let d = addr(7);
    let mut ttl = 0;
    advance(&mut a, t(1.1), &mut sent, &mut ev);
    let r = a.route(t(1.1), PacketId(1), addr(0), d, true, &mut ttl);
    assert_eq!((r, ttl), (RouteDecision::Queued, 30));
    drain(&mut a, t(1.1), &mut sent, &mut ev);
    // A RREP from neighbour 1 at 1.13 s: 2 hops, seqno 4, lifetime 10 s. Discovery
    // latency per hop (1.13 - 1.1) / 2 = 0.015 s goes into the history.
    let rrep = AodvMsg::Rrep(Rrep {
        hop_count: 2,
        dst: d,
        dst_seqno: 4,
        orig: addr(0),
        lifetime_s: 10,
        timestamp: t(1.1),
    });
    advance(&mut a, t(1.13), &mut sent, &mut ev);
    a.recv(t(1.13), &rrep, addr(1), 29);
    drain(&mut a, t(1.13), &mut sent, &mut ev);
    assert_eq!(
        ev,
        vec![AodvEvent::Forward {
            pkt: PacketId(1),
            next_hop: addr(1),
            delay: SimDuration::ZERO
        }]
    );
    // Last use at 3.0 s renews the life to 3 + ACTIVE_ROUTE_TIMEOUT = 13.0 s.
    advance(&mut a, t(3.0), &mut sent, &mut ev);
    let r = a.route(t(3.0), PacketId(2), addr(0), d, true, &mut ttl);
    assert_eq!(r, RouteDecision::Forward { next_hop: addr(1) });
    assert_eq!(a.route_info(d).expect("rt").expire, t(13.0));
    // The purge needs expire < now: still up at the 13.0 s tick, down at 13.5 s with
    // seqno 4 + 1 = 5.
    advance(&mut a, t(13.0), &mut sent, &mut ev);
    assert_eq!(a.route_info(d).expect("rt").state, RouteState::Up);
    advance(&mut a, t(13.5), &mut sent, &mut ev);
    let info = a.route_info(d).expect("rt");
    assert_eq!(
        (info.state, info.seqno, info.next_hop),
        (RouteState::Down, 5, None)
    );

    // Rediscovery at 13.6 s. Last TTL = max(2 from the RREP, last hop count 2) = 2 < 7:
    // TTL 4 with the measured per-hop time 0.015 s: timeout 2 * 4 * 0.015 = 0.12 s.
    // Then at the purge ticks: 14.0 (TTL 6, 0.18 s), 14.5 (TTL 8, 0.24 s), 15.0 (network
    // wide, cnt 1: 2 * 30 * 0.015 = 0.9 s), 16.0 (cnt 2: 1.8 s -> 17.8), 18.0 (cnt 3:
    // 2.7 s -> 20.7), 21.0 (cnt 4: 3.6 s -> 24.6), and at 25.0 cnt 4 > RREQ_RETRIES:
    // the waiting packet is dropped and requests pause for MAX_RREQ_TIMEOUT.
    sent.clear();
    ev.clear();
    advance(&mut a, t(13.6), &mut sent, &mut ev);
    let r = a.route(t(13.6), PacketId(3), addr(0), d, true, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    drain(&mut a, t(13.6), &mut sent, &mut ev);
    advance(&mut a, t(24.9), &mut sent, &mut ev);
    let got: Vec<_> = rreqs(&sent)
        .iter()
        .map(|(at, _, ttl)| (*at, *ttl))
        .collect();
    let want = vec![
        (t(13.6), 4),
        (t(14.0), 6),
        (t(14.5), 8),
        (t(15.0), 30),
        (t(16.0), 30),
        (t(18.0), 30),
        (t(21.0), 30),
    ];
    assert_eq!(got, want);
    // Each asks for a seqno newer than the 5 the node knows; broadcast ids continue.
    assert!(rreqs(&sent).iter().all(|(_, q, _)| q.dst_seqno == 5));
    assert_eq!(rreqs(&sent)[0].1.bcast_id, 2);
    assert!(ev.is_empty());
    advance(&mut a, t(25.0), &mut sent, &mut ev);
    assert_eq!(
        ev,
        vec![AodvEvent::Drop {
            pkt: PacketId(3),
            reason: DropReason::NoRoute
        }]
    );
    // Paused until 35.0 s: nothing more goes out before then.
    let before = sent.len();
    advance(&mut a, t(34.9), &mut sent, &mut ev);
    assert_eq!(sent.len(), before);
}

// ---------------------------------------------------------------------------------
// The buffer of packets awaiting a route.

#[test]
fn route_queue_full_then_retries_exhausted() {
    let mut a = agent(0, AodvCfg::ns2());
    let (mut sent, mut ev) = (Vec::new(), Vec::new());
    advance(&mut a, t(1.3), &mut sent, &mut ev);
    let mut ttl = 0;
    for i in 0..65 {
        let r = a.route(t(1.3), PacketId(i), addr(0), addr(9), true, &mut ttl);
        assert_eq!(r, RouteDecision::Queued);
    }
    drain(&mut a, t(1.3), &mut sent, &mut ev);
    // AODV_RTQ_MAX_LEN 64: the 65th pushes out the head, "queue full" since its
    // deadline (1.3 + 30 s) lies ahead.
    assert_eq!(
        ev,
        vec![AodvEvent::Drop {
            pkt: PacketId(0),
            reason: DropReason::QueueFull
        }]
    );
    assert_eq!(a.buffered(), 64);
    // Only the first call sends a RREQ; the others find the request timeout pending.
    assert_eq!(a.counters().rreq_sent, 1);
    // No answer (isolated node): TTL 30 each time, cnt 1..4, timeouts 1.8, 3.6, 5.4,
    // 7.2 s, each retry at the next 0.5 s tick: 1.3 -> 3.1 => 3.5 -> 7.1 => 7.5 ->
    // 12.9 => 13.0 -> 20.2 => 20.5: retries used up, all 64 dropped (NRTE).
    ev.clear();
    advance(&mut a, t(20.5), &mut sent, &mut ev);
    let times: Vec<_> = rreqs(&sent).iter().map(|(at, _, _)| *at).collect();
    assert_eq!(times, vec![t(1.3), t(3.5), t(7.5), t(13.0)]);
    assert_eq!(ev.len(), 64);
    assert!(ev.iter().all(|e| matches!(
        e,
        AodvEvent::Drop {
            reason: DropReason::NoRoute,
            ..
        }
    )));
    assert_eq!(a.buffered(), 0);
    assert_eq!(a.counters().drop_no_route, 64);
}

#[test]
fn route_queue_timeout_is_checked_on_enqueue() {
    // A 5 s buffer limit shows the ageing before the retries give up (at 20.5 s).
    let cfg = AodvCfg {
        rtq_timeout: SimDuration::from_secs(5),
        ..AodvCfg::ns2()
    };
    let mut a = agent(0, cfg);
    fn send(a: &mut Aodv, at: f64, id: u32, ev: &mut Vec<AodvEvent>) {
        let mut sent = Vec::new();
        let mut ttl = 0;
        advance(a, t(at), &mut sent, ev);
        a.route(t(at), PacketId(id), addr(0), addr(9), true, &mut ttl);
        drain(a, t(at), &mut sent, ev);
    }
    let mut ev = Vec::new();
    send(&mut a, 1.3, 1, &mut ev);
    // Deadline 6.3 s; ageing needs deadline < now, so at 6.3 it stays.
    send(&mut a, 6.3, 2, &mut ev);
    assert!(ev.is_empty());
    send(&mut a, 6.4, 3, &mut ev);
    assert_eq!(
        ev,
        vec![AodvEvent::Drop {
            pkt: PacketId(1),
            reason: DropReason::QueueTimeout
        }]
    );
    assert_eq!(a.buffered(), 2);
}

// ---------------------------------------------------------------------------------
// Forwarding rules for data.

#[test]
fn data_ttl_and_loop_rules() {
    let mut a = agent(2, AodvCfg::ns2());
    let mut ttl = 1;
    // Forwarded with TTL 1: decremented to 0 and dropped.
    let r = a.route(t(1.0), PacketId(1), addr(0), addr(5), false, &mut ttl);
    assert_eq!((r, ttl), (RouteDecision::Drop(DropReason::Ttl), 0));
    // A packet of our own coming back is a loop.
    let mut ttl = 20;
    let r = a.route(t(1.0), PacketId(2), addr(2), addr(5), false, &mut ttl);
    assert_eq!(r, RouteDecision::Drop(DropReason::RouteLoop));
    // Forwarding without a route: RERR for (dst, its seqno 0) at once, TTL 1, and NRTE.
    let mut ttl = 20;
    let r = a.route(t(1.0), PacketId(3), addr(0), addr(5), false, &mut ttl);
    assert_eq!((r, ttl), (RouteDecision::Drop(DropReason::NoRoute), 19));
    let Some(AodvEvent::Send(o)) = a.poll_output() else {
        panic!("RERR expected")
    };
    assert_eq!(
        (o.ttl, o.delay, o.next_hop),
        (1, SimDuration::ZERO, BROADCAST)
    );
    assert_eq!(
        o.msg,
        AodvMsg::Rerr(Rerr {
            unreachable: vec![Unreachable {
                dst: addr(5),
                seqno: 0
            }]
        })
    );
    assert_eq!(o.ns2_len(), 32);
    let c = a.counters();
    assert_eq!(
        (c.drop_ttl, c.drop_route_loop, c.drop_no_route, c.rerr_sent),
        (1, 1, 1, 1)
    );
    // Failure report for a packet with no route entry at all: just dropped (CBK).
    a.link_failed(t(1.0), addr(3), PacketId(4), addr(8), 2);
    assert_eq!(
        a.poll_output(),
        Some(AodvEvent::Drop {
            pkt: PacketId(4),
            reason: DropReason::MacCallback
        })
    );
    assert_eq!(a.poll_output(), None);
}

/// Feeds the agent's outputs, in the order it produced them, to an ARP table that has
/// not resolved any neighbour (the LL calls `arpresolve` on every unicast packet that
/// reaches it with no delay: `AODV::forward` and `sendReply` schedule them at delay 0,
/// first in, first out). Returns the packets the table holds and the ones it replaced,
/// each control message numbered from 100 in sending order.
fn through_unresolved_arp(a: &mut Aodv, now: SimTime) -> (Vec<(u32, PacketId)>, Vec<PacketId>) {
    use crate::wireless::arp::{ArpCfg, ArpEvent, ArpTable};
    use crate::wireless::frame::MacAddr;
    let mut arp = ArpTable::new(ArpCfg::ns2(), MacAddr(7), a.addr());
    let mut ctrl = 100;
    let mut hops = Vec::new();
    while let Some(e) = a.poll_output() {
        let (pkt, next_hop) = match e {
            AodvEvent::Forward {
                pkt,
                next_hop,
                delay,
            } if delay == SimDuration::ZERO => (pkt, next_hop),
            AodvEvent::Send(o) if o.next_hop != BROADCAST && o.delay == SimDuration::ZERO => {
                ctrl += 1;
                (PacketId(ctrl - 1), o.next_hop)
            }
            _ => continue,
        };
        assert_eq!(arp.handle_outgoing(now, next_hop, pkt), None);
        if !hops.contains(&next_hop) {
            hops.push(next_hop);
        }
    }
    let held = hops
        .iter()
        .filter_map(|&h| arp.held(h).map(|p| (h, p)))
        .collect();
    let mut replaced = Vec::new();
    while let Some(e) = arp.poll_event() {
        if let ArpEvent::Replaced { packet } = e {
            replaced.push(packet);
        }
    }
    (held, replaced)
}

#[test]
fn buffered_data_goes_before_the_reply_so_arp_keeps_the_reply() {
    // Node 1 has one packet for node 0 waiting for a route (it asked for one), when node
    // 0's request for node 1 arrives. aodv.cc `recvRequest`: the reverse route to node 0
    // is set up and the buffered packet forwarded on it (`forward(rt0, p, NO_DELAY)`)
    // before `sendReply`; both are scheduled for the LL at delay 0, so they reach
    // `arpresolve` in that order. Node 0 is not resolved, and ARP holds one packet per
    // neighbour, the newest: the data packet is dropped (reason ARP) and the reply waits
    // for the ARP exchange, so the discovery completes.
    let mut d = agent(1, AodvCfg::ns2());
    let mut ttl = 64;
    let r = d.route(t(1.0), PacketId(1), addr(1), addr(0), true, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    let Some(AodvEvent::Send(own)) = d.poll_output() else {
        panic!("the destination's own request")
    };
    assert!(matches!(own.msg, AodvMsg::Rreq(_)));
    assert_eq!(d.poll_output(), None);
    let q = AodvMsg::Rreq(Rreq {
        hop_count: 1,
        bcast_id: 1,
        dst: addr(1),
        dst_seqno: 0,
        src: addr(0),
        src_seqno: 4,
        timestamp: t(1.001),
    });
    d.recv(t(1.002), &q, addr(0), 30);
    let (held, replaced) = through_unresolved_arp(&mut d, t(1.002));
    // PacketId(100) is the reply, the first control message after the request.
    assert_eq!(held, vec![(addr(0), PacketId(100))]);
    assert_eq!(replaced, vec![PacketId(1)]);
    assert_eq!(d.counters().rrep_sent, 1);

    // aodv.cc `recvReply` at an intermediate node that also waits for the reply's
    // destination: its buffered packets are released (the first at delay 0) before the
    // reply is forwarded towards the requester (`forward(rt0, p, NO_DELAY)`). Node 2
    // knows node 0 (reverse route through node 0 itself, from node 0's request) and
    // has a packet of its own for node 5; the reply for node 5 comes from node 3 and goes
    // on to node 0, the packet to node 3: two neighbours, each holding its one packet.
    let mut m = agent(2, AodvCfg::ns2());
    let q = AodvMsg::Rreq(Rreq {
        hop_count: 1,
        bcast_id: 1,
        dst: addr(5),
        dst_seqno: 0,
        src: addr(0),
        src_seqno: 4,
        timestamp: t(1.0),
    });
    m.recv(t(1.0), &q, addr(0), 30);
    let mut ttl = 64;
    let r = m.route(t(1.01), PacketId(7), addr(2), addr(5), true, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    while m.poll_output().is_some() {}
    let p = AodvMsg::Rrep(Rrep {
        hop_count: 2,
        dst: addr(5),
        dst_seqno: 6,
        orig: addr(0),
        lifetime_s: 10,
        timestamp: t(1.0),
    });
    m.recv(t(1.02), &p, addr(3), 30);
    let order: Vec<&str> = std::iter::from_fn(|| m.poll_output())
        .map(|e| match e {
            AodvEvent::Forward { .. } => "data",
            AodvEvent::Send(_) => "reply",
            _ => "other",
        })
        .collect();
    assert_eq!(order, ["data", "reply"]);
}

#[test]
fn intermediate_lifetime_is_truncated_and_wraps_like_ns2() {
    // (u_int32_t)(11.05 - 1.0) = 10.
    assert_eq!(ns2_lifetime_s(t(11.05), t(1.0)), 10);
    // A route under repair has expiry 0: (u_int32_t)(0 - 10.3) = (u32)(i64)(-10)
    // = 2^32 - 10.
    assert_eq!(ns2_lifetime_s(SimTime::ZERO, t(10.3)), 4_294_967_286);
}

// ---------------------------------------------------------------------------------
// Link breaks.

/// Chain 0..7 plus node 8, which is linked to nothing until the break.
fn chain_with_spare(break_at: (usize, usize), spare: [(usize, usize); 2]) -> (Net, PacketId) {
    let mut net = Net::chain(9, AodvCfg::ns2());
    net.links.retain(|&(a, b)| a != 8 && b != 8);
    let first = net.originate(t(1.1), 0, 7);
    net.at(t(5.0), Ev::LinkDown(break_at.0, break_at.1));
    net.at(t(5.0), Ev::LinkUp(spare[0].0, spare[0].1));
    net.at(t(5.0), Ev::LinkUp(spare[1].0, spare[1].1));
    net.run(t(5.05));
    (net, first)
}

#[test]
fn break_near_source_sends_rerr_upstream_then_rediscovers() {
    // Link 3-4 breaks at 5 s; node 8 links 3 and 4.
    let (mut net, first) = chain_with_spare((3, 4), [(3, 8), (8, 4)]);
    assert_eq!(net.path_of(first), Some(&(0..8).collect::<Vec<_>>()));
    let lost = net.originate(t(5.1), 0, 7);
    net.run(t(5.9));
    // At node 3 the packet has been received 3 times (num_forwards 3) and node 3 is 4
    // hops from node 7: 3 > 4 is false, so no local repair. The packet is dropped
    // (CBK), the interface queue towards node 4 purged, node 3's seqno goes 2 -> 4,
    // and every route via node 4 (only the one to node 7, seqno 4 -> 5) goes down with
    // a RERR broadcast at once, TTL 1.
    assert!(net.drops.contains(&(3, lost, DropReason::MacCallback)));
    let c3 = net.nodes[3].counters();
    assert_eq!((c3.local_repairs, c3.link_breaks, c3.rerr_sent), (0, 1, 1));
    assert_eq!(net.nodes[3].seqno(), 4);
    let rerr3: Vec<_> = net
        .sent_by(3)
        .into_iter()
        .filter(|(_, o)| matches!(o.msg, AodvMsg::Rerr(_)))
        .collect();
    assert_eq!(rerr3.len(), 1);
    assert_eq!((rerr3[0].1.delay, rerr3[0].1.ttl), (SimDuration::ZERO, 1));
    assert_eq!(
        rerr3[0].1.msg,
        AodvMsg::Rerr(Rerr {
            unreachable: vec![Unreachable {
                dst: addr(7),
                seqno: 5
            }]
        })
    );
    // Upstream: nodes 2 and 1 have precursors for node 7 and pass the RERR on; node 0
    // (the source, no precursors) does not. Each purges its queue towards the RERR's
    // sender.
    assert_eq!(net.nodes[2].counters().rerr_forwarded, 1);
    assert_eq!(net.nodes[1].counters().rerr_forwarded, 1);
    assert_eq!(net.nodes[0].counters().rerr_forwarded, 0);
    assert_eq!(
        net.purges,
        vec![(3, addr(4)), (2, addr(3)), (1, addr(2)), (0, addr(1))]
    );
    let r0 = net.nodes[0].route_info(addr(7)).expect("rt");
    assert_eq!((r0.state, r0.seqno), (RouteState::Down, 5));

    // Rediscovery at 6 s: last TTL max(7, 7) = 7 is not < 7, so network-wide. It asks
    // for seqno >= 5; nodes 4..6 hold seqno 4 and cannot answer, so node 7 does with
    // max(4, 5) + 1 = 6 (even). The new path runs through node 8: 8 hops.
    let again = net.originate(t(6.0), 0, 7);
    net.run(t(8.0));
    let q: Vec<_> = net
        .sent_by(0)
        .into_iter()
        .filter_map(|(at, o)| match &o.msg {
            AodvMsg::Rreq(q) => Some((at, o.ttl, q.dst_seqno)),
            _ => None,
        })
        .collect();
    assert_eq!(q.last(), Some(&(t(6.0), 30, 5)));
    let r0 = net.nodes[0].route_info(addr(7)).expect("rt");
    assert_eq!((r0.state, r0.hops, r0.seqno), (RouteState::Up, Some(8), 6));
    assert_eq!(net.path_of(again), Some(&vec![0, 1, 2, 3, 8, 4, 5, 6, 7]));
}

#[test]
fn break_near_destination_is_repaired_locally() {
    // Link 5-6 breaks at 5 s; node 8 links 5 and 7.
    let (mut net, _) = chain_with_spare((5, 6), [(5, 8), (8, 7)]);
    let pkt = net.originate(t(5.1), 0, 7);
    net.run(t(13.0));
    // At node 5: num_forwards 5 > 2 hops to go, so local repair: the packet waits in
    // the buffer, the route is marked in repair, no RERR and no queue purge. The
    // repair RREQ is network-wide (fresh last hop count 255), asks for seqno >= 4,
    // and goes out without jitter.
    let c5 = net.nodes[5].counters().clone();
    assert_eq!((c5.local_repairs, c5.rerr_sent, c5.link_breaks), (1, 0, 0));
    assert!(net.purges.is_empty());
    let q: Vec<_> = net
        .sent_by(5)
        .into_iter()
        .filter_map(|(_, o)| match &o.msg {
            AodvMsg::Rreq(q) if q.src == addr(5) => Some((o.ttl, o.delay, q.dst_seqno)),
            _ => None,
        })
        .collect();
    assert_eq!(q, vec![(30, SimDuration::ZERO, 4)]);
    // Node 4 still holds node 7 at 3 hops with seqno 4 >= 4 and answers as an
    // intermediate node (hop count 3 + 1 = 4); node 5 keeps its own entry (same seqno,
    // 2 hops < 4). Node 7 answers through node 8 with seqno max(4, 4) + 1 = 5 -> 6:
    // fresher, so node 5 now goes via node 8, 2 hops. Node 5 has thus received three
    // RREPs: the one it forwarded during the first discovery and these two.
    assert_eq!(net.nodes[4].counters().rrep_intermediate, 1);
    assert_eq!(c5.rrep_received, 3);
    let r5 = net.nodes[5].route_info(addr(7)).expect("rt");
    assert_eq!(
        (r5.state, r5.next_hop, r5.hops, r5.seqno),
        (RouteState::Up, Some(addr(8)), Some(2), 6)
    );
    assert_eq!(net.path_of(pkt), Some(&vec![0, 1, 2, 3, 4, 5, 8, 7]));
    // The source never heard of it.
    let r0 = net.nodes[0].route_info(addr(7)).expect("rt");
    assert_eq!((r0.next_hop, r0.hops), (Some(addr(1)), Some(7)));
    // The local-repair timer (due near 2 x 5.1 + 1.8 = 12 s) found the route up.
    assert_eq!(c5.local_repair_failures, 0);
    assert!(net.drops.is_empty());
}

#[test]
fn failed_local_repair_timeline() {
    // A single agent, node 5, on the path 1 -> ... -> 4 -> 5 -> 6 -> 7.
    let mut a = agent(5, AodvCfg::ns2());
    let (mut sent, mut ev) = (Vec::new(), Vec::new());
    let (s, d) = (addr(1), addr(7));
    let rreq = AodvMsg::Rreq(Rreq {
        hop_count: 4,
        bcast_id: 1,
        dst: d,
        dst_seqno: 0,
        src: s,
        src_seqno: 4,
        timestamp: t(0.99),
    });
    advance(&mut a, t(1.0), &mut sent, &mut ev);
    a.recv(t(1.0), &rreq, addr(4), 27);
    let rrep = AodvMsg::Rrep(Rrep {
        hop_count: 1,
        dst: d,
        dst_seqno: 4,
        orig: s,
        lifetime_s: 10,
        timestamp: t(0.99),
    });
    advance(&mut a, t(1.05), &mut sent, &mut ev);
    a.recv(t(1.05), &rrep, addr(6), 30);
    drain(&mut a, t(1.05), &mut sent, &mut ev);
    assert_eq!(a.counters().rrep_forwarded, 1);

    // A data packet at 10.3 s: forwarded to node 6, which never acknowledges.
    advance(&mut a, t(10.3), &mut sent, &mut ev);
    sent.clear();
    let mut ttl = 27;
    let r = a.route(t(10.3), PacketId(1), s, d, false, &mut ttl);
    assert_eq!(r, RouteDecision::Forward { next_hop: addr(6) });
    // num_forwards 4 > 1 hop to go: local repair. Request: TTL 30, cnt 1, timeout
    // 2 * 30 * 0.03 = 1.8 s -> 12.1 s. ns-2 schedules the repair timer with that
    // absolute time as a delay: 10.3 + 12.1 = 22.4 s.
    a.link_failed(t(10.3), addr(6), PacketId(1), d, 4);
    drain(&mut a, t(10.3), &mut sent, &mut ev);
    assert!(ev.is_empty());
    assert_eq!(a.route_info(d).expect("rt").state, RouteState::InRepair);
    // Another packet for node 7 meanwhile waits too (no new request).
    advance(&mut a, t(11.0), &mut sent, &mut ev);
    let mut ttl = 27;
    let r = a.route(t(11.0), PacketId(2), s, d, false, &mut ttl);
    assert_eq!(r, RouteDecision::Queued);
    // Retries from the purge ticks: 12.5 (cnt 2, +3.6 -> 16.1), 16.5 (cnt 3, +5.4 ->
    // 21.9), 22.0 (cnt 4, +7.2 -> 29.2). At 22.4 s the repair timer takes the route
    // down (no RERR). At 29.5 s cnt 4 > 3: both waiting packets are dropped.
    advance(&mut a, t(22.3), &mut sent, &mut ev);
    assert_eq!(a.route_info(d).expect("rt").state, RouteState::InRepair);
    advance(&mut a, t(22.4), &mut sent, &mut ev);
    assert_eq!(a.route_info(d).expect("rt").state, RouteState::Down);
    assert_eq!(a.counters().local_repair_failures, 1);
    assert!(ev.is_empty());
    advance(&mut a, t(29.5), &mut sent, &mut ev);
    let times: Vec<_> = rreqs(&sent)
        .iter()
        .map(|(at, _, ttl)| (*at, *ttl))
        .collect();
    assert_eq!(
        times,
        vec![(t(10.3), 30), (t(12.5), 30), (t(16.5), 30), (t(22.0), 30)]
    );
    assert!(sent.iter().all(|(_, o)| !matches!(o.msg, AodvMsg::Rerr(_))));
    assert_eq!(
        ev,
        vec![
            AodvEvent::Drop {
                pkt: PacketId(1),
                reason: DropReason::NoRoute
            },
            AodvEvent::Drop {
                pkt: PacketId(2),
                reason: DropReason::NoRoute
            }
        ]
    );
}
