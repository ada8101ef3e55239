//! The instance-depth guard of the validation program (`docs/validation.md`, "Nesting").
//!
//! Only a node that lies on a cycle of the program graph can be entered again and again as the
//! validator descends into the instance; every other node is entered at most as deep as the
//! schema itself goes. The guarded nodes are the nodes of the strongly connected components
//! with a cycle (several nodes, or one that applies itself). A guarded node entered at an
//! instance location deeper than [`MAX_DEPTH`] reference tokens reports one `maxDepth`
//! violation there and does not descend further.

use crate::ir::{Check, Program};

/// The deepest instance location (number of JSON Pointer reference tokens) a guarded node
/// validates; also the deepest nesting a JSON text may have at the text entry points. The
/// same constant in every language.
pub const MAX_DEPTH: usize = 1024;

/// Which nodes guard the depth, and which need to know it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DepthPlan {
    /// The node lies on a cycle: it checks the depth when entered.
    pub guarded: Vec<bool>,
    /// The node reaches a guarded node (or is one): where the instance depth is not implicit
    /// in the location (TypeScript's quick mode), it takes the depth as a parameter.
    #[cfg_attr(not(feature = "typescript"), allow(dead_code))]
    pub carries: Vec<bool>,
}

impl DepthPlan {
    pub fn new(program: &Program) -> DepthPlan {
        let edges: Vec<Vec<usize>> = program
            .nodes
            .iter()
            .map(|n| {
                let mut out: Vec<usize> = n.checks.iter().flat_map(Check::children).collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let comp = components(&edges);
        let mut size = vec![0usize; edges.len()];
        for &c in &comp {
            size[c] += 1;
        }
        let guarded: Vec<bool> = (0..edges.len())
            .map(|n| size[comp[n]] > 1 || edges[n].contains(&n))
            .collect();
        let carries = reaching(&edges, guarded.clone());
        DepthPlan { guarded, carries }
    }

    pub fn guarded(&self, node: usize) -> bool {
        self.guarded.get(node).copied().unwrap_or(false)
    }

    #[cfg_attr(not(feature = "typescript"), allow(dead_code))]
    pub fn carries(&self, node: usize) -> bool {
        self.carries.get(node).copied().unwrap_or(false)
    }
}

/// Which vertices of a graph (`edges[v]`: the vertices `v` leads to) reach a marked vertex, or
/// are one: `marked`, extended backwards along the edges in linear time.
pub(crate) fn reaching(edges: &[Vec<usize>], mut marked: Vec<bool>) -> Vec<bool> {
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
    for (from, out) in edges.iter().enumerate() {
        for &to in out {
            callers[to].push(from);
        }
    }
    let mut stack: Vec<usize> = (0..edges.len()).filter(|n| marked[*n]).collect();
    while let Some(n) = stack.pop() {
        for &c in &callers[n] {
            if !marked[c] {
                marked[c] = true;
                stack.push(c);
            }
        }
    }
    marked
}

/// Strongly connected components (Tarjan's algorithm without recursion): the component
/// number of every node.
fn components(edges: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![NONE; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, position in its edge list)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*pos) {
                *pos += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::ir::Node;

    fn program(checks: Vec<Vec<Check>>) -> Program {
        Program {
            nodes: checks
                .into_iter()
                .map(|checks| Node {
                    origin: Location::new("t.json", ""),
                    checks,
                })
                .collect(),
            patterns: Vec::new(),
        }
    }

    #[test]
    fn only_nodes_on_cycles_are_guarded_and_their_callers_carry_the_depth() {
        // 0 -> 1 -> 2 -> 1 (a cycle through items), 2 -> 3 (a leaf), 4 alone, 5 -> 5.
        let p = program(vec![
            vec![Check::Ref(1)],
            vec![Check::Items { from: 0, node: 2 }],
            vec![Check::AnyOf(vec![1, 3])],
            vec![Check::MinItems(1)],
            vec![Check::Ref(3)],
            vec![Check::Properties(vec![("a".into(), 5)])],
        ]);
        let plan = DepthPlan::new(&p);
        assert_eq!(plan.guarded, [false, true, true, false, false, true]);
        assert_eq!(plan.carries, [true, true, true, false, false, true]);
    }
}
