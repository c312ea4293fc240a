//! The stream schedulers of RFC 8260 sec. 3 (flow key `scheduler`, CONTRACTS.md
//! "Messages"): which stream's message is cut next. With DATA chunks a message's
//! fragments take consecutive TSNs (RFC 9260 sec. 6.9), so a scheduler chooses only
//! when a message is complete; what it chooses from is the first unsent message of
//! every stream that has one (a stream's messages keep their order).

/// `scheduler`: RFC 8260 sec. 3.1-3.6 by the contract's names.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Sec. 3.1: in submission order (the default; the only one before this slice).
    #[default]
    Fcfs,
    /// Sec. 3.2: one message of each stream with something to send in turn, in
    /// stream-number order.
    Rr,
    /// Sec. 3.3: round robin over streams per packet: a packet carries the chunks of
    /// one stream only, the next packet turns to the next stream.
    RrPacket,
    /// Sec. 3.4: the stream with the smallest `priority` first; streams of equal
    /// priority take turns as in `Rr`.
    Priority,
    /// Sec. 3.5: the stream that has had the fewest payload bytes cut so far.
    Fair,
    /// Sec. 3.6: as `Fair` with bytes divided by the stream's `weight`, so a stream
    /// of weight n gets n times the capacity of one of weight 1.
    Wfq,
}

impl Scheduler {
    /// The names the scenario key takes, in the contract's order.
    pub const NAMES: [&'static str; 6] = ["fcfs", "rr", "rr_packet", "priority", "fair", "wfq"];

    pub fn from_name(s: &str) -> Option<Scheduler> {
        Some(match s {
            "fcfs" => Scheduler::Fcfs,
            "rr" => Scheduler::Rr,
            "rr_packet" => Scheduler::RrPacket,
            "priority" => Scheduler::Priority,
            "fair" => Scheduler::Fair,
            "wfq" => Scheduler::Wfq,
            _ => return None,
        })
    }
}

/// One stream able to go next: its stream number and the index of its first unsent
/// message in the send buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) stream: u16,
    pub(crate) index: usize,
}

/// A scheduler's memory between choices.
#[derive(Clone, Debug)]
pub(crate) struct SchedState {
    pub(crate) kind: Scheduler,
    /// The stream chosen last (round robin starts after it; ties of the other
    /// schedulers are broken the same way).
    last: Option<u16>,
    /// `RrPacket`: the stream the packet being filled belongs to.
    packet_stream: Option<u16>,
    /// `Fair`/`Wfq`: per stream, payload bytes cut divided by its weight (a virtual
    /// time), and whether the stream had something to send at the previous choice.
    vt: Vec<f64>,
    active: Vec<bool>,
    /// Per stream: `priority` and `weight` of its source (0 and 1 without one).
    priority: Vec<i64>,
    weight: Vec<u32>,
}

impl SchedState {
    pub(crate) fn new(kind: Scheduler, priority: Vec<i64>, weight: Vec<u32>) -> Self {
        let n = priority.len();
        SchedState {
            kind,
            last: None,
            packet_stream: None,
            vt: vec![0.0; n],
            active: vec![false; n],
            priority,
            weight,
        }
    }

    /// A new packet is being filled (`RrPacket` turns to the next stream).
    pub(crate) fn packet_start(&mut self) {
        self.packet_stream = None;
    }

    /// The packet being filled carries a chunk of `stream` (a message continued
    /// from the previous packet pins the packet to its stream too).
    pub(crate) fn note_packet_stream(&mut self, stream: u16) {
        if self.packet_stream.is_none() {
            self.packet_stream = Some(stream);
        }
    }

    /// Rank of `stream` in the cycle that starts right after the last stream chosen.
    fn turn(&self, stream: u16) -> u32 {
        let n = self.priority.len().max(1) as u32;
        let first = self.last.map_or(0, |l| (u32::from(l) + 1) % n);
        (u32::from(stream) + n - first) % n
    }

    /// A stream's virtual time at this choice: one that had nothing to send at the
    /// previous choice rejoins no lower than the least of the streams that did (as
    /// a start-time fair queue does), so it cannot claim capacity it left unused.
    fn vt_at(&self, stream: u16, floor: Option<f64>) -> f64 {
        let s = usize::from(stream);
        match floor {
            Some(f) if !self.active[s] => self.vt[s].max(f),
            _ => self.vt[s],
        }
    }

    fn floor(&self, heads: &[Head]) -> Option<f64> {
        heads
            .iter()
            .map(|h| usize::from(h.stream))
            .filter(|&s| self.active[s])
            .map(|s| self.vt[s])
            .min_by(f64::total_cmp)
    }

    /// The head to cut next, from `heads` (in send-buffer order; not empty); None
    /// when `RrPacket`'s packet belongs to a stream without a head (the packet ends
    /// there). Pure: calling it again without a `started` in between gives the same
    /// answer.
    pub(crate) fn pick(&self, heads: &[Head]) -> Option<Head> {
        match self.kind {
            Scheduler::Fcfs => heads.first().copied(),
            Scheduler::Rr => heads.iter().copied().min_by_key(|h| self.turn(h.stream)),
            Scheduler::RrPacket => match self.packet_stream {
                Some(s) => heads.iter().copied().find(|h| h.stream == s),
                None => heads.iter().copied().min_by_key(|h| self.turn(h.stream)),
            },
            Scheduler::Priority => heads
                .iter()
                .copied()
                .min_by_key(|h| (self.priority[usize::from(h.stream)], self.turn(h.stream))),
            Scheduler::Fair | Scheduler::Wfq => {
                let floor = self.floor(heads);
                heads.iter().copied().min_by(|a, b| {
                    self.vt_at(a.stream, floor)
                        .total_cmp(&self.vt_at(b.stream, floor))
                        .then(self.turn(a.stream).cmp(&self.turn(b.stream)))
                })
            }
        }
    }

    /// The first chunk of `chosen`'s message is being cut: the choice is final.
    pub(crate) fn started(&mut self, chosen: u16, heads: &[Head]) {
        if matches!(self.kind, Scheduler::Fair | Scheduler::Wfq) {
            let floor = self.floor(heads);
            let lifted: Vec<(usize, f64)> = heads
                .iter()
                .map(|h| (usize::from(h.stream), self.vt_at(h.stream, floor)))
                .collect();
            self.active.iter_mut().for_each(|a| *a = false);
            for (s, v) in lifted {
                self.vt[s] = v;
                self.active[s] = true;
            }
        }
        self.last = Some(chosen);
        self.note_packet_stream(chosen);
    }

    /// `bytes` of `stream`'s payload were cut (`Fair`/`Wfq` count them).
    pub(crate) fn cut(&mut self, stream: u16, bytes: u64) {
        let s = usize::from(stream);
        let w = match self.kind {
            Scheduler::Wfq => f64::from(self.weight[s].max(1)),
            Scheduler::Fair => 1.0,
            _ => return,
        };
        self.vt[s] += bytes as f64 / w;
    }
}
