//! Loading schema files, indexing their `$id`s and anchors, and resolving `$ref`s across files.

pub mod dialect;
pub mod dynamic;
mod json;
pub mod keywords;
mod meta;
pub mod pointer;
mod resolve;
pub mod uri;
mod vocab;
mod walk;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use dialect::Dialect;
pub use uri::Uri;

use crate::error::{Error, Location, Result};

/// Index of a loaded document in [`SchemaSet::docs`].
pub type DocId = usize;

/// One schema location: a document and a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub doc: DocId,
    pub pointer: String,
}

/// A schema file held in memory.
#[derive(Debug)]
pub struct Document {
    /// The file as shown in messages to the user (`schemas/x.json`, as the schema directory was
    /// given); never written into generated files.
    pub display: String,
    /// The path relative to the schema root, with `/` separators (`sub/x.json`); the only path
    /// that reaches generated files, so that they do not depend on how the command was typed.
    pub rel: String,
    /// Its retrieval URI, the base for relative `$ref`s and `$id`s.
    pub url: Uri,
    pub root: Value,
    pub dialect: Dialect,
    /// Named by the user (types are emitted for it) rather than only reached by a `$ref`.
    pub named: bool,
    /// The file it was read from, if any (its `url` is the URL `--map-url` gave it, when one did).
    pub path: Option<PathBuf>,
}

/// A schema given as text, for example one bundled into the binary.
#[derive(Debug, Clone)]
pub struct Source {
    pub rel: String,
    pub text: String,
}

/// Every document read in one run, with the indexes `$ref` resolution needs.
#[derive(Debug)]
pub struct SchemaSet {
    pub docs: Vec<Document>,
    root_dir: Option<PathBuf>,
    display_root: String,
    resources: HashMap<String, Loc>,
    anchors: HashMap<String, Loc>,
    /// `$dynamicAnchor`s (and 2019-09 `$recursiveAnchor: true`, named ``) per schema resource.
    dynamic: dynamic::DynamicAnchors,
    url_map: BTreeMap<String, PathBuf>,
    /// Every file read from disk, for `cargo:rerun-if-changed`.
    pub files_read: Vec<PathBuf>,
}

impl SchemaSet {
    fn empty(root_dir: Option<PathBuf>, display_root: String) -> Self {
        SchemaSet {
            docs: Vec::new(),
            root_dir,
            display_root,
            resources: HashMap::new(),
            anchors: HashMap::new(),
            dynamic: dynamic::DynamicAnchors::default(),
            url_map: BTreeMap::new(),
            files_read: Vec::new(),
        }
    }

    /// Loads every `*.json` file below `dir`, in sorted order.
    pub fn load_dir(dir: &Path, url_map: &BTreeMap<String, PathBuf>) -> Result<Self> {
        SchemaSet::load_dir_excluding(dir, url_map, &[])
    }

    /// Loads every `*.json` file below `dir`, in sorted order, except below the directories
    /// `exclude` (ctxgen's own output, when it is inside `dir`). Symbolic links are not
    /// followed, and directories that hold ctxgen output (a `.ctxgen-manifest`, a
    /// `.ctxgen-staging`) are skipped too.
    pub fn load_dir_excluding(
        dir: &Path,
        url_map: &BTreeMap<String, PathBuf>,
        exclude: &[PathBuf],
    ) -> Result<Self> {
        let root = dir.canonicalize().map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(Error::Usage(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        let exclude: Vec<PathBuf> = exclude
            .iter()
            .filter_map(|d| d.canonicalize().ok())
            .collect();
        let mut files = Vec::new();
        collect_json_files_excluding(&root, &exclude, &mut files)?;
        files.sort();
        if files.is_empty() {
            return Err(Error::Usage(format!(
                "no *.json schema files in {}",
                dir.display()
            )));
        }
        let mut set = SchemaSet::empty(Some(root.clone()), display_dir(dir));
        set.url_map = normalized_keys(url_map);
        for file in files {
            set.load_file(&file, true, None, Dialect::Draft2020)
                .map_err(|e| set.spell_error(e))?;
        }
        Ok(set)
    }

    /// Loads the named files, in the order of their paths (not the order given; a file named
    /// twice counts once). The schema root is the deepest directory that holds them all, after
    /// resolving symbolic links; refs may reach other files below it.
    pub fn load_files(files: &[PathBuf], url_map: &BTreeMap<String, PathBuf>) -> Result<Self> {
        if files.is_empty() {
            return Err(Error::Usage("no schema files given".into()));
        }
        let mut abs = Vec::new();
        for file in files {
            let canon = file.canonicalize().map_err(|source| Error::Io {
                path: file.clone(),
                source,
            })?;
            if !canon.is_file() {
                return Err(Error::Usage(format!("{} is not a file", file.display())));
            }
            abs.push(canon);
        }
        abs.sort();
        abs.dedup();
        let mut root = abs[0].parent().map(Path::to_path_buf).unwrap_or_default();
        for f in &abs[1..] {
            while !f.starts_with(&root) {
                if !root.pop() {
                    break;
                }
            }
        }
        // Messages show the root relative to the working directory when it is below it.
        let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
        let shown = match cwd.as_deref().and_then(|c| root.strip_prefix(c).ok()) {
            Some(rel) => display_dir(rel),
            None => display_dir(&root),
        };
        let mut set = SchemaSet::empty(Some(root), shown);
        set.url_map = normalized_keys(url_map);
        for file in &abs {
            set.load_file(file, true, None, Dialect::Draft2020)
                .map_err(|e| set.spell_error(e))?;
        }
        Ok(set)
    }

    /// `location` (its file relative to the schema root, as in the IR) with the file as the user
    /// gave it, for messages.
    pub fn spell(&self, location: &Location) -> Location {
        match self.docs.iter().find(|d| d.rel == location.file) {
            Some(d) => Location::new(d.display.clone(), location.pointer.clone()),
            None => location.clone(),
        }
    }

    /// An error with its location spelled as the user gave it ([`SchemaSet::spell`]).
    pub fn spell_error(&self, e: Error) -> Error {
        match e {
            Error::Schema { location, message } => Error::Schema {
                location: self.spell(&location),
                message,
            },
            e => e,
        }
    }

    /// Loads schemas held in memory (the bundled protocol schemas).
    pub fn load_sources(sources: &[Source]) -> Result<Self> {
        let mut set = SchemaSet::empty(None, String::from("<bundled>/"));
        let base = Uri::parse("file:///ctxgen-bundled/").expect("static URL");
        for src in sources {
            let url = base
                .join(&src.rel)
                .ok_or_else(|| Error::Usage(format!("{}: not a relative URI", src.rel)))?;
            set.add_document(src.rel.clone(), url, &src.text, true, Dialect::Draft2020)?;
        }
        Ok(set)
    }

    /// Reads one file, which must be below the schema root once symbolic links are resolved (or
    /// be a file `--map-url` names). `mapped` is the URL a `$ref` reached it by through
    /// `--map-url`: its retrieval URI, against which its relative references resolve. A file
    /// without `$schema` is read in the draft `fallback` (that of the document referring to it).
    fn load_file(
        &mut self,
        path: &Path,
        named: bool,
        mapped: Option<Uri>,
        fallback: Dialect,
    ) -> Result<DocId> {
        let abs = path.canonicalize().map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let abs = abs.as_path();
        let (rel, display) = match &self.root_dir {
            Some(root) => match abs.strip_prefix(root) {
                Ok(rel) => {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    let display = format!("{}{rel}", self.display_root);
                    (rel, display)
                }
                // A file the user mapped a URL to is named by that URL.
                Err(_) => match self.mapped_url(abs) {
                    Some(url) => (url, abs.display().to_string()),
                    None => {
                        let via = if path == abs {
                            String::new()
                        } else {
                            format!(" (through {})", path.display())
                        };
                        return Err(Error::Usage(format!(
                            "{}{via} is outside the schema root {}: ctxgen reads only files \
                             below the schema root and follows no symbolic link out of it",
                            abs.display(),
                            root.display()
                        )));
                    }
                },
            },
            None => {
                let rel = abs.to_string_lossy().into_owned();
                (rel.clone(), rel)
            }
        };
        let text = std::fs::read(abs).map_err(|source| Error::Io {
            path: abs.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(text).map_err(|e| Error::Json {
            file: display.clone(),
            line: 1,
            column: 1,
            message: format!("not UTF-8 ({e})"),
        })?;
        let mapped = mapped.or_else(|| {
            let root = self.root_dir.as_ref()?;
            if abs.starts_with(root) {
                return None;
            }
            Uri::parse(&self.mapped_url(abs)?).ok()
        });
        let url = match mapped {
            Some(url) => url,
            None => Uri::from_file_path(abs).ok_or_else(|| {
                Error::Usage(format!(
                    "{}: a path that is not UTF-8 has no file URI",
                    abs.display()
                ))
            })?,
        };
        self.files_read.push(abs.to_path_buf());
        let id = self.add_document_shown(rel, display, url, &text, named, fallback)?;
        self.docs[id].path = Some(abs.to_path_buf());
        Ok(id)
    }

    /// The URL `--map-url` maps to this (canonical) file, if any.
    fn mapped_url(&self, abs: &Path) -> Option<String> {
        self.url_map
            .iter()
            .find(|(_, f)| f.canonicalize().ok().as_deref() == Some(abs))
            .map(|(url, _)| url.clone())
    }

    fn add_document(
        &mut self,
        rel: String,
        url: Uri,
        text: &str,
        named: bool,
        fallback: Dialect,
    ) -> Result<DocId> {
        let display = format!("{}{rel}", self.display_root);
        self.add_document_shown(rel, display, url, text, named, fallback)
    }

    fn add_document_shown(
        &mut self,
        rel: String,
        display: String,
        url: Uri,
        text: &str,
        named: bool,
        fallback: Dialect,
    ) -> Result<DocId> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root: Value = json::parse(text).map_err(|e| Error::Json {
            file: display.clone(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        if !root.is_object() && !root.is_boolean() {
            return Err(Error::schema(
                Location::new(display, ""),
                "a schema must be an object or a boolean",
            ));
        }
        let vocabularies = vocab::of_document(self, &root, &display)?;
        let dialect = match root.get("$schema") {
            Some(_) => vocabularies.dialect.unwrap_or_else(|| Dialect::of(&root)),
            None => fallback,
        };
        let mut root = root;
        vocab::drop_disabled(&mut root, &vocabularies);
        dialect::drop_later_keywords(&mut root, dialect);
        dialect::drop_ref_siblings(&mut root, dialect);
        let id = self.docs.len();
        self.docs.push(Document {
            display,
            rel,
            url: url.clone(),
            root,
            dialect,
            named,
            path: None,
        });
        self.resources.entry(url.without_fragment()).or_insert(Loc {
            doc: id,
            pointer: String::new(),
        });
        walk::index(self, id)?;
        Ok(id)
    }

    /// Adds a schema ctxgen builds itself rather than reads (a variant of a tagged union: the
    /// whole schema plus the variant's tag values). Its `$ref`s must be absolute; see
    /// [`SchemaSet::uri_of`].
    pub fn add_synthetic(&mut self, name: &str, root: Value) -> DocId {
        let id = self.docs.len();
        let url = Uri::parse(&format!("urn:ctxgen:synthetic:{id}")).expect("a valid URN");
        let display = format!("<{name}>");
        self.docs.push(Document {
            display: display.clone(),
            rel: display,
            url,
            root,
            dialect: Dialect::Draft2020,
            named: false,
            path: None,
        });
        id
    }

    /// The absolute URI of a location, usable as a `$ref` from any document.
    pub fn uri_of(&self, loc: &Loc) -> String {
        let mut url = self.docs[loc.doc].url.clone();
        url.set_fragment(Some(&loc.pointer));
        url.to_string()
    }

    /// A location as the IR records it: the file relative to the schema root (see
    /// [`SchemaSet::spell`] for messages).
    pub fn location(&self, loc: &Loc) -> Location {
        Location::new(self.docs[loc.doc].rel.clone(), loc.pointer.clone())
    }

    /// The JSON at a location.
    pub fn value(&self, loc: &Loc) -> Option<&Value> {
        pointer::get(&self.docs[loc.doc].root, &loc.pointer)
    }

    /// The base URI in force at a location: the document URL changed by every `$id` on the way down.
    pub fn base_at(&self, loc: &Loc) -> Uri {
        let doc = &self.docs[loc.doc];
        let mut base = doc.url.clone();
        let mut cur = &doc.root;
        let apply = |base: &mut Uri, v: &Value| {
            if let Some(id) = dialect::id_of(v, doc.dialect) {
                if let Some(u) = base.join(id) {
                    *base = u;
                }
            }
        };
        apply(&mut base, cur);
        for t in pointer::tokens(&loc.pointer).unwrap_or_default() {
            let next = match cur {
                Value::Object(m) => m.get(&t),
                Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
                _ => None,
            };
            match next {
                Some(v) => cur = v,
                None => break,
            }
            apply(&mut base, cur);
        }
        base
    }
}

/// `--map-url`'s URLs spelled as the resolver spells the URIs it looks up (normalized, without
/// a fragment), so that `HTTPS://Example.com` maps what `https://example.com/` names.
fn normalized_keys(map: &BTreeMap<String, PathBuf>) -> BTreeMap<String, PathBuf> {
    map.iter()
        .map(|(url, file)| {
            let key = Uri::parse(url).map_or_else(|_| url.clone(), |u| u.without_fragment());
            (key, file.clone())
        })
        .collect()
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn display_dir(dir: &Path) -> String {
    let s = dir.to_string_lossy().replace('\\', "/");
    if s.is_empty() || s == "." {
        String::new()
    } else if s.ends_with('/') {
        s
    } else {
        format!("{s}/")
    }
}

/// Every `*.json` file below `dir`, without following symbolic links and skipping ctxgen's
/// output directories (those with a `.ctxgen-manifest`, and `.ctxgen-staging`).
fn collect_json_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    collect_json_files_excluding(dir, &[], out)
}

/// Whether a directory holds ctxgen output rather than schemas.
fn is_output_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == crate::output::STAGING)
        || std::fs::symlink_metadata(dir.join(crate::output::MANIFEST)).is_ok()
}

fn collect_json_files_excluding(
    dir: &Path,
    exclude: &[PathBuf],
    out: &mut Vec<PathBuf>,
) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        if kind.is_dir() {
            if !is_output_dir(&path) && !exclude.contains(&path) {
                collect_json_files_excluding(&path, exclude, out)?;
            }
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}
