//! An interpreter of the validation program (`ir::Program`): the rules of `docs/validation.md`,
//! which every generated validator implements, run in-process on two versions of a schema.
//! String formats are checked by the very code the generated Rust crate ships
//! (`templates/rust/formats.rs.j2`, compiled here as a module).

use serde_json::Value;

use crate::ir::{Annotations, Check, JsonType, NodeId, Program};

/// The format checks of the generated Rust runtime, compiled from its template.
#[rustfmt::skip]
#[allow(dead_code, clippy::all)]
#[path = "../../templates/rust/formats.rs.j2"]
mod formats;

/// What `formats.rs.j2` imports from its runtime: the same variants as `ir::Format`.
mod runtime {
    pub use crate::ir::Format;
}

/// How deep the program may nest before an instance is rejected as too deep (a guard against
/// `$ref` cycles that consume no instance).
const MAX_DEPTH: usize = 512;

/// A violation: the instance's JSON Pointer and the keyword.
pub type Violation = (String, &'static str);

/// How a consumer treats properties its schema does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unknown {
    /// As the schema says (`additionalProperties: false` rejects them).
    #[default]
    Schema,
    /// Ignored: `additionalProperties` (false or a schema) is not applied, as a consumer that
    /// follows "consumers MUST ignore unknown fields" would read.
    Ignore,
}

/// The validation program of one schema set, ready to run.
pub struct Interp<'a> {
    prog: &'a Program,
    regexes: Vec<Option<regress::Regex>>,
    unknown: Unknown,
}

struct Run<'r> {
    out: Option<&'r mut Vec<Violation>>,
    depth: usize,
}

impl<'a> Interp<'a> {
    pub fn new(prog: &'a Program, unknown: Unknown) -> Self {
        let regexes = prog
            .patterns
            .iter()
            .map(|p| regress::Regex::with_flags(&p.source, "u").ok())
            .collect();
        Interp {
            prog,
            regexes,
            unknown,
        }
    }

    pub fn program(&self) -> &Program {
        self.prog
    }

    /// How this interpreter treats properties the schema does not know.
    pub fn unknown(&self) -> Unknown {
        self.unknown
    }

    /// Whether `pattern` (by id) finds a match in `s` (an uncompilable pattern matches nothing,
    /// as in the generated runtime).
    pub fn matches(&self, pattern: usize, s: &str) -> bool {
        self.regexes
            .get(pattern)
            .and_then(Option::as_ref)
            .is_some_and(|re| re.find(s).is_some())
    }

    pub fn valid(&self, node: NodeId, v: &Value) -> bool {
        let mut run = Run {
            out: None,
            depth: 0,
        };
        self.node(node, v, &mut String::new(), &mut run)
    }

    /// Every violation, as `(pointer, keyword)`, in the order the generated validators find them.
    pub fn errors(&self, node: NodeId, v: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        let mut run = Run {
            out: Some(&mut out),
            depth: 0,
        };
        self.node(node, v, &mut String::new(), &mut run);
        out
    }

    fn quick(&self, node: NodeId, v: &Value, depth: usize) -> bool {
        let mut run = Run { out: None, depth };
        self.node(node, v, &mut String::new(), &mut run)
    }

    fn node(&self, id: NodeId, v: &Value, at: &mut String, run: &mut Run<'_>) -> bool {
        let Some(node) = self.prog.nodes.get(id) else {
            return fail(run, at, "false");
        };
        if run.depth >= MAX_DEPTH {
            return fail(run, at, "false");
        }
        run.depth += 1;
        let mut ok = true;
        for c in &node.checks {
            ok &= self.check(c, v, at, run);
            if !ok && run.out.is_none() {
                break;
            }
        }
        run.depth -= 1;
        ok
    }

    fn child(&self, id: NodeId, v: &Value, at: &mut String, seg: &str, run: &mut Run<'_>) -> bool {
        let len = at.len();
        at.push('/');
        at.push_str(&seg.replace('~', "~0").replace('/', "~1"));
        let ok = self.node(id, v, at, run);
        at.truncate(len);
        ok
    }

    fn check(&self, c: &Check, v: &Value, at: &mut String, run: &mut Run<'_>) -> bool {
        let d = run.depth;
        match c {
            Check::False => fail(run, at, "false"),
            Check::Type(ts) => ts.iter().any(|t| has_type(v, *t)) || fail(run, at, "type"),
            Check::Const(c) => equal(v, c) || fail(run, at, "const"),
            Check::Enum(cs) => cs.iter().any(|c| equal(v, c)) || fail(run, at, "enum"),
            Check::MinLength(n) => {
                str_ok(v, |s| s.chars().count() as u64 >= *n) || fail(run, at, "minLength")
            }
            Check::MaxLength(n) => {
                str_ok(v, |s| s.chars().count() as u64 <= *n) || fail(run, at, "maxLength")
            }
            Check::Pattern(p) => str_ok(v, |s| self.matches(*p, s)) || fail(run, at, "pattern"),
            Check::Format(f) => str_ok(v, |s| formats::check(*f, s)) || fail(run, at, "format"),
            Check::MaxWords(n) => {
                str_ok(v, |s| count_words(s) as u64 <= *n) || fail(run, at, "x-max-words")
            }
            Check::Minimum(n) => num_ok(v, |x| x >= *n) || fail(run, at, "minimum"),
            Check::Maximum(n) => num_ok(v, |x| x <= *n) || fail(run, at, "maximum"),
            Check::ExclusiveMinimum(n) => {
                num_ok(v, |x| x > *n) || fail(run, at, "exclusiveMinimum")
            }
            Check::ExclusiveMaximum(n) => {
                num_ok(v, |x| x < *n) || fail(run, at, "exclusiveMaximum")
            }
            Check::MultipleOf(m) => {
                num_ok(v, |x| multiple_of(x, *m)) || fail(run, at, "multipleOf")
            }
            Check::MinItems(n) => {
                v.as_array().is_none_or(|a| a.len() as u64 >= *n) || fail(run, at, "minItems")
            }
            Check::MaxItems(n) => {
                v.as_array().is_none_or(|a| a.len() as u64 <= *n) || fail(run, at, "maxItems")
            }
            Check::UniqueItems => {
                let dup = v.as_array().is_some_and(|a| {
                    (0..a.len()).any(|i| (i + 1..a.len()).any(|j| equal(&a[i], &a[j])))
                });
                !dup || fail(run, at, "uniqueItems")
            }
            Check::PrefixItems(ns) => {
                let Some(a) = v.as_array() else { return true };
                let mut ok = true;
                for (i, (item, n)) in a.iter().zip(ns).enumerate() {
                    ok &= self.child(*n, item, at, &i.to_string(), run);
                }
                ok
            }
            Check::Items { from, node } => {
                let Some(a) = v.as_array() else { return true };
                let mut ok = true;
                for (i, item) in a.iter().enumerate().skip(*from) {
                    ok &= self.child(*node, item, at, &i.to_string(), run);
                }
                ok
            }
            Check::NoItems { from, keyword } => {
                let Some(a) = v.as_array() else { return true };
                let mut ok = true;
                for i in *from..a.len() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    ok &= fail(run, at, keyword);
                    at.truncate(len);
                }
                ok
            }
            Check::Contains { node, min, max } => {
                let Some(a) = v.as_array() else { return true };
                let count = a.iter().filter(|i| self.quick(*node, i, d)).count() as u64;
                let mut ok = true;
                if count < *min {
                    ok &= fail(run, at, "contains");
                }
                if max.is_some_and(|m| count > m) {
                    ok &= fail(run, at, "maxContains");
                }
                ok
            }
            Check::Properties(ps) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for (name, n) in ps {
                    if let Some(x) = o.get(name) {
                        ok &= self.child(*n, x, at, name, run);
                    }
                }
                ok
            }
            Check::PatternProperties(ps) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for (name, x) in o {
                    for (p, n) in ps {
                        if self.matches(*p, name) {
                            ok &= self.child(*n, x, at, name, run);
                        }
                    }
                }
                ok
            }
            Check::AdditionalProperties {
                known,
                patterns,
                node,
            } => {
                if self.unknown == Unknown::Ignore {
                    return true;
                }
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for (name, x) in o {
                    if self.is_additional(name, known, patterns) {
                        ok &= self.child(*node, x, at, name, run);
                    }
                }
                ok
            }
            Check::NoAdditionalProperties { known, patterns } => {
                self.unknown == Unknown::Ignore
                    || v.as_object()
                        .is_none_or(|o| !o.keys().any(|n| self.is_additional(n, known, patterns)))
                    || fail(run, at, "additionalProperties")
            }
            Check::Required(names) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for n in names {
                    if !o.contains_key(n) {
                        ok &= fail(run, at, "required");
                    }
                }
                ok
            }
            Check::MinProperties(n) => {
                v.as_object().is_none_or(|o| o.len() as u64 >= *n) || fail(run, at, "minProperties")
            }
            Check::MaxProperties(n) => {
                v.as_object().is_none_or(|o| o.len() as u64 <= *n) || fail(run, at, "maxProperties")
            }
            Check::PropertyNames(node) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for name in o.keys() {
                    if !self.quick(*node, &Value::String(name.clone()), d) {
                        ok &= fail(run, at, "propertyNames");
                    }
                }
                ok
            }
            Check::DependentRequired(deps) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for (name, needed) in deps {
                    if o.contains_key(name) {
                        for n in needed {
                            if !o.contains_key(n) {
                                ok &= fail(run, at, "dependentRequired");
                            }
                        }
                    }
                }
                ok
            }
            Check::DependentSchemas(deps) => {
                let Some(o) = v.as_object() else { return true };
                let mut ok = true;
                for (name, n) in deps {
                    if o.contains_key(name) {
                        ok &= self.node(*n, v, at, run);
                    }
                }
                ok
            }
            Check::Ref(n) => self.node(*n, v, at, run),
            Check::AnyOf(ns) => ns.iter().any(|n| self.quick(*n, v, d)) || fail(run, at, "anyOf"),
            Check::OneOf(ns) => {
                ns.iter().filter(|n| self.quick(**n, v, d)).count() == 1 || fail(run, at, "oneOf")
            }
            Check::Not(n) => !self.quick(*n, v, d) || fail(run, at, "not"),
            Check::IfThenElse {
                cond,
                then,
                otherwise,
            } => {
                let branch = if self.quick(*cond, v, d) {
                    then
                } else {
                    otherwise
                };
                branch.is_none_or(|n| self.node(n, v, at, run))
            }
            Check::UnevaluatedProperties { ann, node } => {
                let Some(o) = v.as_object() else { return true };
                let Some(seen) = self.evaluated(ann, v, d) else {
                    return true;
                };
                let mut ok = true;
                for (name, x) in o {
                    let pats = seen.patterns.iter().any(|p| self.matches(*p, name));
                    if seen.names.contains(&name.as_str()) || pats {
                        continue;
                    }
                    ok &= match node {
                        Some(n) => self.child(*n, x, at, name, run),
                        None => self.fail_at(run, at, name, "unevaluatedProperties"),
                    };
                    if !ok && run.out.is_none() {
                        return false;
                    }
                }
                ok
            }
            Check::UnevaluatedItems { ann, node, .. } => {
                let Some(a) = v.as_array() else { return true };
                let Some(seen) = self.evaluated(ann, v, d) else {
                    return true;
                };
                let mut ok = true;
                for (i, x) in a.iter().enumerate().skip(seen.prefix) {
                    if seen.contains.iter().any(|n| self.quick(*n, x, d + 1)) {
                        continue;
                    }
                    ok &= match node {
                        Some(n) => self.child(*n, x, at, &i.to_string(), run),
                        None => self.fail_at(run, at, &i.to_string(), "unevaluatedItems"),
                    };
                    if !ok && run.out.is_none() {
                        return false;
                    }
                }
                ok
            }
        }
    }

    fn fail_at(&self, run: &mut Run<'_>, at: &mut String, seg: &str, kw: &'static str) -> bool {
        let len = at.len();
        at.push('/');
        at.push_str(&seg.replace('~', "~0").replace('/', "~1"));
        fail(run, at, kw);
        at.truncate(len);
        false
    }

    /// What the table of an unevaluated check marks evaluated on `v` (`None`: everything): the
    /// walk of `docs/validation.md`, "Unevaluated properties and items".
    fn evaluated<'t>(&self, ann: &'t Annotations, v: &Value, d: usize) -> Option<Seen<'t>> {
        let mut seen = Seen {
            names: Vec::new(),
            patterns: Vec::new(),
            prefix: 0,
            contains: Vec::new(),
        };
        let mut valid: Vec<Option<bool>> = vec![None; ann.nodes.len()];
        let mut is_valid =
            |k: usize| *valid[k].get_or_insert_with(|| self.quick(ann.nodes[k], v, d));
        let mut visited = vec![false; ann.entries.len()];
        let mut stack = vec![0];
        while let Some(e) = stack.pop() {
            if std::mem::replace(&mut visited[e], true) {
                continue;
            }
            let entry = &ann.entries[e];
            if entry.all {
                return None;
            }
            seen.names.extend(entry.names.iter().map(String::as_str));
            seen.patterns
                .extend(entry.patterns.iter().map(|p| ann.patterns[*p]));
            seen.prefix = seen.prefix.max(entry.prefix);
            seen.contains
                .extend(entry.contains.iter().map(|n| ann.nodes[*n]));
            for g in entry.edges.iter().rev() {
                let has = g.has.iter().all(|h| v.get(h).is_some());
                if has
                    && g.valid.iter().all(|k| is_valid(*k))
                    && g.invalid.iter().all(|k| !is_valid(*k))
                {
                    stack.push(g.to);
                }
            }
        }
        Some(seen)
    }

    fn is_additional(&self, name: &str, known: &[String], patterns: &[usize]) -> bool {
        !known.iter().any(|k| k == name) && !patterns.iter().any(|p| self.matches(*p, name))
    }
}

/// The properties and items an unevaluated check's table marks evaluated.
struct Seen<'t> {
    names: Vec<&'t str>,
    patterns: Vec<usize>,
    prefix: usize,
    contains: Vec<NodeId>,
}

fn fail(run: &mut Run<'_>, at: &str, keyword: &'static str) -> bool {
    if let Some(out) = run.out.as_deref_mut() {
        out.push((at.to_string(), keyword));
    }
    false
}

fn str_ok(v: &Value, ok: impl Fn(&str) -> bool) -> bool {
    v.as_str().is_none_or(ok)
}

fn num_ok(v: &Value, ok: impl Fn(f64) -> bool) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_none_or(ok),
        _ => true,
    }
}

fn multiple_of(x: f64, m: f64) -> bool {
    let q = x / m;
    if q.is_infinite() && x.is_finite() {
        // The quotient overflows: the exact remainder decides (`1e308` of `0.5`).
        return x % m == 0.0;
    }
    q.is_finite() && (q - (q + 0.5).floor()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// Words are maximal runs of characters other than ASCII whitespace.
fn count_words(s: &str) -> usize {
    s.split([' ', '\t', '\n', '\u{b}', '\u{c}', '\r'])
        .filter(|w| !w.is_empty())
        .count()
}

pub fn has_type(v: &Value, t: JsonType) -> bool {
    match t {
        JsonType::Null => v.is_null(),
        JsonType::Boolean => v.is_boolean(),
        JsonType::Object => v.is_object(),
        JsonType::Array => v.is_array(),
        JsonType::Number => v.is_number(),
        JsonType::String => v.is_string(),
        JsonType::Integer => match v {
            Value::Number(n) => {
                n.is_i64()
                    || n.is_u64()
                    || n.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            _ => false,
        },
    }
}

/// JSON equality: numbers by value, objects regardless of key order.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}
