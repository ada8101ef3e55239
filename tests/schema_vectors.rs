//! Validates the protocol schemas and the shared test vectors with an independent,
//! spec-compliant validator (the `jsonschema` crate).
//!
//! * every schema file: `$schema`/`$id`/`title`/`description`, the 2020-12 meta-schema,
//!   every `$ref` resolves locally (no network access: the registry holds all schemas and
//!   retrieval is disabled), every type and field has a `description`;
//! * every vector case: valid/invalid and the exact multiset of (instance pointer, keyword)
//!   pairs, following the "Violation reporting rules" of `tests/vectors/README.md`;
//! * counts (>= 200 cases, >= 25 % invalid) and coverage: every constraint location of the
//!   schemas is broken by at least one invalid vector;
//! * extension keywords: the `x-max-words` word counter (also plugged into the validator as a
//!   custom keyword), `x-path-hierarchy` consistency, and the shape of the helper annotations.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Registry, ValidationError, Validator};
use serde_json::{json, Map, Value};

#[path = "../tools/src/bin/bench/max_words.rs"]
mod max_words;
use max_words::{count_words, max_words};

const BASE: &str = "https://ctxgen.dev/schemas/";
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";
const SCHEMA_FILES: [&str; 6] = [
    "common.json",
    "paper-context.json",
    "message-envelope.json",
    "session-context.json",
    "agent-context-report.json",
    "scheduling-context.json",
];

/// Constraint locations that no error can point at, with the reason.
const UNREACHABLE: [&str; 3] = [
    // `anyOf: [{$ref: AttendeeAnalysis}, {type: null}]` (a nullable reference): a failing
    // `anyOf` is reported as one `anyOf` error at the instance, never with the errors of
    // its branches, so the `type: null` of the second branch can never be the location
    // of a reported error. The `anyOf` itself is covered by invalid vectors.
    "scheduling-context.json#/$defs/Attendee/properties/attendee_analysis/anyOf/1/type",
    "scheduling-context.json#/$defs/Coordination/properties/attendee_analysis/anyOf/1/type",
    "scheduling-context.json#/$defs/SchedulingOperation/properties/event_analysis/anyOf/1/type",
];

/// Keywords whose locations must each be broken by at least one invalid vector.
const CONSTRAINT_KEYWORDS: [&str; 16] = [
    "pattern",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "format",
    "multipleOf",
    "x-max-words",
    "type",
];

/// JSON Schema 2020-12 keywords (plus the validating extension keyword) that can end the
/// keyword location of an error.
const KNOWN_KEYWORDS: [&str; 47] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$ref",
    "$dynamicRef",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "additionalItems",
    "dependencies",
    "$recursiveRef",
    "x-max-words",
];

// ------------------------------------------------------------------------ loading

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn load_schemas() -> BTreeMap<String, Value> {
    let dir = root().join("schemas");
    let mut found: Vec<String> = fs::read_dir(&dir)
        .expect("schemas/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    found.sort();
    let mut expected: Vec<String> = SCHEMA_FILES.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(
        found, expected,
        "schemas/ must hold exactly the protocol schema files"
    );
    found
        .into_iter()
        .map(|n| {
            let v = read_json(&dir.join(&n));
            (n, v)
        })
        .collect()
}

fn registry(schemas: &BTreeMap<String, Value>) -> Registry<'static> {
    let mut builder = Registry::new();
    for name in SCHEMA_FILES {
        builder = builder
            .add(format!("{BASE}{name}"), schemas[name].clone())
            .expect("valid URI");
    }
    builder
        .prepare()
        .expect("all schemas register and every reference resolves locally")
}

// ------------------------------------------------------------------------ x-max-words

fn build(registry: &Registry<'static>, target: &str) -> Result<Validator, String> {
    jsonschema::options()
        .with_registry(registry)
        .offline()
        .should_validate_formats(true)
        .with_keyword("x-max-words", max_words)
        .build(&json!({"$schema": DRAFT, "$ref": target}))
        .map_err(|e| format!("cannot build a validator for {target}: {e}"))
}

// ------------------------------------------------------------------------ error mapping

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The keyword of an error: the last reference token of its keyword location (schema path
/// without `$ref` traversal); `false` when that token is not a keyword, i.e. the error comes
/// from a `false` subschema reached through a name or index.
fn keyword_of(e: &ValidationError<'_>) -> String {
    let path = e.schema_path().as_str();
    let last = unescape(path.rsplit('/').next().unwrap_or(""));
    if KNOWN_KEYWORDS.contains(&last.as_str()) {
        last
    } else {
        "false".to_string()
    }
}

/// `file#pointer` of the failing keyword, plus `/name` for `required`.
fn location_of(e: &ValidationError<'_>) -> String {
    let abs = e
        .absolute_keyword_location()
        .map(|u| u.as_str().to_string())
        .unwrap_or_else(|| format!("?#{}", e.schema_path().as_str()));
    let mut loc = abs.strip_prefix(BASE).unwrap_or(&abs).to_string();
    if let Some((file, frag)) = loc.split_once('#') {
        let frag = percent_decode(frag);
        loc = format!("{file}#{frag}");
    }
    if let ValidationErrorKind::Required { property } = e.kind() {
        loc.push('/');
        loc.push_str(property.as_str().unwrap_or("?"));
    }
    loc
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

// ------------------------------------------------------------------------ schema walking

/// Called with the file, the JSON Pointer and the schema object.
type SchemaVisitor<'a> = dyn FnMut(&str, &str, &Map<String, Value>) + 'a;

/// Calls `f(file, pointer, node)` for every schema object reachable through schema keywords
/// (not through `if`, whose failures are never errors).
fn walk_schemas(file: &str, pointer: &str, node: &Value, f: &mut SchemaVisitor) {
    let Some(obj) = node.as_object() else { return };
    f(file, pointer, obj);
    for (k, v) in obj {
        let kp = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
        match k.as_str() {
            "properties" | "$defs" | "patternProperties" | "dependentSchemas" => {
                if let Some(m) = v.as_object() {
                    for (name, s) in m {
                        walk_schemas(
                            file,
                            &format!("{kp}/{}", name.replace('~', "~0").replace('/', "~1")),
                            s,
                            f,
                        );
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "then"
            | "else"
            | "contains"
            | "propertyNames" => walk_schemas(file, &kp, v, f),
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Some(a) = v.as_array() {
                    for (i, s) in a.iter().enumerate() {
                        walk_schemas(file, &format!("{kp}/{i}"), s, f);
                    }
                }
            }
            _ => {}
        }
    }
}

fn constraint_locations(schemas: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (file, schema) in schemas {
        walk_schemas(file, "", schema, &mut |file, ptr, obj| {
            for (k, v) in obj {
                let loc = format!("{file}#{ptr}/{k}");
                let closed = k == "additionalProperties" && v == &Value::Bool(false);
                if CONSTRAINT_KEYWORDS.contains(&k.as_str()) || closed {
                    out.insert(loc);
                } else if k == "required" {
                    for name in v.as_array().unwrap() {
                        out.insert(format!("{loc}/{}", name.as_str().unwrap()));
                    }
                }
            }
        });
    }
    out
}

/// Resolves `$ref` values to absolute URIs (all refs in these schemas are `#…` or `file#…`).
fn absolute_ref(file: &str, r: &str) -> String {
    if r.starts_with('#') {
        format!("{BASE}{file}{r}")
    } else if r.starts_with("https://") {
        r.to_string()
    } else {
        format!("{BASE}{r}")
    }
}

fn resolve_pointer<'a>(
    schemas: &'a BTreeMap<String, Value>,
    abs: &str,
) -> Option<(&'a str, &'a Value)> {
    let rest = abs.strip_prefix(BASE)?;
    let (file, ptr) = rest.split_once('#').unwrap_or((rest, ""));
    let (name, schema) = schemas.get_key_value(file)?;
    Some((name.as_str(), schema.pointer(ptr)?))
}

/// Follows `$ref` chains of a schema node.
fn deref<'a>(
    schemas: &'a BTreeMap<String, Value>,
    file: &'a str,
    node: &'a Value,
) -> (&'a str, &'a Value) {
    let (mut file, mut node) = (file, node);
    while let Some(r) = node.get("$ref").and_then(Value::as_str) {
        let (f, n) = resolve_pointer(schemas, &absolute_ref(file, r)).expect("ref resolves");
        file = f;
        node = n;
    }
    (file, node)
}

// ------------------------------------------------------------------------ vectors

struct VectorFile {
    path: PathBuf,
    doc: Value,
}

fn load_vectors() -> Vec<VectorFile> {
    let dir = root().join("tests").join("vectors");
    let mut out = Vec::new();
    let mut protocols: Vec<_> = fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.unwrap().path())
        .collect();
    protocols.sort();
    for p in protocols {
        if !p.is_dir() || p.file_name().unwrap() == "helpers" {
            continue;
        }
        let stem = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            SCHEMA_FILES.contains(&format!("{stem}.json").as_str()),
            "tests/vectors/{stem}/ does not name a schema file stem"
        );
        let mut files: Vec<_> = fs::read_dir(&p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            if f.extension().is_some_and(|e| e == "json") {
                let doc = read_json(&f);
                out.push(VectorFile { path: f, doc });
            }
        }
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn schema_files_are_well_formed() {
    let schemas = load_schemas();
    let mut problems = Vec::new();
    for (name, s) in &schemas {
        let obj = s.as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        if keys.first() != Some(&"$schema")
            || keys.get(1) != Some(&"$id")
            || keys.get(2) != Some(&"title")
            || keys.get(3) != Some(&"description")
        {
            problems.push(format!(
                "{name}: root keys must start with $schema, $id, title, description (got {keys:?})"
            ));
        }
        if obj.contains_key("$defs") && keys.last() != Some(&"$defs") {
            problems.push(format!("{name}: $defs must be the last root key"));
        }
        if s["$schema"] != DRAFT {
            problems.push(format!("{name}: $schema must be {DRAFT}"));
        }
        if s["$id"] != json!(format!("{BASE}{name}")) {
            problems.push(format!("{name}: $id must be {BASE}{name}"));
        }
        if let Err(e) = jsonschema::meta::validate(s) {
            problems.push(format!(
                "{name}: fails the 2020-12 meta-schema: {e} at {}",
                e.instance_path().as_str()
            ));
        }
        if let Some(defs) = obj.get("$defs").and_then(Value::as_object) {
            for k in defs.keys() {
                let pascal = k.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && k.chars().all(|c| c.is_ascii_alphanumeric());
                if !pascal {
                    problems.push(format!("{name}: $defs key {k} is not PascalCase"));
                }
            }
        }
        if obj.contains_key("type") {
            let t = s["title"].as_str().unwrap_or("");
            if !(t.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && t.chars().all(|c| c.is_ascii_alphanumeric()))
            {
                problems.push(format!(
                    "{name}: a file whose root is a type needs a PascalCase title (got {t:?})"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "schema problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_ref_resolves_locally() {
    let schemas = load_schemas();
    let registry = registry(&schemas);
    let mut targets = BTreeSet::new();
    for (file, schema) in &schemas {
        targets.insert(format!("{BASE}{file}"));
        if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
            for k in defs.keys() {
                targets.insert(format!("{BASE}{file}#/$defs/{k}"));
            }
        }
        fn refs(file: &str, v: &Value, out: &mut BTreeSet<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                        out.insert(absolute_ref(file, r));
                    }
                    m.values().for_each(|x| refs(file, x, out));
                }
                Value::Array(a) => a.iter().for_each(|x| refs(file, x, out)),
                _ => {}
            }
        }
        refs(file, schema, &mut targets);
    }
    let mut problems = Vec::new();
    for t in &targets {
        if !t.starts_with(BASE) {
            problems.push(format!("{t}: reference leaves the local schema set"));
            continue;
        }
        if let Some(rest) = t.strip_prefix(BASE) {
            if let Some((_, frag)) = rest.split_once('#') {
                if resolve_pointer(&schemas, t).is_none() {
                    problems.push(format!("{t}: pointer {frag} does not exist"));
                }
            }
        }
        if let Err(e) = build(&registry, t) {
            problems.push(e);
        }
    }
    assert!(
        problems.is_empty(),
        "unresolved references:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_type_and_field_has_a_description() {
    let schemas = load_schemas();
    let mut missing = Vec::new();
    for (file, schema) in &schemas {
        if schema
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            missing.push(format!("{file}#"));
        }
        walk_schemas(file, "", schema, &mut |file, ptr, obj| {
            let mut check = |p: String, v: &Value| {
                if v.is_object()
                    && v.get("description")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                {
                    missing.push(format!("{file}#{p}"));
                }
            };
            for key in ["properties", "$defs"] {
                if let Some(m) = obj.get(key).and_then(Value::as_object) {
                    for (name, s) in m {
                        check(format!("{ptr}/{key}/{name}"), s);
                    }
                }
            }
            // items / additionalProperties of a described field are element types.
            if obj.contains_key("description") {
                if let Some(items) = obj.get("items") {
                    check(format!("{ptr}/items"), items);
                }
                if let Some(ap) = obj.get("additionalProperties").filter(|v| v.is_object()) {
                    check(format!("{ptr}/additionalProperties"), ap);
                }
                if let Some(a) = obj.get("prefixItems").and_then(Value::as_array) {
                    for (i, s) in a.iter().enumerate() {
                        check(format!("{ptr}/prefixItems/{i}"), s);
                    }
                }
            }
            for key in ["oneOf", "anyOf", "allOf"] {
                if let Some(a) = obj.get(key).and_then(Value::as_array) {
                    for (i, s) in a.iter().enumerate() {
                        if s.get("properties").is_some() {
                            check(format!("{ptr}/{key}/{i}"), s);
                        }
                    }
                }
            }
        });
    }
    assert!(
        missing.is_empty(),
        "schemas without a description:\n{}",
        missing.join("\n")
    );
}

#[test]
fn vectors_match_the_schemas() {
    let schemas = load_schemas();
    let registry = registry(&schemas);
    let vectors = load_vectors();
    let mut validators: BTreeMap<String, Validator> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut covered = BTreeSet::new();
    let (mut total, mut invalid) = (0usize, 0usize);
    let mut per_protocol: BTreeMap<String, (usize, usize)> = BTreeMap::new();

    for vf in &vectors {
        let name = rel(&vf.path);
        let doc = &vf.doc;
        let schema = doc["schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: missing \"schema\""));
        let pointer = doc["pointer"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: missing \"pointer\""));
        let type_name = doc["type"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: missing \"type\""));
        let protocol = vf
            .path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // the type name is the $defs key or the root title
        let target = format!("{BASE}{schema}#{pointer}");
        let expected_name = if pointer.is_empty() {
            schemas
                .get(schema)
                .and_then(|s| s["title"].as_str())
                .map(str::to_string)
        } else {
            pointer.strip_prefix("/$defs/").map(str::to_string)
        };
        if expected_name.as_deref() != Some(type_name) {
            failures.push(format!(
                "{name}: type {type_name:?} does not match {schema}#{pointer} ({expected_name:?})"
            ));
        }
        if resolve_pointer(&schemas, &target).is_none() {
            failures.push(format!("{name}: {schema}#{pointer} does not exist"));
            continue;
        }
        if !validators.contains_key(&target) {
            match build(&registry, &target) {
                Ok(v) => {
                    validators.insert(target.clone(), v);
                }
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            }
        }
        let validator = &validators[&target];
        let cases = doc["cases"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: missing \"cases\""));
        let mut descriptions = BTreeSet::new();
        for case in cases {
            let desc = case["description"].as_str().unwrap_or("<no description>");
            if !descriptions.insert(desc.to_string()) {
                failures.push(format!("{name}: duplicate case description {desc:?}"));
            }
            let instance = &case["instance"];
            let valid = case["valid"]
                .as_bool()
                .unwrap_or_else(|| panic!("{name}: case {desc:?} has no \"valid\""));
            total += 1;
            let entry = per_protocol.entry(protocol.clone()).or_default();
            entry.0 += 1;
            let errors: Vec<ValidationError<'_>> = validator.iter_errors(instance).collect();
            let mut got: Vec<(String, String)> = errors
                .iter()
                .map(|e| (e.instance_path().as_str().to_string(), keyword_of(e)))
                .collect();
            got.sort();
            if valid {
                if case
                    .get("errors")
                    .is_some_and(|e| e.as_array().is_some_and(|a| !a.is_empty()))
                {
                    failures.push(format!("{name}: case {desc:?} is valid but lists errors"));
                }
                if !got.is_empty() || !validator.is_valid(instance) {
                    failures.push(format!(
                        "{name}: case {desc:?} should be valid but the validator reports {got:?}"
                    ));
                }
                continue;
            }
            invalid += 1;
            entry.1 += 1;
            let mut expected: Vec<(String, String)> = case["errors"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: invalid case {desc:?} has no \"errors\""))
                .iter()
                .map(|e| {
                    (
                        e["pointer"].as_str().unwrap().to_string(),
                        e["keyword"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            expected.sort();
            if expected.is_empty() {
                failures.push(format!("{name}: invalid case {desc:?} lists no errors"));
            }
            if validator.is_valid(instance) {
                failures.push(format!(
                    "{name}: case {desc:?} should be invalid but the validator accepts it"
                ));
            } else if got != expected {
                let missing: Vec<_> = expected.iter().filter(|e| !got.contains(e)).collect();
                let extra: Vec<_> = got.iter().filter(|e| !expected.contains(e)).collect();
                failures.push(format!(
                    "{name}: case {desc:?}: errors differ\n    expected {expected:?}\n    reported {got:?}\n    missing {missing:?}, unexpected {extra:?}"
                ));
            }
            for e in &errors {
                covered.insert(location_of(e));
            }
        }
    }

    assert!(
        failures.is_empty(),
        "{} vector failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("vectors: {total} cases, {invalid} invalid; per protocol (total, invalid): {per_protocol:?}");
    assert!(
        total >= 200,
        "need at least 200 vector cases, found {total}"
    );
    assert!(
        invalid * 4 >= total,
        "need at least 25% invalid cases, found {invalid} of {total}"
    );

    // coverage: every constraint location is broken by at least one invalid vector
    let all = constraint_locations(&schemas);
    for u in UNREACHABLE {
        assert!(
            all.contains(u),
            "allow-listed location {u} no longer exists; remove it from UNREACHABLE"
        );
        assert!(
            !covered.contains(u),
            "allow-listed location {u} is covered after all; remove it from UNREACHABLE"
        );
    }
    let uncovered: Vec<_> = all
        .iter()
        .filter(|l| !covered.contains(*l) && !UNREACHABLE.contains(&l.as_str()))
        .collect();
    assert!(
        uncovered.is_empty(),
        "{} constraint location(s) are not broken by any invalid vector:\n{}",
        uncovered.len(),
        uncovered
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ------------------------------------------------------------------------ extension keywords

fn nodes_with<'a>(
    schemas: &'a BTreeMap<String, Value>,
    keyword: &str,
) -> Vec<(String, String, &'a Value)> {
    let mut out = Vec::new();
    for (file, schema) in schemas {
        fn find<'a>(
            file: &str,
            ptr: String,
            v: &'a Value,
            kw: &str,
            out: &mut Vec<(String, String, &'a Value)>,
        ) {
            match v {
                Value::Object(m) => {
                    if m.contains_key(kw) {
                        out.push((file.to_string(), ptr.clone(), v));
                    }
                    for (k, x) in m {
                        find(
                            file,
                            format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")),
                            x,
                            kw,
                            out,
                        );
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        find(file, format!("{ptr}/{i}"), x, kw, out);
                    }
                }
                _ => {}
            }
        }
        find(file, String::new(), schema, keyword, &mut out);
    }
    out
}

#[test]
fn word_counter_follows_the_contract() {
    assert_eq!(count_words(""), 0);
    assert_eq!(count_words("   \t\n"), 0);
    assert_eq!(count_words("one"), 1);
    assert_eq!(count_words("  two  words  "), 2);
    assert_eq!(count_words("a\tb\nc\u{0B}d\u{0C}e\rf"), 6);
    // non-ASCII whitespace does not separate words
    assert_eq!(count_words("a\u{00A0}b\u{2003}c"), 1);
    assert_eq!(count_words("don't stop-me now."), 3);
}

#[test]
fn x_max_words_is_on_strings_and_matches_the_seed_limits() {
    let schemas = load_schemas();
    let mut found = BTreeMap::new();
    for (file, ptr, node) in nodes_with(&schemas, "x-max-words") {
        assert_eq!(
            node["type"], "string",
            "{file}#{ptr}: x-max-words must sit on a string schema"
        );
        assert!(
            node["x-max-words"].as_u64().is_some(),
            "{file}#{ptr}: x-max-words must be a non-negative integer"
        );
        found.insert(
            format!("{file}#{ptr}"),
            node["x-max-words"].as_u64().unwrap(),
        );
    }
    let expected: BTreeMap<String, u64> = [
        (
            "paper-context.json#/$defs/ChapterContext/properties/parent_summary",
            500,
        ),
        (
            "paper-context.json#/$defs/SectionContext/properties/chapter_summary",
            300,
        ),
        (
            "paper-context.json#/$defs/ChapterSummary/properties/summary",
            200,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn x_path_hierarchy_agrees_with_pattern_and_max_length() {
    let schemas = load_schemas();
    let registry = registry(&schemas);
    let nodes = nodes_with(&schemas, "x-path-hierarchy");
    assert!(!nodes.is_empty(), "ContextPath must carry x-path-hierarchy");
    for (file, ptr, node) in nodes {
        let h = &node["x-path-hierarchy"];
        let sep = h["separator"].as_str().unwrap();
        let depth = h["maxDepth"].as_u64().unwrap() as usize;
        let max_len = h["maxLength"].as_u64().unwrap();
        assert_eq!(sep, "/");
        assert_eq!(node["type"], "string", "{file}#{ptr}");
        assert_eq!(
            node["maxLength"].as_u64(),
            Some(max_len),
            "{file}#{ptr}: maxLength must equal x-path-hierarchy.maxLength"
        );
        assert!(
            node["pattern"].is_string(),
            "{file}#{ptr}: needs a standard pattern"
        );
        let seg_re = h["segmentPattern"].as_str().unwrap();
        let v = build(&registry, &format!("{BASE}{file}#{ptr}")).unwrap();
        let seg_validator =
            jsonschema::validator_for(&json!({"type": "string", "pattern": seg_re})).unwrap();
        // segments accepted by segmentPattern, in paths of every depth up to maxDepth + 1
        for s in ["a", "Z9", "reason-789", "x_y", "-", "_"] {
            assert!(
                seg_validator.is_valid(&json!(s)),
                "segmentPattern must accept {s:?}"
            );
            for d in 1..=depth + 1 {
                let p = vec![s; d].join(sep);
                assert_eq!(
                    v.is_valid(&json!(p)),
                    d <= depth,
                    "{file}#{ptr}: depth {d} path {p:?}"
                );
            }
        }
        // segments rejected by segmentPattern are rejected anywhere in a path
        for s in ["", "a.b", "a b", "é", "a:b", "a\\b"] {
            assert!(
                !seg_validator.is_valid(&json!(s)),
                "segmentPattern must reject {s:?}"
            );
            for p in [
                s.to_string(),
                format!("{s}/ok"),
                format!("ok/{s}"),
                format!("ok/{s}/ok"),
            ] {
                assert!(
                    !v.is_valid(&json!(p)),
                    "{file}#{ptr}: {p:?} must be rejected"
                );
            }
        }
    }
}

fn property_of<'a>(
    schemas: &'a BTreeMap<String, Value>,
    file: &'a str,
    node: &'a Value,
    pointer: &str,
) -> Option<(&'a str, &'a Value)> {
    // follows a JSON Pointer over instance properties through the schema's `properties`
    let (mut file, mut node) = deref(schemas, file, node);
    for token in pointer.split('/').skip(1) {
        let next = node.get("properties")?.get(unescape(token))?;
        (file, node) = deref(schemas, file, next);
    }
    Some((file, node))
}

#[test]
fn helper_annotations_are_consistent() {
    let schemas = load_schemas();
    let registry = registry(&schemas);
    let paper = "paper-context.json";

    // x-quality-score on QualityReport
    let qr = &schemas[paper]["$defs"]["QualityReport"];
    let q = &qr["x-quality-score"];
    let severities: BTreeSet<&str> = schemas[paper]["$defs"]["Severity"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let deduction_keys: BTreeSet<&str> = q["deductions"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let count_keys: BTreeSet<&str> = q["counts"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        deduction_keys, severities,
        "x-quality-score.deductions must name every severity"
    );
    assert_eq!(
        count_keys, severities,
        "x-quality-score.counts must name every severity"
    );
    assert_eq!(
        q["deductions"],
        json!({"critical": 0.3, "major": 0.15, "minor": 0.05, "suggestion": 0.0})
    );
    for field in [&q["issues"], &q["score"], &q["passed"]]
        .into_iter()
        .chain(q["counts"].as_object().unwrap().values())
    {
        assert!(
            qr["properties"].get(field.as_str().unwrap()).is_some(),
            "x-quality-score names unknown property {field}"
        );
    }
    let issue = deref(&schemas, paper, &qr["properties"]["issues"]["items"]).1;
    assert!(issue["properties"]
        .get(q["severity"].as_str().unwrap())
        .is_some());
    for b in q["blocking"].as_array().unwrap() {
        assert!(severities.contains(b.as_str().unwrap()));
    }

    // x-semver-compatibility on schema_version
    let sv = &schemas["session-context.json"]["properties"]["schema_version"];
    assert_eq!(sv["x-semver-compatibility"], "same-major");
    assert!(sv["pattern"].is_string());

    // x-bands: descending lower bounds ending at the minimum of the score
    let nodes = nodes_with(&schemas, "x-bands");
    assert_eq!(nodes.len(), 1);
    let bands = nodes[0].2["x-bands"].as_array().unwrap();
    let mins: Vec<f64> = bands.iter().map(|b| b["min"].as_f64().unwrap()).collect();
    assert!(
        mins.windows(2).all(|w| w[0] > w[1]),
        "x-bands must be ordered by descending min"
    );
    assert_eq!(*mins.last().unwrap(), 0.0);
    let labels: Vec<&str> = bands.iter().map(|b| b["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["Very High", "High", "Medium", "Low", "Very Low"]);

    // x-freshness: bands reproduce the Freshness enum
    let nodes = nodes_with(&schemas, "x-freshness");
    assert_eq!(nodes.len(), 1);
    let fr = &nodes[0].2["x-freshness"];
    assert_eq!(
        nodes[0].2["$ref"], "common.json#/$defs/DateTime",
        "x-freshness sits on a date-time"
    );
    let mut labels: Vec<&str> = fr["bands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    labels.push(fr["otherwise"].as_str().unwrap());
    let freshness: Vec<&str> = schemas["agent-context-report.json"]["$defs"]["Freshness"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(labels, freshness);

    // x-handoff / x-task-match / x-percent-full: pointers resolve to properties
    let sc = &schemas["session-context.json"];
    for (_, p) in sc["x-handoff"].as_object().unwrap() {
        assert!(
            property_of(&schemas, "session-context.json", sc, p.as_str().unwrap()).is_some(),
            "x-handoff pointer {p} does not resolve"
        );
    }
    let acr = "agent-context-report.json";
    let report = &schemas[acr]["$defs"]["ContextReport"];
    let tm = &report["x-task-match"];
    for key in ["canStart", "projects", "window"] {
        let p = tm[key].as_str().unwrap();
        assert!(
            property_of(&schemas, acr, report, p).is_some(),
            "x-task-match.{key} pointer {p} does not resolve"
        );
    }
    let projects = property_of(&schemas, acr, report, tm["projects"].as_str().unwrap())
        .unwrap()
        .1;
    let project = deref(&schemas, acr, &projects["items"]).1;
    assert!(project["properties"]
        .get(tm["projectKey"].as_str().unwrap())
        .is_some());
    let window = property_of(&schemas, acr, report, tm["window"].as_str().unwrap())
        .unwrap()
        .1;
    let pf = &window["x-percent-full"];
    for key in ["used", "available"] {
        assert!(
            window["properties"]
                .get(pf[key].as_str().unwrap())
                .is_some(),
            "x-percent-full.{key}"
        );
    }
    assert_eq!(tm["fullPoints"], -30);

    // x-fallback values are themselves valid instances of their type
    let nodes = nodes_with(&schemas, "x-fallback");
    assert_eq!(nodes.len(), 2);
    for (file, ptr, node) in nodes {
        let v = build(&registry, &format!("{BASE}{file}#{ptr}")).unwrap();
        assert!(
            v.is_valid(&node["x-fallback"]),
            "{file}#{ptr}: x-fallback is not a valid instance"
        );
    }
}

#[test]
fn extension_keywords_are_documented() {
    let schemas = load_schemas();
    let readme =
        fs::read_to_string(root().join("schemas").join("README.md")).expect("schemas/README.md");
    let mut used = BTreeSet::new();
    fn keys(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k.starts_with("x-") {
                        out.insert(k.clone());
                    }
                    keys(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    for s in schemas.values() {
        keys(s, &mut used);
    }
    for k in &used {
        assert!(
            readme.contains(&format!("`{k}")),
            "extension keyword {k} is not documented in schemas/README.md"
        );
    }
}
