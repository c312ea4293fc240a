//! Scenario errors: one line naming the source (file or `--set`), the key path and what
//! was expected.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file name, `<string>`, or `--set KEY=VALUE`.
    pub source: String,
    /// Dotted key path with named entries addressed by name (`links.bottleneck.delay`);
    /// empty for whole-file problems such as TOML syntax.
    pub path: String,
    pub message: String,
    /// Other keys whose values together with `path`'s make the error (the message names
    /// them too): when an override gave one of them and none gave `path`, the error is
    /// reported at the key the override changed.
    pub related: Vec<String>,
}

impl ScenarioError {
    pub fn new(source: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            source: source.to_string(),
            path: path.into(),
            message: message.into(),
            related: Vec::new(),
        }
    }

    /// The same error, also caused by the values at `keys` (see `related`).
    pub fn with_related(mut self, keys: impl IntoIterator<Item = String>) -> Self {
        self.related.extend(keys);
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keep it on one line whatever the underlying parser printed.
        let msg = self
            .message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if self.path.is_empty() {
            write!(f, "{}: {}", self.source, msg)
        } else {
            write!(f, "{}: {}: {}", self.source, self.path, msg)
        }
    }
}

impl std::error::Error for ScenarioError {}
