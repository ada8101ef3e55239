//! Confirms or refutes a predicted incompatibility: instances valid under one version, run
//! through the other version's validation program; the first rejected one, shrunk, is the
//! counterexample.

use serde::Serialize;
use serde_json::Value;

use super::instances::Gen;
use super::interp::Interp;
use crate::ir::NodeId;

/// A concrete instance one version accepts and the other rejects.
#[derive(Debug, Clone, Serialize)]
pub struct Counterexample {
    pub instance: Value,
    /// `old` or `new`.
    pub accepted_by: &'static str,
    pub rejected_by: &'static str,
    /// The rejecting validator's violations, as `(pointer, keyword)`.
    pub violations: Vec<Violation>,
    /// Set when the message's version field is pinned (docs/evolution.md, "The version field"):
    /// `instance` is what the producer sends, and the consumer's validator was given the same
    /// instance with this property set to the consumer's own version; `violations` are its
    /// violations then (a raw consumer also reports the version field itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer_reads: Option<ConsumerReads>,
}

/// The version field as the consumer's validator read it.
#[derive(Debug, Clone, Serialize)]
pub struct ConsumerReads {
    pub property: String,
    pub value: Value,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Violation {
    pub pointer: String,
    pub keyword: String,
}

/// The outcome of a search in one direction.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// Valid instances of the accepting side that were checked.
    pub checked: usize,
    pub counterexample: Option<Counterexample>,
    /// Whether `checked` is every valid instance of the producing side (a finite space listed by
    /// [`super::finite`]), not a sample.
    pub exhaustive: bool,
}

/// One side of a search: a validation program and the node of the type.
pub struct Party<'a> {
    pub interp: &'a Interp<'a>,
    pub node: NodeId,
    pub label: &'static str,
}

/// Generates up to `samples` valid instances of `from` (and checks `seeds` first) and runs each
/// through `to`.
pub fn search(
    from: &Party<'_>,
    to: &Party<'_>,
    seeds: &[Value],
    samples: usize,
    seed: u64,
) -> Search {
    search_pinned(from, to, seeds, samples, seed, None)
}

/// As [`search`]; when `pin` is given, a top-level property of that name is set to that value
/// before the consumer sees the instance (the version field a consumer checks by major version,
/// not by equality: see docs/evolution.md).
pub fn search_pinned(
    from: &Party<'_>,
    to: &Party<'_>,
    seeds: &[Value],
    samples: usize,
    seed: u64,
    pin: Option<&(String, Value)>,
) -> Search {
    let mut out = Search::default();
    let mut seen = std::collections::HashSet::new();
    for v in seeds {
        if try_one(from, to, pin, v, &mut out) {
            return out;
        }
    }
    let mut gen = Gen::new(from.interp, seed);
    let mut valid = 0;
    let tries = samples.saturating_mul(8).max(64);
    for i in 0..tries {
        if valid >= samples {
            break;
        }
        // Vary how often undeclared properties appear.
        gen.extra = [0.0, 0.15, 0.5][i % 3];
        let v = gen.candidate(from.node);
        if !from.interp.valid(from.node, &v) {
            continue;
        }
        if !seen.insert(v.to_string()) {
            continue;
        }
        valid += 1;
        if try_one(from, to, pin, &v, &mut out) {
            return out;
        }
    }
    out
}

/// When the producing side has a finite instance space of at most `cap` values
/// ([`super::finite`]), runs every one of them through the consumer (as [`search_pinned`] runs
/// its samples): a compatible outcome is then proved. `None` when the space is not listed.
pub fn search_exhaustive(
    from: &Party<'_>,
    to: &Party<'_>,
    pin: Option<&(String, Value)>,
    cap: usize,
) -> Option<Search> {
    let all = super::finite::enumerate(from.interp, from.node, cap)?;
    let mut out = Search {
        exhaustive: true,
        ..Search::default()
    };
    for v in &all {
        if try_one(from, to, pin, v, &mut out) {
            break;
        }
    }
    Some(out)
}

/// `v` with the pinned top-level property set to the consumer's value (when `v` has it).
fn pinned(pin: Option<&(String, Value)>, v: &Value) -> Value {
    let mut v = v.clone();
    if let (Some((k, x)), Some(o)) = (pin, v.as_object_mut()) {
        if o.contains_key(k) {
            o.insert(k.clone(), x.clone());
        }
    }
    v
}

/// Runs one instance of the producing side through the consumer; a rejected one is shrunk and
/// recorded as the counterexample (`true`).
fn try_one(
    from: &Party<'_>,
    to: &Party<'_>,
    pin: Option<&(String, Value)>,
    v: &Value,
    out: &mut Search,
) -> bool {
    let to_valid = |v: &Value| to.interp.valid(to.node, &pinned(pin, v));
    if !from.interp.valid(from.node, v) {
        return false;
    }
    out.checked += 1;
    if to_valid(v) {
        return false;
    }
    let instance = shrink(v.clone(), from, &to_valid);
    let consumer_reads = pin
        .filter(|(k, x)| instance.get(k).is_some_and(|y| y != x))
        .map(|(k, x)| ConsumerReads {
            property: k.clone(),
            value: x.clone(),
        });
    let violations = to
        .interp
        .errors(to.node, &pinned(pin, &instance))
        .into_iter()
        .map(|(pointer, keyword)| Violation {
            pointer,
            keyword: keyword.to_string(),
        })
        .collect();
    out.counterexample = Some(Counterexample {
        instance,
        accepted_by: from.label,
        rejected_by: to.label,
        violations,
        consumer_reads,
    });
    true
}

/// Removes properties and items while the instance stays accepted by `from` and rejected by `to`.
fn shrink(mut v: Value, from: &Party<'_>, to_valid: &dyn Fn(&Value) -> bool) -> Value {
    let holds = |v: &Value| from.interp.valid(from.node, v) && !to_valid(v);
    for _ in 0..200 {
        let paths = removable(&v, String::new());
        let mut progressed = false;
        for p in paths {
            let mut w = v.clone();
            if remove(&mut w, &p) && holds(&w) {
                v = w;
                progressed = true;
                break;
            }
        }
        if !progressed {
            break;
        }
    }
    v
}

/// Pointers of every property and item, outermost first.
fn removable(v: &Value, at: String) -> Vec<String> {
    let mut out = Vec::new();
    let mut inner = Vec::new();
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                inner.extend(removable(x, p));
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate().rev() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                inner.extend(removable(x, p));
            }
        }
        _ => {}
    }
    out.extend(inner);
    out
}

fn remove(v: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match v.pointer_mut(parent) {
        Some(Value::Object(o)) => o.shift_remove(&last).is_some(),
        Some(Value::Array(a)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}
