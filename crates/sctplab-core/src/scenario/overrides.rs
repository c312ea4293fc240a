//! `--set KEY=VALUE` overrides, applied to the parsed TOML before it is typed, so an
//! override is validated exactly like the same value written in the file.
//!
//! KEY is a dotted path; inside an array of tables (`[[links]]`, `[[flows]]`) an entry is
//! addressed by its `name` (`links.bottleneck.delay`) or by its index.

use super::error::ScenarioError;
use toml::{Table, Value};

/// Parses VALUE as a TOML value (`0.01`, `[15, 29]`, `"original"`, `true`); anything that
/// is not valid TOML is taken as a bare string, so `--set links.l1.delay=250ms` works
/// without shell-quoted quotes.
pub fn parse_value(text: &str) -> Value {
    let doc = format!("v = {text}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

fn entry_name(v: &Value) -> Option<&str> {
    v.as_table()?.get("name")?.as_str()
}

/// The deepest key path an override may name. Scenario keys are at most four deep
/// (`links.<name>.loss.rate`); the bound keeps a hostile path from building tables so
/// deep that dropping or serialising them overflows the stack.
pub const MAX_KEY_SEGMENTS: usize = 32;

/// `key` as error paths spell it (list entries by name, also when the override gave an
/// index, as [`apply`] accepts), and the shortest prefix of it that names nothing in
/// `root` (or the whole key when every parent exists). An override creates the tables
/// from that prefix on, so errors there are its own.
pub fn named_key_and_new_prefix(root: &Table, key: &str) -> (String, String) {
    let mut named: Vec<String> = Vec::new();
    let mut new_prefix = None;
    let mut cur: Option<&Value> = None;
    for (i, seg) in key.split('.').enumerate() {
        let next = match (i, cur) {
            (0, _) => root.get(seg),
            (_, Some(Value::Table(t))) => t.get(seg),
            (_, Some(Value::Array(items))) => items
                .iter()
                .find(|v| entry_name(v) == Some(seg))
                .or_else(|| seg.parse::<usize>().ok().and_then(|k| items.get(k))),
            _ => None,
        };
        let shown = match (cur, next) {
            (Some(Value::Array(_)), Some(entry)) => entry_name(entry).unwrap_or(seg),
            _ => seg,
        };
        named.push(shown.to_string());
        if next.is_none() && new_prefix.is_none() {
            new_prefix = Some(named.join("."));
        }
        cur = next;
    }
    let named = named.join(".");
    let new_prefix = new_prefix.unwrap_or_else(|| named.clone());
    (named, new_prefix)
}

pub fn apply(root: &mut Table, key: &str, value: Value) -> Result<(), ScenarioError> {
    let source = format!("--set {key}");
    let err = |msg: String| ScenarioError::new(&source, "", msg);
    if key.split('.').nth(MAX_KEY_SEGMENTS).is_some() {
        let shown: String = key.chars().take(40).collect();
        return Err(ScenarioError::new(
            &format!("--set {shown}..."),
            "",
            format!(
                "a key path has at most {MAX_KEY_SEGMENTS} dotted segments, this one {}",
                key.split('.').count()
            ),
        ));
    }
    let segments: Vec<&str> = key.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(err(
            "expected a dotted key path like links.bottleneck.delay".into(),
        ));
    }
    let (last, parents) = segments.split_last().expect("split of non-empty key");
    let mut table = root;
    let mut i = 0;
    while i < parents.len() {
        let seg = parents[i];
        let here = segments[..i].join(".");
        let slot = table
            .entry(seg.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        match slot {
            Value::Table(t) => {
                table = t;
                i += 1;
            }
            Value::Array(items) => {
                let Some(&sel) = parents.get(i + 1) else {
                    return Err(err(format!(
                        "{seg} is a list of entries; name one, as in {seg}.<name>.<key>"
                    )));
                };
                let names: Vec<String> = items
                    .iter()
                    .filter_map(|v| entry_name(v).map(str::to_string))
                    .collect();
                let pos = items
                    .iter()
                    .position(|v| entry_name(v) == Some(sel))
                    .or_else(|| sel.parse::<usize>().ok().filter(|&k| k < items.len()));
                let Some(pos) = pos else {
                    let list = if here.is_empty() {
                        seg.to_string()
                    } else {
                        format!("{here}.{seg}")
                    };
                    return Err(err(format!(
                        "no entry named {sel:?} in {list} (have: {})",
                        names.join(", ")
                    )));
                };
                match &mut items[pos] {
                    Value::Table(t) => table = t,
                    _ => return Err(err(format!("{seg}.{sel} is not a table"))),
                }
                i += 2;
            }
            other => {
                return Err(err(format!(
                    "{} is a {}, not a table",
                    segments[..=i].join("."),
                    other.type_str()
                )));
            }
        }
    }
    table.insert((*last).to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Table {
        r#"
            duration = "10s"
            [[links]]
            name = "l1"
            delay = "1ms"
            [[links]]
            name = "l2"
            delay = "2ms"
        "#
        .parse()
        .unwrap()
    }

    #[test]
    fn sets_named_entries_and_creates_tables() {
        let mut t = doc();
        apply(&mut t, "links.l2.delay", parse_value("250ms")).unwrap();
        apply(&mut t, "links.l1.loss.rate", parse_value("0.01")).unwrap();
        apply(&mut t, "links.1.queue", parse_value("8")).unwrap();
        let links = t["links"].as_array().unwrap();
        assert_eq!(links[1]["delay"].as_str(), Some("250ms"));
        assert_eq!(links[1]["queue"].as_integer(), Some(8));
        assert_eq!(links[0]["loss"]["rate"].as_float(), Some(0.01));
    }

    #[test]
    fn parses_toml_values() {
        assert_eq!(parse_value("[15,29]").as_array().unwrap().len(), 2);
        assert_eq!(parse_value("\"original\"").as_str(), Some("original"));
        assert_eq!(parse_value("original").as_str(), Some("original"));
        assert_eq!(parse_value("true").as_bool(), Some(true));
    }

    #[test]
    fn a_very_deep_key_path_is_refused_before_anything_is_built() {
        // 30000 segments used to build 30000 nested tables and overflow the stack.
        let key = vec!["a"; 30_000].join(".");
        let mut t = doc();
        let e = apply(&mut t, &key, parse_value("1")).unwrap_err();
        assert!(
            e.to_string()
                .contains("at most 32 dotted segments, this one 30000"),
            "{e}"
        );
        assert!(e.to_string().len() < 200, "{e}");
        assert!(!t.contains_key("a"));
        // 32 segments are still a path (an unknown key, refused later by the schema).
        let key = vec!["a"; 32].join(".");
        apply(&mut t, &key, parse_value("1")).expect("32 segments are allowed");
    }

    #[test]
    fn unknown_entry_is_named() {
        let mut t = doc();
        let e = apply(&mut t, "links.l9.delay", parse_value("1ms")).unwrap_err();
        assert!(
            e.to_string()
                .contains("no entry named \"l9\" in links (have: l1, l2)"),
            "{e}"
        );
        let e = apply(&mut t, "duration.x", parse_value("1")).unwrap_err();
        assert!(e.to_string().contains("duration is a string"), "{e}");
        let e = apply(&mut t, "links..delay", parse_value("1")).unwrap_err();
        assert!(e.to_string().contains("dotted key path"), "{e}");
    }
}
