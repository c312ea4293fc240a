//! The SCTP flow keys of concurrent multipath transfer and ns-2.35's extension agents
//! (CONTRACTS.md "CMT-SCTP, NR-SACK and ns-2.35's SCTP extensions"; docs/models/sctp.md
//! "CMT"): `cmt`, `cmt_sfr`, `cmt_cuc`, `cmt_dac`, `cmt_rtx_policy`, `cmt_pf` with
//! ns-2.35's `Agent/SCTP/CMT` defaults, `heartbeat_after_rto` and `timestamp`.

use super::ScenarioError;
use super::load::Scenario;
use super::schema::{FlowSpec, SctpCfg};
use crate::sctp::{CmtKnobs, Coupling, Knobs, RtxPolicy};
use serde::Deserialize;
use std::collections::BTreeMap;

/// `cmt_rtx_policy`: ns-2.35's `eCmtRtxPolicy_` by name.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CmtRtxPolicy {
    Same,
    Asap,
    Cwnd,
    Ssthresh,
    Lossrate,
}

impl From<CmtRtxPolicy> for RtxPolicy {
    fn from(p: CmtRtxPolicy) -> Self {
        match p {
            CmtRtxPolicy::Same => RtxPolicy::Same,
            CmtRtxPolicy::Asap => RtxPolicy::Asap,
            CmtRtxPolicy::Cwnd => RtxPolicy::Cwnd,
            CmtRtxPolicy::Ssthresh => RtxPolicy::Ssthresh,
            CmtRtxPolicy::Lossrate => RtxPolicy::Lossrate,
        }
    }
}

/// `coupled_cc`: `"none"`, `"lia"` (RFC 6356), `"olia"` (Khalili et al. 2012).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CoupledCc {
    None,
    Lia,
    Olia,
}

/// Sets `k.cmt` from the entry's keys; with CMT-PF a destination's first T3 expiry makes
/// it potentially failed (ns-2.35 `SctpCMTAgent::Timeout`) unless `pf_max_retrans` says
/// otherwise.
pub(crate) fn apply(c: &SctpCfg, k: &mut Knobs) {
    if let Some(on) = c.heartbeat_after_rto {
        k.heartbeat_after_rto = on;
    }
    if let Some(on) = c.timestamp {
        k.timestamp = on;
    }
    if !c.cmt {
        return;
    }
    let d = CmtKnobs::default();
    let cmt = CmtKnobs {
        sfr: c.cmt_sfr.unwrap_or(d.sfr),
        cuc: c.cmt_cuc.unwrap_or(d.cuc),
        dac: c.cmt_dac.unwrap_or(d.dac),
        rtx_policy: c.cmt_rtx_policy.map_or(d.rtx_policy, Into::into),
        pf: c.cmt_pf.unwrap_or(d.pf),
        pf_cwnd_mtus: d.pf_cwnd_mtus,
    };
    if cmt.pf && c.pf_max_retrans.is_none() {
        k.pf_max_retrans = Some(0);
    }
    k.cmt = Some(cmt);
    k.coupled_cc = match c.coupled_cc {
        Some(CoupledCc::Lia) => Some(Coupling::Lia),
        Some(CoupledCc::Olia) => Some(Coupling::Olia),
        Some(CoupledCc::None) | None => None,
    };
}

/// One line for `cmt` on a receiver with one interface (one destination: nothing to
/// spread data over) or a `cmt_*` key without `cmt`.
pub(crate) fn validate(
    s: &Scenario,
    nodes: &BTreeMap<&str, usize>,
    names: &[Vec<String>],
    source: &str,
) -> Result<(), ScenarioError> {
    for flow in &s.flows {
        let FlowSpec::Sctp(c) = flow else { continue };
        let path = |k: &str| format!("flows.{}.{k}", c.name);
        let ifaces = nodes.get(c.to.as_str()).map_or(0, |&n| names[n].len());
        if c.cmt && ifaces < 2 {
            return Err(ScenarioError::new(
                source,
                path("cmt"),
                format!(
                    "concurrent multipath transfer needs a multihomed receiver, and {:?} has \
                     one interface (give it a second link or wlan NIC, or set cmt = false)",
                    c.to
                ),
            ));
        }
        let coupled = c.coupled_cc.is_some_and(|a| a != CoupledCc::None);
        if coupled && !c.cmt {
            return Err(ScenarioError::new(
                source,
                path("coupled_cc"),
                "coupled congestion control couples the destinations of a CMT association: \
                 it needs cmt = true (or coupled_cc = \"none\")"
                    .to_string(),
            )
            .with_related([path("cmt")]));
        }
        if coupled && c.congestion_control != super::schema::CongestionControl::Reno {
            return Err(ScenarioError::new(
                source,
                path("coupled_cc"),
                "coupled congestion control (RFC 6356, OLIA) couples Reno's increase: it needs \
                 congestion_control = \"reno\""
                    .to_string(),
            )
            .with_related([path("congestion_control")]));
        }
        if !c.cmt {
            let set = [
                ("cmt_sfr", c.cmt_sfr.is_some()),
                ("cmt_cuc", c.cmt_cuc.is_some()),
                ("cmt_dac", c.cmt_dac.is_some()),
                ("cmt_rtx_policy", c.cmt_rtx_policy.is_some()),
                ("cmt_pf", c.cmt_pf.is_some()),
            ];
            if let Some((k, _)) = set.iter().find(|(_, on)| *on) {
                return Err(
                    ScenarioError::new(source, path(k), format!("{k} needs cmt = true"))
                        .with_related([path("cmt")]),
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sctp(extra: &str) -> SctpCfg {
        let text = format!("name = \"s\"\nfrom = \"a\"\nto = \"b\"\nvariant = \"ns2\"\n{extra}");
        toml::from_str(&text).expect("sctp entry")
    }

    #[test]
    fn cmt_keys_take_ns2_defaults() {
        // Off by default: no CMT, no change to pf_max_retrans.
        let k = sctp("").knobs();
        assert_eq!(
            (k.cmt, k.pf_max_retrans, k.heartbeat_after_rto),
            (None, None, false)
        );
        // ns-2.35's Agent/SCTP/CMT: SFR, CUC, DAC on, RTX_CWND, CMT-PF with cmtPFCwnd_ 2,
        // and PF at the first T3 expiry.
        let k = sctp("cmt = true").knobs();
        assert_eq!(k.cmt, Some(CmtKnobs::default()));
        let c = CmtKnobs::default();
        assert!(c.sfr && c.cuc && c.dac && c.pf);
        assert_eq!((c.rtx_policy, c.pf_cwnd_mtus), (RtxPolicy::Cwnd, 2));
        assert_eq!(k.pf_max_retrans, Some(0));
        let k = sctp(
            "cmt = true\ncmt_sfr = false\ncmt_dac = false\ncmt_rtx_policy = \"ssthresh\"\n\
             cmt_pf = false\nheartbeat_after_rto = true",
        )
        .knobs();
        let c = k.cmt.expect("cmt");
        assert!(!c.sfr && c.cuc && !c.dac && !c.pf);
        assert_eq!(c.rtx_policy, RtxPolicy::Ssthresh);
        assert_eq!(k.pf_max_retrans, None);
        assert!(k.heartbeat_after_rto);
        // `timestamp`: off by default, on with any preset, CMT or not.
        assert!(!sctp("").knobs().timestamp);
        assert!(sctp("timestamp = true").knobs().timestamp);
        let k = sctp("cmt = true\ntimestamp = true").knobs();
        assert!(k.timestamp && k.cmt.is_some());
        // An explicit pf_max_retrans stays.
        let k = sctp("cmt = true\npf_max_retrans = 2").knobs();
        assert_eq!(k.pf_max_retrans, Some(2));
        for (name, p) in [
            ("same", RtxPolicy::Same),
            ("asap", RtxPolicy::Asap),
            ("lossrate", RtxPolicy::Lossrate),
        ] {
            let k = sctp(&format!("cmt = true\ncmt_rtx_policy = \"{name}\"")).knobs();
            assert_eq!(k.cmt.map(|c| c.rtx_policy), Some(p));
        }
    }

    #[test]
    fn coupled_cc_names_its_algorithm_and_is_off_by_default() {
        assert_eq!(sctp("cmt = true").knobs().coupled_cc, None);
        for (name, want) in [
            ("none", None),
            ("lia", Some(Coupling::Lia)),
            ("olia", Some(Coupling::Olia)),
        ] {
            let k = sctp(&format!("cmt = true\ncoupled_cc = \"{name}\"")).knobs();
            assert_eq!(k.coupled_cc, want, "{name}");
        }
    }
}
