//! The validation program as Rust functions: one call per check, laid out as rustfmt would.

use askama::Template;

use super::layout::WIDTH;
use super::objects::{fused, Field, KeyFn, ObjectCtx, Objects};
use super::{json_type, literal, raw_literal, GENERATED};
use crate::backend::depth::DepthPlan;
use crate::backend::escape::{self, rust::Line};
use crate::backend::pattern::{plan, rust_translation, Plan};
use crate::backend::run;
use crate::error::Result;
use crate::ir::{Check, Format, Ir, NodeId};

pub(crate) enum Arg {
    Plain(String),
    List(Vec<String>),
}

impl Arg {
    /// A list's items on lines of their own, as rustfmt lays them out inside a call broken
    /// over lines.
    pub(crate) fn lines(items: &[String]) -> Vec<String> {
        super::layout::array_lines(items, 12)
    }
}

pub(crate) struct Call {
    func: String,
    /// 0: `ok &= f(..);` on one line; 1: the call on the next line; 2: one argument a line.
    layout: u8,
    head: String,
    args: Vec<Arg>,
}

pub(crate) struct NodeCtx {
    id: usize,
    origin: Line,
    /// On a cycle of the program: checks the instance depth first.
    guarded: bool,
    calls: Vec<Call>,
    /// The static of the node's fused object checks, and its key function when the node is the
    /// first with its property names.
    object: Option<ObjectCtx>,
    key: Option<KeyFn>,
}

pub(crate) struct Static {
    /// The name's letter (`P`, `A`, `C`) and the static's type.
    kind: &'static str,
    ty: &'static str,
    id: String,
    /// The runtime function that builds the value (`json`, `ecma`, `linear`).
    func: &'static str,
    /// The arguments, literals (a linear pattern's translation, then the schema's pattern).
    args: Vec<String>,
    /// 0: one line; 1: closure block, call on one line; 2: closure block, argument on its own
    /// line; 3: the value on the next line.
    layout: u8,
}

fn make_static(id: String, args: Vec<String>, kind: &'static str, func: &'static str) -> Static {
    let ty = match kind {
        "P" => "Matcher",
        "A" => "Alternation",
        _ => "Constant",
    };
    let literal = args.join(", ");
    let one = format!("static {kind}{id}: {ty} = {ty}::new(|| rt::{func}({literal}));").len();
    let broken = format!("    {ty}::new(|| rt::{func}({literal}));").len();
    let layout = if one <= WIDTH {
        0
    } else if broken <= WIDTH {
        3
    } else if 4 + 4 + func.len() + literal.len() + 2 <= WIDTH + 1 {
        1
    } else {
        2
    };
    Static {
        kind,
        ty,
        id,
        func,
        args,
        layout,
    }
}

#[derive(Template)]
#[template(path = "rust/validators.rs.j2", escape = "none")]
struct ValidatorsTemplate<'a> {
    header: &'a str,
    /// The runtime items the module uses, for its `use` line.
    imports: String,
    patterns: Vec<Static>,
    constants: Vec<Static>,
    nodes: Vec<NodeCtx>,
}

fn call(func: &str, args: Vec<Arg>) -> Call {
    let head = args
        .iter()
        .map(|a| match a {
            Arg::Plain(s) => s.clone(),
            Arg::List(items) => format!("&[{}]", items.join(", ")),
        })
        .collect::<Vec<_>>()
        .join(", ");
    // `    ok &= func(head);`
    let layout = if 4 + 6 + func.len() + 1 + head.len() + 2 <= WIDTH {
        0
    } else if 8 + func.len() + 1 + head.len() + 2 <= WIDTH {
        1
    } else {
        2
    };
    // Laid out vertically, a list that fits on its own line stays on one line.
    let args = args
        .into_iter()
        .map(|a| match a {
            Arg::List(items) if 8 + 3 + items.join(", ").len() + 2 <= WIDTH => {
                Arg::Plain(format!("&[{}]", items.join(", ")))
            }
            other => other,
        })
        .collect();
    Call {
        func: func.to_string(),
        layout,
        head,
        args,
    }
}

fn p(s: impl Into<String>) -> Arg {
    Arg::Plain(s.into())
}

fn f64_literal(x: f64) -> String {
    format!("{x:?}")
}

fn format_variant(f: Format) -> &'static str {
    match f {
        Format::DateTime => "Format::DateTime",
        Format::Date => "Format::Date",
        Format::Time => "Format::Time",
        Format::Duration => "Format::Duration",
        Format::Email => "Format::Email",
        Format::Hostname => "Format::Hostname",
        Format::Ipv4 => "Format::Ipv4",
        Format::Ipv6 => "Format::Ipv6",
        Format::Uri => "Format::Uri",
        Format::UriReference => "Format::UriReference",
        Format::Uuid => "Format::Uuid",
        Format::JsonPointer => "Format::JsonPointer",
        Format::Regex => "Format::Regex",
        Format::HostnameRfc1123 => "Format::HostnameRfc1123",
        Format::IdnHostname => "Format::IdnHostname",
        Format::IdnEmail => "Format::IdnEmail",
        Format::Iri => "Format::Iri",
        Format::IriReference => "Format::IriReference",
        Format::UriTemplate => "Format::UriTemplate",
        Format::RelativeJsonPointer => "Format::RelativeJsonPointer",
    }
}

pub(crate) fn render(ir: &Ir) -> Result<String> {
    let mut constants = Vec::new();
    let mut fused_statics = Vec::new();
    let mut nodes = Vec::new();
    let depth = DepthPlan::new(&ir.program);
    let v = || p("v");
    let tail = |mut args: Vec<Arg>| {
        args.push(p("at"));
        args.push(p("r"));
        args
    };
    let mut objects = Objects::default();
    for (id, node) in ir.program.nodes.iter().enumerate() {
        let mut calls = Vec::new();
        let (mut object, mut key) = (None, None);
        let mut k = 0;
        while let Some(check) = node.checks.get(k) {
            if let Some(f) = fused(&node.checks, k) {
                let (o, kf) = objects.add(id, &f);
                calls.push(call("rt::object", tail(vec![v(), p(format!("&O{id}"))])));
                (object, key) = (Some(o), kf);
                k += f.count;
                continue;
            }
            let n = |i: &usize| format!("n{i}");
            let c = match check {
                Check::False => call("rt::false_schema", tail(vec![v()])),
                Check::Type(ts) => call(
                    "rt::types",
                    tail(vec![
                        v(),
                        Arg::List(ts.iter().map(|t| json_type(*t).to_string()).collect()),
                    ]),
                ),
                Check::Const(value) => {
                    let cid = format!("{id}_{k}");
                    constants.push(make_static(
                        cid.clone(),
                        vec![raw_literal(&value.to_string())],
                        "C",
                        "json",
                    ));
                    call("rt::constant", tail(vec![v(), p(format!("&C{cid}"))]))
                }
                Check::Enum(values) if values.iter().all(|x| x.is_string()) => call(
                    "rt::enum_str",
                    tail(vec![
                        v(),
                        Arg::List(
                            values
                                .iter()
                                .map(|x| literal(x.as_str().unwrap_or_default()))
                                .collect(),
                        ),
                    ]),
                ),
                Check::Enum(values) => {
                    let cid = format!("{id}_{k}");
                    constants.push(make_static(
                        cid.clone(),
                        vec![raw_literal(
                            &serde_json::Value::Array(values.clone()).to_string(),
                        )],
                        "C",
                        "json",
                    ));
                    call("rt::enumeration", tail(vec![v(), p(format!("&C{cid}"))]))
                }
                Check::MinLength(x) => call("rt::min_length", tail(vec![v(), p(x.to_string())])),
                Check::MaxLength(x) => call("rt::max_length", tail(vec![v(), p(x.to_string())])),
                Check::Pattern(pid) => call("rt::pattern", tail(vec![v(), p(format!("&P{pid}"))])),
                Check::Format(f) => call("rt::format", tail(vec![v(), p(format_variant(*f))])),
                Check::MaxWords(x) => call("rt::max_words", tail(vec![v(), p(x.to_string())])),
                Check::Minimum(x) => call("rt::minimum", tail(vec![v(), p(f64_literal(*x))])),
                Check::Maximum(x) => call("rt::maximum", tail(vec![v(), p(f64_literal(*x))])),
                Check::ExclusiveMinimum(x) => {
                    call("rt::exclusive_minimum", tail(vec![v(), p(f64_literal(*x))]))
                }
                Check::ExclusiveMaximum(x) => {
                    call("rt::exclusive_maximum", tail(vec![v(), p(f64_literal(*x))]))
                }
                Check::MultipleOf(x) => {
                    call("rt::multiple_of", tail(vec![v(), p(f64_literal(*x))]))
                }
                Check::MinItems(x) => call("rt::min_items", tail(vec![v(), p(x.to_string())])),
                Check::MaxItems(x) => call("rt::max_items", tail(vec![v(), p(x.to_string())])),
                Check::UniqueItems => call("rt::unique_items", tail(vec![v()])),
                Check::PrefixItems(ns) => call(
                    "rt::prefix_items",
                    tail(vec![v(), Arg::List(ns.iter().map(n).collect())]),
                ),
                Check::Items { from, node } => call(
                    "rt::items",
                    tail(vec![v(), p(from.to_string()), p(n(node))]),
                ),
                Check::NoItems { from, keyword } => call(
                    "rt::no_items",
                    tail(vec![v(), p(from.to_string()), p(literal(keyword))]),
                ),
                Check::Contains { node, min, max } => {
                    let max = max.map_or("None".to_string(), |m| format!("Some({m})"));
                    call(
                        "rt::contains",
                        tail(vec![v(), p(n(node)), p(min.to_string()), p(max)]),
                    )
                }
                Check::Properties(ps) => call(
                    "rt::properties",
                    tail(vec![
                        v(),
                        Arg::List(
                            ps.iter()
                                .map(|(name, id)| format!("({}, n{id})", literal(name)))
                                .collect(),
                        ),
                    ]),
                ),
                Check::PatternProperties(ps) => call(
                    "rt::pattern_properties",
                    tail(vec![
                        v(),
                        Arg::List(
                            ps.iter()
                                .map(|(pid, id)| format!("(&P{pid}, n{id})"))
                                .collect(),
                        ),
                    ]),
                ),
                Check::AdditionalProperties {
                    known,
                    patterns,
                    node,
                } => call(
                    "rt::additional_properties",
                    tail(vec![
                        v(),
                        Arg::List(known.iter().map(|k| literal(k)).collect()),
                        Arg::List(patterns.iter().map(|pid| format!("&P{pid}")).collect()),
                        p(n(node)),
                    ]),
                ),
                Check::NoAdditionalProperties { known, patterns } => call(
                    "rt::no_additional_properties",
                    tail(vec![
                        v(),
                        Arg::List(known.iter().map(|k| literal(k)).collect()),
                        Arg::List(patterns.iter().map(|pid| format!("&P{pid}")).collect()),
                    ]),
                ),
                Check::Required(names) => call(
                    "rt::required",
                    tail(vec![
                        v(),
                        Arg::List(names.iter().map(|k| literal(k)).collect()),
                    ]),
                ),
                Check::MinProperties(x) => {
                    call("rt::min_properties", tail(vec![v(), p(x.to_string())]))
                }
                Check::MaxProperties(x) => {
                    call("rt::max_properties", tail(vec![v(), p(x.to_string())]))
                }
                Check::PropertyNames(node) => {
                    call("rt::property_names", tail(vec![v(), p(n(node))]))
                }
                Check::DependentRequired(deps) => call(
                    "rt::dependent_required",
                    tail(vec![
                        v(),
                        Arg::List(
                            deps.iter()
                                .map(|(k, req)| {
                                    format!(
                                        "({}, &[{}])",
                                        literal(k),
                                        req.iter()
                                            .map(|x| literal(x))
                                            .collect::<Vec<_>>()
                                            .join(", ")
                                    )
                                })
                                .collect(),
                        ),
                    ]),
                ),
                Check::DependentSchemas(deps) => call(
                    "rt::dependent_schemas",
                    tail(vec![
                        v(),
                        Arg::List(
                            deps.iter()
                                .map(|(k, id)| format!("({}, n{id})", literal(k)))
                                .collect(),
                        ),
                    ]),
                ),
                Check::Ref(node) => call(&n(node), tail(vec![v()])),
                Check::AnyOf(ns) => match fused_patterns(ir, ns) {
                    Some((translated, fused)) => {
                        let aid = format!("{id}_{k}");
                        fused_statics.push(make_static(
                            aid.clone(),
                            vec![raw_literal(&translated)],
                            "A",
                            "alternation",
                        ));
                        let rest = ns.iter().filter(|b| !fused.contains(b)).map(n).collect();
                        call(
                            "rt::any_of_pattern",
                            tail(vec![
                                v(),
                                Arg::List(rest),
                                p(format!("&A{aid}")),
                                Arg::List(fused.iter().map(n).collect()),
                            ]),
                        )
                    }
                    None => call(
                        "rt::any_of",
                        tail(vec![v(), Arg::List(ns.iter().map(n).collect())]),
                    ),
                },
                Check::OneOf(ns) => call(
                    "rt::one_of",
                    tail(vec![v(), Arg::List(ns.iter().map(n).collect())]),
                ),
                Check::Not(node) => call("rt::not", tail(vec![v(), p(n(node))])),
                Check::IfThenElse {
                    cond,
                    then,
                    otherwise,
                } => {
                    let opt =
                        |o: &Option<usize>| o.map_or("None".to_string(), |x| format!("Some(n{x})"));
                    call(
                        "rt::if_then_else",
                        tail(vec![v(), p(n(cond)), p(opt(then)), p(opt(otherwise))]),
                    )
                }
                Check::UnevaluatedProperties { ann, node }
                | Check::UnevaluatedItems { ann, node, .. } => {
                    let cid = format!("{id}_{k}");
                    constants.push(make_static(
                        cid.clone(),
                        vec![raw_literal(&ann.to_json().to_string())],
                        "C",
                        "json",
                    ));
                    let func = if matches!(check, Check::UnevaluatedItems { .. }) {
                        "rt::unevaluated_items"
                    } else {
                        "rt::unevaluated_properties"
                    };
                    let sub = node.map_or("None".to_string(), |x| format!("Some(n{x})"));
                    call(
                        func,
                        tail(vec![
                            v(),
                            p(format!("&C{cid}")),
                            Arg::List(ann.nodes.iter().map(n).collect()),
                            Arg::List(ann.patterns.iter().map(|pid| format!("&P{pid}")).collect()),
                            p(sub),
                        ]),
                    )
                }
            };
            calls.push(c);
            k += 1;
        }
        nodes.push(NodeCtx {
            id,
            origin: escape::rust::line(&node.origin.to_string()),
            guarded: depth.guarded(id),
            calls,
            object,
            key,
        });
    }
    let patterns: Vec<Static> = ir
        .program
        .patterns
        .iter()
        .enumerate()
        .map(|(i, pat)| match rust_linear(&pat.source) {
            Some(t) => make_static(
                i.to_string(),
                vec![raw_literal(&t), raw_literal(&pat.source)],
                "P",
                "linear",
            ),
            None => make_static(i.to_string(), vec![raw_literal(&pat.source)], "P", "ecma"),
        })
        .chain(fused_statics)
        .collect();
    let imports = imports(&patterns, &constants, &nodes);
    run(
        "rust/validators.rs.j2",
        &ValidatorsTemplate {
            header: GENERATED,
            imports,
            patterns,
            constants,
            nodes,
        },
    )
}

/// The pattern for the `regex` crate: the linear engine's translation, also for a pattern the
/// ECMA-262 engine would run in linear time (see [`rust_translation`]); `None` for a pattern
/// that keeps the backtracking engine.
/// The branches of an `anyOf` that check nothing but a `pattern` the `regex` crate runs, when
/// there are two or more: one alternation of their translations, and the branches it stands
/// for. A string matches the alternation exactly when it matches one of them, and a value that
/// is not a string passes every such branch, so `rt::any_of_pattern` gives `anyOf`'s verdict
/// with one search instead of one per branch (tsconfig.json's `lib`: some thirty patterns), and
/// runs the branches themselves should the crate refuse the alternation (its size limit).
/// Patterns with named groups stay apart: two of the same name would not compile as one.
fn fused_patterns(ir: &Ir, branches: &[NodeId]) -> Option<(String, Vec<NodeId>)> {
    let mut fused = Vec::new();
    let mut translated = Vec::new();
    for &b in branches {
        let [Check::Pattern(pid)] = ir.program.nodes[b].checks.as_slice() else {
            continue;
        };
        let pat = &ir.program.patterns[*pid].source;
        let Some(t) = rust_linear(pat) else { continue };
        if pat.contains("(?<") || t.contains("(?P<") || t.contains("(?<") {
            continue;
        }
        fused.push(b);
        translated.push(format!("(?:{t})"));
    }
    (fused.len() >= 2).then(|| (translated.join("|"), fused))
}

fn rust_linear(source: &str) -> Option<String> {
    match plan(source) {
        Plan::Linear { rust, .. } => Some(rust),
        Plan::Backtracking => rust_translation(source),
        Plan::Hazard { .. } => None,
    }
}

/// `self as rt, Loc, …`: only the runtime items some validator names, so the module has no
/// unused import.
fn imports(patterns: &[Static], constants: &[Static], nodes: &[NodeCtx]) -> String {
    let mut text = String::new();
    for c in nodes.iter().flat_map(|n| &n.calls) {
        text.push_str(&c.func);
        text.push(' ');
        text.push_str(&c.head);
        for a in &c.args {
            match a {
                Arg::Plain(s) => text.push_str(s),
                Arg::List(items) => items.iter().for_each(|i| text.push_str(i)),
            }
            text.push(' ');
        }
    }
    // Schema text inside string literals (a property named `Format::Date`) is no use.
    let text = without_literals(&text);
    let uses = |item: &str| {
        text.match_indices(&format!("{item}::")).any(|(i, _)| {
            !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        })
    };
    let mut items = Vec::new();
    let guarded = nodes.iter().any(|n| n.guarded);
    if uses("rt") || guarded || !patterns.is_empty() || !constants.is_empty() {
        items.push("self as rt");
    }
    if patterns.iter().any(|p| p.kind == "A") {
        items.push("Alternation");
    }
    if !constants.is_empty() {
        items.push("Constant");
    }
    if uses("Format") {
        items.push("Format");
    }
    if !nodes.is_empty() {
        items.push("Loc");
    }
    if patterns.iter().any(|p| p.kind == "P") {
        items.push("Matcher");
    }
    if !nodes.is_empty() {
        items.push("Report");
    }
    if uses("Type") {
        items.push("Type");
    }
    if !nodes.is_empty() {
        items.push("Value");
    }
    match items.as_slice() {
        [] => String::new(),
        ["self as rt"] => "use super::runtime as rt;\n".into(),
        [one] => format!("use super::runtime::{one};\n"),
        _ => {
            let line = format!("use super::runtime::{{{}}};\n", items.join(", "));
            // rustfmt keeps a `use` list on one line up to 98 columns.
            if line.len() <= 99 {
                return line;
            }
            // As rustfmt wraps a long list: the items on indented lines of at most 100 columns.
            let mut out = String::from("use super::runtime::{\n");
            let mut row = String::new();
            for item in &items {
                if !row.is_empty() && 4 + row.len() + 1 + item.len() + 1 > 100 {
                    out.push_str(&format!("    {row}\n"));
                    row.clear();
                }
                if !row.is_empty() {
                    row.push(' ');
                }
                row.push_str(item);
                row.push(',');
            }
            out.push_str(&format!("    {row}\n}};\n"));
            out
        }
    }
}

/// Code text with the contents of its string literals (plain and raw, as `literal` and
/// `raw_literal` write them) removed.
fn without_literals(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find(['"', 'r']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let raw = tail.starts_with('r')
            && !head.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && tail[1..].trim_start_matches('#').starts_with('"');
        if raw {
            let hashes = tail[1..].len() - tail[1..].trim_start_matches('#').len();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = &tail[2 + hashes..];
            rest = body.find(&close).map_or("", |j| &body[j + close.len()..]);
            out.push_str("\"\"");
        } else if let Some(body) = tail.strip_prefix('"') {
            let mut end = body.len();
            let mut escaped = false;
            for (j, c) in body.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => {
                        end = j + 1;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &body[end.min(body.len())..];
            out.push_str("\"\"");
        } else {
            out.push('r');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn literals_are_no_code() {
        let code = r##"rt::x("Format::Date \" Type::Null", r#"a"Pattern::p"#, Loc) Format::Uri"##;
        assert_eq!(
            super::without_literals(code),
            r#"rt::x("", "", Loc) Format::Uri"#
        );
    }
}
