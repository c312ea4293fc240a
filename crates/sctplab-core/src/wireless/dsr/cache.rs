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
    victim: usize,
}

impl Slots {
    fn new(size: usize) -> Slots {
        Slots {
            paths: vec![Vec::new(); size],
            victim: 0,
        }
    }

    /// `Cache::addRoute`: extends the first path the new one continues (an empty slot
    /// counts), or keeps the first path that already contains it as a prefix, or
    /// evicts a victim. Returns the common prefix length with the path it joined.
    fn add(&mut self, path: &[u32]) -> usize {
        for slot in &mut self.paths {
            let n = slot.iter().zip(path).take_while(|(a, b)| a == b).count();
            if n == slot.len() {
                slot.extend_from_slice(&path[n..]);
                return n;
            }
            if n == path.len() {
                return n;
            }
        }
        let v = self.pick_victim();
        self.paths[v] = path.to_vec();
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
        for p in &mut self.paths {
            if let Some(n) = p.windows(2).position(|w| w[0] == from && w[1] == to) {
                if n == 0 {
                    p.clear();
                } else {
                    p.truncate(n + 1);
                }
                cut += 1;
            }
        }
        cut
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
        let stub: Vec<u32> = match route.iter().position(|&a| a == self.me) {
            Some(c) if c == route.len() - 1 => return,
            Some(c) => route[c..].to_vec(),
            None => {
                if index == 0 {
                    return;
                }
                let mut s = vec![self.me];
                s.extend(route[index - 1..].iter().take(MAX_SR_LEN - 1));
                s
            }
        };
        self.secondary.add(&stub);
    }

    /// `MobiCache::noticeDeadLink` on both caches; returns the paths cut.
    pub fn notice_dead_link(&mut self, from: u32, to: u32) -> u64 {
        self.primary.dead_link(from, to) + self.secondary.dead_link(from, to)
    }

    /// `MobiCache::findRoute`: the shortest cached route to `dst` (primary first on
    /// ties, then the lowest slot). With `for_me`, a route found in the secondary cache
    /// moves to the primary one.
    pub fn find_route(&mut self, dst: u32, for_me: bool) -> Option<Vec<u32>> {
        let mut best: Option<(usize, Vec<u32>)> = None;
        let mut start = 0;
        while let Some((i, n)) = self.primary.search(dst, start) {
            if best.as_ref().is_none_or(|(len, _)| n < *len) {
                best = Some((n, self.primary.paths[i].clone()));
            }
            start = i + 1;
        }
        let mut from_secondary = None;
        start = 0;
        while let Some((i, n)) = self.secondary.search(dst, start) {
            if best.as_ref().is_none_or(|(len, _)| n < *len) {
                best = Some((n, self.secondary.paths[i].clone()));
                from_secondary = Some(i);
            }
            start = i + 1;
        }
        if let (Some(i), true) = (from_secondary, for_me) {
            let path = std::mem::take(&mut self.secondary.paths[i]);
            self.primary.add(&path);
        }
        best.map(|(n, mut path)| {
            path.truncate(n + 1);
            path
        })
    }

    /// Every cached path, primary first (for tests and counters).
    pub fn routes(&self) -> impl Iterator<Item = &[u32]> {
        self.primary.paths().chain(self.secondary.paths())
    }
}
