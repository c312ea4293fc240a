//! The air log: receptions at quiet NICs, kept out of the queue.
//!
//! Contract. With deferred receptions on, a frame put on the air takes one block of
//! sequence numbers, NIC `j` the `j`-th, as the receivers of the plain channel's run
//! would (NICs are numbered in node order). The NICs that are not quiet, and the
//! addressee, get their `RxStart` events now; the frame goes into the air log, and each
//! quiet NIC reads it when it next catches up (`LogReader::stage`), with the positions
//! at transmission, the same distance and the same filter as the channel's grid query:
//! the reception keeps the key it would have had. A NIC that stops being quiet puts
//! what it has not yet run into the queue with those keys. A broadcast frame is logged
//! only where decodability is sure from the distance at transmission
//! (`RxPower::decodable_sure`): the quiet NICs that may decode it get real events,
//! unless its delivery would only be counted as a repeated route request
//! (`Fast::quiet_duplicates`). So is a DATA frame where MACs tap them (DSR,
//! `Fast::tapped_data`): the quiet NICs that may decode it and tap get real events, the
//! others only sense it, which no tap reads. The sweep drops the frames every quiet NIC
//! has read (`Wireless::trim_log`).
//! Guards: `deferred_quiet_mac_timers_change_no_result`,
//! `broadcasts_through_the_log_change_nothing` (`wireless/tests.rs`),
//! `tests/manet_snapshots.rs`, the per-MAC input digests.

use super::super::channel::{deaf_node, nodes_near, power_between};
use super::super::rx_power::{RxPower, SenseBound, sensed_within};
use super::Fast;
use crate::sim::{EventKey, SEQ_STEP, SimDuration, SimTime, lazy};
use crate::wireless::frame::{Frame, FrameKind, MacAddr};
use crate::wireless::mobility::{Mobility, Track};
use crate::wireless::propagation;
use crate::wireless::routing::{RoutingAgent, RoutingMsg};
use crate::world::wireless::Wireless;
use crate::world::{Event, World};
use std::collections::VecDeque;

impl Wireless {
    /// Whether `World::transmit` hands `frame` to the air log (`World::transmit_logged`)
    /// rather than giving every sensing NIC its event: with deferred receptions on, a
    /// broadcast frame only with `Fast::log_broadcasts`, a unicast DATA frame where
    /// MACs tap them (`Fast::tapped_data`) only with `Fast::decodable_sure`. Traces see
    /// the same receptions either way (`traced.rs`).
    #[inline]
    pub(in crate::world::wireless) fn logs_frame(&self, frame: &Frame) -> bool {
        self.fast.deferred_mac_timers
            && if frame.dst.is_broadcast() {
                self.fast.log_broadcasts
            } else {
                !self.taps_maybe(frame) || self.fast.decodable_sure.is_some()
            }
    }

    /// Whether some MAC may tap `frame` (`Mac::taps`): a DATA frame in a network
    /// whose MACs tap (`Fast::tapped_data`).
    #[inline(always)]
    fn taps_maybe(&self, frame: &Frame) -> bool {
        self.fast.tapped_data && frame.kind == FrameKind::Data
    }
}

/// A deferred `RxStart` (time, sequence number, the frame's place in the air log) and
/// the distance between sender and receiver when the frame went on the air.
#[derive(Copy, Clone, Debug)]
pub(crate) struct DeferredRx {
    pub(super) at: SimTime,
    pub(super) seq: u64,
    pub(super) log: u64,
    pub(super) dist_tx: f64,
}

impl DeferredRx {
    /// The key (time, sequence number) the `RxStart` event would have had.
    #[inline(always)]
    pub(super) fn key(&self) -> EventKey {
        EventKey::new(self.at, self.seq)
    }
}

/// A unicast frame as it went on the air, for the quiet NICs that look at it later
/// (`LogReader::read`): when, from where, from whom, and the first of the sequence
/// numbers its receivers take (NIC `j` takes `seq0 + j * step`). The frame itself is
/// kept apart (`Fast::air_frames`): reading the log skips most of them.
#[derive(Copy, Clone, Debug)]
pub(super) struct LoggedFrame {
    pub(super) at: SimTime,
    /// When the next logged frame went on the air (`SimTime::MAX` until there is one):
    /// `LogReader::stage` looks for frames that overtake this one only if that is not
    /// later than this one's arrival, without reaching for the next entry.
    pub(super) next_at: SimTime,
    pub(super) here: (f64, f64),
    pub(super) seq0: u64,
    pub(super) sender_nic: u32,
    pub(super) sender_node: u32,
    pub(super) dst: MacAddr,
    /// For a broadcast frame or a DATA frame some MAC may tap, where its bit set of the
    /// quiet NICs that got real events starts in `Fast::air_real` (`NO_REAL` for
    /// another unicast frame, whose addressee `dst` alone got one among the quiet
    /// NICs): a quiet NIC reading the entry skips the frame if its bit is set.
    pub(super) real: u32,
}

pub(super) const NO_REAL: u32 = u32::MAX;

impl Wireless {
    /// The number one past the last logged frame.
    #[inline]
    pub(super) fn log_end(&self) -> u64 {
        self.fast.log_base + self.fast.air_log.len() as u64
    }

    /// Whether quiet `nic` has logged frames it has not read.
    #[inline]
    pub(super) fn log_pending(&self, nic: u32) -> bool {
        self.is_quiet(nic as usize) && self.fast.log_cursor[nic as usize] < self.log_end()
    }

    /// Reads the frames logged since quiet `nic`'s cursor: each one it senses becomes a
    /// deferred reception (`LogReader::read`) in its list, in key order.
    pub(super) fn pull_log(&mut self, nic: u32) {
        let end = self.log_end();
        let start = self.fast.log_cursor[nic as usize];
        let mut qn = self.quiet_nic(nic);
        for g in start..end {
            if let Some(r) = qn.rd.read(g) {
                insert_in_order(&mut qn.n.fast.deferred_rx, r);
            }
        }
        self.fast.log_cursor[nic as usize] = end;
    }

    /// Of the last logged frame, a broadcast one or a DATA frame some MAC may tap
    /// (`tapped`: then its addressee `to`, which has its event already), sent by `nic`
    /// from `here` at `now`: the quiet NICs that may decode it, by the distance a quiet
    /// NIC's log reader computes (`LogReader::read_entry`), get their `RxStart` events
    /// of frame `slot` in `out` (with the sequence numbers of block `seq0`) and their
    /// bits in the frame's words of `air_real`; for a tapped frame only those whose
    /// MAC taps (the others do not act on it); for a broadcast one not if the frame is
    /// route request `request` and the NIC's routing agent would only count it as a
    /// repeat when it takes it, at the latest by the request's third field
    /// (`Aodv::knows_request`; a NIC that carries only its own traffic,
    /// `Nic::own_traffic_only`, gets its event).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn near_quiet_receivers(
        &mut self,
        now: SimTime,
        nic: u32,
        here: (f64, f64),
        tapped: Option<MacAddr>,
        request: Option<(u32, u32, SimTime)>,
        seq0: u64,
        slot: u32,
        out: &mut Vec<(SimTime, u64, Event)>,
    ) {
        let within = self
            .fast
            .decodable_sure
            .expect("broadcast and tapped frames are logged only with decodable_sure")
            .1;
        let words = self.fast.air_real.len() - self.fast.real_words;
        let sender = self.nics[nic as usize].node.idx();
        let skip_node = deaf_node(self.same_node_delivery, sender);
        let Wireless {
            mobility,
            grid,
            scratch,
            scratch_pos,
            nics,
            node_nics,
            rx_power,
            cs_range_m,
            fast:
                Fast {
                    loud,
                    sense,
                    air_real,
                    ..
                },
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
                let n = &nics[j as usize];
                if tapped.is_some_and(|to| to == MacAddr(j) || !n.mac.tap_on()) {
                    continue;
                }
                let d = sensed_within(here, scratch_pos[other], *sense, rx_power, *cs_range_m);
                if let Some(d) = d.filter(|&d| d <= within) {
                    debug_assert_eq!(n.node.idx(), other);
                    if let Some((src, id, by)) = request {
                        if !n.own_traffic_only
                            && n.routing
                                .as_ref()
                                .and_then(RoutingAgent::aodv)
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

    /// Drops the logged frames no quiet NIC has yet to read or receive.
    pub(super) fn trim_log(&mut self) {
        let mut keep = self.log_end();
        for (i, n) in self.nics.iter().enumerate() {
            if self.is_quiet(i) {
                keep = keep.min(self.fast.log_cursor[i]);
            }
            for r in &n.fast.deferred_rx {
                keep = keep.min(r.log);
            }
        }
        let k = (keep - self.fast.log_base) as usize;
        if k > 0 {
            self.fast.air_log.drain(..k);
            self.fast.air_frames.drain(..k);
            if self.fast.capture {
                self.fast.air_records.drain(..k);
            }
            self.fast.log_base = keep;
            let mut words = 0;
            while self.fast.real_frames.front().is_some_and(|&g| g < keep) {
                self.fast.real_frames.pop_front();
                words += self.fast.real_words;
            }
            self.fast.air_real.drain(..words);
            self.fast.real_base = self.fast.real_base.wrapping_add(words as u32);
        }
    }

    /// A logged frame and its sender's node.
    #[inline]
    pub(super) fn logged(&self, g: u64) -> (Frame, usize) {
        let k = (g - self.fast.log_base) as usize;
        (
            self.fast.air_frames[k],
            self.fast.air_log[k].sender_node as usize,
        )
    }
}

/// The air log as one quiet NIC reads it, with what reading needs (positions, the
/// radio's thresholds).
pub(super) struct LogReader<'a> {
    pub(super) entries: &'a [LoggedFrame],
    pub(super) frames: &'a [Frame],
    /// `Fast::air_real` and `Fast::real_base`.
    pub(super) real: &'a [u64],
    pub(super) real_base: u32,
    pub(super) base: u64,
    pub(super) mobility: &'a mut Mobility,
    /// The NIC's node's piece of trajectory, at hand for the position at each frame.
    pub(super) track: Track,
    pub(super) rx_power: &'a RxPower,
    pub(super) cs_range_m: f64,
    pub(super) sense: SenseBound,
    /// What the NIC adds to a frame's first sequence number (`LoggedFrame::seq0`).
    pub(super) seq_off: u64,
    pub(super) nic: u32,
    pub(super) node: usize,
    /// Frames sent from this node number are not received (`Wireless::
    /// same_node_delivery` off: the NIC's own node; on: `u32::MAX`, no node).
    pub(super) deaf_to: u32,
}

impl LogReader<'_> {
    /// Logged frame `g` as the quiet NIC senses it: the deferred reception with the
    /// arrival time and sequence number the transmission would have given it (same
    /// positions, same distance, same filter as the grid query and `transmit`; NICs are
    /// numbered in node order, so numbering receivers by NIC keeps their input order),
    /// or `None` if it does not sense it. Not the frame's sender nor its addressee: those
    /// get real events.
    #[inline(always)]
    pub(super) fn read(&mut self, g: u64) -> Option<DeferredRx> {
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
    pub(super) fn read_entry(&mut self, e: &LoggedFrame, g: u64) -> Option<DeferredRx> {
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
    pub(super) fn stage(
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
    /// NICs where it would do more got real events: `World::transmit_logged`), so
    /// the NIC's copy is marked `Frame::quiet_up`.
    #[inline(always)]
    pub(super) fn logged(&self, g: u64) -> (Frame, usize) {
        let k = (g - self.base) as usize;
        let mut f = self.frames[k];
        f.quiet_up = f.dst.is_broadcast();
        (f, self.entries[k].sender_node as usize)
    }

    /// Received power at the NIC of a frame from node `sender` whose first bit arrives
    /// at `at`, and the distance.
    #[inline]
    pub(super) fn power_from(&mut self, sender: usize, at: SimTime) -> (f64, f64) {
        power_between(self.mobility, self.rx_power, sender, self.node, at)
    }
}

/// `at + delay` (which saturates) with the saturation out of line: inlined, its
/// conditional move and constant cost more than the sum on every frame a quiet NIC reads.
#[inline(always)]
pub(super) fn arrival(at: SimTime, delay: SimDuration) -> SimTime {
    match at.as_nanos().overflowing_add(delay.as_nanos()) {
        (t, false) => SimTime::from_nanos(t),
        (_, true) => saturated(),
    }
}

#[cold]
#[inline(never)]
pub(super) fn saturated() -> SimTime {
    SimTime::MAX
}

/// Puts a deferred reception into a NIC's list in key order: usually at the end; a
/// nearer sender of a later frame may come first.
#[inline]
pub(super) fn insert_in_order(list: &mut VecDeque<DeferredRx>, r: DeferredRx) {
    if list.back().is_none_or(|b| b.key() < r.key()) {
        list.push_back(r);
    } else {
        let pos = list.partition_point(|b| b.key() < r.key());
        list.insert(pos, r);
    }
}

impl World {
    /// `transmit` of a frame with deferred receptions on. Each NIC in range
    /// takes its sequence number as the receivers of a run would (in input order: by
    /// node, then interface, which is NIC order), from one block: NIC `j` the `j`-th.
    /// The addressee and the NICs that are not quiet (a few) get their `RxStart` events
    /// now; the quiet ones get nothing here: the frame goes to the air log, which each
    /// reads when it next catches up (`LogReader::stage`), with the same positions,
    /// distances and keys.
    ///
    /// A broadcast frame (`Fast::log_broadcasts`) has no addressee; instead the
    /// quiet NICs that may decode it (those within the far end of
    /// `Fast::decodable_sure`'s band) get their events now, unless its delivery
    /// there would only be counted (`Fast::quiet_duplicates`), and their bits in
    /// `Fast::air_real`. The other quiet NICs read it from the log: those farther
    /// away only sense it, and to an errored frame the MAC does the same whoever it is
    /// for (busy medium, EIFS). A DATA frame some MAC may tap (`Fast::tapped_data`) goes
    /// the same way: its tapping quiet NICs that may decode it get their events now.
    pub(in crate::world::wireless) fn transmit_logged(
        &mut self,
        now: SimTime,
        nic: u32,
        frame: Frame,
    ) {
        // A broadcast route request: its originator and number, whose repeats the
        // NICs that have seen it only count, and a time by which every receiver's
        // routing agent has taken it (its airtime and the link layer's delay after the
        // first bit, which reaches the farthest NIC far less than a second after this).
        let repeats = frame.dst.is_broadcast() && self.wl().fast.quiet_duplicates;
        let by = now + frame.airtime + self.wl().ll_delay + SimDuration::from_secs(1);
        let request = match frame.packet.map(|p| &self.pool.get(p).routing) {
            Some(Some(RoutingMsg::Aodv(crate::wireless::aodv::AodvMsg::Rreq(q)))) if repeats => {
                Some((q.src, q.bcast_id, by))
            }
            _ => None,
        };
        let w = self.wireless.as_deref_mut().expect("wireless");
        let to = frame.dst;
        let addressee = to.0 as usize;
        let sender = w.nics[nic as usize].node.idx();
        let here = w.mobility.position(sender, now);
        let seq0 = lazy::reserve_block(&mut self.queue, w.nics.len());
        let tapped = (!to.is_broadcast() && w.taps_maybe(&frame)).then_some(to);
        let real = if to.is_broadcast() || tapped.is_some() {
            let at = w.fast.real_base.wrapping_add(w.fast.air_real.len() as u32);
            w.fast
                .air_real
                .resize(w.fast.air_real.len() + w.fast.real_words, 0);
            w.fast.real_frames.push_back(w.log_end());
            at
        } else {
            NO_REAL
        };
        if let Some(last) = w.fast.air_log.last_mut() {
            last.next_at = now;
        }
        w.fast.air_log.push(LoggedFrame {
            at: now,
            next_at: SimTime::MAX,
            here,
            seq0,
            sender_nic: nic,
            sender_node: sender as u32,
            dst: to,
            real,
        });
        w.fast.air_frames.push(frame);
        if w.fast.capture {
            // `World::transmit` has just encoded the frame for the sender's capture.
            w.fast.air_records.push(self.tracer.encoded_wlan().into());
        }
        let slot = w.alloc_frame(frame, sender as u32);
        let step = SEQ_STEP;
        debug_assert!(
            w.nics
                .iter()
                .enumerate()
                .all(|(j, n)| (n.fast.waiting || n.mac.timers_are_quiet()) == w.is_quiet(j))
        );
        let mut receivers = std::mem::take(&mut w.fast.scratch_rx);
        receivers.clear();
        // The NICs that are not quiet and the addressee, but not the sender (nor, unless
        // `same_node_delivery`, the other NICs of its node).
        for word in 0..w.fast.loud.len() {
            let mut bits = w.fast.loud[word];
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
                if let Some(d) = sensed_within(here, p, w.fast.sense, &w.rx_power, w.cs_range_m) {
                    receivers.push((
                        now + propagation::prop_delay(d),
                        seq0 + step * j as u64,
                        Event::RxStart(j as u32, slot),
                    ));
                }
            }
        }
        if to.is_broadcast() || tapped.is_some() {
            w.near_quiet_receivers(now, nic, here, tapped, request, seq0, slot, &mut receivers);
        }
        // One run: the same keys as each scheduled alone, popped from a sorted vector.
        let n = self.queue.schedule_reserved_run(receivers.iter().copied());
        w.fast.scratch_rx = receivers;
        if n == 0 {
            w.free_frames.push(slot);
        } else {
            w.frames[slot as usize].left = n as u32;
        }
    }
}
