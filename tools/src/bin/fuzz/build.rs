//! Build checks of generated packages `<work>/f<i>/{rust,typescript,python}` (package
//! `corpus-f<i>`), in batches: the Rust crates as modules of one crate (`cargo check`), the
//! TypeScript and Python through the corpus runner's checks (`tsc --strict`, import, `mypy
//! --strict`), the manifests parsed, and a sentinel check that importing ran nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::corpus::checks::{self, Verdicts};
use crate::corpus::Verdict;

use super::hostile::SENTINEL;

/// The checks, in report order.
pub const CHECKS: &[&str] = &[
    "rust",
    "typescript",
    "python-import",
    "python-mypy",
    "manifests",
    "executed",
];

pub struct Tools {
    pub tsc: PathBuf,
    pub python: PathBuf,
}

impl Tools {
    /// `CTXGEN_TSC` / `CTXGEN_PYTHON`, or the test harnesses' installs.
    pub fn find() -> Result<Tools, String> {
        let pick = |var: &str, default: &str| {
            let p = std::env::var_os(var)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(default));
            std::path::absolute(&p).unwrap_or(p)
        };
        let tools = Tools {
            tsc: pick("CTXGEN_TSC", "tests/typescript/node_modules/.bin/tsc"),
            python: pick("CTXGEN_PYTHON", "tests/python/.venv/bin/python"),
        };
        if !tools.tsc.exists() {
            return Err(format!(
                "{} not found: run `npm ci` in tests/typescript or set CTXGEN_TSC",
                tools.tsc.display()
            ));
        }
        if !tools.python.exists() {
            return Err(format!(
                "{} not found: run tests/python/run.sh once or set CTXGEN_PYTHON",
                tools.python.display()
            ));
        }
        Ok(tools)
    }
}

/// Verdicts of every check, by package index.
pub type Results = BTreeMap<usize, BTreeMap<&'static str, Verdict>>;

/// Checks the packages `live` under `work` (with `only`, that check alone). A checker whose
/// failure names no package is run again on halves of the batch, down to single packages.
pub fn check(work: &Path, live: &[usize], tools: &Tools, only: Option<&str>) -> Results {
    let mut results: Results = live.iter().map(|i| (*i, BTreeMap::new())).collect();
    let wants =
        |k: &str| only.is_none_or(|o| o == k || (o == "python-mypy" && k == "python-import"));
    let (rust, ts, (imports, mypy)) = std::thread::scope(|s| {
        let r = s.spawn(|| {
            if wants("rust") {
                rust(work, live).unwrap_or_else(|e| {
                    eprintln!("warning: cargo check: {e}");
                    Verdicts::new()
                })
            } else {
                Verdicts::new()
            }
        });
        let t = s.spawn(|| {
            if wants("typescript") {
                bisect(live, &|l| checks::typescript(work, l, &tools.tsc))
            } else {
                Verdicts::new()
            }
        });
        let py = if wants("python-import") || wants("python-mypy") || wants("executed") {
            python(work, live, &tools.python)
        } else {
            (Verdicts::new(), Verdicts::new())
        };
        (
            r.join().unwrap_or_default(),
            t.join().unwrap_or_default(),
            py,
        )
    });
    let mut put = |key: &'static str, verdicts: Verdicts| {
        for (i, v) in verdicts {
            if let Some(r) = results.get_mut(&i) {
                r.insert(key, v);
            }
        }
    };
    put("rust", rust);
    put("typescript", ts);
    put("python-import", imports);
    put("python-mypy", mypy);
    if wants("manifests") {
        put("manifests", manifests(work, live, &tools.python));
    }
    put("executed", executed(work, live));
    results
}

/// Runs `f` over `live`; if it fails as a whole, over each half (a single package that fails
/// as a whole is charged with the failure).
fn bisect(live: &[usize], f: &dyn Fn(&[usize]) -> Result<Verdicts, String>) -> Verdicts {
    if live.is_empty() {
        return Verdicts::new();
    }
    match f(live) {
        Ok(v) => v,
        Err(e) if live.len() == 1 => {
            let line = e
                .lines()
                .find(|l| l.contains("error"))
                .or_else(|| e.lines().next())
                .unwrap_or("")
                .chars()
                .take(400)
                .collect();
            Verdicts::from([(live[0], Verdict::Fail(line))])
        }
        Err(_) => {
            let (a, b) = live.split_at(live.len() / 2);
            let mut v = bisect(a, f);
            v.extend(bisect(b, f));
            v
        }
    }
}

/// Import and mypy verdicts; the corpus runner's links folder is rebuilt for each batch.
fn python(work: &Path, live: &[usize], python: &Path) -> (Verdicts, Verdicts) {
    let run = |l: &[usize]| -> Result<(Verdicts, Verdicts), String> {
        super::wipe(&work.join("py"));
        checks::python(work, l, python)
    };
    let mut imports = Verdicts::new();
    let mut mypy = Verdicts::new();
    let mut stack = vec![live.to_vec()];
    while let Some(part) = stack.pop() {
        if part.is_empty() {
            continue;
        }
        match run(&part) {
            Ok((i, m)) => {
                imports.extend(i);
                mypy.extend(m);
            }
            Err(e) if part.len() == 1 => {
                let line: String = e.lines().next().unwrap_or("").chars().take(400).collect();
                imports.insert(part[0], Verdict::Fail(line));
            }
            Err(_) => {
                let (a, b) = part.split_at(part.len() / 2);
                stack.push(a.to_vec());
                stack.push(b.to_vec());
            }
        }
    }
    (imports, mypy)
}

/// Every generated crate as a module of one crate: `#[path]` reaches its `src/lib.rs`, whose
/// `mod` items then resolve next to it, as in the crate itself.
fn rust(work: &Path, live: &[usize]) -> Result<Verdicts, String> {
    let krate = work.join("rust-check");
    std::fs::create_dir_all(krate.join("src")).map_err(|e| e.to_string())?;
    std::fs::write(
        krate.join("Cargo.toml"),
        checks::check_manifest("fuzz-check"),
    )
    .map_err(|e| e.to_string())?;
    if Path::new("Cargo.lock").is_file() && !krate.join("Cargo.lock").exists() {
        std::fs::copy("Cargo.lock", krate.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    // Kept across batches (the work folder's parent outlives them).
    let target = work.parent().unwrap_or(work).join("rust-target");
    let mut verdicts = Verdicts::new();
    // A chunk whose failure names no package (rustc killed by the time limit, say) is split.
    let mut todo = checks::chunks(work, live, "rust", 6_000_000);
    while let Some(chunk) = todo.pop() {
        let result = checks::until_clean(
            "cargo check",
            chunk.clone(),
            &mut verdicts,
            |l| l.contains(": error"),
            |_| true,
            |left| {
                let head = checks::crate_attributes(
                    left.iter()
                        .map(|i| work.join(format!("f{i}/rust/src/lib.rs"))),
                );
                let lib: String = head
                    + &left
                        .iter()
                        .map(|i| {
                            format!(
                                "#[allow(warnings)]\n#[path = \"../../f{i}/rust/src/lib.rs\"]\npub mod f{i};\n"
                            )
                        })
                        .collect::<String>();
                std::fs::write(krate.join("src/lib.rs"), lib).map_err(|e| e.to_string())?;
                Ok(checks::run(
                    cargo()
                        .args(["check", "--quiet", "--message-format", "short"])
                        .current_dir(&krate)
                        .env("CARGO_TARGET_DIR", &target),
                ))
            },
        );
        if let Err(e) = result {
            let left: Vec<usize> = chunk
                .into_iter()
                .filter(|i| !verdicts.contains_key(i))
                .collect();
            if let [only] = left[..] {
                let line = e
                    .lines()
                    .find(|l| !l.trim().is_empty() && !l.starts_with("cargo check failed"));
                let line = line.unwrap_or("cargo check failed (killed after 600 s?)");
                verdicts.insert(only, Verdict::Fail(line.chars().take(400).collect()));
            } else if !left.is_empty() {
                let (a, b) = left.split_at(left.len() / 2);
                todo.push(a.to_vec());
                todo.push(b.to_vec());
            }
        }
    }
    Ok(checks::passed(live, verdicts))
}

/// `cargo`, under `timeout` where there is one: a crate rustc cannot check in 10 minutes is a
/// failure, not a reason to wait.
fn cargo() -> Command {
    let timeout = Path::new("/usr/bin/timeout");
    if timeout.exists() {
        let mut c = Command::new(timeout);
        c.args(["-k", "10", "600", "cargo"]);
        c
    } else {
        Command::new("cargo")
    }
}

const MANIFEST_DRIVER: &str = r#"import json, sys, tomllib
for d in sys.argv[1:]:
    name = d.rsplit("/", 1)[-1]
    for rel, load in (("rust/Cargo.toml", tomllib.loads), ("python/pyproject.toml", tomllib.loads),
                      ("typescript/package.json", json.loads), ("typescript/tsconfig.json", json.loads)):
        try:
            with open(d + "/" + rel, encoding="utf-8") as f:
                load(f.read())
        except Exception as e:
            print("fail", name, rel + ": " + str(e).splitlines()[0] if str(e) else rel, flush=True)
"#;

/// `Cargo.toml`, `pyproject.toml`, `package.json` and `tsconfig.json` parse.
fn manifests(work: &Path, live: &[usize], python: &Path) -> Verdicts {
    let driver = work.join("manifests.py");
    if std::fs::write(&driver, MANIFEST_DRIVER).is_err() {
        return Verdicts::new();
    }
    let (_, out) = checks::run(
        Command::new(python)
            .arg(&driver)
            .args(live.iter().map(|i| work.join(format!("f{i}")))),
    );
    let mut v = Verdicts::new();
    for line in out.lines() {
        let mut parts = line.splitn(3, ' ');
        if let (Some("fail"), Some(name), Some(msg)) = (parts.next(), parts.next(), parts.next()) {
            if let Some(i) = name.strip_prefix('f').and_then(|n| n.parse().ok()) {
                v.entry(i).or_insert(Verdict::Fail(msg.to_string()));
            }
        }
    }
    checks::passed(live, v)
}

/// Whether a sentinel file appeared (the checks ran with the current directory or `work` as
/// theirs). It is charged to the packages whose output mentions the sentinel.
fn executed(work: &Path, live: &[usize]) -> Verdicts {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut hits: Vec<String> = [cwd.as_path(), work, &work.join("py")]
        .iter()
        .filter_map(|d| super::exec::sentinel_near(d))
        .collect();
    hits.sort();
    let mut v = Verdicts::new();
    if !hits.is_empty() {
        for i in live {
            if !super::fixture::files_containing(&work.join(format!("f{i}")), SENTINEL).is_empty() {
                v.insert(
                    *i,
                    Verdict::Fail(format!("a check ran generated code: {hits:?}")),
                );
            }
        }
        if v.is_empty() {
            eprintln!(
                "warning: sentinel {hits:?} appeared, but no package of the batch mentions it"
            );
        }
    }
    checks::passed(live, v)
}
