//! Benchmark of hostile instances in the generated Rust code: generates the crate of
//! `tests/fixtures/bounded/`, then runs `tests/fixtures/bounded-bench.rs` in it, in release mode
//! (nesting 100 000 levels deep through the value and the text entry points, `uniqueItems` over
//! 100 000 items, `^(a+)+$` on 10 000 characters). The peers: the `jsonschema` crate on the same
//! `uniqueItems` arrays, and `regress` (backtracking) on the same pattern. Prints the times and
//! the verdicts; `cargo bench --bench bounded`.

use std::path::Path;
use std::process::Command;

use ctxgen::{Config, Lang};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = root.join("target/bounded-bench");
    let _ = std::fs::remove_dir_all(work.join("rust"));
    let mut config = Config::new();
    config
        .schemas_dir(root.join("tests/fixtures/bounded"))
        .languages(&[Lang::Rust])
        .package_name("fixture-bounded")
        .out_dir(&work);
    config.generate().expect("the fixture generates");
    let krate = work.join("rust");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).expect("manifest");
    // The peer validator, for the example only (the version of ctxgen's own dev-dependency).
    let extra = "\n[dev-dependencies]\njsonschema = { version = \"0.60\", default-features = false }\n\n[workspace]\n";
    std::fs::write(krate.join("Cargo.toml"), manifest + extra).expect("manifest");
    std::fs::create_dir_all(krate.join("examples")).expect("examples");
    std::fs::copy(
        root.join("tests/fixtures/bounded-bench.rs"),
        krate.join("examples/bench.rs"),
    )
    .expect("copy");
    let status = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--release", "--example", "bench"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .status()
        .expect("cargo");
    assert!(status.success(), "the benchmark failed");
}
