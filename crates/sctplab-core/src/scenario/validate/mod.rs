//! Cross-reference and value checks on a typed scenario, one module per part of the
//! file. `validate` runs them in a fixed order: the first error found is the one
//! reported, so the order is part of the behaviour.

use super::error::ScenarioError;
use super::load::Scenario;
use super::schema::FlowSpec;
use std::collections::BTreeMap;

mod asconf;
mod faults;
mod flows;
mod ifaces;
mod links;
mod loss;
mod snoop;
mod window;
mod wireless;

pub(crate) use flows::validate_sctp;

pub(in crate::scenario) fn validate(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
    let nodes = check_unique(source, "nodes", f.nodes.iter().map(|n| n.name.as_str()))?;
    if nodes.is_empty() {
        return Err(err(
            "nodes".into(),
            "expected at least one [[nodes]] entry".into(),
        ));
    }
    check_unique(source, "links", f.links.iter().map(|l| l.name.as_str()))?;
    let flows = check_unique(
        source,
        "flows",
        s.flows
            .iter()
            .map(FlowSpec::name)
            .chain(s.generators.iter().map(|g| g.name.as_str())),
    )?;

    if let Some(name) = &f.name {
        check_name(source, "name", name)?;
    }
    let wiring = links::validate_links(s, &nodes, &flows, source)?;
    let component = super::sat::components_with_stations(f, &wiring.adjacency);
    flows::validate_flows(s, &nodes, &component, source)?;
    window::validate_window(s, source)?;
    snoop::validate_snoop(s, &nodes, &wiring.pairs, source)?;
    wireless::validate_wireless(s, &wiring.adjacency, source)?;
    super::bounds::check(s, source)?;
    let names = ifaces::iface_names(s, &wiring.adjacency);
    ifaces::validate_primaries(s, &nodes, &names, source)?;
    super::cmt::validate(s, &nodes, &names, source)?;
    super::send_buffer::validate(s, source)?;
    faults::validate_faults(s, &nodes, &names, source)
}

/// The known node names, as "unknown node" messages list them.
fn node_list(nodes: &BTreeMap<&str, usize>) -> String {
    nodes.keys().copied().collect::<Vec<_>>().join(", ")
}

fn check_name(source: &str, path: &str, name: &str) -> Result<(), ScenarioError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(
            source,
            path,
            format!("invalid name {name:?}: expected letters, digits, '_' or '-'"),
        ))
    }
}

fn check_unique<'a>(
    source: &str,
    list: &str,
    names: impl Iterator<Item = &'a str>,
) -> Result<BTreeMap<&'a str, usize>, ScenarioError> {
    let mut seen = BTreeMap::new();
    for (i, n) in names.enumerate() {
        check_name(source, &format!("{list}.{i}.name"), n)?;
        if seen.insert(n, i).is_some() {
            return Err(ScenarioError::new(
                source,
                format!("{list}.{n}"),
                format!("duplicate name {n:?} in {list}"),
            ));
        }
    }
    Ok(seen)
}
