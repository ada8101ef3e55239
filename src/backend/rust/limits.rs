//! The `#![recursion_limit]` a generated crate needs. rustc proves the traits of a type (the
//! derived `Debug`, `Clone`, `PartialEq`, serde's, and the drop check) one obligation per level
//! of its type expression, through every type it contains: `Schema: Debug` needs
//! `Vec<Vec<Schema>>: Debug`, that `Vec<Schema>: Debug`, … So a chain of named types counts,
//! and so does every `Vec`, `BTreeMap` and `Option` written inline within one type: `items`
//! nested 130 deep in a schema that refers to itself is one type of 130 `Vec`s around itself,
//! over the default limit of 128.

use crate::ir::{Ir, Ty, TypeId, TypeKind};

/// rustc's default `recursion_limit`.
const DEFAULT: usize = 128;

/// The levels a named type adds to a chain of types (measured: a cycle of structs, each with an
/// optional field of the next, `Option<Box<Next>>`, overflows the default limit at 64 structs).
const PER_TYPE: usize = 2;

/// The `recursion_limit` the crate needs for its types, when the default of 128 is too low.
pub(super) fn recursion_limit(ir: &Ir) -> Option<usize> {
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
    use super::constructors;
    use crate::ir::Ty;

    #[test]
    fn constructors_count_each_level() {
        let t = Ty::Array(Box::new(Ty::Nullable(Box::new(Ty::Map(Box::new(
            Ty::String,
        ))))));
        assert_eq!(constructors(&t), 3);
        assert_eq!(constructors(&Ty::Named(0)), 0);
    }
}
