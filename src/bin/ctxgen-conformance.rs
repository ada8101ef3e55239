//! Runs the official JSON-Schema-Test-Suite through the generated bindings of every language and
//! writes `docs/conformance.md` plus a machine-readable result list.
//!
//! `cargo run --release --bin ctxgen-conformance -- <suite dir> [--work DIR] [--report FILE]
//!  [--results FILE] [--lang rust,typescript,python]`

mod conformance;

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(suite) = args.first().map(PathBuf::from) else {
        eprintln!("usage: ctxgen-conformance <suite dir> [--work DIR] [--report FILE] [--results FILE] [--lang L,L]");
        std::process::exit(2);
    };
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let work = flag("--work").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("target/conformance"));
    let langs: Vec<String> = flag("--lang").unwrap_or_else(|| "rust,typescript,python".into()).split(',').map(String::from).collect();
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
    if let Some(path) = flag("--results") {
        std::fs::write(&path, conformance::report::results(&run)).expect("write results");
    }
    print!("{}", conformance::report::summary(&run));
}
