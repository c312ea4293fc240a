//! The input text (a TOML file or the Python API's JSON dict) read into a TOML table,
//! the `--set` overrides applied to it, and errors blamed on the override that caused
//! them.

use super::Scenario;
use super::typed::typed_and_checked;
use crate::scenario::error::ScenarioError;
use crate::scenario::overrides;
use toml::Table;

/// `source` names the input in messages (a file path, or `<string>`); `default_name` is
/// the scenario name when the file sets none (the file stem).
pub fn load_toml(
    text: &str,
    source: &str,
    default_name: &str,
    sets: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    let table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| syntax_error(&e, text, source))?;
    load_table(table, source, default_name, sets)
}

/// A TOML syntax error as `FILE:LINE:COLUMN: invalid TOML: MESSAGE`, naming the key
/// when the parser points at one (a duplicate key).
fn syntax_error(e: &toml::de::Error, text: &str, source: &str) -> ScenarioError {
    let mut message = e.message().trim().to_string();
    let Some(span) = e.span() else {
        return ScenarioError::new(source, "", format!("invalid TOML: {message}"));
    };
    let start = span.start.min(text.len());
    let before = text.get(..start).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    let pointed = text.get(span.clone()).unwrap_or("").trim();
    if message.starts_with("duplicate key") && !pointed.is_empty() && !pointed.contains('\n') {
        message = format!("duplicate key `{}`", clip(pointed));
    }
    ScenarioError::new(
        &format!("{source}:{line}:{column}"),
        "",
        format!("invalid TOML: {message}"),
    )
}

/// Same as `load_toml` for a JSON object (the Python API's dict form).
pub fn load_json(
    json: &str,
    source: &str,
    default_name: &str,
    sets: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| ScenarioError::new(source, "", format!("invalid scenario dict: {e}")))?;
    if let Some((path, what)) = not_toml(&value, &mut Vec::new()) {
        return Err(ScenarioError::new(source, path, what));
    }
    let table: Table = serde_json::from_value::<Table>(value)
        .map_err(|e| ScenarioError::new(source, "", format!("not representable as TOML: {e}")))?;
    load_table(table, source, default_name, sets)
}

/// The first value of a JSON document that TOML cannot hold (null, or an integer above
/// TOML's signed 64-bit range), with its named key path: the conversion itself reports
/// neither where nor which value.
fn not_toml(value: &serde_json::Value, path: &mut Vec<String>) -> Option<(String, String)> {
    use serde_json::Value as J;
    match value {
        J::Null => Some((
            path.join("."),
            "null has no TOML equivalent; leave the key out instead".into(),
        )),
        J::Number(n) if n.is_u64() && n.as_i64().is_none() => Some((
            path.join("."),
            format!("{n} is too large; expected an integer up to {}", i64::MAX),
        )),
        J::Object(map) => map.iter().find_map(|(k, v)| {
            path.push(k.clone());
            let found = not_toml(v, path);
            path.pop();
            found
        }),
        J::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            let name = v.get("name").and_then(J::as_str);
            path.push(name.map_or_else(|| i.to_string(), str::to_string));
            let found = not_toml(v, path);
            path.pop();
            found
        }),
        _ => None,
    }
}

/// A key or value as messages show it: whole if short, else its start and its length.
pub(crate) fn clip(text: &str) -> String {
    const SHOWN: usize = 60;
    if text.chars().count() <= SHOWN {
        text.to_string()
    } else {
        let head: String = text.chars().take(SHOWN).collect();
        format!("{head}... ({} characters)", text.chars().count())
    }
}

fn load_table(
    mut table: Table,
    source: &str,
    default_name: &str,
    sets: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    // Where each override starts to invent keys the file does not have: an error at a
    // table an override created is the override's, not the file's.
    let roots: Vec<(String, String)> = sets
        .iter()
        .map(|(key, _)| overrides::named_key_and_new_prefix(&table, key))
        .collect();
    for (key, value) in sets {
        overrides::apply(&mut table, key, overrides::parse_value(value)).map_err(|mut e| {
            e.source = format!("--set {}={}", clip(key), clip(value));
            e
        })?;
    }
    typed_and_checked(table, source, default_name).map_err(|e| blame_override(e, sets, &roots))
}

/// An error at (or under) a key that a `--set` gave is the override's, not the file's
/// (docs/scenario.md): the last such override is named as the source. So is an error at
/// a table the override created on its way to the key, such as an unknown top-level key
/// or a table where a list belongs. `roots` holds, for each override, its key with list
/// entries named as error paths name them (`links.0.delay` is `links.ab.delay`) and the
/// first prefix of it missing from the file (or the key itself).
fn blame_override(
    mut e: ScenarioError,
    sets: &[(String, String)],
    roots: &[(String, String)],
) -> ScenarioError {
    let at_or_under = |path: &str, key: &str| {
        path == key || path.starts_with(key) && path[key.len()..].starts_with('.')
    };
    let hits = |path: &str| {
        sets.iter().zip(roots).rev().find(|(_, (named, root))| {
            !path.is_empty() && (at_or_under(path, named) || at_or_under(path, root))
        })
    };
    let mut hit = hits(&e.path).map(|(set, _)| set);
    if hit.is_none() {
        // An error two keys make together is the changed key's: report it there.
        let moved = e
            .related
            .iter()
            .find_map(|k| hits(k).map(|(set, _)| (k.clone(), set)));
        if let Some((key, set)) = moved {
            e.path = key;
            hit = Some(set);
        }
    }
    if let Some((key, value)) = hit {
        e.source = format!("--set {}={}", clip(key), clip(value));
    }
    e
}
