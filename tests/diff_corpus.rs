//! The test command's fast subset of the corpus run (`ctxgen-evolution`, docs/evolution.md): on
//! the consecutive SchemaStore versions of `tests/diff-corpus-subset.txt`, every counterexample
//! of a message type is confirmed by an independent validator (the `jsonschema` crate) on the raw
//! schemas, and every "compatible" verdict survives fresh instances of both versions
//! (`ctxgen::diff::verify`) without a contradiction.

use std::path::{Path, PathBuf};

use ctxgen::diff::{diff, load, verify::verify, Options};
use serde_json::Value;

fn raw(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}

#[test]
fn corpus_subset_verdicts_hold() {
    let corpus =
        std::env::var("CTXGEN_CORPUS").unwrap_or_else(|_| "../shared/corpus/schemastore".into());
    let corpus = Path::new(&corpus);
    assert!(
        corpus.is_dir(),
        "the SchemaStore corpus is not at {} (set CTXGEN_CORPUS)",
        corpus.display()
    );
    let list = std::fs::read_to_string("tests/diff-corpus-subset.txt").unwrap();
    let mut failures = Vec::new();
    let (mut confirmed, mut verdicts) = (0, 0);
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (o, n) = line.split_once(' ').unwrap();
        let (op, np): (PathBuf, PathBuf) = (corpus.join(o), corpus.join(n.trim()));
        let old = load(std::slice::from_ref(&op), o).unwrap();
        let new = load(std::slice::from_ref(&np), n).unwrap();
        let opts = Options::default();
        let report = diff(&old, &new, &opts);
        let (vo, vn) = (validator(&raw(&op)), validator(&raw(&np)));
        for t in report.types.iter().filter(|t| t.root) {
            for cx in [&t.reader, &t.writer]
                .into_iter()
                .filter_map(|v| v.counterexample.as_ref())
            {
                let (Some(vo), Some(vn)) = (&vo, &vn) else {
                    continue;
                };
                let (acc, rej) = if cx.accepted_by == "old" {
                    (vo, vn)
                } else {
                    (vn, vo)
                };
                if acc.is_valid(&cx.instance) && !rej.is_valid(&cx.instance) {
                    confirmed += 1;
                } else {
                    failures.push(format!(
                        "{line}: counterexample not confirmed: {}",
                        cx.instance
                    ));
                }
            }
        }
        let check = verify(&old, &new, &report, &opts, 1000);
        verdicts += check.checked.len();
        for c in &check.contradictions {
            failures.push(format!(
                "{line}: {} {} contradicted by {}",
                c.key, c.role, c.counterexample.instance
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(confirmed >= 3, "only {confirmed} counterexamples");
    assert!(verdicts >= 10, "only {verdicts} verdicts re-checked");
}
