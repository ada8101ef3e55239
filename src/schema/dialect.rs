//! The JSON Schema drafts ctxgen reads and where they differ.

use serde_json::{Map, Value};

/// The draft a document is written in, from its `$schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft2019,
    Draft2020,
}

impl Dialect {
    /// Reads `$schema`; a document without it is read as draft 2020-12.
    pub fn of(root: &Value) -> Dialect {
        let uri = root.get("$schema").and_then(Value::as_str).unwrap_or("");
        if uri.contains("draft-04") || uri.contains("draft-03") {
            Dialect::Draft4
        } else if uri.contains("draft-06") {
            Dialect::Draft6
        } else if uri.contains("draft-07") {
            Dialect::Draft7
        } else if uri.contains("2019-09") {
            Dialect::Draft2019
        } else {
            Dialect::Draft2020
        }
    }

    /// Before 2019-09, keywords beside `$ref` are ignored.
    pub fn ref_overrides_siblings(self) -> bool {
        matches!(self, Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7)
    }
}

/// The validation keywords later drafts added, with the draft that added them: in a document
/// of an earlier draft they are unknown keywords, which validate nothing (a draft-04 `const`
/// constrains nothing, as the specification and every conforming validator read it).
const LATER_KEYWORDS: &[(&str, Dialect)] = &[
    ("const", Dialect::Draft6),
    ("contains", Dialect::Draft6),
    ("propertyNames", Dialect::Draft6),
    ("if", Dialect::Draft7),
    ("then", Dialect::Draft7),
    ("else", Dialect::Draft7),
    ("dependentRequired", Dialect::Draft2019),
    ("dependentSchemas", Dialect::Draft2019),
    ("unevaluatedItems", Dialect::Draft2019),
    ("unevaluatedProperties", Dialect::Draft2019),
    ("minContains", Dialect::Draft2019),
    ("maxContains", Dialect::Draft2019),
    ("$recursiveRef", Dialect::Draft2019),
    ("prefixItems", Dialect::Draft2020),
    ("$dynamicRef", Dialect::Draft2020),
];

/// Removes, from every subschema of a document of `dialect`, the keywords its draft does not
/// have ([`LATER_KEYWORDS`]). Iterative; the subschemas are those `walk::children` visits.
pub fn drop_later_keywords(root: &mut Value, dialect: Dialect) {
    if dialect == Dialect::Draft2020 {
        return;
    }
    let later: Vec<&str> = LATER_KEYWORDS
        .iter()
        .filter(|(_, since)| *since > dialect)
        .map(|(k, _)| *k)
        .collect();
    edit_schemas(root, |_, obj| {
        for k in &later {
            obj.remove(*k);
        }
    });
}

/// Calls `edit` on every schema object of a document (with its JSON Pointer), each before the
/// subschemas it then has: iterative, the subschemas being those `walk::children` visits.
pub(super) fn edit_schemas(root: &mut Value, mut edit: impl FnMut(&str, &mut Map<String, Value>)) {
    let mut stack = vec![String::new()];
    while let Some(at) = stack.pop() {
        let Some(Value::Object(obj)) = root.pointer_mut(&at) else {
            continue;
        };
        edit(&at, obj);
        let here = Value::Object(std::mem::take(obj));
        super::walk::children(&here, &at, &mut |_, child| stack.push(child));
        if let (Some(Value::Object(obj)), Value::Object(back)) = (root.pointer_mut(&at), here) {
            *obj = back;
        }
    }
}

/// The keywords that constrain an instance: beside a `$ref` in drafts 4 to 7 they are ignored
/// ("all other properties in a `$ref` object MUST be ignored"), as the validators ignore them.
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "nullable",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependencies",
    "items",
    "additionalItems",
    "contains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

/// In a document of a draft where `$ref` overrides its siblings (4, 6, 7), removes the
/// constraining keywords beside every `$ref`, so that the types read the schema as the
/// validators do (`{"$ref": "#/definitions/a", "type": "object"}` is exactly `a`). A sibling
/// that a `$ref` of the document points into stays (its subschemas are schemas of their own).
pub fn drop_ref_siblings(root: &mut Value, dialect: Dialect) {
    if !dialect.ref_overrides_siblings() {
        return;
    }
    let mut targets: std::collections::BTreeSet<String> = Default::default();
    let mut stack = vec![&*root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref") {
                    if let Some(p) = r.strip_prefix('#') {
                        targets.insert(p.to_string());
                    }
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    edit_schemas(root, |at, obj| {
        if !obj.get("$ref").is_some_and(Value::is_string) {
            return;
        }
        for k in CONSTRAINING {
            let under = super::pointer::push(at, k);
            let inside = format!("{under}/");
            let pointed_into = targets.contains(&under)
                || targets
                    .range(inside.clone()..)
                    .next()
                    .is_some_and(|t| t.starts_with(&inside));
            if !pointed_into {
                obj.remove(*k);
            }
        }
    });
}

/// The identifier a schema object declares (`$id`, or `id` in draft-04).
pub fn id_of(schema: &Value, dialect: Dialect) -> Option<&str> {
    let obj = schema.as_object()?;
    let id = match dialect {
        Dialect::Draft4 => obj.get("id").or_else(|| obj.get("$id")),
        _ => obj.get("$id"),
    }?;
    let id = id.as_str()?;
    // Before 2019-09 a `$ref` makes siblings (including `$id`) inert.
    if dialect.ref_overrides_siblings() && obj.contains_key("$ref") {
        return None;
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keywords_of_later_drafts_are_dropped_at_every_depth() {
        let mut doc = json!({
            "const": 1,
            "properties": {"a": {"const": "x", "if": {}, "type": "string"}},
            "items": [{"contains": {}}],
            "definitions": {"d": {"propertyNames": {"maxLength": 1}, "minimum": 0}}
        });
        drop_later_keywords(&mut doc, Dialect::Draft4);
        assert_eq!(
            doc,
            json!({
                "properties": {"a": {"type": "string"}},
                "items": [{}],
                "definitions": {"d": {"minimum": 0}}
            })
        );
        let mut seven = json!({"const": 1, "if": {}, "dependentRequired": {"a": ["b"]}});
        drop_later_keywords(&mut seven, Dialect::Draft7);
        assert_eq!(seven, json!({"const": 1, "if": {}}));
    }

    #[test]
    fn constraints_beside_a_ref_are_dropped_before_draft_2019() {
        let doc = json!({
            "$ref": "#/definitions/a",
            "type": "object",
            "description": "kept",
            "definitions": {
                "a": {"type": "string"},
                "b": {"$ref": "#/definitions/a", "properties": {"x": {}}, "items": {}}
            },
            "c": {"$ref": "#/definitions/b/properties/x"}
        });
        let mut seven = doc.clone();
        drop_ref_siblings(&mut seven, Dialect::Draft7);
        assert_eq!(seven["type"], Value::Null);
        assert_eq!(seven["description"], "kept");
        // Pointed into by a `$ref`: kept.
        assert_eq!(seven["definitions"]["b"]["properties"], json!({"x": {}}));
        assert_eq!(seven["definitions"]["b"]["items"], Value::Null);
        let mut later = doc.clone();
        drop_ref_siblings(&mut later, Dialect::Draft2019);
        assert_eq!(later, doc);
    }
}
