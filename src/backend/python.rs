//! Python backend: IR → template context for `templates/python/`.
//!
//! The generated package has two layers:
//!
//! * `_validators.py`: one function per node of the validation program, run on the raw JSON
//!   value with `_runtime.py` (docs/validation.md). This is the **only** verdict engine.
//! * one module per schema file with pydantic v2 models (strict, aliases, `extra` policy,
//!   discriminated unions), `validate_x(data) -> list[Violation]` and `parse_x(data) -> X`.
//!
//! Deviation from "map pydantic's errors": pydantic cannot express every keyword the schemas
//! use (`if`/`then`/`else`, `x-max-words`, `anyOf`/`oneOf` reported as one error, `required`
//! reported at the object, ECMA-262 patterns, RFC 3339 formats, `multipleOf` with the shared
//! tolerance), and its error locations and types do not map one-to-one onto (pointer,
//! keyword) pairs. Mapping its errors would make Python disagree with Rust and TypeScript. So
//! the exact verdict always comes from the generated validator functions, which implement the
//! same program as the other languages; the models are a sound over-approximation filled only
//! after validation (`parse_x`), and each model's `model_validator(mode="before")` runs the
//! same validator when a model is validated directly, so `X.model_validate(bad)` also fails
//! exactly when `validate_x(bad)` reports violations. Pydantic `Field` constraints are only
//! emitted where pydantic agrees exactly with the validator (code-point lengths, anchored
//! patterns with `regex_engine="python-re"`, numeric bounds, list lengths).
//!
//! Copies of a struct that contain one another are one model class (`shared_models`): their
//! other names are aliases of it, `parse_x` and `validate_x` still check each copy's own
//! schema, and `X.model_validate` checks the class's schema.

mod lit;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use askama::Template;
use serde_json::Value;

use super::{run, Files, Options, GENERATED};
use crate::error::Result;
use crate::ir::names::{self, Lang};
use crate::ir::{Check, Format, Ir, JsonType, NodeId, Ty, TypeId, TypeKind};

pub use lit::translate_pattern;

// ---------------------------------------------------------------------------------------------
// Validators

/// One check, with every Python literal it needs already computed.
pub enum PyCheck {
    False,
    /// The Python test of the JSON types (`isinstance(v, (str, list)) or v is None`),
    /// parenthesized when it has several terms.
    Type {
        test: String,
        name: String,
    },
    ConstStr {
        lit: String,
    },
    Const {
        name: String,
    },
    EnumStr {
        name: String,
    },
    Enum {
        name: String,
    },
    MinLength(u64),
    MaxLength(u64),
    Pattern {
        name: String,
    },
    Format {
        func: &'static str,
        lit: String,
    },
    MaxWords(u64),
    Bound {
        op: &'static str,
        keyword: &'static str,
        lit: String,
    },
    MultipleOf {
        lit: String,
    },
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    PrefixItem {
        index: usize,
        node: NodeId,
    },
    Items {
        from: usize,
        node: NodeId,
    },
    NoItems {
        from: usize,
        keyword: &'static str,
    },
    Contains {
        node: NodeId,
        min: u64,
        max: Option<u64>,
    },
    Properties {
        table: String,
    },
    PatternProperties {
        table: String,
    },
    AdditionalProperties {
        known: String,
        patterns: String,
        node: NodeId,
    },
    NoAdditionalProperties {
        known: String,
        patterns: String,
    },
    Required {
        table: String,
    },
    MinProperties(u64),
    MaxProperties(u64),
    PropertyNames {
        node: NodeId,
    },
    DependentRequired {
        table: String,
    },
    DependentSchemas {
        table: String,
    },
    Ref {
        node: NodeId,
    },
    /// `table` names a tuple of the branch functions when the calls do not fit on one line.
    AnyOf {
        nodes: Vec<NodeId>,
        table: Option<String>,
    },
    OneOf {
        nodes: Vec<NodeId>,
        table: Option<String>,
    },
    Not {
        node: NodeId,
    },
    IfThenElse {
        cond: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
}

pub struct PyNode {
    pub id: NodeId,
    pub origin: String,
    pub generic: Vec<PyCheck>,
    pub strings: Vec<PyCheck>,
    pub numbers: Vec<PyCheck>,
    pub arrays: Vec<PyCheck>,
    pub objects: Vec<PyCheck>,
}

impl PyCheck {
    /// Whether the check reports a violation of its own (with `_fail`), not only through
    /// the validators it calls.
    fn reports(&self) -> bool {
        !matches!(
            self,
            PyCheck::Ref { .. }
                | PyCheck::PrefixItem { .. }
                | PyCheck::Items { .. }
                | PyCheck::Properties { .. }
                | PyCheck::PatternProperties { .. }
                | PyCheck::AdditionalProperties { .. }
                | PyCheck::DependentSchemas { .. }
                | PyCheck::IfThenElse { .. }
        )
    }

    /// A check that is one condition and one violation.
    fn simple(&self) -> bool {
        matches!(
            self,
            PyCheck::MinLength(_)
                | PyCheck::MaxLength(_)
                | PyCheck::Pattern { .. }
                | PyCheck::Format { .. }
                | PyCheck::MaxWords(_)
                | PyCheck::Bound { .. }
                | PyCheck::MultipleOf { .. }
                | PyCheck::MinItems(_)
                | PyCheck::MaxItems(_)
                | PyCheck::UniqueItems
                | PyCheck::MinProperties(_)
                | PyCheck::MaxProperties(_)
                | PyCheck::NoAdditionalProperties { .. }
        )
    }
}

impl PyNode {
    /// The checks that apply to one JSON type, with the test of that type.
    fn groups(&self) -> Vec<(&'static str, &Vec<PyCheck>)> {
        [
            ("isinstance(v, str)", &self.strings),
            ("type(v) in _NUM", &self.numbers),
            ("isinstance(v, list)", &self.arrays),
            ("isinstance(v, dict)", &self.objects),
        ]
        .into_iter()
        .filter(|(_, g)| !g.is_empty())
        .collect()
    }

    /// A group whose only check is one prefix item, as one `if` (ruff's SIM102) when that
    /// fits on its line: the condition after `if `.
    fn single_prefix(&self, guard: &str, group: &[PyCheck]) -> Option<String> {
        let [PyCheck::PrefixItem { index, node }] = group else {
            return None;
        };
        let cond = format!(
            "{guard} and len(v) > {index} and not _n{node}(v[{index}], p + \"/{index}\", out)"
        );
        (4 + 3 + cond.len() < lit::WIDTH).then_some(cond)
    }

    fn empty(&self) -> bool {
        self.generic.is_empty()
            && self.strings.is_empty()
            && self.numbers.is_empty()
            && self.arrays.is_empty()
            && self.objects.is_empty()
    }
}

/// A module-level constant: `name = value`, or `name: ann = value`.
pub struct PyConst {
    pub name: String,
    pub value: String,
    pub ann: Option<String>,
}

#[derive(Template)]
#[template(path = "python/validators.py.j2", escape = "none")]
struct ValidatorsTpl<'a> {
    header: &'a str,
    patterns: Vec<PyConst>,
    consts: Vec<PyConst>,
    nodes: Vec<PyNode>,
    tables: Vec<PyConst>,
    /// Whether a constant is annotated with pydantic's `JsonValue`.
    json_value: bool,
    /// Whether a check reports a violation (`fail` is imported).
    fails: bool,
}

/// Builds the validator context; patterns, enum sets and lookup tables become named constants.
struct VBuilder<'a> {
    ir: &'a Ir,
    consts: Vec<PyConst>,
    tables: Vec<PyConst>,
}

impl<'a> VBuilder<'a> {
    fn trivial(&self, n: NodeId) -> bool {
        self.ir.program.nodes[n].is_trivial()
    }

    fn constant(
        &mut self,
        prefix: &str,
        id: NodeId,
        value: impl FnOnce(usize) -> String,
    ) -> String {
        self.typed_constant(prefix, id, None, value)
    }

    /// A constant with an annotation, for JSON values mypy cannot type from the literal alone
    /// (`[]`, `[[], {}]`).
    fn typed_constant(
        &mut self,
        prefix: &str,
        id: NodeId,
        ann: Option<&str>,
        value: impl FnOnce(usize) -> String,
    ) -> String {
        let name = format!(
            "_{prefix}{id}_{}",
            self.consts
                .iter()
                .filter(|c| c.name.starts_with(&format!("_{prefix}{id}_")))
                .count()
        );
        let lead = name.len() + 3 + ann.map_or(0, |a| a.len() + 2);
        let value = value(lead);
        self.consts.push(PyConst {
            name: name.clone(),
            value,
            ann: ann.map(str::to_string),
        });
        name
    }

    fn table(&mut self, prefix: &str, id: NodeId, rows: Vec<String>) -> String {
        let name = format!(
            "_{prefix}{id}_{}",
            self.tables
                .iter()
                .filter(|c| c.name.starts_with(&format!("_{prefix}{id}_")))
                .count()
        );
        let value = lit::seq(&rows, "(", ")", 0, name.len() + 3, 0);
        self.tables.push(PyConst {
            name: name.clone(),
            value,
            ann: None,
        });
        name
    }

    fn branches(&mut self, prefix: &str, id: NodeId, nodes: &[NodeId]) -> String {
        let rows: Vec<String> = nodes.iter().map(|b| format!("_n{b}")).collect();
        self.table(prefix, id, rows)
    }

    fn names(&mut self, id: NodeId, known: &[String]) -> String {
        let items: Vec<String> = known.iter().map(|k| lit::string(k)).collect();
        if items.is_empty() {
            return "_rt.NO_NAMES".into();
        }
        self.constant("K", id, |lead| lit::seq(&items, "{", "}", 0, lead, 0))
    }

    fn pattern_list(&mut self, id: NodeId, pats: &[usize]) -> String {
        if pats.is_empty() {
            return "()".into();
        }
        let items: Vec<String> = pats.iter().map(|p| format!("_P{p}")).collect();
        self.constant("L", id, |lead| lit::seq(&items, "(", ")", 0, lead, 0))
    }

    fn node(&mut self, id: NodeId) -> PyNode {
        let node = &self.ir.program.nodes[id];
        let mut n = PyNode {
            id,
            origin: node.origin.to_string().trim_end().to_string(),
            generic: vec![],
            strings: vec![],
            numbers: vec![],
            arrays: vec![],
            objects: vec![],
        };
        for check in node.checks.clone() {
            match check {
                Check::False => n.generic.push(PyCheck::False),
                Check::Type(ts) => {
                    let mut tests: Vec<&'static str> = ts
                        .iter()
                        .map(|t| match t {
                            JsonType::Null => "null",
                            JsonType::Boolean => "bool",
                            JsonType::Object => "dict",
                            JsonType::Array => "list",
                            JsonType::Number => "num",
                            JsonType::String => "str",
                            JsonType::Integer => "int",
                        })
                        .collect();
                    if tests.contains(&"num") {
                        tests.retain(|t| *t != "int");
                    }
                    let names: Vec<String> = ts.iter().map(|t| lit::string(t.as_str())).collect();
                    let name =
                        self.constant("T", id, |lead| lit::seq(&names, "(", ")", 0, lead, 0));
                    n.generic.push(PyCheck::Type {
                        test: type_test(&tests),
                        name,
                    });
                }
                Check::Const(Value::String(s)) => {
                    // A long string is a named constant, so that the check stays on its lines.
                    let mut lit = lit::string(&s);
                    if lit.chars().count() > 40 {
                        let text = lit.clone();
                        lit = self.constant("C", id, |lead| {
                            // Parenthesized on its own line when that makes it fit.
                            let width = text.chars().count();
                            if lead + width > lit::WIDTH && 4 + width <= lit::WIDTH {
                                format!("(\n    {text}\n)")
                            } else {
                                text
                            }
                        });
                    }
                    n.generic.push(PyCheck::ConstStr { lit })
                }
                Check::Const(v) => {
                    let ann = match &v {
                        Value::Array(_) => Some("list[JsonValue]"),
                        Value::Object(_) => Some("dict[str, JsonValue]"),
                        _ => None,
                    };
                    let name = self.typed_constant("C", id, ann, |lead| lit::value(&v, 0, lead, 0));
                    n.generic.push(PyCheck::Const { name })
                }
                Check::Enum(vs) => {
                    if vs.iter().all(Value::is_string) {
                        let items: Vec<String> = vs.iter().map(lit::flat).collect();
                        let name =
                            self.constant("E", id, |lead| lit::seq(&items, "{", "}", 0, lead, 0));
                        n.generic.push(PyCheck::EnumStr { name });
                    } else {
                        let list = Value::Array(vs.clone());
                        let name = self.typed_constant("E", id, Some("list[JsonValue]"), |lead| {
                            lit::value(&list, 0, lead, 0)
                        });
                        n.generic.push(PyCheck::Enum { name });
                    }
                }
                Check::MinLength(m) => n.strings.push(PyCheck::MinLength(m)),
                Check::MaxLength(m) => n.strings.push(PyCheck::MaxLength(m)),
                Check::Pattern(p) => n.strings.push(PyCheck::Pattern {
                    name: format!("_P{p}"),
                }),
                Check::Format(f) => n.strings.push(PyCheck::Format {
                    func: format_func(f),
                    lit: lit::string(f.as_str()),
                }),
                Check::MaxWords(m) => n.strings.push(PyCheck::MaxWords(m)),
                Check::Minimum(b) => n.numbers.push(PyCheck::Bound {
                    op: "<",
                    keyword: "minimum",
                    lit: lit::bound(b),
                }),
                Check::Maximum(b) => n.numbers.push(PyCheck::Bound {
                    op: ">",
                    keyword: "maximum",
                    lit: lit::bound(b),
                }),
                Check::ExclusiveMinimum(b) => n.numbers.push(PyCheck::Bound {
                    op: "<=",
                    keyword: "exclusiveMinimum",
                    lit: lit::bound(b),
                }),
                Check::ExclusiveMaximum(b) => n.numbers.push(PyCheck::Bound {
                    op: ">=",
                    keyword: "exclusiveMaximum",
                    lit: lit::bound(b),
                }),
                Check::MultipleOf(m) => n.numbers.push(PyCheck::MultipleOf { lit: lit::float(m) }),
                Check::MinItems(m) => n.arrays.push(PyCheck::MinItems(m)),
                Check::MaxItems(m) => n.arrays.push(PyCheck::MaxItems(m)),
                Check::UniqueItems => n.arrays.push(PyCheck::UniqueItems),
                Check::PrefixItems(ns) => {
                    for (index, node) in ns.into_iter().enumerate() {
                        if !self.trivial(node) {
                            n.arrays.push(PyCheck::PrefixItem { index, node });
                        }
                    }
                }
                Check::Items { from, node } => {
                    if !self.trivial(node) {
                        n.arrays.push(PyCheck::Items { from, node })
                    }
                }
                Check::NoItems { from, keyword } => {
                    n.arrays.push(PyCheck::NoItems { from, keyword })
                }
                Check::Contains { node, min, max } => {
                    n.arrays.push(PyCheck::Contains { node, min, max })
                }
                Check::Properties(ps) => {
                    let rows: Vec<String> = ps
                        .iter()
                        .filter(|(_, node)| !self.trivial(*node))
                        .map(|(name, node)| {
                            let items = [
                                lit::string(name),
                                lit::string(&format!("/{}", escape_token(name))),
                                format!("_n{node}"),
                            ];
                            lit::seq(&items, "(", ")", 4, 0, 1)
                        })
                        .collect();
                    if !rows.is_empty() {
                        let table = self.table("PR", id, rows);
                        n.objects.push(PyCheck::Properties { table });
                    }
                }
                Check::PatternProperties(ps) => {
                    let rows: Vec<String> = ps
                        .iter()
                        .filter(|(_, node)| !self.trivial(*node))
                        .map(|(p, node)| {
                            lit::seq(&[format!("_P{p}"), format!("_n{node}")], "(", ")", 4, 0, 1)
                        })
                        .collect();
                    if !rows.is_empty() {
                        let table = self.table("PP", id, rows);
                        n.objects.push(PyCheck::PatternProperties { table });
                    }
                }
                Check::AdditionalProperties {
                    known,
                    patterns,
                    node,
                } => {
                    if !self.trivial(node) {
                        let known = self.names(id, &known);
                        let patterns = self.pattern_list(id, &patterns);
                        n.objects.push(PyCheck::AdditionalProperties {
                            known,
                            patterns,
                            node,
                        });
                    }
                }
                Check::NoAdditionalProperties { known, patterns } => {
                    let known = self.names(id, &known);
                    let patterns = self.pattern_list(id, &patterns);
                    n.objects
                        .push(PyCheck::NoAdditionalProperties { known, patterns });
                }
                Check::Required(names) => {
                    let rows: Vec<String> = names.iter().map(|s| lit::string(s)).collect();
                    let table = self.table("RQ", id, rows);
                    n.objects.push(PyCheck::Required { table });
                }
                Check::MinProperties(m) => n.objects.push(PyCheck::MinProperties(m)),
                Check::MaxProperties(m) => n.objects.push(PyCheck::MaxProperties(m)),
                Check::PropertyNames(node) => n.objects.push(PyCheck::PropertyNames { node }),
                Check::DependentRequired(deps) => {
                    let rows: Vec<String> = deps
                        .iter()
                        .map(|(k, names)| {
                            let names: Vec<String> = names.iter().map(|s| lit::string(s)).collect();
                            let inner = lit::seq(&names, "(", ")", 8, 0, 1);
                            lit::seq(&[lit::string(k), inner], "(", ")", 4, 0, 1)
                        })
                        .collect();
                    let table = self.table("DR", id, rows);
                    n.objects.push(PyCheck::DependentRequired { table });
                }
                Check::DependentSchemas(deps) => {
                    let rows: Vec<String> = deps
                        .iter()
                        .map(|(k, node)| {
                            lit::seq(&[lit::string(k), format!("_n{node}")], "(", ")", 4, 0, 1)
                        })
                        .collect();
                    let table = self.table("DS", id, rows);
                    n.objects.push(PyCheck::DependentSchemas { table });
                }
                Check::Ref(node) => {
                    if !self.trivial(node) {
                        n.generic.push(PyCheck::Ref { node })
                    }
                }
                Check::AnyOf(nodes) => {
                    // `    if not (_n1(v, p, None) or …):`
                    let width = 14 + nodes.iter().map(|b| call_width(*b) + 4).sum::<usize>() - 4;
                    let table = (width > lit::WIDTH).then(|| self.branches("AO", id, &nodes));
                    n.generic.push(PyCheck::AnyOf { nodes, table })
                }
                Check::OneOf(nodes) => {
                    // `    if _rt.count_true(_n1(v, p, None), …) != 1:`
                    let width = 28 + nodes.iter().map(|b| call_width(*b) + 2).sum::<usize>() - 2;
                    let table = (width > lit::WIDTH).then(|| self.branches("OO", id, &nodes));
                    n.generic.push(PyCheck::OneOf { nodes, table })
                }
                Check::Not(node) => n.generic.push(PyCheck::Not { node }),
                Check::IfThenElse {
                    cond,
                    then,
                    otherwise,
                } => {
                    let then = then.filter(|t| !self.trivial(*t));
                    let otherwise = otherwise.filter(|t| !self.trivial(*t));
                    if then.is_some() || otherwise.is_some() {
                        n.generic.push(PyCheck::IfThenElse {
                            cond,
                            then,
                            otherwise,
                        })
                    }
                }
            }
        }
        n
    }
}

/// The test of JSON types: one `isinstance` for the classes (ruff's SIM101), in the order of
/// the types.
fn type_test(tests: &[&str]) -> String {
    let classes: Vec<&str> = tests
        .iter()
        .copied()
        .filter(|t| matches!(*t, "bool" | "dict" | "list" | "str"))
        .collect();
    let mut terms = Vec::new();
    for t in tests {
        match *t {
            "null" => terms.push("v is None".to_string()),
            "num" => terms.push("type(v) in _NUM".to_string()),
            "int" => terms.push("_rt.is_int(v)".to_string()),
            c if classes.first() == Some(&c) => terms.push(match classes.as_slice() {
                [one] => format!("isinstance(v, {one})"),
                many => format!("isinstance(v, ({}))", many.join(", ")),
            }),
            _ => {}
        }
    }
    match terms.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", terms.join(" or ")),
    }
}

/// The width of `_nN(v, p, None)`.
fn call_width(node: NodeId) -> usize {
    node.to_string().len() + 15
}

fn format_func(f: Format) -> &'static str {
    match f {
        Format::DateTime => "is_date_time",
        Format::Date => "is_date",
        Format::Time => "is_time",
        Format::Duration => "is_duration",
        Format::Email => "is_email",
        Format::Hostname => "is_hostname",
        Format::Ipv4 => "is_ipv4",
        Format::Ipv6 => "is_ipv6",
        Format::Uri => "is_uri",
        Format::UriReference => "is_uri_reference",
        Format::Uuid => "is_uuid",
        Format::JsonPointer => "is_json_pointer",
        Format::Regex => "is_regex",
    }
}

/// RFC 6901 escaping of one reference token.
fn escape_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn render_validators(ir: &Ir) -> Result<String> {
    let mut b = VBuilder {
        ir,
        consts: vec![],
        tables: vec![],
    };
    let nodes: Vec<PyNode> = (0..ir.program.nodes.len()).map(|i| b.node(i)).collect();
    let patterns = ir
        .program
        .patterns
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = format!("_P{i}");
            let value = lit::args(
                &[lit::regex(&translate_pattern(&p.source))],
                "(",
                ")",
                0,
                name.len() + 14,
                0,
            );
            PyConst {
                name,
                value,
                ann: None,
            }
        })
        .collect();
    let VBuilder { consts, tables, .. } = b;
    let json_value = consts.iter().any(|c| c.ann.is_some());
    let fails = nodes.iter().any(|n| {
        [&n.generic, &n.strings, &n.numbers, &n.arrays, &n.objects]
            .iter()
            .any(|g| g.iter().any(PyCheck::reports))
    });
    run(
        "python/validators.py.j2",
        &ValidatorsTpl {
            header: GENERATED,
            patterns,
            consts,
            nodes,
            tables,
            json_value,
            fails,
        },
    )
    .map(eol)
}

// ---------------------------------------------------------------------------------------------
// Models

pub struct PyField {
    pub name: String,
    /// `: annotation = default`, laid out (what follows the name).
    pub decl: String,
    pub doc: Option<String>,
}

pub struct PyClass {
    pub name: String,
    /// `(BaseModel)`, laid out.
    pub bases: String,
    pub doc: String,
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
    pub doc: String,
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
    /// The arguments of `_rt.build`, laid out.
    pub build_args: String,
}

#[derive(Template)]
#[template(path = "python/module.py.j2", escape = "none")]
struct ModuleTpl {
    header: &'static str,
    doc: String,
    imports: Vec<String>,
    literals: Vec<PyAlias>,
    classes: Vec<PyClass>,
    aliases: Vec<PyAlias>,
    entries: Vec<PyEntry>,
}

/// The documentation of a type: its description, or a sentence naming it.
fn type_doc(t: &crate::ir::TypeDef) -> String {
    match t.doc.as_deref() {
        Some(d) if !d.trim().is_empty() => d.to_string(),
        _ => format!("The `{}` type.", t.raw_name),
    }
}

/// Docstring text: escapes what a triple-quoted string cannot hold as is.
fn docstring(text: &str, indent: usize) -> String {
    let t = text
        .trim()
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    // Control characters (but tabs and line ends) and zero-width spaces as escapes, which
    // ruff requires (PLE2510-PLE2515); the docstring's value is the same.
    let t: String = t
        .replace("\r\n", "\n")
        .chars()
        .map(|c| match c {
            '\x08' => "\\b".to_string(),
            '\r' => "\\r".to_string(),
            '\u{200b}' => "\\u200b".to_string(),
            c if (c.is_control() && c != '\n' && c != '\t') => format!("\\x{:02x}", c as u32),
            c => c.to_string(),
        })
        .collect();
    let mut t: Vec<String> = t.lines().map(|l| l.trim_end().to_string()).collect();
    // As `ruff format` does: tabs in the indentation of the lines after the first are spaces
    // (tab stops every 8 columns of the source line), and their common indentation goes.
    for l in t.iter_mut().skip(1) {
        let body = l.trim_start_matches([' ', '\t']).to_string();
        let mut col = indent;
        for c in l.chars().take_while(|c| *c == ' ' || *c == '\t') {
            col = if c == '\t' {
                (col / 8 + 1) * 8
            } else {
                col + 1
            };
        }
        *l = format!("{}{body}", " ".repeat(col - indent));
    }
    let common = t
        .iter()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min();
    if let Some(n) = common.filter(|n| *n > 0) {
        for l in t.iter_mut().skip(1).filter(|l| !l.is_empty()) {
            l.drain(..n);
        }
    }
    // A docstring may not start with a fourth quote.
    if t.first().is_some_and(|l| l.starts_with('"')) {
        t[0].insert(0, ' ');
    }
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for (i, l) in t.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if !l.is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(l);
    }
    if t.len() > 1 {
        out.push('\n');
        out.push_str(&pad);
    } else if out.ends_with('"') {
        out.push(' ');
    }
    out
}

/// A field annotation, with the structure `ruff format` breaks it by.
enum AnnShape {
    Atom(String),
    /// `a | b | …`
    Union(Vec<String>),
    /// `head[a, b]`
    Sub(&'static str, Vec<String>),
}

impl AnnShape {
    fn flat(&self) -> String {
        match self {
            AnnShape::Atom(a) => a.clone(),
            AnnShape::Union(parts) => parts.join(" | "),
            AnnShape::Sub(head, items) => format!("{head}[{}]", items.join(", ")),
        }
    }

    /// Broken over lines at `indent`: a union in parentheses (one line, else one operand
    /// per line), a subscript inside its brackets, a name in parentheses.
    fn broken(&self, indent: usize) -> String {
        let pad = " ".repeat(indent + 4);
        let end = " ".repeat(indent);
        match self {
            AnnShape::Union(parts) => {
                let one = parts.join(" | ");
                if indent + 4 + one.chars().count() <= lit::WIDTH {
                    return format!("(\n{pad}{one}\n{end})");
                }
                // An operand too long for its line breaks inside its brackets.
                let parts: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        union_operand(p, indent + 4, indent + 4 + if i == 0 { 0 } else { 2 })
                    })
                    .collect();
                format!("(\n{pad}{}\n{end})", parts.join(&format!("\n{pad}| ")))
            }
            AnnShape::Sub(head, items) => {
                lit::args(items, &format!("{head}["), "]", indent, lit::WIDTH, 0)
            }
            // Parentheses that do not make it fit are left out.
            AnnShape::Atom(a) if indent + 4 + a.chars().count() > lit::WIDTH => a.clone(),
            AnnShape::Atom(a) => format!("(\n{pad}{a}\n{end})"),
        }
    }
}

/// One argument of a call; a default keeps its JSON value to be laid out over lines.
struct FieldArg {
    text: String,
    default: Option<Value>,
}

impl FieldArg {
    fn text(text: String) -> FieldArg {
        FieldArg {
            text,
            default: None,
        }
    }
}

/// The right-hand side of an assignment: a name or literal, or a call (or subscript) whose
/// arguments `ruff format` can break over lines.
enum Rhs {
    Atom(String),
    Call {
        callee: String,
        open: &'static str,
        close: &'static str,
        args: Vec<FieldArg>,
    },
}

impl Rhs {
    fn field(args: Vec<FieldArg>) -> Rhs {
        Rhs::Call {
            callee: "Field".into(),
            open: "(",
            close: ")",
            args,
        }
    }

    fn flat(&self) -> String {
        match self {
            Rhs::Atom(a) => a.clone(),
            Rhs::Call {
                callee,
                open,
                close,
                args,
            } => {
                let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                format!("{callee}{open}{}{close}", args.join(", "))
            }
        }
    }

    /// The call with its arguments below it, at `indent + 4`: all on one line, else one per
    /// line (a default literal broken too, as `ruff format` does).
    fn broken(&self, indent: usize) -> String {
        match self {
            Rhs::Atom(a) => a.clone(),
            Rhs::Call {
                callee,
                open,
                close,
                args,
            } => {
                let flat: Vec<String> = args.iter().map(|a| a.text.clone()).collect();
                let joined = flat.join(", ");
                let pad = " ".repeat(indent + 4);
                let end = " ".repeat(indent);
                if args.len() == 1 || indent + 4 + joined.chars().count() <= lit::WIDTH {
                    return format!("{callee}{open}\n{pad}{joined}\n{end}{close}");
                }
                let items: Vec<String> = args
                    .iter()
                    .map(|a| match &a.default {
                        Some(v) => format!("default={}", lit::value(v, indent + 4, 8, 1)),
                        None => a.text.clone(),
                    })
                    .collect();
                let body: String = items.iter().map(|i| format!("{pad}{i},\n")).collect();
                format!("{callee}{open}\n{body}{end}{close}")
            }
        }
    }
}

/// What follows the target of an assignment at `indent` (`: annotation = value`, or
/// `: annotation`), laid out as `ruff format` does: on one line; else the call ending the
/// first line with its arguments below, when that line fits; else the value in parentheses
/// on its own lines; else the annotation broken (a union or subscript; a name only without
/// a value); else the call's arguments below an overlong line.
fn assignment(indent: usize, target: &str, ann: &AnnShape, value: Option<&Rhs>) -> String {
    let lhs = indent + target.chars().count() + 2;
    let ann_flat = ann.flat();
    let ann_width = ann_flat.chars().count();
    let Some(value) = value else {
        if lhs + ann_width <= lit::WIDTH {
            return format!(": {ann_flat}");
        }
        return format!(": {}", ann.broken(indent));
    };
    let flat = value.flat();
    let width = flat.chars().count();
    let before = lhs + ann_width + 3;
    if before + width <= lit::WIDTH {
        return format!(": {ann_flat} = {flat}");
    }
    if let Rhs::Call { callee, open, .. } = value {
        if before + callee.chars().count() + open.len() <= lit::WIDTH {
            return format!(": {ann_flat} = {}", value.broken(indent));
        }
    }
    let fits_alone = indent + 4 + width <= lit::WIDTH;
    if before < lit::WIDTH && (fits_alone || matches!(value, Rhs::Call { .. })) {
        let pad = " ".repeat(indent + 4);
        let inner = if fits_alone {
            flat.clone()
        } else {
            value.broken(indent + 4)
        };
        return format!(": {ann_flat} = (\n{pad}{inner}\n{})", " ".repeat(indent));
    }
    if !matches!(ann, AnnShape::Atom(_)) {
        let broken = ann.broken(indent);
        let inner = if indent + 4 + width <= lit::WIDTH {
            flat
        } else {
            value.broken(indent)
        };
        return format!(": {broken} = {inner}");
    }
    format!(": {ann_flat} = {}", value.broken(indent))
}

struct MBuilder<'a> {
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
}

/// The direct checks of a node, following `$ref`s.
fn flat_checks(ir: &Ir, node: NodeId, depth: usize) -> Vec<Check> {
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
fn default_fits(ir: &Ir, ty: &Ty, v: &Value, depth: usize) -> bool {
    match (ty, v) {
        (Ty::Any, _) | (Ty::Nullable(_) | Ty::Null, Value::Null) => true,
        (Ty::Nullable(t), v) => default_fits(ir, t, v, depth),
        (Ty::Bool, Value::Bool(_))
        | (Ty::Number, Value::Number(_))
        | (Ty::String, Value::String(_)) => true,
        (Ty::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Ty::Literal(l), Value::String(s)) => l == s,
        (Ty::Array(t), Value::Array(items)) => items.iter().all(|i| default_fits(ir, t, i, depth)),
        (Ty::Map(t), Value::Object(m)) => m.values().all(|i| default_fits(ir, t, i, depth)),
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
fn alias_ty(ir: &Ir, id: TypeId) -> Ty {
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
            Ty::Integer => {
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
            Ty::Nullable(t) => format!("{} | None", self.ann(t)),
            Ty::Array(t) => format!("list[{}]", self.ann(t)),
            Ty::Map(t) => format!("dict[str, {}]", self.ann(t)),
            Ty::Named(id) => {
                let m = self.ir.types[*id].module;
                if m != self.module {
                    self.imports
                        .entry(m)
                        .or_default()
                        .insert(self.names[*id].clone());
                }
                self.names[*id].clone()
            }
        }
    }

    /// The annotation of a field's type, with its structure.
    fn ann_shape(&mut self, ty: &Ty) -> AnnShape {
        match ty {
            Ty::Nullable(t) => AnnShape::Union(vec![self.ann(t), "None".into()]),
            Ty::Array(t) => AnnShape::Sub("list", vec![self.ann(t)]),
            Ty::Map(t) => AnnShape::Sub("dict", vec!["str".into(), self.ann(t)]),
            Ty::Literal(l) => {
                self.typing.insert("Literal");
                AnnShape::Sub("Literal", vec![lit::string(l)])
            }
            t => AnnShape::Atom(self.ann(t)),
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
                    if re_only && src.starts_with('^') && !top_level_alternation(&src) {
                        out.push(format!("pattern={}", lit::regex(&src)));
                    }
                }
                // pydantic takes only integer bounds for `int`: the nearest integer that keeps
                // the same integers in (`minimum: 0.5` is `ge=1`, `exclusiveMaximum: 2.5` is `lt=3`).
                (Ty::Integer, Check::Minimum(b)) => {
                    out.extend(lit::int_bound(b.ceil()).map(|b| format!("ge={b}")))
                }
                (Ty::Integer, Check::Maximum(b)) => {
                    out.extend(lit::int_bound(b.floor()).map(|b| format!("le={b}")))
                }
                (Ty::Integer, Check::ExclusiveMinimum(b)) => {
                    out.extend(lit::int_bound(b.floor()).map(|b| format!("gt={b}")))
                }
                (Ty::Integer, Check::ExclusiveMaximum(b)) => {
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
                    if !matches!(f.ty, Ty::Nullable(_) | Ty::Any | Ty::Null) {
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
        let bases = lit::args(&["BaseModel".to_string()], "(", ")", 0, 6 + name.len(), 1);
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

fn top_level_alternation(src: &str) -> bool {
    let mut depth = 0i32;
    let mut in_class = false;
    let mut esc = false;
    for c in src.chars() {
        if esc {
            esc = false;
            continue;
        }
        match c {
            '\\' => esc = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth -= 1,
            '|' if !in_class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Distinct annotations, in order (`str | str` is `str`).
fn distinct(anns: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in anns {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// One `Literal[…]` for the literal members of a union, where the first one was (ruff's
/// PYI030: `Literal["a"] | Literal["b"]` is `Literal["a", "b"]`).
fn merge_literals(anns: Vec<String>) -> Vec<String> {
    let inner = |a: &str| {
        a.strip_prefix("Literal[")
            .and_then(|a| a.strip_suffix(']'))
            .map(str::to_string)
    };
    let values: Vec<String> = anns.iter().filter_map(|a| inner(a)).collect();
    if values.len() < 2 {
        return anns;
    }
    let mut merged = Some(format!("Literal[{}]", values.join(", ")));
    anns.into_iter()
        .filter_map(|a| {
            if inner(&a).is_some() {
                merged.take()
            } else {
                Some(a)
            }
        })
        .collect()
}

/// `(head, inner)` when an annotation is one subscript, `head[inner]`.
fn subscript(value: &str) -> Option<(&str, &str)> {
    let open = value.find('[')?;
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in value.char_indices().skip_while(|(i, _)| *i < open) {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return (i == value.len() - 1).then(|| (&value[..open], &value[open + 1..i]));
                }
            }
            (None, _) => {}
        }
    }
    None
}

/// The items of a subscript's inside, split at its top-level commas.
fn split_top(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut cur = String::new();
    for c in inner.chars() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(' | '{') => depth += 1,
            (None, ']' | ')' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            (None, _) => {}
        }
        cur.push(c);
    }
    items.push(cur.trim().to_string());
    items
}

/// A subscript `head[inner]` broken inside its brackets for a line indented by `indent`:
/// the inside on one line below, else one item per line.
fn broken_subscript(head: &str, inner: &str, indent: usize) -> String {
    let items = split_top(inner);
    let pad = " ".repeat(indent + 4);
    let end = " ".repeat(indent);
    // An item too long for its own line breaks too.
    let item = |i: &str, tail: usize| match subscript(i) {
        Some((h, n)) if indent + 4 + i.chars().count() + tail > lit::WIDTH => {
            broken_subscript(h, n, indent + 4)
        }
        _ => i.to_string(),
    };
    let one = items.join(", ");
    if items.len() == 1 || indent + 4 + one.chars().count() <= lit::WIDTH {
        let body = if items.len() == 1 {
            item(&items[0], 0)
        } else {
            one
        };
        return format!("{head}[\n{pad}{body}\n{end}]");
    }
    let body: String = items
        .iter()
        .map(|i| format!("{pad}{},\n", item(i, 1)))
        .collect();
    format!("{head}[\n{body}{end}]")
}

/// An operand of a union broken over lines, on a line indented by `indent` after `lead`
/// characters: a subscript too long for the line breaks inside its brackets.
fn union_operand(p: &str, indent: usize, lead: usize) -> String {
    match subscript(p) {
        Some((head, inner)) if lead + p.chars().count() > lit::WIDTH => {
            broken_subscript(head, inner, indent)
        }
        _ => p.to_string(),
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
            TypeKind::Union(u) => {
                let mut anns = Vec::new();
                for v in &u.variants {
                    match &v.ty {
                        // `X | None` and `None` are one `None` member.
                        Ty::Nullable(t) => anns.extend([self.ann(t), "None".to_string()]),
                        t => anns.push(self.ann(t)),
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
                        Ty::Nullable(t) => {
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
    fn alias(&mut self, id: TypeId, recursive: bool, doc: String) -> PyAlias {
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

/// The model class each struct is emitted as. Schemas that copy an object into itself (a
/// configuration whose sub-configurations are `{"$ref": "#", "type": "object"}`) give many
/// structs with the same fields that all contain one another; as classes, pydantic would
/// build the whole cycle's schema once per class, each nested in the others. So structs of
/// one module that have the same fields, field for field (types compared up to such
/// sameness), are one class when two of them lie on one cycle of references: the first, of
/// which the others are aliases. Unrelated structs that happen to look alike stay distinct.
fn shared_models(ir: &Ir) -> Vec<TypeId> {
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
            Ty::Named(n) if matches!(ir.types[*n].kind, TypeKind::Struct(_)) => {
                out.push_str(&format!("S{}", class[*n]))
            }
            Ty::Named(n) => out.push_str(&format!("T{n}")),
            t => out.push_str(&format!("{t:?}")),
        }
        out.push(';');
    }
    let n = ir.types.len();
    // Start from one class per (module, field names) and split until no class splits.
    let mut class: Vec<usize> = (0..n).collect();
    let mut count = 0;
    loop {
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut next = vec![0; n];
        for (id, t) in ir.types.iter().enumerate() {
            let TypeKind::Struct(s) = &t.kind else {
                next[id] = ids.len();
                ids.insert(format!("#{id}"), next[id]);
                continue;
            };
            let mut k = format!("{}|{}|", t.module, s.deny_unknown);
            if count > 0 {
                k.push_str(&format!("{}|", class[id]));
            }
            for f in &s.fields {
                k.push_str(&format!(
                    "{:?}|{}|{:?}|{:?}|{:?}|",
                    f.wire, f.required, f.default, f.doc, f.annotations
                ));
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
    let edges: Vec<Vec<TypeId>> = (0..n)
        .map(|id| match ir.types[id].kind {
            TypeKind::Struct(_) => ir.references(id),
            _ => alias_refs(ir, id),
        })
        .collect();
    let (component, _) = components(&edges);
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

/// Ends a rendered file with exactly one newline.
fn eol(mut s: String) -> String {
    let n = s.trim_end().len();
    s.truncate(n);
    s.push('\n');
    s
}

fn render_module(
    ir: &Ir,
    canon: &[TypeId],
    names: &[String],
    module_names: &[String],
    m: usize,
) -> Result<String> {
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
    };
    b.typing.insert("Any");
    let mut literals = Vec::new();
    let mut classes = Vec::new();
    let mut alias_ids = Vec::new();
    let mut alias_docs = Vec::new();
    let mut entries = Vec::new();
    for &id in &module.types {
        let t = &ir.types[id];
        let name = names[id].clone();
        let doc = docstring(&type_doc(t), 0);
        match &t.kind {
            TypeKind::Struct(s) if canon[id] == id => {
                let c = b.class(id, s);
                classes.push(c);
            }
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
        // A model class, or another name for one: built by the class itself.
        let model = names_model_class(ir, id);
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
        let sig = format!("def parse_{snake}(data: Any) -> {name}:");
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
            && 5 + name.len() + 1 > lit::WIDTH
            && 4 + name.len() <= lit::WIDTH
        {
            format!("(\n    {name}\n)")
        } else {
            name.clone()
        };
        let validate_params = params(format!(
            "def validate_{snake}(data: Any) -> list[Violation]:"
        ));
        let build_args = lit::args(&[name.clone(), "data".into()], "(", ")", 4, 16, 0);
        entries.push(PyEntry {
            build_args,
            adapter,
            adapter_decl,
            parse_params,
            parse_returns,
            validate_params,
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
    let mut docs: Vec<Option<String>> = alias_docs.into_iter().map(Some).collect();
    for i in order {
        let doc = docs[i].take().unwrap_or_default();
        aliases_sorted.push(b.alias(alias_ids[i], cyclic[i], doc));
    }
    b.runtime.insert("Violation");
    if !literals.is_empty() || aliases_sorted.iter().any(|a| !a.recursive) {
        b.typing.insert("TypeAlias");
    }
    if entries.iter().any(|e| !e.model) {
        b.pydantic.insert("TypeAdapter");
    }
    if !classes.is_empty() {
        b.pydantic.insert("BaseModel");
        b.pydantic.insert("ConfigDict");
        b.pydantic.insert("ValidationInfo");
        b.pydantic.insert("model_validator");
    }
    let strs = |set: &BTreeSet<&'static str>| {
        let mut v = set.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        sort_imports(&mut v);
        v
    };
    let mut imports = vec![
        lit::import("typing", &strs(&b.typing)),
        String::new(),
        lit::import("pydantic", &strs(&b.pydantic)),
    ];
    if !b.typing_extensions.is_empty() {
        imports.push(lit::import(
            "typing_extensions",
            &strs(&b.typing_extensions),
        ));
    }
    imports.extend([
        String::new(),
        "from . import _runtime as _rt".to_string(),
        "from . import _validators as _v".to_string(),
        lit::import("._runtime", &strs(&b.runtime)),
    ]);
    for (m, ns) in &b.imports {
        let mut ns = ns.iter().cloned().collect::<Vec<_>>();
        sort_imports(&mut ns);
        imports.push(lit::import(&format!(".{}", b.module_names[*m]), &ns));
    }
    let text = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
    let doc = docstring(
        &match (&text(&module.title), &text(&module.doc)) {
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
    };
    run("python/module.py.j2", &tpl).map(eol)
}

/// Whether a type is a model class or an alias chain ending at one.
fn names_model_class(ir: &Ir, mut id: TypeId) -> bool {
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
fn is_model(ir: &Ir, mut id: TypeId) -> bool {
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
fn alias_refs(ir: &Ir, id: TypeId) -> Vec<TypeId> {
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
fn cyclic(ir: &Ir, ids: &[TypeId]) -> Vec<bool> {
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

/// The strongly connected components of a graph (Tarjan): the component of each vertex, and
/// whether it lies on a cycle (a component of several vertices, or a vertex with a loop).
fn components(edges: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    struct Tarjan<'a> {
        edges: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        component: Vec<usize>,
        looped: Vec<bool>,
        count: usize,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.edges[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut members = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let looped = members.len() > 1 || self.edges[v].contains(&v);
                for w in members {
                    self.component[w] = self.count;
                    self.looped[w] = looped;
                }
                self.count += 1;
            }
        }
    }
    let n = edges.len();
    let mut t = Tarjan {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        component: vec![0; n],
        looped: vec![false; n],
        count: 0,
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    (t.component, t.looped)
}

/// Orders types so that each comes after the types of the same list it refers to.
fn topo(ir: &Ir, ids: &[TypeId]) -> Vec<usize> {
    let pos: HashMap<TypeId, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut state = vec![0u8; ids.len()];
    let mut out = Vec::new();
    fn visit(
        i: usize,
        ir: &Ir,
        ids: &[TypeId],
        pos: &HashMap<TypeId, usize>,
        state: &mut [u8],
        out: &mut Vec<usize>,
    ) {
        if state[i] != 0 {
            return;
        }
        state[i] = 1;
        for r in alias_refs(ir, ids[i]) {
            if let Some(&j) = pos.get(&r) {
                if j != i {
                    visit(j, ir, ids, pos, state, out);
                }
            }
        }
        state[i] = 2;
        out.push(i);
    }
    for i in 0..ids.len() {
        visit(i, ir, ids, &pos, &mut state, &mut out);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Package

#[derive(Template)]
#[template(path = "python/runtime.py.j2", escape = "none")]
struct RuntimeTpl {
    header: &'static str,
}

#[derive(Template)]
#[template(path = "python/init.py.j2", escape = "none")]
struct InitTpl {
    header: &'static str,
    doc: String,
    /// (module, exported names)
    modules: Vec<(String, Vec<String>)>,
    all: Vec<String>,
    /// (type name literal, `(validate_x, parse_x)`)
    registry: Vec<(String, String)>,
    /// (schema location literal, type name literal)
    locations: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "python/pyproject.toml.j2", escape = "none")]
struct PyprojectTpl {
    header: &'static str,
    /// Every value below is a quoted TOML string ([`crate::package::toml_string`]).
    dist: String,
    package_dir: String,
    version: String,
    typing_extensions: bool,
}

/// isort's "order by type": CONSTANTS, then Classes, then functions.
fn name_kind(n: &str) -> u8 {
    let t = n.trim_start_matches('_');
    if t.len() > 1
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        0
    } else if t.starts_with(|c: char| c.is_ascii_uppercase()) {
        1
    } else {
        2
    }
}

/// Natural order, as ruff sorts names: runs of digits compare by value (`Dss2X` < `Dss200`)
/// unless one starts with a zero.
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let run =
                    |s: &[char], k: usize| s[k..].iter().take_while(|c| c.is_ascii_digit()).count();
                let (m, n) = (run(&a, i), run(&b, j));
                let (x, y): (String, String) =
                    (a[i..i + m].iter().collect(), b[j..j + n].iter().collect());
                // With a leading zero, digits compare one by one (`015` < `09`); else by value.
                let order = if x.starts_with('0') || y.starts_with('0') {
                    x.cmp(&y)
                } else {
                    x.len().cmp(&y.len()).then_with(|| x.cmp(&y))
                };
                if order != Ordering::Equal {
                    return order;
                }
                i += m;
                j += n;
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// Sorts the names of a `from … import` like ruff's isort rules (by kind, then naturally and
/// case-insensitively).
fn sort_imports(names: &mut [String]) {
    names.sort_by(|a, b| {
        name_kind(a)
            .cmp(&name_kind(b))
            .then_with(|| natural(&a.to_lowercase(), &b.to_lowercase()))
            .then_with(|| natural(a, b))
    });
}

/// Sorts `__all__` like ruff's RUF022 (by kind, then naturally and case-sensitively).
fn sort_all(names: &mut [String]) {
    names.sort_by(|a, b| name_kind(a).cmp(&name_kind(b)).then_with(|| natural(a, b)));
}

/// The Python import name of the package (`context_protocols`).
pub fn package_name(opts: &Options) -> String {
    names::module_name(Lang::Python, &opts.package)
}

pub fn render(ir: &Ir, opts: &Options) -> Result<Files> {
    let pkg = package_name(opts);
    let names = names::type_names(Lang::Python, ir);
    let canon = shared_models(ir);
    let raw_modules: Vec<String> = ir
        .modules
        .iter()
        .map(|m| names::module_name(Lang::Python, &m.raw_name))
        .collect();
    let module_names = names::dedupe(raw_modules, &mut std::collections::HashSet::new(), "_");
    let mut files = Files::new();
    let base = format!("src/{pkg}");
    files.insert(format!("{base}/py.typed"), String::new());
    files.insert(
        format!("{base}/_runtime.py"),
        eol(run(
            "python/runtime.py.j2",
            &RuntimeTpl { header: GENERATED },
        )?),
    );
    files.insert(format!("{base}/_validators.py"), render_validators(ir)?);
    let mut init_modules = Vec::new();
    let mut all = vec![
        "SCHEMAS".to_string(),
        "TYPES".to_string(),
        "ValidationError".to_string(),
        "Violation".to_string(),
    ];
    let mut registry = Vec::new();
    let mut locations = Vec::new();
    for (m, module) in ir.modules.iter().enumerate() {
        files.insert(
            format!("{base}/{}.py", module_names[m]),
            render_module(ir, &canon, &names, &module_names, m)?,
        );
        let mut exported = Vec::new();
        // The directory of the schema files, as the origins of this module's types spell it.
        let base = module.types.iter().find_map(|&id| {
            ir.types[id]
                .origin
                .file
                .strip_suffix(module.rel.as_str())
                .map(str::to_string)
        });
        for &id in &module.types {
            let snake = names::field_name(Lang::Python, &names[id])
                .trim_end_matches('_')
                .to_string();
            exported.push(names[id].clone());
            exported.push(format!("parse_{snake}"));
            exported.push(format!("validate_{snake}"));
            // A type may come from another document than its module's (a `$ref` into a
            // schema that is not a module): the location names that document.
            // A variant built from an `if`/`then` table has no schema location of its own.
            let origin = &ir.types[id].origin;
            let file = match base.as_deref().and_then(|b| origin.file.strip_prefix(b)) {
                Some(rel) => rel,
                None => &origin.file,
            };
            if ir.types[id].variant_of.is_none() {
                locations.push((
                    lit::string(&format!("{file}#{}", origin.pointer)),
                    lit::string(&names[id]),
                ));
            }
            let pair = [format!("validate_{snake}"), format!("parse_{snake}")];
            registry.push((
                lit::string(&names[id]),
                lit::seq(&pair, "(", ")", 4, names[id].len() + 4, 1),
            ));
        }
        sort_imports(&mut exported);
        all.extend(exported.iter().cloned());
        init_modules.push((module_names[m].clone(), exported));
    }
    // `typing_extensions` is a dependency of pydantic; the package declares it when it
    // imports it (for `TypeAliasType`).
    let typing_extensions = files
        .values()
        .any(|text| text.contains("\nfrom typing_extensions import "));
    files.insert(
        "pyproject.toml".into(),
        run(
            "python/pyproject.toml.j2",
            &PyprojectTpl {
                header: GENERATED,
                dist: crate::package::toml_string(&opts.package),
                package_dir: crate::package::toml_string(&format!("src/{pkg}")),
                version: crate::package::toml_string(&opts.version),
                typing_extensions,
            },
        )?,
    );
    let helpers = helpers::render(ir, &names, &module_names)?;
    // The package root re-exports the helpers, except where a type's `parse_x`/`validate_x`
    // already has the name (`parse_context_path` parses a `ContextPath` at the root; the path
    // helper of the same name stays in `helpers`).
    let helper_names: Vec<String> = helpers
        .as_ref()
        .map(|h| h.1.iter().filter(|n| !all.contains(n)).cloned().collect())
        .unwrap_or_default();
    if let Some((text, _)) = &helpers {
        files.insert(format!("{base}/helpers.py"), text.clone());
    }
    all.extend(helper_names.iter().cloned());
    if helpers.is_some() {
        all.push("HelperError".into());
        let mut exported = helper_names.clone();
        exported.push("HelperError".into());
        sort_imports(&mut exported);
        init_modules.push(("helpers".to_string(), exported));
        init_modules.sort();
    }
    all.sort();
    all.dedup();
    sort_all(&mut all);
    let doc = format!(
        "Typed, validating bindings generated by ctxgen ({} {}).",
        opts.package, opts.version
    );
    files.insert(
        format!("{base}/__init__.py"),
        run(
            "python/init.py.j2",
            &InitTpl {
                header: GENERATED,
                doc,
                modules: init_modules,
                all,
                registry,
                locations,
            },
        )
        .map(eol)?,
    );
    Ok(files)
}

mod helpers;
