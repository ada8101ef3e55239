//! Paths into a JSON tree, the schema positions of a schema document, and `$ref` spelling.

use serde_json::Value;

use super::fixture::MARKER;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    Key(String),
    Idx(usize),
}

pub type Path = Vec<Seg>;

pub fn get<'a>(mut v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    for s in path {
        v = match (s, v) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Idx(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

pub fn get_mut<'a>(mut v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    for s in path {
        v = match (s, v) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Seg::Idx(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// The JSON Pointer of a path.
pub fn pointer(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Seg::Idx(i) => format!("/{i}"),
        })
        .collect()
}

/// Percent-encodes what may not appear in a URI fragment or path.
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `$ref` from a file to a location in another (both relative to the schema root).
pub fn file_ref(from: &str, to: &str, path: &[Seg]) -> String {
    let depth = from.matches('/').count();
    let target: Vec<String> = to.split('/').map(encode).collect();
    let mut r = "../".repeat(depth);
    r.push_str(&target.join("/"));
    if !path.is_empty() {
        r.push('#');
        r.push_str(&encode(&pointer(path)));
    }
    r
}

const ONE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
const MANY: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Paths of the subschemas of a schema document (the root included), up to `limit`.
pub fn schema_paths(root: &Value, limit: usize) -> Vec<Path> {
    let mut out = Vec::new();
    let mut stack: Vec<Path> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        let Some(v) = get(root, &path) else { continue };
        if !(v.is_object() || v.is_boolean()) {
            continue;
        }
        out.push(path.clone());
        let Value::Object(m) = v else { continue };
        if m.contains_key(MARKER) {
            continue;
        }
        for (k, child) in m {
            let sub = |s: Seg| {
                let mut p = path.clone();
                p.push(Seg::Key(k.clone()));
                p.push(s);
                p
            };
            if ONE.contains(&k.as_str()) && !child.is_array() {
                let mut p = path.clone();
                p.push(Seg::Key(k.clone()));
                stack.push(p);
            } else if MANY.contains(&k.as_str()) {
                if let Value::Object(cm) = child {
                    stack.extend(cm.keys().map(|ck| sub(Seg::Key(ck.clone()))));
                }
            } else if LIST.contains(&k.as_str()) {
                if let Value::Array(a) = child {
                    stack.extend((0..a.len()).map(|i| sub(Seg::Idx(i))));
                }
            }
        }
    }
    out.sort_by_key(|p| p.len());
    out
}

/// Paths of every object and array of the tree (not inside `$synthesize`), up to `limit`.
pub fn container_paths(root: &Value, limit: usize) -> Vec<Path> {
    let mut out = Vec::new();
    let mut stack: Vec<Path> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        match get(root, &path) {
            Some(Value::Object(m)) if !m.contains_key(MARKER) => {
                for k in m.keys() {
                    let mut p = path.clone();
                    p.push(Seg::Key(k.clone()));
                    stack.push(p);
                }
                out.push(path);
            }
            Some(Value::Array(a)) => {
                for i in 0..a.len() {
                    let mut p = path.clone();
                    p.push(Seg::Idx(i));
                    stack.push(p);
                }
                out.push(path);
            }
            _ => {}
        }
    }
    out
}

/// Paths of the maps under `properties`, `$defs` or `definitions` of the subschemas.
pub fn name_maps(root: &Value, schemas: &[Path]) -> Vec<Path> {
    let mut out = Vec::new();
    for p in schemas {
        if let Some(Value::Object(m)) = get(root, p) {
            for k in ["properties", "$defs", "definitions"] {
                if m.get(k)
                    .is_some_and(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                {
                    let mut q = p.clone();
                    q.push(Seg::Key(k.to_string()));
                    out.push(q);
                }
            }
        }
    }
    out
}

/// Rewrites every `$ref` string equal to `old` (or starting with `old/`) to start with `new`.
pub fn rewrite_refs(v: &mut Value, old: &str, new: &str) {
    let mut stack = vec![v];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(m) => {
                for (k, child) in m.iter_mut() {
                    if k == "$ref" {
                        if let Value::String(s) = child {
                            if s == old || s.starts_with(&format!("{old}/")) {
                                *s = format!("{new}{}", &s[old.len()..]);
                            }
                        }
                    } else {
                        stack.push(child);
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}
