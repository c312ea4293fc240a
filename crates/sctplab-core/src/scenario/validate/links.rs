//! `[[links]]`: each joins two different known nodes, no two join the same pair, and
//! its queue, queue discipline and loss models check out.

use super::node_list;
use crate::net::{IfaceId, NodeId};
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use std::collections::BTreeMap;

/// What the links make of the nodes, for the checks that follow.
pub(super) struct Wiring<'a> {
    /// Per node, its link ends in link order: (interface, node at the other end).
    pub adjacency: Vec<Vec<(IfaceId, NodeId)>>,
    /// The link joining each pair of nodes (lower node index first).
    pub pairs: BTreeMap<(usize, usize), &'a str>,
}

pub(super) fn validate_links<'a>(
    s: &'a Scenario,
    nodes: &BTreeMap<&str, usize>,
    flows: &BTreeMap<&str, usize>,
    source: &str,
) -> Result<Wiring<'a>, ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
    let mut adjacency: Vec<Vec<(IfaceId, NodeId)>> = vec![Vec::new(); f.nodes.len()];
    let mut pairs: BTreeMap<(usize, usize), &str> = BTreeMap::new();
    for link in &f.links {
        let p = format!("links.{}", link.name);
        let mut ends = [0usize; 2];
        for (k, (key, node)) in [("a", &link.a), ("b", &link.b)].into_iter().enumerate() {
            ends[k] = *nodes.get(node.as_str()).ok_or_else(|| {
                err(
                    format!("{p}.{key}"),
                    format!(
                        "unknown node {node:?}; expected one of: {}",
                        node_list(nodes)
                    ),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(err(
                format!("{p}.b"),
                "a link must join two different nodes".into(),
            ));
        }
        if link.bandwidth.0 == 0 {
            return Err(err(
                format!("{p}.bandwidth"),
                "must be greater than zero".into(),
            ));
        }
        if link.queue == 0 {
            return Err(err(
                format!("{p}.queue"),
                "expected at least 1 packet".into(),
            ));
        }
        if link.queue_bytes.is_some_and(|b| b.0 == 0) {
            return Err(err(
                format!("{p}.queue_bytes"),
                "must be greater than zero (omit it for no byte limit)".into(),
            ));
        }
        crate::scenario::aqm::validate(link, source)?;
        let pair = (ends[0].min(ends[1]), ends[0].max(ends[1]));
        if let Some(other) = pairs.insert(pair, &link.name) {
            return Err(err(
                format!("{p}.b"),
                format!(
                    "nodes {:?} and {:?} are already joined by link {other:?}; summary.json names \
                     link directions by their nodes, so parallel links are not supported",
                    link.a, link.b
                ),
            ));
        }
        let iface = IfaceId::from_idx(adjacency.iter().map(Vec::len).sum());
        adjacency[ends[0]].push((iface, NodeId::from_idx(ends[1])));
        adjacency[ends[1]].push((iface, NodeId::from_idx(ends[0])));
        if let Some(loss) = &link.loss {
            super::loss::validate_loss(s, loss, &format!("{p}.loss"), source, flows)?;
        }
    }
    Ok(Wiring { adjacency, pairs })
}
