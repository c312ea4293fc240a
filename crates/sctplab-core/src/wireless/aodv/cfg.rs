//! The AODV agent's constants (ns-2.35's values), what it tells the world, and its
//! counters.

use crate::net::PacketId;
use crate::sim::SimDuration;

use super::{AodvMsg, INFINITY_HOPS};

/// Every AODV constant, with ns-2.35's values in [`AodvCfg::ns2`] (aodv/aodv.h,
/// aodv/aodv_rqueue.h, aodv/aodv.cc).
#[derive(Clone, Debug, PartialEq)]
pub struct AodvCfg {
    /// `ACTIVE_ROUTE_TIMEOUT` 10 s: a route's life is renewed to this on every use.
    pub active_route_timeout: SimDuration,
    /// `MY_ROUTE_TIMEOUT` 10 s: lifetime a destination puts in its own RREP (whole
    /// seconds, as the RREP carries it).
    pub my_route_timeout_s: u32,
    /// `REV_ROUTE_LIFE` 6 s: minimum life of a reverse route set up by a RREQ.
    pub rev_route_life: SimDuration,
    /// `BCAST_ID_SAVE` 6 s: life of a (source, broadcast id) pair in the duplicate cache,
    /// which is also the period of the timer that purges it.
    pub bcast_id_save: SimDuration,
    /// `RREQ_RETRIES` 3: network-wide requests allowed before the long back-off.
    pub rreq_retries: u8,
    /// `MAX_RREQ_TIMEOUT` 10 s: cap on one request's timeout, and the back-off after
    /// the retries are used up.
    pub max_rreq_timeout: SimDuration,
    /// `TTL_START` 5 (expanding ring search; see `fresh_last_hop_count`).
    pub ttl_start: u8,
    /// `TTL_INCREMENT` 2.
    pub ttl_increment: u8,
    /// `TTL_THRESHOLD` 7: from this last TTL on, requests go network-wide.
    pub ttl_threshold: u8,
    /// `NODE_TRAVERSAL_TIME` 30 ms: per-hop time until discovery latencies are measured.
    pub node_traversal_time: SimDuration,
    /// `NETWORK_DIAMETER` 30: TTL of network-wide RREQs, RREPs and originated data.
    pub network_diameter: u8,
    /// `RREP_WAIT_TIME` 1 s. Defined in aodv.h but never read by ns-2.35's aodv.cc;
    /// kept for reference, unused here too.
    pub rrep_wait_time: SimDuration,
    /// `LOCAL_REPAIR_WAIT_TIME` 0.15 s. Defined but never read by ns-2.35 (the
    /// local-repair timer uses the request timeout instead); unused here too.
    pub local_repair_wait_time: SimDuration,
    /// `BAD_LINK_LIFETIME` 3 s. Defined but never read by ns-2.35; unused here too.
    pub bad_link_lifetime: SimDuration,
    /// Broadcast jitter: forwarded RREQs and propagated RERRs wait `U(0,1)` times this
    /// (aodv.cc `forward()`, `sendError()`: 0.01 s).
    pub broadcast_jitter: SimDuration,
    /// `ARP_DELAY` 10 ms: spacing of buffered packets released together.
    pub arp_delay: SimDuration,
    /// Period of the route-table purge timer (aodv.cc `FREQUENCY` 0.5 s), which also
    /// drives RREQ retries.
    pub purge_interval: SimDuration,
    /// `AODV_RTQ_MAX_LEN` 64 packets awaiting a route.
    pub rtq_max_len: usize,
    /// `AODV_RTQ_TIMEOUT` 30 s in that buffer.
    pub rtq_timeout: SimDuration,
    /// `AODV_LOCAL_REPAIR` (defined in ns-2.35).
    pub local_repair: bool,
    /// A fresh route entry's "last hop count" (aodv_rtable.cc: `INFINITY2` = 255), which
    /// disables the expanding ring search for first discoveries. 0 gives RFC 3561's ring.
    pub fresh_last_hop_count: u16,
    /// Schedule the local-repair timer at `now + absolute timeout` as ns-2.35 does
    /// (true), or at the absolute timeout (false).
    pub local_repair_timer_quirk: bool,
}

impl AodvCfg {
    /// ns-2.35's compile-time values.
    pub fn ns2() -> Self {
        AodvCfg {
            active_route_timeout: SimDuration::from_secs(10),
            my_route_timeout_s: 10,
            rev_route_life: SimDuration::from_secs(6),
            bcast_id_save: SimDuration::from_secs(6),
            rreq_retries: 3,
            max_rreq_timeout: SimDuration::from_secs(10),
            ttl_start: 5,
            ttl_increment: 2,
            ttl_threshold: 7,
            node_traversal_time: SimDuration::from_millis(30),
            network_diameter: 30,
            rrep_wait_time: SimDuration::from_secs(1),
            local_repair_wait_time: SimDuration::from_millis(150),
            bad_link_lifetime: SimDuration::from_secs(3),
            broadcast_jitter: SimDuration::from_millis(10),
            arp_delay: SimDuration::from_millis(10),
            purge_interval: SimDuration::from_millis(500),
            rtq_max_len: 64,
            rtq_timeout: SimDuration::from_secs(30),
            local_repair: true,
            fresh_last_hop_count: INFINITY_HOPS,
            local_repair_timer_quirk: true,
        }
    }
}

impl Default for AodvCfg {
    fn default() -> Self {
        AodvCfg::ns2()
    }
}

/// Why AODV dropped a data packet, with ns-2's trace code (trace/cmu-trace.h).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// "NRTE": no route (forwarding with the route down, route expired with packets
    /// buffered, or the request retries used up).
    NoRoute,
    /// "LOOP": a packet this node originated came back to it.
    RouteLoop,
    /// "TTL": the IP TTL reached zero.
    Ttl,
    /// "IFQ" (`DROP_RTR_QFULL`): pushed out of the full route buffer.
    QueueFull,
    /// "TOUT": waited longer than the route buffer allows.
    QueueTimeout,
    /// "CBK": the MAC gave up on it, or it sat in the interface queue behind a broken link.
    MacCallback,
}

impl DropReason {
    pub fn ns2_code(self) -> &'static str {
        match self {
            DropReason::NoRoute => "NRTE",
            DropReason::RouteLoop => "LOOP",
            DropReason::Ttl => "TTL",
            DropReason::QueueFull => "IFQ",
            DropReason::QueueTimeout => "TOUT",
            DropReason::MacCallback => "CBK",
        }
    }
}

/// What to do with a data packet handed to [`Aodv::route`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RouteDecision {
    /// Hand it to the interface queue now, addressed to `next_hop` ([`BROADCAST`] for a
    /// broadcast packet).
    Forward { next_hop: u32 },
    /// AODV keeps it; it comes back later as [`AodvEvent::Forward`] or
    /// [`AodvEvent::Drop`] (possibly already among this call's outputs).
    Queued,
    /// Drop it with this reason (already counted).
    Drop(DropReason),
}

/// A control message to send.
#[derive(Clone, Debug, PartialEq)]
pub struct AodvOut {
    pub msg: AodvMsg,
    pub ip_src: u32,
    /// [`BROADCAST`] or the unicast IP destination.
    pub ip_dst: u32,
    /// The neighbour to send to; [`BROADCAST`] for broadcasts.
    pub next_hop: u32,
    /// IP TTL to send with.
    pub ttl: u8,
    /// Hand the message to the link layer this long after the call that produced it
    /// (broadcast jitter; zero means at once).
    pub delay: SimDuration,
}

impl AodvOut {
    /// Bytes ns-2.35 puts on the air for it (IP header, no UDP header).
    pub fn ns2_len(&self) -> u32 {
        self.msg.ns2_len()
    }
}

/// Something the world must do, taken from [`Aodv::poll_output`] in the order the agent
/// produced it.
#[derive(Clone, Debug, PartialEq)]
pub enum AodvEvent {
    /// Send a control message (its own delay says when it reaches the link layer).
    Send(AodvOut),
    /// A buffered data packet has a route: hand it to the interface queue after `delay`
    /// (ns-2 spaces packets released together by `ARP_DELAY`).
    Forward {
        pkt: PacketId,
        next_hop: u32,
        delay: SimDuration,
    },
    /// Drop a data packet AODV held or was told about (counted already).
    Drop { pkt: PacketId, reason: DropReason },
    /// Remove every packet whose next hop is `next_hop` from this NIC's interface queue
    /// (not the frame the MAC is sending) and drop them as `MacCallback` ("CBK"):
    /// ns-2's `PriQueue::filter(id)` loops in `rt_ll_failed` and `recvError`. ns-2.35
    /// drops them rather than re-routing them.
    PurgeIfq { next_hop: u32 },
}

/// Counts for summaries and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AodvCounters {
    /// RREQs this node originated (discoveries, retries and local repairs).
    pub rreq_sent: u64,
    pub rreq_forwarded: u64,
    pub rreq_received: u64,
    /// RREQs discarded because (source, broadcast id) was in the cache.
    pub rreq_duplicate: u64,
    /// RREPs sent as the destination.
    pub rrep_sent: u64,
    /// RREPs sent by an intermediate node with a fresh enough route.
    pub rrep_intermediate: u64,
    pub rrep_forwarded: u64,
    pub rrep_received: u64,
    /// RREPs not forwarded for want of a reverse route ("NRTE" in ns-2).
    pub rrep_dropped_no_route: u64,
    /// Replies not sent because the reverse route had no next hop (see module docs).
    pub rrep_no_next_hop: u64,
    /// RERRs originated: link breaks and data with no route to forward on.
    pub rerr_sent: u64,
    /// RERRs sent on receipt of a RERR (propagation to precursors).
    pub rerr_forwarded: u64,
    pub rerr_received: u64,
    /// Control messages not forwarded because their TTL ran out.
    pub ctrl_dropped_ttl: u64,
    pub local_repairs: u64,
    /// Local-repair timers that found the route still not repaired.
    pub local_repair_failures: u64,
    /// Neighbours declared lost (`nb_delete`).
    pub link_breaks: u64,
    pub drop_no_route: u64,
    pub drop_route_loop: u64,
    pub drop_ttl: u64,
    pub drop_queue_full: u64,
    pub drop_queue_timeout: u64,
    pub drop_mac_callback: u64,
}

impl AodvCounters {
    pub(super) fn count_drop(&mut self, reason: DropReason) {
        let c = match reason {
            DropReason::NoRoute => &mut self.drop_no_route,
            DropReason::RouteLoop => &mut self.drop_route_loop,
            DropReason::Ttl => &mut self.drop_ttl,
            DropReason::QueueFull => &mut self.drop_queue_full,
            DropReason::QueueTimeout => &mut self.drop_queue_timeout,
            DropReason::MacCallback => &mut self.drop_mac_callback,
        };
        *c += 1;
    }
}
