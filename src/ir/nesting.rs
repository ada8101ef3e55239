//! How deeply the types of a schema set nest: the longest chain of types that refer to one
//! another. Compilers and libraries walk such chains recursively (rustc's drop check, pydantic's
//! schema building), so the backends size their limits from it.

use super::{Ir, Ty, TypeId, TypeKind};

/// Every named type a type refers to: fields, items, map values, variants, alias targets.
pub fn refers_to(ir: &Ir, id: TypeId) -> Vec<TypeId> {
    let mut out = Vec::new();
    let mut named = |t: &Ty| {
        if let Ty::Named(n) = t {
            out.push(*n);
        }
    };
    match &ir.types[id].kind {
        TypeKind::Struct(s) => {
            for f in &s.fields {
                f.ty.visit(&mut named);
            }
            if let Some(extra) = &s.extra {
                extra.visit(&mut named);
            }
        }
        TypeKind::Union(u) => u.variants.iter().for_each(|v| v.ty.visit(&mut named)),
        TypeKind::Alias(t) => t.visit(&mut named),
        TypeKind::Enum(_) => {}
    }
    out
}

/// The longest chain of types that refer to one another, counting only the types `counts`
/// accepts (the members of a cycle all count), and a type at which such a chain starts.
/// Linear, without recursion.
pub fn deepest_counting(ir: &Ir, counts: &dyn Fn(TypeId) -> bool) -> (usize, Option<TypeId>) {
    deepest_weighted(ir, &|v| usize::from(counts(v)))
}

/// The heaviest chain of types that refer to one another, each type weighing `weight` (the
/// members of a cycle all count), and a type at which such a chain starts. Linear, without
/// recursion.
pub fn deepest_weighted(ir: &Ir, weight: &dyn Fn(TypeId) -> usize) -> (usize, Option<TypeId>) {
    let n = ir.types.len();
    let edges = |v: usize| refers_to(ir, v);
    let comp = super::cycles::components(n, &edges);
    let count = comp.iter().map(|c| c + 1).max().unwrap_or(0);
    let mut members = vec![Vec::new(); count];
    for (v, &c) in comp.iter().enumerate() {
        members[c].push(v);
    }
    // Components complete sinks first: every component a component reaches has a lower number.
    let mut depth = vec![0usize; count];
    let mut best = (0, None);
    for c in 0..count {
        let below = members[c]
            .iter()
            .flat_map(|&v| edges(v))
            .filter(|&u| comp[u] != c)
            .map(|u| depth[comp[u]])
            .max()
            .unwrap_or(0);
        depth[c] = below + members[c].iter().map(|&v| weight(v)).sum::<usize>();
        if depth[c] > best.0 {
            best = (depth[c], members[c].first().copied());
        }
    }
    best
}

/// [`deepest_counting`] with every type counted.
pub fn deepest(ir: &Ir) -> (usize, Option<TypeId>) {
    deepest_counting(ir, &|_| true)
}
