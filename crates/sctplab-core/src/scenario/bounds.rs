//! Bounds on values that are valid in type but meaningless or unbounded in effect: a
//! timer that re-arms at the instant it fires, a speed faster than light, a trajectory
//! of more legs than a run can walk, a window larger than a run can hold. Each bound is
//! documented with its key in docs/scenario.md; each error is one line at the key.

use super::error::ScenarioError;
use super::load::Scenario;
use super::schema::{InitialCwnd, MobilityModel, SctpCfg, TcpCfg};
use crate::sim::SimDuration;

use crate::wireless::mobility::SPEED_OF_LIGHT_MPS;

/// The most legs a run's random-waypoint trajectories may be expected to have. Legs are
/// drawn one after the other from each node's random stream (a leg's start is the sum of
/// the durations before it, so no query can skip them), at a few tens of nanoseconds
/// each: 10^8 legs are seconds of work. The seed studies need a few thousand (50 nodes,
/// 20 m/s, 1500 m x 300 m, 900 s: about 1800 by the estimate below).
pub const MAX_RUN_LEGS: f64 = 1e8;

/// The most segments a TCP window may hold: a window is sent out in one go when an ack
/// opens it, and a run holds at most this many packets at once (`world::run`), so a
/// larger window could never be in flight.
pub const MAX_WINDOW_SEGMENTS: u32 = crate::world::MAX_PACKETS_ALIVE as u32;

/// The most flows a run has, generated ones included: the port plan (`world::build`'s
/// `flow_ports`) gives 22 000 flows distinct port pairs (2000 in 50000-53999, then
/// 20 000 in 10000-49999), and two flows with the same ports into one node could take
/// each other's packets.
pub const MAX_FLOWS: u64 = 22_000;

/// A key under a flow's prefix (`flows.f.rto_min`), or the key alone (live mode).
fn at(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The checks that need the whole scenario, after `validate::validate`'s.
pub(super) fn check(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    check_flow_count(s, source)?;
    check_aodv(s, source)?;
    super::dsdv::check(s, source)?;
    super::dsr::check(s, source)?;
    check_mobility(s, source)?;
    for flow in &s.flows {
        let p = format!("flows.{}", flow.name());
        match flow {
            super::FlowSpec::Tcp(c) => check_tcp(c, &p, source)?,
            super::FlowSpec::Sctp(c) => check_sctp(c, &p, source)?,
            super::FlowSpec::Cbr(_) | super::FlowSpec::Quic(_) => {}
        }
    }
    Ok(())
}

fn check_flow_count(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let total = s.flows.len() as u64 + s.generators.iter().map(|g| u64::from(g.count)).sum::<u64>();
    if total <= MAX_FLOWS {
        return Ok(());
    }
    let path = s
        .generators
        .iter()
        .max_by_key(|g| g.count)
        .map_or("flows".to_string(), |g| format!("flows.{}.count", g.name));
    Err(ScenarioError::new(
        source,
        path,
        format!(
            "the scenario has {total} flows with the generated ones; expected at most \
             {MAX_FLOWS}, the flows the port plan gives distinct ports"
        ),
    ))
}

/// AODV's periodic timers re-arm themselves one interval after they fire: an interval
/// of zero fires again at the same instant, forever (aodv.cc's `BroadcastTimer` and
/// `RouteCacheTimer` have fixed positive periods).
fn check_aodv(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let Some(w) = &s.file.wireless else {
        return Ok(());
    };
    for (key, v) in [
        ("purge_interval", w.aodv.purge_interval),
        ("bcast_id_save", w.aodv.bcast_id_save),
    ] {
        if v.0 == SimDuration::ZERO {
            return Err(ScenarioError::new(
                source,
                format!("wireless.aodv.{key}"),
                "must be greater than zero: this periodic timer re-arms itself this long \
                 after it fires",
            ));
        }
    }
    Ok(())
}

fn check_mobility(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let (Some(w), m) = (&s.file.wireless, &s.file.mobility) else {
        return Ok(());
    };
    let Some(v) = m.max_speed.map(|v| v.meters_per_sec()) else {
        return Ok(());
    };
    if v >= SPEED_OF_LIGHT_MPS {
        return Err(ScenarioError::new(
            source,
            "mobility.max_speed",
            format!(
                "{v} m/s is not below the speed of light ({SPEED_OF_LIGHT_MPS} m/s); expected \
                 a speed like \"20m/s\""
            ),
        ));
    }
    if m.model != MobilityModel::RandomWaypoint || m.file.is_some() || v == 0.0 {
        return Ok(());
    }
    let movers = s
        .file
        .nodes
        .iter()
        .filter(|n| n.wlan > 0 && !m.fixed.contains(&n.name))
        .count();
    let legs = expected_legs(
        movers,
        s.duration().map_or(0.0, SimDuration::as_secs_f64),
        (w.width.meters(), w.height.meters()),
        v,
        m.pause.map_or(0.0, |p| p.0.as_secs_f64()),
    );
    if legs > MAX_RUN_LEGS {
        return Err(ScenarioError::new(
            source,
            "mobility.max_speed",
            format!(
                "random waypoint at {v} m/s in {} m x {} m for {} s would draw about {legs:.3e} \
                 legs ({movers} moving nodes); a run draws at most {MAX_RUN_LEGS:e} (each leg \
                 is computed in turn): lower max_speed, raise pause, enlarge the area or \
                 shorten duration",
                w.width.meters(),
                w.height.meters(),
                s.duration().map_or(0.0, SimDuration::as_secs_f64),
            ),
        )
        .with_related([
            "duration".to_string(),
            "mobility.pause".to_string(),
            "wireless.width".to_string(),
            "wireless.height".to_string(),
        ]));
    }
    Ok(())
}

/// An upper estimate of the legs `movers` random-waypoint nodes draw in `secs`: a move
/// covers on average at least a third of the longer side (the mean distance between two
/// uniform points of a segment of length L is L/3, and a rectangle's distance is at
/// least its projection on either side), at no more than `max_speed`, and with a pause
/// each waypoint gives two legs (the move, then the pause).
pub fn expected_legs(
    movers: usize,
    secs: f64,
    area: (f64, f64),
    max_speed: f64,
    pause: f64,
) -> f64 {
    let per_waypoint = pause + area.0.max(area.1) / 3.0 / max_speed;
    let legs_per_waypoint = if pause > 0.0 { 2.0 } else { 1.0 };
    movers as f64 * (secs / per_waypoint * legs_per_waypoint + legs_per_waypoint)
}

fn check_tcp(c: &TcpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    super::tcp_streams::validate(c, p, source)?;
    let bad = |key: &str, msg: String| Err(ScenarioError::new(source, at(p, key), msg));
    if c.window > MAX_WINDOW_SEGMENTS {
        return bad(
            "window",
            format!(
                "{} segments is more than a run holds in flight; expected at most \
                 {MAX_WINDOW_SEGMENTS}",
                c.window
            ),
        );
    }
    if c.initial_window > f64::from(MAX_WINDOW_SEGMENTS) {
        return bad(
            "initial_window",
            format!(
                "{} segments is more than a run holds in flight; expected at most \
                 {MAX_WINDOW_SEGMENTS}",
                c.initial_window
            ),
        );
    }
    Ok(())
}

/// The SCTP checks beyond `validate::validate_sctp`'s, shared with live mode.
pub(crate) fn check_sctp(c: &SctpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: String| Err(ScenarioError::new(source, at(p, key), msg));
    // RFC 9260 3.3.2: a_rwnd is 32 bits, so no peer lets more than this be outstanding
    // and a larger cwnd means nothing.
    let most = f64::from(u32::MAX);
    match c.initial_cwnd {
        Some(InitialCwnd::Bytes(b)) if b.0 == 0 => {
            return bad(
                "initial_cwnd",
                "must be greater than zero; leave it out for the variant's value (RFC 4960's \
                 min(4 MTU, max(2 MTU, 4380 B)) where the variant uses it)"
                    .into(),
            );
        }
        Some(InitialCwnd::Bytes(b)) if b.0 as f64 > most => {
            return bad(
                "initial_cwnd",
                format!(
                    "{} B is more than a peer's window can ever be (a_rwnd is 32 bits, RFC 9260 3.3.2); expected at most {} B",
                    b.0,
                    u32::MAX
                ),
            );
        }
        Some(InitialCwnd::Mtus(m)) if m * c.mtu.0 as f64 > most => {
            return bad(
                "initial_cwnd",
                format!(
                    "{m} MTUs of {} B is more than a peer's window can ever be (a_rwnd is 32 \
                     bits, RFC 9260 3.3.2); expected at most {} B in all",
                    c.mtu.0,
                    u32::MAX
                ),
            );
        }
        _ => {}
    }
    // `rto_initial` absent means the variant's value, which is never zero.
    for (key, v) in [
        ("rto_initial", c.rto_initial),
        ("rto_min", Some(c.rto_min)),
        ("rto_max", Some(c.rto_max)),
    ] {
        if v.is_some_and(|d| d.0 == SimDuration::ZERO) {
            return bad(
                key,
                "must be greater than zero: a retransmission timer of 0 expires the instant \
                 it starts (RFC 9260 15 recommends RTO.Min 1 s)"
                    .into(),
            );
        }
    }
    if c.cookie_lifetime.0 == SimDuration::ZERO {
        return bad(
            "cookie_lifetime",
            "must be greater than zero: a cookie that is stale the instant it is made never \
             opens an association (RFC 9260 5.1.3)"
                .into(),
        );
    }
    Ok(())
}
