//! A type's verdict follows the named types it reaches: each named type is compared on its own
//! (a reference is not entered), so a type whose own node did not change in a breaking way but
//! that contains a type that breaks a role would otherwise be called compatible whenever its
//! instances happen not to reach the breaking spot. Such a role becomes `unconfirmed` with a
//! `referenced-type-changed` change naming the type (found by the corpus re-check:
//! abc-supply-plan 11.3.0 → 11.4.0, an `if`/`then` rule inside a referenced item type).

use std::collections::{HashMap, HashSet};

use super::wire::{Change, Effect};
use super::{Outcome, Status, TypeReport};
use crate::ir::{Ir, NodeId};

/// Every named type `node` reaches (through references and subschemas), itself excluded.
fn reached(ir: &Ir, node: NodeId, named: &HashMap<NodeId, usize>) -> Vec<usize> {
    let mut seen = HashSet::from([node]);
    let mut stack = vec![node];
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        let Some(x) = ir.program.nodes.get(n) else {
            continue;
        };
        for c in &x.checks {
            for ch in c.children() {
                if seen.insert(ch) {
                    if let Some(&t) = named.get(&ch) {
                        out.push(t);
                    }
                    stack.push(ch);
                }
            }
        }
    }
    out
}

/// Marks compatible roles of changed types `unconfirmed` where a reached type is not compatible
/// in that role. `keys` are the new version's type keys.
pub(super) fn propagate(types: &mut [TypeReport], new: &Ir, keys: &[String]) {
    let named: HashMap<NodeId, usize> = new
        .types
        .iter()
        .enumerate()
        .map(|(u, t)| (t.node, u))
        .collect();
    let by_key: HashMap<&str, usize> = keys
        .iter()
        .enumerate()
        .map(|(u, k)| (k.as_str(), u))
        .collect();
    // Outcomes before propagation: reachability is transitive, so one pass suffices.
    let bad: HashMap<usize, (bool, bool, String)> = types
        .iter()
        .filter(|t| t.status == Status::Changed)
        .filter_map(|t| {
            let u = *by_key.get(t.key.as_str())?;
            let r = t.reader.outcome != Outcome::Compatible;
            let w = t.writer.outcome != Outcome::Compatible;
            (r || w).then(|| (u, (r, w, t.name.clone())))
        })
        .collect();
    if bad.is_empty() {
        return;
    }
    for t in types.iter_mut().filter(|t| t.status == Status::Changed) {
        if t.reader.outcome != Outcome::Compatible && t.writer.outcome != Outcome::Compatible {
            continue;
        }
        let Some(&u) = by_key.get(t.key.as_str()) else {
            continue;
        };
        let mut hits: Vec<usize> = reached(new, new.types[u].node, &named)
            .into_iter()
            .filter(|v| *v != u && bad.contains_key(v))
            .collect();
        hits.sort_unstable();
        hits.dedup();
        for v in hits {
            let (r, w, name) = &bad[&v];
            let r = *r && t.reader.outcome == Outcome::Compatible;
            let w = *w && t.writer.outcome == Outcome::Compatible;
            if !r && !w {
                continue;
            }
            let effect = |b: bool| if b { Effect::Unknown } else { Effect::Safe };
            t.changes.push(Change {
                path: String::new(),
                class: "referenced-type-changed",
                detail: format!("`{name}`, which this type contains, is not compatible"),
                reader: effect(r),
                writer: effect(w),
            });
            if r {
                t.reader.outcome = Outcome::Unconfirmed;
            }
            if w {
                t.writer.outcome = Outcome::Unconfirmed;
            }
        }
    }
}
