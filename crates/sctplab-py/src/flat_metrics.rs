//! The catalog's `metrics` column of a run, computed from its summary.json text.
//!
//! The sweep driver stores each run's summary as one flat JSON object: keys joined with
//! dots (`flows.tcp1.goodput_bps`), sorted, no spaces, lists as their compact JSON text,
//! `scenario` and `seed` left out. In Python that is `json.loads`, a walk over nested
//! dicts and `json.dumps(sort_keys=True)`, about half of the driver's instructions per
//! run on millisecond runs. This gives the same text from the summary's text, with
//! Python's spelling of every value (its float repr, its string escapes), so the store
//! holds what it held before. It is the one implementation: the workers call it and so
//! does `python/sctplab/store_rows.py`'s `metrics_json`; tests/test_catalog_metrics.py
//! checks it against the plain Python recursion as an oracle.
//!
//! The summary is read as text rather than as the `serde_json::Value` it was written
//! from: Python sees an integer where the text has one and a float where it has a
//! fraction or an exponent, and Rust's `str::parse::<f64>` rounds exactly like Python's
//! `float()` (serde_json's own float parsing may be one ulp off without its
//! `float_roundtrip` feature). It lives in the binding, not in sctplab-core: added
//! there, it moved the core's codegen-unit split and `EventQueue::pop` was no longer
//! inlined into the run loop (+6 % Ir per run). Tables are walked as the text is read, every key and
//! value written into two buffers, so a summary costs a few allocations, not one per
//! entry (that version cost more than the Python it replaced).

use std::collections::BTreeMap;
use std::fmt::Write;

/// The flat metrics JSON of a summary.json text, or `None` for a text this reader does
/// not take, none of which the core writes (the caller refuses it): not a JSON object, a table
/// whose keys are not in increasing order (serde_json writes them sorted; repeated keys,
/// where Python keeps the last value, are thereby left to Python too), a lone
/// surrogate, a number Python reads as infinite.
pub(crate) fn catalog_metrics_json(summary: &str) -> Option<String> {
    let mut p = Parser {
        text: summary,
        s: summary.as_bytes(),
        i: 0,
    };
    let mut flat = Flat {
        path: String::with_capacity(128),
        keys: String::with_capacity(summary.len()),
        values: String::with_capacity(summary.len() / 2),
        entries: Vec::with_capacity(128),
    };
    p.ws();
    if p.s.get(p.i) != Some(&b'{') {
        return None;
    }
    p.flat_object(&mut flat, 0, true)?;
    p.ws();
    if p.i != p.s.len() {
        return None;
    }
    flat.finish()
}

/// What the walk has written: the current key path, and per leaf its flattened key
/// and its value's JSON, as ranges into `keys` and `values`.
struct Flat {
    path: String,
    keys: String,
    values: String,
    entries: Vec<(u32, u32, u32, u32)>,
}

impl Flat {
    fn leaf_key(&mut self) -> (u32, u32) {
        let start = self.keys.len();
        self.keys.push_str(&self.path);
        (start as u32, self.keys.len() as u32)
    }

    fn push(&mut self, key: (u32, u32), value_start: usize) {
        self.entries
            .push((key.0, key.1, value_start as u32, self.values.len() as u32));
    }

    fn finish(mut self) -> Option<String> {
        let keys = &self.keys;
        let key = |e: &(u32, u32, u32, u32)| &keys[e.0 as usize..e.1 as usize];
        // Stable: of equal flattened keys (`"a.b"` beside a table `a` with `b`), the
        // text's later one stays last, and Python's dict keeps the later value.
        self.entries.sort_by(|a, b| key(a).cmp(key(b)));
        let mut out =
            String::with_capacity(self.keys.len() + self.values.len() + 4 * self.entries.len());
        out.push('{');
        let n = self.entries.len();
        let mut first = true;
        for (i, e) in self.entries.iter().enumerate() {
            if i + 1 < n && key(&self.entries[i + 1]) == key(e) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            push_str(&mut out, key(e));
            out.push(':');
            out.push_str(&self.values[e.2 as usize..e.3 as usize]);
        }
        out.push('}');
        Some(out)
    }
}

/// A parsed value inside a list; numbers keep their Python spelling, strings are
/// decoded. Lists are rare in a summary (SCTP's streams), so they may allocate.
enum Json {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    List(Vec<Json>),
    /// Entries in the text's order, one per key.
    Object(Vec<(String, Json)>),
}

/// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
fn compact(out: &mut String, v: &Json) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::Str(s) => push_str(out, s),
        Json::List(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(out, x);
            }
            out.push(']');
        }
        Json::Object(entries) => {
            let sorted: BTreeMap<&str, &Json> =
                entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
            out.push('{');
            for (i, (k, x)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(out, k);
                out.push(':');
                compact(out, x);
            }
            out.push('}');
        }
    }
}

/// A string as Python's json writes it with `ensure_ascii=False`: only the quote, the
/// backslash and control characters escaped. Runs without those are copied whole.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            out.push_str(&s[from..i]);
            push_escaped(out, b as char);
            from = i + 1;
        }
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// The characters Python's json escapes with two characters, and those escapes.
pub(crate) fn short_escape(c: char) -> Option<&'static str> {
    Some(match c {
        '"' => "\\\"",
        '\\' => "\\\\",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        _ => return None,
    })
}

/// One character in a JSON string, escaped as Python's json escapes it.
fn push_escaped(out: &mut String, c: char) {
    if let Some(e) = short_escape(c) {
        out.push_str(e);
    } else if (c as u32) < 0x20 {
        let _ = write!(out, "\\u{:04x}", c as u32);
    } else {
        out.push(c);
    }
}

/// Appends `repr(float(token))`: the fewest digits that read back to the same double,
/// of those the closest (ties to even), in fixed notation for decimal exponents
/// -4..=15, else `d.ddde+XX`. `None` for an infinite value.
fn push_python_float(out: &mut String, token: &str) -> Option<()> {
    let x: f64 = token.parse().ok()?;
    if !x.is_finite() {
        return None;
    }
    let a = x.abs();
    // `{:e}` gives the fewest digits; where two spellings of that length both read
    // back, it may take the farther one (a double exactly between them: Rust rounds
    // that tie up, Python to even). Two such spellings are under an ulp apart, which
    // needs 16 digits or more. Rust's fixed-precision form is correctly rounded, half
    // to even, so at that length it is Python's choice whenever it reads back.
    let mut sci = Buf::default();
    let _ = write!(sci, "{a:e}");
    let length = sci.mantissa_digits();
    if length >= 16 {
        let mut closest = Buf::default();
        let _ = write!(closest, "{:.*e}", length - 1, a);
        if closest.as_str().parse::<f64>() == Ok(a) {
            sci = closest;
        }
    }
    let (mantissa, exp) = sci.as_str().split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let mut digits = [0u8; 24];
    let mut nd = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        *digits.get_mut(nd)? = b;
        nd += 1;
    }
    let digits = std::str::from_utf8(&digits[..nd]).ok()?;
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let point = exp as usize + 1;
            if nd > point {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            } else {
                out.push_str(digits);
                for _ in nd..point {
                    out.push('0');
                }
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exp.unsigned_abs());
    }
    Some(())
}

/// A float's `{:e}` text on the stack (at most 17 digits, a point, `e-324`).
#[derive(Default)]
struct Buf {
    b: [u8; 32],
    n: usize,
}

impl Buf {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.b[..self.n]).unwrap_or("")
    }

    fn mantissa_digits(&self) -> usize {
        self.b[..self.n]
            .iter()
            .take_while(|b| **b != b'e')
            .filter(|b| b.is_ascii_digit())
            .count()
    }
}

impl Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.n + s.len();
        self.b
            .get_mut(self.n..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// `repr(int(token))` for a JSON integer: the text itself, except that `-0` is `0`.
fn push_python_int(out: &mut String, token: &str) {
    if token.trim_start_matches('-').bytes().all(|b| b == b'0') {
        out.push('0');
    } else {
        out.push_str(token);
    }
}

struct Parser<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
}

/// Python's json stops at the interpreter's recursion limit; a summary is 4-5 deep.
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// The table at the cursor, its leaves added to `flat` under `flat.path`.
    fn flat_object(&mut self, flat: &mut Flat, depth: usize, top: bool) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let base = flat.path.len();
        if self.eat(b'}') {
            return Some(());
        }
        let mut prev = String::new();
        let mut first = true;
        loop {
            self.ws();
            flat.path.truncate(base);
            self.string_into(&mut flat.path, false)?;
            let k = &flat.path[base..];
            if !first && k <= prev.as_str() {
                return None;
            }
            first = false;
            prev.clear();
            prev.push_str(k);
            let skip = top && (k == "scenario" || k == "seed");
            if !self.eat(b':') {
                return None;
            }
            self.ws();
            match *self.s.get(self.i)? {
                b'{' if !skip => {
                    flat.path.push('.');
                    self.flat_object(flat, depth + 1, false)?;
                }
                b'[' if !skip => {
                    // The list's compact JSON, as a string.
                    let list = self.value(depth + 1)?;
                    let mut text = String::new();
                    compact(&mut text, &list);
                    let key = flat.leaf_key();
                    let start = flat.values.len();
                    push_str(&mut flat.values, &text);
                    flat.push(key, start);
                }
                _ if skip => {
                    self.value(depth + 1)?;
                }
                _ => {
                    let key = flat.leaf_key();
                    let start = flat.values.len();
                    self.scalar_into(&mut flat.values)?;
                    flat.push(key, start);
                }
            }
            if self.eat(b'}') {
                flat.path.truncate(base);
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A string, number, `true`, `false` or `null` at the cursor, in Python's spelling.
    fn scalar_into(&mut self, out: &mut String) -> Option<()> {
        match *self.s.get(self.i)? {
            b'"' => self.string_into(out, true),
            b't' => self.literal("true").map(|()| out.push_str("true")),
            b'f' => self.literal("false").map(|()| out.push_str("false")),
            b'n' => self.literal("null").map(|()| out.push_str("null")),
            b'-' | b'0'..=b'9' => self.number_into(out),
            // NaN and Infinity (which Python reads) and anything else: not ours.
            _ => None,
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut entries: Vec<(String, Json)> = Vec::new();
                if self.eat(b'}') {
                    return Some(Json::Object(entries));
                }
                loop {
                    self.ws();
                    let mut k = String::new();
                    self.string_into(&mut k, false)?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    // A repeated key keeps its first place and takes the last value,
                    // as in the dict Python's json builds.
                    match entries.iter_mut().find(|(seen, _)| *seen == k) {
                        Some(entry) => entry.1 = v,
                        None => entries.push((k, v)),
                    }
                    if self.eat(b'}') {
                        return Some(Json::Object(entries));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Json::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Some(Json::List(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => {
                let mut s = String::new();
                self.string_into(&mut s, false)?;
                Some(Json::Str(s))
            }
            b't' => self.literal("true").map(|()| Json::Bool(true)),
            b'f' => self.literal("false").map(|()| Json::Bool(false)),
            b'n' => self.literal("null").map(|()| Json::Null),
            b'-' | b'0'..=b'9' => {
                let mut n = String::new();
                self.number_into(&mut n)?;
                Some(Json::Number(n))
            }
            _ => None,
        }
    }

    fn number_into(&mut self, out: &mut String) -> Option<()> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let digits = |p: &mut Self| {
            let from = p.i;
            while p.s.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i - from
        };
        let whole = digits(self);
        // JSON's grammar: one `0` or a number not starting with 0.
        if whole == 0 || (whole > 1 && self.s[self.i - whole] == b'0') {
            return None;
        }
        let mut float = false;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
            float = true;
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
            float = true;
        }
        let token = self.text.get(start..self.i)?;
        if float {
            push_python_float(out, token)
        } else {
            push_python_int(out, token);
            Some(())
        }
    }

    /// The JSON string at the cursor, decoded, appended to `out`: as it is, or (with
    /// `quoted`) quoted and escaped as Python's json writes it. `None` for a lone
    /// surrogate (Python keeps it, a Rust string cannot) or a raw control character
    /// (Python's strict mode rejects it).
    fn string_into(&mut self, out: &mut String, quoted: bool) -> Option<()> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        if quoted {
            out.push('"');
        }
        let mut from = self.i;
        loop {
            let b = *self.s.get(self.i)?;
            if b != b'"' && b != b'\\' && b >= 0x20 {
                self.i += 1;
                continue;
            }
            // The run before is whole UTF-8 characters: it ends at an ASCII byte.
            out.push_str(self.text.get(from..self.i)?);
            self.i += 1;
            match b {
                b'"' => {
                    if quoted {
                        out.push('"');
                    }
                    return Some(());
                }
                b'\\' => {
                    let c = self.escape()?;
                    if quoted {
                        push_escaped(out, c);
                    } else {
                        out.push(c);
                    }
                }
                _ => return None,
            }
            from = self.i;
        }
    }

    /// The character of the escape after a backslash.
    fn escape(&mut self) -> Option<char> {
        let e = *self.s.get(self.i)?;
        self.i += 1;
        Some(match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                if (0xD800..0xDC00).contains(&hi) {
                    if !self.s[self.i..].starts_with(b"\\u") {
                        return None;
                    }
                    self.i += 2;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                } else {
                    char::from_u32(hi)?
                }
            }
            _ => return None,
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected spellings from Python 3.11: `repr(float(t))` / `json.dumps`.
    #[test]
    fn floats_spelled_as_python_repr() {
        for (token, python) in [
            ("1.0", "1.0"),
            ("0.1", "0.1"),
            ("-0.0", "-0.0"),
            ("1e5", "100000.0"),
            ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"),
            ("123456789012345680.0", "1.2345678901234568e+17"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("1.5e-7", "1.5e-07"),
            ("2.5e300", "2.5e+300"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("0.30000000000000004", "0.30000000000000004"),
            ("1234.5", "1234.5"),
            ("-12.0E+2", "-1200.0"),
            // Exactly halfway between two 16-digit spellings: Python takes the even one.
            ("630771836622140.25", "630771836622140.2"),
            ("84562277191822.625", "84562277191822.62"),
        ] {
            let mut out = String::new();
            assert_eq!(push_python_float(&mut out, token), Some(()), "{token}");
            assert_eq!(out, python, "{token}");
        }
        assert_eq!(push_python_float(&mut String::new(), "1e999"), None);
    }

    #[test]
    fn ints_and_strings_spelled_as_python_json() {
        for (token, python) in [
            ("-0", "0"),
            ("0", "0"),
            ("-12", "-12"),
            ("18446744073709551616", "18446744073709551616"),
        ] {
            let mut out = String::new();
            push_python_int(&mut out, token);
            assert_eq!(out, python);
        }
        let mut s = String::new();
        push_str(&mut s, "a\"b\\c\n\u{1}\u{7f}é→");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\u{7f}é→\"");
    }

    // The summary's leaves joined with dots, as json.dumps(..., sort_keys=True,
    // separators=(",", ":"), ensure_ascii=False) writes them, worked out by hand for this text (keys sorted per table, as
    // serde_json writes them).
    #[test]
    fn flattens_sorts_and_drops_scenario_and_seed() {
        let text = r#"{
  "a": {"b": 2}, "a-c": 3, "a.b": 1, "events": 10,
  "flows": {"a": {"aborted": false, "empty": {}, "streams": [{"z": 1, "a": 0.5, "z": 2}]},
            "b": {"goodput_bps": 1e5, "paths": {"n:e0": {"srtt_s": null}}}},
  "links": {"r1->k1": {"name": "\u00e9\"\ud83d\ude00\/", "utilization": 0.25}},
  "scenario": "x", "seed": 3, "sim_time_s": 2.0, "x": {"seed": -0}
}"#;
        assert_eq!(
            catalog_metrics_json(text).as_deref(),
            Some(concat!(
                r#"{"a-c":3,"a.b":1,"events":10,"flows.a.aborted":false,"#,
                r#""flows.a.streams":"[{\"a\":0.5,\"z\":2}]","#,
                r#""flows.b.goodput_bps":100000.0,"flows.b.paths.n:e0.srtt_s":null,"#,
                "\"links.r1->k1.name\":\"é\\\"😀/\",\"links.r1->k1.utilization\":0.25,",
                r#""sim_time_s":2.0,"x.seed":0}"#
            ))
        );
    }

    #[test]
    fn refuses_what_python_reads_otherwise() {
        for text in [
            "[1]",
            "{\"a\": NaN}",
            "{\"a\": 1e999}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": 1} x",
            "{\"a\": 01}",
            "{\"a\": \"\u{1}\"}",
            "{\"b\": 1, \"a\": 2}",
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": \"\\u+123\"}",
        ] {
            assert_eq!(catalog_metrics_json(text), None, "{text}");
        }
    }
}
