//! Loading: TOML (or JSON) text -> overrides -> typed schema -> cross-reference checks.

use super::error::ScenarioError;
use super::overrides;
use super::schema::{
    CbrCfg, CbrPairsCfg, CongestionControl, FLOW_TYPES, FaultAction, FlowSpec, InitialCwnd,
    LossCfg, MobilityModel, QuicController, QuicFlowCfg, ScenarioFile, SctpCfg, TcpCfg,
};
use crate::net::routing::components;
use crate::net::{IfaceId, NodeId};
use crate::sim::{SimDuration, SimTime};
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, BTreeSet};
use toml::{Table, Value};

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub file: ScenarioFile,
    pub flows: Vec<FlowSpec>,
    /// Flow generators (`type = "cbr_pairs"`), expanded per run seed.
    pub generators: Vec<CbrPairsCfg>,
    /// The movement legs of `[mobility] file`, read and checked when the scenario loads.
    pub movement: Option<Vec<Vec<crate::wireless::mobility::Leg>>>,
    /// The scenario after overrides, as TOML: running it again gives the same run.
    pub resolved_toml: String,
}

/// What a `[[flows]]` entry becomes once typed.
enum TypedFlow {
    Flow(FlowSpec),
    Generator(CbrPairsCfg),
}

impl Scenario {
    /// The CBR flows the generators draw for this run seed, with their start times, in
    /// generator order: `<name>.<i>` between distinct ordered pairs of `among`.
    pub fn generated_flows(&self, seed: u64) -> Vec<CbrCfg> {
        let mut out = Vec::new();
        for g in &self.generators {
            let mut rng = crate::sim::RngStream::new(seed, &format!("flows:{}:pairs", g.name));
            let n = g.among.len();
            let lo = g.start_min.map_or(SimDuration::ZERO, |d| d.0);
            let hi = g.start_max.map_or(lo, |d| d.0).max(lo);
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            // Membership in a set: `count` may be up to n(n - 1), and a scan of the list
            // per draw made that quadratic. The draws and their order are unchanged.
            let mut drawn = std::collections::HashSet::new();
            while pairs.len() < g.count as usize {
                let a = (rng.uniform() * n as f64) as usize % n;
                let b = (rng.uniform() * n as f64) as usize % n;
                if a != b && drawn.insert((a, b)) {
                    pairs.push((a, b));
                }
            }
            for (i, (a, b)) in pairs.into_iter().enumerate() {
                let span = (hi.as_nanos() - lo.as_nanos()) as f64;
                let start = SimDuration::from_nanos(lo.as_nanos() + (rng.uniform() * span) as u64);
                out.push(CbrCfg {
                    name: format!("{}.{i}", g.name),
                    from: g.among[a].clone(),
                    to: g.among[b].clone(),
                    start: Some(super::units::Duration(start)),
                    stop: g.stop,
                    rate: g.rate,
                    packet_size: g.packet_size,
                    jitter: g.jitter,
                });
            }
        }
        out
    }

    pub fn duration(&self) -> Option<SimDuration> {
        self.file.duration.map(|d| d.0)
    }
    /// Measurement window [start, end); end defaults to the end of the run.
    pub fn window(&self) -> (SimTime, Option<SimTime>) {
        let start = self
            .file
            .measure
            .start
            .map_or(SimTime::ZERO, |d| SimTime::ZERO + d.0);
        let end = self.file.measure.end.map(|d| SimTime::ZERO + d.0);
        (start, end)
    }
}

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

fn typed_and_checked(
    table: Table,
    source: &str,
    default_name: &str,
) -> Result<Scenario, ScenarioError> {
    let root = Value::Table(table);
    let mut file: ScenarioFile = typed(&root, source, "")?;
    for link in &mut file.links {
        if let Some(raw) = &link.aqm {
            let prefix = format!("links.{}.aqm", link.name);
            link.aqm_cfg = Some(super::aqm::typed_aqm(raw, &prefix, source)?);
        }
    }
    let mut flows = Vec::with_capacity(file.flows.len());
    let mut generators = Vec::new();
    for (i, raw) in file.flows.iter().enumerate() {
        match typed_flow(raw, i, source)? {
            TypedFlow::Flow(f) => flows.push(f),
            TypedFlow::Generator(g) => generators.push(g),
        }
    }
    let resolved_toml = toml::to_string(&root).map_err(|e| {
        ScenarioError::new(source, "", format!("cannot write resolved scenario: {e}"))
    })?;
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| default_name.to_string());
    let mut scenario = Scenario {
        name,
        file,
        flows,
        generators,
        movement: None,
        resolved_toml,
    };
    validate(&scenario, source)?;
    scenario.movement = load_movement(&scenario, source)?;
    Ok(scenario)
}

/// Deserialises `value` into `T`, turning serde's path (`links[1].delay`) into the named
/// path users write (`links.bottleneck.delay`).
pub(super) fn typed<T: DeserializeOwned>(
    value: &Value,
    source: &str,
    prefix: &str,
) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let path = named_path(value, e.path());
        let full = match (prefix.is_empty(), path.is_empty()) {
            (true, _) => path,
            (false, true) => prefix.to_string(),
            (false, false) => format!("{prefix}.{path}"),
        };
        ScenarioError::new(source, full, e.into_inner().message().to_string())
    })
}

fn named_path(root: &Value, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out: Vec<String> = Vec::new();
    let mut cur = Some(root);
    for seg in path.iter() {
        match seg {
            Segment::Map { key } => {
                out.push(key.clone());
                cur = cur.and_then(|v| v.get(key.as_str()));
            }
            Segment::Seq { index } => {
                let item = cur.and_then(|v| v.get(*index));
                match item.and_then(|v| v.get("name")).and_then(Value::as_str) {
                    Some(name) => out.push(name.to_string()),
                    None => out.push(index.to_string()),
                }
                cur = item;
            }
            Segment::Enum { variant } => out.push(variant.clone()),
            Segment::Unknown => out.push("?".into()),
        }
    }
    out.join(".")
}

fn typed_flow(raw: &Table, index: usize, source: &str) -> Result<TypedFlow, ScenarioError> {
    let label = match raw.get("name").and_then(Value::as_str) {
        Some(n) => format!("flows.{n}"),
        None => format!("flows.{index}"),
    };
    let mut body = raw.clone();
    let kind = match body.remove("type") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(ScenarioError::new(
                source,
                format!("{label}.type"),
                format!(
                    "expected a string, one of {FLOW_TYPES:?}, got {}",
                    other.type_str()
                ),
            ));
        }
        None => {
            return Err(ScenarioError::new(
                source,
                format!("{label}.type"),
                format!("missing; expected one of {FLOW_TYPES:?}"),
            ));
        }
    };
    if matches!(kind.as_str(), "cbr" | "cbr_pairs") && body.contains_key("ecn") {
        return Err(ScenarioError::new(
            source,
            format!("{label}.ecn"),
            "applies to tcp and sctp flows only: a UDP flow has no congestion control to \
             answer a CE mark",
        ));
    }
    let body = Value::Table(body);
    match kind.as_str() {
        "cbr" => Ok(TypedFlow::Flow(FlowSpec::Cbr(typed(
            &body, source, &label,
        )?))),
        "tcp" => Ok(TypedFlow::Flow(FlowSpec::Tcp(typed(
            &body, source, &label,
        )?))),
        "sctp" => Ok(TypedFlow::Flow(FlowSpec::Sctp(typed(
            &body, source, &label,
        )?))),
        "quic" => Ok(TypedFlow::Flow(FlowSpec::Quic(typed(
            &body, source, &label,
        )?))),
        "cbr_pairs" => Ok(TypedFlow::Generator(typed(&body, source, &label)?)),
        other => Err(ScenarioError::new(
            source,
            format!("{label}.type"),
            format!("unknown flow type {other:?}; expected one of {FLOW_TYPES:?}"),
        )),
    }
}

fn check_name(source: &str, path: &str, name: &str) -> Result<(), ScenarioError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(
            source,
            path,
            format!("invalid name {name:?}: expected letters, digits, '_' or '-'"),
        ))
    }
}

fn check_unique<'a>(
    source: &str,
    list: &str,
    names: impl Iterator<Item = &'a str>,
) -> Result<BTreeMap<&'a str, usize>, ScenarioError> {
    let mut seen = BTreeMap::new();
    for (i, n) in names.enumerate() {
        check_name(source, &format!("{list}.{i}.name"), n)?;
        if seen.insert(n, i).is_some() {
            return Err(ScenarioError::new(
                source,
                format!("{list}.{n}"),
                format!("duplicate name {n:?} in {list}"),
            ));
        }
    }
    Ok(seen)
}

fn check_probability(source: &str, path: String, p: f64) -> Result<(), ScenarioError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(ScenarioError::new(
            source,
            path,
            format!("{p} is not a probability; expected a number from 0 to 1"),
        ))
    }
}

fn validate(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
    let nodes = check_unique(source, "nodes", f.nodes.iter().map(|n| n.name.as_str()))?;
    if nodes.is_empty() {
        return Err(err(
            "nodes".into(),
            "expected at least one [[nodes]] entry".into(),
        ));
    }
    check_unique(source, "links", f.links.iter().map(|l| l.name.as_str()))?;
    let flows = check_unique(
        source,
        "flows",
        s.flows
            .iter()
            .map(FlowSpec::name)
            .chain(s.generators.iter().map(|g| g.name.as_str())),
    )?;
    let node_list = || nodes.keys().copied().collect::<Vec<_>>().join(", ");

    if let Some(name) = &f.name {
        check_name(source, "name", name)?;
    }
    let mut adjacency: Vec<Vec<(IfaceId, NodeId)>> = vec![Vec::new(); f.nodes.len()];
    let mut pairs: BTreeMap<(usize, usize), &str> = BTreeMap::new();
    for link in &f.links {
        let p = format!("links.{}", link.name);
        let mut ends = [0usize; 2];
        for (k, (key, node)) in [("a", &link.a), ("b", &link.b)].into_iter().enumerate() {
            ends[k] = *nodes.get(node.as_str()).ok_or_else(|| {
                err(
                    format!("{p}.{key}"),
                    format!("unknown node {node:?}; expected one of: {}", node_list()),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(err(
                format!("{p}.b"),
                "a link must join two different nodes".into(),
            ));
        }
        if link.bandwidth.0 == 0 {
            return Err(err(
                format!("{p}.bandwidth"),
                "must be greater than zero".into(),
            ));
        }
        if link.queue == 0 {
            return Err(err(
                format!("{p}.queue"),
                "expected at least 1 packet".into(),
            ));
        }
        if link.queue_bytes.is_some_and(|b| b.0 == 0) {
            return Err(err(
                format!("{p}.queue_bytes"),
                "must be greater than zero (omit it for no byte limit)".into(),
            ));
        }
        super::aqm::validate(link, source)?;
        let pair = (ends[0].min(ends[1]), ends[0].max(ends[1]));
        if let Some(other) = pairs.insert(pair, &link.name) {
            return Err(err(
                format!("{p}.b"),
                format!(
                    "nodes {:?} and {:?} are already joined by link {other:?}; summary.json names \
                     link directions by their nodes, so parallel links are not supported",
                    link.a, link.b
                ),
            ));
        }
        let iface = IfaceId::from_idx(adjacency.iter().map(Vec::len).sum());
        adjacency[ends[0]].push((iface, NodeId::from_idx(ends[1])));
        adjacency[ends[1]].push((iface, NodeId::from_idx(ends[0])));
        if let Some(loss) = &link.loss {
            validate_loss(s, loss, &format!("{p}.loss"), source, &flows)?;
        }
    }
    let component = components(&adjacency);

    for flow in &s.flows {
        let p = format!("flows.{}", flow.name());
        let (from, to) = flow.endpoints();
        let mut ends = [0usize; 2];
        for (k, (key, node)) in [("from", from), ("to", to)].into_iter().enumerate() {
            ends[k] = *nodes.get(node).ok_or_else(|| {
                err(
                    format!("{p}.{key}"),
                    format!("unknown node {node:?}; expected one of: {}", node_list()),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(err(
                format!("{p}.to"),
                "a flow must join two different nodes".into(),
            ));
        }
        let wireless = |i: usize| f.nodes[i].wlan > 0;
        if wireless(ends[0]) != wireless(ends[1]) {
            // Either end's `wlan` may be what changed: name both, and report the error
            // at the one an override gave, if any.
            let (wl_from, wl_to) = (f.nodes[ends[0]].wlan, f.nodes[ends[1]].wlan);
            return Err(err(
                p.clone(),
                format!(
                    "{from:?} and {to:?}: one end is wireless and the other not \
                     (nodes.{from}.wlan = {wl_from}, nodes.{to}.wlan = {wl_to}); a network \
                     joining wired links and wireless NICs is not supported yet"
                ),
            )
            .with_related([format!("nodes.{from}.wlan"), format!("nodes.{to}.wlan")]));
        }
        if !wireless(ends[0]) && component[ends[0]] != component[ends[1]] {
            return Err(err(
                p.clone(),
                format!(
                    "no path between {from:?} and {to:?}: the nodes are not connected by links"
                ),
            ));
        }
        match flow {
            FlowSpec::Cbr(c) => validate_cbr(c, &p, source)?,
            FlowSpec::Tcp(c) => validate_tcp(c, &p, source)?,
            FlowSpec::Sctp(c) => validate_sctp(c, &p, source)?,
            FlowSpec::Quic(c) => validate_quic(c, &p, source)?,
        }
    }

    for g in &s.generators {
        validate_cbr_pairs(g, &nodes, &component, f, source)?;
    }
    let infinite: Vec<&str> = s
        .flows
        .iter()
        .filter(|f| !f.is_finite())
        .map(FlowSpec::name)
        .chain(
            s.generators
                .iter()
                .filter(|g| g.stop.is_none())
                .map(|g| g.name.as_str()),
        )
        .collect();
    let no_flows = s.flows.is_empty() && s.generators.is_empty();
    if f.duration.is_none() && (!infinite.is_empty() || no_flows) {
        let why = if no_flows {
            "there are no flows".to_string()
        } else {
            format!("flow(s) {} never finish", infinite.join(", "))
        };
        return Err(err(
            "duration".into(),
            format!("required because {why}; expected a time like \"10s\""),
        ));
    }
    if let Some(d) = f.duration {
        if d.0 == SimDuration::ZERO {
            return Err(err("duration".into(), "must be greater than zero".into()));
        }
    }
    let (start, end) = s.window();
    if let Some(d) = f.duration {
        if start >= SimTime::ZERO + d.0 {
            return Err(err(
                "measure.start".into(),
                "the measurement window's start (measure.start) must be earlier than duration"
                    .into(),
            )
            .with_related(["duration".to_string()]));
        }
    }
    if let Some(end) = end {
        if end <= start {
            return Err(err(
                "measure.end".into(),
                "the measurement window's end (measure.end) must be later than measure.start"
                    .into(),
            )
            .with_related(["measure.start".to_string()]));
        }
        if let Some(d) = f.duration {
            if end > SimTime::ZERO + d.0 {
                return Err(err(
                    "measure.end".into(),
                    "the measurement window's end (measure.end) must not be later than duration"
                        .into(),
                )
                .with_related(["duration".to_string()]));
            }
        }
    }
    if let Some(i) = f.series.interval {
        if i.0 == SimDuration::ZERO {
            return Err(err(
                "series.interval".into(),
                "must be greater than zero".into(),
            ));
        }
    }
    validate_snoop(s, &nodes, &pairs, source)?;
    validate_wireless(s, &adjacency, source)?;
    super::bounds::check(s, source)?;
    let names = iface_names(s, &adjacency);
    for flow in &s.flows {
        if let FlowSpec::Sctp(c) = flow {
            if let Some(primary) = &c.primary {
                let p = format!("flows.{}.primary", c.name);
                match parse_iface_ref(primary, &nodes, &names) {
                    Ok((n, _)) if Some(&n) != nodes.get(c.to.as_str()) => {
                        return Err(err(
                            p,
                            format!("{primary:?} is not an interface of the receiver {:?}", c.to),
                        ));
                    }
                    Ok(_) => {}
                    Err(m) => return Err(err(p, m)),
                }
            }
        }
    }
    validate_faults(s, &nodes, &names, source)
}

fn validate_wireless(
    s: &Scenario,
    adjacency: &[Vec<(IfaceId, NodeId)>],
    source: &str,
) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let m = &f.mobility;
    let Some(w) = &f.wireless else {
        if let Some(n) = f.nodes.iter().find(|n| n.wlan > 0) {
            return err(
                format!("nodes.{}.wlan", n.name),
                "wireless NICs need a [wireless] table (width, height, ...)".into(),
            );
        }
        if let Some(n) = f.nodes.iter().find(|n| n.x.is_some() || n.y.is_some()) {
            return err(
                format!("nodes.{}.x", n.name),
                "positions belong to wireless nodes (wlan > 0 and a [wireless] table)".into(),
            );
        }
        if m.model != MobilityModel::Static || m.file.is_some() || !m.fixed.is_empty() {
            return err("mobility".into(), "needs a [wireless] table".into());
        }
        return Ok(());
    };
    if s.duration().is_none() {
        return err(
            "duration".into(),
            "required with [wireless]: a partitioned network may never finish a transfer, and \
             routing timers never stop; expected a time like \"900s\""
                .into(),
        );
    }
    if w.width.0 == 0 || w.height.0 == 0 {
        return err(
            "wireless.width".into(),
            "the area must have a positive width and height".into(),
        );
    }
    if w.queue == 0 {
        return err("wireless.queue".into(), "expected at least 1 packet".into());
    }
    let p = &w.phy;
    for (key, v) in [
        ("tx_power_w", p.tx_power_w),
        ("frequency_hz", p.frequency_hz),
        ("tx_gain", p.tx_gain),
        ("rx_gain", p.rx_gain),
        ("rx_threshold_w", p.rx_threshold_w),
        ("cs_threshold_w", p.cs_threshold_w),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return err(
                format!("wireless.phy.{key}"),
                format!("expected a positive number, got {v}"),
            );
        }
    }
    if !(p.system_loss.is_finite() && p.system_loss >= 1.0) {
        return err(
            "wireless.phy.system_loss".into(),
            "expected a number of at least 1".into(),
        );
    }
    if !(p.capture_ratio.is_finite() && p.capture_ratio >= 1.0) {
        return err(
            "wireless.phy.capture_ratio".into(),
            "expected a power ratio of at least 1".into(),
        );
    }
    if p.antenna_height.0 == 0 {
        return err(
            "wireless.phy.antenna_height".into(),
            "must be greater than zero".into(),
        );
    }
    if p.cs_threshold_w > p.rx_threshold_w {
        return err(
            "wireless.phy.cs_threshold_w".into(),
            "must not exceed rx_threshold_w (a frame one can decode is also sensed)".into(),
        );
    }
    let mac = &w.mac;
    for (key, v) in [
        ("data_rate", mac.data_rate.0),
        ("basic_rate", mac.basic_rate.0),
        ("plcp_rate", mac.plcp_rate.0),
    ] {
        if v == 0 {
            return err(
                format!("wireless.mac.{key}"),
                "must be greater than zero".into(),
            );
        }
    }
    if mac.slot.0 == crate::sim::SimDuration::ZERO {
        return err(
            "wireless.mac.slot".into(),
            "must be greater than zero".into(),
        );
    }
    if mac.cw_min == 0 || mac.cw_max < mac.cw_min || mac.cw_max > 65_535 {
        return err(
            "wireless.mac.cw_max".into(),
            "expected 1 <= cw_min <= cw_max <= 65535".into(),
        );
    }
    if mac.short_retry_limit == 0 || mac.long_retry_limit == 0 {
        return err(
            "wireless.mac.short_retry_limit".into(),
            "retry limits must be at least 1".into(),
        );
    }
    let area = (w.width.meters(), w.height.meters());
    let positions_given = m.model == MobilityModel::Static && m.file.is_none();
    for (i, n) in f.nodes.iter().enumerate() {
        let p = format!("nodes.{}", n.name);
        if n.wlan > 4 {
            return err(
                format!("{p}.wlan"),
                format!("expected 0 to 4 wireless NICs, got {}", n.wlan),
            );
        }
        if n.wlan > 0 && !adjacency[i].is_empty() {
            return err(
                format!("{p}.wlan"),
                "a node with both links and wireless NICs is not supported yet".into(),
            );
        }
        if n.wlan > 0
            && s.file
                .snoop
                .iter()
                .any(|a| a.node == n.name || a.mobile == n.name)
        {
            return err(
                format!("{p}.wlan"),
                "snoop agents run on wired links only".into(),
            );
        }
        match (positions_given && n.wlan > 0, n.x, n.y) {
            (true, Some(x), Some(y)) => {
                if x.meters() > area.0 || y.meters() > area.1 {
                    return err(
                        format!("{p}.x"),
                        format!(
                            "({} m, {} m) is outside the area of {} m x {} m",
                            x.meters(),
                            y.meters(),
                            area.0,
                            area.1
                        ),
                    );
                }
            }
            (true, _, _) => {
                // The node's position or the mobility model may be what changed.
                return Err(ScenarioError::new(
                    source,
                    format!("{p}.x"),
                    format!(
                        "mobility.model = \"static\" (without a movement file) needs x and y \
                         on every wireless node, and {:?} lacks them",
                        n.name
                    ),
                )
                .with_related(["mobility.model".to_string()]));
            }
            (false, None, None) => {}
            (false, _, _) => {
                return err(
                    format!("{p}.x"),
                    "positions come from [mobility] (random waypoint or a movement file); \
                     x and y are only for model = \"static\" on wireless nodes"
                        .into(),
                );
            }
        }
    }
    if m.model == MobilityModel::RandomWaypoint && m.file.is_none() && m.max_speed.is_none() {
        return err(
            "mobility.max_speed".into(),
            "required for model = \"random_waypoint\"; expected a speed like \"10m/s\"".into(),
        );
    }
    for (i, name) in m.fixed.iter().enumerate() {
        if !f.nodes.iter().any(|n| &n.name == name && n.wlan > 0) {
            return err(
                format!("mobility.fixed.{i}"),
                format!("{name:?} is not a wireless node"),
            );
        }
    }
    Ok(())
}

/// Reads and checks `[mobility] file` (an ns-2 setdest file): one line naming the file
/// and the line that is wrong.
fn load_movement(
    s: &Scenario,
    source: &str,
) -> Result<Option<Vec<Vec<crate::wireless::mobility::Leg>>>, ScenarioError> {
    let (Some(w), Some(path)) = (&s.file.wireless, &s.file.mobility.file) else {
        return Ok(None);
    };
    let err = |msg: String| ScenarioError::new(source, "mobility.file", msg);
    let text =
        std::fs::read_to_string(path).map_err(|e| err(format!("cannot read {path:?}: {e}")))?;
    let area = crate::wireless::mobility::Area::new(w.width.meters(), w.height.meters())
        .map_err(|e| err(e.0))?;
    crate::wireless::setdest::parse(&text, s.file.nodes.len(), area)
        .map(Some)
        .map_err(|e| err(format!("{path}: {e}")))
}

/// The interface names of every node: `eth<k>` for its link ends, then `wlan<k>`.
pub(crate) fn iface_names(s: &Scenario, adjacency: &[Vec<(IfaceId, NodeId)>]) -> Vec<Vec<String>> {
    s.file
        .nodes
        .iter()
        .zip(adjacency)
        .map(|(n, adj)| {
            let links = adj.len();
            (0..links)
                .map(|k| format!("eth{k}"))
                .chain((links..links + n.wlan as usize).map(|k| format!("wlan{k}")))
                .collect()
        })
        .collect()
}

/// Resolves `"<node>:<iface>"` to (node index, interface number).
pub(crate) fn parse_iface_ref(
    text: &str,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
) -> Result<(usize, usize), String> {
    let Some((node, iface)) = text.split_once(':') else {
        return Err(format!(
            "expected \"<node>:<iface>\", e.g. \"host:eth1\", got {text:?}"
        ));
    };
    let Some(&n) = nodes.get(node) else {
        return Err(format!("unknown node {node:?} in {text:?}"));
    };
    names[n]
        .iter()
        .position(|x| x == iface)
        .map(|k| (n, k))
        .ok_or_else(|| {
            format!(
                "node {node:?} has no interface {iface:?}; expected one of: {}",
                names[n].join(", ")
            )
        })
}

fn validate_faults(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let named: Vec<&str> = s
        .file
        .faults
        .iter()
        .filter_map(|f| f.name.as_deref())
        .collect();
    check_unique(source, "faults", named.into_iter())?;
    let links: BTreeMap<&str, ()> = s.file.links.iter().map(|l| (l.name.as_str(), ())).collect();
    // Per link, its down/up events in time order must alternate, starting with down.
    let mut per_link: BTreeMap<&str, Vec<(SimDuration, FaultAction, String)>> = BTreeMap::new();
    for (i, f) in s.file.faults.iter().enumerate() {
        let p = format!("faults.{}", f.name.clone().unwrap_or_else(|| i.to_string()));
        if s.duration().is_some_and(|d| f.at.0 > d) {
            return err(
                format!("{p}.at"),
                "is after the end of the run (duration)".into(),
            );
        }
        match f.action {
            FaultAction::Down | FaultAction::Up => {
                let Some(link) = &f.link else {
                    return err(format!("{p}.link"), "required for action down/up".into());
                };
                if !links.contains_key(link.as_str()) {
                    let have: Vec<&str> = links.keys().copied().collect();
                    return err(
                        format!("{p}.link"),
                        format!(
                            "unknown link {link:?}; expected one of: {}",
                            have.join(", ")
                        ),
                    );
                }
                if f.flow.is_some() || f.primary.is_some() {
                    return err(
                        p,
                        "flow and primary belong to action \"set_primary\"".into(),
                    );
                }
                per_link
                    .entry(link.as_str())
                    .or_default()
                    .push((f.at.0, f.action, p));
            }
            FaultAction::SetPrimary => {
                let Some(flow) = &f.flow else {
                    return err(
                        format!("{p}.flow"),
                        "required for action set_primary".into(),
                    );
                };
                let Some(FlowSpec::Sctp(c)) = s.flows.iter().find(|x| x.name() == flow) else {
                    return err(
                        format!("{p}.flow"),
                        format!(
                            "{flow:?} is not an SCTP flow; expected the name of a flow of type \"sctp\""
                        ),
                    );
                };
                let Some(primary) = &f.primary else {
                    return err(
                        format!("{p}.primary"),
                        "required for action set_primary".into(),
                    );
                };
                match parse_iface_ref(primary, nodes, names) {
                    Ok((n, _)) if Some(&n) != nodes.get(c.to.as_str()) => {
                        return err(
                            format!("{p}.primary"),
                            format!(
                                "{primary:?} is not an interface of the flow's receiver {:?}",
                                c.to
                            ),
                        );
                    }
                    Ok(_) => {}
                    Err(m) => return err(format!("{p}.primary"), m),
                }
                if f.link.is_some() {
                    return err(format!("{p}.link"), "belongs to actions down/up".into());
                }
            }
        }
    }
    for (link, mut events) in per_link {
        events.sort_by_key(|e| e.0);
        let mut down = false;
        for (k, (at, action, p)) in events.iter().enumerate() {
            if k > 0 && events[k - 1].0 == *at {
                return err(
                    format!("{p}.at"),
                    format!("link {link:?} has two faults at the same time"),
                );
            }
            let wants_down = *action == FaultAction::Down;
            if wants_down == down {
                let state = if down { "down" } else { "up" };
                return err(
                    format!("{p}.action"),
                    format!(
                        "link {link:?} is already {state} at {} s; expected down and up to alternate, starting with down",
                        at.as_secs_f64()
                    ),
                );
            }
            down = wants_down;
        }
    }
    Ok(())
}

fn validate_snoop(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    pairs: &BTreeMap<(usize, usize), &str>,
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    check_unique(
        source,
        "snoop",
        s.file.snoop.iter().map(|a| a.name.as_str()),
    )?;
    let node_list = || nodes.keys().copied().collect::<Vec<_>>().join(", ");
    let mut on_node: BTreeMap<usize, &str> = BTreeMap::new();
    for a in &s.file.snoop {
        let p = format!("snoop.{}", a.name);
        let Some(&node) = nodes.get(a.node.as_str()) else {
            return err(
                format!("{p}.node"),
                format!(
                    "unknown node {:?}; expected one of: {}",
                    a.node,
                    node_list()
                ),
            );
        };
        let Some(&mobile) = nodes.get(a.mobile.as_str()) else {
            return err(
                format!("{p}.mobile"),
                format!(
                    "unknown node {:?}; expected one of: {}",
                    a.mobile,
                    node_list()
                ),
            );
        };
        if !pairs.contains_key(&(node.min(mobile), node.max(mobile))) {
            return err(
                format!("{p}.mobile"),
                format!(
                    "{:?} is not linked to the base station {:?}; expected a node with a link to it",
                    a.mobile, a.node
                ),
            );
        }
        if let Some(other) = on_node.insert(node, &a.name) {
            return err(
                format!("{p}.node"),
                format!(
                    "node {:?} already runs snoop agent {other:?}; expected one agent per node",
                    a.node
                ),
            );
        }
        if a.cache_packets == 0 {
            return err(
                format!("{p}.cache_packets"),
                "expected at least 1 packet".into(),
            );
        }
        if a.dupack_thresh == 0 {
            return err(
                format!("{p}.dupack_thresh"),
                "expected at least 1 duplicate ack".into(),
            );
        }
        if a.timer_min.0 == SimDuration::ZERO {
            return err(format!("{p}.timer_min"), "must be greater than zero".into());
        }
        if a.timer_max.0 < a.timer_min.0 {
            return err(
                format!("{p}.timer_max"),
                "must not be less than timer_min".into(),
            );
        }
    }
    Ok(())
}

fn validate_loss(
    s: &Scenario,
    loss: &LossCfg,
    p: &str,
    source: &str,
    flows: &BTreeMap<&str, usize>,
) -> Result<(), ScenarioError> {
    if let Some(r) = loss.rate {
        check_probability(source, format!("{p}.rate"), r)?;
    }
    if let Some(b) = loss.ber {
        check_probability(source, format!("{p}.ber"), b)?;
    }
    if let Some(g) = &loss.gilbert {
        for (k, v) in [
            ("p_good_bad", g.p_good_bad),
            ("p_bad_good", g.p_bad_good),
            ("loss_good", g.loss_good),
            ("loss_bad", g.loss_bad),
        ] {
            check_probability(source, format!("{p}.gilbert.{k}"), v)?;
        }
    }
    if let Some(drops) = &loss.drops {
        if drops.contains(&0) {
            return Err(ScenarioError::new(
                source,
                format!("{p}.drops"),
                "packet numbers start at 1 (CONTRACTS numbering)",
            ));
        }
        match &loss.flow {
            Some(name) if !flows.contains_key(name.as_str()) => {
                let have: BTreeSet<&str> = flows.keys().copied().collect();
                return Err(ScenarioError::new(
                    source,
                    format!("{p}.flow"),
                    format!(
                        "unknown flow {name:?}; expected one of: {}",
                        have.into_iter().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            None if s.flows.len() != 1 => {
                return Err(ScenarioError::new(
                    source,
                    format!("{p}.flow"),
                    format!(
                        "a drop list needs the name of the flow whose packets it drops (the scenario has {} flows)",
                        s.flows.len()
                    ),
                ));
            }
            _ => {}
        }
    } else if loss.flow.is_some() {
        return Err(ScenarioError::new(
            source,
            format!("{p}.flow"),
            "only used with a drop list (drops = [...])",
        ));
    }
    Ok(())
}

fn validate_cbr_pairs(
    g: &CbrPairsCfg,
    nodes: &BTreeMap<&str, usize>,
    component: &[u32],
    f: &ScenarioFile,
    source: &str,
) -> Result<(), ScenarioError> {
    let p = format!("flows.{}", g.name);
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let mut seen = BTreeSet::new();
    let mut first: Option<(&str, usize)> = None;
    for (i, n) in g.among.iter().enumerate() {
        let Some(&k) = nodes.get(n.as_str()) else {
            return err(format!("{p}.among.{i}"), format!("unknown node {n:?}"));
        };
        if !seen.insert(n.as_str()) {
            return err(
                format!("{p}.among.{i}"),
                format!("node {n:?} is listed twice"),
            );
        }
        // Any two of `among` may be drawn as a pair, and each pair becomes a `cbr` flow:
        // refuse here what a `cbr` flow between them would be refused for.
        let Some((a, j)) = first else {
            first = Some((n.as_str(), k));
            continue;
        };
        let wireless = |x: usize| f.nodes[x].wlan > 0;
        if wireless(j) != wireless(k) {
            return err(
                format!("{p}.among.{i}"),
                format!(
                    "{a:?} and {n:?}: one is wireless and the other not, and a flow between \
                     them is not supported; expected nodes that are all wired or all wireless"
                ),
            );
        }
        if !wireless(k) && component[j] != component[k] {
            return err(
                format!("{p}.among.{i}"),
                format!(
                    "no path between {a:?} and {n:?}: the nodes are not connected by links, \
                     and any two of `among` may be drawn as a pair"
                ),
            );
        }
    }
    let n = g.among.len() as u64;
    if g.count == 0 || u64::from(g.count) > n * n.saturating_sub(1) {
        return err(
            format!("{p}.count"),
            format!(
                "expected 1 to {} flows: {n} nodes in `among` make {} distinct ordered pairs",
                n * n.saturating_sub(1),
                n * n.saturating_sub(1)
            ),
        );
    }
    if let (Some(a), Some(b)) = (g.start_min, g.start_max) {
        if b < a {
            return err(
                format!("{p}.start_max"),
                "must not be earlier than start_min".into(),
            );
        }
    }
    let one = CbrCfg {
        name: g.name.clone(),
        from: String::new(),
        to: String::new(),
        start: g.start_max.or(g.start_min),
        stop: g.stop,
        rate: g.rate,
        packet_size: g.packet_size,
        jitter: g.jitter,
    };
    validate_cbr(&one, &p, source)
}

fn validate_cbr(c: &CbrCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    if c.rate.0 == 0 {
        return Err(ScenarioError::new(
            source,
            format!("{p}.rate"),
            "must be greater than zero",
        ));
    }
    if let Some(size) = c.packet_size {
        // Largest UDP payload in one IPv4 datagram: 65535 - 20 - 8.
        if size.0 == 0 || size.0 > 65_507 {
            return Err(ScenarioError::new(
                source,
                format!("{p}.packet_size"),
                "expected a UDP payload from 1B to 65507B",
            ));
        }
    }
    if let (Some(start), Some(stop)) = (c.start, c.stop) {
        if stop <= start {
            return Err(ScenarioError::new(
                source,
                format!("{p}.stop"),
                "must be later than start",
            ));
        }
    }
    Ok(())
}

fn validate_tcp(c: &TcpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| Err(ScenarioError::new(source, format!("{p}.{key}"), msg));
    // 65535 - 20 (IPv4) - 20 (TCP) - 40 (options): the largest payload that fits.
    if c.segment_size.0 == 0 || c.segment_size.0 > 65_455 {
        return bad("segment_size", "expected a payload from 1B to 65455B");
    }
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.window == 0 {
        return bad("window", "expected at least 1 segment");
    }
    if !(c.initial_window.is_finite() && c.initial_window >= 1.0) {
        return bad("initial_window", "expected at least 1 segment");
    }
    if c.initial_ssthresh
        .is_some_and(|s| !(s.is_finite() && s >= 2.0))
    {
        return bad("initial_ssthresh", "expected at least 2 segments");
    }
    if c.dupack_threshold == 0 {
        return bad("dupack_threshold", "expected at least 1");
    }
    if c.hystart.is_some() && c.congestion_control != CongestionControl::Cubic {
        return bad(
            "hystart",
            "HyStart++ is part of CUBIC's slow start: expected it only with \
             congestion_control = \"cubic\"",
        );
    }
    if c.pacing == Some(false) && c.congestion_control == CongestionControl::Bbr {
        return bad(
            "pacing",
            "BBR sets a pacing rate and needs it (its model is rate-based): expected \
             pacing = true or no `pacing` with congestion_control = \"bbr\"",
        );
    }
    if c.max_sack_blocks > 4 {
        return bad(
            "max_sack_blocks",
            "a TCP header holds at most 4 SACK blocks (RFC 2018)",
        );
    }
    if c.rto_min.0 > c.rto_max.0 {
        return bad("rto_min", "must not exceed rto_max");
    }
    if c.clock_granularity.0 == SimDuration::ZERO {
        return bad("clock_granularity", "must be greater than zero");
    }
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    Ok(())
}

fn validate_quic(c: &QuicFlowCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| Err(ScenarioError::new(source, format!("{p}.{key}"), msg));
    if c.congestion_control == QuicController::Bbr {
        return bad(
            "congestion_control",
            "\"bbr\" is not available for quic flows yet: quinn-proto 0.11's BBR seeds its gain \
             cycle from the operating system, which would make runs irreproducible; expected \
             \"reno\" or \"cubic\"",
        );
    }
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.streams == 0 || c.streams > 1024 {
        return bad("streams", "expected from 1 to 1024 streams");
    }
    if c.message_size.0 == 0 || c.message_size.0 > 1 << 20 {
        return bad("message_size", "expected from 1B to 1MiB");
    }
    // RFC 9000 sec. 14: every QUIC path carries 1200-byte UDP payloads; 65527 is the
    // most an IPv4/UDP datagram holds.
    if c.max_udp_payload
        .is_some_and(|m| m.0 < 1200 || m.0 > 65_527)
    {
        return bad("max_udp_payload", "expected from 1200B to 65527B");
    }
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    Ok(())
}

/// `p` is the flow's key prefix (`flows.f`), empty in live mode where keys stand alone.
pub(crate) fn validate_sctp(c: &SctpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: &str| {
        let path = if p.is_empty() {
            key.to_string()
        } else {
            format!("{p}.{key}")
        };
        Err(ScenarioError::new(source, path, msg))
    };
    // IPv4 (20) + common header (12) + one DATA chunk header (16) + 4 bytes of data.
    if c.mtu.0 < 52 || c.mtu.0 > 65_535 {
        return bad("mtu", "expected a packet size from 52B to 65535B");
    }
    if c.message_size.0 == 0 {
        return bad("message_size", "must be greater than zero");
    }
    if c.bytes.is_some_and(|b| b.0 == 0) {
        return bad(
            "bytes",
            "must be greater than zero (omit it for a bulk transfer)",
        );
    }
    if c.bytes.is_some() && c.stop.is_some() {
        return bad("stop", "only a bulk transfer (no `bytes`) can be stopped");
    }
    if c.congestion_control == CongestionControl::Bbr {
        return bad(
            "congestion_control",
            "BBR is not built for sctp flows (it needs per-destination delivery-rate \
             samples): expected \"reno\" or \"cubic\"",
        );
    }
    if c.hystart.is_some() && c.congestion_control != CongestionControl::Cubic {
        return bad(
            "hystart",
            "HyStart++ is part of CUBIC's slow start: expected it only with \
             congestion_control = \"cubic\"",
        );
    }
    if c.pacing == Some(true) {
        return bad(
            "pacing",
            "pacing is not built for sctp flows: expected pacing = false or no `pacing`",
        );
    }
    if c.streams == 0 {
        return bad("streams", "expected at least 1 stream");
    }
    if c.receive_buffer.0 < 1024 {
        return bad("receive_buffer", "expected at least 1024B");
    }
    // The largest DATA chunk the flow sends (16-byte header, payload cut to the packet's
    // room in whole words) must fit the buffer, or no chunk is ever accepted.
    let room = c.mtu.0.saturating_sub(32 + 16) / 4 * 4;
    let largest = 16 + c.message_size.0.min(room);
    if c.receive_buffer.0 < largest {
        return bad(
            "receive_buffer",
            &format!(
                "expected at least {largest}B, the largest DATA chunk of this mtu and message_size"
            ),
        );
    }
    if c.fast_rtx_threshold == Some(0) {
        return bad("fast_rtx_threshold", "expected at least 1 missing report");
    }
    if let Some(InitialCwnd::Mtus(m)) = c.initial_cwnd {
        if !(m.is_finite() && m > 0.0) {
            return bad(
                "initial_cwnd",
                "expected a positive number of MTUs or a size like \"4380B\"",
            );
        }
    }
    if c.rto_min.0 > c.rto_max.0 {
        return bad("rto_min", "must not exceed rto_max");
    }
    if let Some(stop) = c.stop {
        if stop.0 <= c.start.map_or(SimDuration::ZERO, |s| s.0) {
            return bad("stop", "must be later than start");
        }
    }
    super::streams::validate(c, p, source)
}
