//! Schema defaults no language can apply: a default that, applied, needs the same default again
//! (the draft-04 meta-schema's `"additionalItems": {"default": {}}`, whose `{}` is a schema that
//! again lacks `additionalItems`) would make every parse recurse until the stack overflows (Rust's
//! serde defaults, TypeScript's `withDefaults` functions). No backend applies such a default:
//! the field stays optional, as when the schema gives none (Python's models do not apply
//! defaults of such types either).

use serde_json::Value;

use crate::ir::{Ty, TypeDef, TypeId, TypeKind};

/// Most steps spent on one default; a default that needs more is treated as looping.
const BUDGET: usize = 10_000;

/// Whether applying the default of field `field` of struct `owner` applies it again.
pub(crate) fn default_loops(types: &[TypeDef], owner: TypeId, field: usize) -> bool {
    let TypeKind::Struct(s) = &types[owner].kind else {
        return false;
    };
    let Some(f) = s.fields.get(field) else {
        return false;
    };
    let Some(default) = f.default.as_ref().filter(|d| !d.is_null()) else {
        return false;
    };
    let mut walk = Walk {
        types,
        active: vec![(owner, field)],
        budget: BUDGET,
    };
    walk.value(&f.ty, default)
}

struct Walk<'a> {
    types: &'a [TypeDef],
    /// The defaults being applied, outermost first.
    active: Vec<(TypeId, usize)>,
    budget: usize,
}

impl Walk<'_> {
    /// Whether deserializing `value` as `ty` applies a default that is being applied already.
    fn value(&mut self, ty: &Ty, value: &Value) -> bool {
        if self.budget == 0 {
            return true;
        }
        self.budget -= 1;
        match ty {
            Ty::Nullable(inner) => !value.is_null() && self.value(inner, value),
            Ty::Array(inner) => value
                .as_array()
                .is_some_and(|a| a.iter().any(|x| self.value(inner, x))),
            Ty::Map(inner) => value
                .as_object()
                .is_some_and(|m| m.values().any(|x| self.value(inner, x))),
            Ty::Named(id) => self.named(*id, value),
            Ty::Open(inner, _) => self.value(inner, value),
            _ => false,
        }
    }

    fn named(&mut self, id: TypeId, value: &Value) -> bool {
        let types = self.types;
        match &types[id].kind {
            TypeKind::Alias(t) => self.value(t, value),
            // serde tries the variants in turn: each attempt can apply defaults.
            TypeKind::Union(u) => u.variants.iter().any(|v| self.value(&v.ty, value)),
            TypeKind::Struct(s) => {
                let Some(obj) = value.as_object() else {
                    return false;
                };
                for (i, f) in s.fields.iter().enumerate() {
                    let hit = match (obj.get(&f.wire), &f.default) {
                        (Some(x), _) => self.value(&f.ty, x),
                        (None, Some(d)) if !f.required && !d.is_null() => {
                            if self.active.contains(&(id, i)) {
                                return true;
                            }
                            self.active.push((id, i));
                            let hit = self.value(&f.ty, d);
                            self.active.pop();
                            hit
                        }
                        _ => false,
                    };
                    if hit {
                        return true;
                    }
                }
                let extra = s.extra.as_ref();
                obj.iter()
                    .filter(|(k, _)| !s.fields.iter().any(|f| &f.wire == *k))
                    .any(|(_, x)| extra.is_some_and(|t| self.value(t, x)))
            }
            TypeKind::Enum(_) => false,
        }
    }
}
