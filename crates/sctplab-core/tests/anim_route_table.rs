//! `table` records of `--trace anim` (issue 41): the changes the routing agents make to
//! their route tables, on static chains whose tables follow by hand from ns-2.35's
//! AODV (aodv.cc) and DSDV (dsdv.cc) rules, and on a chain whose far end walks away.
//! Recording them changes nothing the run computes (summary.json byte for byte).

use sctplab_core::trace::TraceConfig;
use sctplab_core::trace::anim::FILE_NAME;
use sctplab_core::{RunOptions, load_toml, run_scenario};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// n0, n1, n2 at x = 100, 300, 500 m (200 m apart: neighbours only next to each other,
/// the receive range being 250 m), one 100-kb/s CBR flow of 512-B packets n0 -> n2
/// from 0.5 s to 2 s; `extra` is appended (a mobility file). With `keep_until`, a
/// pair n3, n4 at x = 1,400 and 1,600 m (900 m from the chain: beyond its carrier
/// sense range of 550 m, so it changes nothing there) runs an 8-kb/s flow until then,
/// which keeps the run going (a run ends when its flows have finished).
fn chain(routing: &str, duration: &str, extra: &str, keep_until: Option<&str>) -> String {
    let mut s = format!(
        "duration = \"{duration}\"\n[wireless]\nwidth = \"2000m\"\nheight = \"300m\"\n\
         routing = \"{routing}\"\n[wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"2Mb\"\n\
         {extra}\n"
    );
    for (i, x) in [100, 300, 500].iter().enumerate() {
        s += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\nx = \"{x}m\"\ny = \"100m\"\n");
    }
    s += "[[flows]]\nname = \"cbr\"\ntype = \"cbr\"\nfrom = \"n0\"\nto = \"n2\"\n\
          rate = \"100Kb\"\npacket_size = \"512B\"\nstart = \"0.5s\"\nstop = \"2s\"\n";
    if let Some(until) = keep_until {
        for (i, x) in [(3, 1400), (4, 1600)] {
            s += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = 1\nx = \"{x}m\"\ny = \"100m\"\n");
        }
        s += &format!(
            "[[flows]]\nname = \"keep\"\ntype = \"cbr\"\nfrom = \"n3\"\nto = \"n4\"\n\
             rate = \"8Kb\"\npacket_size = \"512B\"\nstart = \"0.5s\"\nstop = \"{until}\"\n"
        );
    }
    s
}

fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sctplab-rtable-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(text: &str, dir: Option<&Path>) -> String {
    let s = load_toml(text, "<test>", "t", &[]).expect("valid scenario");
    let mut trace = TraceConfig::default();
    if let Some(d) = dir {
        trace.out_dir = Some(d.to_path_buf());
        trace.set_traces(&["anim"]).expect("kind");
    }
    run_scenario(
        &s,
        &RunOptions {
            seed: 1,
            trace,
            ..RunOptions::default()
        },
    )
    .expect("run")
    .summary_json
}

/// The run's summary must not change with the trace on; returns the trace's records.
fn traced(text: &str, tag: &str) -> Vec<Value> {
    let dir = fresh_dir(tag);
    assert_eq!(
        run(text, None),
        run(text, Some(&dir)),
        "--trace anim changed summary.json"
    );
    let body = std::fs::read_to_string(dir.join(FILE_NAME)).expect("anim.jsonl written");
    let _ = std::fs::remove_dir_all(&dir);
    body.lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// (time in us, node, destination, next hop, hops) of each `table` record.
type Change = (u64, i64, i64, i64, i64);

fn table(recs: &[Value]) -> Vec<Change> {
    recs.iter()
        .filter(|r| r[0] == "table")
        .map(|r| {
            let n = |i: usize| r[i].as_i64().expect("integer");
            (n(1) as u64, n(2), n(3), n(4), n(5))
        })
        .collect()
}

/// A node's changes without their times.
fn of(changes: &[Change], node: i64) -> Vec<(i64, i64, i64)> {
    changes
        .iter()
        .filter(|c| c.1 == node)
        .map(|c| (c.2, c.3, c.4))
        .collect()
}

fn time_of(changes: &[Change], node: i64, dst: i64, next: i64) -> u64 {
    changes
        .iter()
        .find(|c| c.1 == node && c.2 == dst && c.3 == next)
        .unwrap_or_else(|| panic!("no change at n{node} to n{dst} via {next}: {changes:?}"))
        .0
}

#[test]
fn aodv_chain_tables_follow_the_discovery_and_the_purge() {
    // By hand, ns-2.35 aodv.cc with its defaults (ACTIVE_ROUTE_TIMEOUT 10 s,
    // REV_ROUTE_LIFE 6 s, route purge every 0.5 s from 0):
    // - 0.5 s: n0's first packet finds no route; its RREQ (hop count 1) gives n1 a
    //   reverse route to n0 via n0, 1 hop; n1's rebroadcast (hop count 2) gives n2 one
    //   via n1, 2 hops. n2 answers (RREP hop count 1): n1 learns n2 via n2, 1 hop, and
    //   forwards it (hop count 2): n0 learns n2 via n1, 2 hops. Nobody learns a route to
    //   n1 (no HELLOs in ns-2.35's build) and n2 none to n1.
    // - n2's reverse route lives until RREQ + 6 s (about 6.5 s, never used): down at
    //   the 7.0-s purge. n1's reverse route was renewed to RREP + 10 s when it forwarded
    //   the RREP (about 10.5 s): down at 11.0 s. The routes to n2 at n0 and n1 are
    //   renewed by every data packet, the last sent at 0.5 + 36 x 40.96 ms = 1.97456 s:
    //   they expire at about 11.975 s, down at the 12.0-s purge.
    let recs = traced(&chain("aodv", "13s", "", Some("12.9s")), "aodv");
    let t = table(&recs);
    assert_eq!(of(&t, 0), [(2, 1, 2), (2, -1, -1)], "{t:?}");
    assert_eq!(of(&t, 1), [(0, 0, 1), (2, 2, 1), (0, -1, -1), (2, -1, -1)]);
    assert_eq!(of(&t, 2), [(0, 1, 2), (0, -1, -1)]);
    // The discovery in its order, within the first 100 ms of the flow and before n0's
    // first data packet leaves.
    let rev1 = time_of(&t, 1, 0, 0);
    let rev2 = time_of(&t, 2, 0, 1);
    let fwd1 = time_of(&t, 1, 2, 2);
    let fwd0 = time_of(&t, 0, 2, 1);
    assert!(500_000 < rev1 && rev1 < rev2 && rev2 < fwd1 && fwd1 < fwd0 && fwd0 < 600_000);
    let first_data = recs
        .iter()
        .find(|r| r[0] == "hop" && r[6] == "d" && r[3] == 0)
        .and_then(|r| r[1].as_u64())
        .expect("a data hop");
    assert!(fwd0 <= first_data);
    assert_eq!(time_of(&t, 2, 0, -1), 7_000_000);
    assert_eq!(time_of(&t, 1, 0, -1), 11_000_000);
    assert_eq!(time_of(&t, 1, 2, -1), 12_000_000);
    assert_eq!(time_of(&t, 0, 2, -1), 12_000_000);
    // Records in time order.
    assert!(t.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn aodv_link_break_invalidates_the_routes_through_it() {
    // At 1.0 s n2 walks from (500, 100) straight up at 1,000 m/s to (500, 299); it
    // leaves n1's 250-m range when 150 m up, at 1.15 s. n1's MAC then gives up on a
    // data packet for n2: the packet had been received once (num_forwards 1), not more
    // than the route's 1 hop, so no local repair (aodv.cc rt_ll_failed): n1's route to
    // n2 goes down (nb_delete), and its RERR to its precursor n0 takes down n0's route
    // to n2 (recvError: next hop is the RERR's sender). n2 stays out of reach: neither
    // learns a new route to it.
    let dir = fresh_dir("break-move");
    std::fs::create_dir_all(&dir).expect("dir");
    let mv = dir.join("move.tcl");
    std::fs::write(
        &mv,
        "$node_(0) set X_ 100.0\n$node_(0) set Y_ 100.0\n$node_(0) set Z_ 0.0\n\
         $node_(1) set X_ 300.0\n$node_(1) set Y_ 100.0\n$node_(1) set Z_ 0.0\n\
         $node_(2) set X_ 500.0\n$node_(2) set Y_ 100.0\n$node_(2) set Z_ 0.0\n\
         $ns_ at 1.0 \"$node_(2) setdest 500.0 299.0 1000.0\"\n",
    )
    .expect("movement file");
    let mut text = chain(
        "aodv",
        "3s",
        &format!("[mobility]\nfile = {:?}", mv.to_str().expect("utf-8 path")),
        None,
    );
    // The nodes' places come from the movement file.
    text = text
        .lines()
        .filter(|l| !l.starts_with("x = ") && !l.starts_with("y = "))
        .collect::<Vec<_>>()
        .join("\n");
    let recs = traced(&text, "break");
    let _ = std::fs::remove_dir_all(&dir);
    let t = table(&recs);
    let down1 = time_of(&t, 1, 2, -1);
    let down0 = time_of(&t, 0, 2, -1);
    assert!(
        down1 >= 1_150_000,
        "n1 lost n2 at {down1} us, before the break"
    );
    assert!(down0 > down1, "n0 lost its route before n1 sent the RERR");
    // Nothing via n2 again, and n1's route to n0 is untouched by the break.
    assert!(
        !t.iter().any(|c| c.0 > down1 && c.2 == 2 && c.3 >= 0),
        "{t:?}"
    );
    assert_eq!(of(&t, 1)[..2], [(0, 0, 1), (2, 2, 1)]);
    // The MAC's give-up is a RET drop at n1 at the same instant.
    assert!(
        recs.iter()
            .any(|r| r[0] == "drop" && r[2] == 1 && r[4] == "RET" && r[1] == down1),
        "no RET drop at n1 at {down1}"
    );
}

#[test]
fn dsdv_chain_tables_hold_the_neighbours_and_the_two_hop_routes() {
    // dsdv.cc: a node takes each advertised destination at the advertised metric + 1
    // through the neighbour that sent it, and makes a neighbour's entry (metric 1) from
    // any update it hears. In a static chain the only routes there can be are the
    // neighbours at 1 hop and the far end through the middle node at 2 hops, and none
    // breaks within 30 s (a neighbour times out after 3 missed 15-s updates). Each node
    // hears its neighbours' first updates (0 to 15 s), so the four neighbour routes are
    // there. n0 hears n2 in n1's update, once n1 advertises n2. Whether n1 advertises n0
    // to n2 in the run is up to the settling time: every new sequence number from n0
    // holds n0's entry back for twice the weighted settling time (about 12 s), about as
    // long as n0's update period, so it may not go out at all; that route is allowed but
    // not required.
    let recs = traced(&chain("dsdv", "30s", "", Some("29.9s")), "dsdv");
    let t = table(&recs);
    let mut got: Vec<_> = t
        .iter()
        .filter(|c| c.1 <= 2)
        .map(|c| (c.1, c.2, c.3, c.4))
        .collect();
    got.sort_unstable();
    let required = [
        (0, 1, 1, 1),
        (0, 2, 1, 2),
        (1, 0, 0, 1),
        (1, 2, 2, 1),
        (2, 1, 1, 1),
    ];
    let allowed = (2, 0, 1, 2);
    for r in required {
        assert_eq!(
            got.iter().filter(|&&g| g == r).count(),
            1,
            "{r:?} in {got:?}"
        );
    }
    assert!(
        got.iter().all(|g| required.contains(g) || *g == allowed),
        "{got:?}"
    );
}
