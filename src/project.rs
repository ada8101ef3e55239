//! The project file, `ctxgen.toml`: where the schemas are, where the packages go, what they are
//! called. Found by looking in the working directory and then in each parent, as cargo finds
//! `Cargo.toml`; paths in it are relative to the directory it is in. `docs/project.md` describes
//! every key; [`TEMPLATE`] is what `ctxgen init` writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::ir::names::Lang;
use crate::package::Package;

/// The project file's name.
pub const FILE_NAME: &str = "ctxgen.toml";

/// A parsed project file. Every key is optional; unknown keys are an error.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Project {
    /// The directory of JSON Schemas (default `schemas`).
    pub schemas: Option<PathBuf>,
    /// The output directory (default `generated`).
    pub out: Option<PathBuf>,
    /// The languages to generate (default all three).
    pub languages: Option<Vec<LangName>>,
    /// `format` asserts in 2019-09 and 2020-12 schemas too, where it is only an annotation by
    /// default (drafts 4 to 7 always assert it).
    #[serde(default)]
    pub assert_formats: bool,
    #[serde(default)]
    pub package: PackageSection,
    #[serde(default)]
    pub rust: RustSection,
    #[serde(default)]
    pub typescript: TypeScriptSection,
    #[serde(default)]
    pub python: PythonSection,
    /// Remote `$ref` URL → local file (relative to the project file).
    #[serde(default)]
    pub map_url: BTreeMap<String, PathBuf>,
    /// Schema location (`file.json#/$defs/Item`) → type name, as `x-name` would give.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    #[serde(default)]
    pub warnings: WarningsSection,
    /// Where the file was found (set by [`Project::load`]).
    #[serde(skip)]
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LangName {
    Rust,
    Typescript,
    Python,
}

impl From<LangName> for Lang {
    fn from(l: LangName) -> Lang {
        match l {
            LangName::Rust => Lang::Rust,
            LangName::Typescript => Lang::TypeScript,
            LangName::Python => Lang::Python,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PackageSection {
    pub name: Option<String>,
    pub version: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub repository: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RustSection {
    /// The crate name (default: the package name).
    #[serde(rename = "crate")]
    pub crate_name: Option<String>,
    /// One self-contained `bindings.rs` instead of a crate.
    #[serde(default)]
    pub single_file: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TypeScriptSection {
    /// The npm package name, `@scope/name` allowed (default: the package name).
    pub package: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PythonSection {
    /// The distribution name (default: the package name).
    pub distribution: Option<String>,
    /// The import name (default: the distribution name in snake_case).
    pub import: Option<String>,
    /// Also write the native accelerator (`<out>/python/native/`, built with maturin).
    #[serde(default)]
    pub native: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WarningsSection {
    /// Fail on any warning.
    #[serde(default)]
    pub deny: bool,
    /// Keywords that are not JSON Schema's but are expected (no "unknown keyword" warning).
    #[serde(default)]
    pub allow_keywords: Vec<String>,
}

impl Project {
    /// The nearest `ctxgen.toml` in `start` or one of its parents.
    pub fn find(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|d| d.join(FILE_NAME))
            .find(|f| f.is_file())
    }

    /// Reads and checks a project file; errors give `file:line:column`.
    pub fn load(file: &Path) -> Result<Project> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::Io {
            path: file.to_path_buf(),
            source: e,
        })?;
        Self::parse(&text, file)
    }

    /// Parses project-file text; `file` names it in errors and gives the base directory.
    pub fn parse(text: &str, file: &Path) -> Result<Project> {
        let mut p: Project = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!(":{line}:{col}")
                })
                .unwrap_or_default();
            Error::Usage(format!(
                "{}{at}: {}",
                file.display(),
                e.message().trim_end()
            ))
        })?;
        p.dir = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        if p.dir.as_os_str().is_empty() {
            p.dir = PathBuf::from(".");
        }
        Ok(p)
    }

    /// A path of the file, relative to the file's directory.
    pub fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.dir.join(p)
        }
    }

    pub fn schemas_dir(&self) -> PathBuf {
        self.path(self.schemas.as_deref().unwrap_or(Path::new("schemas")))
    }

    pub fn out_dir(&self) -> PathBuf {
        self.path(self.out.as_deref().unwrap_or(Path::new("generated")))
    }

    pub fn langs(&self) -> Option<Vec<Lang>> {
        self.languages
            .as_ref()
            .map(|l| l.iter().map(|x| Lang::from(*x)).collect())
    }

    /// The package metadata it gives (defaults where it says nothing; the base name defaults
    /// to the name of the project's directory).
    pub fn package(&self) -> Package {
        let dir_name = std::fs::canonicalize(&self.dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .map(|n| crate::ir::names::package_name_from_dir(&n));
        let d = Package::default();
        Package {
            name: self.package.name.clone().or(dir_name).unwrap_or(d.name),
            version: self.package.version.clone().unwrap_or(d.version),
            description: self.package.description.clone(),
            license: self.package.license.clone(),
            repository: self.package.repository.clone(),
            crate_name: self.rust.crate_name.clone(),
            npm_name: self.typescript.package.clone(),
            python_dist: self.python.distribution.clone(),
            python_import: self.python.import.clone(),
        }
    }
}

/// What `ctxgen init` writes, with `{name}` and `{schemas}` filled in.
pub const TEMPLATE: &str = r#"# ctxgen project file: `ctxgen generate` run here (or below) reads it.
# Paths are relative to this file. Every key is optional; docs/project.md lists them all.

schemas = {schemas}           # the directory of JSON Schemas
out = "generated"             # writes <out>/rust, <out>/typescript, <out>/python
languages = ["rust", "typescript", "python"]
assert-formats = false        # true: `format` asserts in 2019-09/2020-12 schemas too

[package]
name = {name}                 # each language's package name defaults to this
version = "0.1.0"
# description = "What these types are for"
# license = "MIT OR Apache-2.0"
# repository = "https://github.com/you/project"

[rust]
# crate = {name}

[typescript]
# package = "@scope/name"

[python]
# distribution = {name}
# import = "snake_case_name"
# native = true             # also write native/, the PyO3 accelerator (built with maturin)

[map-url]
# "https://example.com/schemas/a.json" = "vendor/a.json"

[names]
# "order.json#/$defs/Item" = "LineItem"

[warnings]
deny = false
# allow-keywords = ["tsType"]
"#;

/// The project file `ctxgen init` writes for a project called `name` with schemas in `schemas`.
pub fn template(name: &str, schemas: &str) -> String {
    TEMPLATE
        .replace("{name}", &crate::package::toml_string(name))
        .replace("{schemas}", &crate::package::toml_string(schemas))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_parses_and_names_the_project() {
        let p =
            Project::parse(&template("shop-sdk", "schemas"), Path::new("x/ctxgen.toml")).unwrap();
        assert_eq!(p.package().name, "shop-sdk");
        assert_eq!(p.package().crate_name(), "shop-sdk");
        assert_eq!(p.schemas_dir(), Path::new("x/schemas"));
        assert_eq!(p.out_dir(), Path::new("x/generated"));
        assert_eq!(p.langs().unwrap().len(), 3);
        assert!(!p.warnings.deny);
    }

    #[test]
    fn unknown_keys_are_located_errors() {
        let e = Project::parse("[package]\nnmae = \"x\"\n", Path::new("ctxgen.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("ctxgen.toml:2:1"), "{e}");
        assert!(e.contains("unknown field `nmae`"), "{e}");
        let e = Project::parse("languages = [\"go\"]\n", Path::new("ctxgen.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("ctxgen.toml:1:"), "{e}");
    }

    #[test]
    fn per_language_names() {
        let p = Project::parse(
            "[package]\nname = \"shop\"\n[typescript]\npackage = \"@acme/shop\"\n[python]\nimport = \"acme_shop\"\n",
            Path::new("ctxgen.toml"),
        )
        .unwrap();
        let pkg = p.package();
        assert_eq!(pkg.npm_name(), "@acme/shop");
        assert_eq!(pkg.crate_name(), "shop");
        assert_eq!(pkg.python_dist(), "shop");
        assert_eq!(pkg.python_import(), "acme_shop");
    }
}
