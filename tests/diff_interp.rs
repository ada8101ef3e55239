//! The interpreter behind `ctxgen diff` gives the verdicts and the (pointer, keyword) pairs the
//! shared vectors (`tests/vectors/`) require of every generated validator.

use std::path::PathBuf;

use ctxgen::diff::interp::{Interp, Unknown};
use ctxgen::Config;
use serde_json::Value;

#[test]
fn interpreter_agrees_with_the_shared_vectors() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ir = Config::new()
        .schemas_dir(root.join("schemas"))
        .assert_formats(true)
        .ir()
        .unwrap();
    let interp = Interp::new(&ir.program, Unknown::Schema);
    let (mut files, mut cases, mut unmatched) = (0, 0, Vec::new());
    let mut failures = Vec::new();
    for dir in std::fs::read_dir(root.join("tests/vectors"))
        .unwrap()
        .flatten()
    {
        if !dir.path().is_dir() || dir.file_name() == "helpers" {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(f.path()).unwrap()).unwrap();
            let (schema, pointer) = (
                v["schema"].as_str().unwrap(),
                v["pointer"].as_str().unwrap(),
            );
            let Some(t) = ir.types.iter().find(|t| {
                ir.modules[t.module].rel == schema
                    && t.origin.pointer == pointer
                    && t.variant_of.is_none()
            }) else {
                unmatched.push(f.path().display().to_string());
                continue;
            };
            files += 1;
            for c in v["cases"].as_array().unwrap() {
                cases += 1;
                let desc = c["description"].as_str().unwrap();
                let got = interp.errors(t.node, &c["instance"]);
                let valid = c["valid"].as_bool().unwrap();
                assert_eq!(
                    interp.valid(t.node, &c["instance"]),
                    got.is_empty(),
                    "{desc}"
                );
                if valid != got.is_empty() {
                    failures.push(format!(
                        "{}: {desc}: valid {valid}, got {got:?}",
                        f.path().display()
                    ));
                    continue;
                }
                if !valid {
                    let mut want: Vec<(String, String)> = c["errors"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| {
                            (
                                e["pointer"].as_str().unwrap().to_string(),
                                e["keyword"].as_str().unwrap().to_string(),
                            )
                        })
                        .collect();
                    let mut got: Vec<(String, String)> =
                        got.into_iter().map(|(p, k)| (p, k.to_string())).collect();
                    want.sort();
                    got.sort();
                    if want != got {
                        failures.push(format!(
                            "{}: {desc}: want {want:?}, got {got:?}",
                            f.path().display()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        unmatched.is_empty(),
        "vector files without a type: {unmatched:?}"
    );
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        files >= 20 && cases >= 300,
        "only {files} files, {cases} cases"
    );
    eprintln!("{files} vector files, {cases} cases agree");
}
