//! The structural comparison of two validation programs, type by type: what changed, and what
//! each change may do to each role. Every prediction here is checked by `confirm` on instances.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::ir::{Check, Ir, JsonType, NodeId};

/// What a change can do to one role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    Safe,
    /// Cannot be decided from the structure (a changed pattern, a changed conditional).
    Unknown,
    Breaking,
}

/// One structural change at an instance path inside a type.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// Instance location pattern inside the type (`/payload/items/*`; `""` for the value itself).
    pub path: String,
    /// The change class (`required-added`, `enum-value-removed`, …; see docs/evolution.md).
    pub class: &'static str,
    pub detail: String,
    /// Old producers → new consumers.
    pub reader: Effect,
    /// New producers → old consumers.
    pub writer: Effect,
}

/// The facts of one value's schema, with `$ref`s inside the same type and `allOf` flattened.
#[derive(Default)]
struct Facts {
    types: Option<BTreeSet<JsonType>>,
    values: Option<Vec<Value>>,
    num: BTreeMap<&'static str, f64>,
    count: BTreeMap<&'static str, u64>,
    patterns: BTreeSet<String>,
    formats: BTreeSet<&'static str>,
    unique: bool,
    items: Vec<NodeId>,
    prefix: Vec<Vec<NodeId>>,
    props: BTreeMap<String, Vec<NodeId>>,
    required: BTreeSet<String>,
    closed: bool,
    additional: Vec<NodeId>,
    pattern_props: BTreeSet<String>,
    refs: BTreeSet<String>,
    unions: Vec<(&'static str, Vec<NodeId>)>,
    conditionals: Vec<(String, Option<NodeId>, Option<NodeId>)>,
    other: Vec<String>,
}

/// One side of the comparison: the IR and where each named type's node is.
pub struct Side<'a> {
    pub ir: &'a Ir,
    /// Node → the key (`module#pointer`) of the named type it validates.
    pub named: HashMap<NodeId, String>,
}

impl<'a> Side<'a> {
    pub fn new(ir: &'a Ir, keys: &[String]) -> Self {
        let mut named = HashMap::new();
        for (t, k) in ir.types.iter().zip(keys) {
            named.entry(t.node).or_insert_with(|| k.clone());
        }
        Side { ir, named }
    }

    fn facts(&self, node: NodeId, start: NodeId) -> Facts {
        let mut f = Facts::default();
        let mut seen = HashSet::new();
        self.gather(node, start, &mut f, &mut seen);
        f
    }

    fn gather(&self, node: NodeId, start: NodeId, f: &mut Facts, seen: &mut HashSet<NodeId>) {
        if !seen.insert(node) || seen.len() > 64 {
            return;
        }
        let prog = &self.ir.program;
        let Some(n) = prog.nodes.get(node) else {
            return;
        };
        for c in &n.checks {
            match c {
                Check::False => f.values = Some(Vec::new()),
                Check::Type(ts) => {
                    let set: BTreeSet<JsonType> = ts.iter().copied().collect();
                    f.types = Some(match f.types.take() {
                        None => set,
                        Some(old) => old.intersection(&set).copied().collect(),
                    });
                }
                Check::Const(v) => f.values = Some(vec![v.clone()]),
                Check::Enum(vs) => f.values = Some(vs.clone()),
                Check::MinLength(n) => tighten(&mut f.count, "minLength", *n, true),
                Check::MaxLength(n) => tighten(&mut f.count, "maxLength", *n, false),
                Check::MinItems(n) => tighten(&mut f.count, "minItems", *n, true),
                Check::MaxItems(n) => tighten(&mut f.count, "maxItems", *n, false),
                Check::MinProperties(n) => tighten(&mut f.count, "minProperties", *n, true),
                Check::MaxProperties(n) => tighten(&mut f.count, "maxProperties", *n, false),
                Check::MaxWords(n) => tighten(&mut f.count, "x-max-words", *n, false),
                Check::Minimum(x) => {
                    f.num.insert("minimum", *x);
                }
                Check::Maximum(x) => {
                    f.num.insert("maximum", *x);
                }
                Check::ExclusiveMinimum(x) => {
                    f.num.insert("exclusiveMinimum", *x);
                }
                Check::ExclusiveMaximum(x) => {
                    f.num.insert("exclusiveMaximum", *x);
                }
                Check::MultipleOf(x) => {
                    f.num.insert("multipleOf", *x);
                }
                Check::Pattern(p) => {
                    f.patterns.insert(prog.patterns[*p].source.clone());
                }
                Check::Format(x) => {
                    f.formats.insert(x.as_str());
                }
                Check::UniqueItems => f.unique = true,
                Check::PrefixItems(ns) => f.prefix = ns.iter().map(|n| vec![*n]).collect(),
                Check::Items { node, .. } => f.items.push(*node),
                Check::NoItems { from, .. } => f.other.push(format!("no items after {from}")),
                Check::Contains { min, max, .. } => {
                    f.other.push(format!("contains (min {min}, max {max:?})"))
                }
                Check::Properties(ps) => {
                    for (name, n) in ps {
                        f.props.entry(name.clone()).or_default().push(*n);
                    }
                }
                Check::PatternProperties(ps) => {
                    for (p, _) in ps {
                        f.pattern_props.insert(prog.patterns[*p].source.clone());
                    }
                }
                Check::AdditionalProperties { node, .. } => f.additional.push(*node),
                Check::NoAdditionalProperties { .. } => f.closed = true,
                Check::Required(names) => f.required.extend(names.iter().cloned()),
                Check::PropertyNames(_) => f.other.push("propertyNames".into()),
                Check::DependentRequired(d) => f.other.push(format!("dependentRequired {d:?}")),
                Check::DependentSchemas(d) => f.other.push(format!(
                    "dependentSchemas {:?}",
                    d.iter().map(|x| &x.0).collect::<Vec<_>>()
                )),
                Check::Not(_) => f.other.push("not".into()),
                Check::UnevaluatedProperties { node, .. } => f
                    .other
                    .push(format!("unevaluatedProperties {}", self.describe(*node))),
                Check::UnevaluatedItems { node, .. } => f
                    .other
                    .push(format!("unevaluatedItems {}", self.describe(*node))),
                Check::Ref(target) => match self.named.get(target) {
                    Some(key) if *target != start => {
                        f.refs.insert(key.clone());
                    }
                    _ => self.gather(*target, start, f, seen),
                },
                Check::AnyOf(ns) => f.unions.push(("anyOf", ns.clone())),
                Check::OneOf(ns) => f.unions.push(("oneOf", ns.clone())),
                Check::IfThenElse {
                    cond,
                    then,
                    otherwise,
                } => f
                    .conditionals
                    .push((self.signature(*cond), *then, *otherwise)),
            }
        }
    }

    /// `false`, or the signature of an unevaluated check's subschema.
    fn describe(&self, node: Option<NodeId>) -> String {
        node.map_or("false".into(), |n| {
            format!("schema ({})", self.signature(n))
        })
    }

    /// A short description of a condition (`kind = "a"`), to match conditionals across versions.
    fn signature(&self, node: NodeId) -> String {
        let mut parts = Vec::new();
        let prog = &self.ir.program;
        for c in prog
            .nodes
            .get(node)
            .map(|n| n.checks.as_slice())
            .unwrap_or(&[])
        {
            match c {
                Check::Properties(ps) => {
                    for (name, n) in ps {
                        for c in &prog.nodes[*n].checks {
                            match c {
                                Check::Const(v) => parts.push(format!("{name} = {v}")),
                                Check::Enum(vs) => {
                                    parts.push(format!("{name} in {}", Value::Array(vs.clone())))
                                }
                                _ => {}
                            }
                        }
                    }
                }
                Check::Required(names) => parts.push(format!("has {}", names.join(", "))),
                _ => {}
            }
        }
        if parts.is_empty() {
            "a condition".into()
        } else {
            parts.join(" and ")
        }
    }
}

fn tighten(m: &mut BTreeMap<&'static str, u64>, k: &'static str, n: u64, lower: bool) {
    let v = m.entry(k).or_insert(n);
    *v = if lower { (*v).max(n) } else { (*v).min(n) };
}

/// Whether every instance of type set `a` is in type set `b` (`integer` is inside `number`).
fn types_within(a: &BTreeSet<JsonType>, b: &BTreeSet<JsonType>) -> bool {
    a.iter()
        .all(|t| b.contains(t) || (*t == JsonType::Integer && b.contains(&JsonType::Number)))
}

fn show_types(t: &Option<BTreeSet<JsonType>>) -> String {
    match t {
        None => "any".into(),
        Some(s) => s.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" | "),
    }
}

/// Compares the schemas of one type in two versions.
pub struct Compare<'a> {
    pub old: &'a Side<'a>,
    pub new: &'a Side<'a>,
    /// Whether the old consumer ignores unknown properties.
    pub ignore_unknown: bool,
    pub changes: Vec<Change>,
    seen: HashSet<(NodeId, NodeId)>,
}

use Effect::{Breaking, Safe, Unknown};

impl<'a> Compare<'a> {
    pub fn new(old: &'a Side<'a>, new: &'a Side<'a>, ignore_unknown: bool) -> Self {
        Compare {
            old,
            new,
            ignore_unknown,
            changes: Vec::new(),
            seen: HashSet::new(),
        }
    }

    fn push(&mut self, path: &str, class: &'static str, detail: String, r: Effect, w: Effect) {
        self.changes.push(Change {
            path: path.to_string(),
            class,
            detail,
            reader: r,
            writer: w,
        });
    }

    /// Compares node `o` (old) with node `n` (new), the roots of one type.
    pub fn types(&mut self, o: NodeId, n: NodeId) {
        self.seen.insert((o, n));
        self.compare(o, n, o, n, "");
    }

    /// Compares nested nodes; another named type's node is compared on its own, here only
    /// whether the same type is referred to.
    fn nodes(&mut self, o: NodeId, n: NodeId, os: NodeId, ns: NodeId, path: &str) {
        let (ka, kb) = (self.old.named.get(&o), self.new.named.get(&n));
        if ka.is_some() || kb.is_some() {
            // Another type (or an inline schema) that validates exactly alike is no change
            // (a definition moved or renamed, two properties that shared one schema split).
            let same = || {
                super::fingerprint(&self.old.ir.program, o)
                    == super::fingerprint(&self.new.ir.program, n)
            };
            if ka != kb && !same() {
                let show = |k: Option<&String>| {
                    k.map_or("an inline schema".to_string(), |k| format!("`{k}`"))
                };
                let d = format!("{} → {}", show(ka), show(kb));
                self.push(path, "ref-target-changed", d, Unknown, Unknown);
            }
            return;
        }
        if !self.seen.insert((o, n)) || self.seen.len() > 4096 {
            return;
        }
        self.compare(o, n, os, ns, path);
    }

    fn compare(&mut self, o: NodeId, n: NodeId, os: NodeId, ns: NodeId, path: &str) {
        let a = self.old.facts(o, os);
        let b = self.new.facts(n, ns);
        self.scalars(&a, &b, path);
        self.objects(&a, &b, path, os, ns);
        // Arrays.
        let (ai, bi) = (a.items.first(), b.items.first());
        match (ai, bi) {
            (Some(x), Some(y)) => self.nodes(*x, *y, os, ns, &format!("{path}/*")),
            (None, Some(_)) => self.push(
                path,
                "items-constrained",
                "items now have a schema".into(),
                Breaking,
                Safe,
            ),
            (Some(_), None) if a.prefix.is_empty() => self.push(
                path,
                "items-relaxed",
                "items no longer have a schema".into(),
                Safe,
                Breaking,
            ),
            _ => {}
        }
        for (i, (x, y)) in a.prefix.iter().zip(&b.prefix).enumerate() {
            self.nodes(x[0], y[0], os, ns, &format!("{path}/{i}"));
        }
        if a.prefix.len() != b.prefix.len() {
            let d = format!(
                "{} positional item schemas, was {}",
                b.prefix.len(),
                a.prefix.len()
            );
            self.push(path, "tuple-changed", d, Unknown, Unknown);
        }
        // References to other named types.
        if a.refs != b.refs {
            let d = format!("refers to {:?}, was {:?}", b.refs, a.refs);
            self.push(path, "ref-target-changed", d, Unknown, Unknown);
        }
        // Unions.
        let (ua, ub) = (a.unions.len(), b.unions.len());
        if ua != ub {
            let (r, w) = if ub > ua {
                (Breaking, Safe)
            } else {
                (Safe, Breaking)
            };
            self.push(
                path,
                "union-changed",
                format!("{ub} unions, was {ua}"),
                r,
                w,
            );
        }
        for ((ka, xa), (kb, xb)) in a.unions.iter().zip(&b.unions) {
            if xb.len() > xa.len() {
                let d = format!("{kb}: {} variants, was {}", xb.len(), xa.len());
                self.push(
                    path,
                    "variant-added",
                    d,
                    if *kb == "oneOf" { Unknown } else { Safe },
                    Breaking,
                );
            } else if xb.len() < xa.len() {
                let d = format!("{kb}: {} variants, was {}", xb.len(), xa.len());
                self.push(
                    path,
                    "variant-removed",
                    d,
                    Breaking,
                    if *kb == "oneOf" { Unknown } else { Safe },
                );
            } else if ka != kb {
                self.push(
                    path,
                    "union-changed",
                    format!("{kb}, was {ka}"),
                    Unknown,
                    Unknown,
                );
            }
            for (x, y) in xa.iter().zip(xb) {
                self.nodes(*x, *y, os, ns, path);
            }
        }
        let sigs = |f: &Facts| {
            f.conditionals
                .iter()
                .map(|c| c.0.clone())
                .collect::<Vec<_>>()
        };
        let (sa, sb) = (sigs(&a), sigs(&b));
        if sa != sb {
            let added: Vec<&String> = sb.iter().filter(|c| !sa.contains(c)).collect();
            let removed: Vec<&String> = sa.iter().filter(|c| !sb.contains(c)).collect();
            let d = format!("if/then rules added {added:?}, removed {removed:?}");
            self.push(path, "conditional-changed", d, Unknown, Unknown);
        }
        // Rules with the same condition: compare what they require.
        for (sig, ta, ea) in &a.conditionals {
            if let Some((_, tb, eb)) = b.conditionals.iter().find(|c| &c.0 == sig) {
                for (x, y) in [(ta, tb), (ea, eb)] {
                    match (x, y) {
                        (Some(x), Some(y)) => self.nodes(*x, *y, os, ns, path),
                        (None, None) => {}
                        _ => {
                            let d = format!("the consequence of `if {sig}` was added or removed");
                            self.push(path, "conditional-changed", d, Unknown, Unknown);
                        }
                    }
                }
            }
        }
        if a.other != b.other {
            let d = format!("{:?}, was {:?}", b.other, a.other);
            self.push(path, "constraint-changed", d, Unknown, Unknown);
        }
    }

    fn scalars(&mut self, a: &Facts, b: &Facts, path: &str) {
        match (&a.types, &b.types) {
            (x, y) if x == y => {}
            (Some(x), Some(y)) if types_within(x, y) => {
                let d = format!("{} → {}", show_types(&a.types), show_types(&b.types));
                self.push(path, "type-widened", d, Safe, Breaking)
            }
            (Some(x), Some(y)) if types_within(y, x) => {
                let d = format!("{} → {}", show_types(&a.types), show_types(&b.types));
                self.push(path, "type-narrowed", d, Breaking, Safe)
            }
            (Some(_), None) => {
                let d = format!("{} → any", show_types(&a.types));
                self.push(path, "type-widened", d, Safe, Breaking)
            }
            (None, Some(_)) => {
                let d = format!("any → {}", show_types(&b.types));
                self.push(path, "type-narrowed", d, Breaking, Safe)
            }
            _ => {
                let d = format!("{} → {}", show_types(&a.types), show_types(&b.types));
                self.push(path, "type-changed", d, Breaking, Breaking)
            }
        }
        match (&a.values, &b.values) {
            (Some(x), Some(y)) => {
                let removed: Vec<&Value> = x.iter().filter(|v| !y.contains(v)).collect();
                let added: Vec<&Value> = y.iter().filter(|v| !x.contains(v)).collect();
                if !removed.is_empty() {
                    self.push(path, "enum-value-removed", list(&removed), Breaking, Safe);
                }
                if !added.is_empty() {
                    self.push(path, "enum-value-added", list(&added), Safe, Breaking);
                }
            }
            (None, Some(y)) => self.push(
                path,
                "enum-added",
                format!("now one of {}", list(&y.iter().collect::<Vec<_>>())),
                Breaking,
                Safe,
            ),
            (Some(x), None) => self.push(
                path,
                "enum-removed",
                format!("was one of {}", list(&x.iter().collect::<Vec<_>>())),
                Safe,
                Breaking,
            ),
            _ => {}
        }
        let lower = |k: &str| k.starts_with("min") || k.starts_with("exclusiveMin");
        let keys: BTreeSet<&&str> = a.num.keys().chain(b.num.keys()).collect();
        for k in keys {
            let (x, y) = (a.num.get(*k), b.num.get(*k));
            let tighter = match (x, y) {
                (Some(x), Some(y)) if x == y => continue,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) if *k == "multipleOf" => {
                    let q = y / x;
                    if (q - q.round()).abs() < 1e-9 {
                        true
                    } else {
                        let d = format!("{k}: {x} → {y}");
                        self.push(path, "bound-changed", d, Breaking, Breaking);
                        continue;
                    }
                }
                (Some(x), Some(y)) => {
                    if lower(k) {
                        y > x
                    } else {
                        y < x
                    }
                }
                (None, None) => continue,
            };
            self.bound(path, k, fmt_opt(x), fmt_opt(y), tighter);
        }
        let keys: BTreeSet<&&str> = a.count.keys().chain(b.count.keys()).collect();
        for k in keys {
            let (x, y) = (a.count.get(*k), b.count.get(*k));
            let tighter = match (x, y) {
                (Some(x), Some(y)) if x == y => continue,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => {
                    if lower(k) {
                        y > x
                    } else {
                        y < x
                    }
                }
                (None, None) => continue,
            };
            self.bound(path, k, fmt_opt(x), fmt_opt(y), tighter);
        }
        for p in b.patterns.difference(&a.patterns) {
            let r = if a.patterns.is_empty() {
                Breaking
            } else {
                Unknown
            };
            self.push(
                path,
                "pattern-added",
                format!("/{p}/"),
                r,
                if a.patterns.is_empty() { Safe } else { Unknown },
            );
        }
        for p in a.patterns.difference(&b.patterns) {
            let w = if b.patterns.is_empty() {
                Breaking
            } else {
                Unknown
            };
            self.push(
                path,
                "pattern-removed",
                format!("/{p}/"),
                if b.patterns.is_empty() { Safe } else { Unknown },
                w,
            );
        }
        for f in b.formats.difference(&a.formats) {
            self.push(path, "format-added", f.to_string(), Breaking, Safe);
        }
        for f in a.formats.difference(&b.formats) {
            self.push(path, "format-removed", f.to_string(), Safe, Breaking);
        }
        if a.unique != b.unique {
            let (r, w) = if b.unique {
                (Breaking, Safe)
            } else {
                (Safe, Breaking)
            };
            self.push(
                path,
                "bound-changed",
                format!("uniqueItems: {} → {}", a.unique, b.unique),
                r,
                w,
            );
        }
    }

    fn bound(&mut self, path: &str, k: &str, x: String, y: String, tighter: bool) {
        let d = format!("{k}: {x} → {y}");
        if tighter {
            self.push(path, "bound-tightened", d, Breaking, Safe);
        } else {
            self.push(path, "bound-relaxed", d, Safe, Breaking);
        }
    }

    fn objects(&mut self, a: &Facts, b: &Facts, path: &str, os: NodeId, ns: NodeId) {
        let closed_writer = if self.ignore_unknown { Safe } else { Breaking };
        for (name, nodes) in &b.props {
            let p = format!("{path}/{}", esc(name));
            match a.props.get(name) {
                Some(old) => self.nodes(old[0], nodes[0], os, ns, &p),
                None => {
                    let w = if a.closed { closed_writer } else { Safe };
                    let req = if b.required.contains(name) {
                        "required"
                    } else {
                        "optional"
                    };
                    self.push(
                        &p,
                        "property-added",
                        format!("{req} property `{name}`"),
                        Safe,
                        w,
                    );
                }
            }
        }
        for name in a.props.keys().filter(|n| !b.props.contains_key(*n)) {
            let p = format!("{path}/{}", esc(name));
            let r = if b.closed { Breaking } else { Safe };
            self.push(
                &p,
                "property-removed",
                format!("property `{name}`"),
                r,
                Safe,
            );
        }
        for name in b.required.difference(&a.required) {
            self.push(
                path,
                "required-added",
                format!("`{name}` is now required"),
                Breaking,
                Safe,
            );
        }
        for name in a.required.difference(&b.required) {
            self.push(
                path,
                "required-removed",
                format!("`{name}` is no longer required"),
                Safe,
                Breaking,
            );
        }
        if a.closed != b.closed {
            if b.closed {
                self.push(
                    path,
                    "additional-properties-closed",
                    "additionalProperties: false added".into(),
                    Breaking,
                    Safe,
                );
            } else {
                self.push(
                    path,
                    "additional-properties-opened",
                    "additionalProperties: false removed".into(),
                    Safe,
                    closed_writer,
                );
            }
        }
        match (a.additional.first(), b.additional.first()) {
            (Some(x), Some(y)) => self.nodes(*x, *y, os, ns, &format!("{path}/{{*}}")),
            (None, Some(_)) if !a.closed => self.push(
                path,
                "additional-properties-constrained",
                "unknown properties now have a schema".into(),
                Breaking,
                Safe,
            ),
            (Some(_), None) if !b.closed => self.push(
                path,
                "additional-properties-relaxed",
                "unknown properties no longer have a schema".into(),
                Safe,
                closed_writer,
            ),
            _ => {}
        }
        if a.pattern_props != b.pattern_props {
            let d = format!("{:?} → {:?}", a.pattern_props, b.pattern_props);
            self.push(path, "pattern-properties-changed", d, Unknown, Unknown);
        }
    }
}

fn esc(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn fmt_opt<T: std::fmt::Display>(x: Option<&T>) -> String {
    x.map_or("none".into(), |x| x.to_string())
}

fn list(vs: &[&Value]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
