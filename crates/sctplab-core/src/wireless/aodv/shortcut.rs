//! What the world's channel accelerator asks of the agent (crate-private): whether a
//! route request it is about to deliver would only be counted as a repeat, so that the
//! receiving MAC may count the delivery instead of putting it out (`Frame::quiet_up`,
//! `wireless/mac/fast.rs`), and the count of such deliveries handed back.
//!
//! Why this stays on the agent rather than in a world-side table: the answer is the
//! agent's own duplicate cache (`bcast_ids`, with its purge times), which every request
//! it takes changes. A copy in the world would keep the same state twice and would have
//! to follow every insertion and purge; reading the cache (no writes but the counters)
//! keeps one source of truth. The plain model (the other files of `aodv/`) never calls
//! these.

use crate::sim::SimTime;

use super::Aodv;

impl Aodv {
    /// Whether route request `(src, bcast_id)`, taken by this agent at the latest at
    /// `by`, would only be counted (`recv_request`: a repeat of one it has seen, not
    /// its own): its entry among the seen requests outlives every purge until then
    /// (a purge drops the entries expired at its time).
    pub(crate) fn knows_request(&self, src: u32, bcast_id: u32, by: SimTime) -> bool {
        src != self.addr
            && self
                .bcast_ids
                .get(&(src, bcast_id))
                .is_some_and(|&expire| expire > by)
    }

    /// The routing agent takes `n` repeats of route requests it has seen
    /// (`knows_request`) that the world only counted (`Mac::take_quiet_ups`).
    pub(crate) fn count_repeated_requests(&mut self, n: u64) {
        self.counters.rreq_received += n;
        self.counters.rreq_duplicate += n;
    }
}
