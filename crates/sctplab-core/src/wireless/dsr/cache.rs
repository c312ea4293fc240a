//! ns-2.35's default DSR route cache, `MobiCache` (dsr/mobicache.cc, dsr/routecache.cc):
//! a primary cache of routes this node uses or was given (replies, routes it returned)
//! and a secondary cache of routes it overheard or forwarded, each a fixed number of
//! path slots. No expiry: a route leaves only by a dead link or by eviction (round
//! robin over the slots once all are in use). Link timestamps and tested/untested
//! marks, which ns-2 keeps only for its cache statistics, are not kept.

use super::header::MAX_SR_LEN;

/// One of the two caches (`class Cache`): slots of paths, each starting at this node.
#[derive(Clone, Debug)]
pub(super) struct Slots {
    paths: Vec<Vec<u32>>,
    /// Per slot, its path's first two nodes (`head`), `SHORT` for a path of fewer:
    /// `add` looks into a slot only where the new path could share more than its
    /// first node with it (the tap adds a route for nearly every frame it reads).
    heads: Vec<u64>,
    victim: usize,
    /// Paths an `add` found already held, with no slot changed since (any change
    /// forgets them all): adding one again changes nothing and answers its length, so
    /// it skips the scan. A node forwards or overhears a flow's packets on one route
    /// after another, so the same path comes back while the slots stay as they are.
    held: [Held; HELD_PATHS],
    next_held: usize,
}

/// Paths `Slots::held` remembers.
const HELD_PATHS: usize = 4;

/// A path `Slots::add` found already held (`len` 0: none).
#[derive(Copy, Clone, Debug)]
struct Held {
    len: usize,
    path: [u32; MAX_SR_LEN],
}

impl Held {
    const NONE: Held = Held {
        len: 0,
        path: [0; MAX_SR_LEN],
    };

    fn is(&self, path: &[u32]) -> bool {
        self.len == path.len() && self.len > 0 && self.path[..self.len] == *path
    }
}

/// `Slots::heads` of a path with fewer than two nodes.
const SHORT: u64 = u64::MAX;

/// A path's first two nodes as one word, `SHORT` if it has fewer (node numbers are
/// below `u32::MAX`, so no path of two nodes or more gives `SHORT`).
#[inline(always)]
fn head(path: &[u32]) -> u64 {
    match path {
        [a, b, ..] => u64::from(*a) << 32 | u64::from(*b),
        _ => SHORT,
    }
}

impl Slots {
    fn new(size: usize) -> Slots {
        Slots {
            paths: vec![Vec::new(); size],
            heads: vec![SHORT; size],
            victim: 0,
            held: [Held::NONE; HELD_PATHS],
            next_held: 0,
        }
    }

    /// Whether `path` is one `held` remembers (an `add` of it changes nothing).
    fn holds(&self, path: &[u32]) -> bool {
        self.held.iter().any(|k| k.is(path))
    }

    /// Remembers `path`, which an `add` found already held (a longer one than a route
    /// can be is not remembered).
    fn remember(&mut self, path: &[u32]) {
        if path.is_empty() || path.len() > MAX_SR_LEN {
            return;
        }
        let k = &mut self.held[self.next_held];
        k.len = path.len();
        k.path[..path.len()].copy_from_slice(path);
        self.next_held = (self.next_held + 1) % HELD_PATHS;
    }

    /// A slot changed: no remembered path is known to be held unchanged any more.
    fn forget_held(&mut self) {
        for k in &mut self.held {
            k.len = 0;
        }
    }

    /// `Cache::addRoute`: extends the first path the new one continues (an empty slot
    /// counts), or keeps the first path that already contains it as a prefix, or
    /// evicts a victim. Returns the common prefix length with the path it joined.
    fn add(&mut self, path: &[u32]) -> usize {
        if self.holds(path) {
            return path.len();
        }
        let h = head(path);
        for (i, slot) in self.paths.iter_mut().enumerate() {
            // A slot and a path of two nodes or more with different heads share at
            // most one node: the path neither continues the slot nor is its prefix.
            let sh = self.heads[i];
            if sh != h && sh != SHORT && h != SHORT {
                continue;
            }
            let n = slot.iter().zip(path).take_while(|(a, b)| a == b).count();
            if n == slot.len() && n < path.len() {
                slot.extend_from_slice(&path[n..]);
                self.heads[i] = head(slot);
                self.forget_held();
                return n;
            }
            if n == path.len() {
                // Held already (the whole slot or a prefix of it): nothing changes.
                self.remember(path);
                return n;
            }
        }
        let v = self.pick_victim();
        self.paths[v] = path.to_vec();
        self.heads[v] = h;
        self.forget_held();
        0
    }

    /// `Cache::pickVictim`: the first empty slot, else the next in round robin.
    fn pick_victim(&mut self) -> usize {
        if let Some(i) = self.paths.iter().position(Vec::is_empty) {
            return i;
        }
        let v = self.victim;
        self.victim = (self.victim + 1) % self.paths.len();
        v
    }

    /// `Cache::noticeDeadLink`: every path using `from -> to` is cut before the link
    /// (dropped whole when the link is its first).
    fn dead_link(&mut self, from: u32, to: u32) -> u64 {
        let mut cut = 0;
        for (p, h) in self.paths.iter_mut().zip(&mut self.heads) {
            if let Some(n) = p.windows(2).position(|w| w[0] == from && w[1] == to) {
                if n == 0 {
                    p.clear();
                } else {
                    p.truncate(n + 1);
                }
                *h = head(p);
                cut += 1;
            }
        }
        if cut > 0 {
            self.forget_held();
        }
        cut
    }

    /// Empties slot `i`, returning its path.
    fn take(&mut self, i: usize) -> Vec<u32> {
        self.forget_held();
        self.heads[i] = SHORT;
        std::mem::take(&mut self.paths[i])
    }

    /// `Cache::searchRoute` from slot `start`: the first slot holding `dst`, with the
    /// hop count to it.
    fn search(&self, dst: u32, start: usize) -> Option<(usize, usize)> {
        (start..self.paths.len())
            .find_map(|i| self.paths[i].iter().position(|&a| a == dst).map(|n| (i, n)))
    }

    pub(super) fn paths(&self) -> impl Iterator<Item = &[u32]> {
        self.paths
            .iter()
            .filter(|p| !p.is_empty())
            .map(Vec::as_slice)
    }
}

/// The cache of one DSR agent (`MobiCache`).
#[derive(Clone, Debug)]
pub struct RouteCache {
    me: u32,
    pub(super) primary: Slots,
    pub(super) secondary: Slots,
}

impl RouteCache {
    pub fn new(me: u32, primary: usize, secondary: usize) -> RouteCache {
        RouteCache {
            me,
            primary: Slots::new(primary),
            secondary: Slots::new(secondary),
        }
    }

    /// `MobiCache::addRoute`: a route starting at this node into the primary cache
    /// (others are refused, as `pre_addRoute` refuses them).
    pub fn add_route(&mut self, route: &[u32]) {
        if route.len() < 2 || route[0] != self.me {
            return;
        }
        self.primary.add(route);
    }

    /// `MobiCache::noticeRouteUsed`: a source route this node forwarded or overheard,
    /// `index` the position of the node it was sent to. The part from this node on
    /// goes into the secondary cache; a route this node is not on becomes "this node,
    /// then the transmitter (at `index - 1`), then the rest" (`cache_use_overheard_routes`),
    /// except a route request's (`index` 0).
    pub fn notice_route_used(&mut self, route: &[u32], index: usize) {
        if route.len() < 2 || index > route.len() {
            return;
        }
        match route.iter().position(|&a| a == self.me) {
            Some(c) if c == route.len() - 1 => {}
            Some(c) => {
                self.secondary.add(&route[c..]);
            }
            None => {
                if index == 0 {
                    return;
                }
                // On the stack: the tap does this for nearly every frame it reads.
                let mut stub = [0u32; MAX_SR_LEN];
                stub[0] = self.me;
                let rest = &route[index - 1..];
                let n = rest.len().min(MAX_SR_LEN - 1);
                stub[1..=n].copy_from_slice(&rest[..n]);
                self.secondary.add(&stub[..=n]);
            }
        }
    }

    /// `MobiCache::noticeDeadLink` on both caches; returns the paths cut.
    pub fn notice_dead_link(&mut self, from: u32, to: u32) -> u64 {
        self.primary.dead_link(from, to) + self.secondary.dead_link(from, to)
    }

    /// `MobiCache::findRoute`: the shortest cached route to `dst` (primary first on
    /// ties, then the lowest slot). With `for_me`, a route found in the secondary cache
    /// moves to the primary one.
    pub fn find_route(&mut self, dst: u32, for_me: bool) -> Option<Vec<u32>> {
        // The best so far as (hops, in the secondary cache, slot): only the route
        // returned is copied, once.
        let mut best: Option<(usize, bool, usize)> = None;
        for (secondary, slots) in [(false, &self.primary), (true, &self.secondary)] {
            let mut start = 0;
            while let Some((i, n)) = slots.search(dst, start) {
                if best.is_none_or(|(len, _, _)| n < len) {
                    best = Some((n, secondary, i));
                }
                start = i + 1;
            }
        }
        let (n, secondary, i) = best?;
        if secondary && for_me {
            let mut path = self.secondary.take(i);
            self.primary.add(&path);
            path.truncate(n + 1);
            return Some(path);
        }
        let slots = if secondary {
            &self.secondary
        } else {
            &self.primary
        };
        Some(slots.paths[i][..=n].to_vec())
    }

    /// Every cached path, primary first (for tests and counters).
    pub fn routes(&self) -> impl Iterator<Item = &[u32]> {
        self.primary.paths().chain(self.secondary.paths())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RngStream;

    /// `Cache::addRoute` as ns-2.35 writes it, every slot compared in turn: the oracle
    /// for `Slots::add`, which skips slots by their first two nodes and answers a path
    /// it found held, with no slot changed since, without a scan.
    fn add_every_slot(paths: &mut [Vec<u32>], victim: &mut usize, path: &[u32]) -> usize {
        for slot in paths.iter_mut() {
            let n = slot.iter().zip(path).take_while(|(a, b)| a == b).count();
            if n == slot.len() {
                slot.extend_from_slice(&path[n..]);
                return n;
            }
            if n == path.len() {
                return n;
            }
        }
        let v = match paths.iter().position(Vec::is_empty) {
            Some(i) => i,
            None => {
                let v = *victim;
                *victim = (v + 1) % paths.len();
                v
            }
        };
        paths[v] = path.to_vec();
        0
    }

    #[test]
    fn adding_by_heads_keeps_every_slot_as_comparing_each() {
        let mut rng = RngStream::new(7, "dsr-cache-heads");
        let mut pick = |n: u32| (rng.uniform() * f64::from(n)) as u32;
        let mut answered_held = 0;
        for _ in 0..20 {
            let mut s = Slots::new(8);
            let (mut paths, mut victim) = (vec![Vec::new(); 8], 0);
            for _ in 0..400 {
                // Paths from node 0 over a few nodes, so that they share heads often.
                let len = 1 + pick(6) as usize;
                let mut path = vec![0];
                path.extend((1..len).map(|_| 1 + pick(4)));
                match pick(10) {
                    0 => {
                        let (a, b) = (pick(5), pick(5));
                        s.dead_link(a, b);
                        for p in &mut paths {
                            if let Some(n) = p.windows(2).position(|w| w[0] == a && w[1] == b) {
                                p.truncate(if n == 0 { 0 } else { n + 1 });
                            }
                        }
                    }
                    1 => {
                        let i = pick(8) as usize;
                        assert_eq!(s.take(i), std::mem::take(&mut paths[i]));
                    }
                    _ => {
                        let was_held = s.holds(&path);
                        let n = s.add(&path);
                        assert_eq!(n, add_every_slot(&mut paths, &mut victim, &path));
                        // A path found held is remembered; one remembered skips the scan.
                        if n == path.len() {
                            assert!(s.holds(&path));
                        }
                        answered_held += usize::from(was_held);
                    }
                }
                assert_eq!(s.paths, paths);
                assert_eq!(s.victim, victim);
                for (p, &h) in s.paths.iter().zip(&s.heads) {
                    assert_eq!(h, head(p));
                }
            }
        }
        // The remembered paths answered adds, checked against the scan of every slot.
        assert!(
            answered_held > 100,
            "{answered_held} adds answered by held paths"
        );
    }
}
