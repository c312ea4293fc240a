//! The `rfc4960` and `rfc9260` presets on seed 002's drop lists, where their rules
//! differ (issue 12): every expected sequence is worked out by hand from the RFC text in
//! the test's comment, on the golden scenario's set-up (one 1016-byte chunk per packet,
//! so one MTU of cwnd is one packet; no delayed SACKs; 0.8 Mb/s, 100 ms bottleneck).

mod common;

use common::Traced as Run;
use common::{after, seq, time_of, var_at};

/// One MTU of cwnd on seed 002's path.
const MTU2: f64 = 1016.0;

fn run(file: &str, variant: &str) -> Run {
    let sets = [
        ("series.interval".to_string(), "\"1ms\"".to_string()),
        ("flows.sctp1.variant".to_string(), format!("\"{variant}\"")),
    ];
    common::run_golden(file, &sets, &["cwnd", "ssthresh", "flight"])
}

#[test]
fn seed002_d1_rfc9260_grows_on_duplicate_sacks_rfc4960_does_not() {
    // Drop list d1 = {15}; initial cwnd 1 MTU, ssthresh 64 KiB (slow start throughout).
    // Packets 1-29 go out alike (cumulative SACKs); when 29 leaves, cwnd is 15 MTU and
    // 15-29 are in flight (15 MTU: the window is full). The SACKs for 16, 17 and 18
    // report 15 missing without advancing the cumulative ack (cum = 14).
    // rfc4960 (RFC 4960 7.2.1: growth needs a cumulative-ack advance): no growth; each
    //   gap-acked chunk frees one MTU -> 30, 31; the third SACK is the third miss
    //   indication (fast_rtx_threshold 3) -> 15 is fast-retransmitted, ssthresh =
    //   max(15/2, 4) = 7.5 MTU, cwnd = 7.5 MTU (7.2.3).
    // rfc9260 (RFC 9260 7.2.1: cwnd full and not in fast recovery suffices):
    //   SACK 16: flight 15 >= cwnd 15 -> cwnd 16; flight 14 -> 30, 31;
    //   SACK 17: flight 16 >= 16 -> cwnd 17; flight 15 -> 32, 33;
    //   SACK 18: flight 17 >= 17 -> cwnd 18 (growth is applied before the fast
    //   retransmit's adjustment, 7.2.4), then ssthresh = max(18/2, 4) = 9 MTU, cwnd 9.
    let r = run("seed002-sctp-newreno-d1.toml", "rfc4960");
    let expected = seq(&[(30, "new"), (31, "new"), (15, "fast_rtx")]);
    assert_eq!(after(&r, 29, expected.len()), expected);
    let t15 = time_of(&r, 15, "fast_rtx");
    assert_eq!(var_at(&r, "cwnd", t15 + 0.0015), 7.5 * MTU2);
    assert_eq!(var_at(&r, "ssthresh", t15 + 0.0015), 7.5 * MTU2);

    let r = run("seed002-sctp-newreno-d1.toml", "rfc9260");
    let expected = seq(&[
        (30, "new"),
        (31, "new"),
        (32, "new"),
        (33, "new"),
        (15, "fast_rtx"),
    ]);
    assert_eq!(after(&r, 29, expected.len()), expected);
    let t15 = time_of(&r, 15, "fast_rtx");
    assert_eq!(
        time_of(&r, 31, "new"),
        time_of(&r, 30, "new"),
        "30, 31 on SACK 16"
    );
    assert_eq!(
        time_of(&r, 33, "new"),
        time_of(&r, 32, "new"),
        "32, 33 on SACK 17"
    );
    assert_eq!(var_at(&r, "cwnd", t15 + 0.0015), 9.0 * MTU2);
    assert_eq!(var_at(&r, "ssthresh", t15 + 0.0015), 9.0 * MTU2);
}
