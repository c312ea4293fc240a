//! The SCTP keys of stream reconfiguration and AUTH (CONTRACTS.md "Messages: ...";
//! docs/models/sctp.md "Stream reconfiguration and AUTH"): the flow keys `auth`,
//! `auth_chunks` (chunk names) and `auth_hmac`, and the `[[faults]]` actions
//! `reset_streams` / `add_streams` with their `streams`, and `reset_assoc` (an
//! SSN/TSN reset, RFC 6525 4.3; a name CONTRACTS.md does not fix yet).

use super::ScenarioError;
use super::load::Scenario;
use super::schema::{FaultAction, FaultEntry, FaultStreams, FlowSpec, SctpCfg};
use crate::sctp::Knobs;
use crate::sctp::auth::AuthCfg;
use crate::sctp::reconfig::Request;
use serde::Deserialize;

/// `auth_hmac`: the HMAC this end lists first in HMAC-ALGO (RFC 4895 3.3); the other
/// follows (SHA-1 is always listed, 6.1).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AuthHmac {
    Sha1,
    Sha256,
}

/// Chunks `auth_chunks` may name, with their types: those this simulator sends in
/// control packets, which have room for an AUTH chunk. ASCONF, ASCONF-ACK and
/// RE-CONFIG are always covered.
const CHUNK_NAMES: [(&str, u8); 11] = [
    ("sack", 3),
    ("heartbeat", 4),
    ("heartbeat_ack", 5),
    ("abort", 6),
    ("shutdown", 7),
    ("shutdown_ack", 8),
    ("error", 9),
    ("cookie_ack", 11),
    ("ecne", 12),
    ("cwr", 13),
    ("forward_tsn", 192),
];

/// Sets `k.auth` from the entry's keys.
pub(crate) fn apply(c: &SctpCfg, k: &mut Knobs) {
    if !c.auth {
        return;
    }
    let extra: Vec<u8> = c
        .auth_chunks
        .iter()
        .flatten()
        .filter_map(|n| CHUNK_NAMES.iter().find(|(m, _)| m == n).map(|&(_, t)| t))
        .collect();
    k.auth = Some(AuthCfg::new(&extra, c.auth_hmac == Some(AuthHmac::Sha1)));
}

/// Whether the flow has a `reset_streams` or `add_streams` event: only then do its
/// ends announce RE-CONFIG (every other flow's handshake keeps its bytes).
pub(crate) fn flow_reconfigures(s: &Scenario, flow: &str) -> bool {
    s.file.faults.iter().any(|f| {
        matches!(
            f.action,
            FaultAction::ResetStreams | FaultAction::AddStreams | FaultAction::ResetAssoc
        ) && f.flow.as_deref() == Some(flow)
    })
}

/// The request a validated `reset_streams` / `add_streams` entry makes.
pub(crate) fn request(f: &FaultEntry) -> Option<Request> {
    if f.action == FaultAction::ResetAssoc {
        return Some(Request::ResetAll);
    }
    match (f.action, f.streams.as_ref()?) {
        (FaultAction::ResetStreams, FaultStreams::List(l)) => {
            Some(Request::ResetStreams(l.clone()))
        }
        (FaultAction::AddStreams, FaultStreams::Count(n)) => Some(Request::AddStreams(*n)),
        _ => None,
    }
}

/// `auth_chunks` names known chunks and comes with `auth = true`.
pub(crate) fn validate_flow(c: &SctpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let path = if p.is_empty() {
        String::new()
    } else {
        format!("{p}.")
    };
    let Some(names) = &c.auth_chunks else {
        if c.auth_hmac.is_some() && !c.auth {
            return Err(ScenarioError::new(
                source,
                format!("{path}auth_hmac"),
                "needs auth = true",
            ));
        }
        return Ok(());
    };
    if !c.auth {
        return Err(ScenarioError::new(
            source,
            format!("{path}auth_chunks"),
            "needs auth = true",
        ));
    }
    for (i, n) in names.iter().enumerate() {
        if !CHUNK_NAMES.iter().any(|(m, _)| m == n) {
            let known: Vec<&str> = CHUNK_NAMES.iter().map(|(m, _)| *m).collect();
            return Err(ScenarioError::new(
                source,
                format!("{path}auth_chunks[{i}]"),
                format!(
                    "unknown chunk {n:?}; expected one of: {} (ASCONF, ASCONF-ACK and RE-CONFIG are always covered; DATA and COOKIE-ECHO cannot be)",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// A `reset_streams` / `add_streams` entry: an SCTP `flow`, `streams` of the right
/// shape, every stream reset one the flow has (its `streams` plus those added by
/// earlier `add_streams`), no `link` or `primary`.
pub(crate) fn validate_fault(
    s: &Scenario,
    f: &FaultEntry,
    p: &str,
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |path: String, msg: String| Err(ScenarioError::new(source, path, msg));
    let action = match f.action {
        FaultAction::ResetStreams => "reset_streams",
        FaultAction::ResetAssoc => "reset_assoc",
        _ => "add_streams",
    };
    let Some(flow) = &f.flow else {
        return err(format!("{p}.flow"), format!("required for action {action}"));
    };
    let Some(FlowSpec::Sctp(c)) = s.flows.iter().find(|x| x.name() == flow) else {
        return err(
            format!("{p}.flow"),
            format!("{flow:?} is not an SCTP flow; expected the name of a flow of type \"sctp\""),
        );
    };
    if f.link.is_some() || f.primary.is_some() {
        return err(
            p.to_string(),
            format!("link and primary do not belong to action {action}"),
        );
    }
    if f.action == FaultAction::ResetAssoc {
        if f.streams.is_some() {
            return err(
                format!("{p}.streams"),
                "does not belong to action reset_assoc (it resets every stream)".into(),
            );
        }
        if c.cmt {
            return err(
                format!("{p}.action"),
                format!("reset_assoc is not modelled with CMT; flow {flow:?} has cmt = true"),
            );
        }
        return Ok(());
    }
    match (f.action, &f.streams) {
        (FaultAction::ResetStreams, Some(FaultStreams::List(l))) if !l.is_empty() => {
            // Streams added by earlier add_streams of the flow count.
            let added: u32 = s
                .file
                .faults
                .iter()
                .filter(|g| {
                    g.action == FaultAction::AddStreams
                        && g.flow.as_deref() == Some(flow)
                        && g.at.0 < f.at.0
                })
                .filter_map(|g| match g.streams {
                    Some(FaultStreams::Count(n)) => Some(u32::from(n)),
                    _ => None,
                })
                .sum();
            let have = u32::from(c.streams) + added;
            if let Some(bad) = l.iter().find(|&&x| u32::from(x) >= have) {
                return err(
                    format!("{p}.streams"),
                    format!(
                        "stream {bad} does not exist; flow {flow:?} has streams 0..{} at that time",
                        have.saturating_sub(1)
                    ),
                );
            }
            Ok(())
        }
        (FaultAction::ResetStreams, _) => err(
            format!("{p}.streams"),
            "expected a non-empty array of stream numbers for action reset_streams".into(),
        ),
        (_, Some(FaultStreams::Count(n))) if *n > 0 => Ok(()),
        _ => err(
            format!("{p}.streams"),
            "expected a count of streams to add (1..65535) for action add_streams".into(),
        ),
    }
}
