//! CoDel (RFC 8289): controlled delay, dropping at the head of the queue.
//!
//! The state machine is RFC 8289 sec. 5's `dodequeue` / `dequeue` / `control_law`. With
//! `ecn`, an ECN-capable packet the rules would drop is marked CE and sent instead, the
//! state moving as for a drop (Linux's and ns-3's `CoDelQueueDisc` reading of RFC 8289
//! sec. 4.4: "drop (or mark)"); the marked packet ends the dropping loop.

use super::{DropCause, Entry, Fifo};
use crate::net::ids::PacketId;

/// The queue CoDel serves: its head packet and the bytes left behind it. A discipline's
/// own `Fifo` (FQ-CoDel's flow queues), or a link direction's drop-tail FIFO read with
/// its packets' arrival times (`link::Waiting`): CoDel serves in arrival order and
/// decides only at the head, so it needs no queue of its own.
pub trait HeadQueue {
    fn pop_head(&mut self) -> Option<Entry>;
    /// Bytes waiting.
    fn waiting_bytes(&self) -> u64;
}

impl HeadQueue for Fifo {
    #[inline(always)]
    fn pop_head(&mut self) -> Option<Entry> {
        self.pop()
    }

    #[inline(always)]
    fn waiting_bytes(&self) -> u64 {
        self.bytes
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CodelParams {
    pub target_ns: u64,
    pub interval_ns: u64,
    /// A queue holding at most this many bytes is never a standing queue (RFC 8289's
    /// `maxpacket`, "an MTU's worth of bytes").
    pub mtu: u64,
    pub ecn: bool,
}

impl Default for CodelParams {
    /// RFC 8289 sec. 4.2, 4.3: target 5 ms, interval 100 ms; an Ethernet MTU.
    fn default() -> Self {
        CodelParams {
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            mtu: 1500,
            ecn: false,
        }
    }
}

/// CoDel's variables (RFC 8289 sec. 5.2), one set per queue it controls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodelState {
    /// When the sojourn time will have been above target for an interval; 0 = not above.
    pub first_above_time: u64,
    /// When the next drop is due while dropping.
    pub drop_next: u64,
    /// Drops since the dropping state was entered.
    pub count: u32,
    /// `count` when the last dropping state was entered.
    pub lastcount: u32,
    pub dropping: bool,
}

impl CodelState {
    /// What `dequeue` does to the state when it finds the queue empty, or takes the
    /// queue's only packet at the instant it arrived (sojourn 0, nothing left behind
    /// it): the queue is not above target, and a dropping state ends.
    #[inline]
    pub fn pass_idle(&mut self) {
        self.first_above_time = 0;
        self.dropping = false;
    }
}

/// RFC 8289 sec. 5.5: the next drop, `interval / sqrt(count)` after `t` (the exact square
/// root; Linux and ns-3 use a Newton-step approximation of 1/sqrt).
pub fn control_law(t: u64, count: u32, interval_ns: u64) -> u64 {
    t + (interval_ns as f64 / f64::from(count.max(1)).sqrt()) as u64
}

/// RFC 8289 sec. 5.3 `dodequeue`: the head packet and whether it may be dropped.
fn dodequeue<Q: HeadQueue>(
    q: &mut Q,
    s: &mut CodelState,
    p: &CodelParams,
    now: u64,
) -> (Option<Entry>, bool) {
    let Some(e) = q.pop_head() else {
        s.first_above_time = 0;
        return (None, false);
    };
    let sojourn = now.saturating_sub(e.enq_ns);
    let mut ok_to_drop = false;
    if sojourn < p.target_ns || q.waiting_bytes() <= p.mtu {
        s.first_above_time = 0;
    } else if s.first_above_time == 0 {
        s.first_above_time = now + p.interval_ns;
    } else if now >= s.first_above_time {
        ok_to_drop = true;
    }
    (Some(e), ok_to_drop)
}

/// RFC 8289 sec. 5.4 `dequeue` on queue `q` with state `s`: the packet to send and whether
/// it is to be marked CE; drops go to `dropped`.
#[inline]
pub fn dequeue<Q: HeadQueue>(
    q: &mut Q,
    s: &mut CodelState,
    p: &CodelParams,
    now: u64,
    dropped: &mut Vec<(PacketId, DropCause)>,
) -> Option<(Entry, bool)> {
    let (mut r, mut ok) = dodequeue(q, s, p, now);
    let Some(mut e) = r else {
        // The queue is empty: it cannot be above target.
        s.dropping = false;
        return None;
    };
    if s.dropping {
        if !ok {
            s.dropping = false;
        }
        while s.dropping && now >= s.drop_next {
            s.count += 1;
            if p.ecn && e.ect {
                s.drop_next = control_law(s.drop_next, s.count, p.interval_ns);
                return Some((e, true));
            }
            dropped.push((e.id, DropCause::Aqm));
            (r, ok) = dodequeue(q, s, p, now);
            match r {
                Some(next) if ok => {
                    e = next;
                    s.drop_next = control_law(s.drop_next, s.count, p.interval_ns);
                }
                Some(next) => {
                    e = next;
                    s.dropping = false;
                }
                None => {
                    s.dropping = false;
                    return None;
                }
            }
        }
        Some((e, false))
    } else if ok {
        let marked = p.ecn && e.ect;
        if !marked {
            dropped.push((e.id, DropCause::Aqm));
            (r, _) = dodequeue(q, s, p, now);
        }
        s.dropping = true;
        // Re-entry (RFC 8289 sec. 5.4): back in dropping state soon after leaving it,
        // start from the drop rate that last controlled the queue.
        let delta = s.count.wrapping_sub(s.lastcount);
        s.count = 1;
        let since_next = now as i128 - s.drop_next as i128;
        if delta > 1 && since_next < 16 * i128::from(p.interval_ns) {
            s.count = delta;
        }
        s.drop_next = control_law(now, s.count, p.interval_ns);
        s.lastcount = s.count;
        if marked {
            return Some((e, true));
        }
        r.map(|e| (e, false))
    } else {
        Some((e, false))
    }
}

/// A single CoDel queue.
#[derive(Clone, Debug, Default)]
pub struct Codel {
    pub q: Fifo,
    pub state: CodelState,
    pub params: CodelParams,
}

impl Codel {
    pub fn new(params: CodelParams) -> Self {
        Codel {
            q: Fifo::default(),
            state: CodelState::default(),
            params,
        }
    }

    pub fn dequeue(
        &mut self,
        now: u64,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<(Entry, bool)> {
        dequeue(&mut self.q, &mut self.state, &self.params, now, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn entry(i: u32, enq_ms: u64) -> Entry {
        Entry {
            id: PacketId(i),
            size: 1000,
            enq_ns: enq_ms * MS,
            ect: false,
        }
    }

    #[test]
    fn control_law_is_interval_over_sqrt_count() {
        // 100 ms / sqrt(n): 100, 70.71, 57.73, 50 ms (hand calculation).
        assert_eq!(control_law(0, 1, 100 * MS), 100 * MS);
        assert_eq!(control_law(0, 2, 100 * MS), 70_710_678);
        assert_eq!(control_law(0, 3, 100 * MS), 57_735_026);
        assert_eq!(control_law(7, 4, 100 * MS), 7 + 50 * MS);
    }

    /// A queue that stays above target: the first drop one interval after the sojourn
    /// time first exceeded target, then drops at interval/sqrt(count) from the last one.
    #[test]
    fn drop_schedule_follows_the_control_law() {
        let mut c = Codel::new(CodelParams::default());
        // 200 packets all enqueued at 0: the sojourn time grows with `now`.
        for i in 0..200 {
            c.q.push(entry(i, 0));
        }
        let mut dropped = Vec::new();
        // t = 10 ms: sojourn 10 ms > 5 ms, queue > MTU: above target from now + 100 ms.
        let (e, _) = c.dequeue(10 * MS, &mut dropped).unwrap();
        assert_eq!((e.id, dropped.len()), (PacketId(0), 0));
        assert_eq!(c.state.first_above_time, 110 * MS);
        // t = 109 ms: still inside the interval, no drop.
        c.dequeue(109 * MS, &mut dropped).unwrap();
        assert!(dropped.is_empty() && !c.state.dropping);
        // t = 110 ms: ok_to_drop; drop the head (packet 2), send packet 3, count 1,
        // drop_next = 110 + 100 ms.
        let (e, _) = c.dequeue(110 * MS, &mut dropped).unwrap();
        assert_eq!(dropped, vec![(PacketId(2), DropCause::Aqm)]);
        assert_eq!(e.id, PacketId(3));
        assert!(c.state.dropping);
        assert_eq!((c.state.count, c.state.drop_next), (1, 210 * MS));
        // Before drop_next: no drop.
        dropped.clear();
        c.dequeue(209 * MS, &mut dropped).unwrap();
        assert!(dropped.is_empty());
        // At drop_next: second drop, next after 100/sqrt(2) ms from the previous due time.
        c.dequeue(210 * MS, &mut dropped).unwrap();
        assert_eq!(dropped.len(), 1);
        assert_eq!(c.state.count, 2);
        assert_eq!(c.state.drop_next, 210 * MS + 70_710_678);
        // Third: 100/sqrt(3) after that.
        dropped.clear();
        let due = c.state.drop_next;
        c.dequeue(due, &mut dropped).unwrap();
        assert_eq!((dropped.len(), c.state.count), (1, 3));
        assert_eq!(c.state.drop_next, due + 57_735_026);
    }

    /// Leaving the dropping state when the sojourn time falls below target, and the
    /// re-entry rule: back above target within 16 intervals of the last drop_next, count
    /// restarts at count - lastcount instead of 1.
    #[test]
    fn re_entry_resumes_the_previous_drop_rate() {
        let p = CodelParams::default();
        let mut s = CodelState {
            count: 5,
            lastcount: 1,
            drop_next: 1000 * MS,
            dropping: true,
            first_above_time: 0,
        };
        let mut q = Fifo::default();
        let mut dropped = Vec::new();
        // A packet that waited 1 ms: below target, dropping ends, nothing dropped.
        q.push(entry(0, 1199));
        q.push(entry(1, 1199));
        q.push(entry(2, 1199));
        dequeue(&mut q, &mut s, &p, 1200 * MS, &mut dropped).unwrap();
        assert!(!s.dropping && dropped.is_empty());
        // Standing queue again: above target for an interval from 1300 ms.
        let mut q = Fifo::default();
        for i in 0..10 {
            q.push(entry(10 + i, 1200));
        }
        dequeue(&mut q, &mut s, &p, 1300 * MS, &mut dropped).unwrap();
        assert_eq!(s.first_above_time, 1400 * MS);
        dequeue(&mut q, &mut s, &p, 1400 * MS, &mut dropped).unwrap();
        assert_eq!(dropped.len(), 1);
        // delta = 5 - 1 = 4 > 1 and 1400 - 1000 ms < 16 intervals: count = 4.
        assert_eq!((s.count, s.lastcount), (4, 4));
        assert_eq!(s.drop_next, 1400 * MS + 50 * MS);
        // Long after (16 intervals or more since drop_next): count restarts at 1.
        let mut s2 = CodelState {
            count: 5,
            lastcount: 1,
            drop_next: 1000 * MS,
            dropping: false,
            first_above_time: 2700 * MS,
        };
        let mut q = Fifo::default();
        for i in 0..10 {
            q.push(entry(i, 2600));
        }
        dequeue(&mut q, &mut s2, &p, 2700 * MS, &mut dropped).unwrap();
        assert_eq!((s2.count, s2.drop_next), (1, 2800 * MS));
    }

    #[test]
    fn less_than_an_mtu_is_never_a_standing_queue() {
        let mut c = Codel::new(CodelParams::default());
        c.q.push(entry(0, 0));
        c.q.push(entry(1, 0));
        let mut dropped = Vec::new();
        // After the dequeue 1000 B remain (<= 1500): no matter the sojourn time.
        c.dequeue(500 * MS, &mut dropped).unwrap();
        assert_eq!(c.state.first_above_time, 0);
    }

    #[test]
    fn ecn_marks_instead_of_dropping() {
        let p = CodelParams {
            ecn: true,
            ..CodelParams::default()
        };
        let mut c = Codel::new(p);
        for i in 0..20 {
            let mut e = entry(i, 0);
            e.ect = true;
            c.q.push(e);
        }
        let mut dropped = Vec::new();
        c.dequeue(10 * MS, &mut dropped).unwrap();
        let (e, marked) = c.dequeue(110 * MS, &mut dropped).unwrap();
        assert!(marked && dropped.is_empty());
        assert_eq!(e.id, PacketId(1));
        assert!(c.state.dropping);
        assert_eq!(c.state.drop_next, 210 * MS);
    }
}
