//! `[mobility] file`, an ns-2 setdest movement file, read and checked at load time.

use super::Scenario;
use crate::scenario::error::ScenarioError;

/// Reads and checks `[mobility] file` (an ns-2 setdest file): one line naming the file
/// and the line that is wrong.
pub(super) fn load_movement(
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
