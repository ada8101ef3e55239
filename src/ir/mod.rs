//! The language-neutral model: named types plus the validation program, built once per run.

pub mod checks;
pub mod compile;
pub mod model;
pub mod names;
pub mod optimize;
pub mod types;

use serde_json::Value;

pub use checks::{Check, Format, JsonType, Node, NodeId, Pattern, PatternId, Program};
pub use model::{Field, Ir, Module, Struct, Ty, TypeDef, TypeId, TypeKind, Union, Variant};

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

/// Builds the IR for every document the user named.
pub fn build(set: &mut SchemaSet) -> Result<Ir> {
    let mut comp = Compiler::new(set);
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
    group_variants(&mut modules, &types);
    let mut type_diags = type_diags;
    drop_unfit_defaults(&mut types, &mut type_diags);
    comp.run()?;
    let (mut program, mut diagnostics, _) = comp.finish();
    let roots: Vec<usize> = types.iter().map(|t| t.node).collect();
    let map = optimize::optimize(&mut program, &roots);
    for t in &mut types {
        t.node = map[t.node];
    }
    diagnostics.extend(type_diags);
    diagnostics.sort();
    diagnostics.dedup();
    Ok(Ir {
        modules,
        types,
        program,
        diagnostics,
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
                    .is_some_and(|d| !types::fits(&field.ty, d, types))
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
    fn place(id: TypeId, types: &[TypeDef], members: &[TypeId], out: &mut Vec<TypeId>) {
        out.push(id);
        for &m in members.iter().filter(|m| types[**m].variant_of == Some(id)) {
            place(m, types, members, out);
        }
    }
    for m in modules {
        let mut out = Vec::with_capacity(m.types.len());
        for &id in m.types.iter().filter(|id| types[**id].variant_of.is_none()) {
            place(id, types, &m.types, &mut out);
        }
        let rest: Vec<TypeId> = m
            .types
            .iter()
            .copied()
            .filter(|id| !out.contains(id))
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
/// type in any language: such an alias stands for any JSON value instead.
fn break_alias_cycles(types: &mut [TypeDef]) {
    fn target(ty: &Ty) -> Option<TypeId> {
        match ty {
            Ty::Named(id) => Some(*id),
            Ty::Nullable(inner) => target(inner),
            _ => None,
        }
    }
    for start in 0..types.len() {
        let mut seen = vec![start];
        let mut cur = start;
        while let TypeKind::Alias(ty) = &types[cur].kind {
            match target(ty) {
                Some(next) if next == start => {
                    types[start].kind = TypeKind::Alias(Ty::Any);
                    break;
                }
                Some(next) if !seen.contains(&next) => {
                    seen.push(next);
                    cur = next;
                }
                _ => break,
            }
        }
    }
}
