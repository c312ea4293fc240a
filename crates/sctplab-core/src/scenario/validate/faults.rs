//! `[[faults]]`: each event's target exists and suits its action, and a link's down and
//! up events alternate, starting with down.

use super::check_unique;
use super::ifaces::parse_iface_ref;
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::{FaultAction, FlowSpec};
use crate::sim::SimDuration;
use std::collections::BTreeMap;

pub(super) fn validate_faults(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let named: Vec<&str> = s
        .file
        .faults
        .iter()
        .filter_map(|f| f.name.as_deref())
        .collect();
    check_unique(source, "faults", named.into_iter())?;
    let links: BTreeMap<&str, ()> = s.file.links.iter().map(|l| (l.name.as_str(), ())).collect();
    // Per link, its down/up events in time order must alternate, starting with down.
    let mut per_link: BTreeMap<&str, Vec<(SimDuration, FaultAction, String)>> = BTreeMap::new();
    for (i, f) in s.file.faults.iter().enumerate() {
        let p = format!("faults.{}", f.name.clone().unwrap_or_else(|| i.to_string()));
        if s.duration().is_some_and(|d| f.at.0 > d) {
            return err(
                format!("{p}.at"),
                "is after the end of the run (duration)".into(),
            );
        }
        match f.action {
            FaultAction::Down | FaultAction::Up => {
                let Some(link) = &f.link else {
                    return err(format!("{p}.link"), "required for action down/up".into());
                };
                if !links.contains_key(link.as_str()) {
                    let have: Vec<&str> = links.keys().copied().collect();
                    return err(
                        format!("{p}.link"),
                        format!(
                            "unknown link {link:?}; expected one of: {}",
                            have.join(", ")
                        ),
                    );
                }
                if f.flow.is_some() || f.primary.is_some() {
                    return err(
                        p,
                        "flow and primary belong to action \"set_primary\"".into(),
                    );
                }
                per_link
                    .entry(link.as_str())
                    .or_default()
                    .push((f.at.0, f.action, p));
            }
            FaultAction::ResetStreams | FaultAction::AddStreams | FaultAction::ResetAssoc => {
                crate::scenario::reconf::validate_fault(s, f, &p, source)?;
            }
            FaultAction::AddAddress | FaultAction::DeleteAddress => {
                super::asconf::validate_fault(s, f, &p, nodes, names, source)?;
            }
            FaultAction::SetPrimary if f.address.is_some() => {
                super::asconf::validate_fault(s, f, &p, nodes, names, source)?;
            }
            FaultAction::SetPrimary => {
                let Some(flow) = &f.flow else {
                    return err(
                        format!("{p}.flow"),
                        "required for action set_primary".into(),
                    );
                };
                let Some(FlowSpec::Sctp(c)) = s.flows.iter().find(|x| x.name() == flow) else {
                    return err(
                        format!("{p}.flow"),
                        format!(
                            "{flow:?} is not an SCTP flow; expected the name of a flow of type \"sctp\""
                        ),
                    );
                };
                let Some(primary) = &f.primary else {
                    return err(
                        format!("{p}.primary"),
                        "required for action set_primary".into(),
                    );
                };
                match parse_iface_ref(primary, nodes, names) {
                    Ok((n, _)) if Some(&n) != nodes.get(c.to.as_str()) => {
                        return err(
                            format!("{p}.primary"),
                            format!(
                                "{primary:?} is not an interface of the flow's receiver {:?}",
                                c.to
                            ),
                        );
                    }
                    Ok(_) => {}
                    Err(m) => return err(format!("{p}.primary"), m),
                }
                if f.link.is_some() {
                    return err(format!("{p}.link"), "belongs to actions down/up".into());
                }
            }
        }
    }
    check_alternation(per_link, source)
}

/// Per link, its down/up events in time order must alternate, starting with down; no two
/// at the same time. `per_link` holds each link's events (time, action, key prefix).
fn check_alternation(
    per_link: BTreeMap<&str, Vec<(SimDuration, FaultAction, String)>>,
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    for (link, mut events) in per_link {
        events.sort_by_key(|e| e.0);
        let mut down = false;
        for (k, (at, action, p)) in events.iter().enumerate() {
            if k > 0 && events[k - 1].0 == *at {
                return err(
                    format!("{p}.at"),
                    format!("link {link:?} has two faults at the same time"),
                );
            }
            let wants_down = *action == FaultAction::Down;
            if wants_down == down {
                let state = if down { "down" } else { "up" };
                return err(
                    format!("{p}.action"),
                    format!(
                        "link {link:?} is already {state} at {} s; expected down and up to alternate, starting with down",
                        at.as_secs_f64()
                    ),
                );
            }
            down = wants_down;
        }
    }
    Ok(())
}
