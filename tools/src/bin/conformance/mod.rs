//! The conformance run: collect the suite's groups, generate bindings for all of them in one
//! batch per draft (two in 2019-09 and 2020-12: the `optional/format` files with format
//! assertion on, the others with the default), run every case in every language, and compare.

pub mod langs;
pub mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use ctxgen::{Config, Lang};

/// The drafts, in report order, with the `$schema` a group's schema gets when it has none.
pub const DRAFTS: &[(&str, &str)] = &[
    (
        "draft2020-12",
        "https://json-schema.org/draft/2020-12/schema",
    ),
    (
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    ),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft4", "http://json-schema.org/draft-04/schema#"),
];

pub struct Group {
    pub draft: String,
    /// The file's name under the draft (`ref`, `optional/bignum`, `optional/format/email`).
    pub keyword: String,
    pub file: String,
    pub description: String,
    pub schema: Value,
    pub cases: Vec<(String, Value, bool)>,
    /// Why ctxgen refused the schema, if it did.
    pub refused: Option<String>,
    /// The generated root type per language; `None` when the schema has only definitions.
    pub names: BTreeMap<String, Option<String>>,
}

pub struct Run {
    pub langs: Vec<String>,
    pub groups: Vec<Group>,
    /// Verdicts per language, per group, per case: `Some(valid)` or `None` when the run failed.
    pub verdicts: BTreeMap<String, Vec<Vec<Option<bool>>>>,
    /// Languages whose driver failed as a whole, with the reason.
    pub errors: Vec<String>,
}

/// Every `.json` file under `dir`, recursively, sorted by path.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every group of every keyword file (required and `optional/`) of every draft the suite holds.
fn load_groups(suite: &Path) -> Result<Vec<Group>, String> {
    let mut groups = Vec::new();
    for (draft, _) in DRAFTS {
        let root = suite.join(draft);
        for path in json_files(&root) {
            let rel = path.strip_prefix(&root).unwrap_or(&path);
            let keyword = rel
                .with_extension("")
                .display()
                .to_string()
                .replace('\\', "/");
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let doc: Value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = format!("{draft}/{}.json", keyword);
            for g in doc.as_array().ok_or("suite file is not an array")? {
                let cases = g["tests"]
                    .as_array()
                    .ok_or("group without tests")?
                    .iter()
                    .map(|t| {
                        (
                            t["description"].as_str().unwrap_or("").to_string(),
                            t["data"].clone(),
                            t["valid"] == Value::Bool(true),
                        )
                    })
                    .collect();
                groups.push(Group {
                    draft: draft.to_string(),
                    keyword: keyword.clone(),
                    file: file.clone(),
                    description: g["description"].as_str().unwrap_or("").to_string(),
                    schema: g["schema"].clone(),
                    cases,
                    refused: None,
                    names: BTreeMap::new(),
                });
            }
        }
    }
    Ok(groups)
}

fn remotes(suite: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![suite.join("remotes")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(suite.join("remotes")) {
                out.push((
                    format!("http://localhost:1234/{}", rel.display()),
                    p.clone(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn config(
    files: Vec<PathBuf>,
    remotes: &[(String, PathBuf)],
    langs: &[Lang],
    out: &Path,
) -> Config {
    let mut c = Config::new();
    c.schema_files(files)
        .languages(langs)
        .out_dir(out)
        .package_name("conformance");
    for (url, file) in remotes {
        c.map_url(url.clone(), file.clone());
    }
    c
}

fn lang_of(name: &str) -> Result<Lang, String> {
    match name {
        "rust" => Ok(Lang::Rust),
        "typescript" => Ok(Lang::TypeScript),
        // The Python package with its native accelerator built and loaded.
        "python" | "python-native" => Ok(Lang::Python),
        other => Err(format!("unknown language {other}")),
    }
}

pub fn run(suite: &Path, work: &Path, lang_names: &[String]) -> Result<Run, String> {
    let mut groups = load_groups(suite)?;
    let remotes = remotes(suite);
    let mut langs: Vec<Lang> = lang_names
        .iter()
        .map(|l| lang_of(l))
        .collect::<Result<_, _>>()?;
    langs.dedup();
    let native = lang_names.iter().any(|l| l == "python-native");
    let _ = std::fs::remove_dir_all(work.join("schemas"));
    let mut verdicts: BTreeMap<String, Vec<Vec<Option<bool>>>> = lang_names
        .iter()
        .map(|l| {
            (
                l.clone(),
                groups.iter().map(|g| vec![None; g.cases.len()]).collect(),
            )
        })
        .collect();
    let mut errors = Vec::new();
    for ((draft, meta), assert) in DRAFTS.iter().flat_map(|d| [(d, false), (d, true)]) {
        // 2019-09 and 2020-12 make `format` an annotation by default: the required files run
        // with the default, the `optional/format` files (which are about assertion) with
        // `assert_formats`. Earlier drafts always assert, so they run in one batch.
        let late = matches!(*draft, "draft2020-12" | "draft2019-09");
        let in_batch = |g: &Group| {
            g.draft == *draft && (!late || g.keyword.starts_with("optional/format/") == assert)
        };
        if (assert && !late) || !groups.iter().any(in_batch) {
            continue;
        }
        let batch = if assert {
            format!("{draft}-formats")
        } else {
            draft.to_string()
        };
        let dir = work.join("schemas").join(&batch);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let mut accepted = Vec::new();
        for (i, g) in groups.iter_mut().enumerate().filter(|(_, g)| in_batch(g)) {
            let mut schema = g.schema.clone();
            if let Some(o) = schema.as_object_mut() {
                o.entry("$schema")
                    .or_insert(Value::String(meta.to_string()));
            }
            let file = dir.join(format!("g{i}.json"));
            std::fs::write(&file, serde_json::to_string_pretty(&schema).unwrap())
                .map_err(|e| e.to_string())?;
            match config(
                vec![file.clone()],
                &remotes,
                &[Lang::Rust],
                &work.join("probe"),
            )
            .assert_formats(assert)
            .render()
            {
                Ok(_) => accepted.push((i, file)),
                Err(e) => g.refused = Some(e.to_string()),
            }
        }
        let files: Vec<PathBuf> = accepted.iter().map(|(_, f)| f.clone()).collect();
        let out = work.join("out").join(&batch);
        let mut cfg = config(files, &remotes, &langs, &out);
        cfg.assert_formats(assert).python_native(native);
        cfg.generate()
            .map_err(|e| format!("batch generation failed: {e}"))?;
        let roots = cfg.root_types().map_err(|e| e.to_string())?;
        for (i, file) in &accepted {
            let rel = file.file_name().unwrap().to_string_lossy().to_string();
            for lang in lang_names {
                let name = roots.get(&(lang_of(lang)?, rel.clone())).cloned().flatten();
                groups[*i].names.insert(lang.clone(), name);
            }
        }
        for lang in lang_names {
            let cases: Vec<(usize, usize, Option<String>, Value)> = accepted
                .iter()
                .flat_map(|(i, _)| {
                    let g = &groups[*i];
                    let name = g.names.get(lang).cloned().flatten();
                    g.cases
                        .iter()
                        .enumerate()
                        .map(move |(c, case)| (*i, c, name.clone(), case.1.clone()))
                })
                .collect();
            let results = match langs::run(lang, &out, work, &cases) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{lang} ({batch}): {e}");
                    errors.push(format!(
                        "{lang} ({batch}): {}",
                        e.lines().last().unwrap_or("")
                    ));
                    vec![None; cases.len()]
                }
            };
            for ((i, c, _, _), verdict) in cases.iter().zip(results) {
                verdicts.get_mut(lang).unwrap()[*i][*c] = verdict;
            }
        }
    }
    Ok(Run {
        langs: lang_names.to_vec(),
        groups,
        verdicts,
        errors,
    })
}
