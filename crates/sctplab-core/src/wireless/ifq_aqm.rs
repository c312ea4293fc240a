//! The interface queue under a queue discipline (`[wireless] aqm`, beyond the contract;
//! docs/models/aqm.md "The wireless interface queue"): ns-2.35's `PriQueue` with RED,
//! CoDel or PIE (`net/aqm`) deciding for the data packets.
//!
//! - **Routing packets bypass the discipline.** `PriQueue::recvHighPriority` puts them at
//!   the head, ahead of every data packet; they wait here in a queue of their own that
//!   the MAC empties first (the later one first, as at the PriQueue's head), and no
//!   discipline sees, drops, marks or delays them: an early drop of a route request or
//!   a DSDV update would be taken as a broken route, not as congestion, and none of
//!   them is ECN-capable.
//! - **The hard limit** is the PriQueue's (`queue`, ns-2's `ifqLen`), over both queues
//!   and with ns-2's counting: a data packet arriving while `limit - 1` packets wait is
//!   refused before the discipline sees it; a routing packet that fills the queue to
//!   `limit` pushes out the data packet that arrived last (the PriQueue's tail), or the
//!   last routing packet if no data waits. Both are tail drops (`ifq_drops`).
//! - **Data packets** go through the discipline as on a wired link direction: RED
//!   decides at arrival (its FIFO is this queue's data queue), CoDel and PIE keep theirs
//!   and decide at arrival and when the MAC pulls (CoDel's head drops); with `ecn` an
//!   ECN-capable packet is marked CE instead of dropped. The transmitter is the MAC: it
//!   is busy while it holds a packet, and idle from the pull that found nothing (RED's
//!   idle time, as ns-2's `REDQueue::deque` sets `idletime_`).
//!
//! What the discipline dropped or marked goes out through `take_out` for the MAC to
//! report (the world sets CE on the packet, drops it, traces it).

use super::ifq::IfqEntry;
use crate::net::PacketId;
use crate::net::aqm::{Admit, Aqm, Discipline, DropCause, Entry, Fifo, LinkState};
use crate::sim::SimTime;
use std::collections::VecDeque;

/// What the queue did to a packet other than handing it to the MAC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IfqOut {
    /// Dropped: by the hard limit (`DropCause::Limit`) or by the discipline.
    Dropped(PacketId, DropCause),
    /// Marked CE (RFC 3168 sec. 5); it stays queued or goes to the MAC.
    Marked(PacketId),
}

/// Counters of one interface queue under a discipline, over the whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IfqAqmCounters {
    /// Packets the discipline chose to drop (RED's early drops, CoDel's head drops,
    /// PIE's random drops).
    pub aqm_drops: u64,
    /// Packets the hard limit refused or pushed out.
    pub limit_drops: u64,
    pub ecn_marks: u64,
    /// Packets the MAC took from the queue, and the time they waited in it (ns).
    pub taken: u64,
    pub waited_ns: u64,
}

#[derive(Clone, Debug)]
pub struct IfqAqm {
    disc: Box<Aqm>,
    /// Routing packets, head first, with their arrival times (ns).
    routing: VecDeque<(IfqEntry, u64)>,
    /// The data packets the discipline holds, in arrival order, with their arrival
    /// times (ns): RED's FIFO, and for CoDel and PIE the entries their FIFOs name.
    data: VecDeque<(IfqEntry, u64)>,
    data_bytes: u64,
    limit: usize,
    /// The MAC's last pull found nothing at this time (ns), or it never pulled.
    idle_since_ns: u64,
    out: Vec<IfqOut>,
    pub counters: IfqAqmCounters,
}

impl IfqAqm {
    /// A queue of at most `limit` packets (the one the MAC holds not counted, as the
    /// PriQueue) run by `disc` (`world/aqm.rs`'s `build`; not FQ-CoDel).
    pub fn new(limit: u32, disc: Box<Aqm>) -> Self {
        debug_assert!(!matches!(
            &*disc,
            Aqm::Queue(q) if matches!(q.disc, Discipline::FqCodel(_))
        ));
        IfqAqm {
            disc,
            routing: VecDeque::new(),
            data: VecDeque::new(),
            data_bytes: 0,
            limit: limit as usize,
            idle_since_ns: 0,
            out: Vec::new(),
            counters: IfqAqmCounters::default(),
        }
    }

    /// A packet arrives (`routing`: a routing-protocol packet; `ect`: ECN-capable;
    /// `busy`: the MAC holds a packet).
    #[inline(never)]
    pub fn enqueue(&mut self, now: SimTime, e: IfqEntry, routing: bool, ect: bool, busy: bool) {
        let now_ns = now.as_nanos();
        if routing {
            self.routing.push_front((e, now_ns));
            if self.len() >= self.limit {
                let victim = match self.data.back() {
                    Some(&(d, _)) => self.remove_data(d.packet),
                    None => self.routing.pop_back().map(|(r, _)| r),
                };
                if let Some(v) = victim {
                    self.drop_packet(v.packet, DropCause::Limit);
                }
            }
            return;
        }
        if self.len() + 1 >= self.limit {
            self.drop_packet(e.packet, DropCause::Limit);
            return;
        }
        let entry = Entry {
            id: e.packet,
            size: e.ip_bytes,
            enq_ns: now_ns,
            ect,
        };
        let admit = match &mut *self.disc {
            Aqm::Red(red) => {
                let link = LinkState {
                    busy,
                    idle_since_ns: self.idle_since_ns,
                };
                red.decide(
                    now_ns,
                    e.ip_bytes,
                    ect,
                    link,
                    self.data.len(),
                    self.data_bytes,
                )
            }
            Aqm::Queue(q) => match &mut q.disc {
                // The hard limit is checked above, over both queues.
                Discipline::Codel(c) => {
                    c.q.push(entry);
                    Admit::Queued
                }
                Discipline::Pie(p) => p.enqueue(now_ns, entry, false),
                Discipline::FqCodel(_) => Admit::Dropped(DropCause::Limit),
            },
        };
        match admit {
            Admit::Dropped(cause) => self.drop_packet(e.packet, cause),
            Admit::Marked => {
                self.mark(e.packet);
                self.push_data(e, now_ns);
            }
            Admit::Queued => self.push_data(e, now_ns),
        }
    }

    /// The MAC pulls the next packet at `now`: a routing packet first, else the
    /// discipline's choice (which may drop packets at the head on the way, or mark it).
    #[inline(never)]
    pub fn pop(&mut self, now: SimTime) -> Option<IfqEntry> {
        let now_ns = now.as_nanos();
        let got = if let Some(r) = self.routing.pop_front() {
            Some(r)
        } else {
            self.pop_data(now)
        };
        let Some((e, at)) = got else {
            self.idle_since_ns = now_ns;
            return None;
        };
        self.counters.taken += 1;
        self.counters.waited_ns += now_ns.saturating_sub(at);
        Some(e)
    }

    fn pop_data(&mut self, now: SimTime) -> Option<(IfqEntry, u64)> {
        let q = match &mut *self.disc {
            Aqm::Red(_) => {
                let d = self.data.pop_front()?;
                self.data_bytes -= u64::from(d.0.ip_bytes);
                return Some(d);
            }
            Aqm::Queue(q) => q,
        };
        let next = q.dequeue(now);
        let mut dropped = std::mem::take(&mut q.dropped);
        for (id, cause) in dropped.drain(..) {
            self.take_data(id);
            self.drop_packet(id, cause);
        }
        if let Aqm::Queue(q) = &mut *self.disc {
            // The emptied list back, to keep its allocation.
            q.dropped = dropped;
        }
        let (entry, mark) = next?;
        let d = self.take_data(entry.id)?;
        if mark {
            self.mark(entry.id);
        }
        Some(d)
    }

    /// Removes and returns the first waiting packet for which `pred` is true, in the
    /// order the MAC would take them (routing packets first).
    pub fn take_first<F: FnMut(&IfqEntry) -> bool>(&mut self, mut pred: F) -> Option<IfqEntry> {
        if let Some(i) = self.routing.iter().position(|(e, _)| pred(e)) {
            return self.routing.remove(i).map(|(e, _)| e);
        }
        let id = self.data.iter().find(|(e, _)| pred(e))?.0.packet;
        self.remove_data(id)
    }

    /// Removes every waiting packet for which `pred` is true, appending them to `out` in
    /// queue order (routing packets first).
    pub fn remove_where<F: FnMut(&IfqEntry) -> bool>(
        &mut self,
        mut pred: F,
        out: &mut Vec<IfqEntry>,
    ) {
        let mut i = 0;
        while i < self.routing.len() {
            if pred(&self.routing[i].0) {
                out.extend(self.routing.remove(i).map(|(e, _)| e));
            } else {
                i += 1;
            }
        }
        let ids: Vec<PacketId> = self
            .data
            .iter()
            .filter(|(e, _)| pred(e))
            .map(|(e, _)| e.packet)
            .collect();
        for id in ids {
            out.extend(self.remove_data(id));
        }
    }

    /// Packets waiting (not the one the MAC holds).
    pub fn len(&self) -> usize {
        self.routing.len() + self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waiting packets, routing packets first, then data in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &IfqEntry> {
        self.routing.iter().chain(self.data.iter()).map(|(e, _)| e)
    }

    /// The drops and marks since the last call, oldest first.
    pub fn take_out(&mut self) -> std::vec::Drain<'_, IfqOut> {
        self.out.drain(..)
    }

    fn push_data(&mut self, e: IfqEntry, now_ns: u64) {
        self.data_bytes += u64::from(e.ip_bytes);
        self.data.push_back((e, now_ns));
    }

    /// Takes packet `id` out of the data queue (the discipline already let it go).
    fn take_data(&mut self, id: PacketId) -> Option<(IfqEntry, u64)> {
        // CoDel and PIE serve in arrival order: the packet is at the front.
        let i = self.data.iter().position(|(e, _)| e.packet == id)?;
        let d = self.data.remove(i)?;
        self.data_bytes -= u64::from(d.0.ip_bytes);
        Some(d)
    }

    /// Takes data packet `id` out of the discipline's queue and the data queue,
    /// outside the discipline's rules (a purge, the hard limit's push-out).
    fn remove_data(&mut self, id: PacketId) -> Option<IfqEntry> {
        if let Aqm::Queue(q) = &mut *self.disc {
            match &mut q.disc {
                Discipline::Codel(c) => fifo_remove(&mut c.q, id),
                Discipline::Pie(p) => fifo_remove(&mut p.q, id),
                Discipline::FqCodel(_) => {}
            }
        }
        self.take_data(id).map(|(e, _)| e)
    }

    fn drop_packet(&mut self, id: PacketId, cause: DropCause) {
        match cause {
            DropCause::Limit => self.counters.limit_drops += 1,
            DropCause::Aqm => self.counters.aqm_drops += 1,
        }
        self.out.push(IfqOut::Dropped(id, cause));
    }

    fn mark(&mut self, id: PacketId) {
        self.counters.ecn_marks += 1;
        self.out.push(IfqOut::Marked(id));
    }
}

/// Removes packet `id` from a discipline's FIFO, keeping its byte count.
fn fifo_remove(f: &mut Fifo, id: PacketId) {
    if let Some(i) = f.q.iter().position(|e| e.id == id) {
        if let Some(e) = f.q.remove(i) {
            f.bytes -= u64::from(e.size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::aqm::codel::{Codel, CodelParams};
    use crate::net::aqm::red::{Red, RedParams};
    use crate::net::aqm::{AqmQueue, AqmRng};
    use crate::sim::SimDuration;
    use crate::wireless::frame::MacAddr;

    fn e(i: u32) -> IfqEntry {
        IfqEntry {
            packet: PacketId(i),
            ip_bytes: 1000,
            next_hop: MacAddr(i % 3),
        }
    }

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(t)
    }

    fn codel(limit: u32, ecn: bool) -> IfqAqm {
        let p = CodelParams {
            ecn,
            ..CodelParams::default()
        };
        let q = AqmQueue::new(Discipline::Codel(Codel::new(p)), limit, None);
        IfqAqm::new(limit, Box::new(Aqm::Queue(q)))
    }

    /// RED with the average equal to the instantaneous queue (q_weight 1), thresholds
    /// of 5 and 15 packets, max_p 0.1, ns-2's uniform spreading (`wait` off).
    fn red(ecn: bool) -> IfqAqm {
        let p = RedParams {
            thresh: 5.0,
            maxthresh: 15.0,
            q_weight: 1.0,
            queue_in_bytes: false,
            bytes: false,
            wait: false,
            ecn,
            ..RedParams::default()
        };
        let rng = AqmRng::new(3, "ifq-red-test");
        let red = Red::new(p, 2_000_000, 0.0, 50, None, rng);
        IfqAqm::new(50, Box::new(Aqm::Red(red)))
    }

    /// What the queue reported, split: drops (id, cause) and marks.
    fn outs(q: &mut IfqAqm) -> (Vec<(u32, DropCause)>, Vec<u32>) {
        let (mut d, mut m) = (Vec::new(), Vec::new());
        for o in q.take_out() {
            match o {
                IfqOut::Dropped(id, c) => d.push((id.0, c)),
                IfqOut::Marked(id) => m.push(id.0),
            }
        }
        (d, m)
    }

    /// A standing queue: 40 packets at 0 ms, then one arriving and one pulled every
    /// 10 ms. The head's sojourn time is far above CoDel's 5 ms target from the first
    /// pull (10 ms), so RFC 8289 sec. 5.4: first_above_time = 10 + 100 = 110 ms, the
    /// first drop at the pull at 110 ms with drop_next = 110 + 100/sqrt(1) = 210; then
    /// drop_next += 100/sqrt(count): 210 -> 280.71 -> 338.45 -> 388.45 -> 433.17 ->
    /// 473.99, each drop at the first pull (a multiple of 10 ms) at or after it: 110,
    /// 210, 290, 340, 390, 440, 480 ms. With `ecn` the same packets are marked instead
    /// and sent.
    #[test]
    fn codel_drops_a_standing_queue_on_the_rfc_8289_schedule() {
        for ecn in [false, true] {
            let mut q = codel(1000, ecn);
            for i in 0..40 {
                q.enqueue(SimTime::ZERO, e(i), false, true, true);
            }
            let (mut drop_ms, mut mark_ms, mut sent) = (Vec::new(), Vec::new(), 0);
            for k in 1..=50u64 {
                q.enqueue(ms(10 * k), e(1000 + k as u32), false, true, true);
                let got = q.pop(ms(10 * k));
                assert!(got.is_some(), "t={}", 10 * k);
                sent += 1;
                let (d, m) = outs(&mut q);
                assert!(d.iter().all(|&(_, c)| c == DropCause::Aqm));
                drop_ms.extend(d.iter().map(|_| 10 * k));
                if let Some(&id) = m.first() {
                    // The marked packet is the one handed to the MAC.
                    assert_eq!(got.map(|g| g.packet.0), Some(id));
                }
                mark_ms.extend(m.iter().map(|_| 10 * k));
            }
            let expected = vec![110, 210, 290, 340, 390, 440, 480];
            if ecn {
                assert_eq!((drop_ms, mark_ms), (vec![], expected));
                assert_eq!(q.counters.ecn_marks, 7);
            } else {
                assert_eq!((drop_ms, mark_ms), (expected, vec![]));
                assert_eq!(q.counters.aqm_drops, 7);
            }
            assert_eq!(q.counters.taken, sent);
        }
    }

    /// RED at a fixed average of 10 packets (the queue held at 10: a pull after every
    /// admitted arrival): p_b = max_p (10 - 5) / (15 - 5) = 0.05, and without `wait`
    /// red.cc spreads the drops as p_b / (1 - count p_b) with count the arrivals since
    /// the last drop, this one included: P(drop at the n-th | not before) = 1 / (20 - n),
    /// so the gaps are uniform on 1..19 (mean 10, variance 30; Floyd and Jacobson 1993,
    /// sec. 7). Over 20,000 arrivals: 2,000 drops, standard deviation
    /// sqrt(20000 * 30 / 10^3) = 24.5; allowed: 5 of them. With `ecn` every one of them
    /// is a mark (p_b = 0.05 is below `mark_p` 0.1) and nothing is dropped.
    #[test]
    fn red_drop_probability_at_an_average() {
        for ecn in [false, true] {
            let mut q = red(ecn);
            let mut t = 0;
            let mut id = 0;
            while q.len() < 10 {
                q.enqueue(ms(t), e(id), false, true, true);
                id += 1;
                t += 1;
                q.take_out().for_each(drop);
            }
            let (mut drops, mut marks) = (0, 0);
            for _ in 0..20_000 {
                t += 1;
                q.enqueue(ms(t), e(id), false, true, true);
                id += 1;
                let (d, m) = outs(&mut q);
                drops += d.len();
                marks += m.len();
                if q.len() > 10 {
                    q.pop(ms(t));
                }
                assert_eq!(q.len(), 10);
            }
            let n = if ecn { marks } else { drops };
            assert!((1877..=2123).contains(&n), "ecn {ecn}: {n} of 20000");
            assert_eq!(if ecn { drops } else { marks }, 0);
        }
    }

    /// Routing packets never meet the discipline: under RED and CoDel dropping data
    /// (a standing queue: a data packet arrives and one is pulled every 10 ms, and a
    /// routing packet too every 4th time), each routing packet comes out at the next
    /// pull and none is dropped or marked; the hard limit still counts them (ns-2's
    /// PriQueue: a routing packet filling the queue pushes out the tail).
    #[test]
    fn routing_packets_bypass_the_discipline() {
        for (name, mut q) in [("red", red(true)), ("codel", codel(1000, true))] {
            for i in 0..40 {
                q.enqueue(SimTime::ZERO, e(i), false, false, true);
            }
            let mut aqm_dropped = 0;
            for k in 1..=400u32 {
                let t = ms(u64::from(10 * k));
                q.enqueue(t, e(100_000 + k), false, false, true);
                let routing = k % 4 == 0;
                if routing {
                    q.enqueue(t, e(900_000 + k), true, false, true);
                }
                let got = q.pop(t).map(|g| g.packet.0);
                if routing {
                    assert_eq!(got, Some(900_000 + k), "{name}");
                }
                let (d, m) = outs(&mut q);
                assert!(m.is_empty(), "{name}: Not-ECT packets marked");
                for (id, c) in d {
                    assert!(id < 900_000, "{name}: routing packet {id} dropped");
                    aqm_dropped += usize::from(c == DropCause::Aqm);
                }
            }
            assert!(aqm_dropped > 10, "{name}: {aqm_dropped}");
        }
        // The hard limit: 9 data packets fill a queue of 10 (ns-2 keeps limit - 1); a
        // routing packet then pushes out the last of them and goes to the head.
        let mut q = codel(10, false);
        for i in 0..10 {
            q.enqueue(SimTime::ZERO, e(i), false, false, true);
        }
        assert_eq!(outs(&mut q).0, vec![(9, DropCause::Limit)]);
        q.enqueue(SimTime::ZERO, e(50), true, false, true);
        assert_eq!(outs(&mut q).0, vec![(8, DropCause::Limit)]);
        let order: Vec<u32> = q.iter().map(|x| x.packet.0).collect();
        assert_eq!(order, vec![50, 0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(q.counters.limit_drops, 2);
        // A purge takes packets out of the discipline's queue too (AODV's link failure).
        let mut out = Vec::new();
        q.remove_where(|x| x.next_hop == MacAddr(1), &mut out);
        assert_eq!(
            out.iter().map(|x| x.packet.0).collect::<Vec<_>>(),
            [1, 4, 7]
        );
        let rest: Vec<u32> = std::iter::from_fn(|| q.pop(ms(1)).map(|x| x.packet.0)).collect();
        assert_eq!(rest, vec![50, 0, 2, 3, 5, 6]);
        assert!(q.is_empty());
    }
}
