//! The public API: a [`Config`] builder for `build.rs` and the CLI, and [`generate`], the one-line
//! entry point.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::backend::{self, Options};
use crate::error::{Diagnostic, Error, Result, Severity};
use crate::ir::{self, names::Lang};
use crate::output::{self, Changes};
use crate::schema::{SchemaSet, Source};

/// The protocol schemas bundled into the binary, used when there is no `./schemas`.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "agent-context-report.json",
        include_str!("../schemas/agent-context-report.json"),
    ),
    ("common.json", include_str!("../schemas/common.json")),
    (
        "message-envelope.json",
        include_str!("../schemas/message-envelope.json"),
    ),
    (
        "paper-context.json",
        include_str!("../schemas/paper-context.json"),
    ),
    (
        "scheduling-context.json",
        include_str!("../schemas/scheduling-context.json"),
    ),
    (
        "session-context.json",
        include_str!("../schemas/session-context.json"),
    ),
];

/// Where the schemas come from.
#[derive(Debug, Clone)]
enum Input {
    Dir(PathBuf),
    Files(Vec<PathBuf>),
    Bundled,
}

/// How to generate: which schemas, which languages, where to.
#[derive(Debug, Clone)]
pub struct Config {
    input: Input,
    out_dir: PathBuf,
    langs: Vec<Lang>,
    url_map: BTreeMap<String, PathBuf>,
    options: Options,
    deny_warnings: bool,
}

/// What a generation produced, before anything is written.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// Output directory → (language directory → files).
    pub packages: Vec<(PathBuf, BTreeMap<String, String>)>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every schema file read (for `cargo:rerun-if-changed`).
    pub files_read: Vec<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            input: Input::Dir(PathBuf::from("schemas")),
            out_dir: PathBuf::from("generated"),
            langs: vec![Lang::Rust, Lang::TypeScript, Lang::Python],
            url_map: BTreeMap::new(),
            options: Options::default(),
            deny_warnings: false,
        }
    }
}

impl Config {
    pub fn new() -> Self {
        Config::default()
    }

    /// Reads every `*.json` below this directory.
    pub fn schemas_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.input = Input::Dir(dir.into());
        self
    }

    /// Reads these files (and what their `$ref`s reach below their deepest common directory),
    /// in the order of their paths, whatever the order given.
    pub fn schema_files(&mut self, files: Vec<PathBuf>) -> &mut Self {
        self.input = Input::Files(files);
        self
    }

    /// Uses the protocol schemas bundled into ctxgen.
    pub fn bundled_schemas(&mut self) -> &mut Self {
        self.input = Input::Bundled;
        self
    }

    /// Writes `<dir>/rust`, `<dir>/typescript` and `<dir>/python`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = dir.into();
        self
    }

    /// The languages to generate (a language given twice counts once).
    pub fn languages(&mut self, langs: &[Lang]) -> &mut Self {
        self.langs.clear();
        for l in langs {
            if !self.langs.contains(l) {
                self.langs.push(*l);
            }
        }
        self
    }

    /// Resolves `$ref`s to this URL from a local file instead.
    pub fn map_url(&mut self, url: impl Into<String>, file: impl Into<PathBuf>) -> &mut Self {
        self.url_map.insert(url.into(), file.into());
        self
    }

    /// The package name in kebab-case; each language adapts it.
    pub fn package_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.options.package = name.into();
        self
    }

    /// Rust only: writes one self-contained `bindings.rs` to `include!` instead of a crate.
    pub fn single_file(&mut self, single: bool) -> &mut Self {
        self.options.single_file = single;
        self
    }

    /// Fails on warnings too.
    pub fn deny_warnings(&mut self, deny: bool) -> &mut Self {
        self.deny_warnings = deny;
        self
    }

    fn load(&self) -> Result<SchemaSet> {
        match &self.input {
            Input::Dir(d) => SchemaSet::load_dir_excluding(d, &self.url_map, &self.managed_dirs()),
            Input::Files(f) => SchemaSet::load_files(f, &self.url_map),
            Input::Bundled => SchemaSet::load_sources(
                &BUNDLED
                    .iter()
                    .map(|(rel, text)| Source {
                        rel: rel.to_string(),
                        text: text.to_string(),
                    })
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// The language-neutral model of the schemas, for tools that inspect it.
    pub fn ir(&self) -> Result<ir::Ir> {
        let mut set = self.load()?;
        ir::build(&mut set).map_err(|e| set.spell_error(e))
    }

    /// Builds every file in memory; nothing is written.
    pub fn render(&self) -> Result<Rendered> {
        crate::package::validate_name(&self.options.package, &self.langs)?;
        let mut set = self.load()?;
        let ir = ir::build(&mut set).map_err(|e| set.spell_error(e))?;
        // Locations in the IR are relative to the schema root (they reach the generated code);
        // the user reads them as the schema paths were given.
        let mut diagnostics = ir.diagnostics.clone();
        for d in &mut diagnostics {
            d.location = set.spell(&d.location);
        }
        if let Some(d) = diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error || self.deny_warnings)
        {
            return Err(Error::schema(d.location.clone(), d.message.clone()));
        }
        let mut packages = Vec::new();
        for lang in &self.langs {
            let files = backend::render(*lang, &ir, &self.options)?;
            packages.push((self.out_dir.join(backend::dir_name(*lang)), files));
        }
        Ok(Rendered {
            packages,
            diagnostics,
            files_read: set.files_read,
        })
    }

    /// The name of each schema file's root type, per language (`None` for a definitions-only
    /// file), keyed by language and the file's path relative to the schema root.
    pub fn root_types(&self) -> Result<BTreeMap<(Lang, String), Option<String>>> {
        let mut set = self.load()?;
        let ir = ir::build(&mut set).map_err(|e| set.spell_error(e))?;
        let mut out = BTreeMap::new();
        for lang in &self.langs {
            let names = ir::names::type_names(*lang, &ir);
            for m in &ir.modules {
                let root = m
                    .types
                    .iter()
                    .find(|id| ir.types[**id].origin.pointer.is_empty());
                out.insert((*lang, m.rel.clone()), root.map(|id| names[*id].clone()));
            }
        }
        Ok(out)
    }

    /// Renders, then writes what changed, all or nothing (see [`crate::output`]). A failed run
    /// writes nothing.
    pub fn generate(&self) -> Result<(Rendered, Changes)> {
        let rendered = self.render()?;
        let changes = output::write(&self.out_dir, &Self::packages(&rendered))?;
        Ok((rendered, changes))
    }

    /// Renders and compares with what is on disk; writes nothing.
    pub fn check(&self) -> Result<(Rendered, Changes)> {
        let rendered = self.render()?;
        let changes = output::check(&self.out_dir, &Self::packages(&rendered))?;
        Ok((rendered, changes))
    }

    /// The rendered packages by language directory name.
    fn packages(rendered: &Rendered) -> Vec<(&str, &output::Files)> {
        rendered
            .packages
            .iter()
            .map(|(dir, files)| {
                let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                (name, files)
            })
            .collect()
    }

    /// The directories below the output directory that ctxgen manages; schema discovery skips
    /// them, so that an output directory inside the schema directory is never read as schemas.
    fn managed_dirs(&self) -> Vec<PathBuf> {
        [Lang::Rust, Lang::TypeScript, Lang::Python]
            .iter()
            .map(|l| self.out_dir.join(backend::dir_name(*l)))
            .chain([self.out_dir.join(output::STAGING)])
            .collect()
    }
}

/// For `build.rs`: generates Rust bindings for `schemas_dir` into
/// `$OUT_DIR/ctxgen/rust/bindings.rs` and tells cargo to rerun when a schema changes. Include them
/// with `#[allow(dead_code, unused_imports)] mod protocols { include!(concat!(env!("OUT_DIR"), "/ctxgen/rust/bindings.rs")); }`;
/// the crate needs `serde`, `serde_json` (with its `unbounded_depth` feature), `regex`,
/// `regress` and `stacker` as dependencies. Returns the file's path.
pub fn generate(schemas_dir: impl AsRef<Path>) -> Result<PathBuf> {
    let out = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| Error::Usage("OUT_DIR is not set: call this from build.rs".into()))?;
    let out = out.join("ctxgen");
    let mut config = Config::new();
    config
        .schemas_dir(schemas_dir.as_ref())
        .out_dir(&out)
        .languages(&[Lang::Rust])
        .single_file(true);
    let (rendered, _) = config.generate()?;
    println!("cargo:rerun-if-changed={}", schemas_dir.as_ref().display());
    for f in &rendered.files_read {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    for d in &rendered.diagnostics {
        println!("cargo:warning={d}");
    }
    Ok(out.join("rust").join("bindings.rs"))
}
