//! The differential oracles of the corpus run: jsoncompat (its CLI, a checker of draft 2020-12
//! only, so older drafts are translated first) and the `jsonschema` crate (an independent
//! validator run on the raw schemas, to tell whose counterexample is real).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Map, Value};

/// The draft a schema declares (`2020-12`, `2019-09`, `07`, `06`, `04`; `07` when undeclared,
/// as ctxgen reads it).
pub fn draft(schema: &Value) -> &'static str {
    let s = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
    for (needle, d) in [
        ("2020-12", "2020-12"),
        ("2019-09", "2019-09"),
        ("draft-04", "04"),
        ("draft-06", "06"),
        ("draft-07", "07"),
    ] {
        if s.contains(needle) {
            return d;
        }
    }
    "07"
}

/// A draft-04/06/07 (or 2019-09) schema rewritten in draft 2020-12 terms, as far as its meaning
/// is unchanged: keywords beside `$ref` dropped (drafts 4-7 ignore them), `items` arrays as
/// `prefixItems` with `additionalItems` as `items`, `dependencies` split into
/// `dependentRequired`/`dependentSchemas`, draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum`
/// as numbers, draft-04 `id` dropped; `$schema` set to 2020-12.
pub fn to_2020_12(schema: &Value) -> Value {
    let d = draft(schema);
    let mut out = if d == "2020-12" {
        schema.clone()
    } else {
        translate(schema, d)
    };
    if let Some(o) = out.as_object_mut() {
        o.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
    }
    out
}

const MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "definitions",
    "$defs",
    "dependentSchemas",
];
const ONE: [&str; 11] = [
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "items",
];
const MANY: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

fn translate(v: &Value, d: &str) -> Value {
    let Value::Object(o) = v else {
        return v.clone();
    };
    let mut o = o.clone();
    if o.contains_key("$ref") && d != "2019-09" {
        o.retain(|k, _| {
            matches!(
                k.as_str(),
                "$ref" | "definitions" | "$defs" | "$schema" | "$id"
            )
        });
    }
    if d == "04" {
        o.remove("id");
        for (flag, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            match o.get(flag) {
                Some(Value::Bool(true)) => {
                    if let Some(b) = o.remove(bound) {
                        o.insert(flag.into(), b);
                    }
                }
                Some(Value::Bool(false)) => {
                    o.remove(flag);
                }
                _ => {}
            }
        }
    }
    if let Some(Value::Array(items)) = o.get("items").cloned() {
        o.insert("prefixItems".into(), Value::Array(items));
        match o.remove("additionalItems") {
            Some(a) => o.insert("items".into(), a),
            None => o.remove("items"),
        };
    } else {
        o.remove("additionalItems");
    }
    if let Some(Value::Object(deps)) = o.remove("dependencies") {
        let (mut req, mut sch) = (Map::new(), Map::new());
        for (k, x) in deps {
            if x.is_array() {
                req.insert(k, x);
            } else {
                sch.insert(k, x);
            }
        }
        if !req.is_empty() {
            o.insert("dependentRequired".into(), Value::Object(req));
        }
        if !sch.is_empty() {
            o.insert("dependentSchemas".into(), Value::Object(sch));
        }
    }
    for (k, x) in o.iter_mut() {
        if MAPS.contains(&k.as_str()) {
            if let Value::Object(m) = x {
                for s in m.values_mut() {
                    *s = translate(s, d);
                }
            }
        } else if ONE.contains(&k.as_str()) {
            *x = translate(x, d);
        } else if MANY.contains(&k.as_str()) {
            if let Value::Array(a) = x {
                for s in a.iter_mut() {
                    *s = translate(s, d);
                }
            }
        }
    }
    Value::Object(o)
}

/// jsoncompat's answer for one role.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Jc {
    Compatible,
    Incompatible { counterexample: Option<Value> },
    Error { message: String },
}

/// The jsoncompat CLI, with a folder for the translated schemas.
pub struct JsonCompat {
    pub bin: PathBuf,
    pub work: PathBuf,
    pub fuzz: usize,
    /// Seconds one check may take before it is stopped (counted as "no answer").
    pub timeout: u64,
}

impl JsonCompat {
    /// `role`: `serializer` (new ⊆ old: our writer) or `deserializer` (old ⊆ new: our reader).
    pub fn check(&self, old: &Path, new: &Path, role: &str) -> Jc {
        let child = Command::new(&self.bin)
            .args(["compat", "--json", "--role", role, "--fuzz"])
            .arg(self.fuzz.to_string())
            .arg(old)
            .arg(new)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                return Jc::Error {
                    message: format!("{}: {e}", self.bin.display()),
                }
            }
        };
        let deadline = Instant::now() + Duration::from_secs(self.timeout);
        while matches!(child.try_wait(), Ok(None)) {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Jc::Error {
                    message: format!("no answer within {} s", self.timeout),
                };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let Ok(out) = child.wait_with_output() else {
            return Jc::Error {
                message: "no output".into(),
            };
        };
        let parsed: Option<Value> = serde_json::from_slice(&out.stdout).ok();
        match parsed
            .as_ref()
            .and_then(|v| v.get("status"))
            .and_then(Value::as_str)
        {
            Some("compatible") => Jc::Compatible,
            Some("incompatible") => Jc::Incompatible {
                counterexample: parsed
                    .and_then(|mut v| v.get_mut("counterexample").map(Value::take)),
            },
            _ => {
                let err = String::from_utf8_lossy(&out.stderr);
                let first = err
                    .lines()
                    .skip_while(|l| !l.starts_with("Caused by"))
                    .nth(1)
                    .or_else(|| err.lines().next())
                    .unwrap_or("no output")
                    .trim();
                Jc::Error {
                    message: first.chars().take(160).collect(),
                }
            }
        }
    }

    /// Writes the 2020-12 form of a schema file into the work folder; returns its path.
    pub fn prepare(&self, path: &Path, raw: &Value) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.work)?;
        let name = path.file_name().unwrap_or_default();
        let to = self.work.join(name);
        std::fs::write(&to, serde_json::to_string(&to_2020_12(raw))?)?;
        Ok(to)
    }
}

/// The `jsonschema` crate's verdict on an instance under a raw schema (its own draft; formats
/// asserted, as ctxgen does); `None` when the schema does not compile there (e.g. a remote `$ref`).
pub fn independent(schema: &Value, instance: &Value) -> Option<bool> {
    Some(validator(schema)?.is_valid(instance))
}

/// The `jsonschema` crate's validator of a raw schema, as [`independent`] builds it.
pub fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}
