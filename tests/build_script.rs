//! The README's build.rs instructions are the `examples/build-script` crate, line for line, and
//! that crate's build dependency is the library alone (no CLI dependencies).

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The body of every fenced code block of the README's `## build.rs` section.
fn readme_blocks() -> Vec<String> {
    let readme = read("README.md");
    let start = readme
        .find("\n## build.rs\n")
        .expect("README has a build.rs section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in section.lines() {
        if line.starts_with("```") {
            match current.take() {
                Some(b) => blocks.push(b),
                None => current = Some(String::new()),
            }
        } else if let Some(b) = current.as_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    blocks
}

#[test]
fn the_readme_build_script_is_the_example() {
    let blocks = readme_blocks();
    // build.rs, verbatim after the comment naming it.
    let build = read("examples/build-script/build.rs");
    assert!(
        blocks.contains(&format!("// build.rs\n{build}")),
        "README's build.rs block is not examples/build-script/build.rs:\n{build}"
    );
    // The dependencies, verbatim but for where ctxgen comes from.
    let manifest = read("examples/build-script/Cargo.toml");
    let deps = &manifest[manifest.find("[dependencies]").unwrap()..];
    let deps = deps.replace(r#"path = "../..""#, r#"path = "../ctxgen""#);
    assert!(
        blocks.contains(&deps),
        "README's Cargo.toml block is not the example's:\n{deps}"
    );
    // The module that includes the bindings, verbatim from the example's main.rs.
    let main = read("examples/build-script/src/main.rs");
    let block = blocks
        .iter()
        .find(|b| b.starts_with("// src/main.rs"))
        .expect("README shows the include");
    let module: String = block.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert!(
        main.contains(&module),
        "README's include block is not in the example's main.rs:\n{module}"
    );
    // `cargo add` adds exactly the dependencies the example declares.
    let adds = blocks
        .iter()
        .find(|b| b.starts_with("cargo add"))
        .expect("README shows the cargo add commands");
    for (name, _) in ctxgen::backend::rust::DEPENDENCIES {
        assert!(adds.contains(name), "README's cargo add lacks {name}");
    }
    assert!(adds.contains("--build ctxgen") && adds.contains("--no-default-features"));
}

#[test]
fn a_build_dependency_on_the_library_pulls_in_no_cli_crates() {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(root())
        .args([
            "tree",
            "--offline",
            "-p",
            "ctxgen-build-script-example",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(tree.contains("ctxgen v"), "{tree}");
    for cli_only in ["clap ", "clap_complete", "notify", "similar "] {
        assert!(
            !tree.contains(cli_only),
            "{cli_only} is in the build dependency's tree:\n{tree}"
        );
    }
}

#[test]
fn each_build_script_call_writes_its_own_file_once() {
    let out = tempfile::tempdir().unwrap();
    // Only this test of this binary reads OUT_DIR.
    std::env::set_var("OUT_DIR", out.path());
    let schemas = root().join("examples/build-script/schemas");
    let first = ctxgen::generate(&schemas).unwrap();
    assert_eq!(first, out.path().join("schemas.rs"));
    let text = std::fs::read_to_string(&first).unwrap();
    assert!(text.contains("pub struct Order"), "{text}");
    let mtime = std::fs::metadata(&first).unwrap().modified().unwrap();
    // A second call naming the same file is an error, not an overwrite.
    let err = ctxgen::generate(&schemas).unwrap_err().to_string();
    assert!(
        err.contains("two ctxgen build_script calls write `schemas.rs`"),
        "{err}"
    );
    // Another file name is fine; the same content leaves the first file untouched.
    let mut config = ctxgen::Config::new();
    config
        .schemas_dir(&schemas)
        .type_name("order.json#/$defs/LineItem", "Line");
    let second = config.build_script("shop.rs").unwrap();
    assert!(std::fs::read_to_string(&second)
        .unwrap()
        .contains("pub struct Line "));
    assert_eq!(
        std::fs::metadata(&first).unwrap().modified().unwrap(),
        mtime
    );
    for bad in ["../x.rs", "dir/x.rs", "x.txt", ".rs"] {
        let err = config.build_script(bad).unwrap_err().to_string();
        assert!(err.contains("file name ending in `.rs`"), "{bad}: {err}");
    }
}
