//! Python backend: insta snapshots of the package generated from small feature schemas, one
//! folder per construct under `tests/fixtures/python/<feature>/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctxgen::backend::{python, Files, Options};
use ctxgen::schema::SchemaSet;

/// The fixtures test format checks, which 2020-12 only asserts when asked.
const ASSERT_FORMATS: ctxgen::ir::BuildOptions = ctxgen::ir::BuildOptions {
    assert_formats: true,
};

fn generate(dir: &Path) -> Files {
    // Relative to the crate root, so that the origins in comments do not name this machine.
    let dir = dir.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(dir);
    let mut set = SchemaSet::load_dir(dir, &BTreeMap::new())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let ir = ctxgen::ir::build_with(&mut set, ASSERT_FORMATS)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let opts = Options {
        package: ctxgen::package::Package::named("context-protocols"),
        ..Options::default()
    };
    python::render(&ir, &opts).expect("render")
}

#[test]
fn feature_snapshots() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The hostile-names fixture is checked by building, importing and round-tripping
        // (`tests/hostile_names.rs`, `tests/python/test_hostile.py`), not by snapshot.
        .filter(|p| p.is_dir() && !p.ends_with("snapshots") && !p.ends_with("hostile"))
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no fixtures under {}", root.display());
    for dir in dirs {
        let feature = dir.file_name().unwrap().to_string_lossy().to_string();
        for (rel, text) in generate(&dir) {
            // The runtime and the manifest do not depend on the schemas: one snapshot is enough.
            let shared = rel.ends_with("_runtime.py") || rel == "pyproject.toml";
            if rel.ends_with("py.typed") || (shared && feature != "objects") {
                continue;
            }
            let name = format!("{feature}__{}", rel.replace('/', "__"));
            insta::with_settings!({ snapshot_path => "fixtures/python/snapshots", prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(name, text);
            });
        }
    }
}

/// `SCHEMAS` names the document a type comes from, also when that document is only
/// referenced (loaded for a `$ref`, not a module of its own).
#[test]
fn schema_locations_name_their_document() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.json");
    std::fs::write(
        &main,
        r##"{"type": "object", "properties": {"env": {"$ref": "#/$defs/env"}}, "$defs": {"env": {"$ref": "other.json#/$defs/env"}}}"##,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("other.json"),
        r##"{"$defs": {"env": {"type": "object", "properties": {"name": {"type": "string"}}}}}"##,
    )
    .unwrap();
    let mut set = SchemaSet::load_files(&[main], &BTreeMap::new()).unwrap();
    let ir = ctxgen::ir::build_with(&mut set, ASSERT_FORMATS).unwrap();
    let opts = Options {
        package: ctxgen::package::Package::named("context-protocols"),
        ..Options::default()
    };
    let files = python::render(&ir, &opts).expect("render");
    let init = &files["src/context_protocols/__init__.py"];
    assert!(init.contains("\"main.json#/$defs/env\": "), "{init}");
    assert!(init.contains("\"other.json#/$defs/env\": "), "{init}");
}
