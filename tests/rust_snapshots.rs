//! Snapshots of the Rust output for the feature schemas in `tests/fixtures/features/` (one per
//! construct), and a check that the generated crate compiles, passes clippy, is rustfmt-clean and
//! behaves (`tests/fixtures/features-behaviour.rs`, run inside it).

#[path = "support/krate.rs"]
mod krate;

use ctxgen::{Config, Lang};

fn render() -> std::collections::BTreeMap<String, String> {
    let mut config = Config::new();
    config
        .schemas_dir("tests/fixtures/features")
        .assert_formats(true)
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
    let krate = krate::generate(
        "tests/fixtures/features",
        "features",
        "features",
        "features",
    );
    krate.cargo(&["fmt", "--check"]);
    krate.cargo(krate::CLIPPY);
    // What the types do at run time: defaults, table variants, violations.
    krate.behaviour(&std::fs::read_to_string("tests/fixtures/features-behaviour.rs").unwrap());
    krate.cargo(&["test", "--quiet"]);
}
