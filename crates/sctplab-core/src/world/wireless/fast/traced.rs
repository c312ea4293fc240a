//! The traces of a fast run: what the lazy events would have written.
//!
//! Contract. `--pcap` and `--trace ns2` record a fast run as they record the plain run
//! (`--shortcuts none`), and change nothing it computes (summary.json, `events`
//! included, is the same with and without them; tests/outputs.rs):
//!
//! - pcap: a catch-up notes each decodable reception it runs (`QuietNic::note_capture`);
//!   before anything else is written to a capture (`World::capture_frame`), at each
//!   sweep and at the end, those go to their NICs' captures, in the order the catch-ups
//!   ran them (each NIC's in key order, as the plain run's), from the record the air
//!   log keeps of each logged frame (`Fast::air_records`: by then the pool may hold
//!   another packet in the frame's slot).
//! - ns-2 trace: a repeated route request a quiet MAC only counts (`Frame::quiet_up`)
//!   is a delivery, which the plain run traces at the MAC (its reception's end) and at
//!   routing (`ll_delay` later, if before the run ends). The MACs keep each one
//!   (`Mac::keep_counted_deliveries`); at each sweep, when a broadcast packet is
//!   released (every NIC catches up first, so that the packet is still in the pool),
//!   and at the end, they become late lines of trace.tr, which merges them in time
//!   order (world/trace_hold.rs, with its canonical order within one time stamp).
//!
//! Guards: `traces_of_fast_and_plain_runs_agree` (`wireless/tests.rs`, small random
//! networks), `seed004_network_60s_plain_and_fast_agree` (world/manet_equivalence.rs),
//! `recording_leaves_manet_summaries_alone` (tests/outputs.rs).

use super::super::Wireless;
use crate::net::PacketId;
use crate::sim::SimTime;
use crate::wireless::mac::fast::CountedDelivery;
use crate::world::World;

/// A reception a catch-up ran that the NIC's capture shows: at `at`, logged frame
/// number `log`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LazyCapture {
    pub(super) nic: u32,
    pub(super) at: SimTime,
    pub(super) log: u64,
}

impl Wireless {
    /// What the run records (`--pcap`, `--trace ns2`): the accelerators keep what
    /// those traces need of the lazy events.
    pub(crate) fn set_traces(&mut self, pcap: bool, ns2: bool) {
        self.fast.capture = pcap;
        self.fast.trace_deliveries = ns2;
        if ns2 {
            for n in &mut self.nics {
                n.mac.keep_counted_deliveries();
            }
        }
    }
}

impl World {
    /// Writes the captures of the receptions catch-ups ran since the last call.
    pub(in crate::world) fn write_lazy_captures(&mut self) {
        let Some(w) = self.wireless.as_deref_mut() else {
            return;
        };
        if w.fast.captures.is_empty() {
            return;
        }
        for c in w.fast.captures.drain(..) {
            let record = &w.fast.air_records[(c.log - w.fast.log_base) as usize];
            let iface = w.nics[c.nic as usize].iface.idx();
            self.tracer.write_wlan_record(iface, c.at, record);
        }
    }

    /// The trace lines of the deliveries the MACs counted since the last call (see the
    /// module's doc); their packets are still in the pool.
    pub(in crate::world) fn trace_counted_deliveries(&mut self) {
        let Some(w) = self.wireless.as_deref_mut() else {
            return;
        };
        if !w.fast.trace_deliveries {
            return;
        }
        let mut kept: Vec<(u32, CountedDelivery)> = Vec::new();
        let mut one = Vec::new();
        for (i, n) in w.nics.iter_mut().enumerate() {
            n.mac.take_counted_deliveries(&mut one);
            kept.extend(one.drain(..).map(|d| (i as u32, d)));
        }
        let (until, ll_delay) = (w.fast.quiet_up_until, w.ll_delay);
        for (nic, d) in kept {
            let Some(pid) = d.packet else { continue };
            let node = self.wl().nics[nic as usize].node;
            let p = self.pool.get(pid);
            let line = self.received_line(d.at, node, p, d.from);
            self.tracer.ns2_wireless_late(&line);
            if d.at < until {
                // `drain_mac`'s copy for the link layer, at routing `ll_delay` later.
                let mut copy = p.clone();
                copy.forwards += 1;
                let t = d.at + ll_delay;
                let line = self.packet_line('r', t, node, "RTR", "---", &copy, [0; 4]);
                self.tracer.ns2_wireless_late(&line);
            }
        }
    }

    /// A broadcast packet's release (`Event::Release`). With `--trace ns2`, every NIC
    /// first runs its lazy events before it (each reception of the packet ended
    /// earlier), so that the deliveries counted of it are traced while it is in the
    /// pool.
    pub(in crate::world) fn release_broadcast(&mut self, pid: PacketId) {
        if self
            .wireless
            .as_deref()
            .is_some_and(|w| w.fast.trace_deliveries)
        {
            let before = self.queue.last_key();
            let n = self.wl().nics.len();
            for nic in 0..n as u32 {
                self.mac_catch_up(nic, before);
            }
            self.trace_counted_deliveries();
        }
        self.discard(pid);
    }
}
