//! Generation time on large synthetic schemas: many definitions, a huge enum, and long chains
//! of `$ref`s, `allOf`s and properties. Prints one row per input: the time to build the IR and
//! to render each language (in memory, nothing written). No timing is asserted.
//!
//! `cargo bench --bench scale [-- 50000]` (the optional number adds a run with that many
//! definitions).

use std::time::Instant;

use ctxgen::{Config, Lang};
use serde_json::{json, Map, Value};

/// `n` definitions like those of real schemas: an object with a bounded string, an integer with
/// a default, an enum, an optional list of the next definition and a reference to it.
fn definitions(n: usize) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| {
            let next = format!("#/$defs/d{}", (i + 1) % n);
            let def = json!({
                "type": "object",
                "description": format!("Definition {i}."),
                "required": ["name", "kind"],
                "additionalProperties": false,
                "properties": {
                    "name": {"type": "string", "maxLength": 40, "pattern": "^[a-z]+$"},
                    "count": {"type": "integer", "minimum": 0, "default": 1},
                    "kind": {"enum": ["a", "b", format!("k{}", i % 7)]},
                    "items": {"type": "array", "items": {"$ref": next}},
                    "next": {"$ref": next}
                }
            });
            (format!("d{i}"), def)
        })
        .collect();
    json!({ "$defs": defs })
}

fn chain(n: usize, make: impl Fn(String) -> Value) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| {
            let def = match i + 1 < n {
                true => make(format!("#/$defs/d{}", i + 1)),
                false => json!({"type": "string"}),
            };
            (format!("d{i}"), def)
        })
        .collect();
    json!({ "$defs": defs })
}

fn secs(start: Instant) -> String {
    format!("{:.2} s", start.elapsed().as_secs_f64())
}

fn run(name: &str, schema: &Value) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("s.json"), schema.to_string()).expect("write");
    let mut row = vec![name.to_string()];
    let config = |langs: &[Lang]| {
        let mut c = Config::new();
        c.schemas_dir(dir.path()).languages(langs);
        c
    };
    let start = Instant::now();
    match config(&[]).ir() {
        Ok(ir) => row.push(format!("{} ({} types)", secs(start), ir.types.len())),
        Err(e) => row.push(format!("error: {e}")),
    }
    for lang in [Lang::Rust, Lang::TypeScript, Lang::Python] {
        let start = Instant::now();
        match config(&[lang]).render() {
            Ok(r) => {
                let bytes: usize = r.packages[0].1.values().map(String::len).sum();
                row.push(format!("{} ({} KB)", secs(start), bytes / 1024));
            }
            Err(e) => row.push(format!("error: {e}")),
        }
    }
    let start = Instant::now();
    let all = config(&[Lang::Rust, Lang::TypeScript, Lang::Python]).render();
    row.push(match all {
        Ok(_) => secs(start),
        Err(e) => format!("error: {e}"),
    });
    println!("| {} |", row.join(" | "));
}

fn main() {
    let big: Option<usize> = std::env::args().skip(1).find_map(|a| a.parse().ok());
    println!("| input | IR | Rust | TypeScript | Python | all three |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut sizes = vec![1_000, 10_000];
    sizes.extend(big);
    for n in sizes {
        run(&format!("{n} definitions"), &definitions(n));
    }
    let values: Vec<String> = (0..100_000).map(|i| format!("value-{i}")).collect();
    run(
        "enum of 100,000 values",
        &json!({"$defs": {"E": {"enum": values}}}),
    );
    run(
        "10,000-long `$ref` chain",
        &chain(10_000, |next| json!({"$ref": next})),
    );
    run(
        "10,000-long `allOf` chain",
        &chain(10_000, |next| json!({"allOf": [{"$ref": next}]})),
    );
    run(
        "10,000-long property chain",
        &chain(
            10_000,
            |next| json!({"type": "object", "properties": {"p": {"$ref": next}}}),
        ),
    );
    run(
        "10,000-long array chain",
        &chain(
            10_000,
            |next| json!({"type": "array", "items": {"$ref": next}}),
        ),
    );
    run(
        "3,900-long property cycle of look-alike objects",
        &chain(3_901, |next| {
            let back = if next.ends_with("d3900") {
                "#/$defs/d0".to_string()
            } else {
                next
            };
            json!({"type": "object", "properties": {"p": {"$ref": back}}})
        }),
    );
    run(
        "10,000-long `allOf` cycle of objects",
        &chain(10_001, |next| {
            let back = if next.ends_with("d10000") {
                "#/$defs/d0".to_string()
            } else {
                next
            };
            json!({"type": "object", "allOf": [{"$ref": back}]})
        }),
    );
    // Seven equal chains: the validation program merges equal nodes level by level.
    let mut equal = Map::new();
    let mut props = Map::new();
    for c in 0..7 {
        for i in 0..10_000 {
            let def = match i + 1 < 10_000 {
                true => {
                    json!({"type": "object", "properties": {"p": {"$ref": format!("#/$defs/c{c}_{}", i + 1)}}})
                }
                false => json!({"type": "string"}),
            };
            equal.insert(format!("c{c}_{i}"), def);
        }
        props.insert(format!("p{c}"), json!({"$ref": format!("#/$defs/c{c}_0")}));
    }
    run(
        "seven equal 10,000-long property chains",
        &json!({"type": "object", "properties": props, "$defs": equal}),
    );
}
