//! Static shortest-path routing by hop count, to destination *addresses*.
//!
//! Every interface owns an address. The route to an address is the fewest-hop path to
//! the node that owns it whose last hop is that interface's link (CONTRACTS.md,
//! "Addresses, multihoming and faults"); the owner never forwards on the way to its own
//! address. Ties between equal-length paths go to the interface declared first, so routes
//! depend only on the scenario text. Tables are built per destination interface when it
//! is first used (one reverse BFS, O(nodes) memory each), so memory grows with the
//! destinations in use, not with the square of the node count.

use super::ids::{IfaceId, NodeId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct StaticRoutes {
    /// `adjacency[node]` lists `(iface, neighbour)` in declaration order.
    adjacency: Vec<Vec<(IfaceId, NodeId)>>,
    /// For each interface: its node and the node at the other end of its link.
    iface_ends: Vec<(NodeId, NodeId)>,
    /// `next_hop[dst_iface][node]`: the interface of `node` to send on, built lazily.
    next_hop: Vec<Option<Box<[u32]>>>,
}

impl StaticRoutes {
    /// `adjacency[node]` lists `(iface, neighbour)` in declaration order; interface ids
    /// must index `0..n_ifaces`.
    pub fn new(adjacency: Vec<Vec<(IfaceId, NodeId)>>, n_ifaces: usize) -> Self {
        let mut iface_ends = vec![(NodeId(NONE), NodeId(NONE)); n_ifaces];
        for (node, adj) in adjacency.iter().enumerate() {
            for &(iface, nb) in adj {
                iface_ends[iface.idx()] = (NodeId::from_idx(node), nb);
            }
        }
        StaticRoutes {
            adjacency,
            iface_ends,
            next_hop: vec![None; n_ifaces],
        }
    }

    /// The interface of `from` to send on toward the address of interface `dst`, or
    /// `None` if `from` owns it or cannot reach it.
    pub fn next_hop(&mut self, from: NodeId, dst: IfaceId) -> Option<IfaceId> {
        let table = match &self.next_hop[dst.idx()] {
            Some(t) => t,
            None => {
                let t = self.build(dst);
                self.next_hop[dst.idx()].insert(t)
            }
        };
        match table[from.idx()] {
            NONE => None,
            i => Some(IfaceId(i)),
        }
    }

    /// Reverse BFS from the destination interface's link, never through its owner.
    fn build(&self, dst: IfaceId) -> Box<[u32]> {
        let n = self.adjacency.len();
        let (owner, far) = self.iface_ends[dst.idx()];
        let mut dist = vec![NONE; n];
        let mut table = vec![NONE; n].into_boxed_slice();
        if owner.0 == NONE {
            return table;
        }
        dist[owner.idx()] = 0;
        dist[far.idx()] = 1;
        let mut frontier = VecDeque::from([far]);
        while let Some(v) = frontier.pop_front() {
            for &(_, nb) in &self.adjacency[v.idx()] {
                if dist[nb.idx()] == NONE {
                    dist[nb.idx()] = dist[v.idx()] + 1;
                    frontier.push_back(nb);
                }
            }
        }
        // The first-declared interface whose neighbour is one hop closer: the same choice
        // a forward BFS from each source makes (its frontier stays ordered by first hop).
        for v in 0..n {
            let d = dist[v];
            if d == NONE || d == 0 {
                continue;
            }
            table[v] = self.adjacency[v]
                .iter()
                .find(|&&(_, nb)| dist[nb.idx()] == d - 1)
                .map_or(NONE, |&(iface, _)| iface.0);
        }
        table
    }
}

/// Which nodes can reach each other over links: connected components, O(nodes) memory.
pub fn components(adjacency: &[Vec<(IfaceId, NodeId)>]) -> Vec<u32> {
    let n = adjacency.len();
    let mut comp = vec![NONE; n];
    let mut next = 0;
    for s in 0..n {
        if comp[s] != NONE {
            continue;
        }
        comp[s] = next;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &(_, nb) in &adjacency[v] {
                if comp[nb.idx()] == NONE {
                    comp[nb.idx()] = next;
                    stack.push(nb.idx());
                }
            }
        }
        next += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_diamond() {
        // 0 - 1 - 2, plus 0 - 3 - 2 declared later: ties go to the first declared.
        let adj = vec![
            vec![(IfaceId(0), NodeId(1)), (IfaceId(4), NodeId(3))],
            vec![(IfaceId(1), NodeId(0)), (IfaceId(2), NodeId(2))],
            vec![(IfaceId(3), NodeId(1)), (IfaceId(7), NodeId(3))],
            vec![(IfaceId(5), NodeId(0)), (IfaceId(6), NodeId(2))],
            vec![],
        ];
        let mut rt = StaticRoutes::new(adj.clone(), 8);
        // Node 2's address on its link to 1 (iface 3): 0 goes via 1.
        assert_eq!(rt.next_hop(NodeId(0), IfaceId(3)), Some(IfaceId(0)));
        // Node 2's address on its link to 3 (iface 7): the path must end on link 3-2, so
        // 0 goes via 3 and 1 goes 1-0-3-2 (3 hops), never through node 2 itself.
        assert_eq!(rt.next_hop(NodeId(0), IfaceId(7)), Some(IfaceId(4)));
        assert_eq!(rt.next_hop(NodeId(1), IfaceId(7)), Some(IfaceId(1)));
        assert_eq!(rt.next_hop(NodeId(3), IfaceId(7)), Some(IfaceId(6)));
        // Node 0's first address (iface 0, link to 1): 2 goes via 1.
        assert_eq!(rt.next_hop(NodeId(2), IfaceId(0)), Some(IfaceId(3)));
        // The owner has no next hop to its own address; node 4 is cut off.
        assert_eq!(rt.next_hop(NodeId(2), IfaceId(3)), None);
        assert_eq!(rt.next_hop(NodeId(4), IfaceId(3)), None);
        let comp = components(&adj);
        assert_eq!(comp[0], comp[2]);
        assert_ne!(comp[0], comp[4]);
    }
}
