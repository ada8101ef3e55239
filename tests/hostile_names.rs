//! The hostile-names fixture (`tests/fixtures/hostile/`): schema text that is reserved words of
//! the three languages, or holds comment terminators, quotes, line breaks, NUL, bidi controls
//! and code, in property names, `$defs` keys, titles, descriptions, enum values, patterns,
//! defaults and file names. The Rust crate must build clean (clippy `-D warnings`) and
//! round-trip values (`tests/fixtures/hostile-behaviour.rs`, run inside it); the TypeScript and
//! Python packages are checked by `tests/typescript/run.sh` and `tests/python/run.sh`.

#[path = "support/krate.rs"]
mod krate;

use ctxgen::Config;
use std::collections::BTreeSet;

const FIXTURE: &str = "tests/fixtures/hostile";

fn render() -> std::collections::BTreeMap<String, String> {
    let mut config = Config::new();
    config
        .schemas_dir(FIXTURE)
        .package_name("hostile")
        .assert_formats(true);
    let rendered = config.render().expect("the hostile fixture generates");
    let mut out = std::collections::BTreeMap::new();
    for (dir, files) in rendered.packages {
        let lang = dir.file_name().unwrap().to_string_lossy().into_owned();
        for (path, text) in files {
            out.insert(format!("{lang}/{path}"), text);
        }
    }
    out
}

/// Every schema file is a module of its own in every language: none is overwritten by another
/// (`a-b.json`, `a_b.json`, `aB.json`) or by the package's own files (`runtime.json`, …).
#[test]
fn every_schema_file_keeps_its_module() {
    let files = render();
    let schemas = std::fs::read_dir(FIXTURE)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("json".as_ref()))
        .count();
    let count = |prefix: &str, own: &[&str]| {
        files
            .keys()
            .filter_map(|k| k.strip_prefix(prefix))
            .filter(|k| !own.contains(k))
            .count()
    };
    assert_eq!(
        count(
            "rust/src/",
            &[
                "lib.rs",
                "runtime.rs",
                "formats.rs",
                "validators.rs",
                "helpers.rs",
                "lite.rs",
                "lite/value.rs",
                "lite/de.rs",
                "lite/runtime.rs",
                "lite/formats.rs",
                "lite/validators.rs",
            ]
        ),
        schemas
    );
    assert_eq!(
        count(
            "typescript/src/",
            &["index.ts", "runtime.ts", "validators.ts", "helpers.ts"]
        ),
        schemas
    );
    // One more: the two files of the `$ref` cycle share a module of their types.
    let own = [
        "__init__.py",
        "_runtime.py",
        "_validators.py",
        "helpers.py",
        "py.typed",
    ];
    assert_eq!(count("python/src/hostile/", &own), schemas + 1);
    let rust: BTreeSet<&String> = files
        .keys()
        .filter(|k| k.starts_with("rust/src/"))
        .collect();
    assert!(rust.iter().all(|k| k.is_ascii()), "{rust:?}");
}

/// Generated text never holds a raw line break inside a comment line, nor NUL or a bidi control.
#[test]
fn no_raw_control_characters() {
    for (path, text) in render() {
        assert!(
            !text.contains(['\0', '\r', '\u{2028}', '\u{2029}', '\u{85}', '\u{202e}']),
            "{path}"
        );
    }
}

#[test]
fn rust_output_builds_clean_and_round_trips() {
    let krate = krate::generate(FIXTURE, "hostile", "hostile", "features");
    krate.cargo(krate::CLIPPY);
    krate.behaviour(&std::fs::read_to_string("tests/fixtures/hostile-behaviour.rs").unwrap());
    std::fs::copy(
        "tests/fixtures/hostile-instance.json",
        krate.dir.join("tests/hostile-instance.json"),
    )
    .unwrap();
    // Doctests too: a description's code block must not become one.
    krate.cargo(&["test", "--quiet"]);
}

/// A helper annotation of the wrong shape, or naming absent or mistyped properties, is an error
/// that names the schema location (never a panic, never code that does not build).
#[test]
fn malformed_annotations_are_errors() {
    let props = serde_json::json!({
        "n": {"type": "integer"}, "s": {"type": "string"}, "f": {"type": "number"},
        "list": {"type": "array", "items": {"type": "string"}}
    });
    let cases = [
        serde_json::json!({"x-path-hierarchy": "x"}),
        serde_json::json!({"x-path-hierarchy": {"separator": 5}}),
        serde_json::json!({"x-path-hierarchy": {"maxDepth": -1}}),
        serde_json::json!({"x-path-hierarchy": {"segmentPattern": "("}}),
        serde_json::json!({"x-quality-score": {"issues": "list"}}),
        serde_json::json!({"x-quality-score": []}),
        serde_json::json!({"x-handoff": {"sourceFamily": "/n", "targetFamily": "/s", "session": "/s"}}),
        serde_json::json!({"x-handoff": {"sourceFamily": "/x/y", "targetFamily": "/s", "session": "/s"}}),
        serde_json::json!({"x-percent-full": {"used": "f", "available": "n"}}),
        serde_json::json!({"x-percent-full": {"used": "*/\n", "available": "n"}}),
        serde_json::json!({"x-task-match": {"canStart": "/list"}}),
        serde_json::json!({"x-fallback": 5}),
        serde_json::json!({"x-fallback": {"n": "not a number"}}),
    ];
    for (i, ann) in cases.iter().enumerate() {
        let mut schema = serde_json::json!({"type": "object", "properties": props, "required": ["n", "s", "f", "list"]});
        schema
            .as_object_mut()
            .unwrap()
            .extend(ann.as_object().unwrap().clone());
        check_error(&schema, ann.as_object().unwrap().keys().next().unwrap(), i);
    }
    let fields = [
        serde_json::json!({"type": "number", "x-bands": [{"min": "x", "label": "a"}]}),
        serde_json::json!({"type": "number", "x-bands": [{"min": 1, "label": "a"}, {"min": 0, "label": "a"}]}),
        serde_json::json!({"type": "string", "x-bands": [{"min": 1, "label": "a"}]}),
        serde_json::json!({"type": "string", "x-freshness": {"bands": "x", "otherwise": "c"}}),
        serde_json::json!({"type": "string", "x-freshness": {"bands": [{"below": "P1X", "label": "a"}], "otherwise": "c"}}),
        serde_json::json!({"type": "string", "x-semver-compatibility": 5}),
    ];
    for (i, prop) in fields.iter().enumerate() {
        let schema = serde_json::json!({"type": "object", "properties": {"p": prop}});
        let key = prop
            .as_object()
            .unwrap()
            .keys()
            .find(|k| k.starts_with("x-"))
            .unwrap();
        check_error(&schema, key, 100 + i);
    }
}

fn check_error(schema: &serde_json::Value, key: &str, case: usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), schema.to_string()).unwrap();
    let mut config = Config::new();
    config.schemas_dir(dir.path());
    let err = match config.render() {
        Ok(_) => panic!("case {case}: {schema} generated"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains(key) && err.contains("s.json#"),
        "case {case}: {err}"
    );
}
