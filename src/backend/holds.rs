//! Whether a JSON value is a value of a type: the strictest reading of the three languages (a
//! TypeScript literal of it type-checks, and the Rust and Python ones hold), used to
//! accept an annotation's value (`x-fallback`) and a default before they are written into code.

use serde_json::Value;

use crate::ir::{Check, Ir, JsonType, Ty, TypeId, TypeKind};

/// Whether `v` is a value of the type `id`.
pub(crate) fn holds_type(ir: &Ir, id: TypeId, v: &Value) -> bool {
    holds(ir, &Ty::Named(id), v, 0)
}

/// Whether `v` is a value of `t`, `depth` levels down (deeper than 64: no).
pub(crate) fn holds(ir: &Ir, t: &Ty, v: &Value, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    let d = depth + 1;
    match (t, v) {
        (Ty::Any, Value::Object(o)) => {
            !o.contains_key("__proto__") && o.values().all(|x| holds(ir, t, x, d))
        }
        (Ty::Any, Value::Array(a)) => a.iter().all(|x| holds(ir, t, x, d)),
        (Ty::Any, _) => true,
        (Ty::Null | Ty::Nullable(_), Value::Null) => true,
        (Ty::Nullable(t), v) => holds(ir, t, v, d),
        (Ty::Bool, Value::Bool(_)) => true,
        (Ty::Integer | Ty::WideInteger | Ty::Number, Value::Number(_)) => true,
        (Ty::String, Value::String(_)) => true,
        (Ty::Literal(l), Value::String(s)) => l == s,
        (Ty::Array(t), Value::Array(a)) => a.iter().all(|x| holds(ir, t, x, d)),
        (Ty::Map(t), Value::Object(o)) => {
            !o.contains_key("__proto__") && o.values().all(|x| holds(ir, t, x, d))
        }
        (Ty::Open(t, kind), v) if kind.holds(v) => holds(ir, t, v, d),
        (Ty::Open(..), v) => holds(ir, &Ty::Any, v, d),
        (Ty::Named(id), v) => match &ir.types[*id].kind {
            TypeKind::Enum(values) => v.as_str().is_some_and(|s| values.iter().any(|x| x == s)),
            // Written as the union of its node's JSON types (see `alias_target`).
            TypeKind::Alias(a) if *a == Ty::Named(*id) => {
                let node = &ir.program.nodes[ir.types[*id].node];
                let types: Vec<JsonType> = node
                    .checks
                    .iter()
                    .filter_map(|c| {
                        if let Check::Type(ts) = c {
                            Some(ts.iter().copied())
                        } else {
                            None
                        }
                    })
                    .flatten()
                    .collect();
                let of = |t: JsonType| {
                    matches!(
                        (t, v),
                        (JsonType::Null, Value::Null)
                            | (JsonType::Boolean, Value::Bool(_))
                            | (JsonType::Object, Value::Object(_))
                            | (JsonType::Array, Value::Array(_))
                            | (JsonType::Number | JsonType::Integer, Value::Number(_))
                            | (JsonType::String, Value::String(_))
                    )
                };
                (types.is_empty() || types.into_iter().any(of)) && holds(ir, &Ty::Any, v, d)
            }
            TypeKind::Alias(a) => holds(ir, a, v, d),
            TypeKind::Union(u) => u.variants.iter().any(|x| holds(ir, &x.ty, v, d)),
            TypeKind::Struct(s) => {
                let Value::Object(o) = v else { return false };
                !o.contains_key("__proto__")
                    && s.fields
                        .iter()
                        .all(|f| !f.required || o.contains_key(&f.wire))
                    && o.iter()
                        .all(|(k, x)| match s.fields.iter().find(|f| f.wire == *k) {
                            Some(f) => holds(ir, &f.ty, x, d),
                            None => s.extra.as_ref().is_some_and(|e| holds(ir, e, x, d)),
                        })
            }
        },
        _ => false,
    }
}
