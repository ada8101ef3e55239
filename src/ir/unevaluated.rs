//! `unevaluatedProperties` and `unevaluatedItems`: which properties (items) the other keywords
//! of a schema evaluated, as a table every backend's runtime reads the same way.
//!
//! A property (item) is evaluated at an instance location when `properties`,
//! `patternProperties`, `additionalProperties` or a nested `unevaluatedProperties` (for items:
//! `prefixItems`, `items`, `additionalItems`, 2020-12 `contains` matches, a nested
//! `unevaluatedItems`) evaluated it, in the schema itself or in a subschema applied to the same
//! instance (`allOf`, `$ref`, `anyOf`, `oneOf`, `if`/`then`/`else`, `dependentSchemas`) that
//! validates. `not` contributes nothing. What can be known statically is: a schema with
//! `additionalProperties` evaluates every name, and its check is dropped.
//!
//! The table is one entry per node reached through those applicators: the entry's own names,
//! patterns, prefix length and `contains` nodes, and its edges, each to another entry, taken
//! when every guard holds (a node valid, a node invalid, a property present). The runtime walks
//! the table from entry 0 once per instance, without recursion, and evaluates each guard at
//! most once.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::checks::{Check, NodeId, PatternId, Program};

/// The evaluation table of one `unevaluatedProperties`/`unevaluatedItems` check.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Annotations {
    /// The nodes the table refers to by index: guards and `contains` subschemas.
    pub nodes: Vec<NodeId>,
    /// The patterns the table refers to by index.
    pub patterns: Vec<PatternId>,
    /// Entry 0 is the schema of the check itself.
    pub entries: Vec<Entry>,
}

/// What one schema evaluates itself, and where evaluation continues.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// Every property (item) is evaluated.
    pub all: bool,
    pub names: Vec<String>,
    /// Indexes into [`Annotations::patterns`].
    pub patterns: Vec<usize>,
    /// Items below this index are evaluated.
    pub prefix: usize,
    /// Indexes into [`Annotations::nodes`]: an item that one of these accepts is evaluated.
    pub contains: Vec<usize>,
    pub edges: Vec<Edge>,
}

/// The subschema of entry `to` applies, and evaluates, when every guard holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Edge {
    pub to: usize,
    /// Indexes into [`Annotations::nodes`] that must accept the instance.
    pub valid: Vec<usize>,
    /// Indexes into [`Annotations::nodes`] that must reject the instance.
    pub invalid: Vec<usize>,
    /// Properties the instance must have.
    pub has: Vec<String>,
}

impl Annotations {
    /// The table as the JSON every runtime reads: a list of entries, empty fields left out.
    pub fn to_json(&self) -> Value {
        let list = |v: &[usize]| Value::from(v.to_vec());
        let entries = self
            .entries
            .iter()
            .map(|e| {
                let mut m = Map::new();
                if e.all {
                    m.insert("all".into(), json!(true));
                }
                if !e.names.is_empty() {
                    m.insert("names".into(), json!(e.names));
                }
                if !e.patterns.is_empty() {
                    m.insert("patterns".into(), list(&e.patterns));
                }
                if e.prefix > 0 {
                    m.insert("prefix".into(), json!(e.prefix));
                }
                if !e.contains.is_empty() {
                    m.insert("contains".into(), list(&e.contains));
                }
                if !e.edges.is_empty() {
                    let edges = e
                        .edges
                        .iter()
                        .map(|g| {
                            let mut m = Map::new();
                            m.insert("to".into(), json!(g.to));
                            if !g.valid.is_empty() {
                                m.insert("valid".into(), list(&g.valid));
                            }
                            if !g.invalid.is_empty() {
                                m.insert("invalid".into(), list(&g.invalid));
                            }
                            if !g.has.is_empty() {
                                m.insert("has".into(), json!(g.has));
                            }
                            Value::Object(m)
                        })
                        .collect();
                    m.insert("edges".into(), Value::Array(edges));
                }
                Value::Object(m)
            })
            .collect();
        Value::Array(entries)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Properties,
    /// Items; `contains` counts (2020-12) or not (2019-09).
    Items(bool),
}

/// Fills the table of every `unevaluatedProperties`/`unevaluatedItems` check, then drops the
/// checks that only served the tables: an unevaluated check whose schema evaluates everything
/// itself or whose subschema accepts everything, `items`/`additionalItems`/
/// `additionalProperties` whose subschema accepts everything, and an `if` without `then` and
/// `else` (a schema reached from another still evaluates for that one). Runs before the
/// program is optimized, which removes the nodes no longer reached.
pub fn annotate(program: &mut Program) {
    let mut tables = Vec::new();
    for (id, node) in program.nodes.iter().enumerate() {
        for (k, c) in node.checks.iter().enumerate() {
            let kind = match c {
                Check::UnevaluatedProperties { .. } => Kind::Properties,
                Check::UnevaluatedItems { contains, .. } => Kind::Items(*contains),
                _ => continue,
            };
            tables.push((id, k, table(program, id, kind)));
        }
    }
    for (id, k, ann) in tables {
        if let Check::UnevaluatedProperties { ann: a, .. }
        | Check::UnevaluatedItems { ann: a, .. } = &mut program.nodes[id].checks[k]
        {
            *a = ann;
        }
    }
    let trivial: Vec<bool> = program.nodes.iter().map(|n| n.is_trivial()).collect();
    let accepts_all = |n: &Option<NodeId>| n.is_some_and(|n| trivial[n]);
    for node in &mut program.nodes {
        node.checks.retain(|c| match c {
            Check::UnevaluatedProperties { ann, node }
            | Check::UnevaluatedItems { ann, node, .. } => {
                !ann.entries[0].all && !accepts_all(node)
            }
            Check::Items { node, .. } | Check::AdditionalProperties { node, .. } => !trivial[*node],
            Check::IfThenElse {
                then: None,
                otherwise: None,
                ..
            } => false,
            _ => true,
        });
    }
}

/// Interns node and pattern ids as table indexes.
#[derive(Default)]
struct Interner {
    nodes: Vec<NodeId>,
    patterns: Vec<PatternId>,
    node_index: HashMap<NodeId, usize>,
    pattern_index: HashMap<PatternId, usize>,
}

impl Interner {
    fn node(&mut self, n: NodeId) -> usize {
        intern(&mut self.nodes, &mut self.node_index, n)
    }
    fn pattern(&mut self, p: PatternId) -> usize {
        intern(&mut self.patterns, &mut self.pattern_index, p)
    }
}

fn intern(list: &mut Vec<usize>, index: &mut HashMap<usize, usize>, x: usize) -> usize {
    *index.entry(x).or_insert_with(|| {
        list.push(x);
        list.len() - 1
    })
}

/// The table of the check of node `root`, built without recursion.
fn table(program: &Program, root: NodeId, kind: Kind) -> Annotations {
    let mut index: HashMap<NodeId, usize> = HashMap::new();
    let mut order: Vec<NodeId> = vec![root];
    index.insert(root, 0);
    let mut entries: Vec<Entry> = Vec::new();
    let mut int = Interner::default();
    let mut i = 0;
    while i < order.len() {
        let id = order[i];
        let mut e = Entry {
            all: false,
            ..Entry::default()
        };
        // (target node, guards as node ids): interned once the walk is done with the checks.
        let mut targets: Vec<(NodeId, Edge)> = Vec::new();
        let guard = |valid: Vec<NodeId>, invalid: Vec<NodeId>, has: Vec<String>| Edge {
            to: 0,
            valid,
            invalid,
            has,
        };
        for c in &program.nodes[id].checks {
            match (c, kind) {
                (Check::Properties(ps), Kind::Properties) => {
                    e.names.extend(ps.iter().map(|p| p.0.clone()))
                }
                (Check::PatternProperties(ps), Kind::Properties) => {
                    for (p, _) in ps {
                        let p = int.pattern(*p);
                        e.patterns.push(p);
                    }
                }
                (Check::AdditionalProperties { .. }, Kind::Properties)
                | (Check::NoAdditionalProperties { .. }, Kind::Properties)
                | (Check::Items { .. }, Kind::Items(_))
                | (Check::NoItems { .. }, Kind::Items(_)) => e.all = true,
                (Check::UnevaluatedProperties { .. }, Kind::Properties)
                | (Check::UnevaluatedItems { .. }, Kind::Items(_)) => e.all |= id != root,
                (Check::PrefixItems(ns), Kind::Items(_)) => e.prefix = e.prefix.max(ns.len()),
                (Check::Contains { node, .. }, Kind::Items(true)) => {
                    let n = int.node(*node);
                    e.contains.push(n);
                }
                (Check::Ref(t), _) => targets.push((*t, guard(vec![*t], vec![], vec![]))),
                (Check::AnyOf(ns), _) | (Check::OneOf(ns), _) => {
                    targets.extend(ns.iter().map(|n| (*n, guard(vec![*n], vec![], vec![]))))
                }
                (
                    Check::IfThenElse {
                        cond,
                        then,
                        otherwise,
                    },
                    _,
                ) => {
                    targets.push((*cond, guard(vec![*cond], vec![], vec![])));
                    if let Some(t) = then {
                        targets.push((*t, guard(vec![*cond, *t], vec![], vec![])));
                    }
                    if let Some(o) = otherwise {
                        targets.push((*o, guard(vec![*o], vec![*cond], vec![])));
                    }
                }
                (Check::DependentSchemas(deps), _) => {
                    for (name, n) in deps {
                        targets.push((*n, guard(vec![*n], vec![], vec![name.clone()])));
                    }
                }
                _ => {}
            }
        }
        for (to, g) in targets {
            if to == id || program.nodes[to].checks.is_empty() {
                continue;
            }
            let next = *index.entry(to).or_insert_with(|| {
                order.push(to);
                order.len() - 1
            });
            e.edges.push(Edge {
                to: next,
                valid: g.valid.iter().map(|n| int.node(*n)).collect(),
                invalid: g.invalid.iter().map(|n| int.node(*n)).collect(),
                has: g.has,
            });
        }
        entries.push(e);
        i += 1;
    }
    prune(&mut entries);
    let mut ann = Annotations {
        nodes: int.nodes,
        patterns: int.patterns,
        entries,
    };
    compact(&mut ann);
    ann
}

/// Drops the edges to entries from which nothing is evaluated, and an `all` entry's edges.
fn prune(entries: &mut [Entry]) {
    let own = |e: &Entry| {
        e.all
            || !e.names.is_empty()
            || !e.patterns.is_empty()
            || e.prefix > 0
            || !e.contains.is_empty()
    };
    let mut useful: Vec<bool> = entries.iter().map(own).collect();
    loop {
        let mut changed = false;
        for i in 0..entries.len() {
            if !useful[i] && entries[i].edges.iter().any(|g| useful[g.to]) {
                useful[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for e in entries.iter_mut() {
        if e.all {
            *e = Entry {
                all: true,
                ..Entry::default()
            };
        } else {
            e.edges.retain(|g| useful[g.to]);
        }
    }
}

/// Keeps only the entries, nodes and patterns entry 0 still reaches, renumbered in order.
fn compact(ann: &mut Annotations) {
    let n = ann.entries.len();
    let mut new = vec![usize::MAX; n];
    let mut order = vec![0];
    new[0] = 0;
    let mut i = 0;
    while i < order.len() {
        for g in &ann.entries[order[i]].edges {
            if new[g.to] == usize::MAX {
                new[g.to] = order.len();
                order.push(g.to);
            }
        }
        i += 1;
    }
    let mut int = Interner::default();
    let mut entries = Vec::with_capacity(order.len());
    for old in order {
        let mut e = std::mem::take(&mut ann.entries[old]);
        for p in &mut e.patterns {
            *p = int.pattern(ann.patterns[*p]);
        }
        for c in &mut e.contains {
            *c = int.node(ann.nodes[*c]);
        }
        for g in &mut e.edges {
            g.to = new[g.to];
            for k in g.valid.iter_mut().chain(g.invalid.iter_mut()) {
                *k = int.node(ann.nodes[*k]);
            }
        }
        entries.push(e);
    }
    ann.entries = entries;
    ann.nodes = int.nodes;
    ann.patterns = int.patterns;
}
