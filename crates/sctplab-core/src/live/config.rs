//! The live association's configuration: the same SCTP flow keys as a scenario's
//! `[[flows]]` entry (`scenario::schema::SctpCfg`), from a scenario file's flow entry
//! or the defaults, with `--set KEY=VALUE` overrides addressed to the flow's keys
//! (`variant=newreno`, `rto_min=200ms`), validated exactly as in a scenario. This is the
//! only part of `live/` that knows the scenario format: the entry is mapped onto the
//! machine's `AssocCfg` by the same function the simulator's world uses
//! (`SctpCfg::assoc_cfg`), and the session sees only that.

use crate::scenario::ScenarioError;
use crate::scenario::bounds::check_sctp;
use crate::scenario::overrides;
use crate::scenario::schema::SctpCfg;
use crate::scenario::units::parse_duration;
use crate::scenario::validate::validate_sctp;
use crate::sctp::streams::{PrPolicy, StreamSourceCfg};
use crate::sctp::{AssocCfg, Role};
use crate::sim::SimTime;
use toml::{Table, Value};

/// Variant of a live association when neither the flow entry nor `--set` names one.
pub const DEFAULT_VARIANT: &str = "rfc9260";

/// Where a flow entry comes from: a scenario's text and the name of its SCTP flow.
pub struct FlowSource<'a> {
    pub source: &'a str,
    pub text: &'a str,
    pub flow: &'a str,
}

fn err(source: &str, path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(source, path, msg)
}

/// The flow table: the named entry of `scenario`, or a bare SCTP flow.
fn flow_table(scenario: Option<&FlowSource<'_>>) -> Result<Table, ScenarioError> {
    let Some(s) = scenario else {
        let mut t = Table::new();
        t.insert("name".into(), Value::String("live".into()));
        t.insert("variant".into(), Value::String(DEFAULT_VARIANT.into()));
        return Ok(t);
    };
    let root: Table = s.text.parse().map_err(|e: toml::de::Error| {
        err(s.source, "", format!("invalid TOML: {}", e.message()))
    })?;
    let flows = root
        .get("flows")
        .and_then(Value::as_array)
        .ok_or_else(|| err(s.source, "flows", "expected a list of [[flows]] entries"))?;
    let entry = flows
        .iter()
        .filter_map(Value::as_table)
        .find(|t| t.get("name").and_then(Value::as_str) == Some(s.flow))
        .ok_or_else(|| {
            err(
                s.source,
                format!("flows.{}", s.flow),
                "no flow of that name",
            )
        })?;
    match entry.get("type").and_then(Value::as_str) {
        Some("sctp") => Ok(entry.clone()),
        other => Err(err(
            s.source,
            format!("flows.{}.type", s.flow),
            format!("{other:?}: expected \"sctp\" (live mode runs SCTP only)"),
        )),
    }
}

/// Resolves the SCTP flow a live endpoint runs. `sets` are (key, TOML value) pairs on
/// the flow's own keys. `from`, `to` and `type` are not used live and may be absent.
pub fn flow_config(
    scenario: Option<&FlowSource<'_>>,
    sets: &[(String, String)],
) -> Result<SctpCfg, ScenarioError> {
    let mut t = flow_table(scenario)?;
    t.remove("type");
    t.entry("from").or_insert(Value::String("client".into()));
    t.entry("to").or_insert(Value::String("server".into()));
    for (key, value) in sets {
        overrides::apply(&mut t, key, overrides::parse_value(value))?;
    }
    let source = scenario.map_or("--set", |s| s.source);
    let v = Value::Table(t);
    let c = serde_path_to_error::deserialize::<_, SctpCfg>(v).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        err(source, path, e.into_inner().message().to_string())
    })?;
    // The simulator's checks: a value `sctplab run` refuses (an mtu of 1 B, no streams)
    // would otherwise stall the session until its timeout.
    validate_sctp(&c, "", source)
        .and_then(|()| check_sctp(&c, "", source))
        .map_err(|mut e| {
            if let Some((k, v)) = sets.iter().rev().find(|(k, _)| *k == e.path) {
                e.source = format!("--set {k}={v}");
            }
            e
        })?;
    if c.stream_traffic.is_some() {
        // PR-SCTP against a real stack is issue 36's live slice, not built yet.
        return Err(err(
            source,
            "stream_traffic",
            "not built for live mode yet: live endpoints send the bulk application",
        ));
    }
    Ok(c)
}

/// `--pr ttl:TIME|rtx:N` (CONTRACTS.md "Messages: ..."): timed reliability, TIME a
/// duration as elsewhere (`100ms`), or limited retransmissions (RFC 7496 sec. 2, 3).
pub fn parse_pr(arg: &str) -> Result<PrPolicy, String> {
    let bad = |why: String| {
        format!("--pr {arg}: {why}; expected ttl:TIME (e.g. ttl:100ms) or rtx:N (e.g. rtx:2)")
    };
    match arg.split_once(':') {
        Some(("ttl", t)) => parse_duration(t)
            .map(PrPolicy::Ttl)
            .map_err(|e| bad(format!("{t:?} {e}"))),
        Some(("rtx", n)) => n
            .parse::<u32>()
            .map(PrPolicy::Rtx)
            .map_err(|_| bad(format!("{n:?} is not a count"))),
        _ => Err(bad("unknown policy".into())),
    }
}

/// PR-SCTP on a live end (RFC 3758): Forward-TSN-Supported in its INIT or INIT ACK,
/// and at the client every message under `pr`. The machine runs PR-SCTP on
/// `stream_traffic` sources, so the client's round-robin messages become one backlog
/// source per stream (taking turns in stream order, as the bulk application does) of
/// `message_size` bytes; the session stops them after `total / message_size`
/// messages (`StreamSources::limit_messages`, set when the INIT ACK has built them,
/// before the COOKIE ACK lets them submit anything). The server sends nothing: one
/// entry only announces the extension.
pub fn apply_pr(assoc: &mut AssocCfg, role: Role, pr: PrPolicy) {
    let entry = |stream: u16| StreamSourceCfg {
        stream,
        message_size: assoc.message_size.max(1),
        interval: None,
        start: SimTime::ZERO,
        stop: None,
        priority: 0,
        weight: 1,
        pr,
    };
    assoc.stream_traffic = match role {
        Role::Client => (0..assoc.streams.max(1)).map(entry).collect(),
        Role::Server => vec![entry(0)],
    };
}

/// The association a live end runs, from a scenario's flow entry or the defaults and
/// `sets` (see [`flow_config`]), as the simulator builds it (`world::build`): started
/// at once and measured over the whole session. Ports and addresses are the session's
/// to fill in (`Session::new`).
pub fn assoc_config(
    scenario: Option<&FlowSource<'_>>,
    sets: &[(String, String)],
) -> Result<AssocCfg, ScenarioError> {
    Ok(flow_config(scenario, sets)?.assoc_cfg((0, 0), Vec::new(), [0; 4]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::SctpVariant;

    fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_and_overrides() {
        let c = flow_config(None, &[]).expect("defaults");
        assert_eq!(c.variant, SctpVariant::Rfc9260);
        // RFC 9260 15: RTO.Min 1 s; schema default MTU 1500 B.
        assert_eq!(c.rto_min.0.as_nanos(), 1_000_000_000);
        assert_eq!(c.mtu.0, 1500);
        let c = flow_config(
            None,
            &sets(&[
                ("variant", "newreno"),
                ("rto_min", "200ms"),
                ("streams", "4"),
            ]),
        )
        .expect("overrides");
        assert_eq!(c.variant, SctpVariant::Newreno);
        assert_eq!(c.rto_min.0.as_nanos(), 200_000_000);
        assert_eq!(c.streams, 4);
    }

    #[test]
    fn the_association_is_the_simulators() {
        // `--set` on the flow's keys reaches the machine's configuration through the
        // scenario mapping: NewReno's preset (seed 002 sec. 2.2: fast recovery on) with
        // an RTO.Min of 200 ms and 4 streams, and RFC 9260 15's RTO.Initial of 3 s kept.
        let a = assoc_config(
            None,
            &sets(&[
                ("variant", "newreno"),
                ("rto_min", "200ms"),
                ("streams", "4"),
            ]),
        )
        .expect("assoc");
        assert!(a.knobs.fast_recovery);
        assert_eq!(a.rto_min.as_nanos(), 200_000_000);
        assert_eq!(a.rto_initial.as_nanos(), 3_000_000_000);
        assert_eq!(a.streams, 4);
        assert_eq!(a.pmtu, 1500);
        assert!(assoc_config(None, &sets(&[("streams", "many")])).is_err());
    }

    #[test]
    fn pr_argument() {
        assert_eq!(
            parse_pr("ttl:100ms"),
            Ok(PrPolicy::Ttl(crate::sim::SimDuration::from_millis(100)))
        );
        assert_eq!(parse_pr("rtx:0"), Ok(PrPolicy::Rtx(0)));
        for bad in ["ttl:100", "rtx:-1", "prio:1", "ttl", ""] {
            let e = parse_pr(bad).expect_err(bad);
            assert!(e.starts_with(&format!("--pr {bad}: ")), "{e}");
            assert!(!e.contains('\n'));
        }
        // The client: one backlog source per stream under the policy; the server one.
        let mut a = assoc_config(
            None,
            &sets(&[
                ("streams", "4"),
                ("bytes", "10000B"),
                ("message_size", "1000B"),
            ]),
        )
        .expect("assoc");
        apply_pr(&mut a, Role::Client, PrPolicy::Rtx(1));
        assert_eq!(a.stream_traffic.len(), 4);
        assert!(
            a.stream_traffic.iter().all(|s| s.pr == PrPolicy::Rtx(1)
                && s.message_size == 1000
                && s.interval.is_none())
        );
        let mut s = assoc_config(None, &[]).expect("assoc");
        apply_pr(&mut s, Role::Server, PrPolicy::Rtx(1));
        assert_eq!(s.stream_traffic.len(), 1);
    }

    #[test]
    fn bad_keys_and_values_name_the_path() {
        let e = flow_config(None, &sets(&[("rto_minn", "1s")])).expect_err("unknown key");
        assert!(e.to_string().contains("rto_minn"), "{e}");
        let e = flow_config(None, &sets(&[("rto_min", "fast")])).expect_err("bad value");
        assert!(e.to_string().contains("rto_min"), "{e}");
    }

    /// Issue 29 item 7: what `sctplab run` refuses, live mode refuses too, in one line
    /// naming the override, instead of a session that stalls until its timeout.
    #[test]
    fn values_the_simulator_refuses_are_refused_live() {
        for (key, value) in [
            ("mtu", "1B"),
            ("receive_buffer", "1B"),
            ("streams", "0"),
            ("message_size", "0B"),
            ("rto_min", "0s"),
            ("cookie_lifetime", "0s"),
            ("initial_cwnd", "0B"),
        ] {
            let e = flow_config(None, &sets(&[(key, value)])).expect_err(key);
            let line = e.to_string();
            assert!(
                line.starts_with(&format!("--set {key}={value}: {key}: ")),
                "{line}"
            );
            assert!(!line.contains('\n'), "{line}");
        }
        // A value the simulator accepts stays accepted.
        flow_config(None, &sets(&[("mtu", "576B"), ("streams", "2")])).expect("valid");
    }

    #[test]
    fn flow_entry_of_a_scenario() {
        let text = r#"
[[flows]]
name = "a"
type = "tcp"
from = "n1"
to = "n2"
variant = "reno"

[[flows]]
name = "s"
type = "sctp"
from = "n1"
to = "n2"
variant = "original"
delayed_sack = false
"#;
        let src = FlowSource {
            source: "x.toml",
            text,
            flow: "s",
        };
        let c = flow_config(Some(&src), &sets(&[("variant", "newreno-star")])).expect("flow");
        assert_eq!(c.variant, SctpVariant::NewrenoStar);
        assert!(!c.delayed_sack);
        let tcp = FlowSource { flow: "a", ..src };
        assert!(flow_config(Some(&tcp), &[]).is_err());
        let missing = FlowSource { flow: "zz", ..tcp };
        assert!(flow_config(Some(&missing), &[]).is_err());
    }
}
