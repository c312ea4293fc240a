//! PIE (RFC 8033), the basic algorithm of its appendix A: the latency from timestamps
//! (sec. 4.3's alternative to the dequeue-rate estimate), the drop probability updated
//! every `t_update` with the auto-tuned increments of sec. 4.2, exponential decay when
//! the queue is idle, the burst allowance of sec. 4.4 and the work-conserving safeguard
//! of sec. 4.1. ECN (sec. 5.1): a packet to drop is marked instead while the probability
//! is at most `mark_ecn_th`. As ns-3.37's `PieQueueDisc` does, the latency is 0 once
//! the queue is empty after a dequeue (so the idle decay can start). Derandomisation and
//! the dequeue-rate estimator (RFC 8033 sec. 5, appendix B) are not modelled.

use super::{Admit, AqmRng, DropCause, Entry, Fifo};

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the latency target.
    pub target_ns: u64,
    /// T_UPDATE.
    pub t_update_ns: u64,
    /// MAX_BURST.
    pub max_burst_ns: u64,
    /// Weights in 1/s.
    pub alpha: f64,
    pub beta: f64,
    /// MEAN_PKTSIZE in bytes (the safeguard's "2 packets").
    pub mean_pktsize: u64,
    pub mark_ecn_th: f64,
    pub ecn: bool,
}

impl Default for PieParams {
    /// RFC 8033 appendix A and sec. 5.1.
    fn default() -> Self {
        PieParams {
            target_ns: 15_000_000,
            t_update_ns: 15_000_000,
            max_burst_ns: 150_000_000,
            alpha: 0.125,
            beta: 1.25,
            mean_pktsize: 1500,
            mark_ecn_th: 0.1,
            ecn: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Pie {
    pub q: Fifo,
    pub params: PieParams,
    pub drop_prob: f64,
    /// Latency at the last update, and now (ns).
    pub qdelay_old_ns: u64,
    pub qdelay_ns: u64,
    pub burst_allowance_ns: u64,
    /// The next periodic update (its deadline).
    pub next_update_ns: u64,
    rng: AqmRng,
}

impl Pie {
    pub fn new(params: PieParams, rng: AqmRng) -> Self {
        Pie {
            q: Fifo::default(),
            params,
            drop_prob: 0.0,
            qdelay_old_ns: 0,
            qdelay_ns: 0,
            burst_allowance_ns: 0,
            next_update_ns: 0,
            rng,
        }
    }

    /// Runs the periodic updates due at or before `now`. An update that finds nothing to
    /// change (no latency now or before, probability 0, no burst allowance) changes
    /// nothing the next time either, so the deadline skips ahead past `now` at once.
    #[inline]
    pub fn catch_up(&mut self, now: u64) {
        if self.next_update_ns <= now {
            self.run_updates(now);
        }
    }

    #[inline(never)]
    fn run_updates(&mut self, now: u64) {
        let t = self.params.t_update_ns;
        while self.next_update_ns <= now {
            if self.drop_prob == 0.0
                && self.qdelay_ns == 0
                && self.qdelay_old_ns == 0
                && self.burst_allowance_ns == 0
            {
                self.next_update_ns += (now - self.next_update_ns) / t * t + t;
                break;
            }
            self.calculate_drop_prob();
            self.next_update_ns += t;
        }
    }

    /// RFC 8033 appendix A `calculate_drop_prob`.
    pub fn calculate_drop_prob(&mut self) {
        let prm = &self.params;
        let cur = self.qdelay_ns as f64 / 1e9;
        let old = self.qdelay_old_ns as f64 / 1e9;
        let target = prm.target_ns as f64 / 1e9;
        let mut p = prm.alpha * (cur - target) + prm.beta * (cur - old);
        // Auto-tuning (sec. 4.2): small steps while the probability is small.
        let d = self.drop_prob;
        p /= if d < 0.000_001 {
            2048.0
        } else if d < 0.000_01 {
            512.0
        } else if d < 0.000_1 {
            128.0
        } else if d < 0.001 {
            32.0
        } else if d < 0.01 {
            8.0
        } else if d < 0.1 {
            2.0
        } else {
            1.0
        };
        self.drop_prob += p;
        if self.qdelay_ns == 0 && self.qdelay_old_ns == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.qdelay_old_ns = self.qdelay_ns;
        self.burst_allowance_ns = self.burst_allowance_ns.saturating_sub(prm.t_update_ns);
    }

    /// Appendix A `enque` on this discipline's own FIFO; `full` says the hard limits
    /// refuse the packet.
    pub fn enqueue(&mut self, now: u64, e: Entry, full: bool) -> Admit {
        let admit = self.admit(now, e.ect, self.q.bytes, full);
        if !matches!(admit, Admit::Dropped(_)) {
            self.q.push(e);
        }
        admit
    }

    /// Appendix A `enque`'s decision for a packet (`ect`: ECN-capable) arriving while
    /// `waiting_bytes` wait, in whichever FIFO holds the packets (this one, or a link
    /// direction's drop-tail FIFO, `link::LinkAqm::Pie`): the caller queues it unless
    /// dropped.
    #[inline]
    pub fn admit(&mut self, now: u64, ect: bool, waiting_bytes: u64, full: bool) -> Admit {
        self.catch_up(now);
        if full {
            return Admit::Dropped(DropCause::Limit);
        }
        let half = self.params.target_ns / 2;
        if self.drop_prob == 0.0 && self.qdelay_ns < half && self.qdelay_old_ns < half {
            self.burst_allowance_ns = self.params.max_burst_ns;
        }
        if self.burst_allowance_ns == 0 && self.drop_early(waiting_bytes) {
            if self.params.ecn && ect && self.drop_prob <= self.params.mark_ecn_th {
                return Admit::Marked;
            }
            return Admit::Dropped(DropCause::Aqm);
        }
        Admit::Queued
    }

    /// An arrival at a link direction whose packets wait in its drop-tail FIFO
    /// (`link::LinkAqm::Pie`): `admit` behind a busy transmitter, else `pass_idle` (an
    /// idle transmitter has nothing waiting: it serves every packet at once). Out of
    /// line: the world's arrival path inlines only the dispatch.
    #[inline(never)]
    pub fn arrival(
        &mut self,
        now: u64,
        ect: bool,
        waiting_bytes: u64,
        busy: bool,
        full: bool,
    ) -> Admit {
        if busy {
            self.admit(now, ect, waiting_bytes, full)
        } else {
            self.pass_idle(now, full)
        }
    }

    /// `enqueue` then `dequeue` at the same instant of a packet that finds the queue
    /// empty and the link idle (`AqmQueue::pass_idle`): the burst allowance may be
    /// renewed, the safeguard keeps the packet (at most 2 x MEAN_PKTSIZE bytes wait, so
    /// no draw), and the latency after its dequeue is 0 (the queue is empty again).
    pub fn pass_idle(&mut self, now: u64, full: bool) -> Admit {
        self.catch_up(now);
        if full {
            return Admit::Dropped(DropCause::Limit);
        }
        let half = self.params.target_ns / 2;
        if self.drop_prob == 0.0 && self.qdelay_ns < half && self.qdelay_old_ns < half {
            self.burst_allowance_ns = self.params.max_burst_ns;
        }
        self.qdelay_ns = 0;
        Admit::Queued
    }

    /// Appendix A `drop_early`, with the safeguard of sec. 4.1.
    fn drop_early(&mut self, waiting_bytes: u64) -> bool {
        let half = self.params.target_ns / 2;
        if (self.qdelay_old_ns < half && self.drop_prob < 0.2)
            || waiting_bytes <= 2 * self.params.mean_pktsize
        {
            return false;
        }
        self.rng.uniform() < self.drop_prob
    }

    /// Appendix A `deque`: the latency is the packet's time in the queue.
    pub fn dequeue(&mut self, now: u64) -> Option<Entry> {
        self.catch_up(now);
        let e = self.q.pop()?;
        self.departed(now, e.enq_ns, self.q.is_empty());
        Some(e)
    }

    /// Appendix A `deque`'s latency for a packet queued at `enq_ns` leaving at `now`
    /// (after `catch_up(now)`), `empty`: nothing waits behind it.
    #[inline]
    pub fn departed(&mut self, now: u64, enq_ns: u64, empty: bool) {
        self.qdelay_ns = if empty { 0 } else { now.saturating_sub(enq_ns) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn pie() -> Pie {
        Pie::new(PieParams::default(), AqmRng::new(1, "pie"))
    }

    /// The update of sec. 4.2 by hand: latency 30 ms after 0, probability 0:
    /// p = 0.125 (0.030 - 0.015) + 1.25 (0.030 - 0) = 0.039375, scaled by 1/2048.
    #[test]
    fn probability_update_from_zero() {
        let mut p = pie();
        p.qdelay_ns = 30 * MS;
        p.calculate_drop_prob();
        assert!((p.drop_prob - 0.039375 / 2048.0).abs() < 1e-15);
        assert_eq!(p.qdelay_old_ns, 30 * MS);
    }

    /// With the probability at 5 % the step is halved; at 20 % it is taken whole.
    #[test]
    fn probability_update_scales_with_the_probability() {
        let mut p = pie();
        p.drop_prob = 0.05;
        p.qdelay_ns = 25 * MS;
        p.qdelay_old_ns = 20 * MS;
        p.calculate_drop_prob();
        // 0.125 * 0.010 + 1.25 * 0.005 = 0.0075, / 2.
        assert!((p.drop_prob - (0.05 + 0.00375)).abs() < 1e-15);
        let mut p = pie();
        p.drop_prob = 0.2;
        p.qdelay_ns = 5 * MS;
        p.qdelay_old_ns = 5 * MS;
        p.calculate_drop_prob();
        // 0.125 * (0.005 - 0.015) = -0.00125.
        assert!((p.drop_prob - 0.19875).abs() < 1e-15);
    }

    #[test]
    fn idle_queue_decays_the_probability() {
        let mut p = pie();
        p.drop_prob = 0.1;
        p.calculate_drop_prob();
        // p = 0.125 * (0 - 0.015) = -0.001875 taken whole (0.1 is not < 0.1), then x 0.98.
        assert!((p.drop_prob - (0.1 - 0.001875) * 0.98).abs() < 1e-15);
    }

    #[test]
    fn burst_allowance_and_deadline() {
        let mut p = pie();
        let e = |i, t| Entry {
            id: crate::net::PacketId(i),
            size: 1500,
            enq_ns: t,
            ect: false,
        };
        // The first arrival finds everything at 0: a full burst allowance.
        assert_eq!(p.enqueue(0, e(0, 0), false), Admit::Queued);
        assert_eq!(p.burst_allowance_ns, 150 * MS);
        // The update due at 0 found nothing to do; those due at 15, 30 and 45 ms run at
        // the next call (t = 50 ms), each taking 15 ms of allowance.
        p.enqueue(50 * MS, e(1, 50 * MS), false);
        assert_eq!(p.next_update_ns, 60 * MS);
        assert_eq!(p.burst_allowance_ns, 150 * MS);
        // (Reset again by the arrival: probability 0 and no latency.)
        p.q.pop();
        p.qdelay_ns = 40 * MS;
        p.catch_up(59 * MS);
        assert_eq!(p.burst_allowance_ns, 150 * MS);
        p.catch_up(60 * MS);
        assert_eq!(p.burst_allowance_ns, 135 * MS);
        assert!(p.drop_prob > 0.0);
        assert_eq!(
            p.enqueue(61 * MS, e(2, 61 * MS), true),
            Admit::Dropped(DropCause::Limit)
        );
    }
}
