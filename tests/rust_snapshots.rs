//! Snapshots of the Rust output for the feature schemas in `tests/fixtures/features/` (one per
//! construct), and a check that the generated crate compiles, passes clippy, is rustfmt-clean and
//! behaves (`tests/fixtures/features-behaviour.rs`, run inside it).

use std::path::Path;
use std::process::Command;

use ctxgen::{Config, Lang};

fn render() -> std::collections::BTreeMap<String, String> {
    let mut config = Config::new();
    config
        .schemas_dir("tests/fixtures/features")
        .languages(&[Lang::Rust])
        .package_name("features");
    let rendered = config.render().expect("fixtures generate");
    rendered.packages.into_iter().next().expect("rust").1
}

#[test]
fn rust_output_snapshots() {
    for (path, text) in render() {
        // The runtime and format checks are fixed text, covered by the protocol crate.
        if path.ends_with("runtime.rs") || path.ends_with("formats.rs") {
            continue;
        }
        insta::assert_snapshot!(format!("rust__{}", path.replace('/', "__")), text);
    }
}

#[test]
fn rust_output_compiles_and_is_clean() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("features-crate");
    let _ = std::fs::remove_dir_all(&root);
    let mut config = Config::new();
    config
        .schemas_dir("tests/fixtures/features")
        .languages(&[Lang::Rust])
        .package_name("features")
        .out_dir(&root);
    config.generate().expect("write");
    let krate = root.join("rust");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap() + "\n[workspace]\n";
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("features-target");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("cargo");
        assert!(
            out.status.success(),
            "cargo {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["fmt", "--check"]);
    run(&[
        "clippy",
        "--quiet",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]);
    // What the types do at run time: defaults, table variants, violations.
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    std::fs::copy(
        "tests/fixtures/features-behaviour.rs",
        krate.join("tests/behaviour.rs"),
    )
    .unwrap();
    run(&["test", "--quiet"]);
}
