//! Hostile command-line input: package names, an output directory inside the schema directory,
//! schema reads through symbolic links, and output that must not depend on how paths are typed.

#![cfg(unix)]

mod cli_support;

use std::path::Path;

use cli_support::{run, run_code, tree, tree_diff, write_files};

const A: &str = r#"{"title": "Alpha", "type": "object", "properties": {"name": {"type": "string"}, "b": {"$ref": "sub/b.json"}}}"#;
const B: &str =
    r#"{"title": "Beta", "type": "object", "properties": {"n": {"type": "number", "minimum": 0}}}"#;

fn schemas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[("schemas/a.json", A), ("schemas/sub/b.json", B)],
    );
    dir
}

#[test]
fn package_names_that_would_break_a_manifest_are_refused() {
    let dir = schemas();
    for (name, why) in [
        ("a\"b", "`\"` is not allowed"),
        ("x\"\nbuild = \"evil.rs", "not allowed"),
        ("evil\n[lib]", "U+000A"),
        ("a b", "U+0020"),
        ("../up", "must start with"),
        ("", "must start with"),
    ] {
        let err = run_code(
            dir.path(),
            &[
                "generate",
                "--schemas",
                "schemas",
                "--out",
                "out",
                "--package-name",
                name,
            ],
            2,
        );
        assert!(
            err.contains("invalid Rust crate name") && err.contains(why),
            "{name:?}: {err}"
        );
        assert!(!dir.path().join("out").exists(), "{name:?}: wrote output");
    }
}

#[test]
fn package_names_follow_each_requested_language() {
    let dir = schemas();
    // Capitals: fine for a crate and a Python distribution, not for npm.
    let args = |name: &'static str, lang: &'static str| {
        [
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--lang",
            lang,
            "--package-name",
            name,
        ]
    };
    run_code(dir.path(), &args("MyProtocols", "rust,python"), 0);
    let err = run_code(dir.path(), &args("MyProtocols", "typescript"), 2);
    assert!(err.contains("npm"), "{err}");
    // A scope: npm only.
    run_code(dir.path(), &args("@acme/protocols", "typescript"), 0);
    let pkg = std::fs::read_to_string(dir.path().join("out/typescript/package.json")).unwrap();
    let pkg: serde_json::Value = serde_json::from_str(&pkg).unwrap();
    assert_eq!(pkg["name"], "@acme/protocols");
    let err = run_code(dir.path(), &args("@acme/protocols", "rust,typescript"), 2);
    assert!(err.contains("crate"), "{err}");
}

#[test]
fn manifests_parse_and_carry_the_package_name() {
    let dir = schemas();
    run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--package-name",
            "my-protocols",
        ],
        0,
    );
    let out = dir.path().join("out");
    let cargo: toml::Table =
        toml::from_str(&std::fs::read_to_string(out.join("rust/Cargo.toml")).unwrap()).unwrap();
    assert_eq!(cargo["package"]["name"].as_str(), Some("my-protocols"));
    assert_eq!(cargo["package"].as_table().unwrap().get("build"), None);
    let py: toml::Table =
        toml::from_str(&std::fs::read_to_string(out.join("python/pyproject.toml")).unwrap())
            .unwrap();
    assert_eq!(py["project"]["name"].as_str(), Some("my-protocols"));
    assert_eq!(
        py["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"][0].as_str(),
        Some("src/my_protocols")
    );
    let pkg: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("typescript/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(pkg["name"], "my-protocols");
}

#[test]
fn an_output_dir_inside_the_schema_dir_is_not_read_as_schemas() {
    let dir = schemas();
    let args = ["generate", "--schemas", "schemas", "--out", "schemas/gen"];
    run_code(dir.path(), &args, 0);
    let first = tree(&dir.path().join("schemas/gen"));
    // The second run would read gen/typescript/package.json as a schema.
    run_code(dir.path(), &args, 0);
    let second = tree(&dir.path().join("schemas/gen"));
    assert!(
        tree_diff(&first, &second).is_empty(),
        "{:?}",
        tree_diff(&first, &second)
    );
    let mut check = args.to_vec();
    check.push("--check");
    run_code(dir.path(), &check, 0);
    // Another ctxgen output below the schemas is skipped too (it has a manifest).
    run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "schemas/other",
            "--lang",
            "typescript",
        ],
        0,
    );
    run_code(dir.path(), &args, 0);
    assert!(tree_diff(&first, &tree(&dir.path().join("schemas/gen"))).is_empty());
}

#[test]
fn a_ref_through_a_symlink_out_of_the_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("secret.json", r#"{"title": "Secret", "const": "hunter2"}"#),
            (
                "schemas/a.json",
                r#"{"title": "A", "$ref": "in/link.json"}"#,
            ),
        ],
    );
    std::fs::create_dir(dir.path().join("schemas/in")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("secret.json"),
        dir.path().join("schemas/in/link.json"),
    )
    .unwrap();
    let err = run_code(
        dir.path(),
        &["generate", "--schemas", "schemas", "--out", "out"],
        2,
    );
    assert!(err.contains("outside the schema root"), "{err}");
    assert!(!dir.path().join("out").exists());
    // A link that stays inside the root is fine.
    write_files(
        dir.path(),
        &[("schemas/real/b.json", r#"{"title": "B", "type": "string"}"#)],
    );
    std::fs::remove_file(dir.path().join("schemas/in/link.json")).unwrap();
    std::os::unix::fs::symlink("../real/b.json", dir.path().join("schemas/in/link.json")).unwrap();
    run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--lang",
            "rust",
        ],
        0,
    );
}

#[test]
fn directory_discovery_does_not_follow_symlinks() {
    let dir = schemas();
    write_files(
        dir.path(),
        &[(
            "elsewhere/leak.json",
            r#"{"title": "Leaked", "type": "string"}"#,
        )],
    );
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join("schemas/ext"))
        .unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("elsewhere/leak.json"),
        dir.path().join("schemas/leak.json"),
    )
    .unwrap();
    run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--lang",
            "rust",
        ],
        0,
    );
    let lib = std::fs::read_to_string(dir.path().join("out/rust/src/lib.rs")).unwrap();
    assert!(!lib.contains("Leaked") && !lib.contains("leak"), "{lib}");
}

/// Generates with `args` (in `cwd`) into `out` and returns the tree.
fn output_of(cwd: &Path, args: &[&str]) -> std::collections::BTreeMap<String, cli_support::Entry> {
    let out = cwd.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let mut all = vec!["generate", "--out", "out"];
    all.extend_from_slice(args);
    run_code(cwd, &all, 0);
    tree(&out)
}

#[test]
fn output_does_not_depend_on_how_paths_are_typed() {
    let dir = schemas();
    let d = dir.path();
    let abs = d.join("schemas").display().to_string();
    std::os::unix::fs::symlink(d.join("schemas"), d.join("link")).unwrap();
    let base = output_of(d, &["--schemas", "schemas"]);
    let text: String = base
        .values()
        .filter_map(|e| match e {
            cli_support::Entry::File(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        })
        .collect();
    assert!(
        !text.contains(&abs) && !text.contains("schemas/"),
        "a path leaked"
    );
    for spelled in [abs.as_str(), "./schemas/", "schemas/sub/../.", "link"] {
        let other = output_of(d, &["--schemas", spelled]);
        assert!(
            tree_diff(&base, &other).is_empty(),
            "{spelled}: {:?}",
            tree_diff(&base, &other)
        );
    }
    // File lists: the order and the spelling of the files do not matter.
    let sub = d.join("schemas/sub/b.json").display().to_string();
    let one = output_of(d, &["schemas/a.json", "schemas/sub/b.json"]);
    for files in [
        vec![sub.as_str(), "schemas/a.json"],
        vec!["./link/sub/../sub/b.json", "link/a.json", "schemas/a.json"],
    ] {
        let other = output_of(d, &files);
        assert!(
            tree_diff(&one, &other).is_empty(),
            "{files:?}: {:?}",
            tree_diff(&one, &other)
        );
    }
}

#[test]
fn messages_keep_the_path_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "my-schemas/a.json",
            r##"{"properties": {"x": {"$ref": "#/$defs/missing"}}}"##,
        )],
    );
    let err = run_code(
        dir.path(),
        &["generate", "--schemas", "./my-schemas", "--out", "out"],
        2,
    );
    assert!(err.contains("./my-schemas/a.json#/properties/x"), "{err}");
    let o = run(
        dir.path(),
        &["generate", "--out", "out", "my-schemas/a.json"],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("my-schemas/a.json#/properties/x"));
}
