//! One stream's source: its configuration and when its messages fall due.

use crate::sim::{SimDuration, SimTime};

/// A PR-SCTP policy (RFC 3758 sec. 3.5, RFC 7496): when the sender may give up a
/// message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrPolicy {
    /// Reliable (RFC 9260).
    None,
    /// Timed reliability (RFC 7496 sec. 2, RFC 3758's example): abandoned once this
    /// long has passed since its submission.
    Ttl(SimDuration),
    /// Limited retransmissions (RFC 7496 sec. 3): abandoned when a chunk of it would
    /// be retransmitted more than this many times (0: never retransmitted).
    Rtx(u32),
    /// Priority (RFC 7496 sec. 4): abandoned to make room in a full send buffer for a
    /// message of higher priority (a smaller number).
    Prio(u32),
}

impl PrPolicy {
    pub fn is_reliable(self) -> bool {
        self == PrPolicy::None
    }
}

/// One `stream_traffic` entry (CONTRACTS.md "Messages"), times absolute.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSourceCfg {
    pub stream: u16,
    pub message_size: u64,
    /// Absent: a backlog that keeps the send buffer full.
    pub interval: Option<SimDuration>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// For the `priority` and `wfq` schedulers (RFC 8260 sec. 3.4, 3.6, `sched.rs`);
    /// the others do not look at them.
    pub priority: i64,
    pub weight: u32,
    pub pr: PrPolicy,
}

#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub(crate) cfg: StreamSourceCfg,
    /// Interval source: the next tick not yet counted; backlog: unused.
    next_tick: SimTime,
    /// Interval source: ticks counted and not yet submitted (the application blocks on
    /// a full buffer), and the tick of the oldest of them.
    waiting: u64,
    oldest: SimTime,
    /// A backlog source between its start and its stop.
    live: bool,
    over: bool,
}

impl Source {
    pub(crate) fn new(cfg: &StreamSourceCfg) -> Self {
        Source {
            cfg: cfg.clone(),
            next_tick: cfg.start,
            waiting: 0,
            oldest: cfg.start,
            live: false,
            over: false,
        }
    }

    fn stopped_at(&self, t: SimTime) -> bool {
        self.cfg.stop.is_some_and(|s| t >= s)
    }

    /// The application starts with the association (`now`): an interval source's ticks
    /// before it are not messages (nothing was there to take them).
    pub(crate) fn begin(&mut self, now: SimTime) {
        if let Some(iv) = self.cfg.interval {
            if self.next_tick < now && iv > SimDuration::ZERO {
                let behind = now.saturating_since(self.next_tick).as_nanos();
                let k = behind.div_ceil(iv.as_nanos());
                self.next_tick += iv.saturating_mul(k);
            }
            self.oldest = self.next_tick;
        }
    }

    /// Counts the ticks up to `now` (an interval source), or starts or stops a backlog.
    pub(crate) fn advance(&mut self, now: SimTime) {
        match self.cfg.interval {
            Some(iv) => {
                while self.next_tick <= now && !self.stopped_at(self.next_tick) {
                    if self.waiting == 0 {
                        self.oldest = self.next_tick;
                    }
                    self.waiting += 1;
                    self.next_tick += iv;
                }
                self.over = self.stopped_at(self.next_tick);
            }
            None => {
                self.over = self.stopped_at(now);
                self.live = !self.over && now >= self.cfg.start;
            }
        }
    }

    /// An interval source's waiting message is submitted.
    pub(crate) fn take(&mut self, _now: SimTime) {
        if self.cfg.interval.is_some() && self.waiting > 0 {
            self.waiting -= 1;
            // The next waiting one fell due one interval later.
            if let Some(iv) = self.cfg.interval {
                self.oldest += iv;
            }
        }
    }

    /// When an interval source's oldest waiting message fell due.
    pub(crate) fn due_at(&self) -> Option<SimTime> {
        (self.cfg.interval.is_some() && self.waiting > 0).then_some(self.oldest)
    }

    pub(crate) fn backlog_ready(&self) -> bool {
        self.cfg.interval.is_none() && self.live
    }

    pub(crate) fn finished(&self) -> bool {
        self.over && self.waiting == 0
    }

    pub(crate) fn next_wakeup(&self) -> Option<SimTime> {
        if self.over {
            return None;
        }
        match self.cfg.interval {
            Some(_) => Some(self.next_tick),
            None if !self.live => Some(self.cfg.start),
            None => self.cfg.stop,
        }
    }
}
