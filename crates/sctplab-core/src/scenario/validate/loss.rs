//! `[links.loss]`: probabilities, drop lists and the flow a drop list counts.

use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::LossCfg;
use std::collections::{BTreeMap, BTreeSet};

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

pub(super) fn validate_loss(
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
