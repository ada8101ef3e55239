//! The directory case: a corpus schema together with every corpus schema it references by
//! URL (transitively), generated as one directory the way a user with a local copy of a
//! schema family would. Each URL is found by the `$id` of a corpus file, else by its file name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The URLs (without fragment) of the `$ref`s in a schema that point into another document,
/// resolved against the document's own `$id`.
fn remote_refs(v: &Value, base: Option<&url::Url>, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let target = match base {
                    Some(b) => b.join(r).ok(),
                    None => url::Url::parse(r).ok(),
                };
                if let Some(mut t) = target.filter(|t| t.scheme().starts_with("http")) {
                    t.set_fragment(None);
                    if base.is_none_or(|b| b.as_str().trim_end_matches('#') != t.as_str()) {
                        out.insert(t.to_string());
                    }
                }
            }
            m.values().for_each(|x| remote_refs(x, base, out));
        }
        Value::Array(a) => a.iter().for_each(|x| remote_refs(x, base, out)),
        _ => {}
    }
}

fn read(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The corpus files of `root`'s reference closure, `root` first, then by name.
pub fn closure(corpus: &Path, root: &str) -> Result<Vec<PathBuf>, String> {
    let mut by_id: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut by_name: BTreeMap<String, PathBuf> = BTreeMap::new();
    let entries = std::fs::read_dir(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
            by_name.insert(name.to_string(), p.clone());
        }
        if let Some(id) = read(&p)
            .as_ref()
            .and_then(|v| v.get("$id").or_else(|| v.get("id")))
        {
            if let Some(id) = id.as_str() {
                by_id.insert(id.trim_end_matches('#').to_string(), p.clone());
            }
        }
    }
    let first = by_name
        .get(root)
        .cloned()
        .ok_or_else(|| format!("{root} is not in {}", corpus.display()))?;
    let mut found: BTreeSet<PathBuf> = BTreeSet::from([first.clone()]);
    let mut queue = vec![first.clone()];
    while let Some(p) = queue.pop() {
        let doc = read(&p).ok_or_else(|| format!("{}: not JSON", p.display()))?;
        let base = doc
            .get("$id")
            .or_else(|| doc.get("id"))
            .and_then(Value::as_str)
            .and_then(|id| url::Url::parse(id).ok());
        let mut urls = BTreeSet::new();
        remote_refs(&doc, base.as_ref(), &mut urls);
        for url in urls {
            let name = url.rsplit('/').next().unwrap_or("");
            let target = by_id.get(&url).or_else(|| by_name.get(name));
            if let Some(t) = target {
                if found.insert(t.clone()) {
                    queue.push(t.clone());
                }
            }
        }
    }
    found.remove(&first);
    Ok(std::iter::once(first).chain(found).collect())
}

/// Copies `files` into `dir` (emptied first).
pub fn copy(files: &[PathBuf], dir: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    for f in files {
        if let Some(name) = f.file_name() {
            std::fs::copy(f, dir.join(name))?;
        }
    }
    Ok(())
}

/// Imports every module of the generated Python package under `python/src` and runs
/// `mypy --strict` on it; the first failure.
pub fn check_python(python: &Path, package_dir: &Path) -> Result<String, String> {
    let src = package_dir.join("src");
    let pkg = std::fs::read_dir(&src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .filter_map(Result::ok)
        .find(|e| e.path().join("__init__.py").is_file())
        .ok_or_else(|| format!("no package in {}", src.display()))?;
    let pkg_name = pkg.file_name().to_string_lossy().into_owned();
    let mut modules: Vec<String> = std::fs::read_dir(pkg.path())
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".py")
                .filter(|m| *m != "__init__")
                .map(String::from)
        })
        .collect();
    modules.sort();
    let script = format!(
        "import importlib\nfor m in {modules:?}:\n    importlib.import_module('{pkg_name}.' + m)\nimport {pkg_name}\nprint(len({pkg_name}.__all__))\n"
    );
    let run = |c: &mut Command| -> Result<String, String> {
        let out = c
            .output()
            .map_err(|e| format!("could not start {}: {e}", python.display()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.success() {
            Ok(text)
        } else {
            Err(text.lines().rev().take(3).collect::<Vec<_>>().join(" | "))
        }
    };
    let exported = run(Command::new(python)
        .args(["-c", &script])
        .env("PYTHONPATH", &src))?;
    run(Command::new(python)
        .args(["-m", "mypy", "--strict", "--no-incremental"])
        .arg(pkg.path())
        .env("MYPYPATH", &src))
    .map_err(|e| format!("mypy --strict: {e}"))?;
    Ok(format!(
        "{} modules import ({} names exported) and pass mypy --strict",
        modules.len(),
        exported.trim()
    ))
}
