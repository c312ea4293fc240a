//! The changes a routing agent makes to its route table, kept for the animation trace
//! (`--trace anim`, docs/animate.md `table` records) and nothing else. Off by default:
//! an agent notes every change through [`RouteLog::note`], which costs one branch while
//! the log is off, and the world turns it on only when the trace is recorded and drains
//! it after each input to the agent (`World::service_routing`). Protocol-neutral: an
//! agent reports a destination's usable next hop and hop count after any change it may
//! have made; the log keeps only what differs from what it last reported for that
//! destination, so an agent need not track its own before and after.

use rustc_hash::FxHashMap;

/// At most this many changes wait between two drains; the world drains after every
/// input, so the bound only guards an agent that is never drained.
const MAX_PENDING: usize = 4096;

/// A destination's route as the trace sees it: its next hop and hop count, or none
/// (no route, or one the agent cannot use: down, under repair, infinite metric).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RouteChange {
    pub dst: u32,
    pub next_hop: Option<u32>,
    pub hops: Option<u16>,
}

#[derive(Debug, Default)]
pub struct RouteLog {
    on: bool,
    /// Per destination, what was last reported (a destination not in it has no route).
    last: FxHashMap<u32, (Option<u32>, Option<u16>)>,
    pending: Vec<RouteChange>,
    /// Changes lost because nobody drained the log.
    lost: u64,
}

impl RouteLog {
    /// Start keeping changes (the routes the agent holds now count as known: none, as
    /// the world turns the log on before the agent's first input).
    pub fn enable(&mut self) {
        self.on = true;
    }

    /// The route to `dst` is now `next_hop` in `hops` hops (`None`: no usable route).
    /// Kept only when the log is on and it differs from what was last noted.
    #[inline]
    pub fn note(&mut self, dst: u32, next_hop: Option<u32>, hops: Option<u16>) {
        if self.on {
            self.note_on(RouteChange {
                dst,
                next_hop,
                hops,
            });
        }
    }

    #[cold]
    fn note_on(&mut self, c: RouteChange) {
        let now = (c.next_hop, c.hops);
        let before = self.last.get(&c.dst).copied().unwrap_or((None, None));
        if before == now {
            return;
        }
        self.last.insert(c.dst, now);
        if self.pending.len() < MAX_PENDING {
            self.pending.push(c);
        } else {
            self.lost += 1;
        }
    }

    /// Whether any change waits (cheap: the world calls it after every input).
    #[inline]
    pub fn has_changes(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The changes since the last drain, in the order the agent made them.
    pub fn drain(&mut self) -> std::vec::Drain<'_, RouteChange> {
        self.pending.drain(..)
    }

    /// Changes lost for want of a drain (zero when the world drains after every input).
    pub fn lost(&self) -> u64 {
        self.lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_keeps_nothing() {
        let mut l = RouteLog::default();
        l.note(7, Some(3), Some(2));
        assert!(!l.has_changes());
    }

    #[test]
    fn only_differences_are_kept() {
        let mut l = RouteLog::default();
        l.enable();
        // A down entry for an unknown destination is no change.
        l.note(7, None, None);
        l.note(7, Some(3), Some(2));
        l.note(7, Some(3), Some(2));
        l.note(7, Some(3), Some(1));
        l.note(7, Some(4), Some(1));
        l.note(7, None, None);
        l.note(7, None, None);
        let got: Vec<_> = l.drain().map(|c| (c.next_hop, c.hops)).collect();
        assert_eq!(
            got,
            [
                (Some(3), Some(2)),
                (Some(3), Some(1)),
                (Some(4), Some(1)),
                (None, None)
            ]
        );
        assert!(!l.has_changes());
    }

    #[test]
    fn the_pending_list_is_bounded() {
        let mut l = RouteLog::default();
        l.enable();
        for d in 0..(MAX_PENDING as u32 + 10) {
            l.note(d, Some(1), Some(1));
        }
        assert_eq!(l.drain().count(), MAX_PENDING);
        assert_eq!(l.lost(), 10);
    }
}
