//! The traces of a fast run are those of the plain run (`traced.rs`): on random small
//! networks, pcap captures and trace.tr of both, in their canonical order (records and
//! lines of one time stamp sorted: world/trace_hold.rs), and summary.json of a fast
//! run (`events` included) the same with and without them.

use crate::sim::RngStream;
use crate::trace::TraceConfig;
use crate::world::Shortcuts;
use crate::world::trace_hold::canonical_lines;
use crate::world::wireless::tests::random_manet;
use std::path::{Path, PathBuf};

/// A run's summary.json and `events`, traced into `dir` if given.
fn run(text: &str, seed: u64, shortcuts: Shortcuts, dir: Option<&Path>) -> (String, u64) {
    let s = crate::load_toml(text, "<test>", "manet", &[]).expect("valid scenario");
    let mut trace = TraceConfig::default();
    if let Some(d) = dir {
        trace.out_dir = Some(d.to_path_buf());
        trace.pcap = true;
        trace.set_traces(&["ns2"]).expect("ns2 trace");
    }
    let opts = crate::RunOptions {
        seed,
        shortcuts,
        trace,
        ..Default::default()
    };
    let r = crate::run_scenario(&s, &opts).expect("run");
    (r.summary_json, r.events)
}

fn without_events(summary: &str) -> String {
    summary
        .lines()
        .filter(|l| !l.starts_with("  \"events\": "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A pcap file's records (time stamp and bytes), those of one time stamp sorted.
pub(crate) fn canonical_records(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).expect("pcap file");
    let mut records = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().expect("4 bytes"));
        let end = at + 16 + len as usize;
        records.push(bytes[at..end].to_vec());
        at = end;
    }
    assert_eq!(at, bytes.len(), "{}: a truncated record", path.display());
    let time = |r: &[u8]| {
        let field = |i: usize| u32::from_le_bytes(r[i..i + 4].try_into().expect("4 bytes"));
        (field(0), field(4))
    };
    assert!(
        records.windows(2).all(|w| time(&w[0]) <= time(&w[1])),
        "{}: records out of time order",
        path.display()
    );
    // In time order: sorting the whole list sorts each time stamp's records.
    records.sort_by(|a, b| (time(a), &a[8..]).cmp(&(time(b), &b[8..])));
    records
}

/// Compares the traces in two run folders (canonical order); returns how many pcap
/// records and trace lines they hold.
pub(crate) fn assert_same_traces(plain: &Path, fast: &Path, what: &str) -> (usize, usize) {
    let read = |d: &Path| std::fs::read_to_string(d.join("trace.tr")).expect("trace.tr");
    let (p, f) = (read(plain), read(fast));
    let (pl, fl) = (canonical_lines(&p), canonical_lines(&f));
    if pl != fl {
        let i = pl
            .iter()
            .zip(&fl)
            .position(|(a, b)| a != b)
            .unwrap_or(pl.len().min(fl.len()));
        panic!(
            "{what}: trace.tr differs ({} against {} lines), first at canonical line {}: \
             plain {:?}, fast {:?}",
            pl.len(),
            fl.len(),
            i + 1,
            pl.get(i),
            fl.get(i)
        );
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(plain.join("pcap"))
        .expect("pcap folder")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    let mut records = 0;
    for path in names {
        let name = path.file_name().expect("file name");
        let (a, b) = (
            canonical_records(&path),
            canonical_records(&fast.join("pcap").join(name)),
        );
        assert!(
            a == b,
            "{what}: {name:?} differs ({} against {} records)",
            a.len(),
            b.len()
        );
        records += a.len();
    }
    (records, pl.len())
}

fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sctplab-traced-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn traces_of_fast_and_plain_runs_agree() {
    let mut r = RngStream::new(23, "traced-fast-test");
    let (mut fewer, mut total) = (0, (0, 0));
    for case in 0..8 {
        let text = random_manet(&mut r);
        let seed = 1 + r.next_u64() % 1000;
        let (pd, fd) = (
            fresh_dir(&format!("{case}-plain")),
            fresh_dir(&format!("{case}-fast")),
        );
        let (plain, plain_events) = run(&text, seed, Shortcuts::NONE, Some(&pd));
        let (fast, fast_events) = run(&text, seed, Shortcuts::ALL, Some(&fd));
        let (untraced, untraced_events) = run(&text, seed, Shortcuts::ALL, None);
        let what = format!("case {case}, seed {seed}");
        assert_eq!(
            without_events(&plain),
            without_events(&fast),
            "{what}:\n{text}"
        );
        // Tracing changes nothing the fast run computes, its events included.
        assert_eq!((fast, fast_events), (untraced, untraced_events), "{what}");
        let (records, lines) = assert_same_traces(&pd, &fd, &what);
        total.0 += records;
        total.1 += lines;
        fewer += usize::from(fast_events < plain_events);
        let _ = std::fs::remove_dir_all(&pd);
        let _ = std::fs::remove_dir_all(&fd);
    }
    // The traced fast runs took their shortcuts, and wrote something.
    assert!(fewer >= 6, "{fewer}");
    assert!(total.0 > 1000 && total.1 > 1000, "{total:?}");
}
