//! Errors a run can end with. Each displays as one line for the user.

use crate::scenario::ScenarioError;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub enum Error {
    /// The scenario or an override is wrong (exit status 2 in the CLI).
    Scenario(ScenarioError),
    /// An option outside the scenario is wrong (`--trace` kind, `--series` name).
    Usage(String),
    /// The run was stopped before its end: it could not go on (a livelock, simulated
    /// time past its maximum, a resource limit) or took longer than its wall-clock limit.
    Stopped(String),
    /// The scenario asks for more than a run holds (packets in flight): it stopped.
    Limit(String),
    /// The caller asked the run to stop (Ctrl-C).
    Interrupted,
    /// The simulator found one of its own rules broken (a bug, not the scenario's
    /// fault): the run stopped rather than give a result that may be wrong.
    Internal(String),
    /// Writing an output file failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Usage(m) => write!(f, "{m}"),
            Error::Stopped(m) | Error::Limit(m) => write!(f, "{m}"),
            Error::Interrupted => write!(f, "interrupted"),
            Error::Internal(m) => write!(
                f,
                "internal error: {m} (a bug in sctplab; please report it with the scenario \
                 and seed)"
            ),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}
