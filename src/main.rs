//! The `ctxgen` command line: argument parsing and dispatch (`src/cli/` does the work).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

mod cli;

/// The generator allocates and frees millions of small strings and vectors on large schemas;
/// mimalloc does that markedly faster than the system allocator (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Generate(Box<GenerateArgs>),
    /// Write a project file, ctxgen.toml, in the current directory.
    Init(InitArgs),
    /// What a schema change breaks on the wire and in each generated API, and the version bump
    /// it needs (docs/evolution.md).
    Diff(ctxgen::diff::cli::DiffArgs),
    /// Check the schemas against the last released state (exit 1 if the declared bump is too small).
    CheckCompat(ctxgen::diff::cli::CheckCompatArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Every setting a project file (ctxgen.toml) can hold; a flag overrides the file.
#[derive(Args)]
pub struct GenerateArgs {
    /// The project file [default: ctxgen.toml in this directory or the nearest parent]
    #[arg(long, value_name = "FILE", conflicts_with = "no_project")]
    pub project: Option<PathBuf>,
    /// Read no project file, even if there is one
    #[arg(long)]
    pub no_project: bool,
    /// Directory of JSON Schemas [default: the project's, else ./schemas]
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
    /// Use the agent context protocol schemas bundled into ctxgen
    #[arg(long, conflicts_with = "schemas")]
    pub bundled: bool,
    /// Output directory: <out>/rust, <out>/typescript, <out>/python [default: generated]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Languages to generate [default: rust,typescript,python]
    #[arg(long, value_delimiter = ',')]
    pub lang: Vec<LangArg>,
    /// Write nothing; show how the output differs (a unified diff) and exit 1 if it does
    #[arg(long)]
    pub check: bool,
    /// Print less: with --check only the names of the files that differ, else only errors
    #[arg(long, short)]
    pub quiet: bool,
    /// Generate, then again whenever a schema or the project file changes
    #[arg(long, conflicts_with = "check")]
    pub watch: bool,
    /// Resolve a remote $ref URL from a local file: URL=FILE (repeatable)
    #[arg(long = "map-url", value_name = "URL=FILE")]
    pub map_url: Vec<String>,
    /// The packages' base name [default: the project's, else this directory's name]
    #[arg(long, value_name = "NAME")]
    pub package_name: Option<String>,
    /// The Rust crate name [default: the base name]
    #[arg(long, value_name = "NAME")]
    pub crate_name: Option<String>,
    /// The npm package name, @scope/name allowed [default: the base name]
    #[arg(long, value_name = "NAME")]
    pub npm_name: Option<String>,
    /// The Python distribution name [default: the base name]
    #[arg(long, value_name = "NAME")]
    pub python_dist: Option<String>,
    /// The Python import name [default: the distribution name in snake_case]
    #[arg(long, value_name = "NAME")]
    pub python_import: Option<String>,
    /// The packages' version (semantic versioning)
    #[arg(long, value_name = "VERSION")]
    pub package_version: Option<String>,
    /// The packages' license (an SPDX expression)
    #[arg(long, value_name = "SPDX")]
    pub license: Option<String>,
    /// Treat warnings as errors
    #[arg(long)]
    pub deny_warnings: bool,
    /// A keyword JSON Schema does not define that is expected (no warning; repeatable)
    #[arg(long = "allow-keyword", value_name = "KEYWORD")]
    pub allow_keyword: Vec<String>,
    /// Rust: write one self-contained bindings.rs (for include!) instead of a crate
    #[arg(long)]
    pub single_file: bool,
    /// Python: also write the native accelerator, <out>/python/native (PyO3, built with maturin)
    #[arg(long)]
    pub python_native: bool,
    /// `format` asserts in 2019-09/2020-12 schemas too (an annotation there by default)
    #[arg(long)]
    pub assert_formats: bool,
    /// Schema files to read instead of a directory; `-` reads one schema from standard input
    pub files: Vec<PathBuf>,
}

#[derive(Args)]
pub struct InitArgs {
    /// The packages' base name [default: this directory's name]
    #[arg(long)]
    pub name: Option<String>,
    /// The schema directory [default: schemas]
    #[arg(long, default_value = "schemas")]
    pub schemas: String,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LangArg {
    Rust,
    Typescript,
    Python,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Generate(args) => cli::generate::run(*args),
        Command::Init(args) => cli::init::run(args),
        Command::Diff(args) => ctxgen::diff::cli::diff(args),
        Command::CheckCompat(args) => ctxgen::diff::cli::check_compat(args),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "ctxgen", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}
