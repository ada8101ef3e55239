//! The workloads of the benchmark and the manifest every harness reads (`FORMAT.md`).
//!
//! Three schema sets: the project's protocol schemas (the committed packages of `generated/`),
//! SchemaStore's `tsconfig.json`, and SchemaStore's `package.json` with the ten schemas it
//! references by URL, generated as one directory. Workloads: large instances built from the
//! protocol vectors (thousands of items in one array) with an invalid twin whose one violation
//! is in the last item, every vector case as a stream of small instances (valid and invalid),
//! and SchemaStore's own test instances of the two schemas. The verdict every harness is held
//! to is the `jsonschema` crate's, never ctxgen's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctxgen::ir::names::{field_name, type_names};
use ctxgen::{Config, Lang};
use serde_json::{json, Value};

use super::oracle::Oracle;
use crate::directory;

/// Where things are.
pub struct Paths {
    /// The repository (schemas/, generated/, tests/vectors/).
    pub root: PathBuf,
    pub corpus: PathBuf,
    pub instances: PathBuf,
    pub work: PathBuf,
}

/// One schema set: its files and generated packages.
pub struct Set {
    pub name: String,
    /// Folder of the schema files (the schema root ctxgen read).
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    /// `(rust crate dir, typescript dir, python src)`.
    pub out: (PathBuf, PathBuf, PathBuf),
}

/// A type the workloads validate: `(set, file, pointer)` and its names.
#[derive(Clone)]
pub struct Target {
    pub set: String,
    pub file: String,
    pub pointer: String,
    pub type_name: String,
}

/// One workload: items of JSON text, each for a target, all with one verdict.
pub struct Workload {
    pub id: String,
    pub title: String,
    pub set: String,
    pub valid: bool,
    /// (target index, JSON text).
    pub items: Vec<(usize, String)>,
}

/// The manifest and a short description of each workload for the report.
pub fn prepare(p: &Paths, quick: bool) -> Result<Value, String> {
    let protocol = Set {
        name: "protocol".into(),
        dir: p.root.join("schemas"),
        files: json_files(&p.root.join("schemas"))?,
        out: (
            p.root.join("generated/rust"),
            p.root.join("generated/typescript"),
            p.root.join("generated/python/src"),
        ),
    };
    let mut sets = vec![protocol];
    for (name, file) in [("tsconfig", "tsconfig.json"), ("package", "package.json")] {
        sets.push(schemastore_set(p, name, file)?);
    }
    let mut targets: Vec<Target> = Vec::new();
    let mut workloads = protocol_workloads(p, &sets[0], &mut targets, quick)?;
    for set in &sets[1..] {
        workloads.extend(instance_workloads(p, set, &mut targets)?);
    }
    manifest(p, &sets, &targets, &workloads, quick)
}

fn json_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// A SchemaStore file with the files it references, copied and generated in three languages.
fn schemastore_set(p: &Paths, name: &str, file: &str) -> Result<Set, String> {
    let files = directory::closure(&p.corpus, file)?;
    let dir = p.work.join("sets").join(name);
    let schemas = dir.join("schemas");
    directory::copy(&files, &schemas).map_err(|e| format!("{}: {e}", schemas.display()))?;
    let out = dir.join("out");
    let mut c = Config::new();
    c.schemas_dir(&schemas)
        .languages(&[Lang::Rust, Lang::TypeScript, Lang::Python])
        .out_dir(&out)
        .package_name(format!("bench-{name}"))
        .python_native(true);
    c.generate()
        .map_err(|e| format!("{file}: ctxgen generate: {e}"))?;
    Ok(Set {
        name: name.into(),
        files: json_files(&schemas)?,
        dir: schemas,
        out: (
            out.join("rust"),
            out.join("typescript"),
            out.join("python/src"),
        ),
    })
}

/// The type name of each `file#pointer` of a set, as ctxgen names it.
fn names(set: &Set) -> Result<BTreeMap<String, String>, String> {
    let mut c = Config::new();
    c.schemas_dir(&set.dir);
    let ir = c.ir().map_err(|e| format!("{}: {e}", set.name))?;
    let names = type_names(Lang::Rust, &ir);
    let mut out = BTreeMap::new();
    for m in &ir.modules {
        for id in &m.types {
            let at = format!("{}#{}", m.rel, ir.types[*id].origin.pointer);
            out.entry(at).or_insert_with(|| names[*id].clone());
        }
    }
    Ok(out)
}

fn target_index(targets: &mut Vec<Target>, t: Target) -> usize {
    let same = |x: &Target| x.set == t.set && x.file == t.file && x.pointer == t.pointer;
    match targets.iter().position(same) {
        Some(i) => i,
        None => {
            targets.push(t);
            targets.len() - 1
        }
    }
}

/// The large instances and the vector streams of the protocol schemas.
fn protocol_workloads(
    p: &Paths,
    set: &Set,
    targets: &mut Vec<Target>,
    quick: bool,
) -> Result<Vec<Workload>, String> {
    let names = names(set)?;
    let oracle = Oracle::new(&set.dir)?;
    let vectors = p.root.join("tests/vectors");
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    let mut bases: BTreeMap<String, (usize, Value)> = BTreeMap::new();
    let mut dirs = json_dirs(&vectors)?;
    dirs.retain(|d| d.file_name().is_some_and(|n| n != "helpers"));
    for dir in dirs {
        for path in json_files(&dir)? {
            let doc = read(&path)?;
            let (file, pointer) = (str_at(&doc, "schema"), str_at(&doc, "pointer"));
            let at = format!("{file}#{pointer}");
            let type_name = names
                .get(&at)
                .ok_or_else(|| format!("{}: no generated type at {at}", path.display()))?;
            let t = target_index(
                targets,
                Target {
                    set: set.name.clone(),
                    file: file.clone(),
                    pointer: pointer.clone(),
                    type_name: type_name.clone(),
                },
            );
            for case in doc["cases"].as_array().into_iter().flatten() {
                let text = serde_json::to_string(&case["instance"]).unwrap_or_default();
                let expect = case["valid"] == Value::Bool(true);
                if oracle.valid(&file, &pointer, &case["instance"]) != Some(expect) {
                    return Err(format!(
                        "{}: the jsonschema crate does not confirm the verdict of case {}",
                        path.display(),
                        case["description"]
                    ));
                }
                if expect {
                    bases
                        .entry(type_name.clone())
                        .or_insert_with(|| (t, case["instance"].clone()));
                    valid.push((t, text));
                } else {
                    invalid.push((t, text));
                }
            }
        }
    }
    let n = |full: usize| if quick { 20 } else { full };
    let mut out = Vec::new();
    for (type_name, array, count, id) in [
        ("ThesisContext", "/chapter_structure", n(2000), "thesis"),
        (
            "AgentContextReport",
            "/contextReport/loadedDocuments",
            n(5000),
            "report",
        ),
        ("SchedulingOperation", "/attendees", n(2000), "scheduling"),
    ] {
        let (t, base) = bases
            .get(type_name)
            .ok_or_else(|| format!("no valid vector case of {type_name}"))?;
        let target = &targets[*t];
        let big = scaled(base, array, count)?;
        let bad = broken_last(&big, array, |v| {
            oracle.valid(&target.file, &target.pointer, v) == Some(false)
        })?;
        if oracle.valid(&target.file, &target.pointer, &big) != Some(true) {
            return Err(format!("the large {type_name} is not valid"));
        }
        let text = serde_json::to_string(&big).unwrap_or_default();
        let title = format!(
            "one {type_name}, {count} items in `{array}` ({})",
            size(text.len())
        );
        out.push(workload(
            &format!("{id}-large"),
            &title,
            set,
            true,
            vec![(*t, text)],
        ));
        let text = serde_json::to_string(&bad).unwrap_or_default();
        let title = "the same, one violation in the last item";
        out.push(workload(
            &format!("{id}-large-invalid"),
            title,
            set,
            false,
            vec![(*t, text)],
        ));
    }
    let title = format!("every valid vector case, {} instances", valid.len());
    out.push(workload("vectors-valid", &title, set, true, valid));
    let title = format!("every invalid vector case, {} instances", invalid.len());
    out.push(workload("vectors-invalid", &title, set, false, invalid));
    Ok(out)
}

fn workload(
    id: &str,
    title: &str,
    set: &Set,
    valid: bool,
    items: Vec<(usize, String)>,
) -> Workload {
    Workload {
        id: id.into(),
        title: title.into(),
        set: set.name.clone(),
        valid,
        items,
    }
}

/// SchemaStore's test instances of the set's root schema, split by the oracle's verdict.
fn instance_workloads(
    p: &Paths,
    set: &Set,
    targets: &mut Vec<Target>,
) -> Result<Vec<Workload>, String> {
    let root = set.files.iter().find(|f| {
        f.file_name()
            .is_some_and(|n| n.to_string_lossy() == format!("{}.json", set.name))
    });
    let file = root
        .and_then(|f| f.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: no root file", set.name))?;
    let type_name = names(set)?
        .get(&format!("{file}#"))
        .cloned()
        .ok_or_else(|| format!("{file}: no root type"))?;
    let t = target_index(
        targets,
        Target {
            set: set.name.clone(),
            file: file.clone(),
            pointer: String::new(),
            type_name,
        },
    );
    let oracle = Oracle::new(&set.dir)?;
    let (mut valid, mut invalid, mut mutants) = (Vec::new(), Vec::new(), Vec::new());
    for kind in ["valid", "invalid"] {
        let dir = p.instances.join(kind).join(&set.name);
        let files = if dir.is_dir() {
            json_files(&dir)?
        } else {
            Vec::new()
        };
        for path in files {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            match oracle.valid(&file, "", &value) {
                Some(true) => {
                    if let Some(bad) = mutant(&value, |v| oracle.valid(&file, "", v) == Some(false))
                    {
                        mutants.push((t, serde_json::to_string(&bad).unwrap_or_default()));
                    }
                    valid.push((t, text));
                }
                Some(false) => invalid.push((t, text)),
                None => {}
            }
        }
    }
    let own = invalid.len();
    invalid.extend(mutants);
    let stem = &set.name;
    Ok(vec![
        workload(
            &format!("{stem}-valid"),
            &format!("SchemaStore's {stem}.json test instances the specification accepts, {}", valid.len()),
            set,
            true,
            valid,
        ),
        workload(
            &format!("{stem}-invalid"),
            &format!(
                "SchemaStore's {stem}.json test instances the specification rejects ({own}) and one mutant of each valid one ({})",
                invalid.len() - own
            ),
            set,
            false,
            invalid,
        ),
    ])
}

fn json_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

pub fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn str_at(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

pub fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.0} kB", (bytes as f64 / 1024.0).ceil())
    }
}

/// `base` with the array at `pointer` repeated to `count` items.
fn scaled(base: &Value, pointer: &str, count: usize) -> Result<Value, String> {
    let mut big = base.clone();
    let items = big
        .pointer_mut(pointer)
        .and_then(Value::as_array_mut)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| format!("no array at {pointer}"))?;
    let seed = items.clone();
    *items = seed.iter().cycle().take(count).cloned().collect();
    Ok(big)
}

/// `value` with one top-level member replaced by a value of another type, the first such
/// replacement `invalid` confirms.
fn mutant(value: &Value, invalid: impl Fn(&Value) -> bool) -> Option<Value> {
    let m = value.as_object()?;
    m.iter().find_map(|(key, v)| {
        let mut bad = m.clone();
        bad.insert(
            key.clone(),
            if v.is_string() { json!(0) } else { json!("?") },
        );
        let bad = Value::Object(bad);
        invalid(&bad).then_some(bad)
    })
}

/// `big` with one member of the last item of the array at `pointer` replaced by a value of
/// another type, the first such replacement `invalid` confirms.
fn broken_last(
    big: &Value,
    pointer: &str,
    invalid: impl Fn(&Value) -> bool,
) -> Result<Value, String> {
    let last = big
        .pointer(pointer)
        .and_then(Value::as_array)
        .and_then(|a| a.last())
        .and_then(Value::as_object)
        .ok_or_else(|| format!("no object at the end of {pointer}"))?;
    let keys: Vec<String> = last.keys().cloned().collect();
    for key in keys {
        let other = match &last[&key] {
            Value::String(_) => json!(0),
            _ => json!("?"),
        };
        let mut bad = big.clone();
        if let Some(Value::Object(m)) = bad
            .pointer_mut(pointer)
            .and_then(Value::as_array_mut)
            .and_then(|a| a.last_mut())
        {
            m.insert(key.clone(), other);
        }
        if invalid(&bad) {
            return Ok(bad);
        }
    }
    Err(format!(
        "no single change makes the last item of {pointer} invalid"
    ))
}

fn draft(doc: &Value) -> &'static str {
    let s = doc.get("$schema").and_then(Value::as_str).unwrap_or("");
    if s.contains("2020-12") {
        "2020-12"
    } else if s.contains("2019-09") {
        "2019-09"
    } else if s.contains("draft-06") {
        "6"
    } else if s.contains("draft-04") {
        "4"
    } else {
        "7"
    }
}

pub fn file_id(doc: &Value) -> Option<String> {
    ["$id", "id"]
        .iter()
        .find_map(|k| doc.get(k).and_then(Value::as_str))
        .map(|s| s.trim_end_matches('#').to_string())
        .filter(|s| s.contains(':'))
}

fn manifest(
    p: &Paths,
    sets: &[Set],
    targets: &[Target],
    workloads: &[Workload],
    quick: bool,
) -> Result<Value, String> {
    let mut set_json = serde_json::Map::new();
    let mut ids: BTreeMap<(String, String), String> = BTreeMap::new();
    for s in sets {
        let mut files = Vec::new();
        for f in &s.files {
            let doc = read(f)?;
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let id = file_id(&doc);
            let base = id
                .clone()
                .unwrap_or_else(|| format!("file://{}", f.display()));
            ids.insert((s.name.clone(), name.clone()), base);
            files.push(json!({"name": name, "path": f, "id": id, "draft": draft(&doc)}));
        }
        let (rust, ts, py) = &s.out;
        let package = cargo_package(rust)?;
        let import = python_import(py)?;
        set_json.insert(
            s.name.clone(),
            json!({
                "files": files,
                "rust": {"crate_dir": rust, "crate": package.replace('-', "_"), "package": package},
                "typescript": {"dir": ts},
                "python": {"src": py, "import": import},
            }),
        );
    }
    let targets: Vec<Value> = targets
        .iter()
        .map(|t| {
            let base = &ids[&(t.set.clone(), t.file.clone())];
            json!({
                "set": t.set, "file": t.file, "pointer": t.pointer,
                "uri": format!("{base}#{}", t.pointer),
                "rust": t.type_name, "typescript": t.type_name,
                "python": field_name(Lang::Python, &t.type_name).trim_end_matches('_'),
            })
        })
        .collect();
    let data = p.work.join("data");
    let _ = std::fs::remove_dir_all(&data);
    let mut list = Vec::new();
    for w in workloads {
        let dir = data.join(&w.id);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut items = Vec::new();
        let mut bytes = 0;
        for (i, (t, text)) in w.items.iter().enumerate() {
            let file = dir.join(format!("{i}.json"));
            std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
            bytes += text.len();
            items.push(json!({"target": t, "file": file}));
        }
        list.push(json!({
            "id": w.id, "title": w.title, "set": w.set,
            "expect": if w.valid { "valid" } else { "invalid" },
            "bytes": bytes, "items": items,
        }));
    }
    let (min_runs, min_time_ms, warmup_ms) = if quick { (1, 0, 0) } else { (7, 500, 200) };
    Ok(json!({
        "quick": quick, "min_runs": min_runs, "min_time_ms": min_time_ms, "warmup_ms": warmup_ms,
        "sets": set_json, "targets": targets, "workloads": list,
    }))
}

fn cargo_package(crate_dir: &Path) -> Result<String, String> {
    let path = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("name = \""))
        .map(|s| s.trim_end_matches('"').to_string())
        .ok_or_else(|| format!("{}: no package name", path.display()))
}

fn python_import(src: &Path) -> Result<String, String> {
    json_dirs(src)?
        .into_iter()
        .find(|d| d.join("__init__.py").is_file())
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .ok_or_else(|| format!("{}: no Python package", src.display()))
}
