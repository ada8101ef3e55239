//! The corpus run: generation of every file in its own process (panics and hangs stay
//! contained), a check that every definition became a type, then one batch check per language.

pub mod checks;
pub mod report;
pub mod section;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctxgen::{Config, Lang};

/// The longest generation (all languages) a file may take.
pub const LIMIT: Duration = Duration::from_secs(10);

pub enum Outcome {
    Generated,
    Refused(String),
    Panicked(String),
    TimedOut,
}

/// What a language's check said of one file.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    /// The first error the checker printed for the file.
    Fail(String),
}

pub struct Row {
    pub file: String,
    pub outcome: Outcome,
    pub time: Duration,
    /// Definitions (`$defs`/`definitions` entries) and how many became a Rust type.
    pub definitions: (usize, usize),
    pub verdicts: BTreeMap<&'static str, Verdict>,
}

impl Row {
    pub fn generated(&self) -> bool {
        matches!(self.outcome, Outcome::Generated)
    }

    pub fn passes(&self, check: &str) -> bool {
        self.verdicts.get(check) == Some(&Verdict::Pass)
    }
}

/// The `*.json` files of `dir`, sorted; with `every`, every n-th plus the `largest` biggest.
pub fn select(
    dir: &Path,
    every: Option<usize>,
    largest: usize,
    only: &[String],
) -> std::io::Result<Vec<PathBuf>> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    all.sort();
    if !only.is_empty() {
        let chosen: Vec<PathBuf> = all
            .iter()
            .filter(|p| {
                only.iter()
                    .any(|o| p.file_name().is_some_and(|n| n == o.as_str()))
            })
            .cloned()
            .collect();
        if let Some(missing) = only.iter().find(|o| {
            !chosen
                .iter()
                .any(|p| p.file_name().is_some_and(|n| n == o.as_str()))
        }) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{missing} is not in {}", dir.display()),
            ));
        }
        return Ok(chosen);
    }
    let Some(n) = every else { return Ok(all) };
    let mut chosen: Vec<PathBuf> = all.iter().step_by(n.max(1)).cloned().collect();
    let mut by_size = all.clone();
    by_size.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    for p in by_size.into_iter().take(largest) {
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort();
    Ok(chosen)
}

/// Generates one file in every language into `out`, as package `corpus-f<i>`.
pub fn generate(exe: &Path, file: &Path, out: &Path, index: usize, langs: &str) -> Outcome {
    // Diagnostics go to a file: a full pipe would block the child.
    let _ = std::fs::create_dir_all(out);
    let log_path = out.with_extension("log");
    let log = match std::fs::File::create(&log_path) {
        Ok(f) => f,
        Err(e) => return Outcome::Refused(format!("cannot write {}: {e}", log_path.display())),
    };
    let child = Command::new(exe)
        .args([
            "generate",
            "--no-project",
            "--single-file",
            "--lang",
            langs,
            "--package-name",
            &format!("corpus-f{index}"),
            "--out",
        ])
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
                let last = err
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error"))
                    .unwrap_or("")
                    .to_string();
                return match status.code() {
                    Some(0) => Outcome::Generated,
                    Some(2) => Outcome::Refused(last),
                    _ => Outcome::Panicked(
                        err.lines()
                            .find(|l| l.contains("panicked"))
                            .unwrap_or(&err)
                            .to_string(),
                    ),
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

/// Counts the file's definitions and those whose Rust type the generated file declares.
pub fn definitions_emitted(file: &Path, rust: &Path) -> (usize, usize) {
    let mut config = Config::new();
    config
        .schema_files(vec![file.to_path_buf()])
        .languages(&[Lang::Rust]);
    let (Ok(ir), Ok(text)) = (config.ir(), std::fs::read_to_string(rust)) else {
        return (0, 0);
    };
    let names = ctxgen::ir::names::type_names(Lang::Rust, &ir);
    let Some(module) = ir.modules.first() else {
        return (0, 0);
    };
    let mut total = 0;
    let mut emitted = 0;
    for id in &module.types {
        let p = &ir.types[*id].origin.pointer;
        let is_definition = ["/$defs/", "/definitions/"]
            .iter()
            .any(|k| p.strip_prefix(k).is_some_and(|rest| !rest.contains('/')));
        if !is_definition {
            continue;
        }
        total += 1;
        let name = &names[*id];
        let declared = |k: &str| {
            [" ", "<", "(", ";"]
                .iter()
                .any(|end| text.contains(&format!("pub {k} {name}{end}")))
        };
        if ["struct", "enum", "type"].iter().any(|k| declared(k)) {
            emitted += 1;
        }
    }
    (total, emitted)
}
