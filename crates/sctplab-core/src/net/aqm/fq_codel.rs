//! FQ-CoDel (RFC 8290): packets hashed by their 5-tuple into `flows` queues, each run by
//! its own CoDel (RFC 8289), served by deficit round robin with a `quantum` of bytes,
//! new queues (sparse flows) before old ones (sec. 4).
//!
//! Overflow (sec. 4.1): when the hard limits are exceeded, the packet at the head of the
//! queue holding the most bytes is dropped (one packet at a time, until the limits hold;
//! Linux drops a batch). The hash is perturbed per link direction from the run's seed.

use super::codel::{self, CodelParams, CodelState};
use super::{Admit, DropCause, Entry, Fifo};
use crate::net::ids::PacketId;
use crate::net::packet::Packet;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    pub flows: u32,
    pub quantum: u32,
    pub codel: CodelParams,
}

impl Default for FqCodelParams {
    /// RFC 8290 sec. 4.1, 4.2, 5.1: 1024 queues, a quantum of 1514 bytes (an Ethernet
    /// frame), CoDel's 5 ms and 100 ms.
    fn default() -> Self {
        FqCodelParams {
            flows: 1024,
            quantum: 1514,
            codel: CodelParams::default(),
        }
    }
}

/// Which list a flow queue is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum List {
    #[default]
    None,
    New,
    Old,
}

#[derive(Clone, Debug, Default)]
pub struct FlowQueue {
    pub q: Fifo,
    pub deficit: i64,
    pub codel: CodelState,
    pub list: List,
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    pub params: FqCodelParams,
    pub queues: Vec<FlowQueue>,
    /// RFC 8290's new and old lists (queue indices, head first) as small contiguous
    /// rings. Lists threaded through the queues run 2 % fewer instructions but were no
    /// faster in user CPU (session 20, bench/RESULTS.md: the minimum of the rounds
    /// favoured the rings, the median the threaded lists).
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    perturb: u64,
    /// Boxed: 1.3 kB that only the classification touches.
    memo: Box<BucketMemo>,
}

/// The 5-tuple of an IPv4 packet in two words: addresses, then protocol and ports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FlowKey(u64, u64);

impl FlowKey {
    pub fn of(pkt: &Packet) -> FlowKey {
        let (sp, dp) = pkt.ports();
        let a = u64::from(u32::from_be_bytes(pkt.ip.src)) << 32
            | u64::from(u32::from_be_bytes(pkt.ip.dst));
        let b = u64::from(pkt.ip.protocol) << 32 | u64::from(sp) << 16 | u64::from(dp);
        FlowKey(a, b)
    }

    /// The 5-tuple mixed (SplitMix64's finaliser) into 64 bits.
    pub fn hash(self) -> u64 {
        mix(mix(self.0) ^ self.1)
    }

    /// Never a packet's key: the protocol and ports fill 40 bits of the second word.
    const NONE: FlowKey = FlowKey(u64::MAX, u64::MAX);
}

/// Slots of `BucketMemo`.
const MEMO_SLOTS: usize = 64;

/// The queues recent 5-tuples went to: a flow's packets all take the bucket its first
/// packet's hash gave, so the three mixes run once per flow (and again only when
/// another flow takes its slot), not once per packet. A cache, not a model change: the
/// bucket is the hash's.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BucketMemo {
    keys: [FlowKey; MEMO_SLOTS],
    buckets: [u32; MEMO_SLOTS],
}

impl Default for BucketMemo {
    fn default() -> Self {
        BucketMemo {
            keys: [FlowKey::NONE; MEMO_SLOTS],
            buckets: [0; MEMO_SLOTS],
        }
    }
}

impl BucketMemo {
    /// A slot from a cheap fold of the key (one multiplication; the mixes are what the
    /// memo saves): the top bits of the product, which every bit of the key reaches
    /// (20 flows whose two ports count up together take 16 slots).
    #[inline(always)]
    fn slot(k: FlowKey) -> usize {
        ((k.0 ^ k.1).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
    }
}

/// The 5-tuple hash of a packet (`FlowKey::hash`).
pub fn flow_hash(pkt: &Packet) -> u64 {
    FlowKey::of(pkt).hash()
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(params: FqCodelParams, perturb: u64) -> Self {
        FqCodel {
            queues: vec![FlowQueue::default(); params.flows as usize],
            params,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            perturb,
            memo: Box::default(),
        }
    }

    /// The queues on the new list, head first.
    pub fn new_list(&self) -> Vec<u32> {
        self.new_flows.iter().copied().collect()
    }

    /// The queues on the old list, head first.
    pub fn old_list(&self) -> Vec<u32> {
        self.old_flows.iter().copied().collect()
    }

    #[inline(always)]
    fn push_back(&mut self, to_new: bool, b: u32) {
        if to_new {
            self.new_flows.push_back(b);
        } else {
            self.old_flows.push_back(b);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The queue a packet of this hash goes to: the mixed hash scaled onto the queues
    /// by a multiply and a shift (as uniform as a remainder, without the division).
    pub fn bucket(&self, hash: u64) -> usize {
        let h = mix(hash ^ self.perturb);
        ((u128::from(h) * u128::from(self.params.flows)) >> 64) as usize
    }

    /// `bucket` of the key's hash, through the memo.
    #[inline]
    pub fn bucket_of(&mut self, k: FlowKey) -> usize {
        let slot = BucketMemo::slot(k);
        if self.memo.keys[slot] == k {
            return self.memo.buckets[slot] as usize;
        }
        let b = self.bucket(k.hash());
        self.memo.keys[slot] = k;
        self.memo.buckets[slot] = b as u32;
        b
    }

    /// RFC 8290 sec. 4.1: a packet joins its flow's queue; a queue that was on no list
    /// joins the new list with a full quantum of credit.
    #[inline]
    pub fn enqueue(&mut self, e: Entry, k: FlowKey) {
        let b = self.bucket_of(k);
        self.enqueue_at(b, e);
    }

    #[inline]
    pub fn enqueue_at(&mut self, b: usize, e: Entry) {
        let quantum = i64::from(self.params.quantum);
        let fq = &mut self.queues[b];
        fq.q.push(e);
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = quantum;
            self.push_back(true, b as u32);
        }
        self.len += 1;
        self.bytes += u64::from(e.size);
    }

    /// `enqueue`, `overflow` and `dequeue` at the same instant of a packet of `size`
    /// bytes that finds every flow queue empty and the link idle (`AqmQueue::pass_idle`;
    /// `full`: the hard limits refuse it), without storing it. Empty queues may still be
    /// on the lists (the scheduler drops them lazily, when a dequeue passes them), so the
    /// scheduler's walk is the same as `dequeue`'s: its queue is the only one holding a
    /// packet, which CoDel passes (sojourn 0).
    pub fn pass_idle(&mut self, size: u32, k: FlowKey, full: bool) -> Admit {
        let b = self.bucket_of(k);
        let quantum = i64::from(self.params.quantum);
        let fq = &mut self.queues[b];
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = quantum;
            self.push_back(true, b as u32);
        }
        if full {
            // `overflow` drops the head of the fattest queue: this packet, alone in its
            // queue (the queue stays on its list, empty).
            return Admit::Dropped(DropCause::Limit);
        }
        loop {
            let (h, from_new) = match self.new_flows.front() {
                Some(&h) => (h as usize, true),
                None => match self.old_flows.front() {
                    Some(&h) => (h as usize, false),
                    None => return Admit::Queued,
                },
            };
            let fq = &mut self.queues[h];
            if fq.deficit <= 0 {
                fq.deficit += quantum;
                fq.list = List::Old;
                self.pop_list(from_new);
                self.push_back(false, h as u32);
                continue;
            }
            fq.codel.pass_idle();
            if h == b {
                fq.deficit -= i64::from(size);
                return Admit::Queued;
            }
            self.leave_empty(h, from_new);
        }
    }

    /// The scheduler found queue `h` (at the head of the new list if `from_new`, else of
    /// the old list) empty: a new queue goes to the end of the old list (so a flow cannot
    /// stay "new" by emptying its queue); an old one leaves the lists until its next
    /// packet.
    #[inline(always)]
    fn leave_empty(&mut self, h: usize, from_new: bool) {
        self.queues[h].list = if from_new { List::Old } else { List::None };
        self.pop_list(from_new);
        if from_new {
            self.push_back(false, h as u32);
        }
    }

    /// Drops from the head of the fattest queue while more than `max_waiting` packets
    /// wait or the bytes reach `limit_bytes` (the drop-tail rule of `net/queue.rs`).
    #[inline]
    pub fn overflow(
        &mut self,
        max_waiting: u64,
        limit_bytes: Option<u64>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        if self.len as u64 > max_waiting || limit_bytes.is_some_and(|l| self.bytes >= l) {
            self.drop_fattest(max_waiting, limit_bytes, dropped);
        }
    }

    #[inline(never)]
    fn drop_fattest(
        &mut self,
        max_waiting: u64,
        limit_bytes: Option<u64>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        while self.len as u64 > max_waiting || limit_bytes.is_some_and(|l| self.bytes >= l) {
            let Some(fat) = (0..self.queues.len())
                .max_by_key(|&i| (self.queues[i].q.bytes, std::cmp::Reverse(i)))
            else {
                return;
            };
            let Some(e) = self.queues[fat].q.pop() else {
                return;
            };
            self.len -= 1;
            self.bytes -= u64::from(e.size);
            dropped.push((e.id, DropCause::Limit));
        }
    }

    /// RFC 8290 sec. 4.2: the scheduler.
    pub fn dequeue(
        &mut self,
        now: u64,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<(Entry, bool)> {
        let quantum = i64::from(self.params.quantum);
        loop {
            let (b, from_new) = match self.new_flows.front() {
                Some(&b) => (b as usize, true),
                None => (*self.old_flows.front()? as usize, false),
            };
            let fq = &mut self.queues[b];
            if fq.deficit <= 0 {
                // Out of credit: a quantum more, to the end of the old list.
                fq.deficit += quantum;
                fq.list = List::Old;
                self.pop_list(from_new);
                self.push_back(false, b as u32);
                continue;
            }
            if fq.q.is_empty() {
                // What CoDel's dequeue does with an empty queue, without the call.
                fq.codel.pass_idle();
                self.leave_empty(b, from_new);
                continue;
            }
            let before = (fq.q.len(), fq.q.bytes);
            let got = codel::dequeue(&mut fq.q, &mut fq.codel, &self.params.codel, now, dropped);
            let gone = before.0 - fq.q.len();
            self.len -= gone;
            self.bytes -= before.1 - fq.q.bytes;
            match got {
                Some((e, mark)) => {
                    fq.deficit -= i64::from(e.size);
                    return Some((e, mark));
                }
                // CoDel dropped every packet it held.
                None => self.leave_empty(b, from_new),
            }
        }
    }

    /// Takes the head off the new list (`from_new`) or the old one.
    #[inline(always)]
    fn pop_list(&mut self, from_new: bool) {
        let h = if from_new {
            self.new_flows.pop_front()
        } else {
            self.old_flows.pop_front()
        };
        debug_assert!(h.is_some(), "popping an empty list");
    }

    /// Any waiting packet, outside the scheduler (a link going down).
    pub fn pop_any(&mut self) -> Option<Entry> {
        let fq = self.queues.iter_mut().find(|f| !f.q.is_empty())?;
        let e = fq.q.pop()?;
        self.len -= 1;
        self.bytes -= u64::from(e.size);
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(i: u32, size: u32) -> Entry {
        Entry {
            id: PacketId(i),
            size,
            enq_ns: 0,
            ect: false,
        }
    }

    fn fq() -> FqCodel {
        FqCodel::new(FqCodelParams::default(), 0)
    }

    /// A flow that arrives while another is backlogged is served first (new list), then
    /// the two alternate by quantum on the old list.
    #[test]
    fn new_flows_go_first_then_round_robin() {
        let mut f = fq();
        let mut dropped = Vec::new();
        // Flow A (queue 1): 4 packets of 1000 B.
        for i in 0..4 {
            f.enqueue_at(1, entry(i, 1000));
        }
        // A is new with 1514 credit: sends 0 (514 left) and 1 (-486 left).
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(0));
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(1));
        assert_eq!(f.queues[1].deficit, -486);
        // Flow B (queue 2) arrives: new, ahead of A.
        f.enqueue_at(2, entry(10, 1000));
        f.enqueue_at(2, entry(11, 1000));
        // Next: A is at the head of the new list with no credit: +1514 (1028), to the old
        // list; then B (new) sends.
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(10));
        assert_eq!(f.queues[1].list, List::Old);
        assert_eq!(f.queues[1].deficit, 1028);
        assert_eq!(f.new_list(), vec![2]);
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(11));
        // B's credit is 1514 - 2000 = -486: it moves to the old list behind A; A sends.
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(2));
        assert_eq!(f.old_list(), vec![1, 2]);
        assert_eq!(f.queues[2].deficit, 1028);
        // A (28 left) sends its last packet; its credit is spent: to the back, B next.
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(3));
        assert_eq!(f.queues[1].deficit, 28 - 1000);
        // Next: A's credit is spent, so it gets 1514 more (542) and goes behind B; B is
        // empty, so it leaves the lists (an old queue); then A is empty and leaves too.
        assert!(f.dequeue(0, &mut dropped).is_none());
        assert!(f.new_list().is_empty() && f.old_list().is_empty());
        assert_eq!(f.queues[2].list, List::None);
        assert_eq!(f.queues[1].list, List::None);
        assert!(f.is_empty());
    }

    /// A new queue found empty goes to the end of the old list, not off the lists.
    #[test]
    fn an_emptied_new_queue_moves_to_the_old_list() {
        let mut f = fq();
        let mut dropped = Vec::new();
        f.enqueue_at(5, entry(0, 100));
        assert_eq!(f.dequeue(0, &mut dropped).unwrap().0.id, PacketId(0));
        // Still on the new list (credit 1414) but empty: the next dequeue moves it to the
        // old list, then finds it empty there and removes it.
        assert!(f.dequeue(0, &mut dropped).is_none());
        assert_eq!(f.queues[5].list, List::None);
        // Its next packet makes it new again, with a fresh quantum.
        f.enqueue_at(5, entry(1, 100));
        assert_eq!((f.queues[5].list, f.queues[5].deficit), (List::New, 1514));
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue_head() {
        let mut f = fq();
        let mut dropped = Vec::new();
        f.enqueue_at(1, entry(0, 1000));
        f.enqueue_at(2, entry(1, 1500));
        f.enqueue_at(2, entry(2, 1500));
        f.enqueue_at(1, entry(3, 1000));
        f.overflow(3, None, &mut dropped);
        assert_eq!(dropped, vec![(PacketId(1), DropCause::Limit)]);
        assert_eq!(f.len(), 3);
        assert_eq!(f.bytes(), 3500);
    }

    #[test]
    fn the_hash_covers_the_five_tuple() {
        let mut p = Packet::default();
        p.ip.src = [10, 0, 0, 1];
        p.ip.dst = [10, 0, 0, 2];
        let h = flow_hash(&p);
        let mut q = p.clone();
        q.ip.dst = [10, 0, 0, 3];
        assert_ne!(h, flow_hash(&q));
        assert_eq!(h, flow_hash(&p.clone()));
    }

    /// The memo gives every packet the bucket its hash gives, whatever other flows took
    /// its slot meanwhile (2000 packets of 1001 5-tuples over 64 slots).
    #[test]
    fn the_memo_gives_the_hash_bucket() {
        let mut f = FqCodel::new(FqCodelParams::default(), 12_345);
        let mut p = Packet::default();
        for i in 0..2000u32 {
            let flow = (i * 7919) % 1001;
            p.ip.src = [10, 0, (flow % 7) as u8, (flow % 251) as u8];
            p.ip.dst = [10, 1, (flow / 251) as u8, (flow % 13) as u8];
            let k = FlowKey::of(&p);
            assert_eq!(f.bucket_of(k), f.bucket(k.hash()), "packet {i}");
        }
    }
}
