//! The wireless half of the world: the shared channel, one 802.11 MAC (with its interface
//! queue) and one routing agent per wireless NIC, and the link layer between them, wired
//! to the event loop as ns-2.35's mobile node stacks them:
//!
//! ```text
//! agent -> routing (AODV, DSDV) -> LL (ARP, delay) -> IFQ -> MAC -> channel
//! channel -> MAC -> LL (delay) -> routing -> agent, or back down when forwarding
//! channel -> MAC -> LL -> ARP (requests answered, held packets released)
//! ```
//!
//! The channel delivers each frame to every NIC within carrier-sense range (found through
//! the grid), after the propagation delay; the MAC does the rest (reception timing,
//! collisions, capture, carrier sense). Positions come from the mobility model on demand.
//!
//! The model, read beside ns-2.35's sources:
//! - `channel.rs`: the shared channel (`mac/channel.cc`, `WirelessChannel::sendUp`): one
//!   `RxStart` event per sensing NIC, the received power by two-ray ground
//!   (`rx_power.rs`, `mobile/tworayground.cc`).
//! - `link.rs`: the link layer (`mac/ll.cc`), ARP (`mac/arp.cc`), the interface queue and
//!   the MAC's inputs and outputs (`mac/mac-802_11.cc` is `wireless::mac`).
//! - `routing.rs`: the routing agent's inputs and outputs through the one interface
//!   `wireless::routing::RoutingAgent` (`aodv/aodv.cc` is `wireless::aodv`,
//!   `dsdv/dsdv.cc` `wireless::dsdv`), or static routes.
//!
//! `fast/` holds the accelerators: ways of running the same model with fewer events,
//! each with the same result to the byte (its equivalence contract opens each file).
//! The model calls into them at a few named points (`World::arm_mac_timer`'s hand-over,
//! the catch-up before each MAC input, the air log in `World::transmit`); with every
//! shortcut off (`sctplab run --shortcuts none`) they do nothing.

mod channel;
pub(crate) mod fast;
mod link;
mod routing;
mod rx_power;
mod source_routed;
#[cfg(test)]
mod tests;

pub(crate) use fast::{MacTimerSlot, SWEEP_EVERY};
pub(crate) use routing::static_wireless_routes;
pub(crate) use source_routed::encode_source_routed;

use super::World;
use super::mac_digest::InputDigest;
use super::shortcuts::Shortcuts;
use crate::net::{IfaceId, NodeId};
use crate::sim::{SimDuration, SimTime, TimerSlot};
use crate::wireless::aodv::BROADCAST;
use crate::wireless::arp::ArpTable;
use crate::wireless::frame::{Frame, MacAddr};
use crate::wireless::grid::Grid;
use crate::wireless::mac::Mac;
use crate::wireless::mobility::Mobility;
use crate::wireless::propagation::PhyCfg;
use crate::wireless::routing::RoutingAgent;
use rx_power::RxPower;

pub(crate) struct Nic {
    pub node: NodeId,
    pub iface: IfaceId,
    pub addr: [u8; 4],
    pub mac: Mac,
    /// The routing agent (none with static routes).
    pub routing: Option<RoutingAgent>,
    /// The NIC's ARP table (`[wireless] arp`, on by default as in ns-2.35).
    pub arp: Option<ArpTable>,
    pub mac_timer: MacTimerSlot,
    pub routing_timer: TimerSlot,
    /// A second (third, ...) NIC of a multihomed node carries only traffic to or from its
    /// own address (CONTRACTS.md): it neither forwards nor floods others' route requests.
    pub own_traffic_only: bool,
    /// Packets taken back out of the interface queue after a link break (ns-2 "CBK").
    pub ifq_purged: u64,
    /// The accelerators' state of this NIC (`fast::NicFast`).
    pub fast: fast::NicFast,
    /// Its MAC's inputs in order (computed in test builds only).
    pub digest: InputDigest,
}

/// A frame on the air: the frame, how many receivers have yet to see its first bit, and
/// the sender's node.
#[derive(Copy, Clone, Debug)]
pub(crate) struct OnAir {
    pub frame: Frame,
    pub left: u32,
    pub sender: u32,
}

/// Per-node counters kept by the world (the machines keep their own).
#[derive(Default, Clone)]
pub(crate) struct NodeCounters {
    pub forwarded: u64,
    pub ttl_drops: u64,
    /// Routing packets the node's agents sent (each transmission, forwarded ones too)
    /// and their ns-2 sizes.
    pub routing_packets: u64,
    pub routing_bytes: u64,
}

pub(crate) struct Wireless {
    pub phy: PhyCfg,
    rx_power: RxPower,
    pub mobility: Mobility,
    pub grid: Grid,
    pub cs_range_m: f64,
    pub ll_delay: SimDuration,
    pub nics: Vec<Nic>,
    /// The NICs of each node, in interface order.
    pub node_nics: Vec<Vec<u32>>,
    /// Frames on the air.
    pub frames: Vec<OnAir>,
    pub free_frames: Vec<u32>,
    /// `routing = "static"`: next-hop node per (node, destination node), hop count over
    /// links within receive range at time 0; `u32::MAX` for none.
    pub static_next: Option<Vec<u32>>,
    pub node_counters: Vec<NodeCounters>,
    /// PLCP preamble and header bytes, which ns-2's MAC trace lines count in frame sizes.
    pub plcp_bytes: u32,
    /// Packets taken out of an interface queue by a link break (reused).
    scratch_purge: Vec<crate::wireless::ifq::IfqEntry>,
    scratch: Vec<usize>,
    /// Positions the last grid query computed, by node (valid for the nodes it returned).
    scratch_pos: Vec<(f64, f64)>,
    /// The last transmission's receiving nodes with their first bit's arrival time.
    scratch_recv: Vec<(u32, SimTime)>,
    /// A frame reaches the other NICs of the node that sends it (`[wireless]
    /// same_node_delivery`). Off by default, as in ns-2.35: `WirelessChannel::sendUp`
    /// (mac/channel.cc) skips the transmitting node (`if (rnode == tnode) continue`),
    /// so none of its interfaces receives or senses the frame.
    pub(crate) same_node_delivery: bool,
    /// `[wireless] ns2_packet_sizes`: the MAC charges data packets ns-2.35's sizes
    /// (`ns2_size`), with the IP headers the routing agent adds (`Ns2Sizes`).
    pub(crate) ns2_sizes: Option<crate::wireless::ns2_size::Ns2Sizes>,
    /// The accelerators' state (`fast::Fast`); with every shortcut off it holds no lazy
    /// event and its air log stays empty.
    pub(crate) fast: fast::Fast,
}

impl Wireless {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        phy: PhyCfg,
        mobility: Mobility,
        grid: Grid,
        ll_delay: SimDuration,
        nics: Vec<Nic>,
        node_nics: Vec<Vec<u32>>,
        static_next: Option<Vec<u32>>,
        shortcuts: Shortcuts,
    ) -> Self {
        let n = node_nics.len();
        let m = mobility.len();
        let rx_power = RxPower::new(&phy);
        let cs_range_m = phy.cs_range_m();
        let fast = fast::Fast::new(&rx_power, cs_range_m, &mobility, &nics, shortcuts);
        Wireless {
            cs_range_m,
            rx_power,
            phy,
            mobility,
            grid,
            ll_delay,
            nics,
            node_nics,
            frames: Vec::new(),
            free_frames: Vec::new(),
            static_next,
            node_counters: vec![NodeCounters::default(); n],
            plcp_bytes: 0,
            scratch_purge: Vec::new(),
            scratch: Vec::new(),
            scratch_pos: vec![(0.0, 0.0); m],
            scratch_recv: Vec::new(),
            same_node_delivery: false,
            ns2_sizes: None,
            fast,
        }
    }
}

fn addr_u32(a: [u8; 4]) -> u32 {
    u32::from_be_bytes(a)
}

fn u32_addr(a: u32) -> [u8; 4] {
    a.to_be_bytes()
}

impl World {
    fn wl(&mut self) -> &mut Wireless {
        self.wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds")
    }

    /// The NIC a packet from `node` to the interface `dst` leaves by: the node's NIC with
    /// the same interface number as the destination's (so wlan1 talks to wlan1), else its
    /// first NIC.
    fn nic_toward(&self, node: NodeId, dst: IfaceId) -> Option<u32> {
        let w = self.wireless.as_deref()?;
        let nics = &w.node_nics[node.idx()];
        let k = self.nodes[self.ifaces[dst.idx()].node.idx()]
            .ifaces
            .iter()
            .position(|&i| i == dst)?;
        let want = self.nodes[node.idx()].ifaces.get(k).copied();
        nics.iter()
            .copied()
            .find(|&n| Some(w.nics[n as usize].iface) == want)
            .or_else(|| nics.first().copied())
    }

    /// The interface of the NIC `nic_toward` picks, if the node has NICs.
    pub(super) fn wireless_iface_toward(&self, node: NodeId, dst: IfaceId) -> Option<IfaceId> {
        let nic = self.nic_toward(node, dst)?;
        self.wireless.as_deref().map(|w| w.nics[nic as usize].iface)
    }

    fn mac_of(&self, addr: u32) -> MacAddr {
        if addr == BROADCAST {
            return MacAddr::BROADCAST;
        }
        match self
            .addr_owner(u32_addr(addr))
            .and_then(|i| self.ifaces[i.idx()].nic)
        {
            Some(n) => MacAddr(n),
            // Not a wireless address: nobody answers, the MAC's retries run out.
            None => MacAddr(u32::MAX - 1),
        }
    }
}
