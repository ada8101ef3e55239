//! The properties of an object schema, of its `allOf` members and of its `$ref` target, in the
//! order a depth-first walk meets them (own properties first), each location once.
//!
//! The walk is memoized per location so that long chains (`d0` all of `d1`, all of `d2`, …)
//! cost time in proportion to what they collect rather than to the square of their length:
//! the locations reached form a graph whose strongly connected components are found without
//! recursion; outside a cycle a location's list is its own properties followed by its
//! successors' lists; on a cycle each member walks the cycle from itself.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::TypeBuilder;
use crate::error::Result;
use crate::schema::{Dialect, Loc};

/// Cycles with more members than this share the first member's list (a walk per member would
/// cost the square of the cycle's length); the lists differ only in order.
const MAX_CYCLE_WALKS: usize = 64;

/// What one location collects: properties (name and schema) and required names, in order.
#[derive(Default)]
pub(in crate::ir) struct Collected {
    props: Vec<(String, Loc)>,
    required: Vec<String>,
}

impl Collected {
    fn add(&mut self, other: &Collected, names: &mut HashSet<String>, req: &mut HashSet<String>) {
        for (n, l) in &other.props {
            if names.insert(n.clone()) {
                self.props.push((n.clone(), l.clone()));
            }
        }
        for r in &other.required {
            if req.insert(r.clone()) {
                self.required.push(r.clone());
            }
        }
    }
}

/// The locations met by one search, numbered in the order met.
#[derive(Default)]
struct Graph {
    index: HashMap<Loc, usize>,
    locs: Vec<Loc>,
    sources: Vec<Vec<Loc>>,
    own: Vec<Collected>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
}

impl Graph {
    fn enter(&mut self, tb: &mut TypeBuilder<'_, '_>, loc: Loc) -> Result<usize> {
        let i = self.locs.len();
        self.sources.push(tb.prop_sources(&loc)?);
        self.own.push(tb.own_props(&loc));
        self.index.insert(loc.clone(), i);
        self.locs.push(loc);
        self.low.push(i);
        self.on_stack.push(true);
        self.stack.push(i);
        Ok(i)
    }
}

impl TypeBuilder<'_, '_> {
    /// Collects the properties of an object schema and of its `allOf` members and `$ref`
    /// targets, depth first, each location once (so cycles and long chains terminate).
    pub(super) fn collect_props(
        &mut self,
        loc: &Loc,
        props: &mut Vec<(String, Loc)>,
        required: &mut Vec<String>,
    ) -> Result<()> {
        let c = self.collected_at(loc)?;
        props.extend(c.props.iter().cloned());
        required.extend(c.required.iter().cloned());
        Ok(())
    }

    /// Whether `unevaluatedProperties: false` at `loc` admits only the properties
    /// [`Self::collect_props`] collects: the schema, its `allOf` members and `$ref` targets
    /// (all of which a valid instance satisfies) have no other keyword that evaluates
    /// properties (`patternProperties`, `additionalProperties`, a nested
    /// `unevaluatedProperties`) or applies a subschema only sometimes (`anyOf`, `oneOf`,
    /// `if`, `dependentSchemas`, `$dynamicRef`, …).
    pub(super) fn closed_by_unevaluated(&mut self, loc: &Loc) -> Result<bool> {
        const OPEN: &[&str] = &[
            "patternProperties",
            "additionalProperties",
            "unevaluatedProperties",
            "anyOf",
            "oneOf",
            "if",
            "dependentSchemas",
            "dependencies",
            "$dynamicRef",
            "$recursiveRef",
        ];
        let dialect = self.comp.set().docs[loc.doc].dialect;
        let closes = matches!(dialect, Dialect::Draft2019 | Dialect::Draft2020)
            && self.obj(loc).and_then(|o| o.get("unevaluatedProperties"))
                == Some(&Value::Bool(false));
        if !closes {
            return Ok(false);
        }
        let mut seen: HashSet<Loc> = HashSet::new();
        let mut stack = vec![loc.clone()];
        while let Some(at) = stack.pop() {
            if !seen.insert(at.clone()) {
                continue;
            }
            match self.comp.set().value(&at) {
                Some(Value::Object(o)) => {
                    let own = |k: &&str| at == *loc && *k == "unevaluatedProperties";
                    if OPEN.iter().any(|k| !own(k) && o.contains_key(*k)) {
                        return Ok(false);
                    }
                }
                Some(Value::Bool(true)) => {}
                _ => return Ok(false),
            }
            stack.extend(self.prop_sources(&at)?);
        }
        Ok(true)
    }

    /// A location's own properties and required names.
    fn own_props(&self, loc: &Loc) -> Collected {
        let mut out = Collected::default();
        let Some(obj) = self.obj(loc) else {
            return out;
        };
        if let Some(p) = obj.get("properties").and_then(Value::as_object) {
            for name in p.keys() {
                out.props
                    .push((name.clone(), Self::at(loc, &["properties", name])));
            }
        }
        let mut seen = HashSet::new();
        for r in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if seen.insert(r) {
                out.required.push(r.to_string());
            }
        }
        out
    }

    /// The locations a location collects from, in order: its `$ref` target, its `allOf` members.
    fn prop_sources(&mut self, loc: &Loc) -> Result<Vec<Loc>> {
        let Some(obj) = self.obj(loc) else {
            return Ok(Vec::new());
        };
        let reference = obj.get("$ref").and_then(Value::as_str).map(str::to_string);
        let n = obj
            .get("allOf")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut out = Vec::with_capacity(n + 1);
        if let Some(r) = reference {
            out.push(self.comp.set_mut().resolve(loc, &r)?);
        }
        out.extend((0..n).map(|i| Self::at(loc, &["allOf", &i.to_string()])));
        Ok(out)
    }

    fn collected_at(&mut self, start: &Loc) -> Result<Rc<Collected>> {
        if let Some(c) = self.collected.get(start) {
            return Ok(c.clone());
        }
        // Tarjan's algorithm over the locations not collected yet, without recursion.
        let mut g = Graph::default();
        let root = g.enter(self, start.clone())?;
        let mut calls: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            if let Some(w) = g.sources[v].get(*next).cloned() {
                *next += 1;
                if self.collected.contains_key(&w) {
                    continue;
                }
                match g.index.get(&w) {
                    None => {
                        let i = g.enter(self, w)?;
                        calls.push((i, 0));
                    }
                    Some(&i) if g.on_stack[i] => g.low[v] = g.low[v].min(i),
                    Some(_) => {}
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                g.low[parent] = g.low[parent].min(g.low[v]);
            }
            if g.low[v] != v {
                continue;
            }
            let mut members = Vec::new();
            while let Some(w) = g.stack.pop() {
                g.on_stack[w] = false;
                members.push(w);
                if w == v {
                    break;
                }
            }
            members.reverse();
            let looped = members.len() > 1 || g.sources[v].contains(&g.locs[v]);
            if !looped {
                let c = self.merge(&g.locs[v], &g.sources[v]);
                self.collected.insert(g.locs[v].clone(), Rc::new(c));
                continue;
            }
            let inside: HashSet<usize> = members.iter().copied().collect();
            let mut shared: Option<Rc<Collected>> = None;
            for (k, &m) in members.iter().enumerate() {
                let c = match (&shared, k >= MAX_CYCLE_WALKS) {
                    (Some(c), true) => c.clone(),
                    _ => Rc::new(self.walk_cycle(m, &inside, &g)),
                };
                if k == 0 {
                    shared = Some(c.clone());
                }
                self.collected.insert(g.locs[m].clone(), c);
            }
        }
        Ok(self.collected[start].clone())
    }

    /// A location's own properties, then those its sources collected.
    fn merge(&self, loc: &Loc, sources: &[Loc]) -> Collected {
        let own = self.own_props(loc);
        let mut names: HashSet<String> = own.props.iter().map(|(n, _)| n.clone()).collect();
        let mut req: HashSet<String> = own.required.iter().cloned().collect();
        let mut out = own;
        for s in sources {
            if let Some(c) = self.collected.get(s) {
                out.add(c, &mut names, &mut req);
            }
        }
        out
    }

    /// The walk from `from` through its cycle (`inside`), each member once, taking the lists of
    /// locations outside the cycle as collected.
    fn walk_cycle(&self, from: usize, inside: &HashSet<usize>, g: &Graph) -> Collected {
        let (sources, index) = (&g.sources, &g.index);
        let mut out = Collected::default();
        let mut names = HashSet::new();
        let mut req = HashSet::new();
        let mut seen = HashSet::new();
        // Depth first, without recursion: a member's own properties, then each source in
        // order (a member of the cycle walked in turn, a location outside it as collected).
        let mut stack = vec![Ok(from)];
        while let Some(step) = stack.pop() {
            match step {
                Ok(v) => {
                    if !seen.insert(v) {
                        continue;
                    }
                    out.add(&g.own[v], &mut names, &mut req);
                    for s in sources[v].iter().rev() {
                        match index.get(s).filter(|i| inside.contains(i)) {
                            Some(&i) => stack.push(Ok(i)),
                            None => stack.push(Err(s)),
                        }
                    }
                }
                Err(s) => {
                    if let Some(c) = self.collected.get(s) {
                        out.add(c, &mut names, &mut req);
                    }
                }
            }
        }
        out
    }
}
