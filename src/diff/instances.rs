//! Instances of a schema: random candidates built from a node's checks (required properties,
//! types, enums, bounds, patterns, formats, unions), kept when the interpreter accepts them.

use std::collections::{HashMap, HashSet};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Map, Number, Value};

use super::formats::format_value;
use super::interp::{has_type, Interp};
use super::language::{generable, Generable};
use crate::ir::{Check, Format, JsonType, NodeId};

/// How deep generated values nest before only required properties and minimal arrays are built.
const DEEP: usize = 6;
/// Past this depth only `null` is built (a required property that contains itself).
const LIMIT: usize = 24;
/// Lengths and counts are capped here, whatever the schema asks.
const CAP: u64 = 256;

/// A value no instance can equal: what a `false` schema asks for.
static UNSATISFIABLE: Value = Value::String(String::new());

/// The constraints of several nodes on one value, with `$ref`s and one chosen branch of each
/// union flattened in.
#[derive(Default)]
struct Conj<'p> {
    types: Option<Vec<JsonType>>,
    consts: Vec<&'p Value>,
    enums: Vec<&'p [Value]>,
    min_len: u64,
    max_len: Option<u64>,
    patterns: Vec<usize>,
    formats: Vec<Format>,
    min: Option<f64>,
    max: Option<f64>,
    excl_min: Option<f64>,
    excl_max: Option<f64>,
    multiple: Option<f64>,
    min_items: u64,
    max_items: Option<u64>,
    unique: bool,
    prefix: Vec<Vec<NodeId>>,
    items: Vec<(usize, NodeId)>,
    no_items: Option<usize>,
    contains: Vec<NodeId>,
    /// The `properties` lists of every node, in order (looked up only when an object is built).
    props: Vec<&'p [(String, NodeId)]>,
    /// What the condition of an `if` chosen to hold asks (`const`s, `properties`): applied after
    /// what the schema itself asks, so that a discriminator the type fixes wins over a rule's.
    soft_consts: Vec<&'p Value>,
    soft_props: Vec<&'p [(String, NodeId)]>,
    required: Vec<&'p str>,
    pattern_props: Vec<(usize, NodeId)>,
    additional: Vec<NodeId>,
    closed: bool,
    min_props: u64,
    max_props: Option<u64>,
    dependent: Vec<&'p (String, Vec<String>)>,
    object_hint: bool,
    array_hint: bool,
    string_hint: bool,
    number_hint: bool,
}

/// A seeded generator of instances for one validation program.
pub struct Gen<'a> {
    interp: &'a Interp<'a>,
    rng: SmallRng,
    /// Probability of adding a property the schema does not list (where it allows one).
    pub extra: f64,
    /// Values left to build in this candidate; at 0 only what is required is built.
    left: usize,
    /// Compiled generators of the patterns met so far (`None`: not generable).
    regexes: HashMap<String, Option<Generable>>,
    /// `if`/`then`/`else` decisions imposed on the value being built (by the condition's node:
    /// `true` builds the condition and `then`), and those the last collection took.
    forced: HashMap<NodeId, bool>,
    rules: Vec<(NodeId, bool)>,
    /// Random choices (union branches, rules) the last collection made.
    choices: usize,
    /// Inside the condition of an `if` being collected.
    in_cond: usize,
    /// How many values a union branch has, when finitely few (see `branch`).
    sizes: HashMap<NodeId, Option<usize>>,
}

const ALL_TYPES: [JsonType; 6] = [
    JsonType::Null,
    JsonType::Boolean,
    JsonType::Object,
    JsonType::Array,
    JsonType::Number,
    JsonType::String,
];

impl<'a> Gen<'a> {
    pub fn new(interp: &'a Interp<'a>, seed: u64) -> Self {
        Gen {
            interp,
            rng: SmallRng::seed_from_u64(seed),
            extra: 0.15,
            left: 0,
            regexes: HashMap::new(),
            forced: HashMap::new(),
            rules: Vec::new(),
            choices: 0,
            in_cond: 0,
            sizes: HashMap::new(),
        }
    }

    pub fn coin(&mut self, p: f64) -> bool {
        self.rng.random_bool(p.clamp(0.0, 1.0))
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.rng.random_range(0..n)
        }
    }

    /// Up to `want` distinct valid instances of `node`, trying at most `tries` candidates.
    pub fn valid(&mut self, node: NodeId, want: usize, tries: usize) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        for _ in 0..tries {
            if out.len() >= want {
                break;
            }
            let v = self.candidate(node);
            if self.interp.valid(node, &v) && !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// One candidate for `node` (not necessarily valid).
    pub fn candidate(&mut self, node: NodeId) -> Value {
        self.left = 400;
        self.value(&[node], 0)
    }

    /// A branch of a union, at random; a branch with only a few values (`null`, a boolean, a
    /// short enum) is picked less often than one with many, whose instances are the ones left
    /// to find after a few hundred.
    fn branch(&mut self, ns: &[NodeId]) -> NodeId {
        let interp = self.interp;
        let weights: Vec<f64> =
            ns.iter()
                .map(|n| {
                    let size = *self.sizes.entry(*n).or_insert_with(|| {
                        super::finite::enumerate(interp, *n, 16).map(|v| v.len())
                    });
                    size.map_or(4.0, |k| 0.25 * k.max(1) as f64)
                })
                .collect();
        let total: f64 = weights.iter().sum();
        let mut x = self.rng.random::<f64>() * total;
        for (n, w) in ns.iter().zip(&weights) {
            if x < *w {
                return *n;
            }
            x -= w;
        }
        ns[ns.len() - 1]
    }

    fn collect(&mut self, node: NodeId, c: &mut Conj<'a>, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let interp = self.interp;
        let Some(n) = interp.program().nodes.get(node) else {
            return;
        };
        for check in &n.checks {
            match check {
                Check::False => c.consts.push(&UNSATISFIABLE),
                Check::Type(ts) => {
                    c.types = Some(match c.types.take() {
                        None => ts.clone(),
                        Some(old) => intersect(&old, ts),
                    })
                }
                Check::Const(v) if self.in_cond > 0 => c.soft_consts.push(v),
                Check::Const(v) => c.consts.push(v),
                Check::Enum(vs) => c.enums.push(vs),
                Check::MinLength(n) => c.min_len = c.min_len.max(*n),
                Check::MaxLength(n) => c.max_len = Some(c.max_len.map_or(*n, |m| m.min(*n))),
                Check::Pattern(p) => c.patterns.push(*p),
                Check::Format(f) => c.formats.push(*f),
                Check::MaxWords(_) => c.string_hint = true,
                Check::Minimum(x) => c.min = Some(c.min.map_or(*x, |m| m.max(*x))),
                Check::Maximum(x) => c.max = Some(c.max.map_or(*x, |m| m.min(*x))),
                Check::ExclusiveMinimum(x) => {
                    c.excl_min = Some(c.excl_min.map_or(*x, |m| m.max(*x)))
                }
                Check::ExclusiveMaximum(x) => {
                    c.excl_max = Some(c.excl_max.map_or(*x, |m| m.min(*x)))
                }
                Check::MultipleOf(m) => c.multiple = Some(*m),
                Check::MinItems(n) => c.min_items = c.min_items.max(*n),
                Check::MaxItems(n) => c.max_items = Some(c.max_items.map_or(*n, |m| m.min(*n))),
                Check::UniqueItems => c.unique = true,
                Check::PrefixItems(ns) => {
                    for (i, n) in ns.iter().copied().enumerate() {
                        if c.prefix.len() <= i {
                            c.prefix.push(Vec::new());
                        }
                        c.prefix[i].push(n);
                    }
                    c.array_hint = true;
                }
                Check::Items { from, node } => {
                    c.items.push((*from, *node));
                    c.array_hint = true;
                }
                Check::NoItems { from, .. } => {
                    c.no_items = Some(c.no_items.map_or(*from, |f| f.min(*from)))
                }
                Check::Contains { node, min, .. } => {
                    if *min > 0 {
                        c.contains.push(*node);
                    }
                    c.array_hint = true;
                }
                Check::Properties(ps) => {
                    if self.in_cond > 0 {
                        c.soft_props.push(ps);
                    } else {
                        c.props.push(ps);
                    }
                    c.object_hint = true;
                }
                Check::PatternProperties(ps) => c.pattern_props.extend(ps.iter().cloned()),
                Check::AdditionalProperties { node, .. } => c.additional.push(*node),
                Check::NoAdditionalProperties { .. } => c.closed = true,
                Check::Required(names) => {
                    for n in names {
                        if !c.required.contains(&n.as_str()) {
                            c.required.push(n);
                        }
                    }
                    c.object_hint = true;
                }
                Check::MinProperties(n) => c.min_props = c.min_props.max(*n),
                Check::MaxProperties(n) => c.max_props = Some(*n),
                Check::PropertyNames(_) => c.object_hint = true,
                Check::DependentRequired(d) => c.dependent.extend(d.iter()),
                Check::DependentSchemas(_)
                | Check::Not(_)
                | Check::UnevaluatedProperties { .. }
                | Check::UnevaluatedItems { .. } => {}
                Check::Ref(n) => self.collect(*n, c, budget),
                Check::AnyOf(ns) | Check::OneOf(ns) => {
                    if ns.len() > 1 {
                        self.choices += 1;
                    }
                    if !ns.is_empty() {
                        let pick = self.branch(ns);
                        self.collect(pick, c, budget);
                    }
                }
                Check::IfThenElse {
                    cond,
                    then,
                    otherwise,
                } => {
                    // Unforced, at most one rule of a value is taken to hold at first; the value
                    // built then shows which conditions hold (see `value`).
                    let take_then = match self.forced.get(cond) {
                        Some(b) => *b,
                        None => {
                            self.choices += 1;
                            !self.rules.iter().any(|r| r.1) && self.coin(0.3)
                        }
                    };
                    self.rules.push((*cond, take_then));
                    if take_then {
                        self.in_cond += 1;
                        self.collect(*cond, c, budget);
                        self.in_cond -= 1;
                        if let Some(t) = then {
                            self.collect(*t, c, budget);
                        }
                    } else if let Some(o) = otherwise {
                        self.collect(*o, c, budget);
                    }
                }
            }
        }
        if c.min.is_some() || c.max.is_some() || c.multiple.is_some() {
            c.number_hint = true;
        }
        if c.max_len.is_some() || c.min_len > 0 || !c.patterns.is_empty() || !c.formats.is_empty() {
            c.string_hint = true;
        }
    }

    /// A value for the conjunction of `nodes`. Each `if`/`then`/`else` met is decided at random
    /// (the condition and `then`, or `else`); when the value built makes a condition hold that was
    /// decided false (or the reverse), it is built again with the decisions the value showed, a
    /// few times: a discriminator chosen by one rule's condition then gets that rule's consequence
    /// (metric items whose `metricType` selects the required fields), where independent decisions
    /// rarely agree.
    fn value(&mut self, nodes: &[NodeId], depth: usize) -> Value {
        if depth > LIMIT {
            return Value::Null;
        }
        let mut forced: HashMap<NodeId, bool> = HashMap::new();
        let mut v = Value::Null;
        for _ in 0..6 {
            self.forced = std::mem::take(&mut forced);
            self.rules.clear();
            self.choices = 0;
            v = self.build(nodes, depth);
            let rules = std::mem::take(&mut self.rules);
            let choices = self.choices;
            forced = std::mem::take(&mut self.forced);
            let mut consistent = true;
            for (cond, took) in rules {
                let holds = self.interp.valid(cond, &v);
                if holds != took {
                    consistent = false;
                }
                forced.insert(cond, holds);
            }
            // A value built from random choices (a union's branch, a rule) that the nodes reject
            // is built again with other choices.
            if consistent && (choices == 0 || nodes.iter().all(|n| self.interp.valid(*n, &v))) {
                break;
            }
        }
        v
    }

    fn build(&mut self, nodes: &[NodeId], depth: usize) -> Value {
        self.left = self.left.saturating_sub(1);
        let depth = if self.left == 0 {
            depth.max(DEEP)
        } else {
            depth
        };
        let mut c = Conj::default();
        let mut budget = 64;
        for n in nodes {
            self.collect(*n, &mut c, &mut budget);
        }
        let soft = std::mem::take(&mut c.soft_consts);
        c.consts.extend(soft);
        let soft = std::mem::take(&mut c.soft_props);
        c.props.extend(soft);
        // The decisions are read back after the children are built (which collect their own).
        let rules = std::mem::take(&mut self.rules);
        let forced = std::mem::take(&mut self.forced);
        let choices = self.choices;
        let v = self.shape(&c, depth);
        self.rules = rules;
        self.forced = forced;
        self.choices = choices;
        v
    }

    fn shape(&mut self, c: &Conj, depth: usize) -> Value {
        let typed = |v: &Value| {
            c.types
                .as_ref()
                .is_none_or(|ts| ts.iter().any(|t| has_type(v, *t)))
        };
        if let Some(v) = c.consts.iter().find(|v| typed(v)).or(c.consts.first()) {
            return (*v).clone();
        }
        if let Some(first) = c.enums.first() {
            let fits: Vec<&Value> = first
                .iter()
                .filter(|v| c.enums.iter().all(|e| e.iter().any(|x| x == *v)) && typed(v))
                .collect();
            if !fits.is_empty() {
                return fits[self.below(fits.len())].clone();
            }
        }
        let ty = self.pick_type(c);
        match ty {
            JsonType::Null => Value::Null,
            JsonType::Boolean => Value::Bool(self.coin(0.5)),
            JsonType::String => Value::String(self.string(c)),
            JsonType::Integer | JsonType::Number => self.number(c, ty == JsonType::Integer),
            JsonType::Array => self.array(c, depth),
            JsonType::Object => self.object(c, depth),
        }
    }

    fn pick_type(&mut self, c: &Conj) -> JsonType {
        let hinted: Vec<JsonType> = [
            (c.object_hint, JsonType::Object),
            (c.array_hint, JsonType::Array),
            (c.string_hint, JsonType::String),
            (c.number_hint, JsonType::Number),
        ]
        .into_iter()
        .filter(|(h, _)| *h)
        .map(|(_, t)| t)
        .collect();
        let allowed: Vec<JsonType> = match &c.types {
            Some(ts) if !ts.is_empty() => ts.clone(),
            Some(_) => return JsonType::Null,
            None if !hinted.is_empty() => hinted.clone(),
            None => ALL_TYPES.to_vec(),
        };
        // Prefer the type the other keywords talk about, most of the time.
        let preferred: Vec<JsonType> = allowed
            .iter()
            .copied()
            .filter(|t| {
                hinted.contains(t)
                    || (*t == JsonType::Integer && hinted.contains(&JsonType::Number))
            })
            .collect();
        if !preferred.is_empty() && self.coin(0.8) {
            return preferred[self.below(preferred.len())];
        }
        allowed[self.below(allowed.len())]
    }

    fn string(&mut self, c: &Conj) -> String {
        if let Some(p) = c.patterns.first() {
            let source = self.interp.program().patterns[*p].source.clone();
            if let Some(s) = self.pattern_string(&source) {
                return s;
            }
        }
        if let Some(f) = c.formats.first() {
            return format_value(*f, &mut self.rng);
        }
        let lo = c.min_len.min(CAP) as usize;
        let hi = c
            .max_len
            .map_or(lo + 8, |m| (m as usize).min(lo + 8))
            .max(lo);
        let len = if self.coin(0.2) {
            if self.coin(0.5) {
                lo
            } else {
                hi
            }
        } else {
            self.rng.random_range(lo..=hi)
        };
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-_ ";
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len())] as char)
            .collect()
    }

    /// A string `source` finds a match in; where the pattern is not anchored, sometimes with
    /// other text before or after the match.
    fn pattern_string(&mut self, source: &str) -> Option<String> {
        let g = self
            .regexes
            .entry(source.to_string())
            .or_insert_with_key(|s| generable(s))
            .as_ref()?;
        let (open_start, open_end) = (g.open_start, g.open_end);
        let mut s: String = rand::distr::Distribution::sample(&g.regex, &mut self.rng);
        const FILL: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-_./";
        if open_start && self.coin(0.3) {
            let n = 1 + self.below(6);
            let pre: String = (0..n)
                .map(|_| FILL[self.below(FILL.len())] as char)
                .collect();
            s = pre + &s;
        }
        if open_end && self.coin(0.3) {
            for _ in 0..1 + self.below(6) {
                s.push(FILL[self.below(FILL.len())] as char);
            }
        }
        Some(s)
    }

    fn number(&mut self, c: &Conj, integer: bool) -> Value {
        let lo = c
            .min
            .or(c.excl_min.map(|x| x + if integer { 1.0 } else { 0.5 }));
        let hi = c
            .max
            .or(c.excl_max.map(|x| x - if integer { 1.0 } else { 0.5 }));
        // Small numbers mostly, large ones sometimes (where no bound says otherwise).
        let span = if self.coin(0.3) { 1.0e6 } else { 100.0 };
        let (lo, hi) = match (lo, hi) {
            (Some(l), Some(h)) => (l, h.max(l)),
            (Some(l), None) => (l, l + span),
            (None, Some(h)) => (h - span, h),
            (None, None) if span > 100.0 => (-span, span),
            (None, None) => (-10.0, 100.0),
        };
        let mut x = match self.below(6) {
            0 => lo,
            1 => hi,
            _ => lo + (hi - lo) * self.rng.random::<f64>(),
        };
        if let Some(m) = c.multiple.filter(|m| *m > 0.0) {
            x = (x / m).round() * m;
        }
        if integer || (c.multiple.is_none() && self.coin(0.5)) {
            x = if x.fract() != 0.0 { x.ceil() } else { x };
            if x.abs() < 9.0e15 {
                return Value::Number(Number::from(x as i64));
            }
        }
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }

    fn array(&mut self, c: &Conj, depth: usize) -> Value {
        let lo = c.min_items.max(c.contains.len() as u64).min(CAP) as usize;
        let mut hi = c
            .max_items
            .map_or(lo + 3, |m| (m as usize).min(lo + 3))
            .max(lo);
        if let Some(f) = c.no_items {
            hi = hi.min(f.max(lo));
        }
        let len = if depth >= DEEP {
            lo
        } else {
            self.rng.random_range(lo..=hi)
        };
        let mut out: Vec<Value> = Vec::with_capacity(len);
        for i in 0..len {
            let mut nodes: Vec<NodeId> = c.prefix.get(i).cloned().unwrap_or_default();
            for (from, n) in &c.items {
                if i >= *from {
                    nodes.push(*n);
                }
            }
            if let Some(n) = c.contains.get(i) {
                nodes.push(*n);
            }
            let mut v = self.value(&nodes, depth + 1);
            // `uniqueItems`: a few more tries for a value not yet in the array, then the item is
            // left out where the length allows it (a short enum of items, empty objects).
            let mut retries = 0;
            while c.unique && out.contains(&v) && retries < 8 {
                v = self.value(&nodes, depth + 1);
                retries += 1;
            }
            if c.unique && out.contains(&v) && out.len() >= lo {
                break;
            }
            out.push(v);
        }
        Value::Array(out)
    }

    fn object(&mut self, c: &Conj, depth: usize) -> Value {
        let mut o = Map::new();
        // One `properties` list (the usual case) is read as it is; several are merged by name.
        let merged: Option<HashMap<&str, Vec<NodeId>>> = (c.props.len() > 1).then(|| {
            let mut m: HashMap<&str, Vec<NodeId>> = HashMap::new();
            for (name, n) in c.props.iter().flat_map(|l| l.iter()) {
                m.entry(name.as_str()).or_default().push(*n);
            }
            m
        });
        let declared = |name: &str| -> Vec<NodeId> {
            match &merged {
                Some(m) => m.get(name).cloned().unwrap_or_default(),
                None => c
                    .props
                    .iter()
                    .flat_map(|l| l.iter())
                    .filter(|(k, _)| k == name)
                    .map(|(_, n)| *n)
                    .collect(),
            }
        };
        let mut names: Vec<String> = c.required.iter().map(|n| n.to_string()).collect();
        let mut have: HashSet<&str> = c.required.iter().copied().collect();
        for (name, _) in c.props.iter().flat_map(|l| l.iter()) {
            if depth < DEEP && !have.contains(name.as_str()) && self.coin(0.5) {
                have.insert(name);
                names.push(name.clone());
            }
        }
        for (name, needs) in c.dependent.iter().map(|d| (&d.0, &d.1)) {
            if have.contains(name.as_str()) {
                for n in needs {
                    if have.insert(n) {
                        names.push(n.clone());
                    }
                }
            }
        }
        while (names.len() as u64) < c.min_props.min(CAP) {
            names.push(format!("x{}", names.len()));
        }
        if !c.closed && depth < DEEP && self.coin(self.extra) {
            names.push(format!("unknown_{}", self.below(100)));
        }
        // A name one of the `patternProperties` patterns matches (a map keyed by dates, …).
        if depth < DEEP && !c.pattern_props.is_empty() && self.coin(0.6) {
            let (p, _) = c.pattern_props[self.below(c.pattern_props.len())];
            let source = self.interp.program().patterns[p].source.clone();
            for _ in 0..1 + self.below(3) {
                match self.pattern_string(&source) {
                    Some(name) if !names.contains(&name) => names.push(name),
                    _ => {}
                }
            }
        }
        for name in names {
            let mut nodes: Vec<NodeId> = declared(&name);
            let listed = !nodes.is_empty();
            let mut matched = false;
            for (p, n) in &c.pattern_props {
                if self.interp.matches(*p, &name) {
                    nodes.push(*n);
                    matched = true;
                }
            }
            if !listed && !matched {
                nodes.extend(c.additional.iter().copied());
            }
            let v = self.value(&nodes, depth + 1);
            o.insert(name, v);
        }
        if let Some(max) = c.max_props {
            while o.len() as u64 > max {
                let Some(k) = o
                    .keys()
                    .find(|k| !c.required.contains(&k.as_str()))
                    .cloned()
                else {
                    break;
                };
                o.remove(&k);
            }
        }
        Value::Object(o)
    }
}

/// The types both lists allow (`integer` where one says `number` and the other `integer`).
pub(super) fn intersect(a: &[JsonType], b: &[JsonType]) -> Vec<JsonType> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let t = match (x, y) {
                (x, y) if x == y => Some(*x),
                (JsonType::Integer, JsonType::Number) | (JsonType::Number, JsonType::Integer) => {
                    Some(JsonType::Integer)
                }
                _ => None,
            };
            if let Some(t) = t {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    out
}
