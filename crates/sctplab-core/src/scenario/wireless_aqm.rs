//! The `[wireless]` key `aqm` (beyond the contract, which names only the link key): the
//! link key's table (`kind`, the discipline's parameters, `ecn`) for the interface queue
//! of every wireless NIC (docs/scenario.md, docs/models/aqm.md "The wireless interface
//! queue"). Without it the queue is ns-2.35's drop-tail `PriQueue`, as before.

use super::aqm::{AqmCfg, typed_aqm, validate_cfg};
use super::error::ScenarioError;
use super::schema::{ScenarioFile, WirelessCfg, WirelessRouting};

const PREFIX: &str = "wireless.aqm";

/// Types `wireless.aqm` by its `kind` into `aqm_cfg`.
pub(super) fn typed(file: &mut ScenarioFile, source: &str) -> Result<(), ScenarioError> {
    if let Some(w) = file.wireless.as_mut() {
        if let Some(raw) = &w.aqm {
            w.aqm_cfg = Some(typed_aqm(raw, PREFIX, source)?);
        }
    }
    Ok(())
}

/// Checks `wireless.aqm`: the link key's rules against the interface queue's limit, and
/// the combinations the interface queue cannot run.
pub(super) fn validate(w: &WirelessCfg, source: &str) -> Result<(), ScenarioError> {
    let Some(aqm) = &w.aqm_cfg else {
        return Ok(());
    };
    let err = |key: &str, msg: &str| {
        Err(ScenarioError::new(
            source,
            format!("{PREFIX}.{key}"),
            msg.to_string(),
        ))
    };
    if let AqmCfg::FqCodel(_) = aqm {
        // A routing agent's purge (AODV's link failure, ARP giving up) takes packets out
        // of the middle of the queue, which FQ-CoDel's flow queues do not offer.
        return err(
            "kind",
            "\"fq_codel\" is not available on the wireless interface queue; expected \
             \"red\", \"codel\" or \"pie\"",
        );
    }
    if w.routing == WirelessRouting::Dsr {
        return err(
            "kind",
            "DSR's interface queue is ns-2.35's CMUPriQueue (four bands), which runs no \
             discipline; remove `aqm` or use another routing protocol",
        );
    }
    if !w.prefer_routing {
        return err(
            "kind",
            "routing packets bypass the discipline at the head of the interface queue, \
             which needs prefer_routing = true",
        );
    }
    validate_cfg(aqm, PREFIX, w.queue, "the interface queue's", source)
}
