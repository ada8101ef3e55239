//! Limits of rustc and of derive macros that deep types run into.
//!
//! The `#![recursion_limit]` a generated crate needs. rustc proves the traits of a type (the
//! derived `Debug`, `Clone`, `PartialEq`, serde's, and the drop check) one obligation per level
//! of its type expression, through every type it contains: `Schema: Debug` needs
//! `Vec<Vec<Schema>>: Debug`, that `Vec<Schema>: Debug`, … So a chain of named types counts,
//! and so does every `Vec`, `BTreeMap` and `Option` written inline within one type: `items`
//! nested 130 deep in a schema that refers to itself is one type of 130 `Vec`s around itself,
//! over the default limit of 128.

use crate::ir::{Ir, Ty, TypeId, TypeKind};

/// Type constructors a type expression may nest before its inner part is a private alias of
/// its own. Derive macros (serde's, schemars') parse a type recursively: a field of 190 nested
/// `Vec`s overflows rustc's stack in serde's derive.
pub(super) const MAX_TYPE_DEPTH: usize = 64;

/// A private alias of the inner part of a deep type expression: `type Schema__1 = Vec<…>;`.
/// A type's name has no `_` (it is UpperCamelCase), so `{type}__{k}` names nothing else.
pub(crate) struct NestedAlias {
    pub name: String,
    pub ty: String,
}

/// The [`NestedAlias`]es of the type being built.
#[derive(Default)]
pub(super) struct Nested {
    owner: String,
    aliases: Vec<NestedAlias>,
}

impl Nested {
    /// Starts the aliases of the type `owner`.
    pub fn start(&mut self, owner: &str) {
        self.owner = owner.to_string();
        self.aliases.clear();
    }

    /// Names `ty`: the alias's name.
    pub fn alias(&mut self, ty: String) -> String {
        let name = format!("{}__{}", self.owner, self.aliases.len() + 1);
        self.aliases.push(NestedAlias {
            name: name.clone(),
            ty,
        });
        name
    }

    /// The aliases of the type, innermost first.
    pub fn take(&mut self) -> Vec<NestedAlias> {
        std::mem::take(&mut self.aliases)
    }
}

/// rustc's default `recursion_limit`.
const DEFAULT: usize = 128;

/// The levels a named type adds to a chain of types (measured: a cycle of structs, each with an
/// optional field of the next, `Option<Box<Next>>`, overflows the default limit at 64 structs).
const PER_TYPE: usize = 2;

/// The `recursion_limit` the crate needs for its types, when the default of 128 is too low.
pub(crate) fn recursion_limit(ir: &Ir) -> Option<usize> {
    let n = crate::ir::nesting::deepest_weighted(ir, &|id| levels(ir, id)).0;
    (n > DEFAULT * 3 / 4).then(|| (n + 64).max(2 * DEFAULT))
}

/// The levels one type adds to a chain through it: its own, and those of its deepest inline
/// type expression.
fn levels(ir: &Ir, id: TypeId) -> usize {
    let mut deepest = 0;
    let mut see = |t: &Ty| deepest = deepest.max(constructors(t));
    match &ir.types[id].kind {
        TypeKind::Struct(s) => {
            s.fields.iter().for_each(|f| see(&f.ty));
            if let Some(extra) = &s.extra {
                see(extra);
            }
        }
        TypeKind::Union(u) => u.variants.iter().for_each(|v| see(&v.ty)),
        TypeKind::Alias(t) => see(t),
        TypeKind::Enum(_) => {}
    }
    PER_TYPE + deepest
}

/// How many type constructors (`Option`, `Vec`, `BTreeMap`) a type expression nests
/// (`Vec<Option<String>>`: 2).
fn constructors(mut ty: &Ty) -> usize {
    let mut n = 0;
    while let Ty::Nullable(t) | Ty::Array(t) | Ty::Map(t) = ty {
        n += 1;
        ty = t;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::{constructors, Nested};
    use crate::ir::Ty;

    #[test]
    fn nested_aliases_are_numbered_per_type() {
        let mut n = Nested::default();
        n.start("Schema");
        assert_eq!(n.alias("Vec<String>".into()), "Schema__1");
        assert_eq!(n.alias("Vec<Schema__1>".into()), "Schema__2");
        let taken: Vec<String> = n.take().into_iter().map(|a| a.name).collect();
        assert_eq!(taken, ["Schema__1", "Schema__2"]);
        n.start("Other");
        assert_eq!(n.alias("Vec<i64>".into()), "Other__1");
    }

    #[test]
    fn constructors_count_each_level() {
        let t = Ty::Array(Box::new(Ty::Nullable(Box::new(Ty::Map(Box::new(
            Ty::String,
        ))))));
        assert_eq!(constructors(&t), 3);
        assert_eq!(constructors(&Ty::Named(0)), 0);
    }
}
