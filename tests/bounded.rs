//! Hostile instances through the Rust crate generated from `tests/fixtures/bounded/`: the crate
//! passes rustfmt and clippy, and `tests/fixtures/bounded-behaviour.rs` runs inside it (the cases
//! of `tests/fixtures/bounded-vectors.json`, which the TypeScript and Python harnesses run too,
//! and the text entry points at and beyond `MAX_DEPTH`).

#[path = "support/krate.rs"]
mod krate;

use std::path::Path;

#[test]
fn hostile_instances_are_bounded_in_the_generated_rust_crate() {
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bounded-vectors.json");
    // The dependencies are those of the feature crate of `tests/rust_snapshots.rs`: one build.
    let krate = krate::generate(
        "tests/fixtures/bounded",
        "fixture-bounded",
        "bounded",
        "features",
    )
    .env("CTXGEN_BOUNDED_VECTORS", vectors);
    krate.cargo(&["fmt", "--check"]);
    krate.cargo(krate::CLIPPY);
    // Copied after the checks of the generated code.
    krate.behaviour(&std::fs::read_to_string("tests/fixtures/bounded-behaviour.rs").unwrap());
    krate.cargo(&["test", "--quiet"]);
}
