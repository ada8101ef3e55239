//! One batch check per language over the generated packages `<work>/f<i>/<lang>`: every
//! package is checked in a shared build (a crate, a tsc project, a mypy run) of bounded size,
//! and each error is charged to the package whose path it names.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::Verdict;

/// Verdicts by file index.
pub type Verdicts = BTreeMap<usize, Verdict>;

/// Splits packages into chunks of about `budget` bytes of generated code.
pub fn chunks(work: &Path, live: &[usize], sub: &str, budget: u64) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    let mut size = 0;
    for &i in live {
        let len = dir_size(&work.join(format!("f{i}/{sub}")));
        if size + len > budget && !out.last().is_some_and(Vec::is_empty) {
            out.push(Vec::new());
            size = 0;
        }
        out.last_mut().expect("one chunk").push(i);
        size += len;
    }
    out.retain(|c| !c.is_empty());
    out
}

fn dir_size(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| dir_size(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// The file index an error line names (`f12/…`, `…/f12/…`, `…/corpus_f12/…`), if any.
fn blame(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    (0..bytes.len())
        .filter(|&k| bytes[k] == b'f' && (k == 0 || matches!(bytes[k - 1], b'/' | b'_')))
        .find_map(|k| {
            let digits: String = line[k + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let after = &line[k + 1 + digits.len()..];
            (!digits.is_empty() && after.starts_with('/'))
                .then(|| digits.parse().ok())
                .flatten()
        })
}

/// Charges error lines to packages; returns whether any line was charged.
fn charge(
    text: &str,
    is_error: impl Fn(&str) -> bool,
    chunk: &[usize],
    verdicts: &mut Verdicts,
) -> bool {
    let mut any = false;
    for line in text.lines().filter(|l| is_error(l)) {
        if let Some(i) = blame(line).filter(|i| chunk.contains(i)) {
            verdicts
                .entry(i)
                .or_insert_with(|| Verdict::Fail(line.trim().to_string()));
            any = true;
        }
    }
    any
}

pub fn run(cmd: &mut Command) -> (bool, String) {
    match cmd.output() {
        Ok(o) => (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (false, format!("could not run {cmd:?}: {e}")),
    }
}

/// Runs `once` over the packages `left` until a run passes: each failing run charges the
/// packages its error lines name; when `again` says the errors may hide others (the checker
/// stopped early), the charged packages are dropped and the rest checked once more.
pub fn until_clean(
    what: &str,
    mut left: Vec<usize>,
    verdicts: &mut Verdicts,
    is_error: impl Fn(&str) -> bool,
    again: impl Fn(&str) -> bool,
    mut once: impl FnMut(&[usize]) -> Result<(bool, String), String>,
) -> Result<(), String> {
    while !left.is_empty() {
        eprintln!("{what}: {} package(s)", left.len());
        let (ok, out) = once(&left)?;
        if ok {
            break;
        }
        if !charge(&out, &is_error, &left, verdicts) {
            return Err(format!("{what} failed without naming a package:\n{out}"));
        }
        if !again(&out) {
            break;
        }
        left.retain(|i| !verdicts.contains_key(i));
    }
    Ok(())
}

/// Every package not charged with an error passed.
pub fn passed(live: &[usize], mut verdicts: Verdicts) -> Verdicts {
    for i in live {
        verdicts.entry(*i).or_insert(Verdict::Pass);
    }
    verdicts
}

/// `cargo check` of every `bindings.rs` as a module of one crate per chunk, the chunks shared
/// among one worker per core (each with its own crate and target directory). A module that fails
/// is dropped and the rest checked again, so an error that stops rustc early hides no other file.
pub fn rust(work: &Path, live: &[usize]) -> Result<Verdicts, String> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4);
    let all = chunks(work, live, "rust", 4_000_000);
    let results: Vec<Result<Verdicts, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let mine: Vec<Vec<usize>> = all.iter().skip(w).step_by(workers).cloned().collect();
                s.spawn(move || rust_worker(work, w, mine))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a cargo check worker panicked".into()))
            })
            .collect()
    });
    let mut verdicts = Verdicts::new();
    for r in results {
        verdicts.extend(r?);
    }
    Ok(passed(live, verdicts))
}

/// clippy `-D warnings` (every feature) on the generated crate of each file: each file generated
/// again as a crate (`<work>/clippy/f<i>/rust`), all of them members of one workspace, checked
/// in one `cargo clippy --keep-going` that shares one target directory. A stronger check than
/// [`rust`] (clippy runs rustc's checks first), for the CI subset, where it replaces both.
pub fn clippy(exe: &Path, work: &Path, files: &[(usize, &Path)]) -> Result<Verdicts, String> {
    let ws = work.join("clippy");
    std::fs::create_dir_all(&ws).map_err(|e| e.to_string())?;
    let mut verdicts = Verdicts::new();
    let mut members = Vec::new();
    for (i, file) in files {
        let out = ws.join(format!("f{i}"));
        let (ok, text) = run(Command::new(exe)
            .args([
                "generate",
                "--no-project",
                "--lang",
                "rust",
                "--package-name",
            ])
            .arg(format!("corpus-f{i}"))
            .arg("--out")
            .arg(&out)
            .arg(file));
        if ok {
            members.push(format!("\"f{i}/rust\""));
        } else {
            let first = text.lines().find(|l| l.starts_with("error")).unwrap_or("");
            verdicts.insert(*i, Verdict::Fail(format!("generating the crate: {first}")));
        }
    }
    std::fs::write(
        ws.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            members.join(", ")
        ),
    )
    .map_err(|e| e.to_string())?;
    // The versions ctxgen's own lock file pins, when run from its repository.
    if Path::new("Cargo.lock").is_file() {
        std::fs::copy("Cargo.lock", ws.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    let live: Vec<usize> = files
        .iter()
        .map(|(i, _)| *i)
        .filter(|i| !verdicts.contains_key(i))
        .collect();
    // `--keep-going` reports every crate's errors in one run: nothing is hidden, no second run.
    until_clean(
        "cargo clippy -D warnings",
        live.clone(),
        &mut verdicts,
        |l| l.contains(": error"),
        |_| false,
        |_| {
            Ok(run(Command::new("cargo")
                .args([
                    "clippy",
                    "--quiet",
                    "--keep-going",
                    "--workspace",
                    "--all-features",
                    "--message-format",
                    "short",
                    "--",
                    "-D",
                    "warnings",
                ])
                .current_dir(&ws)
                .env("CARGO_TARGET_DIR", work.join("clippy-target"))))
        },
    )?;
    Ok(passed(&live, verdicts))
}

/// The crate-level attribute a check crate needs for the generated files it includes as
/// modules: the highest `recursion_limit` any of them asks for (in `lib.rs` as an attribute, in
/// a single-file `bindings.rs` as a comment), or nothing.
pub fn crate_attributes(files: impl Iterator<Item = std::path::PathBuf>) -> String {
    const KEY: &str = "recursion_limit = \"";
    let limit = files
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|text| {
            let at = text.find(KEY)? + KEY.len();
            let digits: String = text[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<usize>().ok()
        })
        .max();
    limit.map_or_else(String::new, |n| format!("#![recursion_limit = \"{n}\"]\n"))
}

/// The `Cargo.toml` of a crate that checks generated Rust code as modules: the dependencies
/// the generator declares for it.
pub fn check_manifest(name: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[features]\nschemars = []\n\n[dependencies]\n{}\n[workspace]\n",
        ctxgen::backend::rust::dependencies_toml()
    )
}

fn rust_worker(work: &Path, w: usize, chunks: Vec<Vec<usize>>) -> Result<Verdicts, String> {
    let krate = work.join(format!("rust-check-{w}"));
    std::fs::create_dir_all(krate.join("src")).map_err(|e| e.to_string())?;
    std::fs::write(krate.join("Cargo.toml"), check_manifest("corpus-check"))
        .map_err(|e| e.to_string())?;
    // The versions ctxgen's own lock file pins, when run from its repository.
    if Path::new("Cargo.lock").is_file() && !krate.join("Cargo.lock").exists() {
        std::fs::copy("Cargo.lock", krate.join("Cargo.lock")).map_err(|e| e.to_string())?;
    }
    let mut verdicts = Verdicts::new();
    for chunk in chunks {
        until_clean(
            "cargo check",
            chunk,
            &mut verdicts,
            |l| l.contains(": error"),
            |_| true,
            |left| {
                let head = crate_attributes(
                    left.iter()
                        .map(|i| work.join(format!("f{i}/rust/bindings.rs"))),
                );
                let lib: String = head + &left.iter().map(|i| format!("#[allow(warnings)]\npub mod f{i} {{\n    include!(\"../../f{i}/rust/bindings.rs\");\n}}\n")).collect::<String>();
                std::fs::write(krate.join("src/lib.rs"), lib).map_err(|e| e.to_string())?;
                Ok(run(Command::new("cargo")
                    .args(["check", "--quiet", "--message-format", "short"])
                    .current_dir(&krate)
                    .env(
                        "CARGO_TARGET_DIR",
                        work.join(format!("rust-target-{w}")),
                    )))
            },
        )?;
    }
    Ok(verdicts)
}

/// `tsc --noEmit` with the generated packages' strict flags over chunks of packages. tsc
/// reports only syntax errors when there are any: after those the rest is checked again.
pub fn typescript(work: &Path, live: &[usize], tsc: &Path) -> Result<Verdicts, String> {
    if !tsc.exists() {
        return Err(format!(
            "{} not found: run `npm ci` in tests/typescript",
            tsc.display()
        ));
    }
    // The packages' dependencies (`re2js`, when a pattern needs it) come from the test harness:
    // module resolution finds them in the work directory above every package.
    let modules = work.join("node_modules");
    if let (false, Some(dir)) = (modules.exists(), tsc.parent().and_then(Path::parent)) {
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir, &modules)
            .map_err(|e| format!("linking node_modules: {e}"))?;
    }
    let mut verdicts = Verdicts::new();
    for (n, chunk) in chunks(work, live, "typescript/src", 25_000_000)
        .into_iter()
        .enumerate()
    {
        let path = work.join(format!("tsconfig.{n}.json"));
        // Only syntax errors (TS1xxx) stop tsc before the type errors of other packages.
        let syntax = |out: &str| out.contains("error TS1");
        until_clean(
            "tsc",
            chunk,
            &mut verdicts,
            |l| l.contains("error TS"),
            syntax,
            |left| {
                let include: Vec<String> = left
                    .iter()
                    .map(|i| format!("\"f{i}/typescript/src\""))
                    .collect();
                let config = format!(
                "{{\"compilerOptions\": {{\"target\": \"ES2022\", \"module\": \"NodeNext\", \"moduleResolution\": \"NodeNext\", \"lib\": [\"ES2022\"], \"strict\": true, \"noUncheckedIndexedAccess\": true, \"exactOptionalPropertyTypes\": true, \"noImplicitOverride\": true, \"skipLibCheck\": true, \"noEmit\": true, \"types\": []}}, \"include\": [{}]}}",
                include.join(", ")
            );
                std::fs::write(&path, config).map_err(|e| e.to_string())?;
                Ok(run(Command::new(tsc)
                    .arg("-p")
                    .arg(&path)
                    .current_dir(work)))
            },
        )?;
    }
    Ok(passed(live, verdicts))
}

const IMPORT_DRIVER: &str = r#"import importlib, sys, traceback
for name in sys.argv[1:]:
    print("start", name, flush=True)
    try:
        importlib.import_module(name)
        print("ok", name, flush=True)
    except BaseException as e:
        lines = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
        print("fail", name, lines[0] if lines else type(e).__name__, flush=True)
"#;

/// Imports every package (a process per chunk; a crash is charged to the package being
/// imported and the rest go on), then runs `mypy --strict` over the packages that import.
pub fn python(work: &Path, live: &[usize], python: &Path) -> Result<(Verdicts, Verdicts), String> {
    let lib = work.join("py");
    std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
    for i in live {
        let target = work.join(format!("f{i}/python/src/corpus_f{i}"));
        let link = lib.join(format!("corpus_f{i}"));
        if !link.exists() {
            symlink(&target, &link).map_err(|e| format!("{}: {e}", link.display()))?;
        }
    }
    let driver = work.join("import_all.py");
    std::fs::write(&driver, IMPORT_DRIVER).map_err(|e| e.to_string())?;
    let mut imports = Verdicts::new();
    for chunk in chunks(work, live, "python/src", 30_000_000) {
        let mut left: Vec<usize> = chunk.clone();
        while !left.is_empty() {
            eprintln!("python imports: {} package(s)", left.len());
            let (_, out) = run(Command::new(python)
                .arg(&driver)
                .args(left.iter().map(|i| format!("corpus_f{i}")))
                .env("PYTHONPATH", &lib));
            let mut last = None;
            for line in out.lines() {
                let mut parts = line.splitn(3, ' ');
                let (Some(kind), Some(name)) = (parts.next(), parts.next()) else {
                    continue;
                };
                let Some(i) = name
                    .strip_prefix("corpus_f")
                    .and_then(|n| n.parse::<usize>().ok())
                else {
                    continue;
                };
                match kind {
                    "start" => last = Some(i),
                    "ok" => {
                        imports.insert(i, Verdict::Pass);
                    }
                    "fail" => {
                        imports.insert(i, Verdict::Fail(parts.next().unwrap_or("").to_string()));
                    }
                    _ => {}
                }
            }
            if let Some(i) = last.filter(|i| !imports.contains_key(i)) {
                imports.insert(
                    i,
                    Verdict::Fail(format!(
                        "the interpreter died: {}",
                        out.lines().last().unwrap_or("")
                    )),
                );
            }
            let before = left.len();
            left.retain(|i| !imports.contains_key(i));
            if left.len() == before {
                return Err(format!("python did not import anything:\n{out}"));
            }
        }
    }
    let importable: Vec<usize> = live
        .iter()
        .copied()
        .filter(|i| imports.get(i) == Some(&Verdict::Pass))
        .collect();
    let mut mypy = Verdicts::new();
    let cache = work.join("mypy-cache");
    for chunk in chunks(work, &importable, "python/src", 12_000_000) {
        // A blocking error (a syntax error, say) stops mypy before the other packages.
        let blocked = |out: &str| {
            out.lines()
                .any(|l| l.contains("[syntax]") || l.contains("errors prevented further checking"))
        };
        until_clean(
            "mypy --strict",
            chunk,
            &mut mypy,
            |l| l.contains(": error:"),
            blocked,
            |left| {
                let mut cmd = Command::new(python);
                cmd.args([
                    "-m",
                    "mypy",
                    "--strict",
                    "--no-error-summary",
                    "--cache-dir",
                ])
                .arg(&cache)
                .env("MYPYPATH", &lib)
                .current_dir(work);
                for i in left {
                    cmd.arg("-p").arg(format!("corpus_f{i}"));
                }
                Ok(run(&mut cmd))
            },
        )?;
    }
    Ok((imports, passed(&importable, mypy)))
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for e in std::fs::read_dir(from)?.flatten() {
            let dest = to.join(e.file_name());
            if e.path().is_dir() {
                copy(&e.path(), &dest)?;
            } else {
                std::fs::copy(e.path(), dest)?;
            }
        }
        Ok(())
    }
    copy(target, link)
}

#[cfg(test)]
mod tests {
    #[test]
    fn blame_finds_the_package_in_each_checker_path() {
        assert_eq!(
            super::blame("f40/typescript/src/a.ts(32,3): error TS2411: x"),
            Some(40)
        );
        assert_eq!(
            super::blame("py/corpus_f98/avro.py:258: error: y"),
            Some(98)
        );
        assert_eq!(
            super::blame("../../f7/rust/bindings.rs:1:2: error[E0412]: z"),
            Some(7)
        );
        assert_eq!(
            super::blame("f3/rust/src/types.rs:10:5: error: this could be `Copy`"),
            Some(3)
        );
        assert_eq!(super::blame("src/lib.rs:3:1: error: nothing"), None);
    }
}
