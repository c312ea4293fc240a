//! Keeps docs/scenario.md in step with the scenario schema.
//!
//! Each schema struct's field names come from the code itself, through serde: a derived
//! `Deserialize` for a struct hands the full list of its (renamed) field names to
//! `Deserializer::deserialize_struct`, so a deserializer that only records that list sees
//! exactly the keys the struct accepts. A hand-kept list here would drift from the code
//! just as the docs can; this way adding, renaming or removing a field without touching
//! the docs fails this test.
//!
//! Each doc section is found by its heading and its `key | type | unit | default |
//! meaning` table is read up to the next heading.

use sctplab_core::scenario::aqm::{CodelCfg, FqCodelCfg, PieCfg, RedCfg};
use sctplab_core::scenario::sat::{ConstellationCfg, GroundStationCfg};
use sctplab_core::scenario::schema::{
    AodvSchema, CbrCfg, CbrPairsCfg, FLOW_TYPES, FaultEntry, GilbertCfg, LinkCfg, LossCfg,
    MacSchema, MeasureCfg, MobilityCfg, NodeCfg, PhySchema, QuicFlowCfg, ScenarioFile, SctpCfg,
    SeriesCfg, SnoopEntry, TcpCfg, WirelessCfg,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md");

/// The columns every key table has, in order.
const KEY_TABLE_HEADER: [&str; 5] = ["key", "type", "unit", "default", "meaning"];

// ---------------------------------------------------------------------------------------
// Field names from the schema

/// The only error the recorder produces: it never builds a value, it only looks.
#[derive(Debug)]
struct NotAValue(String);

impl fmt::Display for NotAValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotAValue {}

impl de::Error for NotAValue {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NotAValue(msg.to_string())
    }
}

/// A deserializer that records the field list of the struct asked for and then fails:
/// failing right away means no value (and no nested type) is ever needed.
#[derive(Default)]
struct FieldRecorder {
    fields: Option<&'static [&'static str]>,
}

impl<'de> Deserializer<'de> for &mut FieldRecorder {
    type Error = NotAValue;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, NotAValue> {
        Err(NotAValue(
            "the recorder only answers deserialize_struct".into(),
        ))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, NotAValue> {
        self.fields = Some(fields);
        Err(NotAValue("field names recorded".into()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The keys `T` accepts, as its derived `Deserialize` reports them.
fn fields_of<T: for<'de> Deserialize<'de>>() -> BTreeSet<String> {
    let mut recorder = FieldRecorder::default();
    // Always an error by construction; the field list is the result.
    let _ = T::deserialize(&mut recorder);
    let fields = recorder.fields.unwrap_or_else(|| {
        // `#[serde(flatten)]` or a hand-written impl would deserialize as a map, whose
        // keys cannot be listed this way; the test must then learn the new shape.
        panic!(
            "{} did not deserialize as a plain struct, so its keys cannot be listed",
            std::any::type_name::<T>()
        )
    });
    fields.iter().map(|f| (*f).to_string()).collect()
}

/// The doc section id of a flow type's key table.
fn flow_section(kind: &str) -> String {
    format!("type = \"{kind}\"")
}

/// Every flow type with its schema struct. `FLOW_TYPES` is checked against this list,
/// so a new flow type cannot go undocumented; the struct has to be named here by hand
/// because the schema dispatches on `type` in code, not through a table.
fn flow_types() -> Vec<(&'static str, BTreeSet<String>)> {
    vec![
        ("cbr", fields_of::<CbrCfg>()),
        ("tcp", fields_of::<TcpCfg>()),
        ("sctp", fields_of::<SctpCfg>()),
        ("quic", fields_of::<QuicFlowCfg>()),
        ("cbr_pairs", fields_of::<CbrPairsCfg>()),
    ]
}

/// (doc section id, keys the section's table must list).
fn expected_sections() -> Vec<(String, BTreeSet<String>)> {
    let mut out = vec![
        ("Top level".to_string(), fields_of::<ScenarioFile>()),
        ("[measure]".to_string(), fields_of::<MeasureCfg>()),
        ("[series]".to_string(), fields_of::<SeriesCfg>()),
        ("[[nodes]]".to_string(), fields_of::<NodeCfg>()),
        ("[[links]]".to_string(), fields_of::<LinkCfg>()),
        ("[links.loss]".to_string(), fields_of::<LossCfg>()),
        (
            "[links.loss.gilbert]".to_string(),
            fields_of::<GilbertCfg>(),
        ),
        ("[[snoop]]".to_string(), fields_of::<SnoopEntry>()),
        ("[[faults]]".to_string(), fields_of::<FaultEntry>()),
        ("[wireless]".to_string(), fields_of::<WirelessCfg>()),
        ("[wireless.phy]".to_string(), fields_of::<PhySchema>()),
        ("[wireless.mac]".to_string(), fields_of::<MacSchema>()),
        ("[wireless.aodv]".to_string(), fields_of::<AodvSchema>()),
        (
            "[wireless.dsdv]".to_string(),
            fields_of::<sctplab_core::scenario::dsdv::DsdvSchema>(),
        ),
        (
            "[wireless.dsr]".to_string(),
            fields_of::<sctplab_core::scenario::dsr::DsrSchema>(),
        ),
        ("[mobility]".to_string(), fields_of::<MobilityCfg>()),
        (
            "stream_traffic".to_string(),
            fields_of::<sctplab_core::scenario::streams::StreamTrafficEntry>(),
        ),
        (
            "[[constellations]]".to_string(),
            fields_of::<ConstellationCfg>(),
        ),
        (
            "[[ground_stations]]".to_string(),
            fields_of::<GroundStationCfg>(),
        ),
    ];
    // `kind` is taken off the `aqm` table before the struct sees it (scenario/aqm.rs).
    for (id, mut fields) in [
        ("aqm.red", fields_of::<RedCfg>()),
        ("aqm.codel", fields_of::<CodelCfg>()),
        ("aqm.fq_codel", fields_of::<FqCodelCfg>()),
        ("aqm.pie", fields_of::<PieCfg>()),
    ] {
        fields.insert("kind".to_string());
        out.push((id.to_string(), fields));
    }
    for (kind, mut fields) in flow_types() {
        // `type` is taken off the entry before the struct sees it (load/typed.rs), yet users
        // write it in every entry, so the doc lists it.
        fields.insert("type".to_string());
        out.push((flow_section(kind), fields));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The Markdown side

/// One heading of the doc, with the key tables found before the next heading.
#[derive(Debug, Default)]
struct Section {
    /// The heading's first code span, or its whole text if it has none: headings carry
    /// descriptive text after the table name (`` `[measure]`: measurement window ``).
    id: String,
    /// 1-based line of the heading, for messages.
    line: usize,
    /// Each key table's keys, in document order.
    tables: Vec<Vec<String>>,
}

fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| rest.trim().trim_end_matches('#').trim())
}

fn section_id(heading: &str) -> String {
    let mut spans = heading.split('`');
    let before = spans.next().unwrap_or_default();
    match spans.next() {
        Some(code) if !code.is_empty() => code.trim().to_string(),
        _ => before.trim().to_string(),
    }
}

/// Table cells, split on pipes that are not escaped; the outer pipes are optional.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    let mut out = vec![String::new()];
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '|' if !escaped => out.push(String::new()),
            _ => out.last_mut().expect("never empty").push(c),
        }
        escaped = c == '\\' && !escaped;
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

/// Reads one Markdown table. Returns the keys if it is a key table (problems go to
/// `problems`), `None` for any other table.
fn key_table(rows: &[(usize, &str)], problems: &mut Vec<String>) -> Option<Vec<String>> {
    let (&(header_line, header), rest) = rows.split_first()?;
    if cells(header) != KEY_TABLE_HEADER {
        return None;
    }
    let mut keys = Vec::new();
    let Some((&(_, separator), body)) = rest.split_first() else {
        problems.push(format!(
            "line {header_line}: key table has no separator row"
        ));
        return Some(keys);
    };
    if !cells(separator)
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')))
    {
        problems.push(format!(
            "line {}: expected the |---| separator row",
            header_line + 1
        ));
    }
    for &(line, row) in body {
        let row_cells = cells(row);
        if row_cells.len() != KEY_TABLE_HEADER.len() {
            problems.push(format!(
                "line {line}: {} cells, expected {} ({})",
                row_cells.len(),
                KEY_TABLE_HEADER.len(),
                KEY_TABLE_HEADER.join(" | ")
            ));
        }
        // The key cell is exactly one key in backticks, nothing else.
        let key = row_cells[0]
            .strip_prefix('`')
            .and_then(|k| k.strip_suffix('`'))
            .filter(|k| !k.is_empty() && !k.contains(['`', ' ']));
        match key {
            Some(k) => keys.push(k.to_string()),
            None => problems.push(format!(
                "line {line}: key cell {:?} is not a single key in backticks",
                row_cells[0]
            )),
        }
    }
    Some(keys)
}

/// Splits the doc into sections. Lines inside fenced code blocks and HTML comments are
/// skipped: TOML examples start comment lines with `#`, which must not read as headings.
fn parse_doc(md: &str, problems: &mut Vec<String>) -> Vec<Section> {
    let mut sections = vec![Section {
        id: "(before the first heading)".into(),
        line: 1,
        tables: Vec::new(),
    }];
    let mut table: Vec<(usize, &str)> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut in_comment = false;

    fn flush(table: &mut Vec<(usize, &str)>, section: &mut Section, problems: &mut Vec<String>) {
        if let Some(keys) = key_table(table, problems) {
            section.tables.push(keys);
        }
        table.clear();
    }

    for (i, raw) in md.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_start();
        if let Some(marker) = fence {
            if line.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if in_comment {
            in_comment = !line.contains("-->");
            continue;
        }
        let current = sections.last_mut().expect("never empty");
        if !line.starts_with('|') && !table.is_empty() {
            flush(&mut table, current, problems);
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = Some(&line[..3]);
        } else if let Some(rest) = line.strip_prefix("<!--") {
            in_comment = !rest.contains("-->");
        } else if line.starts_with('|') {
            table.push((line_no, line));
        } else if let Some(text) = heading_text(line) {
            sections.push(Section {
                id: section_id(text),
                line: line_no,
                tables: Vec::new(),
            });
        }
    }
    let current = sections.last_mut().expect("never empty");
    flush(&mut table, current, problems);
    sections
}

fn list(set: &BTreeSet<&str>) -> String {
    if set.is_empty() {
        "none".into()
    } else {
        set.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

// ---------------------------------------------------------------------------------------
// Tests

#[test]
fn docs_cover_the_schema() {
    let md =
        std::fs::read_to_string(DOC_PATH).unwrap_or_else(|e| panic!("cannot read {DOC_PATH}: {e}"));
    let mut problems = Vec::new();
    let sections = parse_doc(&md, &mut problems);
    let expected = expected_sections();

    for (id, fields) in &expected {
        let found: Vec<&Section> = sections.iter().filter(|s| &s.id == id).collect();
        let section = match found.as_slice() {
            [one] => *one,
            [] => {
                problems.push(format!("no section headed `{id}`"));
                continue;
            }
            many => {
                let lines: Vec<String> = many.iter().map(|s| s.line.to_string()).collect();
                problems.push(format!(
                    "section `{id}` appears more than once (lines {})",
                    lines.join(", ")
                ));
                continue;
            }
        };
        let [keys] = section.tables.as_slice() else {
            problems.push(format!(
                "section `{id}` (line {}) has {} key tables, expected one",
                section.line,
                section.tables.len()
            ));
            continue;
        };
        let mut seen = BTreeSet::new();
        for k in keys {
            if !seen.insert(k.as_str()) {
                problems.push(format!("section `{id}` lists `{k}` twice"));
            }
        }
        let code: BTreeSet<&str> = fields.iter().map(String::as_str).collect();
        if seen != code {
            problems.push(format!(
                "section `{id}` (line {}): missing from the doc: {}; in the doc but not in the schema: {}",
                section.line,
                list(&code.difference(&seen).copied().collect()),
                list(&seen.difference(&code).copied().collect()),
            ));
        }
    }

    // A key table this test does not check would go stale unnoticed.
    let known: BTreeSet<&str> = expected.iter().map(|(id, _)| id.as_str()).collect();
    for s in &sections {
        if !s.tables.is_empty() && !known.contains(s.id.as_str()) {
            problems.push(format!(
                "section `{}` (line {}) has a key table but no schema type is checked against it; add it to expected_sections()",
                s.id, s.line
            ));
        }
    }

    assert!(
        problems.is_empty(),
        "docs/scenario.md is out of step with the scenario schema:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn every_flow_type_is_checked() {
    let checked: BTreeSet<&str> = flow_types().iter().map(|(k, _)| *k).collect();
    let schema: BTreeSet<&str> = FLOW_TYPES.iter().copied().collect();
    assert_eq!(
        checked, schema,
        "flow_types() in this test must list every type in schema::FLOW_TYPES, with its struct"
    );
}

#[test]
fn parser_reads_tables_under_headings_and_skips_code() {
    let md = "\
# Title
| key | type | unit | default | meaning |
|---|---|---|---|---|
| `a` | string | | required | x \\| y |
| `b` | string | | none | z |

```toml
# not a heading
| `c` | fake | | | |
```
<!-- a comment
## not a heading either -->

## `[t]`: a table
Some text.

| kind | units |
|---|---|
| time | `s` |

| key | type | unit | default | meaning |
|:--|--|--|--|--|
| `d` | bool | | `false` | w |
### Next
";
    let mut problems = Vec::new();
    let sections = parse_doc(md, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let by_id: BTreeMap<&str, &Vec<Vec<String>>> = sections
        .iter()
        .map(|s| (s.id.as_str(), &s.tables))
        .collect();
    assert_eq!(
        by_id["Title"],
        &vec![vec!["a".to_string(), "b".to_string()]]
    );
    assert_eq!(by_id["[t]"], &vec![vec!["d".to_string()]]);
    assert!(by_id["Next"].is_empty());
    assert_eq!(sections.len(), 4, "{sections:?}");
}

#[test]
fn parser_reports_malformed_key_cells() {
    let md = "\
## S
| key | type | unit | default | meaning |
|---|---|---|---|---|
| a | string | | | no backticks |
| `b` `c` | string | | | two keys |
";
    let mut problems = Vec::new();
    parse_doc(md, &mut problems);
    assert_eq!(problems.len(), 2, "{problems:?}");
}
