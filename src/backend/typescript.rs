//! TypeScript backend: IR → template context for `templates/typescript/`.
//!
//! The backend decides every language string (type expressions, names, literals, conditions,
//! and whether a construct fits in 80 columns); the templates only lay them out, the way
//! prettier would.

mod flows;
mod helpers;
mod layout;
mod validators;

use std::collections::BTreeSet;

use askama::Template;
use serde_json::Value;

use super::escape::{self, typescript::Line};
use super::{run, Files, Options, GENERATED};
use crate::error::Result;
use crate::ir::names::{self, Lang};
use crate::ir::{Check, Ir, JsonKind, JsonType, Ty, TypeId, TypeKind};
use layout::{lay, lay_lit, Before, Lit, Slot, TExpr};

/// The print width prettier checks against.
const WIDTH: usize = 80;

pub fn render(ir: &Ir, opts: &Options) -> Result<Files> {
    let ctx = Ctx::new(ir);
    let mut files = Files::new();
    files.insert(
        "package.json".into(),
        run("typescript/package.json", &PackageJson::new(opts, ir))?,
    );
    files.insert(
        "tsconfig.json".into(),
        run("typescript/tsconfig.json", &TsConfig)?,
    );
    files.insert(
        "README.md".into(),
        run(
            "typescript/README.md",
            &Readme {
                name: opts.package.npm_name().to_string(),
            },
        )?,
    );
    files.insert(
        "src/runtime.ts".into(),
        run("typescript/runtime.ts", &Runtime { header: GENERATED })?,
    );
    files.insert(
        "src/validators.ts".into(),
        run("typescript/validators.ts", &validators::view(&ctx))?,
    );
    let mut exports = Vec::new();
    let mut module_names = BTreeSet::new();
    for m in 0..ir.modules.len() {
        let view = ctx.module(m);
        exports.push(view.file.clone());
        for t in &view.types {
            module_names.extend([
                t.name.clone(),
                format!("validate{}", t.name),
                format!("is{}", t.name),
                format!("parse{}", t.name),
            ]);
            if let Kind::Enum { values_name, .. } = &t.kind {
                module_names.insert(values_name.clone());
            }
            if let Some(f) = &t.fill {
                module_names.insert(f.name.clone());
            }
        }
        files.insert(
            format!("src/{}.ts", view.file),
            run("typescript/module.ts", &view)?,
        );
    }
    let helpers = helpers::view(&ctx);
    let has_helpers = helpers.is_some();
    // Helper names are fixed by the helper specification: where a type's function has the
    // same name, the package root exports the helper and the type's module keeps its own.
    let mut shadowing: Vec<String> = Vec::new();
    if let Some(h) = &helpers {
        shadowing = h
            .exports
            .iter()
            .filter(|n| module_names.contains(*n))
            .cloned()
            .collect();
    }
    if let Some(h) = helpers {
        files.insert("src/helpers.ts".into(), run("typescript/helpers.ts", &h)?);
    }
    let shadowing = (!shadowing.is_empty()).then(|| Import::new(false, shadowing, "./helpers.js"));
    let index = Index {
        header: GENERATED,
        modules: exports,
        helpers: has_helpers,
        shadowing,
    };
    files.insert("src/index.ts".into(), run("typescript/index.ts", &index)?);
    Ok(files)
}

/// Names and type expressions shared by every file.
pub(crate) struct Ctx<'a> {
    pub ir: &'a Ir,
    pub names: Vec<String>,
    pub files: Vec<String>,
    /// Per type: whether parsing it can apply defaults (see `compute_fills`).
    fills: Vec<bool>,
    /// Per type: whether its values are assignable to `JsonValue` (see `compute_json`).
    json: Vec<bool>,
    /// The nodes that take the instance depth (`docs/validation.md`, "Nesting").
    pub depth: super::depth::DepthPlan,
}

impl<'a> Ctx<'a> {
    fn new(ir: &'a Ir) -> Self {
        let names = names::type_names(Lang::TypeScript, ir);
        let files = names::module_names(Lang::TypeScript, &ir.modules);
        let depth = super::depth::DepthPlan::new(&ir.program);
        let mut ctx = Ctx {
            ir,
            names,
            files,
            fills: Vec::new(),
            json: Vec::new(),
            depth,
        };
        ctx.fills = ctx.compute_fills();
        ctx.json = ctx.compute_json();
        ctx
    }

    /// The TypeScript type expression of a type.
    pub fn texpr(&self, t: &Ty) -> TExpr {
        match t {
            Ty::Any => TExpr::atom("JsonValue"),
            Ty::Bool => TExpr::atom("boolean"),
            Ty::Integer | Ty::WideInteger | Ty::Number => TExpr::atom("number"),
            Ty::String => TExpr::atom("string"),
            Ty::Null => TExpr::atom("null"),
            Ty::Literal(s) => TExpr::atom(str_lit(s)),
            Ty::Nullable(t) => TExpr::union([self.texpr(t), TExpr::atom("null")]),
            Ty::Array(t) => TExpr::Array(Box::new(self.texpr(t))),
            Ty::Map(t) => TExpr::Map(Box::new(self.texpr(t))),
            Ty::Named(id) => TExpr::atom(self.names[*id].clone()),
            // The typed value, or any value of another JSON type.
            Ty::Open(_, JsonKind::String) => TExpr::atom("JsonValue"),
            Ty::Open(t, kind) => TExpr::union([
                self.texpr(t),
                TExpr::atom(match kind {
                    JsonKind::Object => "NotObject",
                    _ => "NotArray",
                }),
            ]),
        }
    }

    /// Whether every value of the TypeScript type of `t` is assignable to `JsonValue`.
    /// Interfaces are not, unless they declare an index signature that is: unlike object
    /// type literals they get no implicit index signature (microsoft/TypeScript#15300).
    fn is_json(&self, t: &Ty) -> bool {
        let mut named = Vec::new();
        named_in_ty(t, &mut named);
        named.iter().all(|id| self.json[*id])
    }

    /// Whether `tsc` checks a value of `t` against `JsonValue` in a few steps: no more than
    /// [`SHALLOW`] levels of arrays and maps, and named types that name no others (an
    /// interface's members are compared one by one, as deep as they nest: a chain of them
    /// ends in TS2321).
    fn flat_json(&self, t: &Ty) -> bool {
        let mut named = Vec::new();
        named_in_ty(t, &mut named);
        nesting(t) < SHALLOW
            && named.iter().all(|id| match &self.ir.types[*id].kind {
                TypeKind::Struct(s) => {
                    s.fields.iter().all(|f| self.leaf(&f.ty))
                        && s.extra.as_ref().is_none_or(|e| self.leaf(e))
                }
                TypeKind::Union(u) => u.variants.iter().all(|v| self.leaf(&v.ty)),
                _ => self.leaf(&Ty::Named(*id)),
            })
    }

    /// Whether a type is scalars, enums and shallow arrays and maps of them.
    fn leaf(&self, t: &Ty) -> bool {
        let mut named = Vec::new();
        named_in_ty(t, &mut named);
        nesting(t) < SHALLOW
            && named.iter().all(|id| match &self.ir.types[*id].kind {
                TypeKind::Enum(_) => true,
                TypeKind::Alias(a) => {
                    let mut inner = Vec::new();
                    named_in_ty(a, &mut inner);
                    inner.is_empty() && nesting(a) < SHALLOW
                }
                _ => false,
            })
    }

    /// [`Self::is_json`] of every named type, computed once: a type met again on a cycle is
    /// assumed compatible, as the compiler does for recursive types (the greatest fixpoint:
    /// a type is not JSON when it fails itself or names a type that is not). Linear.
    fn compute_json(&self) -> Vec<bool> {
        let n = self.ir.types.len();
        let mut json = vec![true; n];
        let mut users: Vec<Vec<TypeId>> = vec![Vec::new(); n];
        let mut failed = Vec::new();
        for (id, t) in self.ir.types.iter().enumerate() {
            let mut named = Vec::new();
            let ok = match &t.kind {
                TypeKind::Enum(_) => true,
                TypeKind::Alias(a) if *a == Ty::Named(id) => true,
                TypeKind::Alias(a) => {
                    named_in_ty(a, &mut named);
                    true
                }
                TypeKind::Union(u) => {
                    u.variants
                        .iter()
                        .for_each(|v| named_in_ty(&v.ty, &mut named));
                    true
                }
                // An interface is assignable only with an index signature.
                TypeKind::Struct(s) => {
                    s.fields.iter().for_each(|f| named_in_ty(&f.ty, &mut named));
                    s.extra.iter().for_each(|e| named_in_ty(e, &mut named));
                    s.extra.is_some()
                }
            };
            for u in named {
                users[u].push(id);
            }
            if !ok {
                json[id] = false;
                failed.push(id);
            }
        }
        while let Some(id) = failed.pop() {
            for &u in &users[id] {
                if json[u] {
                    json[u] = false;
                    failed.push(u);
                }
            }
        }
        json
    }

    /// The type of an interface's index signature: the additional properties' type, widened by
    /// the type of every declared property (TypeScript checks each property against the index
    /// signature, and the validator checks additional properties only). `JsonValue` absorbs
    /// every member assignable to it.
    fn index_type(&self, extra: &Ty, fields: &[crate::ir::Field]) -> TExpr {
        let all: Vec<&Ty> = std::iter::once(extra)
            .chain(fields.iter().map(|f| &f.ty))
            .collect();
        let any = all.iter().any(|t| **t == Ty::Any);
        let mut members = Vec::new();
        for t in all {
            // Members are taken apart so `JsonValue` can absorb the `null` of `T | null`.
            let parts: Vec<&Ty> = match t {
                Ty::Nullable(inner) => vec![&**inner, &Ty::Null],
                t => vec![t],
            };
            for p in parts {
                // A deep type stays a member of its own: `tsc` compares it with `JsonValue` a
                // level at a time and gives up (TS2321) past about a hundred levels, while a
                // member identical to the property's type is found at once.
                if any && *p != Ty::Any && self.is_json(p) && self.flat_json(p) {
                    continue;
                }
                members.push(self.texpr(p));
            }
        }
        TExpr::union(members)
    }

    /// The type an alias stands for. An alias that names itself (a `$defs` entry holding a
    /// scalar schema) is read from its node's `type` keyword.
    pub fn alias_target(&self, id: TypeId, t: &Ty) -> TExpr {
        if *t != Ty::Named(id) {
            return self.texpr(t);
        }
        let node = &self.ir.program.nodes[self.ir.types[id].node];
        let mut out: Vec<TExpr> = Vec::new();
        for c in &node.checks {
            if let Check::Type(ts) = c {
                for t in ts {
                    out.push(match t {
                        JsonType::Null => TExpr::atom("null"),
                        JsonType::Boolean => TExpr::atom("boolean"),
                        JsonType::Object => TExpr::Map(Box::new(TExpr::atom("JsonValue"))),
                        JsonType::Array => TExpr::Array(Box::new(TExpr::atom("JsonValue"))),
                        JsonType::Number | JsonType::Integer => TExpr::atom("number"),
                        JsonType::String => TExpr::atom("string"),
                    });
                }
            }
        }
        if out.is_empty() {
            TExpr::atom("JsonValue")
        } else {
            TExpr::union(out)
        }
    }

    /// Named types a type expression mentions.
    fn named_in(&self, t: &Ty, out: &mut BTreeSet<TypeId>) {
        t.visit(&mut |t| {
            if let Ty::Named(n) = t {
                out.insert(*n);
            }
        });
    }

    fn module(&self, m: usize) -> ModuleView {
        let ir = self.ir;
        let module = &ir.modules[m];
        let mut types = Vec::new();
        let mut referenced = BTreeSet::new();
        let mut nodes = BTreeSet::new();
        let mut runtime: BTreeSet<&'static str> = ["ValidationError"].into_iter().collect();
        let mut runtime_types: BTreeSet<&'static str> = ["Violation"].into_iter().collect();
        for &id in &module.types {
            let def = &ir.types[id];
            let name = self.names[id].clone();
            nodes.insert(def.node);
            let kind = match &def.kind {
                TypeKind::Struct(s) => {
                    let mut fields = Vec::new();
                    for f in &s.fields {
                        self.named_in(&f.ty, &mut referenced);
                        let ty = self.texpr(&f.ty);
                        runtime_names(&ty, &mut runtime_types);
                        let key = prop_key(&names::field_name(Lang::TypeScript, &f.wire));
                        let q = if f.required { "" } else { "?" };
                        fields.push(FieldView {
                            doc: f.doc.as_deref().map(doc_text),
                            lines: lay(&ty, Slot::Property, &format!("  {key}{q}: "), 2, ";"),
                        });
                    }
                    let index = s.extra.as_ref().map(|e| {
                        self.named_in(e, &mut referenced);
                        let ty = self.index_type(e, &s.fields);
                        runtime_names(&ty, &mut runtime_types);
                        lay(&ty, Slot::Index, "  [key: string]: ", 2, ";")
                    });
                    Kind::Interface { fields, index }
                }
                TypeKind::Enum(values) => {
                    let ty = TExpr::union(values.iter().map(|v| TExpr::atom(str_lit(v))));
                    let lines = lay(&ty, Slot::Alias, &format!("export type {name} = "), 0, ";");
                    let values_name = format!("{name}Values");
                    let list = Lit::Array(values.iter().map(|v| Lit::Str(str_lit(v))).collect());
                    let head = format!("export const {values_name}: readonly {name}[] = ");
                    let values = lay_lit(&list, Before::Operator, &head, 0, ";");
                    Kind::Enum {
                        lines,
                        values_name,
                        values,
                    }
                }
                TypeKind::Union(u) => {
                    let mut members = Vec::new();
                    for v in &u.variants {
                        self.named_in(&v.ty, &mut referenced);
                        members.push(self.texpr(&v.ty));
                    }
                    let ty = TExpr::union(members);
                    runtime_names(&ty, &mut runtime_types);
                    Kind::Alias {
                        lines: lay(&ty, Slot::Alias, &format!("export type {name} = "), 0, ";"),
                    }
                }
                TypeKind::Alias(t) => {
                    self.named_in(t, &mut referenced);
                    referenced.remove(&id);
                    let ty = self.alias_target(id, t);
                    runtime_names(&ty, &mut runtime_types);
                    Kind::Alias {
                        lines: lay(&ty, Slot::Alias, &format!("export type {name} = "), 0, ";"),
                    }
                }
            };
            let fill = self.fill(id);
            if fill.is_some() {
                for f in fill.iter().flat_map(|f| &f.fields) {
                    if let Some(n) = f.callee_type {
                        referenced.insert(n);
                    }
                }
            }
            let sig = |prefix: &str, ret: &str| {
                !fits(
                    0,
                    &format!("export function {prefix}{name}(value: unknown): {ret} {{"),
                )
            };
            // A type of a schema without `type`: its valid values include every non-object.
            let parsed = if def.open.is_some() {
                runtime_types.insert("NotObject");
                format!("{name} | NotObject")
            } else {
                name.clone()
            };
            types.push(TypeView {
                doc: def.doc.as_deref().map(doc_text),
                validate_break: sig("validate", "Violation[]"),
                is_break: sig("is", &format!("value is {parsed}")),
                parse_break: sig("parse", &parsed),
                parsed,
                throw_arg_break: !fits(6, &format!("validate{name}(value),")),
                throw_break: !fits(
                    4,
                    &format!("throw new ValidationError(\"{name}\", validate{name}(value));"),
                ),
                name,
                node: def.node,
                depth: if self.depth.carries(def.node) {
                    ", 0"
                } else {
                    ""
                },
                kind,
                fill,
            });
        }
        // Types of this module are declared here; others are imported.
        let own: BTreeSet<TypeId> = module.types.iter().copied().collect();
        let mut by_module: std::collections::BTreeMap<usize, BTreeSet<String>> = Default::default();
        let mut fill_imports: std::collections::BTreeMap<usize, BTreeSet<String>> =
            Default::default();
        for t in &types {
            for f in t.fill.iter().flat_map(|f| &f.fields) {
                if let Some(n) = f.callee_type {
                    if !own.contains(&n) {
                        fill_imports
                            .entry(ir.types[n].module)
                            .or_default()
                            .insert(fill_name(&self.names[n]));
                    }
                }
            }
        }
        for id in referenced {
            if !own.contains(&id) {
                by_module
                    .entry(ir.types[id].module)
                    .or_default()
                    .insert(self.names[id].clone());
            }
        }
        for f in types.iter().filter_map(|t| t.fill.as_ref()) {
            for f in &f.fields {
                if f.callee.is_some() {
                    runtime.insert(if f.nullable {
                        "fillNullable"
                    } else if f.array {
                        "fillArray"
                    } else if f.map {
                        "fillMap"
                    } else {
                        "fillOne"
                    });
                }
            }
        }
        let mut imports = Vec::new();
        let runtime_names: Vec<String> = runtime.iter().map(|s| s.to_string()).collect();
        imports.push(Import::new(false, runtime_names, "./runtime.js"));
        imports.push(Import::new(
            true,
            runtime_types.iter().map(|s| s.to_string()).collect(),
            "./runtime.js",
        ));
        let node_names: Vec<String> = nodes.iter().map(|n| format!("n{n}")).collect();
        imports.push(Import::new(false, node_names, "./validators.js"));
        for (m, fns) in &fill_imports {
            imports.push(Import::new(
                false,
                fns.iter().cloned().collect(),
                &format!("./{}.js", self.files[*m]),
            ));
        }
        for (m, names) in by_module {
            imports.push(Import::new(
                true,
                names.into_iter().collect(),
                &format!("./{}.js", self.files[m]),
            ));
        }
        ModuleView {
            header: GENERATED,
            file: self.files[m].clone(),
            doc: module
                .doc
                .as_deref()
                .or(module.title.as_deref())
                .map(doc_text),
            imports,
            types,
        }
    }

    /// Whether parsing a value of each type can add defaults somewhere inside it: the type
    /// reaches (through struct fields and alias targets) a struct with a default to apply.
    /// Computed once for all types, backwards from those structs, in linear time.
    fn compute_fills(&self) -> Vec<bool> {
        let mut named_by: Vec<Vec<TypeId>> = Vec::with_capacity(self.ir.types.len());
        let mut fills = Vec::with_capacity(self.ir.types.len());
        for def in &self.ir.types {
            let mut named = BTreeSet::new();
            let mut own = false;
            match &def.kind {
                TypeKind::Struct(s) => {
                    own = s.fields.iter().any(|f| self.default_of(f).is_some());
                    s.fields
                        .iter()
                        .for_each(|f| self.named_in(&f.ty, &mut named));
                }
                TypeKind::Alias(t) => self.named_in(t, &mut named),
                _ => {}
            }
            named_by.push(named.into_iter().collect());
            fills.push(own);
        }
        crate::backend::depth::reaching(&named_by, fills)
    }

    fn type_fills(&self, id: TypeId) -> bool {
        self.fills[id]
    }

    /// The default-filling function of a struct type, when it has defaults somewhere inside.
    fn fill(&self, id: TypeId) -> Option<FillView> {
        let TypeKind::Struct(s) = &self.ir.types[id].kind else {
            return None;
        };
        if !self.type_fills(id) {
            return None;
        }
        let mut fields = Vec::new();
        for (i, f) in s.fields.iter().enumerate() {
            let key = str_lit(&f.wire);
            let default = self
                .default_of(f)
                .filter(|_| !super::defaults::default_loops(&self.ir.types, id, i))
                .map(json_lit);
            let (callee_type, shape) = match &f.ty {
                Ty::Named(n) if self.type_fills(*n) && self.is_struct(*n) => {
                    (Some(*n), FillShape::One)
                }
                Ty::Nullable(t) => match &**t {
                    Ty::Named(n) if self.type_fills(*n) && self.is_struct(*n) => {
                        (Some(*n), FillShape::Nullable)
                    }
                    _ => (None, FillShape::One),
                },
                Ty::Array(t) => match &**t {
                    Ty::Named(n) if self.type_fills(*n) && self.is_struct(*n) => {
                        (Some(*n), FillShape::Array)
                    }
                    _ => (None, FillShape::One),
                },
                Ty::Map(t) => match &**t {
                    Ty::Named(n) if self.type_fills(*n) && self.is_struct(*n) => {
                        (Some(*n), FillShape::Map)
                    }
                    _ => (None, FillShape::One),
                },
                _ => (None, FillShape::One),
            };
            if default.is_none() && callee_type.is_none() {
                continue;
            }
            let fill_fn = match shape {
                FillShape::One => "fillOne",
                FillShape::Nullable => "fillNullable",
                FillShape::Array => "fillArray",
                FillShape::Map => "fillMap",
            };
            let default = default.map(|d| {
                let (mut lines, head) = assign_head(&key);
                lines.extend(lay_lit(&d, Before::Operator, &head, 4, ";"));
                lines
            });
            let call_inline = callee_type.is_none_or(|n| {
                fits(
                    4,
                    &format!(
                        "out[{key}] = {fill_fn}(out[{key}], {});",
                        fill_name(&self.names[n])
                    ),
                )
            });
            fields.push(FillField {
                fill_fn,
                if_absent: if_head(&key, "=== undefined"),
                if_present: if_head(&key, "!== undefined"),
                call_inline,
                key,
                default,
                callee: callee_type.map(|n| fill_name(&self.names[n])),
                callee_type,
                nullable: shape == FillShape::Nullable,
                array: shape == FillShape::Array,
                map: shape == FillShape::Map,
            });
        }
        let name = fill_name(&self.names[id]);
        let t = &self.names[id];
        Some(FillView {
            sig_break: !fits(0, &format!("export function {name}(value: {t}): {t} {{")),
            name,
            fields,
        })
    }

    /// The default applied to an absent optional field: the schema's, when it is a value of
    /// the field's TypeScript type (the IR can keep a default that is not, such as a `null`
    /// default of a string property inside another property's default).
    fn default_of<'f>(&self, f: &'f crate::ir::Field) -> Option<&'f Value> {
        f.default
            .as_ref()
            .filter(|d| !f.required && self.holds(&f.ty, d, 0))
    }

    /// Whether a JSON value, written as a literal, is a value of the TypeScript type of `t`:
    /// an object literal must have every required property and no property the type does not
    /// declare. A `__proto__` key is refused, as a literal would set the prototype.
    fn holds(&self, t: &Ty, v: &Value, depth: usize) -> bool {
        super::holds::holds(self.ir, t, v, depth)
    }

    fn is_struct(&self, id: TypeId) -> bool {
        matches!(self.ir.types[id].kind, TypeKind::Struct(_))
    }
}

#[derive(PartialEq)]
enum FillShape {
    One,
    Nullable,
    Array,
    Map,
}

/// The name of the (exported) default-filling function of a type.
fn fill_name(type_name: &str) -> String {
    format!("withDefaults{type_name}")
}

/// `if (out[key] op undefined) {` at indent 2, broken as prettier breaks it: the condition on
/// its own line, then after the operator, then inside the brackets.
fn if_head(key: &str, test: &str) -> Vec<String> {
    let cond = format!("out[{key}] {test}");
    let (op, right) = test.split_once(' ').expect("operator and operand");
    if fits(2, &format!("if ({cond}) {{")) {
        vec![format!("  if ({cond}) {{")]
    } else if fits(4, &cond) {
        vec!["  if (".into(), format!("    {cond}"), "  ) {".into()]
    } else if fits(4, &format!("out[{key}] {op}")) {
        vec![
            "  if (".into(),
            format!("    out[{key}] {op}"),
            format!("    {right}"),
            "  ) {".into(),
        ]
    } else {
        vec![
            "  if (".into(),
            "    out[".into(),
            format!("      {key}"),
            format!("    ] {test}"),
            "  ) {".into(),
        ]
    }
}

/// The text before an assignment's value, `    out[key] = ` on one line when the assignment
/// operator fits there, otherwise with the key on a line of its own as prettier breaks a
/// member access: the lines before, and the head of the line the value starts on.
fn assign_head(key: &str) -> (Vec<String>, String) {
    if fits(4, &format!("out[{key}] =")) {
        (Vec::new(), format!("    out[{key}] = "))
    } else {
        (
            vec!["    out[".into(), format!("      {key}")],
            "    ] = ".into(),
        )
    }
}

/// True when `text` fits on one line at `indent`.
pub(crate) fn fits(indent: usize, text: &str) -> bool {
    indent + text.chars().count() <= WIDTH
}

/// A string literal as prettier prints it (see [`escape::typescript::string`]).
pub(crate) fn str_lit(s: &str) -> String {
    escape::typescript::string(s).into()
}

/// A number literal as prettier prints it: in exponent notation where JavaScript writes one
/// (from 1e21 up, below 1e-6), shortest digits that read back the same.
pub(crate) fn num_lit(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else if x != 0.0 && (x.abs() >= 1e21 || x.abs() < 1e-6) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// An identifier that can be a property key without quotes: Unicode `XID_Start` (or `$`, `_`)
/// then `XID_Continue` (or `$`, ZWNJ, ZWJ), a subset of ECMAScript's identifier names.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| unicode_ident::is_xid_start(c) || c == '_' || c == '$')
        && chars.all(|c| {
            unicode_ident::is_xid_continue(c) || c == '$' || c == '\u{200c}' || c == '\u{200d}'
        })
}

/// A property key in an interface or object literal.
pub(crate) fn prop_key(name: &str) -> String {
    if is_ident(name) {
        name.to_string()
    } else {
        str_lit(name)
    }
}

/// A JSON value as a one-line TypeScript literal, as prettier prints short literals.
pub(crate) fn ts_literal(v: &Value) -> String {
    json_lit(v).flat()
}

/// A JSON value as a TypeScript literal, to be laid out.
pub(crate) fn json_lit(v: &Value) -> Lit {
    match v {
        Value::Null => Lit::Word("null".into()),
        Value::Bool(b) => Lit::Word(b.to_string()),
        Value::Number(n) => Lit::Num(match n.as_f64() {
            Some(f) if !(n.is_i64() || n.is_u64()) => num_lit(f),
            _ => n.to_string(),
        }),
        Value::String(s) => Lit::Str(str_lit(s)),
        Value::Array(a) => Lit::Array(a.iter().map(json_lit).collect()),
        Value::Object(o) => {
            Lit::Object(o.iter().map(|(k, v)| (prop_key(k), json_lit(v))).collect())
        }
    }
}

/// Doc text safe inside a `/** … */` or `//` comment, one entry per line (see
/// [`escape::typescript::doc`]).
pub(crate) fn doc_text(s: &str) -> Vec<Line> {
    escape::typescript::doc(s)
}

/// An `import` statement, on one line when it fits.
pub(crate) struct Import {
    pub type_only: bool,
    pub names: Vec<String>,
    pub from: String,
    pub inline: bool,
}

impl Import {
    pub(crate) fn new(type_only: bool, names: Vec<String>, from: &str) -> Self {
        let kw = if type_only { "import type" } else { "import" };
        let inline = fits(
            0,
            &format!("{kw} {{ {} }} from \"{from}\";", names.join(", ")),
        );
        Import {
            type_only,
            names,
            from: from.to_string(),
            inline,
        }
    }
}

#[derive(Template)]
#[template(path = "typescript/package.json.j2", escape = "none")]
struct PackageJson {
    /// Quoted JSON strings ([`crate::package::json_string`]).
    m: crate::package::Manifest,
    /// Some pattern runs on `re2js` (`crate::backend::pattern`).
    re2js: bool,
}

impl PackageJson {
    fn new(opts: &Options, ir: &Ir) -> Self {
        PackageJson {
            m: opts.package.manifest(Lang::TypeScript),
            re2js: ir.program.patterns.iter().any(|p| {
                crate::backend::pattern::plan(&p.source)
                    .linear(crate::backend::pattern::Dialect::Re2)
                    .is_some()
            }),
        }
    }
}

#[derive(Template)]
#[template(path = "typescript/tsconfig.json.j2", escape = "none")]
struct TsConfig;

#[derive(Template)]
#[template(path = "typescript/README.md.j2", escape = "none")]
struct Readme {
    name: String,
}

#[derive(Template)]
#[template(path = "typescript/runtime.ts.j2", escape = "none")]
struct Runtime {
    header: &'static str,
}

#[derive(Template)]
#[template(path = "typescript/index.ts.j2", escape = "none")]
struct Index {
    header: &'static str,
    modules: Vec<String>,
    helpers: bool,
    /// Helpers exported explicitly because a type module exports the same name.
    shadowing: Option<Import>,
}

#[derive(Template)]
#[template(path = "typescript/module.ts.j2", escape = "none")]
struct ModuleView {
    header: &'static str,
    file: String,
    doc: Option<Vec<Line>>,
    imports: Vec<Import>,
    types: Vec<TypeView>,
}

struct TypeView {
    name: String,
    doc: Option<Vec<Line>>,
    node: usize,
    /// The instance depth argument of the root node, if it takes one.
    depth: &'static str,
    kind: Kind,
    fill: Option<FillView>,
    validate_break: bool,
    is_break: bool,
    parse_break: bool,
    /// The type `parseX` returns: the name, or `X | NotObject` for a schema without `type`.
    parsed: String,
    throw_break: bool,
    throw_arg_break: bool,
}

enum Kind {
    /// An interface: its properties and the lines of its index signature.
    Interface {
        fields: Vec<FieldView>,
        index: Option<Vec<String>>,
    },
    /// A string enumeration: its type alias and its list of values, laid out.
    Enum {
        lines: Vec<String>,
        values_name: String,
        values: Vec<String>,
    },
    /// A type alias (also of a union), laid out.
    Alias { lines: Vec<String> },
}

struct FieldView {
    doc: Option<Vec<Line>>,
    /// The property signature, laid out.
    lines: Vec<String>,
}

struct FillView {
    name: String,
    sig_break: bool,
    fields: Vec<FillField>,
}

struct FillField {
    /// The wire name as a string literal.
    key: String,
    fill_fn: &'static str,
    /// `if (out[key] === undefined) {`, laid out.
    if_absent: Vec<String>,
    /// `if (out[key] !== undefined) {`, laid out.
    if_present: Vec<String>,
    call_inline: bool,
    /// The assignment of the default, laid out.
    default: Option<Vec<String>>,
    callee: Option<String>,
    callee_type: Option<TypeId>,
    nullable: bool,
    array: bool,
    map: bool,
}

/// The named types a type expression holds (every other part is assignable to `JsonValue`).
fn named_in_ty(t: &Ty, named: &mut Vec<TypeId>) {
    match t {
        Ty::Nullable(t) | Ty::Array(t) | Ty::Map(t) | Ty::Open(t, _) => named_in_ty(t, named),
        Ty::Named(id) => named.push(*id),
        _ => {}
    }
}

/// The runtime's JSON types that a type expression names, for the module's imports.
fn runtime_names(ty: &TExpr, out: &mut BTreeSet<&'static str>) {
    for name in ["JsonValue", "NotObject", "NotArray"] {
        if ty.has_atom(name) {
            out.insert(name);
        }
    }
}

/// Type constructors a property's type may nest before an index signature names it as a member
/// of its own rather than leaving it to `JsonValue` (see `index_type`).
const SHALLOW: usize = 16;

/// How many arrays, maps, nullables and open types nest in a type expression.
fn nesting(t: &Ty) -> usize {
    let mut n = 0;
    let mut t = t;
    while let Ty::Nullable(inner) | Ty::Array(inner) | Ty::Map(inner) | Ty::Open(inner, _) = t {
        n += 1;
        t = inner;
    }
    n
}
