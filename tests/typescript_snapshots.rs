//! TypeScript backend: snapshot tests over small feature schemas (`tests/fixtures/typescript/`,
//! one folder per construct), and the driver `tests/typescript/run.sh` uses to write the
//! fixture packages and the schema-location → type-name table for the vector harness.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ctxgen::backend::{typescript, Files, Options};
use ctxgen::ir::{self, names};
use ctxgen::schema::SchemaSet;

/// The fixtures test format checks, which 2020-12 only asserts when asked.
const ASSERT_FORMATS: ctxgen::ir::BuildOptions = ctxgen::ir::BuildOptions {
    assert_formats: true,
};

const FIXTURES: &str = "tests/fixtures/typescript";

fn build(dir: &Path) -> ir::Ir {
    let mut set = SchemaSet::load_dir(dir, &BTreeMap::new()).expect("load schemas");
    ir::build_with(&mut set, ASSERT_FORMATS).expect("build IR")
}

fn generate(dir: &Path) -> Files {
    typescript::render(&build(dir), &Options::default()).expect("render TypeScript")
}

fn fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(FIXTURES)
        .expect("fixtures")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every generated file of every fixture except the runtime (snapshotted once).
#[test]
fn fixture_snapshots() {
    // The hostile-names fixture is checked by building and round-tripping
    // (`tests/hostile_names.rs`, `tests/typescript/hostile.test.ts`), not by snapshot.
    for dir in fixtures().into_iter().filter(|d| !d.ends_with("hostile")) {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        for (path, text) in generate(&dir) {
            if !path.starts_with("src/") || path == "src/runtime.ts" {
                continue;
            }
            let name = format!(
                "{case}__{}",
                path.trim_start_matches("src/").replace('/', "_")
            );
            insta::assert_snapshot!(name, text);
        }
    }
}

/// The runtime, the manifest and the compiler settings do not depend on the schemas.
#[test]
fn fixed_files_snapshot() {
    let files = generate(&Path::new(FIXTURES).join("objects"));
    for path in [
        "src/runtime.ts",
        "package.json",
        "tsconfig.json",
        "README.md",
    ] {
        insta::assert_snapshot!(path.replace('/', "_"), files[path]);
    }
}

/// Generation is deterministic and every fixture yields one module per schema file.
#[test]
fn deterministic_and_complete() {
    for dir in fixtures() {
        let a = generate(&dir);
        assert_eq!(a, generate(&dir), "{}", dir.display());
        let schemas = fs::read_dir(&dir).unwrap().count();
        let modules = a.keys().filter(|k| k.starts_with("src/")).count();
        assert!(
            modules >= schemas + 3,
            "{}: {modules} modules for {schemas} schemas",
            dir.display()
        );
        assert!(a
            .values()
            .all(|t| t.ends_with('\n') && !t.ends_with("\n\n")));
    }
}

/// An object schema with a thousand properties, all required (as Cargo's lint tables have
/// hundreds): too large a validator function for TypeScript's control flow analysis (TS2563)
/// unless the checks are split. Generated here rather than kept as a fixture file.
fn large_schema(dir: &Path) {
    let names: Vec<String> = (0..1000).map(|i| format!("property_{i:04}")).collect();
    let props: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|n| {
            (
                n.clone(),
                serde_json::json!({ "type": "integer", "minimum": 0 }),
            )
        })
        .collect();
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.test/large.json",
        "type": "object",
        "properties": props,
        "required": names,
        "additionalProperties": false,
    });
    fs::write(
        dir.join("large.json"),
        serde_json::to_string_pretty(&schema).unwrap(),
    )
    .unwrap();
}

/// A node with more object checks than one function should hold is split into parts, in order.
#[test]
fn large_objects_are_split() {
    let dir = tempfile::tempdir().unwrap();
    large_schema(dir.path());
    let files = generate(dir.path());
    let v = &files["src/validators.ts"];
    let functions: Vec<&str> = v.split("\nexport function ").skip(1).collect();
    let names: Vec<&str> = functions
        .iter()
        .map(|f| f.split('(').next().unwrap())
        .collect();
    assert_eq!(&names[..3], ["n0", "n0_1", "n0_2"], "{names:?}");
    for f in &functions {
        let checks = f.matches("\n    if (").count();
        assert!(
            checks <= 200,
            "{} has {checks} checks",
            f.split('(').next().unwrap()
        );
    }
    // Every property check and every required name is still there, in schema order.
    let reads: Vec<&str> = v
        .match_indices("v[\"property_")
        .map(|(i, _)| &v[i + 3..i + 16])
        .collect();
    assert_eq!(reads.len(), 2000);
    assert!(
        reads[..1000].windows(2).all(|w| w[0] < w[1])
            && reads[1000..].windows(2).all(|w| w[0] < w[1])
    );
}

/// Writes what `tests/typescript/run.sh` needs under `$CTXGEN_TS_OUT`: `names.json`
/// (schema location → TypeScript type name and module, for the vector harness) and one package per
/// fixture under `fixtures/<case>/` (checked with prettier and tsc).
#[test]
#[ignore = "driver for tests/typescript/run.sh"]
fn write_test_inputs() {
    let out = PathBuf::from(std::env::var("CTXGEN_TS_OUT").expect("set CTXGEN_TS_OUT"));
    let ir = build(Path::new("schemas"));
    let ts = names::type_names(names::Lang::TypeScript, &ir);
    let map: serde_json::Map<String, serde_json::Value> = ir
        .types
        .iter()
        .zip(ts)
        .map(|(t, n)| {
            let file = Path::new(&t.origin.file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let module =
                names::module_name(names::Lang::TypeScript, &ir.modules[t.module].raw_name);
            (
                format!("{file}#{}", t.origin.pointer),
                serde_json::json!({ "name": n, "module": module }),
            )
        })
        .collect();
    fs::create_dir_all(&out).unwrap();
    fs::write(
        out.join("names.json"),
        serde_json::to_string_pretty(&map).unwrap(),
    )
    .unwrap();
    let large = tempfile::tempdir().unwrap();
    large_schema(large.path());
    let mut dirs: Vec<(std::ffi::OsString, PathBuf)> = fixtures()
        .into_iter()
        .map(|d| (d.file_name().unwrap().to_owned(), d))
        .collect();
    dirs.push(("large".into(), large.path().to_path_buf()));
    // Shared by the three languages' harnesses (`tests/fidelity.rs`, `test_fidelity.py`).
    dirs.push(("fidelity".into(), PathBuf::from("tests/fixtures/fidelity")));
    for (case, dir) in dirs {
        for (path, text) in generate(&dir) {
            let p = out.join("fixtures").join(&case).join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
    }
}
