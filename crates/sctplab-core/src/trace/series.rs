//! Sampled variables in long form (`time_s, entity, variable, value`), kept as columns so
//! Python receives them without per-row conversion and pyarrow writes the Parquet file.
//!
//! A run with a spill file (`TraceConfig::series_spill`, what `sctplab run --out` uses)
//! holds at most `SPILL_ROWS` rows in memory: every time that many have been sampled,
//! they go to the spill file as one chunk of columns, and the driver turns the chunks
//! into series.parquet's row groups after the run. Memory stays bounded however long the
//! series; what bounds it instead is the disk (`series_disk_limit`). A run without a
//! spill file hands every row back in memory and is capped at `MAX_IN_MEMORY_VALUES`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Variables `--series` accepts. Protocol endpoints report the ones they have; the
/// network reports `queue` (packets waiting in each link direction's queue, the packet
/// in transmission not counted, as ns-2's queue monitor counts). `rto`, `srtt`, `state`
/// and `errors` exist per SCTP destination only (entity `<flow>@<node>:<iface>`).
/// `queue_delay` is per link direction: the mean time the packets whose transmission
/// began since the previous sample waited in the queue, in seconds (0 if none began).
/// `path_delay` is per flow in a scenario with satellites: the one-way propagation delay
/// (s) of the route the sender's packets take at the sample.
pub const VARIABLES: &[&str] = &[
    "cwnd",
    "ssthresh",
    "flight",
    "rwnd",
    "a_rwnd",
    "pba",
    "pipe",
    "queue",
    "rto",
    "srtt",
    "state",
    "errors",
    "pacing_rate",
    "queue_delay",
    "path_delay",
];

/// Rows per spill chunk: pyarrow's default Parquet row-group length (1 Mi rows), so the
/// chunks become exactly the row groups `pq.write_table` makes of the whole table, and
/// series.parquet is the same file whether or not the run spilled.
pub const SPILL_ROWS: usize = 1 << 20;

/// Bytes of one row in a spill chunk: f64 time, u32 entity, u32 variable, f64 value.
pub const SPILL_ROW_BYTES: u64 = 24;

/// Disk a sampled row may need at once: its spill bytes plus as much again for its
/// Parquet copy written from them (Parquet stores less: dictionary-coded names).
const DISK_ROW_BYTES: u64 = 2 * SPILL_ROW_BYTES;

/// The most sampled values a run without a spill file holds (24 bytes each: 240 MB).
pub const MAX_IN_MEMORY_VALUES: u64 = 10_000_000;

#[derive(Default, Debug)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub entity: Vec<u32>,
    pub variable: Vec<u32>,
    pub value: Vec<f64>,
    pub entity_names: Vec<String>,
    pub variable_names: Vec<String>,
    /// Rows written to the spill file (whole chunks of `SPILL_ROWS`), before the rows
    /// above; 0 when nothing spilled.
    pub spilled_rows: u64,
    spill: Option<Spill>,
}

#[derive(Debug)]
struct Spill {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    /// Free bytes on the spill file's disk when the run started, if the driver said.
    disk_limit: Option<u64>,
    error: Option<io::Error>,
    scratch: Vec<u8>,
}

/// What `Series::after_sample` needs to say why a series is refused.
pub struct SampleCtx<'a> {
    /// Simulated time of this sample and the run's stop time, in ns.
    pub now_ns: u64,
    pub stop_ns: Option<u64>,
    pub interval_ns: u64,
    pub vars: &'a [String],
}

impl Series {
    /// A series that spills to `path` (created on the first chunk) and refuses to need
    /// more than `disk_limit` bytes of disk.
    pub fn spilling(path: PathBuf, disk_limit: Option<u64>) -> Series {
        Series {
            spill: Some(Spill {
                path,
                out: None,
                disk_limit,
                error: None,
                scratch: Vec::new(),
            }),
            ..Series::default()
        }
    }
    pub fn entity_id(&mut self, name: &str) -> u32 {
        intern(&mut self.entity_names, name)
    }
    pub fn variable_id(&mut self, name: &str) -> u32 {
        intern(&mut self.variable_names, name)
    }
    pub fn push(&mut self, time_s: f64, entity: u32, variable: u32, value: f64) {
        self.time_s.push(time_s);
        self.entity.push(entity);
        self.variable.push(variable);
        self.value.push(value);
    }
    /// Rows held in memory (those spilled not counted).
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
    /// Every row sampled so far, spilled or held.
    pub fn total_rows(&self) -> u64 {
        self.spilled_rows + self.len() as u64
    }

    /// After each sampling instant: spill whole chunks, and refuse a series that would
    /// not fit (in memory without a spill file, on disk with one), at its first sample
    /// when the run's duration says so, else when it gets there.
    pub fn after_sample(&mut self, ctx: &SampleCtx<'_>) -> Result<(), String> {
        let total = self.total_rows();
        let interval = ctx.interval_ns.max(1);
        let first = ctx.now_ns == 0;
        let projected = match ctx.stop_ns {
            Some(stop) if first => total.max(1).saturating_mul(stop / interval + 1),
            _ => total,
        };
        let vars = ctx.vars.join(",");
        let iv = ctx.interval_ns;
        let Some(spill) = &mut self.spill else {
            if projected <= MAX_IN_MEMORY_VALUES {
                return Ok(());
            }
            let m = MAX_IN_MEMORY_VALUES;
            return Err(match ctx.stop_ns {
                Some(stop) if first => format!(
                    "series.interval = {iv} ns with --series {vars}: {} s / {iv} ns samples \
                     of {total} values each is {projected} values, more than the {m} a run \
                     returns in memory; write them to a run folder (--out / out=), or use a \
                     longer series.interval or fewer --series variables",
                    stop as f64 / 1e9
                ),
                _ => format!(
                    "stopped at {:.3} s: --series {vars} every {iv} ns (series.interval) has \
                     reached {m} values, the most a run returns in memory; write them to a \
                     run folder (--out / out=), or use a longer series.interval or fewer \
                     --series variables",
                    ctx.now_ns as f64 / 1e9
                ),
            });
        };
        if let Some(limit) = spill.disk_limit {
            let need = projected.saturating_mul(DISK_ROW_BYTES);
            if need > limit {
                let gb = |b: u64| b as f64 / 1e9;
                let dir = spill.path.parent().unwrap_or(Path::new(".")).display();
                return Err(match ctx.stop_ns {
                    Some(stop) if first => format!(
                        "series.interval = {iv} ns with --series {vars}: {} s / {iv} ns samples \
                         of {total} values each is {projected} values, about {:.1} GB on disk \
                         while written, more than the {:.1} GB free in {dir}; use a longer \
                         series.interval or fewer --series variables",
                        stop as f64 / 1e9,
                        gb(need),
                        gb(limit)
                    ),
                    _ => format!(
                        "stopped at {:.3} s: --series {vars} every {iv} ns (series.interval) has \
                         reached {projected} values, about {:.1} GB on disk while written, more \
                         than the {:.1} GB free in {dir}; use a longer series.interval or fewer \
                         --series variables",
                        ctx.now_ns as f64 / 1e9,
                        gb(need),
                        gb(limit)
                    ),
                });
            }
        }
        while self.time_s.len() >= SPILL_ROWS {
            self.spill_chunk();
        }
        Ok(())
    }

    /// Writes the oldest `SPILL_ROWS` rows to the spill file and drops them from memory.
    /// An I/O error is kept for `finish` and the rows are dropped all the same (the run
    /// fails at its end; memory must not grow meanwhile).
    fn spill_chunk(&mut self) {
        let Some(spill) = &mut self.spill else {
            return;
        };
        let n = SPILL_ROWS;
        if spill.error.is_none() {
            let buf = &mut spill.scratch;
            buf.clear();
            buf.extend(self.time_s[..n].iter().flat_map(|x| x.to_le_bytes()));
            buf.extend(self.entity[..n].iter().flat_map(|x| x.to_le_bytes()));
            buf.extend(self.variable[..n].iter().flat_map(|x| x.to_le_bytes()));
            buf.extend(self.value[..n].iter().flat_map(|x| x.to_le_bytes()));
            let r = match &mut spill.out {
                Some(out) => out.write_all(buf),
                None => File::create(&spill.path).and_then(|f| {
                    let out = spill.out.insert(BufWriter::with_capacity(1 << 16, f));
                    out.write_all(buf)
                }),
            };
            if let Err(e) = r {
                spill.error = Some(e);
            }
        }
        self.time_s.drain(..n);
        self.entity.drain(..n);
        self.variable.drain(..n);
        self.value.drain(..n);
        self.spilled_rows += n as u64;
    }

    /// Flushes the spill file; the first I/O error of the run, with the file's path.
    pub fn finish(&mut self) -> Result<(), (PathBuf, io::Error)> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        let flushed = match &mut spill.out {
            Some(out) => out.flush(),
            None => Ok(()),
        };
        spill.out = None;
        match spill.error.take().map_or(flushed, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err((spill.path.clone(), e)),
        }
    }
}

fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            names.push(name.to_string());
            (names.len() - 1) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(now_ns: u64, stop_ns: Option<u64>, vars: &[String]) -> SampleCtx<'_> {
        SampleCtx {
            now_ns,
            stop_ns,
            interval_ns: 1_000_000,
            vars,
        }
    }

    #[test]
    fn spills_whole_chunks_and_keeps_the_rest() {
        let dir = std::env::temp_dir().join(format!("sctplab-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("series.spill");
        let vars = vec!["queue".to_string()];
        let mut s = Series::spilling(path.clone(), None);
        let e = s.entity_id("l");
        let v = s.variable_id("queue");
        // 2.5 chunks, one row per sample: after the run two whole chunks are on disk
        // (2 * SPILL_ROWS * 24 bytes) and half a chunk is in memory.
        let rows = 2 * SPILL_ROWS + SPILL_ROWS / 2;
        for i in 0..rows {
            s.push(i as f64, e, v, (i % 7) as f64);
            s.after_sample(&ctx(i as u64 + 1, None, &vars)).unwrap();
            assert!(s.len() < SPILL_ROWS);
        }
        s.finish().unwrap();
        assert_eq!(s.spilled_rows, 2 * SPILL_ROWS as u64);
        assert_eq!(s.len(), SPILL_ROWS / 2);
        assert_eq!(s.time_s[0], (2 * SPILL_ROWS) as f64);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, 2 * SPILL_ROWS as u64 * SPILL_ROW_BYTES);
        // Chunk 1 starts with its time column: row SPILL_ROWS's time first; its value
        // column is the last 8 * SPILL_ROWS bytes of the chunk.
        let c1 = &bytes[SPILL_ROWS * 24..];
        assert_eq!(
            f64::from_le_bytes(c1[..8].try_into().unwrap()),
            SPILL_ROWS as f64
        );
        let last = &c1[SPILL_ROWS * 24 - 8..];
        let want = ((2 * SPILL_ROWS - 1) % 7) as f64;
        assert_eq!(f64::from_le_bytes(last.try_into().unwrap()), want);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn limits_in_memory_and_on_disk() {
        let vars = vec!["cwnd".to_string(), "queue".to_string()];
        // In memory: 2 values per sample every 1 ms for 10,000 s is 2 * (10^7 + 1)
        // values, over the 10^7 cap, refused at the first sample.
        let mut s = Series::default();
        s.push(0.0, 0, 0, 1.0);
        s.push(0.0, 0, 1, 1.0);
        let err = s
            .after_sample(&ctx(0, Some(10_000_000_000_000), &vars))
            .unwrap_err();
        assert!(err.contains("20000002 values"), "{err}");
        assert!(err.contains("--out"), "{err}");
        // Spilling with 1 GB free: 2 * (10^7 + 1) values need 48 bytes each at most,
        // 0.96 GB: accepted; with 0.9 GB free refused naming the free space.
        let spill = std::env::temp_dir().join("never-written.spill");
        let mut s = Series::spilling(spill.clone(), Some(1_000_000_000));
        s.push(0.0, 0, 0, 1.0);
        s.push(0.0, 0, 1, 1.0);
        s.after_sample(&ctx(0, Some(10_000_000_000_000), &vars))
            .unwrap();
        let mut s = Series::spilling(spill, Some(900_000_000));
        s.push(0.0, 0, 0, 1.0);
        s.push(0.0, 0, 1, 1.0);
        let err = s
            .after_sample(&ctx(0, Some(10_000_000_000_000), &vars))
            .unwrap_err();
        assert!(
            err.contains("about 1.0 GB on disk") && err.contains("0.9 GB free"),
            "{err}"
        );
    }
}
