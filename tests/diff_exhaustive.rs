//! The instance side of `ctxgen diff`'s re-check (docs/evolution.md, "How verdicts are reached"):
//! a finite instance space is listed whole and a verdict on it is proved ("exhaustive (N
//! instances)"), and the generator builds valid instances of `if`/`then` tables directly instead
//! of hoping a random choice of each rule agrees with the discriminator.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ctxgen::diff::finite::enumerate;
use ctxgen::diff::instances::Gen;
use ctxgen::diff::interp::{Interp, Unknown};
use ctxgen::diff::verify::verify;
use ctxgen::diff::{diff, load, Loaded, Options, Outcome};
use serde_json::{json, Value};

const BASE: &str = "tests/diff-instances";

fn loaded(path: &Path) -> Loaded {
    load(&[path.to_path_buf()], path.display().to_string()).unwrap()
}

fn root(l: &Loaded) -> usize {
    l.ir.types
        .iter()
        .find(|t| t.origin.pointer.is_empty())
        .unwrap()
        .node
}

/// `kind` 3 × `flag` 3 (absent, false, true) × `level` 4 × `code` 21 (`^(X|Y)[0-9]$`) × `tags` 6
/// ([], [p], [q], [p, q], [q, p], absent) × `mode` 3 (absent, null, "auto").
const OLD_SPACE: usize = 3 * 3 * 4 * 21 * 6 * 3;

#[test]
fn a_closed_object_of_finite_properties_is_listed_whole() {
    let old = loaded(&Path::new(BASE).join("finite/old/msg.json"));
    let interp = Interp::new(&old.ir.program, Unknown::Schema);
    let all = enumerate(&interp, root(&old), 100_000).expect("finite");
    assert_eq!(all.len(), OLD_SPACE);
    assert!(all.iter().all(|v| interp.valid(root(&old), v)));
    let distinct: HashSet<String> = all.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), OLD_SPACE);
    assert!(all.contains(&json!({"kind": "c", "code": "Y7", "tags": ["q", "p"], "mode": null})));
    // Over the cap: not listed (and then sampled).
    assert!(enumerate(&interp, root(&old), 1000).is_none());
}

#[test]
fn open_objects_and_unbounded_values_are_not_finite() {
    let dir = std::env::temp_dir().join(format!("ctxgen-finite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        json!({"type": "object", "properties": {"a": {"type": "boolean"}}}),
        json!({"type": "string", "pattern": "^(X|Y)[0-9]+$"}),
        json!({"type": "string", "pattern": "(X|Y)[0-9]$"}),
        json!({"type": "integer", "minimum": 0}),
        json!({"type": "array", "items": {"type": "boolean"}}),
    ];
    for (i, schema) in cases.iter().enumerate() {
        let p: PathBuf = dir.join(format!("s{i}.json"));
        std::fs::write(&p, schema.to_string()).unwrap();
        let l = loaded(&p);
        let interp = Interp::new(&l.ir.program, Unknown::Schema);
        assert!(
            enumerate(&interp, root(&l), 100_000).is_none(),
            "{schema} is not finite"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_verdict_on_a_finite_space_is_checked_exhaustively() {
    let base = Path::new(BASE).join("finite");
    let old = loaded(&base.join("old/msg.json"));
    let new = loaded(&base.join("new/msg.json"));
    let opts = Options::default();
    let report = diff(&old, &new, &opts);
    let msg = report
        .types
        .iter()
        .find(|t| t.root)
        .expect("the message changed");
    assert_eq!(msg.reader.outcome, Outcome::Compatible);
    assert_eq!(msg.writer.outcome, Outcome::Incompatible);
    let check = verify(&old, &new, &report, &opts, 1000);
    assert!(check.contradictions.is_empty());
    let reader = check
        .checked
        .iter()
        .find(|c| c.root && c.role == "reader")
        .expect("the reader verdict is re-checked");
    assert!(reader.exhaustive);
    assert_eq!(reader.instances, OLD_SPACE);
}

#[test]
fn conditional_tables_are_generated_directly() {
    let l = loaded(&Path::new(BASE).join("conditional.json"));
    let interp = Interp::new(&l.ir.program, Unknown::Schema);
    let node = root(&l);
    let mut gen = Gen::new(&interp, 11);
    let valid = gen.valid(node, 1000, 8000);
    assert_eq!(
        valid.len(),
        1000,
        "1,000 distinct valid instances in 8,000 tries"
    );
    let kinds: HashSet<&str> = valid
        .iter()
        .filter_map(|v| v["metricType"].as_str())
        .collect();
    assert_eq!(kinds.len(), 5, "every rule's discriminator: {kinds:?}");
}
