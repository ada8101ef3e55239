//! Arguments and exit codes of `ctxgen diff` and `ctxgen check-compat`: 0 compatible / ok,
//! 1 the declared bump is too small (with `--check`; always for `check-compat`), 2 error.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Args, ValueEnum};

use super::interp::Unknown;
use super::version::Version;
use super::{diff as run_diff, load, report, Loaded, Options};
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum UnknownFields {
    /// The old consumer validates as its schema says (`additionalProperties: false` rejects).
    Schema,
    /// The old consumer ignores properties it does not know (seed 002's rule).
    Ignore,
}

/// Options shared by `diff` and `check-compat`.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Color the text report
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Valid instances generated per changed type and role
    #[arg(long, default_value_t = 300)]
    pub samples: usize,
    /// Seed of the instance generator
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How old consumers treat properties their schema does not declare
    #[arg(long, value_enum, default_value = "schema")]
    pub unknown_fields: UnknownFields,
    /// The old version (overrides what the schemas declare)
    #[arg(long)]
    pub old_version: Option<String>,
    /// The new version (overrides what the schemas declare)
    #[arg(long)]
    pub new_version: Option<String>,
}

/// `ctxgen diff OLD NEW` or `ctxgen diff --against REV [NEW]`.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Old and new schema directories (or files); with --against, only the new one
    /// [default: ./schemas]
    pub paths: Vec<PathBuf>,
    /// Compare with the schema directory at this git revision of the project
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,
    /// Exit 1 when the declared version bump is smaller than the change requires
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub common: Common,
}

/// `ctxgen check-compat`: the schemas against the last released state.
#[derive(Args, Debug, Clone)]
pub struct CheckCompatArgs {
    /// The schema directory [default: ./schemas]
    #[arg(long, default_value = "schemas")]
    pub schemas: PathBuf,
    /// The released state: a directory of schemas
    #[arg(long, value_name = "DIR", conflicts_with = "against")]
    pub baseline: Option<PathBuf>,
    /// The released state: a git revision (its copy of the schema directory)
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,
    #[command(flatten)]
    pub common: Common,
}

/// Runs `ctxgen diff`.
pub fn diff(args: DiffArgs) -> ExitCode {
    let result = (|| -> Result<(Loaded, Loaded, Option<PathBuf>)> {
        match (&args.against, args.paths.as_slice()) {
            (Some(rev), paths) if paths.len() <= 1 => {
                let new = paths
                    .first()
                    .cloned()
                    .unwrap_or_else(|| PathBuf::from("schemas"));
                let (old, tmp) = at_revision(rev, &new)?;
                let loaded = load(
                    std::slice::from_ref(&old),
                    format!("{}@{rev}", new.display()),
                );
                let loaded = loaded.inspect_err(|_| cleanup(&tmp))?;
                Ok((
                    loaded,
                    load(std::slice::from_ref(&new), new.display().to_string())?,
                    Some(tmp),
                ))
            }
            (None, [old, new]) => Ok((
                load(std::slice::from_ref(old), old.display().to_string())?,
                load(std::slice::from_ref(new), new.display().to_string())?,
                None,
            )),
            _ => Err(Error::Usage(
                "give OLD and NEW schema directories, or --against REV [NEW]".into(),
            )),
        }
    })();
    finish(result, &args.common, args.check)
}

/// Runs `ctxgen check-compat`.
pub fn check_compat(args: CheckCompatArgs) -> ExitCode {
    let result = (|| -> Result<(Loaded, Loaded, Option<PathBuf>)> {
        let new = load(
            std::slice::from_ref(&args.schemas),
            args.schemas.display().to_string(),
        )?;
        match (&args.baseline, &args.against) {
            (Some(dir), None) => Ok((
                load(std::slice::from_ref(dir), dir.display().to_string())?,
                new,
                None,
            )),
            (None, Some(rev)) => {
                let (old, tmp) = at_revision(rev, &args.schemas)?;
                let label = format!("{}@{rev}", args.schemas.display());
                let loaded =
                    load(std::slice::from_ref(&old), label).inspect_err(|_| cleanup(&tmp))?;
                Ok((loaded, new, Some(tmp)))
            }
            _ => Err(Error::Usage(
                "check-compat needs the released state: --baseline DIR or --against REV".into(),
            )),
        }
    })();
    finish(result, &args.common, true)
}

fn finish(loaded: Result<(Loaded, Loaded, Option<PathBuf>)>, c: &Common, check: bool) -> ExitCode {
    let (old, new, tmp) = match loaded {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(t) = &tmp {
        cleanup(t);
    }
    let parse = |s: &Option<String>| -> std::result::Result<Option<Version>, String> {
        match s {
            None => Ok(None),
            Some(s) => Version::parse(s)
                .map(Some)
                .ok_or_else(|| format!("not a version: `{s}`")),
        }
    };
    let (old_version, new_version) = match (parse(&c.old_version), parse(&c.new_version)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options {
        samples: c.samples,
        seed: c.seed,
        unknown: match c.unknown_fields {
            UnknownFields::Schema => Unknown::Schema,
            UnknownFields::Ignore => Unknown::Ignore,
        },
        old_version,
        new_version,
    };
    let r = run_diff(&old, &new, &opts);
    match c.format {
        Format::Json => println!("{}", report::json(&r)),
        Format::Text => {
            let color = match c.color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            print!("{}", report::text(&r, color));
        }
    }
    if check && !r.version.ok {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| Error::Usage(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(Error::Usage(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// Writes the schema directory `dir` as it is at git revision `rev` into a new temporary
/// directory; returns (the copy of `dir`, the temporary directory to remove).
pub fn at_revision(rev: &str, dir: &Path) -> Result<(PathBuf, PathBuf)> {
    if rev.starts_with('-') {
        return Err(Error::Usage(format!("not a revision: `{rev}`")));
    }
    let abs = dir.canonicalize().map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let top = String::from_utf8_lossy(&git(&abs, &["rev-parse", "--show-toplevel"])?)
        .trim()
        .to_string();
    let top = PathBuf::from(top)
        .canonicalize()
        .map_err(|source| Error::Io {
            path: abs.clone(),
            source,
        })?;
    let rel = abs
        .strip_prefix(&top)
        .unwrap_or(Path::new(""))
        .to_string_lossy()
        .replace('\\', "/");
    let spec = if rel.is_empty() {
        ".".to_string()
    } else {
        rel.clone()
    };
    let listing = git(
        &top,
        &["ls-tree", "-r", "--name-only", "-z", rev, "--", &spec],
    )?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = std::env::temp_dir().join(format!("ctxgen-diff-{}-{nanos}", std::process::id()));
    let root = tmp.join("schemas");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(&root).map_err(io(&root))?;
    let mut n = 0;
    for name in listing.split(|b| *b == 0).filter(|s| !s.is_empty()) {
        let name = String::from_utf8_lossy(name).to_string();
        if !name.ends_with(".json") {
            continue;
        }
        let inner = if rel.is_empty() {
            name.as_str()
        } else {
            name.strip_prefix(&format!("{rel}/")).unwrap_or(&name)
        };
        let text = git(&top, &["show", &format!("{rev}:{name}")])?;
        let target = root.join(inner);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&target, text).map_err(io(&target))?;
        n += 1;
    }
    if n == 0 {
        cleanup(&tmp);
        return Err(Error::Usage(format!(
            "no schema files under `{spec}` at revision {rev}"
        )));
    }
    Ok((root, tmp))
}

fn cleanup(tmp: &Path) {
    let _ = std::fs::remove_dir_all(tmp);
}
