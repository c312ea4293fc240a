//! The release-mode check that a catch-up leaves no MAC output
//! (`Wireless::check_caught_up`, issue 31 step 4): a breach becomes `Error::Internal`,
//! one line, at the run loop's next sweep or at the end, instead of frames going out
//! late without a sign. Nothing in a correct run breaches it (every run of the test
//! suite checks that), so these tests break the rule by hand.

use super::World;
use super::run::Control;
use crate::Error;
use crate::sim::SimTime;
use crate::trace::TraceConfig;
use crate::wireless::frame::MacAddr;

const TWO_NODES: &str = r#"
duration = "5s"
[wireless]
width = "500m"
height = "300m"
routing = "aodv"
queue = 1
[[nodes]]
name = "a"
wlan = 1
x = "100m"
y = "100m"
[[nodes]]
name = "b"
wlan = 1
x = "300m"
y = "100m"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "10Kb"
packet_size = "512B"
start = "1s"
"#;

fn world() -> World {
    let s = crate::load_toml(TWO_NODES, "<test>", "t", &[]).expect("valid");
    World::build(&s, 1, &TraceConfig::default(), Default::default()).expect("world")
}

fn run(world: &mut World) -> Result<SimTime, Error> {
    let mut no = || false;
    let mut ctl = Control {
        started: std::time::Instant::now(),
        wall_limit: None,
        packet_limit: usize::MAX,
        interrupted: &mut no,
    };
    world.run(false, &mut ctl)
}

#[test]
fn a_catch_up_that_leaves_output_is_noted() {
    let mut world = world();
    let at = SimTime::from_nanos(1_500_000_000);
    // A MAC with something to put out: its queue (room for one) overflows, which puts
    // out a `Dropped` event.
    let pids: Vec<_> = (0..3).map(|_| world.pool.alloc()).collect();
    let w = world.wireless.as_deref_mut().expect("wireless world");
    for pid in pids {
        w.nics[0].mac.enqueue(at, pid, 540, MacAddr(1), false);
    }
    assert!(w.nics[0].mac.has_output());
    // A MAC without output passes; this one is noted, once, in one line.
    w.check_caught_up(1, Some(at));
    assert!(w.fast.internal_error.is_none());
    w.check_caught_up(0, Some(at));
    let first = w.fast.internal_error.clone().expect("noted");
    w.check_caught_up(0, Some(SimTime::from_nanos(2_000_000_000)));
    assert_eq!(w.fast.internal_error.as_deref(), Some(first.as_str()));
    assert!(!first.contains('\n'));
    assert!(
        first.contains("NIC 0") && first.contains("1.500000000 s") && first.contains("late"),
        "{first}"
    );
}

#[test]
fn a_noted_breach_stops_the_run_with_an_internal_error() {
    let mut world = world();
    let w = world.wireless.as_deref_mut().expect("wireless world");
    w.fast.internal_error = Some("the rule was broken".into());
    let e = run(&mut world).expect_err("the run stops");
    assert!(
        matches!(&e, Error::Internal(m) if m == "the rule was broken"),
        "{e:?}"
    );
    let line = e.to_string();
    assert!(
        line.starts_with("internal error: the rule was broken") && !line.contains('\n'),
        "{line}"
    );
    // Without a breach the same world runs to its end.
    let end = run(&mut self::world()).expect("runs to its end");
    assert_eq!(end, SimTime::from_nanos(5_000_000_000));
}
