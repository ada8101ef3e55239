//! Runs `ctxgen diff` on every consecutive version pair of every schema family in a corpus
//! directory (files named `<family>-<version>.json` and similar), then re-checks each
//! "compatible" verdict of a message type with 1,000 more instances of each version.
//!
//! `cargo run --release -p ctxgen-tools --bin ctxgen-evolution -- /work/shared/corpus/schemastore \
//!     [--instances /work/shared/corpus/schemastore-instances] [--verify 1000] [--json OUT]`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ctxgen::diff::confirm::{search, Party};
use ctxgen::diff::interp::{Interp, Unknown};
use ctxgen::diff::{diff, load, Options, Outcome, Report};
use serde_json::{json, Value};

/// The first version-like token of a file stem: (start, end).
fn version_span(stem: &str) -> Option<(usize, usize)> {
    let b = stem.as_bytes();
    for (i, c) in stem.char_indices() {
        if !c.is_ascii_digit() {
            continue;
        }
        let prev = if i == 0 { b'-' } else { b[i - 1] };
        let ok = matches!(prev, b'-' | b'_' | b'.')
            || (matches!(prev, b'v' | b'V') && (i < 2 || matches!(b[i - 2], b'-' | b'_' | b'.')));
        if !ok {
            continue;
        }
        let rest = &stem[i..];
        let mut end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x' || c == 'X'))
            .unwrap_or(rest.len());
        // A pre-release suffix (`-beta3`, `-B4`, `-rtm.2`, `-rc1`).
        let tail = &rest[end..];
        if let Some(t) = tail.strip_prefix('-') {
            let word: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let word = word.trim_end_matches('.');
            if !word.is_empty() && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                end += 1 + word.len();
            }
        }
        let start = if matches!(prev, b'v' | b'V') {
            i - 1
        } else {
            i
        };
        let end = i + rest[..end].trim_end_matches('.').len();
        return Some((start, end));
    }
    None
}

/// Sort key: numbers, then release after pre-release, then the suffix with numbers compared as numbers.
fn version_key(v: &str) -> (Vec<u64>, bool, Vec<(String, u64)>) {
    let v = v.trim_start_matches(['v', 'V']);
    let (nums, suffix) = v.split_once('-').unwrap_or((v, ""));
    let nums = nums.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    let mut parts = Vec::new();
    let mut word = String::new();
    let mut num = String::new();
    for c in suffix.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                parts.push((std::mem::take(&mut word), num.parse().unwrap_or(0)));
                num.clear();
            }
            word.push(c);
        }
    }
    parts.push((word, num.parse().unwrap_or(0)));
    (nums, suffix.is_empty(), parts)
}

fn seeds(instances: &Option<PathBuf>, file: &Path) -> Vec<Value> {
    let Some(dir) = instances else {
        return Vec::new();
    };
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir.join("valid").join(stem)) {
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if let Some(v) = std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
            {
                out.push(v);
            }
        }
    }
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut corpus = None;
    let mut instances = None;
    let mut verify = 1000usize;
    let mut samples = 300usize;
    let mut out_json = None;
    let mut only = None;
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--instances" => instances = next.map(PathBuf::from),
            "--verify" => verify = next.and_then(|n| n.parse().ok()).unwrap_or(verify),
            "--samples" => samples = next.and_then(|n| n.parse().ok()).unwrap_or(samples),
            "--json" => out_json = next.map(PathBuf::from),
            "--family" => only = next,
            other => {
                corpus = Some(PathBuf::from(other));
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let Some(corpus) = corpus else {
        eprintln!("usage: ctxgen-evolution CORPUS_DIR [--instances DIR] [--verify N] [--samples N] [--json OUT] [--family NAME]");
        return ExitCode::from(2);
    };
    let mut families: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(&corpus) else {
        eprintln!("error: cannot read {}", corpus.display());
        return ExitCode::from(2);
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        if let Some((s, t)) = version_span(stem) {
            let family = format!("{}{{v}}{}", &stem[..s], &stem[t..]);
            families
                .entry(family)
                .or_default()
                .push((stem[s..t].to_string(), p));
        }
    }
    families.retain(|f, v| v.len() > 1 && only.as_ref().is_none_or(|o| f.contains(o.as_str())));
    let mut rows = Vec::new();
    let (mut pairs, mut generated, mut verified, mut contradictions) = (0, 0, 0, 0);
    for (family, mut versions) in families {
        versions.sort_by_key(|(v, _)| version_key(v));
        for w in versions.windows(2) {
            pairs += 1;
            let (ov, op) = &w[0];
            let (nv, np) = &w[1];
            let started = std::time::Instant::now();
            let loaded = load(std::slice::from_ref(op), op.display().to_string())
                .and_then(|o| Ok((o, load(std::slice::from_ref(np), np.display().to_string())?)));
            let (mut old, mut new) = match loaded {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("{family} {ov} → {nv}: does not generate: {e}");
                    rows.push(
                        json!({"family": family, "old": ov, "new": nv, "error": e.to_string()}),
                    );
                    continue;
                }
            };
            generated += 1;
            old.seeds = seeds(&instances, op);
            new.seeds = seeds(&instances, np);
            let opts = Options {
                samples,
                ..Options::default()
            };
            let report = diff(&old, &new, &opts);
            let check = verify_compatible(&old, &new, &report, verify);
            verified += check.0;
            contradictions += check.1.len();
            let classes = classes(&report);
            println!(
                "{family}: {ov} → {nv}: wire {} (declared {}), {} changed type(s), {} instance(s), verify {} root(s) {} instance(s), {} contradiction(s), {:.1}s",
                report.version.wire,
                report.version.declared.map_or("?".into(), |b| b.to_string()),
                report.types.len(),
                report.instances_checked,
                check.2,
                check.0,
                check.1.len(),
                started.elapsed().as_secs_f64()
            );
            rows.push(json!({
                "family": family, "old": ov, "new": nv,
                "wire": report.version.wire, "declared": report.version.declared,
                "required": report.version.required, "ok": report.version.ok,
                "api": report.version.api,
                "changed_types": report.types.len(),
                "incompatible": report.types.iter().filter(|t| t.reader.outcome == Outcome::Incompatible || t.writer.outcome == Outcome::Incompatible).count(),
                "unconfirmed": report.types.iter().filter(|t| t.reader.outcome == Outcome::Unconfirmed || t.writer.outcome == Outcome::Unconfirmed).count(),
                "reader": root_outcome(&report, true), "writer": root_outcome(&report, false),
                "classes": classes, "instances": report.instances_checked,
                "verified_roots": check.2, "verify_instances": check.0, "contradictions": check.1,
            }));
        }
    }
    println!("{pairs} pair(s), {generated} generate, {verified} verification instance(s), {contradictions} contradiction(s)");
    if let Some(out) = out_json {
        let text = serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_default();
        if let Err(e) = std::fs::write(&out, text) {
            eprintln!("error: {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    if contradictions > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The worst outcome over the message (root) types, for one role.
fn root_outcome(r: &Report, reader: bool) -> Outcome {
    let mut worst = Outcome::Compatible;
    for t in r.types.iter().filter(|t| t.root) {
        let o = if reader {
            t.reader.outcome
        } else {
            t.writer.outcome
        };
        worst = match (worst, o) {
            (Outcome::Incompatible, _) | (_, Outcome::Incompatible) => Outcome::Incompatible,
            (Outcome::Unconfirmed, _) | (_, Outcome::Unconfirmed) => Outcome::Unconfirmed,
            _ => Outcome::Compatible,
        };
    }
    worst
}

fn classes(r: &Report) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for t in r.types.iter().filter(|t| t.root) {
        for c in &t.changes {
            *m.entry(c.class).or_insert(0) += 1;
        }
    }
    m
}

/// Re-checks every compatible verdict of a changed root type with `n` fresh instances of each
/// version (another seed): returns (instances checked, contradictions, roots verified).
fn verify_compatible(
    old: &ctxgen::diff::Loaded,
    new: &ctxgen::diff::Loaded,
    r: &Report,
    n: usize,
) -> (usize, Vec<String>, usize) {
    let oi = Interp::new(&old.ir.program, Unknown::Schema);
    let ni = Interp::new(&new.ir.program, Unknown::Schema);
    let mut checked = 0;
    let mut bad = Vec::new();
    let mut roots = 0;
    for t in r
        .types
        .iter()
        .filter(|t| t.root && t.status == ctxgen::diff::Status::Changed)
    {
        let root = |ir: &ctxgen::ir::Ir| {
            let roots: Vec<&ctxgen::ir::TypeDef> = ir
                .types
                .iter()
                .filter(|ty| ty.origin.pointer.is_empty())
                .collect();
            let by_key = roots
                .iter()
                .find(|ty| t.key == format!("{}#", ir.modules[ty.module].rel));
            by_key
                .or(if roots.len() == 1 {
                    roots.first()
                } else {
                    None
                })
                .map(|ty| ty.node)
        };
        let (Some(on), Some(nn)) = (root(&old.ir), root(&new.ir)) else {
            continue;
        };
        let o = Party {
            interp: &oi,
            node: on,
            label: "old",
        };
        let nw = Party {
            interp: &ni,
            node: nn,
            label: "new",
        };
        let mut any = false;
        if t.reader.outcome == Outcome::Compatible {
            let s = search(&o, &nw, &[], n, 0xfeed);
            checked += s.checked;
            any = true;
            if let Some(cx) = s.counterexample {
                bad.push(format!("{} reader: {}", t.key, cx.instance));
            }
        }
        if t.writer.outcome == Outcome::Compatible && r.unknown_fields == "schema" {
            let s = search(&nw, &o, &[], n, 0xbeef);
            checked += s.checked;
            any = true;
            if let Some(cx) = s.counterexample {
                bad.push(format!("{} writer: {}", t.key, cx.instance));
            }
        }
        roots += usize::from(any);
    }
    (checked, bad, roots)
}
