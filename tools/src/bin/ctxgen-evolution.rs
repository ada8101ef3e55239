//! Runs `ctxgen diff` on every consecutive version pair of every schema family in a corpus
//! directory (files named `<family>-<version>.json` and similar), re-checks every "compatible"
//! verdict with `--verify` fresh instances of each version (`ctxgen::diff::verify`), confirms the
//! counterexamples of the message types with the `jsonschema` crate on the raw schemas, and
//! compares each pair with jsoncompat (its CLI, `--jsoncompat`). See docs/evolution.md.
//!
//! `cargo run --release -p ctxgen-tools --bin ctxgen-evolution -- ../shared/corpus/schemastore \
//!     [--instances DIR] [--verify 1000] [--samples 300] [--jsoncompat BIN] [--fuzz N] \
//!     [--family TEXT] [--json OUT] [--report OUT.md] [--work DIR]`

mod evolution;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use ctxgen::diff::instances::Gen;
use ctxgen::diff::interp::{Interp, Unknown};
use ctxgen::diff::verify::{verify, Contradiction};
use ctxgen::diff::{diff, load, Loaded, Options, Outcome, Report, Status};
use serde::Serialize;
use serde_json::Value;

use evolution::families::{discover, seeds};
use evolution::oracle::{draft, independent, validator, Jc, JsonCompat};
use evolution::report::{agreement, markdown};

/// One consecutive version pair.
#[derive(Serialize, Default)]
pub struct Row {
    pub family: String,
    pub old: String,
    pub new: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub wire: String,
    pub declared: Option<String>,
    pub ok: bool,
    pub api: BTreeMap<String, String>,
    pub changed_types: usize,
    pub incompatible: usize,
    pub unconfirmed: usize,
    /// The message type's outcome per role (`compatible` when it did not change).
    pub reader: Option<Outcome>,
    pub writer: Option<Outcome>,
    /// Change classes over every type.
    pub classes: BTreeMap<&'static str, usize>,
    pub instances: usize,
    /// Counterexamples of the message type, and how many the `jsonschema` crate confirms on the
    /// raw schemas (`None` where a raw schema does not compile there).
    pub counterexamples: usize,
    pub confirmed: usize,
    pub refuted: Vec<String>,
    /// "Compatible" verdicts re-checked, instances over them, the fewest for one verdict.
    pub verified: usize,
    pub verify_instances: usize,
    pub verify_min: Option<usize>,
    /// Verdicts checked on the producing side's whole (finite) instance space: `key role:
    /// exhaustive (N instances)`.
    pub verify_exhaustive: Vec<String>,
    /// Verdicts below the bar: sampled, with fewer than `--verify` distinct valid instances.
    pub verify_short: Vec<String>,
    pub contradictions: Vec<Contradiction>,
    /// The message type's program against the `jsonschema` crate on the raw schema of each
    /// version: instances both judge alike, and those they judge differently.
    pub oracle_agree: usize,
    pub oracle_disagree: Vec<String>,
    pub drafts: (String, String),
    pub jsoncompat: Option<(Jc, Jc)>,
    /// Agreement with jsoncompat per role: (class, explanation).
    pub agreement: Vec<(String, String, String)>,
    pub seconds: f64,
}

struct Args {
    corpus: PathBuf,
    instances: Option<PathBuf>,
    verify: usize,
    samples: usize,
    json: Option<PathBuf>,
    report: Option<PathBuf>,
    family: Option<String>,
    jsoncompat: Option<PathBuf>,
    fuzz: usize,
    work: PathBuf,
}

fn args() -> Option<Args> {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut a = Args {
        corpus: PathBuf::new(),
        instances: None,
        verify: 1000,
        samples: 300,
        json: None,
        report: None,
        family: None,
        jsoncompat: None,
        fuzz: 100,
        work: PathBuf::from("target/evolution"),
    };
    let mut corpus = None;
    let mut i = 0;
    while i < raw.len() {
        let next = raw.get(i + 1).cloned();
        match raw[i].as_str() {
            "--instances" => a.instances = next.map(PathBuf::from),
            "--verify" => a.verify = next?.parse().ok()?,
            "--samples" => a.samples = next?.parse().ok()?,
            "--fuzz" => a.fuzz = next?.parse().ok()?,
            "--json" => a.json = next.map(PathBuf::from),
            "--report" => a.report = next.map(PathBuf::from),
            "--family" => a.family = next,
            "--jsoncompat" => a.jsoncompat = next.map(PathBuf::from),
            "--work" => a.work = PathBuf::from(next?),
            other if !other.starts_with("--") => {
                corpus = Some(PathBuf::from(other));
                i += 1;
                continue;
            }
            _ => return None,
        }
        i += 2;
    }
    a.corpus = corpus?;
    Some(a)
}

fn main() -> ExitCode {
    let Some(a) = args() else {
        eprintln!("usage: ctxgen-evolution CORPUS_DIR [--instances DIR] [--verify N] [--samples N] [--jsoncompat BIN] [--fuzz N] [--family TEXT] [--json OUT] [--report OUT.md] [--work DIR]");
        return ExitCode::from(2);
    };
    let mut families = match discover(&a.corpus) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e}", a.corpus.display());
            return ExitCode::from(2);
        }
    };
    families.retain(|f, _| a.family.as_ref().is_none_or(|o| f.contains(o.as_str())));
    let jc = a.jsoncompat.as_ref().map(|bin| JsonCompat {
        bin: bin.clone(),
        work: a.work.join("jsoncompat"),
        fuzz: a.fuzz,
        timeout: 60,
    });
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    for (family, versions) in &families {
        for w in versions.windows(2) {
            let row = pair(&a, jc.as_ref(), family, &w[0], &w[1]);
            println!(
                "{family}: {} → {}: {}",
                row.old,
                row.new,
                match &row.error {
                    Some(e) => format!("does not generate: {e}"),
                    None => format!(
                        "wire {} (declared {}), {} changed type(s), {} instance(s); verified {} verdict(s) with {} instance(s) ({} exhaustive, fewest sampled {}, {} below the bar), {} contradiction(s); jsoncompat {}; {:.1}s",
                        row.wire,
                        row.declared.as_deref().unwrap_or("?"),
                        row.changed_types,
                        row.instances,
                        row.verified,
                        row.verify_instances,
                        row.verify_exhaustive.len(),
                        row.verify_min.map_or("-".into(), |n| n.to_string()),
                        row.verify_short.len(),
                        row.contradictions.len(),
                        row.agreement.iter().map(|x| format!("{} {}", x.0, x.1)).collect::<Vec<_>>().join(", "),
                        row.seconds
                    ),
                }
            );
            rows.push(row);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let generated = rows.iter().filter(|r| r.error.is_none()).count();
    let contradictions: usize = rows.iter().map(|r| r.contradictions.len()).sum();
    let refuted: usize = rows.iter().map(|r| r.refuted.len()).sum();
    println!(
        "{} famil(ies), {} pair(s), {generated} generate, {} verdict(s) re-checked with {} instance(s), {contradictions} contradiction(s), {refuted} counterexample(s) refuted by jsonschema, {elapsed:.0}s",
        families.len(),
        rows.len(),
        rows.iter().map(|r| r.verified).sum::<usize>(),
        rows.iter().map(|r| r.verify_instances).sum::<usize>(),
    );
    if let Some(out) = &a.json {
        let text = serde_json::to_string_pretty(&rows).unwrap_or_default();
        if let Err(e) = std::fs::write(out, text) {
            eprintln!("error: {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    if let Some(out) = &a.report {
        let text = markdown(&rows, &a.corpus, a.verify, a.samples, elapsed);
        if let Err(e) = std::fs::write(out, text) {
            eprintln!("error: {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    if contradictions > 0 || refuted > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn read(p: &std::path::Path) -> Value {
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

fn pair(
    a: &Args,
    jc: Option<&JsonCompat>,
    family: &str,
    (ov, op): &(String, PathBuf),
    (nv, np): &(String, PathBuf),
) -> Row {
    let started = std::time::Instant::now();
    let (raw_old, raw_new) = (read(op), read(np));
    let mut row = Row {
        family: family.to_string(),
        old: ov.clone(),
        new: nv.clone(),
        drafts: (draft(&raw_old).into(), draft(&raw_new).into()),
        ..Row::default()
    };
    let loaded = load(std::slice::from_ref(op), op.display().to_string())
        .and_then(|o| Ok((o, load(std::slice::from_ref(np), np.display().to_string())?)));
    let (mut old, mut new) = match loaded {
        Ok(x) => x,
        Err(e) => {
            row.error = Some(e.to_string().lines().next().unwrap_or("").to_string());
            return row;
        }
    };
    oracle_sample(&mut row, "old", &old, &raw_old);
    oracle_sample(&mut row, "new", &new, &raw_new);
    old.seeds = seeds(&a.instances, op);
    new.seeds = seeds(&a.instances, np);
    let opts = Options {
        samples: a.samples,
        ..Options::default()
    };
    let report = diff(&old, &new, &opts);
    summarize(&mut row, &report);
    for t in report.types.iter().filter(|t| t.root) {
        for v in [&t.reader, &t.writer] {
            let Some(cx) = &v.counterexample else {
                continue;
            };
            row.counterexamples += 1;
            let (acc, rej) = if cx.accepted_by == "old" {
                (&raw_old, &raw_new)
            } else {
                (&raw_new, &raw_old)
            };
            match (
                independent(acc, &cx.instance),
                independent(rej, &cx.instance),
            ) {
                (Some(true), Some(false)) => row.confirmed += 1,
                (Some(x), Some(y)) => row.refuted.push(format!(
                    "{}: {} accepts: {x}, {} accepts: {y}: {}",
                    t.key, cx.accepted_by, cx.rejected_by, cx.instance
                )),
                _ => {}
            }
        }
    }
    let check = verify(&old, &new, &report, &opts, a.verify);
    row.verified = check.checked.len();
    row.verify_instances = check.instances();
    row.verify_min = check
        .checked
        .iter()
        .filter(|c| !c.exhaustive)
        .map(|c| c.instances)
        .min();
    row.verify_exhaustive = check
        .checked
        .iter()
        .filter(|c| c.exhaustive)
        .map(|c| {
            format!(
                "{} {}: exhaustive ({} instances)",
                c.key, c.role, c.instances
            )
        })
        .collect();
    row.verify_short = check
        .checked
        .iter()
        .filter(|c| !c.exhaustive && c.instances < a.verify)
        .map(|c| format!("{} {}: {}", c.key, c.role, c.instances))
        .collect();
    row.contradictions = check.contradictions;
    if let Some(jc) = jc {
        let prepared = jc
            .prepare(&PathBuf::from(format!("old-{}", file(op))), &raw_old)
            .and_then(|o| {
                Ok((
                    o,
                    jc.prepare(&PathBuf::from(format!("new-{}", file(np))), &raw_new)?,
                ))
            });
        if let Ok((o, n)) = prepared {
            let des = jc.check(&o, &n, "deserializer");
            let ser = jc.check(&o, &n, "serializer");
            row.agreement = vec![
                agreement("reader", row.reader, &report, &des, &raw_old, &raw_new),
                agreement("writer", row.writer, &report, &ser, &raw_old, &raw_new),
            ];
            row.jsoncompat = Some((des, ser));
        }
    }
    row.seconds = started.elapsed().as_secs_f64();
    row
}

/// Checks the message type's validation program against the `jsonschema` crate on the raw schema
/// (where it compiles): 100 generated valid instances, which the crate must accept, and `{}`, on
/// which the two must agree. A disagreement is a difference of ctxgen's loader or validator, not
/// of the diff (as when a referenced meta-schema's root shadowed aio-connector-metadata's).
fn oracle_sample(row: &mut Row, side: &str, l: &Loaded, raw: &Value) {
    let Some(t) = l.ir.types.iter().find(|t| {
        t.origin.pointer.is_empty() && t.origin.file.ends_with(l.ir.modules[t.module].rel.as_str())
    }) else {
        return;
    };
    let Some(oracle) = validator(raw) else {
        return;
    };
    let interp = Interp::new(&l.ir.program, Unknown::Schema);
    let mut instances = Gen::new(&interp, 0x0ac1e).valid(t.node, 100, 800);
    instances.push(Value::Object(Default::default()));
    for v in instances {
        let (ours, theirs) = (interp.valid(t.node, &v), oracle.is_valid(&v));
        if ours == theirs {
            row.oracle_agree += 1;
        } else {
            row.oracle_disagree.push(format!(
                "{side} ({}): ctxgen accepts: {ours}, jsonschema accepts: {theirs}: {v}",
                if side == "old" { &row.old } else { &row.new }
            ));
        }
    }
}

fn file(p: &std::path::Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn summarize(row: &mut Row, report: &Report) {
    row.wire = report.version.wire.to_string();
    row.declared = report.version.declared.map(|b| b.to_string());
    row.ok = report.version.ok;
    row.api = report
        .version
        .api
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    row.changed_types = report.types.len();
    let bad = |o: Outcome| {
        report
            .types
            .iter()
            .filter(|t| t.reader.outcome == o || t.writer.outcome == o)
            .count()
    };
    row.incompatible = bad(Outcome::Incompatible);
    row.unconfirmed = bad(Outcome::Unconfirmed);
    row.instances = report.instances_checked;
    for t in &report.types {
        for c in &t.changes {
            *row.classes.entry(c.class).or_insert(0) += 1;
        }
    }
    // The message: the root type present in both versions (compatible when it did not change).
    let root = report
        .types
        .iter()
        .find(|t| t.root && t.status == Status::Changed);
    let removed = report
        .types
        .iter()
        .any(|t| t.root && t.status == Status::Removed);
    row.reader = Some(match root {
        Some(t) => t.reader.outcome,
        None if removed => Outcome::Incompatible,
        None => Outcome::Compatible,
    });
    row.writer = Some(root.map_or(Outcome::Compatible, |t| t.writer.outcome));
}
