//! The object keywords of a subschema checked in one pass (`rt::object`): `properties`, then
//! `additionalProperties: false` over the same names, then `required`, when the validation
//! program has them as consecutive checks of one node. Each gets a static `O<node>` and a key
//! function that finds a member name's property index with a `match` on the name's length,
//! then on the name: one lookup per member instead of a search of the member map per declared
//! and per required name. Nodes with the same property names share one key function.

use std::collections::{BTreeMap, HashMap};

use super::layout::WIDTH;
use super::literal;
use crate::ir::Check;

/// The static of one fused check.
pub(crate) struct ObjectCtx {
    /// The node's id: the static is `O<id>`.
    pub id: usize,
    /// The key function's name.
    pub key: String,
    /// `properties: …` as rustfmt lays it out: one line, or the opening line's items.
    pub properties: Field,
    pub closed: bool,
    pub required: Field,
    pub required_bits: String,
    pub required_rest: Field,
}

/// An array field of the static: on one line, or one item (or a run of short items) a line.
pub(crate) enum Field {
    Line(String),
    Lines(Vec<String>),
}

/// A key function: the names by length, each with its property index.
pub(crate) struct KeyFn {
    pub name: String,
    pub buckets: Vec<(usize, Vec<(String, usize)>)>,
}

/// Consecutive checks of a node that one `rt::object` call replaces.
pub(crate) struct Fused<'a> {
    /// How many checks it replaces.
    pub count: usize,
    properties: &'a [(String, usize)],
    closed: bool,
    required: &'a [String],
}

/// The checks starting at `k` that one `rt::object` call replaces, if any.
pub(crate) fn fused(checks: &[Check], k: usize) -> Option<Fused<'_>> {
    let Some(Check::Properties(ps)) = checks.get(k) else {
        return None;
    };
    if ps.is_empty() {
        return None;
    }
    let mut f = Fused {
        count: 1,
        properties: ps,
        closed: false,
        required: &[],
    };
    if let Some(Check::NoAdditionalProperties { known, patterns }) = checks.get(k + 1) {
        if patterns.is_empty() && same_names(known, ps) {
            f.count += 1;
            f.closed = true;
        }
    }
    if let Some(Check::Required(names)) = checks.get(k + f.count) {
        f.count += 1;
        f.required = names;
    }
    Some(f)
}

fn same_names(known: &[String], ps: &[(String, usize)]) -> bool {
    let mut a: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut b: Vec<&str> = ps.iter().map(|(p, _)| p.as_str()).collect();
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    a == b
}

/// The key functions of a program's fused checks, by the property names they look up.
#[derive(Default)]
pub(crate) struct Objects {
    by_names: HashMap<Vec<String>, String>,
}

impl Objects {
    /// The static `O<id>` of the fused checks of node `id`, and its key function unless an
    /// earlier node has one for the same names.
    pub fn add(&mut self, id: usize, f: &Fused<'_>) -> (ObjectCtx, Option<KeyFn>) {
        let (ps, closed, required) = (f.properties, f.closed, f.required);
        let names: Vec<String> = ps.iter().map(|(p, _)| p.clone()).collect();
        let (key, key_fn) = match self.by_names.get(&names) {
            Some(k) => (k.clone(), None),
            None => {
                let k = format!("k{id}");
                let f = key_fn(&k, &names);
                self.by_names.insert(names, k.clone());
                (k, Some(f))
            }
        };
        let index: BTreeMap<&str, usize> = ps
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.as_str(), i))
            .collect();
        let mut bits = 0u64;
        let mut rest = Vec::new();
        for name in required {
            match index.get(name.as_str()) {
                Some(&i) if i < 64 => bits |= 1 << i,
                _ => rest.push(literal(name)),
            }
        }
        let props: Vec<String> = ps
            .iter()
            .map(|(name, node)| format!("({}, n{node})", literal(name)))
            .collect();
        let required: Vec<String> = required.iter().map(|n| literal(n)).collect();
        let object = ObjectCtx {
            id,
            key,
            properties: field("properties", props),
            closed,
            required: field("required", required),
            required_bits: format!("{bits:#x}"),
            required_rest: field("required_rest", rest),
        };
        (object, key_fn)
    }
}

/// `    name: &[a, b],` on one line when it fits, else broken as rustfmt breaks an array.
fn field(name: &str, items: Vec<String>) -> Field {
    let line = format!("&[{}]", items.join(", "));
    // `    name: [..],`
    if 4 + name.len() + 2 + line.len() < WIDTH {
        Field::Line(line)
    } else {
        Field::Lines(super::layout::array_lines(&items, 8))
    }
}

fn key_fn(name: &str, names: &[String]) -> KeyFn {
    let mut buckets: BTreeMap<usize, Vec<(String, usize)>> = BTreeMap::new();
    for (i, n) in names.iter().enumerate() {
        buckets.entry(n.len()).or_default().push((literal(n), i));
    }
    KeyFn {
        name: name.to_string(),
        buckets: buckets
            .into_iter()
            .map(|(len, mut arms)| {
                arms.sort();
                (len, arms)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(names: &[&str]) -> Check {
        Check::Properties(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.to_string(), i))
                .collect(),
        )
    }

    fn closed(names: &[&str], patterns: Vec<usize>) -> Check {
        Check::NoAdditionalProperties {
            known: names.iter().map(|n| n.to_string()).collect(),
            patterns,
        }
    }

    fn required(names: &[&str]) -> Check {
        Check::Required(names.iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn fuses_only_consecutive_keywords_of_the_same_names() {
        let count = |checks: &[Check]| fused(checks, 0).map(|f| (f.count, f.closed));
        let ab = ["a", "b"];
        assert_eq!(count(&[props(&ab)]), Some((1, false)));
        assert_eq!(
            count(&[props(&ab), closed(&["b", "a"], vec![]), required(&["a"])]),
            Some((3, true))
        );
        // A pattern, or other names, keep `additionalProperties` apart, and `required` after it.
        assert_eq!(
            count(&[props(&ab), closed(&ab, vec![0]), required(&["a"])]),
            Some((1, false))
        );
        assert_eq!(
            count(&[props(&ab), closed(&["a"], vec![]), required(&["a"])]),
            Some((1, false))
        );
        assert_eq!(
            count(&[props(&ab), Check::MinProperties(1), required(&["a"])]),
            Some((1, false))
        );
        assert_eq!(count(&[props(&ab), required(&["z"])]), Some((2, false)));
        assert_eq!(count(&[props(&[])]), None);
        assert_eq!(count(&[required(&["a"])]), None);
    }

    #[test]
    fn required_names_past_the_64th_property_or_undeclared_are_looked_up() {
        let names: Vec<String> = (0..70).map(|i| format!("p{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let checks = [props(&refs), required(&["p1", "p65", "zz", "p3"])];
        let f = fused(&checks, 0).expect("fused");
        let (o, key) = Objects::default().add(7, &f);
        assert_eq!(o.required_bits, "0xa");
        assert!(matches!(o.required_rest, Field::Line(ref l) if l == r#"&["p65", "zz"]"#));
        let key = key.expect("a key function");
        assert_eq!(key.name, "k7");
        // Names by length, each with its index in `properties`.
        assert_eq!(key.buckets[0].0, 2);
        assert_eq!(key.buckets[0].1[0], ("\"p0\"".to_string(), 0));
        assert_eq!(key.buckets.iter().map(|b| b.1.len()).sum::<usize>(), 70);
    }

    #[test]
    fn nodes_with_the_same_names_share_a_key_function() {
        let mut objects = Objects::default();
        let a = [props(&["x", "y"])];
        let b = [props(&["x", "y"]), required(&["y"])];
        let c = [props(&["y", "x"])];
        let (_, first) = objects.add(1, &fused(&a, 0).unwrap());
        let (second, none) = objects.add(2, &fused(&b, 0).unwrap());
        assert!(first.is_some() && none.is_none());
        assert_eq!(second.key, "k1");
        // Another order gives other indices: a function of its own.
        let (third, own) = objects.add(3, &fused(&c, 0).unwrap());
        assert_eq!((third.key.as_str(), own.is_some()), ("k3", true));
    }
}
