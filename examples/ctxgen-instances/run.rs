//! The run: select the schemas, probe them, generate the packages, then per package build the
//! cases (instances, oracle verdicts, mutants), drive every language and keep what they said.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use crate::compare::{self, Outcome, Record};
use crate::corpus::{self, Batch, Entry, Names};
use crate::drivers::{self, Raw};
use crate::locate::Walker;
use crate::mutate;
use crate::oracle::{self, CorpusRetriever, Oracle};
use crate::report::Meta;
use crate::Args;

struct Case {
    record: Record,
    data: Value,
    names: Names,
}

pub fn run(a: &Args, only: Option<&BTreeSet<String>>) -> Result<(Meta, Vec<Record>), String> {
    let start = Instant::now();
    for lang in &a.langs {
        drivers::check_tools(lang)?;
    }
    let entries = corpus::load_index(&a.instances)?;
    let mut by_schema: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        if only.is_none_or(|o| o.contains(&e.schema)) {
            by_schema.entry(e.schema.clone()).or_default().push(i);
        }
    }
    if let Some(o) = only {
        if let Some(missing) = o.iter().find(|s| !by_schema.contains_key(*s)) {
            return Err(format!(
                "{missing} (from --list) has no instance in the index"
            ));
        }
    }
    // Schemas that use a keyword ctxgen does not implement yet (docs/validation.md): the
    // report names them as the explanation of their verdict differences.
    let unimplemented = by_schema
        .keys()
        .filter(|s| {
            std::fs::read_to_string(a.corpus.join(s)).is_ok_and(|t| {
                t.contains("\"unevaluatedProperties\"") || t.contains("\"unevaluatedItems\"")
            })
        })
        .cloned()
        .collect();
    let mut meta = Meta {
        unimplemented,
        instances: by_schema.values().map(Vec::len).sum(),
        selected_schemas: by_schema.len(),
        mutants_per_instance: a.mutants,
        seed: a.seed,
        command: a.command.clone(),
        source: source(),
        ..Meta::default()
    };
    std::fs::create_dir_all(&a.work).map_err(|e| format!("{}: {e}", a.work.display()))?;
    let work = a
        .work
        .canonicalize()
        .map_err(|e| format!("{}: {e}", a.work.display()))?;
    for old in ["out", "cases"] {
        let _ = std::fs::remove_dir_all(work.join(old));
    }
    if let Ok(dir) = std::fs::read_dir(&work) {
        for e in dir.flatten() {
            if e.file_name().to_string_lossy().starts_with("driver-") {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    std::fs::create_dir_all(work.join("cases")).map_err(|e| e.to_string())?;

    let mut accepted: Vec<(String, PathBuf)> = Vec::new();
    for (schema, list) in &by_schema {
        let path = a.corpus.join(schema);
        if !corpus::plain_name(schema) || !path.is_file() {
            meta.missing.push((schema.clone(), list.len()));
            continue;
        }
        match corpus::probe(&path) {
            Ok(()) => accepted.push((schema.clone(), path)),
            Err(e) => meta.refused.push((schema.clone(), e)),
        }
    }
    let probed = start.elapsed().as_secs_f64();
    eprintln!(
        "probe: {} schemas generate, {} refused ({probed:.0} s)",
        accepted.len(),
        meta.refused.len()
    );
    let t = Instant::now();
    let mut next = 0;
    let (batches, failed, splits) = corpus::batches(&accepted, a.batch, &work, &mut next);
    meta.refused.extend(failed);
    meta.splits = splits;
    let generation = t.elapsed().as_secs_f64();
    eprintln!("generation: {} packages ({generation:.0} s)", batches.len());

    let retriever = CorpusRetriever::new(&a.corpus);
    let mut records = Vec::new();
    let mut oracle_time = 0.0;
    let mut lang_time: BTreeMap<String, f64> = BTreeMap::new();
    let mut queue: VecDeque<Batch> = batches.into();
    let mut done = 0;
    while let Some(b) = queue.pop_front() {
        let t = Instant::now();
        // What the cases noted (skipped instances, oracles, drafts) counts once the package
        // is kept.
        let mut noted = Meta::default();
        let (cases, docs) = build_cases(a, &b, &entries, &by_schema, &retriever, &mut noted);
        oracle_time += t.elapsed().as_secs_f64();
        let file = work.join(format!("cases/b{}.jsonl", b.index));
        let mut text = String::new();
        for c in &cases {
            let line = json!({"rust": c.names.rust, "typescript": c.names.typescript, "python": c.names.python, "data": c.data});
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
        let results = drive(a, &b, &work, &file, &cases, &docs, &retriever);
        clean_rust_target(&work, b.index);
        let mut took = Vec::new();
        let mut broken = None;
        for (lang, _, secs, error) in &results {
            *lang_time.entry(lang.clone()).or_default() += secs;
            took.push(format!("{lang} {secs:.0} s"));
            let compile = error.as_ref().filter(|e| {
                e.starts_with("cargo build")
                    || e.starts_with("tsc failed")
                    || e.starts_with("driver died")
            });
            if let (Some(e), true) = (compile, b.schemas.len() > 1) {
                broken.get_or_insert((lang.clone(), e.clone()));
            }
        }
        let files: Vec<(String, PathBuf)> = b
            .schemas
            .iter()
            .map(|s| (s.clone(), a.corpus.join(s)))
            .collect();
        if let Some((lang, e)) = broken {
            // A package that does not build: its halves are built on their own, until the
            // files at fault stand alone.
            eprintln!(
                "package b{} ({}) does not build in {lang}: splitting it",
                b.index,
                corpus::describe(&files)
            );
            meta.build_splits
                .push((format!("{lang}: {}", corpus::describe(&files)), e));
            let half = files.len().div_ceil(2);
            let (parts, failed, splits) = corpus::batches(&files, half, &work, &mut next);
            meta.refused.extend(failed);
            meta.splits.extend(splits);
            for part in parts.into_iter().rev() {
                queue.push_front(part);
            }
            continue;
        }
        done += 1;
        meta.skipped.extend(noted.skipped);
        meta.oracle_unavailable.extend(noted.oracle_unavailable);
        for (d, n) in noted.drafts {
            *meta.drafts.entry(d).or_default() += n;
        }
        meta.generated += b.schemas.len();
        meta.batches += 1;
        let mut outcomes: Vec<BTreeMap<String, Outcome>> =
            (0..cases.len()).map(|_| BTreeMap::new()).collect();
        for (lang, outs, _, _) in results {
            for (i, o) in outs.into_iter().enumerate() {
                outcomes[i].insert(lang.clone(), o);
            }
        }
        eprintln!(
            "package {done} (b{}; {} left): {} schemas, {} cases; {}",
            b.index,
            queue.len(),
            b.schemas.len(),
            cases.len(),
            took.join(", ")
        );
        for (c, langs) in cases.into_iter().zip(outcomes) {
            let mut r = c.record;
            r.langs = langs;
            records.push(r);
        }
    }
    meta.times = vec![
        ("total".into(), start.elapsed().as_secs_f64()),
        ("probe".into(), probed),
        ("generation".into(), generation),
        ("oracle and mutants".into(), oracle_time),
    ];
    meta.times.extend(
        lang_time
            .into_iter()
            .map(|(l, t)| (format!("{l} (build and run)"), t)),
    );
    Ok((meta, records))
}

fn build_cases(
    a: &Args,
    b: &Batch,
    entries: &[Entry],
    by_schema: &BTreeMap<String, Vec<usize>>,
    retriever: &CorpusRetriever,
    meta: &mut Meta,
) -> (Vec<Case>, BTreeMap<String, Arc<Value>>) {
    let mut cases = Vec::new();
    let mut docs = BTreeMap::new();
    for schema in &b.schemas {
        let list = by_schema.get(schema).cloned().unwrap_or_default();
        let names = b.names.get(schema).cloned().unwrap_or_default();
        let skip = |meta: &mut Meta, why: &str| {
            for i in &list {
                meta.skipped
                    .push((entries[*i].instance.clone(), why.to_string()));
            }
        };
        if names.rust.is_none() || names.typescript.is_none() || names.python.is_none() {
            skip(meta, "the schema has no root type (definitions only)");
            continue;
        }
        let doc = match oracle::read_json(&a.corpus.join(schema)) {
            Ok(d) => d,
            Err(e) => {
                skip(meta, &e);
                continue;
            }
        };
        *meta
            .drafts
            .entry(oracle::draft_name(oracle::draft_of(&doc)).to_string())
            .or_default() += 1;
        let doc = Arc::new(doc);
        let walker = Walker::new(doc.clone(), Some(retriever));
        let judge = match Oracle::build(&doc, retriever) {
            Ok(o) => Some(o),
            Err(e) => {
                meta.oracle_unavailable.push((schema.clone(), e));
                None
            }
        };
        for &i in &list {
            let e = &entries[i];
            if !corpus::plain_path(&e.instance) {
                meta.skipped.push((
                    e.instance.clone(),
                    "path leaves the instance directory".into(),
                ));
                continue;
            }
            let path = a.instances.join(&e.instance);
            let data = match std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| drivers::parse_json(&t))
            {
                Ok(d) => d,
                Err(err) => {
                    meta.skipped
                        .push((e.instance.clone(), format!("unreadable: {err}")));
                    continue;
                }
            };
            let verdict = judge.as_ref().and_then(|o| o.check(&data));
            let valid = verdict.as_ref().map(|v| v.valid);
            let record = |id: String, mutant: Option<String>, expects| Record {
                schema: schema.clone(),
                id,
                mutant,
                oracle: None,
                oracle_first: None,
                format_sensitive: false,
                expects,
                langs: BTreeMap::new(),
            };
            let with = |mut r: Record, v: Option<oracle::Verdict>| {
                if let Some(v) = v {
                    r.oracle = Some(v.valid);
                    r.oracle_first = v.first;
                    r.format_sensitive = v.format_sensitive;
                }
                r
            };
            let mutants = match (valid, &judge) {
                (Some(true), Some(o)) => {
                    let seed = a.seed ^ mutate::fnv(&e.instance);
                    mutate::mutants(&data, &walker, seed, a.mutants)
                        .into_iter()
                        .enumerate()
                        .map(|(k, m)| {
                            let r = with(
                                record(format!("{}#m{k}", e.instance), Some(m.what), None),
                                o.check(&m.data),
                            );
                            (r, m.data)
                        })
                        .collect()
                }
                _ => Vec::new(),
            };
            cases.push(Case {
                record: with(record(e.instance.clone(), None, e.expects), verdict),
                data,
                names: names.clone(),
            });
            cases.extend(mutants.into_iter().map(|(record, data)| Case {
                record,
                data,
                names: names.clone(),
            }));
        }
        docs.insert(schema.clone(), doc);
    }
    (cases, docs)
}

/// Every language over the cases file, in parallel; each result compared as it arrives.
fn drive(
    a: &Args,
    b: &Batch,
    work: &Path,
    file: &Path,
    cases: &[Case],
    docs: &BTreeMap<String, Arc<Value>>,
    retriever: &CorpusRetriever,
) -> Vec<(String, Vec<Outcome>, f64, Option<String>)> {
    let n = cases.len();
    let failed = |msg: &str| Raw {
        error: Some(msg.to_string()),
        ..Raw::default()
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = a
            .langs
            .iter()
            .map(|lang| {
                let job = move || {
                    let t = Instant::now();
                    let mut outs: Vec<Option<Outcome>> = (0..n).map(|_| None).collect();
                    let mut walkers: HashMap<&str, Walker> = HashMap::new();
                    let mut each = |i: usize, raw: Raw| {
                        if i < n {
                            let c = &cases[i];
                            let schema = c.record.schema.as_str();
                            if !walkers.contains_key(schema) {
                                if let Some(doc) = docs.get(schema) {
                                    walkers
                                        .insert(schema, Walker::new(doc.clone(), Some(retriever)));
                                }
                            }
                            outs[i] = Some(compare::outcome(raw, &c.data, walkers.get(schema)));
                        }
                    };
                    let result = if n == 0 {
                        Ok(())
                    } else {
                        drivers::run(lang, b, work, file, n, &mut each)
                    };
                    if let Err(e) = &result {
                        eprintln!("{lang} (package {}): {e}", b.index);
                    }
                    let error = result.err();
                    let why = error.clone().unwrap_or_else(|| "no result".into());
                    let outs = outs
                        .into_iter()
                        .map(|o| {
                            o.unwrap_or_else(|| compare::outcome(failed(&why), &Value::Null, None))
                        })
                        .collect();
                    (lang.clone(), outs, t.elapsed().as_secs_f64(), error)
                };
                (
                    lang,
                    std::thread::Builder::new()
                        .stack_size(256 << 20)
                        .spawn_scoped(s, job),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(lang, h)| {
                let fallback = |why: &str| {
                    (
                        lang.clone(),
                        (0..n)
                            .map(|_| compare::outcome(failed(why), &Value::Null, None))
                            .collect(),
                        0.0,
                        None,
                    )
                };
                match h {
                    Ok(h) => h
                        .join()
                        .unwrap_or_else(|_| fallback("the runner's thread panicked")),
                    Err(e) => fallback(&format!("no thread: {e}")),
                }
            })
            .collect()
    })
}

/// Removes a package's artifacts from the shared Rust target directory (the dependencies
/// stay for the next package and the next run).
fn clean_rust_target(work: &Path, index: usize) {
    let debug = work.join("rust-target/debug");
    let prefixes = [
        format!("instances_b{index}-"),
        format!("libinstances_b{index}-"),
        format!("instances-b{index}-"),
        format!("driver_b{index}-"),
        format!("driver-b{index}-"),
        format!("driver-b{index}."),
    ];
    for sub in ["deps", ".fingerprint", "build", ""] {
        let Ok(dir) = std::fs::read_dir(debug.join(sub)) else {
            continue;
        };
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name == format!("driver-b{index}")
                || prefixes.iter().any(|p| name.starts_with(p.as_str()))
            {
                let _ = if e.path().is_dir() {
                    std::fs::remove_dir_all(e.path())
                } else {
                    std::fs::remove_file(e.path())
                };
            }
        }
    }
}

/// The commit of the ctxgen checkout, and whether its sources differ from it (read-only git
/// calls; no optional locks).
fn source() -> String {
    let root = drivers::root();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("--no-optional-locks")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown (not a git checkout)".into();
    };
    match git(&[
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        "src",
        "templates",
        "Cargo.toml",
    ]) {
        Some(s) if s.is_empty() => format!("commit {head}"),
        Some(s) => format!(
            "commit {head} with uncommitted changes to {} file(s) under src/, templates/",
            s.lines().count()
        ),
        None => format!("commit {head}"),
    }
}
