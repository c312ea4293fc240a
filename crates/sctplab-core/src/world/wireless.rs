//! The wireless half of the world: the shared channel, one 802.11 MAC (with its interface
//! queue) and one routing agent per wireless NIC, and the link layer between them, wired
//! to the event loop as ns-2.35's mobile node stacks them:
//!
//! ```text
//! agent -> routing (AODV) -> LL (ARP, delay) -> IFQ -> MAC -> channel
//! channel -> MAC -> LL (delay) -> routing -> agent, or back down when forwarding
//! channel -> MAC -> LL -> ARP (requests answered, held packets released)
//! ```
//!
//! The channel delivers each frame to every NIC within carrier-sense range (found through
//! the grid), after the propagation delay; the MAC does the rest (reception timing,
//! collisions, capture, carrier sense). Positions come from the mobility model on demand.

use super::mac_digest::{Input, InputDigest, frame_key};
use super::shortcuts::Shortcuts;
use super::{Event, NO_FLOW, World};
use crate::net::wire::{TransportRepr, UdpRepr};
use crate::net::{IfaceId, NodeId, PacketId, PacketKind};
use crate::sim::{EventQueue, HistoryCursor, SEQ_STEP, SimDuration, SimTime, TimerSlot, wake_seq};
use crate::wireless::aodv::{AODV_UDP_PORT, Aodv, AodvEvent, AodvOut, BROADCAST, RouteDecision};
use crate::wireless::arp::{ARP_HDR_LEN, ArpEvent, ArpMsg, ArpOp, ArpTable};
use crate::wireless::frame::{Frame, MacAddr};
use crate::wireless::grid::Grid;
use crate::wireless::mac::{Mac, MacEvent};
use crate::wireless::mobility::{Mobility, Track};
use crate::wireless::ns2_size::ns2_size;
use crate::wireless::propagation::{self, PhyCfg, Reception};
use std::collections::VecDeque;

/// How long after a broadcast frame ends its packet stays alive: receivers copy it when
/// their reception ends, up to one propagation delay later (under 2 us at 550 m).
const BROADCAST_RELEASE_GUARD: SimDuration = SimDuration::from_micros(10);

/// Events between sweeps of overdue virtual MAC timer events (`sweep_mac_timers`); well
/// below the pop history `seq_after` looks into. A sweep sets up a catch-up for every
/// NIC, most of which find little to do: 1024 cost 0.3 % more instructions at 16 kb/s
/// (0.6 % at 64 kb/s) than 2048. Fewer than 2 `SWEEP_EVERY` pops fall between two
/// sweeps (wake-ups start one too), and the history keeps twice that.
pub(super) const SWEEP_EVERY: u64 = 2048;
const _: () = assert!(SWEEP_EVERY * 4 <= crate::sim::EventQueue::<Event>::HISTORY as u64);

/// `PhyCfg::rx_power` with the parts that do not depend on the distance computed once.
/// Every remaining operation is the same, in the same order, so the result is the same
/// to the bit (test `rx_power_cache_is_bit_identical`); it saves three divisions per call.
///
/// It also classifies by distance alone, with no power computed: each branch of the
/// formula (free space up to the cross-over, two-ray ground beyond) is a chain of
/// correctly rounded operations that are each monotone in the distance, so on each
/// branch the distances whose power is at or above a threshold are exactly those up to
/// a last one, found once by bisection over the floating-point numbers. The answer is
/// `PhyCfg::classify` of the power, to the bit (test `classify_by_distance_is_exact`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct RxPower {
    crossover_m: f64,
    lambda_m: f64,
    /// `Pt * Gt * Gr`, `Pt * Gt * Gr * h^4`, `L`.
    p0: f64,
    two_ray_num: f64,
    loss: f64,
    /// The last distance at or below the cross-over, and the last beyond it, whose power
    /// is at or above the carrier-sense (`cs`) and receive (`rx`) thresholds; -1 for
    /// none. `None` when the parameters are not all positive and finite (then the
    /// power is computed and compared).
    cs: Option<(f64, f64)>,
    rx: Option<(f64, f64)>,
    cs_thresh_w: f64,
    rx_thresh_w: f64,
}

impl RxPower {
    pub(crate) fn new(phy: &PhyCfg) -> Self {
        let h = phy.antenna_height_m;
        let p0 = phy.pt_w * phy.gt * phy.gr;
        let mut r = RxPower {
            crossover_m: phy.crossover_m(),
            lambda_m: phy.lambda_m(),
            p0,
            two_ray_num: p0 * (h * h * h * h),
            loss: phy.system_loss,
            cs: None,
            rx: None,
            cs_thresh_w: phy.cs_thresh_w,
            rx_thresh_w: phy.rx_thresh_w,
        };
        let sane = [
            phy.pt_w,
            phy.gt,
            phy.gr,
            phy.antenna_height_m,
            phy.freq_hz,
            phy.system_loss,
            phy.cs_thresh_w,
            phy.rx_thresh_w,
            r.crossover_m,
            r.lambda_m,
            r.p0,
            r.two_ray_num,
        ]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0);
        if sane {
            r.cs = Some(r.last_at_or_above(phy.cs_thresh_w));
            r.rx = Some(r.last_at_or_above(phy.rx_thresh_w));
        }
        r
    }

    /// The last distance on each branch whose power is at or above `thresh` (-1: none).
    fn last_at_or_above(&self, thresh: f64) -> (f64, f64) {
        let ok = |d: f64| not_below(self.at(d), thresh);
        // The largest d in [lo, hi] (both non-negative) with ok(d), if ok is true up to
        // some point and false after it. Non-negative floats order as their bits.
        let last = |lo: f64, hi: f64| -> f64 {
            if !ok(lo) {
                return -1.0;
            }
            if ok(hi) {
                return hi;
            }
            let (mut a, mut b) = (lo.to_bits(), hi.to_bits());
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if ok(f64::from_bits(m)) {
                    a = m;
                } else {
                    b = m;
                }
            }
            f64::from_bits(a)
        };
        let c = self.crossover_m;
        (
            last(0.0, c),
            last(f64::from_bits(c.to_bits() + 1), f64::INFINITY),
        )
    }

    #[inline]
    pub(crate) fn at(&self, dist_m: f64) -> f64 {
        let d = dist_m.max(propagation::MIN_DISTANCE_M);
        if d <= self.crossover_m {
            let m = self.lambda_m / (4.0 * std::f64::consts::PI * d);
            self.p0 * m * m / self.loss
        } else {
            self.two_ray_num / (d * d * d * d * self.loss)
        }
    }

    #[inline]
    fn within(&self, bounds: Option<(f64, f64)>, thresh: f64, d: f64) -> bool {
        match bounds {
            Some((near, far)) => d <= if d <= self.crossover_m { near } else { far },
            None => not_below(self.at(d), thresh),
        }
    }

    /// `PhyCfg::classify(self.at(d))` (with `phy`'s thresholds).
    #[inline]
    pub(crate) fn classify(&self, d: f64) -> Reception {
        if !self.within(self.cs, self.cs_thresh_w, d) {
            Reception::NotSensed
        } else if !self.within(self.rx, self.rx_thresh_w, d) {
            Reception::Errored
        } else {
            Reception::Decodable
        }
    }

    /// Whether a frame is decodable (power at or above RXThresh) at every distance within
    /// `margin` of `d`, or at none; `None` if that is not certain. The answer can change
    /// only just after one of the bounds or the cross-over, so it is certain when none
    /// of those lies in [d - margin, d + margin).
    // Always inlined: left to the inliner it went out of line in the catch-up (a call
    // per overheard frame).
    #[inline(always)]
    pub(crate) fn decodable_near(&self, d: f64, margin: f64) -> Option<bool> {
        let (near, far) = self.rx?;
        let (lo, hi) = (d - margin, d + margin);
        let clear = |b: f64| b < lo || b >= hi;
        (clear(near) && clear(far) && clear(self.crossover_m))
            .then_some(d <= if d <= self.crossover_m { near } else { far })
    }

    /// When the distances at which a frame is decodable (by RXThresh, as in
    /// `decodable_near`) are exactly [0, t], and RXThresh is not below CSThresh (so that
    /// they are sensed too, as `classify` asks): (t - w, t + w). A frame at `d`, with
    /// `margin` at most `w / 2`, is then decodable throughout `margin` of `d` if `d` is at
    /// or below the first, and nowhere if above the second; one or two comparisons
    /// instead of `decodable_near`'s six. With the default radio the decodable set is
    /// [0, far], the cross-over not being a change of the answer.
    pub(crate) fn decodable_sure(&self, w: f64) -> Option<(f64, f64)> {
        let (near, far) = self.rx?;
        let c = self.crossover_m;
        let t = if near == c && far > c {
            far
        } else if near >= 0.0 && near < c && far < 0.0 {
            near
        } else {
            return None;
        };
        (self.rx_thresh_w >= self.cs_thresh_w && w.is_finite() && w > 0.0).then_some((t - w, t + w))
    }

    /// Whether a frame from `d` away is sensed (power at or above CSThresh).
    #[inline]
    pub(crate) fn sensed(&self, d: f64) -> bool {
        self.within(self.cs, self.cs_thresh_w, d)
    }

    /// The range test (`within_range` with `r`) and `sensed` of the distance as one
    /// bound on the squared distance, where that is exact (see `SenseBound`).
    pub(crate) fn sense_bound(&self, r: f64) -> SenseBound {
        let rr = r * r;
        let fallback = SenseBound {
            max_sq: rr,
            exact: false,
        };
        let Some((near, far)) = self.cs else {
            return fallback;
        };
        if rr.is_nan() {
            return fallback;
        }
        // In squared distances s (d = sqrt(s), correctly rounded, so monotone): sensed
        // are those up to `sq(near)` and those above `sq(crossover)` up to `sq(far)`.
        // One bound decides it when the second stretch is empty or continues the first.
        let sq = |x: f64| (x >= 0.0).then(|| last_sq_at_most(x));
        let sc = last_sq_at_most(self.crossover_m);
        let upto = match (sq(near), sq(far)) {
            (sn, None) => sn,
            (sn, Some(sf)) if sf <= sc => sn,
            (Some(sn), Some(sf)) if sn >= sc => Some(sf),
            _ => return fallback,
        };
        SenseBound {
            // Both operands are numbers, so `min` is the smaller one.
            max_sq: upto.map_or(-1.0, |u| u.min(rr)),
            exact: true,
        }
    }
}

/// The largest non-negative `s` with `s.sqrt() <= x` (`x` >= 0). The square root is
/// correctly rounded, hence monotone, and non-negative floats order as their bits.
fn last_sq_at_most(x: f64) -> f64 {
    if f64::INFINITY.sqrt() <= x {
        return f64::INFINITY;
    }
    let (mut a, mut b) = (0u64, f64::INFINITY.to_bits());
    while b - a > 1 {
        let m = a + (b - a) / 2;
        if f64::from_bits(m).sqrt() <= x {
            a = m;
        } else {
            b = m;
        }
    }
    f64::from_bits(a)
}

/// Whether a frame is sensed from a squared distance `s` (a sum of two squares, so
/// non-negative or NaN), as `within_range` and `RxPower::sensed` decide it together:
/// with `exact`, `s <= max_sq` alone (test `sense_bound_is_exact`), which saves the
/// distance's classification on every frame a quiet NIC reads; otherwise `max_sq` is
/// the range's square and `sensed` must still be asked.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SenseBound {
    max_sq: f64,
    exact: bool,
}

/// `!(p < t)`, as `PhyCfg::classify` compares (NaN is not below).
#[inline]
fn not_below(p: f64, t: f64) -> bool {
    p.partial_cmp(&t) != Some(std::cmp::Ordering::Less)
}

/// A pending MAC timer event: its deadline and generation (stale events are ignored).
#[derive(Default)]
pub(crate) struct MacTimerSlot {
    pub at: Option<SimTime>,
    pub generation: u32,
    /// MAC timers only: the pending event is virtual (not in the queue), with this
    /// sequence number (see `Wireless::deferred_mac_timers`).
    pub virt: Option<VirtSeq>,
}

/// The sequence number of a virtual MAC timer event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VirtSeq {
    /// Reserved from the queue when it was armed.
    Known(u64),
    /// Armed by a chain of virtual events: the first of them was armed by the event
    /// numbered .0, each later one by the one before it, and this one by the last. Their
    /// times are the NIC's `Wireless::virt_chain`, oldest first. The number is
    /// `EventQueue::seq_after` of the last one's key, looked up only when needed (a tie
    /// in time, entering the queue, or the periodic sweep), and a link's own number only
    /// when an event was popped at the very time of the link after it.
    Chain(u64),
}

/// Links a chain may have before its number is looked up and it starts again: the
/// sweep pins every chain every `SWEEP_EVERY` events, so this only bounds the odd long
/// catch-up (the end of a run).
const MAX_CHAIN: usize = 64;

impl VirtSeq {
    fn resolve(self, chain: &ChainTimes, q: &EventQueue<Event>) -> u64 {
        self.resolve_from(chain, q, &mut HistoryCursor::default())
    }

    /// `resolve`, the outermost lookup through `cur` (within one catch-up the armers'
    /// times do not go back; the inner ones, only needed on a tie, do).
    fn resolve_from(
        self,
        chain: &ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> u64 {
        match self {
            VirtSeq::Known(s) => s,
            VirtSeq::Chain(base) => match chain.times[..chain.len].split_last() {
                Some((&t, rest)) => q.seq_after_lazy_from(cur, t, || chain_seq(q, base, rest)),
                None => base,
            },
        }
    }

    /// The number of an event armed by the virtual event (`at`, self); `chain` is the
    /// NIC's.
    fn child(
        self,
        at: SimTime,
        chain: &mut ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> VirtSeq {
        let base = match self {
            VirtSeq::Chain(b) if chain.len < MAX_CHAIN => {
                chain.times[chain.len] = at;
                chain.len += 1;
                return VirtSeq::Chain(b);
            }
            VirtSeq::Chain(_) => self.resolve_from(chain, q, cur),
            VirtSeq::Known(s) => s,
        };
        chain.times[0] = at;
        chain.len = 1;
        VirtSeq::Chain(base)
    }

    /// `self.child(p, ..).child(e, ..)`: the number of an event armed at `e` by the
    /// event that the virtual event (`p`, self) armed, both links added at once while
    /// the chain has room for them.
    #[inline(always)]
    fn grandchild(
        self,
        p: SimTime,
        e: SimTime,
        chain: &mut ChainTimes,
        q: &EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> VirtSeq {
        match self {
            VirtSeq::Chain(b) if chain.len + 2 <= MAX_CHAIN => {
                let k = chain.len;
                chain.times[k] = p;
                chain.times[k + 1] = e;
                chain.len = k + 2;
                VirtSeq::Chain(b)
            }
            _ => self.child(p, chain, q, cur).child(e, chain, q, cur),
        }
    }
}

/// The times of a NIC's chain links (`VirtSeq::Chain`), in a fixed array: a link is
/// added at nearly every virtual event, and a store here is cheaper than a `Vec` push.
#[derive(Clone, Copy)]
pub(crate) struct ChainTimes {
    len: usize,
    times: [SimTime; MAX_CHAIN],
}

impl Default for ChainTimes {
    fn default() -> Self {
        ChainTimes {
            len: 0,
            times: [SimTime::ZERO; MAX_CHAIN],
        }
    }
}

/// The number of the event armed by the last of `times`, the first of them armed by
/// the event numbered `base` (see `VirtSeq::Chain`).
fn chain_seq(q: &EventQueue<Event>, base: u64, times: &[SimTime]) -> u64 {
    match times.split_last() {
        Some((&t, rest)) => q.seq_after_lazy(t, || chain_seq(q, base, rest)),
        None => base,
    }
}

/// The node whose own NICs do not receive a frame sent by `sender`'s node: the sender's
/// node itself, as ns-2.35's channel skips it (`WirelessChannel::sendUp`, mac/channel.cc:
/// `if (rnode == tnode) continue`), or no node (`usize::MAX`) with `same_node_delivery`.
fn deaf_node(same_node_delivery: bool, sender: usize) -> usize {
    if same_node_delivery {
        usize::MAX
    } else {
        sender
    }
}

pub(crate) struct Nic {
    pub node: NodeId,
    pub iface: IfaceId,
    pub addr: [u8; 4],
    pub mac: Mac,
    pub aodv: Option<Aodv>,
    /// The NIC's ARP table (`[wireless] arp`, on by default as in ns-2.35).
    pub arp: Option<ArpTable>,
    pub mac_timer: MacTimerSlot,
    /// Deferred receptions (`Wireless::deferred_mac_timers`): `RxStart` events kept out
    /// of the queue, in key order.
    pub deferred_rx: VecDeque<DeferredRx>,
    pub aodv_timer: TimerSlot,
    /// A second (third, ...) NIC of a multihomed node carries only traffic to or from its
    /// own address (CONTRACTS.md): it neither forwards nor floods others' route requests.
    pub own_traffic_only: bool,
    /// Packets taken back out of the interface queue after a link break (ns-2 "CBK").
    pub ifq_purged: u64,
    /// Its MAC waited quietly (`Mac::waits_quietly`) after its last input, so it counts
    /// as quiet and its catch-up runs the MAC's general paths (`Wireless::wait_quietly`).
    pub waiting: bool,
    /// When its pending wake-up (`Event::MacWake`) pops, if one is pending.
    pub wake_at: Option<SimTime>,
    /// Its MAC's inputs in order (computed in test builds only).
    pub digest: InputDigest,
}

/// A deferred `RxStart` (time, sequence number, the frame's place in the air log) and
/// the distance between sender and receiver when the frame went on the air.
#[derive(Copy, Clone, Debug)]
pub(crate) struct DeferredRx {
    at: SimTime,
    seq: u64,
    log: u64,
    dist_tx: f64,
}

/// A unicast frame as it went on the air, for the quiet NICs that look at it later
/// (`LogReader::read`): when, from where, from whom, and the first of the sequence
/// numbers its receivers take (NIC `j` takes `seq0 + j * step`). The frame itself is
/// kept apart (`Wireless::air_frames`): reading the log skips most of them.
#[derive(Copy, Clone, Debug)]
struct LoggedFrame {
    at: SimTime,
    /// When the next logged frame went on the air (`SimTime::MAX` until there is one):
    /// `LogReader::stage` looks for frames that overtake this one only if that is not
    /// later than this one's arrival, without reaching for the next entry.
    next_at: SimTime,
    here: (f64, f64),
    seq0: u64,
    sender_nic: u32,
    sender_node: u32,
    dst: MacAddr,
    /// For a broadcast frame, where its bit set of the quiet NICs that got real events
    /// starts in `Wireless::air_real` (`NO_REAL` for a unicast frame, whose addressee
    /// `dst` alone got one among the quiet NICs): a quiet NIC reading the entry skips
    /// the frame if its bit is set.
    real: u32,
}

const NO_REAL: u32 = u32::MAX;

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
}

pub(crate) struct Wireless {
    pub phy: PhyCfg,
    rx_power: RxPower,
    pub mobility: Mobility,
    pub grid: Grid,
    pub cs_range_m: f64,
    /// `rx_power.sense_bound(cs_range_m)`.
    sense: SenseBound,
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
    /// `RxStart` events a transmission deferred, before they go to their NICs.
    /// Positions the last grid query computed, by node (valid for the nodes it returned).
    scratch_pos: Vec<(f64, f64)>,
    /// The last transmission's receiving nodes with their first bit's arrival time.
    scratch_recv: Vec<(u32, SimTime)>,
    /// The real `RxStart` events of a logged frame, before they enter the queue as a run.
    scratch_rx: Vec<(SimTime, u64, Event)>,
    /// Unicast frames put on the air with deferred receptions on, in transmission order:
    /// a quiet NIC gets no event and no list entry when a frame goes on the air, but
    /// reads the frames logged since its cursor when it next catches up (`LogReader::stage`).
    /// `air_log[0]` is frame number `log_base`; the sweep drops the frames every quiet
    /// NIC has read.
    air_log: Vec<LoggedFrame>,
    air_frames: Vec<Frame>,
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
    /// Per NIC: the times of the links of its pending `VirtSeq::Chain`.
    virt_chain: Vec<ChainTimes>,
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
    /// it would have had from `EventQueue::seq_after`. The keys so keep the plain
    /// way's order, but for one known breach: two NICs' virtual numbers can be equal,
    /// and then the NIC order decides a tie (world/manet_equivalence.rs pins the case
    /// its run meets). A sweep every
    /// `SWEEP_EVERY` events runs overdue virtual events, so that `seq_after` always
    /// finds them in its history.
    ///
    /// Receptions are deferred the same way: a frame's `RxStart` at a NIC that is quiet
    /// when the frame goes on the air, for a frame not addressed to it (so that the
    /// reception leaves it quiet), takes its key from the run but stays in the NIC's
    /// `deferred_rx`; catch-up runs it in key order with the virtual timer events, and
    /// it enters the queue with its key if the MAC stops being quiet first. Not while
    /// pcap or ns-2 traces are written (a reception may write a frame to the pcap).
    deferred_mac_timers: bool,
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
    /// A frame reaches the other NICs of the node that sends it (`[wireless]
    /// same_node_delivery`). Off by default, as in ns-2.35: `WirelessChannel::sendUp`
    /// (mac/channel.cc) skips the transmitting node (`if (rnode == tnode) continue`),
    /// so none of its interfaces receives or senses the frame.
    pub(crate) same_node_delivery: bool,
    /// `[wireless] ns2_packet_sizes`: the MAC charges data packets ns-2.35's sizes
    /// (`ns2_size`), with this IP header added by the routing agent.
    pub(crate) ns2_sizes: Option<u32>,
    /// A catch-up left MAC output (`Wireless::check_caught_up`): what the run loop
    /// stops with at its next sweep.
    pub(crate) internal_error: Option<String>,
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
        let nics_len = nics.len();
        let area = mobility.area();
        let rx_power = RxPower::new(&phy);
        let cs_range_m = phy.cs_range_m();
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
        Wireless {
            cs_range_m,
            sense: rx_power.sense_bound(cs_range_m),
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
            scratch_rx: Vec::new(),
            air_log: Vec::new(),
            air_frames: Vec::new(),
            log_base: 0,
            air_real: Vec::new(),
            real_base: 0,
            real_words: nics_len.div_ceil(64),
            real_frames: VecDeque::new(),
            log_broadcasts: shortcuts.log_broadcasts && decodable_sure.is_some(),
            quiet_duplicates: shortcuts.quiet_duplicates,
            log_cursor: vec![0; nics_len],
            rx_src: vec![(0, SimTime::ZERO); nics_len],
            loud,
            virt_chain: vec![ChainTimes::default(); nics_len],
            near_margin,
            decodable_sure,
            deferred_mac_timers: shortcuts.defer_quiet_mac_timers,
            fuse_overheard: shortcuts.fuse_overheard,
            fuse_waiting: shortcuts.fuse_waiting,
            wait_quietly: shortcuts.wait_quietly,
            waiting_quiet: shortcuts.waiting_quiet,
            swept_at_pop: 0,
            same_node_delivery: false,
            ns2_sizes: None,
            internal_error: None,
        }
    }

    fn alloc_frame(&mut self, frame: Frame, sender: u32) -> u32 {
        let f = OnAir {
            frame,
            left: 0,
            sender,
        };
        match self.free_frames.pop() {
            Some(i) => {
                self.frames[i as usize] = f;
                i
            }
            None => {
                self.frames.push(f);
                (self.frames.len() - 1) as u32
            }
        }
    }

    /// Takes one receiver's look at frame `slot`: the frame and its sender's node; the
    /// slot is freed after the last receiver.
    #[inline]
    fn take_frame(&mut self, slot: u32) -> (Frame, usize) {
        let f = &mut self.frames[slot as usize];
        let out = (f.frame, f.sender as usize);
        if f.left <= 1 {
            self.free_frames.push(slot);
        } else {
            f.left -= 1;
        }
        out
    }

    /// The number one past the last logged frame.
    #[inline]
    fn log_end(&self) -> u64 {
        self.log_base + self.air_log.len() as u64
    }

    /// Whether NIC `i`'s MAC was quiet after its last input.
    #[inline]
    fn is_quiet(&self, i: usize) -> bool {
        self.loud[i / 64] >> (i % 64) & 1 == 0
    }

    /// Whether quiet `nic` has logged frames it has not read.
    #[inline]
    fn log_pending(&self, nic: u32) -> bool {
        self.is_quiet(nic as usize) && self.log_cursor[nic as usize] < self.log_end()
    }

    /// Reads the frames logged since quiet `nic`'s cursor: each one it senses becomes a
    /// deferred reception (`LogReader::read`) in its list, in key order.
    fn pull_log(&mut self, nic: u32) {
        let end = self.log_end();
        let start = self.log_cursor[nic as usize];
        let mut qn = self.quiet_nic(nic);
        for g in start..end {
            if let Some(r) = qn.rd.read(g) {
                insert_in_order(&mut qn.n.deferred_rx, r);
            }
        }
        self.log_cursor[nic as usize] = end;
    }

    /// NIC `nic` with the parts of the world its catch-up uses, borrowed apart so that
    /// the loop indexes none of the world's vectors anew at each turn.
    #[inline(always)]
    fn quiet_nic(&mut self, nic: u32) -> QuietNic<'_> {
        let i = nic as usize;
        let Wireless {
            nics,
            air_log,
            air_frames,
            air_real,
            real_base,
            log_base,
            mobility,
            rx_power,
            virt_chain,
            rx_src,
            cs_range_m,
            near_margin,
            decodable_sure,
            sense,
            fuse_overheard,
            same_node_delivery,
            ..
        } = self;
        let n = &mut nics[i];
        let node = n.node.idx();
        let deaf_to = deaf_node(*same_node_delivery, node) as u32;
        QuietNic {
            n,
            chain: &mut virt_chain[i],
            src: &mut rx_src[i],
            nic,
            near_margin: *near_margin,
            sure: *decodable_sure,
            fuse: *fuse_overheard,
            rd: LogReader {
                entries: air_log,
                frames: air_frames,
                real: air_real,
                real_base: *real_base,
                base: *log_base,
                track: mobility.track(node),
                mobility,
                rx_power,
                cs_range_m: *cs_range_m,
                sense: *sense,
                seq_off: SEQ_STEP * u64::from(nic),
                nic,
                node,
                deaf_to,
            },
        }
    }

    /// The earliest time waiting `nic`'s MAC (`Mac::waits_quietly`) can put anything out
    /// unless an input comes first: `Mac::wait_bound` at its last input (`now`), with the
    /// frames it will sense that are already on the air (`Mac::wait_bound_sense`): its
    /// deferred receptions and, if it was quiet (its log cursor is then meaningful), the
    /// logged frames it has not read, which are read into its list now (the catch-up
    /// takes them from there).
    fn wait_end(&mut self, now: SimTime, nic: u32, was_quiet: bool) -> SimTime {
        if was_quiet && self.log_cursor[nic as usize] < self.log_end() {
            self.pull_log(nic);
        }
        let n = &self.nics[nic as usize];
        let mut b = n.mac.wait_bound(now);
        for r in &n.deferred_rx {
            let f = &self.air_frames[(r.log - self.log_base) as usize];
            if !n.mac.wait_bound_sense(&mut b, r.at, f.airtime, f.duration) {
                break;
            }
        }
        n.mac.wait_end(b)
    }

    /// Of the last logged frame, a broadcast one sent by `nic` from `here` at `now`:
    /// the quiet NICs that may decode it, by the distance a quiet NIC's log reader
    /// computes (`LogReader::read_entry`), get their `RxStart` events of frame `slot`
    /// in `out` (with the sequence numbers of block `seq0`) and their bits in the
    /// frame's words of `air_real`, unless the frame is route request `request` and
    /// the NIC's routing agent would only count it as a repeat when it takes it, at
    /// the latest by the request's third field (`Aodv::knows_request`; a NIC that
    /// carries only its own traffic, `Nic::own_traffic_only`, gets its event).
    #[allow(clippy::too_many_arguments)]
    fn near_quiet_receivers(
        &mut self,
        now: SimTime,
        nic: u32,
        here: (f64, f64),
        request: Option<(u32, u32, SimTime)>,
        seq0: u64,
        slot: u32,
        out: &mut Vec<(SimTime, u64, Event)>,
    ) {
        let within = self
            .decodable_sure
            .expect("broadcast frames are logged only with decodable_sure")
            .1;
        let words = self.air_real.len() - self.real_words;
        let sender = self.nics[nic as usize].node.idx();
        let skip_node = deaf_node(self.same_node_delivery, sender);
        let Wireless {
            mobility,
            grid,
            scratch,
            scratch_pos,
            nics,
            node_nics,
            loud,
            sense,
            rx_power,
            cs_range_m,
            air_real,
            ..
        } = self;
        let bits = &mut air_real[words..];
        // The grid's test is on squared distances: a metre more takes in every node
        // whose distance rounds to `within` or less.
        nodes_near(
            grid,
            mobility,
            scratch_pos,
            scratch,
            now,
            here,
            within + 1.0,
        );
        let step = SEQ_STEP;
        for &other in scratch.iter().filter(|&&o| o != skip_node) {
            for &j in &node_nics[other] {
                let quiet = loud[j as usize / 64] >> (j % 64) & 1 == 0;
                if j == nic || !quiet {
                    continue;
                }
                let d = sensed_within(here, scratch_pos[other], *sense, rx_power, *cs_range_m);
                if let Some(d) = d.filter(|&d| d <= within) {
                    let n = &nics[j as usize];
                    debug_assert_eq!(n.node.idx(), other);
                    if let Some((src, id, by)) = request {
                        if !n.own_traffic_only
                            && n.aodv
                                .as_ref()
                                .is_some_and(|a| a.knows_request(src, id, by))
                        {
                            continue;
                        }
                    }
                    bits[j as usize / 64] |= 1 << (j % 64);
                    out.push((
                        now + propagation::prop_delay(d),
                        seq0 + step * u64::from(j),
                        Event::RxStart(j, slot),
                    ));
                }
            }
        }
    }

    /// How the run ends: at `stop_at` (or when the queue runs dry), or perhaps earlier
    /// (`may_end_early`: when its flows finish). A packet the MAC delivers reaches
    /// routing `ll_delay` after its reception ends, so a `Frame::quiet_up` delivery
    /// counts for routing only if that is before the stop (the stop event, scheduled
    /// first, comes before every other event at its time); an early end could fall
    /// between the two, so quiet deliveries are off then.
    pub(crate) fn set_run_end(&mut self, stop_at: Option<SimTime>, may_end_early: bool) {
        self.quiet_duplicates &= !may_end_early;
        let until = stop_at.map_or(SimTime::MAX, |s| {
            SimTime::from_nanos(s.as_nanos().saturating_sub(self.ll_delay.as_nanos()))
        });
        for n in &mut self.nics {
            n.mac.set_quiet_up_until(until);
        }
    }

    /// Drops the logged frames no quiet NIC has yet to read or receive.
    fn trim_log(&mut self) {
        let mut keep = self.log_end();
        for (i, n) in self.nics.iter().enumerate() {
            if self.is_quiet(i) {
                keep = keep.min(self.log_cursor[i]);
            }
            for r in &n.deferred_rx {
                keep = keep.min(r.log);
            }
        }
        let k = (keep - self.log_base) as usize;
        if k > 0 {
            self.air_log.drain(..k);
            self.air_frames.drain(..k);
            self.log_base = keep;
            let mut words = 0;
            while self.real_frames.front().is_some_and(|&g| g < keep) {
                self.real_frames.pop_front();
                words += self.real_words;
            }
            self.air_real.drain(..words);
            self.real_base = self.real_base.wrapping_add(words as u32);
        }
    }

    /// A logged frame and its sender's node.
    #[inline]
    fn logged(&self, g: u64) -> (Frame, usize) {
        let k = (g - self.log_base) as usize;
        (self.air_frames[k], self.air_log[k].sender_node as usize)
    }

    /// Received power at `nic` of a frame from node `sender` whose first bit arrives at
    /// `at` (positions at that time).
    fn power_at(&mut self, nic: u32, sender: usize, at: SimTime) -> (f64, f64) {
        let me = self.nics[nic as usize].node.idx();
        power_between(&mut self.mobility, &self.rx_power, sender, me, at)
    }

    /// Hands a frame's first bit to `nic`'s MAC. `power` may be left out: it is then
    /// computed only if capture needs it, now or when a later frame overlaps this one.
    fn mac_rx_start(
        &mut self,
        nic: u32,
        at: SimTime,
        frame: &Frame,
        sender: usize,
        decodable: bool,
        power: Option<f64>,
    ) {
        let (receiving, fill) = self.nics[nic as usize].mac.needs_power();
        if fill {
            let (src, t) = self.rx_src[nic as usize];
            let p = self.power_at(nic, src as usize, t).1;
            self.nics[nic as usize].mac.set_rx_power(p);
        }
        let p = match power {
            Some(p) => p,
            None if receiving => self.power_at(nic, sender, at).1,
            None => {
                self.rx_src[nic as usize] = (sender as u32, at);
                f64::NAN
            }
        };
        self.nics[nic as usize]
            .mac
            .rx_start(at, frame, p, decodable);
    }

    /// `World::mac_catch_up`: the quiet MAC's virtual timer events run through
    /// `Mac::quiet_timeout` and its deferred receptions through `QuietNic::deferred_rx_start`
    /// (or, with their ends, `QuietNic::overhear`).
    #[inline]
    fn catch_up(
        &mut self,
        nic: u32,
        before: (SimTime, u64),
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        // A waiting MAC (or one whose backoff resumed since) takes the general paths,
        // but for the overheard frames its backoff stays paused through: one loop for
        // each kind, so that a quiet MAC's frames test none of the waiting one's flags.
        if self.nics[nic as usize].waiting {
            self.catch_up_as::<true>(nic, before, q)
        } else {
            self.catch_up_as::<false>(nic, before, q)
        }
    }

    /// `catch_up` of a waiting MAC (`GENERAL`) or a quiet one.
    #[inline(never)]
    fn catch_up_as<const GENERAL: bool>(
        &mut self,
        nic: u32,
        before: (SimTime, u64),
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        let i = nic as usize;
        // Logged frames are read as the loop reaches them (`LogReader::stage`), not all
        // into the list first: `staged` is the next one, earlier than every frame not
        // yet read; the list holds those read before (an earlier catch-up's leftovers,
        // or frames read ahead of `staged`).
        // Only a quiet NIC has receptions to run (`mac_catch_up` sends the others to
        // `catch_up_timers`), so its cursor is meaningful.
        debug_assert!(self.is_quiet(i));
        let (mut cursor, end) = (self.log_cursor[i], self.log_end());
        let waiting_quiet = self.waiting_quiet;
        let fuse_waiting = self.fuse_waiting;
        let mut qn = self.quiet_nic(nic);
        let general = GENERAL;
        debug_assert_eq!(general, qn.n.waiting);
        let fuse = qn.fuse && (!general || fuse_waiting);
        let mut staged = qn.rd.stage(&mut cursor, end, &mut qn.n.deferred_rx);
        let mut last = None;
        let mut cur = HistoryCursor::default();
        loop {
            let n = &mut *qn.n;
            let timer_at = match n.mac_timer.virt {
                Some(_) => n.mac_timer.at,
                None => None,
            };
            // The earlier of the list's first and the staged frame.
            let (rx, from_log) = match (n.deferred_rx.front(), staged) {
                (None, s) => (s, true),
                (Some(&r), None) => (Some(r), false),
                (Some(&r), Some(s)) => {
                    if (r.at, r.seq) < (s.at, s.seq) {
                        (Some(r), false)
                    } else {
                        (Some(s), true)
                    }
                }
            };
            // The earlier of the two; only a tie in time needs the timer's number.
            let take_rx = match (rx, timer_at) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(r), Some(at)) => {
                    r.at < at
                        || (r.at == at
                            && r.seq
                                < n.mac_timer
                                    .virt
                                    .expect("virtual timer")
                                    .resolve_from(qn.chain, q, &mut cur))
                }
            };
            if take_rx {
                let r = rx.expect("deferred reception");
                if r.at > before.0 || (r.at == before.0 && r.seq > before.1) {
                    break;
                }
                last = Some(r.at);
                if from_log {
                    // The next frame first: whether it arrives before this one's
                    // reception ends decides whether both ends go in one step.
                    staged = qn.rd.stage(&mut cursor, end, &mut qn.n.deferred_rx);
                    if fuse {
                        if let Some(e) = qn.overhear(r, staged, before, q, &mut cur, general) {
                            last = Some(e);
                            continue;
                        }
                    }
                    qn.deferred_rx_start(r, q, &mut cur, general);
                } else {
                    // A frame read ahead by an earlier catch-up (or overtaken by a
                    // nearer one): in one step too, once the next frame is known.
                    n.deferred_rx.pop_front();
                    if staged.is_none() {
                        staged = qn.rd.stage(&mut cursor, end, &mut qn.n.deferred_rx);
                    }
                    if fuse {
                        if let Some(e) = qn.overhear(r, staged, before, q, &mut cur, general) {
                            last = Some(e);
                            continue;
                        }
                    }
                    qn.deferred_rx_start(r, q, &mut cur, general);
                }
                continue;
            }
            // A quiet MAC's NAV end, its only timer, before the next reception: its turn
            // goes into the reception's step if that fits (`overhear_after_nav`).
            if !GENERAL && fuse {
                if let (Some(r), Some(p)) = (rx, timer_at) {
                    if r.at > p
                        && !(r.at > before.0 || (r.at == before.0 && r.seq > before.1))
                        && n.mac.only_nav_due_at(p)
                    {
                        last = Some(r.at);
                        if from_log {
                            staged = qn.rd.stage(&mut cursor, end, &mut qn.n.deferred_rx);
                        } else {
                            n.deferred_rx.pop_front();
                            if staged.is_none() {
                                staged = qn.rd.stage(&mut cursor, end, &mut qn.n.deferred_rx);
                            }
                        }
                        if let Some(e) = qn.overhear_after_nav(r, p, staged, before, q, &mut cur) {
                            last = Some(e);
                            continue;
                        }
                        // Two steps after all: the NAV end's turn first, which leaves
                        // nothing pending.
                        let n = &mut *qn.n;
                        n.digest.note(Input::Timer, p, || 0);
                        n.mac.quiet_timeout(p);
                        debug_assert!(n.mac.poll_timeout().is_none());
                        n.mac_timer.at = None;
                        n.mac_timer.virt = None;
                        qn.deferred_rx_start(r, q, &mut cur, general);
                        continue;
                    }
                }
            }
            let (v, at) = (
                n.mac_timer.virt.expect("virtual timer"),
                timer_at.expect("virtual timer"),
            );
            if at > before.0 || (at == before.0 && v.resolve_from(qn.chain, q, &mut cur) > before.1)
            {
                break;
            }
            last = Some(at);
            timer_turn(n, qn.chain, q, &mut cur, (at, v), general, waiting_quiet);
        }
        if let Some(r) = staged {
            insert_in_order(&mut qn.n.deferred_rx, r);
        }
        self.log_cursor[i] = cursor;
        self.check_caught_up(nic, last);
        last
    }

    /// A catch-up gives the MAC only inputs it takes quietly, so it must leave no
    /// output: a frame or event left there would go out late, at the MAC's next real
    /// input, and change the run without a sign. Release builds check too (one load
    /// per catch-up); a breach is kept for the run loop, which stops the run with
    /// `Error::Internal`.
    #[inline(always)]
    pub(super) fn check_caught_up(&mut self, nic: u32, last: Option<SimTime>) {
        if self.nics[nic as usize].mac.has_output() {
            self.caught_up_with_output(nic, last);
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn caught_up_with_output(&mut self, nic: u32, last: Option<SimTime>) {
        if self.internal_error.is_some() {
            return;
        }
        let n = &self.nics[nic as usize];
        self.internal_error = Some(format!(
            "the catch-up of node {}'s wireless NIC {nic} (its last input at {}) left MAC \
             output, which would have gone out late",
            n.node.idx(),
            last.map_or("none".to_string(), |t| format!("{:.9} s", t.as_secs_f64())),
        ));
    }
}

impl Wireless {
    /// `catch_up` of a NIC with no reception to run (an empty list, no logged frame to
    /// read): its virtual timer events alone, without the log reader and the rest of
    /// the catch-up's set-up (a fifth of the calls at 16 kb/s). The timer's turn is
    /// `catch_up`'s (`timer_turn`).
    #[inline(never)]
    fn catch_up_timers(
        &mut self,
        nic: u32,
        before: (SimTime, u64),
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        let i = nic as usize;
        let waiting_quiet = self.waiting_quiet;
        let n = &mut self.nics[i];
        let chain = &mut self.virt_chain[i];
        debug_assert!(n.deferred_rx.is_empty());
        let general = n.waiting;
        let mut last = None;
        let mut cur = HistoryCursor::default();
        while let (Some(v), Some(at)) = (n.mac_timer.virt, n.mac_timer.at) {
            if at > before.0 || (at == before.0 && v.resolve_from(chain, q, &mut cur) > before.1) {
                break;
            }
            last = Some(at);
            timer_turn(n, chain, q, &mut cur, (at, v), general, waiting_quiet);
        }
        self.check_caught_up(nic, last);
        last
    }
}

/// A catch-up's turn of the virtual MAC timer event `(at, v)` that is due: what
/// `World::mac_timer` would have done when popping it, the next deadline armed as a
/// virtual event it armed. Shared by `Wireless::catch_up_as` and
/// `Wireless::catch_up_timers`; always inlined, so each keeps its own code.
#[inline(always)]
fn timer_turn(
    n: &mut Nic,
    chain: &mut ChainTimes,
    q: &EventQueue<Event>,
    cur: &mut HistoryCursor,
    (at, v): (SimTime, VirtSeq),
    general: bool,
    waiting_quiet: bool,
) {
    let next = match n.mac.poll_timeout() {
        Some(t) if t > at => Some(t),
        Some(_) => {
            n.digest.note(Input::Timer, at, || 0);
            if general {
                // In a catch-up the MAC puts out nothing, so besides its backoff being
                // paused it still waits as quietly as at its last input
                // (`Mac::waits_quietly`; debug builds check).
                let paused = n.mac.backoff_paused();
                debug_assert_eq!(paused, n.mac.waits_quietly());
                if waiting_quiet && paused {
                    n.mac.waiting_timeout(at);
                } else {
                    n.mac.handle_timeout(at);
                }
                debug_assert!(!n.mac.has_output(), "a waiting MAC's timer put out");
            } else {
                n.mac.quiet_timeout(at);
            }
            // Every timer due at `at` has fired.
            n.mac.poll_timeout()
        }
        None => None,
    };
    match next {
        Some(t) => {
            debug_assert!(t > at && (general || n.mac.timers_are_quiet()));
            n.mac_timer.generation = n.mac_timer.generation.wrapping_add(1);
            n.mac_timer.at = Some(t);
            n.mac_timer.virt = Some(v.child(at, chain, q, cur));
        }
        None => {
            n.mac_timer.at = None;
            n.mac_timer.virt = None;
        }
    }
}

/// The nodes within `r` of `here` at `now` into `out`, in node order (`Grid::query`),
/// and their positions then into `pos` (indexed by node).
fn nodes_near(
    grid: &mut Grid,
    mobility: &mut Mobility,
    pos: &mut [(f64, f64)],
    out: &mut Vec<usize>,
    now: SimTime,
    here: (f64, f64),
    r: f64,
) {
    grid.query(
        now,
        here,
        r,
        |i| {
            let p = mobility.position(i, now);
            pos[i] = p;
            p
        },
        out,
    );
}

/// Received power at node `me` of a frame from node `sender` whose first bit arrives at
/// `at` (positions at that time), and the distance.
#[inline]
fn power_between(
    mobility: &mut Mobility,
    rx_power: &RxPower,
    sender: usize,
    me: usize,
    at: SimTime,
) -> (f64, f64) {
    let d = propagation::distance(mobility.position(sender, at), mobility.position(me, at));
    (d, rx_power.at(d))
}

/// The air log as one quiet NIC reads it, with what reading needs (positions, the
/// radio's thresholds).
struct LogReader<'a> {
    entries: &'a [LoggedFrame],
    frames: &'a [Frame],
    /// `Wireless::air_real` and `Wireless::real_base`.
    real: &'a [u64],
    real_base: u32,
    base: u64,
    mobility: &'a mut Mobility,
    /// The NIC's node's piece of trajectory, at hand for the position at each frame.
    track: Track,
    rx_power: &'a RxPower,
    cs_range_m: f64,
    sense: SenseBound,
    /// What the NIC adds to a frame's first sequence number (`LoggedFrame::seq0`).
    seq_off: u64,
    nic: u32,
    node: usize,
    /// Frames sent from this node number are not received (`Wireless::
    /// same_node_delivery` off: the NIC's own node; on: `u32::MAX`, no node).
    deaf_to: u32,
}

impl LogReader<'_> {
    /// Logged frame `g` as the quiet NIC senses it: the deferred reception with the
    /// arrival time and sequence number the transmission would have given it (same
    /// positions, same distance, same filter as the grid query and `transmit`; NICs are
    /// numbered in node order, so numbering receivers by NIC keeps their input order),
    /// or `None` if it does not sense it. Not the frame's sender nor its addressee: those
    /// get real events.
    #[inline(always)]
    fn read(&mut self, g: u64) -> Option<DeferredRx> {
        let entries = self.entries;
        let e = &entries[(g - self.base) as usize];
        if e.sender_nic == self.nic {
            return None;
        }
        self.read_entry(e, g)
    }

    /// `read(g)` of the frame's entry `e`, which the NIC did not send: a NIC that
    /// sends is not quiet then, and turning quiet again it starts after its frame (or,
    /// waiting when it sent, it reads its frame with `read` as it turns loud).
    #[inline(always)]
    fn read_entry(&mut self, e: &LoggedFrame, g: u64) -> Option<DeferredRx> {
        debug_assert_ne!(e.sender_nic, self.nic);
        if e.dst == MacAddr(self.nic) || e.sender_node == self.deaf_to {
            return None;
        }
        if e.real != NO_REAL {
            let k = e.real.wrapping_sub(self.real_base) as usize + self.nic as usize / 64;
            if self.real[k] >> (self.nic % 64) & 1 != 0 {
                return None;
            }
        }
        let d = sensed_within(
            e.here,
            self.mobility.position_in(&mut self.track, e.at),
            self.sense,
            self.rx_power,
            self.cs_range_m,
        )?;
        Some(DeferredRx {
            at: arrival(e.at, propagation::prop_delay(d)),
            seq: e.seq0 + self.seq_off,
            log: g,
            dist_tx: d,
        })
    }

    /// The next frame the NIC senses among those logged from `cursor` up to `end`, read
    /// straight from the log, such that no frame logged after it can arrive before it.
    /// The frames logged after it that went on the air before it arrives (two
    /// transmissions less than a propagation delay apart) are read now too, into
    /// `list`. `cursor` moves past everything read.
    #[inline(always)]
    fn stage(
        &mut self,
        cursor: &mut u64,
        end: u64,
        list: &mut VecDeque<DeferredRx>,
    ) -> Option<DeferredRx> {
        while *cursor < end {
            let g = *cursor;
            *cursor = g + 1;
            let entries = self.entries;
            let e = &entries[(g - self.base) as usize];
            let Some(r) = self.read_entry(e, g) else {
                continue;
            };
            // A frame that went on the air after `r.at` arrives after it. Frames are
            // logged in time order, so none does unless the next one does.
            if e.next_at <= r.at {
                while *cursor < end && entries[(*cursor - self.base) as usize].at <= r.at {
                    let h = *cursor;
                    *cursor = h + 1;
                    if let Some(s) = self.read(h) {
                        insert_in_order(list, s);
                    }
                }
            }
            return Some(r);
        }
        None
    }

    /// A logged frame, as this NIC receives it, and its sender's node. A broadcast
    /// frame is read from the log only where its delivery would just be counted (the
    /// NICs where it would do more got real events: `Wireless::transmit_logged`), so
    /// the NIC's copy is marked `Frame::quiet_up`.
    #[inline(always)]
    fn logged(&self, g: u64) -> (Frame, usize) {
        let k = (g - self.base) as usize;
        let mut f = self.frames[k];
        f.quiet_up = f.dst.is_broadcast();
        (f, self.entries[k].sender_node as usize)
    }

    /// Received power at the NIC of a frame from node `sender` whose first bit arrives
    /// at `at`, and the distance.
    #[inline]
    fn power_from(&mut self, sender: usize, at: SimTime) -> (f64, f64) {
        power_between(self.mobility, self.rx_power, sender, self.node, at)
    }
}

/// The pending virtual timer event when an overheard frame's reception and end run in
/// one step (`QuietNic::overhear`): none or one after the end (the reception end's
/// event replaces it), or the NAV's end during the reception, with its number.
#[derive(Copy, Clone)]
enum Pending {
    After(Option<SimTime>),
    During(SimTime, VirtSeq),
}

/// A quiet NIC during its catch-up, with its share of the world's per-NIC vectors.
struct QuietNic<'a> {
    n: &'a mut Nic,
    chain: &'a mut ChainTimes,
    /// `Wireless::rx_src` of this NIC.
    src: &'a mut (u32, SimTime),
    nic: u32,
    /// How far the distance between sender and receiver may have changed while a frame
    /// propagated, at most, besides a slack for rounding (see `Wireless::new`): this
    /// times the distance (2 max_speed / c) plus the second (2 max_speed * 1 ns, the
    /// rounding of the delay, plus the slack).
    near_margin: (f64, f64),
    /// `Wireless::decodable_sure`.
    sure: Option<(f64, f64)>,
    /// `Wireless::fuse_overheard`.
    fuse: bool,
    rd: LogReader<'a>,
}

impl QuietNic<'_> {
    /// Whether deferred reception `r` is decodable, and its power if that had to be
    /// computed.
    #[inline(always)]
    fn decodable(&mut self, r: DeferredRx) -> (bool, Option<f64>) {
        // The sender's node is looked up only where its position is needed (rarely).
        let sender = |rd: &LogReader<'_>| rd.entries[(r.log - rd.base) as usize].sender_node;
        // Decodability is by the distance when the first bit arrives. While the frame
        // propagated (`dist_tx` / c, rounded to the ns) each node moved at most
        // max_speed * that time; unless a bound lies that close to the distance at
        // transmission, the answer is the same there and needs no positions now.
        // max_speed * that time, with the constant parts summed once (`near_margin`):
        // rounded a little differently, by far less than the slack.
        let (per_m, fixed) = self.near_margin;
        let near = match self.sure {
            // Within the band around the one change of the answer (almost never), the
            // positions decide.
            Some((lo, hi)) => {
                if r.dist_tx <= lo {
                    Some(true)
                } else if r.dist_tx > hi {
                    Some(false)
                } else {
                    None
                }
            }
            None => self
                .rd
                .rx_power
                .decodable_near(r.dist_tx, r.dist_tx * per_m + fixed),
        };
        match near {
            Some(dec) => {
                if cfg!(debug_assertions) {
                    let d = self.rd.power_from(sender(&self.rd) as usize, r.at).0;
                    let exact = self.rd.rx_power.classify(d) == Reception::Decodable;
                    assert_eq!(dec, exact, "decodability at {d} m from {} m", r.dist_tx);
                }
                (dec, None)
            }
            None => {
                let (d, p) = self.rd.power_from(sender(&self.rd) as usize, r.at);
                (
                    self.rd.rx_power.classify(d) == Reception::Decodable,
                    Some(p),
                )
            }
        }
    }

    /// Logged reception `r` and its end in one step, when nothing else happens at the
    /// NIC in between: the MAC is idle with at most its NAV running, which ends after
    /// the reception does, as does the pending virtual timer event; the next reception
    /// (`next`, or the list's first) arrives after the end, which comes before the
    /// input `before`. Then `deferred_rx_start` and the virtual reception-end event
    /// (`catch_up`'s timer turn) would change the MAC as `Mac::quiet_overhear` does
    /// and leave the timer event armed as here (the reception end's, armed by this
    /// reception, then the next deadline's, armed by the reception end): the frame
    /// need not be copied into the MAC nor its end go through the loop. Returns the
    /// end, or `None` (nothing done) when that does not hold.
    ///
    /// A waiting MAC (`general`) instead takes `Mac::rx_start` and `waiting_timeout`
    /// at the end, which change it as `Mac::waiting_overhear` does while its backoff is
    /// paused when the frame arrives (`Mac::waiting_overhear_fits`); if it resumes at
    /// the end, the backoff's end is the next deadline.
    #[inline(always)]
    fn overhear(
        &mut self,
        r: DeferredRx,
        next: Option<DeferredRx>,
        before: (SimTime, u64),
        q: &mut EventQueue<Event>,
        cur: &mut HistoryCursor,
        general: bool,
    ) -> Option<SimTime> {
        let (e, airtime, duration, quiet_up) = self.ends_alone(r, next, before)?;
        let t = &self.n.mac_timer;
        // The MAC's next deadline, none as `u64::MAX`: that only fails the tests below
        // when the end itself saturated at `SimTime::MAX` (then the two steps run).
        let deadline = self.n.mac.next_deadline_nanos();
        let later = deadline > e.as_nanos();
        let pending = match (t.at, t.virt) {
            (None, _) if later => Pending::After(None),
            (Some(p), Some(_)) if p > e && later => Pending::After(Some(p)),
            // The NAV ends during the reception, and the pending event is its end.
            (Some(p), Some(v)) if p > r.at && p < e && deadline == p.as_nanos() => {
                Pending::During(p, v)
            }
            _ => return None,
        };
        let fits = if general {
            self.n.mac.waiting_overhear_fits(r.at)
        } else {
            self.n.mac.quiet_overhear_fits(r.at)
        };
        if !fits {
            return None;
        }
        // The plain run's inputs: the reception, the NAV's end during it, its end.
        self.n
            .digest
            .note(Input::Rx, r.at, || frame_key(&self.rd.logged(r.log).0));
        if let Pending::During(p, _) = pending {
            self.n.digest.note(Input::Timer, p, || 0);
        }
        self.n.digest.note(Input::Timer, e, || 0);
        // The power is not needed: no other frame overlaps this one.
        let (decodable, _) = self.decodable(r);
        if general {
            self.n
                .mac
                .waiting_overhear(r.at, airtime, duration, decodable, quiet_up);
        } else {
            self.n
                .mac
                .quiet_overhear(r.at, airtime, duration, decodable, quiet_up);
        }
        self.rearm_after(r, e, pending, q, cur);
        Some(e)
    }

    /// `overhear` of `r` at a quiet MAC whose only running timer is the NAV's, ending
    /// at `nav_end`, before `r` arrives, the pending virtual timer event being that end.
    /// Its turn (`Mac::quiet_timeout`) would stop the NAV, arm nothing and leave no
    /// event pending; the reception's end sets the NAV anew, later, either way
    /// (`Mac::quiet_overhear_after_nav`). So both go in the one step when the reception
    /// ends before anything else happens (`ends_alone`); `None` (nothing done) if not.
    #[inline(always)]
    fn overhear_after_nav(
        &mut self,
        r: DeferredRx,
        nav_end: SimTime,
        next: Option<DeferredRx>,
        before: (SimTime, u64),
        q: &mut EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) -> Option<SimTime> {
        let (e, airtime, duration, quiet_up) = self.ends_alone(r, next, before)?;
        self.n.digest.note(Input::Timer, nav_end, || 0);
        self.n
            .digest
            .note(Input::Rx, r.at, || frame_key(&self.rd.logged(r.log).0));
        self.n.digest.note(Input::Timer, e, || 0);
        let (decodable, _) = self.decodable(r);
        self.n
            .mac
            .quiet_overhear_after_nav(nav_end, r.at, airtime, duration, decodable, quiet_up);
        // After the NAV end's turn, no event is pending.
        self.rearm_after(r, e, Pending::After(None), q, cur);
        Some(e)
    }

    /// The end of reception `r`, its airtime and Duration field, if it ends before the
    /// next reception (`next`, or the list's first) arrives and before `before`.
    #[inline(always)]
    fn ends_alone(
        &self,
        r: DeferredRx,
        next: Option<DeferredRx>,
        before: (SimTime, u64),
    ) -> Option<(SimTime, SimDuration, SimDuration, bool)> {
        let k = (r.log - self.rd.base) as usize;
        let (airtime, duration, bcast) = {
            let f = &self.rd.frames[k];
            (f.airtime, f.duration, f.dst.is_broadcast())
        };
        let e = r.at + airtime;
        if e >= before.0
            || next.is_some_and(|s| s.at <= e)
            || self.n.deferred_rx.front().is_some_and(|s| s.at <= e)
        {
            return None;
        }
        // A logged broadcast frame is a quiet delivery wherever it is read (see
        // `LogReader::logged`).
        Some((e, airtime, duration, bcast))
    }

    /// The virtual timer event after the one step of `overhear` (or
    /// `overhear_after_nav`) of reception `r`, ending at `e`, with `pending` the event
    /// pending before it: as the reception's start and end turns would have left it.
    #[inline(always)]
    fn rearm_after(
        &mut self,
        r: DeferredRx,
        e: SimTime,
        pending: Pending,
        q: &mut EventQueue<Event>,
        cur: &mut HistoryCursor,
    ) {
        let n = &mut *self.n;
        // The reception end's event replaces a pending one after it (`After`) or is
        // armed by the NAV end's turn (`During`); the reception end's turn arms the next
        // deadline's, if any. One generation each.
        if let Pending::After(Some(p)) = pending {
            q.note_superseded(p);
        }
        match n.mac.poll_timeout() {
            Some(t) => {
                debug_assert!(t > e);
                let v = match pending {
                    // Armed by the reception end, itself armed by this reception: the
                    // chain `VirtSeq::child` would build, written at once.
                    Pending::After(_) => {
                        self.chain.times[0] = r.at;
                        self.chain.times[1] = e;
                        self.chain.len = 2;
                        VirtSeq::Chain(r.seq)
                    }
                    Pending::During(p, v) => v.grandchild(p, e, self.chain, q, cur),
                };
                n.mac_timer.generation = n.mac_timer.generation.wrapping_add(2);
                n.mac_timer.at = Some(t);
                n.mac_timer.virt = Some(v);
            }
            None => {
                // No event pending: the chain is not looked at again before a new one
                // starts it afresh.
                n.mac_timer.generation = n.mac_timer.generation.wrapping_add(1);
                n.mac_timer.at = None;
                n.mac_timer.virt = None;
            }
        }
    }

    /// What `rx_start` would have done with the deferred `RxStart` (at, seq): the MAC
    /// stays quiet, so only its timer may need re-arming, as a virtual event armed by
    /// this one.
    #[inline(always)]
    fn deferred_rx_start(
        &mut self,
        r: DeferredRx,
        q: &mut EventQueue<Event>,
        cur: &mut HistoryCursor,
        general: bool,
    ) {
        let DeferredRx { at, seq, log, .. } = r;
        let (frame, sender) = self.rd.logged(log);
        self.n.digest.note(Input::Rx, at, || frame_key(&frame));
        let (decodable, power) = self.decodable(r);
        if self.n.mac.needs_power().0 {
            // Receiving another frame: capture needs both powers (`mac_rx_start`).
            if self.n.mac.needs_power().1 {
                let (src, t) = *self.src;
                let p = self.rd.power_from(src as usize, t).1;
                self.n.mac.set_rx_power(p);
            }
            let p = match power {
                Some(p) => p,
                None => self.rd.power_from(sender, at).1,
            };
            self.n.mac.rx_start(at, &frame, p, decodable);
        } else {
            // Not receiving: the power is only needed if a later frame overlaps.
            let p = power.unwrap_or_else(|| {
                *self.src = (sender as u32, at);
                f64::NAN
            });
            if general {
                self.n.mac.rx_start_idle(at, &frame, p, decodable);
            } else {
                self.n.mac.quiet_rx_start_idle(at, &frame, p, decodable);
            }
        }
        let n = &mut *self.n;
        debug_assert!(!n.mac.has_output(), "a deferred reception produced output");
        debug_assert!(general || n.mac.timers_are_quiet());
        if let Some(t) = n.mac.poll_timeout() {
            let t = t.max(at);
            if n.mac_timer.at.is_none_or(|p| t < p) {
                match (n.mac_timer.at, n.mac_timer.virt) {
                    (Some(p), Some(_)) => q.note_superseded(p),
                    (Some(_), None) => q.cancel_slot(self.nic as usize),
                    _ => {}
                }
                n.mac_timer.generation = n.mac_timer.generation.wrapping_add(1);
                n.mac_timer.at = Some(t);
                n.mac_timer.virt = Some(VirtSeq::Known(seq).child(at, self.chain, q, cur));
            }
        }
    }
}

/// `at + delay` (which saturates) with the saturation out of line: inlined, its
/// conditional move and constant cost more than the sum on every frame a quiet NIC reads.
#[inline(always)]
fn arrival(at: SimTime, delay: SimDuration) -> SimTime {
    match at.as_nanos().overflowing_add(delay.as_nanos()) {
        (t, false) => SimTime::from_nanos(t),
        (_, true) => saturated(),
    }
}

#[cold]
#[inline(never)]
fn saturated() -> SimTime {
    SimTime::MAX
}

/// Puts a deferred reception into a NIC's list in key order: usually at the end; a
/// nearer sender of a later frame may come first.
#[inline]
fn insert_in_order(list: &mut VecDeque<DeferredRx>, r: DeferredRx) {
    if list.back().is_none_or(|b| (b.at, b.seq) < (r.at, r.seq)) {
        list.push_back(r);
    } else {
        let pos = list.partition_point(|b| (b.at, b.seq) < (r.at, r.seq));
        list.insert(pos, r);
    }
}

/// `propagation::distance(here, p)` if `p` is within `r` of `here` as the grid query
/// decides it (`grid::within(p, here, r)`), with the squares summed once: the
/// differences only change sign, which squaring undoes exactly.
#[inline]
fn within_range(here: (f64, f64), p: (f64, f64), r: f64) -> Option<f64> {
    let (dx, dy) = (here.0 - p.0, here.1 - p.1);
    let s = dx * dx + dy * dy;
    let d = (s <= r * r).then(|| s.sqrt());
    debug_assert_eq!(d.is_some(), crate::wireless::grid::within(p, here, r));
    debug_assert!(d.is_none_or(|d| d.to_bits() == propagation::distance(here, p).to_bits()));
    d
}

/// `within_range(here, p, r)` of a frame that is also sensed there, `None` otherwise;
/// `b` is `rx_power.sense_bound(r)`.
#[inline(always)]
fn sensed_within(
    here: (f64, f64),
    p: (f64, f64),
    b: SenseBound,
    rx_power: &RxPower,
    r: f64,
) -> Option<f64> {
    let (dx, dy) = (here.0 - p.0, here.1 - p.1);
    let s = dx * dx + dy * dy;
    let d = if s <= b.max_sq {
        let d = s.sqrt();
        (b.exact || rx_power.sensed(d)).then_some(d)
    } else {
        None
    };
    debug_assert_eq!(
        d.map(f64::to_bits),
        within_range(here, p, r)
            .filter(|&d| rx_power.sensed(d))
            .map(f64::to_bits)
    );
    d
}

fn addr_u32(a: [u8; 4]) -> u32 {
    u32::from_be_bytes(a)
}

fn u32_addr(a: u32) -> [u8; 4] {
    a.to_be_bytes()
}

/// Next hops toward every node over links within `range` at time 0, first-declared node
/// first on ties: `table[from * n + to]`.
pub(crate) fn static_wireless_routes(positions: &[Option<(f64, f64)>], range: f64) -> Vec<u32> {
    let n = positions.len();
    let mut table = vec![u32::MAX; n * n];
    let near = |a: usize, b: usize| match (positions[a], positions[b]) {
        (Some(p), Some(q)) => a != b && propagation::distance(p, q) <= range,
        _ => false,
    };
    for dst in 0..n {
        if positions[dst].is_none() {
            continue;
        }
        // Reverse BFS from the destination; each node's next hop is the lowest-numbered
        // neighbour one hop closer.
        let mut dist = vec![u32::MAX; n];
        dist[dst] = 0;
        let mut frontier = VecDeque::from([dst]);
        while let Some(v) = frontier.pop_front() {
            for u in 0..n {
                if dist[u] == u32::MAX && near(u, v) {
                    dist[u] = dist[v] + 1;
                    frontier.push_back(u);
                }
            }
        }
        for from in 0..n {
            if from == dst || dist[from] == u32::MAX {
                continue;
            }
            if let Some(nb) = (0..n).find(|&u| near(from, u) && dist[u] + 1 == dist[from]) {
                table[from * n + dst] = nb as u32;
            }
        }
    }
    table
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

    /// Routes a data packet over the wireless side of `node` (AODV or static routes).
    pub(super) fn wireless_route(
        &mut self,
        now: SimTime,
        node: NodeId,
        dst: IfaceId,
        pid: PacketId,
    ) {
        let Some(nic) = self.nic_toward(node, dst) else {
            self.discard(pid);
            return;
        };
        let pkt = self.pool.get(pid);
        let local = pkt.forwards == 0;
        let (src, dst_addr) = (addr_u32(pkt.ip.src), addr_u32(pkt.ip.dst));
        let w = self.wireless.as_deref_mut().expect("wireless node");
        if !local {
            w.node_counters[node.idx()].forwarded += 1;
        }
        if let Some(table) = &w.static_next {
            let n = w.node_nics.len();
            let to = self.ifaces[dst.idx()].node.idx();
            let next = table[node.idx() * n + to];
            let pkt = self.pool.get_mut(pid);
            if !local {
                pkt.ip.ttl = pkt.ip.ttl.saturating_sub(1);
            }
            if next == u32::MAX || pkt.ip.ttl == 0 {
                if pkt.ip.ttl == 0 {
                    w.node_counters[node.idx()].ttl_drops += 1;
                }
                self.discard(pid);
                return;
            }
            // The next hop's NIC on the same channel: its first one.
            let nh_nic = w.node_nics[next as usize][0];
            let nh = addr_u32(w.nics[nh_nic as usize].addr);
            self.link_down_after(now, nic, pid, nh, SimDuration::ZERO);
            return;
        }
        let mut ttl = self.pool.get(pid).ip.ttl;
        let aodv = w.nics[nic as usize].aodv.as_mut().expect("aodv routing");
        let decision = aodv.route(now, pid, src, dst_addr, local, &mut ttl);
        self.pool.get_mut(pid).ip.ttl = ttl;
        match decision {
            RouteDecision::Forward { next_hop } => {
                self.link_down_after(now, nic, pid, next_hop, SimDuration::ZERO)
            }
            RouteDecision::Queued => {}
            RouteDecision::Drop(why) => self.drop_traced(now, node, "RTR", why.ns2_code(), pid),
        }
        self.service_aodv(now, nic);
    }

    /// Hands a packet to the link layer of `nic` for `next_hop` after `delay` (AODV's
    /// jitter); the LL adds its own delay before the interface queue.
    fn link_down_after(
        &mut self,
        now: SimTime,
        nic: u32,
        pid: PacketId,
        next_hop: u32,
        delay: SimDuration,
    ) {
        let ll = self.wl().ll_delay;
        self.pool.get_mut(pid).next_hop = next_hop;
        if self.tracer.anim_on() && next_hop != BROADCAST {
            let node = self.wl().nics[nic as usize].node;
            self.anim_next_hop(now, node, pid, next_hop);
        }
        if self.tracer.ns2_on() {
            let node = self.wl().nics[nic as usize].node;
            let op = if self.pool.get(pid).forwards == 0 {
                's'
            } else {
                'f'
            };
            self.wtrace_packet(op, now, node, "RTR", "---", pid);
        }
        let arp = self.wl().nics[nic as usize].arp.is_some();
        if !arp || next_hop == BROADCAST {
            self.queue
                .schedule(now + delay + ll, Event::LlDown(nic, pid));
        } else if delay == SimDuration::ZERO {
            self.ll_resolve(now, nic, pid);
        } else {
            // ARP looks the next hop up when the packet enters the LL (ns-2 `LL::recv`
            // after AODV's jitter), not when routing hands it over: packets AODV releases
            // spaced by ARP_DELAY find the first one's exchange done.
            self.queue.schedule(now + delay, Event::LlEnter(nic, pid));
        }
    }

    /// A unicast packet in the LL of `nic` with ARP on (`LL::sendDown` -> `arpresolve`):
    /// on to the interface queue after the LL delay if its next hop is resolved, else
    /// held (or given up) by the ARP table.
    pub(super) fn ll_resolve(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let nh = self.pool.get(pid).next_hop;
        let w = self.wl();
        let ll = w.ll_delay;
        let Some(arp) = w.nics[nic as usize].arp.as_mut() else {
            self.queue.schedule(now + ll, Event::LlDown(nic, pid));
            return;
        };
        if arp.handle_outgoing(now, nh, pid).is_some() {
            self.queue.schedule(now + ll, Event::LlDown(nic, pid));
        } else {
            self.service_arp(now, nic);
        }
    }

    /// Drains an ARP table after an input: held packets released to the interface
    /// queue, replaced ones dropped, given-up ones to routing's link-failure handler, and
    /// requests and replies sent (events first: a released packet goes before the reply
    /// to the same request, as ns-2 schedules them).
    fn service_arp(&mut self, now: SimTime, nic: u32) {
        let node = self.wl().nics[nic as usize].node;
        while let Some(ev) = self.wl().nics[nic as usize]
            .arp
            .as_mut()
            .and_then(ArpTable::poll_event)
        {
            match ev {
                ArpEvent::Release { packet, at, .. } => {
                    self.queue.schedule(at, Event::LlDown(nic, packet));
                }
                ArpEvent::Replaced { packet } => {
                    self.drop_traced(now, node, "IFQ", "ARP", packet);
                }
                ArpEvent::GaveUp { packet, next_hop } => {
                    // arp.cc hands the packet to its transmit-failure callback: AODV's
                    // link-failure handler for the data packets it routed, none for its
                    // own messages or with static routes (then dropped, reason ARP).
                    let pkt = self.pool.get(packet);
                    let (dst, fwd, control) =
                        (addr_u32(pkt.ip.dst), pkt.forwards, pkt.routing.is_some());
                    match self.wl().nics[nic as usize].aodv.as_mut() {
                        Some(a) if !control => {
                            a.link_failed(now, next_hop, packet, dst, fwd);
                            self.service_aodv(now, nic);
                        }
                        _ => self.drop_traced(now, node, "IFQ", "ARP", packet),
                    }
                }
            }
        }
        while let Some(out) = self.wl().nics[nic as usize]
            .arp
            .as_mut()
            .and_then(ArpTable::poll_transmit)
        {
            let src = self.wl().nics[nic as usize].addr;
            let pid = self.pool.alloc();
            let pkt = self.pool.get_mut(pid);
            // ns-2 gives ARP packets uid 0 and counts them in no agent's numbering.
            pkt.uid = 0;
            pkt.flow = NO_FLOW;
            pkt.kind = PacketKind::Control;
            pkt.data_num = 0;
            pkt.ack_num = 0;
            pkt.forwards = 0;
            pkt.created = now;
            pkt.ip.src = src;
            pkt.ip.dst = u32_addr(out.msg.tpa);
            pkt.ip.ttl = 0;
            pkt.transport = TransportRepr::Udp(UdpRepr {
                src_port: 0,
                dst_port: 0,
            });
            pkt.payload_len = 0;
            pkt.routing = None;
            pkt.arp = Some(out.msg);
            pkt.size = ARP_HDR_LEN;
            pkt.next_hop = match out.msg.op {
                ArpOp::Request => BROADCAST,
                ArpOp::Reply => out.msg.tpa,
            };
            self.queue.schedule(out.at, Event::LlDown(nic, pid));
        }
    }

    /// An ARP packet the MAC of `nic` received goes straight to the ARP table (ns-2
    /// `LL::recv` calls `arpinput` with no LL delay).
    fn arp_input(&mut self, now: SimTime, nic: u32, msg: &ArpMsg) {
        if let Some(a) = self.wl().nics[nic as usize].arp.as_mut() {
            a.handle_arp(now, msg);
            self.service_arp(now, nic);
        }
    }

    pub(super) fn ll_down(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let key = self.queue.last_key();
        self.mac_catch_up(nic, key);
        let pkt = self.pool.get(pid);
        let (routing, nh) = (pkt.routing.is_some(), pkt.next_hop);
        let size = match self.wireless.as_deref().and_then(|w| w.ns2_sizes) {
            Some(ip_hdr) => ns2_size(pkt, ip_hdr),
            None => pkt.size,
        };
        let mac_nh = self.mac_of(nh);
        let n = &mut self.wl().nics[nic as usize];
        n.digest.note(Input::Packet, now, || {
            (u64::from(size) << 32) | u64::from(mac_nh.0)
        });
        n.mac.enqueue(now, pid, size, mac_nh, routing);
        self.service_mac(now, nic);
    }

    /// Drains a MAC after an input: frames onto the channel, events to the layers above,
    /// and its timer.
    // Inlined, the test alone: 7 in 10 inputs leave nothing to drain (a reception start,
    // most timer events), and the out-of-line drain's set-up cost ~50 instructions each.
    #[inline]
    fn service_mac(&mut self, now: SimTime, nic: u32) {
        if self.wl().nics[nic as usize].mac.has_output() {
            self.drain_mac(now, nic);
        }
        self.arm_mac_timer(now, nic);
    }

    /// `service_mac`'s drain: frames onto the channel, events to the layers above.
    #[inline(never)]
    fn drain_mac(&mut self, now: SimTime, nic: u32) {
        while let Some(frame) = self.wl().nics[nic as usize].mac.poll_transmit() {
            self.transmit(now, nic, frame);
        }
        while let Some(ev) = self.wl().nics[nic as usize].mac.poll_event() {
            match ev {
                MacEvent::Received { packet, from } => {
                    if self.tracer.ns2_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.wtrace_received(now, node, packet, from);
                    }
                    if let Some(msg) = self.pool.get(packet).arp {
                        self.arp_input(now, nic, &msg);
                        continue;
                    }
                    let copy = self.pool.alloc();
                    let (src, dst) = (packet, copy);
                    let original = self.pool.get(src).clone();
                    *self.pool.get_mut(dst) = original;
                    let pkt = self.pool.get_mut(dst);
                    pkt.forwards += 1;
                    let flow = pkt.flow;
                    if flow != NO_FLOW {
                        self.flows[flow.idx()].in_flight += 1;
                    }
                    let ll = self.wl().ll_delay;
                    self.queue.schedule(now + ll, Event::LlUp(nic, copy));
                }
                MacEvent::Sent { packet } => {
                    if self.pool.get(packet).next_hop == BROADCAST {
                        self.queue
                            .schedule(now + BROADCAST_RELEASE_GUARD, Event::Release(packet));
                    } else {
                        self.discard(packet);
                    }
                }
                MacEvent::Failed { packet, .. } => {
                    if self.tracer.ns2_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.wtrace_packet('D', now, node, "MAC", "RET", packet);
                    }
                    if self.tracer.anim_on() {
                        let node = self.wl().nics[nic as usize].node;
                        self.tracer
                            .anim_drop(now, node, self.pool.get(packet), "RET");
                    }
                    let pkt = self.pool.get(packet);
                    let (nh, dst, fwd, control) = (
                        pkt.next_hop,
                        addr_u32(pkt.ip.dst),
                        pkt.forwards,
                        pkt.routing.is_some() || pkt.arp.is_some(),
                    );
                    // ns-2 gives AODV no failure callback for its own messages (nor
                    // ARP for its replies).
                    match self.wl().nics[nic as usize].aodv.as_mut() {
                        Some(a) if !control => {
                            a.link_failed(now, nh, packet, dst, fwd);
                            self.service_aodv(now, nic);
                        }
                        _ => self.discard(packet),
                    }
                    // Only now may the MAC take its next packet (ns-2 runs the failure
                    // callback before `tx_resume` pulls from the queue).
                    self.wl().nics[nic as usize].mac.resume_after_failure(now);
                    while let Some(frame) = self.wl().nics[nic as usize].mac.poll_transmit() {
                        self.transmit(now, nic, frame);
                    }
                }
                MacEvent::Dropped { packet, .. } => {
                    let node = self.wl().nics[nic as usize].node;
                    self.drop_traced(now, node, "IFQ", "IFQ", packet)
                }
            }
        }
    }

    /// (Re)arms a NIC's timer event after an input: a new event if the MAC's earliest
    /// deadline is before the pending one (whose event is then of an old generation);
    /// virtual while the MAC is quiet (`Wireless::deferred_mac_timers`).
    fn arm_mac_timer(&mut self, now: SimTime, nic: u32) {
        let w = self
            .wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds");
        let defer = w.deferred_mac_timers;
        let i = nic as usize;
        let quiet_mac = w.nics[i].mac.timers_are_quiet();
        let waiting = !quiet_mac && defer && w.wait_quietly && w.nics[i].mac.waits_quietly();
        let quiet = quiet_mac || waiting;
        w.nics[i].waiting = waiting;
        let was_quiet = w.is_quiet(i);
        // The wake-up of a waiting MAC: one just before its backoff can end; none for
        // the others.
        let wake_slot = w.nics.len() + i;
        if waiting {
            let at = SimTime::from_nanos(w.wait_end(now, nic, was_quiet).as_nanos() - 1);
            if w.nics[i].wake_at.is_none_or(|p| at < p) {
                debug_assert!(at > now);
                // An odd number no real event takes, below every number given out
                // since the first few events: a wake-up comes first among the events
                // at its time, and it takes no number from the counter.
                self.queue
                    .schedule_wake(wake_slot, at, wake_seq(nic), Event::MacWake(nic));
                w.nics[i].wake_at = Some(at);
            }
        } else if w.nics[i].wake_at.take().is_some() {
            self.queue.cancel_wake(wake_slot);
        }
        if quiet != was_quiet {
            w.loud[i / 64] ^= 1 << (i % 64);
        }
        if quiet && !was_quiet {
            // It got real events for every frame logged so far.
            w.log_cursor[i] = w.log_end();
        }
        // Deferred receptions (and those of frames logged but not yet read) enter the
        // queue with their keys once the MAC stops being quiet.
        if !quiet && was_quiet {
            w.pull_log(nic);
            let mut list = std::mem::take(&mut w.nics[i].deferred_rx);
            for d in list.drain(..) {
                let (frame, sender) = w.logged(d.log);
                let slot = w.alloc_frame(frame, sender as u32);
                w.frames[slot as usize].left = 1;
                self.queue
                    .schedule_reserved(d.at, d.seq, Event::RxStart(nic, slot));
            }
            w.nics[i].deferred_rx = list;
        }
        debug_assert!(quiet || w.nics[i].deferred_rx.is_empty());
        let n = &mut w.nics[i];
        if let Some(t) = n.mac.poll_timeout() {
            let t = t.max(now);
            if n.mac_timer.at.is_none_or(|p| t < p) {
                if let (Some(p), Some(_)) = (n.mac_timer.at, n.mac_timer.virt) {
                    // The virtual event it replaces would have been popped as stale.
                    self.queue.note_superseded(p);
                }
                n.mac_timer.generation = n.mac_timer.generation.wrapping_add(1);
                n.mac_timer.at = Some(t);
                let g = n.mac_timer.generation;
                if defer && quiet {
                    if n.mac_timer.virt.is_none() {
                        self.queue.cancel_slot(nic as usize);
                    }
                    n.mac_timer.virt = Some(VirtSeq::Known(self.queue.reserve_seq()));
                } else {
                    n.mac_timer.virt = None;
                    self.queue
                        .schedule_slot(nic as usize, t, Event::MacTimer(nic, g));
                }
                return;
            }
        }
        if let (Some(v), Some(at)) = (n.mac_timer.virt, n.mac_timer.at) {
            // The pending virtual event enters the queue with its key once the MAC
            // stops being quiet.
            if !(defer && quiet) {
                let seq = v.resolve(&w.virt_chain[i], &self.queue);
                n.mac_timer.virt = None;
                let g = n.mac_timer.generation;
                self.queue
                    .schedule_slot_reserved(nic as usize, at, seq, Event::MacTimer(nic, g));
            }
        }
    }

    /// Runs a NIC's virtual timer events and deferred receptions that come before the
    /// event with key `before` (time, sequence number), in key order, as `mac_timer` and
    /// `rx_start` would have run them. Returns the time of the last one run.
    // Always inlined: it was a call of its own from the run loop's handlers (192 k in
    // 40 s at 16 kb/s), a third of which return at its first test.
    #[inline(always)]
    fn mac_catch_up(&mut self, nic: u32, before: (SimTime, u64)) -> Option<SimTime> {
        let World {
            wireless, queue, ..
        } = self;
        let w = wireless
            .as_deref_mut()
            .expect("wireless events only exist in wireless worlds");
        let n = &w.nics[nic as usize];
        if n.deferred_rx.is_empty() && !w.log_pending(nic) {
            // No reception to run: at most the virtual timer event, which a catch-up
            // would leave alone if it comes after `before` (1 in 8 calls at 16 kb/s, each
            // ~150 instructions of setting up the catch-up).
            return match (n.mac_timer.virt, n.mac_timer.at) {
                (None, _) => None,
                (Some(_), Some(at)) if at > before.0 => None,
                _ => w.catch_up_timers(nic, before, queue),
            };
        }
        w.catch_up(nic, before, queue)
    }
    /// Runs the virtual MAC timer events that are already due (see `seq_after`).
    pub(super) fn sweep_mac_timers(&mut self) {
        let pops = self.queue.pops();
        if let Some(w) = self.wireless.as_deref_mut() {
            w.swept_at_pop = pops;
        }
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        let before = self.queue.last_key();
        for nic in 0..n as u32 {
            self.mac_catch_up(nic, before);
            // Pin down a pending number while its parent is still in the pop history.
            let w = self.wireless.as_deref_mut().expect("wireless world");
            let slot = &mut w.nics[nic as usize].mac_timer;
            if let Some(v @ VirtSeq::Chain(_)) = slot.virt {
                slot.virt = Some(VirtSeq::Known(
                    v.resolve(&w.virt_chain[nic as usize], &self.queue),
                ));
            }
        }
        if let Some(w) = self.wireless.as_deref_mut() {
            w.trim_log();
        }
    }

    /// At the end of a run: runs every virtual MAC timer event that would have come
    /// before the last event popped (all of them if the queue ran dry). Returns the
    /// latest time of those run.
    pub(super) fn finish_mac_timers(&mut self, drained: bool) -> Option<SimTime> {
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        let before = if drained {
            (SimTime::MAX, u64::MAX)
        } else {
            self.queue.last_key()
        };
        let last = (0..n as u32)
            .filter_map(|nic| self.mac_catch_up(nic, before))
            .max();
        // The repeated route requests whose deliveries the MACs only counted.
        if let Some(w) = self.wireless.as_deref_mut() {
            for n in &mut w.nics {
                let k = n.mac.take_quiet_ups();
                if let Some(a) = n.aodv.as_mut() {
                    a.count_repeated_requests(k);
                } else {
                    debug_assert_eq!(k, 0, "quiet deliveries at a NIC without AODV");
                }
            }
        }
        last
    }

    pub(super) fn mac_timer(&mut self, now: SimTime, nic: u32, generation: u32) {
        let w = self.wl();
        if !w.nics[nic as usize].deferred_rx.is_empty() || w.log_pending(nic) {
            let key = self.queue.last_key();
            self.mac_catch_up(nic, key);
        }
        let n = &mut self.wl().nics[nic as usize];
        if n.mac_timer.generation != generation {
            return;
        }
        n.mac_timer.at = None;
        match n.mac.poll_timeout() {
            Some(t) if t > now => {
                n.mac_timer.generation = n.mac_timer.generation.wrapping_add(1);
                n.mac_timer.at = Some(t);
                let g = n.mac_timer.generation;
                // The NIC's previous timer event (if any) is now of an old generation.
                self.queue
                    .schedule_slot(nic as usize, t, Event::MacTimer(nic, g));
            }
            Some(_) => {
                n.digest.note(Input::Timer, now, || 0);
                n.mac.handle_timeout(now);
                self.service_mac(now, nic);
            }
            None => {}
        }
    }

    /// A waiting MAC's wake-up (`Wireless::wait_quietly`): it catches up to now and
    /// enters the queue with its timer if its backoff runs, or waits on. No input
    /// reaches the MAC, and the pop does not count as an event.
    pub(super) fn mac_wake(&mut self, now: SimTime, nic: u32) {
        self.queue.uncount_last_pop();
        self.wl().nics[nic as usize].wake_at = None;
        let key = self.queue.last_key();
        self.mac_catch_up(nic, key);
        let w = self.wl();
        let i = nic as usize;
        debug_assert!(!w.nics[i].mac.has_output());
        if w.nics[i].mac.waits_quietly() {
            // Still waiting (most wake-ups: another station's frame paused the backoff
            // again). The catch-up left its virtual timer event no later than the MAC's
            // next deadline, and it stays quiet, so `arm_mac_timer` would only set the
            // wake-up.
            debug_assert!(!w.nics[i].mac.timers_are_quiet() && w.is_quiet(i));
            debug_assert!(
                w.nics[i]
                    .mac
                    .poll_timeout()
                    .is_none_or(|t| w.nics[i].mac_timer.at.is_some_and(|p| t.max(now) >= p))
            );
            let at = SimTime::from_nanos(w.wait_end(now, nic, true).as_nanos() - 1);
            debug_assert!(at > now);
            w.nics[i].wake_at = Some(at);
            let slot = w.nics.len() + i;
            self.queue
                .schedule_wake(slot, at, wake_seq(nic), Event::MacWake(nic));
        } else {
            self.arm_mac_timer(now, nic);
        }
        if self.queue.pops() - self.wl().swept_at_pop >= SWEEP_EVERY {
            self.sweep_mac_timers();
        }
    }

    /// Puts a frame on the air: every other NIC within carrier-sense range sees its
    /// first bit after the propagation delay.
    fn transmit(&mut self, now: SimTime, nic: u32, frame: Frame) {
        if self.tracer.anim_on() {
            self.anim_frame(now, nic, &frame);
        }
        if self.tracer.pcap_on() {
            self.capture_frame(now, nic, &frame);
        }
        if self.tracer.ns2_on() {
            let node = self.wl().nics[nic as usize].node;
            self.wtrace_frame('s', now, node, &frame);
        }
        let defer_rx = !self.tracer.pcap_on() && !self.tracer.ns2_on();
        let w = self.wireless.as_deref_mut().expect("wireless");
        let defer_rx = defer_rx && w.deferred_mac_timers;
        let to = frame.dst;
        let sender = w.nics[nic as usize].node;
        if defer_rx && (!to.is_broadcast() || w.log_broadcasts) {
            self.transmit_logged(now, nic, frame);
            return;
        }
        let slot = w.alloc_frame(frame, sender.idx() as u32);
        let Wireless {
            phy,
            rx_power,
            mobility,
            grid,
            scratch,
            scratch_pos,
            node_nics,
            frames,
            free_frames,
            cs_range_m,
            scratch_recv,
            same_node_delivery,
            ..
        } = w;
        let here = mobility.position(sender.idx(), now);
        nodes_near(grid, mobility, scratch_pos, scratch, now, here, *cs_range_m);
        scratch_recv.clear();
        let skip_node = deaf_node(*same_node_delivery, sender.idx());
        for &other in scratch.iter().filter(|&&o| o != skip_node) {
            let d = propagation::distance(here, scratch_pos[other]);
            if rx_power.sensed(d) {
                scratch_recv.push((other as u32, now + phy.prop_delay(d)));
            }
        }
        // One run of events: the same keys as scheduling each in turn.
        let receivers = self
            .queue
            .schedule_run(scratch_recv.iter().flat_map(|&(other, at)| {
                node_nics[other as usize]
                    .iter()
                    .filter(move |&&j| j != nic)
                    .map(move |&j| (at, Event::RxStart(j, slot)))
            }));
        if receivers == 0 {
            free_frames.push(slot);
        } else {
            frames[slot as usize].left = receivers as u32;
        }
    }

    /// `transmit` of a frame with deferred receptions on. Each NIC in range
    /// takes its sequence number as the receivers of a run would (in input order: by
    /// node, then interface, which is NIC order), from one block: NIC `j` the `j`-th.
    /// The addressee and the NICs that are not quiet (a few) get their `RxStart` events
    /// now; the quiet ones get nothing here: the frame goes to the air log, which each
    /// reads when it next catches up (`LogReader::stage`), with the same positions,
    /// distances and keys.
    ///
    /// A broadcast frame (`Wireless::log_broadcasts`) has no addressee; instead the
    /// quiet NICs that may decode it (those within the far end of
    /// `Wireless::decodable_sure`'s band) get their events now, unless its delivery
    /// there would only be counted (`Wireless::quiet_duplicates`), and their bits in
    /// `Wireless::air_real`. The other quiet NICs read it from the log: those farther
    /// away only sense it, and to an errored frame the MAC does the same whoever it is
    /// for (busy medium, EIFS).
    fn transmit_logged(&mut self, now: SimTime, nic: u32, frame: Frame) {
        // A broadcast route request: its originator and number, whose repeats the
        // NICs that have seen it only count, and a time by which every receiver's
        // routing agent has taken it (its airtime and the link layer's delay after the
        // first bit, which reaches the farthest NIC far less than a second after this).
        let repeats = frame.dst.is_broadcast() && self.wl().quiet_duplicates;
        let by = now + frame.airtime + self.wl().ll_delay + SimDuration::from_secs(1);
        let request = match frame.packet.map(|p| &self.pool.get(p).routing) {
            Some(Some(crate::wireless::aodv::AodvMsg::Rreq(q))) if repeats => {
                Some((q.src, q.bcast_id, by))
            }
            _ => None,
        };
        let w = self.wireless.as_deref_mut().expect("wireless");
        let to = frame.dst;
        let addressee = to.0 as usize;
        let sender = w.nics[nic as usize].node.idx();
        let here = w.mobility.position(sender, now);
        let seq0 = self.queue.reserve_seq_block(w.nics.len());
        let real = if to.is_broadcast() {
            let at = w.real_base.wrapping_add(w.air_real.len() as u32);
            w.air_real.resize(w.air_real.len() + w.real_words, 0);
            w.real_frames.push_back(w.log_end());
            at
        } else {
            NO_REAL
        };
        if let Some(last) = w.air_log.last_mut() {
            last.next_at = now;
        }
        w.air_log.push(LoggedFrame {
            at: now,
            next_at: SimTime::MAX,
            here,
            seq0,
            sender_nic: nic,
            sender_node: sender as u32,
            dst: to,
            real,
        });
        w.air_frames.push(frame);
        let slot = w.alloc_frame(frame, sender as u32);
        let step = SEQ_STEP;
        debug_assert!(
            w.nics
                .iter()
                .enumerate()
                .all(|(j, n)| (n.waiting || n.mac.timers_are_quiet()) == w.is_quiet(j))
        );
        let mut receivers = std::mem::take(&mut w.scratch_rx);
        receivers.clear();
        // The NICs that are not quiet and the addressee, but not the sender (nor, unless
        // `same_node_delivery`, the other NICs of its node).
        for word in 0..w.loud.len() {
            let mut bits = w.loud[word];
            if addressee < w.nics.len() && addressee / 64 == word {
                bits |= 1 << (addressee % 64);
            }
            if nic as usize / 64 == word {
                bits &= !(1 << (nic as usize % 64));
            }
            while bits != 0 {
                let j = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let node = w.nics[j].node.idx();
                if node == deaf_node(w.same_node_delivery, sender) {
                    continue;
                }
                let p = w.mobility.position(node, now);
                if let Some(d) = sensed_within(here, p, w.sense, &w.rx_power, w.cs_range_m) {
                    receivers.push((
                        now + propagation::prop_delay(d),
                        seq0 + step * j as u64,
                        Event::RxStart(j as u32, slot),
                    ));
                }
            }
        }
        if to.is_broadcast() {
            w.near_quiet_receivers(now, nic, here, request, seq0, slot, &mut receivers);
        }
        // One run: the same keys as each scheduled alone, popped from a sorted vector.
        let n = self.queue.schedule_reserved_run(receivers.iter().copied());
        w.scratch_rx = receivers;
        if n == 0 {
            w.free_frames.push(slot);
        } else {
            w.frames[slot as usize].left = n as u32;
        }
    }

    /// Writes a frame to the pcap of wireless interface `nic` (802.11 frames).
    fn capture_frame(&mut self, now: SimTime, nic: u32, frame: &Frame) {
        let iface = self.wl().nics[nic as usize].iface;
        let pkt = frame.packet.map(|p| self.pool.get(p));
        self.tracer.wlan_frame(iface.idx(), now, frame, pkt);
    }

    pub(super) fn rx_start(&mut self, now: SimTime, nic: u32, slot: u32) {
        let key = self.queue.last_key();
        self.mac_catch_up(nic, key);
        let w = self.wl();
        let (frame, sender) = w.take_frame(slot);
        let (d, pr) = w.power_at(nic, sender, now);
        let decodable = w.rx_power.classify(d) == Reception::Decodable;
        if decodable && self.tracer.pcap_on() {
            // What the NIC's radio hears above the receive threshold, collided or not.
            self.capture_frame(now, nic, &frame);
        }
        self.wl().nics[nic as usize]
            .digest
            .note(Input::Rx, now, || frame_key(&frame));
        self.wl()
            .mac_rx_start(nic, now, &frame, sender, decodable, Some(pr));
        self.service_mac(now, nic);
    }

    /// A packet the MAC received goes up through the LL: to routing, to an agent on this
    /// node, or back down to be forwarded.
    pub(super) fn ll_up(&mut self, now: SimTime, nic: u32, pid: PacketId) {
        let own_only = self.wl().nics[nic as usize].own_traffic_only;
        let my_addr = self.wl().nics[nic as usize].addr;
        let node = self.wl().nics[nic as usize].node;
        if self.tracer.ns2_on() {
            self.wtrace_packet('r', now, node, "RTR", "---", pid);
        }
        if self.pool.get(pid).routing.is_some() {
            let pkt = self.pool.get(pid);
            let msg = pkt.routing.clone().expect("routing message");
            let (src, ttl) = (addr_u32(pkt.ip.src), pkt.ip.ttl);
            let for_me = match &msg {
                crate::wireless::aodv::AodvMsg::Rreq(q) => q.dst == addr_u32(my_addr),
                _ => true,
            };
            self.discard(pid);
            if !own_only || for_me {
                if let Some(a) = self.wl().nics[nic as usize].aodv.as_mut() {
                    a.recv(now, &msg, src, ttl);
                }
                self.service_aodv(now, nic);
            }
            return;
        }
        let Some(dst) = self.addr_owner(self.pool.get(pid).ip.dst) else {
            self.discard(pid);
            return;
        };
        if self.ifaces[dst.idx()].node == node {
            self.deliver(now, node, pid);
        } else if own_only {
            self.discard(pid);
        } else {
            self.wireless_route(now, node, dst, pid);
        }
    }

    /// A control message from the routing agent of `nic` becomes a packet and goes to
    /// the link layer after its delay.
    fn send_aodv(&mut self, now: SimTime, nic: u32, out: AodvOut) {
        let pid = self.pool.alloc();
        self.pool.stamp(pid);
        let pkt = self.pool.get_mut(pid);
        pkt.flow = NO_FLOW;
        pkt.kind = PacketKind::Control;
        pkt.data_num = 0;
        pkt.ack_num = 0;
        pkt.forwards = 0;
        pkt.created = now;
        pkt.ip.src = u32_addr(out.ip_src);
        pkt.ip.dst = u32_addr(out.ip_dst);
        pkt.ip.ttl = out.ttl;
        pkt.ip.ident = pkt.uid as u16;
        pkt.transport = TransportRepr::Udp(UdpRepr {
            src_port: AODV_UDP_PORT,
            dst_port: AODV_UDP_PORT,
        });
        // ns-2 charges IP + its own message structs, no UDP header: keep that size.
        pkt.payload_len = out.ns2_len().saturating_sub(28);
        pkt.routing = Some(out.msg);
        pkt.arp = None;
        pkt.finalize();
        self.link_down_after(now, nic, pid, out.next_hop, out.delay);
    }

    /// Drains a routing agent: control messages to send, buffered packets to release or
    /// drop, interface-queue purges, in the one order the agent produced them (ns-2
    /// schedules them so: see `Aodv::poll_output`), then its timer.
    fn service_aodv(&mut self, now: SimTime, nic: u32) {
        while let Some(ev) = self.wl().nics[nic as usize]
            .aodv
            .as_mut()
            .and_then(Aodv::poll_output)
        {
            match ev {
                AodvEvent::Send(out) => self.send_aodv(now, nic, out),
                AodvEvent::Forward {
                    pkt,
                    next_hop,
                    delay,
                } => self.link_down_after(now, nic, pkt, next_hop, delay),
                AodvEvent::Drop { pkt, reason } => {
                    let node = self.wl().nics[nic as usize].node;
                    self.drop_traced(now, node, "RTR", reason.ns2_code(), pkt)
                }
                AodvEvent::PurgeIfq { next_hop } => {
                    // ns-2's `PriQueue::filter` matches the IP next hop, which ARP
                    // packets do not carry: an ARP reply for the neighbour stays queued.
                    let mac = self.mac_of(next_hop);
                    let w = self
                        .wireless
                        .as_deref_mut()
                        .expect("wireless events only exist in wireless worlds");
                    let pool = &self.pool;
                    let mut out = std::mem::take(&mut w.scratch_purge);
                    w.nics[nic as usize].mac.ifq_mut().remove_where(
                        |e| e.next_hop == mac && pool.get(e.packet).arp.is_none(),
                        &mut out,
                    );
                    let node = w.nics[nic as usize].node;
                    w.nics[nic as usize].ifq_purged += out.len() as u64;
                    for e in out.drain(..) {
                        self.drop_traced(now, node, "IFQ", "CBK", e.packet);
                    }
                    self.wl().scratch_purge = out;
                }
            }
        }
        let w = self.wl();
        let n = &mut w.nics[nic as usize];
        let deadline = n.aodv.as_ref().and_then(Aodv::poll_timeout);
        if let Some((t, g)) = n.aodv_timer.after_input(deadline, now) {
            self.queue.schedule(t, Event::AodvTimer(nic, g));
        }
    }

    pub(super) fn aodv_timer(&mut self, now: SimTime, nic: u32, generation: u32) {
        let n = &mut self.wl().nics[nic as usize];
        if !n.aodv_timer.fire(generation) {
            return;
        }
        let Some(a) = n.aodv.as_mut() else { return };
        match a.poll_timeout() {
            Some(t) if t > now => {
                let g = n.aodv_timer.arm(t);
                self.queue.schedule(t, Event::AodvTimer(nic, g));
            }
            Some(_) => {
                a.handle_timeout(now);
                self.service_aodv(now, nic);
            }
            None => {}
        }
    }

    /// Starts every AODV agent's timers (its purge timers run from time 0, as ns-2's).
    pub(super) fn start_wireless(&mut self, now: SimTime) {
        let n = self.wireless.as_deref().map_or(0, |w| w.nics.len());
        for nic in 0..n as u32 {
            self.service_aodv(now, nic);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RngStream;

    /// A small random wireless scenario: 3-9 nodes moving by random waypoint in an area
    /// that may exceed the carrier-sense range (hidden stations), CBR pairs and one TCP
    /// or SCTP transfer, AODV or static routes, RTS/CTS for all, some or no frames.
    fn random_manet(r: &mut RngStream) -> String {
        let n = 3 + (r.next_u64() % 7) as usize;
        let width = 200.0 + r.uniform() * 1400.0;
        let height = 100.0 + r.uniform() * 500.0;
        let routing = if r.next_u64() % 4 == 0 {
            "static"
        } else {
            "aodv"
        };
        let rts = [0, 300, 3000][(r.next_u64() % 3) as usize];
        let speed = 1.0 + r.uniform() * 20.0;
        let pause = r.next_u64() % 3;
        let mut t = format!(
            "duration = \"20s\"\n[measure]\nstart = \"2s\"\n\
             [wireless]\nwidth = \"{width:.0}m\"\nheight = \"{height:.0}m\"\n\
             routing = \"{routing}\"\nqueue = {}\n\
             [wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"{}\"\nrts_threshold = \"{rts}B\"\n\
             [mobility]\nmodel = \"random_waypoint\"\nmax_speed = \"{speed:.1}m/s\"\npause = \"{pause}s\"\n",
            5 + r.next_u64() % 50,
            if r.next_u64() % 2 == 0 { "1Mb" } else { "2Mb" },
        );
        // Two NICs on the transfer's endpoints now and then: receivers are numbered by
        // NIC, which must keep the order of (node, interface).
        let wlan_ends = 1 + usize::from(r.next_u64() % 3 == 0);
        if wlan_ends == 2 && r.next_u64() % 2 == 0 {
            // The two NICs of a node hear each other (not ns-2.35's channel).
            t = t.replace("routing = ", "same_node_delivery = true\nrouting = ");
        }
        for i in 0..n {
            let wlan = if i < 2 { wlan_ends } else { 1 };
            t += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = {wlan}\n");
        }
        let among: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
        t += &format!(
            "[[flows]]\nname = \"bg\"\ntype = \"cbr_pairs\"\ncount = {}\nrate = \"{}Kb\"\n\
             packet_size = \"512B\"\nstart_min = \"1s\"\nstart_max = \"3s\"\namong = [{}]\n",
            1 + r.next_u64() % 3,
            8 + r.next_u64() % 120,
            among.join(", ")
        );
        if r.next_u64() % 2 == 0 {
            t += "[[flows]]\nname = \"x\"\ntype = \"tcp\"\nfrom = \"n0\"\nto = \"n1\"\n\
                  variant = \"sack\"\nstart = \"2s\"\n";
        } else {
            t += "[[flows]]\nname = \"x\"\ntype = \"sctp\"\nfrom = \"n0\"\nto = \"n1\"\nvariant = \"ns2\"\n\
                  start = \"2s\"\n";
        }
        t
    }

    /// The plain event-per-receiver way: nothing deferred.
    const PLAIN: Shortcuts = Shortcuts::NONE;

    /// What two runs that take different shortcuts must share: summary.json without
    /// `events`, and every MAC's inputs in order (`mac_digest`), which catch a shortcut
    /// that reorders a MAC's inputs while the summary comes out equal.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        summary: String,
        mac_inputs: Vec<crate::world::mac_digest::Digest>,
    }

    fn run(text: &str, seed: u64, shortcuts: Shortcuts) -> (Outcome, u64) {
        let s = crate::load_toml(text, "<test>", "manet", &[]).expect("valid scenario");
        let opts = crate::RunOptions {
            seed,
            shortcuts,
            ..Default::default()
        };
        let r = crate::run_scenario(&s, &opts).expect("run");
        let summary: String = r
            .summary_json
            .lines()
            .filter(|l| !l.starts_with("  \"events\": "))
            .collect();
        let mac_inputs = r.mac_digests;
        (
            Outcome {
                summary,
                mac_inputs,
            },
            r.events,
        )
    }

    /// Deferring quiet MAC timers and receptions at quiet NICs is a shortcut: on random
    /// small networks it must give the same summary as running every timer and
    /// reception event (only the event count differs).
    #[test]
    fn deferred_quiet_mac_timers_change_no_result() {
        let mut r = RngStream::new(11, "deferred-timers-test");
        let mut fewer = 0;
        for case in 0..20 {
            let text = random_manet(&mut r);
            let seed = 1 + r.next_u64() % 1000;
            let (plain, plain_events) = run(&text, seed, PLAIN);
            let (deferred, deferred_events) = run(&text, seed, Shortcuts::ALL);
            assert_eq!(plain, deferred, "case {case}, seed {seed}:\n{text}");
            assert!(deferred_events <= plain_events);
            fewer += usize::from(deferred_events < plain_events);
        }
        assert!(fewer >= 15, "the shortcut should skip events in most cases");
    }

    /// Counting a MAC that waits with its backoff paused as quiet (`wait_quietly`,
    /// wake-ups before its backoff can end) is a shortcut: on random small networks it
    /// must give the same summary as without it and as running every timer and
    /// reception event, with fewer events in most cases (wake-ups are not counted); and
    /// the same with and without the shortcuts inside a waiting MAC's catch-up.
    #[test]
    fn waiting_macs_deferred_change_nothing() {
        let mut r = RngStream::new(13, "waiting-macs-test");
        let mut fewer = 0;
        for case in 0..16 {
            let text = random_manet(&mut r);
            let seed = 1 + r.next_u64() % 1000;
            let (plain, _) = run(&text, seed, PLAIN);
            let without = |s: Shortcuts| run(&text, seed, s);
            let (quiet_only, quiet_events) = without(Shortcuts {
                wait_quietly: false,
                ..Shortcuts::ALL
            });
            let (general, general_events) = without(Shortcuts {
                waiting_quiet: false,
                ..Shortcuts::ALL
            });
            let (two_steps, two_events) = without(Shortcuts {
                fuse_waiting: false,
                ..Shortcuts::ALL
            });
            let (waiting, waiting_events) = run(&text, seed, Shortcuts::ALL);
            assert_eq!(quiet_only, waiting, "case {case}, seed {seed}:\n{text}");
            // An overheard frame in one step at a waiting MAC (`Mac::waiting_overhear`)
            // does what `Mac::rx_start` and `Mac::waiting_timeout` at its end do, the
            // backoff's resumption at the end included.
            assert_eq!(two_steps, waiting, "case {case}, seed {seed}:\n{text}");
            assert_eq!(two_events, waiting_events, "case {case}, seed {seed}");
            // `Mac::waiting_timeout` does what `Mac::handle_timeout` does.
            assert_eq!(general, waiting, "case {case}, seed {seed}:\n{text}");
            assert_eq!(general_events, waiting_events, "case {case}, seed {seed}");
            assert_eq!(plain, waiting, "case {case}, seed {seed}:\n{text}");
            assert!(waiting_events <= quiet_events, "case {case}, seed {seed}");
            fewer += usize::from(waiting_events < quiet_events);
        }
        assert!(
            fewer >= 8,
            "the shortcut should skip events in most cases ({fewer})"
        );
    }

    /// Broadcast frames through the air log (`Wireless::log_broadcasts`) and repeated
    /// route requests delivered quietly (`Wireless::quiet_duplicates`) are shortcuts:
    /// on random small networks each must give the same summary as without it, and as
    /// running every event, with fewer events in most cases. When every flow can end
    /// (the run may stop early) the quiet deliveries are off, and the summary is still
    /// the plain one.
    #[test]
    fn broadcasts_through_the_log_change_nothing() {
        // SCTPLAB_STRESS_SEED and SCTPLAB_STRESS_CASES run other or more networks.
        let knob = |name: &str, default: u64| {
            std::env::var(name).map_or(default, |v| v.parse().expect("a whole number"))
        };
        let mut r = RngStream::new(knob("SCTPLAB_STRESS_SEED", 17), "broadcast-log-test");
        let (mut fewer_logged, mut fewer_quiet) = (0, 0);
        let cases = knob("SCTPLAB_STRESS_CASES", 12);
        for case in 0..cases {
            let mut text = random_manet(&mut r);
            let finite = case % 4 == 3;
            if finite {
                // Every flow ends: the CBR sources stop, the transfer is 20 kB.
                text = text.replace(
                    "start_max = \"3s\"\n",
                    "start_max = \"3s\"\nstop = \"12s\"\n",
                );
                text = text.replace("to = \"n1\"\n", "to = \"n1\"\nbytes = \"20kB\"\n");
            }
            let seed = 1 + r.next_u64() % 1000;
            let (plain, _) = run(&text, seed, PLAIN);
            let (all, all_events) = run(&text, seed, Shortcuts::ALL);
            let (unlogged, unlogged_events) = run(
                &text,
                seed,
                Shortcuts {
                    log_broadcasts: false,
                    ..Shortcuts::ALL
                },
            );
            let (loud_repeats, loud_events) = run(
                &text,
                seed,
                Shortcuts {
                    quiet_duplicates: false,
                    ..Shortcuts::ALL
                },
            );
            assert_eq!(plain, all, "case {case}, seed {seed}:\n{text}");
            assert_eq!(plain, unlogged, "case {case}, seed {seed}:\n{text}");
            assert_eq!(plain, loud_repeats, "case {case}, seed {seed}:\n{text}");
            assert!(all_events <= loud_events && loud_events <= unlogged_events);
            if finite {
                assert_eq!(all_events, loud_events, "case {case}: quiet deliveries on");
            }
            fewer_logged += usize::from(loud_events < unlogged_events);
            fewer_quiet += usize::from(all_events < loud_events);
        }
        assert!(
            fewer_logged as u64 >= cases / 2 && fewer_quiet as u64 >= cases / 3,
            "{fewer_logged} {fewer_quiet}"
        );
    }

    /// Running an overheard frame's reception and its end in one step
    /// (`QuietNic::overhear`) is a shortcut: on random small networks it must give the
    /// same summary and the same count of events as the two steps, and the same
    /// summary as running every timer and reception event.
    #[test]
    fn overheard_frame_in_one_step_changes_nothing() {
        let mut r = RngStream::new(12, "fused-overhear-test");
        for case in 0..16 {
            let text = random_manet(&mut r);
            let seed = 1 + r.next_u64() % 1000;
            let (plain, _) = run(&text, seed, PLAIN);
            let (two_steps, two_events) = run(
                &text,
                seed,
                Shortcuts {
                    fuse_overheard: false,
                    ..Shortcuts::ALL
                },
            );
            let (one_step, one_events) = run(&text, seed, Shortcuts::ALL);
            assert_eq!(two_steps, one_step, "case {case}, seed {seed}:\n{text}");
            assert_eq!(two_events, one_events, "case {case}, seed {seed}");
            assert_eq!(plain, one_step, "case {case}, seed {seed}:\n{text}");
        }
    }

    /// A radio with random power, frequency, loss, antennas and thresholds (either
    /// threshold may lie on either side of the cross-over).
    fn random_radio(r: &mut RngStream) -> PhyCfg {
        PhyCfg {
            pt_w: 0.01 + r.uniform(),
            freq_hz: 1e8 + r.uniform() * 5e9,
            system_loss: 1.0 + r.uniform() * 3.0,
            antenna_height_m: 0.5 + r.uniform() * 3.0,
            gt: 0.5 + r.uniform() * 2.0,
            gr: 0.5 + r.uniform() * 2.0,
            rx_thresh_w: 10f64.powf(-4.0 - 8.0 * r.uniform()),
            cs_thresh_w: 10f64.powf(-5.0 - 9.0 * r.uniform()),
            ..PhyCfg::default()
        }
    }

    /// Classifying by distance must agree with classifying the power, at the defaults
    /// and random radios: at random distances and at every bound and its neighbours.
    #[test]
    fn classify_by_distance_is_exact() {
        let mut r = RngStream::new(9, "classify-test");
        let mut cfgs = vec![PhyCfg::default()];
        for i in 0..40 {
            let mut c = random_radio(&mut r);
            if i == 0 {
                // Both thresholds on the free-space side.
                c.cs_thresh_w = c.rx_power(c.crossover_m() * 0.5);
                c.rx_thresh_w = c.rx_power(c.crossover_m() * 0.25);
            }
            cfgs.push(c);
        }
        cfgs.push(PhyCfg {
            system_loss: 0.0,
            ..PhyCfg::default()
        });
        for phy in &cfgs {
            let fast = RxPower::new(phy);
            let mut ds: Vec<f64> = vec![0.0, 0.5, 1.0, phy.crossover_m(), 250.0, 550.0];
            for b in [fast.cs, fast.rx].into_iter().flatten() {
                for v in [b.0, b.1] {
                    if v > 0.0 && v.is_finite() {
                        ds.extend([
                            v,
                            f64::from_bits(v.to_bits() + 1),
                            f64::from_bits(v.to_bits() - 1),
                        ]);
                    }
                }
            }
            let c = phy.crossover_m();
            ds.extend([
                f64::from_bits(c.to_bits() + 1),
                f64::from_bits(c.to_bits() - 1),
            ]);
            let far = phy.cs_range_m() * 2.0;
            ds.extend((0..3000).map(|_| r.uniform() * far));
            for d in ds {
                assert_eq!(
                    fast.classify(d),
                    phy.classify(phy.rx_power(d)),
                    "d={d} {phy:?}"
                );
                assert_eq!(
                    fast.sensed(d),
                    phy.classify(phy.rx_power(d)) != Reception::NotSensed,
                    "d={d}"
                );
            }
            // `decodable_sure`: below its band decodable, above it not, throughout
            // half its width (the margin `QuietNic::decodable` allows).
            for w in [1e-3, 0.5, 20.0] {
                let Some((lo, hi)) = fast.decodable_sure(w) else {
                    continue;
                };
                let mut ds: Vec<f64> = vec![lo, hi];
                for v in [lo, hi] {
                    if v > 0.0 {
                        ds.extend([
                            f64::from_bits(v.to_bits() + 1),
                            f64::from_bits(v.to_bits() - 1),
                        ]);
                    }
                }
                ds.extend((0..3000).map(|_| r.uniform() * far));
                for d in ds {
                    let sure = if d <= lo {
                        true
                    } else if d > hi {
                        false
                    } else {
                        continue;
                    };
                    for x in [d - w / 2.0, d, d + w / 2.0] {
                        let x = x.max(0.0);
                        assert_eq!(
                            phy.classify(phy.rx_power(x)) == Reception::Decodable,
                            sure,
                            "d={d} x={x} w={w} {phy:?}"
                        );
                    }
                }
            }
        }
        // The default radio takes the short test.
        assert!(
            RxPower::new(&PhyCfg::default())
                .decodable_sure(1e-3)
                .is_some()
        );
    }

    /// The squared-distance bound must decide as the range test and `sensed` of the
    /// distance do together: at the defaults, random radios (thresholds on either side
    /// of the cross-over), odd ranges, and at every bound and its neighbours.
    #[test]
    fn sense_bound_is_exact() {
        let mut r = RngStream::new(11, "sense-bound-test");
        let mut cfgs = vec![PhyCfg::default()];
        for i in 0..60 {
            let mut c = random_radio(&mut r);
            if i % 3 == 0 {
                // Sensed on the free-space side only.
                c.cs_thresh_w = c.rx_power(c.crossover_m() * (0.2 + 0.7 * r.uniform()));
            }
            cfgs.push(c);
        }
        cfgs.push(PhyCfg {
            system_loss: 0.0,
            ..PhyCfg::default()
        });
        let mut exact = 0;
        for phy in &cfgs {
            let fast = RxPower::new(phy);
            let cs = phy.cs_range_m();
            let mut ranges = vec![cs, cs * 0.5, cs * 2.0, phy.crossover_m(), 0.0, 1e300];
            ranges.extend([cs.next_up(), cs.next_down(), f64::INFINITY, f64::NAN]);
            for range in ranges {
                let b = fast.sense_bound(range);
                exact += usize::from(b.exact);
                let mut ss: Vec<f64> = vec![0.0, 1.0, range * range, f64::INFINITY, f64::NAN];
                let mut marks = vec![b.max_sq, range * range];
                for v in [phy.crossover_m(), cs]
                    .into_iter()
                    .chain(fast.cs.map_or(vec![], |(n, f)| vec![n, f]))
                {
                    marks.push(v * v);
                    marks.push(last_sq_at_most(v.max(0.0)));
                }
                for m in marks.into_iter().filter(|m| m.is_finite() && *m >= 0.0) {
                    let (mut lo, mut hi) = (m, m);
                    for _ in 0..3 {
                        lo = lo.next_down().max(0.0);
                        hi = hi.next_up();
                        ss.extend([lo, hi]);
                    }
                    ss.push(m);
                }
                let far = (cs * 2.0).powi(2);
                ss.extend((0..2000).map(|_| r.uniform() * far));
                for s in ss {
                    let old = (s <= range * range) && fast.sensed(s.sqrt());
                    let new = s <= b.max_sq && (b.exact || fast.sensed(s.sqrt()));
                    assert_eq!(old, new, "s={s} range={range} {b:?} {phy:?}");
                }
            }
        }
        // The bound alone decides for the defaults and most radios.
        let phy = PhyCfg::default();
        assert!(RxPower::new(&phy).sense_bound(phy.cs_range_m()).exact);
        assert!(
            exact > cfgs.len() * 5,
            "{exact} exact of {}",
            cfgs.len() * 10
        );
    }

    /// The cached form must give exactly `PhyCfg::rx_power`'s bits: at the defaults and
    /// random radios, on both sides of the cross-over, at it, and below the 1 m floor.
    #[test]
    fn rx_power_cache_is_bit_identical() {
        let mut r = RngStream::new(7, "rx-power-test");
        let mut cfgs = vec![PhyCfg::default()];
        for _ in 0..20 {
            cfgs.push(random_radio(&mut r));
        }
        for phy in &cfgs {
            let fast = RxPower::new(phy);
            let c = phy.crossover_m();
            let (below, above) = (
                f64::from_bits(c.to_bits() - 1),
                f64::from_bits(c.to_bits() + 1),
            );
            let mut ds = vec![0.0, 0.3, 1.0, c, below, above, 250.0, 550.0];
            ds.extend((0..2000).map(|_| r.uniform() * 1500.0));
            for d in ds {
                assert_eq!(
                    fast.at(d).to_bits(),
                    phy.rx_power(d).to_bits(),
                    "d={d} {phy:?}"
                );
            }
        }
    }
}
