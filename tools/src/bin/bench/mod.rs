//! The three-language benchmark: workloads, the harness of each language, the report
//! (`FORMAT.md` describes the manifest and the result files).

pub mod max_words;
pub mod oracle;
pub mod report;
pub mod rust;
pub mod workloads;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Runs a harness command that writes `out`; its parsed results.
fn harness(mut cmd: Command, out: &Path) -> Result<Value, String> {
    let _ = std::fs::remove_file(out);
    let status = cmd
        .status()
        .map_err(|e| format!("{:?}: {e}", cmd.get_program()))?;
    if !status.success() {
        return Err(format!("{:?} exited with {status}", cmd.get_program()));
    }
    workloads::read(out)
}

/// `node tests/typescript/bench-suite.mjs`.
pub fn typescript(root: &Path, manifest: &Path, work: &Path) -> Result<Value, String> {
    let out = work.join("results-typescript.json");
    let mut cmd = Command::new("node");
    cmd.arg(root.join("tests/typescript/bench-suite.mjs"))
        .arg(manifest)
        .arg(&out);
    harness(cmd, &out)
}

/// `tests/python/bench_suite.py` on the test virtualenv's Python (or `CTXGEN_PYTHON`).
pub fn python(root: &Path, manifest: &Path, work: &Path) -> Result<Value, String> {
    let out = work.join("results-python.json");
    let exe = std::env::var_os("CTXGEN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("tests/python/.venv/bin/python"));
    let mut cmd = Command::new(exe);
    cmd.arg(root.join("tests/python/bench_suite.py"))
        .arg(manifest)
        .arg(&out);
    harness(cmd, &out)
}

/// The Rust harness: a crate written and built under `work`, then run.
pub fn rust(manifest: &Path, work: &Path, release: bool) -> Result<Value, String> {
    let out = rust::run(manifest, work, release)?;
    workloads::read(&out)
}
