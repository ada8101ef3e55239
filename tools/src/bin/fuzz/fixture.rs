//! Hostile-input fixtures (`tests/hostile/<name>/`) and the synthesized shapes (long chains, huge
//! enums) that both the fixtures and the mutator use. Shared by `ctxgen-fuzz` and
//! `tests/hostile.rs`, so it depends on `serde_json` only.
//!
//! A fixture directory holds `expect.json` and, optionally, `schemas/` (schema files copied as
//! they are). `expect.json`:
//!
//! ```json
//! {
//!   "description": "what the input is and why it is hostile",
//!   "expect": "generates",            // or "clean-error": exit 2 with a message
//!   "message_contains": ["..."],      // clean-error: each must occur in the message
//!   "output_must_not_contain": ["..."], // generates: no generated file contains these
//!   "build": true,                    // generates: the output must build in all languages
//!   "time_limit": 30,                 // seconds for the generation (default: the fuzzer's limit)
//!   "files": { "name.json": <schema> } // more schema files, written as JSON
//!   "raw_files": { "name.json": "text" } // more schema files, written verbatim
//! }
//! ```
//!
//! Inside `files`, an object `{"$synthesize": {"shape": S, "length": N, "leaf": <schema>}}`
//! stands for a generated schema too big to commit; see [`SHAPES`].

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// The marker key of a synthesized schema.
pub const MARKER: &str = "$synthesize";

/// The shapes `$synthesize` knows. Chains (`*-chain`) are flat: `length` definitions in the root
/// `$defs`, each linking to the next; `nested-*` nest the JSON itself `length` levels deep.
pub const SHAPES: &[&str] = &[
    "ref-chain",
    "allof-chain",
    "anyof-chain",
    "oneof-chain",
    "property-chain",
    "items-chain",
    "nested-allof",
    "nested-properties",
    "nested-items",
    "enum",
    "properties",
];

/// What a fixture must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Generates,
    CleanError,
}

#[derive(Debug, Clone)]
pub struct Fixture {
    pub name: String,
    pub dir: PathBuf,
    pub description: String,
    pub expect: Outcome,
    pub message_contains: Vec<String>,
    pub output_must_not_contain: Vec<String>,
    pub build: bool,
    /// Seconds the generation may take (`None`: the fuzzer's limit). For fixtures that are
    /// large on purpose (tens of thousands of types), whose time is linear but above the limit
    /// meant for mutants of everyday size.
    pub time_limit: Option<u64>,
    /// Extra schema files: name → contents.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// Every fixture below `root` (directories with an `expect.json`), sorted by name.
pub fn load_all(root: &Path) -> Result<Vec<Fixture>, String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for e in entries.flatten() {
        if e.path().join("expect.json").is_file() {
            out.push(load(&e.path())?);
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

pub fn load(dir: &Path) -> Result<Fixture, String> {
    let path = dir.join("expect.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let strings = |key: &str| -> Vec<String> {
        match v.get(key) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let expect = match v.get("expect").and_then(Value::as_str) {
        Some("generates") => Outcome::Generates,
        Some("clean-error") => Outcome::CleanError,
        other => return Err(format!("{}: bad \"expect\": {other:?}", path.display())),
    };
    let mut files = BTreeMap::new();
    if let Some(Value::Object(m)) = v.get("files") {
        for (name, schema) in m {
            files.insert(name.clone(), render(schema).into_bytes());
        }
    }
    if let Some(Value::Object(m)) = v.get("raw_files") {
        for (name, text) in m {
            let text = text
                .as_str()
                .ok_or(format!("{}: raw_files.{name}", path.display()))?;
            files.insert(name.clone(), text.as_bytes().to_vec());
        }
    }
    Ok(Fixture {
        name: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dir: dir.to_path_buf(),
        description: v
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        expect,
        message_contains: strings("message_contains"),
        output_must_not_contain: strings("output_must_not_contain"),
        build: v.get("build").and_then(Value::as_bool).unwrap_or(false),
        time_limit: v.get("time_limit").and_then(Value::as_u64),
        files,
    })
}

impl Fixture {
    /// Writes the fixture's schema directory to `dest` (created; must not exist).
    pub fn write_schemas(&self, dest: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dest)?;
        let committed = self.dir.join("schemas");
        if committed.is_dir() {
            copy_dir(&committed, dest)?;
        }
        for (name, bytes) in &self.files {
            let path = dest.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, bytes)?;
        }
        Ok(())
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)?.flatten() {
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest)?;
        } else {
            std::fs::copy(e.path(), dest)?;
        }
    }
    Ok(())
}

/// Every file below `dir` whose contents contain `needle`: (relative path, line of the match).
pub fn files_containing(dir: &Path, needle: &str) -> Vec<(String, String)> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                let text = String::from_utf8_lossy(&bytes);
                if let Some(at) = text.find(needle) {
                    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                    let line: String = text[start..].chars().take(160).collect();
                    let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
                    hits.push((rel, line.lines().next().unwrap_or("").to_string()));
                }
            }
        }
    }
    hits.sort();
    hits
}

/// Serializes a schema, expanding every `$synthesize` marker. Chain definitions go into the
/// root's `$defs` (as `zc<k>_<i>`); nested shapes are spliced in as text, so that no deeply
/// nested `Value` is ever built (or dropped) recursively.
pub fn render(doc: &Value) -> String {
    let mut doc = doc.clone();
    let mut defs: Vec<(String, Value)> = Vec::new();
    let mut splices: Vec<String> = Vec::new();
    let mut counter = 0;
    expand(&mut doc, &mut defs, &mut splices, &mut counter);
    if !defs.is_empty() {
        if !doc.is_object() {
            // A boolean root: keep its meaning under `allOf`.
            doc = json!({ "allOf": [doc] });
        }
        let root = doc.as_object_mut().expect("object root");
        let entry = root
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let map = entry.as_object_mut().expect("object $defs");
        for (k, v) in defs {
            map.insert(k, v);
        }
    }
    let mut text = serde_json::to_string(&doc).unwrap_or_default();
    for (k, nested) in splices.iter().enumerate() {
        let placeholder = serde_json::to_string(&splice_placeholder(k)).unwrap_or_default();
        text = text.replacen(&placeholder, nested, 1);
    }
    text
}

fn splice_placeholder(k: usize) -> String {
    format!("\u{1}ctxgen-fuzz-splice-{k}\u{1}")
}

fn expand(
    v: &mut Value,
    defs: &mut Vec<(String, Value)>,
    splices: &mut Vec<String>,
    n: &mut usize,
) {
    // Iterative over the tree: the input itself may be deep.
    let mut stack: Vec<&mut Value> = vec![v];
    while let Some(node) = stack.pop() {
        if let Some(spec) = node.get(MARKER).cloned() {
            *node = synthesize(&spec, *n, defs, splices);
            *n += 1;
            continue;
        }
        match node {
            Value::Object(m) => stack.extend(m.values_mut()),
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// The value standing for one marker (chains add to `defs`, nested shapes to `splices`).
fn synthesize(
    spec: &Value,
    k: usize,
    defs: &mut Vec<(String, Value)>,
    splices: &mut Vec<String>,
) -> Value {
    let shape = spec
        .get("shape")
        .and_then(Value::as_str)
        .unwrap_or("ref-chain");
    let length = spec
        .get("length")
        .and_then(Value::as_u64)
        .unwrap_or(10)
        .min(10_000_000) as usize;
    let leaf = spec
        .get("leaf")
        .cloned()
        .unwrap_or_else(|| json!({"type": "string"}));
    let name = |i: usize| format!("zc{k}_{i}");
    let link = |i: usize| json!({ "$ref": format!("#/$defs/{}", name(i)) });
    let chain = |wrap: &dyn Fn(Value) -> Value, defs: &mut Vec<(String, Value)>| {
        for i in 0..length {
            defs.push((name(i), wrap(link(i + 1))));
        }
        defs.push((name(length), leaf.clone()));
        link(0)
    };
    match shape {
        "allof-chain" => chain(&|l| json!({ "allOf": [l] }), defs),
        "anyof-chain" => chain(&|l| json!({ "anyOf": [l, {"type": "null"}] }), defs),
        "oneof-chain" => chain(&|l| json!({ "oneOf": [l, {"type": "null"}] }), defs),
        "property-chain" => chain(
            &|l| json!({ "type": "object", "properties": { "next": l } }),
            defs,
        ),
        "items-chain" => chain(&|l| json!({ "type": "array", "items": l }), defs),
        "nested-allof" | "nested-properties" | "nested-items" => {
            let (open, close) = match shape {
                "nested-allof" => ("{\"allOf\":[", "]}"),
                "nested-items" => ("{\"type\":\"array\",\"items\":", "}"),
                _ => ("", ""),
            };
            let mut text = String::new();
            if shape == "nested-properties" {
                for i in 0..length {
                    let _ = write!(text, "{{\"type\":\"object\",\"properties\":{{\"p{i}\":");
                }
                text.push_str(&serde_json::to_string(&leaf).unwrap_or_default());
                text.push_str(&"}}".repeat(length));
            } else {
                text.push_str(&open.repeat(length));
                text.push_str(&serde_json::to_string(&leaf).unwrap_or_default());
                text.push_str(&close.repeat(length));
            }
            splices.push(text);
            Value::String(splice_placeholder(splices.len() - 1))
        }
        "enum" => {
            let mixed = spec.get("values").and_then(Value::as_str) == Some("mixed");
            let values: Vec<Value> = (0..length)
                .map(|i| match (mixed, i % 4) {
                    (true, 1) => json!(i),
                    (true, 2) => json!(format!("V{i}")),
                    (true, 3) => json!(format!("v-{i}")),
                    _ => json!(format!("v{i}")),
                })
                .collect();
            json!({ "enum": values })
        }
        "properties" => {
            let props: Map<String, Value> = (0..length)
                .map(|i| (format!("p{i}"), leaf.clone()))
                .collect();
            json!({ "type": "object", "properties": props })
        }
        // The simplest chain for an unknown shape: still a valid schema.
        _ => chain(&|l| l, defs),
    }
}

/// How a generation run ended, as the fixture check needs it.
pub struct Run {
    /// The exit code (`None`: killed by a signal or over the time limit).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stderr: String,
}

/// What is wrong with a run of fixture `fx` whose output went to `out` (empty: as expected).
pub fn judge(fx: &Fixture, run: &Run, out: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let first_line = |pred: &dyn Fn(&str) -> bool| {
        run.stderr
            .lines()
            .find(|l| pred(l))
            .unwrap_or("")
            .chars()
            .take(300)
            .collect::<String>()
    };
    if run.timed_out {
        problems.push("over the time limit".to_string());
        return problems;
    }
    if run.stderr.contains("panicked") {
        problems.push(format!(
            "panicked: {}",
            first_line(&|l| l.contains("panicked"))
        ));
        return problems;
    }
    match (&fx.expect, run.code) {
        (_, None) => problems.push(format!(
            "killed by a signal: {}",
            first_line(&|l| !l.trim().is_empty())
        )),
        (Outcome::Generates, Some(0)) => {
            for needle in &fx.output_must_not_contain {
                for (file, line) in files_containing(out, needle).into_iter().take(3) {
                    problems.push(format!("{file} contains {needle:?}: {line}"));
                }
            }
        }
        (Outcome::Generates, Some(c)) => problems.push(format!(
            "expected to generate, got exit {c}: {}",
            first_line(&|l| l.starts_with("error"))
        )),
        (Outcome::CleanError, Some(2)) => {
            let message = first_line(&|l| l.starts_with("error"));
            if message.is_empty() {
                problems.push("exit 2 without an `error:` message".to_string());
            }
            for m in &fx.message_contains {
                if !run.stderr.contains(m.as_str()) {
                    problems.push(format!("the message does not contain {m:?}: {message}"));
                }
            }
        }
        (Outcome::CleanError, Some(c)) => {
            problems.push(format!("expected a clean error (exit 2), got exit {c}"))
        }
    }
    problems
}

/// The text of an `expect.json`.
pub fn expect_json(
    description: &str,
    expect: &Outcome,
    message_contains: &[String],
    output_must_not_contain: &[String],
    build: bool,
    files: &BTreeMap<String, Value>,
    raw_files: &BTreeMap<String, String>,
) -> String {
    let mut v = Map::new();
    v.insert("description".into(), json!(description));
    v.insert(
        "expect".into(),
        json!(match expect {
            Outcome::Generates => "generates",
            Outcome::CleanError => "clean-error",
        }),
    );
    if !message_contains.is_empty() {
        v.insert("message_contains".into(), json!(message_contains));
    }
    if !output_must_not_contain.is_empty() {
        v.insert(
            "output_must_not_contain".into(),
            json!(output_must_not_contain),
        );
    }
    v.insert("build".into(), json!(build));
    if !files.is_empty() {
        v.insert("files".into(), json!(files));
    }
    if !raw_files.is_empty() {
        v.insert("raw_files".into(), json!(raw_files));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(v)).unwrap_or_default();
    text.push('\n');
    text
}

/// What a `KNOWN_FAILING` entry says fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Generation itself is not as expected (what `tests/hostile.rs` checks).
    Generation,
    /// Generation is as expected; the output does not build (what `ctxgen-fuzz --fixtures`
    /// checks too).
    Build,
}

/// `tests/hostile/KNOWN_FAILING`: one fixture a line, `<name>` or `<name> build` (`#` starts a
/// comment).
pub fn known_failing(root: &Path) -> BTreeMap<String, Known> {
    std::fs::read_to_string(root.join("KNOWN_FAILING"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut words = l.split('#').next().unwrap_or("").split_whitespace();
            let name = words.next()?.to_string();
            let scope = match words.next() {
                Some("build") => Known::Build,
                _ => Known::Generation,
            };
            Some((name, scope))
        })
        .collect()
}
