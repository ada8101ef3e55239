//! The round-trip contract (`docs/types.md`) through the Rust crate generated from
//! `tests/fixtures/fidelity/`: every instance of `tests/fixtures/fidelity-instances.json` (open
//! objects, const-tagged untagged unions, integer consts, unbounded and huge integers, explicit
//! nulls, defaults, 1,000 levels of nesting) validates, parses, and serializes back to the same
//! JSON value. The TypeScript and Python harnesses run the same instances.

#[path = "support/krate.rs"]
mod krate;

use std::path::Path;

#[test]
fn fidelity_instances_round_trip_in_the_generated_rust_crate() {
    let instances =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fidelity-instances.json");
    let krate = krate::generate(
        "tests/fixtures/fidelity",
        "fixture-fidelity",
        "fidelity",
        "features",
    )
    .env("CTXGEN_FIDELITY_INSTANCES", instances);
    krate.cargo(&["fmt", "--check"]);
    krate.cargo(krate::CLIPPY);
    krate.behaviour(&std::fs::read_to_string("tests/fixtures/fidelity-behaviour.rs").unwrap());
    krate.cargo(&["test", "--quiet"]);
}
