//! The SCTP flow keys `stream_traffic` (CONTRACTS.md "Messages"): per-stream sources
//! with their PR-SCTP policies (RFC 3758, RFC 7496), and `scheduler` (RFC 8260 sec.
//! 3); docs/scenario.md.

use super::error::ScenarioError;
use super::schema::SctpCfg;
use super::units::{Duration, Size, parse_duration};
use crate::sctp::Knobs;
use crate::sctp::streams::{PrPolicy, Scheduler, StreamSourceCfg};
use crate::sim::{SimDuration, SimTime};
use serde::Deserialize;

/// The policies `pr_policy` names.
pub const PR_POLICIES: [&str; 4] = ["none", "ttl", "rtx", "prio"];

/// One `stream_traffic` entry as written.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct StreamTrafficEntry {
    pub stream: u16,
    pub message_size: Size,
    /// Absent: a backlog that keeps the send buffer full.
    #[serde(default)]
    pub interval: Option<Duration>,
    #[serde(default)]
    pub start: Option<Duration>,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub priority: i64,
    #[serde(default = "one")]
    pub weight: u32,
    #[serde(default)]
    pub pr_policy: Option<String>,
    /// A time for `"ttl"`, a whole number for `"rtx"` and `"prio"`.
    #[serde(default)]
    pub pr_value: Option<toml::Value>,
}

fn one() -> u32 {
    1
}

/// What is wrong with an entry: (its key, the message).
pub(super) type Bad = (&'static str, String);

// The checks every transport's `stream_traffic` shares (SCTP, TCP, QUIC).

/// The flow's `bytes` and its sources exclude each other; `need_one`: an empty array
/// is an error (SCTP and QUIC: omit the key for the bulk application).
pub(super) fn check_flow(
    has_bytes: bool,
    empty: bool,
    need_one: bool,
    key: &str,
    source: &str,
) -> Result<(), ScenarioError> {
    if has_bytes {
        return Err(ScenarioError::new(
            source,
            key,
            "stream_traffic sources run until their stop or the flow's: expected no `bytes`",
        ));
    }
    if need_one && empty {
        return Err(ScenarioError::new(
            source,
            key,
            "expected at least one source (omit the key for the bulk application)",
        ));
    }
    Ok(())
}

/// A message has bytes.
pub(super) fn check_size(e: &StreamTrafficEntry) -> Result<(), Bad> {
    if e.message_size.0 == 0 {
        return Err(("message_size", "must be greater than zero".into()));
    }
    Ok(())
}

/// An interval source ticks; a source stops after it starts.
pub(super) fn check_times(e: &StreamTrafficEntry) -> Result<(), Bad> {
    if e.interval.is_some_and(|d| d.0 == SimDuration::ZERO) {
        return Err((
            "interval",
            "must be greater than zero (omit it for a backlog)".into(),
        ));
    }
    let start = e.start.map_or(SimDuration::ZERO, |d| d.0);
    if e.stop.is_some_and(|s| s.0 <= start) {
        return Err(("stop", "must be later than start".into()));
    }
    Ok(())
}

/// A reliable transport's entry names no PR-SCTP policy; `what` ends the message
/// (e.g. "a tcp byte stream is reliable").
pub(super) fn check_reliable(e: &StreamTrafficEntry, what: &str) -> Result<(), Bad> {
    if e.pr_policy.is_some() || e.pr_value.is_some() {
        let k = if e.pr_policy.is_some() {
            "pr_policy"
        } else {
            "pr_value"
        };
        return Err((
            k,
            format!("partial reliability is SCTP's (RFC 3758): {what}"),
        ));
    }
    Ok(())
}

/// A stream has one source (SCTP and QUIC: entry `i`'s stream is not an earlier one's).
fn check_unique(entries: &[StreamTrafficEntry], i: usize) -> Result<(), Bad> {
    let e = &entries[i];
    if entries[..i].iter().any(|o| o.stream == e.stream) {
        return Err((
            "stream",
            format!(
                "stream {} has a source already: one entry per stream",
                e.stream
            ),
        ));
    }
    Ok(())
}

/// The policy an entry gives, or what is wrong with it: (key, message).
fn policy(e: &StreamTrafficEntry) -> Result<PrPolicy, (&'static str, String)> {
    let name = e.pr_policy.as_deref().unwrap_or("none");
    let int = |what: &str| -> Result<u32, (&'static str, String)> {
        match &e.pr_value {
            Some(toml::Value::Integer(n)) => u32::try_from(*n).map_err(|_| {
                (
                    "pr_value",
                    format!("expected a whole number from 0 to {} ({what})", u32::MAX),
                )
            }),
            Some(v) => Err((
                "pr_value",
                format!("expected a whole number ({what}) for pr_policy = {name:?}, got {v}"),
            )),
            None => Err((
                "pr_value",
                format!("pr_policy = {name:?} needs a pr_value ({what})"),
            )),
        }
    };
    match name {
        "none" => match &e.pr_value {
            None => Ok(PrPolicy::None),
            Some(v) => Err((
                "pr_value",
                format!("expected no pr_value with pr_policy = \"none\", got {v}"),
            )),
        },
        "ttl" => match &e.pr_value {
            Some(toml::Value::String(s)) => match parse_duration(s) {
                Ok(d) if d > SimDuration::ZERO => Ok(PrPolicy::Ttl(d)),
                Ok(_) => Err(("pr_value", "expected a lifetime above 0".into())),
                Err(m) => Err(("pr_value", format!("{s:?} {m}"))),
            },
            Some(v) => Err((
                "pr_value",
                format!(
                    "expected a time like \"100ms\" (the lifetime) for pr_policy = \"ttl\", got {v}"
                ),
            )),
            None => Err((
                "pr_value",
                "pr_policy = \"ttl\" needs a pr_value (a time like \"100ms\")".into(),
            )),
        },
        "rtx" => int("the retransmission limit").map(PrPolicy::Rtx),
        "prio" => int("the priority, smaller is more important").map(PrPolicy::Prio),
        other => Err((
            "pr_policy",
            format!("unknown policy {other:?}: expected \"none\", \"ttl\", \"rtx\" or \"prio\""),
        )),
    }
}

/// Checks `scheduler` and `stream_traffic` of an SCTP flow at key path `p`.
pub(crate) fn validate(c: &SctpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    if let Some(name) = &c.scheduler {
        let why = if Scheduler::from_name(name).is_none() {
            let names: Vec<String> = Scheduler::NAMES.iter().map(|n| format!("{n:?}")).collect();
            Some(format!(
                "unknown scheduler {name:?}: expected one of {}",
                names.join(", ")
            ))
        } else if c.stream_traffic.is_none() && name != "fcfs" {
            Some(format!(
                "scheduler {name:?} schedules stream_traffic sources: expected a stream_traffic \
                 (the bulk application sends its messages round robin)"
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ScenarioError::new(source, format!("{p}.scheduler"), why));
        }
    }
    let Some(entries) = &c.stream_traffic else {
        return Ok(());
    };
    let at = |i: usize, key: &str| format!("{p}.stream_traffic.{i}.{key}");
    let key = format!("{p}.stream_traffic");
    check_flow(c.bytes.is_some(), entries.is_empty(), true, &key, source)?;
    let room = c.mtu.0.saturating_sub(32 + 16) / 4 * 4;
    for (i, e) in entries.iter().enumerate() {
        let bad = |key: &str, msg: String| Err(ScenarioError::new(source, at(i, key), msg));
        if e.stream >= c.streams {
            return bad(
                "stream",
                format!(
                    "stream {} does not exist: expected a stream number below streams = {}",
                    e.stream, c.streams
                ),
            );
        }
        if let Err((key, msg)) = check_unique(entries, i).and_then(|()| check_size(e)) {
            return bad(key, msg);
        }
        let largest = 16 + e.message_size.0.min(room);
        if c.receive_buffer.0 < largest {
            return bad(
                "message_size",
                format!(
                    "its largest DATA chunk ({largest}B) does not fit receive_buffer ({}B)",
                    c.receive_buffer.0
                ),
            );
        }
        if let Err((key, msg)) = check_times(e) {
            return bad(key, msg);
        }
        if e.weight == 0 {
            return bad("weight", "expected at least 1".into());
        }
        if let Err((key, msg)) = policy(e) {
            return bad(key, msg);
        }
    }
    Ok(())
}

/// Sets the knobs' stream scheduler from a checked `scheduler`.
pub(crate) fn apply(c: &SctpCfg, k: &mut Knobs) {
    if let Some(s) = c.scheduler.as_deref().and_then(Scheduler::from_name) {
        k.scheduler = s;
    }
    k.interleaving = c.interleaving;
}

/// The association's sources for a checked `stream_traffic` (empty without it).
pub fn sources(c: &SctpCfg) -> Vec<StreamSourceCfg> {
    let Some(entries) = &c.stream_traffic else {
        return Vec::new();
    };
    entries
        .iter()
        .map(|e| StreamSourceCfg {
            stream: e.stream,
            message_size: e.message_size.0,
            interval: e.interval.map(|d| d.0),
            start: SimTime::ZERO + e.start.map_or(SimDuration::ZERO, |d| d.0),
            stop: e.stop.map(|d| SimTime::ZERO + d.0),
            priority: e.priority,
            weight: e.weight,
            pr: policy(e).unwrap_or(PrPolicy::None),
        })
        .collect()
}

/// Checks `stream_traffic` of a QUIC flow at key path `p`: the SCTP entries without the
/// PR-SCTP ones (QUIC streams are reliable), and `weight` only at 1 (quinn-proto
/// schedules streams of equal priority round robin, without weights).
pub(crate) fn validate_quic(
    c: &super::schema::QuicFlowCfg,
    p: &str,
    source: &str,
) -> Result<(), ScenarioError> {
    let Some(entries) = &c.stream_traffic else {
        return Ok(());
    };
    let key = format!("{p}.stream_traffic");
    check_flow(c.bytes.is_some(), entries.is_empty(), true, &key, source)?;
    for (i, e) in entries.iter().enumerate() {
        let bad =
            |k: &str, msg: String| Err(ScenarioError::new(source, format!("{key}.{i}.{k}"), msg));
        if u32::from(e.stream) >= c.streams {
            return bad(
                "stream",
                format!(
                    "stream {} does not exist: expected a stream number below streams = {}",
                    e.stream, c.streams
                ),
            );
        }
        let checked = check_unique(entries, i)
            .and_then(|()| check_size(e))
            .and_then(|()| check_times(e));
        if let Err((k, msg)) = checked {
            return bad(k, msg);
        }
        if e.weight != 1 {
            return bad(
                "weight",
                "expected 1: quinn-proto schedules streams of equal priority round robin, \
                 without weights"
                    .into(),
            );
        }
        if let Err((k, msg)) = check_reliable(e, "a quic flow's streams are reliable") {
            return bad(k, msg);
        }
    }
    Ok(())
}

/// A QUIC flow's sources for a checked `stream_traffic` (empty without it).
pub fn quic_sources(c: &super::schema::QuicFlowCfg) -> Vec<StreamSourceCfg> {
    let Some(entries) = &c.stream_traffic else {
        return Vec::new();
    };
    entries
        .iter()
        .map(|e| StreamSourceCfg {
            stream: e.stream,
            message_size: e.message_size.0,
            interval: e.interval.map(|d| d.0),
            start: SimTime::ZERO + e.start.map_or(SimDuration::ZERO, |d| d.0),
            stop: e.stop.map(|d| SimTime::ZERO + d.0),
            priority: e.priority,
            weight: e.weight,
            pr: PrPolicy::None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::load_toml;

    const BASE: &str = r#"
duration = "5s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "10Mb"
delay = "10ms"
[[flows]]
name = "m"
type = "sctp"
variant = "rfc9260"
from = "a"
to = "b"
streams = 2
"#;

    fn err(entries: &str) -> String {
        let text = format!("{BASE}{entries}");
        match load_toml(&text, "s.toml", "s", &[]) {
            Ok(_) => String::from("accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn good_sources_load() {
        let text = format!(
            "{BASE}{}",
            r#"stream_traffic = [
  { stream = 0, message_size = "100B", interval = "20ms", pr_policy = "ttl", pr_value = "50ms" },
  { stream = 1, message_size = "10KB", pr_policy = "rtx", pr_value = 2, priority = 3, weight = 2 },
]"#
        );
        assert!(load_toml(&text, "s.toml", "s", &[]).is_ok());
    }

    #[test]
    fn bad_sources_get_one_line_naming_the_key() {
        let cases = [
            (
                r#"stream_traffic = [{ stream = 0, message_size = "1KB", pr_policy = "lifetime", pr_value = "1s" }]"#,
                "s.toml: flows.m.stream_traffic.0.pr_policy: unknown policy \"lifetime\": expected \"none\", \"ttl\", \"rtx\" or \"prio\"",
            ),
            (
                r#"stream_traffic = [{ stream = 0, message_size = "1KB", pr_policy = "rtx", pr_value = "100ms" }]"#,
                "s.toml: flows.m.stream_traffic.0.pr_value: expected a whole number (the retransmission limit) for pr_policy = \"rtx\", got \"100ms\"",
            ),
            (
                r#"stream_traffic = [{ stream = 0, message_size = "1KB", pr_policy = "ttl", pr_value = 3 }]"#,
                "s.toml: flows.m.stream_traffic.0.pr_value: expected a time like \"100ms\" (the lifetime) for pr_policy = \"ttl\", got 3",
            ),
            (
                r#"stream_traffic = [{ stream = 2, message_size = "1KB" }]"#,
                "s.toml: flows.m.stream_traffic.0.stream: stream 2 does not exist: expected a stream number below streams = 2",
            ),
            (
                r#"stream_traffic = [{ stream = 0, message_size = "1KB", pr_policy = "prio" }]"#,
                "s.toml: flows.m.stream_traffic.0.pr_value: pr_policy = \"prio\" needs a pr_value (the priority, smaller is more important)",
            ),
            (
                r#"stream_traffic = [{ stream = 0, message_size = "1KB" }, { stream = 0, message_size = "2KB" }]"#,
                "s.toml: flows.m.stream_traffic.1.stream: stream 0 has a source already: one entry per stream",
            ),
            (
                "scheduler = \"wrr\"\nstream_traffic = [{ stream = 0, message_size = \"1KB\" }]",
                "s.toml: flows.m.scheduler: unknown scheduler \"wrr\": expected one of \"fcfs\", \"rr\", \"rr_packet\", \"priority\", \"fair\", \"wfq\"",
            ),
            (
                "scheduler = \"rr\"",
                "s.toml: flows.m.scheduler: scheduler \"rr\" schedules stream_traffic sources: expected a stream_traffic (the bulk application sends its messages round robin)",
            ),
        ];
        for (entries, want) in cases {
            assert_eq!(err(entries), want);
        }
    }
}
