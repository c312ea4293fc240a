//! The accelerators of the wireless model: the same ns-2 model run with fewer events.
//!
//! Each one keeps an input of a MAC out of the event queue while that input can only
//! change the MAC it is for ("lazy"), and runs it later, in the order of the key
//! (time, sequence number) the event would have had, before any real input reaches
//! that MAC (`World::mac_catch_up`), under the rules of `sim::lazy`. Its summary.json, `events` excepted, is the plain
//! run's to the byte: `sctplab run --shortcuts none` runs the plain model, and the
//! guards compare the two (tests in `wireless/tests.rs`, `world/manet_equivalence.rs`,
//! `tests/manet_snapshots.rs`, the per-MAC input digests of `world/mac_digest.rs`, the
//! release-mode check of `world/catch_up_check.rs`, `wireless::mac::differential`).
//!
//! | file | what is lazy | key |
//! |---|---|---|
//! | `quiet.rs` | which NICs are quiet (`Mac::timers_are_quiet`) or wait quietly (`Mac::waits_quietly`); their wake-ups | wake-ups take odd numbers (`sim::wake_seq`) |
//! | `virtual_timer.rs` | a quiet MAC's timer events | `sim::LazySeq`: reserved when armed by a real input, else the chain of its armers' times, resolved on a tie; two NICs' equal numbers ordered by their lineages on entering the queue (`sim::lazy`, rule 5: looked up only on a tie, or at the sweep where another pending event has the key) |
//! | `air_log.rs` | receptions at quiet NICs: a frame goes into the air log, each quiet NIC reads it when it next catches up | one block per frame, NIC `j` takes the `j`-th number, as the plain run's receivers |
//! | `catch_up.rs` | running a NIC's lazy events in key order before its next real input | the earlier key first (`sim::due_before`); a tie in time resolves the timer's number |
//! | `overhear.rs` | a reception and its end in one step where nothing falls between them | the chain of keys the two steps would have armed |
//! | `traced.rs` | what the lazy events write to `--pcap` and `--trace ns2`, written when known | trace.tr merged in time order at each sweep (`world/trace_hold.rs`) |
//!
//! With every shortcut off the plain model never calls into these files but for
//! `World::run_lazy_before_input` (which then finds nothing to run) and the periodic
//! sweep (idem).

mod air_log;
mod catch_up;
mod overhear;
mod quiet;
mod traced;
#[cfg(test)]
pub(in crate::world) mod traced_tests;
mod virtual_timer;

pub(crate) use air_log::DeferredRx;
use air_log::LoggedFrame;
use traced::LazyCapture;
pub(crate) use virtual_timer::MacTimerSlot;

use super::rx_power::{RxPower, SenseBound};
use super::{Nic, Wireless};
use crate::sim::{ArmerChain, EventKey, LazySeq, SimTime, may_tie, wake_seq};
use crate::wireless::mobility::Mobility;
use crate::wireless::propagation;
use crate::world::shortcuts::Shortcuts;
use crate::world::{Event, World};
use std::collections::VecDeque;

/// The accelerators' state of one NIC.
#[derive(Default)]
pub(crate) struct NicFast {
    /// Deferred receptions (`Fast::deferred_mac_timers`): `RxStart` events kept out
    /// of the queue, in key order.
    pub deferred_rx: VecDeque<DeferredRx>,
    /// Its MAC waited quietly (`Mac::waits_quietly`) after its last input, so it counts
    /// as quiet and its catch-up runs the MAC's general paths (`Fast::wait_quietly`).
    pub waiting: bool,
    /// When its pending wake-up (`Event::MacWake`) pops, if one is pending.
    pub wake_at: Option<SimTime>,
}

/// The accelerators' state of the wireless world.
pub(crate) struct Fast {
    /// `rx_power.sense_bound(cs_range_m)`.
    sense: SenseBound,
    /// The real `RxStart` events of a logged frame, before they enter the queue as a run.
    scratch_rx: Vec<(SimTime, u64, Event)>,
    /// Unicast frames put on the air with deferred receptions on, in transmission order:
    /// a quiet NIC gets no event and no list entry when a frame goes on the air, but
    /// reads the frames logged since its cursor when it next catches up (`LogReader::stage`).
    /// `air_log[0]` is frame number `log_base`; the sweep drops the frames every quiet
    /// NIC has read.
    air_log: Vec<LoggedFrame>,
    air_frames: Vec<crate::wireless::frame::Frame>,
    log_base: u64,
    /// Per logged broadcast frame, a bit per NIC (`real_words` words) for the quiet
    /// NICs that got real events (`LoggedFrame::real`); `air_real[0]` is word number
    /// `real_base` (numbers wrap: the live span is far shorter than 2^32 words).
    air_real: Vec<u64>,
    real_base: u32,
    real_words: usize,
    /// The logged broadcast frames, by number, whose words `air_real` holds.
    real_frames: VecDeque<u64>,
    /// Broadcast frames go through the air log (`transmit_logged`): only when whether a
    /// frame is decodable is sure from the distance at transmission
    /// (`decodable_sure`), so that the NICs that may decode it are known then.
    log_broadcasts: bool,
    /// Some MAC taps unicast DATA frames for other stations (`Mac::taps`, DSR): such a
    /// frame goes through the log only where the NICs that may decode it are known at
    /// transmission (`decodable_sure`); those that are quiet and tap get real events
    /// then, as the quiet NICs near a broadcast frame do, so that the receptions a tap
    /// passes up run as the plain run's do. The others only sense it (an errored
    /// reception, which no tap reads) and read it from the log. Without
    /// `decodable_sure` such a frame goes to every NIC that senses it as a real event.
    tapped_data: bool,
    /// Quiet NICs that may decode a broadcast route request they have seen before
    /// read it from the log too: its delivery only counts (`Frame::quiet_up`). Off
    /// where the run may end early (when its flows finish): a count applied at a
    /// reception's end could then be one the routing agent would not have made.
    quiet_duplicates: bool,
    /// Per NIC: the number of the first logged frame it has not read. Only meaningful
    /// while the NIC is quiet (it is set to the end of the log when the NIC turns quiet;
    /// a NIC that is not quiet gets real events for every frame).
    log_cursor: Vec<u64>,
    /// Per NIC: the sender's node and the arrival time of the frame its MAC is receiving,
    /// when that frame's power was not computed (see `Mac::rx_start`).
    rx_src: Vec<(u32, SimTime)>,
    /// Per 64 NICs, a bit for each NIC whose MAC is not quiet (`Mac::timers_are_quiet`
    /// after its last input: only inputs change it, `arm_mac_timer` ends every one), so
    /// a transmission need not look into each MAC and a logged one visits only these (a
    /// few of the ~50 NICs); `is_quiet` reads it.
    loud: Vec<u64>,
    /// Per NIC: the times of the links of its pending `LazySeq::Chain`.
    virt_chain: Vec<ArmerChain>,
    /// The sweep's pins (scratch): the NICs whose pending number it looked up, with
    /// the `LazySeq::Chain` it was.
    pins: Vec<(u32, LazySeq)>,
    /// The keys of the lazy events pending at a sweep (scratch, `sim::may_tie`).
    pending_keys: Vec<EventKey>,
    /// `QuietNic::near_margin`, the same for every NIC and catch-up.
    near_margin: (f64, f64),
    /// `RxPower::decodable_sure` for twice the largest `near_margin` a sensed frame can
    /// have (from `cs_range_m` away).
    decodable_sure: Option<(f64, f64)>,
    /// Defer quiet MAC timers: while a MAC's pending timers can only change its own state
    /// (`Mac::timers_are_quiet`: a NIC overhearing others with nothing to send), its
    /// timer event is not put in the queue but kept virtual, with the key it would have
    /// had; before the MAC's next input the virtual events due before that input are run
    /// (`mac_catch_up`), and if the MAC stops being quiet the pending one enters the
    /// queue with its key. A virtual event armed when the MAC's own input is handled
    /// reserves its sequence number then; one armed by a virtual event gets the number
    /// it would have had (`sim::LazySeq`). The keys so keep the plain
    /// way's order; two NICs' virtual numbers can be equal, and then their lineages
    /// order them as the plain run's numbers do (`sim::lazy`, rule 5). A sweep every
    /// `SWEEP_EVERY` events runs overdue virtual events, so that their armers are
    /// always in the queue's pop history (`sim::lazy`, rule 3).
    ///
    /// Receptions are deferred the same way: a frame's `RxStart` at a NIC that is quiet
    /// when the frame goes on the air, for a frame not addressed to it (so that the
    /// reception leaves it quiet), takes its key from the run but stays in the NIC's
    /// `deferred_rx`; catch-up runs it in key order with the virtual timer events, and
    /// it enters the queue with its key if the MAC stops being quiet first. pcap and
    /// ns-2 traces see these receptions as the plain run's (`traced.rs`).
    pub(crate) deferred_mac_timers: bool,
    /// Run a deferred reception and its end in one step when nothing falls between them
    /// (`QuietNic::overhear`); off only to compare both ways (`Shortcuts`).
    fuse_overheard: bool,
    /// The same at a MAC that waits with its backoff paused (`Mac::waiting_overhear`);
    /// off only to compare (`Shortcuts`).
    fuse_waiting: bool,
    /// A MAC that waits for the medium with a paused backoff (`Mac::waits_quietly`)
    /// counts as quiet too: its receptions, reception ends and NAV ends only change its
    /// own state until its backoff ends, which is never before `Wireless::wait_end`.
    /// A wake-up event (`Event::MacWake`, its own slot, not counted as an event) just
    /// before that time makes it catch up and, if its backoff runs by then, enter the
    /// queue with its timer's key. Its catch-up runs the MAC's general paths
    /// (`Mac::rx_start`, `Mac::handle_timeout`) instead of the quiet ones.
    wait_quietly: bool,
    /// While a waiting MAC's backoff stays paused, its timer events in the catch-up go
    /// through `Mac::waiting_timeout`; off only to compare both ways (`Shortcuts`).
    waiting_quiet: bool,
    /// Pops of the queue (counted events and wake-ups) at the last sweep: wake-ups are
    /// not counted as events, so they start a sweep themselves once `SWEEP_EVERY` pops
    /// passed, which keeps at most 2 `SWEEP_EVERY` pops between sweeps.
    swept_at_pop: u64,
    /// A catch-up left MAC output (`Wireless::check_caught_up`): what the run loop
    /// stops with at its next sweep.
    pub(crate) internal_error: Option<String>,
    /// `--pcap`: a catch-up notes each decodable reception it runs in `captures`,
    /// which the world writes to the NIC's capture before anything else reaches it
    /// (`World::write_lazy_captures`), from `air_records`: per logged frame, the
    /// record its receivers' captures hold (the packet may be gone from the pool by
    /// then).
    capture: bool,
    air_records: Vec<Box<[u8]>>,
    captures: Vec<LazyCapture>,
    /// `--trace ns2`: the MACs keep the deliveries they only count
    /// (`Mac::keep_counted_deliveries`), which the world writes as trace lines
    /// (`World::trace_counted_deliveries`).
    trace_deliveries: bool,
    /// Counted deliveries whose reception ends before this reach routing before the
    /// run ends (`set_run_end`).
    quiet_up_until: SimTime,
}

impl Fast {
    pub(super) fn new(
        rx_power: &RxPower,
        cs_range_m: f64,
        mobility: &Mobility,
        nics: &[Nic],
        shortcuts: Shortcuts,
    ) -> Self {
        let nics_len = nics.len();
        let area = mobility.area();
        // How far two nodes' distance can change while a frame propagates, besides the
        // movement itself: a bound far above the rounding of positions and distances (m).
        let dist_slack_m = 1e-6 * (1.0 + area.x_max.abs() + area.y_max.abs());
        let near_margin = (
            2.0 * mobility.max_speed() / propagation::SPEED_OF_LIGHT,
            2.0 * mobility.max_speed() * 1e-9 + dist_slack_m,
        );
        // A sensed frame's distance is within the range (up to rounding, which the
        // factor 2 covers many times over).
        let decodable_sure =
            rx_power.decodable_sure(2.0 * (cs_range_m * near_margin.0 + near_margin.1));
        let mut loud = vec![0u64; nics_len.div_ceil(64)];
        for (j, _) in nics
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.mac.timers_are_quiet())
        {
            loud[j / 64] |= 1 << (j % 64);
        }
        Fast {
            sense: rx_power.sense_bound(cs_range_m),
            scratch_rx: Vec::new(),
            air_log: Vec::new(),
            air_frames: Vec::new(),
            log_base: 0,
            air_real: Vec::new(),
            real_base: 0,
            real_words: nics_len.div_ceil(64),
            real_frames: VecDeque::new(),
            log_broadcasts: shortcuts.log_broadcasts && decodable_sure.is_some(),
            tapped_data: nics.iter().any(|n| n.mac.tap_on()),
            quiet_duplicates: shortcuts.quiet_duplicates,
            log_cursor: vec![0; nics_len],
            rx_src: vec![(0, SimTime::ZERO); nics_len],
            loud,
            virt_chain: vec![ArmerChain::default(); nics_len],
            pins: Vec::new(),
            pending_keys: Vec::new(),
            near_margin,
            decodable_sure,
            deferred_mac_timers: shortcuts.defer_quiet_mac_timers,
            fuse_overheard: shortcuts.fuse_overheard,
            fuse_waiting: shortcuts.fuse_waiting,
            wait_quietly: shortcuts.wait_quietly,
            waiting_quiet: shortcuts.waiting_quiet,
            swept_at_pop: 0,
            internal_error: None,
            capture: false,
            air_records: Vec::new(),
            captures: Vec::new(),
            trace_deliveries: false,
            quiet_up_until: SimTime::MAX,
        }
    }
}

/// Events between sweeps of overdue virtual MAC timer events (`sweep_mac_timers`); well
/// below the pop history lazy keys are resolved in (`sim::lazy`, rule 3). A sweep sets up a catch-up for every
/// NIC, most of which find little to do: 1024 cost 0.3 % more instructions at 16 kb/s
/// (0.6 % at 64 kb/s) than 2048. Fewer than 2 `SWEEP_EVERY` pops fall between two
/// sweeps (wake-ups start one too), and the history keeps twice that.
pub(crate) const SWEEP_EVERY: u64 = 2048;
const _: () = assert!(SWEEP_EVERY * 4 <= crate::sim::EventQueue::<Event>::HISTORY as u64);

impl Wireless {
    /// Whether NIC `i`'s MAC was quiet after its last input.
    #[inline]
    fn is_quiet(&self, i: usize) -> bool {
        self.fast.loud[i / 64] >> (i % 64) & 1 == 0
    }

    /// How the run ends: at `stop_at` (or when the queue runs dry), or perhaps earlier
    /// (`may_end_early`: when its flows finish). A packet the MAC delivers reaches
    /// routing `ll_delay` after its reception ends, so a `Frame::quiet_up` delivery
    /// counts for routing only if that is before the stop (the stop event, scheduled
    /// first, comes before every other event at its time); an early end could fall
    /// between the two, so quiet deliveries are off then.
    pub(crate) fn set_run_end(&mut self, stop_at: Option<SimTime>, may_end_early: bool) {
        self.fast.quiet_duplicates &= !may_end_early;
        let until = stop_at.map_or(SimTime::MAX, |s| {
            SimTime::from_nanos(s.as_nanos().saturating_sub(self.ll_delay.as_nanos()))
        });
        self.fast.quiet_up_until = until;
        for n in &mut self.nics {
            n.mac.set_quiet_up_until(until);
        }
    }

    /// A catch-up gives the MAC only inputs it takes quietly, so it must leave no
    /// output: a frame or event left there would go out late, at the MAC's next real
    /// input, and change the run without a sign. Release builds check too (one load
    /// per catch-up); a breach is kept for the run loop, which stops the run with
    /// `Error::Internal`.
    #[inline(always)]
    pub(crate) fn check_caught_up(&mut self, nic: u32, last: Option<SimTime>) {
        if self.nics[nic as usize].mac.has_output() {
            self.caught_up_with_output(nic, last);
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn caught_up_with_output(&mut self, nic: u32, last: Option<SimTime>) {
        if self.fast.internal_error.is_some() {
            return;
        }
        let n = &self.nics[nic as usize];
        self.fast.internal_error = Some(format!(
            "the catch-up of node {}'s wireless NIC {nic} (its last input at {}) left MAC \
             output, which would have gone out late",
            n.node.idx(),
            last.map_or("none".to_string(), |t| format!("{:.9} s", t.as_secs_f64())),
        ));
    }
}

impl Wireless {
    /// The sweep's lineages (`sim::lazy`, rule 5), once every NIC caught up and pinned
    /// its pending number: each NIC's pinned event and each lazy event in the queue
    /// keeps its lineage only if a tie can need it (`sim::may_tie`).
    fn settle_lineages(&mut self, q: &mut crate::sim::EventQueue<crate::world::Event>) {
        let keys = &mut self.fast.pending_keys;
        keys.clear();
        keys.extend(self.nics.iter().filter_map(|n| match n.mac_timer.virt {
            Some(LazySeq::Known(s)) => n.mac_timer.slot.pending().map(|at| EventKey::new(at, s)),
            _ => None,
        }));
        q.lazy_slot_keys(keys);
        keys.sort_unstable();
        let next_seq = q.next_seq();
        let wake_max = wake_seq(self.nics.len().saturating_sub(1) as u32);
        let needed = |k: EventKey| may_tie(k, keys, next_seq, wake_max);
        for (nic, v) in self.fast.pins.drain(..) {
            let n = &self.nics[nic as usize];
            let k = match (n.mac_timer.virt, n.mac_timer.slot.pending()) {
                (Some(LazySeq::Known(s)), Some(at)) => EventKey::new(at, s),
                _ => unreachable!("a pinned NIC has a pending known number"),
            };
            self.fast.virt_chain[nic as usize].settle_pin(v, needed(k), q);
        }
        q.settle_notes(needed);
    }

    /// Before a frame's first bit reaches `nic`'s MAC: a deferred reception may have
    /// left out the power of the frame the MAC is receiving (`Mac::needs_power`); capture
    /// needs it now, from the positions when that frame arrived (`Fast::rx_src`).
    #[inline]
    pub(in crate::world::wireless) fn fill_left_out_power(&mut self, nic: u32) {
        if self.nics[nic as usize].mac.needs_power().1 {
            let (src, t) = self.fast.rx_src[nic as usize];
            let p = self.power_at(nic, src as usize, t).1;
            self.nics[nic as usize].mac.set_rx_power(p);
        }
    }
}

impl World {
    /// The accelerators' hook before every real input of `nic`'s MAC (a reception, a
    /// packet from the link layer, its timer event): its lazy events that come before
    /// the input (the event just popped) run first, in key order.
    #[inline(always)]
    pub(in crate::world::wireless) fn run_lazy_before_input(&mut self, nic: u32) {
        let key = self.queue.last_key();
        self.mac_catch_up(nic, key);
    }

    /// Runs a NIC's virtual timer events and deferred receptions that come before the
    /// event with key `before` (time, sequence number), in key order, as `mac_timer` and
    /// `rx_start` would have run them. Returns the time of the last one run.
    // Always inlined: it was a call of its own from the run loop's handlers (192 k in
    // 40 s at 16 kb/s), a third of which return at its first test.
    #[inline(always)]
    fn mac_catch_up(&mut self, nic: u32, before: EventKey) -> Option<SimTime> {
        let World {
            wireless, queue, ..
        } = self;
        let w = wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds");
        let n = &w.nics[nic as usize];
        if n.fast.deferred_rx.is_empty() && !w.log_pending(nic) {
            // No reception to run: at most the virtual timer event, which a catch-up
            // would leave alone if it comes after `before` (1 in 8 calls at 16 kb/s, each
            // ~150 instructions of setting up the catch-up).
            return match (n.mac_timer.virt, n.mac_timer.slot.pending()) {
                (None, _) => None,
                (Some(_), Some(at)) if at > before.time() => None,
                _ => w.catch_up_timers(nic, before, queue),
            };
        }
        w.catch_up(nic, before, queue)
    }
    /// Runs the virtual MAC timer events that are already due (`sim::lazy`, rule 3).
    pub(in crate::world) fn sweep_mac_timers(&mut self) {
        let pops = self.queue.pops();
        if let Some(w) = self.wireless.as_deref_mut() {
            w.fast.swept_at_pop = pops;
        }
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        let before = self.queue.last_key();
        for nic in 0..n as u32 {
            self.mac_catch_up(nic, before);
            // Pin down a pending number while its parent is still in the pop history.
            let w = self.wireless.as_deref_mut().expect("wireless world");
            let slot = &mut w.nics[nic as usize].mac_timer;
            if let Some(v) = slot.virt {
                let pinned = v.pin_number(&w.fast.virt_chain[nic as usize], &self.queue);
                if pinned != v {
                    w.fast.pins.push((nic, v));
                }
                slot.virt = Some(pinned);
            }
        }
        if let Some(w) = self.wireless.as_deref_mut() {
            w.settle_lineages(&mut self.queue);
        }
        // Before the log drops the frames they need.
        self.write_lazy_captures();
        self.trace_counted_deliveries();
        if let Some(w) = self.wireless.as_deref_mut() {
            w.trim_log();
        }
        self.tracer.release_ns2(Some(before.time()));
    }

    /// At the end of a run: runs every virtual MAC timer event that would have come
    /// before the last event popped (all of them if the queue ran dry). Returns the
    /// latest time of those run.
    pub(in crate::world) fn finish_mac_timers(&mut self, drained: bool) -> Option<SimTime> {
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        let before = if drained {
            EventKey::NONE
        } else {
            self.queue.last_key()
        };
        let last = (0..n as u32)
            .filter_map(|nic| self.mac_catch_up(nic, before))
            .max();
        self.write_lazy_captures();
        self.trace_counted_deliveries();
        // Every line is known now: out before the last look at the files' size.
        self.tracer.release_ns2(None);
        // The repeated route requests whose deliveries the MACs only counted.
        if let Some(w) = self.wireless.as_deref_mut() {
            for n in &mut w.nics {
                let k = n.mac.take_quiet_ups();
                if let Some(a) = n.routing.as_mut().and_then(|r| r.aodv_mut()) {
                    a.count_repeated_requests(k);
                } else {
                    debug_assert_eq!(k, 0, "quiet deliveries at a NIC without AODV");
                }
            }
        }
        last
    }
}
