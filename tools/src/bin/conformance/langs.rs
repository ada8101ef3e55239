//! Runs cases through one language's generated package: a small driver per language reads
//! `[[type name or null, instance], …]` and prints one verdict per case (`true`, `false`, or
//! `null` when the binding failed).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

type Case = (usize, usize, Option<String>, Value);

fn exec(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn write_cases(path: &Path, cases: &[Case]) -> Result<(), String> {
    let list: Vec<Value> = cases
        .iter()
        .map(|(_, _, name, data)| json!([name, data]))
        .collect();
    std::fs::write(path, serde_json::to_string(&list).unwrap()).map_err(|e| e.to_string())
}

fn read_verdicts(text: &str, n: usize) -> Result<Vec<Option<bool>>, String> {
    let v: Vec<Option<bool>> =
        serde_json::from_str(text.trim()).map_err(|e| format!("driver output: {e}"))?;
    if v.len() != n {
        return Err(format!(
            "driver returned {} verdicts for {n} cases",
            v.len()
        ));
    }
    Ok(v)
}

pub fn run(
    lang: &str,
    out: &Path,
    work: &Path,
    cases: &[Case],
) -> Result<Vec<Option<bool>>, String> {
    let out = std::fs::canonicalize(out).map_err(|e| e.to_string())?;
    let tag = out.file_name().unwrap().to_string_lossy().to_string();
    let dir = std::fs::canonicalize(work)
        .map_err(|e| e.to_string())?
        .join(format!("driver-{lang}-{tag}"));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cases_file = dir.join("cases.json");
    write_cases(&cases_file, cases)?;
    let text = match lang {
        "rust" => rust(&out, &dir, &cases_file)?,
        "typescript" => typescript(&out, &dir, &cases_file)?,
        "python" => python(&out, &dir, &cases_file, None)?,
        "python-native" => {
            let module = native(&out, &dir)?;
            python(&out, &dir, &cases_file, Some(&module))?
        }
        other => return Err(format!("no driver for {other}")),
    };
    read_verdicts(&text, cases.len())
}

const RUST_MAIN: &str = r#"use serde_json::Value;

fn main() {
    let path = std::env::args().nth(1).expect("cases file");
    let cases: Vec<(Option<String>, Value)> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let verdicts: Vec<Option<bool>> = cases
        .iter()
        .map(|(name, data)| match name {
            None => Some(true),
            Some(n) => conformance::validate(n, data).map(|r| r.is_ok()),
        })
        .collect();
    println!("{}", serde_json::to_string(&verdicts).unwrap());
}
"#;

/// The driver's build: the generated crates unoptimized, their dependencies (serde_json, the
/// regex engines) optimized a little. A suite's crates hold thousands of small schemas that
/// each run a few instances: an optimized build of them took minutes and saved nothing.
const PROFILE: &str = "[profile.dev]\ndebug = false\n\n[profile.dev.package.\"*\"]\nopt-level = 1\n\n[profile.dev.package.conformance]\nopt-level = 0\n\n";

fn rust(out: &Path, dir: &Path, cases: &Path) -> Result<String, String> {
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let manifest = format!(
        "[package]\nname = \"driver\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nconformance = {{ path = {:?} }}\nserde_json = \"1\"\n\n{PROFILE}[workspace]\n",
        out.join("rust").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("src/main.rs"), RUST_MAIN).map_err(|e| e.to_string())?;
    let target = dir.parent().unwrap().join("rust-target");
    exec(
        Command::new("cargo")
            .args(["build", "--quiet"])
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_INCREMENTAL", "0")
            .env_remove("CARGO_PROFILE_DEV_DEBUG"),
        "cargo build (rust driver)",
    )?;
    exec(
        Command::new(target.join("debug/driver")).arg(cases),
        "rust driver",
    )
}

const TS_DRIVER: &str = r#"import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [pkg, file] = process.argv.slice(2);
const api = await import(pathToFileURL(pkg + "/dist/index.js").href);
const cases = JSON.parse(readFileSync(file, "utf8"));
const verdicts = cases.map(([name, data]) => {
  if (name === null) return true;
  const f = api["validate" + name];
  if (typeof f !== "function") return null;
  try {
    return f(data).length === 0;
  } catch {
    return null;
  }
});
console.log(JSON.stringify(verdicts));
"#;

fn typescript(out: &Path, dir: &Path, cases: &Path) -> Result<String, String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let tsc = root.join("tests/typescript/node_modules/.bin/tsc");
    if !tsc.exists() {
        return Err(
            "tests/typescript/node_modules is missing: run `npm ci` in tests/typescript".into(),
        );
    }
    let pkg = out.join("typescript");
    // The package's dependencies (`re2js`, when a pattern needs it) come from the test harness.
    let modules = pkg.join("node_modules");
    if !modules.exists() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("tests/typescript/node_modules"), &modules)
            .map_err(|e| format!("linking node_modules: {e}"))?;
    }
    exec(
        Command::new(&tsc)
            .args(["-p", "tsconfig.json"])
            .current_dir(&pkg),
        "tsc (conformance package)",
    )?;
    let driver = dir.join("driver.mjs");
    std::fs::write(&driver, TS_DRIVER).map_err(|e| e.to_string())?;
    exec(
        Command::new("node").arg(&driver).arg(&pkg).arg(cases),
        "node driver",
    )
}

const PY_DRIVER: &str = r#"import importlib, json, re, sys
sys.path.insert(0, sys.argv[1])
native = sys.argv[3] if len(sys.argv) > 3 else None
if native:
    sys.path.insert(0, native)
api = importlib.import_module("conformance")
if native and not api._runtime.ACCELERATED:
    sys.exit("the native accelerator did not load")
def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
out = []
for name, data in json.load(open(sys.argv[2])):
    if name is None:
        out.append(True)
        continue
    f = getattr(api, "validate_" + snake(name), None)
    try:
        out.append(None if f is None else len(f(data)) == 0)
    except Exception:
        out.append(None)
print(json.dumps(out))
"#;

/// Runs the Python driver; with `native`, the directory of the built accelerator goes on the
/// path and the driver refuses to run without it.
fn python(out: &Path, dir: &Path, cases: &Path, native: Option<&Path>) -> Result<String, String> {
    let src = out.join("python/src");
    if !src.join("conformance").is_dir() {
        return Err("the Python backend wrote no package".into());
    }
    let driver = dir.join("driver.py");
    std::fs::write(&driver, PY_DRIVER).map_err(|e| e.to_string())?;
    let python = python_exe()?;
    let mut cmd = Command::new(python);
    cmd.arg(&driver).arg(&src).arg(cases);
    if let Some(native) = native {
        cmd.arg(native);
    }
    exec(&mut cmd, "python driver")
}

/// Builds the Python package's native accelerator (`python/native`, with cargo: one shared
/// target folder, dependencies optimized a little) and puts the extension module into a
/// folder of its own under `dir`; returns that folder.
fn native(out: &Path, dir: &Path) -> Result<PathBuf, String> {
    let krate = out.join("python/native");
    if !krate.join("Cargo.toml").is_file() {
        return Err("the Python backend wrote no native accelerator".into());
    }
    let target = dir.parent().unwrap().join("native-target");
    let profile: Vec<String> = [
        "profile.dev.debug=false",
        "profile.dev.package.\"*\".opt-level=1",
    ]
    .iter()
    .flat_map(|c| ["--config".to_string(), c.to_string()])
    .collect();
    exec(
        Command::new("cargo")
            .args(["build", "--quiet", "--lib"])
            .args(&profile)
            .arg("--manifest-path")
            .arg(krate.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_INCREMENTAL", "0")
            .env_remove("CARGO_PROFILE_DEV_DEBUG"),
        "cargo build (python native accelerator)",
    )?;
    // The generated package is `conformance` (`mod.rs`, `config`).
    let module = ctxgen::ir::names::python_native_module("conformance");
    let built = target.join(format!(
        "debug/{}{module}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let folder = dir.join("native");
    std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
    // CPython loads `<module>.abi3.so` on Linux and macOS, `<module>.pyd` on Windows.
    let name = if cfg!(windows) {
        format!("{module}.pyd")
    } else {
        format!("{module}.abi3.so")
    };
    std::fs::copy(&built, folder.join(name)).map_err(|e| format!("{}: {e}", built.display()))?;
    Ok(folder)
}

/// The Python that runs the generated package: `CTXGEN_PYTHON`, else the test harness's
/// virtualenv (`tests/python/.venv`), else `python3`; it must import pydantic and regex, or the
/// Python column would be all failures.
pub fn python_exe() -> Result<String, String> {
    let venv = Path::new("tests/python/.venv/bin/python");
    let python = std::env::var("CTXGEN_PYTHON").unwrap_or_else(|_| {
        if venv.is_file() {
            venv.display().to_string()
        } else {
            "python3".into()
        }
    });
    let ok = Command::new(&python)
        .args(["-c", "import pydantic, regex"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Ok(python)
    } else {
        Err(format!(
            "`{python}` cannot import pydantic and regex, which the generated Python package needs: \
             run `bash tests/python/run.sh` (it makes tests/python/.venv) or set CTXGEN_PYTHON"
        ))
    }
}
