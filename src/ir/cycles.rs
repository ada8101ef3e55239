//! Cycles of the validation program that never descend into the instance.
//!
//! A node applies other nodes either to the same instance (`$ref`, `allOf`, `anyOf`, `oneOf`,
//! `not`, `if`/`then`/`else`, `dependentSchemas`) or to a part of it (items, property values,
//! property names). A cycle of the first kind would never end at validation time. A cycle made
//! of `$ref` and `allOf` only is a conjunction of the checks on it (`{"allOf": [{"$ref": "#"}]}`
//! is the empty conjunction, which accepts everything): [`collapse_ref_cycles`] merges it into
//! one node. Any other such cycle (through `anyOf`, `not`, …) has no well-defined meaning;
//! [`check_descent`] reports it as an error.

use std::collections::HashSet;

use super::checks::{Check, NodeId, Program};
use crate::error::{Error, Result};

/// The strongly connected components of a graph (Tarjan's algorithm without recursion): the
/// component of each vertex, numbered in the order they complete.
pub fn components(n: usize, edges: &dyn Fn(usize) -> Vec<usize>) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut component = vec![NONE; n];
    let mut count = 0;
    let mut next = 0;
    // The call stack: a vertex, its successors and the next one to visit.
    let mut calls: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, edges(root), 0));
        while let Some((v, succ, i)) = calls.last_mut() {
            let v = *v;
            if let Some(&w) = succ.get(*i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, edges(w), 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some((parent, _, _)) = calls.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    component
}

/// The members of every component that is a cycle (several vertices, or one with a loop).
fn cycles(n: usize, edges: &dyn Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    let component = components(n, edges);
    let count = component.iter().map(|c| c + 1).max().unwrap_or(0);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (v, c) in component.iter().enumerate() {
        members[*c].push(v);
    }
    members
        .into_iter()
        .filter(|m| m.len() > 1 || m.iter().any(|v| edges(*v).contains(v)))
        .collect()
}

fn refs(program: &Program, id: NodeId) -> Vec<NodeId> {
    program.nodes[id]
        .checks
        .iter()
        .filter_map(|c| match c {
            Check::Ref(t) => Some(*t),
            _ => None,
        })
        .collect()
}

/// The nodes a node applies to the instance it is given itself.
fn same_instance(program: &Program, id: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    for c in &program.nodes[id].checks {
        match c {
            Check::Ref(_)
            | Check::AnyOf(_)
            | Check::OneOf(_)
            | Check::Not(_)
            | Check::IfThenElse { .. }
            | Check::DependentSchemas(_) => out.extend(c.children()),
            _ => {}
        }
    }
    out
}

/// Merges every cycle of `$ref`s (and `allOf` members) into its first node, whose checks become
/// those of every node on the cycle, in the order a validator meets them, each distinct check
/// once (a check repeated on the cycle would only repeat its violation); the other nodes of the
/// cycle forward to it.
pub fn collapse_ref_cycles(program: &mut Program) {
    let n = program.nodes.len();
    let found = {
        let p = &*program;
        cycles(n, &|v| refs(p, v))
    };
    for members in found {
        let first = members[0];
        let mut inside = vec![false; n];
        members.iter().for_each(|m| inside[*m] = true);
        let mut visited = vec![false; n];
        let mut checks = Vec::new();
        let mut distinct: HashSet<String> = HashSet::new();
        // Depth first through the cycle's own `Ref`s, without recursion.
        let mut stack: Vec<(NodeId, usize)> = vec![(first, 0)];
        visited[first] = true;
        while let Some((node, i)) = stack.pop() {
            let Some(c) = program.nodes[node].checks.get(i).cloned() else {
                continue;
            };
            stack.push((node, i + 1));
            match c {
                Check::Ref(t) if inside[t] => {
                    if !visited[t] {
                        visited[t] = true;
                        stack.push((t, 0));
                    }
                }
                c => {
                    if distinct.insert(format!("{c:?}")) {
                        checks.push(c);
                    }
                }
            }
        }
        for m in &members {
            program.nodes[*m].checks = vec![Check::Ref(first)];
        }
        program.nodes[first].checks = checks;
    }
}

/// Fails when the program has a cycle that never descends into the instance: validation
/// would never end.
pub fn check_descent(program: &Program) -> Result<()> {
    let found = cycles(program.nodes.len(), &|v| same_instance(program, v));
    let Some(members) = found.into_iter().next() else {
        return Ok(());
    };
    let mut origins: Vec<String> = members
        .iter()
        .map(|m| program.nodes[*m].origin.to_string())
        .collect();
    origins.sort();
    let first = members
        .iter()
        .min_by_key(|m| program.nodes[**m].origin.to_string())
        .expect("a member");
    Err(Error::schema(
        program.nodes[*first].origin.clone(),
        format!(
            "this schema applies itself to the same instance, through `anyOf`, `oneOf`, `not`, \
             `if` or `dependentSchemas`, without descending into it (a cycle through {}); \
             validation would never end",
            origins.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::ir::checks::{JsonType, Node};

    fn node(checks: Vec<Check>) -> Node {
        Node {
            origin: Location::new("t.json", ""),
            checks,
        }
    }

    #[test]
    fn ref_cycles_become_one_conjunction() {
        let mut p = Program {
            nodes: vec![
                node(vec![Check::Type(vec![JsonType::Object]), Check::Ref(1)]),
                node(vec![Check::Ref(0), Check::MinProperties(1), Check::Ref(2)]),
                node(vec![Check::Ref(2)]),
                node(vec![Check::Items { from: 0, node: 3 }]),
            ],
            patterns: vec![],
            dynamic: vec![],
        };
        collapse_ref_cycles(&mut p);
        assert_eq!(
            p.nodes[0].checks,
            vec![
                Check::Type(vec![JsonType::Object]),
                Check::MinProperties(1),
                Check::Ref(2)
            ]
        );
        assert_eq!(p.nodes[1].checks, vec![Check::Ref(0)]);
        assert_eq!(p.nodes[2].checks, vec![]);
        assert_eq!(p.nodes[3].checks, vec![Check::Items { from: 0, node: 3 }]);
        check_descent(&p).unwrap();
    }

    #[test]
    fn other_cycles_without_descent_are_errors() {
        let p = Program {
            nodes: vec![node(vec![Check::AnyOf(vec![1])]), node(vec![Check::Ref(0)])],
            patterns: vec![],
            dynamic: vec![],
        };
        assert!(check_descent(&p).is_err());
    }

    #[test]
    fn long_chains_need_no_stack() {
        let n = 200_000;
        let edges = |v: usize| if v + 1 < n { vec![v + 1] } else { vec![0] };
        let c = components(n, &edges);
        assert!(c.iter().all(|x| *x == c[0]));
        let chain = |v: usize| if v + 1 < n { vec![v + 1] } else { vec![] };
        let c = components(n, &chain);
        assert_eq!(c[n - 1], 0);
        assert_eq!(c[0], n - 1);
    }
}
