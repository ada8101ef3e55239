//! Release builds of generated crates: which crates, how they are built and timed.
//!
//! Every crate is timed alone: its dependencies are built first in the same target folder
//! (by a warm-up crate with the same `[dependencies]`), then the crate is cleaned and built
//! once with `cargo check`, once with `cargo build --release` and once with `lto = true`.
//! Because an LTO build of a library defers code generation to the final link, a consumer
//! binary that calls every type's parse, serialize and validate functions is built too.

pub mod directory;
pub mod report;
pub mod typify;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One generated crate to measure.
pub struct Case {
    /// What the report calls it: the schema file, or the directory case.
    pub label: String,
    /// The generated crate folder (`.../rust`).
    pub crate_dir: PathBuf,
    /// Bytes of generated Rust source.
    pub source_bytes: u64,
}

/// Seconds of each build of one crate; `None` where the build failed.
#[derive(Default)]
pub struct Times {
    pub check: Option<f64>,
    pub release: Option<f64>,
    pub lto: Option<f64>,
    pub consumer_release: Option<f64>,
    pub consumer_lto: Option<f64>,
    /// The first error line of a failed build.
    pub failure: Option<String>,
}

impl Times {
    /// The larger of the crate's release and LTO build times, divided by its check time.
    pub fn crate_ratio(&self) -> Option<f64> {
        ratio_of(self.check, &[self.release, self.lto])
    }

    /// The larger of the consumer binary's release and LTO build times, divided by the
    /// crate's check time.
    pub fn binary_ratio(&self) -> Option<f64> {
        ratio_of(self.check, &[self.consumer_release, self.consumer_lto])
    }
}

fn ratio_of(check: Option<f64>, times: &[Option<f64>]) -> Option<f64> {
    let check = check?;
    times
        .iter()
        .map(|t| t.map(|t| t / check))
        .try_fold(0.0_f64, |m, r| r.map(|r| m.max(r)))
}

/// Bytes of the `.rs` files under `dir`.
pub fn rust_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                rust_bytes(&p)
            } else if p.extension().is_some_and(|x| x == "rs") {
                e.metadata().map(|m| m.len()).unwrap_or(0)
            } else {
                0
            }
        })
        .sum()
}

/// Runs ctxgen; the first `error` line of its output on failure.
pub fn ctxgen(exe: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new(exe)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("could not start {}: {e}", exe.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("ctxgen failed")
        .to_string())
}

/// The package name of a crate (`name = "..."` of its `Cargo.toml`).
pub fn package_name(crate_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(crate_dir.join("Cargo.toml")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("name = \""))
        .map(|rest| rest.trim_end_matches('"').to_string())
}

/// The `[dependencies]` table of a crate's manifest, verbatim.
fn dependencies(crate_dir: &Path) -> String {
    let text = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
    match text.find("[dependencies]") {
        Some(i) => {
            let rest = &text[i..];
            let end = rest[1..].find("\n[").map_or(rest.len(), |j| j + 2);
            rest[..end].to_string()
        }
        None => String::new(),
    }
}

/// A cargo command with the default profiles: no inherited profile or flag overrides.
fn cargo(dir: &Path, target: &Path, lto: bool) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .stdout(Stdio::null());
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_PROFILE_") {
            c.env_remove(k);
        }
    }
    if lto {
        c.env("CARGO_PROFILE_RELEASE_LTO", "true");
    }
    c
}

/// Runs a cargo command and returns its wall time, or the first error line.
fn timed(mut c: Command) -> Result<f64, String> {
    let start = Instant::now();
    let out = c
        .output()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    if out.status.success() {
        return Ok(secs);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("cargo failed")
        .to_string())
}

/// Writes a crate: `Cargo.toml` and one source file.
pub fn write_crate(dir: &Path, manifest: &str, file: &str, source: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::write(dir.join("src").join(file), source)
}

/// The consumer of a crate ctxgen generated: reads a JSON value from stdin and runs
/// `round_trip` (parse, serialize) and `validate` for every type name given, so its build
/// compiles the serde code of every type.
pub const CONSUMER: &str = r#"use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("stdin");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    for name in std::env::args().skip(1) {
        let typed = generated::round_trip(&name, value.clone()).map(|r| r.is_ok());
        let checked = generated::validate(&name, &value).map(|r| r.is_ok());
        println!("{name}: {typed:?} {checked:?}");
    }
}
"#;

/// Times the builds of one crate. `work` holds the warm-up and consumer crates and the
/// target folders (shared by all cases, so dependencies are built once).
/// `consumer` is the `main.rs` of a binary that uses the crate as `generated`, if one is built.
pub fn measure(case: &Case, work: &Path, consumer: Option<&str>) -> Times {
    let mut times = Times::default();
    let Some(name) = package_name(&case.crate_dir) else {
        times.failure = Some("no package name in Cargo.toml".into());
        return times;
    };
    let deps = dependencies(&case.crate_dir);
    let warmup = work.join("warmup");
    let consumer_dir = work.join("consumer");
    let crate_path = case.crate_dir.display().to_string().replace('\\', "/");
    let built = write_crate(
        &warmup,
        &format!("[package]\nname = \"warmup\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n{deps}\n[workspace]\n"),
        "lib.rs",
        "",
    )
    .and_then(|()| {
        write_crate(
            &consumer_dir,
            &format!("[package]\nname = \"consumer\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\ngenerated = {{ package = \"{name}\", path = \"{crate_path}\" }}\nserde_json = \"1\"\n\n[workspace]\n"),
            "main.rs",
            consumer.unwrap_or("fn main() {}\n"),
        )
    });
    if let Err(e) = built {
        times.failure = Some(format!("cannot write {}: {e}", work.display()));
        return times;
    }
    let check_dir = work.join("target-check");
    let release_dir = work.join("target-release");
    let lto_dir = work.join("target-lto");
    // Dependencies first, then the crate (and the consumer) cleaned and timed.
    let prepare = |target: &Path, lto: bool, release: bool| {
        let mut c = cargo(&warmup, target, lto);
        c.arg(if release { "build" } else { "check" }).arg("-q");
        if release {
            c.arg("--release");
        }
        let _ = c.stderr(Stdio::null()).status();
        for p in [name.as_str(), "consumer"] {
            let mut clean = cargo(&consumer_dir, target, lto);
            clean.args(["clean", "-q", "-p", p]);
            if release {
                clean.arg("--release");
            }
            let _ = clean.stderr(Stdio::null()).status();
        }
    };
    let mut record = |slot: &mut Option<f64>, r: Result<f64, String>| match r {
        Ok(t) => *slot = Some(t),
        Err(e) => {
            times.failure.get_or_insert(e);
        }
    };
    let build = |dir: &Path, target: &Path, lto: bool, release: bool| {
        let mut c = cargo(dir, target, lto);
        if release {
            c.args(["build", "--release"]);
        } else {
            c.arg("check");
        }
        timed(c)
    };
    let mut check = None;
    let mut release = None;
    let mut lto = None;
    let mut consumer_release = None;
    let mut consumer_lto = None;
    prepare(&check_dir, false, false);
    record(&mut check, build(&case.crate_dir, &check_dir, false, false));
    prepare(&release_dir, false, true);
    record(
        &mut release,
        build(&case.crate_dir, &release_dir, false, true),
    );
    prepare(&lto_dir, true, true);
    record(&mut lto, build(&case.crate_dir, &lto_dir, true, true));
    if consumer.is_some() {
        prepare(&release_dir, false, true);
        record(
            &mut consumer_release,
            build(&consumer_dir, &release_dir, false, true),
        );
        prepare(&lto_dir, true, true);
        record(
            &mut consumer_lto,
            build(&consumer_dir, &lto_dir, true, true),
        );
    }
    times.check = check;
    times.release = release;
    times.lto = lto;
    times.consumer_release = consumer_release;
    times.consumer_lto = consumer_lto;
    times
}
