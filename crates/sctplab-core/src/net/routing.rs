//! Static shortest-path routing by hop count.
//!
//! Ties between equal-length paths go to the interface declared first, so routes depend
//! only on the scenario text, never on hash order.

use super::ids::{IfaceId, NodeId};
use std::collections::VecDeque;

/// `next_hop[src * n + dst]` is the interface of `src` to send on towards `dst`.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    n: usize,
    next_hop: Vec<Option<IfaceId>>,
}

/// `adjacency[node]` lists `(iface, neighbour)` in declaration order.
pub fn shortest_paths(adjacency: &[Vec<(IfaceId, NodeId)>]) -> RoutingTable {
    let n = adjacency.len();
    let mut next_hop = vec![None; n * n];
    for src in 0..n {
        // BFS from src, remembering the first interface on the path to each node.
        let mut first: Vec<Option<IfaceId>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[src] = true;
        let mut frontier = VecDeque::new();
        for &(iface, nb) in &adjacency[src] {
            if !seen[nb.idx()] {
                seen[nb.idx()] = true;
                first[nb.idx()] = Some(iface);
                frontier.push_back(nb);
            }
        }
        while let Some(node) = frontier.pop_front() {
            for &(_, nb) in &adjacency[node.idx()] {
                if !seen[nb.idx()] {
                    seen[nb.idx()] = true;
                    first[nb.idx()] = first[node.idx()];
                    frontier.push_back(nb);
                }
            }
        }
        next_hop[src * n..(src + 1) * n].copy_from_slice(&first);
    }
    RoutingTable { n, next_hop }
}

impl RoutingTable {
    pub fn next_hop(&self, from: NodeId, to: NodeId) -> Option<IfaceId> {
        self.next_hop[from.idx() * self.n + to.idx()]
    }

    pub fn reachable(&self, from: NodeId, to: NodeId) -> bool {
        from == to || self.next_hop(from, to).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_diamond() {
        // 0 - 1 - 2, plus 0 - 3 - 2 declared later: ties go to the first declared.
        let adj = vec![
            vec![(IfaceId(0), NodeId(1)), (IfaceId(5), NodeId(3))],
            vec![(IfaceId(1), NodeId(0)), (IfaceId(2), NodeId(2))],
            vec![(IfaceId(3), NodeId(1)), (IfaceId(7), NodeId(3))],
            vec![(IfaceId(4), NodeId(0)), (IfaceId(6), NodeId(2))],
            vec![],
        ];
        let rt = shortest_paths(&adj);
        assert_eq!(rt.next_hop(NodeId(0), NodeId(2)), Some(IfaceId(0)));
        assert_eq!(rt.next_hop(NodeId(2), NodeId(0)), Some(IfaceId(3)));
        assert_eq!(rt.next_hop(NodeId(1), NodeId(3)), Some(IfaceId(1)));
        assert!(!rt.reachable(NodeId(0), NodeId(4)));
        assert!(rt.reachable(NodeId(4), NodeId(4)));
    }
}
