//! The simulated world: arenas of nodes, interfaces, link directions, flows and
//! endpoints, built once from a validated scenario, then driven by the run loop.

mod build;
mod run;
mod summary;
mod tracer;

pub use run::{RunOptions, RunResult, run_scenario};

use crate::endpoint::AnyEndpoint;
use crate::metrics::Window;
use crate::net::link::LinkDir;
use crate::net::routing::RoutingTable;
use crate::net::{EndpointId, FlowId, LinkDirId, NodeId, PacketId, PacketPool};
use crate::sim::{EventQueue, SimTime};
use tracer::Tracer;

pub(crate) struct Node {
    pub name: String,
    /// Index of the snoop agent running on this node, if any.
    pub snoop: Option<usize>,
    pub addr: [u8; 4],
    /// Endpoints bound on this node: (IP protocol, local port, endpoint).
    pub ports: Vec<(u8, u16, EndpointId)>,
}

pub(crate) struct Iface {
    pub node: NodeId,
    /// The link direction this interface transmits on.
    pub out: LinkDirId,
    /// `eth<k>`, k counting this node's interfaces in declaration order.
    pub name: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlowKind {
    Cbr,
    Tcp,
    Sctp,
}

pub(crate) struct Flow {
    pub name: String,
    pub kind: FlowKind,
    pub sender: EndpointId,
    pub receiver: EndpointId,
    /// Packets of this flow somewhere in the network.
    pub in_flight: u32,
    pub finished: bool,
}

pub(crate) struct EndpointSlot {
    pub ep: AnyEndpoint,
    pub node: NodeId,
    pub peer: NodeId,
    pub flow: FlowId,
    /// Time of the timer event pending in the queue, and its generation: an event whose
    /// generation is stale is ignored (an earlier one replaced it). The endpoint's own
    /// deadline may be later than the pending event, which then re-arms itself.
    pub timer_at: Option<SimTime>,
    pub timer_gen: u32,
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
    Sample,
    Stop,
}

pub(crate) struct SnoopSlot {
    pub agent: crate::snoop::SnoopAgent,
    pub node: NodeId,
    pub timer_at: Option<SimTime>,
    pub timer_gen: u32,
}

pub(crate) struct World {
    pub scenario: String,
    pub seed: u64,
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub links: Vec<LinkDir>,
    pub routes: RoutingTable,
    pub flows: Vec<Flow>,
    pub endpoints: Vec<EndpointSlot>,
    pub snoops: Vec<SnoopSlot>,
    pub pool: PacketPool,
    pub queue: EventQueue<Event>,
    pub window: Window,
    pub stop_at: Option<SimTime>,
    pub series_interval: crate::sim::SimDuration,
    pub tracer: Tracer,
    pub unfinished: usize,
}
