//! CMT's delayed ack (DAC, ToN 2006 sec. IV-C; ns-2.35 `SctpCMTAgent`). The receiver
//! delays every SACK, gaps or not, and writes the number of DATA packets it received
//! since its previous SACK into the SACK chunk's flags (`GenChunk`, SCTP_CHUNK_SACK;
//! `Inbound::take_sack` here). The sender then counts missing reports by that number
//! where it can tell that the SACK acknowledged nothing across the missing TSN.

use crate::sctp::outbound::tsn_lt;

/// Missing reports one SACK adds to a TSN it reports missing (ns-2.35
/// `ProcessGapAckBlocks`, end): one when the SACK newly acknowledged data sent to more
/// than one destination ("mixed SACK") or acknowledged TSNs on both sides of `tsn` on
/// its destination (`lowest` below `tsn`; none newly acked counts as 0 there, so also
/// one); otherwise, with one destination acked, the number of packets the SACK reports
/// (its flags); with none, nothing.
pub fn increment(dests_sacked: u32, lowest: Option<u32>, tsn: u32, packets: u32) -> u32 {
    if dests_sacked > 1 || lowest.is_none_or(|l| tsn_lt(l, tsn)) {
        1
    } else if dests_sacked == 1 {
        packets
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_follow_ns2_cases() {
        // Two destinations newly acked: a mixed SACK counts one report.
        assert_eq!(increment(2, Some(12), 10, 2), 1);
        // One destination, the SACK acked TSN 9 below missing TSN 10 on it: it acks
        // across the hole, so one.
        assert_eq!(increment(1, Some(9), 10, 2), 1);
        // One destination, everything it acked lies above TSN 10: the SACK's two packets
        // both arrived after 10 would have, two reports.
        assert_eq!(increment(1, Some(11), 10, 2), 2);
        // ns-2.35's timer-driven SACK carries 0 packets: no report at all.
        assert_eq!(increment(1, Some(11), 10, 0), 0);
        // No destination saw a new ack (SFR off): ns-2's lowest TSN is 0, below any
        // TSN, so one.
        assert_eq!(increment(0, None, 10, 2), 1);
    }
}
