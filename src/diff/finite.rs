//! Finite instance spaces: when a type's validation program admits only finitely many values (an
//! `enum`, a boolean, a bounded integer, a closed object of such properties, a short array of
//! them, a union of such branches), and at most a given number, they are listed exactly. A
//! verdict checked on every one of them is proved, not sampled (docs/evolution.md).
//!
//! The listing works in two steps: a *superset* of the valid values is built from the checks
//! that bound a value (any one such check bounds it: `const`, `enum`, `$ref`/`allOf`, a union
//! whose branches are all finite, `if`/`then`/`else` whose two consequences are finite, or `type`
//! with the keywords that bound each listed type: bounds of an integer, a `pattern` matching
//! finitely many strings, see [`super::language`]), then the interpreter keeps the valid ones.
//! Because every valid value is in the superset, what is kept is the whole instance space.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Number, Value};

use super::instances::intersect;
use super::interp::{Interp, Unknown};
use super::language::language;
use crate::ir::{Check, JsonType, NodeId};

/// How deep the listing follows subschemas before giving up (a recursive type is not finite in
/// any useful sense).
const DEPTH: usize = 24;

/// Every value `node` accepts under `interp`, in a fixed order, when the program shows there are
/// finitely many and the superset searched holds at most `cap` values; `None` otherwise.
pub fn enumerate(interp: &Interp<'_>, node: NodeId, cap: usize) -> Option<Vec<Value>> {
    let mut l = Lister {
        interp,
        cap,
        memo: HashMap::new(),
        active: HashSet::new(),
    };
    let all = l.superset(node, 0)?;
    let mut seen = HashSet::new();
    Some(
        all.into_iter()
            .filter(|v| interp.valid(node, v) && seen.insert(v.to_string()))
            .collect(),
    )
}

struct Lister<'i, 'a> {
    interp: &'i Interp<'a>,
    cap: usize,
    memo: HashMap<NodeId, Option<Vec<Value>>>,
    active: HashSet<NodeId>,
}

impl Lister<'_, '_> {
    /// A finite superset of the values `node` accepts, or `None`.
    fn superset(&mut self, node: NodeId, depth: usize) -> Option<Vec<Value>> {
        if let Some(m) = self.memo.get(&node) {
            return m.clone();
        }
        if depth > DEPTH || !self.active.insert(node) {
            return None;
        }
        let out = self.compute(node, depth);
        self.active.remove(&node);
        self.memo.insert(node, out.clone());
        out
    }

    fn compute(&mut self, node: NodeId, depth: usize) -> Option<Vec<Value>> {
        let prog = self.interp.program();
        let checks = &prog.nodes.get(node)?.checks;
        let mut best: Option<Vec<Value>> = None;
        let keep = |s: Vec<Value>, best: &mut Option<Vec<Value>>| {
            if best.as_ref().is_none_or(|b| s.len() < b.len()) {
                *best = Some(s);
            }
        };
        let mut types: Option<Vec<JsonType>> = None;
        for c in checks {
            match c {
                Check::False => return Some(Vec::new()),
                Check::Const(v) => keep(vec![v.clone()], &mut best),
                Check::Enum(vs) => keep(vs.clone(), &mut best),
                Check::Type(ts) => {
                    types = Some(match types.take() {
                        None => ts.clone(),
                        Some(old) => intersect(&old, ts),
                    })
                }
                Check::Ref(t) => {
                    if let Some(s) = self.superset(*t, depth + 1) {
                        keep(s, &mut best);
                    }
                }
                Check::AnyOf(ns) | Check::OneOf(ns) => {
                    if let Some(s) = self.union(ns, depth) {
                        keep(s, &mut best);
                    }
                }
                Check::IfThenElse {
                    then: Some(t),
                    otherwise: Some(o),
                    ..
                } => {
                    if let Some(s) = self.union(&[*t, *o], depth) {
                        keep(s, &mut best);
                    }
                }
                _ => {}
            }
        }
        if best.is_some() {
            return best;
        }
        let types = types?;
        let mut out = Vec::new();
        for t in dedup_types(&types) {
            let part = match t {
                JsonType::Null => vec![Value::Null],
                JsonType::Boolean => vec![Value::Bool(false), Value::Bool(true)],
                JsonType::Integer => self.integers(checks)?,
                JsonType::Object => self.objects(checks, depth)?,
                JsonType::Array => self.arrays(checks, depth)?,
                JsonType::String => self.strings(checks)?,
                JsonType::Number => return None,
            };
            out.extend(part);
            if out.len() > self.cap {
                return None;
            }
        }
        Some(out)
    }

    fn union(&mut self, ns: &[NodeId], depth: usize) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        for n in ns {
            out.extend(self.superset(*n, depth + 1)?);
            if out.len() > self.cap {
                return None;
            }
        }
        Some(out)
    }

    /// The strings the node's patterns allow, when one of them matches finitely many.
    fn strings(&self, checks: &[Check]) -> Option<Vec<Value>> {
        let prog = self.interp.program();
        checks
            .iter()
            .filter_map(|c| match c {
                Check::Pattern(p) => language(&prog.patterns.get(*p)?.source, self.cap),
                _ => None,
            })
            .min_by_key(Vec::len)
            .map(|l| l.into_iter().map(Value::String).collect())
    }

    /// The integers between the node's bounds (both needed).
    fn integers(&self, checks: &[Check]) -> Option<Vec<Value>> {
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for c in checks {
            match c {
                Check::Minimum(x) => lo = lo.max(x.ceil()),
                Check::ExclusiveMinimum(x) => lo = lo.max(x.floor() + 1.0),
                Check::Maximum(x) => hi = hi.min(x.floor()),
                Check::ExclusiveMaximum(x) => hi = hi.min(x.ceil() - 1.0),
                _ => {}
            }
        }
        if !lo.is_finite() || !hi.is_finite() || lo.abs() > 9.0e15 || hi.abs() > 9.0e15 {
            return None;
        }
        if hi < lo {
            return Some(Vec::new());
        }
        if hi - lo >= self.cap as f64 {
            return None;
        }
        Some(
            (lo as i64..=hi as i64)
                .map(|i| Value::Number(Number::from(i)))
                .collect(),
        )
    }

    /// Every object of the node's declared properties, when no other name is allowed: each
    /// required property with each of its values, each optional one absent or with each value.
    fn objects(&mut self, checks: &[Check], depth: usize) -> Option<Vec<Value>> {
        if self.interp.unknown() != Unknown::Schema {
            return None;
        }
        let mut known: Option<&[String]> = None;
        for c in checks {
            match c {
                Check::NoAdditionalProperties { known: k, patterns } if patterns.is_empty() => {
                    known = Some(k)
                }
                Check::AdditionalProperties {
                    known: k,
                    patterns,
                    node,
                } if patterns.is_empty()
                    && self
                        .superset(*node, depth + 1)
                        .is_some_and(|s| s.is_empty()) =>
                {
                    known = Some(k)
                }
                _ => {}
            }
        }
        let known = known?;
        let required: HashSet<&str> = checks
            .iter()
            .filter_map(|c| match c {
                Check::Required(r) => Some(r.iter().map(String::as_str)),
                _ => None,
            })
            .flatten()
            .collect();
        let declared: HashMap<&str, NodeId> = checks
            .iter()
            .filter_map(|c| match c {
                Check::Properties(ps) => Some(ps.iter().map(|(k, n)| (k.as_str(), *n))),
                _ => None,
            })
            .flatten()
            .collect();
        if required.iter().any(|r| !known.contains(&r.to_string())) {
            return Some(Vec::new());
        }
        let mut out: Vec<Map<String, Value>> = vec![Map::new()];
        for name in known {
            let values = self.superset(*declared.get(name.as_str())?, depth + 1)?;
            let optional = !required.contains(name.as_str());
            let size = out.len() * (values.len() + usize::from(optional));
            if size > self.cap {
                return None;
            }
            let mut next = Vec::with_capacity(size);
            for o in &out {
                if optional {
                    next.push(o.clone());
                }
                for v in &values {
                    let mut o = o.clone();
                    o.insert(name.clone(), v.clone());
                    next.push(o);
                }
            }
            out = next;
        }
        Some(out.into_iter().map(Value::Object).collect())
    }

    /// Every array up to the node's length bound (`maxItems`, or the end of a closed tuple) of
    /// the values its positions allow.
    fn arrays(&mut self, checks: &[Check], depth: usize) -> Option<Vec<Value>> {
        let (mut min, mut max) = (0usize, None::<usize>);
        let mut prefix: &[NodeId] = &[];
        let mut items: Vec<(usize, NodeId)> = Vec::new();
        for c in checks {
            match c {
                Check::MinItems(n) => min = min.max(usize::try_from(*n).unwrap_or(usize::MAX)),
                Check::MaxItems(n) => {
                    let n = usize::try_from(*n).unwrap_or(usize::MAX);
                    max = Some(max.map_or(n, |m| m.min(n)));
                }
                Check::NoItems { from, .. } => max = Some(max.map_or(*from, |m| m.min(*from))),
                Check::PrefixItems(ns) => prefix = ns,
                Check::Items { from, node } => items.push((*from, *node)),
                _ => {}
            }
        }
        let max = max?;
        if max > 16 {
            return None;
        }
        let mut out: Vec<Value> = Vec::new();
        let mut level: Vec<Vec<Value>> = vec![Vec::new()];
        for len in 0..=max {
            if len >= min {
                out.extend(level.iter().cloned().map(Value::Array));
                if out.len() > self.cap {
                    return None;
                }
            }
            if len == max {
                break;
            }
            let node = prefix
                .get(len)
                .copied()
                .or_else(|| items.iter().find(|(from, _)| *from <= len).map(|(_, n)| *n));
            let values = self.superset(node?, depth + 1)?;
            if level.len() * values.len() > self.cap {
                return None;
            }
            level = level
                .iter()
                .flat_map(|a| {
                    values.iter().map(move |v| {
                        let mut a = a.clone();
                        a.push(v.clone());
                        a
                    })
                })
                .collect();
        }
        Some(out)
    }
}

/// The listed types, `integer` dropped where `number` is listed (it is not finite then anyway).
fn dedup_types(ts: &[JsonType]) -> Vec<JsonType> {
    let mut out: Vec<JsonType> = Vec::new();
    for t in ts {
        if !out.contains(t) {
            out.push(*t);
        }
    }
    if out.contains(&JsonType::Number) {
        out.retain(|t| *t != JsonType::Integer);
    }
    out
}
