//! Wireless ad hoc networking as ns-2.35 models it: propagation (free space / two-ray
//! ground), the 802.11 DCF MAC with its interface queue, ARP, node mobility, and the routing agents (AODV, DSDV; DSR, not yet wired to the world) behind one interface (`routing`).
//! Each part is a sans-IO machine or a pure function; the world (`world/`) wires them to
//! the event loop. See docs/models/wireless.md.

pub mod aodv;
pub mod arp;
pub mod cmu_priqueue;
pub mod dsdv;
pub mod dsr;
pub mod frame;
pub mod grid;
pub mod ifq;
pub mod ifq_aqm;
pub mod mac;
pub mod mobility;
pub mod ns2_size;
pub mod propagation;
pub mod route_log;
pub mod routing;
pub mod setdest;
