//! `ctxgen generate`: finds the schemas and settings (flags over the project file over
//! defaults), renders, then writes, checks (with a diff) or watches.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ctxgen::output::Changes;
use ctxgen::project::Project;
use ctxgen::{Config, Lang, Rendered};

use crate::GenerateArgs;

/// What to tell a user who ran `generate` where there is nothing to generate from.
const NO_SCHEMAS: &str = "\
no schemas to generate from: there is no ctxgen.toml here or in a parent directory, and no \
./schemas directory.
  - `ctxgen init` writes a project file (ctxgen.toml) naming your schema directory;
  - `ctxgen generate --schemas DIR` or `ctxgen generate FILE...` reads schemas without one;
  - `ctxgen generate --bundled` generates the agent context protocols bundled into ctxgen.";

/// An error for the user: printed as `error: …`, exit code 2.
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

pub fn run(args: GenerateArgs) -> ExitCode {
    let result = match configure(&args) {
        Ok(setup) if args.watch => super::watch::run(&args, setup),
        Ok(setup) => once(&args, &setup.config),
        Err(e) => Err(e),
    };
    match result {
        Ok(code) => code,
        Err(Fail(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The configuration a run uses, and what a watch watches.
pub struct Setup {
    pub config: Config,
    /// The schema directory (None for files, standard input and the bundled schemas).
    pub schemas: Option<PathBuf>,
    pub out: PathBuf,
    pub project: Option<PathBuf>,
}

/// Flags over the project file over defaults.
pub fn configure(a: &GenerateArgs) -> Result<Setup, Fail> {
    let mut config = Config::new();
    let project_file = match &a.project {
        Some(p) if !p.is_file() => {
            return Err(Fail(format!("{}: no such project file", p.display())))
        }
        Some(p) => Some(p.clone()),
        None if a.no_project => None,
        None => std::env::current_dir().ok().and_then(|d| Project::find(&d)),
    };
    let project = project_file.as_deref().map(Project::load).transpose()?;
    let mut package = match &project {
        Some(p) => {
            config.project(p);
            p.package()
        }
        None => {
            let mut pkg = config.package_metadata().clone();
            if !a.bundled {
                if let Some(name) = super::dir_name() {
                    pkg.name = name;
                }
            }
            pkg
        }
    };
    let stdin = a.files.len() == 1 && a.files[0] == Path::new("-");
    let mut schemas = None;
    match (&a.schemas, a.files.is_empty()) {
        (Some(_), false) => {
            return Err(Fail(
                "give either --schemas or schema files, not both".into(),
            ))
        }
        (Some(dir), true) => {
            config.schemas_dir(dir);
            schemas = Some(dir.clone());
        }
        (None, false) if stdin => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Fail(format!("standard input: {e}")))?;
            config.schema_sources(vec![("schema.json".into(), text)]);
        }
        (None, false) if a.files.iter().any(|f| f == Path::new("-")) => {
            return Err(Fail(
                "`-` (standard input) cannot be given with other files".into(),
            ))
        }
        (None, false) => {
            config.schema_files(a.files.clone());
        }
        (None, true) if a.bundled => {
            config.bundled_schemas();
        }
        (None, true) => match &project {
            Some(p) => {
                let dir = p.schemas_dir();
                if !dir.is_dir() {
                    return Err(Fail(format!(
                        "{}: the schema directory {} does not exist (create it and put your schemas in it, or set `schemas`)",
                        project_file.as_deref().unwrap_or(Path::new("")).display(),
                        dir.display()
                    )));
                }
                schemas = Some(dir);
            }
            None if Path::new("schemas").is_dir() => {
                config.schemas_dir("schemas");
                schemas = Some(PathBuf::from("schemas"));
            }
            None => return Err(Fail(NO_SCHEMAS.into())),
        },
    }
    if let Some(out) = &a.out {
        config.out_dir(out);
    }
    if !a.lang.is_empty() {
        let langs: Vec<Lang> = a.lang.iter().map(|l| Lang::from(*l)).collect();
        config.languages(&langs);
    }
    for m in &a.map_url {
        let Some((url, file)) = m.split_once('=') else {
            return Err(Fail(format!("--map-url takes URL=FILE, got `{m}`")));
        };
        config.map_url(url, file);
    }
    let set = |field: &mut Option<String>, flag: &Option<String>| {
        if flag.is_some() {
            field.clone_from(flag);
        }
    };
    if let Some(n) = &a.package_name {
        package.name.clone_from(n);
    }
    set(&mut package.crate_name, &a.crate_name);
    set(&mut package.npm_name, &a.npm_name);
    set(&mut package.python_dist, &a.python_dist);
    set(&mut package.python_import, &a.python_import);
    set(&mut package.license, &a.license);
    if let Some(v) = &a.package_version {
        package.version.clone_from(v);
    }
    if project.is_none() && a.package_name.is_none() && !a.bundled {
        // The directory's name is only a default: say how to change it when it does not fit.
        let langs = config.langs().to_vec();
        if let Err(e) = package.validate(&langs) {
            return Err(Fail(format!(
                "{e}\n  (without a project file the package name is this directory's name: give --package-name NAME, or write a ctxgen.toml with `ctxgen init --name NAME`)"
            )));
        }
    }
    config.package(package);
    if a.deny_warnings {
        config.deny_warnings(true);
    }
    config.allow_keywords(&a.allow_keyword);
    if a.single_file {
        config.single_file(true);
    }
    if a.assert_formats {
        config.assert_formats(true);
    }
    if a.python_native {
        config.python_native(true);
    }
    Ok(Setup {
        out: config.out_path().to_path_buf(),
        config,
        schemas,
        project: project_file,
    })
}

/// One run: generate, or check and show the differences.
pub fn once(a: &GenerateArgs, config: &Config) -> Result<ExitCode, Fail> {
    let (rendered, changes) = if a.check {
        config.check()?
    } else {
        config.generate()?
    };
    for d in &rendered.diagnostics {
        eprintln!("{d}");
    }
    if a.check {
        report_check(a.quiet, &rendered, &changes);
        return Ok(if changes.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if !a.quiet {
        report_written(&changes);
    }
    Ok(ExitCode::SUCCESS)
}

/// The files a run wrote and removed, then a one-line summary.
pub fn report_written(changes: &Changes) {
    for p in &changes.changed {
        println!("wrote   {}", shown(p));
    }
    for p in &changes.stale {
        println!("removed {}", shown(p));
    }
    if changes.is_empty() {
        println!("up to date: nothing written");
    } else {
        println!(
            "wrote {} file(s), removed {}",
            changes.changed.len(),
            changes.stale.len()
        );
    }
}

/// `--check`: a unified diff of every file that differs (only its name with `--quiet`).
fn report_check(quiet: bool, rendered: &Rendered, changes: &Changes) {
    for p in &changes.changed {
        let new = new_text(rendered, p);
        let old = std::fs::read(p)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let what = if old.is_some() { "differs" } else { "missing" };
        if quiet || new.is_none() {
            println!("{what}: {}", shown(p));
            continue;
        }
        let old = old.unwrap_or_default();
        let new = new.map(String::as_str).unwrap_or_default();
        let shown = shown(p);
        let diff = similar::TextDiff::from_lines(old.as_str(), new);
        print!(
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header(&format!("a/{shown}"), &format!("b/{shown}"))
        );
    }
    for p in &changes.stale {
        println!("no longer generated: {}", shown(p));
    }
    if let Some(p) = &changes.interrupted {
        println!(
            "interrupted write (the next generate finishes it): {}",
            shown(p)
        );
    }
    if changes.is_empty() {
        println!("up to date");
    } else {
        println!(
            "{} file(s) differ, {} no longer generated: run `ctxgen generate`",
            changes.changed.len(),
            changes.stale.len()
        );
    }
}

/// What a path of the output directory would hold after the run.
fn new_text<'a>(rendered: &'a Rendered, path: &Path) -> Option<&'a String> {
    rendered.packages.iter().find_map(|(dir, files)| {
        let rel = path.strip_prefix(dir).ok()?;
        let rel = rel.to_str()?.replace(std::path::MAIN_SEPARATOR, "/");
        files.get(&rel)
    })
}

/// A path as the user would type it from here: relative to the current directory when below it.
fn shown(p: &Path) -> String {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf));
    rel.unwrap_or_else(|| p.to_path_buf()).display().to_string()
}
