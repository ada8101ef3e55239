//! The project's `x-max-words` extension keyword (`schemas/README.md`) for the `jsonschema`
//! crate, written apart from ctxgen's own implementation so that the crate stays an independent
//! oracle. Shared by the benchmark's oracle and `tests/schema_vectors.rs` (`#[path]`), so it
//! depends on `jsonschema` and `serde_json` only.

use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

/// Number of words: maximal runs of characters that are not ASCII whitespace
/// (space, \t, \n, \v, \f, \r).
pub fn count_words(s: &str) -> usize {
    s.split([' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r'])
        .filter(|w| !w.is_empty())
        .count()
}

struct MaxWords(usize);

impl<'i> Keyword<'i> for MaxWords {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match instance.as_str() {
            Some(s) if count_words(s) > self.0 => Err(ValidationError::custom(format!(
                "more than {} words",
                self.0
            ))),
            _ => Ok(()),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        instance.as_str().is_none_or(|s| count_words(s) <= self.0)
    }
}

/// The factory to register: `options.with_keyword("x-max-words", max_words)`.
pub fn max_words<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    let n = value
        .as_u64()
        .ok_or_else(|| ValidationError::custom("x-max-words must be a non-negative integer"))?;
    Ok(Box::new(MaxWords(n as usize)))
}
