//! `json.dumps(value, indent=2)` for the sweep driver's run.json and manifest.json.
//!
//! The driver writes both files for every run, and with an indent Python's json uses
//! its pure-Python encoder; `sctplab.store` built the text from json's C scalars
//! instead, which still cost about a third of the driver's instructions per run on
//! millisecond runs (a Python loop over ~30 entries). This walks the same values here.
//! Numbers are spelled by Python itself where its spelling is not plain (`float.__repr__`,
//! big integers), strings are escaped as json's default `ensure_ascii=True` escapes them,
//! and anything else is left to `json.dumps` itself (`sctplab.store.indent_json`); tests
//! compare this with `json.dumps(value, indent=2)`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::fmt::Write;

/// Deeper than any run.json or manifest.json; deeper values (and cycles) go to Python,
/// which has its own limit and its own error.
const MAX_DEPTH: usize = 64;

/// The text, or `None` for a value left to Python: a type that is not exactly dict,
/// list, tuple, str, int, float, bool or None (subclasses included), a key that is not
/// exactly a str, a string with a lone surrogate, nesting deeper than `MAX_DEPTH`.
pub(crate) fn indent_json(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let mut out = String::with_capacity(2048);
    let mut newline = String::from("\n");
    Ok(write_value(&mut out, value, &mut newline, 0)?.then_some(out))
}

/// Appends `v`'s JSON; `newline` is "\n" and the current indent (restored on return).
fn write_value(
    out: &mut String,
    v: &Bound<'_, PyAny>,
    newline: &mut String,
    depth: usize,
) -> PyResult<bool> {
    if depth > MAX_DEPTH {
        return Ok(false);
    }
    if v.is_none() {
        out.push_str("null");
    } else if let Ok(s) = v.cast_exact::<PyString>() {
        let Ok(text) = s.to_str() else {
            return Ok(false);
        };
        push_ascii_str(out, text);
    } else if let Ok(b) = v.cast_exact::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(i) = v.cast_exact::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => {
                let _ = write!(out, "{n}");
            }
            // Beyond 64 bits: Python's own digits.
            Err(_) => out.push_str(&i.repr()?.to_cow()?),
        }
    } else if let Ok(f) = v.cast_exact::<PyFloat>() {
        let x = f.value();
        if x.is_nan() {
            out.push_str("NaN");
        } else if x.is_infinite() {
            out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        } else {
            // float.__repr__, which json uses: Python's shortest round-trip digits.
            out.push_str(&f.repr()?.to_cow()?);
        }
    } else if let Ok(d) = v.cast_exact::<PyDict>() {
        if d.is_empty() {
            out.push_str("{}");
            return Ok(true);
        }
        let len = newline.len();
        newline.push_str("  ");
        let mut sep = '{';
        for (k, item) in d.iter() {
            let Ok(key) = k.cast_exact::<PyString>() else {
                return Ok(false);
            };
            let Ok(key) = key.to_str() else {
                return Ok(false);
            };
            out.push(sep);
            out.push_str(newline);
            push_ascii_str(out, key);
            out.push_str(": ");
            if !write_value(out, &item, newline, depth + 1)? {
                return Ok(false);
            }
            sep = ',';
        }
        newline.truncate(len);
        out.push_str(newline);
        out.push('}');
    } else if let Ok(l) = v.cast_exact::<PyList>() {
        return write_items(out, l.iter(), l.len(), newline, depth);
    } else if let Ok(t) = v.cast_exact::<PyTuple>() {
        return write_items(out, t.iter(), t.len(), newline, depth);
    } else {
        return Ok(false);
    }
    Ok(true)
}

fn write_items<'py>(
    out: &mut String,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    newline: &mut String,
    depth: usize,
) -> PyResult<bool> {
    if len == 0 {
        out.push_str("[]");
        return Ok(true);
    }
    let outer = newline.len();
    newline.push_str("  ");
    let mut sep = '[';
    for item in items {
        out.push(sep);
        out.push_str(newline);
        if !write_value(out, &item, newline, depth + 1)? {
            return Ok(false);
        }
        sep = ',';
    }
    newline.truncate(outer);
    out.push_str(newline);
    out.push(']');
    Ok(true)
}

/// A string as json writes it with `ensure_ascii=True`: printable ASCII but the quote
/// and the backslash as is, the usual short escapes, everything else `\uXXXX` (lower-case
/// hex; a surrogate pair above U+FFFF).
fn push_ascii_str(out: &mut String, s: &str) {
    out.push('"');
    // Byte by byte: the strings here (hashes, versions, times, names) are plain ASCII,
    // and a char walk cost three times as much per byte.
    let bytes = s.as_bytes();
    let mut plain = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&s[plain..i]);
        // `i` is at a character's first byte: every byte before it was ASCII or a whole
        // character taken below.
        let c = s[i..].chars().next().unwrap_or('\0');
        i += c.len_utf8();
        plain = i;
        if let Some(e) = crate::flat_metrics::short_escape(c) {
            out.push_str(e);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{:04x}", u);
            }
        }
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::push_ascii_str;

    fn esc(s: &str) -> String {
        let mut out = String::new();
        push_ascii_str(&mut out, s);
        out
    }

    #[test]
    fn strings_escaped_as_pythons_json_with_ensure_ascii() {
        // Expected texts are json.dumps's documented escapes (RFC 8259 section 7, with
        // Python's choice of the short forms and lower-case hex).
        assert_eq!(esc(""), "\"\"");
        assert_eq!(esc("plain ~ text"), "\"plain ~ text\"");
        assert_eq!(esc("q\"b\\"), "\"q\\\"b\\\\\"");
        assert_eq!(esc("\n\r\t\u{8}\u{c}"), "\"\\n\\r\\t\\b\\f\"");
        assert_eq!(esc("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\\u007f\"");
        assert_eq!(esc("é中"), "\"\\u00e9\\u4e2d\"");
        // U+1F600 is the pair D83D DE00.
        assert_eq!(esc("a\u{1f600}b"), "\"a\\ud83d\\ude00b\"");
    }
}
