//! Multihomed SCTP end to end: real scenarios (TOML below) on a wired dual-homed
//! topology, through the world's addressing, routing, `[[faults]]`, summary.json,
//! sends.csv `dest` column and the per-destination series. Every expected time is
//! worked out by hand from the topology and RFC 9260's timer rules.
//!
//! ```text
//!          h1_ra 10 ms      ra_h2 10 ms
//!   h1:eth0 ----------- ra ----------- h2:eth0     network A (10.x addresses)
//!   h1:eth1 ----------- rb ----------- h2:eth1     network B (11.x addresses)
//!          h1_rb 20 ms      rb_h2 20 ms
//! ```
//!
//! All links 10 Mb/s (0.8 us per byte), queues far from full. Routes to an address end
//! on that interface's link and never cross the owner, so h1 reaches h2:eth0 only
//! through ra and h2:eth1 only through rb, and a packet's source address is the
//! interface it leaves by: the two paths share nothing (CONTRACTS.md).
//!
//! The flow `x` (h1 -> h2, `rfc9260`, no delayed SACK) has a receive buffer of exactly
//! one DATA chunk, so exactly one chunk is in flight: DATA k + 1 leaves the moment the
//! SACK of DATA k arrives, which makes every send time a sum of link times.
//!
//! Packet sizes (IPv4 20 + SCTP common header 12 + chunks):
//! - INIT: 20 + two IPv4 Address parameters of 8 (both ends are multihomed) -> 68 B;
//! - INIT-ACK: 20 + 16 + cookie parameter 4 + 84 (44-byte body, the client's two
//!   addresses 8, HMAC-SHA-256 32) = 124 -> 156 B; COOKIE-ECHO 4 + 84 -> 120 B;
//!   COOKIE-ACK 4 -> 36 B;
//! - DATA: 16 + 1448 -> 1496 B (1.1968 ms on a 10 Mb/s link); SACK 16 -> 48 B
//!   (38.4 us), 52 B with one duplicate TSN (41.6 us); HEARTBEAT and its ACK 56 -> 88 B
//!   (70.4 us).
//!
//! Hand calculation of the set-up on network A (each packet: two hops, each its
//! serialisation plus 10 ms):
//! - INIT at 0 reaches h2 at 2 x (54.4 us + 10 ms) = 20.1088 ms;
//! - INIT-ACK back at 20.1088 + 2 x (124.8 us + 10 ms) = 40.3584 ms;
//! - COOKIE-ECHO at h2 at 40.3584 + 2 x (96 us + 10 ms) = 60.5504 ms (the server is
//!   established then);
//! - COOKIE-ACK at h1 at 60.5504 + 2 x (28.8 us + 10 ms) = 80.608 ms = T0: DATA 1 leaves.
//!
//! Round trips of one DATA and its SACK: RTT_A = 2 x (1.1968 + 10) + 2 x (0.0384 + 10)
//! = 42.4704 ms; RTT_B = 2 x (1.1968 + 20) + 2 x (0.0384 + 20) = 82.4704 ms, or
//! 82.4768 ms when the SACK reports a duplicate TSN. DATA k (1-based) leaves at
//! T0 + (k - 1) x RTT_A while nothing fails.
//!
//! RTO: every RTT sample is far below RTO.Min = 1 s (SRTT + 4 RTTVAR <= 3 x 42.5 ms), so
//! RTO = 1 s on both paths once they have a sample, doubling per expiry (RFC 9260 6.3.3
//! E2) up to RTO.Max = 60 s.

use sctplab_core::trace::TraceConfig;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

const TOPO: &str = r#"
[[nodes]]
name = "h1"
[[nodes]]
name = "h2"
[[nodes]]
name = "ra"
[[nodes]]
name = "rb"

[[links]]
name = "h1_ra"
a = "h1"
b = "ra"
bandwidth = "10Mb"
delay = "10ms"
[[links]]
name = "ra_h2"
a = "ra"
b = "h2"
bandwidth = "10Mb"
delay = "10ms"
[[links]]
name = "h1_rb"
a = "h1"
b = "rb"
bandwidth = "10Mb"
delay = "20ms"
[[links]]
name = "rb_h2"
a = "rb"
b = "h2"
bandwidth = "10Mb"
delay = "20ms"

[[flows]]
name = "x"
type = "sctp"
variant = "rfc9260"
from = "h1"
to = "h2"
receive_buffer = "1464B"
delayed_sack = false
"#;

/// First DATA (the COOKIE-ACK's arrival), seconds.
const T0: f64 = 0.080608;
const RTT_A: f64 = 0.0424704;
const RTT_B: f64 = 0.0824704;
/// RTT_B when the SACK carries one duplicate TSN (4 more bytes on two hops).
const RTT_B_DUP: f64 = RTT_B + 2.0 * 4.0 * 0.8e-6;
/// HEARTBEAT and HEARTBEAT-ACK (88 B each) over network A: 4 x 70.4 us + 40 ms.
const HB_RTT_A: f64 = 0.0402816;
const EPS: f64 = 1e-9;

/// Send time of DATA k (1-based) while nothing fails.
fn t_data(k: u32) -> f64 {
    T0 + f64::from(k - 1) * RTT_A
}

const A: &str = "h2:eth0";
const B: &str = "h2:eth1";

/// A fault entry.
fn fault(at: &str, link: &str, action: &str) -> String {
    format!("[[faults]]\nat = \"{at}\"\nlink = \"{link}\"\naction = \"{action}\"\n")
}

#[derive(Debug, Clone)]
struct Send {
    t: f64,
    seq: u32,
    kind: String,
    dest: String,
}

struct Run {
    summary: Value,
    sends: Vec<Send>,
    /// (time, entity, variable, value)
    series: Vec<(f64, String, String, f64)>,
    /// ns-2 trace lines split in fields.
    trace: Vec<Vec<String>>,
}

impl Run {
    fn flow(&self) -> &Value {
        &self.summary["flows"]["x"]
    }
    fn rows(&self, kind: &str) -> Vec<&Send> {
        self.sends.iter().filter(|s| s.kind == kind).collect()
    }
    /// Transmission starts (`-`) of `size`-byte packets from node `from` to `to`
    /// (0-based declaration indices: h1 0, h2 1, ra 2, rb 3).
    fn tx_times(&self, from: &str, to: &str, size: &str) -> Vec<f64> {
        self.trace
            .iter()
            .filter(|f| f[0] == "-" && f[2] == from && f[3] == to && f[5] == size)
            .map(|f| f[1].parse().expect("time"))
            .collect()
    }
    /// The client's HEARTBEATs to h2:eth0: `size`-byte packets leaving h1 toward ra,
    /// except the HEARTBEAT-ACKs h1 sends the moment a server HEARTBEAT (same size)
    /// arrives from ra (path A carries nothing else whenever those are sent here).
    /// `size`: 88 (Linux's Heartbeat Info), 56 with the ns2 preset (ns-2's 24-byte chunk).
    fn client_heartbeats_a(&self, size: &str) -> Vec<f64> {
        let acks = self
            .trace
            .iter()
            .filter(|f| f[0] == "r" && f[2] == "2" && f[3] == "0" && f[5] == size);
        let acks: Vec<&str> = acks.map(|f| f[1].as_str()).collect();
        self.trace
            .iter()
            .filter(|f| f[0] == "-" && f[2] == "0" && f[3] == "2" && f[5] == size)
            .filter(|f| !acks.contains(&f[1].as_str()))
            .map(|f| f[1].parse().expect("time"))
            .collect()
    }
    /// The client's HEARTBEATs toward `to` ("2" ra: h2:eth0, "3" rb: h2:eth1), as
    /// `client_heartbeats_a` finds them.
    fn client_heartbeats(&self, to: &str, size: &str) -> Vec<f64> {
        let acks: Vec<&str> = self
            .trace
            .iter()
            .filter(|f| f[0] == "r" && f[2] == to && f[3] == "0" && f[5] == size)
            .map(|f| f[1].as_str())
            .collect();
        self.trace
            .iter()
            .filter(|f| f[0] == "-" && f[2] == "0" && f[3] == to && f[5] == size)
            .filter(|f| !acks.contains(&f[1].as_str()))
            .map(|f| f[1].parse().expect("time"))
            .collect()
    }
    fn series_of(&self, entity: &str, var: &str) -> Vec<(f64, f64)> {
        self.series
            .iter()
            .filter(|(_, e, v, _)| e == entity && v == var)
            .map(|(t, _, _, x)| (*t, *x))
            .collect()
    }
}

/// Runs the topology with `flow_extra` appended to flow `x`'s table and `extra`
/// (faults) after it, for `duration`, with sends.csv, trace.tr and the given series.
fn run(duration: &str, flow_extra: &str, extra: &str, series: &[&str]) -> Run {
    run_on(TOPO, duration, flow_extra, extra, series)
}

/// `run` on another topology text (TOPO with some values changed).
fn run_on(topo: &str, duration: &str, flow_extra: &str, extra: &str, series: &[&str]) -> Run {
    // A `variant` in `flow_extra` replaces the topology's.
    let topo = if flow_extra.contains("variant") {
        topo.replace("variant = \"rfc9260\"\n", "")
    } else {
        topo.to_string()
    };
    let text = format!("duration = \"{duration}\"\n{topo}{flow_extra}\n{extra}");
    let s = load_toml(&text, "t.toml", "t", &[]).expect("valid scenario");
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sctplab-mhw-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut trace = TraceConfig {
        out_dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    trace.set_traces(&["sends", "ns2"]).expect("kinds");
    trace.set_series(series).expect("variables");
    let r = run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run");
    let csv = std::fs::read_to_string(dir.join("sends.csv")).expect("sends.csv");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("time_s,flow,seq,kind,dest"));
    let sends = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Send {
                t: f[0].parse().expect("time"),
                seq: f[2].parse().expect("seq"),
                kind: f[3].to_string(),
                dest: f[4].to_string(),
            }
        })
        .collect();
    let trace = std::fs::read_to_string(dir.join("trace.tr"))
        .expect("trace.tr")
        .lines()
        .map(|l| l.split(' ').map(str::to_string).collect())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let ser = &r.series;
    let series = (0..ser.len())
        .map(|i| {
            (
                ser.time_s[i],
                ser.entity_names[ser.entity[i] as usize].clone(),
                ser.variable_names[ser.variable[i] as usize].clone(),
                ser.value[i],
            )
        })
        .collect();
    Run {
        summary: serde_json::from_str(&r.summary_json).expect("json"),
        sends,
        series,
        trace,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < EPS
}

/// The timeline of a primary-path failure at 10 s with Path.Max.Retrans = 5.
///
/// DATA 234 leaves at t_data(234) = T0 + 233 x RTT_A = 9.9762112 s (the last one before
/// 10 s: t_data(235) = 10.0186816). It reaches h2 at + 22.3936 ms = 9.9986048 s, before
/// ra_h2 fails at 10 s, but its SACK is on ra_h2 then and is lost. T3 on A (started by
/// DATA 234, RFC 9260 6.3.2 R1, RTO 1 s) expires at E1 = 10.9762112 s: error 1, RTO
/// 2 s, and the chunk is retransmitted to the alternate h2:eth1 (6.4). h2 already has
/// it, so the SACK reports a duplicate: back at E1 + RTT_B_DUP. The primary is still
/// active, so DATA 235 (new) goes to A then and its T3 runs 2 s: E2 = E1 + RTT_B_DUP +
/// 2; likewise DATA 236..239 with RTO 4, 8, 16, 32 (these never reached h2: plain
/// RTT_B). E6 = E1 + RTT_B_DUP + 4 RTT_B + 62 = 73.3885696 s is the 6th consecutive
/// error > Path.Max.Retrans: A is inactive (8.2) and new data moves to B, the first at
/// the SACK of the 6th retransmission, E6 + RTT_B = 73.47104 s.
struct Failover {
    e: [f64; 6],
}

fn failover_times() -> Failover {
    let e1 = t_data(234) + 1.0;
    let mut e = [e1; 6];
    let mut rto = 1.0;
    for k in 1..6 {
        rto *= 2.0;
        let sack = if k == 1 { RTT_B_DUP } else { RTT_B };
        e[k] = e[k - 1] + sack + rto;
    }
    Failover { e }
}

#[test]
fn primary_link_failure_fails_over_after_path_max_retrans_and_the_path_returns() {
    let f = failover_times();
    assert!(close(f.e[0], 10.9762112));
    assert!(close(f.e[5], 73.3885696));
    // Link ra_h2 returns at 100 s. A's last first transmission was DATA 239 at
    // E5 + RTT_B = 41.3885696 s, and its RTO is 60 s (64 capped); it is idle, so its next
    // HEARTBEAT comes HB.interval + RTO x (1 + U[-0.5, 0.5)) = [60, 120) s later
    // (RFC 9260 8.3): in [101.3885696, 161.3885696), after the repair, so it is
    // answered HB_RTT_A later, A is active again, and new data returns to the primary
    // (return_to_primary) at the next send opportunity: the next SACK on B, within RTT_B.
    let r = run(
        "200s",
        "",
        &(fault("10s", "ra_h2", "down") + &fault("100s", "ra_h2", "up")),
        &[],
    );
    let fl = r.flow();

    // Before the failure: DATA k at t_data(k), all to the primary.
    let new = r.rows("new");
    assert!(close(new[0].t, T0) && new[0].dest == A);
    let d234 = new.iter().find(|s| s.seq == 234).expect("DATA 234");
    assert!(close(d234.t, t_data(234)) && d234.dest == A, "{d234:?}");
    assert!(new.iter().filter(|s| s.t < 10.0).all(|s| s.dest == A));

    // Six timeout retransmissions at E1..E6, each to the alternate: DATA 234..239.
    let rtx = r.rows("rto_rtx");
    assert_eq!(rtx.len(), 6, "{rtx:?}");
    for (k, s) in rtx.iter().enumerate() {
        assert!(close(s.t, f.e[k]), "E{}: {s:?} vs {}", k + 1, f.e[k]);
        assert_eq!((s.seq, s.dest.as_str()), (234 + k as u32, B));
    }
    // In between, new data still goes to the (active) primary, one chunk per cycle.
    for k in 0..5 {
        let sack = if k == 0 { RTT_B_DUP } else { RTT_B };
        let s = new
            .iter()
            .find(|s| s.seq == 235 + k as u32)
            .expect("new data");
        assert!(close(s.t, f.e[k] + sack) && s.dest == A, "{s:?}");
    }
    // The primary is inactive at E6 and new data moves to the alternate.
    let p_a = &fl["paths"][A];
    assert!(
        close(p_a["failed_at_s"].as_f64().expect("failed"), f.e[5]),
        "{p_a}"
    );
    let first_b = new.iter().find(|s| s.dest == B).expect("new data on B");
    assert!(close(first_b.t, f.e[5] + RTT_B), "{first_b:?}");
    assert_eq!(first_b.seq, 240);

    // The repair: exactly one HEARTBEAT to A in the whole run, in the window above;
    // data returns one HB round trip later plus at most RTT_B, and stays.
    let hb_a = r.client_heartbeats_a("88");
    assert_eq!(hb_a.len(), 1, "{hb_a:?}");
    let hb = hb_a[0];
    assert!((101.3885696..161.3885696).contains(&hb), "{hb}");
    let back = new
        .iter()
        .find(|s| s.t > f.e[5] && s.dest == A)
        .expect("data back on A");
    let acked = hb + HB_RTT_A;
    assert!(
        back.t >= acked - EPS && back.t <= acked + RTT_B + EPS,
        "{back:?} {hb}"
    );
    assert!(
        new.iter()
            .filter(|s| s.t > f.e[5] && s.t < back.t)
            .all(|s| s.dest == B)
    );
    assert!(new.iter().filter(|s| s.t >= back.t).all(|s| s.dest == A));

    assert_eq!(fl["failovers"], 2);
    assert_eq!(fl["timeouts"], 6);
    assert_eq!(fl["retransmissions"], 6);
    assert_eq!(fl["timeout_retransmissions"], 6);
    assert_eq!(p_a["state"], "active");
    assert_eq!(p_a["retransmissions"], 0);
    assert_eq!(p_a["heartbeats"], 1);
    // After the HEARTBEAT-ACK's RTT sample (40 ms) RTO is back at RTO.Min.
    assert_eq!(p_a["rto_s"], 1.0);
    assert_eq!(fl["paths"][B]["retransmissions"], 6);
    assert_eq!(fl["paths"][B]["failed_at_s"], Value::Null);
    assert_eq!(fl["aborted"], false);
    // Everything sent was delivered or is the one chunk in flight at the end.
    let sent = fl["new_bytes_sent"].as_u64().expect("bytes");
    let delivered = fl["delivered_bytes"].as_u64().expect("bytes");
    assert!(sent - delivered <= 1448, "{sent} {delivered}");
    // The link counted what it lost while down: DATA 235..239 (five 1496-byte packets
    // on ra -> h2); on h2 -> ra the SACK of DATA 234 and the server's HEARTBEATs to
    // h1:eth0 sent before 100 s. The server sends only SACKs, so it probes h1:eth0 with
    // its RTO.Initial of 1 s (RFC 9260 sec. 16; it has no sample there): first at
    // [30.56, 31.56) s (see the heartbeat test), lost, RTO 2 s; the next HB.interval +
    // 2 x [0.5, 1.5) later, in [61.56, 64.56), lost, RTO 4 s; the third 30 + 4 x
    // [0.5, 1.5) later, in [93.56, 100.56): lost if it leaves before the repair.
    assert_eq!(r.summary["links"]["ra->h2"]["fault_drops"], 5);
    // The lost HEARTBEATs are the 88-byte drops ('d') on h2 -> ra.
    let lost: Vec<f64> = r
        .trace
        .iter()
        .filter(|f| f[0] == "d" && f[2] == "1" && f[3] == "2" && f[5] == "88")
        .map(|f| f[1].parse().expect("time"))
        .collect();
    assert!((30.5606..31.5606).contains(&lost[0]), "{lost:?}");
    assert!((61.5606..64.5606).contains(&lost[1]), "{lost:?}");
    assert!(
        lost.len() == 2 || (93.5606..100.0).contains(&lost[2]),
        "{lost:?}"
    );
    assert!(lost.len() <= 3, "{lost:?}");
    assert_eq!(r.summary["links"]["h2->ra"]["fault_drops"], 1 + lost.len());
}

#[test]
fn path_max_retrans_zero_fails_the_primary_at_the_first_timeout() {
    // Path.Max.Retrans = 0: E1 = 10.9762112 s is already one error too many; the
    // retransmission goes to B, its (duplicate) SACK returns at E1 + RTT_B_DUP and new
    // data follows it to B. A's next HEARTBEAT is due HB.interval + 2 x [0.5, 1.5) =
    // [31, 33) s after DATA 234, in [40.98, 42.98) s, and is lost (the link stays down),
    // so nothing returns before 60 s.
    let r = run(
        "60s",
        "path_max_retrans = 0",
        &fault("10s", "ra_h2", "down"),
        &[],
    );
    let e1 = t_data(234) + 1.0;
    let fl = r.flow();
    assert!(close(
        fl["paths"][A]["failed_at_s"].as_f64().expect("failed"),
        e1
    ));
    assert_eq!(fl["paths"][A]["state"], "inactive");
    assert_eq!(fl["failovers"], 1);
    let rtx = r.rows("rto_rtx");
    assert_eq!(rtx.len(), 1);
    assert!(close(rtx[0].t, e1) && rtx[0].dest == B);
    let new = r.rows("new");
    let first_b = new.iter().find(|s| s.dest == B).expect("data on B");
    assert!(close(first_b.t, e1 + RTT_B_DUP), "{first_b:?}");
    assert!(new.iter().filter(|s| s.t > e1).all(|s| s.dest == B));
    assert_eq!(r.client_heartbeats_a("88").len(), 1);
}

#[test]
fn sctp_pf_moves_new_data_at_the_first_timeout_and_probes_every_rto() {
    // RFC 7829 with PF.Max.Retrans = 0: at E1 = 10.9762112 s A has one error > 0 and is
    // potentially failed: no data while B is active, and a HEARTBEAT at once and then one
    // per RTO, each unanswered one doubling it and adding an error: probes at E1, E1 + 2,
    // + 6, + 14, + 30 (RTO 2, 4, 8, 16, 32); the 5th times out at E1 + 62 = 72.9762112 s,
    // the 6th error > Path.Max.Retrans = 5: inactive. The next probe, HB.interval +
    // 60 x [0.5, 1.5) after E1 + 30, is past 100 s. A PF path reports "active".
    let flow = "pf_max_retrans = 0";
    let down = fault("10s", "ra_h2", "down");
    let e1 = t_data(234) + 1.0;
    let mid = run("40s", flow, &down, &[]);
    assert_eq!(mid.flow()["paths"][A]["state"], "active");
    assert_eq!(mid.flow()["paths"][A]["failed_at_s"], Value::Null);
    assert_eq!(mid.flow()["failovers"], 1);
    let new = mid.rows("new");
    let first_b = new.iter().find(|s| s.dest == B).expect("data on B");
    assert!(close(first_b.t, e1 + RTT_B_DUP), "{first_b:?}");
    assert!(new.iter().filter(|s| s.t > e1).all(|s| s.dest == B));

    let r = run("100s", flow, &down, &[]);
    let probes = r.client_heartbeats_a("88");
    assert_eq!(probes.len(), 5, "{probes:?}");
    for (p, off) in probes.iter().zip([0.0, 2.0, 6.0, 14.0, 30.0]) {
        assert!(close(*p, e1 + off), "{probes:?}");
    }
    let p_a = &r.flow()["paths"][A];
    assert!(close(
        p_a["failed_at_s"].as_f64().expect("failed"),
        e1 + 62.0
    ));
    assert_eq!(p_a["state"], "inactive");
    assert_eq!(p_a["heartbeats"], 5);
    // The failure changed nothing for new data: still one failover.
    assert_eq!(r.flow()["failovers"], 1);
}

#[test]
fn every_path_dead_aborts_after_association_max_retrans() {
    // Both ra_h2 and rb_h2 fail at 10 s; heartbeats off (B still gets its confirmation
    // HEARTBEAT at set-up, which gave it RTO 1 s). DATA 234's T3 expires at E1; each
    // retransmission goes to the other destination (6.4), each destination's RTO
    // doubling on its own: retransmissions at E1 + 0 (B), 1 (A), 3 (B), 5 (A), 9, 13,
    // 21, 29, 45, 61, and expiries at E1, + 1, + 3, ..., + 61, + 93: the 11th consecutive
    // error exceeds Association.Max.Retrans = 10 at E1 + 93 = 103.9762112 s and h1
    // sends ABORT. A, at its 6th error then, is inactive at the same moment; B has had
    // 5 errors (not above 5) and stays active, so new data would now go to B: that
    // change of destination is the one failover, and the ABORT goes there too.
    let r = run(
        "150s",
        "heartbeat = false",
        &(fault("10s", "ra_h2", "down") + &fault("10s", "rb_h2", "down")),
        &[],
    );
    let e1 = t_data(234) + 1.0;
    let rtx = r.rows("rto_rtx");
    assert_eq!(rtx.len(), 10, "{rtx:?}");
    let offsets = [0.0, 1.0, 3.0, 5.0, 9.0, 13.0, 21.0, 29.0, 45.0, 61.0];
    for (k, (s, off)) in rtx.iter().zip(offsets).enumerate() {
        assert!(close(s.t, e1 + off), "{rtx:?}");
        assert_eq!(s.dest, if k % 2 == 0 { B } else { A }, "{rtx:?}");
        assert_eq!(s.seq, 234);
    }
    assert!(r.sends.iter().all(|s| s.t <= e1 + 61.0 + EPS));
    let fl = r.flow();
    assert_eq!(fl["aborted"], true);
    assert_eq!(fl["timeouts"], 11);
    assert!(close(
        fl["paths"][A]["failed_at_s"].as_f64().expect("failed"),
        e1 + 93.0
    ));
    assert_eq!(fl["paths"][B]["state"], "active");
    assert_eq!(fl["failovers"], 1);
    // The ABORT (36-byte packet: 32 + a 4-byte chunk) leaves h1 toward the data
    // destination B (h1 -> rb) at E1 + 93.
    let aborts = r.tx_times("0", "3", "36");
    assert_eq!(aborts.len(), 1, "{aborts:?}");
    assert!(close(aborts[0], e1 + 93.0));
}

#[test]
fn heartbeats_over_300_s_from_both_ends() {
    // Nothing fails for 300 s. A destination idle for HB.interval + RTO x (1 + U),
    // U in [-0.5, 0.5), gets a HEARTBEAT (RFC 9260 8.3); 5.4 probes the listed address
    // that is not the primary at once.
    // - h1 -> h2:eth1 (never carries data): at T0 (confirmation), then every
    //   [30.5, 31.5) s (RTO 1 s after the first sample): T0 + 9 x 31.5 = 283.58 <= 300 <
    //   T0 + 10 x 30.5 = 305.08, so 10.
    // - h1 -> h2:eth0: DATA every RTT_A, never idle: 0.
    // - h2 -> h1:eth0 (the server sends only SACKs, which do not end idleness): first
    //   HB.interval + RTO.Initial (1 s in rfc9260, RFC 9260 sec. 16; no sample yet) x
    //   [0.5, 1.5) after the server's set-up at 60.5504 ms, in [30.56, 31.56), then
    //   every [30.5, 31.5): 31.56 + 8 x 31.5 = 283.56 <= 300 < 30.56 + 9 x 30.5 =
    //   305.06, so 9.
    // - h2 -> h1:eth1: confirmation at 60.5504 ms, then as the client's: 10.
    // Flow-level `heartbeats` (both ends): 29.
    let r = run("300s", "", "", &[]);
    let fl = r.flow();
    assert_eq!(fl["heartbeats"], 29);
    assert_eq!(fl["paths"][B]["heartbeats"], 10);
    assert_eq!(fl["paths"][A]["heartbeats"], 0);
    // The same counts as packets on each first hop: 88-byte HEARTBEATs h1 -> rb (the
    // client's) and 88-byte ones h2 -> ra and h2 -> rb (the server's; each answered by
    // an 88-byte HEARTBEAT-ACK the other way).
    let c_b = r.tx_times("0", "3", "88");
    let s_a = r.tx_times("1", "2", "88");
    let s_b = r.tx_times("1", "3", "88");
    // h1 -> rb carries the client's HEARTBEATs and the ACKs of the server's 10 on B.
    assert_eq!(c_b.len(), 10 + 10);
    assert_eq!(s_a.len(), 9);
    // h2 -> rb carries the server's 10 and the ACKs of the client's 10.
    assert_eq!(s_b.len(), 10 + 10);
    assert!((30.5606..31.5606).contains(&s_a[0]), "{s_a:?}");
    for w in s_a.windows(2) {
        assert!((30.5..31.5).contains(&(w[1] - w[0])), "{s_a:?}");
    }
    assert!(close(c_b[0], T0));
    assert_eq!(fl["failovers"], 0);
}

#[test]
fn set_primary_fault_moves_new_data_at_the_next_send_opportunity() {
    // At 5 s the application makes h2:eth1 the primary. DATA 116 left at t_data(116) =
    // 4.964704 s; its SACK arrives at t_data(117) = 5.0071744 s, when DATA 117 goes to
    // the new primary (the window allows no earlier send). Everything after goes there.
    let r = run(
        "20s",
        "",
        "[[faults]]\nat = \"5s\"\naction = \"set_primary\"\nflow = \"x\"\nprimary = \"h2:eth1\"\n",
        &[],
    );
    let new = r.rows("new");
    let first_b = new.iter().find(|s| s.dest == B).expect("data on B");
    assert_eq!(first_b.seq, 117);
    assert!(close(first_b.t, t_data(117)), "{first_b:?}");
    assert!(new.iter().filter(|s| s.seq >= 117).all(|s| s.dest == B));
    assert!(new.iter().filter(|s| s.seq < 117).all(|s| s.dest == A));
    let fl = r.flow();
    assert_eq!(fl["failovers"], 1);
    assert_eq!(fl["retransmissions"], 0);
    assert_eq!(fl["paths"][A]["state"], "active");
}

#[test]
fn per_path_series_follow_the_failure() {
    // Entities "x@h2:eth0" and "x@h2:eth1" carry each destination's variables, sampled
    // every 10 ms: A's RTO steps 1, 2, 4, 8, 16, 32, 60 s at E1..E6 (the sixth doubling
    // capped at RTO.Max); its state is 1 (active) until E6 = 73.3885696 s, 0 after;
    // its error counter reaches 6. Samples at k x 10 ms: the first one showing the
    // failure is the first multiple of 10 ms at or after E6, 73.39 s.
    let f = failover_times();
    let r = run(
        "80s",
        "",
        &fault("10s", "ra_h2", "down"),
        &["cwnd", "rto", "state", "errors"],
    );
    let state = r.series_of("x@h2:eth0", "state");
    let down_at = state
        .iter()
        .find(|&&(_, v)| v == 0.0)
        .map(|&(t, _)| t)
        .expect("inactive");
    assert!(close(down_at, 73.39), "{down_at}");
    assert!(
        state
            .iter()
            .filter(|&&(t, _)| t < f.e[5])
            .all(|&(_, v)| v == 1.0)
    );
    let mut rtos: Vec<f64> = r
        .series_of("x@h2:eth0", "rto")
        .iter()
        .map(|&(_, v)| v)
        .collect();
    rtos.dedup();
    // Before the first sample the RTO is RTO.Initial = 1 s (RFC 9260 sec. 16), the
    // same value the samples give (RTO.Min), so the steps start at 1 s.
    assert_eq!(rtos, vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0]);
    let errors = r.series_of("x@h2:eth0", "errors");
    assert_eq!(errors.last().map(|e| e.1), Some(6.0));
    assert!(
        r.series_of("x@h2:eth1", "state")
            .iter()
            .all(|&(_, v)| v == 1.0)
    );
    // The flow-level entity keeps the data destination's cwnd; per path, B's cwnd is
    // sampled too (its initial 4380 B until data moves there: min(4 MTU, max(2 MTU,
    // 4380 B)) with MTU 1468).
    assert!(!r.series_of("x", "cwnd").is_empty());
    let cwnd_b = r.series_of("x@h2:eth1", "cwnd");
    assert_eq!(cwnd_b.first().map(|c| c.1), Some(4380.0));
    // No per-path entity for the receiver, and none but these two.
    let mut ents: Vec<&str> = r.series.iter().map(|s| s.1.as_str()).collect();
    ents.sort();
    ents.dedup();
    assert_eq!(ents, vec!["x", "x@h2:eth0", "x@h2:eth1"]);
}

#[test]
fn bad_multihoming_input_is_one_line_naming_file_and_key() {
    let base = format!("duration = \"10s\"\n{TOPO}");
    let cases = [
        (
            format!("{base}primary = \"h1:eth1\"\n"),
            "t.toml: flows.x.primary:",
            "not an interface of the receiver",
        ),
        (
            format!("{base}primary = \"h2:eth7\"\n"),
            "t.toml: flows.x.primary:",
            "no interface \"eth7\"",
        ),
        (
            format!("{base}{}", fault("1s", "nope", "down")),
            "t.toml: faults.0.link:",
            "unknown link \"nope\"",
        ),
        (
            format!("{base}{}", fault("-1s", "ra_h2", "down")),
            "t.toml: faults.0.at:",
            "negative",
        ),
        (
            // down 1 s, up 3 s, down 2 s: in time order two downs in a row.
            format!(
                "{base}{}{}{}",
                fault("1s", "ra_h2", "down"),
                fault("3s", "ra_h2", "up"),
                fault("2s", "ra_h2", "down")
            ),
            "t.toml: faults.2.action:",
            "already down",
        ),
        (
            format!(
                "{base}{}{}",
                fault("1s", "ra_h2", "down"),
                fault("1s", "ra_h2", "up")
            ),
            "t.toml: faults.1.at:",
            "two faults at the same time",
        ),
        (
            format!(
                "{base}[[faults]]\nat = \"1s\"\naction = \"set_primary\"\nflow = \"x\"\nprimary = \"ra:eth0\"\n"
            ),
            "t.toml: faults.0.primary:",
            "not an interface of the flow's receiver",
        ),
    ];
    for (text, head, want) in cases {
        let e = load_toml(&text, "t.toml", "t", &[])
            .expect_err(want)
            .to_string();
        assert!(e.starts_with(head), "{e}");
        assert!(e.contains(want), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn ns2_preset_makes_the_alternate_primary_so_data_stays_after_the_repair() {
    // ns-2.35 `Timeout`: after a timeout of the primary, the primary becomes the
    // destination of new data (its `changePrimaryThresh_` default -1 is compared as an
    // int after binding to an unsigned field, so the change always happens). When A
    // fails, B is the primary from then on; A's HEARTBEAT-ACK after the repair makes A
    // active but "returns to primary" to B: one failover, no data on A afterwards.
    // ns-2's path rules (`ns2_paths`): the HEARTBEAT sent the moment A fails is lost,
    // the next follows one backed-off RTO (60 s) later, after the repair at 100 s.
    let r = run(
        "200s",
        "variant = \"ns2\"",
        &(fault("10s", "ra_h2", "down") + &fault("100s", "ra_h2", "up")),
        &[],
    );
    let fl = r.flow();
    let failed = fl["paths"][A]["failed_at_s"].as_f64().expect("failed");
    let new = r.rows("new");
    assert!(new.iter().filter(|s| s.t > failed).all(|s| s.dest == B));
    assert!(new.iter().filter(|s| s.t > 150.0).count() > 100);
    assert_eq!(fl["failovers"], 1);
    assert_eq!(fl["paths"][A]["state"], "active");
    let hb = r.client_heartbeats_a("56");
    // (Later, A idle, the association's heartbeat timer probes it every HB.interval +
    // RTO +- RTO/2 or so: not counted here.)
    let after: Vec<f64> = hb.into_iter().filter(|&t| t > 10.0 && t < 150.0).collect();
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(
        close(after[0], failed) && close(after[1], failed + 60.0),
        "{after:?}"
    );
}

#[test]
fn ns2_preset_with_pf_fails_the_potentially_failed_path_as_cmt_pf_does() {
    // ns-2.35's only SCTP-PF is CMT-PF (`SctpCMTAgent::Timeout`, `useCmtPF_ 1`): a
    // potentially-failed destination keeps counting errors toward Path.Max.Retrans and
    // the association, is probed by a HEARTBEAT right after the T3 expiry that made it
    // PF and again at each unanswered one, and is inactive above Path.Max.Retrans. (The
    // `ns2` preset used to stop counting once a path was PF, so it never failed.)
    // PF.Max.Retrans = 0, ns-2's fixed threshold (PF at the first error). One chunk in
    // flight (TOPO): DATA k's T3 expires at E1, RTO 1 s (every sample is below RTO.Min):
    // error 1 > 0, PF, the chunk goes to B, nothing else is outstanding on A. Probes at
    // E1 and at each timeout, the RTO doubling: E1 + 2, + 6, + 14, + 30, + 62; the one
    // sent at E1 + 30 times out at E1 + 62 with the 6th error > 5: inactive, and
    // (heartbeats on, ns-2 `Timeout`) probed again at once.
    let r = run(
        "100s",
        "variant = \"ns2\"\npf_max_retrans = 0",
        &fault("10s", "ra_h2", "down"),
        &[],
    );
    let rtx = r.rows("rto_rtx");
    assert_eq!(rtx.len(), 1, "{rtx:?}");
    assert_eq!(rtx[0].dest, B);
    let e1 = rtx[0].t;
    let last_a = r
        .rows("new")
        .into_iter()
        .rfind(|s| s.dest == A && s.t < e1)
        .expect("data on A")
        .t;
    assert!(close(e1, last_a + 1.0), "{e1} {last_a}");
    let probes: Vec<f64> = r
        .client_heartbeats_a("56")
        .into_iter()
        .filter(|&t| t > 10.0)
        .collect();
    assert_eq!(probes.len(), 6, "{probes:?}");
    for (p, off) in probes.iter().zip([0.0, 2.0, 6.0, 14.0, 30.0, 62.0]) {
        assert!(close(*p, e1 + off), "{probes:?}");
    }
    let fl = r.flow();
    assert!(close(
        fl["paths"][A]["failed_at_s"].as_f64().expect("failed"),
        e1 + 62.0
    ));
    assert_eq!(fl["paths"][A]["state"], "inactive");
    assert_eq!(fl["aborted"], false);
    assert!(
        r.rows("new")
            .iter()
            .filter(|s| s.t > e1)
            .all(|s| s.dest == B)
    );
}

#[test]
fn ns2_preset_with_every_path_down_hops_between_dead_destinations() {
    // ns-2.35 with both destinations down, Path.Max.Retrans = 1 so both fail before the
    // association does (it counts errors only on active destinations, `Timeout`). One
    // chunk (DATA k) in flight; E1 its first T3 expiry. RTOs 1 s on both paths then.
    // - E1: A error 1 (RTO 2); DATA k to B (the next active one, `GetNextDest`).
    // - E1 + 1: B error 1 (RTO 2); to A.
    // - E1 + 3: A error 2 > 1: inactive, new data and the primary move to B; RTO 4; to B;
    //   a HEARTBEAT to the inactive A (`Timeout`: heartbeats on), due back at E1 + 7.
    //   A's T3 is not restarted: its chunks went to B (ns-2 restarts it at a SACK).
    // - E1 + 5: B error 2: inactive; every destination is down, so `GetNextDest` hops
    //   (`dormantAction_ 0`): new data, the primary and DATA k go to A; HEARTBEAT to B.
    // - E1 + 7: A's HEARTBEAT unanswered (RTO 8): the next at once.
    // - E1 + 9: A's T3 (set at E1 + 5 with RTO 4): RTO 16, DATA k hops to B, HEARTBEAT to
    //   A (replacing the one due at E1 + 15); B's HEARTBEAT unanswered (RTO 8): the next.
    //   B's T3 runs from E1 + 9 with RTO 4 (the expiry is handled first).
    // - E1 + 13: B's T3: RTO 16, DATA k to A, HEARTBEAT to B.
    // - E1 + 25: A's HEARTBEAT (sent at E1 + 9, RTO 16) unanswered: the next.
    // - E1 + 29: A's T3 (E1 + 13 + 16): DATA k to B, HEARTBEAT to A; B's HEARTBEAT
    //   (E1 + 13 + 16) unanswered: the next.
    // Four association errors in all (the first four expiries), so no ABORT. The same
    // sequence, to the destination and millisecond, is ns-2.35's on the same network
    // (tests/test_ns2_sctp_oracle.py `test_every_path_down_*`).
    let down = fault("10s", "ra_h2", "down") + &fault("10s", "rb_h2", "down");
    let r = run("45s", "variant = \"ns2\"\npath_max_retrans = 1", &down, &[]);
    let rtx = r.rows("rto_rtx");
    let e1 = rtx[0].t;
    let want = [
        (0.0, B),
        (1.0, A),
        (3.0, B),
        (5.0, A),
        (9.0, B),
        (13.0, A),
        (29.0, B),
    ];
    assert_eq!(rtx.len(), want.len(), "{rtx:?}");
    for (s, (off, dest)) in rtx.iter().zip(want) {
        assert!(close(s.t, e1 + off) && s.dest == dest, "{rtx:?}");
        assert_eq!(s.seq, rtx[0].seq);
    }
    let since = |v: Vec<f64>| -> Vec<f64> { v.into_iter().filter(|&t| t > e1 - EPS).collect() };
    let hb_a = since(r.client_heartbeats("2", "56"));
    let hb_b = since(r.client_heartbeats("3", "56"));
    let want_a = [3.0, 7.0, 9.0, 25.0, 29.0];
    let want_b = [5.0, 9.0, 13.0, 29.0];
    assert_eq!(hb_a.len(), want_a.len(), "{hb_a:?}");
    assert_eq!(hb_b.len(), want_b.len(), "{hb_b:?}");
    for (t, off) in hb_a.iter().zip(want_a).chain(hb_b.iter().zip(want_b)) {
        assert!(close(*t, e1 + off), "{hb_a:?} {hb_b:?}");
    }
    let fl = r.flow();
    assert!(close(
        fl["paths"][A]["failed_at_s"].as_f64().expect("A"),
        e1 + 3.0
    ));
    assert!(close(
        fl["paths"][B]["failed_at_s"].as_f64().expect("B"),
        e1 + 5.0
    ));
    assert_eq!(fl["aborted"], false);
    // New data moved twice: to B at E1 + 3, back to A at E1 + 5.
    assert_eq!(fl["failovers"], 2);
}

#[test]
fn ns2_preset_after_every_path_was_down_keeps_new_data_on_the_dead_primary() {
    // As above, with B's link back at 30 s (between E1 + 13 and E1 + 29, E1 ~ 11 s).
    // At E1 + 29 A's T3 sends DATA k to B and B gets a HEARTBEAT; both are answered: B is
    // active again. ns-2.35 moves new data only when the primary answers
    // (`ProcessHeartbeatAckChunk`, `SendBufferDequeueUpTo`), and the dormant hop made A
    // the primary: DATA k + 1 goes to the dead A at the SACK of DATA k (h2 already has
    // DATA k, so the SACK reports it duplicate), and reaches B only
    // by A's next T3, one RTO of A later (60 s, capped): as ns-2.35 does on the same
    // network (the oracle test above).
    let down = fault("10s", "ra_h2", "down")
        + &fault("10s", "rb_h2", "down")
        + &fault("30s", "rb_h2", "up");
    let r = run(
        "110s",
        "variant = \"ns2\"\npath_max_retrans = 1",
        &down,
        &[],
    );
    let rtx = r.rows("rto_rtx");
    let e1 = rtx[0].t;
    let k = rtx[0].seq;
    let new: Vec<&Send> = r.rows("new").into_iter().filter(|s| s.seq > k).collect();
    assert!(!new.is_empty(), "{new:?}");
    // B's HEARTBEAT of E1 + 29 leaves h1 before DATA k (control chunks go first; 56 B,
    // 44.8 us on h1_rb; ns-2 sends the DATA first), so DATA k's SACK is that much later.
    assert!(
        close(new[0].t, e1 + 29.0 + 44.8e-6 + RTT_B_DUP),
        "{e1} {new:?}"
    );
    assert_eq!(new[0].dest, A);
    assert_eq!(new[0].seq, k + 1);
    let later: Vec<&&Send> = rtx.iter().filter(|s| s.seq == k + 1).collect();
    assert!(!later.is_empty(), "{rtx:?}");
    assert!(
        close(later[0].t, new[0].t + 60.0) && later[0].dest == B,
        "{rtx:?}"
    );
    assert_eq!(r.flow()["paths"][B]["state"], "active");
}

#[test]
fn ns2_preset_accepts_a_heartbeat_ack_that_comes_after_its_timeout() {
    // Network B 1 s per link: a HEARTBEAT's round trip on B is 4 x (56-byte packet,
    // 44.8 us, + 1 s) = 4.0001792 s, above RTO.Initial = 3 s. The ns2 preset confirms
    // every destination before DATA (`heartbeat_before_data`): B's HEARTBEAT (at C)
    // times out at C + 3 and another goes; the first one's ACK arrives at C + 4.0001792.
    // ns-2.35's HEARTBEAT has no nonce (`ProcessHeartbeatAckChunk` takes any ACK), so B
    // is confirmed then, with an RTT sample of 4.0001792 s, and DATA starts at once on
    // A; under RFC 9260 8.3 (the other presets) only the second HEARTBEAT's ACK, at
    // C + 7.0001792, would count.
    let topo = TOPO.replace("delay = \"20ms\"", "delay = \"1s\"");
    let r = run_on(&topo, "20s", "variant = \"ns2\"", "", &[]);
    let hb_b = r.client_heartbeats("3", "56");
    assert!(hb_b.len() >= 2, "{hb_b:?}");
    let c = hb_b[0];
    assert!(close(hb_b[1], c + 3.0), "{hb_b:?}");
    let first = r.rows("new")[0].t;
    assert!(close(first, c + 4.0001792), "{first} {c}");
    assert_eq!(r.rows("new")[0].dest, A);
    let srtt = r.flow()["paths"][B]["srtt_s"].as_f64().expect("srtt");
    assert!((srtt - 4.0001792).abs() < 1e-6, "{srtt}");
}
