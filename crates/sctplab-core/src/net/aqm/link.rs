//! The forms a wired link direction runs its discipline in (`LinkDir::aqm`).
//!
//! RED, CoDel and PIE serve in arrival order, so their packets wait in the link's own
//! drop-tail FIFO (`net/queue.rs`), each with its arrival time in the packet
//! (`Packet::queued_at`, which drop-tail sets too): the link keeps one queue and one
//! count of its packets and bytes, the packets arrive and leave by drop-tail's own way
//! (`world/run.rs`'s `enqueue` and `tx_done`), and the discipline only decides. RED
//! decides at arrival (`Red::decide`); PIE at arrival (`Pie::arrival`) and takes its
//! latency as the head leaves (`pie_departure`); CoDel passes every arrival the hard
//! limits accept and decides at the head: `LinkCodel::head_passes` when the head goes
//! as it is (the usual case), else `codel::dequeue` over `Waiting`. FQ-CoDel serves
//! its flow queues in its own order and keeps them (`AqmQueue`).
//!
//! `Aqm` (what `world/aqm.rs`'s `build` makes, and what the wireless interface queue
//! runs) turns into this form with `LinkAqm::from_aqm`; the decisions are the same
//! functions on the same state in the same order, so the results are identical.

use super::codel::{CodelParams, CodelState, HeadQueue};
use super::pie::Pie;
use super::red::Red;
use super::{Aqm, AqmQueue, Discipline, DropCause, Entry, NOT_ECT};
use crate::net::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::net::queue::DropTail;

/// A link direction's discipline.
#[derive(Clone, Debug)]
pub enum LinkAqm {
    /// In front of the link's FIFO.
    Red(Red),
    /// At the head of the link's FIFO.
    Codel(LinkCodel),
    /// In front of the link's FIFO, with its latency taken at the head.
    Pie(Pie),
    /// With its own queues, which replace the link's FIFO (FQ-CoDel).
    Queue(AqmQueue),
}

/// CoDel's state and parameters for the link's FIFO.
#[derive(Clone, Debug)]
pub struct LinkCodel {
    pub state: CodelState,
    pub params: CodelParams,
    /// The head drops of the last dequeue; the world drains it.
    pub dropped: Vec<(PacketId, DropCause)>,
}

impl LinkCodel {
    /// Whether CoDel's dequeue at `now` sends the head of `fifo` as it is: its sojourn
    /// time below target, or no more than an MTU waiting behind it (RFC 8289 sec. 5.3
    /// `dodequeue`: not ok to drop), so `dequeue` neither drops nor marks and leaves any
    /// dropping state (sec. 5.4). Then the state moves as that dequeue moves it and the
    /// head leaves by drop-tail's way; otherwise (or with nothing waiting) nothing
    /// changed and the caller runs `codel::dequeue`.
    #[inline]
    pub fn head_passes(&mut self, now: u64, fifo: &DropTail, pool: &PacketPool) -> bool {
        let Some((id, size)) = fifo.front() else {
            return false;
        };
        let sojourn = now.saturating_sub(pool.get(id).queued_at.as_nanos());
        if sojourn < self.params.target_ns || fifo.bytes() - u64::from(size) <= self.params.mtu {
            self.state.first_above_time = 0;
            self.state.dropping = false;
            return true;
        }
        false
    }
}

/// PIE as the head of the link's FIFO leaves at `now` (RFC 8033 appendix A `deque`):
/// the updates due by now, then the latency of the head (0 if nothing waits behind it).
/// With nothing waiting only the updates run, as in `Pie::dequeue`.
#[inline]
pub fn pie_departure(p: &mut Pie, now: u64, fifo: &DropTail, pool: &PacketPool) {
    p.catch_up(now);
    if let Some((id, _)) = fifo.front() {
        p.departed(now, pool.get(id).queued_at.as_nanos(), fifo.len() == 1);
    }
}

impl LinkAqm {
    /// The link form of a discipline built for a link direction. PIE's own FIFO is
    /// left empty (the link's holds its packets).
    pub fn from_aqm(aqm: Aqm) -> LinkAqm {
        let q = match aqm {
            Aqm::Red(r) => return LinkAqm::Red(r),
            Aqm::Queue(q) => q,
        };
        match q.disc {
            Discipline::Codel(c) => LinkAqm::Codel(LinkCodel {
                state: c.state,
                params: c.params,
                dropped: Vec::new(),
            }),
            Discipline::Pie(p) => LinkAqm::Pie(p),
            Discipline::FqCodel(_) => LinkAqm::Queue(q),
        }
    }

    /// Removes any packet the discipline holds itself (FQ-CoDel's; the others' wait in
    /// the link's FIFO).
    pub fn pop_any(&mut self) -> Option<PacketId> {
        match self {
            LinkAqm::Queue(q) => q.pop_any(),
            _ => None,
        }
    }
}

/// The link's FIFO as CoDel's queue: each packet's entry from the pool (its size, its
/// arrival time, whether it is ECN-capable; none of them changes while it waits).
pub struct Waiting<'a> {
    pub fifo: &'a mut DropTail,
    pub pool: &'a PacketPool,
}

impl HeadQueue for Waiting<'_> {
    #[inline(always)]
    fn pop_head(&mut self) -> Option<Entry> {
        let id = self.fifo.pop()?;
        let p = self.pool.get(id);
        Some(Entry {
            id,
            size: p.size,
            enq_ns: p.queued_at.as_nanos(),
            ect: p.ip.ecn != NOT_ECT,
        })
    }

    #[inline(always)]
    fn waiting_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::aqm::codel;
    use crate::net::aqm::pie::PieParams;
    use crate::net::aqm::{AqmRng, ECT0, Fifo};
    use crate::sim::{RngStream, SimTime};

    const MS: u64 = 1_000_000;

    /// A link FIFO of `n` packets of random sizes, arrival times and ECN fields, before
    /// `now`, and the same packets as entries of a discipline's own FIFO.
    fn backlog(r: &mut RngStream, pool: &mut PacketPool, n: u64, now: u64) -> (DropTail, Fifo) {
        let (mut link, mut own) = (DropTail::new(10_000, None), Fifo::default());
        let mut t = now.saturating_sub(r.next_u64() % (300 * MS));
        for _ in 0..n {
            let id = pool.alloc();
            let p = pool.get_mut(id);
            p.size = 40 + (r.next_u64() % 1460) as u32;
            p.ip.ecn = if r.next_u64() % 2 == 0 { ECT0 } else { NOT_ECT };
            p.queued_at = SimTime::from_nanos(t);
            link.push(id, p.size);
            own.push(Entry {
                id,
                size: p.size,
                enq_ns: t,
                ect: p.ip.ecn != NOT_ECT,
            });
            t += r.next_u64() % (20 * MS);
            t = t.min(now);
        }
        (link, own)
    }

    fn ids(f: &mut DropTail) -> Vec<PacketId> {
        std::iter::from_fn(|| f.pop()).collect()
    }

    /// `head_passes` and then drop-tail's pop give what CoDel's dequeue on the same
    /// FIFO gives (the packet, no mark, no drop, the same state); when it refuses, it
    /// changes nothing and the dequeue follows. Random backlogs (empty included), states
    /// and instants.
    #[test]
    fn head_passes_is_codel_dequeue_when_it_passes() {
        let mut r = RngStream::new(11, "head-passes");
        let mut passed = 0;
        for round in 0..3000 {
            let mut pool = PacketPool::default();
            let now = 1000 * MS + r.next_u64() % (1000 * MS);
            let n = r.next_u64() % 6;
            let (mut fifo, _) = backlog(&mut r, &mut pool, n, now);
            let state = CodelState {
                first_above_time: [0, now - 50 * MS, now + 50 * MS][(r.next_u64() % 3) as usize],
                drop_next: now - 100 * MS + r.next_u64() % (200 * MS),
                count: (r.next_u64() % 5) as u32,
                lastcount: (r.next_u64() % 3) as u32,
                dropping: r.next_u64() % 2 == 0,
            };
            let params = CodelParams {
                ecn: r.next_u64() % 2 == 0,
                mtu: [1500, 100][(r.next_u64() % 2) as usize],
                ..CodelParams::default()
            };
            let mut general = LinkCodel {
                state,
                params,
                dropped: Vec::new(),
            };
            let mut fast = general.clone();
            let mut fifo2 = fifo.clone();
            let want = codel::dequeue(
                &mut Waiting {
                    fifo: &mut fifo,
                    pool: &pool,
                },
                &mut general.state,
                &general.params,
                now,
                &mut general.dropped,
            );
            let before = fast.state.clone();
            if fast.head_passes(now, &fifo2, &pool) {
                passed += 1;
                let id = fifo2.pop().unwrap();
                assert_eq!(want.map(|(e, m)| (e.id, m)), Some((id, false)), "{round}");
                assert!(general.dropped.is_empty(), "{round}");
                assert_eq!(general.state, fast.state, "{round}");
            } else {
                // Nothing changed; CoDel's dequeue then does what it does on the
                // general path.
                assert_eq!(fast.state, before, "{round}");
                let got = codel::dequeue(
                    &mut Waiting {
                        fifo: &mut fifo2,
                        pool: &pool,
                    },
                    &mut fast.state,
                    &fast.params,
                    now,
                    &mut fast.dropped,
                );
                assert_eq!(got, want, "{round}");
                assert_eq!(fast.dropped, general.dropped, "{round}");
                assert_eq!(fast.state, general.state, "{round}");
            }
            assert_eq!(ids(&mut fifo), ids(&mut fifo2), "{round}");
        }
        assert!(passed > 500, "{passed} of 3000 passed");
    }

    /// `pie_departure` and then drop-tail's pop leave PIE as `Pie::dequeue` on its own
    /// FIFO with the same packets does (the updates due, the latency), empty included.
    #[test]
    fn pie_departure_is_pie_dequeue() {
        let mut r = RngStream::new(12, "pie-departure");
        for round in 0..2000 {
            let mut pool = PacketPool::default();
            let now = 1000 * MS + r.next_u64() % (1000 * MS);
            let n = r.next_u64() % 4;
            let (mut fifo, own) = backlog(&mut r, &mut pool, n, now);
            let mut own_pie = Pie::new(PieParams::default(), AqmRng::new(round, "pie"));
            own_pie.drop_prob = [0.0, 0.05, 0.3][(r.next_u64() % 3) as usize];
            own_pie.qdelay_ns = r.next_u64() % (40 * MS);
            own_pie.qdelay_old_ns = r.next_u64() % (40 * MS);
            own_pie.burst_allowance_ns = [0, 30 * MS][(r.next_u64() % 2) as usize];
            own_pie.next_update_ns = now - 60 * MS + r.next_u64() % (90 * MS);
            let mut link_pie = own_pie.clone();
            own_pie.q = own;
            let want = own_pie.dequeue(now).map(|e| e.id);
            pie_departure(&mut link_pie, now, &fifo, &pool);
            assert_eq!(want, fifo.pop(), "{round}");
            own_pie.q = Fifo::default();
            assert_eq!(format!("{own_pie:?}"), format!("{link_pie:?}"), "{round}");
        }
    }
}
