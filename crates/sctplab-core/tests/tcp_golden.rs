//! Golden TCP tests. Expected values come from the seeds and from Fall & Floyd 1996
//! (the drop scenarios seed 002 reuses), never from our own output:
//! - seed 000 sec. 6.1 / Fig. 8: the exact sends around seven duplicate acks;
//! - seed 002 sec. 5 and its footnote 3, Fall & Floyd 1996: qualitative outcomes per
//!   variant and number of drops.
//!
//! The send order of every seed 002 case is also compared with ns-2.35 itself by
//! tests/test_ns2_tcp_oracle.py (where the `ns` binary is installed).

mod common;

use serde_json::Value;

struct Run {
    summary: Value,
    /// (time_s, seq, kind) in send order.
    sends: Vec<(f64, u32, String)>,
    /// (time_s, variable, value) of the flow's sampled variables.
    series: Vec<(f64, String, f64)>,
    link_drops: u64,
}

fn run(file: &str, series_interval: Option<&str>) -> Run {
    let sets: Vec<(String, String)> = series_interval
        .map(|i| ("series.interval".to_string(), format!("\"{i}\"")))
        .into_iter()
        .collect();
    let t = common::run_golden(file, &sets, &["cwnd", "ssthresh"]);
    let link_drops = t.summary["links"]
        .as_object()
        .unwrap()
        .values()
        .map(|l| l["queue_drops"].as_u64().unwrap())
        .sum();
    Run {
        summary: t.summary,
        sends: t.sends,
        series: t.series,
        link_drops,
    }
}

fn flow(r: &Run) -> &Value {
    r.summary["flows"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
}

fn fast_rtx_times(r: &Run) -> Vec<f64> {
    r.sends
        .iter()
        .filter(|s| s.2 == "fast_rtx")
        .map(|s| s.0)
        .collect()
}

#[test]
fn seed000_fig8_tcp_wastes_two_dupacks_then_clocks_out_15_16_17() {
    let r = run("seed000-tcp-fig8.toml", Some("1ms"));
    // The first transmission of 14, then: 7 (fast_rtx), 15, 16, 17 (seed 000 sec. 6.1).
    let i14 = r.sends.iter().position(|s| s.1 == 14).unwrap();
    let next: Vec<(u32, &str)> = r.sends[i14 + 1..i14 + 5]
        .iter()
        .map(|s| (s.1, s.2.as_str()))
        .collect();
    assert_eq!(
        next,
        [(7, "fast_rtx"), (15, "new"), (16, "new"), (17, "new")]
    );
    // Dupacks arrive one bottleneck packet time apart: 1488 B at 3 Mb/s = 3.968 ms.
    // 7 goes out on the third dupack, nothing on the fourth, 15 on the fifth.
    let t = |k: usize| r.sends[i14 + k].0;
    let gap = 0.003968;
    assert!(
        (t(2) - t(1) - 2.0 * gap).abs() < 1e-6,
        "15 two dupacks after 7"
    );
    assert!((t(3) - t(2) - gap).abs() < 1e-6);
    assert!((t(4) - t(3) - gap).abs() < 1e-6);
    // cwnd was 8 when 7 was lost and is halved to 4 (ssthresh 4).
    let cwnd_at = |time: f64| {
        r.series
            .iter()
            .rfind(|s| s.1 == "cwnd" && s.0 <= time)
            .map(|s| s.2)
            .unwrap()
    };
    assert_eq!(cwnd_at(t(1) - 0.0005), 8.0);
    assert_eq!(cwnd_at(t(2) - 0.0005), 4.0);
    assert_eq!(flow(&r)["timeouts"], 0);
}

const VARIANTS: [&str; 4] = ["reno", "newreno", "sack", "fack"];

#[test]
fn seed002_zero_drops_slow_start_overflows_a_queue_of_8() {
    // Issue note and Fall & Floyd: with R1's queue of 8, slow start itself overflows R1.
    for v in VARIANTS {
        let r = run(&format!("seed002-tcp-{v}-d0.toml"), None);
        assert!(r.link_drops > 0, "{v}: no queue drop in slow start");
    }
}

#[test]
fn seed002_reno_times_out_with_three_or_more_drops() {
    // Seed 002 footnote 3 (after Fall & Floyd): "Reno TCP almost always suffers a
    // retransmission timeout when there are three or more packet drops".
    for d in 3..=5 {
        let r = run(&format!("seed002-tcp-reno-d{d}.toml"), None);
        assert!(flow(&r)["timeouts"].as_u64().unwrap() >= 1, "reno d{d}");
    }
    let one = run("seed002-tcp-reno-d1.toml", None);
    assert_eq!(
        flow(&one)["timeouts"],
        0,
        "one drop is repaired by fast retransmit"
    );
}

/// Round-trip time of the seed 002 path: 2 x (0.1 ms + 100 ms) plus one 1040-byte data
/// packet (10.4 ms) and one 40-byte ack (0.4 ms) at 0.8 Mb/s, ignoring queueing.
const MIN_RTT: f64 = 0.2002 + 0.0104 + 0.0004;

#[test]
fn seed002_newreno_repairs_one_loss_per_round_trip_without_timeout() {
    for d in 1..=5 {
        let r = run(&format!("seed002-tcp-newreno-d{d}.toml"), None);
        let f = flow(&r);
        assert_eq!(f["timeouts"], 0, "newreno d{d}");
        assert_eq!(
            f["fast_retransmissions"], d,
            "newreno d{d}: one retransmission per drop"
        );
        let times = fast_rtx_times(&r);
        for w in times.windows(2) {
            assert!(
                w[1] - w[0] >= MIN_RTT,
                "newreno d{d}: two repairs within one RTT: {times:?}"
            );
        }
    }
}

#[test]
fn seed002_sack_repairs_several_losses_per_round_trip_without_timeout() {
    for d in 1..=5 {
        let r = run(&format!("seed002-tcp-sack-d{d}.toml"), None);
        let f = flow(&r);
        assert_eq!(f["timeouts"], 0, "sack d{d}");
        assert_eq!(f["fast_retransmissions"], d, "sack d{d}");
        let times = fast_rtx_times(&r);
        if d >= 3 {
            // All drops sit in one window; NewReno needs at least d - 1 round trips after
            // the first repair, SACK fewer.
            let span = times.last().unwrap() - times.first().unwrap();
            assert!(
                span < (d - 1) as f64 * MIN_RTT,
                "sack d{d}: repairs span {span} s"
            );
            assert!(
                times.windows(2).any(|w| w[1] - w[0] < MIN_RTT),
                "sack d{d}: no two repairs in one round trip: {times:?}"
            );
        }
    }
}

#[test]
fn seed002_fack_one_drop_follows_the_papers_account() {
    // Seed 002, authors' notes after sec. 5: on a fast retransmit ns-2's FACK sets cwnd to
    // 1; every ack (dupacks included) then opens it, by 1 while cwnd < ssthresh and by
    // 1/cwnd after, so that "by the time fast recovery is exited, the cwnd is nearly"
    // ssthresh + 1. The notes' numbers are ssthresh 7 and "nearly 8"; here, as in
    // ns-2.35 (whose send order tests/test_ns2_tcp_oracle.py compares with ours packet
    // for packet), cwnd is 16 segments when 15 is dropped, so ssthresh is 8 and the exit
    // value lies between 8 and 9: the same rule from one segment more of window.
    let r = run("seed002-tcp-fack-d1.toml", Some("1ms"));
    let t_rtx = fast_rtx_times(&r)[0];
    let at = |var: &str, t: f64| {
        r.series
            .iter()
            .rfind(|s| s.1 == var && s.0 <= t)
            .map(|s| s.2)
            .unwrap()
    };
    let w = at("cwnd", t_rtx - 0.0005);
    assert_eq!(w, 16.0, "cwnd when 15 is lost");
    let ssthresh = at("ssthresh", t_rtx + 0.0015);
    assert_eq!(ssthresh, (w / 2.0).floor());
    // Packets 16-30 follow the lost one: 15 dupacks, three before the retransmission,
    // twelve in recovery (one every 10.4 ms, all within one round trip of it).
    let mut expected = vec![1.0];
    let mut c = 1.0_f64;
    for _ in 0..12 {
        c += if c < ssthresh { 1.0 } else { 1.0 / c };
        expected.push(c);
    }
    let mut seen: Vec<f64> = Vec::new();
    for s in r
        .series
        .iter()
        .filter(|s| s.1 == "cwnd" && s.0 > t_rtx && s.0 < t_rtx + MIN_RTT)
    {
        if seen.last() != Some(&s.2) {
            seen.push(s.2);
        }
    }
    assert_eq!(seen.len(), expected.len(), "{seen:?}");
    for (a, b) in seen.iter().zip(&expected) {
        assert!((a - b).abs() < 1e-9, "{seen:?} against {expected:?}");
    }
    let at_exit = *seen.last().unwrap();
    assert!(at_exit > ssthresh && at_exit < ssthresh + 1.0, "{at_exit}");
}

#[test]
fn seed002_fack_restarts_cwnd_at_one_and_regrows_it_during_recovery() {
    // Seed 002 sec. 5 notes: on fast retransmit ns-2's FACK sets cwnd to 1 and opens it
    // on every ack during recovery, leaving recovery with cwnd above ssthresh, while
    // SACK keeps cwnd at ssthresh until recovery ends.
    for d in 1..=5 {
        let fack = run(&format!("seed002-tcp-fack-d{d}.toml"), Some("1ms"));
        let sack = run(&format!("seed002-tcp-sack-d{d}.toml"), Some("1ms"));
        assert_eq!(flow(&fack)["timeouts"], 0, "fack d{d}");
        let first_rtx = fast_rtx_times(&fack)[0];
        let in_recovery = |r: &Run, var: &str| -> Vec<f64> {
            r.series
                .iter()
                .filter(|s| s.1 == var && s.0 > first_rtx && s.0 < first_rtx + MIN_RTT)
                .map(|s| s.2)
                .collect()
        };
        let fack_cwnd = in_recovery(&fack, "cwnd");
        assert_eq!(
            fack_cwnd.iter().cloned().fold(f64::MAX, f64::min),
            1.0,
            "fack d{d}"
        );
        let ssthresh = in_recovery(&fack, "ssthresh")[0];
        assert!(
            fack_cwnd.last().unwrap() > &ssthresh,
            "fack d{d}: cwnd {:?} never passes ssthresh {ssthresh} in recovery",
            fack_cwnd.last()
        );
        let sack_first = fast_rtx_times(&sack)[0];
        let sack_cwnd: Vec<f64> = sack
            .series
            .iter()
            .filter(|s| s.1 == "cwnd" && s.0 > sack_first && s.0 < sack_first + MIN_RTT)
            .map(|s| s.2)
            .collect();
        assert!(
            sack_cwnd.iter().all(|&c| c == sack_cwnd[0]),
            "sack d{d}: cwnd moved in recovery"
        );
    }
}
