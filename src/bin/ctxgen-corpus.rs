//! Runs ctxgen over a directory of real-world schemas (one generation per file, 10 s limit each),
//! type-checks the Rust output in one batch crate, and writes a Markdown report.
//!
//! `cargo run --release --bin ctxgen-corpus -- <schema dir> [--every N] [--largest K] [--report FILE] [--no-compile]`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(10);

enum Outcome {
    Generated,
    Refused(String),
    Panicked(String),
    TimedOut,
}

struct Row {
    file: String,
    outcome: Outcome,
    time: Duration,
    compiles: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: ctxgen-corpus <schema dir> [--every N] [--largest K] [--report FILE]");
        std::process::exit(2);
    };
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let every: Option<usize> = flag("--every").and_then(|v| v.parse().ok());
    let largest: usize = flag("--largest").and_then(|v| v.parse().ok()).unwrap_or(0);
    let report = flag("--report").map(PathBuf::from);
    let files = select(&dir, every, largest);
    let exe = std::env::current_exe().expect("exe").with_file_name(format!("ctxgen{}", std::env::consts::EXE_SUFFIX));
    let work = std::env::temp_dir().join(format!("ctxgen-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("work dir");
    let mut rows = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let out = work.join(format!("f{i}"));
        let start = Instant::now();
        let outcome = run_one(&exe, file, &out);
        let time = start.elapsed();
        let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        rows.push(Row { file: name, outcome, time, compiles: false });
    }
    let compiled = !args.iter().any(|a| a == "--no-compile");
    if compiled {
        compile_batch(&work, &mut rows);
    }
    let text = render(&dir, &rows, compiled);
    match report {
        Some(path) => std::fs::write(&path, &text).expect("write report"),
        None => print!("{text}"),
    }
    let _ = std::fs::remove_dir_all(&work);
}

fn select(dir: &Path, every: Option<usize>, largest: usize) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("schema dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    all.sort();
    let Some(n) = every else { return all };
    let mut chosen: Vec<PathBuf> = all.iter().step_by(n.max(1)).cloned().collect();
    let mut by_size = all.clone();
    by_size.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    for p in by_size.into_iter().take(largest) {
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort();
    chosen
}

fn run_one(exe: &Path, file: &Path, out: &Path) -> Outcome {
    // Diagnostics go to a file: a full pipe would block the child.
    let _ = std::fs::create_dir_all(out);
    let log_path = out.with_extension("log");
    let log = match std::fs::File::create(&log_path) {
        Ok(f) => f,
        Err(e) => return Outcome::Refused(format!("cannot write {}: {e}", log_path.display())),
    };
    let child = Command::new(exe)
        .args(["generate", "--lang", "rust", "--single-file", "--out"])
        .arg(out)
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::from(log))
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Outcome::Refused(format!("could not start ctxgen: {e}")),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let err = std::fs::read_to_string(&log_path).unwrap_or_default();
                let last = err.lines().rev().find(|l| l.starts_with("error")).unwrap_or("").to_string();
                return match status.code() {
                    Some(0) => Outcome::Generated,
                    Some(2) => Outcome::Refused(last),
                    _ => Outcome::Panicked(err.lines().find(|l| l.contains("panicked")).unwrap_or(&err).to_string()),
                };
            }
            Ok(None) if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Outcome::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Outcome::Refused(format!("wait failed: {e}")),
        }
    }
}

/// Type-checks every generated file as a module of one crate, dropping the modules that fail
/// until the rest compiles.
fn compile_batch(work: &Path, rows: &mut [Row]) {
    let krate = work.join("check");
    std::fs::create_dir_all(krate.join("src")).expect("crate dir");
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"corpus-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nregress = \"0.12\"\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\n\n[workspace]\n",
    )
    .expect("manifest");
    let generated: Vec<usize> = (0..rows.len()).filter(|i| matches!(rows[*i].outcome, Outcome::Generated)).collect();
    // Chunks of about 3 MB of Rust keep rustc's memory and time in bounds.
    let mut chunk = Vec::new();
    let mut size = 0;
    for i in generated {
        let len = std::fs::metadata(work.join(format!("f{i}/rust/bindings.rs"))).map(|m| m.len()).unwrap_or(0);
        if size + len > 3_000_000 && !chunk.is_empty() {
            check_chunk(work, &krate, std::mem::take(&mut chunk), rows);
            size = 0;
        }
        chunk.push(i);
        size += len;
    }
    if !chunk.is_empty() {
        check_chunk(work, &krate, chunk, rows);
    }
}

fn check_chunk(work: &Path, krate: &Path, mut live: Vec<usize>, rows: &mut [Row]) {
    eprintln!("checking {} file(s)", live.len());
    for _round in 0..20 {
        let lib: String = live
            .iter()
            .map(|i| format!("#[allow(warnings)]\npub mod f{i} {{\n    include!(\"../../f{i}/rust/bindings.rs\");\n}}\n"))
            .collect();
        std::fs::write(krate.join("src/lib.rs"), lib).expect("lib");
        let out = Command::new("cargo")
            .args(["check", "--quiet", "--message-format", "short"])
            .current_dir(krate)
            .env("CARGO_TARGET_DIR", work.join("target"))
            .output()
            .expect("cargo");
        if out.status.success() {
            for i in &live {
                rows[*i].compiles = true;
            }
            return;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut bad = Vec::new();
        for line in stderr.lines().filter(|l| l.contains(": error")) {
            if let Some(i) = line.split("/f").nth(1).and_then(|r| r.split('/').next()).and_then(|n| n.parse::<usize>().ok()) {
                bad.push(i);
            }
        }
        if bad.is_empty() {
            eprintln!("batch check failed without a file to blame:\n{stderr}");
            return;
        }
        live.retain(|i| !bad.contains(i));
    }
}

fn render(dir: &Path, rows: &[Row], compiled: bool) -> String {
    let total = rows.len();
    let generated = rows.iter().filter(|r| matches!(r.outcome, Outcome::Generated)).count();
    let compiles = rows.iter().filter(|r| r.compiles).count();
    let panics: Vec<&Row> = rows.iter().filter(|r| matches!(r.outcome, Outcome::Panicked(_))).collect();
    let timeouts: Vec<&Row> = rows.iter().filter(|r| matches!(r.outcome, Outcome::TimedOut)).collect();
    let slowest = rows.iter().max_by_key(|r| r.time);
    let pct = |n: usize| if total == 0 { 0.0 } else { 100.0 * n as f64 / total as f64 };
    let mut s = String::new();
    s.push_str("# SchemaStore corpus run\n\n");
    s.push_str(&format!("Generated by `ctxgen-corpus` over `{}`.\n\n", dir.display()));
    s.push_str("| | files | share |\n|---|---:|---:|\n");
    s.push_str(&format!("| schemas | {total} | 100.0% |\n"));
    s.push_str(&format!("| generated | {generated} | {:.1}% |\n", pct(generated)));
    if compiled {
        s.push_str(&format!("| Rust compiles | {compiles} | {:.1}% |\n", pct(compiles)));
    } else {
        s.push_str("| Rust compiles | not checked (`--no-compile`) | |\n");
    }
    s.push_str(&format!("| panics | {} | |\n| over 10 s | {} | |\n\n", panics.len(), timeouts.len()));
    if let Some(r) = slowest {
        s.push_str(&format!("Slowest file: `{}` in {:.2} s.\n\n", r.file, r.time.as_secs_f64()));
    }
    let mut reasons: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        if let Outcome::Refused(msg) = &r.outcome {
            reasons.entry(classify(msg)).or_default().push(r);
        }
    }
    if !reasons.is_empty() {
        s.push_str("## Refused, by reason\n\n| reason | files | example |\n|---|---:|---|\n");
        for (reason, list) in &reasons {
            let example = match &list[0].outcome {
                Outcome::Refused(m) => m.replace('|', "\\|"),
                _ => String::new(),
            };
            s.push_str(&format!("| {reason} | {} | `{}`: {} |\n", list.len(), list[0].file, example));
        }
        s.push('\n');
    }
    let failed: Vec<&Row> = rows.iter().filter(|r| compiled && matches!(r.outcome, Outcome::Generated) && !r.compiles).collect();
    if !failed.is_empty() {
        s.push_str("## Generated but not compiling\n\n");
        for r in failed {
            s.push_str(&format!("- `{}`\n", r.file));
        }
        s.push('\n');
    }
    for r in panics.iter().chain(timeouts.iter()) {
        let why = match &r.outcome {
            Outcome::Panicked(m) => m.clone(),
            _ => "over 10 s".to_string(),
        };
        s.push_str(&format!("- problem: `{}`: {why}\n", r.file));
    }
    s
}

fn classify(msg: &str) -> String {
    let m = msg.to_lowercase();
    let table = [
        ("malformed json", "malformed JSON"),
        ("remote", "remote $ref not available offline"),
        ("climbs out", "$ref outside the schema root"),
        ("does not exist", "$ref to a missing location"),
        ("no anchor", "$ref to a missing anchor"),
        ("not loaded and not found", "$ref to a missing file"),
        ("must be", "schema keyword with the wrong shape"),
        ("unknown type", "unknown type name"),
        ("nests too deeply", "schema nested too deeply"),
        ("cannot be compiled", "unusable pattern"),
    ];
    table.iter().find(|(k, _)| m.contains(k)).map_or_else(|| "other".to_string(), |(_, v)| v.to_string())
}
