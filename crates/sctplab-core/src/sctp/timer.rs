//! The association-wide timers of an SCTP endpoint in one table, after quinn-proto's
//! `TimerTable`: an enum names the timers, the table holds each one's deadline, and
//! `poll_timeout` asks it for the next deadline (`next`: the caller says whether
//! the heartbeat timer counts in the current state). The per-destination timers (T3-rtx, the
//! HEARTBEAT deadlines) live on each `Path` and the delayed-SACK deadline on the
//! receiving half, beside the state they time; `Association::poll_timeout` merges them.

use crate::sim::SimTime;

/// A timer of the association (RFC 9260 sec. 5, 9; the run's start and stop).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Client: the flow's start time, when the INIT goes.
    Start,
    /// The flow's stop time, when the application stops offering data.
    Stop,
    /// T1-init and T1-cookie (RFC 9260 5.1): the INIT or COOKIE-ECHO is resent.
    T1Init,
    /// T2-shutdown (RFC 9260 9.2): the SHUTDOWN or SHUTDOWN-ACK is resent.
    T2Shutdown,
    /// ns-2.35's association-wide heartbeat timer (`HeartbeatGenTimer`).
    HeartbeatGen,
    /// RE-CONFIG's request timer (RFC 6525 5.1.1): the outstanding request is resent.
    Reconfig,
    /// ASCONF's timer (RFC 5061 5.1): the outstanding ASCONF is resent.
    Asconf,
}

impl Timer {
    const COUNT: usize = 7;
    pub const ALL: [Timer; Timer::COUNT] = [
        Timer::Start,
        Timer::Stop,
        Timer::T1Init,
        Timer::T2Shutdown,
        Timer::HeartbeatGen,
        Timer::Reconfig,
        Timer::Asconf,
    ];
}

/// Each timer's deadline, or none when it is not running, and the earliest ones
/// `poll_timeout` asks for on every poll (kept as the table changes, which is rare: the
/// timers here run seconds apart).
#[derive(Clone, Debug, Default)]
pub struct TimerTable {
    data: [Option<SimTime>; Timer::COUNT],
    /// The earliest deadline of all, and of all but `HeartbeatGen`.
    next_all: Option<SimTime>,
    next_but_hb_gen: Option<SimTime>,
}

impl TimerTable {
    /// Starts (or restarts) `timer` to expire at `at`.
    pub fn set(&mut self, timer: Timer, at: SimTime) {
        self.data[timer as usize] = Some(at);
        self.refresh();
    }

    pub fn get(&self, timer: Timer) -> Option<SimTime> {
        self.data[timer as usize]
    }

    pub fn stop(&mut self, timer: Timer) {
        self.data[timer as usize] = None;
        self.refresh();
    }

    pub fn is_set(&self, timer: Timer) -> bool {
        self.data[timer as usize].is_some()
    }

    /// Whether `timer` runs and its deadline has come.
    pub fn is_expired(&self, timer: Timer, now: SimTime) -> bool {
        self.data[timer as usize].is_some_and(|t| now >= t)
    }

    /// The earliest deadline among the running timers, `HeartbeatGen` counted only
    /// when `hb_gen` (ns-2's heartbeat timer counts only while established).
    #[inline]
    pub fn next(&self, hb_gen: bool) -> Option<SimTime> {
        if hb_gen {
            self.next_all
        } else {
            self.next_but_hb_gen
        }
    }

    fn refresh(&mut self) {
        let data = self.data;
        let min = |counts: &dyn Fn(Timer) -> bool| {
            Timer::ALL
                .iter()
                .filter(|&&t| counts(t))
                .filter_map(|&t| data[t as usize])
                .min()
        };
        self.next_all = min(&|_| true);
        self.next_but_hb_gen = min(&|t| t != Timer::HeartbeatGen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_stop_next_and_expiry() {
        let at = |ms: u64| SimTime::from_nanos(ms * 1_000_000);
        let mut t = TimerTable::default();
        assert_eq!(t.next(true), None);
        t.set(Timer::T2Shutdown, at(300));
        t.set(Timer::T1Init, at(200));
        t.set(Timer::HeartbeatGen, at(100));
        assert_eq!(t.next(true), Some(at(100)));
        assert_eq!(t.next(false), Some(at(200)));
        assert!(!t.is_expired(Timer::T1Init, at(199)));
        assert!(t.is_expired(Timer::T1Init, at(200)));
        t.stop(Timer::HeartbeatGen);
        t.stop(Timer::T1Init);
        assert!(!t.is_set(Timer::T1Init) && !t.is_expired(Timer::T1Init, at(999)));
        assert_eq!(
            (t.next(true), t.next(false)),
            (Some(at(300)), Some(at(300)))
        );
        // Setting again moves the deadline, earlier or later.
        t.set(Timer::T2Shutdown, at(50));
        assert_eq!(t.get(Timer::T2Shutdown), Some(at(50)));
        assert_eq!(t.next(false), Some(at(50)));
        t.set(Timer::T2Shutdown, at(400));
        assert_eq!(t.next(true), Some(at(400)));
    }
}
