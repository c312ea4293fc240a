//! A timer slot: the one pending timer event of an owner whose deadline moves (an
//! endpoint, a snoop agent, a routing agent, a wireless MAC).
//!
//! Deadlines move later on almost every input (an RTO restarts on every ack). Rather than
//! scheduling a new event each time and leaving stale ones in the queue, the owner keeps
//! its pending event while the new deadline is later: that event fires first, and the
//! owner re-arms it for the deadline it then has. Only an earlier deadline gets a new
//! event. Each event carries the slot's generation at scheduling, so an event replaced by
//! an earlier one is recognised as stale when it is popped, and ignored.
//!
//! The owner calls `after_input` after every input (the event to schedule, if any), and
//! `fire` when one of its timer events is popped (whether it is the live one); if the
//! owner's deadline is then still in the future it re-arms with `arm`.

use super::SimTime;

#[derive(Copy, Clone, Debug, Default)]
pub struct TimerSlot {
    /// The time of the live pending event, if any.
    at: Option<SimTime>,
    /// The generation of the live pending event (of the last one scheduled).
    generation: u32,
}

impl TimerSlot {
    /// The time of the live pending event, if any.
    pub fn pending(&self) -> Option<SimTime> {
        self.at
    }

    /// The generation of the live pending event (of the last one armed).
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Arms the slot for a new event at `at`: returns the generation that event carries.
    /// Any event scheduled before is stale from now on.
    #[inline]
    pub fn arm(&mut self, at: SimTime) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        self.at = Some(at);
        self.generation
    }

    /// After an input at `now`, with the owner's deadline now `deadline` (`None`: no
    /// timer runs): the (time, generation) of the event to schedule if the deadline
    /// (not before `now`) is earlier than the pending event or none is pending; `None`
    /// when the pending event comes first (it re-arms when it fires) or no timer runs.
    #[inline]
    pub fn after_input(
        &mut self,
        deadline: Option<SimTime>,
        now: SimTime,
    ) -> Option<(SimTime, u32)> {
        let t = deadline?.max(now);
        self.at.is_none_or(|p| t < p).then(|| (t, self.arm(t)))
    }

    /// A timer event of generation `generation` was popped: whether it is the live one.
    /// If it is, nothing is pending any more; if not, it is stale and does nothing.
    #[inline]
    pub fn fire(&mut self, generation: u32) -> bool {
        if generation != self.generation {
            return false;
        }
        self.at = None;
        true
    }

    /// The live pending event ran without being popped (an owner that keeps some of its
    /// events out of the queue, like a quiet MAC's virtual timer event): nothing is
    /// pending any more. `fire` of the live generation.
    #[inline]
    pub fn fire_live(&mut self) {
        self.at = None;
    }

    /// One step that stands for an event armed and run without being popped (`arm`,
    /// then `fire_live`), then, if `next` is a deadline, the event that run armed for
    /// it (`arm(next)`): the same generations, with one update of the slot.
    #[inline(always)]
    pub fn run_in_place_then(&mut self, next: Option<SimTime>) {
        self.generation = self
            .generation
            .wrapping_add(if next.is_some() { 2 } else { 1 });
        self.at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    #[test]
    fn later_deadlines_keep_the_pending_event() {
        let mut s = TimerSlot::default();
        let (at, g) = s.after_input(Some(t(100)), t(0)).expect("first deadline");
        assert_eq!(at, t(100));
        // Later deadlines (an RTO restarted): no new event.
        assert_eq!(s.after_input(Some(t(150)), t(10)), None);
        assert_eq!(s.after_input(Some(t(100)), t(20)), None);
        assert_eq!(s.after_input(None, t(30)), None);
        assert_eq!(s.pending(), Some(t(100)));
        // The pending event is live when it fires; the owner re-arms for its deadline.
        assert!(s.fire(g));
        assert_eq!(s.pending(), None);
        let g2 = s.arm(t(150));
        assert_ne!(g2, g);
        assert_eq!(s.pending(), Some(t(150)));
    }

    #[test]
    fn an_earlier_deadline_makes_the_pending_event_stale() {
        let mut s = TimerSlot::default();
        let (_, old) = s.after_input(Some(t(100)), t(0)).expect("first");
        let (at, new) = s.after_input(Some(t(40)), t(5)).expect("earlier");
        assert_eq!(at, t(40));
        assert!(s.fire(new));
        // The replaced event, popped later, is stale and changes nothing.
        let g = s.arm(t(70));
        assert!(!s.fire(old));
        assert_eq!(s.pending(), Some(t(70)));
        assert!(s.fire(g));
    }

    #[test]
    fn a_deadline_in_the_past_fires_now() {
        let mut s = TimerSlot::default();
        assert_eq!(s.after_input(Some(t(3)), t(8)).map(|e| e.0), Some(t(8)));
    }

    /// Generations wrap around without a false match for the live event's neighbours.
    #[test]
    fn generations_wrap() {
        let mut s = TimerSlot {
            at: None,
            generation: u32::MAX,
        };
        let g = s.arm(t(1));
        assert_eq!(g, 0);
        assert!(!s.fire(u32::MAX));
        assert!(s.fire(0));
    }

    /// An event run outside the queue leaves nothing pending and keeps the generation,
    /// as `fire` of the live event does.
    #[test]
    fn firing_the_live_event_in_place_is_fire_of_its_generation() {
        let mut a = TimerSlot::default();
        let ga = a.arm(t(10));
        let mut b = a;
        assert!(a.fire(ga));
        b.fire_live();
        assert_eq!(b.pending(), None);
        assert_eq!(a.arm(t(20)), b.arm(t(20)));
    }

    /// `run_in_place_then` is `arm`, `fire_live` and, for a deadline, `arm` again.
    #[test]
    fn running_in_place_then_arming_is_the_three_steps() {
        for next in [None, Some(t(50))] {
            let mut a = TimerSlot::default();
            a.arm(t(5));
            let mut b = a;
            a.arm(t(30));
            a.fire_live();
            if let Some(n) = next {
                a.arm(n);
            }
            b.run_in_place_then(next);
            assert_eq!((a.pending(), a.generation()), (b.pending(), b.generation()));
        }
    }
}
