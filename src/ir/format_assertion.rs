//! Whether `format` asserts in a document. Drafts 4 to 7 assert it (ctxgen always has, and the
//! suite's draft 4–7 `format` cases expect it); in 2019-09 and 2020-12 it is an annotation
//! unless the user turns assertion on (`--assert-formats`, `assert-formats` in `ctxgen.toml`,
//! `Config::assert_formats`) or the document's meta-schema lists the 2020-12 format-assertion
//! vocabulary in its `$vocabulary` (whatever its boolean: an implementation that knows the
//! vocabulary asserts, as JSON Schema Core 8.1.2 reads).

use serde_json::Value;

use crate::schema::{Dialect, Loc, SchemaSet};

/// The vocabulary that makes `format` an assertion.
const FORMAT_ASSERTION: &str = "https://json-schema.org/draft/2020-12/vocab/format-assertion";

/// The standard meta-schemas of 2019-09 and 2020-12: their vocabularies make `format` an
/// annotation, and they are never loaded.
const STANDARD: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
];

/// Whether `format` asserts in document `doc` of `set`.
pub fn asserts(set: &mut SchemaSet, doc: usize, assert_formats: bool) -> bool {
    let d = &set.docs[doc];
    if d.dialect < Dialect::Draft2019 || assert_formats {
        return true;
    }
    let Some(meta) = d
        .root
        .get("$schema")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return false;
    };
    let bare = meta.trim_end_matches('#');
    if STANDARD.contains(&bare) {
        return false;
    }
    let root = Loc {
        doc,
        pointer: String::new(),
    };
    // A meta-schema that cannot be read is treated as the standard one: `format` annotates.
    let Ok(target) = set.resolve(&root, &meta) else {
        return false;
    };
    set.value(&target)
        .and_then(|m| m.get("$vocabulary"))
        .and_then(Value::as_object)
        .is_some_and(|v| v.contains_key(FORMAT_ASSERTION))
}
