//! Keywords JSON Schema does not define: a typo (`requird`, `maxLenght`) constrains nothing, so
//! each one is a warning, with the nearest keyword when one is close. Keywords starting with
//! `x-` (extensions, ctxgen's own among them) and those a project allows are not reported.

use serde_json::Value;

use super::{pointer, walk, SchemaSet};
use crate::error::{Diagnostic, Location, Severity};

/// Every keyword of drafts 4 to 2020-12 (a keyword of a later draft than a document's is
/// dropped at load, see `dialect::drop_later_keywords`).
pub const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$ref",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// At most this many unknown keywords are reported one by one; the rest are counted.
const MAX_REPORTED: usize = 50;

/// A warning for each unknown keyword in every schema object of every document, in document
/// and then pointer order.
pub fn check(set: &SchemaSet, allowed: &[String]) -> Vec<Diagnostic> {
    let mut found: Vec<(Location, String)> = Vec::new();
    for doc in &set.docs {
        let mut stack: Vec<(&Value, String)> = vec![(&doc.root, String::new())];
        let mut here: Vec<(String, String)> = Vec::new();
        while let Some((schema, at)) = stack.pop() {
            if let Some(obj) = schema.as_object() {
                for k in obj.keys() {
                    if !KNOWN.contains(&k.as_str())
                        && !k.starts_with("x-")
                        && !allowed.iter().any(|a| a == k)
                    {
                        here.push((pointer::push(&at, k), k.clone()));
                    }
                }
            }
            walk::children(schema, &at, &mut |sub, p| stack.push((sub, p)));
        }
        here.sort();
        found.extend(
            here.into_iter()
                .map(|(p, k)| (Location::new(doc.rel.clone(), p), k)),
        );
    }
    let total = found.len();
    let mut out: Vec<Diagnostic> = found
        .into_iter()
        .take(MAX_REPORTED)
        .map(|(location, k)| Diagnostic {
            severity: Severity::Warning,
            location,
            message: message(&k),
        })
        .collect();
    if total > MAX_REPORTED {
        let location = out
            .last()
            .map(|d| d.location.clone())
            .unwrap_or_else(|| Location::new("", ""));
        out.push(Diagnostic {
            severity: Severity::Warning,
            location,
            message: format!(
                "{} more unknown keywords are not listed (allow expected ones with `[warnings] allow-keywords` in ctxgen.toml)",
                total - MAX_REPORTED
            ),
        });
    }
    out
}

/// The warning for one unknown keyword, with the nearest known keyword when it is a likely typo.
pub fn message(keyword: &str) -> String {
    match suggest(keyword) {
        Some(k) => format!("unknown keyword `{keyword}` (did you mean `{k}`?); it is ignored"),
        None => format!("unknown keyword `{keyword}`; it is ignored"),
    }
}

/// The known keyword nearest to `keyword`: within an edit distance of a quarter of its length
/// (at least 1), or the same but for case.
pub fn suggest(keyword: &str) -> Option<&'static str> {
    if keyword.chars().count() > 64 {
        return None;
    }
    let limit = (keyword.chars().count() / 4).max(1);
    KNOWN
        .iter()
        .map(|k| {
            let d = if k.eq_ignore_ascii_case(keyword) {
                0
            } else {
                strsim::damerau_levenshtein(k, keyword)
            };
            (d, *k)
        })
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_get_a_suggestion() {
        assert_eq!(suggest("requird"), Some("required"));
        assert_eq!(suggest("maxLenght"), Some("maxLength"));
        assert_eq!(
            suggest("additionalproperties"),
            Some("additionalProperties")
        );
        assert_eq!(suggest("propertes"), Some("properties"));
        assert_eq!(suggest("tsType"), None);
        assert_eq!(suggest("markdownDescription"), None);
        assert_eq!(
            message("requird"),
            "unknown keyword `requird` (did you mean `required`?); it is ignored"
        );
    }
}
