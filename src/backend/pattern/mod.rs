//! Which regular-expression engine runs each `pattern`, decided once for all three languages.
//!
//! A pattern a backtracking engine runs in linear time on every input (see [`analysis`]) keeps
//! the language's own ECMA-262 engine (`RegExp` with the `u` flag, the `regex` module; Rust
//! prefers the `regex` crate on the translation, [`rust_translation`], and keeps `regress` for
//! what cannot be translated). Any other pattern is translated to RE2 syntax ([`emit`]) and run by a finite-automaton
//! engine (the `regex` crate, `re2js`, `google-re2`), which takes linear time whatever the
//! pattern. A pattern that needs backtracking (a backreference, a lookaround) and is not proven
//! linear keeps the backtracking engine in every language: [`Plan::hazard`] says so.

mod analysis;
mod emit;
mod parse;

pub use emit::Dialect;

/// How one pattern is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// The ECMA-262 backtracking engine, proven linear on this pattern.
    Backtracking,
    /// The linear engine, with the pattern in RE2 syntax for the Rust `regex` crate and for
    /// RE2 (`re2js`, `google-re2`).
    Linear { rust: String, re2: String },
    /// The backtracking engine although it may take super-linear time: the pattern needs
    /// backtracking or could not be translated (the reason says why).
    Hazard { reason: String },
}

impl Plan {
    /// The reason a pattern keeps a backtracking engine that may be slow on hostile input.
    pub fn hazard(&self) -> Option<&str> {
        match self {
            Plan::Hazard { reason } => Some(reason),
            _ => None,
        }
    }

    /// The translation for the linear engine of a dialect, when the pattern uses it.
    pub fn linear(&self, dialect: Dialect) -> Option<&str> {
        match (self, dialect) {
            (Plan::Linear { rust, .. }, Dialect::Rust) => Some(rust),
            (Plan::Linear { re2, .. }, Dialect::Re2) => Some(re2),
            _ => None,
        }
    }
}

/// Decides the engine of an ECMA-262 (`u` flag) pattern.
pub fn plan(source: &str) -> Plan {
    let node = match parse::parse(source) {
        Ok(n) => n,
        Err(e) => {
            return Plan::Hazard {
                reason: format!("not analysed ({e})"),
            }
        }
    };
    if analysis::backtracking_is_linear(&node) {
        return Plan::Backtracking;
    }
    let translated = emit::emit(&node, Dialect::Rust)
        .and_then(|rust| Ok((rust, emit::emit(&node, Dialect::Re2)?)))
        .and_then(|(rust, re2)| {
            // The Rust runtime compiles exactly this; a pattern over the crate's size limit
            // keeps the backtracking engine everywhere.
            regex::Regex::new(&rust)
                .map(|_| (rust, re2))
                .map_err(|_| "too large for the linear engine".to_string())
        });
    match translated {
        Ok((rust, re2)) => Plan::Linear { rust, re2 },
        Err(e) => Plan::Hazard {
            reason: format!("needs backtracking ({e})"),
        },
    }
}

/// The pattern in the syntax of the Rust `regex` crate, with the same meaning, whatever its
/// plan: the Rust runtime prefers that engine even for a pattern backtracking runs in linear
/// time (it matches without allocating; `regress` sets up an executor per match), and falls
/// back to `regress` for a translation the crate does not compile. `None` when the pattern
/// cannot be translated (it needs backtracking, or is not understood).
pub fn rust_translation(source: &str) -> Option<String> {
    let node = parse::parse(source).ok()?;
    emit::emit(&node, Dialect::Rust).ok()
}

#[cfg(test)]
mod tests;
