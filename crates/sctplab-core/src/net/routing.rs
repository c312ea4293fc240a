//! Static shortest-path routing by hop count, to destination *addresses*.
//!
//! Every interface owns an address. The route to an address is the fewest-hop path to
//! the node that owns it whose last hop is that interface's link (CONTRACTS.md,
//! "Addresses, multihoming and faults"); the owner never forwards on the way to its own
//! address. Ties between equal-length paths go to the interface declared first, so routes
//! depend only on the scenario text.
//!
//! Destinations' tables are built when first used (one reverse BFS, O(nodes) each) and
//! kept, up to `budget` entries in all: every shipped scenario, by far, fits, and routes
//! each hop by one array index. Past the budget (20,000 flows to 20,000 addresses on a
//! 20,000-node star would need 1.6 GB of tables), a destination without a table is
//! routed through a memo of (node, destination) -> next hop: a miss runs the same BFS
//! into scratch memory and records the next hop of every node on the path from the
//! asking node, so the packet's later hops hit. The memo holds at most `budget / 4`
//! entries and is emptied when full (recomputed on demand), so memory is bounded by the
//! budget, not by destinations x nodes. Routes never depend on which way they were
//! found: both read the same BFS, so the budget changes run time only.

use super::ids::{IfaceId, NodeId};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

const NONE: u32 = u32::MAX;

/// Route table entries (4 bytes each) held at most by default in whole tables: 64 MiB.
pub const DEFAULT_ROUTE_BUDGET: usize = 1 << 24;

/// A multiplicative hasher for the memo's u64 keys (SipHash is needlessly slow here and
/// the keys come from the scenario, not from an adversary on a network).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Memo = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

#[derive(Clone, Debug)]
pub struct StaticRoutes {
    /// `adjacency[node]` lists `(iface, neighbour)` in declaration order.
    adjacency: Vec<Vec<(IfaceId, NodeId)>>,
    /// For each interface: its node and the node at the other end of its link.
    iface_ends: Vec<(NodeId, NodeId)>,
    /// `slot_of[dst_iface]`: the slot of that destination's table, or NONE.
    slot_of: Vec<u32>,
    /// Slot `s` is `tables[s * nodes .. (s + 1) * nodes]`, `next_hop[node]`.
    tables: Vec<u32>,
    max_slots: usize,
    /// `(dst << 32 | node)` -> next hop, for destinations past `max_slots`.
    memo: Memo,
    max_memo: usize,
    /// Reverse BFS runs so far (whole tables and memo misses).
    builds: u64,
    /// BFS scratch, reused.
    dist: Vec<u32>,
    frontier: VecDeque<NodeId>,
}

impl StaticRoutes {
    /// `adjacency[node]` lists `(iface, neighbour)` in declaration order; interface ids
    /// must index `0..n_ifaces`.
    pub fn new(adjacency: Vec<Vec<(IfaceId, NodeId)>>, n_ifaces: usize) -> Self {
        Self::with_budget(adjacency, n_ifaces, DEFAULT_ROUTE_BUDGET)
    }

    /// `new` with at most `budget` entries in whole tables and `budget / 4` in the memo.
    pub fn with_budget(
        adjacency: Vec<Vec<(IfaceId, NodeId)>>,
        n_ifaces: usize,
        budget: usize,
    ) -> Self {
        let mut iface_ends = vec![(NodeId(NONE), NodeId(NONE)); n_ifaces];
        for (node, adj) in adjacency.iter().enumerate() {
            for &(iface, nb) in adj {
                iface_ends[iface.idx()] = (NodeId::from_idx(node), nb);
            }
        }
        let nodes = adjacency.len().max(1);
        StaticRoutes {
            adjacency,
            iface_ends,
            slot_of: vec![NONE; n_ifaces],
            tables: Vec::new(),
            max_slots: (budget / nodes).min(n_ifaces),
            memo: Memo::default(),
            max_memo: (budget / 4).max(nodes),
            builds: 0,
            dist: Vec::new(),
            frontier: VecDeque::new(),
        }
    }

    /// The interface of `from` to send on toward the address of interface `dst`, or
    /// `None` if `from` owns it or cannot reach it.
    #[inline]
    pub fn next_hop(&mut self, from: NodeId, dst: IfaceId) -> Option<IfaceId> {
        let slot = self.slot_of[dst.idx()];
        let hop = if slot != NONE {
            self.tables[slot as usize * self.adjacency.len() + from.idx()]
        } else {
            self.next_hop_slow(from, dst)
        };
        match hop {
            NONE => None,
            i => Some(IfaceId(i)),
        }
    }

    /// Whole tables held (at most `max_tables()`).
    pub fn tables_held(&self) -> usize {
        self.tables.len() / self.adjacency.len().max(1)
    }

    /// The most whole tables held at once.
    pub fn max_tables(&self) -> usize {
        self.max_slots
    }

    /// (node, destination) next hops held in the memo (at most `max_memo()`).
    pub fn memo_held(&self) -> usize {
        self.memo.len()
    }

    pub fn max_memo(&self) -> usize {
        self.max_memo
    }

    /// Reverse BFS runs so far.
    pub fn builds(&self) -> u64 {
        self.builds
    }

    #[cold]
    fn next_hop_slow(&mut self, from: NodeId, dst: IfaceId) -> u32 {
        let n = self.adjacency.len();
        if self.tables_held() < self.max_slots {
            let slot = self.tables_held();
            self.slot_of[dst.idx()] = slot as u32;
            self.tables.resize((slot + 1) * n, NONE);
            self.bfs(dst);
            for v in 0..n {
                let hop = self.choose(NodeId::from_idx(v));
                self.tables[slot * n + v] = hop;
            }
            return self.tables[slot * n + from.idx()];
        }
        let key = |v: NodeId| (u64::from(dst.0) << 32) | u64::from(v.0);
        if let Some(&hop) = self.memo.get(&key(from)) {
            return hop;
        }
        self.bfs(dst);
        // The path from `from` has dist + 1 nodes (the owner's NONE included).
        let path = match self.dist[from.idx()] {
            NONE => 1,
            d => d as usize + 1,
        };
        if self.memo.len() + path > self.max_memo {
            // Emptied rather than evicted piece by piece: deterministic, and every entry
            // is recomputed exactly as it was.
            self.memo.clear();
        }
        // The asking node and every node on its path onward (the packet's next hops).
        let first = self.choose(from);
        let mut at = from;
        let mut hop = first;
        loop {
            self.memo.insert(key(at), hop);
            if hop == NONE {
                break;
            }
            let Some(&(_, nb)) = self.adjacency[at.idx()].iter().find(|&&(i, _)| i.0 == hop) else {
                break;
            };
            at = nb;
            hop = self.choose(at);
        }
        first
    }

    /// Reverse BFS from the destination interface's link, never through its owner:
    /// `dist[v]` is v's hop count to the address (0 at the owner, NONE if cut off).
    fn bfs(&mut self, dst: IfaceId) {
        self.builds += 1;
        let n = self.adjacency.len();
        let dist = &mut self.dist;
        dist.clear();
        dist.resize(n, NONE);
        let (owner, far) = self.iface_ends[dst.idx()];
        if owner.0 == NONE {
            return;
        }
        dist[owner.idx()] = 0;
        dist[far.idx()] = 1;
        let frontier = &mut self.frontier;
        frontier.clear();
        frontier.push_back(far);
        while let Some(v) = frontier.pop_front() {
            for &(_, nb) in &self.adjacency[v.idx()] {
                if dist[nb.idx()] == NONE {
                    dist[nb.idx()] = dist[v.idx()] + 1;
                    frontier.push_back(nb);
                }
            }
        }
    }

    /// After `bfs`: the first-declared interface of `v` whose neighbour is one hop
    /// closer, the same choice a forward BFS from each source makes (its frontier stays
    /// ordered by first hop); NONE at the owner or when cut off.
    fn choose(&self, v: NodeId) -> u32 {
        let d = self.dist[v.idx()];
        if d == NONE || d == 0 {
            return NONE;
        }
        self.adjacency[v.idx()]
            .iter()
            .find(|&&(_, nb)| self.dist[nb.idx()] == d - 1)
            .map_or(NONE, |&(iface, _)| iface.0)
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

    /// A random connected-ish graph: `n` nodes, a random spanning chain plus `extra`
    /// random links (some nodes may end up isolated when `n` is odd by chance: fine).
    fn random_graph(
        rng: &mut crate::sim::RngStream,
        n: usize,
        extra: usize,
    ) -> (Vec<Vec<(IfaceId, NodeId)>>, usize) {
        let mut adj = vec![Vec::new(); n];
        let mut ifaces = 0u32;
        let mut link = |adj: &mut Vec<Vec<(IfaceId, NodeId)>>, a: usize, b: usize| {
            adj[a].push((IfaceId(ifaces), NodeId::from_idx(b)));
            adj[b].push((IfaceId(ifaces + 1), NodeId::from_idx(a)));
            ifaces += 2;
        };
        for v in 1..n {
            // Leave about one node in ten cut off, so unreachable routes are covered too.
            if rng.next_u64() % 10 != 0 {
                let u = (rng.next_u64() % v as u64) as usize;
                link(&mut adj, u, v);
            }
        }
        for _ in 0..extra {
            let a = (rng.next_u64() % n as u64) as usize;
            let b = (rng.next_u64() % n as u64) as usize;
            if a != b {
                link(&mut adj, a, b);
            }
        }
        (adj, ifaces as usize)
    }

    /// Hop count of the path the tables give from `from` to `dst`'s address, or None.
    fn walk(
        rt: &mut StaticRoutes,
        adj: &[Vec<(IfaceId, NodeId)>],
        from: NodeId,
        dst: IfaceId,
    ) -> Option<usize> {
        let mut at = from;
        let mut hops = 0;
        while let Some(i) = rt.next_hop(at, dst) {
            at = adj[at.idx()]
                .iter()
                .find(|&&(f, _)| f == i)
                .map(|&(_, nb)| nb)?;
            hops += 1;
            assert!(hops <= adj.len(), "routing loop");
        }
        Some(hops)
    }

    #[test]
    fn bounded_cache_gives_the_unbounded_routes() {
        // Many destinations against a cache of a few tables: every (node, destination)
        // asked in a random order must get the next hop the unbounded tables give (a
        // rebuilt table is the same BFS), and the cache never holds more than its bound.
        let mut rng = crate::sim::RngStream::new(7, "routing-test");
        for round in 0..20 {
            let n = 5 + (rng.next_u64() % 60) as usize;
            let extra = (rng.next_u64() % 40) as usize;
            let (adj, n_ifaces) = random_graph(&mut rng, n, extra);
            let budget = n * (1 + round % 4); // 1 to 4 tables
            let mut small = StaticRoutes::with_budget(adj.clone(), n_ifaces, budget);
            let mut full = StaticRoutes::with_budget(adj.clone(), n_ifaces, usize::MAX);
            assert_eq!(small.max_tables(), (1 + round % 4).min(n_ifaces));
            for _ in 0..3000 {
                let from = NodeId::from_idx((rng.next_u64() % n as u64) as usize);
                let dst = IfaceId((rng.next_u64() % n_ifaces as u64) as u32);
                assert_eq!(small.next_hop(from, dst), full.next_hop(from, dst));
                assert!(small.tables_held() <= small.max_tables());
                assert!(small.memo_held() <= small.max_memo());
            }
            // Whole paths too: the walk ends at the owner (no next hop) within n hops.
            for _ in 0..200 {
                let from = NodeId::from_idx((rng.next_u64() % n as u64) as usize);
                let dst = IfaceId((rng.next_u64() % n_ifaces as u64) as u32);
                assert_eq!(
                    walk(&mut small, &adj, from, dst),
                    walk(&mut full, &adj, from, dst)
                );
            }
            // The unbounded way built each destination's table once, and never a memo.
            assert!(full.builds() <= n_ifaces as u64);
            assert_eq!(full.tables_held() as u64, full.builds());
            assert_eq!(full.memo_held(), 0);
        }
    }

    #[test]
    fn many_destinations_stay_within_the_budget() {
        // A 2,000-node star with every leaf a destination and a budget of 100 tables
        // (200,000 entries): 100 whole tables are held while 1,999 distinct destinations
        // are routed to; the rest go through the memo, 3 entries per destination (the
        // asking leaf, the hub, the owner). A leaf reaches any other leaf through the hub
        // in 2 hops: leaf -> hub on the leaf's only interface, hub -> leaf on that leaf's
        // link. One BFS per destination: the hub's question hits what the leaf's filled.
        let n = 2000;
        let mut adj = vec![Vec::new(); n];
        for leaf in 1..n {
            let i = 2 * (leaf as u32 - 1);
            adj[0].push((IfaceId(i), NodeId::from_idx(leaf)));
            adj[leaf].push((IfaceId(i + 1), NodeId(0)));
        }
        let mut rt = StaticRoutes::with_budget(adj, 2 * (n - 1), 100 * n);
        assert_eq!(rt.max_tables(), 100);
        assert_eq!(rt.max_memo(), 50_000);
        for leaf in 1..n {
            // The leaf's own address is iface 2*(leaf-1)+1; asked from the next leaf over.
            let dst = IfaceId(2 * (leaf as u32 - 1) + 1);
            let from = if leaf + 1 < n { leaf + 1 } else { 1 };
            let from_iface = IfaceId(2 * (from as u32 - 1) + 1);
            assert_eq!(rt.next_hop(NodeId::from_idx(from), dst), Some(from_iface));
            assert_eq!(rt.next_hop(NodeId(0), dst), Some(IfaceId(dst.0 - 1)));
            assert_eq!(rt.next_hop(NodeId::from_idx(leaf), dst), None);
            assert!(rt.tables_held() <= 100);
        }
        assert_eq!(rt.tables_held(), 100);
        assert_eq!(rt.memo_held(), 3 * (n - 1 - 100));
        assert_eq!(rt.builds(), (n - 1) as u64);
    }
}
