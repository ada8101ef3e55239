//! Runs the cases of a batch through one language's generated package. Each driver reads the
//! cases file (one JSON object a line: the type names per language and the instance) from a
//! start index and prints one JSON line per case: `v` the (pointer, keyword) violations of the
//! generated `validate`, and when there are none, `rt` the value parsed and serialized back or
//! `rte` [kind, message] when parsing failed (kind `rejected` for the package's own validation
//! error); `e` an error of the driver itself. A driver that dies or stalls is charged to the
//! case it was on and restarted after it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::corpus::Batch;

/// What a driver said of one case.
#[derive(Default)]
pub struct Raw {
    pub violations: Option<Vec<(String, String)>>,
    pub error: Option<String>,
    pub rt: Option<Value>,
    pub rt_error: Option<(String, String)>,
}

/// How long a driver may take to start (imports, first case) and then per case.
const START_LIMIT: Duration = Duration::from_secs(600);
const CASE_LIMIT: Duration = Duration::from_secs(120);

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn parse_json(text: &str) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

fn exec(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let first = lines
        .iter()
        .find(|l| l.contains("error"))
        .or(lines.first())
        .unwrap_or(&"");
    Err(format!("{what} failed: {}", first.trim()))
}

fn raw_of(v: &Value) -> Raw {
    let pair = |p: &Value| -> Option<(String, String)> {
        Some((
            p.get(0)?.as_str()?.to_string(),
            p.get(1)?.as_str()?.to_string(),
        ))
    };
    Raw {
        violations: v
            .get("v")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(pair).collect()),
        error: v.get("e").and_then(Value::as_str).map(String::from),
        rt: v.get("rt").cloned(),
        rt_error: v.get("rte").and_then(pair),
    }
}

fn failed(msg: String) -> Raw {
    Raw {
        error: Some(msg),
        ..Raw::default()
    }
}

/// Runs `cmd START` from start 0 until every case has a result, handing each to `each`.
/// A driver that dies before its first result on the first case is an error of the package
/// (it does not load): returned as such, no case is charged.
fn stream(
    cmd: &dyn Fn(usize) -> Command,
    log: &Path,
    n: usize,
    each: &mut dyn FnMut(usize, Raw),
) -> Result<(), String> {
    let mut start = 0;
    let mut empty_runs = 0;
    while start < n {
        let mut command = cmd(start);
        let stderr = std::fs::File::create(log).map(Stdio::from);
        let child = command
            .stdout(Stdio::piped())
            .stderr(stderr.unwrap_or_else(|_| Stdio::null()))
            .stdin(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                return Err(format!("driver did not start: {e}"));
            }
        };
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("no pipe to the driver".into());
        };
        let (tx, rx) = mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut next = start;
        let mut last = Instant::now();
        let mut timed_out = false;
        loop {
            let limit = if next == start {
                START_LIMIT
            } else {
                CASE_LIMIT
            };
            match rx.recv_timeout(limit.saturating_sub(last.elapsed())) {
                Ok(line) => {
                    last = Instant::now();
                    // Anything but a result line (a package printing on import, say) is skipped.
                    let Ok(v) = parse_json(&line) else { continue };
                    let Some(i) = v.get("i").and_then(Value::as_u64).map(|i| i as usize) else {
                        continue;
                    };
                    if i < next || i >= n {
                        continue;
                    }
                    while next < i {
                        each(next, failed("the driver gave no result".into()));
                        next += 1;
                    }
                    each(i, raw_of(&v));
                    next = i + 1;
                    if next >= n {
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    each(
                        next,
                        failed(format!("timeout: no result in {}s", limit.as_secs())),
                    );
                    next += 1;
                    timed_out = true;
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = match child.wait() {
            Ok(s) => s.to_string().replace(':', ""),
            Err(e) => e.to_string().replace(':', ""),
        };
        let _ = reader.join();
        if next >= n || timed_out {
            empty_runs = 0;
            start = next;
            continue;
        }
        let err = std::fs::read_to_string(log).unwrap_or_default();
        // The error line (node ends its report with its version), else the last line.
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        let why = lines
            .iter()
            .rev()
            .find(|l| l.contains("Error") || l.contains("error"))
            .or(lines.last())
            .map_or(String::new(), |l| l.trim().to_string());
        if next == 0 {
            return Err(format!("driver died [{status}]: {why}"));
        }
        empty_runs = if next == start { empty_runs + 1 } else { 0 };
        if empty_runs >= 2 {
            // Dies before its first result every time: it would on every restart.
            for i in next..n {
                each(i, failed(format!("driver died [{status}]: {why}")));
            }
            return Ok(());
        }
        // Charged to the case it was on; the driver goes on after it.
        each(next, failed(format!("driver crashed [{status}]: {why}")));
        start = next + 1;
    }
    Ok(())
}

/// Builds (or compiles) the batch's driver for `lang`, then streams the cases through it.
pub fn run(
    lang: &str,
    batch: &Batch,
    work: &Path,
    cases: &Path,
    n: usize,
    each: &mut dyn FnMut(usize, Raw),
) -> Result<(), String> {
    let dir = work.join(format!("driver-{lang}-b{}", batch.index));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("stderr.txt");
    match lang {
        "rust" => {
            let exe = build_rust(batch, work, &dir)?;
            stream(
                &|start| {
                    let mut c = Command::new(&exe);
                    c.arg(cases).arg(start.to_string());
                    c
                },
                &log,
                n,
                each,
            )
        }
        "typescript" => {
            let pkg = compile_typescript(batch)?;
            let driver = dir.join("driver.mjs");
            std::fs::write(&driver, TS_DRIVER).map_err(|e| e.to_string())?;
            stream(
                &|start| {
                    let mut c = Command::new("node");
                    c.arg(&driver).arg(&pkg).arg(cases).arg(start.to_string());
                    c
                },
                &log,
                n,
                each,
            )
        }
        "python" => {
            let src = batch.out.join("python/src");
            if !src.join(&batch.module).is_dir() {
                return Err("the Python backend wrote no package".into());
            }
            let driver = dir.join("driver.py");
            std::fs::write(&driver, PY_DRIVER).map_err(|e| e.to_string())?;
            let python = python();
            stream(
                &|start| {
                    let mut c = Command::new(&python);
                    c.arg(&driver)
                        .arg(&src)
                        .arg(&batch.module)
                        .arg(cases)
                        .arg(start.to_string());
                    c
                },
                &log,
                n,
                each,
            )
        }
        other => Err(format!("no driver for {other}")),
    }
}

fn python() -> PathBuf {
    std::env::var("CTXGEN_PYTHON").map_or_else(
        |_| {
            let venv = root().join("tests/python/.venv/bin/python");
            if venv.is_file() {
                venv
            } else {
                PathBuf::from("python3")
            }
        },
        PathBuf::from,
    )
}

fn tsc() -> PathBuf {
    std::env::var("CTXGEN_TSC").map_or_else(
        |_| root().join("tests/typescript/node_modules/.bin/tsc"),
        PathBuf::from,
    )
}

/// Checks that the tools a language needs run, before any package is built: a package that
/// does not load is then the package's fault.
pub fn check_tools(lang: &str) -> Result<(), String> {
    let ok = |cmd: &mut Command, what: &str| -> Result<(), String> {
        match cmd.stdout(Stdio::null()).stderr(Stdio::null()).status() {
            Ok(s) if s.success() => Ok(()),
            _ => Err(format!("{what} is not available for the {lang} driver")),
        }
    };
    match lang {
        "rust" => ok(Command::new("cargo").arg("--version"), "cargo"),
        "typescript" => {
            ok(Command::new("node").arg("--version"), "node")?;
            if tsc().exists() {
                Ok(())
            } else {
                Err(format!(
                    "{} is missing: run `bash tests/typescript/run.sh` (or npm ci in tests/typescript)",
                    tsc().display()
                ))
            }
        }
        "python" => ok(
            Command::new(python()).args(["-c", "import pydantic"]),
            &format!(
                "{} with pydantic (run `bash tests/python/run.sh` or set CTXGEN_PYTHON)",
                python().display()
            ),
        ),
        other => Err(format!("no driver for {other}")),
    }
}

fn build_rust(batch: &Batch, work: &Path, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let package = format!("instances-b{}", batch.index);
    let manifest = format!(
        "[package]\nname = \"driver-b{i}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n{m} = {{ package = \"{package}\", path = {path:?} }}\nserde = \"1\"\nserde_json = \"1\"\n\n[profile.dev]\ndebug = false\nincremental = false\n\n[profile.dev.package.\"*\"]\nopt-level = 2\n\n[profile.dev.package.{package}]\nopt-level = 0\n\n[workspace]\n",
        i = batch.index,
        m = batch.module,
        path = batch.out.join("rust").display().to_string(),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    let lock = root().join("Cargo.lock");
    if lock.is_file() && !dir.join("Cargo.lock").exists() {
        std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    let main = RUST_DRIVER.replace("GENERATED", &batch.module);
    std::fs::write(dir.join("src/main.rs"), main).map_err(|e| e.to_string())?;
    let target = work.join("rust-target");
    exec(
        Command::new("cargo")
            .args(["build", "--quiet", "--message-format", "short"])
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_INCREMENTAL", "0")
            .env_remove("CARGO_PROFILE_DEV_DEBUG"),
        "cargo build (Rust driver)",
    )?;
    Ok(target.join(format!("debug/driver-b{}", batch.index)))
}

fn compile_typescript(batch: &Batch) -> Result<PathBuf, String> {
    let tsc = tsc();
    if !tsc.exists() {
        return Err(format!(
            "{} is missing: run `bash tests/typescript/run.sh` (or npm ci in tests/typescript)",
            tsc.display()
        ));
    }
    let pkg = batch.out.join("typescript");
    let modules = pkg.join("node_modules");
    if !modules.exists() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(root().join("tests/typescript/node_modules"), &modules)
            .map_err(|e| format!("linking node_modules: {e}"))?;
    }
    exec(
        Command::new(&tsc)
            .args(["-p", "tsconfig.json"])
            .current_dir(&pkg),
        "tsc",
    )?;
    Ok(pkg)
}

const RUST_DRIVER: &str = include_str!("driver.rs.txt");
const TS_DRIVER: &str = include_str!("driver.mjs");
const PY_DRIVER: &str = include_str!("driver.py");
