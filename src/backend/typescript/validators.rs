//! `src/validators.ts`: one function per node of the validation program.
//!
//! Each check becomes a few statements; the statements are listed flat with their depth so
//! the template can lay them out without recursion.

use askama::Template;
use serde_json::Value;

use super::layout::{lay_lit, Before, Lit};
use super::{fits, json_lit, num_lit, str_lit, ts_literal, Ctx, Import, GENERATED};
use crate::backend::depth::DepthPlan;
use crate::backend::escape::{self, typescript::Line as CommentLine};
use crate::backend::pattern::{plan, Dialect};
use crate::ir::{Check, Format, JsonType, Node};
use crate::schema::pointer;

/// Names on `Object.prototype`: reading them needs an own-property test.
const PROTO: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

#[derive(Template)]
#[template(path = "typescript/validators.ts.j2", escape = "none")]
pub(crate) struct ValidatorsView {
    header: &'static str,
    imports: Vec<Import>,
    patterns: Vec<PatternConst>,
    keys: Vec<KeyConst>,
    consts: Vec<ListConst>,
    nodes: Vec<NodeView>,
}

pub(crate) struct PatternConst {
    name: String,
    source: String,
    inline: bool,
    /// Run by `re2js` (the source is the RE2-syntax translation) instead of `RegExp`.
    linear: bool,
}

/// A module-level constant holding a list (`new Set([...])` or an array), laid out.
pub(crate) struct ListConst {
    lines: Vec<String>,
}

pub(crate) struct NodeView {
    origin: CommentLine,
    /// The signature (`export function nN(…): boolean {`), laid out.
    head: String,
    /// On a cycle of the program: checks the instance depth first.
    guard: bool,
    lines: Vec<Line>,
}

/// One statement (or block boundary) at an indentation.
pub(crate) struct Line {
    pub indent: String,
    pub kind: LineKind,
}

pub(crate) enum LineKind {
    /// `if (test) {`: checks that apply to one JSON type.
    Block { test: String },
    /// `const name = expr;`
    Const { name: String, expr: String },
    /// `for (let i = from; i < v.length; i++) {`
    Items { from: usize },
    /// `for (const k in v) {`
    Keys,
    /// `}`
    Close,
    /// `if (cond) { if (r === null) return false; ok = false | report(...); }`
    Check { cond: Cond, report: Option<Report> },
}

pub(crate) struct Cond {
    pub parts: Vec<String>,
    /// On one line; otherwise one part per line, as prettier breaks `&&` chains.
    pub inline: bool,
    /// When not inline: the lines between `if (` and `) {`, indented.
    pub lines: Vec<String>,
}

pub(crate) struct Report {
    pub at: String,
    pub keyword: String,
    pub param: Option<String>,
    pub inline: bool,
}

struct Builder<'c> {
    ctx: &'c Ctx<'c>,
    consts: Vec<ListConst>,
    runtime: std::collections::BTreeSet<&'static str>,
    /// Locals declared so far in the current node.
    locals: usize,
    /// The `Set`s of scalar enumerations so far: (items as written, constant name).
    enum_sets: Vec<(String, String)>,
    /// Properties read into locals in the current object block: (name, local).
    read: Vec<(String, String)>,
    keys: Vec<KeyConst>,
    /// The bodies of the functions the object checks of the current node are split into.
    parts: Vec<Vec<Line>>,
    /// The nodes that guard the instance depth and the nodes that take it as a parameter.
    plan: DepthPlan,
    /// Some unevaluated check has a table (typed `Annotations`).
    annotations: bool,
    /// The node calls an item's node in quick mode first (`call_item`), or reaches a node that
    /// does.
    item_calls: Vec<bool>,
}

/// Most object checks one function holds. With many more, the nesting of the control flow of
/// the function body exceeds what TypeScript analyses (TS2563, as for the hundreds of
/// properties of Cargo's lint tables); the checks then go to several functions, in order.
const MAX_OBJECT_CHECKS: usize = 200;

/// The name of the `j`th function holding part of node `i`'s object checks.
fn part_name(i: usize, j: usize) -> String {
    format!("n{i}_{}", j + 1)
}

/// Longest property-name literal written inline; longer ones become constants.
const MAX_INLINE_KEY: usize = 40;

/// A module-level constant holding a long property name.
pub(crate) struct KeyConst {
    name: String,
    value: String,
    inline: bool,
}

pub(crate) fn view(ctx: &Ctx) -> ValidatorsView {
    let mut b = Builder {
        ctx,
        consts: Vec::new(),
        runtime: Default::default(),
        locals: 0,
        read: Vec::new(),
        enum_sets: Vec::new(),
        keys: Vec::new(),
        parts: Vec::new(),
        plan: ctx.depth.clone(),
        annotations: false,
        item_calls: Vec::new(),
    };
    b.item_calls = b.item_calls();
    b.runtime.insert("report");
    let mut nodes = Vec::new();
    for (i, node) in ctx.ir.program.nodes.iter().enumerate() {
        let origin = node.origin.to_string();
        let lines = b.node(i, node);
        let carries = b.plan.carries(i);
        let guard = b.plan.guarded(i);
        if guard {
            b.use_rt("MAX_DEPTH");
            b.use_rt("tooDeep");
        }
        nodes.push(NodeView {
            head: signature(&format!("n{i}"), carries),
            origin: escape::typescript::line(&origin),
            guard,
            lines,
        });
        for (j, lines) in b.parts.drain(..).enumerate() {
            nodes.push(NodeView {
                head: signature(&part_name(i, j), carries),
                origin: escape::typescript::line(&format!("{origin} (part {})", j + 1)),
                guard: false,
                lines,
            });
        }
    }
    let patterns: Vec<PatternConst> = ctx
        .ir
        .program
        .patterns
        .iter()
        .enumerate()
        .map(|(i, p)| match plan(&p.source).linear(Dialect::Re2) {
            Some(t) => {
                let source = str_lit(t);
                let inline = fits(0, &format!("const P{i} = RE2JS.compile({source});"));
                PatternConst {
                    name: format!("P{i}"),
                    source,
                    inline,
                    linear: true,
                }
            }
            None => {
                let source = str_lit(&p.source);
                let inline = fits(0, &format!("const P{i} = new RegExp({source}, \"u\");"));
                PatternConst {
                    name: format!("P{i}"),
                    source,
                    inline,
                    linear: false,
                }
            }
        })
        .collect();
    let runtime: Vec<String> = b.runtime.iter().map(|s| s.to_string()).collect();
    let mut imports = Vec::new();
    if patterns.iter().any(|p| p.linear) {
        imports.push(Import::new(false, vec!["RE2JS".into()], "re2js"));
    }
    imports.extend([
        Import::new(false, runtime, "./runtime.js"),
        Import::new(
            true,
            b.annotations
                .then(|| "Annotations".to_string())
                .into_iter()
                .chain(["Path".into(), "Reporter".into()])
                .collect(),
            "./runtime.js",
        ),
    ]);
    ValidatorsView {
        header: GENERATED,
        imports,
        patterns,
        keys: b.keys,
        consts: b.consts,
        nodes,
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// `export function nN(v: unknown, at: Path, r: Reporter[, d: number]): boolean {`, with the
/// parameters one a line when the line is too long (as prettier lays it out). `d` is the
/// instance depth, taken by the nodes that reach a node on a cycle of the program.
fn signature(name: &str, depth: bool) -> String {
    let mut params = vec!["v: unknown", "at: Path", "r: Reporter"];
    if depth {
        params.push("d: number");
    }
    let line = format!("export function {name}({}): boolean {{", params.join(", "));
    if fits(0, &line) {
        return line;
    }
    let mut out = format!("export function {name}(\n");
    for p in params {
        out.push_str(&format!("  {p},\n"));
    }
    out.push_str("): boolean {");
    out
}

impl<'c> Builder<'c> {
    /// A module-level constant `const X = open[items]close;`, laid out.
    fn list_const(
        &mut self,
        prefix: &str,
        open: &str,
        close: &'static str,
        items: Vec<Lit>,
    ) -> String {
        let name = format!("{prefix}{}", self.consts.len());
        let (before, head) = if open.is_empty() {
            (Before::Operator, format!("const {name} = "))
        } else {
            (Before::Nothing, format!("const {name} = {open}"))
        };
        let lines = lay_lit(&Lit::Array(items), before, &head, 0, &format!("{close};"));
        self.consts.push(ListConst { lines });
        name
    }

    fn use_rt(&mut self, name: &'static str) -> &'static str {
        self.runtime.insert(name);
        name
    }

    fn cond(depth: usize, parts: Vec<String>) -> Cond {
        let inline = fits(depth * 2, &format!("if ({}) {{", parts.join(" && ")));
        let mut lines = Vec::new();
        if !inline {
            for (i, p) in parts.iter().enumerate() {
                let tail = if i + 1 < parts.len() { " &&" } else { "" };
                part_lines(p, depth * 2 + 2, tail, parts.len() == 1, &mut lines);
            }
        }
        Cond {
            parts,
            inline,
            lines,
        }
    }

    fn check(
        &mut self,
        lines: &mut Vec<Line>,
        depth: usize,
        parts: Vec<String>,
        report: Option<(&str, &str, Option<String>)>,
    ) {
        let cond = Self::cond(depth, parts);
        let report = report.map(|(at, keyword, param)| {
            let kw = str_lit(keyword);
            let args = match &param {
                Some(p) => format!("r, {at}, {kw}, {p}"),
                None => format!("r, {at}, {kw}"),
            };
            let inline = fits(depth * 2 + 2, &format!("ok = report({args});"));
            Report {
                at: at.to_string(),
                keyword: kw,
                param,
                inline,
            }
        });
        lines.push(Line {
            indent: indent(depth),
            kind: LineKind::Check { cond, report },
        });
    }

    /// The node a call goes to: nodes that only forward to another node (`$ref`) are skipped.
    fn target(&self, mut node: usize) -> usize {
        for _ in 0..64 {
            match self.ctx.ir.program.nodes[node].checks.as_slice() {
                [Check::Ref(next)] if *next != node => node = *next,
                _ => break,
            }
        }
        node
    }

    /// A child-node call that reports through `r`; a child at a location below the current
    /// one (`at` is not `at`) is one level deeper.
    fn call(&self, node: usize, value: &str, at: &str) -> String {
        let target = self.target(node);
        let depth = match (self.plan.carries(target), at == "at") {
            (false, _) => "",
            (true, true) => ", d",
            (true, false) => ", d + 1",
        };
        format!("n{target}({value}, {at}, r{depth})")
    }

    /// The call of an item's node (`v[i]`). When the item's node is on no cycle and reaches no
    /// other such call, in quick mode first and again with the item's location only when it
    /// fails: the items of a large array are mostly valid, and so cost no location objects
    /// when every violation is collected. An invalid item is checked twice, and only once more
    /// below, so collecting every violation costs at most twice the quick check however the
    /// instance nests.
    fn call_item(&self, node: usize, at: &str) -> String {
        let target = self.target(node);
        if self.plan.carries(target) || self.item_calls[target] {
            return self.call(node, "v[i]", at);
        }
        format!("(n{target}(v[i], null, null) || (r !== null && n{target}(v[i], {at}, r)))")
    }

    /// Which nodes make (or reach a node that makes) a `call_item` in quick mode first: the
    /// nodes with an `items` check whose node is not checked inline, and their callers.
    fn item_calls(&self) -> Vec<bool> {
        let nodes = &self.ctx.ir.program.nodes;
        let edges: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| n.checks.iter().flat_map(Check::children).collect())
            .collect();
        let calls = nodes
            .iter()
            .map(|n| {
                n.checks.iter().any(
                    |c| matches!(c, Check::Items { node, .. } if self.leaf_checks(*node).is_none()),
                )
            })
            .collect();
        crate::backend::depth::reaching(&edges, calls)
    }

    /// A child-node call in quick mode, at the current location.
    fn quick(&self, node: usize, value: &str) -> String {
        let target = self.target(node);
        let depth = if self.plan.carries(target) { ", d" } else { "" };
        format!("n{target}({value}, null, null{depth})")
    }

    /// Reading a property of the object `v`.
    fn prop(&mut self, name: &str) -> String {
        let key = self.key(name);
        if PROTO.contains(&name) {
            self.use_rt("own");
            format!("own(v, {key})")
        } else {
            format!("v[{key}]")
        }
    }

    /// A property name in code: its literal, or for a long name a module-level constant, so
    /// every statement that mentions it fits the print width.
    fn key(&mut self, name: &str) -> String {
        let lit = str_lit(name);
        if lit.chars().count() <= MAX_INLINE_KEY {
            return lit;
        }
        if let Some(k) = self.keys.iter().find(|k| k.value == lit) {
            return k.name.clone();
        }
        let name = format!("S{}", self.keys.len());
        let inline = fits(0, &format!("const {name} = {lit};"));
        self.keys.push(KeyConst {
            name: name.clone(),
            value: lit,
            inline,
        });
        name
    }

    /// The path of an item (`key` an index expression) or of a property (`key` a literal of its
    /// escaped `/token`).
    fn sub(&mut self, key: &str) -> String {
        self.use_rt("sub");
        format!("sub(r, at, {key})")
    }

    /// The path of a member whose name (`name`, an expression) is read from the instance.
    fn sub_name(&mut self, name: &str) -> String {
        self.use_rt("subName");
        format!("subName(r, at, {name})")
    }

    /// The path of the property `name` of the schema: its reference token is escaped here.
    fn sub_prop(&mut self, name: &str) -> String {
        let token = self.key(&format!("/{}", pointer::escape(name)));
        self.sub(&token)
    }

    /// The statements of an object check, one per property or name.
    fn object_check_count(&self, c: &Check) -> usize {
        match c {
            Check::Properties(ps) => ps
                .iter()
                .filter(|(_, n)| !self.ctx.ir.program.nodes[*n].is_trivial())
                .count(),
            Check::Required(names) => names.len(),
            Check::DependentRequired(deps) => deps.iter().map(|(_, r)| r.len()).sum(),
            Check::DependentSchemas(deps) => deps.len(),
            _ => 1,
        }
    }

    /// The object checks in parts of at most [`MAX_OBJECT_CHECKS`] statements, in order.
    fn object_parts(&self, checks: &[&Check]) -> Vec<Vec<Check>> {
        let mut units: Vec<Check> = Vec::new();
        for c in checks {
            match c {
                Check::Properties(ps) => {
                    units.extend(ps.iter().map(|p| Check::Properties(vec![p.clone()])))
                }
                Check::Required(names) => {
                    units.extend(names.iter().map(|n| Check::Required(vec![n.clone()])))
                }
                c => units.push((*c).clone()),
            }
        }
        let mut parts: Vec<Vec<Check>> = vec![Vec::new()];
        let mut count = 0;
        for u in units {
            let n = self.object_check_count(&u);
            if count + n > MAX_OBJECT_CHECKS && count > 0 {
                parts.push(Vec::new());
                count = 0;
            }
            count += n;
            parts.last_mut().expect("a part").push(u);
        }
        parts
    }

    fn node(&mut self, index: usize, node: &Node) -> Vec<Line> {
        self.locals = 0;
        self.read.clear();
        let mut lines = Vec::new();
        let mut strings = Vec::new();
        let mut numbers = Vec::new();
        let mut arrays = Vec::new();
        let mut objects = Vec::new();
        for c in &node.checks {
            match c {
                Check::MinLength(_)
                | Check::MaxLength(_)
                | Check::Pattern(_)
                | Check::Format(_)
                | Check::MaxWords(_) => strings.push(c),
                Check::Minimum(_)
                | Check::Maximum(_)
                | Check::ExclusiveMinimum(_)
                | Check::ExclusiveMaximum(_)
                | Check::MultipleOf(_) => numbers.push(c),
                Check::MinItems(_)
                | Check::MaxItems(_)
                | Check::UniqueItems
                | Check::PrefixItems(_)
                | Check::Items { .. }
                | Check::NoItems { .. }
                | Check::Contains { .. } => arrays.push(c),
                Check::Properties(_)
                | Check::PatternProperties(_)
                | Check::AdditionalProperties { .. }
                | Check::NoAdditionalProperties { .. }
                | Check::Required(_)
                | Check::MinProperties(_)
                | Check::MaxProperties(_)
                | Check::PropertyNames(_)
                | Check::DependentRequired(_)
                | Check::DependentSchemas(_) => objects.push(c),
                _ => self.any_check(&mut lines, c),
            }
        }
        let groups: [(&str, Vec<&Check>); 4] = [
            ("typeof v === \"string\"", strings),
            ("typeof v === \"number\"", numbers),
            ("isArray(v)", arrays),
            ("isObject(v)", objects),
        ];
        for (test, checks) in groups {
            if checks.is_empty() {
                continue;
            }
            let count: usize = checks.iter().map(|c| self.object_check_count(c)).sum();
            if test.starts_with("isObject") && count > MAX_OBJECT_CHECKS {
                for part in self.object_parts(&checks) {
                    self.locals = 0;
                    self.read.clear();
                    let mut body = Vec::new();
                    self.use_rt("isObject");
                    body.push(Line {
                        indent: indent(1),
                        kind: LineKind::Block {
                            test: test.to_string(),
                        },
                    });
                    for c in &part {
                        self.typed_check(&mut body, c);
                    }
                    body.push(Line {
                        indent: indent(1),
                        kind: LineKind::Close,
                    });
                    let name = part_name(index, self.parts.len());
                    self.parts.push(body);
                    let depth = if self.plan.carries(index) { ", d" } else { "" };
                    self.check(
                        &mut lines,
                        1,
                        vec![format!("!{name}(v, at, r{depth})")],
                        None,
                    );
                }
                continue;
            }
            if test.starts_with("isArray") {
                self.use_rt("isArray");
            }
            if test.starts_with("isObject") {
                self.use_rt("isObject");
            }
            lines.push(Line {
                indent: indent(1),
                kind: LineKind::Block {
                    test: test.to_string(),
                },
            });
            for c in checks {
                self.typed_check(&mut lines, c);
            }
            lines.push(Line {
                indent: indent(1),
                kind: LineKind::Close,
            });
        }
        lines
    }

    /// Checks that apply to any value (depth 1).
    fn any_check(&mut self, lines: &mut Vec<Line>, c: &Check) {
        let d = 1;
        match c {
            Check::False => self.check(lines, d, vec!["true".into()], Some(("at", "false", None))),
            Check::Type(_) | Check::Const(_) | Check::Enum(_) => {
                let (cond, keyword, param) = self.value_fail(c, "v");
                self.check(lines, d, vec![cond], Some(("at", keyword, param)));
            }
            Check::Ref(n) => self.check(
                lines,
                d,
                vec![format!("!{}", self.call(*n, "v", "at"))],
                None,
            ),
            Check::AnyOf(ns) => {
                let parts: Vec<String> = ns
                    .iter()
                    .map(|n| format!("!{}", self.quick(*n, "v")))
                    .collect();
                self.check(lines, d, parts, Some(("at", "anyOf", None)));
            }
            Check::OneOf(ns) => {
                let items: Vec<Lit> = ns
                    .iter()
                    .map(|n| Lit::Word(format!("n{}", self.target(*n))))
                    .collect();
                let name = self.list_const("B", "", "", items);
                self.use_rt("countMatches");
                let carries = ns.iter().any(|n| self.plan.carries(self.target(*n)));
                let depth = if carries { ", d" } else { "" };
                self.check(
                    lines,
                    d,
                    vec![format!("countMatches(v, {name}{depth}) !== 1")],
                    Some(("at", "oneOf", None)),
                );
            }
            Check::Not(n) => self.check(
                lines,
                d,
                vec![self.quick(*n, "v")],
                Some(("at", "not", None)),
            ),
            Check::IfThenElse {
                cond,
                then,
                otherwise,
            } => {
                let test = self.quick(*cond, "v");
                let parts = match (then, otherwise) {
                    (Some(t), Some(e)) => {
                        vec![format!(
                            "{test} ? !{} : !{}",
                            self.call(*t, "v", "at"),
                            self.call(*e, "v", "at")
                        )]
                    }
                    (Some(t), None) => vec![test, format!("!{}", self.call(*t, "v", "at"))],
                    (None, Some(e)) => {
                        vec![format!("!{test}"), format!("!{}", self.call(*e, "v", "at"))]
                    }
                    (None, None) => return,
                };
                self.check(lines, d, parts, None);
            }
            Check::UnevaluatedProperties { ann, node }
            | Check::UnevaluatedItems { ann, node, .. } => {
                let func = if matches!(c, Check::UnevaluatedItems { .. }) {
                    "unevaluatedItems"
                } else {
                    "unevaluatedProperties"
                };
                self.use_rt(func);
                self.annotations = true;
                let table = format!("U{}", self.consts.len());
                let head = format!("const {table}: Annotations = ");
                let lines_ = lay_lit(&json_lit(&ann.to_json()), Before::Operator, &head, 0, ";");
                self.consts.push(ListConst { lines: lines_ });
                let targets: Vec<usize> = ann.nodes.iter().map(|n| self.target(*n)).collect();
                let nodes = match targets.as_slice() {
                    [] => "[]".to_string(),
                    ts => {
                        let items = ts.iter().map(|t| Lit::Word(format!("n{t}"))).collect();
                        self.list_const("B", "", "", items)
                    }
                };
                let patterns = match ann.patterns.as_slice() {
                    [] => "[]".to_string(),
                    ps => {
                        let items = ps.iter().map(|p| Lit::Word(format!("P{p}"))).collect();
                        self.list_const("R", "", "", items)
                    }
                };
                let sub = node.map(|n| self.target(n));
                let carries = targets
                    .iter()
                    .chain(sub.iter())
                    .any(|t| self.plan.carries(*t));
                let sub = sub.map_or("null".to_string(), |t| format!("n{t}"));
                let depth = if carries { ", d" } else { "" };
                let call = format!("!{func}(v, at, r, {table}, {nodes}, {patterns}, {sub}{depth})");
                self.check(lines, d, vec![call], None);
            }
            _ => unreachable!("typed checks are grouped"),
        }
    }

    /// The passing test of a single JSON type on a value expression.
    fn type_test(&mut self, t: JsonType, value: &str) -> String {
        match t {
            JsonType::Null => format!("{value} === null"),
            JsonType::Boolean => format!("typeof {value} === \"boolean\""),
            JsonType::Object => {
                self.use_rt("isObject");
                format!("isObject({value})")
            }
            JsonType::Array => {
                self.use_rt("isArray");
                format!("isArray({value})")
            }
            JsonType::Number => format!("typeof {value} === \"number\""),
            JsonType::String => format!("typeof {value} === \"string\""),
            JsonType::Integer => format!("Number.isInteger({value})"),
        }
    }

    /// A `type`, `const` or `enum` check on a value expression: the failing condition, the
    /// keyword and the parameter reported.
    fn value_fail(&mut self, c: &Check, value: &str) -> (String, &'static str, Option<String>) {
        match c {
            Check::Type(ts) => {
                let names = JsonType::list_text(ts);
                let cond = match ts.as_slice() {
                    // `"type": []` accepts nothing.
                    [] => "true".to_string(),
                    [t] => self.type_fail(*t, value),
                    ts => {
                        let tests: Vec<String> =
                            ts.iter().map(|t| self.type_test(*t, value)).collect();
                        format!("!({})", tests.join(" || "))
                    }
                };
                (cond, "type", Some(str_lit(&names)))
            }
            Check::Const(v) => {
                let (cond, param) = match v {
                    Value::Null | Value::Bool(_) | Value::String(_) | Value::Number(_) => {
                        let lit = ts_literal(v);
                        (format!("{value} !== {lit}"), lit)
                    }
                    _ => {
                        self.use_rt("includes");
                        let name = self.list_const("C", "", "", vec![json_lit(v)]);
                        (format!("!includes({name}, {value})"), format!("{name}[0]"))
                    }
                };
                (cond, "const", Some(param))
            }
            Check::Enum(vs) => {
                let scalar = vs.iter().all(|v| !v.is_object() && !v.is_array());
                let items: Vec<Lit> = vs.iter().map(json_lit).collect();
                let (cond, name) = if scalar {
                    let name = self.enum_set(items);
                    (format!("!{name}.has({value})"), name)
                } else {
                    self.use_rt("includes");
                    let name = self.list_const("E", "", "", items);
                    (format!("!includes({name}, {value})"), name)
                };
                (cond, "enum", Some(name))
            }
            _ => unreachable!("not a check on the value alone"),
        }
    }

    /// The `Set` of a scalar enumeration, shared by every check of the same values.
    fn enum_set(&mut self, items: Vec<Lit>) -> String {
        let key = Lit::Array(items.clone()).flat();
        if let Some((_, name)) = self.enum_sets.iter().find(|(k, _)| *k == key) {
            return name.clone();
        }
        let name = self.list_const("E", "new Set<unknown>(", ")", items);
        self.enum_sets.push((key, name.clone()));
        name
    }

    /// The failing test of a single JSON type on a value expression.
    fn type_fail(&mut self, t: JsonType, value: &str) -> String {
        match t {
            JsonType::Null => format!("{value} !== null"),
            JsonType::Boolean => format!("typeof {value} !== \"boolean\""),
            JsonType::Object => {
                self.use_rt("isObject");
                format!("!isObject({value})")
            }
            JsonType::Array => {
                self.use_rt("isArray");
                format!("!isArray({value})")
            }
            JsonType::Number => format!("typeof {value} !== \"number\""),
            JsonType::String => format!("typeof {value} !== \"string\""),
            JsonType::Integer => format!("!Number.isInteger({value})"),
        }
    }

    /// The checks of a child node that checks nothing but its value's JSON type, a scalar
    /// constant or an enumeration of scalars (at most three checks): such a node is checked
    /// inline, check by check, instead of called.
    fn leaf_checks(&self, node: usize) -> Option<&'c [Check]> {
        let ir: &'c crate::ir::Ir = self.ctx.ir;
        let checks = ir.program.nodes[self.target(node)].checks.as_slice();
        let scalar = |v: &Value| !v.is_object() && !v.is_array();
        let inline = |c: &Check| match c {
            Check::Type(_) => true,
            Check::Const(v) => scalar(v),
            Check::Enum(vs) => vs.iter().all(scalar),
            _ => false,
        };
        (!checks.is_empty() && checks.len() <= 3 && checks.iter().all(inline)).then_some(checks)
    }

    /// Checks inside a JSON-type block (depth 2).
    fn typed_check(&mut self, lines: &mut Vec<Line>, c: &Check) {
        let d = 2;
        let num = |x: &f64| num_lit(*x);
        match c {
            Check::MinLength(n) => {
                self.use_rt("minLength");
                self.check(
                    lines,
                    d,
                    vec![format!("!minLength(v, {n})")],
                    Some(("at", "minLength", Some(n.to_string()))),
                )
            }
            Check::MaxLength(n) => {
                self.use_rt("maxLength");
                self.check(
                    lines,
                    d,
                    vec![format!("!maxLength(v, {n})")],
                    Some(("at", "maxLength", Some(n.to_string()))),
                )
            }
            Check::Pattern(p) => self.check(
                lines,
                d,
                vec![format!("!P{p}.test(v)")],
                Some((
                    "at",
                    "pattern",
                    Some(str_lit(&self.ctx.ir.program.patterns[*p].source)),
                )),
            ),
            Check::Format(f) => {
                let func = format_fn(*f);
                self.use_rt(func);
                self.check(
                    lines,
                    d,
                    vec![format!("!{func}(v)")],
                    Some(("at", "format", Some(str_lit(f.as_str())))),
                )
            }
            Check::MaxWords(n) => {
                self.use_rt("maxWords");
                self.check(
                    lines,
                    d,
                    vec![format!("!maxWords(v, {n})")],
                    Some(("at", "x-max-words", Some(n.to_string()))),
                )
            }
            Check::Minimum(x) => self.check(
                lines,
                d,
                vec![format!("v < {}", num(x))],
                Some(("at", "minimum", Some(num(x)))),
            ),
            Check::Maximum(x) => self.check(
                lines,
                d,
                vec![format!("v > {}", num(x))],
                Some(("at", "maximum", Some(num(x)))),
            ),
            Check::ExclusiveMinimum(x) => self.check(
                lines,
                d,
                vec![format!("v <= {}", num(x))],
                Some(("at", "exclusiveMinimum", Some(num(x)))),
            ),
            Check::ExclusiveMaximum(x) => self.check(
                lines,
                d,
                vec![format!("v >= {}", num(x))],
                Some(("at", "exclusiveMaximum", Some(num(x)))),
            ),
            Check::MultipleOf(x) => {
                self.use_rt("isMultipleOf");
                self.check(
                    lines,
                    d,
                    vec![format!("!isMultipleOf(v, {})", num(x))],
                    Some(("at", "multipleOf", Some(num(x)))),
                )
            }
            Check::MinItems(n) => self.check(
                lines,
                d,
                vec![format!("v.length < {n}")],
                Some(("at", "minItems", Some(n.to_string()))),
            ),
            Check::MaxItems(n) => self.check(
                lines,
                d,
                vec![format!("v.length > {n}")],
                Some(("at", "maxItems", Some(n.to_string()))),
            ),
            Check::UniqueItems => {
                self.use_rt("hasDuplicates");
                self.check(
                    lines,
                    d,
                    vec!["hasDuplicates(v)".into()],
                    Some(("at", "uniqueItems", None)),
                )
            }
            Check::PrefixItems(ns) => {
                for (i, n) in ns.iter().enumerate() {
                    let at = self.sub(&i.to_string());
                    let call = self.call(*n, &format!("v[{i}]"), &at);
                    self.check(
                        lines,
                        d,
                        vec![format!("v.length > {i}"), format!("!{call}")],
                        None,
                    );
                }
            }
            Check::Items { from, node } => {
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Items { from: *from },
                });
                let at = self.sub("i");
                if let Some(leaf) = self.leaf_checks(*node) {
                    for c in leaf {
                        let (fail, keyword, param) = self.value_fail(c, "v[i]");
                        self.check(lines, d + 1, vec![fail], Some((&at, keyword, param)));
                    }
                } else {
                    self.check(
                        lines,
                        d + 1,
                        vec![format!("!{}", self.call_item(*node, &at))],
                        None,
                    );
                }
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Close,
                });
            }
            Check::NoItems { from, keyword } => {
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Items { from: *from },
                });
                let at = self.sub("i");
                self.check(
                    lines,
                    d + 1,
                    vec!["true".into()],
                    Some((&at, keyword, None)),
                );
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Close,
                });
            }
            Check::Contains { node, min, max } => {
                self.use_rt("countValid");
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Const {
                        name: "c".into(),
                        expr: {
                            let target = self.target(*node);
                            let depth = if self.plan.carries(target) {
                                ", d + 1"
                            } else {
                                ""
                            };
                            format!("countValid(v, n{target}{depth})")
                        },
                    },
                });
                self.check(
                    lines,
                    d,
                    vec![format!("c < {min}")],
                    Some(("at", "contains", Some(min.to_string()))),
                );
                if let Some(m) = max {
                    self.check(
                        lines,
                        d,
                        vec![format!("c > {m}")],
                        Some(("at", "maxContains", Some(m.to_string()))),
                    );
                }
            }
            Check::Properties(ps) => {
                for (name, n) in ps {
                    if self.ctx.ir.program.nodes[*n].is_trivial() {
                        continue;
                    }
                    let read = self.prop(name);
                    let local = format!("p{}", self.locals);
                    self.locals += 1;
                    lines.push(Line {
                        indent: indent(d),
                        kind: LineKind::Const {
                            name: local.clone(),
                            expr: read,
                        },
                    });
                    self.read.push((name.clone(), local.clone()));
                    let at = self.sub_prop(name);
                    if let Some(leaf) = self.leaf_checks(*n) {
                        for c in leaf {
                            let (fail, keyword, param) = self.value_fail(c, &local);
                            let parts = vec![format!("{local} !== undefined"), fail];
                            self.check(lines, d, parts, Some((&at, keyword, param)));
                        }
                        continue;
                    }
                    let call = self.call(*n, &local, &at);
                    self.check(
                        lines,
                        d,
                        vec![format!("{local} !== undefined"), format!("!{call}")],
                        None,
                    );
                }
            }
            Check::PatternProperties(ps) => {
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Keys,
                });
                for (p, n) in ps {
                    let at = self.sub_name("k");
                    let call = self.call(*n, "v[k]", &at);
                    self.check(
                        lines,
                        d + 1,
                        vec![format!("P{p}.test(k)"), format!("!{call}")],
                        None,
                    );
                }
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Close,
                });
            }
            Check::AdditionalProperties {
                known,
                patterns,
                node,
            } => {
                let names = self.known(known, patterns);
                self.use_rt("isUnknown");
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Keys,
                });
                let at = self.sub_name("k");
                let call = self.call(*node, "v[k]", &at);
                self.check(
                    lines,
                    d + 1,
                    vec![format!("isUnknown(k, {names})"), format!("!{call}")],
                    None,
                );
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Close,
                });
            }
            Check::NoAdditionalProperties { known, patterns } => {
                let names = self.known(known, patterns);
                self.use_rt("hasUnknown");
                self.use_rt("unknownKeys");
                self.check(
                    lines,
                    d,
                    vec![format!("hasUnknown(v, {names})")],
                    Some((
                        "at",
                        "additionalProperties",
                        Some(format!("unknownKeys(v, {names})")),
                    )),
                );
            }
            Check::Required(names) => {
                for name in names {
                    // The property's value was read for its own check already, where it has one.
                    let read = match self.read.iter().find(|(n, _)| n == name) {
                        Some((_, local)) => local.clone(),
                        None => self.prop(name),
                    };
                    let key = self.key(name);
                    self.check(
                        lines,
                        d,
                        vec![format!("{read} === undefined")],
                        Some(("at", "required", Some(key))),
                    );
                }
            }
            Check::MinProperties(n) => self.check(
                lines,
                d,
                vec![format!("Object.keys(v).length < {n}")],
                Some(("at", "minProperties", Some(n.to_string()))),
            ),
            Check::MaxProperties(n) => self.check(
                lines,
                d,
                vec![format!("Object.keys(v).length > {n}")],
                Some(("at", "maxProperties", Some(n.to_string()))),
            ),
            Check::PropertyNames(n) => {
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Keys,
                });
                self.check(
                    lines,
                    d + 1,
                    vec![format!("!{}", self.quick(*n, "k"))],
                    Some(("at", "propertyNames", Some("k".into()))),
                );
                lines.push(Line {
                    indent: indent(d),
                    kind: LineKind::Close,
                });
            }
            Check::DependentRequired(deps) => {
                for (name, required) in deps {
                    let read = self.prop(name);
                    let dependent = self.key(name);
                    for req in required {
                        let other = self.prop(req);
                        let key = format!("[{}, {dependent}]", self.key(req));
                        self.check(
                            lines,
                            d,
                            vec![
                                format!("{read} !== undefined"),
                                format!("{other} === undefined"),
                            ],
                            Some(("at", "dependentRequired", Some(key))),
                        );
                    }
                }
            }
            Check::DependentSchemas(deps) => {
                for (name, n) in deps {
                    let read = self.prop(name);
                    self.check(
                        lines,
                        d,
                        vec![
                            format!("{read} !== undefined"),
                            format!("!{}", self.call(*n, "v", "at")),
                        ],
                        None,
                    );
                }
            }
            _ => unreachable!("untyped checks are not grouped"),
        }
    }

    /// The constants naming the listed properties and patterns of an object schema.
    /// The arguments naming the listed properties and the patterns of an object schema (the
    /// patterns left out when there are none).
    fn known(&mut self, known: &[String], patterns: &[usize]) -> String {
        let k = self.list_const(
            "K",
            "new Set<string>(",
            ")",
            known.iter().map(|s| Lit::Str(str_lit(s))).collect(),
        );
        if patterns.is_empty() {
            return k;
        }
        let ps = self.list_const(
            "R",
            "",
            "",
            patterns
                .iter()
                .map(|p| Lit::Word(format!("P{p}")))
                .collect(),
        );
        format!("{k}, {ps}")
    }
}

/// One operand of an `&&` chain on lines of its own at `at`, broken as prettier breaks the two
/// forms that can outgrow a line: `!(a || b || …)` one operand per line, and a comparison with
/// a long literal after its operator (indented when the chain has other operands).
fn part_lines(part: &str, at: usize, tail: &str, alone: bool, out: &mut Vec<String>) {
    let pad = " ".repeat(at);
    if fits(at, &format!("{part}{tail}")) {
        out.push(format!("{pad}{part}{tail}"));
        return;
    }
    if let Some(inner) = part.strip_prefix("!(").and_then(|p| p.strip_suffix(')')) {
        let ors = split_top(inner, " || ");
        if ors.len() > 1 {
            out.push(format!("{pad}!("));
            for (i, o) in ors.iter().enumerate() {
                let sep = if i + 1 < ors.len() { " ||" } else { "" };
                out.push(format!("{pad}  {o}{sep}"));
            }
            out.push(format!("{pad}){tail}"));
            return;
        }
    }
    if let Some((head, args)) = call_parts(part) {
        // A call too long for its line: one argument a line.
        out.push(format!("{pad}{head}("));
        for a in args {
            out.push(format!("{pad}  {a},"));
        }
        out.push(format!("{pad}){tail}"));
        return;
    }
    for op in [" !== ", " === ", " <= ", " >= ", " < ", " > "] {
        if let [left, right] = split_top(part, op).as_slice() {
            let right_pad = if alone {
                pad.clone()
            } else {
                " ".repeat(at + 2)
            };
            out.push(format!("{pad}{left}{}", op.trim_end()));
            out.push(format!("{right_pad}{right}{tail}"));
            return;
        }
    }
    out.push(format!("{pad}{part}{tail}"));
}

/// A part that is one call (`!n1(a, b)`): the callee with its prefix, and the arguments.
fn call_parts(part: &str) -> Option<(&str, Vec<&str>)> {
    let open = part.find('(')?;
    let head = &part[..open];
    let name = head.strip_prefix('!').unwrap_or(head);
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    // The parenthesis at `open` must close at the very end.
    let (mut depth, mut quote, mut escaped) = (0i32, None, false);
    for (i, c) in part.bytes().enumerate().skip(open) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
        } else if c == b'"' || c == b'\'' {
            quote = Some(c);
        } else if c == b'(' {
            depth += 1;
        } else if c == b')' {
            depth -= 1;
            if depth == 0 && i + 1 != part.len() {
                return None;
            }
        }
    }
    let inner = part[open + 1..].strip_suffix(')')?;
    Some((head, split_top(inner, ", ")))
}

/// `text` split at `sep` where it stands outside string literals and brackets.
fn split_top<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0i32, None, false, 0);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
        } else if c == b'"' || c == b'\'' {
            quote = Some(c);
        } else if c == b'(' || c == b'[' || c == b'{' {
            depth += 1;
        } else if c == b')' || c == b']' || c == b'}' {
            depth -= 1;
        } else if depth == 0 && bytes[i..].starts_with(sep.as_bytes()) {
            parts.push(&text[start..i]);
            i += sep.len();
            start = i;
            continue;
        }
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

fn format_fn(f: Format) -> &'static str {
    match f {
        Format::DateTime => "isDateTime",
        Format::Date => "isDate",
        Format::Time => "isTime",
        Format::Duration => "isDuration",
        Format::Email => "isEmail",
        Format::Hostname => "isHostname",
        Format::Ipv4 => "isIpv4",
        Format::Ipv6 => "isIpv6",
        Format::Uri => "isUri",
        Format::UriReference => "isUriReference",
        Format::Uuid => "isUuid",
        Format::JsonPointer => "isJsonPointer",
        Format::Regex => "isRegex",
        Format::HostnameRfc1123 => "isHostnameRfc1123",
        Format::IdnHostname => "isIdnHostname",
        Format::IdnEmail => "isIdnEmail",
        Format::Iri => "isIri",
        Format::IriReference => "isIriReference",
        Format::UriTemplate => "isUriTemplate",
        Format::RelativeJsonPointer => "isRelativeJsonPointer",
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::names::Lang;

    fn validators_ts(schema: &str) -> String {
        let rendered = crate::Config::new()
            .schema_sources(vec![("s.json".into(), schema.into())])
            .languages(&[Lang::TypeScript])
            .render()
            .expect("the schema renders");
        let files = &rendered.packages[0].1;
        files
            .iter()
            .find(|(path, _)| path.ends_with("src/validators.ts"))
            .map(|(_, text)| text.clone())
            .expect("validators.ts")
    }

    /// Items are checked in quick mode first only where no such check lies below, so that
    /// collecting every violation costs at most twice the quick check.
    #[test]
    fn items_run_in_quick_mode_first_at_one_level_only() {
        let ts = validators_ts(
            r##"{"type": "object", "properties": {
                "rows": {"type": "array", "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Cell"}}},
                "cells": {"type": "array", "items": {"$ref": "#/$defs/Cell"}},
                "tree": {"$ref": "#/$defs/Tree"}
            }, "$defs": {
                "Cell": {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}},
                "Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
            }}"##,
        );
        let twice = ts.matches("null, null) || (r !== null && n").count();
        // The items of `rows` hold arrays whose items are checked twice: `rows` calls its
        // items once; `cells` and the inner arrays of `rows` twice; the tree (on a cycle) once.
        assert_eq!(twice, 2, "{ts}");
        assert!(
            ts.contains("d + 1"),
            "the tree's items carry the depth: {ts}"
        );
    }
}
