//! The simulated world: arenas of nodes, interfaces, link directions, flows and
//! endpoints, built once from a validated scenario, then driven by the run loop.

mod anim;
mod anim_sat;
mod aqm;
mod build;
mod build_wireless;
#[cfg(test)]
mod catch_up_check;
mod faults;
mod mac_digest;
#[cfg(test)]
mod manet_equivalence;
mod run;
mod sample;
mod sat;
mod sat_build;
#[cfg(test)]
mod sat_tests;
mod shortcuts;
mod summary;
mod trace_hold;
mod tracer;
mod watch;
mod wireless;
mod wtrace;

pub(crate) use run::MAX_PACKETS_ALIVE;
pub use run::{RunOptions, RunResult, run_scenario, run_scenario_interruptible};
pub use shortcuts::Shortcuts;

/// The most legs `export_movement` writes: about 90 bytes each while gathered and 60
/// as text, so some 150 MB; the seed studies' files have a few thousand.
pub const MAX_MOVEMENT_LEGS: usize = 1_000_000;

/// The movement a wireless scenario's nodes make with run `seed`, as an ns-2 setdest
/// file (so ns-2 can replay it), up to the scenario's `duration`.
pub fn export_movement(s: &crate::Scenario, seed: u64) -> Result<String, crate::Error> {
    let Some(w) = &s.file.wireless else {
        return Err(crate::Error::Usage(
            "the scenario has no [wireless] table, so no node moves".into(),
        ));
    };
    let m = build_wireless::build_mobility(s, w, seed)
        .map_err(|m| crate::ScenarioError::new("<scenario>", "mobility", m))?;
    let until = SimTime::ZERO + s.duration().unwrap_or(crate::sim::SimDuration::ZERO);
    // Counted before anything is kept: the file holds every leg, in memory twice (the
    // legs, then the text).
    let mut left = MAX_MOVEMENT_LEGS + 1;
    for i in 0..m.len() {
        left -= m.count_legs_until(i, until, left);
        if left == 0 {
            return Err(crate::ScenarioError::new(
                "<scenario>",
                "mobility.max_speed",
                format!(
                    "the movement up to `duration` has more than {MAX_MOVEMENT_LEGS} legs, \
                     the most a movement file holds; lower max_speed, raise pause, enlarge \
                     the area or shorten duration"
                ),
            )
            .into());
        }
    }
    let mut out = Vec::new();
    crate::wireless::setdest::write(&m, until, &mut out)
        .map_err(|e| crate::Error::io(std::path::Path::new("<movement>"), e))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

use crate::endpoint::AnyEndpoint;
use crate::metrics::Window;
use crate::net::link::LinkDir;
use crate::net::routing::StaticRoutes;
use crate::net::{EndpointId, FlowId, IfaceId, LinkDirId, NodeId, PacketId, PacketPool};
use crate::sim::{EventQueue, SimTime, TimerSlot};
use tracer::Tracer;

pub(crate) struct Node {
    pub name: String,
    /// Index of the snoop agent running on this node, if any.
    pub snoop: Option<usize>,
    /// The address of the node's first interface (its address when it has one).
    pub addr: [u8; 4],
    /// The node's interfaces in declaration order (`eth<k>`/`wlan<k>` is index k).
    pub ifaces: Vec<IfaceId>,
    /// Endpoints bound on this node: (IP protocol, local port, peer port or 0 for any,
    /// endpoint). A QUIC server names its client's port: several QUIC flows to one node
    /// share port 443.
    pub ports: Vec<(u8, u16, u16, EndpointId)>,
}

pub(crate) struct Iface {
    pub node: NodeId,
    /// The link direction this interface transmits on (point-to-point interfaces).
    pub out: LinkDirId,
    /// The wireless NIC this interface is (`wlan<k>`), in `Wireless::nics`.
    pub nic: Option<u32>,
    /// `eth<k>`, k counting this node's interfaces in declaration order.
    pub name: String,
    pub addr: [u8; 4],
}

/// The address of interface `k` of the node with 0-based index `node`: `(10+k).a.b.c`
/// where `a.b.c` is the node number `node + 1` (CONTRACTS.md), so a node's first
/// interface keeps the `10.a.b.c` of single-homed scenarios.
pub(crate) fn iface_addr(node: usize, k: usize) -> [u8; 4] {
    let n = (node + 1) as u32;
    [(10 + k) as u8, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The (0-based node index, interface index) an address names, if it is in the plan.
pub(crate) fn addr_parts(a: [u8; 4]) -> Option<(usize, usize)> {
    let k = usize::from(a[0].checked_sub(10)?);
    let n = (usize::from(a[1]) << 16) | (usize::from(a[2]) << 8) | usize::from(a[3]);
    Some((n.checked_sub(1)?, k))
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlowKind {
    Cbr,
    Tcp,
    Sctp,
    Quic,
}

pub(crate) struct Flow {
    pub name: String,
    /// Drawn by a `cbr_pairs` generator: (from, to, start in s), which the summary records.
    pub generated: Option<(String, String, f64)>,
    pub kind: FlowKind,
    pub sender: EndpointId,
    pub receiver: EndpointId,
    /// Packets of this flow somewhere in the network.
    pub in_flight: u32,
    pub finished: bool,
    /// Data packets that reached the receiver marked CE in the window (`ce_marks`).
    pub ce_marks: u64,
}

pub(crate) struct EndpointSlot {
    pub ep: AnyEndpoint,
    pub node: NodeId,
    /// Where packets go when the endpoint names no destination address itself.
    pub peer_addr: [u8; 4],
    pub flow: FlowId,
    /// The timer event pending in the queue. The endpoint's own deadline may be later
    /// than the pending event, which then re-arms itself.
    pub timer: TimerSlot,
    /// The wired route of the endpoint's last packet (`SendRoute`).
    pub send_route: Option<SendRoute>,
    /// Which of its packets leave ECN-capable (the flow's `ecn`).
    pub ecn: Ect,
}

/// Which packets an endpoint sends as ECT(0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ect {
    None,
    /// Every data packet (SCTP, RFC 9260 appendix A).
    Data,
    /// Data packets that are not retransmissions (TCP: RFC 3168 sec. 6.1.5).
    NewData,
}

/// Where an endpoint's packets for one destination address go: an endpoint sends to one
/// or two addresses (its peer's), so `service` resolves them once instead of per packet.
/// Only wired routes are kept: they, the addresses' owners and the interfaces' links are
/// fixed once the world is built, so the answer never goes stale.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SendRoute {
    pub addr: [u8; 4],
    /// The node that owns `addr`.
    pub dst: NodeId,
    /// The address of the interface the packets leave by.
    pub src_addr: [u8; 4],
    /// The link direction of that interface.
    pub out: LinkDirId,
}

/// Everything that can happen. Kept small (12 bytes) because the heap moves it around.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Event {
    /// The transmitter of a link direction finished serialising its packet.
    TxDone(LinkDirId),
    /// A packet reached the far end of a link direction; `lost` if the loss model ate it.
    Arrive(LinkDirId, PacketId, bool),
    Timer(EndpointId, u32),
    /// A snoop agent's local retransmission timer (agent index, generation).
    SnoopTimer(u32, u32),
    /// The `[[faults]]` entry with this index (in `World::faults`) takes effect.
    Fault(u32),
    /// The first bit of frame slot `.1` reaches wireless NIC `.0`.
    RxStart(u32, u32),
    /// A wireless NIC's MAC timer (NIC, generation).
    MacTimer(u32, u32),
    /// A NIC whose MAC waits quietly (`Mac::waits_quietly`) must look again: its
    /// backoff may end soon after (`World::mac_wake`). Bookkeeping, not counted.
    MacWake(u32),
    /// A wireless NIC's routing-agent timer (NIC, generation).
    RoutingTimer(u32, u32),
    /// A unicast packet enters the link layer of a NIC after routing's jitter, where ARP
    /// resolves its next hop (only with ARP on).
    LlEnter(u32, PacketId),
    /// A packet leaves the link layer of a NIC for its interface queue.
    LlDown(u32, PacketId),
    /// A packet a NIC received leaves the link layer for routing.
    LlUp(u32, PacketId),
    /// A broadcast packet's receivers have all copied it: give it back to the pool.
    Release(PacketId),
    Sample,
    Stop,
    /// A check instant of the satellite links and handovers (`World::sat_check`).
    SatCheck,
}

/// A scripted event, resolved from `[[faults]]`.
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    /// Both directions of the link whose a->b direction is this go down.
    LinkDown(LinkDirId),
    LinkUp(LinkDirId),
    /// An SCTP sender (endpoint) makes this peer address its primary.
    SetPrimary(EndpointId, [u8; 4]),
    /// An SCTP sender's RE-CONFIG request (`reset_streams`, `add_streams`).
    Reconfig(EndpointId, crate::sctp::reconfig::Request),
    /// An SCTP sender's ASCONF request (`add_address`, `delete_address`, `set_primary`
    /// with `address`).
    Asconf(EndpointId, crate::sctp::asconf::AddrChange),
}

pub(crate) struct SnoopSlot {
    pub agent: crate::snoop::SnoopAgent,
    pub node: NodeId,
    pub timer: TimerSlot,
}

/// The flow of packets that belong to none (routing control messages).
pub(crate) const NO_FLOW: FlowId = FlowId(u32::MAX);

pub(crate) struct World {
    pub scenario: String,
    pub seed: u64,
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub links: Vec<LinkDir>,
    pub routes: StaticRoutes,
    pub flows: Vec<Flow>,
    pub endpoints: Vec<EndpointSlot>,
    pub snoops: Vec<SnoopSlot>,
    pub faults: Vec<(SimTime, Fault)>,
    pub pool: PacketPool,
    pub queue: EventQueue<Event>,
    pub window: Window,
    pub stop_at: Option<SimTime>,
    pub series_interval: crate::sim::SimDuration,
    pub tracer: Tracer,
    pub unfinished: usize,
    pub wireless: Option<Box<wireless::Wireless>>,
    /// Satellites and ground stations (world/sat.rs), if the scenario has them.
    pub sat: Option<Box<sat::SatWorld>>,
    /// The first satellite link direction (all later ones are too); u32::MAX if none.
    pub sat_links_from: u32,
}

impl World {
    /// The interface that owns an address, if any.
    pub(crate) fn addr_owner(&self, a: [u8; 4]) -> Option<IfaceId> {
        let (node, k) = addr_parts(a)?;
        self.nodes.get(node)?.ifaces.get(k).copied()
    }
}
