//! Rust backend: IR → template contexts for `templates/rust/`. Type expressions, names and
//! literals are decided here; the templates only lay them out.

use std::collections::HashSet;

use askama::Template;
use heck::ToSnakeCase;
use serde_json::Value;

use super::escape::{self, rust::Line, rust::Lit};
use super::{run, Files, Options, GENERATED};
use crate::error::Result;
use crate::ir::names::{self, Lang};
use crate::ir::{Ir, JsonType, Ty, TypeId, TypeKind};

mod default_derive;
mod flows;
mod helpers;
mod layout;
pub(crate) mod limits;
mod lite;
mod objects;
mod serde_impl;
mod validators;

pub(crate) struct TypeCtx {
    name: String,
    snake: String,
    doc: Vec<Line>,
    node: usize,
    is_alias: bool,
    /// The schema does not say `type` (`Ty::Open`): `from_json` gives `rt::OrOther<Self>`,
    /// and the type tells `rt::OrOther` which JSON type it holds.
    open: bool,
    /// Has JSON of its own: gets `from_json`, `validate`, … (not a newtype variant's payload).
    standalone: bool,
    /// Derive `schemars::JsonSchema` behind the crate's `schemars` feature.
    schemars: bool,
    /// Private aliases of the inner parts of its deep type expressions ([`limits::Nested`]).
    nested: Vec<limits::NestedAlias>,
    body: Body,
}

impl TypeCtx {
    /// How `to_json`/`to_value` take the value: by copy for a string enum (`Copy`), as clippy's
    /// `wrong_self_convention` asks, else by reference.
    pub(crate) fn receiver(&self) -> &'static str {
        if matches!(self.body, Body::Enum(_)) {
            "self"
        } else {
            "&self"
        }
    }

    /// The value as a reference, given [`Self::receiver`].
    pub(crate) fn by_ref(&self) -> &'static str {
        if matches!(self.body, Body::Enum(_)) {
            "&self"
        } else {
            "self"
        }
    }
}

pub(crate) enum Body {
    Struct(StructCtx),
    Enum(EnumCtx),
    Union(UnionCtx),
    Alias(String),
    /// An alias that names itself (`Nest = Vec<Nest>`): a transparent newtype struct, as
    /// Rust aliases cannot be recursive.
    Newtype(String),
}

pub(crate) struct StructCtx {
    /// The fields, the map of undeclared properties (`#[serde(flatten)]`) last.
    fields: Vec<FieldCtx>,
    deny_unknown: bool,
    /// Derives `Default`: `{}` is valid for the schema ([`default_derive`]).
    derive_default: bool,
    defaults: Vec<DefaultFn>,
    /// Hand-written serde impls for a struct with many fields ([`serde_impl`]).
    manual: Option<Vec<serde_impl::ManualField>>,
}

pub(crate) struct FieldCtx {
    doc: Vec<Line>,
    serde: Vec<String>,
    name: String,
    ty: String,
}

impl FieldCtx {
    /// The `#[serde(…)]` attribute at `indent`, laid out as rustfmt does: on one line when it
    /// fits in 100 columns, else one argument a line.
    pub fn serde_attr(&self, indent: usize) -> String {
        let one = format!("#[serde({})]", self.serde.join(", "));
        if indent + one.len() <= 100 {
            return one;
        }
        let pad = " ".repeat(indent + 4);
        let mut out = String::from("#[serde(\n");
        for (i, a) in self.serde.iter().enumerate() {
            out.push_str(&pad);
            out.push_str(a);
            out.push_str(if i + 1 < self.serde.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str(&" ".repeat(indent));
        out.push_str(")]");
        out
    }
}

/// An optional field with a schema default: its accessor, and the function that makes the
/// default (`None`: `Default::default()`).
pub(crate) struct DefaultFn {
    field: String,
    method: String,
    /// The accessor's doc comment (naming the default).
    doc: Vec<Line>,
    /// The field's type is `Copy`: the accessor reads it without cloning.
    copy: bool,
    call: Option<(String, String)>,
    ty: String,
}

pub(crate) struct EnumCtx {
    variants: Vec<EnumVariant>,
    all_items: Vec<String>,
    /// 0: one line; 1: the list on the next line; 2: one item a line (as rustfmt lays it out).
    all_layout: u8,
}

impl EnumCtx {
    /// `ALL`'s items on lines of their own, as rustfmt lays them out.
    pub(crate) fn all_lines(&self) -> Vec<String> {
        layout::array_lines(&self.all_items, 8)
    }
}

pub(crate) struct EnumVariant {
    name: String,
    wire_literal: Lit,
}

pub(crate) struct UnionCtx {
    tag: Option<Lit>,
    variants: Vec<UnionVariant>,
    /// An untagged union decoded by the validator's choice of branch ([`Choice`]).
    choice: Option<Choice>,
}

/// The `Deserialize` of an untagged union: the first variant whose `oneOf`/`anyOf` branch
/// accepts the value (the validator's decision), not serde's first variant that happens to fit.
pub(crate) struct Choice {
    /// The branch validators, in variant order.
    branches: Vec<usize>,
    /// `const BRANCHES` on one line (0), its value on the next (1), one branch a line (2).
    layout: u8,
    /// One `match` arm per variant: pattern and expression.
    arms: Vec<(String, String)>,
    /// Some arm is longer than a line: `#[rustfmt::skip]`.
    skip_fmt: bool,
}

pub(crate) struct UnionVariant {
    /// A struct variant short enough, and without attributes, for rustfmt's one-line form.
    one_line: bool,
    name: String,
    rename: Option<Lit>,
    unit: bool,
    ty: String,
    fields: Vec<FieldCtx>,
}

#[derive(Template)]
#[template(path = "rust/module.rs.j2", escape = "none")]
struct ModuleTemplate<'a> {
    header: &'a str,
    doc_title: Line,
    doc_lines: Vec<Line>,
    uses_map: bool,
    uses_serde: bool,
    types: Vec<TypeCtx>,
}

#[derive(Template)]
#[template(path = "rust/lib.rs.j2", escape = "none")]
struct LibTemplate<'a> {
    header: &'a str,
    title: &'a str,
    mods: Vec<String>,
    uses: Vec<String>,
    types: Vec<LibType>,
    /// Some type is parsed into a Rust type (not only validated): `round_trip` needs `back`.
    any_typed: bool,
    /// `#![recursion_limit]` for types nested deeper than rustc's default allows.
    recursion_limit: Option<usize>,
}

pub(crate) struct LibType {
    name: String,
    literal: Lit,
    node: usize,
    alias: bool,
    /// Has a Rust type with `from_value` (variants written inline have none).
    typed: bool,
    /// The match arm does not fit on one line.
    long: bool,
}

#[derive(Template)]
#[template(path = "rust/cargo.toml.j2", escape = "none")]
struct CargoTemplate<'a> {
    header: &'a str,
    /// Quoted TOML strings ([`crate::package::toml_string`]).
    m: crate::package::Manifest,
    /// [`DEPENDENCIES`] as TOML lines.
    dependencies: String,
}

/// What generated Rust code needs besides std, as `(crate, TOML requirement)`: the generated
/// `Cargo.toml` declares them, and a `build.rs` user (one `bindings.rs`) adds them.
pub const DEPENDENCIES: &[(&str, &str)] = &[
    ("regex", r#""1.11""#),
    ("regress", r#""0.12""#),
    ("serde", r#"{ version = "1", features = ["derive"] }"#),
    (
        "serde_json",
        r#"{ version = "1", features = ["float_roundtrip", "unbounded_depth"] }"#,
    ),
    ("stacker", r#""0.1""#),
];

/// [`DEPENDENCIES`] as the lines of a `[dependencies]` table.
pub fn dependencies_toml() -> String {
    DEPENDENCIES
        .iter()
        .map(|(name, req)| format!("{name} = {req}\n"))
        .collect()
}

#[derive(Template)]
#[template(path = "rust/runtime.rs.j2", escape = "none")]
struct RuntimeTemplate<'a> {
    header: &'a str,
    /// Derive `schemars::JsonSchema` behind the crate's `schemars` feature.
    schemars: bool,
    /// The typed layer too (`runtime_serde.rs.j2`), over `serde_json::Value`; without it, the
    /// checks alone, over the `Value` of a sibling module `value` (the Python accelerator's).
    serde: bool,
}

#[derive(Template)]
#[template(path = "rust/formats.rs.j2", escape = "none")]
struct FormatsTemplate<'a> {
    header: &'a str,
}

#[derive(Template)]
#[template(path = "rust/rustfmt.toml.j2", escape = "none")]
struct RustfmtTemplate;

/// A Rust string literal for any text (see [`escape::rust::string`]).
pub(crate) fn literal(s: &str) -> String {
    escape::rust::string(s).into()
}

/// A raw string literal for JSON and patterns (see [`escape::rust::raw_string`]).
pub(crate) fn raw_literal(s: &str) -> String {
    escape::rust::raw_string(s).into()
}

/// Doc comment lines for a description (see [`escape::rust::doc`]).
pub(crate) fn doc_lines(doc: &Option<String>) -> Vec<Line> {
    doc.as_deref().map(escape::rust::doc).unwrap_or_default()
}

struct Ctx<'a> {
    ir: &'a Ir,
    names: Vec<String>,
    schemars: bool,
    /// The strongly connected component of each type in the inline-containment graph.
    scc: Vec<usize>,
    /// Whether a component has more than one type (a cycle through several types).
    cyclic: Vec<bool>,
    /// Types nested [`MAX_INLINE_DEPTH`] levels deep or more: fields of them are boxed.
    deep: Vec<bool>,
    /// Aliases that refer to themselves through aliases only (`type Nest = Vec<Nest>`): a
    /// newtype in Rust ([`recursive_aliases`]).
    recursive: Vec<bool>,
    /// The inner parts of deep type expressions of the type being built.
    nested: std::cell::RefCell<limits::Nested>,
    /// The estimated size of each type, once known ([`Ctx::size`]).
    sizes: std::cell::RefCell<Vec<Option<usize>>>,
    /// The structs that derive `Default` ([`default_derive`]).
    default: Vec<bool>,
}

/// Which aliases refer to themselves through other aliases only: those on a cycle of the graph
/// of aliases and the aliases they refer to (or referring to themselves). Linear.
fn recursive_aliases(ir: &Ir) -> Vec<bool> {
    let n = ir.types.len();
    let is_alias = |t: TypeId| matches!(ir.types[t].kind, TypeKind::Alias(_));
    let edges = |v: TypeId| -> Vec<TypeId> {
        if !is_alias(v) {
            return Vec::new();
        }
        ir.references(v)
            .into_iter()
            .filter(|&t| is_alias(t))
            .collect()
    };
    let comp = crate::ir::cycles::components(n, &edges);
    let mut size = vec![0usize; comp.iter().map(|c| c + 1).max().unwrap_or(0)];
    for &c in &comp {
        size[c] += 1;
    }
    (0..n)
        .map(|id| match &ir.types[id].kind {
            TypeKind::Alias(Ty::Named(t)) if *t == id => false,
            TypeKind::Alias(_) => size[comp[id]] > 1 || edges(id).contains(&id),
            _ => false,
        })
        .collect()
}

/// How many types may contain one another inline (not behind a `Box`, `Vec` or map) before
/// the next field is boxed: rustc computes a type's layout recursively and stops at its
/// recursion limit of 128 queries (about two per level), so 70 structs nested inline in a
/// schema would not build.
const MAX_INLINE_DEPTH: usize = 32;

/// Which types are [`MAX_INLINE_DEPTH`] deep: the inline-containment graph without the edges
/// boxed on a cycle is acyclic; each type's depth counts the unboxed levels below it. Linear,
/// without recursion.
fn deep_types(ir: &Ir, scc: &[usize], cyclic: &[bool]) -> Vec<bool> {
    let n = ir.types.len();
    let edges = |v: TypeId| -> Vec<TypeId> {
        inline_edges(ir, v)
            .into_iter()
            .filter(|&u| u != v && !(scc[u] == scc[v] && cyclic[scc[v]]))
            .collect()
    };
    let mut depth = vec![0usize; n];
    let mut deep = vec![false; n];
    for start in 0..n {
        let mut stack = vec![(start, false)];
        while let Some((v, expanded)) = stack.pop() {
            if depth[v] != 0 {
                continue;
            }
            let out = edges(v);
            if !expanded {
                stack.push((v, true));
                stack.extend(
                    out.into_iter()
                        .filter(|&u| depth[u] == 0)
                        .map(|u| (u, false)),
                );
                continue;
            }
            // Another name for a struct or enum is never boxed itself (see `type_ctx`).
            let nominal = match &ir.types[v].kind {
                TypeKind::Alias(Ty::Named(t)) => !matches!(ir.types[*t].kind, TypeKind::Alias(_)),
                _ => false,
            };
            let below = out
                .iter()
                .map(|&u| if deep[u] && !nominal { 0 } else { depth[u] })
                .max()
                .unwrap_or(0);
            depth[v] = below + 1;
            deep[v] = depth[v] >= MAX_INLINE_DEPTH;
        }
    }
    deep
}

/// The types a type holds inline: through fields, `Option`s, union variants and aliases, but not
/// through `Vec` or maps, which already put them on the heap.
fn inline_edges(ir: &Ir, id: TypeId) -> Vec<TypeId> {
    let mut out = Vec::new();
    let mut inline = |t: &Ty| {
        let mut t = t;
        // `Option` and `rt::OrOther` hold their value inline.
        while let Ty::Nullable(inner) | Ty::Open(inner, _) = t {
            t = inner;
        }
        if let Ty::Named(n) = t {
            out.push(*n);
        }
    };
    match &ir.types[id].kind {
        TypeKind::Struct(s) => s.fields.iter().for_each(|f| inline(&f.ty)),
        TypeKind::Union(u) => u.variants.iter().for_each(|v| inline(&v.ty)),
        TypeKind::Alias(t) => inline(t),
        TypeKind::Enum(_) => {}
    }
    out
}

/// How many bytes larger than the next the largest variant of an untagged union may be before
/// it is boxed (clippy's `large_enum_variant` warns from 200).
const LARGE_VARIANT: usize = 128;

/// Enums with more values than this are `String`s in Rust (the validator checks the value):
/// serde's derive for 100,000 variants takes rustc minutes and gigabytes.
const MAX_ENUM_VARIANTS: usize = 1024;

/// An enum too large to be a Rust `enum` (see [`MAX_ENUM_VARIANTS`]).
fn large_enum(kind: &TypeKind) -> bool {
    matches!(kind, TypeKind::Enum(v) if v.len() > MAX_ENUM_VARIANTS)
}

/// Kosaraju's algorithm over the inline-containment graph, without recursion.
fn components(ir: &Ir) -> (Vec<usize>, Vec<bool>) {
    let n = ir.types.len();
    let edges: Vec<Vec<TypeId>> = (0..n).map(|i| inline_edges(ir, i)).collect();
    let mut rev = vec![Vec::new(); n];
    for (i, es) in edges.iter().enumerate() {
        for &j in es {
            rev[j].push(i);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![(start, 0)];
        while let Some((v, i)) = stack.pop() {
            if let Some(&w) = edges[v].get(i) {
                stack.push((v, i + 1));
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(v);
            }
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut sizes = Vec::new();
    for &start in order.iter().rev() {
        if comp[start] != usize::MAX {
            continue;
        }
        let c = sizes.len();
        sizes.push(0);
        comp[start] = c;
        let mut stack = vec![start];
        while let Some(v) = stack.pop() {
            sizes[c] += 1;
            for &w in &rev[v] {
                if comp[w] == usize::MAX {
                    comp[w] = c;
                    stack.push(w);
                }
            }
        }
    }
    (comp, sizes.into_iter().map(|s| s > 1).collect())
}

impl Ctx<'_> {
    fn ty(&self, ty: &Ty, owner: TypeId) -> String {
        self.ty_at(ty, owner, 0)
    }

    /// [`Self::ty`] of a part `depth` type constructors inside a type expression.
    fn ty_at(&self, ty: &Ty, owner: TypeId, depth: usize) -> String {
        match ty {
            Ty::Nullable(_) | Ty::Array(_) | Ty::Map(_) | Ty::Open(..)
                if depth == limits::MAX_TYPE_DEPTH =>
            {
                let inner = self.ty_at(ty, owner, 0);
                self.nested.borrow_mut().alias(inner)
            }
            Ty::Any => "serde_json::Value".into(),
            Ty::Bool => "bool".into(),
            Ty::Integer => "i64".into(),
            // Every JSON integer, `2^64` and `1e300` included, exactly as written.
            Ty::WideInteger => "rt::JsonInt".into(),
            Ty::Number => "f64".into(),
            Ty::String | Ty::Literal(_) => "String".into(),
            Ty::Null => "()".into(),
            Ty::Nullable(t) => format!("Option<{}>", self.ty_at(t, owner, depth + 1)),
            Ty::Array(t) => format!("Vec<{}>", self.ty_at(t, usize::MAX, depth + 1)),
            Ty::Map(t) => format!("BTreeMap<String, {}>", self.ty_at(t, usize::MAX, depth + 1)),
            Ty::Open(t, _) => format!("rt::OrOther<{}>", self.ty_at(t, owner, depth + 1)),
            Ty::Named(id) => {
                let name = self.names[*id].clone();
                if owner != usize::MAX && (self.reaches(*id, owner) || self.deep[*id]) {
                    format!("Box<{name}>")
                } else {
                    name
                }
            }
        }
    }

    /// Whether `from` contains `target` inline (not behind a `Vec` or map), so a field of type
    /// `from` inside `target` needs a `Box`: both lie on one cycle of inline containment.
    fn reaches(&self, from: TypeId, target: TypeId) -> bool {
        from == target || (self.scc[from] == self.scc[target] && self.cyclic[self.scc[from]])
    }

    /// The fields of a struct (or struct variant, without its tags). Without `use_defaults`
    /// schema defaults are not applied and optional fields stay `Option`s.
    fn fields(
        &self,
        owner: TypeId,
        fields: &[crate::ir::Field],
        skip: &[String],
        use_defaults: bool,
        defaults: &mut Vec<DefaultFn>,
    ) -> Vec<FieldCtx> {
        let kept: Vec<(usize, &crate::ir::Field)> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !skip.contains(&f.wire))
            .collect();
        let wires: Vec<&str> = kept.iter().map(|(_, f)| f.wire.as_str()).collect();
        let rust_names = names::field_names(Lang::Rust, &wires);
        kept.iter()
            .zip(rust_names)
            .map(|((index, f), name)| {
                let mut serde = Vec::new();
                if name != f.wire {
                    serde.push(format!("rename = {}", literal(&f.wire)));
                }
                let base = self.ty(&f.ty, owner);
                let default = if use_defaults
                    && !super::defaults::default_loops(&self.ir.types, owner, *index)
                {
                    &f.default
                } else {
                    &None
                };
                // Optional fields are `Option`s that serialize only when present, so a value
                // round-trips exactly: an explicit `null` is kept (`Some(None)`, or `Some` of a
                // type that holds `null`), and a schema default is read through an accessor,
                // never written into the value.
                let optional = |serde: &mut Vec<String>| {
                    serde.push("default".into());
                    if self.holds_null(&f.ty) {
                        serde.push("deserialize_with = \"rt::some\"".into());
                    }
                    serde.push("skip_serializing_if = \"Option::is_none\"".into());
                };
                let ty = match (f.required, default) {
                    (true, _) => base,
                    (false, Some(d)) if !d.is_null() && self.default_expr(&f.ty, d).is_some() => {
                        optional(&mut serde);
                        let method = format!("{}_or_default", name.trim_end_matches('_'));
                        let call = match self.default_expr(&f.ty, d).expect("checked") {
                            DefaultExpr::Trait => None,
                            DefaultExpr::Expr(expr) => {
                                let func = format!(
                                    "default_{}_{}",
                                    self.names[owner].to_snake_case(),
                                    name.trim_end_matches('_')
                                );
                                Some((func, expr))
                            }
                        };
                        defaults.push(DefaultFn {
                            field: name.clone(),
                            method,
                            doc: doc_lines(&Some(format!(
                                "`{name}`, or its schema default when absent: `{}`.",
                                short_json(d)
                            ))),
                            copy: self.is_copy(&f.ty),
                            call,
                            ty: base.clone(),
                        });
                        format!("Option<{base}>")
                    }
                    (false, _) => {
                        optional(&mut serde);
                        format!("Option<{base}>")
                    }
                };
                FieldCtx {
                    doc: doc_lines(&f.doc),
                    serde,
                    name,
                    ty,
                }
            })
            .collect()
    }

    /// Whether the Rust type of `ty` can hold a JSON `null` (an `Option`, a JSON value, `()`, a
    /// union with such a variant), following aliases: an optional field of it deserializes
    /// through `rt::some`, so that an explicit `null` is not read as an absent field.
    fn holds_null(&self, ty: &Ty) -> bool {
        self.holds_null_seen(ty, &mut HashSet::new())
    }

    fn holds_null_seen(&self, ty: &Ty, seen: &mut HashSet<TypeId>) -> bool {
        match ty {
            Ty::Nullable(_) | Ty::Any | Ty::Null | Ty::Open(..) => true,
            // A type met again adds nothing (a cycle of aliases reads `null` as nothing does).
            Ty::Named(id) if !seen.insert(*id) => false,
            Ty::Named(id) => match &self.ir.types[*id].kind {
                TypeKind::Alias(t) => self.holds_null_seen(t, seen),
                TypeKind::Union(u) => u.variants.iter().any(|v| self.holds_null_seen(&v.ty, seen)),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether the Rust type of `ty` is `Copy` (a number, a `bool`, a string enum).
    fn is_copy(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Bool | Ty::Integer | Ty::Number => true,
            Ty::Named(id) => {
                let kind = &self.ir.types[*id].kind;
                matches!(kind, TypeKind::Enum(_)) && !large_enum(kind)
            }
            _ => false,
        }
    }

    /// How a schema default is written in Rust; `None` when the field's Rust type has no
    /// `Default` to fall back on (the field then stays an `Option`).
    fn default_expr(&self, ty: &Ty, d: &Value) -> Option<DefaultExpr> {
        Some(match (ty, d) {
            (Ty::Bool, Value::Bool(false)) => DefaultExpr::Trait,
            (Ty::Bool, Value::Bool(b)) => DefaultExpr::Expr(b.to_string()),
            (Ty::Integer, Value::Number(n)) if n.as_i64() == Some(0) => DefaultExpr::Trait,
            (Ty::Integer, Value::Number(n)) => DefaultExpr::Expr(n.to_string()),
            (Ty::WideInteger, Value::Number(n)) => match n.as_i64() {
                Some(i) => DefaultExpr::Expr(format!("rt::JsonInt::from({i}_i64)")),
                None => DefaultExpr::Expr(format!(
                    "rt::schema_default({})",
                    raw_literal(&n.to_string())
                )),
            },
            (Ty::Number, Value::Number(n)) => {
                let f = n.as_f64().unwrap_or_default();
                DefaultExpr::Expr(if f.fract() == 0.0 {
                    format!("{f:.1}")
                } else {
                    format!("{f:?}")
                })
            }
            (Ty::String | Ty::Literal(_), Value::String(s)) if s.is_empty() => DefaultExpr::Trait,
            (Ty::String | Ty::Literal(_), Value::String(s)) => {
                DefaultExpr::Expr(format!("{}.to_string()", literal(s)))
            }
            (Ty::Array(_), Value::Array(a)) if a.is_empty() => DefaultExpr::Trait,
            (Ty::Map(_), Value::Object(m)) if m.is_empty() => DefaultExpr::Trait,
            (Ty::Named(id), Value::String(s)) if large_enum(&self.ir.types[*id].kind) => {
                DefaultExpr::Expr(format!("{}.to_string()", literal(s)))
            }
            (Ty::Named(id), Value::String(s))
                if matches!(self.ir.types[*id].kind, TypeKind::Enum(_)) =>
            {
                let TypeKind::Enum(values) = &self.ir.types[*id].kind else {
                    unreachable!()
                };
                let variants = names::variant_names(values);
                let i = values.iter().position(|v| v == s).unwrap_or(0);
                DefaultExpr::Expr(format!("{}::{}", self.names[*id], variants[i]))
            }
            (Ty::Array(_) | Ty::Map(_) | Ty::Any, d) => DefaultExpr::Expr(format!(
                "rt::default_from_json({})",
                raw_literal(&d.to_string())
            )),
            // The IR kept the default only if it fits the type, so it deserializes.
            (Ty::Named(id), d)
                if matches!(
                    self.ir.types[*id].kind,
                    TypeKind::Struct(_) | TypeKind::Union(_)
                ) =>
            {
                DefaultExpr::Expr(format!(
                    "rt::schema_default({})",
                    raw_literal(&d.to_string())
                ))
            }
            _ => return None,
        })
    }

    fn type_ctx(&self, id: TypeId) -> TypeCtx {
        let t = &self.ir.types[id];
        self.nested.borrow_mut().start(&self.names[id]);
        let mut is_alias = false;
        let body = match &t.kind {
            TypeKind::Struct(s) => {
                let mut defaults = Vec::new();
                let mut fields = self.fields(id, &s.fields, &[], true, &mut defaults);
                fields.extend(self.extra_field(s, &fields));
                let mut ctx = StructCtx {
                    fields,
                    deny_unknown: s.deny_unknown,
                    derive_default: self.default[id],
                    defaults,
                    manual: None,
                };
                ctx.manual = serde_impl::manual(&ctx);
                Body::Struct(ctx)
            }
            TypeKind::Enum(_) if large_enum(&t.kind) => {
                is_alias = true;
                Body::Alias("String".into())
            }
            TypeKind::Enum(values) => {
                let variants: Vec<EnumVariant> = names::variant_names(values)
                    .into_iter()
                    .zip(values)
                    .map(|(name, v)| EnumVariant {
                        name,
                        wire_literal: escape::rust::string(v),
                    })
                    .collect();
                let all_items: Vec<String> = variants
                    .iter()
                    .map(|v| format!("Self::{}", v.name))
                    .collect();
                let list = all_items.join(", ");
                let head = format!("    pub const ALL: [Self; {}] = ", variants.len());
                let all_layout = if head.len() + list.len() + 3 <= 100 {
                    0
                } else if 8 + list.len() + 3 <= 100 {
                    1
                } else {
                    2
                };
                Body::Enum(EnumCtx {
                    variants,
                    all_items,
                    all_layout,
                })
            }
            TypeKind::Union(u) => Body::Union(self.union(id, u)),
            TypeKind::Alias(ty) if self.recursive_alias(id) => Body::Newtype(self.ty(ty, id)),
            TypeKind::Alias(ty) => {
                is_alias = true;
                // Another name for a struct or enum needs no `Box` of its own: the fields that
                // name it on a cycle box it (`type Pip = Config;`, `pip: Option<Box<Pip>>`).
                let nominal = match ty {
                    Ty::Named(n) => !matches!(self.ir.types[*n].kind, TypeKind::Alias(_)),
                    _ => false,
                };
                Body::Alias(self.ty(ty, if nominal { usize::MAX } else { id }))
            }
        };
        TypeCtx {
            name: self.names[id].clone(),
            snake: self.names[id].to_snake_case(),
            doc: doc_lines(&t.doc),
            node: t.node,
            is_alias,
            open: t.open.is_some() && !is_alias,
            standalone: !self.payload(id),
            schemars: self.schemars,
            nested: self.nested.borrow_mut().take(),
            body,
        }
    }

    /// The field that keeps the properties a struct does not declare: `extra` (or the first of
    /// `extra_2`, `extra_3`, … that no property took).
    fn extra_field(&self, s: &crate::ir::Struct, fields: &[FieldCtx]) -> Option<FieldCtx> {
        let ty = s.extra.as_ref()?;
        let taken: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let name = std::iter::once("extra".to_string())
            .chain((2..).map(|i| format!("extra_{i}")))
            .find(|n| !taken.contains(&n.as_str()))
            .expect("an unused name");
        Some(FieldCtx {
            doc: doc_lines(&Some("Properties the schema does not declare.".into())),
            serde: vec!["flatten".into()],
            name,
            ty: format!("BTreeMap<String, {}>", self.ty(ty, usize::MAX)),
        })
    }

    /// Which variants of an untagged union are boxed: the largest while it is more than
    /// [`LARGE_VARIANT`] bytes larger than the next (by [`Ctx::size`]), so that the enum is not
    /// as large as its largest variant (clippy's `large_enum_variant`).
    fn boxed_variants(&self, u: &crate::ir::Union) -> Vec<bool> {
        let mut sizes: Vec<usize> = u
            .variants
            .iter()
            .map(|v| self.size(&v.ty, &mut Vec::new()))
            .collect();
        let mut boxed = vec![false; sizes.len()];
        while sizes.len() > 1 {
            let mut order: Vec<usize> = (0..sizes.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
            let (big, next) = (order[0], order[1]);
            if sizes[big] < sizes[next] + LARGE_VARIANT {
                break;
            }
            boxed[big] = true;
            sizes[big] = 8;
        }
        boxed
    }

    /// An estimate of the size in bytes of the Rust type of `ty` (on the generous side: fields
    /// are not packed), following named types; a type met again on the way counts as a `Box`.
    fn size(&self, ty: &Ty, seen: &mut Vec<TypeId>) -> usize {
        match ty {
            Ty::Any => 32,
            Ty::Bool | Ty::Null => 1,
            Ty::Integer | Ty::Number => 8,
            Ty::WideInteger => 16,
            Ty::String | Ty::Literal(_) | Ty::Array(_) | Ty::Map(_) => 24,
            Ty::Nullable(t) => self.size(t, seen) + 8,
            Ty::Open(t, _) => self.size(t, seen).max(32) + 8,
            Ty::Named(id) if seen.contains(id) || self.deep[*id] || seen.len() > 64 => 8,
            Ty::Named(id) if self.sizes.borrow()[*id].is_some() => {
                self.sizes.borrow()[*id].unwrap_or(8)
            }
            Ty::Named(id) => {
                seen.push(*id);
                let size = match &self.ir.types[*id].kind {
                    TypeKind::Struct(s) => {
                        let extra = if s.extra.is_some() { 24 } else { 0 };
                        extra
                            + s.fields
                                .iter()
                                .map(|f| {
                                    let inner = self.size(&f.ty, seen);
                                    if f.required { inner } else { inner + 8 }.next_multiple_of(8)
                                })
                                .sum::<usize>()
                    }
                    TypeKind::Enum(_) => 1,
                    TypeKind::Union(u) => {
                        u.variants
                            .iter()
                            .map(|v| self.size(&v.ty, seen))
                            .max()
                            .unwrap_or(0)
                            + 8
                    }
                    TypeKind::Alias(t) if *t == Ty::Named(*id) => 32,
                    TypeKind::Alias(t) => self.size(t, seen),
                };
                seen.pop();
                self.sizes.borrow_mut()[*id] = Some(size);
                size
            }
        }
    }

    /// Whether an alias names itself through aliases only (`Nest = Vec<Nest>`).
    fn recursive_alias(&self, id: TypeId) -> bool {
        self.recursive[id]
    }

    /// A struct whose fields can be written inline as a variant of an internally tagged enum.
    fn inline_struct(&self, ty: &Ty) -> Option<&crate::ir::Struct> {
        match ty {
            Ty::Named(n) => match &self.ir.types[*n].kind {
                TypeKind::Struct(s) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether a union is written as an internally tagged enum: one tag, and every variant a
    /// struct, or a union `within` this one tagged the same way (a newtype variant).
    fn internally_tagged(&self, u: &crate::ir::Union) -> bool {
        u.tags.len() == 1
            && u.variants.iter().all(|v| {
                self.inline_struct(&v.ty).is_some()
                    || matches!(&v.ty, Ty::Named(n) if matches!(&self.ir.types[*n].kind,
                        TypeKind::Union(inner) if inner.within.as_ref().is_some_and(|(t, value)| *t == u.tags[0] && v.tag_values.first() == Some(value))
                            && self.internally_tagged(inner)))
            })
    }

    /// Whether the type is built for a variant of a union written as an internally tagged enum.
    fn owner_tagged(&self, id: TypeId) -> bool {
        self.ir.types[id].variant_of.is_some_and(|owner| matches!(&self.ir.types[owner].kind, TypeKind::Union(u) if self.internally_tagged(u)))
    }

    /// A variant struct written inline in its enum, not emitted on its own.
    fn inlined(&self, id: TypeId) -> bool {
        matches!(self.ir.types[id].kind, TypeKind::Struct(_)) && self.owner_tagged(id)
    }

    /// A union that is the payload of a newtype variant: the enclosing enum writes its tag, so
    /// it has no JSON of its own (no `from_json`, no `validate`).
    fn payload(&self, id: TypeId) -> bool {
        matches!(&self.ir.types[id].kind, TypeKind::Union(u) if u.within.is_some())
            && self.owner_tagged(id)
    }

    fn union(&self, id: TypeId, u: &crate::ir::Union) -> UnionCtx {
        let raws: Vec<String> = u.variants.iter().map(|v| v.raw_name.clone()).collect();
        let vnames = names::variant_names(&raws);
        if !self.internally_tagged(u) {
            let boxed = self.boxed_variants(u);
            let variants: Vec<UnionVariant> = u
                .variants
                .iter()
                .zip(vnames)
                .zip(boxed)
                .map(|((v, name), boxed)| {
                    let ty = self.ty(&v.ty, id);
                    UnionVariant {
                        one_line: false,
                        name,
                        rename: None,
                        unit: v.ty == Ty::Null,
                        ty: if boxed && !ty.starts_with("Box<") {
                            format!("Box<{ty}>")
                        } else {
                            ty
                        },
                        fields: Vec::new(),
                    }
                })
                .collect();
            let choice = choice(u, &variants);
            return UnionCtx {
                tag: None,
                variants,
                choice,
            };
        }
        // The enclosing union's tag is written by the enclosing enum.
        let mut skip = u.tags.clone();
        if self.payload(id) {
            skip.extend(u.within.iter().map(|(t, _)| t.clone()));
        }
        let mut variants: Vec<UnionVariant> = u
            .variants
            .iter()
            .zip(vnames)
            .map(|(v, name)| {
                let rename =
                    (name != v.tag_values[0]).then(|| escape::rust::string(&v.tag_values[0]));
                let Some(s) = self.inline_struct(&v.ty) else {
                    return UnionVariant {
                        one_line: false,
                        name,
                        rename,
                        unit: false,
                        ty: self.ty(&v.ty, id),
                        fields: Vec::new(),
                    };
                };
                let mut defaults = Vec::new();
                let mut fields = self.fields(id, &s.fields, &skip, false, &mut defaults);
                fields.extend(self.extra_field(s, &fields));
                let plain = fields.iter().all(|f| f.serde.is_empty());
                let width = 4
                    + name.len()
                    + 4
                    + fields
                        .iter()
                        .map(|f| f.name.len() + 2 + f.ty.len() + 2)
                        .sum::<usize>()
                    + 1;
                UnionVariant {
                    one_line: plain && !fields.is_empty() && width <= 100,
                    name,
                    rename,
                    unit: false,
                    ty: String::new(),
                    fields,
                }
            })
            .collect();
        // rustfmt: when some variants take several lines (an attribute counts) and others one,
        // every struct variant is written vertically.
        let multi = |v: &UnionVariant| v.rename.is_some() || (!v.fields.is_empty() && !v.one_line);
        if variants.iter().any(multi) && !variants.iter().all(multi) {
            variants.iter_mut().for_each(|v| v.one_line = false);
        }
        UnionCtx {
            tag: Some(escape::rust::string(&u.tags[0])),
            variants,
            choice: None,
        }
    }
}

/// How an untagged union with a validator per variant is decoded ([`Choice`]); `None` when
/// the JSON type alone tells its variants apart.
fn choice(u: &crate::ir::Union, variants: &[UnionVariant]) -> Option<Choice> {
    let branches: Vec<usize> = u.variants.iter().map(|v| v.node).collect::<Option<_>>()?;
    // One variant needs no choice (serde's derive reads it).
    if branches.len() < 2 {
        return None;
    }
    let list: Vec<String> = branches
        .iter()
        .map(|n| format!("super::validators::n{n}"))
        .collect();
    // rustfmt: on one line, else the value on the next line, else one branch a line.
    let flat = list.join(", ");
    let layout = if 8 + "const BRANCHES: &[rt::Node] = &[];".len() + flat.len() <= 100 {
        0
    } else if 12 + "&[];".len() + flat.len() <= 100 {
        1
    } else {
        2
    };
    let last = variants.len() - 1;
    let arms: Vec<(String, String)> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let pat = if i == last {
                "_".to_string()
            } else {
                i.to_string()
            };
            let expr = if v.unit {
                format!("rt::null(value, Self::{})?", v.name)
            } else {
                format!("Self::{}(rt::de(value)?)", v.name)
            };
            (pat, expr)
        })
        .collect();
    // An arm rustfmt would break (a long variant name) is left as written.
    let skip_fmt = arms
        .iter()
        .any(|(p, e): &(String, String)| 16 + p.len() + 4 + e.len() + 1 > 100);
    Some(Choice {
        branches,
        layout,
        arms,
        skip_fmt,
    })
}

/// A JSON value for a doc comment, cut after 60 characters.
fn short_json(v: &Value) -> String {
    let s = v.to_string().replace('`', "'");
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

enum DefaultExpr {
    /// `Default::default()` is the schema default.
    Trait,
    Expr(String),
}

/// Renders the Rust crate.
pub fn render(ir: &Ir, opts: &Options) -> Result<Files> {
    let (scc, cyclic) = components(ir);
    let deep = deep_types(ir, &scc, &cyclic);
    let recursive = recursive_aliases(ir);
    let ctx = Ctx {
        ir,
        names: names::type_names(Lang::Rust, ir),
        schemars: !opts.single_file,
        scc,
        cyclic,
        deep,
        recursive,
        nested: Default::default(),
        sizes: std::cell::RefCell::new(vec![None; ir.types.len()]),
        default: default_derive::default_structs(ir),
    };
    let mut files = Files::new();
    let mut module_names = Vec::new();
    for (m, name) in ir
        .modules
        .iter()
        .zip(names::module_names(Lang::Rust, &ir.modules))
    {
        let types: Vec<TypeCtx> = m
            .types
            .iter()
            .filter(|id| !ctx.inlined(**id))
            .map(|id| ctx.type_ctx(*id))
            .collect();
        let uses_map = types.iter().any(|t| match &t.body {
            Body::Struct(s) => s.fields.iter().any(|f| f.ty.contains("BTreeMap<")),
            Body::Union(u) => u.variants.iter().any(|v| {
                v.ty.contains("BTreeMap<") || v.fields.iter().any(|f| f.ty.contains("BTreeMap<"))
            }),
            Body::Alias(ty) | Body::Newtype(ty) => ty.contains("BTreeMap<"),
            Body::Enum(_) => false,
        });
        let mut doc = doc_lines(&m.doc);
        if !doc.is_empty() {
            doc.insert(0, Line::blank());
        }
        // A title of several lines: the first is the heading, the rest open the text.
        let title = doc_lines(&Some(
            m.title
                .clone()
                .unwrap_or_else(|| format!("Types of `{}`.", m.rel)),
        ));
        let doc_title = title.first().cloned().unwrap_or_default();
        doc.splice(0..0, title.into_iter().skip(1));
        let uses_serde = types.iter().any(|t| !t.is_alias);
        let t = ModuleTemplate {
            header: GENERATED,
            doc_title,
            doc_lines: doc,
            uses_map,
            uses_serde,
            types,
        };
        files.insert(format!("src/{name}.rs"), run("rust/module.rs.j2", &t)?);
        module_names.push(name);
    }
    let title = "JSON Schema bindings";
    let program = validators::render(ir)?;
    files.extend(lite::files(&program)?);
    files.insert("src/validators.rs".into(), program);
    let has_helpers = match helpers::render(ir, &ctx.names)? {
        Some(text) => {
            files.insert("src/helpers.rs".into(), text);
            true
        }
        None => false,
    };
    let lib_types: Vec<LibType> = ctx
        .names
        .iter()
        .zip(&ir.types)
        .enumerate()
        .map(|(id, (name, t))| LibType {
            name: name.clone(),
            literal: escape::rust::string(name),
            node: t.node,
            alias: (matches!(t.kind, TypeKind::Alias(_)) && !ctx.recursive_alias(id))
                || large_enum(&t.kind),
            typed: !ctx.inlined(id) && !ctx.payload(id),
            long: 8 + 2 * name.len() + 2 + 4 + 28 > 100,
        })
        .collect();
    // Sorted the way rustfmt orders `mod` and `use` items.
    let mut uses: Vec<String> = module_names.iter().map(|m| format!("{m}::*")).collect();
    let mut mods: Vec<(String, String)> = module_names
        .iter()
        .map(|m| (m.clone(), format!("pub mod {m}")))
        .collect();
    mods.push(("formats".into(), "mod formats".into()));
    mods.push((
        "lite".into(),
        "// The checks compiled a second time, over the value `from_json` parses: what only the\n\
         // first copy calls is unused in this one.\n\
         #[allow(dead_code)]\n\
         mod lite"
            .into(),
    ));
    mods.push(("runtime".into(), "pub mod runtime".into()));
    mods.push(("validators".into(), "mod validators".into()));
    if has_helpers {
        mods.push(("helpers".into(), "pub mod helpers".into()));
        uses.push("helpers::*".into());
    }
    mods.sort();
    uses.push("runtime::{Error, JsonInt, UnknownVariant, ValidationErrors, Violation}".into());
    uses.sort();
    let mods = mods.into_iter().map(|m| m.1).collect();
    let lib = LibTemplate {
        header: GENERATED,
        title,
        mods,
        uses,
        any_typed: lib_types.iter().any(|t: &LibType| t.typed && !t.alias),
        recursion_limit: limits::recursion_limit(ir),
        types: lib_types,
    };
    files.insert("src/lib.rs".into(), run("rust/lib.rs.j2", &lib)?);
    files.insert(
        "src/runtime.rs".into(),
        run(
            "rust/runtime.rs.j2",
            &RuntimeTemplate {
                header: GENERATED,
                schemars: ctx.schemars,
                serde: true,
            },
        )?,
    );
    files.insert(
        "src/formats.rs".into(),
        run("rust/formats.rs.j2", &FormatsTemplate { header: GENERATED })?,
    );
    files.insert(
        "rustfmt.toml".into(),
        run("rust/rustfmt.toml.j2", &RustfmtTemplate)?,
    );
    if opts.single_file {
        return Ok(single_file(files));
    }
    files.insert(
        "Cargo.toml".into(),
        run(
            "rust/cargo.toml.j2",
            &CargoTemplate {
                header: GENERATED,
                m: opts.package.manifest(Lang::Rust),
                dependencies: dependencies_toml(),
            },
        )?,
    );
    Ok(files)
}

/// The checks of the runtime alone, over the `Value` of a sibling module `value`, and the
/// string formats they call: what a crate that validates another representation of JSON
/// values compiles besides the validators (`runtime.rs`, `formats.rs`).
pub(crate) fn check_runtime() -> Result<(String, String)> {
    let runtime = run(
        "rust/runtime.rs.j2",
        &RuntimeTemplate {
            header: GENERATED,
            schemars: false,
            serde: false,
        },
    )?;
    let formats = run("rust/formats.rs.j2", &FormatsTemplate { header: GENERATED })?;
    Ok((runtime, formats))
}

/// The `rustfmt.toml` the generated Rust is formatted by.
#[cfg(feature = "python")]
pub(crate) fn rustfmt_toml() -> Result<String> {
    run("rust/rustfmt.toml.j2", &RustfmtTemplate)
}

/// The validation program as Rust (`validators.rs`).
#[cfg(feature = "python")]
pub(crate) fn render_validators(ir: &Ir) -> Result<String> {
    validators::render(ir)
}

/// The `Type` variant for a JSON type.
pub(crate) fn json_type(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "Type::Null",
        JsonType::Boolean => "Type::Boolean",
        JsonType::Object => "Type::Object",
        JsonType::Array => "Type::Array",
        JsonType::Number => "Type::Number",
        JsonType::String => "Type::String",
        JsonType::Integer => "Type::Integer",
    }
}

/// Folds the crate's files into one `bindings.rs`: the root module's items, then every module
/// inline. Paths in the generated code are relative (`super::`), so it works wherever included.
fn single_file(files: Files) -> Files {
    let lib = &files["src/lib.rs"];
    let mut out = String::new();
    for line in lib.lines().filter(|l| !l.starts_with("//!")) {
        let module = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
            .and_then(|m| m.strip_suffix(';'));
        // An inner attribute cannot be `include!`d: the including crate's root must carry it.
        if line.starts_with("// Types nested deeper than rustc's default") {
            continue;
        }
        if line.starts_with("#![recursion_limit") {
            out.push_str(&format!(
                "// Types nested deeper than rustc's default recursion limit allows for its drop\n\
                 // check: the root of the crate that includes this file needs `{line}`.\n"
            ));
            continue;
        }
        match module.and_then(|m| files.get(&format!("src/{m}.rs")).map(|body| (m, body))) {
            Some((m, body)) => {
                let vis = if line.starts_with("pub ") { "pub " } else { "" };
                out.push_str(&format!(
                    "{vis}mod {m} {{\n{}}}\n",
                    inline_modules(&files, m, body)
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Files::from([("bindings.rs".to_string(), out)])
}

/// The body of module `path` (`lite`) with its own file modules (`mod de;`, `pub(crate) mod
/// value;`, in `src/lite/`) written inline.
fn inline_modules(files: &Files, path: &str, body: &str) -> String {
    let mut out = String::new();
    for line in body.lines() {
        let (vis, rest) = match line.strip_prefix("pub(crate) ") {
            Some(rest) => ("pub(crate) ", rest),
            None => ("", line),
        };
        let child = rest.strip_prefix("mod ").and_then(|m| m.strip_suffix(';'));
        match child.and_then(|m| files.get(&format!("src/{path}/{m}.rs")).map(|b| (m, b))) {
            Some((m, b)) => out.push_str(&format!("{vis}mod {m} {{\n{b}}}\n")),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}
