//! The project file (`ctxgen init`, `ctxgen.toml` found upward, flags over it), what happens
//! without one, package metadata per ecosystem, `--check` diffs, standard input, unknown-keyword
//! warnings, shell completions and `--watch`.

mod cli_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{bin, run, run_code, tree, write_files};

const ORDER: &str = r#"{
  "title": "Order",
  "description": "An order.",
  "type": "object",
  "required": ["id"],
  "properties": {
    "id": { "type": "string", "description": "The id." },
    "status": { "enum": ["open", "paid"], "description": "Where it is." }
  },
  "$defs": {
    "Item": { "type": "object", "properties": { "sku": { "type": "string" } } }
  }
}"#;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn toml_of(p: &Path) -> toml::Table {
    toml::from_str(&read(p)).unwrap()
}

fn json_of(p: &Path) -> serde_json::Value {
    serde_json::from_str(&read(p)).unwrap()
}

/// A fresh project directory called `shop-sdk` inside a temporary directory.
fn project_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop-sdk");
    std::fs::create_dir(&dir).unwrap();
    (tmp, dir)
}

#[test]
fn init_then_generate_without_flags_names_three_packages_after_the_project() {
    let (_tmp, dir) = project_dir();
    let said = String::from_utf8_lossy(&run(&dir, &["init"]).stdout).into_owned();
    assert!(
        said.contains("wrote ctxgen.toml (package `shop-sdk`)"),
        "{said}"
    );
    assert!(dir.join("schemas").is_dir());
    // init never overwrites.
    let err = run_code(&dir, &["init"], 2);
    assert!(err.contains("already exists"), "{err}");
    std::fs::write(dir.join("schemas/order.json"), ORDER).unwrap();
    let out = run(&dir, &["generate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("wrote   generated/rust/Cargo.toml"), "{said}");
    assert!(said.contains("wrote 2"), "{said}");
    let g = dir.join("generated");
    assert_eq!(
        toml_of(&g.join("rust/Cargo.toml"))["package"]["name"].as_str(),
        Some("shop-sdk")
    );
    assert_eq!(
        json_of(&g.join("typescript/package.json"))["name"],
        "shop-sdk"
    );
    assert_eq!(
        toml_of(&g.join("python/pyproject.toml"))["project"]["name"].as_str(),
        Some("shop-sdk")
    );
    assert!(g.join("python/src/shop_sdk/order.py").is_file());
    // From a subdirectory the project file is found upward; paths stay relative to it.
    std::fs::create_dir(dir.join("sub")).unwrap();
    let out = run(&dir.join("sub"), &["generate", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("up to date"));
}

#[test]
fn without_a_project_file_or_schemas_generate_explains_and_writes_nothing() {
    let (_tmp, dir) = project_dir();
    std::fs::write(dir.join("order.json"), ORDER).unwrap();
    let before = tree(&dir);
    let err = run_code(&dir, &["generate"], 2);
    assert!(err.contains("no schemas to generate from"), "{err}");
    assert!(err.contains("ctxgen init"), "{err}");
    assert!(err.contains("--bundled"), "{err}");
    assert_eq!(before, tree(&dir), "wrote something");
    // A project file naming a missing directory is an error too.
    std::fs::write(dir.join("ctxgen.toml"), "schemas = \"shemas\"\n").unwrap();
    let err = run_code(&dir, &["generate"], 2);
    assert!(err.contains("shemas does not exist"), "{err}");
    assert!(!dir.join("generated").exists());
    // Only --bundled gives the bundled protocols.
    std::fs::remove_file(dir.join("ctxgen.toml")).unwrap();
    run_code(&dir, &["generate", "--bundled", "--lang", "rust"], 0);
    assert_eq!(
        toml_of(&dir.join("generated/rust/Cargo.toml"))["package"]["name"].as_str(),
        Some("context-protocols")
    );
}

#[test]
fn the_project_file_sets_everything_and_flags_override_it() {
    let (_tmp, dir) = project_dir();
    write_files(
        &dir,
        &[
            ("defs/order.json", ORDER),
            (
                "ctxgen.toml",
                r#"
schemas = "defs"
out = "sdk"
languages = ["rust", "typescript", "python"]

[package]
name = "shop"
version = "2.1.0-beta.3"
description = "Shop types"
license = "Apache-2.0"
repository = "https://github.com/acme/shop"

[rust]
crate = "acme-shop"

[typescript]
package = "@acme/shop"

[python]
distribution = "acme.shop"
import = "acme_shop"

[names]
"order.json#/$defs/Item" = "LineItem"
"#,
            ),
        ],
    );
    run_code(&dir, &["generate"], 0);
    let cargo = toml_of(&dir.join("sdk/rust/Cargo.toml"));
    assert_eq!(cargo["package"]["name"].as_str(), Some("acme-shop"));
    assert_eq!(cargo["package"]["version"].as_str(), Some("2.1.0-beta.3"));
    assert_eq!(cargo["package"]["license"].as_str(), Some("Apache-2.0"));
    assert_eq!(cargo["package"]["description"].as_str(), Some("Shop types"));
    assert_eq!(
        cargo["package"]["repository"].as_str(),
        Some("https://github.com/acme/shop")
    );
    let npm = json_of(&dir.join("sdk/typescript/package.json"));
    assert_eq!(npm["name"], "@acme/shop");
    assert_eq!(npm["license"], "Apache-2.0");
    assert_eq!(npm["repository"]["url"], "https://github.com/acme/shop");
    let py = toml_of(&dir.join("sdk/python/pyproject.toml"));
    assert_eq!(py["project"]["name"].as_str(), Some("acme.shop"));
    assert_eq!(py["project"]["version"].as_str(), Some("2.1.0b3"));
    assert_eq!(py["project"]["license"].as_str(), Some("Apache-2.0"));
    assert!(dir.join("sdk/python/src/acme_shop/order.py").is_file());
    // The naming override reached every language.
    assert!(read(&dir.join("sdk/rust/src/order.rs")).contains("pub struct LineItem"));
    assert!(read(&dir.join("sdk/typescript/src/order.ts")).contains("interface LineItem"));
    assert!(read(&dir.join("sdk/python/src/acme_shop/order.py")).contains("class LineItem("));
    // Flags override the file.
    run_code(
        &dir,
        &[
            "generate",
            "--lang",
            "rust",
            "--out",
            "other",
            "--crate-name",
            "shop2",
        ],
        0,
    );
    assert_eq!(
        toml_of(&dir.join("other/rust/Cargo.toml"))["package"]["name"].as_str(),
        Some("shop2")
    );
    assert!(!dir.join("other/typescript").exists());
}

#[test]
fn package_metadata_is_checked_per_ecosystem() {
    let (_tmp, dir) = project_dir();
    write_files(&dir, &[("schemas/order.json", ORDER)]);
    let gen = |extra: &[&str]| {
        let mut args = vec!["generate", "--out", "out"];
        args.extend_from_slice(extra);
        run(&dir, &args)
    };
    for (args, why) in [
        (
            &["--package-name", "Shop SDK"][..],
            "invalid Rust crate name \"Shop SDK\"",
        ),
        (
            &["--npm-name", "Shop"][..],
            "invalid npm package name \"Shop\"",
        ),
        (
            &["--crate-name", "@acme/shop"][..],
            "invalid Rust crate name",
        ),
        (
            &["--python-import", "1shop"][..],
            "invalid Python import name",
        ),
        (
            &["--python-dist", "shop!"][..],
            "invalid Python distribution name",
        ),
        (&["--package-version", "1.0"][..], "not a semantic version"),
        (
            &["--package-version", "1.0.0-nightly"][..],
            "cannot be expressed for PyPI",
        ),
        (
            &["--license", "MIT or"][..],
            "not an SPDX license expression",
        ),
    ] {
        let out = gen(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(!dir.join("out").exists(), "{args:?}: wrote output");
    }
    // The same name passes where its ecosystem allows it.
    let out = gen(&["--lang", "typescript", "--npm-name", "@acme/shop"]);
    assert!(out.status.success(), "{out:?}");
    let out = gen(&["--lang", "rust", "--package-version", "1.0.0-nightly"]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_directory_name_that_is_no_package_name_asks_for_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("2024 data");
    write_files(&dir, &[("schemas/order.json", ORDER)]);
    let err = run_code(&dir, &["generate"], 2);
    assert!(err.contains("--package-name"), "{err}");
    run_code(&dir, &["generate", "--package-name", "data"], 0);
}

#[test]
fn project_file_errors_are_located() {
    let (_tmp, dir) = project_dir();
    write_files(
        &dir,
        &[
            ("schemas/order.json", ORDER),
            (
                "ctxgen.toml",
                "[package]\nname = \"x\"\nlicence = \"MIT\"\n",
            ),
        ],
    );
    let err = run_code(&dir, &["generate"], 2);
    assert!(err.contains("ctxgen.toml:3:1"), "{err}");
    assert!(err.contains("unknown field `licence`"), "{err}");
    std::fs::write(
        dir.join("ctxgen.toml"),
        "[names]\n\"order.json#/$defs/Nope\" = \"X\"\n",
    )
    .unwrap();
    let err = run_code(&dir, &["generate"], 2);
    assert!(err.contains("order.json#/$defs/Nope"), "{err}");
    assert!(!dir.join("generated").exists());
}

#[test]
fn check_prints_a_unified_diff_or_with_quiet_the_names() {
    let (_tmp, dir) = project_dir();
    write_files(&dir, &[("schemas/order.json", ORDER)]);
    run_code(&dir, &["generate", "--lang", "typescript"], 0);
    let changed = ORDER.replace("\"The id.\"", "\"The order's id.\"");
    std::fs::write(dir.join("schemas/order.json"), changed).unwrap();
    let out = run(&dir, &["generate", "--lang", "typescript", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains(
            "--- a/generated/typescript/src/order.ts\n+++ b/generated/typescript/src/order.ts\n@@ "
        ),
        "{diff}"
    );
    assert!(diff.contains("\n-  /** The id. */"), "{diff}");
    assert!(diff.contains("\n+  /** The order's id. */"), "{diff}");
    let out = run(
        &dir,
        &["generate", "--lang", "typescript", "--check", "--quiet"],
    );
    assert_eq!(out.status.code(), Some(1));
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.contains("differs: generated/typescript/src/order.ts"),
        "{list}"
    );
    assert!(!list.contains("@@"), "{list}");
}

#[test]
fn a_schema_from_standard_input() {
    let (_tmp, dir) = project_dir();
    let mut child = Command::new(bin())
        .current_dir(&dir)
        .args(["generate", "-", "--lang", "rust", "--out", "out", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(ORDER.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(read(&dir.join("out/rust/src/schema.rs")).contains("pub struct Order"));
}

#[test]
fn unknown_keywords_warn_with_a_suggestion_and_deny_warnings_fails() {
    let (_tmp, dir) = project_dir();
    let typo = ORDER.replace("\"required\"", "\"requird\"");
    write_files(&dir, &[("schemas/order.json", &typo)]);
    let err = run_code(&dir, &["generate", "--lang", "rust"], 0);
    assert!(
        err.contains("unknown keyword `requird` (did you mean `required`?)"),
        "{err}"
    );
    assert!(err.contains("order.json#/requird"), "{err}");
    std::fs::remove_dir_all(dir.join("generated")).unwrap();
    let err = run_code(&dir, &["generate", "--lang", "rust", "--deny-warnings"], 2);
    assert!(err.contains("requird"), "{err}");
    assert!(!dir.join("generated").exists());
    // Allowed keywords and x- extensions are not reported.
    let custom = ORDER.replace(
        "\"required\"",
        "\"tsType\": \"X\", \"x-mine\": 1, \"required\"",
    );
    std::fs::write(dir.join("schemas/order.json"), custom).unwrap();
    let err = run_code(
        &dir,
        &[
            "generate",
            "--lang",
            "rust",
            "--deny-warnings",
            "--allow-keyword",
            "tsType",
        ],
        0,
    );
    assert!(!err.contains("unknown keyword"), "{err}");
}

#[test]
fn completions_for_each_shell() {
    let (_tmp, dir) = project_dir();
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&dir, &["completions", shell]);
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains("generate") && script.contains("package-name"),
            "{shell}"
        );
    }
}

#[test]
fn watch_regenerates_when_a_schema_changes() {
    let (_tmp, dir) = project_dir();
    write_files(&dir, &[("schemas/order.json", ORDER)]);
    let mut child = Command::new(bin())
        .current_dir(&dir)
        .args(["generate", "--watch", "--lang", "typescript", "-q"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let file = dir.join("generated/typescript/src/order.ts");
    let wait_for = |what: &str| {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if std::fs::read_to_string(&file).is_ok_and(|t| t.contains(what)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    let first = wait_for("The id.");
    std::fs::write(
        dir.join("schemas/order.json"),
        ORDER.replace("\"The id.\"", "\"Changed while watching.\""),
    )
    .unwrap();
    let second = wait_for("Changed while watching.");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first, "the first generation did not happen");
    assert!(second, "the change was not picked up");
}
