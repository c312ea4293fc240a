//! `[[snoop]]`: each agent on a known base station, linked to its mobile host, one per
//! node, with workable cache and timer settings.

use super::{check_unique, node_list};
use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::sim::SimDuration;
use std::collections::BTreeMap;

pub(super) fn validate_snoop(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    pairs: &BTreeMap<(usize, usize), &str>,
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    check_unique(
        source,
        "snoop",
        s.file.snoop.iter().map(|a| a.name.as_str()),
    )?;
    let mut on_node: BTreeMap<usize, &str> = BTreeMap::new();
    for a in &s.file.snoop {
        let p = format!("snoop.{}", a.name);
        let Some(&node) = nodes.get(a.node.as_str()) else {
            return err(
                format!("{p}.node"),
                format!(
                    "unknown node {:?}; expected one of: {}",
                    a.node,
                    node_list(nodes)
                ),
            );
        };
        let Some(&mobile) = nodes.get(a.mobile.as_str()) else {
            return err(
                format!("{p}.mobile"),
                format!(
                    "unknown node {:?}; expected one of: {}",
                    a.mobile,
                    node_list(nodes)
                ),
            );
        };
        if !pairs.contains_key(&(node.min(mobile), node.max(mobile))) {
            return err(
                format!("{p}.mobile"),
                format!(
                    "{:?} is not linked to the base station {:?}; expected a node with a link to it",
                    a.mobile, a.node
                ),
            );
        }
        if let Some(other) = on_node.insert(node, &a.name) {
            return err(
                format!("{p}.node"),
                format!(
                    "node {:?} already runs snoop agent {other:?}; expected one agent per node",
                    a.node
                ),
            );
        }
        if a.cache_packets == 0 {
            return err(
                format!("{p}.cache_packets"),
                "expected at least 1 packet".into(),
            );
        }
        if a.dupack_thresh == 0 {
            return err(
                format!("{p}.dupack_thresh"),
                "expected at least 1 duplicate ack".into(),
            );
        }
        if a.timer_min.0 == SimDuration::ZERO {
            return err(format!("{p}.timer_min"), "must be greater than zero".into());
        }
        if a.timer_max.0 < a.timer_min.0 {
            return err(
                format!("{p}.timer_max"),
                "must not be less than timer_min".into(),
            );
        }
    }
    Ok(())
}
