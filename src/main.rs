//! The `ctxgen` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use ctxgen::{Config, Lang};

#[derive(Parser)]
#[command(
    name = "ctxgen",
    version,
    about = "Typed, validating Rust, TypeScript and Python bindings from JSON Schema"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate (or with --check, verify) the bindings.
    Generate {
        /// Directory of JSON Schemas [default: ./schemas, or the bundled protocol schemas]
        #[arg(long)]
        schemas: Option<PathBuf>,
        /// Output directory: <out>/rust, <out>/typescript, <out>/python
        #[arg(long, default_value = "generated")]
        out: PathBuf,
        /// Languages to generate
        #[arg(long, value_delimiter = ',', default_value = "rust,typescript,python")]
        lang: Vec<LangArg>,
        /// Write nothing; list stale or missing files and exit 1 if the output differs
        #[arg(long)]
        check: bool,
        /// Resolve a remote $ref URL from a local file: URL=FILE (repeatable)
        #[arg(long = "map-url", value_name = "URL=FILE")]
        map_url: Vec<String>,
        /// Package name (kebab-case) for the generated packages
        #[arg(long, default_value = "context-protocols")]
        package_name: String,
        /// Treat warnings as errors
        #[arg(long)]
        deny_warnings: bool,
        /// Rust: write one self-contained bindings.rs (for include!) instead of a crate
        #[arg(long)]
        single_file: bool,
        /// Schema files to read instead of a directory
        files: Vec<PathBuf>,
    },
    /// What a schema change breaks on the wire and in each generated API, and the version bump
    /// it needs (docs/evolution.md).
    Diff(ctxgen::diff::cli::DiffArgs),
    /// Check the schemas against the last released state (exit 1 if the declared bump is too small).
    CheckCompat(ctxgen::diff::cli::CheckCompatArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    Rust,
    Typescript,
    Python,
}

fn main() -> ExitCode {
    let command = match Cli::parse().command {
        Command::Diff(args) => return ctxgen::diff::cli::diff(args),
        Command::CheckCompat(args) => return ctxgen::diff::cli::check_compat(args),
        other => other,
    };
    let Command::Generate {
        schemas,
        out,
        lang,
        check,
        map_url,
        package_name,
        deny_warnings,
        single_file,
        files,
    } = command
    else {
        unreachable!("handled above")
    };
    let mut config = Config::new();
    match (schemas, files.is_empty()) {
        (Some(dir), true) => config.schemas_dir(dir),
        (None, false) => config.schema_files(files),
        (Some(_), false) => {
            eprintln!("error: give either --schemas or schema files, not both");
            return ExitCode::from(2);
        }
        (None, true) if std::path::Path::new("schemas").is_dir() => config.schemas_dir("schemas"),
        (None, true) => config.bundled_schemas(),
    };
    let langs: Vec<Lang> = lang
        .iter()
        .map(|l| match l {
            LangArg::Rust => Lang::Rust,
            LangArg::Typescript => Lang::TypeScript,
            LangArg::Python => Lang::Python,
        })
        .collect();
    config
        .out_dir(out)
        .languages(&langs)
        .package_name(package_name)
        .deny_warnings(deny_warnings)
        .single_file(single_file);
    for m in map_url {
        let Some((url, file)) = m.split_once('=') else {
            eprintln!("error: --map-url takes URL=FILE, got `{m}`");
            return ExitCode::from(2);
        };
        config.map_url(url, file);
    }
    let result = if check {
        config.check()
    } else {
        config.generate()
    };
    match result {
        Ok((rendered, changes)) => {
            for d in &rendered.diagnostics {
                eprintln!("{d}");
            }
            if check {
                for p in &changes.changed {
                    println!("stale or missing: {}", p.display());
                }
                for p in &changes.stale {
                    println!("no longer generated: {}", p.display());
                }
                if let Some(p) = &changes.interrupted {
                    println!(
                        "interrupted write (the next generate finishes it): {}",
                        p.display()
                    );
                }
                if changes.is_empty() {
                    println!("up to date");
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            } else {
                println!(
                    "wrote {} file(s), removed {}",
                    changes.changed.len(),
                    changes.stale.len()
                );
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
