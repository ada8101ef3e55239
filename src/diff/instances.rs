//! Instances of a schema: random candidates built from a node's checks (required properties,
//! types, enums, bounds, patterns, formats, unions), kept when the interpreter accepts them.

use std::collections::{HashMap, HashSet};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Map, Number, Value};

use super::interp::Interp;
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
    regexes: HashMap<String, Option<rand_regex::Regex>>,
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
                    c.props.push(ps);
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
                    if !ns.is_empty() {
                        let pick = ns[self.below(ns.len())];
                        self.collect(pick, c, budget);
                    }
                }
                Check::IfThenElse {
                    cond,
                    then,
                    otherwise,
                } => {
                    if self.coin(0.5) {
                        self.collect(*cond, c, budget);
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

    fn value(&mut self, nodes: &[NodeId], depth: usize) -> Value {
        if depth > LIMIT {
            return Value::Null;
        }
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
        if let Some(v) = c.consts.first() {
            return (*v).clone();
        }
        if let Some(first) = c.enums.first() {
            let fits: Vec<&Value> = first
                .iter()
                .filter(|v| c.enums.iter().all(|e| e.iter().any(|x| x == *v)))
                .collect();
            if !fits.is_empty() {
                return fits[self.below(fits.len())].clone();
            }
        }
        let ty = self.pick_type(&c);
        match ty {
            JsonType::Null => Value::Null,
            JsonType::Boolean => Value::Bool(self.coin(0.5)),
            JsonType::String => Value::String(self.string(&c)),
            JsonType::Integer | JsonType::Number => self.number(&c, ty == JsonType::Integer),
            JsonType::Array => self.array(&c, depth),
            JsonType::Object => self.object(&c, depth),
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
            let pool = format_pool(*f);
            return pool[self.below(pool.len())].to_string();
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

    fn pattern_string(&mut self, source: &str) -> Option<String> {
        let body = source.strip_prefix('^').unwrap_or(source);
        let body = match body.strip_suffix('$') {
            Some(b) if !b.ends_with('\\') => b,
            _ => body,
        };
        let body = body
            .replace("\\d", "[0-9]")
            .replace("\\w", "[A-Za-z0-9_]")
            .replace("\\s", "[ ]");
        let re = self
            .regexes
            .entry(body)
            .or_insert_with_key(|b| rand_regex::Regex::compile(b, 4).ok())
            .as_ref()?;
        let s: String = rand::distr::Distribution::sample(re, &mut self.rng);
        Some(s)
    }

    fn number(&mut self, c: &Conj, integer: bool) -> Value {
        let lo = c
            .min
            .or(c.excl_min.map(|x| x + if integer { 1.0 } else { 0.5 }));
        let hi = c
            .max
            .or(c.excl_max.map(|x| x - if integer { 1.0 } else { 0.5 }));
        let (lo, hi) = match (lo, hi) {
            (Some(l), Some(h)) => (l, h.max(l)),
            (Some(l), None) => (l, l + 100.0),
            (None, Some(h)) => (h - 100.0, h),
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
            if c.unique && out.contains(&v) {
                v = self.value(&nodes, depth + 1);
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

/// Valid examples of each asserted format.
fn format_pool(f: Format) -> &'static [&'static str] {
    match f {
        Format::DateTime => &["2024-01-31T12:00:00Z", "2025-06-01T08:30:15.250+02:00"],
        Format::Date => &["2024-01-31", "2000-02-29"],
        Format::Time => &["12:00:00Z", "23:59:59+01:00"],
        Format::Duration => &["P1D", "PT1H30M", "P1Y2M"],
        Format::Email => &["a@example.com", "first.last@example.org"],
        Format::Hostname => &["example.com", "localhost"],
        Format::Ipv4 => &["192.168.0.1", "10.0.0.255"],
        Format::Ipv6 => &["::1", "2001:db8::1"],
        Format::Uri => &["https://example.com/a", "urn:isbn:0451450523"],
        Format::UriReference => &["/a/b", "https://example.com/x#y"],
        Format::Uuid => &["123e4567-e89b-12d3-a456-426614174000"],
        Format::JsonPointer => &["", "/a/0"],
        Format::Regex => &["^a+$", "[0-9]{2}"],
        Format::HostnameRfc1123 => &["example.com", "a--b.example"],
        Format::IdnHostname => &["example.com", "\u{c2e4}\u{b840}.\u{d14c}\u{c2a4}\u{d2b8}"],
        Format::IdnEmail => &["a@example.com", "caf\u{e9}@example.com"],
        Format::Iri => &[
            "https://example.com/a",
            "http://\u{192}\u{f8}\u{f8}.example/p",
        ],
        Format::IriReference => &["/a/b", "#fr\u{e4}gment"],
        Format::UriTemplate => &["https://example.com/{id}", "/search{?q,page}"],
        Format::RelativeJsonPointer => &["0", "1/a/0", "2#"],
    }
}
