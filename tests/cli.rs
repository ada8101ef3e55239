//! The command line: help, exit codes, `--check`, and clear errors on bad input.

use assert_cmd::Command;

fn ctxgen() -> Command {
    Command::cargo_bin("ctxgen").expect("binary")
}

#[test]
fn help_lists_the_generate_command() {
    let out = ctxgen()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("generate"));
}

#[test]
fn committed_generated_output_is_up_to_date() {
    let out = ctxgen()
        .args(["generate", "--check"])
        .assert()
        .get_output()
        .clone();
    assert!(
        out.status.success(),
        "generated/ is stale:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn check_reports_missing_output_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    ctxgen()
        .args(["generate", "--check", "--lang", "rust", "--out"])
        .arg(&out)
        .assert()
        .code(1);
    assert!(!out.exists(), "--check wrote files");
    ctxgen()
        .args(["generate", "--lang", "rust", "--out"])
        .arg(&out)
        .assert()
        .success();
    ctxgen()
        .args(["generate", "--check", "--lang", "rust", "--out"])
        .arg(&out)
        .assert()
        .success();
    let lib = out.join("rust/src/lib.rs");
    let before = std::fs::metadata(&lib).unwrap().modified().unwrap();
    ctxgen()
        .args(["generate", "--lang", "rust", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        before,
        std::fs::metadata(&lib).unwrap().modified().unwrap(),
        "unchanged file rewritten"
    );
}

fn schema_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn error_of(files: &[(&str, &str)]) -> String {
    let dir = schema_dir(files);
    let out = dir.path().join("out");
    let o = ctxgen()
        .args(["generate", "--schemas"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(!out.exists(), "a failed run wrote output");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let err = error_of(&[(
        "bad.json",
        "{\n  \"type\": \"object\",\n  \"properties\": {,}\n}",
    )]);
    assert!(err.contains("bad.json:3:18"), "{err}");
}

#[test]
fn bad_ref_names_file_and_pointer() {
    let err = error_of(&[(
        "a.json",
        r##"{"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}"##,
    )]);
    assert!(err.contains("a.json#/properties/x"), "{err}");
    assert!(err.contains("#/$defs/missing"), "{err}");
}

#[test]
fn remote_ref_is_refused_offline() {
    let err = error_of(&[(
        "a.json",
        r#"{"$ref": "https://example.com/schemas/nowhere.json"}"#,
    )]);
    assert!(err.contains("remote") && err.contains("a.json#"), "{err}");
}

#[test]
fn remote_ref_resolves_to_a_local_file_with_that_id() {
    // Only main.json is named; the document its remote $ref names is a file with another name
    // below the schema root that declares the URL as its $id.
    let dir = schema_dir(&[
        (
            "main.json",
            r##"{"title": "Main", "type": "object", "properties": {"license": {"$ref": "https://example.com/spdx/licenses.json#/definitions/license"}}}"##,
        ),
        (
            "vendored-licenses.json",
            r##"{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/spdx/licenses.json", "definitions": {"license": {"enum": ["MIT", "Apache-2.0"]}}}"##,
        ),
        (
            "decoy.json",
            r##"{"description": "mentions https://example.com/spdx/licenses.json but has no $id"}"##,
        ),
    ]);
    let out = dir.path().join("out");
    ctxgen()
        .args(["generate", "--lang", "rust", "--single-file", "--out"])
        .arg(&out)
        .arg(dir.path().join("main.json"))
        .assert()
        .success();
    let rust = std::fs::read_to_string(out.join("rust/bindings.rs")).unwrap();
    assert!(
        rust.contains("pub enum License") && rust.contains("\"Apache-2.0\""),
        "{rust}"
    );
}

#[test]
fn ref_climbing_out_of_the_root_is_refused() {
    let err = error_of(&[("a.json", r#"{"$ref": "../../etc/passwd"}"#)]);
    assert!(err.contains("climbs out"), "{err}");
}

#[test]
fn cross_file_and_recursive_refs_generate() {
    let dir = schema_dir(&[
        (
            "tree.json",
            r##"{"title": "Tree", "type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "leaf": {"$ref": "leaf.json"}}}"##,
        ),
        (
            "leaf.json",
            r##"{"title": "Leaf", "type": "object", "properties": {"next": {"$ref": "#"}}}"##,
        ),
    ]);
    let out = dir.path().join("out");
    ctxgen()
        .args(["generate", "--lang", "rust", "--schemas"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let leaf = std::fs::read_to_string(out.join("rust/src/leaf.rs")).unwrap();
    assert!(leaf.contains("Option<Box<Leaf>>"), "{leaf}");
}
