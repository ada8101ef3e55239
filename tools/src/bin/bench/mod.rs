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

/// `tests/python/bench_suite.py` on the test virtualenv's Python (or `CTXGEN_PYTHON`), after
/// building each set's native accelerator into that environment (`maturin develop`, release
/// profile unless `quick`). The results come back as two languages: `python` (the pure Python
/// validators) and `python-native` (the same package with its accelerator), sharing the
/// peers' and the floor's measurements, which were taken in the same rounds.
pub fn python(
    root: &Path,
    manifest: &Path,
    work: &Path,
    quick: bool,
) -> Result<(Value, Value), String> {
    let out = work.join("results-python.json");
    let exe = std::env::var_os("CTXGEN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("tests/python/.venv/bin/python"));
    let m = workloads::read(manifest)?;
    for set in m["sets"].as_object().into_iter().flatten().map(|s| s.1) {
        let src = Path::new(set["python"]["src"].as_str().unwrap_or(""));
        let native = src.with_file_name("native").join("Cargo.toml");
        if native.is_file() {
            build_native(&exe, &native, &work.join("native-target"), quick)?;
        }
    }
    let mut cmd = Command::new(&exe);
    cmd.arg(root.join("tests/python/bench_suite.py"))
        .arg(manifest)
        .arg(&out);
    let all = harness(cmd, &out)?;
    let split = |keep: &dyn Fn(&str) -> Option<String>| {
        let mut r = all.clone();
        if let Some(rows) = r["results"].as_array_mut() {
            rows.retain_mut(|e| match keep(e["impl"].as_str().unwrap_or("")) {
                Some(name) => {
                    e["impl"] = name.into();
                    true
                }
                None => false,
            });
        }
        r
    };
    let pure = split(&|i| (i != "ctxgen-native").then(|| i.to_string()));
    let native = split(&|i| match i {
        "ctxgen" => None,
        "ctxgen-native" => Some("ctxgen".into()),
        _ => Some(i.to_string()),
    });
    Ok((pure, native))
}

/// `python -m maturin develop` of one native accelerator into `exe`'s environment.
fn build_native(exe: &Path, cargo_toml: &Path, target: &Path, quick: bool) -> Result<(), String> {
    let venv = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{}: not in a virtual environment", exe.display()))?;
    let mut cmd = Command::new(exe);
    cmd.args(["-m", "maturin", "develop", "--quiet", "--manifest-path"])
        .arg(cargo_toml)
        .env("VIRTUAL_ENV", venv)
        .env("CARGO_TARGET_DIR", target);
    if !quick {
        cmd.arg("--release");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("{}: maturin: {e}", exe.display()))?;
    match status.success() {
        true => Ok(()),
        false => Err(format!(
            "maturin develop {} exited with {status}",
            cargo_toml.display()
        )),
    }
}

/// The Rust harness: a crate written and built under `work`, then run.
pub fn rust(manifest: &Path, work: &Path, release: bool) -> Result<Value, String> {
    let out = rust::run(manifest, work, release)?;
    workloads::read(&out)
}
