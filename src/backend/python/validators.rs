//! The validators module (`_validators.py`): one function per node of the validation program.

use crate::backend::pattern::{plan, Dialect};

use super::*;

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
    /// `name`: the values in schema order (for the message); `set`: the same as a set.
    EnumStr {
        name: String,
        set: String,
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
        /// `v`, or `_rt.f64(v)` for a bound an integer's double can differ from (|b| >= 2^53).
        value: &'static str,
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
        /// The node needs the items' pointers (for its depth guard).
        deep: bool,
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
        /// The node needs the object's pointer (for its depth guard).
        deep: bool,
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
    /// `unevaluatedProperties`/`unevaluatedItems`: the runtime function, the names of the
    /// table, the guard nodes and the patterns, and the subschema (`None` for `false`).
    Unevaluated {
        func: &'static str,
        table: String,
        nodes: String,
        patterns: String,
        node: String,
    },
}

pub struct PyNode {
    pub id: NodeId,
    pub origin: crate::backend::escape::python::Line,
    /// On a cycle of the program: checks the instance depth first.
    pub guard: bool,
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
                // Reported by `_rt.unexpected`, which names the properties.
                | PyCheck::NoAdditionalProperties { .. }
                | PyCheck::DependentSchemas { .. }
                | PyCheck::Unevaluated { .. }
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
pub(super) struct ValidatorsTpl<'a> {
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
pub(super) struct VBuilder<'a> {
    ir: &'a Ir,
    plan: crate::backend::depth::DepthPlan,
    consts: Vec<PyConst>,
    tables: Vec<PyConst>,
    /// How many constants (and tables) each `_{prefix}{id}_` names so far.
    const_counts: HashMap<String, usize>,
    table_counts: HashMap<String, usize>,
}

/// The next name `_{prefix}{id}_{k}`, counting those given so far.
fn numbered(counts: &mut HashMap<String, usize>, prefix: &str, id: NodeId) -> String {
    let stem = format!("_{prefix}{id}_");
    let k = counts.entry(stem.clone()).or_default();
    let name = format!("{stem}{k}");
    *k += 1;
    name
}

impl<'a> VBuilder<'a> {
    fn trivial(&self, n: NodeId) -> bool {
        self.ir.program.nodes[n].is_trivial()
    }

    /// The Python type whose exact instances node `n` accepts without looking further (its
    /// one check is that type): a property table lets such a value through without calling
    /// the node. `None` (which no value's type is) for every other node.
    fn exact_type(&self, n: NodeId) -> &'static str {
        match self.ir.program.nodes[n].checks.as_slice() {
            [Check::Type(ts)] => match ts.as_slice() {
                [JsonType::String] => "str",
                [JsonType::Boolean] => "bool",
                // Not `int`: an integer beyond the double range is no JSON integer (it reads
                // as infinity in JavaScript).
                [JsonType::Object] => "dict",
                [JsonType::Array] => "list",
                _ => "None",
            },
            _ => "None",
        }
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
        let name = numbered(&mut self.const_counts, prefix, id);
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
        let name = numbered(&mut self.table_counts, prefix, id);
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

    /// An unevaluated check: its table, guard nodes and patterns as module constants.
    fn unevaluated(
        &mut self,
        id: NodeId,
        func: &'static str,
        ann: &crate::ir::Annotations,
        node: Option<NodeId>,
    ) -> PyCheck {
        let json = ann.to_json();
        let table = self.typed_constant("U", id, Some("list[JsonValue]"), |lead| {
            lit::value(&json, 0, lead, 0)
        });
        let nodes = if ann.nodes.is_empty() {
            "()".to_string()
        } else {
            self.branches("UN", id, &ann.nodes)
        };
        let patterns = self.pattern_list(id, &ann.patterns);
        let node = node.map_or("None".to_string(), |x| format!("_n{x}"));
        PyCheck::Unevaluated {
            func,
            table,
            nodes,
            patterns,
            node,
        }
    }

    fn node(&mut self, id: NodeId) -> PyNode {
        let node = &self.ir.program.nodes[id];
        let mut n = PyNode {
            id,
            origin: crate::backend::escape::python::line(node.origin.to_string().trim_end()),
            guard: self.plan.guarded(id),
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
                    // An empty enum is a list: `{}` would be a dict, of a type mypy cannot infer.
                    if !vs.is_empty() && vs.iter().all(Value::is_string) {
                        let items: Vec<String> = vs.iter().map(lit::flat).collect();
                        let name =
                            self.constant("E", id, |lead| lit::seq(&items, "(", ")", 0, lead, 0));
                        let set = self.constant("S", id, |_| format!("frozenset({name})"));
                        n.generic.push(PyCheck::EnumStr { name, set });
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
                    value: bound_value(b),
                    op: "<",
                    keyword: "minimum",
                    lit: lit::bound(b),
                }),
                Check::Maximum(b) => n.numbers.push(PyCheck::Bound {
                    value: bound_value(b),
                    op: ">",
                    keyword: "maximum",
                    lit: lit::bound(b),
                }),
                Check::ExclusiveMinimum(b) => n.numbers.push(PyCheck::Bound {
                    value: bound_value(b),
                    op: "<=",
                    keyword: "exclusiveMinimum",
                    lit: lit::bound(b),
                }),
                Check::ExclusiveMaximum(b) => n.numbers.push(PyCheck::Bound {
                    value: bound_value(b),
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
                Check::Contains { node, min, max } => n.arrays.push(PyCheck::Contains {
                    node,
                    min,
                    max,
                    deep: self.plan.carries(node),
                }),
                Check::Properties(ps) => {
                    let rows: Vec<String> = ps
                        .iter()
                        .filter(|(_, node)| !self.trivial(*node))
                        .map(|(name, node)| {
                            let items = [
                                lit::string(name),
                                lit::string(&format!("/{}", crate::schema::pointer::escape(name))),
                                format!("_n{node}"),
                                self.exact_type(*node).to_string(),
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
                // Empty tables are left out with their checks: they check nothing, and mypy
                // cannot type the loop variable over `()` ("Need type annotation").
                Check::Required(names) => {
                    let rows: Vec<String> = names.iter().map(|s| lit::string(s)).collect();
                    if !rows.is_empty() {
                        let table = self.table("RQ", id, rows);
                        n.objects.push(PyCheck::Required { table });
                    }
                }
                Check::MinProperties(m) => n.objects.push(PyCheck::MinProperties(m)),
                Check::MaxProperties(m) => n.objects.push(PyCheck::MaxProperties(m)),
                Check::PropertyNames(node) => n.objects.push(PyCheck::PropertyNames {
                    node,
                    deep: self.plan.carries(node),
                }),
                Check::DependentRequired(deps) => {
                    let rows: Vec<String> = deps
                        .iter()
                        .filter(|(_, names)| !names.is_empty())
                        .map(|(k, names)| {
                            let names: Vec<String> = names.iter().map(|s| lit::string(s)).collect();
                            let inner = lit::seq(&names, "(", ")", 8, 0, 1);
                            lit::seq(&[lit::string(k), inner], "(", ")", 4, 0, 1)
                        })
                        .collect();
                    if !rows.is_empty() {
                        let table = self.table("DR", id, rows);
                        n.objects.push(PyCheck::DependentRequired { table });
                    }
                }
                Check::DependentSchemas(deps) => {
                    let rows: Vec<String> = deps
                        .iter()
                        .map(|(k, node)| {
                            lit::seq(&[lit::string(k), format!("_n{node}")], "(", ")", 4, 0, 1)
                        })
                        .collect();
                    if !rows.is_empty() {
                        let table = self.table("DS", id, rows);
                        n.objects.push(PyCheck::DependentSchemas { table });
                    }
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
                Check::UnevaluatedProperties { ann, node } => {
                    let c = self.unevaluated(id, "unevaluated_properties", &ann, node);
                    n.generic.push(c)
                }
                Check::UnevaluatedItems { ann, node, .. } => {
                    let c = self.unevaluated(id, "unevaluated_items", &ann, node);
                    n.generic.push(c)
                }
            }
        }
        n
    }
}

/// The test of JSON types: one `isinstance` for the classes (ruff's SIM101), in the order of
/// the types.
pub(super) fn type_test(tests: &[&str]) -> String {
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

/// What a numeric bound compares: `v` itself when the bound is below 2^53 in magnitude (an
/// integer then compares with it exactly as its double does), else the double of `v`.
fn bound_value(b: f64) -> &'static str {
    if b.abs() < 9_007_199_254_740_992.0 {
        "v"
    } else {
        "_rt.f64(v)"
    }
}

/// The width of `_nN(v, p, None)`.
pub(super) fn call_width(node: NodeId) -> usize {
    node.to_string().len() + 15
}

pub(super) fn format_func(f: Format) -> &'static str {
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
        Format::HostnameRfc1123 => "is_hostname_rfc1123",
        Format::IdnHostname => "is_idn_hostname",
        Format::IdnEmail => "is_idn_email",
        Format::Iri => "is_iri",
        Format::IriReference => "is_iri_reference",
        Format::UriTemplate => "is_uri_template",
        Format::RelativeJsonPointer => "is_relative_json_pointer",
    }
}

pub(super) fn render_validators(ir: &Ir) -> Result<String> {
    let mut b = VBuilder {
        ir,
        plan: crate::backend::depth::DepthPlan::new(&ir.program),
        consts: vec![],
        tables: vec![],
        const_counts: HashMap::new(),
        table_counts: HashMap::new(),
    };
    let nodes: Vec<PyNode> = (0..ir.program.nodes.len()).map(|i| b.node(i)).collect();
    let patterns = ir
        .program
        .patterns
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = format!("_P{i}");
            let (mut args, translated) = match plan(&p.source).linear(Dialect::Re2) {
                Some(t) => (vec![lit::regex(t), "linear=True".into()], t.to_string()),
                None => {
                    let t = translate_pattern(&p.source);
                    (vec![lit::regex(&t)], t)
                }
            };
            // Messages name the pattern as the schema wrote it.
            if translated != p.source {
                args.push(format!("source={}", lit::string(&p.source)));
            }
            let value = lit::args(&args, "(", ")", 0, name.len() + 14, 0);
            PyConst {
                name,
                value,
                ann: None,
            }
        })
        .collect();
    let VBuilder {
        consts, mut tables, ..
    } = b;
    // The branches of the unions decoded by the validator's choice (`graph::choice_nodes`).
    for id in 0..ir.types.len() {
        if let Some(nodes) = super::graph::choice_nodes(ir, id) {
            let name = format!("_u{id}");
            let items: Vec<String> = nodes.iter().map(|n| format!("_n{n}")).collect();
            let value = lit::seq(&items, "(", ")", 0, name.len() + 3, 0);
            tables.push(PyConst {
                name,
                value,
                ann: None,
            });
        }
    }
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
