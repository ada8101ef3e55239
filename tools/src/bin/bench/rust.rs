//! The Rust harness of `ctxgen-bench`: a standalone cargo project under `<work>/rust-harness`
//! that depends on each set's generated crate by path, on `serde_json` and on the `jsonschema`
//! crate, and times every workload of the manifest (FORMAT.md). Its `src/main.rs` is
//! `harness.rs.txt` plus a generated `ops(target)` that dispatches to each target's type.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const TEMPLATE: &str = include_str!("harness.rs.txt");
const PACKAGE: &str = "ctxgen-bench-harness";

/// Writes and builds the Rust harness for `manifest` under `work/rust-harness`, runs it, and
/// returns the path of its results.json (format in FORMAT.md). `release`: build with the
/// release profile (false in quick mode: dev profile, to keep the test command short).
pub fn run(manifest: &Path, work: &Path, release: bool) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let m: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", manifest.display()))?;
    let manifest = std::path::absolute(manifest).map_err(|e| e.to_string())?;
    let dir = std::path::absolute(work.join("rust-harness")).map_err(|e| e.to_string())?;
    let crates = crates(&m)?;
    std::fs::create_dir_all(dir.join("src"))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write_if_changed(&dir.join("Cargo.toml"), &cargo_toml(&crates))?;
    let main = format!("{TEMPLATE}{}", dispatch(&m, &crates));
    write_if_changed(&dir.join("src/main.rs"), &main)?;
    if let Some(lock) = workspace_lock(&crates) {
        std::fs::copy(&lock, dir.join("Cargo.lock"))
            .map_err(|e| format!("cannot copy {}: {e}", lock.display()))?;
    } else {
        eprintln!("rust harness: no Cargo.lock of the workspace found; cargo resolves afresh");
    }
    let bin = build(&dir, release)?;
    let header = json!({
        "language": "rust",
        "runtime": format!(
            "{}, {} profile",
            rustc_version(),
            if release { "release" } else { "dev" }
        ),
        "versions": versions(&dir.join("Cargo.lock")),
    });
    let results = dir.join("results.json");
    if results.exists() {
        std::fs::remove_file(&results)
            .map_err(|e| format!("cannot remove {}: {e}", results.display()))?;
    }
    eprintln!("rust harness: running {}", bin.display());
    let status = Command::new(&bin)
        .arg(&manifest)
        .arg(&results)
        .arg(header.to_string())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !status.success() {
        return Err(format!("the Rust harness failed ({status})"));
    }
    if !results.is_file() {
        return Err(format!("the Rust harness wrote no {}", results.display()));
    }
    Ok(results)
}

/// A set's generated crate as the harness depends on it.
struct Crate {
    set: String,
    /// The dependency's name in the harness (`s0`, `s1`, ...: crate names may clash).
    alias: String,
    package: String,
    dir: PathBuf,
    /// Type name -> its free validation function (the types that are aliases).
    free: HashMap<String, String>,
}

/// The generated crate of every set that has one, in the manifest's order.
fn crates(m: &Value) -> Result<Vec<Crate>, String> {
    let sets = m["sets"].as_object().ok_or("the manifest has no sets")?;
    let mut out = Vec::new();
    for (name, set) in sets {
        let rust = &set["rust"];
        let (Some(dir), Some(package)) = (rust["crate_dir"].as_str(), rust["package"].as_str())
        else {
            continue;
        };
        let dir = std::path::absolute(dir).map_err(|e| format!("{dir}: {e}"))?;
        out.push(Crate {
            set: name.clone(),
            alias: format!("s{}", out.len()),
            package: package.to_string(),
            free: free_validators(&dir.join("src"))?,
            dir,
        });
    }
    Ok(out)
}

/// The free validation functions of a generated crate by type: an alias type has
/// `/// Checks a JSON value against the schema of [`T`].` then `pub fn validate_t(`.
fn free_validators(src: &Path) -> Result<HashMap<String, String>, String> {
    const DOC: &str = "/// Checks a JSON value against the schema of [`";
    let entries = std::fs::read_dir(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut out = HashMap::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (at, _) in text.match_indices(DOC) {
            let rest = &text[at + DOC.len()..];
            let Some((ty, rest)) = rest.split_once("`].\npub fn ") else {
                continue;
            };
            if let Some((f, _)) = rest.split_once('(') {
                if is_ident(ty) && is_ident(f) {
                    out.insert(ty.to_string(), f.to_string());
                }
            }
        }
    }
    Ok(out)
}

/// A TOML basic string (JSON's escapes are a subset of TOML's).
fn toml_str(s: &str) -> String {
    Value::from(s).to_string()
}

fn cargo_toml(crates: &[Crate]) -> String {
    let mut s = format!(
        "# Written by tools/src/bin/bench/rust.rs (ctxgen-bench): do not edit.\n\
         [package]\nname = \"{PACKAGE}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n\
         # Not a member of any enclosing workspace.\n[workspace]\n\n\
         # Quick mode builds dev: no debug info (faster, half the disk).\n\
         [profile.dev]\ndebug = false\n\n\
         [dependencies]\n\
         serde = \"1\"\n\
         serde_json = {{ version = \"1\", features = [\"float_roundtrip\", \"unbounded_depth\"] }}\n\
         jsonschema = {{ version = \"0.60\", default-features = false, features = [\"idna\"] }}\n"
    );
    for c in crates {
        let _ = writeln!(
            s,
            "{} = {{ package = {}, path = {} }} # set {}",
            c.alias,
            toml_str(&c.package),
            toml_str(&c.dir.to_string_lossy()),
            c.set
        );
    }
    s
}

/// Whether `s` can name a type at a crate's root.
fn is_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && s != "_"
}

/// `fn ops(target) -> Option<Ops>`: one arm per target with a Rust type.
fn dispatch(m: &Value, crates: &[Crate]) -> String {
    let mut s = String::from("fn ops(target: usize) -> Option<Ops> {\n    match target {\n");
    let targets = m["targets"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (i, t) in targets.iter().enumerate() {
        let set = t["set"].as_str().unwrap_or("");
        let Some(c) = crates.iter().find(|c| c.set == set) else {
            continue;
        };
        let Some(ty) = t["rust"].as_str().filter(|ty| is_ident(ty)) else {
            continue;
        };
        let path = format!("{}::{ty}", c.alias);
        // A type alias (`pub type T = String;`) has no `from_json` but a free `validate_t`:
        // its parse is text -> value -> validate -> typed value, as `from_json` does.
        let (validate, check, parse) = match c.free.get(ty) {
            Some(f) => (
                format!("{}::{f}", c.alias),
                format!("{}::{f}(v).is_ok()", c.alias),
                format!(
                    "parse_value(t).ok().filter(|v| {}::{f}(v).is_ok())\n\
                     \x20               .and_then(|v| serde_json::from_value::<{path}>(v).ok()).map(black_box).is_some()",
                    c.alias
                ),
            ),
            None => (
                format!("{path}::validate_value"),
                format!("{path}::is_valid(v)"),
                format!("black_box({path}::from_json(t)).is_ok()"),
            ),
        };
        let _ = write!(
            s,
            "        {i} => Some(Ops {{\n\
             \x20           check: |v| {check},\n\
             \x20           errors: |v| black_box({validate}(v)).map_or_else(|e| e.0.len(), |()| 0),\n\
             \x20           parse: |t| {parse},\n\
             \x20           serde: |t| black_box(serde_json::from_str::<{path}>(t)).is_ok(),\n\
             \x20       }}),\n"
        );
    }
    s.push_str("        _ => None,\n    }\n}\n");
    s
}

fn write_if_changed(path: &Path, body: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == body) {
        return Ok(());
    }
    std::fs::write(path, body).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The Cargo.lock of the workspace that holds this crate (or, failing that, of a generated
/// crate): the harness uses the dependency versions it pins, which are already downloaded.
fn workspace_lock(crates: &[Crate]) -> Option<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = here.parent().map(|p| p.join("Cargo.lock"));
    let from_crates = crates
        .iter()
        .flat_map(|c| c.dir.ancestors().map(|a| a.join("Cargo.lock")));
    candidates
        .into_iter()
        .chain(from_crates)
        .find(|p| p.is_file())
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds the harness; returns its binary.
fn build(dir: &Path, release: bool) -> Result<PathBuf, String> {
    let profile = if release { "release" } else { "dev" };
    eprintln!(
        "rust harness: cargo build ({profile} profile) in {}",
        dir.display()
    );
    let started = std::time::Instant::now();
    let mut cmd = cargo();
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET")
        .current_dir(dir);
    if release {
        cmd.arg("--release");
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        return Err(format!(
            "cargo build of the Rust harness ({}) failed ({}):\n{tail}",
            dir.display(),
            out.status
        ));
    }
    eprintln!(
        "rust harness: built in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let sub = if release { "release" } else { "debug" };
    let bin = dir
        .join("target")
        .join(sub)
        .join(format!("{PACKAGE}{}", std::env::consts::EXE_SUFFIX));
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!("cargo built no {}", bin.display()))
    }
}

/// `rustc -V` of the toolchain cargo uses.
fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "rustc (unknown version)".into())
}

/// The versions of `jsonschema` and `serde_json` the harness's Cargo.lock pins.
fn versions(lock: &Path) -> Value {
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut out = serde_json::Map::new();
    let mut name = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(n), Some(v)) = (name, line.strip_prefix("version = ")) {
            if matches!(n, "jsonschema" | "serde_json") && !out.contains_key(n) {
                out.insert(n.to_string(), Value::from(v.trim_matches('"')));
            }
            name = None;
        }
    }
    Value::Object(out)
}
