//! The Markdown report of a corpus run.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use super::{Outcome, Row, Verdict};

/// The checks of each language, in report order: (key, label).
pub const CHECKS: &[(&str, &str)] = &[
    ("rust", "Rust compiles (`cargo check`)"),
    ("rust-clippy", "Rust crate passes clippy `-D warnings` (all features)"),
    ("typescript", "TypeScript type-checks (`tsc --strict --noUncheckedIndexedAccess --exactOptionalPropertyTypes`)"),
    ("python-import", "Python imports (pydantic 2)"),
    ("python", "Python imports and passes `mypy --strict`"),
];

/// One Rust check runs, `cargo check` or clippy: the other is left out of the report.
fn alternative(key: &str, checked: &[&str]) -> bool {
    key == "rust-clippy" || (key == "rust" && checked.contains(&"rust-clippy"))
}

pub fn markdown(dir: &Path, rows: &[Row], checked: &[&str]) -> String {
    let total = rows.len();
    let generated = rows.iter().filter(|r| r.generated()).count();
    let pct = |n: usize| {
        if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        }
    };
    let mut s = String::new();
    let _ = writeln!(s, "# SchemaStore corpus run\n");
    let _ = writeln!(
        s,
        "Written by `ctxgen-corpus` over the {total} files of `{}`: each file generated on its own",
        dir.display()
    );
    let _ = writeln!(
        s,
        "(all three languages, {} s limit), then each language checked in batches.\n",
        super::LIMIT.as_secs()
    );
    let _ = writeln!(s, "| | files | share of all |\n|---|---:|---:|");
    let _ = writeln!(s, "| schemas | {total} | 100.0% |");
    let _ = writeln!(s, "| generated | {generated} | {:.1}% |", pct(generated));
    for (key, label) in CHECKS {
        if checked.contains(key) {
            let n = rows.iter().filter(|r| r.passes(key)).count();
            let _ = writeln!(s, "| {label} | {n} | {:.1}% |", pct(n));
        } else if !alternative(key, checked) {
            let _ = writeln!(s, "| {label} | not checked | |");
        }
    }
    let every_language = ["typescript", "python"].iter().all(|k| checked.contains(k))
        && checked.iter().any(|k| k.starts_with("rust"));
    if every_language {
        let n = rows
            .iter()
            .filter(|r| checked.iter().all(|k| r.passes(k)))
            .count();
        let _ = writeln!(s, "| all three languages | {n} | {:.1}% |", pct(n));
    }
    let panics = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Panicked(_)))
        .count();
    let timeouts = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::TimedOut))
        .count();
    let _ = writeln!(
        s,
        "| panics | {panics} | |\n| over {} s | {timeouts} | |\n",
        super::LIMIT.as_secs()
    );
    let (defs, emitted) = rows
        .iter()
        .filter(|r| r.generated())
        .fold((0, 0), |(a, b), r| {
            (a + r.definitions.0, b + r.definitions.1)
        });
    let _ = writeln!(s, "Definitions (`$defs`, `definitions`) of the generated files: {defs}; declared as a Rust type: {emitted}.\n");
    let mut times: Vec<f64> = rows.iter().map(|r| r.time.as_secs_f64()).collect();
    times.sort_by(f64::total_cmp);
    if let Some(slowest) = rows.iter().max_by_key(|r| r.time) {
        let median = times[times.len() / 2];
        let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
        let _ = writeln!(
            s,
            "Generation time per file (three languages, one process each): median {:.0} ms, 95th percentile {:.0} ms, slowest `{}` {:.2} s.\n",
            median * 1000.0,
            p95 * 1000.0,
            slowest.file,
            slowest.time.as_secs_f64()
        );
    }
    let mut reasons: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        if let Outcome::Refused(msg) = &r.outcome {
            reasons.entry(classify(msg)).or_default().push(r);
        }
    }
    if !reasons.is_empty() {
        let _ = writeln!(
            s,
            "## Refused, by reason\n\n| reason | files | example |\n|---|---:|---|"
        );
        for (reason, list) in &reasons {
            let example = match &list[0].outcome {
                Outcome::Refused(m) => cell(m),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "| {reason} | {} | `{}`: {example} |",
                list.len(),
                list[0].file
            );
        }
        let names: Vec<String> = reasons
            .values()
            .flatten()
            .map(|r| format!("`{}`", r.file))
            .collect();
        let _ = writeln!(s, "\nRefused files: {}.\n", names.join(", "));
    }
    for (key, label) in CHECKS {
        let failed: Vec<&Row> = rows
            .iter()
            .filter(|r| matches!(r.verdicts.get(key), Some(Verdict::Fail(_))))
            .collect();
        if failed.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "## Generated, but not: {label}\n\n| file | first error |\n|---|---|"
        );
        for r in failed {
            if let Some(Verdict::Fail(m)) = r.verdicts.get(key) {
                let _ = writeln!(s, "| `{}` | {} |", r.file, cell(m));
            }
        }
        s.push('\n');
    }
    for r in rows {
        match &r.outcome {
            Outcome::Panicked(m) => {
                let _ = writeln!(s, "- panic: `{}`: {}", r.file, cell(m));
            }
            Outcome::TimedOut => {
                let _ = writeln!(s, "- over {} s: `{}`", super::LIMIT.as_secs(), r.file);
            }
            _ => {}
        }
    }
    s
}

/// Text fit for one table cell: one line, no pipes, at most 300 characters.
fn cell(m: &str) -> String {
    let one: String = m.replace('|', "\\|").replace(['\n', '\r'], " ");
    match one.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

fn classify(msg: &str) -> String {
    let m = msg.to_lowercase();
    let table = [
        ("malformed json", "malformed JSON"),
        (
            "remote",
            "remote $ref to a document that is not in the corpus",
        ),
        ("climbs out", "$ref outside the schema root"),
        ("does not exist", "$ref to a missing location"),
        ("no anchor", "$ref to a missing anchor"),
        ("not loaded and not found", "$ref to a missing file"),
        ("must be", "schema keyword with the wrong shape"),
        ("unknown type", "unknown type name"),
        ("nests too deeply", "schema nested too deeply"),
        ("cannot be compiled", "unusable pattern"),
    ];
    table
        .iter()
        .find(|(k, _)| m.contains(k))
        .map_or_else(|| "other".to_string(), |(_, v)| v.to_string())
}
