//! Every counterexample `ctxgen diff` prints for the fixtures (`tests/diff/<class>/{old,new}` in
//! both directions, and the protocol version fixtures `tests/diff/protocol-version/1.0.0` against
//! each later one), confirmed by the generated Rust validators of both versions: one crate is
//! generated from all fixture versions at once, and its `validate(type, value)` must accept each
//! counterexample under the accepting version's type and reject it under the other's with the
//! very `(pointer, keyword)` violations the diff printed.

#[path = "support/krate.rs"]
mod krate;

use std::path::{Path, PathBuf};

use ctxgen::diff::{diff, load, Options};
use ctxgen::{Config, Lang};
use serde_json::{json, Value};

/// Copies a fixture version's schemas below `to` (without their root `$id`, which every
/// version shares; relative references resolve by file instead).
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            if let Some(o) = v.as_object_mut() {
                o.shift_remove("$id");
            }
            std::fs::write(to.join(e.file_name()), v.to_string()).unwrap();
        }
    }
}

/// The pairs compared: (label, old dir, new dir).
fn pairs(base: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let expect: Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("expect.json")).unwrap()).unwrap();
    let mut out = Vec::new();
    for name in expect.as_object().unwrap().keys() {
        let (o, n) = (base.join(name).join("old"), base.join(name).join("new"));
        out.push((format!("{name}/forward"), o.clone(), n.clone()));
        out.push((format!("{name}/backward"), n, o));
    }
    let pv = base.join("protocol-version");
    let mut versions: Vec<String> = std::fs::read_dir(&pv)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|v| v != "1.0.0")
        .collect();
    versions.sort();
    for v in versions {
        out.push((format!("protocol/{v}"), pv.join("1.0.0"), pv.join(&v)));
    }
    out
}

#[test]
fn every_counterexample_is_confirmed_by_the_generated_rust_validators() {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/diff");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-generated-schemas");
    let _ = std::fs::remove_dir_all(&tmp);
    // (dir of the old version, dir of the new version, type key, counterexample).
    let mut found = Vec::new();
    for (i, (label, od, nd)) in pairs(&base).into_iter().enumerate() {
        let (o, n) = (format!("p{i}/old"), format!("p{i}/new"));
        copy(&od, &tmp.join(&o));
        copy(&nd, &tmp.join(&n));
        let old = load(std::slice::from_ref(&od), "old").unwrap();
        let new = load(std::slice::from_ref(&nd), "new").unwrap();
        let report = diff(&old, &new, &Options::default());
        for t in &report.types {
            for cx in [&t.reader, &t.writer]
                .into_iter()
                .filter_map(|v| v.counterexample.as_ref())
            {
                found.push((
                    label.clone(),
                    o.clone(),
                    n.clone(),
                    t.key.clone(),
                    cx.clone(),
                ));
            }
        }
    }
    assert!(found.len() >= 20, "only {} counterexamples", found.len());
    let mut config = Config::new();
    config.schemas_dir(&tmp);
    let ir = config.ir().expect("the fixture versions load together");
    let names = ctxgen::ir::names::type_names(Lang::Rust, &ir);
    // The generated name of a type key (`file#pointer`, a variant as `file#pointer (raw)`) below `dir`.
    let name_of = |dir: &str, key: &str| -> Option<String> {
        let (file, rest) = key.split_once('#')?;
        let (pointer, raw) = match rest.split_once(" (") {
            Some((p, r)) => (p, Some(r.trim_end_matches(')'))),
            None => (rest, None),
        };
        let rel = format!("{dir}/{file}");
        ir.types.iter().enumerate().find_map(|(i, t)| {
            (ir.modules[t.module].rel == rel
                && t.origin.pointer == pointer
                && raw.is_none_or(|r| t.variant_of.is_some() && t.raw_name == r))
            .then(|| names[i].clone())
        })
    };
    let mut cases = Vec::new();
    for (label, o, n, key, cx) in &found {
        // A key names the new version's file; the old file has the same name in every fixture.
        let (Some(on), Some(nn)) = (name_of(o, key), name_of(n, key)) else {
            panic!("{label}: no generated type for {key}");
        };
        let (accept, reject) = if cx.accepted_by == "old" {
            (on, nn)
        } else {
            (nn, on)
        };
        cases.push(json!({
            "label": format!("{label} {key}"), "accept": accept, "reject": reject,
            "instance": cx.instance,
            "reads": cx.consumer_reads.as_ref().map(|r| json!([r.property, r.value])),
            "violations": cx.violations.iter().map(|v| json!([v.pointer, v.keyword])).collect::<Vec<_>>(),
        }));
    }
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-generated-cases.json");
    std::fs::write(&file, serde_json::to_string(&cases).unwrap()).unwrap();
    let krate = krate::generate(
        tmp.to_str().unwrap(),
        "fixture-diff",
        "diff-generated",
        "features",
    )
    .env("CTXGEN_DIFF_CASES", file);
    krate.behaviour(BEHAVIOUR);
    krate.cargo(&["test", "--quiet"]);
}

const BEHAVIOUR: &str = r#"
use serde_json::Value;

#[test]
fn counterexamples_split_the_two_versions() {
    let path = std::env::var("CTXGEN_DIFF_CASES").expect("CTXGEN_DIFF_CASES");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = Vec::new();
    for c in &cases {
        let (label, instance) = (c["label"].as_str().unwrap(), &c["instance"]);
        let accept = fixture_diff::validate(c["accept"].as_str().unwrap(), instance).expect("known type");
        if let Err(e) = accept {
            failures.push(format!("{label}: the accepting version rejects {instance}: {e}"));
        }
        // The consumer reads a pinned version field as its own version (docs/evolution.md).
        let mut read = instance.clone();
        if let (Some(r), Some(o)) = (c["reads"].as_array(), read.as_object_mut()) {
            o.insert(r[0].as_str().unwrap().to_string(), r[1].clone());
        }
        match fixture_diff::validate(c["reject"].as_str().unwrap(), &read).expect("known type") {
            Ok(()) => failures.push(format!("{label}: the rejecting version accepts {instance}")),
            Err(e) => {
                let mut got: Vec<(String, String)> =
                    e.0.iter().map(|v| (v.pointer.clone(), v.keyword.to_string())).collect();
                let mut want: Vec<(String, String)> = c["violations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| (v[0].as_str().unwrap().to_string(), v[1].as_str().unwrap().to_string()))
                    .collect();
                got.sort();
                want.sort();
                if got != want {
                    failures.push(format!("{label}: violations {got:?}, the diff printed {want:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{} counterexamples confirmed", cases.len());
}
"#;
