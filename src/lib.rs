//! ctxgen: typed, validating bindings for Rust, TypeScript and Python from JSON Schema.

pub mod error;
pub mod ir;
pub mod schema;

pub use error::{Diagnostic, Error, Location, Result, Severity};
