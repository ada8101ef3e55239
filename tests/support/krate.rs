//! A generated Rust crate built by a test: written from a fixture folder into the test's temp
//! directory as a stand-alone workspace, then checked with `cargo`.

// Each test crate uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ctxgen::{Config, Lang};

/// A generated crate and the target folder its builds share with other tests of this name.
pub struct Krate {
    pub dir: PathBuf,
    target: PathBuf,
    env: Vec<(String, PathBuf)>,
}

/// Generates the Rust crate of `schemas` as `package` under `<CARGO_TARGET_TMPDIR>/<name>-crate`;
/// its builds use `<CARGO_TARGET_TMPDIR>/<target>-target`.
pub fn generate(schemas: &str, package: &str, name: &str, target: &str) -> Krate {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let root = tmp.join(format!("{name}-crate"));
    let _ = std::fs::remove_dir_all(&root);
    let mut config = Config::new();
    config
        .schemas_dir(schemas)
        .assert_formats(true)
        .languages(&[Lang::Rust])
        .package_name(package)
        .out_dir(&root);
    config.generate().expect("write");
    let dir = root.join("rust");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap() + "\n[workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    Krate {
        dir,
        target: tmp.join(format!("{target}-target")),
        env: Vec::new(),
    }
}

impl Krate {
    /// Sets an environment variable for every `cargo` run.
    pub fn env(mut self, key: &str, value: PathBuf) -> Self {
        self.env.push((key.to_string(), value));
        self
    }

    /// Writes `tests/behaviour.rs` into the crate.
    pub fn behaviour(&self, text: &str) {
        std::fs::create_dir_all(self.dir.join("tests")).unwrap();
        std::fs::write(self.dir.join("tests/behaviour.rs"), text).unwrap();
    }

    /// Runs `cargo <args>` in the crate; fails the test with cargo's output if it fails.
    pub fn cargo(&self, args: &[&str]) {
        let out = Command::new(env!("CARGO"))
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
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

/// `cargo clippy` with every feature, warnings denied.
pub const CLIPPY: &[&str] = &[
    "clippy",
    "--quiet",
    "--all-features",
    "--",
    "-D",
    "warnings",
];
