//! TypeScript backend: snapshot tests over small feature schemas (`tests/fixtures/typescript/`,
//! one folder per construct), and the driver `tests/typescript/run.sh` uses to write the
//! fixture packages and the schema-location → type-name table for the vector harness.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ctxgen::backend::{typescript, Files, Options};
use ctxgen::ir::{self, names};
use ctxgen::schema::SchemaSet;

const FIXTURES: &str = "tests/fixtures/typescript";

fn build(dir: &Path) -> ir::Ir {
    let mut set = SchemaSet::load_dir(dir, &BTreeMap::new()).expect("load schemas");
    ir::build(&mut set).expect("build IR")
}

fn generate(dir: &Path) -> Files {
    typescript::render(&build(dir), &Options::default()).expect("render TypeScript")
}

fn fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        fs::read_dir(FIXTURES).expect("fixtures").map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// Every generated file of every fixture except the runtime (snapshotted once).
#[test]
fn fixture_snapshots() {
    for dir in fixtures() {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        for (path, text) in generate(&dir) {
            if !path.starts_with("src/") || path == "src/runtime.ts" {
                continue;
            }
            let name = format!("{case}__{}", path.trim_start_matches("src/").replace('/', "_"));
            insta::assert_snapshot!(name, text);
        }
    }
}

/// The runtime, the manifest and the compiler settings do not depend on the schemas.
#[test]
fn fixed_files_snapshot() {
    let files = generate(&Path::new(FIXTURES).join("objects"));
    for path in ["src/runtime.ts", "package.json", "tsconfig.json", "README.md"] {
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
        assert!(modules >= schemas + 3, "{}: {modules} modules for {schemas} schemas", dir.display());
        assert!(a.values().all(|t| t.ends_with('\n') && !t.ends_with("\n\n")));
    }
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
            let file = Path::new(&t.origin.file).file_name().unwrap().to_string_lossy().into_owned();
            let module = names::module_name(names::Lang::TypeScript, &ir.modules[t.module].raw_name);
            (format!("{file}#{}", t.origin.pointer), serde_json::json!({ "name": n, "module": module }))
        })
        .collect();
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("names.json"), serde_json::to_string_pretty(&map).unwrap()).unwrap();
    for dir in fixtures() {
        let case = dir.file_name().unwrap().to_owned();
        for (path, text) in generate(&dir) {
            let p = out.join("fixtures").join(&case).join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
    }
}

