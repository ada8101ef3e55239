//! Release-build times of generated Rust crates against their `cargo check` time: the largest
//! crates ctxgen generates from a corpus, directory cases (a schema with the schemas it
//! references by URL), and a project's own schemas; typify's output for the same files where
//! it has one. Writes the "Release builds" section of `docs/corpus.md`.
//!
//! ```text
//! ctxgen-release-builds [CORPUS] [--largest N] [--files A.json,B.json] [--directory package.json]
//!     [--schemas DIR] [--python] [--no-builds] [--max-ratio X] [--report FILE] [--work DIR]
//! ```
//!
//! `--python` imports every module of each directory case's Python package and runs
//! `mypy --strict` on it (`tests/python/.venv/bin/python`, or `CTXGEN_PYTHON`).
//! `--max-ratio` exits 1 when a build fails, a Python check fails, or the crate's release or
//! LTO build takes more than X times its `cargo check` (the consumer binary's builds are
//! reported, not bounded).

mod release_builds;
// Shared with ctxgen-corpus, which keeps the section this run writes.
#[allow(dead_code)]
#[path = "corpus/section.rs"]
mod section;

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use release_builds::report::Measured;
use release_builds::{ctxgen, directory, measure, rust_bytes, typify, Case, Times};

#[derive(Parser)]
#[command(about = "Release-build times of generated Rust crates against cargo check")]
struct Args {
    /// The corpus folder.
    #[arg(default_value = "../shared/corpus/schemastore")]
    corpus: PathBuf,
    /// How many of the largest generated crates (by Rust source) to build.
    #[arg(long, default_value_t = 10)]
    largest: usize,
    /// These corpus files instead of the largest (comma-separated).
    #[arg(long, value_delimiter = ',')]
    files: Vec<String>,
    /// A corpus file generated with every corpus file it references, as one directory.
    #[arg(long)]
    directory: Vec<String>,
    /// A folder of schemas generated as one crate (a project's own schemas).
    #[arg(long)]
    schemas: Vec<PathBuf>,
    /// Import and type-check (mypy --strict) the directory cases' Python packages.
    #[arg(long)]
    python: bool,
    /// Generate (and check Python) only; no Rust builds.
    #[arg(long)]
    no_builds: bool,
    /// Fail when any build takes more than this many times its crate's cargo check.
    #[arg(long)]
    max_ratio: Option<f64>,
    /// The Markdown file whose release-build section to write (else printed).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Where crates and target folders go (outside any cargo workspace).
    #[arg(long)]
    work: Option<PathBuf>,
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}

fn main() {
    let args = Args::parse();
    let exe = std::env::current_exe()
        .expect("exe")
        .with_file_name(format!("ctxgen{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        fail(&format!(
            "{} not found: build it first (cargo build --release -p ctxgen -p ctxgen-tools --bins)",
            exe.display()
        ));
    }
    let work = args
        .work
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("ctxgen-release-builds"));
    std::fs::create_dir_all(&work).unwrap_or_else(|e| fail(&format!("{}: {e}", work.display())));
    let work = work.canonicalize().expect("work folder");
    let mut cases = corpus_cases(&args, &exe, &work);
    let mut python = Vec::new();
    for name in &args.directory {
        let files = directory::closure(&args.corpus, name).unwrap_or_else(|e| fail(&e));
        let dir = work.join(format!("dir-{}", name.trim_end_matches(".json")));
        directory::copy(&files, &dir.join("schemas"))
            .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
        let label = format!(
            "{name} with {} referenced files (directory)",
            files.len() - 1
        );
        let langs = if args.python { "rust,python" } else { "rust" };
        if let Some(case) = generate_dir(&exe, &dir, &label, langs) {
            if args.python {
                let py = python_exe();
                python.push((label, directory::check_python(&py, &dir.join("out/python"))));
            }
            cases.push(case);
        }
    }
    for schemas in &args.schemas {
        let dir = work.join(format!("schemas-{}", cases.len()));
        let _ = std::fs::remove_dir_all(&dir);
        directory::copy(&json_files(schemas), &dir.join("schemas"))
            .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
        let label = format!("{} (directory)", schemas.display());
        cases.extend(generate_dir(&exe, &dir, &label, "rust"));
    }
    let mut rows = Vec::new();
    if !args.no_builds {
        for case in cases {
            eprintln!("== {}", case.label);
            let times = measure(&case, &work, Some(release_builds::CONSUMER));
            let typify = typify_times(&args, &case, &work);
            eprintln!(
                "   check {:?} release {:?} lto {:?} consumer {:?} / {:?}; typify {}",
                times.check,
                times.release,
                times.lto,
                times.consumer_release,
                times.consumer_lto,
                match &typify {
                    Ok(t) => format!("check {:?} release {:?}", t.check, t.release),
                    Err(e) => e.clone(),
                }
            );
            rows.push(Measured {
                case,
                times,
                typify,
            });
        }
    }
    let setting = setting();
    let text = release_builds::report::section(&rows, &python, &setting);
    match &args.report {
        Some(path) => {
            let old = std::fs::read_to_string(path).unwrap_or_default();
            std::fs::write(path, section::splice(&old, &text))
                .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        }
        None => print!("{text}"),
    }
    let mut bad = Vec::new();
    for (label, r) in &python {
        if let Err(e) = r {
            bad.push(format!("{label}: Python: {e}"));
        }
    }
    if let Some(max) = args.max_ratio {
        for m in &rows {
            match m.times.crate_ratio() {
                Some(r) if r <= max => {}
                Some(r) => bad.push(format!("{}: {r:.1}× its cargo check", m.case.label)),
                None => bad.push(format!(
                    "{}: {}",
                    m.case.label,
                    m.times.failure.as_deref().unwrap_or("a build failed")
                )),
            }
        }
    }
    for b in &bad {
        eprintln!("FAILED {b}");
    }
    if !bad.is_empty() {
        std::process::exit(1);
    }
}

fn python_exe() -> PathBuf {
    std::env::var_os("CTXGEN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("tests/python/.venv/bin/python"))
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Generates `dir/schemas` into `dir/out`; the Rust crate as a case.
fn generate_dir(exe: &Path, dir: &Path, label: &str, langs: &str) -> Option<Case> {
    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let (schemas, out_s) = (dir.join("schemas"), out.display().to_string());
    let schemas_s = schemas.display().to_string();
    let package = format!(
        "rb-{}",
        dir.file_name()?.to_string_lossy().replace('.', "-")
    );
    let args = [
        "generate",
        "--no-project",
        "--lang",
        langs,
        "--package-name",
        &package,
        "--schemas",
        &schemas_s,
        "--out",
        &out_s,
    ];
    match ctxgen(exe, &args) {
        Ok(()) => Some(Case {
            label: label.to_string(),
            crate_dir: out.join("rust"),
            source_bytes: rust_bytes(&out.join("rust/src")),
        }),
        Err(e) => fail(&format!("{label}: {e}")),
    }
}

/// The chosen corpus files (`--files`, else the `--largest` by generated Rust source).
fn corpus_cases(args: &Args, exe: &Path, work: &Path) -> Vec<Case> {
    let all = if args.files.is_empty() {
        if args.largest == 0 {
            return Vec::new();
        }
        json_files(&args.corpus)
    } else {
        args.files.iter().map(|f| args.corpus.join(f)).collect()
    };
    let gen = work.join("gen");
    let _ = std::fs::remove_dir_all(&gen);
    let mut cases = Vec::new();
    for (i, file) in all.iter().enumerate() {
        let out = gen.join(format!("f{i}"));
        let (file_s, out_s, package) = (
            file.display().to_string(),
            out.display().to_string(),
            format!("corpus-f{i}"),
        );
        let args = [
            "generate",
            "--no-project",
            "--lang",
            "rust",
            "--package-name",
            &package,
            "--out",
            &out_s,
            &file_s,
        ];
        if ctxgen(exe, &args).is_ok() {
            cases.push(Case {
                label: file
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into()),
                crate_dir: out.join("rust"),
                source_bytes: rust_bytes(&out.join("rust/src")),
            });
        }
    }
    cases.sort_by(|a, b| {
        b.source_bytes
            .cmp(&a.source_bytes)
            .then(a.label.cmp(&b.label))
    });
    if args.files.is_empty() {
        cases.truncate(args.largest);
    }
    cases
}

/// typify's crate for a corpus file, built the same way (no consumer).
fn typify_times(args: &Args, case: &Case, work: &Path) -> Result<Times, String> {
    let file = args.corpus.join(&case.label);
    if !file.is_file() {
        return Err("a directory; typify reads one file".into());
    }
    let code = typify::generate(&file)?;
    let dir = work.join("typify-output");
    let _ = std::fs::remove_dir_all(&dir);
    release_builds::write_crate(&dir, typify::MANIFEST, "lib.rs", &typify::library(&code))
        .map_err(|e| e.to_string())?;
    let typify_case = Case {
        label: case.label.clone(),
        crate_dir: dir,
        source_bytes: code.len() as u64,
    };
    let consumer = typify::consumer(&code);
    let times = measure(&typify_case, work, consumer.as_deref());
    match (&times.check, &times.failure) {
        (None, Some(f)) => Err(format!("typify's output does not compile: {f}")),
        _ => Ok(times),
    }
}

/// The machine and toolchain the times come from.
fn setting() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(String::from))
        .unwrap_or_else(|| "unknown".into());
    format!("{cores} cores, {rustc}, load average {load} at the start")
}
