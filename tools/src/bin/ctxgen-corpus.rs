//! Runs ctxgen over a directory of real-world schemas and checks what it writes: every file is
//! generated in all three languages in its own process (10 s limit), then the Rust output is
//! type-checked with cargo, the TypeScript with tsc, and the Python imported and run through
//! mypy --strict. Writes a Markdown report.
//!
//! ```text
//! ctxgen-corpus <schema dir> [--every N] [--largest K] [--files A.json,B.json] [--list FILE]
//!     [--report FILE] [--no-compile] [--clippy] [--require-all] [--work DIR] [--keep]
//! ```
//!
//! `--clippy` checks the Rust output with clippy `-D warnings` (every feature) on each file's
//! generated crate instead of `cargo check` of its single-file module: stronger and slower, for
//! the CI subset.
//!
//! `--list` reads file names, one a line (`#` starts a comment). `--require-all` exits 1 unless
//! every selected file generates, declares every definition and passes every check (the CI
//! subset, `tests/corpus-subset.txt`). `--keep` leaves the work folder for a look. Tools: `tests/typescript/node_modules/.bin/tsc` (or `CTXGEN_TSC`) and
//! `tests/python/.venv/bin/python` (or `CTXGEN_PYTHON`) with pydantic and mypy.

mod corpus;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use corpus::{checks, report, Row, Verdict};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
    else {
        eprintln!("usage: ctxgen-corpus <schema dir> [--every N] [--largest K] [--files A,B] [--list FILE] [--report FILE] [--no-compile] [--clippy] [--require-all] [--work DIR] [--keep]");
        std::process::exit(2);
    };
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let every: Option<usize> = flag("--every").and_then(|v| v.parse().ok());
    let largest: usize = flag("--largest").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut only: Vec<String> = flag("--files")
        .map(|f| f.split(',').map(String::from).collect())
        .unwrap_or_default();
    if let Some(list) = flag("--list") {
        let text = std::fs::read_to_string(&list).unwrap_or_else(|e| fail(&format!("{list}: {e}")));
        only.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from),
        );
    }
    let compile = !args.iter().any(|a| a == "--no-compile");
    let files = corpus::select(&dir, every, largest, &only)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let exe = std::env::current_exe()
        .expect("exe")
        .with_file_name(format!("ctxgen{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        fail(&format!(
            "{} not found: build it first (cargo build --release -p ctxgen -p ctxgen-tools --bins)",
            exe.display()
        ));
    }
    let work = flag("--work").map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("ctxgen-corpus-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap_or_else(|e| fail(&format!("{}: {e}", work.display())));
    // The checkers run inside it: paths into it must not depend on the current directory.
    let work = work
        .canonicalize()
        .unwrap_or_else(|e| fail(&format!("{}: {e}", work.display())));
    let langs = if compile {
        "rust,typescript,python"
    } else {
        "rust"
    };

    let mut rows = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let out = work.join(format!("f{i}"));
        let start = Instant::now();
        let outcome = corpus::generate(&exe, file, &out, i, langs);
        let time = start.elapsed();
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut row = Row {
            file: name,
            outcome,
            time,
            definitions: (0, 0),
            verdicts: BTreeMap::new(),
        };
        if row.generated() {
            row.definitions = corpus::definitions_emitted(file, &out.join("rust/bindings.rs"));
        }
        rows.push(row);
    }
    eprintln!(
        "generated {} of {} file(s)",
        rows.iter().filter(|r| r.generated()).count(),
        rows.len()
    );

    let mut checked: Vec<&str> = Vec::new();
    if compile {
        let live: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].generated()).collect();
        let tsc = std::env::var_os("CTXGEN_TSC")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("tests/typescript/node_modules/.bin/tsc"));
        let python = std::env::var_os("CTXGEN_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("tests/python/.venv/bin/python"));
        let tsc = std::path::absolute(&tsc).unwrap_or(tsc);
        let python = std::path::absolute(&python).unwrap_or(python);
        // The three checkers run side by side; each is a batch over all packages.
        let clippy = args.iter().any(|a| a == "--clippy");
        let (rust, ts, py) = std::thread::scope(|s| {
            let r = s.spawn(|| {
                if clippy {
                    let files: Vec<(usize, &std::path::Path)> =
                        live.iter().map(|&i| (i, files[i].as_path())).collect();
                    checks::clippy(&exe, &work, &files)
                } else {
                    checks::rust(&work, &live)
                }
            });
            let t = s.spawn(|| checks::typescript(&work, &live, &tsc));
            let p = s.spawn(|| checks::python(&work, &live, &python));
            (
                r.join().expect("rust check"),
                t.join().expect("typescript check"),
                p.join().expect("python check"),
            )
        });
        let (imports, mypy) = py.unwrap_or_else(|e| fail(&format!("python: {e}")));
        for (key, verdicts) in [
            (
                if clippy { "rust-clippy" } else { "rust" },
                rust.unwrap_or_else(|e| fail(&format!("rust: {e}"))),
            ),
            (
                "typescript",
                ts.unwrap_or_else(|e| fail(&format!("typescript: {e}"))),
            ),
            ("python-import", imports),
            ("python", mypy),
        ] {
            for (i, v) in verdicts {
                rows[i].verdicts.insert(key, v);
            }
            checked.push(key);
        }
        // A package that does not import fails the combined Python check too.
        for r in &mut rows {
            if let Some(Verdict::Fail(m)) = r.verdicts.get("python-import").cloned() {
                r.verdicts
                    .insert("python", Verdict::Fail(format!("does not import: {m}")));
            }
        }
    }

    let text = report::markdown(&dir, &rows, &checked);
    match flag("--report") {
        Some(path) => {
            // The release-build section (`ctxgen-release-builds`) of the old report stays.
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            let text = match corpus::section::existing(&old) {
                Some(kept) => corpus::section::splice(&text, kept),
                None => text,
            };
            std::fs::write(&path, &text).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
        }
        None => print!("{text}"),
    }
    if !args.iter().any(|a| a == "--keep") {
        let _ = std::fs::remove_dir_all(&work);
    }
    if args.iter().any(|a| a == "--require-all") {
        let bad: Vec<&Row> = rows
            .iter()
            .filter(|r| {
                !r.generated()
                    || checked.iter().any(|k| !r.passes(k))
                    || r.definitions.0 != r.definitions.1
            })
            .collect();
        for r in &bad {
            let why: Vec<String> = r
                .verdicts
                .iter()
                .filter_map(|(k, v)| match v {
                    Verdict::Fail(m) => Some(format!("{k}: {m}")),
                    Verdict::Pass => None,
                })
                .collect();
            let why = match &r.outcome {
                corpus::Outcome::Generated => why.join("; "),
                corpus::Outcome::Refused(m) => format!("refused: {m}"),
                corpus::Outcome::Panicked(m) => format!("panicked: {m}"),
                corpus::Outcome::TimedOut => {
                    format!("took longer than {} s", corpus::LIMIT.as_secs())
                }
            };
            eprintln!("FAILED {}: {why}", r.file);
        }
        if !bad.is_empty() {
            eprintln!("{} of {} file(s) failed", bad.len(), rows.len());
            std::process::exit(1);
        }
        eprintln!("all {} file(s) generate and pass every check", rows.len());
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}
