//! The DSDV agent's constants (ns-2.35's values) and counters.

use crate::sim::SimDuration;

/// The constants of ns-2.35's `Agent/DSDV`: its bound variables (defaults from
/// ns-default.tcl, as `ns` prints them) and the `#define`s of dsdv.cc and dsdv.h.
#[derive(Clone, Debug, PartialEq)]
pub struct DsdvCfg {
    /// Time between full ("periodic") updates, `perup_` (15 s); each is scheduled
    /// `U(0.75, 1) * perup_` after the last.
    pub update_interval: SimDuration,
    /// The weighted settling time a new destination starts with, `wst0_` (6 s).
    pub initial_settling_time: SimDuration,
    /// The weight of the old settling time in the running average, `alpha_` (0.875).
    pub settling_weight: f64,
    /// A neighbour not heard for this many update intervals is lost,
    /// `min_update_periods_` (3).
    pub missed_updates: u32,
    /// `use_mac_` (0 in ns-2.35): a MAC transmit failure breaks the link at once
    /// (routes through the neighbour go to the infinite metric). Off, the packet is only
    /// dropped ("CBK").
    pub mac_link_breaks: bool,
    /// `be_random_` (1): the jitters below are drawn; off, they are zero.
    pub randomize: bool,
    /// The first periodic update goes out after `U(0, startup_jitter)`
    /// (`DSDV_STARTUP_JITTER`, 2 s).
    pub startup_jitter: SimDuration,
    /// Every update waits `U(0, broadcast_jitter)` before the link layer
    /// (`DSDV_BROADCAST_JITTER`, 10 ms).
    pub broadcast_jitter: SimDuration,
    /// Triggered updates are at least this far apart (`DSDV_MIN_TUP_PERIOD`, 1 s).
    pub min_triggered_interval: SimDuration,
    /// Packets held per destination without a route (`MAX_QUEUE_LENGTH`, 5); the
    /// oldest is dropped beyond it.
    pub queue_limit: usize,
    /// The IP TTL of the packets a node originates (`IP_DEF_TTL`, 32).
    pub ttl: u8,
}

impl DsdvCfg {
    pub fn ns2() -> Self {
        DsdvCfg {
            update_interval: SimDuration::from_secs(15),
            initial_settling_time: SimDuration::from_secs(6),
            settling_weight: 0.875,
            missed_updates: 3,
            mac_link_breaks: false,
            randomize: true,
            startup_jitter: SimDuration::from_secs(2),
            broadcast_jitter: SimDuration::from_millis(10),
            min_triggered_interval: SimDuration::from_secs(1),
            queue_limit: 5,
            ttl: 32,
        }
    }
}

impl Default for DsdvCfg {
    fn default() -> Self {
        DsdvCfg::ns2()
    }
}

/// What one DSDV agent did over a run (summary.json `nodes.<name>.routing`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DsdvCounters {
    /// Full updates sent (timer-driven, or a triggered one that grew into a full one).
    pub periodic_updates_sent: u64,
    /// Incremental updates sent.
    pub triggered_updates_sent: u64,
    /// Destinations listed in the updates sent.
    pub entries_advertised: u64,
    pub updates_received: u64,
    /// Neighbours declared lost (not heard for `missed_updates` intervals, or a MAC
    /// failure with `mac_link_breaks`).
    pub neighbours_lost: u64,
    /// Routes set to the infinite metric by a lost neighbour.
    pub routes_broken: u64,
    /// Data packets held for a destination without a route.
    pub packets_buffered: u64,
    pub drop_route_loop: u64,
    pub drop_ttl: u64,
    pub drop_queue_full: u64,
    pub drop_mac_callback: u64,
}
