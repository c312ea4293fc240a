//! The catch-up: a NIC's lazy events run in key order before its next real input.
//!
//! Contract. Before a real input with key `before` reaches a quiet NIC's MAC
//! (`World::run_lazy_before_input`), its virtual timer events (`virtual_timer.rs`), its
//! deferred receptions and the logged frames it has not read (`air_log.rs`) that come
//! before `before` run in key order, the earlier key first (a tie in time resolves the
//! timer's number), through the MAC's quiet paths (`Mac::quiet_timeout`,
//! `Mac::quiet_rx_start_idle`) or, for a MAC that waits quietly, its general ones. They
//! only change that MAC: a catch-up that leaves MAC output is an internal error
//! (`Wireless::check_caught_up`, release builds too; `world/catch_up_check.rs`).
//! Guards: `wireless/tests.rs`, `world/manet_equivalence.rs`,
//! `tests/manet_snapshots.rs`, the per-MAC input digests (`world/mac_digest.rs`).

use super::super::Nic;
use super::super::channel::deaf_node;
use super::Fast;
use super::air_log::{DeferredRx, LogReader, insert_in_order};
use super::traced::LazyCapture;
use super::virtual_timer::timer_turn;
use crate::sim::{
    ArmerChain, EventKey, EventQueue, HistoryCursor, LazySeq, SEQ_STEP, SimTime, due_before,
};
use crate::world::Event;
use crate::world::mac_digest::Input;
use crate::world::wireless::Wireless;

impl Wireless {
    /// NIC `nic` with the parts of the world its catch-up uses, borrowed apart so that
    /// the loop indexes none of the world's vectors anew at each turn.
    #[inline(always)]
    pub(super) fn quiet_nic(&mut self, nic: u32) -> QuietNic<'_> {
        let i = nic as usize;
        let Wireless {
            nics,
            mobility,
            rx_power,
            cs_range_m,
            same_node_delivery,
            fast:
                Fast {
                    air_log,
                    air_frames,
                    air_real,
                    real_base,
                    log_base,
                    virt_chain,
                    rx_src,
                    near_margin,
                    decodable_sure,
                    sense,
                    fuse_overheard,
                    capture,
                    captures,
                    ..
                },
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
            capture: *capture,
            captures,
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

    /// `World::mac_catch_up`: the quiet MAC's virtual timer events run through
    /// `Mac::quiet_timeout` and its deferred receptions through `QuietNic::deferred_rx_start`
    /// (or, with their ends, `QuietNic::overhear`).
    #[inline]
    pub(super) fn catch_up(
        &mut self,
        nic: u32,
        before: EventKey,
        q: &mut EventQueue<Event>,
    ) -> Option<SimTime> {
        // A waiting MAC (or one whose backoff resumed since) takes the general paths,
        // but for the overheard frames its backoff stays paused through: one loop for
        // each kind, so that a quiet MAC's frames test none of the waiting one's flags.
        if self.nics[nic as usize].fast.waiting {
            self.catch_up_as::<true>(nic, before, q)
        } else {
            self.catch_up_as::<false>(nic, before, q)
        }
    }

    /// `catch_up` of a waiting MAC (`GENERAL`) or a quiet one.
    #[inline(never)]
    pub(super) fn catch_up_as<const GENERAL: bool>(
        &mut self,
        nic: u32,
        before: EventKey,
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
        let (mut cursor, end) = (self.fast.log_cursor[i], self.log_end());
        let waiting_quiet = self.fast.waiting_quiet;
        let fuse_waiting = self.fast.fuse_waiting;
        let mut qn = self.quiet_nic(nic);
        let general = GENERAL;
        debug_assert_eq!(general, qn.n.fast.waiting);
        let fuse = qn.fuse && (!general || fuse_waiting);
        let mut staged = qn.rd.stage(&mut cursor, end, &mut qn.n.fast.deferred_rx);
        let mut last = None;
        let mut cur = HistoryCursor::default();
        loop {
            let n = &mut *qn.n;
            let timer_at = match n.mac_timer.virt {
                Some(_) => n.mac_timer.slot.pending(),
                None => None,
            };
            let (rx, from_log) = earliest_rx(n.fast.deferred_rx.front(), staged);
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
                if !due_before(r.at, || r.seq, before) {
                    break;
                }
                last = Some(r.at);
                if from_log {
                    // The next frame first: whether it arrives before this one's
                    // reception ends decides whether both ends go in one step.
                    staged = qn.rd.stage(&mut cursor, end, &mut qn.n.fast.deferred_rx);
                    if fuse {
                        if let Some(e) = qn.overhear(r, staged, before, q, general) {
                            last = Some(e);
                            continue;
                        }
                    }
                    qn.deferred_rx_start(r, q, general);
                } else {
                    // A frame read ahead by an earlier catch-up (or overtaken by a
                    // nearer one): in one step too, once the next frame is known.
                    n.fast.deferred_rx.pop_front();
                    if staged.is_none() {
                        staged = qn.rd.stage(&mut cursor, end, &mut qn.n.fast.deferred_rx);
                    }
                    if fuse {
                        if let Some(e) = qn.overhear(r, staged, before, q, general) {
                            last = Some(e);
                            continue;
                        }
                    }
                    qn.deferred_rx_start(r, q, general);
                }
                continue;
            }
            // A quiet MAC's NAV end, its only timer, before the next reception: its turn
            // goes into the reception's step if that fits (`overhear_after_nav`).
            if !GENERAL && fuse {
                if let (Some(r), Some(p)) = (rx, timer_at) {
                    if r.at > p && due_before(r.at, || r.seq, before) && n.mac.only_nav_due_at(p) {
                        if from_log {
                            staged = qn.rd.stage(&mut cursor, end, &mut qn.n.fast.deferred_rx);
                        } else {
                            n.fast.deferred_rx.pop_front();
                            if staged.is_none() {
                                staged = qn.rd.stage(&mut cursor, end, &mut qn.n.fast.deferred_rx);
                            }
                        }
                        last = Some(qn.nav_end_then_rx(r, p, staged, before, q));
                        continue;
                    }
                }
            }
            let (v, at) = (
                n.mac_timer.virt.expect("virtual timer"),
                timer_at.expect("virtual timer"),
            );
            if !due_before(at, || v.resolve_from(qn.chain, q, &mut cur), before) {
                break;
            }
            last = Some(at);
            timer_turn(n, qn.chain, q, (at, v), general, waiting_quiet);
        }
        if let Some(r) = staged {
            insert_in_order(&mut qn.n.fast.deferred_rx, r);
        }
        self.fast.log_cursor[i] = cursor;
        self.check_caught_up(nic, last);
        last
    }
}

/// The pending virtual timer event when an overheard frame's reception and end run in
/// one step (`QuietNic::overhear`): none or one after the end (the reception end's
/// event replaces it), or the NAV's end during the reception, with its number.
#[derive(Copy, Clone)]
pub(super) enum Pending {
    After(Option<SimTime>),
    During(SimTime, LazySeq),
}

/// A quiet NIC during its catch-up, with its share of the world's per-NIC vectors.
pub(super) struct QuietNic<'a> {
    pub(super) n: &'a mut Nic,
    pub(super) chain: &'a mut ArmerChain,
    /// `Fast::rx_src` of this NIC.
    pub(super) src: &'a mut (u32, SimTime),
    pub(super) nic: u32,
    /// How far the distance between sender and receiver may have changed while a frame
    /// propagated, at most, besides a slack for rounding (see `Wireless::new`): this
    /// times the distance (2 max_speed / c) plus the second (2 max_speed * 1 ns, the
    /// rounding of the delay, plus the slack).
    pub(super) near_margin: (f64, f64),
    /// `Fast::decodable_sure`.
    pub(super) sure: Option<(f64, f64)>,
    /// `Fast::fuse_overheard`.
    pub(super) fuse: bool,
    /// `Fast::capture` and `Fast::captures`.
    pub(super) capture: bool,
    pub(super) captures: &'a mut Vec<LazyCapture>,
    pub(super) rd: LogReader<'a>,
}

/// The earlier of a NIC's first deferred reception (`front`) and its staged frame, and
/// whether that is the staged one.
#[inline(always)]
fn earliest_rx(
    front: Option<&DeferredRx>,
    staged: Option<DeferredRx>,
) -> (Option<DeferredRx>, bool) {
    match (front, staged) {
        (None, s) => (s, true),
        (Some(&r), None) => (Some(r), false),
        (Some(&r), Some(s)) => {
            if r.key() < s.key() {
                (Some(r), false)
            } else {
                (Some(s), true)
            }
        }
    }
}

impl QuietNic<'_> {
    /// A quiet MAC's NAV end at `p`, its only timer, and then reception `r`: in one step
    /// if that fits (`overhear_after_nav`), else the NAV end's turn (which leaves
    /// nothing pending) and the reception. Returns the time of the last input run.
    #[inline(always)]
    pub(super) fn nav_end_then_rx(
        &mut self,
        r: DeferredRx,
        p: SimTime,
        staged: Option<DeferredRx>,
        before: EventKey,
        q: &mut EventQueue<Event>,
    ) -> SimTime {
        if let Some(e) = self.overhear_after_nav(r, p, staged, before, q) {
            return e;
        }
        let n = &mut *self.n;
        n.digest.note(Input::Timer, p, || 0);
        n.mac.quiet_timeout(p);
        debug_assert!(n.mac.poll_timeout().is_none());
        n.mac_timer.slot.fire_live();
        n.mac_timer.virt = None;
        self.deferred_rx_start(r, q, false);
        r.at
    }
}
