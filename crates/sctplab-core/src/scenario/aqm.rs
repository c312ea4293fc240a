//! The link key `aqm`: a table whose `kind` picks the queue discipline of both directions
//! of the link, with that discipline's parameters (docs/scenario.md, docs/models/aqm.md).
//! An absent key takes the source's default (ns-2.35's `Queue/RED`, RFC 8289, RFC 8290,
//! RFC 8033).

use super::error::ScenarioError;
use super::load::typed;
use super::schema::LinkCfg;
use super::units::{Duration, Size};
use serde::Deserialize;
use toml::{Table, Value};

/// The disciplines `kind` names.
pub const AQM_KINDS: [&str; 4] = ["red", "codel", "fq_codel", "pie"];

#[derive(Debug, Clone)]
pub enum AqmCfg {
    Red(RedCfg),
    Codel(CodelCfg),
    FqCodel(FqCodelCfg),
    Pie(PieCfg),
}

/// `kind = "red"`: ns-2.35's `Queue/RED` variables without their trailing underscore.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct RedCfg {
    #[serde(default)]
    pub thresh: Option<f64>,
    #[serde(default)]
    pub maxthresh: Option<f64>,
    #[serde(default)]
    pub q_weight: Option<f64>,
    #[serde(default)]
    pub linterm: Option<f64>,
    #[serde(default)]
    pub mean_pktsize: Option<Size>,
    #[serde(default)]
    pub gentle: Option<bool>,
    #[serde(default)]
    pub wait: Option<bool>,
    #[serde(default)]
    pub bytes: Option<bool>,
    #[serde(default)]
    pub queue_in_bytes: Option<bool>,
    #[serde(default)]
    pub targetdelay: Option<Duration>,
    #[serde(default)]
    pub mark_p: Option<f64>,
    #[serde(default)]
    pub use_mark_p: Option<bool>,
    #[serde(default)]
    pub ecn: bool,
}

/// `kind = "codel"` (RFC 8289).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct CodelCfg {
    #[serde(default)]
    pub target: Option<Duration>,
    #[serde(default)]
    pub interval: Option<Duration>,
    #[serde(default)]
    pub mtu: Option<Size>,
    #[serde(default)]
    pub ecn: bool,
}

/// `kind = "fq_codel"` (RFC 8290).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct FqCodelCfg {
    #[serde(default)]
    pub flows: Option<u32>,
    #[serde(default)]
    pub quantum: Option<Size>,
    #[serde(default)]
    pub target: Option<Duration>,
    #[serde(default)]
    pub interval: Option<Duration>,
    #[serde(default)]
    pub mtu: Option<Size>,
    #[serde(default)]
    pub ecn: bool,
}

/// `kind = "pie"` (RFC 8033).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct PieCfg {
    #[serde(default)]
    pub target: Option<Duration>,
    #[serde(default)]
    pub t_update: Option<Duration>,
    #[serde(default)]
    pub max_burst: Option<Duration>,
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default)]
    pub beta: Option<f64>,
    #[serde(default)]
    pub mean_pktsize: Option<Size>,
    #[serde(default)]
    pub mark_ecn_th: Option<f64>,
    #[serde(default)]
    pub ecn: bool,
}

/// The most flow queues FQ-CoDel may have (Linux's `flows` limit, 65536).
pub const MAX_FQ_FLOWS: u32 = 65_536;

/// Types a link's `aqm` table by its `kind`; errors name the key under `prefix`.
pub(super) fn typed_aqm(raw: &Table, prefix: &str, source: &str) -> Result<AqmCfg, ScenarioError> {
    let mut body = raw.clone();
    let kind = match body.remove("kind") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(ScenarioError::new(
                source,
                format!("{prefix}.kind"),
                format!(
                    "expected a string, one of {AQM_KINDS:?}, got {}",
                    other.type_str()
                ),
            ));
        }
        None => {
            return Err(ScenarioError::new(
                source,
                format!("{prefix}.kind"),
                format!("missing; expected one of {AQM_KINDS:?}"),
            ));
        }
    };
    let body = Value::Table(body);
    Ok(match kind.as_str() {
        "red" => AqmCfg::Red(typed(&body, source, prefix)?),
        "codel" => AqmCfg::Codel(typed(&body, source, prefix)?),
        "fq_codel" => AqmCfg::FqCodel(typed(&body, source, prefix)?),
        "pie" => AqmCfg::Pie(typed(&body, source, prefix)?),
        other => {
            return Err(ScenarioError::new(
                source,
                format!("{prefix}.kind"),
                format!("unknown queue discipline {other:?}; expected one of {AQM_KINDS:?}"),
            ));
        }
    })
}

/// Checks `link.aqm`'s values; each error is one line at its key.
pub(super) fn validate(link: &LinkCfg, source: &str) -> Result<(), ScenarioError> {
    let Some(aqm) = &link.aqm_cfg else {
        return Ok(());
    };
    let p = format!("links.{}.aqm", link.name);
    validate_cfg(aqm, &p, link.queue, "the link's", source)
}

/// Checks an `aqm` table's values at `p` (`links.NAME.aqm`, `wireless.aqm`) for a queue
/// of `queue` packets (`whose`: "the link's", "the interface queue's"); each error is one
/// line at its key.
pub(super) fn validate_cfg(
    aqm: &AqmCfg,
    p: &str,
    queue: u32,
    whose: &str,
    source: &str,
) -> Result<(), ScenarioError> {
    let err = |key: &str, msg: String| Err(ScenarioError::new(source, format!("{p}.{key}"), msg));
    let positive_time = |key: &str, d: Option<Duration>| match d {
        Some(d) if d.0.as_nanos() == 0 => err(key, "must be greater than zero".into()),
        _ => Ok(()),
    };
    let positive_size = |key: &str, s: Option<Size>| match s {
        Some(s) if s.0 == 0 => err(key, "must be greater than zero".into()),
        _ => Ok(()),
    };
    let probability = |key: &str, v: Option<f64>| match v {
        Some(v) if !(0.0..=1.0).contains(&v) => err(
            key,
            format!("{v} is not a probability; expected a number from 0 to 1"),
        ),
        _ => Ok(()),
    };
    match aqm {
        AqmCfg::Red(c) => {
            let limit = f64::from(queue);
            for (key, v) in [("thresh", c.thresh), ("maxthresh", c.maxthresh)] {
                let Some(v) = v else { continue };
                if !v.is_finite() || v < 0.0 {
                    return err(
                        key,
                        format!("{v} packets; expected 0 (automatic, as ns-2.35) or more"),
                    );
                }
                if v > limit {
                    return err(
                        key,
                        format!(
                            "{v} packets is above {whose} queue limit ({queue} packets): the \
                             average could never reach it; lower it or raise `queue`"
                        ),
                    );
                }
            }
            if let (Some(lo), Some(hi)) = (c.thresh, c.maxthresh) {
                if lo > 0.0 && hi > 0.0 && lo >= hi {
                    return err("maxthresh", format!("{hi} is not above thresh ({lo})"));
                }
            }
            if let Some(w) = c.q_weight {
                if !(w == -1.0 || w == 0.0 || w == -2.0 || (w > 0.0 && w <= 1.0)) {
                    return err(
                        "q_weight",
                        format!(
                            "{w}; expected a weight in (0, 1], or -1, 0, -2 (ns-2.35's automatic choices)"
                        ),
                    );
                }
            }
            if let Some(l) = c.linterm {
                if !l.is_finite() || l < 1.0 {
                    return err(
                        "linterm",
                        format!("{l}; expected 1 / max_p, a number of 1 or more"),
                    );
                }
            }
            positive_size("mean_pktsize", c.mean_pktsize)?;
            probability("mark_p", c.mark_p)
        }
        AqmCfg::Codel(c) => {
            positive_time("target", c.target)?;
            positive_time("interval", c.interval)
        }
        AqmCfg::FqCodel(c) => {
            positive_time("target", c.target)?;
            positive_time("interval", c.interval)?;
            positive_size("quantum", c.quantum)?;
            match c.flows {
                Some(n) if n == 0 || n > MAX_FQ_FLOWS => err(
                    "flows",
                    format!("{n}; expected 1 to {MAX_FQ_FLOWS} flow queues"),
                ),
                _ => Ok(()),
            }
        }
        AqmCfg::Pie(c) => {
            positive_time("target", c.target)?;
            positive_time("t_update", c.t_update)?;
            positive_size("mean_pktsize", c.mean_pktsize)?;
            for (key, v) in [("alpha", c.alpha), ("beta", c.beta)] {
                if let Some(v) = v {
                    if !v.is_finite() || v < 0.0 {
                        return err(
                            key,
                            format!("{v}; expected a weight of 0 or more (per second)"),
                        );
                    }
                }
            }
            probability("mark_ecn_th", c.mark_ecn_th)
        }
    }
}
