//! `[[faults]]` `add_address` / `delete_address`, and `set_primary` with `address`
//! (ASCONF, RFC 5061): an SCTP `flow` with `auth = true` (RFC 5061 4.1.1: ASCONF
//! travels authenticated), and `address` an interface of the flow's sender.

use super::ifaces::parse_iface_ref;
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::{FaultAction, FaultEntry, FlowSpec};
use std::collections::BTreeMap;

pub(super) fn validate_fault(
    s: &Scenario,
    f: &FaultEntry,
    p: &str,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let action = match f.action {
        FaultAction::AddAddress => "add_address",
        FaultAction::DeleteAddress => "delete_address",
        _ => "set_primary",
    };
    let Some(flow) = &f.flow else {
        return err(format!("{p}.flow"), format!("required for action {action}"));
    };
    let Some(FlowSpec::Sctp(c)) = s.flows.iter().find(|x| x.name() == flow) else {
        return err(
            format!("{p}.flow"),
            format!("{flow:?} is not an SCTP flow; expected the name of a flow of type \"sctp\""),
        );
    };
    if !c.auth {
        return err(
            format!("{p}.flow"),
            format!(
                "action {action} sends an ASCONF, which must be authenticated (RFC 5061 4.1.1); expected auth = true on flow {flow:?}"
            ),
        );
    }
    let Some(address) = &f.address else {
        return err(
            format!("{p}.address"),
            format!("required for action {action}"),
        );
    };
    match parse_iface_ref(address, nodes, names) {
        Ok((n, _)) if Some(&n) != nodes.get(c.from.as_str()) => {
            return err(
                format!("{p}.address"),
                format!(
                    "{address:?} is not an interface of the flow's sender {:?}; expected \"{}:<iface>\"",
                    c.from, c.from
                ),
            );
        }
        Ok(_) => {}
        Err(m) => return err(format!("{p}.address"), m),
    }
    if f.link.is_some() || f.primary.is_some() || f.streams.is_some() {
        return err(
            p.to_string(),
            format!("link, primary and streams do not belong to action {action} with address"),
        );
    }
    Ok(())
}

/// A flow's `bind`: a non-empty list of distinct interfaces of its sender.
pub(super) fn validate_bind(
    c: &crate::scenario::schema::SctpCfg,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    let Some(bind) = &c.bind else {
        return Ok(());
    };
    let p = format!("flows.{}.bind", c.name);
    if bind.is_empty() {
        return Err(ScenarioError::new(
            source,
            p,
            format!(
                "is empty; expected interfaces of the sender, e.g. [\"{}:eth0\"]",
                c.from
            ),
        ));
    }
    for (i, b) in bind.iter().enumerate() {
        let at = format!("{p}[{i}]");
        match parse_iface_ref(b, nodes, names) {
            Ok((n, _)) if Some(&n) != nodes.get(c.from.as_str()) => {
                return Err(ScenarioError::new(
                    source,
                    at,
                    format!("{b:?} is not an interface of the sender {:?}", c.from),
                ));
            }
            Ok(_) if bind[..i].contains(b) => {
                return Err(ScenarioError::new(
                    source,
                    at,
                    format!("{b:?} is listed twice"),
                ));
            }
            Ok(_) => {}
            Err(m) => return Err(ScenarioError::new(source, at, m)),
        }
    }
    Ok(())
}
