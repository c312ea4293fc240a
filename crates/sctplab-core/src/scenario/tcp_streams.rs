//! `stream_traffic` on `tcp` flows (CONTRACTS.md "Messages", docs/scenario.md): the
//! sources write their messages into the one byte stream in submission order
//! (`tcp/messages.rs`). A byte stream has no streams of its own, priorities, weights or
//! partial reliability, so the entries take `stream` (a label, `0..N-1` for N
//! entries: the summary's `streams` index), `message_size`, `interval`, `start` and
//! `stop` only.

use super::error::ScenarioError;
use super::schema::TcpCfg;
use super::streams::{check_flow, check_reliable, check_size, check_times};
use crate::sctp::streams::{PrPolicy, StreamSourceCfg};
use crate::sim::{SimDuration, SimTime};

/// Checks `stream_traffic` of a TCP flow at key path `p`.
pub(crate) fn validate(c: &TcpCfg, p: &str, source: &str) -> Result<(), ScenarioError> {
    let Some(entries) = &c.stream_traffic else {
        return Ok(());
    };
    let key = format!("{p}.stream_traffic");
    check_flow(c.bytes.is_some(), entries.is_empty(), false, &key, source)?;
    if !entries.iter().any(|e| e.interval.is_none()) {
        return Err(ScenarioError::new(
            source,
            key,
            "a tcp flow sends whole segments (as ns-2's agents): expected a backlog source \
             (an entry without `interval`) to keep the byte stream full",
        ));
    }
    for (i, e) in entries.iter().enumerate() {
        let bad =
            |k: &str, msg: String| Err(ScenarioError::new(source, format!("{key}.{i}.{k}"), msg));
        if usize::from(e.stream) >= entries.len()
            || entries[..i].iter().any(|o| o.stream == e.stream)
        {
            return bad(
                "stream",
                format!(
                    "stream {}: a tcp flow has one byte stream, the numbers label its {} \
                     sources: expected each of 0..{} once",
                    e.stream,
                    entries.len(),
                    entries.len() - 1
                ),
            );
        }
        if let Err((k, msg)) = check_size(e).and_then(|()| check_times(e)) {
            return bad(k, msg);
        }
        let one_stream = "a tcp flow carries its sources in one byte stream, in submission order";
        if e.priority != 0 {
            return bad("priority", format!("expected none: {one_stream}"));
        }
        if e.weight != 1 {
            return bad("weight", format!("expected none: {one_stream}"));
        }
        if let Err((k, msg)) = check_reliable(e, "a tcp byte stream is reliable") {
            return bad(k, msg);
        }
    }
    Ok(())
}

/// A TCP flow's sources for a checked `stream_traffic` (empty without it); the flow's
/// `stop` ends every source.
pub fn sources(c: &TcpCfg) -> Vec<StreamSourceCfg> {
    let Some(entries) = &c.stream_traffic else {
        return Vec::new();
    };
    let flow_stop = c.stop.map(|d| SimTime::ZERO + d.0);
    entries
        .iter()
        .map(|e| {
            let stop = e.stop.map(|d| SimTime::ZERO + d.0);
            StreamSourceCfg {
                stream: e.stream,
                message_size: e.message_size.0,
                interval: e.interval.map(|d| d.0),
                start: SimTime::ZERO + e.start.map_or(SimDuration::ZERO, |d| d.0),
                stop: match (stop, flow_stop) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
                priority: 0,
                weight: 1,
                pr: PrPolicy::None,
            }
        })
        .collect()
}
