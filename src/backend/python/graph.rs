//! The graph of model types: shared classes for copies on a cycle, cycles, and definition order.

use super::*;

/// The model class each struct is emitted as. Schemas that copy an object into itself (a
/// configuration whose sub-configurations are `{"$ref": "#", "type": "object"}`) give many
/// structs with the same fields that all contain one another; as classes, pydantic would
/// build the whole cycle's schema once per class, each nested in the others. So structs of
/// one module that have the same fields, field for field (types compared up to such
/// sameness), are one class when two of them lie on one cycle of references: the first, of
/// which the others are aliases. Unrelated structs that happen to look alike stay distinct.
pub(super) fn shared_models(ir: &Ir) -> Vec<TypeId> {
    fn key(ty: &Ty, class: &[usize], ir: &Ir, out: &mut String) {
        match ty {
            Ty::Nullable(t) => {
                out.push('?');
                key(t, class, ir, out)
            }
            Ty::Array(t) => {
                out.push('[');
                key(t, class, ir, out)
            }
            Ty::Map(t) => {
                out.push('{');
                key(t, class, ir, out)
            }
            Ty::Open(t, kind) => {
                out.push_str(kind.name());
                out.push('|');
                key(t, class, ir, out)
            }
            Ty::Named(n) if matches!(ir.types[*n].kind, TypeKind::Struct(_)) => {
                out.push_str(&format!("S{}", class[*n]))
            }
            Ty::Named(n) => out.push_str(&format!("T{n}")),
            t => out.push_str(&format!("{t:?}")),
        }
        out.push(';');
    }
    let n = ir.types.len();
    let edges: Vec<Vec<TypeId>> = (0..n)
        .map(|id| match ir.types[id].kind {
            TypeKind::Struct(_) => ir.references(id),
            _ => alias_refs(ir, id),
        })
        .collect();
    let (component, looped) = components(&edges);
    // Only structs on a cycle can share a class; their classes depend on the structs they
    // reach, and on no other. The others each keep a class of their own.
    let is_struct = |id: TypeId| matches!(ir.types[id].kind, TypeKind::Struct(_));
    let mut part = vec![false; n];
    let mut work: Vec<TypeId> = (0..n).filter(|id| looped[*id] && is_struct(*id)).collect();
    work.iter().for_each(|id| part[*id] = true);
    while let Some(id) = work.pop() {
        for r in ir.references(id) {
            if is_struct(r) && !part[r] {
                part[r] = true;
                work.push(r);
            }
        }
    }
    // Start from one class per (module, field names) and split until no class splits. Each
    // round costs the size of the types; a partition still splitting after
    // `MAX_ROUNDS` rounds (a long chain of look-alikes, where each round splits off one more)
    // is given up: every struct keeps a class of its own, which is always sound.
    const MAX_ROUNDS: usize = 64;
    // What each field adds to its struct's key whatever the classes: computed once, not once
    // per round.
    let fixed: Vec<Vec<String>> = ir
        .types
        .iter()
        .enumerate()
        .map(|(id, t)| match (&t.kind, part[id]) {
            (TypeKind::Struct(s), true) => s
                .fields
                .iter()
                .map(|f| {
                    format!(
                        "{:?}|{}|{:?}|{:?}|{:?}|",
                        f.wire, f.required, f.default, f.doc, f.annotations
                    )
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let mut class: Vec<usize> = (0..n).collect();
    let mut count = 0;
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > MAX_ROUNDS {
            return (0..n).collect();
        }
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut next = vec![0; n];
        for (id, t) in ir.types.iter().enumerate() {
            let (TypeKind::Struct(s), true) = (&t.kind, part[id]) else {
                next[id] = ids.len();
                ids.insert(format!("#{id}"), next[id]);
                continue;
            };
            let mut k = format!("{}|{}|", t.module, s.deny_unknown);
            if count > 0 {
                k.push_str(&format!("{}|", class[id]));
            }
            for (f, fixed) in s.fields.iter().zip(&fixed[id]) {
                k.push_str(fixed);
                if count > 0 {
                    key(&f.ty, &class, ir, &mut k);
                }
            }
            if let Some(e) = &s.extra {
                k.push('+');
                if count > 0 {
                    key(e, &class, ir, &mut k);
                }
            }
            let len = ids.len();
            next[id] = *ids.entry(k).or_insert(len);
        }
        let classes = ids.len();
        class = next;
        if classes == count {
            break;
        }
        count = classes;
    }
    // The classes of which two members lie on one cycle.
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    for id in 0..n {
        *seen.entry((class[id], component[id])).or_default() += 1;
    }
    let merged: BTreeSet<usize> = seen
        .iter()
        .filter(|(_, count)| **count > 1)
        .map(|((c, _), _)| *c)
        .collect();
    let mut first: HashMap<usize, TypeId> = HashMap::new();
    let mut canon: Vec<TypeId> = (0..n).collect();
    for m in &ir.modules {
        for &id in m.types.iter().filter(|id| merged.contains(&class[**id])) {
            canon[id] = *first.entry(class[id]).or_insert(id);
        }
    }
    canon
}

/// Whether a type is a model class or an alias chain ending at one.
pub(super) fn names_model_class(ir: &Ir, mut id: TypeId) -> bool {
    for _ in 0..16 {
        match &ir.types[id].kind {
            TypeKind::Struct(_) => return true,
            TypeKind::Alias(Ty::Named(n)) if *n != id => id = *n,
            _ => return false,
        }
    }
    false
}

/// Whether a type is (another name for) a model class, which a `TypeAdapter` must not configure:
/// an alias of one, or a union whose variants are all that one.
pub(super) fn is_model(ir: &Ir, mut id: TypeId) -> bool {
    for _ in 0..16 {
        let next = match &ir.types[id].kind {
            TypeKind::Struct(_) => return true,
            TypeKind::Alias(Ty::Named(n)) if *n != id => *n,
            TypeKind::Union(u) => match u.variants.first().map(|v| &v.ty) {
                Some(Ty::Named(n))
                    if *n != id && u.variants.iter().all(|v| v.ty == Ty::Named(*n)) =>
                {
                    *n
                }
                _ => return false,
            },
            _ => return false,
        };
        id = next;
    }
    false
}

/// The types an alias or union value names (an alias of itself names its base type; a copy
/// of a model names the model class, defined before every alias).
pub(super) fn alias_refs(ir: &Ir, id: TypeId) -> Vec<TypeId> {
    match &ir.types[id].kind {
        TypeKind::Struct(_) => Vec::new(),
        TypeKind::Alias(_) => {
            let mut out = Vec::new();
            alias_ty(ir, id).visit(&mut |t| {
                if let Ty::Named(n) = t {
                    out.push(*n);
                }
            });
            out
        }
        _ => ir.references(id),
    }
}

/// Which of `ids` lie on a cycle of references among `ids`.
pub(super) fn cyclic(ir: &Ir, ids: &[TypeId]) -> Vec<bool> {
    let pos: HashMap<TypeId, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let edges: Vec<Vec<usize>> = ids
        .iter()
        .map(|id| {
            alias_refs(ir, *id)
                .iter()
                .filter_map(|r| pos.get(r).copied())
                .collect()
        })
        .collect();
    components(&edges).1
}

/// The strongly connected components of a graph (Tarjan, without recursion): the component of
/// each vertex, and whether it lies on a cycle (a component of several vertices, or a vertex
/// with a loop).
pub(super) fn components(edges: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    let component = crate::ir::cycles::components(edges.len(), &|v| edges[v].clone());
    let mut size: HashMap<usize, usize> = HashMap::new();
    for c in &component {
        *size.entry(*c).or_default() += 1;
    }
    let looped = (0..edges.len())
        .map(|v| size[&component[v]] > 1 || edges[v].contains(&v))
        .collect();
    (component, looped)
}

/// Orders types so that each comes after the types of the same list it refers to (depth first,
/// without recursion).
pub(super) fn topo(ir: &Ir, ids: &[TypeId]) -> Vec<usize> {
    topo_by(ids, &|id| alias_refs(ir, id))
}

/// Orders the types of a module so that each comes after the types of the list it refers to,
/// classes through their fields and aliases through their values: the order in which a class
/// is complete when defined unless it lies on a cycle (pydantic then builds it without
/// descending into the classes it names).
pub(super) fn definition_order(ir: &Ir, canon: &[TypeId], ids: &[TypeId]) -> Vec<usize> {
    topo_by(ids, &|id| match ir.types[id].kind {
        TypeKind::Struct(_) if canon[id] != id => vec![canon[id]],
        TypeKind::Struct(_) => ir.references(id),
        _ => alias_refs(ir, id),
    })
}

fn topo_by(ids: &[TypeId], edges: &dyn Fn(TypeId) -> Vec<TypeId>) -> Vec<usize> {
    let pos: HashMap<TypeId, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut state = vec![false; ids.len()];
    let mut out = Vec::new();
    let refs = |i: usize| -> Vec<usize> {
        edges(ids[i])
            .iter()
            .filter_map(|r| pos.get(r).copied())
            .filter(|j| *j != i)
            .collect()
    };
    for start in 0..ids.len() {
        if state[start] {
            continue;
        }
        state[start] = true;
        let mut calls: Vec<(usize, Vec<usize>, usize)> = vec![(start, refs(start), 0)];
        while let Some((i, succ, k)) = calls.last_mut() {
            if let Some(&j) = succ.get(*k) {
                *k += 1;
                if !state[j] {
                    state[j] = true;
                    calls.push((j, refs(j), 0));
                }
                continue;
            }
            out.push(*i);
            calls.pop();
        }
    }
    out
}

/// The modules whose Python files would import each other at import time (a type of one
/// names a type of another, both ways round, maybe through further modules): for each
/// module, the sorted members of its import cycle (only itself when it is on none). The
/// types of a cycle are written into one shared file, which each member re-exports.
pub(super) fn import_cycles(ir: &Ir, canon: &[TypeId]) -> Vec<Vec<usize>> {
    let n = ir.modules.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (id, t) in ir.types.iter().enumerate() {
        let mut refs = ir.references(id);
        refs.push(canon[id]);
        for r in refs {
            let m = ir.types[r].module;
            if m != t.module && !edges[t.module].contains(&m) {
                edges[t.module].push(m);
            }
        }
    }
    let (component, _) = components(&edges);
    (0..n)
        .map(|m| (0..n).filter(|o| component[*o] == component[m]).collect())
        .collect()
}

/// The most levels of type nesting (a `list[…]`, a `dict[…]`, an alias's value) pydantic follows
/// in one go while it builds a schema. It builds schemas recursively, several Python frames a
/// level, and fails with `RecursionError` at about 200 nested `list[…]` aliases; a reference
/// deeper than this is deferred (`_rt.DEFERRED`, built on first use).
pub(super) const MAX_EAGER_LEVELS: usize = 24;

/// The levels of nesting from which `parse_x` builds a value on a thread of its own with a large
/// stack (`_DEEP_BUILD` in the runtime): pydantic builds recursively, several kilobytes of C
/// stack a level.
pub(crate) const DEEP_BUILD: usize = 48;

/// The most model classes of one cycle of references pydantic builds together. It builds the
/// whole cycle in one recursion (fails with `RecursionError` at about 80 classes, and takes
/// seconds at a few hundred); in a larger cycle every reference to a type of the same cycle
/// is deferred, so each class is built alone.
pub(super) const MAX_EAGER_CYCLE: usize = 16;

/// Which references the models defer to their first use, so that building any schema
/// follows a bounded number of levels (see `MAX_EAGER_LEVELS`, `MAX_EAGER_CYCLE`).
pub(super) struct Deferral {
    /// The strongly connected component of each type, over references of classes and aliases.
    component: Vec<usize>,
    /// Whether a component holds more than `MAX_EAGER_CYCLE` model classes.
    big: Vec<bool>,
    /// Whether a component is a cycle (several types, or one that names itself).
    cyclic: Vec<bool>,
    /// Whether a type is a model class of its own (not another name for one).
    class: Vec<bool>,
    /// The levels pydantic follows to build each type's schema (a complete class's schema
    /// holds those of the classes it names).
    cost: Vec<usize>,
    /// The levels pydantic descends into to build a value of each type (`build_depth`).
    pub(super) build_depth: Vec<Option<usize>>,
    /// Whether a union or alias is `None` as written (`X: TypeAlias = None`): such a name is
    /// written `None` where it is used, since `X | None` would be `None | None`, a `TypeError`.
    null: Vec<bool>,
}

impl Deferral {
    pub(super) fn new(ir: &Ir, canon: &[TypeId]) -> Deferral {
        let n = ir.types.len();
        let class =
            |id: TypeId| matches!(ir.types[id].kind, TypeKind::Struct(_)) && canon[id] == id;
        let edges = |id: TypeId| match ir.types[id].kind {
            TypeKind::Struct(_) if canon[id] != id => vec![canon[id]],
            TypeKind::Struct(_) => ir.references(id),
            _ => alias_refs(ir, id),
        };
        let component = crate::ir::cycles::components(n, &edges);
        let mut classes = vec![0usize; n];
        for id in (0..n).filter(|id| class(*id)) {
            classes[component[id]] += 1;
        }
        let big = classes.iter().map(|c| *c > MAX_EAGER_CYCLE).collect();
        let mut members = vec![0usize; n];
        let mut cyclic = vec![false; n];
        for id in 0..n {
            members[component[id]] += 1;
        }
        for id in 0..n {
            cyclic[component[id]] |= members[component[id]] > 1 || edges(id).contains(&id);
        }
        let class = (0..n).map(class).collect();
        let mut d = Deferral {
            component,
            big,
            cyclic,
            class,
            cost: vec![1; n],
            build_depth: vec![None; n],
            null: vec![false; n],
        };
        // Types in the order their components complete: what a type names comes first. On a
        // cycle, a type named before its cost is known counts one level.
        let mut order: Vec<TypeId> = (0..n).collect();
        order.sort_by_key(|id| d.component[*id]);
        for id in order {
            d.null[id] = match &ir.types[id].kind {
                TypeKind::Union(u) => u.variants.iter().all(|v| d.is_null(&v.ty)),
                TypeKind::Alias(_) => d.is_null(&alias_ty(ir, id)),
                _ => false,
            };
            d.build_depth[id] = if d.cyclic[d.component[id]] {
                None
            } else {
                build_depth(ir, id, &d.build_depth)
            };
            d.cost[id] = match &ir.types[id].kind {
                // A discriminated union names its variants' classes as they are (pydantic
                // needs the classes to read their tags); the parts of any other union are
                // deferred as `alias_value` writes them (a `None` member costs nothing).
                TypeKind::Union(u) if u.tags.len() == 1 => u
                    .variants
                    .iter()
                    .map(|v| d.ty_cost(ir, id, &v.ty))
                    .max()
                    .unwrap_or(1),
                TypeKind::Union(u) => u
                    .variants
                    .iter()
                    .map(|v| match &v.ty {
                        Ty::Nullable(t) => d.capped(ir, id, t),
                        t => d.capped(ir, id, t),
                    })
                    .max()
                    .unwrap_or(1),
                TypeKind::Alias(_) => d.ty_cost(ir, id, &alias_ty(ir, id)),
                // A complete class's schema holds the schemas of the classes it names.
                TypeKind::Struct(_) if canon[id] != id => d.cost[canon[id]],
                TypeKind::Struct(s) => {
                    1 + s
                        .fields
                        .iter()
                        .map(|f| &f.ty)
                        .chain(&s.extra)
                        .map(|t| d.field_cost(ir, id, t))
                        .max()
                        .unwrap_or(0)
                }
                TypeKind::Enum(_) => 1,
            };
        }
        d
    }

    /// Whether `owner`'s reference to `target` is deferred: both lie on one cycle with more
    /// than `MAX_EAGER_CYCLE` classes, and `owner` is a class (every cycle passes through a
    /// class's field; aliases, discriminated unions among them, stay as they are).
    pub(super) fn cycle(&self, ir: &Ir, owner: TypeId, target: TypeId) -> bool {
        let c = self.component[owner];
        self.big[c]
            && matches!(ir.types[owner].kind, TypeKind::Struct(_))
            && self.component[target] == c
            && !matches!(ir.types[target].kind, TypeKind::Enum(_))
    }

    /// Whether `owner`'s reference to `target` closes a cycle of types that is not deferred:
    /// it is written `Annotated[X, _rt.HOP]`, so that values as deep as the validator accepts
    /// build (pydantic stops at 255 recursive levels).
    pub(super) fn hop(&self, ir: &Ir, owner: TypeId, target: TypeId) -> bool {
        let c = self.component[owner];
        self.cyclic[c]
            && self.component[target] == c
            && self.class[owner]
            && !matches!(ir.types[target].kind, TypeKind::Enum(_))
            && !self.cycle(ir, owner, target)
    }

    /// The levels pydantic follows to build `ty` in the definition of `owner`, with every
    /// part that would reach `MAX_EAGER_LEVELS` deferred (counting one).
    pub(super) fn ty_cost(&self, ir: &Ir, owner: TypeId, ty: &Ty) -> usize {
        match ty {
            Ty::Nullable(t) | Ty::Array(t) | Ty::Map(t) | Ty::Open(t, _) => {
                1 + self.capped(ir, owner, t)
            }
            Ty::Named(id) if self.cycle(ir, owner, *id) => 1,
            Ty::Named(id) => 1 + self.cost[*id],
            _ => 1,
        }
    }

    /// The cost of a field's type: its parts deferred as `ann_shape` writes them.
    pub(super) fn field_cost(&self, ir: &Ir, owner: TypeId, ty: &Ty) -> usize {
        match ty {
            Ty::Nullable(t) | Ty::Array(t) | Ty::Map(t) => 1 + self.capped(ir, owner, t),
            t => self.capped(ir, owner, t),
        }
    }

    /// The cost of `ty` as a part of a larger type: one when it is deferred.
    pub(super) fn capped(&self, ir: &Ir, owner: TypeId, ty: &Ty) -> usize {
        let c = self.ty_cost(ir, owner, ty);
        if self.too_deep(c) {
            1
        } else {
            c
        }
    }

    /// Whether an alias is defined as a `TypeAliasType` because references to it are deferred:
    /// its value is then read when first used, so the value of the alias naming it does not
    /// nest the whole chain (whose `repr`, which pydantic takes, would recurse as deep).
    pub(super) fn lazy(&self, ir: &Ir, id: TypeId) -> bool {
        matches!(ir.types[id].kind, TypeKind::Alias(_) | TypeKind::Union(_))
            && self.too_deep(1 + self.cost[id])
    }

    /// Whether `ty` is `None` as written (a named type on a cycle not yet known counts as not).
    pub(super) fn is_null(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Null => true,
            Ty::Nullable(t) => self.is_null(t),
            Ty::Named(id) => self.null[*id],
            _ => false,
        }
    }

    /// Whether a value of type `id` may nest deeply enough that `parse_x` builds it on a thread
    /// with a large stack (`_rt.build_deep`), which first measures the value's nesting:
    /// `DEEP_BUILD` levels or more, or without bound.
    pub(super) fn builds_deep(&self, id: TypeId) -> bool {
        self.build_depth[id].is_none_or(|d| d >= DEEP_BUILD)
    }

    /// Whether a part of this cost is deferred.
    pub(super) fn too_deep(&self, cost: usize) -> bool {
        cost >= MAX_EAGER_LEVELS
    }
}

/// The branch validators of a union that pydantic decodes by the validator's choice (a callable
/// `Discriminator` over `_validators._u<id>`): one that is not discriminated by a single tag
/// property and whose variants each stand for a `oneOf`/`anyOf` branch. The first variant whose
/// branch accepts the value is built, never another that merely fits.
pub(super) fn choice_nodes(ir: &Ir, id: TypeId) -> Option<Vec<NodeId>> {
    match &ir.types[id].kind {
        TypeKind::Union(u) if u.tags.len() != 1 && u.variants.len() > 1 => {
            u.variants.iter().map(|v| v.node).collect()
        }
        _ => None,
    }
}

/// The levels of nested values pydantic descends into to build a value of type `id` (a model,
/// a list, a dict each one; `Any` none: pydantic keeps such a value as it is), from those of
/// the types it names (`known`), or `None` when it reaches a cycle of types and its values can
/// nest without bound.
fn build_depth(ir: &Ir, id: TypeId, known: &[Option<usize>]) -> Option<usize> {
    fn depth(ty: &Ty, known: &[Option<usize>]) -> Option<usize> {
        match ty {
            Ty::Nullable(t) => depth(t, known),
            Ty::Array(t) | Ty::Map(t) | Ty::Open(t, _) => depth(t, known).map(|d| d + 1),
            Ty::Named(id) => known[*id],
            _ => Some(0),
        }
    }
    let max = |tys: &mut dyn Iterator<Item = &Ty>| {
        tys.map(|t| depth(t, known))
            .try_fold(0, |m, d| d.map(|d| m.max(d)))
    };
    match &ir.types[id].kind {
        TypeKind::Struct(s) => {
            max(&mut s.fields.iter().map(|f| &f.ty).chain(&s.extra)).map(|d| d + 1)
        }
        TypeKind::Union(u) => max(&mut u.variants.iter().map(|v| &v.ty)),
        TypeKind::Alias(t) => depth(t, known),
        TypeKind::Enum(_) => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depths(schema: &str) -> Vec<(String, Option<usize>)> {
        let ir = crate::Config::new()
            .schema_sources(vec![("s.json".into(), schema.into())])
            .ir()
            .expect("the schema builds");
        let canon: Vec<TypeId> = (0..ir.types.len()).collect();
        let depth = Deferral::new(&ir, &canon).build_depth;
        let mut out: Vec<_> = ir
            .types
            .iter()
            .enumerate()
            .map(|(id, t)| (t.raw_name.clone(), depth[id]))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn build_depths_count_models_lists_and_maps_not_free_values() {
        let got = depths(
            r##"{"$defs": {
                "Leaf": {"type": "object", "properties": {"any": {}, "tags": {"type": "array", "items": {"type": "string"}}}},
                "Mid": {"type": "object", "properties": {"leaves": {"type": "array", "items": {"$ref": "#/$defs/Leaf"}}}},
                "Top": {"type": "object", "properties": {"mid": {"$ref": "#/$defs/Mid"}, "byName": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Leaf"}}}}
            }}"##,
        );
        let of = |n: &str| got.iter().find(|(name, _)| name == n).map(|(_, d)| *d);
        // Leaf: the model and its list of strings; `any` is kept as it is.
        assert_eq!(of("Leaf"), Some(Some(2)));
        // Mid: the model, the list, a Leaf.
        assert_eq!(of("Mid"), Some(Some(4)));
        // Top: the model, then Mid (4) or the map of Leaf (1 + 2).
        assert_eq!(of("Top"), Some(Some(5)));
    }

    #[test]
    fn build_depths_of_recursive_types_are_unbounded() {
        let got = depths(
            r##"{"$defs": {
                "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
                "Forest": {"type": "object", "properties": {"trees": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
                "Flat": {"type": "object", "properties": {"n": {"type": "integer"}}}
            }}"##,
        );
        let of = |n: &str| got.iter().find(|(name, _)| name == n).map(|(_, d)| *d);
        assert_eq!(of("Tree"), Some(None));
        assert_eq!(of("Forest"), Some(None));
        assert_eq!(of("Flat"), Some(Some(1)));
    }
}
