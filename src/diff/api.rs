//! What a schema change does to the generated Rust, TypeScript and Python APIs, in each
//! language's terms (what breaks for cargo, tsc, mypy).

use std::collections::HashMap;

use serde::Serialize;

use crate::ir::names::{field_names, type_names, variant_names, Lang};
use crate::ir::{Ir, Ty, TypeKind};

/// One change to one language's generated API.
#[derive(Debug, Clone, Serialize)]
pub struct ApiChange {
    /// `rust`, `typescript` or `python`.
    pub lang: &'static str,
    /// The type (and member) as that language names it (`SessionContext.payload`).
    pub item: String,
    /// `type-removed`, `type-renamed`, `field-added`, `field-removed`, `field-type-changed`,
    /// `field-now-required`, `field-now-optional`, `variant-added`, `variant-removed`,
    /// `kind-changed`, `type-added`.
    pub kind: &'static str,
    pub detail: String,
    pub breaking: bool,
}

const LANGS: [(Lang, &str); 3] = [
    (Lang::Rust, "rust"),
    (Lang::TypeScript, "typescript"),
    (Lang::Python, "python"),
];

/// A type expression with named types written as their keys, to compare across versions.
fn show(ty: &Ty, keys: &[String]) -> String {
    match ty {
        Ty::Any => "any".into(),
        Ty::Bool => "bool".into(),
        Ty::Integer | Ty::WideInteger => "integer".into(),
        Ty::Number => "number".into(),
        Ty::String => "string".into(),
        Ty::Null => "null".into(),
        Ty::Literal(s) => format!("{s:?}"),
        Ty::Nullable(t) => format!("{}?", show(t, keys)),
        Ty::Array(t) => format!("[{}]", show(t, keys)),
        Ty::Map(t) => format!("{{{}}}", show(t, keys)),
        Ty::Named(id) => keys.get(*id).cloned().unwrap_or_default(),
        Ty::Open(t, kind) => format!("{}|non-{}", show(t, keys), kind.name()),
    }
}

/// A type expression in one language's generated names (for messages).
fn show_in(ty: &Ty, names: &[String]) -> String {
    match ty {
        Ty::Named(id) => names.get(*id).cloned().unwrap_or_default(),
        Ty::Nullable(t) => format!("{} | null", show_in(t, names)),
        Ty::Array(t) => format!("{}[]", show_in(t, names)),
        Ty::Map(t) => format!("map of {}", show_in(t, names)),
        Ty::Open(t, kind) => format!("{} or any non-{} value", show_in(t, names), kind.name()),
        other => show(other, &[]),
    }
}

/// Compares the generated APIs of two versions; types are matched by key (`file#pointer`).
pub fn compare(old: &Ir, new: &Ir, ko: &[String], kn: &[String]) -> Vec<ApiChange> {
    let mut out = Vec::new();
    let by_key: HashMap<&str, usize> = kn
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let old_keys: HashMap<&str, usize> = ko
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    for (lang, lname) in LANGS {
        let on = type_names(lang, old);
        let nn = type_names(lang, new);
        let mut push = |item: String, kind: &'static str, detail: String, breaking: bool| {
            out.push(ApiChange {
                lang: lname,
                item,
                kind,
                detail,
                breaking,
            })
        };
        for (t, key) in ko.iter().enumerate() {
            let Some(&u) = by_key.get(key.as_str()) else {
                push(
                    on[t].clone(),
                    "type-removed",
                    format!("`{}` no longer exists", on[t]),
                    true,
                );
                continue;
            };
            if on[t] != nn[u] {
                push(
                    on[t].clone(),
                    "type-renamed",
                    format!("`{}` is now `{}`", on[t], nn[u]),
                    true,
                );
            }
            let item = nn[u].clone();
            match (&old.types[t].kind, &new.types[u].kind) {
                (TypeKind::Struct(a), TypeKind::Struct(b)) => {
                    let wa: Vec<&str> = a.fields.iter().map(|f| f.wire.as_str()).collect();
                    let wb: Vec<&str> = b.fields.iter().map(|f| f.wire.as_str()).collect();
                    let fa = field_names(lang, &wa);
                    let fb = field_names(lang, &wb);
                    for (i, f) in a.fields.iter().enumerate() {
                        let Some(j) = b.fields.iter().position(|g| g.wire == f.wire) else {
                            push(
                                format!("{item}.{}", fa[i]),
                                "field-removed",
                                format!("field `{}` removed", fa[i]),
                                true,
                            );
                            continue;
                        };
                        let g = &b.fields[j];
                        let member = format!("{item}.{}", fb[j]);
                        if fa[i] != fb[j] {
                            push(
                                member.clone(),
                                "field-renamed",
                                format!("`{}` is now `{}`", fa[i], fb[j]),
                                true,
                            );
                        }
                        if show(&f.ty, ko) != show(&g.ty, kn) {
                            let d = format!("{} → {}", show_in(&f.ty, &on), show_in(&g.ty, &nn));
                            push(member.clone(), "field-type-changed", d, true);
                        }
                        let (ra, rb) = (
                            f.required || f.default.is_some(),
                            g.required || g.default.is_some(),
                        );
                        if !ra && rb {
                            let d = match lang {
                                Lang::Rust => "`Option<T>` → `T`: construction and `if let Some` break",
                                Lang::TypeScript => "`x?: T` → `x: T`: object literals without it fail tsc",
                                Lang::Python => "`T | None = None` → `T`: constructor calls without it fail mypy",
                            };
                            push(member.clone(), "field-now-required", d.into(), true);
                        } else if ra && !rb {
                            let d = match lang {
                                Lang::Rust => {
                                    "`T` → `Option<T>`: reads of the field no longer type-check"
                                }
                                Lang::TypeScript => {
                                    "`x: T` → `x?: T`: reads get `T | undefined` under --strict"
                                }
                                Lang::Python => "`T` → `T | None`: reads fail mypy --strict",
                            };
                            push(member, "field-now-optional", d.into(), true);
                        }
                    }
                    for (j, g) in b.fields.iter().enumerate() {
                        if a.fields.iter().any(|f| f.wire == g.wire) {
                            continue;
                        }
                        let required = g.required && g.default.is_none();
                        let (breaking, d) = match lang {
                            Lang::Rust => (true, "a new pub field: struct literals without it fail to compile (E0063)"),
                            Lang::TypeScript if required => (true, "a new required member: object literals without it fail tsc"),
                            Lang::TypeScript => (false, "a new optional member"),
                            Lang::Python if required => (true, "a new required field: constructor calls without it fail mypy"),
                            Lang::Python => (false, "a new optional field with a default"),
                        };
                        push(
                            format!("{item}.{}", fb[j]),
                            "field-added",
                            d.into(),
                            breaking,
                        );
                    }
                }
                (TypeKind::Enum(a), TypeKind::Enum(b)) => {
                    let va = variant_names(a);
                    let vb = variant_names(b);
                    for (i, v) in a.iter().enumerate() {
                        if !b.contains(v) {
                            push(
                                format!("{item}{}{}", sep(lang), va[i]),
                                "variant-removed",
                                format!("value {v:?} removed"),
                                true,
                            );
                        }
                    }
                    for (j, v) in b.iter().enumerate() {
                        if !a.contains(v) {
                            let (breaking, d) = variant_added(lang, v);
                            push(
                                format!("{item}{}{}", sep(lang), vb[j]),
                                "variant-added",
                                d,
                                breaking,
                            );
                        }
                    }
                }
                (TypeKind::Union(a), TypeKind::Union(b)) => {
                    let sa: Vec<String> = a.variants.iter().map(|v| show(&v.ty, ko)).collect();
                    let sb: Vec<String> = b.variants.iter().map(|v| show(&v.ty, kn)).collect();
                    for (i, s) in sa.iter().enumerate() {
                        if !sb.contains(s) {
                            let d = format!("variant `{}` removed", a.variants[i].raw_name);
                            push(item.clone(), "variant-removed", d, true);
                        }
                    }
                    for (j, s) in sb.iter().enumerate() {
                        if !sa.contains(s) {
                            let (breaking, d) = variant_added(lang, &b.variants[j].raw_name);
                            push(item.clone(), "variant-added", d, breaking);
                        }
                    }
                }
                (TypeKind::Alias(a), TypeKind::Alias(b)) => {
                    if show(a, ko) != show(b, kn) {
                        let d = format!("{} → {}", show_in(a, &on), show_in(b, &nn));
                        push(item, "alias-changed", d, true);
                    }
                }
                (a, b) => {
                    let d = format!("{} → {}", kind(a), kind(b));
                    push(item, "kind-changed", d, true);
                }
            }
        }
        for (u, key) in kn.iter().enumerate() {
            if !old_keys.contains_key(key.as_str()) {
                push(
                    nn[u].clone(),
                    "type-added",
                    format!("new type `{}`", nn[u]),
                    false,
                );
            }
        }
    }
    out
}

fn variant_added(lang: Lang, v: &str) -> (bool, String) {
    match lang {
        Lang::Rust => (
            true,
            format!("new variant for {v:?}: exhaustive `match` without a wildcard fails to compile (E0004)"),
        ),
        Lang::TypeScript => (
            false,
            format!("new member {v:?} of a union: only exhaustiveness checks with `never` fail"),
        ),
        Lang::Python => (
            false,
            format!("new member {v:?} of a Literal/union: only `assert_never` exhaustiveness checks fail"),
        ),
    }
}

fn sep(lang: Lang) -> &'static str {
    if lang == Lang::Rust {
        "::"
    } else {
        "."
    }
}

fn kind(k: &TypeKind) -> &'static str {
    match k {
        TypeKind::Struct(_) => "struct",
        TypeKind::Enum(_) => "enum",
        TypeKind::Union(_) => "union",
        TypeKind::Alias(_) => "alias",
    }
}
