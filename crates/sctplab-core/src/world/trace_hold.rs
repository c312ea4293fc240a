//! trace.tr in time order although some of its lines become known late.
//!
//! The wireless accelerators run a quiet NIC's lazy events (`world/wireless/fast/`) when
//! it next catches up, later than the plain run would have; a repeated route request
//! that such a NIC's MAC only counts (`Frame::quiet_up`) is a delivery the ns-2 trace
//! shows (an `r` line at the MAC and one at routing, as the plain run writes them). So
//! the lines of the run's own events are held here as written, the late lines beside
//! them, and at each sweep (`World::sweep_mac_timers`, every `SWEEP_EVERY` events, when
//! every NIC has caught up to the event just run) the lines before that event's time
//! go to the file, merged in time order.
//!
//! Canonical order. Within one time stamp the run's own lines keep their order and come
//! first, the late lines after them in byte order; the plain run (`--shortcuts none`)
//! can interleave the lines of one time stamp differently, so trace.tr of a fast run and
//! of a plain run agree once the lines of each time stamp are sorted (what
//! `canonical_lines` does, and the equivalence tests compare).

use crate::sim::SimTime;
use std::collections::VecDeque;

/// The held lines of trace.tr (see the module's doc).
#[derive(Default)]
pub(crate) struct HeldLines {
    /// The run's own lines as written, back to back.
    text: Vec<u8>,
    /// Each of those lines' time and length, in order.
    lines: VecDeque<(SimTime, usize)>,
    /// Late lines (time, line), in no particular order.
    late: Vec<(SimTime, Vec<u8>)>,
}

impl HeldLines {
    /// One of the run's own lines, written at `t` (no earlier than the last one).
    pub(crate) fn push(&mut self, t: SimTime, line: &[u8]) {
        debug_assert!(self.lines.back().is_none_or(|&(last, _)| last <= t));
        self.text.extend_from_slice(line);
        self.lines.push_back((t, line.len()));
    }

    /// A late line: one of a lazily run event at `t`.
    pub(crate) fn push_late(&mut self, t: SimTime, line: Vec<u8>) {
        self.late.push((t, line));
    }

    /// Hands `out` the lines before `until` (all with `None`) in the canonical order and
    /// drops them.
    pub(crate) fn release(&mut self, until: Option<SimTime>, mut out: impl FnMut(SimTime, &[u8])) {
        let due = |t: SimTime| until.is_none_or(|u| t < u);
        let mut late: Vec<(SimTime, Vec<u8>)> = Vec::new();
        if !self.late.is_empty() {
            self.late.sort_unstable();
            let k = self.late.partition_point(|&(t, _)| due(t));
            late = self.late.drain(..k).collect();
        }
        let mut late = late.into_iter().peekable();
        let mut at = 0;
        while let Some(&(t, len)) = self.lines.front().filter(|&&(t, _)| due(t)) {
            while let Some((lt, line)) = late.next_if(|(lt, _)| *lt < t) {
                out(lt, &line);
            }
            out(t, &self.text[at..at + len]);
            at += len;
            self.lines.pop_front();
        }
        for (lt, line) in late {
            out(lt, &line);
        }
        self.text.drain(..at);
    }
}

/// The lines of a trace with those of each time stamp (the second field) sorted: the
/// form in which a fast run's trace.tr equals the plain run's (see the module's doc).
#[cfg(test)]
pub(crate) fn canonical_lines(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut group: Vec<&str> = Vec::new();
    let mut group_t = "";
    for line in text.lines() {
        let t = line.split(' ').nth(1).unwrap_or("");
        if t != group_t {
            group.sort_unstable();
            out.append(&mut group);
            group_t = t;
        }
        group.push(line);
    }
    group.sort_unstable();
    out.append(&mut group);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    fn drained(h: &mut HeldLines, until: Option<SimTime>) -> String {
        let mut s = String::new();
        h.release(until, |_, l| {
            s.push_str(std::str::from_utf8(l).expect("text"))
        });
        s
    }

    #[test]
    fn late_lines_merge_in_time_order_after_the_runs_own() {
        let mut h = HeldLines::default();
        h.push(t(1), b"a1\n");
        h.push(t(3), b"a3\n");
        h.push(t(3), b"b3\n");
        h.push(t(5), b"a5\n");
        h.push_late(t(4), b"L4\n".to_vec());
        h.push_late(t(3), b"M3\n".to_vec());
        h.push_late(t(0), b"L0\n".to_vec());
        h.push_late(t(3), b"L3\n".to_vec());
        h.push_late(t(6), b"L6\n".to_vec());
        // Up to 5 (not included): the run's own lines of an instant first, then the
        // late ones in byte order.
        assert_eq!(drained(&mut h, Some(t(5))), "L0\na1\na3\nb3\nL3\nM3\nL4\n");
        h.push(t(7), b"a7\n");
        assert_eq!(drained(&mut h, None), "a5\nL6\na7\n");
        assert_eq!(drained(&mut h, None), "");
    }

    #[test]
    fn canonical_lines_sort_within_a_time_stamp_only() {
        let text = "r 1.0 b\nr 1.0 a\ns 2.0 z\nr 3.0 c\nd 3.0 b\n";
        assert_eq!(
            canonical_lines(text),
            ["r 1.0 a", "r 1.0 b", "s 2.0 z", "d 3.0 b", "r 3.0 c"]
        );
    }
}
