//! The accelerators change no result: random small networks run with every shortcut,
//! with none and with each one off give the same summary (`events` excepted) and the
//! same inputs at every MAC, in the same order.

use super::*;
use crate::sim::RngStream;

/// A small random wireless scenario: 3-9 nodes moving by random waypoint in an area
/// that may exceed the carrier-sense range (hidden stations), CBR pairs and one TCP
/// or SCTP transfer, AODV or static routes, RTS/CTS for all, some or no frames.
pub(in crate::world) fn random_manet(r: &mut RngStream) -> String {
    let n = 3 + (r.next_u64() % 7) as usize;
    let width = 200.0 + r.uniform() * 1400.0;
    let height = 100.0 + r.uniform() * 500.0;
    let routing = if r.next_u64() % 4 == 0 {
        "static"
    } else {
        "aodv"
    };
    let rts = [0, 300, 3000][(r.next_u64() % 3) as usize];
    let speed = 1.0 + r.uniform() * 20.0;
    let pause = r.next_u64() % 3;
    let mut t = format!(
        "duration = \"20s\"\n[measure]\nstart = \"2s\"\n\
         [wireless]\nwidth = \"{width:.0}m\"\nheight = \"{height:.0}m\"\n\
         routing = \"{routing}\"\nqueue = {}\n\
         [wireless.mac]\ndata_rate = \"2Mb\"\nbasic_rate = \"{}\"\nrts_threshold = \"{rts}B\"\n\
         [mobility]\nmodel = \"random_waypoint\"\nmax_speed = \"{speed:.1}m/s\"\npause = \"{pause}s\"\n",
        5 + r.next_u64() % 50,
        if r.next_u64() % 2 == 0 { "1Mb" } else { "2Mb" },
    );
    // Two NICs on the transfer's endpoints now and then: receivers are numbered by
    // NIC, which must keep the order of (node, interface).
    let wlan_ends = 1 + usize::from(r.next_u64() % 3 == 0);
    if wlan_ends == 2 && r.next_u64() % 2 == 0 {
        // The two NICs of a node hear each other (not ns-2.35's channel).
        t = t.replace("routing = ", "same_node_delivery = true\nrouting = ");
    }
    for i in 0..n {
        let wlan = if i < 2 { wlan_ends } else { 1 };
        t += &format!("[[nodes]]\nname = \"n{i}\"\nwlan = {wlan}\n");
    }
    let among: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
    t += &format!(
        "[[flows]]\nname = \"bg\"\ntype = \"cbr_pairs\"\ncount = {}\nrate = \"{}Kb\"\n\
         packet_size = \"512B\"\nstart_min = \"1s\"\nstart_max = \"3s\"\namong = [{}]\n",
        1 + r.next_u64() % 3,
        8 + r.next_u64() % 120,
        among.join(", ")
    );
    if r.next_u64() % 2 == 0 {
        t += "[[flows]]\nname = \"x\"\ntype = \"tcp\"\nfrom = \"n0\"\nto = \"n1\"\n\
              variant = \"sack\"\nstart = \"2s\"\n";
    } else {
        t += "[[flows]]\nname = \"x\"\ntype = \"sctp\"\nfrom = \"n0\"\nto = \"n1\"\nvariant = \"ns2\"\n\
              start = \"2s\"\n";
    }
    t
}

/// The plain event-per-receiver way: nothing deferred.
const PLAIN: Shortcuts = Shortcuts::NONE;

/// What two runs that take different shortcuts must share: summary.json without
/// `events`, and every MAC's inputs in order (`mac_digest`), which catch a shortcut
/// that reorders a MAC's inputs while the summary comes out equal.
#[derive(Debug, PartialEq)]
struct Outcome {
    summary: String,
    mac_inputs: Vec<crate::world::mac_digest::Digest>,
}

fn run(text: &str, seed: u64, shortcuts: Shortcuts) -> (Outcome, u64) {
    let s = crate::load_toml(text, "<test>", "manet", &[]).expect("valid scenario");
    let opts = crate::RunOptions {
        seed,
        shortcuts,
        ..Default::default()
    };
    let r = crate::run_scenario(&s, &opts).expect("run");
    let summary: String = r
        .summary_json
        .lines()
        .filter(|l| !l.starts_with("  \"events\": "))
        .collect();
    let mac_inputs = r.mac_digests;
    (
        Outcome {
            summary,
            mac_inputs,
        },
        r.events,
    )
}

/// Deferring quiet MAC timers and receptions at quiet NICs is a shortcut: on random
/// small networks it must give the same summary as running every timer and
/// reception event (only the event count differs).
#[test]
fn deferred_quiet_mac_timers_change_no_result() {
    let mut r = RngStream::new(11, "deferred-timers-test");
    let mut fewer = 0;
    for case in 0..20 {
        let text = random_manet(&mut r);
        let seed = 1 + r.next_u64() % 1000;
        let (plain, plain_events) = run(&text, seed, PLAIN);
        let (deferred, deferred_events) = run(&text, seed, Shortcuts::ALL);
        assert_eq!(plain, deferred, "case {case}, seed {seed}:\n{text}");
        assert!(deferred_events <= plain_events);
        fewer += usize::from(deferred_events < plain_events);
    }
    assert!(fewer >= 15, "the shortcut should skip events in most cases");
}

/// Counting a MAC that waits with its backoff paused as quiet (`wait_quietly`,
/// wake-ups before its backoff can end) is a shortcut: on random small networks it
/// must give the same summary as without it and as running every timer and
/// reception event, with fewer events in most cases (wake-ups are not counted); and
/// the same with and without the shortcuts inside a waiting MAC's catch-up.
#[test]
fn waiting_macs_deferred_change_nothing() {
    let mut r = RngStream::new(13, "waiting-macs-test");
    let mut fewer = 0;
    for case in 0..16 {
        let text = random_manet(&mut r);
        let seed = 1 + r.next_u64() % 1000;
        let (plain, _) = run(&text, seed, PLAIN);
        let without = |s: Shortcuts| run(&text, seed, s);
        let (quiet_only, quiet_events) = without(Shortcuts {
            wait_quietly: false,
            ..Shortcuts::ALL
        });
        let (general, general_events) = without(Shortcuts {
            waiting_quiet: false,
            ..Shortcuts::ALL
        });
        let (two_steps, two_events) = without(Shortcuts {
            fuse_waiting: false,
            ..Shortcuts::ALL
        });
        let (waiting, waiting_events) = run(&text, seed, Shortcuts::ALL);
        assert_eq!(quiet_only, waiting, "case {case}, seed {seed}:\n{text}");
        // An overheard frame in one step at a waiting MAC (`Mac::waiting_overhear`)
        // does what `Mac::rx_start` and `Mac::waiting_timeout` at its end do, the
        // backoff's resumption at the end included.
        assert_eq!(two_steps, waiting, "case {case}, seed {seed}:\n{text}");
        assert_eq!(two_events, waiting_events, "case {case}, seed {seed}");
        // `Mac::waiting_timeout` does what `Mac::handle_timeout` does.
        assert_eq!(general, waiting, "case {case}, seed {seed}:\n{text}");
        assert_eq!(general_events, waiting_events, "case {case}, seed {seed}");
        assert_eq!(plain, waiting, "case {case}, seed {seed}:\n{text}");
        assert!(waiting_events <= quiet_events, "case {case}, seed {seed}");
        fewer += usize::from(waiting_events < quiet_events);
    }
    assert!(
        fewer >= 8,
        "the shortcut should skip events in most cases ({fewer})"
    );
}

/// Broadcast frames through the air log (`Fast::log_broadcasts`) and repeated
/// route requests delivered quietly (`Fast::quiet_duplicates`) are shortcuts:
/// on random small networks each must give the same summary as without it, and as
/// running every event, with fewer events in most cases. When every flow can end
/// (the run may stop early) the quiet deliveries are off, and the summary is still
/// the plain one.
#[test]
fn broadcasts_through_the_log_change_nothing() {
    // SCTPLAB_STRESS_SEED and SCTPLAB_STRESS_CASES run other or more networks.
    let knob = |name: &str, default: u64| {
        std::env::var(name).map_or(default, |v| v.parse().expect("a whole number"))
    };
    let mut r = RngStream::new(knob("SCTPLAB_STRESS_SEED", 17), "broadcast-log-test");
    let (mut fewer_logged, mut fewer_quiet) = (0, 0);
    let cases = knob("SCTPLAB_STRESS_CASES", 12);
    for case in 0..cases {
        let mut text = random_manet(&mut r);
        let finite = case % 4 == 3;
        if finite {
            // Every flow ends: the CBR sources stop, the transfer is 20 kB.
            text = text.replace(
                "start_max = \"3s\"\n",
                "start_max = \"3s\"\nstop = \"12s\"\n",
            );
            text = text.replace("to = \"n1\"\n", "to = \"n1\"\nbytes = \"20kB\"\n");
        }
        let seed = 1 + r.next_u64() % 1000;
        let (plain, _) = run(&text, seed, PLAIN);
        let (all, all_events) = run(&text, seed, Shortcuts::ALL);
        let (unlogged, unlogged_events) = run(
            &text,
            seed,
            Shortcuts {
                log_broadcasts: false,
                ..Shortcuts::ALL
            },
        );
        let (loud_repeats, loud_events) = run(
            &text,
            seed,
            Shortcuts {
                quiet_duplicates: false,
                ..Shortcuts::ALL
            },
        );
        assert_eq!(plain, all, "case {case}, seed {seed}:\n{text}");
        assert_eq!(plain, unlogged, "case {case}, seed {seed}:\n{text}");
        assert_eq!(plain, loud_repeats, "case {case}, seed {seed}:\n{text}");
        assert!(all_events <= loud_events && loud_events <= unlogged_events);
        if finite {
            assert_eq!(all_events, loud_events, "case {case}: quiet deliveries on");
        }
        fewer_logged += usize::from(loud_events < unlogged_events);
        fewer_quiet += usize::from(all_events < loud_events);
    }
    assert!(
        fewer_logged as u64 >= cases / 2 && fewer_quiet as u64 >= cases / 3,
        "{fewer_logged} {fewer_quiet}"
    );
}

/// Running an overheard frame's reception and its end in one step
/// (`QuietNic::overhear`) is a shortcut: on random small networks it must give the
/// same summary and the same count of events as the two steps, and the same
/// summary as running every timer and reception event.
#[test]
fn overheard_frame_in_one_step_changes_nothing() {
    let mut r = RngStream::new(12, "fused-overhear-test");
    for case in 0..16 {
        let text = random_manet(&mut r);
        let seed = 1 + r.next_u64() % 1000;
        let (plain, _) = run(&text, seed, PLAIN);
        let (two_steps, two_events) = run(
            &text,
            seed,
            Shortcuts {
                fuse_overheard: false,
                ..Shortcuts::ALL
            },
        );
        let (one_step, one_events) = run(&text, seed, Shortcuts::ALL);
        assert_eq!(two_steps, one_step, "case {case}, seed {seed}:\n{text}");
        assert_eq!(two_events, one_events, "case {case}, seed {seed}");
        assert_eq!(plain, one_step, "case {case}, seed {seed}:\n{text}");
    }
}

/// DSDV broadcasts a full update from every node every 11-15 s and triggered ones
/// between: deliveries the accelerators only count are for AODV's repeated route
/// requests (`quiet_duplicates` matches none of DSDV's updates), and every other
/// shortcut is about the MAC, whatever the frame carries. On random small DSDV
/// networks every shortcut must give the same summary and the same MAC inputs as
/// running every event.
#[test]
fn dsdv_networks_run_the_same_with_and_without_shortcuts() {
    let mut r = RngStream::new(19, "dsdv-shortcuts-test");
    let mut fewer = 0;
    let cases = 10;
    for case in 0..cases {
        let text = random_manet(&mut r)
            .replace("routing = \"aodv\"", "routing = \"dsdv\"")
            .replace("routing = \"static\"", "routing = \"dsdv\"")
            .replace("duration = \"20s\"", "duration = \"40s\"");
        let seed = 1 + r.next_u64() % 1000;
        let (plain, plain_events) = run(&text, seed, PLAIN);
        let (all, all_events) = run(&text, seed, Shortcuts::ALL);
        assert!(plain.summary.contains("periodic_updates_sent"), "{text}");
        assert_eq!(plain, all, "case {case}, seed {seed}:\n{text}");
        assert!(all_events <= plain_events);
        fewer += usize::from(all_events < plain_events);
    }
    assert!(
        fewer >= cases / 2,
        "the shortcuts should skip events ({fewer})"
    );
}

/// DSR's tap (`Mac::taps`) passes every intact unicast DATA frame a MAC overhears up
/// to the agent: such frames reach every NIC as real events (`Wireless::logs_frame`)
/// and a tapped reception keeps its MAC out of the quiet modes, while RTS, CTS, ACK
/// and broadcast frames and the MAC timers stay lazy. On random small DSR networks
/// every shortcut must give the same summary (the `tapped` counters included) and the
/// same MAC inputs as running every event, with fewer events.
#[test]
fn dsr_networks_run_the_same_with_and_without_shortcuts() {
    let mut r = RngStream::new(19, "dsr-shortcuts-test");
    let mut fewer = 0;
    let mut tapped = 0;
    let cases = 10;
    for case in 0..cases {
        let text = random_manet(&mut r)
            .replace("routing = \"aodv\"", "routing = \"dsr\"")
            .replace("routing = \"static\"", "routing = \"dsr\"")
            .replace("duration = \"20s\"", "duration = \"30s\"");
        let seed = 1 + r.next_u64() % 1000;
        let (plain, plain_events) = run(&text, seed, PLAIN);
        let (all, all_events) = run(&text, seed, Shortcuts::ALL);
        assert!(plain.summary.contains("\"tapped\""), "{text}");
        // Some node's tap read a frame (`"tapped": N` per node).
        tapped += usize::from(plain.summary.split("\"tapped\": ").skip(1).any(|t| {
            t.split(|c: char| !c.is_ascii_digit())
                .next()
                .is_some_and(|n| n.parse::<u64>().is_ok_and(|n| n > 0))
        }));
        assert_eq!(plain, all, "case {case}, seed {seed}:\n{text}");
        assert!(all_events <= plain_events);
        fewer += usize::from(all_events < plain_events);
    }
    assert!(
        fewer >= cases / 2,
        "the shortcuts should skip events ({fewer})"
    );
    assert!(
        tapped >= cases / 2,
        "the taps should read frames ({tapped})"
    );
}
