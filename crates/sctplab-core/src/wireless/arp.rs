//! ARP on a wireless NIC, as ns-2.35's `ARPTable` (mac/arp.cc, mac/arp.h) runs it under
//! the link layer of every mobile node (`LL::sendDown` calls `arpresolve` for each unicast
//! packet; `LL::recv` hands received ARP packets to `arpinput`).
//!
//! The rules, each from those sources:
//!
//! - **Resolve** (`arpresolve`): a destination whose entry is up gets its MAC address at
//!   once; the packet goes on through the LL (its `delay_`, 25 us) to the interface queue.
//! - **Hold one packet** per unresolved destination: an arriving packet replaces the
//!   held one, which is dropped with ns-2's reason `ARP` (`DROP_IFQ_ARP_FULL`).
//! - **A request per packet, no timer**: every packet that finds its destination
//!   unresolved sends one broadcast request and counts it; nothing is ever resent by a
//!   timer. When a packet arrives with the count already at `ARP_MAX_REQUEST_COUNT` (3),
//!   both the held packet and the new one are given up (in that order: ns-2 calls each
//!   one's transmit-failure callback, AODV's link-failure handler, or drops it with
//!   `ARP` if it has none), the count restarts from 0 and no request goes out. So the
//!   4th packet for a silent neighbour is the one that declares the link broken.
//! - **Learn from every ARP packet received** (`arpinput`): the sender's (IP, MAC) pair
//!   enters the table and is up, whether the packet is a request for someone else (a
//!   broadcast every neighbour decodes) or a reply (unicast, so only its addressee sees
//!   it). A packet held for that address leaves for the interface queue.
//! - **Reply** to a request for our own address, unicast to the requester.
//! - **Never expire**: no code in ns-2.35 takes an entry down again (`up_` is only ever
//!   set), so each neighbour is resolved once per run; a neighbour that moved away is
//!   then found out by the MAC's retries, not by ARP.
//! - **Timing**: requests, replies and released packets enter the interface queue after
//!   the table's own `delay_`, 5 us (tcl/lib/ns-mobilenode.tcl `ARPTable set delay_`),
//!   not the LL's 25 us; they queue behind data (PriQueue gives priority only to routing
//!   packets, not `PT_ARP`).
//! - **Size**: an ARP packet is `ARP_HDR_LEN` = 28 bytes at the MAC's entry (Ethernet/IPv4
//!   ARP), sent as an 802.11 DATA frame: the request broadcast (no RTS, no ACK), the reply
//!   unicast (RTS/CTS/DATA/ACK like any unicast above the RTS threshold).
//!
//! A sans-IO machine: no clock, no timers (ns-2's ARP has none), no packets of its own.
//! Inputs are `handle_outgoing` (a unicast packet the LL sends down) and `handle_arp` (an
//! ARP packet the MAC received); outputs are `poll_event` (held packets released,
//! replaced or given up) and `poll_transmit` (ARP messages to send). A caller that drains
//! `poll_event` before `poll_transmit` after each input keeps ns-2's order: a released
//! packet enters the queue before the reply that answers the same request.

use std::collections::VecDeque;

use super::frame::MacAddr;
use crate::net::PacketId;
use crate::sim::{SimDuration, SimTime};

/// `ARP_HDR_LEN`: an ARP packet's size at the MAC's entry (the MAC adds its header).
pub const ARP_HDR_LEN: u32 = 28;

/// EtherType of ARP, in the 802.11 frame's LLC/SNAP header and ns-2's MAC trace lines.
pub const ETHERTYPE_ARP: u16 = 0x0806;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArpOp {
    Request,
    Reply,
}

/// One ARP message (RFC 826 fields for Ethernet hardware and IPv4 protocol addresses).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArpMsg {
    pub op: ArpOp,
    /// Sender hardware and protocol address.
    pub sha: MacAddr,
    pub spa: u32,
    /// Target hardware address: unknown (all zero on the wire) in a request.
    pub tha: Option<MacAddr>,
    pub tpa: u32,
}

impl ArpMsg {
    /// The MAC address the frame carrying this message goes to.
    pub fn frame_dst(&self) -> MacAddr {
        match (self.op, self.tha) {
            (ArpOp::Reply, Some(t)) => t,
            _ => MacAddr::BROADCAST,
        }
    }

    /// The 28-byte RFC 826 encoding (hardware type 1, protocol 0x0800), hardware
    /// addresses as `mac_bytes` renders them; appended to `out`.
    pub fn encode(&self, mac_bytes: impl Fn(MacAddr) -> [u8; 6], out: &mut Vec<u8>) {
        let op: u16 = match self.op {
            ArpOp::Request => 1,
            ArpOp::Reply => 2,
        };
        out.extend_from_slice(&1u16.to_be_bytes());
        out.extend_from_slice(&0x0800u16.to_be_bytes());
        out.extend_from_slice(&[6, 4]);
        out.extend_from_slice(&op.to_be_bytes());
        out.extend_from_slice(&mac_bytes(self.sha));
        out.extend_from_slice(&self.spa.to_be_bytes());
        out.extend_from_slice(&self.tha.map_or([0; 6], mac_bytes));
        out.extend_from_slice(&self.tpa.to_be_bytes());
    }
}

/// The table's constants, with ns-2.35's values.
#[derive(Clone, Debug, PartialEq)]
pub struct ArpCfg {
    /// `ARP_MAX_REQUEST_COUNT` (arp.h): requests per unresolved destination before the
    /// held and the arriving packet are given up.
    pub max_requests: u32,
    /// `ARPTable set delay_` (ns-mobilenode.tcl): from the table to the interface queue.
    pub delay: SimDuration,
}

impl ArpCfg {
    pub fn ns2() -> ArpCfg {
        ArpCfg {
            max_requests: 3,
            delay: SimDuration::from_micros(5),
        }
    }
}

impl Default for ArpCfg {
    fn default() -> Self {
        ArpCfg::ns2()
    }
}

/// What the table tells the world, besides messages to send.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArpEvent {
    /// The held packet's destination is resolved: it enters the interface queue at `at`
    /// for `mac`.
    Release {
        packet: PacketId,
        mac: MacAddr,
        at: SimTime,
    },
    /// A newer packet for the same unresolved destination took the held one's place:
    /// drop it (ns-2 trace reason `ARP`).
    Replaced { packet: PacketId },
    /// Requests ran out for `next_hop`: the packet's transmit-failure callback (AODV's
    /// link-failure handler) gets it, or, without one, it is dropped with reason `ARP`.
    GaveUp { packet: PacketId, next_hop: u32 },
}

/// An ARP message to send: it enters the interface queue at `at`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArpTransmit {
    pub msg: ArpMsg,
    pub at: SimTime,
}

/// Counters of one table (whole run).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ArpCounters {
    pub requests_sent: u64,
    pub replies_sent: u64,
    /// ARP requests and replies received (every request a neighbour broadcast counts,
    /// whoever it asks for).
    pub requests_received: u64,
    pub replies_received: u64,
    /// Held packets released once their destination was resolved.
    pub released: u64,
    /// Held packets dropped because a newer one replaced them (reason `ARP`).
    pub replaced: u64,
    /// Packets given up when the requests ran out (to the failure callback or dropped).
    pub gave_up: u64,
}

/// One destination (`ARPEntry`): its MAC address once known, the packet held for it,
/// and the requests sent since the count last restarted.
#[derive(Copy, Clone, Debug)]
struct Entry {
    ip: u32,
    mac: Option<MacAddr>,
    hold: Option<PacketId>,
    count: u32,
}

pub struct ArpTable {
    cfg: ArpCfg,
    addr: MacAddr,
    ip: u32,
    /// A short list, searched in order, as ns-2's: a NIC has tens of neighbours at most.
    entries: Vec<Entry>,
    /// The entry the last lookup found (most packets go to the same next hop).
    last: usize,
    events: VecDeque<ArpEvent>,
    transmits: VecDeque<ArpTransmit>,
    counters: ArpCounters,
}

impl ArpTable {
    /// The table of a NIC with hardware address `addr` and IPv4 address `ip`.
    pub fn new(cfg: ArpCfg, addr: MacAddr, ip: u32) -> ArpTable {
        ArpTable {
            cfg,
            addr,
            ip,
            entries: Vec::new(),
            last: 0,
            events: VecDeque::new(),
            transmits: VecDeque::new(),
            counters: ArpCounters::default(),
        }
    }

    pub fn counters(&self) -> &ArpCounters {
        &self.counters
    }

    /// The MAC address known for `ip`, if resolved.
    pub fn lookup(&self, ip: u32) -> Option<MacAddr> {
        self.entries.iter().find(|e| e.ip == ip).and_then(|e| e.mac)
    }

    /// The packet held for `ip`, if any.
    pub fn held(&self, ip: u32) -> Option<PacketId> {
        self.entries
            .iter()
            .find(|e| e.ip == ip)
            .and_then(|e| e.hold)
    }

    fn find_or_add(&mut self, ip: u32) -> usize {
        if self.entries.get(self.last).is_some_and(|e| e.ip == ip) {
            return self.last;
        }
        let i = match self.entries.iter().position(|e| e.ip == ip) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    ip,
                    mac: None,
                    hold: None,
                    count: 0,
                });
                self.entries.len() - 1
            }
        };
        self.last = i;
        i
    }

    /// The LL sends unicast `packet` to the neighbour with IPv4 address `next_hop`
    /// (`arpresolve`). `Some(mac)`: resolved, the packet goes on. `None`: the table kept
    /// or gave up the packet; see `poll_event` and `poll_transmit`.
    pub fn handle_outgoing(
        &mut self,
        now: SimTime,
        next_hop: u32,
        packet: PacketId,
    ) -> Option<MacAddr> {
        let i = self.find_or_add(next_hop);
        let e = &mut self.entries[i];
        if let Some(mac) = e.mac {
            return Some(mac);
        }
        if e.count >= self.cfg.max_requests {
            // The held packet first, then the new one; the count restarts (arp.cc keeps
            // this order so that a callback that sends again cannot loop).
            let held = e.hold.take();
            e.count = 0;
            for p in held.into_iter().chain(std::iter::once(packet)) {
                self.counters.gave_up += 1;
                self.events.push_back(ArpEvent::GaveUp {
                    packet: p,
                    next_hop,
                });
            }
            return None;
        }
        e.count += 1;
        if let Some(old) = e.hold.replace(packet) {
            self.counters.replaced += 1;
            self.events.push_back(ArpEvent::Replaced { packet: old });
        }
        self.counters.requests_sent += 1;
        self.transmits.push_back(ArpTransmit {
            msg: ArpMsg {
                op: ArpOp::Request,
                sha: self.addr,
                spa: self.ip,
                tha: None,
                tpa: next_hop,
            },
            at: now + self.cfg.delay,
        });
        None
    }

    /// The MAC received an ARP message (`arpinput`): learn the sender, release what was
    /// held for it, answer a request for our address.
    pub fn handle_arp(&mut self, now: SimTime, msg: &ArpMsg) {
        match msg.op {
            ArpOp::Request => self.counters.requests_received += 1,
            ArpOp::Reply => self.counters.replies_received += 1,
        }
        let at = now + self.cfg.delay;
        let i = self.find_or_add(msg.spa);
        let e = &mut self.entries[i];
        e.mac = Some(msg.sha);
        if let Some(p) = e.hold.take() {
            self.counters.released += 1;
            self.events.push_back(ArpEvent::Release {
                packet: p,
                mac: msg.sha,
                at,
            });
        }
        if msg.op == ArpOp::Request && msg.tpa == self.ip {
            self.counters.replies_sent += 1;
            self.transmits.push_back(ArpTransmit {
                msg: ArpMsg {
                    op: ArpOp::Reply,
                    sha: self.addr,
                    spa: self.ip,
                    tha: Some(msg.sha),
                    tpa: msg.spa,
                },
                at,
            });
        }
    }

    /// Held packets released, replaced or given up, in the order they happened.
    pub fn poll_event(&mut self) -> Option<ArpEvent> {
        self.events.pop_front()
    }

    /// ARP messages to send, in order.
    pub fn poll_transmit(&mut self) -> Option<ArpTransmit> {
        self.transmits.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: u32 = 0x0b00_0001;
    const NB: u32 = 0x0b00_0002;
    const OTHER: u32 = 0x0b00_0003;

    fn t(us: u64) -> SimTime {
        SimTime::from_nanos(us * 1_000)
    }

    fn table() -> ArpTable {
        ArpTable::new(ArpCfg::ns2(), MacAddr(0), ME)
    }

    fn events(a: &mut ArpTable) -> Vec<ArpEvent> {
        std::iter::from_fn(|| a.poll_event()).collect()
    }

    fn transmits(a: &mut ArpTable) -> Vec<ArpTransmit> {
        std::iter::from_fn(|| a.poll_transmit()).collect()
    }

    #[test]
    fn first_packet_is_held_and_asked_for_after_5_us() {
        let mut a = table();
        assert_eq!(a.handle_outgoing(t(100), NB, PacketId(7)), None);
        assert_eq!(events(&mut a), vec![]);
        // arprequest: broadcast, target hardware address unknown, into the queue after
        // the table's 5 us delay_.
        assert_eq!(
            transmits(&mut a),
            vec![ArpTransmit {
                msg: ArpMsg {
                    op: ArpOp::Request,
                    sha: MacAddr(0),
                    spa: ME,
                    tha: None,
                    tpa: NB,
                },
                at: t(105),
            }]
        );
        assert_eq!(a.held(NB), Some(PacketId(7)));
        assert_eq!(a.counters().requests_sent, 1);
    }

    #[test]
    fn a_newer_packet_replaces_the_held_one_and_asks_again() {
        let mut a = table();
        a.handle_outgoing(t(0), NB, PacketId(1));
        a.handle_outgoing(t(1), NB, PacketId(2));
        // The first is dropped ("ARP"), the second held, and a second request goes out.
        assert_eq!(
            events(&mut a),
            vec![ArpEvent::Replaced {
                packet: PacketId(1)
            }]
        );
        assert_eq!(transmits(&mut a).len(), 2);
        assert_eq!(a.held(NB), Some(PacketId(2)));
        assert_eq!(a.counters().replaced, 1);
    }

    #[test]
    fn the_fourth_packet_gives_up_both_and_restarts_the_count() {
        let mut a = table();
        for p in 1..=3 {
            a.handle_outgoing(t(p), NB, PacketId(p as u32));
        }
        // Packets 1 and 2 were replaced; three requests sent; packet 3 held.
        assert_eq!(transmits(&mut a).len(), 3);
        assert_eq!(events(&mut a).len(), 2);
        // count_ is 3 = ARP_MAX_REQUEST_COUNT: packet 4 gives up the held packet 3, then
        // itself, and sends nothing.
        assert_eq!(a.handle_outgoing(t(4), NB, PacketId(4)), None);
        assert_eq!(
            events(&mut a),
            vec![
                ArpEvent::GaveUp {
                    packet: PacketId(3),
                    next_hop: NB
                },
                ArpEvent::GaveUp {
                    packet: PacketId(4),
                    next_hop: NB
                },
            ]
        );
        assert_eq!(transmits(&mut a), vec![]);
        assert_eq!(a.held(NB), None);
        // The count restarted at 0: packet 5 is held and asked for again.
        a.handle_outgoing(t(5), NB, PacketId(5));
        assert_eq!(transmits(&mut a).len(), 1);
        assert_eq!(a.held(NB), Some(PacketId(5)));
        assert_eq!(a.counters().gave_up, 2);
        assert_eq!(a.counters().requests_sent, 4);
    }

    #[test]
    fn a_reply_releases_the_held_packet_and_the_entry_never_expires() {
        let mut a = table();
        a.handle_outgoing(t(0), NB, PacketId(9));
        transmits(&mut a);
        let reply = ArpMsg {
            op: ArpOp::Reply,
            sha: MacAddr(5),
            spa: NB,
            tha: Some(MacAddr(0)),
            tpa: ME,
        };
        a.handle_arp(t(2000), &reply);
        assert_eq!(
            events(&mut a),
            vec![ArpEvent::Release {
                packet: PacketId(9),
                mac: MacAddr(5),
                at: t(2005),
            }]
        );
        // A reply is not answered.
        assert_eq!(transmits(&mut a), vec![]);
        // Resolved for good, however late the next packet.
        let much_later = SimTime::from_nanos(3_600 * 1_000_000_000);
        assert_eq!(
            a.handle_outgoing(much_later, NB, PacketId(10)),
            Some(MacAddr(5))
        );
        assert_eq!(events(&mut a), vec![]);
        assert_eq!(transmits(&mut a), vec![]);
    }

    #[test]
    fn a_request_for_us_is_answered_and_teaches_the_sender() {
        let mut a = table();
        // We hold a packet for the requester: it leaves first, then the reply (arpinput
        // schedules them in that order, both after delay_).
        a.handle_outgoing(t(0), NB, PacketId(3));
        transmits(&mut a);
        let req = ArpMsg {
            op: ArpOp::Request,
            sha: MacAddr(5),
            spa: NB,
            tha: None,
            tpa: ME,
        };
        a.handle_arp(t(500), &req);
        assert_eq!(
            events(&mut a),
            vec![ArpEvent::Release {
                packet: PacketId(3),
                mac: MacAddr(5),
                at: t(505),
            }]
        );
        let reply = transmits(&mut a);
        assert_eq!(
            reply,
            vec![ArpTransmit {
                msg: ArpMsg {
                    op: ArpOp::Reply,
                    sha: MacAddr(0),
                    spa: ME,
                    tha: Some(MacAddr(5)),
                    tpa: NB,
                },
                at: t(505),
            }]
        );
        assert_eq!(reply[0].msg.frame_dst(), MacAddr(5));
        assert_eq!(a.lookup(NB), Some(MacAddr(5)));
    }

    #[test]
    fn an_overheard_request_for_another_node_teaches_the_sender_only() {
        let mut a = table();
        let req = ArpMsg {
            op: ArpOp::Request,
            sha: MacAddr(5),
            spa: NB,
            tha: None,
            tpa: OTHER,
        };
        a.handle_arp(t(10), &req);
        assert_eq!(transmits(&mut a), vec![]);
        assert_eq!(a.lookup(NB), Some(MacAddr(5)));
        assert_eq!(a.lookup(OTHER), None);
        assert_eq!(a.handle_outgoing(t(20), NB, PacketId(1)), Some(MacAddr(5)));
        assert_eq!(a.counters().requests_received, 1);
        assert_eq!(a.counters().replies_sent, 0);
    }

    #[test]
    fn destinations_are_independent() {
        let mut a = table();
        a.handle_outgoing(t(0), NB, PacketId(1));
        a.handle_outgoing(t(0), OTHER, PacketId(2));
        assert_eq!(events(&mut a), vec![]);
        assert_eq!(a.held(NB), Some(PacketId(1)));
        assert_eq!(a.held(OTHER), Some(PacketId(2)));
    }

    #[test]
    fn encoding_is_rfc_826_ethernet_ipv4() {
        let msg = ArpMsg {
            op: ArpOp::Request,
            sha: MacAddr(1),
            spa: 0x0b00_0001,
            tha: None,
            tpa: 0x0b00_0002,
        };
        let mut out = Vec::new();
        msg.encode(|m| [2, 0, 0, 0, 0, m.0 as u8], &mut out);
        assert_eq!(out.len() as u32, ARP_HDR_LEN);
        assert_eq!(&out[..8], &[0, 1, 8, 0, 6, 4, 0, 1]);
        assert_eq!(&out[8..14], &[2, 0, 0, 0, 0, 1]);
        assert_eq!(&out[14..18], &[11, 0, 0, 1]);
        assert_eq!(&out[18..24], &[0; 6]);
        assert_eq!(&out[24..28], &[11, 0, 0, 2]);
    }
}
