//! The one interface between a mobile node and its routing agent, whatever the protocol
//! (AODV, DSDV, DSR; a new protocol is a new module implementing [`RoutingProtocol`] and one
//! more [`RoutingAgent`] variant). The world (world/wireless/routing.rs) reaches the
//! agent only through [`RoutingAgent`]: packets to route, routing messages received,
//! the MAC's transmit failures, timers, and the agent's outputs.
//!
//! Dispatch is a `match` on the enum rather than a trait object: the calls inline, and
//! AODV's per-packet path costs what it cost before the interface existed.

use crate::net::PacketId;
use crate::net::wire::WireError;
use crate::sim::{SimDuration, SimTime};

use super::aodv::{AODV_UDP_PORT, Aodv, AodvEvent, AodvMsg, DropReason, RouteDecision};
use super::dsdv::{DSDV_PORT, Dsdv, DsdvUpdate};
use super::dsr::{Dsr, DsrEvent, SrHeader, SrPacket};
use super::route_log::RouteLog;

/// The routing message a control packet carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoutingMsg {
    Aodv(AodvMsg),
    Dsdv(DsdvUpdate),
}

impl RoutingMsg {
    /// Bytes ns-2.35 charges for it on the air (its IP header included).
    pub fn ns2_len(&self) -> u32 {
        match self {
            RoutingMsg::Aodv(m) => m.ns2_len(),
            RoutingMsg::Dsdv(m) => m.ns2_len(),
        }
    }

    /// Length of its encoding (the UDP payload in pcap traces).
    pub fn encoded_len(&self) -> usize {
        match self {
            RoutingMsg::Aodv(m) => m.encoded_len(),
            RoutingMsg::Dsdv(m) => m.encoded_len(),
        }
    }

    /// Writes its encoding into `buf[..encoded_len()]`.
    pub fn encode(&self, buf: &mut [u8]) -> usize {
        match self {
            RoutingMsg::Aodv(m) => m.encode(buf),
            RoutingMsg::Dsdv(m) => m.encode(buf),
        }
    }

    /// Reads a message from its UDP port and payload.
    pub fn decode(port: u16, buf: &[u8]) -> Result<RoutingMsg, WireError> {
        match port {
            DSDV_PORT => DsdvUpdate::decode(buf).map(RoutingMsg::Dsdv),
            _ => AodvMsg::decode(buf).map(RoutingMsg::Aodv),
        }
    }

    /// The UDP port its packets carry.
    pub fn udp_port(&self) -> u16 {
        match self {
            RoutingMsg::Aodv(_) => AODV_UDP_PORT,
            RoutingMsg::Dsdv(_) => DSDV_PORT,
        }
    }

    /// The packet type ns-2's trace lines show (`AODV`, or `message` for DSDV's
    /// `PT_MESSAGE`).
    pub fn ns2_type(&self) -> &'static str {
        match self {
            RoutingMsg::Aodv(_) => "AODV",
            RoutingMsg::Dsdv(_) => "message",
        }
    }
}

/// A control message the agent sends: to `next_hop` (the broadcast address for a
/// broadcast) after `delay`.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingOut {
    pub msg: RoutingMsg,
    pub ip_src: u32,
    pub ip_dst: u32,
    pub next_hop: u32,
    pub ttl: u8,
    pub delay: SimDuration,
}

/// What the agent asks of the world, in the order it asked.
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingEvent {
    Send(RoutingOut),
    /// A buffered data packet goes to `next_hop` after `delay`.
    Forward {
        pkt: PacketId,
        next_hop: u32,
        delay: SimDuration,
    },
    Drop {
        pkt: PacketId,
        reason: DropReason,
    },
    /// Take the packets for `next_hop` out of the interface queue (ns-2 "CBK").
    PurgeIfq {
        next_hop: u32,
    },
    /// A packet with a DSR source-route header goes to `next_hop` after `delay`: the
    /// world's data packet it names, or a new DSR control packet.
    SourceRouted {
        pkt: SrPacket,
        next_hop: u32,
        delay: SimDuration,
    },
    /// A data packet the agent took reached this node, its destination.
    Deliver {
        pkt: PacketId,
    },
    /// A data packet dropped with this ns-2 trace reason.
    DropCode {
        pkt: PacketId,
        code: &'static str,
    },
}

/// A routing agent as the node sees it (sans-IO; drain [`RoutingProtocol::poll_output`]
/// after every input).
pub trait RoutingProtocol {
    /// A data packet needs a next hop; `local`: it was originated here. `ttl` is its IP
    /// TTL, which the agent may set or decrement.
    fn route(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        src: u32,
        dst: u32,
        local: bool,
        ttl: &mut u8,
    ) -> RouteDecision;
    /// A routing message arrived from `ip_src` with IP TTL `ttl`.
    fn recv(&mut self, now: SimTime, msg: &RoutingMsg, ip_src: u32, ttl: u8);
    /// The MAC could not deliver `pkt` (to `dst`, forwarded `forwards` times) to
    /// `next_hop`. Returns false where the agent does not take the packet back.
    fn link_failed(
        &mut self,
        now: SimTime,
        next_hop: u32,
        pkt: PacketId,
        dst: u32,
        forwards: u32,
    ) -> bool;
    fn poll_output(&mut self) -> Option<RoutingEvent>;
    /// When the agent next wants [`RoutingProtocol::handle_timeout`].
    fn poll_timeout(&mut self) -> Option<SimTime>;
    fn handle_timeout(&mut self, now: SimTime);
    /// Its counters for summary.json.
    fn counters_json(&self) -> serde_json::Value;
}

/// The routing agent of one wireless NIC.
// Not boxed: one agent per NIC, so the smaller variant wastes a few hundred bytes per
// NIC, where a box would add a pointer chase to AODV's every routed packet.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum RoutingAgent {
    Aodv(Aodv),
    Dsdv(Dsdv),
    Dsr(Dsr),
}

impl RoutingAgent {
    /// The AODV agent, if that is the protocol (the accelerators read its duplicate
    /// cache).
    pub fn aodv(&self) -> Option<&Aodv> {
        match self {
            RoutingAgent::Aodv(a) => Some(a),
            _ => None,
        }
    }

    pub fn aodv_mut(&mut self) -> Option<&mut Aodv> {
        match self {
            RoutingAgent::Aodv(a) => Some(a),
            _ => None,
        }
    }

    pub fn dsdv(&self) -> Option<&Dsdv> {
        match self {
            RoutingAgent::Dsdv(d) => Some(d),
            _ => None,
        }
    }

    pub fn dsr(&self) -> Option<&Dsr> {
        match self {
            RoutingAgent::Dsr(d) => Some(d),
            _ => None,
        }
    }

    /// Whether the agent wants the frames its MAC decodes for other nodes (DSR's tap):
    /// the world then gives its MACs those frames and runs the network without the
    /// receive-side shortcuts, which skip receptions at quiet NICs.
    pub fn overhears(&self) -> bool {
        match self {
            RoutingAgent::Dsr(d) => d.cfg().use_tap,
            _ => false,
        }
    }

    /// Whether the agent source-routes: its packets carry a header the agent reads at
    /// every hop, the link-failure callback takes its own packets too, and the interface
    /// queue's packets for a broken next hop go back to it (ns-2.35's DSR with
    /// CMUPriQueue).
    pub fn source_routes(&self) -> bool {
        matches!(self, RoutingAgent::Dsr(_))
    }

    /// A packet with a source-route header arrived for this node's MAC (DSR's `recv`).
    pub fn recv_source_routed(&mut self, now: SimTime, p: SrPacket) {
        if let RoutingAgent::Dsr(d) = self {
            d.recv(now, p);
        }
    }

    /// A source-routed packet from `src` with header `sr` this NIC overheard (`uid`:
    /// each is looked at once; `control`: DSR's own). Whether the agent read it (an
    /// agent that does not tap changes nothing either way).
    pub fn tap(&mut self, now: SimTime, src: u32, sr: &SrHeader, control: bool, uid: u64) -> bool {
        match self {
            RoutingAgent::Dsr(d) => d.tap(now, src, sr, control, uid),
            _ => true,
        }
    }

    /// The MAC gave up on the source-routed `p`; `queued` are the interface queue's
    /// packets for the same next hop, taken out in queue order.
    pub fn source_routed_failed(&mut self, now: SimTime, p: SrPacket, queued: Vec<SrPacket>) {
        if let RoutingAgent::Dsr(d) = self {
            d.xmit_failed(now, p, queued);
        }
    }

    /// The agent's route-table changes, for the animation trace (wireless/route_log.rs).
    /// A protocol that keeps no log has none to show.
    #[allow(unreachable_patterns)]
    pub fn route_log_mut(&mut self) -> Option<&mut RouteLog> {
        match self {
            RoutingAgent::Aodv(a) => Some(a.route_log_mut()),
            RoutingAgent::Dsdv(d) => Some(d.route_log_mut()),
            _ => None,
        }
    }
}

fn from_dsr(ev: DsrEvent) -> RoutingEvent {
    match ev {
        DsrEvent::Send {
            pkt,
            next_hop,
            delay,
        } => RoutingEvent::SourceRouted {
            pkt,
            next_hop,
            delay,
        },
        DsrEvent::Deliver { pkt } => RoutingEvent::Deliver { pkt },
        DsrEvent::Drop { pkt, reason } => RoutingEvent::DropCode {
            pkt,
            code: reason.ns2_code(),
        },
    }
}

fn from_aodv(ev: AodvEvent) -> RoutingEvent {
    match ev {
        AodvEvent::Send(o) => RoutingEvent::Send(RoutingOut {
            msg: RoutingMsg::Aodv(o.msg),
            ip_src: o.ip_src,
            ip_dst: o.ip_dst,
            next_hop: o.next_hop,
            ttl: o.ttl,
            delay: o.delay,
        }),
        AodvEvent::Forward {
            pkt,
            next_hop,
            delay,
        } => RoutingEvent::Forward {
            pkt,
            next_hop,
            delay,
        },
        AodvEvent::Drop { pkt, reason } => RoutingEvent::Drop { pkt, reason },
        AodvEvent::PurgeIfq { next_hop } => RoutingEvent::PurgeIfq { next_hop },
    }
}

impl RoutingProtocol for RoutingAgent {
    #[inline]
    fn route(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        src: u32,
        dst: u32,
        local: bool,
        ttl: &mut u8,
    ) -> RouteDecision {
        match self {
            RoutingAgent::Aodv(a) => a.route(now, pkt, src, dst, local, ttl),
            RoutingAgent::Dsdv(d) => d.route(now, pkt, src, dst, local, ttl),
            // A packet without a source route: DSR takes it (a cached route or the send
            // buffer) and says what became of it in its output. The world sizes the
            // packet itself at the MAC, so its length is not passed.
            RoutingAgent::Dsr(d) => {
                d.originate(now, pkt, dst, 0, *ttl);
                RouteDecision::Queued
            }
        }
    }

    #[inline]
    fn recv(&mut self, now: SimTime, msg: &RoutingMsg, ip_src: u32, ttl: u8) {
        // A message of another protocol (a scenario cannot mix them) is ignored.
        match (self, msg) {
            (RoutingAgent::Aodv(a), RoutingMsg::Aodv(m)) => a.recv(now, m, ip_src, ttl),
            (RoutingAgent::Dsdv(d), RoutingMsg::Dsdv(m)) => d.recv(now, m, ip_src, ttl),
            // DSR's packets reach it through `recv_source_routed`.
            _ => {}
        }
    }

    #[inline]
    fn link_failed(
        &mut self,
        now: SimTime,
        next_hop: u32,
        pkt: PacketId,
        dst: u32,
        forwards: u32,
    ) -> bool {
        match self {
            RoutingAgent::Aodv(a) => {
                a.link_failed(now, next_hop, pkt, dst, forwards);
                true
            }
            RoutingAgent::Dsdv(d) => d.link_failed(now, next_hop, pkt, dst),
            // DSR's packets carry their route: the world calls `source_routed_failed`.
            RoutingAgent::Dsr(_) => false,
        }
    }

    #[inline]
    fn poll_output(&mut self) -> Option<RoutingEvent> {
        match self {
            RoutingAgent::Aodv(a) => a.poll_output().map(from_aodv),
            RoutingAgent::Dsdv(d) => d.poll_output(),
            RoutingAgent::Dsr(d) => d.poll_output().map(from_dsr),
        }
    }

    #[inline]
    fn poll_timeout(&mut self) -> Option<SimTime> {
        match self {
            RoutingAgent::Aodv(a) => a.poll_timeout(),
            RoutingAgent::Dsdv(d) => d.poll_timeout(),
            RoutingAgent::Dsr(d) => d.poll_timeout(),
        }
    }

    #[inline]
    fn handle_timeout(&mut self, now: SimTime) {
        match self {
            RoutingAgent::Aodv(a) => a.handle_timeout(now),
            RoutingAgent::Dsdv(d) => d.handle_timeout(now),
            RoutingAgent::Dsr(d) => d.handle_timeout(now),
        }
    }

    fn counters_json(&self) -> serde_json::Value {
        match self {
            RoutingAgent::Aodv(a) => serde_json::to_value(a.counters()),
            RoutingAgent::Dsdv(d) => serde_json::to_value(d.counters()),
            RoutingAgent::Dsr(d) => serde_json::to_value(d.counters()),
        }
        .unwrap_or_default()
    }
}
