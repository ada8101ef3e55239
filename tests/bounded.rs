//! Hostile instances through the Rust crate generated from `tests/fixtures/bounded/`: the crate
//! passes rustfmt and clippy, and `tests/fixtures/bounded-behaviour.rs` runs inside it (the cases
//! of `tests/fixtures/bounded-vectors.json`, which the TypeScript and Python harnesses run too,
//! and the text entry points at and beyond `MAX_DEPTH`).

use std::path::Path;
use std::process::Command;

use ctxgen::{Config, Lang};

#[test]
fn hostile_instances_are_bounded_in_the_generated_rust_crate() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounded-crate");
    let _ = std::fs::remove_dir_all(&root);
    let mut config = Config::new();
    config
        .schemas_dir("tests/fixtures/bounded")
        .languages(&[Lang::Rust])
        .package_name("fixture-bounded")
        .out_dir(&root);
    config.generate().expect("write");
    let krate = root.join("rust");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap() + "\n[workspace]\n";
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bounded-vectors.json");
    // The dependencies are those of the feature crate of `tests/rust_snapshots.rs`: one build.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("features-target");
    for args in [
        &["fmt", "--check"][..],
        &[
            "clippy",
            "--quiet",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
        &["test", "--quiet"],
    ] {
        if args[0] == "test" {
            // Copied after the checks of the generated code.
            std::fs::create_dir_all(krate.join("tests")).unwrap();
            std::fs::copy(
                "tests/fixtures/bounded-behaviour.rs",
                krate.join("tests/behaviour.rs"),
            )
            .unwrap();
        }
        let out = Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", &target)
            .env("CTXGEN_BOUNDED_VECTORS", &vectors)
            .output()
            .expect("cargo");
        assert!(
            out.status.success(),
            "cargo {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
