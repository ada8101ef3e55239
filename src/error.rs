//! Typed errors, one variant per phase, each naming the location it is about.

use std::fmt;
use std::path::PathBuf;

/// A place in a schema file: the file as the user named it and a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: String,
    pub pointer: String,
}

impl Location {
    pub fn new(file: impl Into<String>, pointer: impl Into<String>) -> Self {
        Location {
            file: file.into(),
            pointer: pointer.into(),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.file, self.pointer)
    }
}

/// Everything that can make a run fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: malformed JSON: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{location}: {message}")]
    Schema { location: Location, message: String },
    #[error("{0}")]
    Usage(String),
    #[error("template {template}: {message}")]
    Template {
        template: &'static str,
        message: String,
    },
}

impl Error {
    pub fn schema(location: Location, message: impl Into<String>) -> Self {
        Error::Schema {
            location,
            message: message.into(),
        }
    }
}

/// How serious a diagnostic is: a warning leaves the generated code sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// A message about one place in the input, collected while building the IR.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{level}: {} at {}", self.message, self.location)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
