//! Whether a schema pins the JSON type of its instances. A schema without `type` accepts every
//! JSON type its other keywords do not constrain: `{"properties": {…}}` accepts `"x"`, `[]`
//! and `null` as well as objects. Such a schema's typed value is [`Ty::Open`], so that every
//! instance the validator accepts has a typed value.

use serde_json::Value;

use super::TypeBuilder;
use crate::ir::model::{JsonKind, Ty};
use crate::schema::Loc;

/// How deep `pinned` follows `$ref`s and applicators before it answers "not pinned" (the
/// answer that never loses a value).
const MAX_DEPTH: usize = 48;

impl TypeBuilder<'_, '_> {
    /// `ty`, or `Ty::Open(ty, kind)` when the schema at `loc` does not pin the JSON type to
    /// the kind `ty` holds (an array, a map or struct, a string).
    pub(super) fn open_unless_pinned(&mut self, loc: &Loc, ty: Ty) -> Ty {
        let kind = match &ty {
            Ty::Array(_) => JsonKind::Array,
            Ty::Map(_) => JsonKind::Object,
            Ty::String => JsonKind::String,
            Ty::Named(id) => match self.types[*id].open {
                Some(kind) => kind,
                None => return ty,
            },
            _ => return ty,
        };
        if self.pinned(loc) {
            ty
        } else {
            Ty::Open(Box::new(ty), kind)
        }
    }

    /// Whether every instance the schema at `loc` accepts has one JSON type (or `null` beside
    /// it, which nullability covers): its own `type`, `enum` or `const`, a `$ref` or an
    /// `allOf` member that pins it, or `anyOf`/`oneOf`/`if`-`then`-`else` branches that all do.
    pub(super) fn pinned(&mut self, loc: &Loc) -> bool {
        self.pinned_at(loc, 0)
    }

    fn pinned_at(&mut self, loc: &Loc, depth: usize) -> bool {
        if let Some(p) = self.pinned.get(loc) {
            return *p;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        // A cycle answers "not pinned" while it is being decided.
        self.pinned.insert(loc.clone(), false);
        let p = self.decide_pinned(loc, depth);
        self.pinned.insert(loc.clone(), p);
        p
    }

    /// Walks the schemas that `$ref` and `allOf` join to `loc` (any number, without recursion:
    /// chains of them are as long as a schema makes them); a branching keyword is decided by
    /// recursion, at most [`MAX_DEPTH`] levels deep.
    fn decide_pinned(&mut self, loc: &Loc, depth: usize) -> bool {
        // (location, index in `walked` of the location that led to it)
        let mut stack = vec![(loc.clone(), usize::MAX)];
        let mut walked: Vec<(Loc, usize)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while let Some((at, from)) = stack.pop() {
            if !seen.insert(at.clone()) {
                continue;
            }
            let me = walked.len();
            walked.push((at.clone(), from));
            if at != *loc && self.pinned.get(&at) == Some(&true) || self.pins_itself(&at, depth) {
                // Every schema on the way from `loc` to this one is pinned by it.
                let mut i = me;
                while i != usize::MAX {
                    self.pinned.insert(walked[i].0.clone(), true);
                    i = walked[i].1;
                }
                return true;
            }
            let Some(obj) = self.obj(&at) else { continue };
            let reference = obj.get("$ref").and_then(Value::as_str).map(String::from);
            let all = obj
                .get("allOf")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if let Some(r) = reference {
                if let Ok(target) = self.comp.set_mut().resolve(&at, &r) {
                    stack.push((target, me));
                }
            }
            for i in 0..all {
                stack.push((Self::at(&at, &["allOf", &i.to_string()]), me));
            }
        }
        // What `loc` reaches, each schema reaches too: none of them is pinned.
        for (at, _) in walked {
            self.pinned.insert(at, false);
        }
        false
    }

    /// Whether the schema at `loc` pins the type by its own keywords or by branches that all do.
    fn pins_itself(&mut self, loc: &Loc, depth: usize) -> bool {
        let Some(obj) = self.obj(loc) else {
            // `false` accepts nothing; `true` accepts everything.
            return self.comp.set().value(loc) == Some(&Value::Bool(false));
        };
        if ["type", "enum", "const"]
            .iter()
            .any(|k| obj.contains_key(*k))
        {
            return true;
        }
        let len = |k: &str| obj.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        let (any, one) = (len("anyOf"), len("oneOf"));
        let conditional = obj.contains_key("then") && obj.contains_key("else");
        for (key, n) in [("anyOf", any), ("oneOf", one)] {
            if n > 0
                && (0..n).all(|i| self.pinned_at(&Self::at(loc, &[key, &i.to_string()]), depth + 1))
            {
                return true;
            }
        }
        conditional
            && self.pinned_at(&Self::at(loc, &["then"]), depth + 1)
            && self.pinned_at(&Self::at(loc, &["else"]), depth + 1)
    }
}
