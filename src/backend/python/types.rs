//! The model modules: pydantic v2 classes, aliases and entry points per schema file.

use super::*;
use crate::backend::escape::python::Docstring;

pub struct PyField {
    pub name: String,
    /// `: annotation = default`, laid out (what follows the name).
    pub decl: String,
    pub doc: Option<Docstring>,
}

pub struct PyClass {
    pub name: String,
    /// `(_rt.Model)`, laid out.
    pub bases: String,
    pub doc: Docstring,
    pub config: String,
    pub fields: Vec<PyField>,
    /// The annotation of `__pydantic_extra__` when extra properties are kept with a type.
    pub extra: Option<String>,
    pub node: NodeId,
}

pub struct PyAlias {
    pub name: String,
    /// The right-hand side, laid out (the arguments of `TypeAliasType` when `recursive`).
    pub value: String,
    pub doc: Docstring,
    /// On a cycle of aliases: defined with `TypeAliasType`.
    pub recursive: bool,
}

pub struct PyEntry {
    pub name: String,
    pub snake: String,
    pub node: NodeId,
    pub model: bool,
    pub adapter: String,
    /// `: TypeAdapter[X] = TypeAdapter(...)`, laid out.
    pub adapter_decl: String,
    /// The parameter list of `parse_x`, laid out.
    pub parse_params: String,
    /// The return annotation of `parse_x`, laid out.
    pub parse_returns: String,
    /// The parameter list of `validate_x`, laid out.
    pub validate_params: String,
    pub is_valid_params: String,
    /// `build` or `build_deep` (`adapt` or `adapt_deep`): whether a value may nest deeply enough
    /// to be built on a thread of its own (`Deferral::builds_deep`).
    pub build: &'static str,
    /// The arguments of `_rt.build`, laid out.
    pub build_args: String,
    /// The schema does not say `type` (`Ty::Open`): a valid value that is not an object is
    /// returned as it is.
    pub open: bool,
    /// The parameter list of `dump_x`, laid out.
    pub dump_params: String,
}

#[derive(Template)]
#[template(path = "python/module.py.j2", escape = "none")]
pub(super) struct ModuleTpl {
    header: &'static str,
    doc: Docstring,
    imports: Vec<String>,
    literals: Vec<PyAlias>,
    classes: Vec<PyClass>,
    aliases: Vec<PyAlias>,
    entries: Vec<PyEntry>,
    /// The package has a native accelerator: `validate_x`/`parse_x` name their node's number.
    native: bool,
}

pub(super) struct MBuilder<'a> {
    ir: &'a Ir,
    /// The struct each struct is emitted as (`shared_models`).
    canon: &'a [TypeId],
    names: Vec<String>,
    module_names: Vec<String>,
    module: usize,
    imports: BTreeMap<usize, BTreeSet<String>>,
    typing: BTreeSet<&'static str>,
    typing_extensions: BTreeSet<&'static str>,
    pydantic: BTreeSet<&'static str>,
    runtime: BTreeSet<&'static str>,
    /// Which references are deferred to their first use.
    deferral: &'a Deferral,
    /// The type whose definition is being written.
    owner: TypeId,
}

/// The direct checks of a node, following `$ref`s.
pub(super) fn flat_checks(ir: &Ir, node: NodeId, depth: usize) -> Vec<Check> {
    let mut out = Vec::new();
    for c in &ir.program.nodes[node].checks {
        match c {
            Check::Ref(n) if depth < 8 => out.extend(flat_checks(ir, *n, depth + 1)),
            c => out.push(c.clone()),
        }
    }
    out
}

/// Whether a field's default is a value of its Python annotation, used as is: a scalar, a
/// literal, a list or a dict of such, or a value of one variant of a union of them (not a
/// model, which would need constructing).
pub(super) fn default_fits(ir: &Ir, ty: &Ty, v: &Value, depth: usize) -> bool {
    match (ty, v) {
        (Ty::Any, _) | (Ty::Nullable(_) | Ty::Null, Value::Null) => true,
        (Ty::Nullable(t), v) => default_fits(ir, t, v, depth),
        (Ty::Bool, Value::Bool(_))
        | (Ty::Number, Value::Number(_))
        | (Ty::String, Value::String(_)) => true,
        (Ty::Integer | Ty::WideInteger, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Ty::Literal(l), Value::String(s)) => l == s,
        (Ty::Array(t), Value::Array(items)) => items.iter().all(|i| default_fits(ir, t, i, depth)),
        (Ty::Map(t), Value::Object(m)) => m.values().all(|i| default_fits(ir, t, i, depth)),
        (Ty::Open(t, kind), v) if kind.holds(v) => default_fits(ir, t, v, depth),
        (Ty::Open(..), _) => true,
        (Ty::Named(id), v) if depth < 16 => match &ir.types[*id].kind {
            TypeKind::Enum(values) => v.as_str().is_some_and(|s| values.iter().any(|x| x == s)),
            TypeKind::Alias(_) => default_fits(ir, &alias_ty(ir, *id), v, depth + 1),
            TypeKind::Union(u) => u
                .variants
                .iter()
                .any(|x| default_fits(ir, &x.ty, v, depth + 1)),
            TypeKind::Struct(_) => false,
        },
        _ => false,
    }
}

/// The type of an alias whose IR type names itself: read it from the node's `type`.
pub(super) fn alias_ty(ir: &Ir, id: TypeId) -> Ty {
    match &ir.types[id].kind {
        TypeKind::Alias(Ty::Named(n)) if *n == id => {
            let checks = flat_checks(ir, ir.types[id].node, 0);
            let ts: Vec<JsonType> = checks
                .iter()
                .find_map(|c| {
                    if let Check::Type(ts) = c {
                        Some(ts.clone())
                    } else {
                        None
                    }
                })
                .unwrap_or_default();
            let base: Vec<&JsonType> = ts.iter().filter(|t| **t != JsonType::Null).collect();
            let ty = match base.as_slice() {
                [JsonType::String] => Ty::String,
                [JsonType::Integer] => Ty::Integer,
                [JsonType::Number]
                | [JsonType::Number, JsonType::Integer]
                | [JsonType::Integer, JsonType::Number] => Ty::Number,
                [JsonType::Boolean] => Ty::Bool,
                [JsonType::Array] => Ty::Array(Box::new(Ty::Any)),
                [JsonType::Object] => Ty::Map(Box::new(Ty::Any)),
                _ => Ty::Any,
            };
            if ts.contains(&JsonType::Null) && ty != Ty::Any {
                ty.nullable()
            } else {
                ty
            }
        }
        TypeKind::Alias(t) => t.clone(),
        _ => Ty::Any,
    }
}

impl<'a> MBuilder<'a> {
    fn ann(&mut self, ty: &Ty) -> String {
        match ty {
            Ty::Any => {
                self.typing.insert("Any");
                "Any".into()
            }
            Ty::Bool => "bool".into(),
            Ty::Integer | Ty::WideInteger => {
                self.runtime.insert("JsonInt");
                "JsonInt".into()
            }
            Ty::Number => "float".into(),
            Ty::String => "str".into(),
            Ty::Null => "None".into(),
            Ty::Literal(s) => {
                self.typing.insert("Literal");
                format!("Literal[{}]", lit::string(s))
            }
            Ty::Nullable(t) if self.deferral.is_null(t) => "None".into(),
            Ty::Nullable(t) => format!("{} | None", self.part(t)),
            Ty::Named(id) if self.deferral.is_null(&Ty::Named(*id)) => "None".into(),
            Ty::Array(t) => format!("list[{}]", self.part(t)),
            Ty::Map(t) => format!("dict[str, {}]", self.part(t)),
            Ty::Named(id) if self.deferral.cycle(self.ir, self.owner, *id) => {
                let name = self.named(*id);
                self.deferred(name)
            }
            Ty::Named(id) if self.deferral.hop(self.ir, self.owner, *id) => {
                let name = self.named(*id);
                self.typing.insert("Annotated");
                format!("Annotated[{name}, _rt.HOP]")
            }
            Ty::Named(id) => self.named(*id),
            Ty::Open(_, JsonKind::String) => {
                self.typing.insert("Any");
                "Any".into()
            }
            // Unambiguous for pydantic: no member of the other part accepts the kind.
            Ty::Open(t, kind) => {
                let other = match kind {
                    JsonKind::Object => "_rt.NotObject",
                    _ => "_rt.NotArray",
                };
                format!("{} | {other}", self.part(t))
            }
        }
    }

    /// The name of a type, imported from its module when that is another.
    fn named(&mut self, id: TypeId) -> String {
        let m = self.ir.types[id].module;
        // Modules whose types share one file are imported once, by their first.
        let m = (0..=m)
            .find(|o| self.module_names[*o] == self.module_names[m])
            .unwrap_or(m);
        if self.module_names[m] != self.module_names[self.module] {
            self.imports
                .entry(m)
                .or_default()
                .insert(self.names[id].clone());
        }
        self.names[id].clone()
    }

    /// The annotation of a part of a type: deferred when pydantic would descend too deep
    /// into it (`Deferral`).
    fn part(&mut self, ty: &Ty) -> String {
        let ann = self.ann(ty);
        let cost = self.deferral.ty_cost(self.ir, self.owner, ty);
        if self.deferral.too_deep(cost) {
            self.deferred(ann)
        } else {
            ann
        }
    }

    /// `Annotated[ann, _rt.DEFERRED]`: the same type, built by pydantic on first use.
    fn deferred(&mut self, ann: String) -> String {
        self.typing.insert("Annotated");
        format!("Annotated[{ann}, _rt.DEFERRED]")
    }

    /// The annotation of a field's type, with its structure.
    fn ann_shape(&mut self, ty: &Ty) -> AnnShape {
        match ty {
            Ty::Nullable(t) if self.deferral.is_null(t) => AnnShape::Atom("None".into()),
            Ty::Nullable(t) => AnnShape::Union(vec![self.part(t), "None".into()]),
            Ty::Array(t) => AnnShape::Sub("list", vec![self.part(t)]),
            Ty::Map(t) => AnnShape::Sub("dict", vec!["str".into(), self.part(t)]),
            Ty::Literal(l) => {
                self.typing.insert("Literal");
                AnnShape::Sub("Literal", vec![lit::string(l)])
            }
            t => AnnShape::Atom(self.part(t)),
        }
    }

    /// Pydantic constraints that agree exactly with the validator, for a value of type `ty`
    /// checked by `node`.
    fn constraints(&self, ty: &Ty, node: NodeId) -> Vec<String> {
        let mut out = Vec::new();
        let own: Vec<Check> = self.ir.program.nodes[node].checks.clone();
        for c in own {
            match (ty, c) {
                (Ty::String, Check::MinLength(n)) => out.push(format!("min_length={n}")),
                (Ty::String, Check::MaxLength(n)) => out.push(format!("max_length={n}")),
                (Ty::String, Check::Pattern(p)) => {
                    let src = translate_pattern(&self.ir.program.patterns[p].source);
                    // pydantic anchors python-re patterns with `match`; equal to `search` only
                    // when the pattern itself starts at `^` with no alternation at top level.
                    // Property escapes need the `regex` module (the runtime's `Pattern`); pydantic
                    // compiles with `re` when the class is defined.
                    let re_only = !src.contains("\\p{") && !src.contains("\\P{");
                    // Only where backtracking is proven linear: pydantic runs `re`.
                    let linear = crate::backend::pattern::plan(&self.ir.program.patterns[p].source)
                        == crate::backend::pattern::Plan::Backtracking;
                    if linear && re_only && src.starts_with('^') && !top_level_alternation(&src) {
                        out.push(format!("pattern={}", lit::regex(&src)));
                    }
                }
                // An integer beyond 2^53 compares with a bound as its double does
                // (docs/validation.md); pydantic compares it exactly: such a bound is left to
                // the validator.
                (
                    _,
                    Check::Minimum(b)
                    | Check::Maximum(b)
                    | Check::ExclusiveMinimum(b)
                    | Check::ExclusiveMaximum(b),
                ) if b.abs() >= 9_007_199_254_740_992.0 => {}
                // pydantic takes only integer bounds for `int`: the nearest integer that keeps
                // the same integers in (`minimum: 0.5` is `ge=1`, `exclusiveMaximum: 2.5` is `lt=3`).
                (Ty::Integer | Ty::WideInteger, Check::Minimum(b)) => {
                    out.extend(lit::int_bound(b.ceil()).map(|b| format!("ge={b}")))
                }
                (Ty::Integer | Ty::WideInteger, Check::Maximum(b)) => {
                    out.extend(lit::int_bound(b.floor()).map(|b| format!("le={b}")))
                }
                (Ty::Integer | Ty::WideInteger, Check::ExclusiveMinimum(b)) => {
                    out.extend(lit::int_bound(b.floor()).map(|b| format!("gt={b}")))
                }
                (Ty::Integer | Ty::WideInteger, Check::ExclusiveMaximum(b)) => {
                    out.extend(lit::int_bound(b.ceil()).map(|b| format!("lt={b}")))
                }
                (Ty::Number, Check::Minimum(b)) => out.push(format!("ge={}", lit::bound(b))),
                (Ty::Number, Check::Maximum(b)) => out.push(format!("le={}", lit::bound(b))),
                (Ty::Number, Check::ExclusiveMinimum(b)) => {
                    out.push(format!("gt={}", lit::bound(b)))
                }
                (Ty::Number, Check::ExclusiveMaximum(b)) => {
                    out.push(format!("lt={}", lit::bound(b)))
                }
                (Ty::Array(_), Check::MinItems(n)) => out.push(format!("min_length={n}")),
                (Ty::Array(_), Check::MaxItems(n)) => out.push(format!("max_length={n}")),
                _ => {}
            }
        }
        out
    }

    fn class(&mut self, id: TypeId, s: &crate::ir::Struct) -> PyClass {
        self.owner = id;
        let t = &self.ir.types[id];
        let wires: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
        let fnames = names::field_names(Lang::Python, &wires);
        let props: HashMap<String, NodeId> = flat_checks(self.ir, t.node, 0)
            .into_iter()
            .filter_map(|c| {
                if let Check::Properties(ps) = c {
                    Some(ps)
                } else {
                    None
                }
            })
            .flatten()
            .collect();
        let mut fields = Vec::new();
        for (f, name) in s.fields.iter().zip(fnames) {
            let mut ann = self.ann_shape(&f.ty);
            let mut args: Vec<FieldArg> = Vec::new();
            let fitting = f
                .default
                .as_ref()
                .filter(|v| default_fits(self.ir, &f.ty, v, 0));
            let default = match (fitting, f.required) {
                (Some(Value::Null), _) | (None, false) => {
                    if !matches!(f.ty, Ty::Nullable(_) | Ty::Any) && !self.deferral.is_null(&f.ty) {
                        ann = AnnShape::Union(vec![ann.flat(), "None".into()]);
                    }
                    Some(Value::Null)
                }
                (Some(v), _) => Some(v.clone()),
                (None, true) => None,
            };
            let cons = match props.get(&f.wire) {
                Some(n) => self.constraints(&f.ty, *n),
                None => vec![],
            };
            let complex_default = matches!(fitting, Some(Value::Array(_)) | Some(Value::Object(_)));
            if name != f.wire {
                args.push(FieldArg::text(format!("alias={}", lit::string(&f.wire))));
            }
            args.extend(cons.into_iter().map(FieldArg::text));
            let value = if args.is_empty() && !complex_default {
                default.map(|d| Rhs::Atom(lit::flat(&d)))
            } else {
                self.pydantic.insert("Field");
                let mut all = Vec::new();
                if let Some(d) = default {
                    all.push(FieldArg {
                        text: format!("default={}", lit::flat(&d)),
                        default: Some(d),
                    });
                    if complex_default {
                        all.push(FieldArg::text("validate_default=True".into()));
                    }
                }
                all.extend(args);
                Some(Rhs::field(all))
            };
            let decl = assignment(4, &name, &ann, value.as_ref());
            let doc = f
                .doc
                .as_deref()
                .filter(|d| !d.trim().is_empty())
                .map(|d| docstring(d, 4));
            fields.push(PyField { name, decl, doc });
        }
        let extra_policy = if s.deny_unknown {
            "forbid"
        } else if s.extra.is_some() {
            "allow"
        } else {
            "ignore"
        };
        let extra = s
            .extra
            .as_ref()
            .map(|e| format!("dict[str, {}]", self.ann(e)));
        let name = self.names[id].clone();
        let doc = docstring(&type_doc(t), 4);
        let bases = lit::args(&["_rt.Model".to_string()], "(", ")", 0, 6 + name.len(), 1);
        PyClass {
            name,
            bases,
            doc,
            config: extra_policy.to_string(),
            fields,
            extra,
            node: t.node,
        }
    }
}

impl MBuilder<'_> {
    /// `a | b | …` starting after `lead` characters on a line indented by `indent` and
    /// followed by `tail` characters, laid out as `ruff format` does when it does not fit:
    /// one operand per line (`| b`), in parentheses on the right-hand side of an assignment
    /// (`top`), as is inside brackets.
    fn union_of(
        &self,
        anns: &[String],
        top: bool,
        indent: usize,
        lead: usize,
        tail: usize,
    ) -> String {
        let joined = anns.join(" | ");
        if anns.len() < 2 {
            return self.wrapped(joined, top, indent, lead, tail);
        }
        if lead + joined.chars().count() + tail <= lit::WIDTH {
            return joined;
        }
        let pad = " ".repeat(indent + 4);
        if top && indent + 4 + joined.chars().count() <= lit::WIDTH {
            return format!("(\n{pad}{joined}\n{})", " ".repeat(indent));
        }
        let (line, close) = if top {
            (indent + 4, format!("\n{})", " ".repeat(indent)))
        } else {
            (indent, String::new())
        };
        let pad = " ".repeat(line);
        let open = if top {
            format!("(\n{pad}")
        } else {
            String::new()
        };
        let anns: Vec<String> = anns
            .iter()
            .enumerate()
            .map(|(i, a)| union_operand(a, line, line + if i == 0 { 0 } else { 2 }))
            .collect();
        format!("{open}{}{close}", anns.join(&format!("\n{pad}| ")))
    }

    /// A value that does not fit after `lead`: in parentheses on the right-hand side of an
    /// assignment, as `ruff format` does (a subscript such as `list[…]` breaks inside its
    /// brackets instead).
    fn wrapped(&self, value: String, top: bool, indent: usize, lead: usize, tail: usize) -> String {
        if !top || value.contains('\n') || lead + value.chars().count() + tail <= lit::WIDTH {
            return value;
        }
        // Parentheses help only when `= (` fits.
        if subscript(&value).is_none() && lead + 1 > lit::WIDTH {
            return value;
        }
        let pad = " ".repeat(indent + 4);
        match subscript(&value) {
            Some((head, inner)) => broken_subscript(head, inner, indent),
            None => format!("(\n{pad}{value}\n{})", " ".repeat(indent)),
        }
    }

    /// The right-hand side of a union or alias type, laid out from column `lead` on a line
    /// indented by `indent`, followed by `tail` characters; on one line when `flat`.
    fn alias_value(
        &mut self,
        id: TypeId,
        flat: bool,
        indent: usize,
        lead: usize,
        tail: usize,
    ) -> String {
        let ir = self.ir;
        match &ir.types[id].kind {
            TypeKind::Union(u) if choice_nodes(ir, id).is_some() => {
                // Through the runtime: a schema may well define a type named `Tag`.
                self.typing.insert("Annotated");
                let members: Vec<String> = u
                    .variants
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let ann = match &v.ty {
                            Ty::Nullable(_) => self.ann(&v.ty),
                            t => self.part(t),
                        };
                        format!("Annotated[{ann}, _rt.Tag(\"{i}\")]")
                    })
                    .collect();
                let field = format!("_rt.Discriminator(_rt.choice(_v._u{id}))");
                let one = format!("Annotated[{}, {field}]", members.join(" | "));
                if flat || lead + one.chars().count() + tail <= lit::WIDTH {
                    return one;
                }
                let union = self.union_of(&members, false, indent + 4, indent + 4, 1);
                lit::args(&[union, field], "Annotated[", "]", indent, lead, tail)
            }
            TypeKind::Union(u) => {
                let mut anns = Vec::new();
                // Parts of a union that is not discriminated are deferred where pydantic
                // would descend too deep (`Deferral`); a discriminated one names its classes.
                let tagged = u.tags.len() == 1;
                for v in &u.variants {
                    // `X | None` and `None` are one `None` member.
                    let (t, null) = match &v.ty {
                        Ty::Nullable(t) => (&**t, true),
                        t => (t, false),
                    };
                    anns.push(if tagged { self.ann(t) } else { self.part(t) });
                    if null {
                        anns.push("None".to_string());
                    }
                }
                let anns = merge_literals(distinct(anns));
                let joined = anns.join(" | ");
                match self.discriminator(u) {
                    // One variant needs no discriminator (and pydantic takes it for a model).
                    Some(field) if anns.len() > 1 => {
                        self.typing.insert("Annotated");
                        self.pydantic.insert("Field");
                        let field = format!("Field(discriminator={})", lit::string(&field));
                        let one = format!("Annotated[{joined}, {field}]");
                        if flat || lead + one.chars().count() + tail <= lit::WIDTH {
                            return one;
                        }
                        let union = self.union_of(&anns, false, indent + 4, indent + 4, 1);
                        lit::args(&[union, field], "Annotated[", "]", indent, lead, tail)
                    }
                    _ if flat => joined,
                    _ => self.union_of(&anns, true, indent, lead, tail),
                }
            }
            TypeKind::Alias(_) => {
                let ty = alias_ty(ir, id);
                let value = self.ann(&ty);
                let cons = self.constraints(&ty, ir.types[id].node);
                if cons.is_empty() {
                    if flat {
                        return value;
                    }
                    return match &ty {
                        Ty::Nullable(t) if !self.deferral.is_null(t) => {
                            let inner = self.ann(t);
                            self.union_of(&[inner, "None".into()], true, indent, lead, tail)
                        }
                        _ => self.wrapped(value, true, indent, lead, tail),
                    };
                }
                self.typing.insert("Annotated");
                self.pydantic.insert("Field");
                let field = Rhs::field(cons.into_iter().map(FieldArg::text).collect());
                let mut items = [value, field.flat()];
                if flat {
                    return format!("Annotated[{}]", items.join(", "));
                }
                // `Field(…)` too long for its own line breaks its arguments.
                if indent + 4 + items[1].chars().count() + 1 > lit::WIDTH {
                    items[1] = field.broken(indent + 4);
                }
                lit::args(&items, "Annotated[", "]", indent, lead, tail)
            }
            TypeKind::Struct(_) => {
                let value = self.ann(&Ty::Named(self.canon[id]));
                if flat {
                    return value;
                }
                self.wrapped(value, true, indent, lead, tail)
            }
            TypeKind::Enum(_) => self.names[id].clone(),
        }
    }

    /// The Python field of the tag property of a union with one tag, if it has one.
    fn discriminator(&self, u: &crate::ir::Union) -> Option<String> {
        let [tag] = u.tags.as_slice() else {
            return None;
        };
        u.variants.iter().find_map(|v| match &v.ty {
            Ty::Named(n) => match &self.ir.types[*n].kind {
                TypeKind::Struct(s) => {
                    let wires: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
                    let fnames = names::field_names(Lang::Python, &wires);
                    s.fields
                        .iter()
                        .position(|f| &f.wire == tag)
                        .map(|i| fnames[i].clone())
                }
                _ => None,
            },
            _ => None,
        })
    }

    /// The definition of a union or alias type. A type on a cycle of aliases is a
    /// `TypeAliasType` (a plain alias cannot name itself at run time) whose value is a string:
    /// pydantic and mypy read it lazily, after every name in it is defined.
    fn alias(&mut self, id: TypeId, recursive: bool, doc: Docstring) -> PyAlias {
        self.owner = id;
        let name = self.names[id].clone();
        if !recursive {
            let lead = name.chars().count() + 14;
            let mut value = self.alias_value(id, false, 0, lead, 0);
            // A value whose first line does not fit after `Name: TypeAlias = ` goes in
            // parentheses on lines of its own, as `ruff format` puts it.
            let first = value.lines().next().unwrap_or_default().chars().count();
            if value.contains('\n')
                && lead + first > lit::WIDTH
                && lead < lit::WIDTH
                && !value.starts_with('(')
            {
                let inner = format!("(\n    {}\n)", self.alias_value(id, false, 4, 4, 0));
                if inner.lines().all(|l| l.chars().count() <= lit::WIDTH) {
                    value = inner;
                }
            }
            return PyAlias {
                name,
                value,
                doc,
                recursive,
            };
        }
        self.typing_extensions.insert("TypeAliasType");
        let label = lit::string(&name);
        let value = lit::string(&self.alias_value(id, true, 0, 0, 0));
        // `Name = TypeAliasType("Name", "…")`, else both arguments on one indented line, else
        // one per line, as `ruff format` lays out a call.
        let args = format!("{label}, {value}");
        let width = args.chars().count();
        let value = if name.len() + 17 + width < lit::WIDTH {
            format!("({args})")
        } else if 4 + width <= lit::WIDTH {
            format!("(\n    {args}\n)")
        } else {
            format!("(\n    {label},\n    {value},\n)")
        };
        PyAlias {
            name,
            value,
            doc,
            recursive,
        }
    }
}

/// Ends a rendered file with exactly one newline.
pub(super) fn eol(mut s: String) -> String {
    let n = s.trim_end().len();
    s.truncate(n);
    s.push('\n');
    s
}

pub(super) fn render_module(
    ir: &Ir,
    canon: &[TypeId],
    deferral: &Deferral,
    names: &[String],
    module_names: &[String],
    members: &[usize],
    native: bool,
) -> Result<String> {
    let m = members[0];
    let module = &ir.modules[m];
    let mut b = MBuilder {
        ir,
        canon,
        names: names.to_vec(),
        module_names: module_names.to_vec(),
        module: m,
        imports: BTreeMap::new(),
        typing: BTreeSet::new(),
        typing_extensions: BTreeSet::new(),
        pydantic: BTreeSet::new(),
        runtime: BTreeSet::new(),
        deferral,
        owner: 0,
    };
    b.typing.insert("Any");
    let mut literals = Vec::new();
    let mut classes = Vec::new();
    let mut alias_ids = Vec::new();
    let mut alias_docs = Vec::new();
    let mut entries = Vec::new();
    let ids: Vec<TypeId> = members
        .iter()
        .flat_map(|m| ir.modules[*m].types.iter().copied())
        .collect();
    // Classes come after the classes they name, so that each is complete once defined.
    for i in definition_order(ir, canon, &ids) {
        let id = ids[i];
        if let TypeKind::Struct(s) = &ir.types[id].kind {
            if canon[id] == id {
                classes.push(b.class(id, s));
            }
        }
    }
    for &id in &ids {
        let t = &ir.types[id];
        let name = names[id].clone();
        let doc = docstring(&type_doc(t), 0);
        match &t.kind {
            TypeKind::Struct(_) if canon[id] == id => {}
            TypeKind::Enum(values) => {
                b.typing.insert("Literal");
                let items: Vec<String> = values.iter().map(|v| lit::string(v)).collect();
                let args = items.into_iter().map(FieldArg::text).collect();
                let rhs = Rhs::Call {
                    callee: "Literal".into(),
                    open: "[",
                    close: "]",
                    args,
                };
                let decl = assignment(0, &name, &AnnShape::Atom("TypeAlias".into()), Some(&rhs));
                let value = decl.trim_start_matches(": TypeAlias = ").to_string();
                literals.push(PyAlias {
                    name: name.clone(),
                    value,
                    doc,
                    recursive: false,
                });
            }
            TypeKind::Struct(_) | TypeKind::Union(_) | TypeKind::Alias(_) => {
                alias_ids.push(id);
                alias_docs.push(doc);
            }
        }
        // A model class, or another name for one: built by the class itself (not when the
        // name is a lazy `TypeAliasType`, which is no class: an adapter builds it).
        let model = names_model_class(ir, id)
            && !(matches!(ir.types[id].kind, TypeKind::Alias(_)) && deferral.lazy(ir, id));
        let snake = names::field_name(Lang::Python, &name)
            .trim_end_matches('_')
            .to_string();
        let adapter = format!("_A{id}");
        let mut call = vec![name.clone()];
        if !is_model(ir, id) {
            call.push("config=_rt.ADAPTER_CONFIG".into());
        }
        let rhs = Rhs::Call {
            callee: "TypeAdapter".into(),
            open: "(",
            close: ")",
            args: call.into_iter().map(FieldArg::text).collect(),
        };
        let adapter_decl = assignment(
            0,
            &adapter,
            &AnnShape::Sub("TypeAdapter", vec![name.clone()]),
            Some(&rhs),
        );
        let open = model && t.open == Some(JsonKind::Object);
        let ret = if open {
            format!("{name} | _rt.NotObject")
        } else {
            name.clone()
        };
        let sig = format!("def parse_{snake}(data: Any) -> {ret}:");
        let params = |sig: String| {
            if sig.len() <= lit::WIDTH {
                "(data: Any)".to_string()
            } else {
                "(\n    data: Any,\n)".to_string()
            }
        };
        let parse_params = params(sig);
        // `) -> Name:` too long for its line: the annotation in parentheses.
        let parse_returns = if parse_params.contains('\n')
            && 5 + ret.len() + 1 > lit::WIDTH
            && 4 + ret.len() <= lit::WIDTH
        {
            format!("(\n    {ret}\n)")
        } else {
            ret.clone()
        };
        let dump_sig = format!("def dump_{snake}(value: {ret}) -> Any:");
        let dump_params = if dump_sig.len() <= lit::WIDTH {
            format!("(value: {ret})")
        } else {
            format!("(\n    value: {ret},\n)")
        };
        let validate_params = params(format!(
            "def validate_{snake}(data: Any) -> list[Violation]:"
        ));
        let is_valid_params = params(format!("def is_valid_{snake}(data: Any) -> bool:"));
        let deep = deferral.builds_deep(id);
        let build = match (model, deep) {
            (true, false) => "build",
            (true, true) => "build_deep",
            (false, false) => "adapt",
            (false, true) => "adapt_deep",
        };
        let build_args = lit::args(
            &[name.clone(), "data".into()],
            "(",
            ")",
            4,
            "return _rt.".len() + build.len(),
            0,
        );
        entries.push(PyEntry {
            build,
            build_args,
            adapter,
            adapter_decl,
            parse_params,
            dump_params,
            parse_returns,
            validate_params,
            is_valid_params,
            open,
            name,
            snake,
            node: t.node,
            model,
        });
    }
    // Aliases referring to other aliases of this module come after them.
    let order = topo(ir, &alias_ids);
    let cyclic = cyclic(ir, &alias_ids);
    let mut aliases_sorted = Vec::new();
    let mut docs: Vec<Option<Docstring>> = alias_docs.into_iter().map(Some).collect();
    for i in order {
        let doc = docs[i].take().unwrap_or_default();
        let lazy = cyclic[i] || deferral.lazy(ir, alias_ids[i]);
        aliases_sorted.push(b.alias(alias_ids[i], lazy, doc));
    }
    b.runtime.insert("Violation");
    if !literals.is_empty() || aliases_sorted.iter().any(|a| !a.recursive) {
        b.typing.insert("TypeAlias");
    }
    if entries.iter().any(|e| !e.model) {
        b.pydantic.insert("TypeAdapter");
    }
    if !classes.is_empty() {
        b.pydantic.insert("ConfigDict");
        b.pydantic.insert("ValidationInfo");
        b.pydantic.insert("model_validator");
    }
    let strs = |set: &BTreeSet<&'static str>| {
        let mut v = set.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        sort_imports(&mut v);
        v
    };
    let mut imports = vec![lit::import("typing", &strs(&b.typing))];
    // The third-party group; a module of aliases alone needs nothing from pydantic.
    let third_party: Vec<String> = [
        ("pydantic", &b.pydantic),
        ("typing_extensions", &b.typing_extensions),
    ]
    .into_iter()
    .filter(|(_, names)| !names.is_empty())
    .map(|(module, names)| lit::import(module, &strs(names)))
    .collect();
    if !third_party.is_empty() {
        imports.push(String::new());
        imports.extend(third_party);
    }
    imports.extend([
        String::new(),
        "from . import _runtime as _rt".to_string(),
        "from . import _validators as _v".to_string(),
    ]);
    // Relative imports sorted by module, as isort does (a shared `._x_cycle` module before
    // `._runtime`, which comes before the schema modules).
    let mut relative = vec![("_runtime".to_string(), strs(&b.runtime))];
    for (m, ns) in &b.imports {
        let mut ns = ns.iter().cloned().collect::<Vec<_>>();
        sort_imports(&mut ns);
        relative.push((b.module_names[*m].clone(), ns));
    }
    relative.sort();
    for (module, ns) in relative {
        imports.push(lit::import(&format!(".{module}"), &ns));
    }
    if ids.is_empty() {
        // A file with only an empty `$defs`: a module with its docstring alone.
        imports.clear();
    }
    let text = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
    let doc = docstring(
        &match (&text(&module.title), &text(&module.doc)) {
            _ if members.len() > 1 => format!(
                "Types of {}, which refer to each other (each of them re-exports its own).",
                members
                    .iter()
                    .map(|m| format!("`{}`", ir.modules[*m].rel))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (Some(t), Some(d)) => format!("{t}\n\n{d}"),
            (Some(t), None) => t.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) => format!("Types of `{}`.", module.rel),
        },
        0,
    );
    let tpl = ModuleTpl {
        header: GENERATED,
        doc,
        imports,
        literals,
        classes,
        aliases: aliases_sorted,
        entries,
        native,
    };
    run("python/module.py.j2", &tpl).map(eol)
}
