//! The network model: packets with real headers, nodes, links, queues, loss, routing.
pub mod aqm;
pub mod ids;
pub mod link;
pub mod loss;
pub mod packet;
pub mod queue;
pub mod routing;
pub mod wire;

pub use ids::{EndpointId, FlowId, IfaceId, LinkDirId, NodeId, PacketId};
pub use packet::{Packet, PacketKind, PacketPool};
