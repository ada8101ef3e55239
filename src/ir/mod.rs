//! The language-neutral model: named types plus the validation program, built once per run.

pub mod checks;
pub mod compile;
pub mod cycles;
pub mod fits;
pub mod format_assertion;
pub mod interp;
pub mod model;
pub mod names;
pub mod nesting;
pub mod optimize;
pub mod types;
pub mod unevaluated;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

pub use checks::{Annotations, Check, Format, JsonType, Node, NodeId, Pattern, PatternId, Program};
pub use model::{
    Field, Ir, JsonKind, Module, Struct, Ty, TypeDef, TypeId, TypeKind, Union, Variant,
};

use crate::error::{Diagnostic, Result, Severity};
use crate::schema::{pointer, Loc, SchemaSet};
use compile::Compiler;
use types::TypeBuilder;

/// Keys a root may have without being a type itself (a definitions-only file).
const META_KEYS: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "title",
    "description",
    "$defs",
    "definitions",
    "$comment",
    "examples",
];

/// How the schemas are read beyond what they say themselves.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildOptions {
    /// `format` asserts in 2019-09 and 2020-12 documents whatever their meta-schema says.
    pub assert_formats: bool,
}

/// Builds the IR for every document the user named, as the specification reads them.
pub fn build(set: &mut SchemaSet) -> Result<Ir> {
    build_with(set, BuildOptions::default())
}

/// Builds the IR for every document the user named.
pub fn build_with(set: &mut SchemaSet, options: BuildOptions) -> Result<Ir> {
    let mut comp = Compiler::new(set, options);
    let mut tb = TypeBuilder::new(&mut comp);
    let named: Vec<usize> = (0..tb.comp.set().docs.len())
        .filter(|d| tb.comp.set().docs[*d].named)
        .collect();
    let mut pending = Vec::new();
    for doc in named {
        let (rel, root) = {
            let d = &tb.comp.set().docs[doc];
            (d.rel.clone(), d.root.clone())
        };
        let stem = rel.strip_suffix(".json").unwrap_or(&rel).replace('/', " ");
        let title = root
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_string);
        let module = tb.modules.len();
        tb.modules.push(Module {
            rel: rel.clone(),
            raw_name: stem.clone(),
            title: title.clone(),
            doc: root
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            types: Vec::new(),
        });
        let root_loc = Loc {
            doc,
            pointer: String::new(),
        };
        let definitions_only = root.as_object().is_some_and(|o| {
            (o.contains_key("$defs") || o.contains_key("definitions"))
                && o.keys()
                    .all(|k| META_KEYS.contains(&k.as_str()) || k.starts_with("x-"))
        });
        if !definitions_only {
            let name = title
                .filter(|t| usable_title(t))
                .unwrap_or_else(|| stem.clone());
            pending.push((tb.declare(&root_loc, name, module), root_loc.clone()));
        }
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key).and_then(Value::as_object) {
                for (name, def) in defs {
                    let loc = Loc {
                        doc,
                        pointer: pointer::push(&pointer::push("", key), name),
                    };
                    if !def.is_object() && !def.is_boolean() {
                        let location = tb.comp.set().location(&loc);
                        tb.diagnostics.push(Diagnostic {
                            severity: Severity::Warning,
                            location,
                            message: format!(
                                "`{key}/{name}` is not a schema; no type is emitted for it"
                            ),
                        });
                        continue;
                    }
                    pending.push((tb.declare(&loc, name.clone(), module), loc));
                }
            }
        }
    }
    for (id, loc) in pending {
        tb.define(id, &loc)?;
    }
    let TypeBuilder {
        mut types,
        mut modules,
        diagnostics: type_diags,
        ..
    } = tb;
    break_alias_cycles(&mut types);
    shorten_alias_chains(&mut types);
    group_variants(&mut modules, &types);
    let mut type_diags = type_diags;
    drop_unfit_defaults(&mut types, &mut type_diags);
    comp.run()?;
    let (mut program, mut diagnostics) = comp.finish();
    cycles::collapse_ref_cycles(&mut program);
    let mut roots: Vec<usize> = types.iter().map(|t| t.node).collect();
    for t in &types {
        if let TypeKind::Union(u) = &t.kind {
            roots.extend(u.variants.iter().filter_map(|v| v.node));
        }
    }
    unevaluated::annotate(&mut program);
    let map = optimize::optimize(&mut program, &roots);
    cycles::check_descent(&program)?;
    for t in &mut types {
        t.node = map[t.node];
        if let TypeKind::Union(u) = &mut t.kind {
            for v in &mut u.variants {
                v.node = v.node.map(|n| map[n]);
            }
        }
    }
    diagnostics.extend(type_diags);
    diagnostics.sort();
    diagnostics.dedup();
    Ok(Ir {
        modules,
        types,
        program,
        diagnostics,
        type_names: std::sync::OnceLock::new(),
    })
}

/// Checks every field default against the finished types: while types are built, a `$ref`
/// target may still be a placeholder that accepts anything.
fn drop_unfit_defaults(types: &mut [TypeDef], diagnostics: &mut Vec<Diagnostic>) {
    let mut unfit = Vec::new();
    for (id, t) in types.iter().enumerate() {
        if let TypeKind::Struct(s) = &t.kind {
            for (f, field) in s.fields.iter().enumerate() {
                if field
                    .default
                    .as_ref()
                    .is_some_and(|d| !fits::fits(&field.ty, d, types))
                {
                    unfit.push((id, f));
                }
            }
        }
    }
    for (id, f) in unfit {
        let location = types[id].origin.clone();
        if let TypeKind::Struct(s) = &mut types[id].kind {
            let field = &mut s.fields[f];
            let d = field.default.take().unwrap_or_default();
            let message = format!(
                "the default {d} of property `{}` does not fit its type; it is not applied",
                field.wire
            );
            diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                location,
                message,
            });
        }
    }
}

/// Lists the types built for a union's variants right after the union (they are built after
/// every type the schemas name, so they would otherwise trail the module).
fn group_variants(modules: &mut [Module], types: &[TypeDef]) {
    for m in modules {
        let members: HashSet<TypeId> = m.types.iter().copied().collect();
        // The variants of each union, in module order.
        let mut variants: HashMap<TypeId, Vec<TypeId>> = HashMap::new();
        for &id in &m.types {
            if let Some(u) = types[id].variant_of.filter(|u| members.contains(u)) {
                variants.entry(u).or_default().push(id);
            }
        }
        let mut out = Vec::with_capacity(m.types.len());
        let mut placed: HashSet<TypeId> = HashSet::new();
        for &id in m.types.iter().filter(|id| types[**id].variant_of.is_none()) {
            // Depth first, without recursion: a union, then each variant with its own variants.
            let mut stack = vec![id];
            while let Some(id) = stack.pop() {
                if !placed.insert(id) {
                    continue;
                }
                out.push(id);
                if let Some(vs) = variants.get(&id) {
                    stack.extend(vs.iter().rev());
                }
            }
        }
        let rest: Vec<TypeId> = m
            .types
            .iter()
            .copied()
            .filter(|id| !placed.contains(id))
            .collect();
        out.extend(rest);
        m.types = out;
    }
}

/// A title short and plain enough to name a type.
fn usable_title(t: &str) -> bool {
    let words = t.split_whitespace().count();
    words <= 4
        && t.len() <= 48
        && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_' || c == '-')
}

/// An alias that names itself, directly or through other aliases (`A = B`, `B = A`), has no
/// type in any language: such an alias stands for any JSON value instead. Each alias is
/// visited once, so long chains cost linear time.
/// Points every alias of an alias at the end of its chain (`D0 = D1`, `D1 = D2`, `D2 = string`
/// become `D0 = D2`, `D1 = D2`): a compiler resolves an alias chain recursively (tsc and rustc
/// give up after about a thousand links), and the types are the same. Runs after
/// [`break_alias_cycles`], so every chain ends; linear, without recursion.
fn shorten_alias_chains(types: &mut [TypeDef]) {
    let next = |types: &[TypeDef], id: TypeId| match &types[id].kind {
        TypeKind::Alias(Ty::Named(n))
            if matches!(types[*n].kind, TypeKind::Alias(Ty::Named(_))) =>
        {
            Some(*n)
        }
        _ => None,
    };
    let mut end: Vec<Option<TypeId>> = vec![None; types.len()];
    for start in 0..types.len() {
        let mut walk = Vec::new();
        let mut cur = start;
        let last = loop {
            if let Some(e) = end[cur] {
                break e;
            }
            match next(types, cur) {
                Some(n) if walk.len() <= types.len() => {
                    walk.push(cur);
                    cur = n;
                }
                _ => break cur,
            }
        };
        end[cur] = Some(last);
        for id in walk {
            end[id] = Some(last);
        }
    }
    for (id, t) in types.iter_mut().enumerate() {
        if let TypeKind::Alias(Ty::Named(n)) = &t.kind {
            // The alias `id` names `n`, itself an alias of a named type: skip to the chain's
            // last alias, whose target is not an alias of a name.
            if let Some(e) = end[*n].filter(|e| *e != *n && *e != id) {
                t.kind = TypeKind::Alias(Ty::Named(e));
            }
        }
    }
}

fn break_alias_cycles(types: &mut [TypeDef]) {
    fn target(ty: &Ty) -> Option<TypeId> {
        match ty {
            Ty::Named(id) => Some(*id),
            Ty::Nullable(inner) => target(inner),
            _ => None,
        }
    }
    let next = |types: &[TypeDef], id: TypeId| match &types[id].kind {
        TypeKind::Alias(ty) => target(ty),
        _ => None,
    };
    // 0: not visited, 1: on the current walk, 2: done.
    let mut state = vec![0u8; types.len()];
    for start in 0..types.len() {
        let mut walk = Vec::new();
        let mut cur = Some(start);
        while let Some(id) = cur {
            match state[id] {
                0 => {
                    state[id] = 1;
                    walk.push(id);
                    cur = next(types, id);
                }
                // A cycle: its first alias (in type order) stands for any value.
                1 => {
                    let from = walk.iter().position(|w| *w == id).unwrap_or(0);
                    let first = walk[from..].iter().copied().min().unwrap_or(id);
                    types[first].kind = TypeKind::Alias(Ty::Any);
                    break;
                }
                _ => break,
            }
        }
        for id in walk {
            state[id] = 2;
        }
    }
}
