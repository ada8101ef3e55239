//! Runs the official JSON-Schema-Test-Suite through the generated bindings of every language and
//! writes `docs/conformance.md` plus a machine-readable result list.
//!
//! `cargo run --release -p ctxgen-tools --bin ctxgen-conformance -- <suite dir> [--work DIR] [--report FILE]
//!  [--results FILE] [--lang rust,typescript,python,python-native]`

mod conformance;

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(suite) = args.first().map(PathBuf::from) else {
        eprintln!("usage: ctxgen-conformance <suite dir> [--work DIR] [--report FILE] [--results FILE] [--lang L,L]");
        std::process::exit(2);
    };
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let work = flag("--work")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/conformance"));
    let langs: Vec<String> = flag("--lang")
        .unwrap_or_else(|| "rust,typescript,python,python-native".into())
        .split(',')
        .map(String::from)
        .collect();
    if langs.iter().any(|l| l == "python") {
        if let Err(e) = conformance::langs::python_exe() {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
    let run = match conformance::run(&suite, &work, &langs) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    if let Some(path) = flag("--report") {
        std::fs::write(&path, conformance::report::markdown(&run)).expect("write report");
    }
    let results = conformance::report::results(&run);
    if let Some(path) = flag("--results") {
        std::fs::write(&path, &results).expect("write results");
    }
    print!("{}", conformance::report::summary(&run));
    if args.iter().any(|a| a == "--require-agreement") {
        let n = conformance::report::disagreement_count(&run);
        if n > 0 || !run.errors.is_empty() {
            eprintln!(
                "the languages disagree on {n} case(s); {} binding(s) failed to run",
                run.errors.len()
            );
            std::process::exit(1);
        }
    }
    // A case that passed in the committed baseline and fails now is a regression.
    if let Some(path) = flag("--baseline") {
        let baseline = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let now: std::collections::HashSet<&str> = results.lines().collect();
        let lost: Vec<&str> = baseline
            .lines()
            .filter(|l| !l.is_empty() && !now.contains(l))
            .collect();
        if !lost.is_empty() {
            eprintln!("{} case(s) passed in {path} and fail now:", lost.len());
            for l in &lost {
                eprintln!("  {l}");
            }
            std::process::exit(1);
        }
        println!("no regression against {path}");
    }
}
