//! ctxgen: typed, validating bindings for Rust, TypeScript and Python from JSON Schema.
//!
//! ```no_run
//! // build.rs
//! ctxgen::generate("schemas").expect("schemas compile");
//! ```

pub mod backend;
mod config;
#[cfg(feature = "diff")]
pub mod diff;
pub mod error;
pub mod ir;
pub mod output;
pub mod package;
pub mod project;
pub mod schema;

pub use config::{generate, Config, Rendered, BUNDLED};
pub use error::{Diagnostic, Error, Location, Result, Severity};
pub use ir::names::Lang;
