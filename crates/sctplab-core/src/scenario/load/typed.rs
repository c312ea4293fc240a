//! The table typed into the schema: serde's paths rewritten to the named paths users
//! write, each `[[flows]]` entry typed by its `type`, each link's `aqm` by its `kind`.

use super::Scenario;
use super::movement::load_movement;
use crate::scenario::error::ScenarioError;
use crate::scenario::schema::{CbrPairsCfg, FLOW_TYPES, FlowSpec, ScenarioFile};
use crate::scenario::validate::validate;
use serde::de::DeserializeOwned;
use toml::{Table, Value};

/// What a `[[flows]]` entry becomes once typed.
enum TypedFlow {
    Flow(FlowSpec),
    Generator(CbrPairsCfg),
}

pub(super) fn typed_and_checked(
    table: Table,
    source: &str,
    default_name: &str,
) -> Result<Scenario, ScenarioError> {
    let root = Value::Table(table);
    // Satellite tables are checked and their constellations built (scenario/sat.rs).
    let constellations = crate::scenario::sat::check(&root, source)?;
    let mut file: ScenarioFile = typed(&root, source, "")?;
    crate::scenario::sat::attach(&mut file, constellations);
    for link in &mut file.links {
        if let Some(raw) = &link.aqm {
            let prefix = format!("links.{}.aqm", link.name);
            link.aqm_cfg = Some(crate::scenario::aqm::typed_aqm(raw, &prefix, source)?);
        }
    }
    crate::scenario::wireless_aqm::typed(&mut file, source)?;
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
pub(in crate::scenario) fn typed<T: DeserializeOwned>(
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
        "sctp" => Ok(TypedFlow::Flow(FlowSpec::Sctp(Box::new(typed(
            &body, source, &label,
        )?)))),
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
