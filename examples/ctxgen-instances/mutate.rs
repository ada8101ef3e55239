//! Deterministic mutants of a valid instance: drop an optional property, add an unknown
//! property, change a value's JSON type, replace a value by another value of the instance at the
//! same schema location, duplicate an array item, set a property to null.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::locate::{escape, Walker, ROOT};

/// Values of an instance looked at for mutation sites (the first ones, in document order).
const MAX_NODES: usize = 20_000;

pub struct Mutant {
    /// `drop /a/b`, `retype /c`, …
    pub what: String,
    pub data: Value,
}

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// FNV-1a, for seeds that do not depend on the Rust version.
pub fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

struct Node<'v> {
    pointer: String,
    value: &'v Value,
    /// The schema location that applies, when the walk could tell.
    loc: Option<String>,
}

fn nodes<'v>(instance: &'v Value, walker: &Walker) -> Vec<Node<'v>> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), instance, Some(ROOT.to_string()))];
    while let Some((pointer, value, loc)) = stack.pop() {
        if out.len() >= MAX_NODES {
            break;
        }
        let mut children: Vec<(String, &Value, Option<String>)> = Vec::new();
        match value {
            Value::Object(m) => {
                for (k, v) in m {
                    let l = loc.as_deref().and_then(|l| walker.member(l, k));
                    children.push((format!("{pointer}/{}", escape(k)), v, l));
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    let l = loc.as_deref().and_then(|l| walker.item(l, i));
                    children.push((format!("{pointer}/{i}"), v, l));
                }
            }
            _ => {}
        }
        stack.extend(children.into_iter().rev());
        out.push(Node {
            pointer,
            value,
            loc,
        });
    }
    out
}

/// Parent pointer and last token (unescaped) of a non-root pointer.
fn split(pointer: &str) -> Option<(&str, String)> {
    let at = pointer.rfind('/')?;
    let token = pointer[at + 1..].replace("~1", "/").replace("~0", "~");
    Some((&pointer[..at], token))
}

fn retyped(v: &Value) -> Value {
    match v {
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(1)),
        Value::Number(n) => Value::String(n.to_string()),
        Value::Bool(b) => Value::String(b.to_string()),
        Value::Null => Value::String("null".into()),
        Value::Array(_) => Value::Object(Map::new()),
        Value::Object(_) => Value::Array(Vec::new()),
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Drop,
    Replace,
    Add,
    Duplicate,
    Retype,
    Null,
}

const ORDER: [Kind; 6] = [
    Kind::Drop,
    Kind::Replace,
    Kind::Add,
    Kind::Duplicate,
    Kind::Retype,
    Kind::Null,
];

/// Up to `n` distinct mutants of `instance`, the same ones for the same seed.
pub fn mutants(instance: &Value, walker: &Walker, seed: u64, n: usize) -> Vec<Mutant> {
    if n == 0 {
        return Vec::new();
    }
    let all = nodes(instance, walker);
    let mut rng = Rng::new(seed);
    let index: HashMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, n)| (n.pointer.as_str(), i))
        .collect();
    // Members: (object node, key, pointer of the member).
    let members: Vec<(usize, String, String)> = all
        .iter()
        .filter_map(|node| {
            let (parent, key) = split(&node.pointer)?;
            let p = *index.get(parent)?;
            all[p]
                .value
                .is_object()
                .then(|| (p, key, node.pointer.clone()))
        })
        .collect();
    let mut required: HashMap<usize, Vec<String>> = HashMap::new();
    let optional: Vec<&(usize, String, String)> = members
        .iter()
        .filter(|(p, key, _)| {
            let req = required.entry(*p).or_insert_with(|| {
                all[*p]
                    .loc
                    .as_deref()
                    .map(|l| walker.required(l))
                    .unwrap_or_default()
            });
            !req.contains(key)
        })
        .collect();
    let objects: Vec<usize> = (0..all.len())
        .filter(|i| all[*i].value.is_object())
        .collect();
    let arrays: Vec<usize> = (0..all.len())
        .filter(|i| all[*i].value.as_array().is_some_and(|a| !a.is_empty()))
        .collect();
    let mut by_loc: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, node) in all.iter().enumerate().skip(1) {
        if let Some(l) = node.loc.as_deref() {
            by_loc.entry(l).or_default().push(i);
        }
    }
    let groups: Vec<&Vec<usize>> = by_loc
        .values()
        .filter(|g| g.iter().any(|i| all[*i].value != all[g[0]].value))
        .collect();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    seen.insert(instance.to_string());
    for attempt in 0..n * 3 {
        if out.len() >= n {
            break;
        }
        let mut data = instance.clone();
        let what = match ORDER[attempt % ORDER.len()] {
            Kind::Drop if !optional.is_empty() => {
                let (p, key, ptr) = optional[rng.below(optional.len())];
                if let Some(Value::Object(m)) = data.pointer_mut(&all[*p].pointer) {
                    m.shift_remove(key.as_str());
                }
                format!("drop {ptr}")
            }
            Kind::Replace if !groups.is_empty() => {
                let g = groups[rng.below(groups.len())];
                let a = g[rng.below(g.len())];
                let others: Vec<usize> = g
                    .iter()
                    .copied()
                    .filter(|b| all[*b].value != all[a].value)
                    .collect();
                let b = others[rng.below(others.len())];
                if let Some(slot) = data.pointer_mut(&all[a].pointer) {
                    *slot = all[b].value.clone();
                }
                format!("replace {} by {}", all[a].pointer, all[b].pointer)
            }
            Kind::Add if !objects.is_empty() => {
                let o = objects[rng.below(objects.len())];
                let mut key = "ctxgenUnknownProperty".to_string();
                if let Some(Value::Object(m)) = data.pointer_mut(&all[o].pointer) {
                    while m.contains_key(&key) {
                        key.push('_');
                    }
                    m.insert(key.clone(), Value::String("unknown".into()));
                }
                format!("add {}/{}", all[o].pointer, escape(&key))
            }
            Kind::Duplicate if !arrays.is_empty() => {
                let a = arrays[rng.below(arrays.len())];
                let len = all[a].value.as_array().map_or(0, Vec::len);
                let j = rng.below(len);
                if let Some(Value::Array(items)) = data.pointer_mut(&all[a].pointer) {
                    let copy = items[j].clone();
                    items.insert(j + 1, copy);
                }
                format!("duplicate {}/{j}", all[a].pointer)
            }
            Kind::Retype => {
                let node = &all[rng.below(all.len())];
                if let Some(slot) = data.pointer_mut(&node.pointer) {
                    *slot = retyped(node.value);
                }
                format!(
                    "retype {}",
                    if node.pointer.is_empty() {
                        "/"
                    } else {
                        &node.pointer
                    }
                )
            }
            Kind::Null if !members.is_empty() => {
                let (_, _, ptr) = &members[rng.below(members.len())];
                if let Some(slot) = data.pointer_mut(ptr) {
                    *slot = Value::Null;
                }
                format!("null {ptr}")
            }
            _ => continue,
        };
        if seen.insert(data.to_string()) {
            out.push(Mutant { what, data });
        }
    }
    out
}
