//! A deterministic synthetic schema with `n` definitions in the mix real schemas have: objects
//! with several typed properties (bounded and patterned strings, integers and numbers with
//! defaults, booleans, inline enums, nested objects, arrays), required lists, descriptions,
//! `$ref`s to other definitions (so cycles), named string enums, `oneOf` and `anyOf` unions and
//! arrays of references.

use serde_json::{json, Map, Value};

/// A well-mixed number for (`i`, `k`) (splitmix64), so the schema is the same on every run.
fn mix(i: usize, k: usize) -> u64 {
    let mut z = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k as u64).wrapping_add(1);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Definitions `i % 10 < 6` are objects; unions and arrays only name those, so every cycle
/// passes through a property (a cycle through `oneOf` alone would be refused).
fn is_object(i: usize) -> bool {
    i % 10 < 6
}

/// An object definition chosen by (`i`, `k`): any of the `n`, before or after `i`.
fn object_ref(n: usize, i: usize, k: usize) -> Value {
    let mut j = (mix(i, k) % n as u64) as usize;
    while !is_object(j) {
        j = (j + 1) % n;
    }
    json!({ "$ref": format!("#/$defs/D{j}") })
}

fn property(n: usize, i: usize, p: usize) -> Value {
    let r = mix(i, 100 + p);
    match r % 11 {
        0 => json!({"type": "string", "minLength": 1, "maxLength": 20 + r % 200}),
        1 => json!({"type": "string", "pattern": format!("^[a-z]{{1,{}}}(-[0-9]+)?$", 2 + r % 30)}),
        2 => json!({"type": "integer", "minimum": 0, "default": r % 10, "description": "A count."}),
        3 => json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1e6}),
        4 => json!({"type": "boolean", "default": r.is_multiple_of(2)}),
        5 => json!({"enum": ["on", "off", format!("mode{}", r % 13)]}),
        6 => object_ref(n, i, p),
        7 => json!({"type": "array", "items": object_ref(n, i, p), "maxItems": 100}),
        8 => {
            json!({"type": "array", "items": {"type": "string", "format": "uri"}, "uniqueItems": true})
        }
        9 => json!({
            "type": "object",
            "description": "Nested settings.",
            "properties": {
                "enabled": {"type": "boolean", "default": true},
                "level": {"type": "integer", "minimum": 1, "maximum": 9},
                "target": object_ref(n, i, p + 50)
            },
            "required": ["enabled"],
            "additionalProperties": false
        }),
        _ => json!({"type": "object", "additionalProperties": {"type": "string"}}),
    }
}

fn object(n: usize, i: usize) -> Value {
    let count = 3 + (mix(i, 1) % 6) as usize;
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in 0..count {
        let name = format!("field{p}{}", ["", "Name", "Id", "Count", "Url"][p % 5]);
        if mix(i, 200 + p).is_multiple_of(3) {
            required.push(Value::String(name.clone()));
        }
        props.insert(name, property(n, i, p));
    }
    let mut def = json!({
        "type": "object",
        "description": format!("Definition {i}: an object with {count} properties."),
        "properties": props,
        "required": required,
    });
    if i.is_multiple_of(3) {
        def["additionalProperties"] = json!(false);
    }
    def
}

fn definition(n: usize, i: usize) -> Value {
    match i % 10 {
        0..=5 => object(n, i),
        6 => {
            let values: Vec<String> = (0..3 + mix(i, 2) % 6)
                .map(|v| format!("value-{i}-{v}"))
                .collect();
            json!({"description": format!("Enum {i}."), "enum": values, "default": values[0]})
        }
        7 => json!({
            "description": format!("One of three kinds ({i})."),
            "oneOf": [
                {"allOf": [object_ref(n, i, 1)], "required": ["field0"]},
                {"type": "string", "pattern": "^ref:"},
                {"type": "integer", "minimum": 0}
            ]
        }),
        8 => json!({
            "description": format!("Any of a name, a number or an object ({i})."),
            "anyOf": [{"type": "string", "maxLength": 64}, {"type": "number"}, object_ref(n, i, 2)]
        }),
        _ => json!({
            "description": format!("A list ({i})."),
            "type": "array",
            "items": object_ref(n, i, 3),
            "minItems": 1
        }),
    }
}

/// The schema: one file, `n` definitions under `$defs`, named `D0`…
pub fn schema(n: usize) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| (format!("D{i}"), definition(n, i)))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs
    })
}
