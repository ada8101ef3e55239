//! The instance index, the per-schema probe, and the batch packages: the schemas that generate,
//! a few dozen per package, generated in every language with ctxgen's library.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use ctxgen::{Config, Lang};
use serde_json::Value;

/// One line of `index.json`.
pub struct Entry {
    pub schema: String,
    pub instance: String,
    /// SchemaStore's expectation: `Some(true)` for `valid`.
    pub expects: Option<bool>,
}

pub fn load_index(dir: &Path) -> Result<Vec<Entry>, String> {
    let index = crate::oracle::read_json(&dir.join("index.json"))?;
    let list = index.as_array().ok_or("index.json is not an array")?;
    let mut out = Vec::new();
    for e in list {
        let (Some(schema), Some(instance)) = (
            e.get("schema").and_then(Value::as_str),
            e.get("instance").and_then(Value::as_str),
        ) else {
            return Err(format!(
                "index.json: an entry without schema or instance: {e}"
            ));
        };
        let expects = match e.get("schemastore_expects").and_then(Value::as_str) {
            Some("valid") => Some(true),
            Some("invalid") => Some(false),
            _ => None,
        };
        out.push(Entry {
            schema: schema.to_string(),
            instance: instance.to_string(),
            expects,
        });
    }
    Ok(out)
}

/// A file name that stays inside its directory.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.contains(['/', '\\'])
        && name != ".."
        && name != "."
        && !name.starts_with('.')
}

/// A relative path that stays inside its directory.
pub fn plain_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != ".." && s != ".")
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

/// Whether ctxgen generates Rust for the file on its own; the error when it does not.
pub fn probe(file: &Path) -> Result<(), String> {
    let mut c = Config::new();
    c.schema_files(vec![file.to_path_buf()])
        .languages(&[Lang::Rust])
        .package_name("probe");
    catch_unwind(AssertUnwindSafe(|| c.render().map(|_| ())))
        .map_err(|p| format!("ctxgen panicked: {}", panic_message(p.as_ref())))?
        .map_err(|e| e.to_string())
}

/// The names a driver calls for a schema's root type.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Rust and TypeScript type names.
    pub rust: Option<String>,
    pub typescript: Option<String>,
    /// The Python function stem (`validate_<stem>`).
    pub python: Option<String>,
}

pub struct Batch {
    pub index: usize,
    pub out: PathBuf,
    /// The package's module name (Rust crate, Python package).
    pub module: String,
    pub schemas: Vec<String>,
    pub names: BTreeMap<String, Names>,
}

pub fn lang_of(name: &str) -> Option<Lang> {
    match name {
        "rust" => Some(Lang::Rust),
        "typescript" => Some(Lang::TypeScript),
        "python" => Some(Lang::Python),
        _ => None,
    }
}

fn generate(files: &[(String, PathBuf)], out: &Path, index: usize) -> Result<Batch, String> {
    let _ = std::fs::remove_dir_all(out);
    let mut c = Config::new();
    c.schema_files(files.iter().map(|(_, p)| p.clone()).collect())
        .languages(&[Lang::Rust, Lang::TypeScript, Lang::Python])
        .out_dir(out)
        .package_name(format!("instances-b{index}"));
    let roots = catch_unwind(AssertUnwindSafe(|| {
        c.generate()?;
        c.root_types()
    }))
    .map_err(|p| format!("ctxgen panicked: {}", panic_message(p.as_ref())))?
    .map_err(|e| e.to_string())?;
    let mut names = BTreeMap::new();
    for (file, _) in files {
        let get = |l: Lang| roots.get(&(l, file.clone())).cloned().flatten();
        let python = get(Lang::Python).map(|n| {
            ctxgen::ir::names::field_name(Lang::Python, &n)
                .trim_end_matches('_')
                .to_string()
        });
        names.insert(
            file.clone(),
            Names {
                rust: get(Lang::Rust),
                typescript: get(Lang::TypeScript),
                python,
            },
        );
    }
    Ok(Batch {
        index,
        out: out.to_path_buf(),
        module: format!("instances_b{index}"),
        schemas: files.iter().map(|(f, _)| f.clone()).collect(),
        names,
    })
}

/// (file or files, why) pairs.
pub type Notes = Vec<(String, String)>;

/// Generates the schemas in packages of `size`; a package that fails is split in two until
/// the file at fault stands alone. Returns the packages, the files no package took, and the
/// failures of packages that were split (first file, last file, error).
pub fn batches(
    files: &[(String, PathBuf)],
    size: usize,
    work: &Path,
    next: &mut usize,
) -> (Vec<Batch>, Notes, Notes) {
    let mut queue: VecDeque<Vec<(String, PathBuf)>> =
        files.chunks(size.max(1)).map(<[_]>::to_vec).collect();
    let mut done = Vec::new();
    let mut failed = Vec::new();
    let mut splits = Vec::new();
    while let Some(chunk) = queue.pop_front() {
        let index = *next;
        match generate(&chunk, &work.join(format!("out/b{index}")), index) {
            Ok(b) => {
                *next += 1;
                done.push(b);
            }
            Err(e) if chunk.len() == 1 => {
                failed.push((chunk[0].0.clone(), format!("batch generation: {e}")))
            }
            Err(e) => {
                splits.push((describe(&chunk), e));
                let (a, b) = chunk.split_at(chunk.len() / 2);
                queue.push_front(b.to_vec());
                queue.push_front(a.to_vec());
            }
        }
    }
    (done, failed, splits)
}

/// `N files, first … last`.
pub fn describe(files: &[(String, PathBuf)]) -> String {
    match files {
        [] => "no files".into(),
        [one] => one.0.clone(),
        [first, .., last] => format!("{} files, {} … {}", files.len(), first.0, last.0),
    }
}
