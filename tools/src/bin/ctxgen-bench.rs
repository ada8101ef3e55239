//! The three-language benchmark: the same workloads (the protocol schemas' large instances and
//! vector streams, SchemaStore's tsconfig.json and package.json with their own test instances,
//! valid and invalid) through the generated Rust, TypeScript and Python bindings and each
//! language's peers in the same run; writes the validation section of `docs/performance.md`.
//!
//! ```text
//! ctxgen-bench [--quick] [--langs rust,typescript,python] [--work DIR] [--report FILE]
//!     [--corpus DIR] [--instances DIR] [--prepare-only]
//! ```
//!
//! `--quick` makes the large instances small and times one pass each: the test command runs it
//! to check that every harness still works (no timing is checked). Exits 1 when a harness fails
//! or a ctxgen binding gives another verdict than the specification's on any item.

mod bench;
#[allow(dead_code)]
#[path = "release_builds/directory.rs"]
mod directory;

use std::path::PathBuf;
use std::process::Command;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Validation and typed-parse benchmark of the generated bindings against peers")]
struct Args {
    /// Small instances, one pass per measurement (checks that the benchmark runs).
    #[arg(long)]
    quick: bool,
    /// The languages to run (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "rust,typescript,python")]
    langs: Vec<String>,
    /// Where workloads, generated packages and the Rust harness go.
    #[arg(long)]
    work: Option<PathBuf>,
    /// The Markdown file whose validation section to write (default: docs/performance.md,
    /// or target/bench-quick/performance.md with --quick).
    #[arg(long)]
    report: Option<PathBuf>,
    /// SchemaStore's schemas.
    #[arg(long, default_value = "../shared/corpus/schemastore")]
    corpus: PathBuf,
    /// SchemaStore's test instances.
    #[arg(long, default_value = "../shared/corpus/schemastore-instances")]
    instances: PathBuf,
    /// Write the manifest and the workloads, run nothing.
    #[arg(long)]
    prepare_only: bool,
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}

fn main() {
    let args = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| fail("no repository root"));
    let work = args.work.clone().unwrap_or_else(|| {
        root.join(if args.quick {
            "target/bench-quick"
        } else {
            "target/bench"
        })
    });
    std::fs::create_dir_all(&work).unwrap_or_else(|e| fail(&format!("{}: {e}", work.display())));
    let work = work.canonicalize().unwrap_or_else(|e| fail(&e.to_string()));
    let abs = |p: &PathBuf| {
        p.canonicalize()
            .unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())))
    };
    let paths = bench::workloads::Paths {
        root: root.clone(),
        corpus: abs(&args.corpus),
        instances: abs(&args.instances),
        work: work.clone(),
    };
    let setting = setting();
    eprintln!("== workloads and packages ({})", work.display());
    let manifest = bench::workloads::prepare(&paths, args.quick).unwrap_or_else(|e| fail(&e));
    let manifest_path = work.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    std::fs::write(&manifest_path, text).unwrap_or_else(|e| fail(&e.to_string()));
    if args.prepare_only {
        eprintln!("wrote {}", manifest_path.display());
        return;
    }
    let mut results = Vec::new();
    for lang in &args.langs {
        eprintln!("== {lang}");
        let r = match lang.as_str() {
            "rust" => bench::rust(&manifest_path, &work, !args.quick),
            "typescript" => bench::typescript(&root, &manifest_path, &work),
            "python" => match bench::python(&root, &manifest_path, &work, args.quick) {
                Ok((pure, native)) => {
                    results.push((lang.clone(), Ok(pure)));
                    results.push(("python-native".to_string(), Ok(native)));
                    continue;
                }
                Err(e) => Err(e),
            },
            other => fail(&format!("unknown language {other}")),
        };
        if let Err(e) = &r {
            eprintln!("FAILED {lang}: {e}");
        }
        results.push((lang.clone(), r));
    }
    let (section, behind, wrong) = bench::report::section(&manifest, &results, &setting);
    let report = args.report.clone().unwrap_or_else(|| {
        if args.quick {
            work.join("performance.md")
        } else {
            root.join("docs/performance.md")
        }
    });
    let old = std::fs::read_to_string(&report).unwrap_or_default();
    std::fs::write(&report, bench::report::splice(&old, &section))
        .unwrap_or_else(|e| fail(&format!("{}: {e}", report.display())));
    eprintln!(
        "wrote {}; ctxgen behind a peer in {} case(s)",
        report.display(),
        behind.len()
    );
    for w in &wrong {
        eprintln!("FAILED {w}");
    }
    if !wrong.is_empty() {
        std::process::exit(1);
    }
}

/// The machine the figures come from.
fn setting() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(String::from))
        .unwrap_or_else(|| "unknown".into());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown processor".into());
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!(
        "Run on {cores} cores ({cpu}), load average {load} at the start, {rustc}, release builds"
    )
}
