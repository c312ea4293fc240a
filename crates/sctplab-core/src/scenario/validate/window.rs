//! `duration`, the measurement window (`[measure]`) and `[series]`: a run that can end,
//! a window inside it.

use crate::scenario::error::ScenarioError;
use crate::scenario::load::Scenario;
use crate::scenario::schema::FlowSpec;
use crate::sim::{SimDuration, SimTime};

pub(super) fn validate_window(s: &Scenario, source: &str) -> Result<(), ScenarioError> {
    let f = &s.file;
    let err = |path: String, msg: String| ScenarioError::new(source, path, msg);
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
    Ok(())
}
