//! Shrinks the validation program: drops checks that accept everything, forwards nodes that only
//! refer to another node, merges structurally equal nodes, and removes unreachable ones.
//! Verdicts and violations are unchanged; only the generated code gets smaller.

use std::collections::{HashMap, VecDeque};

use super::checks::{Check, NodeId, Program};

/// Optimizes `program`, keeping `roots` reachable; returns the new id of every old node.
///
/// Merging is a work list over the nodes: a node is looked at again only when a node it refers
/// to was forwarded, merged or emptied, so a program whose equal parts are long chains (seven
/// equal 10,000-long chains merge level by level) costs time near-linear in its size, not
/// quadratic. Of two equal nodes the one with the smaller id stays; a forwarded node becomes
/// its target.
pub fn optimize(program: &mut Program, roots: &[NodeId]) -> Vec<NodeId> {
    let n = program.nodes.len();
    let mut map: Vec<NodeId> = (0..n).collect();
    // Who refers to each node (moved to the node it is merged into).
    let mut parents: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for (id, node) in program.nodes.iter().enumerate() {
        for c in &node.checks {
            for k in c.children() {
                parents[k].push(id);
            }
        }
    }
    let mut by_key: HashMap<String, NodeId> = HashMap::new();
    let mut key_of: Vec<Option<String>> = vec![None; n];
    let mut queue: VecDeque<NodeId> = (0..n).collect();
    let mut queued = vec![true; n];
    while let Some(id) = queue.pop_front() {
        queued[id] = false;
        if find(&mut map, id) != id {
            continue;
        }
        // Forward a node that is exactly one `Ref` (and is not itself).
        if let [Check::Ref(target)] = program.nodes[id].checks.as_slice() {
            let t = find(&mut map, *target);
            if t != id {
                unregister(&mut by_key, &mut key_of, id);
                map[id] = t;
                absorb(&mut parents, id, t, &mut queue, &mut queued);
                continue;
            }
        }
        // Canonicalize references and drop refs to trivial nodes.
        let mut checks = std::mem::take(&mut program.nodes[id].checks);
        for c in &mut checks {
            for k in c.children_mut() {
                *k = find(&mut map, *k);
            }
        }
        checks.retain(
            |c| !matches!(c, Check::Ref(t) if *t != id && program.nodes[*t].checks.is_empty()),
        );
        let key = format!("{checks:?}");
        let emptied = checks.is_empty() && !program.nodes[id].checks.is_empty();
        let forward = matches!(checks.as_slice(), [Check::Ref(t)] if *t != id);
        program.nodes[id].checks = checks;
        if key_of[id].as_deref() == Some(key.as_str()) {
            continue;
        }
        unregister(&mut by_key, &mut key_of, id);
        if emptied {
            notify(&parents[id], &mut queue, &mut queued);
        }
        if forward {
            if !queued[id] {
                queued[id] = true;
                queue.push_back(id);
            }
            continue;
        }
        match by_key.get(&key).copied() {
            Some(other) if other != id => {
                let (keep, lose) = (other.min(id), other.max(id));
                unregister(&mut by_key, &mut key_of, lose);
                map[lose] = keep;
                by_key.insert(key.clone(), keep);
                key_of[keep] = Some(key);
                absorb(&mut parents, lose, keep, &mut queue, &mut queued);
            }
            _ => {
                by_key.insert(key.clone(), id);
                key_of[id] = Some(key);
            }
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

/// Forgets the key `id` is registered under.
fn unregister(by_key: &mut HashMap<String, NodeId>, key_of: &mut [Option<String>], id: NodeId) {
    if let Some(k) = key_of[id].take() {
        if by_key.get(&k) == Some(&id) {
            by_key.remove(&k);
        }
    }
}

/// `lose` now stands for `keep`: its referrers look again, and become `keep`'s (the shorter
/// list joins the longer, so a referrer moves O(log n) times).
fn absorb(
    parents: &mut [Vec<NodeId>],
    lose: NodeId,
    keep: NodeId,
    queue: &mut VecDeque<NodeId>,
    queued: &mut [bool],
) {
    notify(&parents[lose], queue, queued);
    let mut moved = std::mem::take(&mut parents[lose]);
    if moved.len() > parents[keep].len() {
        std::mem::swap(&mut moved, &mut parents[keep]);
    }
    parents[keep].extend(moved);
}

fn notify(ids: &[NodeId], queue: &mut VecDeque<NodeId>, queued: &mut [bool]) {
    for &p in ids {
        if !queued[p] {
            queued[p] = true;
            queue.push_back(p);
        }
    }
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
            dynamic: vec![],
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
    fn equal_chains_merge_into_one() {
        // Root 0 has properties a..g, each the head of a chain of `len` nodes ending in a string.
        let (chains, len) = (7, 1_000);
        let mut nodes = vec![node(vec![])];
        let mut props = Vec::new();
        for c in 0..chains {
            let head = nodes.len();
            props.push((format!("p{c}"), head));
            for i in 0..len {
                let next = head + i + 1;
                nodes.push(node(if i + 1 == len {
                    vec![Check::Type(vec![JsonType::String])]
                } else {
                    vec![Check::Properties(vec![("next".into(), next)])]
                }));
            }
        }
        nodes[0].checks = vec![Check::Properties(props)];
        let mut p = Program {
            nodes,
            patterns: vec![],
            dynamic: vec![],
        };
        let map = optimize(&mut p, &[0]);
        assert_eq!(p.nodes.len(), 1 + len);
        for c in 1..chains {
            assert_eq!(map[1 + c * len], map[1]);
        }
    }

    #[test]
    fn keeps_cycles() {
        let mut p = Program {
            nodes: vec![node(vec![Check::Items { from: 0, node: 0 }])],
            patterns: vec![],
            dynamic: vec![],
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
