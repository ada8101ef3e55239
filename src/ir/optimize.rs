//! Shrinks the validation program: drops checks that accept everything, forwards nodes that only
//! refer to another node, merges structurally equal nodes, and removes unreachable ones.
//! Verdicts and violations are unchanged; only the generated code gets smaller.

use std::collections::HashMap;

use super::checks::{Check, NodeId, Program};

/// Optimizes `program`, keeping `roots` reachable; returns the new id of every old node.
pub fn optimize(program: &mut Program, roots: &[NodeId]) -> Vec<NodeId> {
    let n = program.nodes.len();
    let mut map: Vec<NodeId> = (0..n).collect();
    loop {
        let mut changed = false;
        // Forward a node that is exactly one `Ref` (and is not itself).
        for id in 0..n {
            let rep = find(&mut map, id);
            if rep != id {
                continue;
            }
            if let [Check::Ref(target)] = program.nodes[id].checks.as_slice() {
                let t = find(&mut map, *target);
                if t != id {
                    map[id] = t;
                    changed = true;
                }
            }
        }
        // Canonicalize references, drop refs to trivial nodes, then merge equal nodes.
        let resolved: Vec<NodeId> = (0..n).map(|i| find(&mut map, i)).collect();
        let mut by_key: HashMap<String, NodeId> = HashMap::new();
        for id in 0..n {
            if resolved[id] != id {
                continue;
            }
            let mut checks = std::mem::take(&mut program.nodes[id].checks);
            for c in &mut checks {
                c.remap(&resolved);
            }
            checks.retain(|c| !matches!(c, Check::Ref(t) if *t != id && program.nodes[*t].checks.is_empty() && resolved[*t] == *t));
            program.nodes[id].checks = checks;
            let key = format!("{:?}", program.nodes[id].checks);
            match by_key.get(&key) {
                Some(&other) if other != id => {
                    map[id] = other;
                    changed = true;
                }
                _ => {
                    by_key.insert(key, id);
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Keep what the roots reach, renumbered in order of first discovery from the roots.
    let resolved: Vec<NodeId> = (0..n).map(|i| find(&mut map, i)).collect();
    let mut new_id = vec![usize::MAX; n];
    let mut order = Vec::new();
    let mut stack: Vec<NodeId> = roots.iter().rev().map(|r| resolved[*r]).collect();
    while let Some(id) = stack.pop() {
        if new_id[id] != usize::MAX {
            continue;
        }
        new_id[id] = order.len();
        order.push(id);
        let mut children = Vec::new();
        for c in &program.nodes[id].checks {
            children.extend(c.children().into_iter().map(|k| resolved[k]));
        }
        stack.extend(children.into_iter().rev());
    }
    let mut nodes = Vec::with_capacity(order.len());
    for id in &order {
        let mut node = program.nodes[*id].clone();
        for c in &mut node.checks {
            c.remap(&resolved);
            c.remap(&new_id);
        }
        nodes.push(node);
    }
    program.nodes = nodes;
    (0..n).map(|i| new_id[resolved[i]]).collect()
}

/// The node `id` is forwarded or merged into, with path compression (the links form a forest:
/// a node is only ever linked to a node that is not linked itself).
fn find(map: &mut [NodeId], id: NodeId) -> NodeId {
    let mut root = id;
    while map[root] != root {
        root = map[root];
    }
    let mut cur = id;
    while map[cur] != root {
        let next = map[cur];
        map[cur] = root;
        cur = next;
    }
    root
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
    fn merges_equal_nodes_and_forwards_refs() {
        let mut p = Program {
            nodes: vec![
                node(vec![Check::Properties(vec![
                    ("a".into(), 1),
                    ("b".into(), 2),
                    ("c".into(), 3),
                ])]),
                node(vec![Check::Type(vec![JsonType::String])]),
                node(vec![Check::Type(vec![JsonType::String])]),
                node(vec![Check::Ref(4)]),
                node(vec![Check::Type(vec![JsonType::Integer]), Check::Ref(5)]),
                node(vec![]),
            ],
            patterns: vec![],
        };
        let map = optimize(&mut p, &[0]);
        assert_eq!(p.nodes.len(), 3, "{:?}", p.nodes);
        assert_eq!(map[1], map[2]);
        assert_eq!(map[3], map[4]);
        assert_eq!(
            p.nodes[map[4]].checks,
            vec![Check::Type(vec![JsonType::Integer])]
        );
    }

    #[test]
    fn keeps_cycles() {
        let mut p = Program {
            nodes: vec![node(vec![Check::Items { from: 0, node: 0 }])],
            patterns: vec![],
        };
        let map = optimize(&mut p, &[0]);
        assert_eq!(p.nodes.len(), 1);
        assert_eq!(
            p.nodes[0].checks,
            vec![Check::Items {
                from: 0,
                node: map[0]
            }]
        );
    }
}
