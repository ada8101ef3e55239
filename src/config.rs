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
    /// In-memory schemas (standard input).
    Sources(Vec<Source>),
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
    /// Keywords not reported as unknown.
    allow_keywords: Vec<String>,
    /// Schema location (`file.json#/pointer`) → type name.
    names: BTreeMap<String, String>,
    /// `format` asserts in 2019-09/2020-12 documents too.
    assert_formats: bool,
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
            allow_keywords: Vec::new(),
            names: BTreeMap::new(),
            assert_formats: false,
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

    /// Reads schemas from memory: each `(path, text)` as if it were a file at that path below
    /// the schema root (standard input is one `schema.json`).
    pub fn schema_sources(&mut self, sources: Vec<(String, String)>) -> &mut Self {
        self.input = Input::Sources(
            sources
                .into_iter()
                .map(|(rel, text)| Source { rel, text })
                .collect(),
        );
        self
    }

    /// Uses the protocol schemas bundled into ctxgen.
    /// They assert their formats, as this repository's `ctxgen.toml` says.
    pub fn bundled_schemas(&mut self) -> &mut Self {
        self.input = Input::Bundled;
        self.assert_formats = true;
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

    /// The package's base name in kebab-case; each language's name defaults to it.
    pub fn package_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.options.package.name = name.into();
        self
    }

    /// Everything the packages say about themselves: names per language, version, license.
    pub fn package(&mut self, package: crate::package::Package) -> &mut Self {
        self.options.package = package;
        self
    }

    /// The languages set so far.
    pub fn langs(&self) -> &[Lang] {
        &self.langs
    }

    /// The output directory set so far.
    pub fn out_path(&self) -> &Path {
        &self.out_dir
    }

    /// The package metadata as set so far.
    pub fn package_metadata(&self) -> &crate::package::Package {
        &self.options.package
    }

    /// Rust only: writes one self-contained `bindings.rs` to `include!` instead of a crate.
    pub fn single_file(&mut self, single: bool) -> &mut Self {
        self.options.single_file = single;
        self
    }

    /// Python only: also writes the native accelerator, `<out>/python/native/` (a PyO3 crate
    /// of the Rust validators, built with maturin), which the Python package uses instead of
    /// its pure Python validators when it is installed and was generated in the same run.
    pub fn python_native(&mut self, native: bool) -> &mut Self {
        self.options.python_native = native;
        self
    }

    /// Fails on warnings too.
    pub fn deny_warnings(&mut self, deny: bool) -> &mut Self {
        self.deny_warnings = deny;
        self
    }

    /// Keywords that are expected although JSON Schema does not define them (no "unknown
    /// keyword" warning; keywords starting with `x-` never get one).
    pub fn allow_keywords(&mut self, keywords: &[String]) -> &mut Self {
        self.allow_keywords.extend(keywords.iter().cloned());
        self
    }

    /// Names the type of the schema at `location` (`file.json#/$defs/Item`, the file relative
    /// to the schema root) as an `"x-name"` there would.
    pub fn type_name(&mut self, location: impl Into<String>, name: impl Into<String>) -> &mut Self {
        self.names.insert(location.into(), name.into());
        self
    }

    /// Makes `format` an assertion in 2019-09 and 2020-12 documents too, where the specification
    /// makes it an annotation unless the meta-schema has the format-assertion vocabulary
    /// (drafts 4 to 7 always assert it).
    pub fn assert_formats(&mut self, on: bool) -> &mut Self {
        self.assert_formats = on;
        self
    }

    /// Takes everything a project file says; call the other setters afterwards to override it.
    pub fn project(&mut self, p: &crate::project::Project) -> &mut Self {
        self.schemas_dir(p.schemas_dir())
            .out_dir(p.out_dir())
            .package(p.package())
            .deny_warnings(p.warnings.deny)
            .allow_keywords(&p.warnings.allow_keywords)
            .single_file(p.rust.single_file)
            .python_native(p.python.native)
            .assert_formats(p.assert_formats);
        if let Some(langs) = p.langs() {
            self.languages(&langs);
        }
        for (url, file) in &p.map_url {
            self.map_url(url.clone(), p.path(file));
        }
        for (at, name) in &p.names {
            self.type_name(at.clone(), name.clone());
        }
        self
    }

    fn build_options(&self) -> ir::BuildOptions {
        ir::BuildOptions {
            assert_formats: self.assert_formats,
        }
    }

    fn load(&self) -> Result<SchemaSet> {
        match &self.input {
            Input::Dir(d) => SchemaSet::load_dir_excluding(d, &self.url_map, &self.managed_dirs()),
            Input::Files(f) => SchemaSet::load_files(f, &self.url_map),
            Input::Sources(s) => SchemaSet::load_sources(s),
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

    /// Loads the schemas and applies the naming overrides.
    fn load_named(&self) -> Result<SchemaSet> {
        let mut set = self.load()?;
        for (at, name) in &self.names {
            let (file, pointer) = at.split_once('#').unwrap_or((at.as_str(), ""));
            let target = set
                .docs
                .iter_mut()
                .find(|d| d.rel == file)
                .and_then(|d| d.root.pointer_mut(pointer))
                .and_then(serde_json::Value::as_object_mut);
            match target {
                Some(obj) => {
                    obj.insert("x-name".into(), serde_json::Value::String(name.clone()));
                }
                None => {
                    return Err(Error::Usage(format!(
                        "the type name {} is given for `{at}`, which is not a schema object (give `file.json#/json/pointer`, the file relative to the schema directory)",
                        crate::package::json_string(name)
                    )))
                }
            }
        }
        Ok(set)
    }

    /// The language-neutral model of the schemas, for tools that inspect it.
    pub fn ir(&self) -> Result<ir::Ir> {
        let mut set = self.load_named()?;
        ir::build_with(&mut set, self.build_options()).map_err(|e| set.spell_error(e))
    }

    /// Builds every file in memory; nothing is written.
    pub fn render(&self) -> Result<Rendered> {
        self.options.package.validate(&self.langs)?;
        let mut set = self.load_named()?;
        let unknown = crate::schema::keywords::check(&set, &self.allow_keywords);
        let ir = ir::build_with(&mut set, self.build_options()).map_err(|e| set.spell_error(e))?;
        // Locations in the IR are relative to the schema root (they reach the generated code);
        // the user reads them as the schema paths were given.
        let mut diagnostics = unknown;
        diagnostics.extend(ir.diagnostics.iter().cloned());
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
        let mut set = self.load_named()?;
        let ir = ir::build_with(&mut set, self.build_options()).map_err(|e| set.spell_error(e))?;
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

/// For `build.rs`: generates the Rust bindings of every schema in `schemas_dir` into one file,
/// `$OUT_DIR/<name>.rs` where `<name>` is the directory's own name in snake_case
/// (`schemas` → `$OUT_DIR/schemas.rs`), and tells cargo to rerun when a schema changes.
/// Returns the file's path. Include it with
/// `include!(concat!(env!("OUT_DIR"), "/schemas.rs"));` in a module of its own; the crate needs
/// the dependencies of [`crate::backend::rust::DEPENDENCIES`] (`examples/build-script` is a
/// complete crate). [`Config::build_script`] does the same with every other setting.
pub fn generate(schemas_dir: impl AsRef<Path>) -> Result<PathBuf> {
    let dir = schemas_dir.as_ref();
    let stem = dir
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| crate::ir::names::module_name(Lang::Rust, n))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "schemas".into());
    Config::new()
        .schemas_dir(dir)
        .build_script(&format!("{stem}.rs"))
}

/// The files this process's `build_script` calls wrote, so that two calls cannot overwrite one
/// another.
static BUILD_SCRIPT_FILES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

impl Config {
    /// For `build.rs`: writes the Rust bindings as one self-contained file `$OUT_DIR/<file_name>`
    /// (only when its content changes), prints `cargo:rerun-if-changed` for the schema
    /// directory and every schema read, and each warning as `cargo:warning`. Two calls in one
    /// build script must name different files. Returns the file's path.
    pub fn build_script(&self, file_name: &str) -> Result<PathBuf> {
        let plain = Path::new(file_name)
            .file_name()
            .is_some_and(|n| n == file_name)
            && file_name.ends_with(".rs")
            && file_name.len() > 3;
        if !plain {
            return Err(Error::Usage(format!(
                "build_script takes a file name ending in `.rs` (no directory), not `{file_name}`"
            )));
        }
        let out = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| Error::Usage("OUT_DIR is not set: call this from build.rs".into()))?;
        {
            let mut written = BUILD_SCRIPT_FILES
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if written.iter().any(|f| f == file_name) {
                return Err(Error::Usage(format!(
                    "two ctxgen build_script calls write `{file_name}`: give each its own file name"
                )));
            }
            written.push(file_name.to_string());
        }
        let mut config = self.clone();
        config.languages(&[Lang::Rust]).single_file(true);
        let rendered = config.render()?;
        let text = rendered
            .packages
            .first()
            .and_then(|(_, files)| files.get("bindings.rs"))
            .ok_or_else(|| Error::Usage("no Rust bindings were rendered".into()))?;
        let path = out.join(file_name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            let tmp = out.join(format!(".{file_name}.tmp"));
            let io = |p: &Path| {
                let p = p.to_path_buf();
                move |source| Error::Io { path: p, source }
            };
            std::fs::write(&tmp, text).map_err(io(&tmp))?;
            std::fs::rename(&tmp, &path).map_err(io(&path))?;
        }
        if let Input::Dir(d) = &self.input {
            println!("cargo:rerun-if-changed={}", d.display());
        }
        for f in &rendered.files_read {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        for d in &rendered.diagnostics {
            println!("cargo:warning={d}");
        }
        Ok(path)
    }
}
