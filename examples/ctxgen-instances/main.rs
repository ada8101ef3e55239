//! The instance runner: SchemaStore's own test instances (and mutants of the valid ones)
//! through the bindings ctxgen generates in Rust, TypeScript and Python, against an independent
//! oracle (the `jsonschema` crate). Measures verdict agreement with the oracle and between the
//! languages, identical (pointer, keyword) violation lists, and lossless typed round trips.
//!
//! ```text
//! cargo run --release --example ctxgen-instances -- [--corpus DIR] [--instances DIR]
//!     [--list FILE] [--work DIR] [--report FILE] [--json FILE] [--baseline FILE]
//!     [--write-baseline FILE] [--require-agreement] [--require-round-trip]
//!     [--langs rust,typescript,python] [--mutants N] [--seed N] [--batch N]
//! ```
//!
//! `--corpus` is the SchemaStore schema directory (default `$CTXGEN_CORPUS` or
//! `../shared/corpus/schemastore`), `--instances` the instance directory with `index.json`
//! (default `schemastore-instances` beside the corpus). `--list` names the schema files to run
//! (one a line, `#` comments). `--require-agreement` exits 1 on a disagreement with the oracle
//! or between the languages that the `--baseline` file does not list, `--require-round-trip` on
//! an inexact round trip it does not list; `--write-baseline` writes every current failure.
//! Tools: `tests/typescript/node_modules/.bin/tsc` (or `CTXGEN_TSC`), `node`, and
//! `tests/python/.venv/bin/python` (or `CTXGEN_PYTHON`).

mod compare;
mod corpus;
mod drivers;
mod locate;
mod mutate;
mod oracle;
mod report;
mod run;

use std::collections::BTreeSet;
use std::path::PathBuf;

pub struct Args {
    pub corpus: PathBuf,
    pub instances: PathBuf,
    pub list: Option<PathBuf>,
    pub work: PathBuf,
    pub report: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub write_baseline: Option<PathBuf>,
    pub require_agreement: bool,
    pub require_round_trip: bool,
    pub langs: Vec<String>,
    pub mutants: usize,
    pub seed: u64,
    pub batch: usize,
    pub command: String,
}

const USAGE: &str = "usage: ctxgen-instances [--corpus DIR] [--instances DIR] [--list FILE] [--work DIR] [--report FILE] [--json FILE] [--baseline FILE] [--write-baseline FILE] [--require-agreement] [--require-round-trip] [--langs rust,typescript,python] [--mutants N] [--seed N] [--batch N]";

fn parse_args(raw: &[String]) -> Result<Args, String> {
    let corpus =
        std::env::var("CTXGEN_CORPUS").unwrap_or_else(|_| "../shared/corpus/schemastore".into());
    let mut a = Args {
        corpus: PathBuf::from(corpus),
        instances: PathBuf::new(),
        list: None,
        work: PathBuf::from("target/instances"),
        report: None,
        json: None,
        baseline: None,
        write_baseline: None,
        require_agreement: false,
        require_round_trip: false,
        langs: vec!["rust".into(), "typescript".into(), "python".into()],
        mutants: 8,
        seed: 1,
        batch: 40,
        command: String::new(),
    };
    let mut instances = None;
    let mut it = raw.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or(format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--corpus" => a.corpus = PathBuf::from(value()?),
            "--instances" => instances = Some(PathBuf::from(value()?)),
            "--list" => a.list = Some(PathBuf::from(value()?)),
            "--work" => a.work = PathBuf::from(value()?),
            "--report" => a.report = Some(PathBuf::from(value()?)),
            "--json" => a.json = Some(PathBuf::from(value()?)),
            "--baseline" => a.baseline = Some(PathBuf::from(value()?)),
            "--write-baseline" => a.write_baseline = Some(PathBuf::from(value()?)),
            "--require-agreement" => a.require_agreement = true,
            "--require-round-trip" => a.require_round_trip = true,
            "--langs" => {
                a.langs = value()?
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                if let Some(bad) = a.langs.iter().find(|l| corpus::lang_of(l).is_none()) {
                    return Err(format!("unknown language {bad}"));
                }
            }
            "--mutants" => a.mutants = value()?.parse().map_err(|e| format!("--mutants: {e}"))?,
            "--seed" => a.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--batch" => {
                a.batch = value()?
                    .parse::<usize>()
                    .map_err(|e| format!("--batch: {e}"))?
                    .max(1)
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    a.instances = instances.unwrap_or_else(|| a.corpus.join("../schemastore-instances"));
    let mut shown = vec!["ctxgen-instances".to_string()];
    shown.extend(raw.iter().cloned());
    a.command = shown.join(" ");
    Ok(a)
}

/// The lines of a file that are not empty or `#` comments, trimmed; for a list of file names,
/// a `#` after white space starts a comment too.
fn read_lines(path: &PathBuf, names: bool) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let cut = |l: &str| -> String {
        match l.find([' ', '\t']).filter(|_| names) {
            Some(at) if l[at..].trim_start().starts_with('#') => l[..at].to_string(),
            _ => l.to_string(),
        }
    };
    Ok(text
        .lines()
        .map(|l| cut(l.trim()))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect())
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let code = match parse_args(&raw).and_then(|a| finish(&a)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    };
    std::process::exit(code);
}

fn write(path: &Option<PathBuf>, text: &str) -> Result<(), String> {
    if let Some(p) = path {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// Runs, writes the outputs, and decides the exit code.
fn finish(a: &Args) -> Result<i32, String> {
    let only = a.list.as_ref().map(|p| read_lines(p, true)).transpose()?;
    let (meta, records) = run::run(a, only.as_ref())?;
    let failures: Vec<compare::Failure> = records.iter().flat_map(compare::failures).collect();
    let baseline = a
        .baseline
        .as_ref()
        .map(|p| read_lines(p, false))
        .transpose()?
        .unwrap_or_default();
    let keys: BTreeSet<String> = failures.iter().map(compare::Failure::key).collect();
    let new: Vec<String> = keys
        .iter()
        .filter(|k| !baseline.contains(*k))
        .cloned()
        .collect();
    let stale: Vec<String> = baseline
        .iter()
        .filter(|k| !keys.contains(*k))
        .cloned()
        .collect();
    let md = report::markdown(&meta, &records, &failures, &a.langs);
    write(&a.report, &md)?;
    let summary = report::summary(&meta, &records, &failures, &a.langs, &new, &stale);
    write(
        &a.json,
        &serde_json::to_string_pretty(&summary).unwrap_or_default(),
    )?;
    if a.write_baseline.is_some() {
        let mut text = String::from("# Known failures of ctxgen-instances (kind language schema instance); the goal is an empty file.\n");
        for k in &keys {
            text.push_str(k);
            text.push('\n');
        }
        write(&a.write_baseline, &text)?;
    }
    let originals = report::stats(&records, false, &a.langs);
    for (lang, l) in &originals.langs {
        eprintln!(
            "{lang}: agrees with the oracle on {}/{} instances, round trips {}/{} exactly",
            l.agree, l.judged, l.rt_exact, l.rt_due
        );
    }
    eprintln!(
        "{} failure(s), {} not in the baseline, {} baseline line(s) no longer failing",
        failures.len(),
        new.len(),
        stale.len()
    );
    let blocking: Vec<&String> = new
        .iter()
        .filter(|k| {
            (a.require_agreement && (k.starts_with("verdict ") || k.starts_with("cross ")))
                || (a.require_round_trip && k.starts_with("roundtrip "))
        })
        .collect();
    if blocking.is_empty() {
        return Ok(0);
    }
    eprintln!("error: {} failure(s) not in the baseline:", blocking.len());
    for k in blocking.iter().take(40) {
        eprintln!("  {k}");
    }
    Ok(1)
}
