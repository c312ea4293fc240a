//! The animation trace (`--trace anim`, `DIR/anim.jsonl`), which `sctplab animate` turns
//! into a page that plays the run (docs/animate.md has the format).
//!
//! JSON Lines: a header object first (format name, version, nodes, links, flows, the
//! radio's range, the budgets below), then one JSON array per record, its first element
//! naming it. Times are integer microseconds. The file stays bounded however long the
//! run: per bin of `BIN` of simulated time at most `HOPS_PER_BIN` packet hops and
//! `DROPS_PER_BIN` drops are written one by one; the rest of the bin is written as
//! counts per hop (or per node and reason) when the bin closes, so no packet goes
//! uncounted, only its exact timing.

use crate::sim::{SimDuration, SimTime};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

/// The file's name in the run folder.
pub const FILE_NAME: &str = "anim.jsonl";
/// The header's `format` value.
pub const FORMAT: &str = "sctplab-anim";
/// The header's `version`: a reader refuses any other.
pub const VERSION: u32 = 1;
/// The decimation bin.
pub const BIN: SimDuration = SimDuration::from_millis(100);
/// Packet hops written one by one per bin (1,000 a second of simulated time).
pub const HOPS_PER_BIN: u32 = 100;
/// Drops written one by one per bin.
pub const DROPS_PER_BIN: u32 = 50;
/// Route changes written one by one per bin.
pub const ROUTES_PER_BIN: u32 = 50;
/// Routing-table changes written one by one per bin: a route request flooding a
/// 50-node network leaves a reverse route at each node, so one flood fits in a bin.
pub const TABLES_PER_BIN: u32 = 100;
/// The shortest time between two flow samples (throughput and cwnd).
pub const MIN_SAMPLE: SimDuration = SimDuration::from_millis(100);

/// What a packet is, as the page colours it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HopKind {
    Data,
    Ack,
    Control,
    Routing,
    Arp,
}

impl HopKind {
    fn code(self) -> &'static str {
        match self {
            HopKind::Data => "d",
            HopKind::Ack => "a",
            HopKind::Control => "c",
            HopKind::Routing => "r",
            HopKind::Arp => "p",
        }
    }
}

/// One transmission over one hop: from `from` to `to` (a node number, or -1 for a
/// wireless broadcast), leaving at `t` and gone (arrived, or off the air) at `t + dur`.
#[derive(Copy, Clone, Debug)]
pub struct Hop {
    pub t: SimTime,
    pub dur: SimDuration,
    pub from: u32,
    pub to: i64,
    /// Flow number, -1 for none (routing, ARP).
    pub flow: i64,
    pub kind: HopKind,
}

pub struct AnimTrace<W: Write> {
    out: W,
    /// The bin the records written last fell in.
    bin: u64,
    hops_in_bin: u32,
    drops_in_bin: u32,
    /// Hops and drops past the budget in the current bin; ordered maps, so the counts
    /// come out in the same order every run.
    hops_over: BTreeMap<(u32, i64), u64>,
    drops_over: BTreeMap<(u32, &'static str), u64>,
    routes_in_bin: u32,
    routes_over: u64,
    tables_in_bin: u32,
    /// Routing-table changes past the budget in the current bin, per node.
    tables_over: BTreeMap<u32, u64>,
    /// Per (node, destination node), the next-hop node the node last sent a flow's packet
    /// to: a route change is a packet that goes elsewhere.
    next_hops: HashMap<(u32, u32), u32>,
    /// Bytes of data packets delivered to each flow's receiver since the last sample.
    delivered: Vec<u64>,
    /// When the last sample was taken, and when the next one is due.
    last_sample: SimTime,
    next_sample: SimTime,
    sample_every: SimDuration,
    line: String,
}

fn us(t: SimTime) -> u64 {
    t.as_nanos() / 1_000
}

impl<W: Write> AnimTrace<W> {
    /// Writes the header line (`header` is the object without `format` and `version`,
    /// which are added here).
    pub fn new(
        mut out: W,
        mut header: serde_json::Map<String, serde_json::Value>,
        flows: usize,
        sample_every: SimDuration,
    ) -> io::Result<Self> {
        header.insert("format".into(), FORMAT.into());
        header.insert("version".into(), VERSION.into());
        header.insert("time_unit".into(), "us".into());
        header.insert("bin_us".into(), (BIN.as_nanos() / 1_000).into());
        header.insert("hops_per_bin".into(), HOPS_PER_BIN.into());
        header.insert("drops_per_bin".into(), DROPS_PER_BIN.into());
        header.insert("routes_per_bin".into(), ROUTES_PER_BIN.into());
        header.insert("tables_per_bin".into(), TABLES_PER_BIN.into());
        header.insert("sample_us".into(), (sample_every.as_nanos() / 1_000).into());
        serde_json::to_writer(&mut out, &header)?;
        out.write_all(b"\n")?;
        Ok(AnimTrace {
            out,
            bin: 0,
            hops_in_bin: 0,
            drops_in_bin: 0,
            hops_over: BTreeMap::new(),
            drops_over: BTreeMap::new(),
            routes_in_bin: 0,
            routes_over: 0,
            tables_in_bin: 0,
            tables_over: BTreeMap::new(),
            next_hops: HashMap::new(),
            delivered: vec![0; flows],
            last_sample: SimTime::ZERO,
            next_sample: SimTime::ZERO,
            sample_every,
            line: String::with_capacity(128),
        })
    }

    /// A node's movement leg: from `from` at `start` towards `to` at `speed` m/s (a
    /// node that stays put has one leg with speed 0).
    pub fn leg(
        &mut self,
        node: u32,
        start: SimTime,
        from: (f64, f64),
        to: (f64, f64),
        speed: f64,
    ) -> io::Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        let _ = writeln!(
            self.line,
            "[\"leg\",{node},{},{},{},{},{},{}]",
            us(start),
            num(from.0),
            num(from.1),
            num(to.0),
            num(to.1),
            num(speed)
        );
        self.out.write_all(self.line.as_bytes())
    }

    /// Closes the bins before the one holding `t`: their counts past the budget.
    fn enter_bin(&mut self, t: SimTime) -> io::Result<()> {
        let bin = t.as_nanos() / BIN.as_nanos();
        if bin == self.bin {
            return Ok(());
        }
        self.close_bin()?;
        self.bin = bin;
        Ok(())
    }

    fn close_bin(&mut self) -> io::Result<()> {
        use std::fmt::Write as _;
        let at = self.bin * (BIN.as_nanos() / 1_000);
        for ((from, to), n) in std::mem::take(&mut self.hops_over) {
            self.line.clear();
            let _ = writeln!(self.line, "[\"hops\",{at},{from},{to},{n}]");
            self.out.write_all(self.line.as_bytes())?;
        }
        for ((node, why), n) in std::mem::take(&mut self.drops_over) {
            self.line.clear();
            let _ = writeln!(self.line, "[\"drops\",{at},{node},\"{why}\",{n}]");
            self.out.write_all(self.line.as_bytes())?;
        }
        if self.routes_over > 0 {
            self.line.clear();
            let _ = writeln!(self.line, "[\"routes\",{at},{}]", self.routes_over);
            self.out.write_all(self.line.as_bytes())?;
        }
        for (node, n) in std::mem::take(&mut self.tables_over) {
            self.line.clear();
            let _ = writeln!(self.line, "[\"tables\",{at},{node},{n}]");
            self.out.write_all(self.line.as_bytes())?;
        }
        self.hops_in_bin = 0;
        self.drops_in_bin = 0;
        self.routes_in_bin = 0;
        self.routes_over = 0;
        self.tables_in_bin = 0;
        Ok(())
    }

    pub fn hop(&mut self, h: &Hop) -> io::Result<()> {
        use std::fmt::Write as _;
        self.enter_bin(h.t)?;
        if self.hops_in_bin >= HOPS_PER_BIN {
            *self.hops_over.entry((h.from, h.to)).or_insert(0) += 1;
            return Ok(());
        }
        self.hops_in_bin += 1;
        self.line.clear();
        let _ = writeln!(
            self.line,
            "[\"hop\",{},{},{},{},{},\"{}\"]",
            us(h.t),
            (h.dur.as_nanos() / 1_000).max(1),
            h.from,
            h.to,
            h.flow,
            h.kind.code()
        );
        self.out.write_all(self.line.as_bytes())
    }

    /// A packet dropped at `node`; `why` is one of a fixed set of reasons (ASCII words,
    /// written as they are).
    pub fn drop(&mut self, t: SimTime, node: u32, flow: i64, why: &'static str) -> io::Result<()> {
        use std::fmt::Write as _;
        self.enter_bin(t)?;
        if self.drops_in_bin >= DROPS_PER_BIN {
            *self.drops_over.entry((node, why)).or_insert(0) += 1;
            return Ok(());
        }
        self.drops_in_bin += 1;
        self.line.clear();
        let _ = writeln!(self.line, "[\"drop\",{},{node},{flow},\"{why}\"]", us(t));
        self.out.write_all(self.line.as_bytes())
    }

    /// Link number `link` (the header's order) goes down or comes up.
    pub fn link_state(&mut self, t: SimTime, link: usize, up: bool) -> io::Result<()> {
        writeln!(
            self.out,
            "[\"link\",{},{link},{}]",
            us(t),
            if up { "\"up\"" } else { "\"down\"" }
        )
    }

    /// `node` hands a packet for `dst` to `next`: a `route` record when that is not where
    /// its last one for `dst` went (the first one included).
    pub fn next_hop(&mut self, t: SimTime, node: u32, dst: u32, next: u32) -> io::Result<()> {
        use std::fmt::Write as _;
        if self.next_hops.insert((node, dst), next) == Some(next) {
            return Ok(());
        }
        self.enter_bin(t)?;
        if self.routes_in_bin >= ROUTES_PER_BIN {
            self.routes_over += 1;
            return Ok(());
        }
        self.routes_in_bin += 1;
        self.line.clear();
        let _ = writeln!(self.line, "[\"route\",{},{node},{dst},{next}]", us(t));
        self.out.write_all(self.line.as_bytes())
    }

    /// `node`'s routing agent changed its route to node `dst`: now through node `next`
    /// in `hops` hops, or (`None`) no usable route any more.
    pub fn table(
        &mut self,
        t: SimTime,
        node: u32,
        dst: u32,
        route: Option<(u32, u16)>,
    ) -> io::Result<()> {
        use std::fmt::Write as _;
        self.enter_bin(t)?;
        if self.tables_in_bin >= TABLES_PER_BIN {
            *self.tables_over.entry(node).or_insert(0) += 1;
            return Ok(());
        }
        self.tables_in_bin += 1;
        let (next, hops) = route.map_or((-1, -1), |(n, h)| (i64::from(n), i64::from(h)));
        self.line.clear();
        let _ = writeln!(
            self.line,
            "[\"table\",{},{node},{dst},{next},{hops}]",
            us(t)
        );
        self.out.write_all(self.line.as_bytes())
    }

    /// A data packet of `flow` reached its receiver.
    #[inline]
    pub fn delivered(&mut self, flow: usize, bytes: u32) {
        if let Some(d) = self.delivered.get_mut(flow) {
            *d += u64::from(bytes);
        }
    }

    /// Whether a flow sample is due at `now`.
    #[inline]
    pub fn sample_due(&self, now: SimTime) -> bool {
        now >= self.next_sample
    }

    /// One sample per flow: the bits per second delivered since the last sample, and the
    /// sender's cwnd (`None`: the flow has none, e.g. CBR).
    pub fn sample(&mut self, now: SimTime, cwnd: &[Option<f64>]) -> io::Result<()> {
        use std::fmt::Write as _;
        self.enter_bin(now)?;
        let span = now.saturating_since(self.last_sample).as_secs_f64();
        for (i, c) in cwnd.iter().enumerate() {
            let bytes = std::mem::take(&mut self.delivered[i]);
            let rate = if span > 0.0 {
                bytes as f64 * 8.0 / span
            } else {
                0.0
            };
            self.line.clear();
            let _ = writeln!(
                self.line,
                "[\"s\",{},{i},{},{}]",
                us(now),
                c.map_or("null".into(), num),
                num(rate)
            );
            self.out.write_all(self.line.as_bytes())?;
        }
        self.last_sample = now;
        self.next_sample = now + self.sample_every;
        Ok(())
    }

    /// Where satellites `first_node`.. are at `t` (a check instant): their sub-satellite
    /// points, latitude and longitude in degrees, two decimals (about a kilometre).
    pub fn sat_positions(
        &mut self,
        t: SimTime,
        first_node: u32,
        lat_lon: &[(f64, f64)],
    ) -> io::Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        let _ = write!(self.line, "[\"satpos\",{},{first_node},[", us(t));
        for (i, &(lat, lon)) in lat_lon.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let _ = write!(self.line, "{sep}{},{}", num(lat), num(lon));
        }
        self.line.push_str("]]\n");
        self.out.write_all(self.line.as_bytes())
    }

    /// Ground station `station` is attached to satellite node `sat` from `t` on (-1:
    /// to none, no satellite in sight): a handover, or the first attachment.
    pub fn attach(&mut self, t: SimTime, station: u32, sat: i64) -> io::Result<()> {
        writeln!(self.out, "[\"attach\",{},{station},{sat}]", us(t))
    }

    /// The last line: when the run ended. Closes the open bin first.
    pub fn end(&mut self, t: SimTime) -> io::Result<()> {
        self.close_bin()?;
        writeln!(self.out, "[\"end\",{}]", us(t))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A number with at most two decimals (centimetres, m/s, bits per second), trailing zeros
/// dropped; JSON has no NaN or infinity, so those become `null`.
fn num(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace() -> AnimTrace<Vec<u8>> {
        AnimTrace::new(Vec::new(), serde_json::Map::new(), 1, MIN_SAMPLE).expect("header")
    }

    fn lines(t: AnimTrace<Vec<u8>>) -> Vec<serde_json::Value> {
        String::from_utf8(t.out)
            .expect("utf-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect()
    }

    fn hop(t_us: u64) -> Hop {
        Hop {
            t: SimTime::from_nanos(t_us * 1_000),
            dur: SimDuration::from_micros(250),
            from: 0,
            to: 1,
            flow: 0,
            kind: HopKind::Data,
        }
    }

    #[test]
    fn header_names_format_and_version() {
        let l = lines(trace());
        assert_eq!(l[0]["format"], FORMAT);
        assert_eq!(l[0]["version"], VERSION);
        assert_eq!(l[0]["bin_us"], 100_000);
    }

    #[test]
    fn hops_past_the_budget_are_counted_per_bin() {
        let mut t = trace();
        // 150 hops in the first bin, 3 in the next: 100 + 3 written, 50 counted.
        for i in 0..150 {
            t.hop(&hop(i * 10)).expect("hop");
        }
        for i in 0..3 {
            t.hop(&hop(100_000 + i)).expect("hop");
        }
        t.end(SimTime::from_nanos(200_000_000)).expect("end");
        let l = lines(t);
        let single = l.iter().filter(|v| v[0] == "hop").count();
        let counted: Vec<_> = l.iter().filter(|v| v[0] == "hops").collect();
        assert_eq!(single, 103);
        assert_eq!(counted.len(), 1);
        assert_eq!(counted[0][1], 0);
        assert_eq!(counted[0][4], 50);
        assert_eq!(l.last().expect("end")[0], "end");
    }

    #[test]
    fn samples_are_rates_over_the_interval() {
        let mut t = trace();
        // 1,250 bytes in 0.1 s: 100 kb/s.
        t.delivered(0, 1_250);
        let at = SimTime::from_nanos(100_000_000);
        t.sample(at, &[Some(4.0)]).expect("sample");
        let l = lines(t);
        assert_eq!(l[1], serde_json::json!(["s", 100_000, 0, 4, 100_000]));
    }

    #[test]
    fn a_route_record_is_a_change_of_next_hop() {
        let mut t = trace();
        let at = |ms: u64| SimTime::from_nanos(ms * 1_000_000);
        t.next_hop(at(1), 3, 9, 4).expect("route");
        t.next_hop(at(2), 3, 9, 4).expect("route");
        t.next_hop(at(3), 3, 9, 5).expect("route");
        t.next_hop(at(4), 3, 8, 5).expect("route");
        let l = lines(t);
        let routes: Vec<_> = l.iter().filter(|v| v[0] == "route").collect();
        assert_eq!(
            routes,
            [
                &serde_json::json!(["route", 1_000, 3, 9, 4]),
                &serde_json::json!(["route", 3_000, 3, 9, 5]),
                &serde_json::json!(["route", 4_000, 3, 8, 5]),
            ]
        );
    }

    #[test]
    fn table_changes_past_the_budget_are_counted_per_node() {
        let mut t = trace();
        let at = SimTime::from_nanos(5_000_000);
        t.table(at, 2, 0, Some((1, 2))).expect("table");
        t.table(at, 2, 0, None).expect("table");
        // The rest of the bin's budget, then 3 more at node 4 and 2 at node 1.
        for _ in 2..TABLES_PER_BIN {
            t.table(at, 3, 0, Some((1, 1))).expect("table");
        }
        for node in [4, 1, 4, 4, 1] {
            t.table(at, node, 0, Some((1, 1))).expect("table");
        }
        t.end(SimTime::from_nanos(200_000_000)).expect("end");
        let l = lines(t);
        assert_eq!(l[1], serde_json::json!(["table", 5_000, 2, 0, 1, 2]));
        assert_eq!(l[2], serde_json::json!(["table", 5_000, 2, 0, -1, -1]));
        let single = l.iter().filter(|v| v[0] == "table").count();
        assert_eq!(single, TABLES_PER_BIN as usize);
        let counted: Vec<_> = l.iter().filter(|v| v[0] == "tables").collect();
        assert_eq!(
            counted,
            [
                &serde_json::json!(["tables", 0, 1, 2]),
                &serde_json::json!(["tables", 0, 4, 3]),
            ]
        );
    }

    #[test]
    fn satellite_positions_are_one_record_per_instant() {
        let mut t = trace();
        let at = SimTime::from_nanos(10_000_000_000);
        t.sat_positions(at, 7, &[(0.501, -0.04), (-53.0, 179.999)])
            .expect("satpos");
        t.attach(at, 3, 8).expect("attach");
        t.attach(at, 4, -1).expect("attach");
        let l = lines(t);
        assert_eq!(
            l[1],
            serde_json::json!(["satpos", 10_000_000, 7, [0.5, -0.04, -53, 180]])
        );
        assert_eq!(l[2], serde_json::json!(["attach", 10_000_000, 3, 8]));
        assert_eq!(l[3], serde_json::json!(["attach", 10_000_000, 4, -1]));
    }

    #[test]
    fn numbers_keep_two_decimals() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.255), "1.25");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "null");
    }
}
