//! ns-2 movement files (the output of `setdest`, indep-utils/cmu-scen-gen/setdest): read
//! them into legs, and write our own movement in the same format so ns-2 can replay it.
//!
//! The lines understood:
//!
//! ```text
//! # comment
//! $node_(3) set X_ 12.5
//! $node_(3) set Y_ 80.25
//! $node_(3) set Z_ 0.0
//! $ns_ at 10.0 "$node_(3) setdest 400.0 120.0 7.5"
//! $god_ set-dist 1 2 3                  (ignored)
//! $ns_ at 10.0 "$god_ set-dist 1 2 3"   (ignored)
//! ```
//!
//! A `setdest X Y V` at time T starts a leg from wherever the node is at T towards (X, Y)
//! at V m/s; a later one replaces it mid-leg (`MobileNode::set_destination`,
//! common/mobilenode.cc). Commands at the same time run in file order, as ns-2's
//! scheduler runs them. Times are kept to the nanosecond.

use super::mobility::{Area, Leg, Mobility, SPEED_OF_LIGHT_MPS};
use crate::sim::SimTime;
use std::fmt;
use std::io;

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// What is wrong with a movement file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetdestError {
    /// 1-based line number, if the problem is on one line.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for SetdestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SetdestError {}

const EXPECT_SET: &str = "expected '$node_(i) set X_ <number>' (or Y_, Z_)";
const EXPECT_AT: &str = "expected '$ns_ at <time> \"$node_(i) setdest <x> <y> <speed>\"'";
const EXPECT_LINE: &str = "expected a '#' comment, '$node_(i) set X_ <number>', \
     '$ns_ at <time> \"$node_(i) setdest <x> <y> <speed>\"' or a '$god_' line";

struct Parser {
    line: usize,
    n_nodes: usize,
}

impl Parser {
    fn err(&self, message: impl Into<String>) -> SetdestError {
        SetdestError {
            line: Some(self.line),
            message: message.into(),
        }
    }

    /// `$node_(<i>)` -> i, checked against the node count.
    fn node(&self, tok: &str, expect: &str) -> Result<usize, SetdestError> {
        let i = tok
            .strip_prefix("$node_(")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|d| d.parse::<usize>().ok())
            .ok_or_else(|| self.err(expect))?;
        if i >= self.n_nodes {
            return Err(self.err(format!(
                "node {i} does not exist (the scenario has {} nodes, numbered from 0)",
                self.n_nodes
            )));
        }
        Ok(i)
    }

    fn number(&self, tok: Option<&str>, expect: &str) -> Result<f64, SetdestError> {
        tok.and_then(|t| t.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.err(expect))
    }
}

/// A decimal number of seconds as nanoseconds: exact for plain decimals (rounded half up
/// at the tenth decimal), through `f64` for other spellings such as `1e3`.
fn parse_time(tok: &str) -> Option<SimTime> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (int, frac) = tok.split_once('.').unwrap_or((tok, ""));
    if digits(int) && (frac.is_empty() || digits(frac)) {
        let whole: u64 = int.parse().ok()?;
        let mut ns: u64 = 0;
        for b in frac.bytes().chain(std::iter::repeat(b'0')).take(9) {
            ns = ns * 10 + u64::from(b - b'0');
        }
        if frac.len() > 9 && frac.as_bytes()[9] >= b'5' {
            ns += 1;
        }
        return whole
            .checked_mul(NANOS_PER_SEC)?
            .checked_add(ns)
            .map(SimTime::from_nanos);
    }
    let s: f64 = tok.parse().ok()?;
    if !(s.is_finite() && s >= 0.0 && s < u64::MAX as f64 / NANOS_PER_SEC as f64) {
        return None;
    }
    Some(SimTime::from_nanos(
        (s * NANOS_PER_SEC as f64).round() as u64
    ))
}

struct Command {
    at: SimTime,
    node: usize,
    dest: (f64, f64),
    speed: f64,
}

/// Reads a movement file for `n_nodes` nodes in `area` into each node's legs (the first
/// starting at time 0 at the node's `set X_`/`set Y_` position), as
/// [`Mobility::scripted`] takes them.
pub fn parse(text: &str, n_nodes: usize, area: Area) -> Result<Vec<Vec<Leg>>, SetdestError> {
    let mut p = Parser { line: 0, n_nodes };
    let mut xy: Vec<(Option<f64>, Option<f64>)> = vec![(None, None); n_nodes];
    let mut cmds: Vec<Command> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        p.line = k + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("$god_") {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or_default();
        if first.starts_with("$node_(") {
            set_position(&p, line, area, &mut xy)?;
        } else if first == "$ns_" {
            cmds.extend(at_command(&p, line, area)?);
        } else if first.starts_with("$node_") && line.contains("setdest") {
            return Err(p.err(format!(
                "{EXPECT_AT}: a setdest outside '$ns_ at' is not supported"
            )));
        } else {
            return Err(p.err(EXPECT_LINE));
        }
    }
    legs_of(&xy, cmds)
}

/// `$node_(<i>) set X_|Y_|Z_ <number>`: a starting coordinate.
fn set_position(
    p: &Parser,
    line: &str,
    area: Area,
    xy: &mut [(Option<f64>, Option<f64>)],
) -> Result<(), SetdestError> {
    let mut toks = line.split_whitespace();
    let node = p.node(toks.next().unwrap_or_default(), EXPECT_SET)?;
    if toks.next() != Some("set") {
        return Err(p.err(EXPECT_SET));
    }
    let var = toks.next();
    let v = p.number(toks.next(), EXPECT_SET)?;
    if toks.next().is_some() {
        return Err(p.err(EXPECT_SET));
    }
    let max = match var {
        Some("X_") => area.x_max,
        Some("Y_") => area.y_max,
        Some("Z_") => {
            if v != 0.0 {
                return Err(p.err(format!("Z_ must be 0 (the ground is flat), got {v}")));
            }
            return Ok(());
        }
        _ => return Err(p.err(EXPECT_SET)),
    };
    if !(0.0..=max).contains(&v) {
        return Err(p.err(format!(
            "node {node}: position {v} is outside the area [0, {max}]"
        )));
    }
    if var == Some("X_") {
        xy[node].0 = Some(v);
    } else {
        xy[node].1 = Some(v);
    }
    Ok(())
}

/// `$ns_ at <time> "<command>"`: the command is the quoted rest of the line; a setdest
/// gives a movement command, a `$god_` command none.
fn at_command(p: &Parser, line: &str, area: Area) -> Result<Option<Command>, SetdestError> {
    let (at_tok, rest) = line["$ns_".len()..]
        .trim_start()
        .strip_prefix("at")
        .filter(|r| r.starts_with(char::is_whitespace))
        .and_then(|r| r.trim_start().split_once(char::is_whitespace))
        .ok_or_else(|| p.err(EXPECT_AT))?;
    let rest = rest
        .trim()
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| p.err(EXPECT_AT))?;
    if rest.trim_start().starts_with("$god_") {
        return Ok(None);
    }
    let at = parse_time(at_tok).ok_or_else(|| {
        p.err(format!(
            "{EXPECT_AT}: the time '{at_tok}' is not a non-negative number of seconds"
        ))
    })?;
    let mut c = rest.split_whitespace();
    let node = p.node(c.next().unwrap_or_default(), EXPECT_AT)?;
    if c.next() != Some("setdest") {
        return Err(p.err(EXPECT_AT));
    }
    let x = p.number(c.next(), EXPECT_AT)?;
    let y = p.number(c.next(), EXPECT_AT)?;
    let speed = p.number(c.next(), EXPECT_AT)?;
    if c.next().is_some() {
        return Err(p.err(EXPECT_AT));
    }
    if speed < 0.0 {
        return Err(p.err(format!("setdest speed must be >= 0 m/s, got {speed}")));
    }
    if speed >= SPEED_OF_LIGHT_MPS {
        return Err(p.err(format!(
            "setdest speed {speed} m/s is not below the speed of light \
             ({SPEED_OF_LIGHT_MPS} m/s)"
        )));
    }
    // ns-2 refuses destinations on or beyond the border (set_destination returns
    // -1 and the Tcl command fails).
    if !area.strictly_contains((x, y)) {
        return Err(p.err(format!(
            "setdest destination ({x}, {y}) is not inside the area (0, {}) x (0, {})",
            area.x_max, area.y_max
        )));
    }
    Ok(Some(Command {
        at,
        node,
        dest: (x, y),
        speed,
    }))
}

/// Every node's legs: stationary at its starting position, then one leg per setdest in
/// time order.
fn legs_of(
    xy: &[(Option<f64>, Option<f64>)],
    mut cmds: Vec<Command>,
) -> Result<Vec<Vec<Leg>>, SetdestError> {
    let mut legs = Vec::with_capacity(xy.len());
    for (i, pos) in xy.iter().enumerate() {
        match pos {
            (Some(x), Some(y)) => legs.push(vec![Leg::stationary(SimTime::ZERO, (*x, *y))]),
            _ => {
                return Err(SetdestError {
                    line: None,
                    message: format!(
                        "node {i} has no starting position \
                         (expected '$node_({i}) set X_ <number>' and '$node_({i}) set Y_ <number>')"
                    ),
                });
            }
        }
    }
    // Stable: commands at the same time keep file order.
    cmds.sort_by_key(|c| c.at);
    for c in &cmds {
        let node_legs = &mut legs[c.node];
        // Every node starts with its stationary leg, so `last` exists.
        let last = node_legs[node_legs.len() - 1];
        let leg = Leg::new(c.at, last.at(c.at), c.dest, c.speed);
        if last.start == c.at {
            // Overridden at the instant it started.
            node_legs.pop();
        }
        node_legs.push(leg);
    }
    Ok(legs)
}

/// [`parse`], then the [`Mobility`] that follows the file.
pub fn load(text: &str, n_nodes: usize, area: Area) -> Result<Mobility, SetdestError> {
    let legs = parse(text, n_nodes, area)?;
    Mobility::scripted(area, legs).map_err(|e| SetdestError {
        line: None,
        message: e.to_string(),
    })
}

/// Writes the movement of every node over `[0, until]` as an ns-2 movement file: the
/// starting positions, then one `setdest` per leg starting no later than `until` (pauses
/// as `setdest` to the current position at speed 0, as setdest prints them), in time
/// order. Times have 9 decimals (exact in nanoseconds) and coordinates and speeds the
/// shortest decimals that read back to the same `f64`, so reading the file back gives
/// the same legs.
pub fn write(m: &Mobility, until: SimTime, out: &mut impl io::Write) -> io::Result<()> {
    let area = m.area();
    writeln!(
        out,
        "#\n# sctplab movement: nodes: {}, max speed: {}, max x: {}, max y: {}, until: {} s\n#",
        m.len(),
        m.max_speed(),
        area.x_max,
        area.y_max,
        until
    )?;
    let mut events: Vec<(SimTime, usize, Leg)> = Vec::new();
    for i in 0..m.len() {
        let legs = m.legs_until(i, until);
        let start = legs[0].from;
        writeln!(out, "$node_({i}) set X_ {}", start.0)?;
        writeln!(out, "$node_({i}) set Y_ {}", start.1)?;
        writeln!(out, "$node_({i}) set Z_ 0.0")?;
        for (k, leg) in legs.into_iter().enumerate() {
            // The state at time 0 is the `set` lines unless the node sets off at once.
            if k == 0 && leg.start == SimTime::ZERO && !leg.moves() {
                continue;
            }
            events.push((leg.start, i, leg));
        }
    }
    events.sort_by_key(|e| (e.0, e.1));
    for (at, i, leg) in events {
        writeln!(
            out,
            "$ns_ at {at} \"$node_({i}) setdest {} {} {}\"",
            leg.to.0, leg.to.1, leg.speed
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;
    use crate::wireless::mobility::WaypointCfg;
    use crate::wireless::mobility::tests::{close, t};

    const HAND: &str = r#"#
# nodes: 2, pause: 0.00, max speed: 5.00, max x: 100.00, max y: 100.00
#
$node_(0) set X_ 10.000000000000
$node_(0) set Y_ 20.000000000000
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 50.0
$node_(1) set Y_ 50.0
$node_(1) set Z_ 0.0
$god_ set-dist 0 1 1
$ns_ at 4.000000000000 "$node_(0) setdest 10.000000000000 60.000000000000 2.000000000000"
$ns_ at 1.000000000000 "$node_(0) setdest 40.000000000000 60.000000000000 5.000000000000"
$ns_ at 0.500000000000 "$god_ set-dist 0 1 2"
$ns_ at 3.0 "$node_(1) setdest 50.0 50.0 3.0"
$ns_ at 20.0 "$node_(1) setdest 80.0 90.0 0.0"
"#;

    #[test]
    fn hand_written_file_positions() {
        let area = Area::new(100.0, 100.0).unwrap();
        let mut m = load(HAND, 2, area).unwrap();
        // Node 0 waits at (10,20) until 1 s, then heads for (40,60) at 5 m/s: 50 m along
        // (0.6, 0.8), arrival due at 11 s.
        assert_eq!(m.position(0, t(0.5)), (10.0, 20.0));
        // 2.5 s: 1.5 s x 5 m/s = 7.5 m -> (10 + 4.5, 20 + 6) = (14.5, 26).
        assert!(close(m.position(0, t(2.5)), (14.5, 26.0), 1e-9));
        // 4 s, mid-leg: 15 m along -> (19, 32); the new setdest (listed first in the file,
        // but later in time) starts from there towards (10, 60) at 2 m/s:
        // (-9, 28), length sqrt(865) = 29.410882 m, arrival at 4 + 14.705441 = 18.705441 s.
        assert!(close(m.position(0, t(4.0)), (19.0, 32.0), 1e-9));
        // 6 s: 4 m along: 4 / 29.410882 = 0.13600408 -> (19 - 1.2240367, 32 + 3.8081142).
        assert!(close(
            m.position(0, t(6.0)),
            (17.775_963_3, 35.808_114_2),
            1e-6
        ));
        let (leg, _) = m.leg(0, t(6.0));
        assert!((leg.arrive.as_secs_f64() - 18.705_441).abs() < 1e-6);
        assert_eq!(m.position(0, t(18.8)), (10.0, 60.0));
        // Node 1: a setdest to its own position at 3 s (no movement), then a setdest at
        // speed 0 towards (80, 90) at 20 s: ns-2 keeps it where it is.
        assert_eq!(m.position(1, t(3.5)), (50.0, 50.0));
        assert_eq!(m.position(1, t(100.0)), (50.0, 50.0));
        // Speed bound for the spatial index: the fastest moving leg, 5 m/s.
        assert_eq!(m.max_speed(), 5.0);
    }

    #[test]
    fn same_time_setdests_run_in_file_order() {
        let text = "$node_(0) set X_ 1\n$node_(0) set Y_ 1\n\
                    $ns_ at 2 \"$node_(0) setdest 5 1 1\"\n\
                    $ns_ at 2 \"$node_(0) setdest 1 9 2\"\n";
        let legs = parse(text, 1, Area::new(10.0, 10.0).unwrap()).unwrap();
        // The second replaces the first at the same instant: one leg from (1,1) to (1,9).
        assert_eq!(legs[0].len(), 2);
        assert_eq!((legs[0][1].from, legs[0][1].to), ((1.0, 1.0), (1.0, 9.0)));
        // 8 m at 2 m/s from 2 s: at (1, 5) after 2 s more.
        let mut m = Mobility::scripted(Area::new(10.0, 10.0).unwrap(), legs).unwrap();
        assert!(close(m.position(0, t(4.0)), (1.0, 5.0), 1e-12));
    }

    #[test]
    fn times_are_read_exactly_to_the_nanosecond() {
        assert_eq!(
            parse_time("12.345678901"),
            Some(SimTime::from_nanos(12_345_678_901))
        );
        assert_eq!(parse_time("0.0000000014"), Some(SimTime::from_nanos(1)));
        assert_eq!(parse_time("0.0000000015"), Some(SimTime::from_nanos(2)));
        assert_eq!(parse_time("7"), Some(SimTime::from_nanos(7_000_000_000)));
        assert_eq!(
            parse_time("1e3"),
            Some(SimTime::from_nanos(1_000_000_000_000))
        );
        assert_eq!(parse_time("-1"), None);
        assert_eq!(parse_time("x"), None);
    }

    fn err(text: &str, n: usize) -> String {
        match parse(text, n, Area::new(100.0, 50.0).unwrap()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let head = "# x\n$node_(0) set X_ 1\n$node_(0) set Y_ 1\n";
        assert_eq!(
            err(&format!("{head}$node_(0) set X_ abc\n"), 1),
            "line 4: expected '$node_(i) set X_ <number>' (or Y_, Z_)"
        );
        assert_eq!(
            err(&format!("{head}$node_(0) set W_ 1\n"), 1),
            "line 4: expected '$node_(i) set X_ <number>' (or Y_, Z_)"
        );
        assert_eq!(
            err(&format!("{head}$node_(3) set X_ 1\n"), 2),
            "line 4: node 3 does not exist (the scenario has 2 nodes, numbered from 0)"
        );
        assert_eq!(
            err(&format!("{head}$ns_ at 1 \"$node_(5) setdest 1 1 1\"\n"), 1),
            "line 4: node 5 does not exist (the scenario has 1 nodes, numbered from 0)"
        );
        assert_eq!(
            err(
                &format!("{head}$ns_ at 1 \"$node_(0) setdest 1 1 -2\"\n"),
                1
            ),
            "line 4: setdest speed must be >= 0 m/s, got -2"
        );
        assert_eq!(
            err(
                &format!("{head}$ns_ at 1 \"$node_(0) setdest 1 1 3e8\"\n"),
                1
            ),
            "line 4: setdest speed 300000000 m/s is not below the speed of light \
             (299792458 m/s)"
        );
        assert_eq!(
            err(
                &format!("{head}$ns_ at 1 \"$node_(0) setdest 100 1 2\"\n"),
                1
            ),
            "line 4: setdest destination (100, 1) is not inside the area (0, 100) x (0, 50)"
        );
        assert_eq!(
            err(&format!("{head}$node_(0) set Y_ 60\n"), 1),
            "line 4: node 0: position 60 is outside the area [0, 50]"
        );
        assert_eq!(
            err(&format!("{head}$ns_ at 1 \"$node_(0) setdest 1 1\"\n"), 1),
            "line 4: expected '$ns_ at <time> \"$node_(i) setdest <x> <y> <speed>\"'"
        );
        assert!(
            err(
                &format!("{head}$ns_ at -1 \"$node_(0) setdest 1 1 1\"\n"),
                1
            )
            .starts_with("line 4: expected '$ns_ at")
        );
        assert!(
            err(&format!("{head}$ns_ at 1 $node_(0) setdest 1 1 1\n"), 1).starts_with("line 4: ")
        );
        assert!(err(&format!("{head}set x 1\n"), 1).starts_with("line 4: expected a '#' comment"));
        assert!(err(&format!("{head}$node_(0) set Z_ 3\n"), 1).starts_with("line 4: Z_ must be 0"));
        assert_eq!(
            err("$node_(0) set X_ 1\n", 1),
            "node 0 has no starting position (expected '$node_(0) set X_ <number>' and \
             '$node_(0) set Y_ <number>')"
        );
    }

    fn round_trip(cfg: WaypointCfg, pin: &[usize]) {
        let area = Area::new(1000.0, 300.0).unwrap();
        let until = t(900.0);
        let mut made = Mobility::random_waypoint(area, 12, cfg, 5).unwrap();
        for &i in pin {
            made.pin(i);
        }
        let mut buf = Vec::new();
        write(&made, until, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let mut back = load(&text, 12, area).unwrap();
        for i in 0..12 {
            assert_eq!(
                back.legs_until(i, until),
                made.legs_until(i, until),
                "node {i}"
            );
        }
        for k in 0..=90_000 {
            let now = SimTime::from_nanos(k * 10_000_000 + (k * 7919) % 10_000_000);
            if now > until {
                break;
            }
            for i in 0..12 {
                let (a, b) = (made.position(i, now), back.position(i, now));
                assert!(close(a, b, 1e-6), "node {i} at {now}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn writer_then_reader_gives_the_same_movement() {
        round_trip(
            WaypointCfg {
                max_speed: 10.0,
                pause: SimDuration::ZERO,
            },
            &[],
        );
        round_trip(
            WaypointCfg {
                max_speed: 20.0,
                pause: SimDuration::from_millis(2500),
            },
            &[0, 1],
        );
    }

    #[test]
    fn written_file_looks_like_setdest_output() {
        let area = Area::new(1000.0, 300.0).unwrap();
        let cfg = WaypointCfg {
            max_speed: 10.0,
            pause: SimDuration::from_secs(1),
        };
        let mut m = Mobility::random_waypoint(area, 2, cfg, 1).unwrap();
        m.pin(1);
        let mut buf = Vec::new();
        write(&m, t(30.0), &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[3],
            format!("$node_(0) set X_ {}", m.position(0, SimTime::ZERO).0)
        );
        assert_eq!(lines[5], "$node_(0) set Z_ 0.0");
        // Pause 1 s: the first setdest is at 1 s (setdest: first arrival at TIME + PAUSE).
        assert!(
            lines[9].starts_with("$ns_ at 1.000000000 \"$node_(0) setdest "),
            "{}",
            lines[9]
        );
        // The pinned node has no setdest line.
        assert!(!text.contains("$node_(1) setdest"));
    }
}
