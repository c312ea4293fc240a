//! The segments above the cumulative ack that the receiver has reported SACKed, kept
//! for delivery-rate estimation (BBR) from every ack's SACK blocks, whatever ns-2's
//! Sack1 recovery does with them. Sack1 ignores SACK information after a timeout until
//! a new cumulative ack and clears its scoreboard on every new cumulative ack outside
//! recovery, so counting deliveries from its scoreboard credited the segments SACKed
//! meanwhile to one later ack (an ack "delivering" a window at once, a rate sample
//! above the bottleneck's). draft-cheng-iccrg-delivery-rate-estimation sec. 3.3 counts
//! a packet as delivered when it is first ACKed or SACKed, as Linux does in every
//! state (its Loss state keeps SACK marks).

/// Disjoint, sorted half-open ranges [left, right) of SACKed segment numbers, all above
/// the cumulative ack.
#[derive(Clone, Debug, Default)]
pub struct SackedAbove {
    ranges: Vec<(i64, i64)>,
    count: i64,
}

impl SackedAbove {
    /// Segments known SACKed above the cumulative ack.
    pub fn count(&self) -> i64 {
        self.count
    }

    /// An ack with cumulative ack `cum` (the highest segment acked) and SACK `blocks`
    /// ([left, right) in segments). Returns (segments the cumulative ack now covers that
    /// were known SACKed, segments newly SACKed by the blocks).
    pub fn on_ack(&mut self, cum: i64, blocks: &[(i64, i64)]) -> (i64, i64) {
        let mut covered = 0;
        let floor = cum + 1;
        let mut keep = 0;
        for i in 0..self.ranges.len() {
            let (l, r) = self.ranges[i];
            if r <= floor {
                covered += r - l;
                continue;
            }
            if l < floor {
                covered += floor - l;
                self.ranges[keep] = (floor, r);
            } else {
                self.ranges[keep] = (l, r);
            }
            keep += 1;
        }
        self.ranges.truncate(keep);
        self.count -= covered;
        let mut newly = 0;
        for &(l, r) in blocks {
            let l = l.max(floor);
            if r > l {
                newly += self.insert(l, r);
            }
        }
        self.count += newly;
        (covered, newly)
    }

    /// Adds [l, r); returns how many segments were not in the set before.
    fn insert(&mut self, mut l: i64, mut r: i64) -> i64 {
        // Ranges that overlap or touch [l, r) merge into it.
        let start = self.ranges.partition_point(|&(_, b)| b < l);
        let mut end = start;
        let mut before = 0;
        while end < self.ranges.len() && self.ranges[end].0 <= r {
            let (a, b) = self.ranges[end];
            before += b - a;
            l = l.min(a);
            r = r.max(b);
            end += 1;
        }
        self.ranges.splice(start..end, [(l, r)]);
        // New segments: the merged width less what the merged ranges held.
        r - l - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_segment_once_when_first_sacked_and_when_the_hole_fills() {
        let mut s = SackedAbove::default();
        // cum 9: blocks [12, 15) and [20, 22): 5 newly SACKed.
        assert_eq!(s.on_ack(9, &[(12, 15), (20, 22)]), (0, 5));
        // The same blocks again, one extended to 16: 1 new.
        assert_eq!(s.on_ack(9, &[(12, 16), (20, 22)]), (0, 1));
        // A block bridging the two: [16, 20) is 4 new.
        assert_eq!(s.on_ack(9, &[(12, 22)]), (0, 4));
        assert_eq!(s.count(), 10);
        // The hole [10, 12) filled: cum 21 covers the 10 SACKed segments 12..=21.
        assert_eq!(s.on_ack(21, &[]), (10, 0));
        assert_eq!(s.count(), 0);
        // A cumulative ack into the middle of a range: [30, 35), cum 32 covers 30..=32.
        assert_eq!(s.on_ack(21, &[(30, 35)]), (0, 5));
        assert_eq!(s.on_ack(32, &[(30, 35)]), (3, 0));
        assert_eq!(s.count(), 2);
        // Blocks below the cumulative ack count nothing.
        assert_eq!(s.on_ack(32, &[(20, 30)]), (0, 0));
    }
}
