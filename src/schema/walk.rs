//! Walks a document's subschemas to index `$id`s and anchors.

use serde_json::Value;

use super::dynamic::RECURSIVE;
use super::{dialect, pointer, Dialect, DocId, Loc, SchemaSet};
use crate::error::Result;

/// Keywords whose value is one subschema.
pub const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value maps names to subschemas.
pub const MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
/// Keywords whose value is an array of subschemas.
pub const ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Calls `f` for every direct subschema of `schema` with its pointer.
pub fn children<'a>(schema: &'a Value, at: &str, f: &mut dyn FnMut(&'a Value, String)) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (k, v) in obj {
        let k = k.as_str();
        if SCHEMA_KEYWORDS.contains(&k) && (v.is_object() || v.is_boolean()) {
            f(v, pointer::push(at, k));
        } else if MAP_KEYWORDS.contains(&k) {
            if let Some(m) = v.as_object() {
                for (name, sub) in m {
                    if sub.is_object() || sub.is_boolean() {
                        f(sub, pointer::push(&pointer::push(at, k), name));
                    }
                }
            }
        } else if ARRAY_KEYWORDS.contains(&k) {
            if let Some(items) = v.as_array() {
                for (i, sub) in items.iter().enumerate() {
                    f(sub, pointer::push(&pointer::push(at, k), &i.to_string()));
                }
            }
        }
    }
}

pub(super) fn index(set: &mut SchemaSet, doc: DocId) -> Result<()> {
    let d = &set.docs[doc];
    let mut found: Vec<(String, String)> = Vec::new(); // (key, pointer) pairs: resources and anchors
    let mut anchors: Vec<(String, String)> = Vec::new();
    // (resource, name, pointer) of every dynamic anchor (`super::dynamic`).
    let mut dynamic: Vec<(String, String, String)> = Vec::new();
    let mut stack: Vec<(&Value, String, super::Uri)> =
        vec![(&d.root, String::new(), d.url.clone())];
    while let Some((schema, at, mut base)) = stack.pop() {
        let mut resource_root = at.is_empty();
        if let Some(id) = dialect::id_of(schema, d.dialect) {
            if let Some(u) = base.join(id) {
                if let Some(frag) = u
                    .fragment()
                    .filter(|f| !f.is_empty() && !f.starts_with('/'))
                {
                    anchors.push((format!("{}#{frag}", u.without_fragment()), at.clone()));
                } else {
                    base = u;
                    found.push((base.without_fragment(), at.clone()));
                    resource_root = true;
                }
            }
        }
        if d.dialect == Dialect::Draft2020 {
            if let Some(name) = schema.get("$dynamicAnchor").and_then(Value::as_str) {
                dynamic.push((base.without_fragment(), name.to_string(), at.clone()));
            }
        }
        if d.dialect == Dialect::Draft2019
            && resource_root
            && schema.get("$recursiveAnchor") == Some(&Value::Bool(true))
        {
            dynamic.push((base.without_fragment(), RECURSIVE.to_string(), at.clone()));
        }
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(name) = schema.get(key).and_then(Value::as_str) {
                anchors.push((format!("{}#{name}", base.without_fragment()), at.clone()));
            }
        }
        children(schema, &at, &mut |sub, p| {
            stack.push((sub, p, base.clone()))
        });
    }
    for (uri, p) in found {
        set.add_resource(uri, Loc { doc, pointer: p });
    }
    for (key, p) in anchors {
        set.add_anchor(key, Loc { doc, pointer: p });
    }
    for (resource, name, p) in dynamic {
        set.add_dynamic_anchor(resource, name, Loc { doc, pointer: p });
    }
    Ok(())
}
