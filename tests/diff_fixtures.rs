//! `ctxgen diff` on one fixture per change class (`tests/diff/<class>/{old,new}`), in both
//! directions: the verdict per role, the change class, and every counterexample confirmed by an
//! independent validator (the `jsonschema` crate) run on the raw schemas of both versions.

use std::path::{Path, PathBuf};

use ctxgen::diff::{diff, load, Loaded, Options, Outcome, Report};
use serde_json::Value;

fn outcome(s: &str) -> Outcome {
    match s {
        "compatible" => Outcome::Compatible,
        "incompatible" => Outcome::Incompatible,
        "unconfirmed" => Outcome::Unconfirmed,
        other => panic!("unknown outcome {other}"),
    }
}

fn raw(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("msg.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("fixture schema compiles")
}

/// Every counterexample: accepted by one version's schema, rejected by the other's.
fn confirm(report: &Report, old: &Value, new: &Value) -> usize {
    let (vo, vn) = (validator(old), validator(new));
    let mut n = 0;
    for t in &report.types {
        if !t.root {
            continue;
        }
        for v in [&t.reader, &t.writer] {
            if let Some(cx) = &v.counterexample {
                let (acc, rej) = if cx.accepted_by == "old" {
                    (&vo, &vn)
                } else {
                    (&vn, &vo)
                };
                assert!(
                    acc.is_valid(&cx.instance),
                    "{}: {} should accept {}",
                    t.key,
                    cx.accepted_by,
                    cx.instance
                );
                assert!(
                    !rej.is_valid(&cx.instance),
                    "{}: {} should reject {}",
                    t.key,
                    cx.rejected_by,
                    cx.instance
                );
                assert!(!cx.violations.is_empty());
                n += 1;
            }
        }
    }
    n
}

fn run(old: &Loaded, new: &Loaded) -> Report {
    diff(
        old,
        new,
        &Options {
            samples: 300,
            ..Options::default()
        },
    )
}

/// The message type's outcomes, and the change classes of every type.
fn root(report: &Report) -> (Outcome, Outcome, Vec<&'static str>) {
    let classes = report
        .types
        .iter()
        .flat_map(|t| t.changes.iter().map(|c| c.class))
        .collect();
    match report.types.iter().find(|t| t.root) {
        Some(t) => (t.reader.outcome, t.writer.outcome, classes),
        None => (Outcome::Compatible, Outcome::Compatible, classes),
    }
}

#[test]
fn every_change_class_in_both_directions() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/diff");
    let expect: Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("expect.json")).unwrap()).unwrap();
    let mut confirmed = 0;
    let mut failures = Vec::new();
    for (name, e) in expect.as_object().unwrap() {
        let (od, nd) = (base.join(name).join("old"), base.join(name).join("new"));
        let old = load(std::slice::from_ref(&od), "old").unwrap();
        let new = load(std::slice::from_ref(&nd), "new").unwrap();
        for (dir, a, b, ra, rb) in [
            ("forward", &old, &new, raw(&od), raw(&nd)),
            ("backward", &new, &old, raw(&nd), raw(&od)),
        ] {
            let report = run(a, b);
            confirmed += confirm(&report, &ra, &rb);
            let (r, w, classes) = root(&report);
            let want = (
                outcome(e[dir]["reader"].as_str().unwrap()),
                outcome(e[dir]["writer"].as_str().unwrap()),
            );
            if (r, w) != want {
                failures.push(format!(
                    "{name} {dir}: reader {r:?}, writer {w:?}, expected {want:?} ({classes:?})"
                ));
            }
            if dir == "forward" {
                match e["class"].as_str() {
                    Some(c) if !classes.contains(&c) => {
                        failures.push(format!("{name}: class {c} not in {classes:?}"))
                    }
                    None if !report.types.is_empty() => {
                        failures.push(format!("{name}: expected no change, got {classes:?}"))
                    }
                    _ => {}
                }
            }
            // A wire incompatibility needs a major bump; a compatible change a minor or less.
            let breaking = r != Outcome::Compatible || w != Outcome::Compatible;
            assert_eq!(
                report.version.wire == ctxgen::diff::version::Bump::Major,
                breaking,
                "{name} {dir}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(confirmed >= 20, "only {confirmed} counterexamples");
}

#[test]
fn identical_schemas_need_no_release() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let a = load(std::slice::from_ref(&dir), "a").unwrap();
    let b = load(std::slice::from_ref(&dir), "b").unwrap();
    let r = run(&a, &b);
    assert!(r.types.is_empty());
    assert!(r.api.is_empty());
    assert_eq!(r.version.required, ctxgen::diff::version::Bump::Patch);
    assert!(r.version.ok);
    assert!(r.unchanged_types > 50, "{}", r.unchanged_types);
}
