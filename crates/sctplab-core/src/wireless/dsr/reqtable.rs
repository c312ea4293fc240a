//! ns-2.35's DSR request table (dsr/requesttable.cc): a fixed number of entries, one
//! per node, replaced round robin. The same entry holds the last request number seen
//! from that node (to drop duplicate route requests) and this node's own discovery
//! state toward it (the request backoff of dsragent.cc `BackOffTest`).

/// Which kind of request went out last toward a destination (`LastType`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LastType {
    /// A non-propagating ("ring zero") request.
    Limit0,
    /// A propagating request.
    Unlimit,
}

/// One entry (`struct Entry`); times in seconds, as ns-2 keeps them.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub node: u32,
    /// The highest request number processed from this node (0: none).
    pub req_num: u32,
    /// When the last ring-zero request toward it went out (`last_arp`).
    pub last_arp: f64,
    pub outstanding: u32,
    pub last_rt_req: f64,
    pub last_type: LastType,
}

impl Entry {
    fn fresh(node: u32, req_num: u32, period: f64) -> Entry {
        Entry {
            node,
            req_num,
            last_arp: 0.0,
            outstanding: 0,
            // Long enough ago that the first request may go at once.
            last_rt_req: -(period + 1.0),
            last_type: LastType::Limit0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RequestTable {
    table: Vec<Option<Entry>>,
    ptr: usize,
    /// `rt_rq_period`, for a new entry's `last_rt_req`.
    period: f64,
}

impl RequestTable {
    pub fn new(size: usize, period: f64) -> RequestTable {
        RequestTable {
            table: vec![None; size],
            ptr: 0,
            period,
        }
    }

    fn find(&self, node: u32) -> Option<usize> {
        self.table
            .iter()
            .position(|e| e.as_ref().is_some_and(|e| e.node == node))
    }

    /// The last request number processed from `node` (0 if none).
    pub fn get(&self, node: u32) -> u32 {
        self.find(node)
            .and_then(|i| self.table[i].as_ref())
            .map_or(0, |e| e.req_num)
    }

    fn take_slot(&mut self, e: Entry) -> usize {
        let i = self.ptr;
        self.table[i] = Some(e);
        self.ptr = (self.ptr + 1) % self.table.len();
        i
    }

    /// `RequestTable::getEntry`: the entry for `node`, made (replacing the next slot
    /// round robin) if there is none.
    pub fn entry(&mut self, node: u32) -> &mut Entry {
        let i = match self.find(node) {
            Some(i) => i,
            None => self.take_slot(Entry::fresh(node, 0, self.period)),
        };
        self.table[i].as_mut().expect("slot just found or filled")
    }

    /// `RequestTable::insert`: records request `req_num` from `node` as processed.
    pub fn insert(&mut self, node: u32, req_num: u32) {
        match self.find(node) {
            Some(i) => {
                if let Some(e) = self.table[i].as_mut() {
                    e.req_num = req_num;
                }
            }
            None => {
                self.take_slot(Entry::fresh(node, req_num, self.period));
            }
        }
    }
}

/// dsragent.cc `BackOffTest`: may another request toward `e`'s node go out at `now`?
/// The wait doubles twice per request outstanding, `period * 4^outstanding`, capped at
/// `max_period`; a request that may go counts as outstanding.
pub fn backoff_test(e: &mut Entry, now: f64, period: f64, max_period: f64) -> bool {
    let next = (period * f64::from(1u32 << (e.outstanding * 2).min(30))).min(max_period);
    if next + e.last_rt_req > now {
        return false;
    }
    if e.outstanding < 15 {
        e.outstanding += 1;
    }
    e.last_rt_req = now;
    true
}
