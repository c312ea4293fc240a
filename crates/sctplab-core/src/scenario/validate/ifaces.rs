//! Interface names (`eth<k>`, `wlan<k>`) and the `"<node>:<iface>"` references that
//! name them: an SCTP flow's `primary`.

use crate::net::{IfaceId, NodeId};
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::FlowSpec;
use std::collections::BTreeMap;

/// The interface names of every node: `eth<k>` for its link ends, then `wlan<k>`.
pub(super) fn iface_names(s: &Scenario, adjacency: &[Vec<(IfaceId, NodeId)>]) -> Vec<Vec<String>> {
    s.file
        .nodes
        .iter()
        .zip(adjacency)
        .map(|(n, adj)| {
            let links = adj.len();
            (0..links)
                .map(|k| format!("eth{k}"))
                .chain((links..links + n.wlan as usize).map(|k| format!("wlan{k}")))
                .collect()
        })
        .collect()
}

/// Resolves `"<node>:<iface>"` to (node index, interface number).
pub(super) fn parse_iface_ref(
    text: &str,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
) -> Result<(usize, usize), String> {
    let Some((node, iface)) = text.split_once(':') else {
        return Err(format!(
            "expected \"<node>:<iface>\", e.g. \"host:eth1\", got {text:?}"
        ));
    };
    let Some(&n) = nodes.get(node) else {
        return Err(format!("unknown node {node:?} in {text:?}"));
    };
    names[n]
        .iter()
        .position(|x| x == iface)
        .map(|k| (n, k))
        .ok_or_else(|| {
            format!(
                "node {node:?} has no interface {iface:?}; expected one of: {}",
                names[n].join(", ")
            )
        })
}

/// Each SCTP flow's `primary` names an interface of its receiver.
pub(super) fn validate_primaries(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
    for flow in &s.flows {
        if let FlowSpec::Sctp(c) = flow {
            if let Some(primary) = &c.primary {
                let p = format!("flows.{}.primary", c.name);
                match parse_iface_ref(primary, nodes, names) {
                    Ok((n, _)) if Some(&n) != nodes.get(c.to.as_str()) => {
                        return Err(err(
                            p,
                            format!("{primary:?} is not an interface of the receiver {:?}", c.to),
                        ));
                    }
                    Ok(_) => {}
                    Err(m) => return Err(err(p, m)),
                }
            }
            super::asconf::validate_bind(c, nodes, names, source)?;
        }
    }
    Ok(())
}
