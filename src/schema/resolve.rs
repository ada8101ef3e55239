//! `$ref` resolution: a reference to the location it names, loading the document it names when
//! that is not loaded yet (a file below the schema root, a URL `--map-url` maps to a file, a file
//! whose root `$id` is the URL, or a bundled meta-schema). A document reached through
//! `--map-url` is read with the URL as its retrieval URI, so that its own relative references
//! resolve against that URL, as they would on the web.

use std::path::{Path, PathBuf};

use super::{
    collect_json_files, dialect, json, meta, normalize, pointer, Dialect, Loc, SchemaSet, Uri,
};
use crate::error::{Error, Location, Result};

impl SchemaSet {
    /// Resolves `reference` found at `from` to the location it names.
    pub fn resolve(&mut self, from: &Loc, reference: &str) -> Result<Loc> {
        let here = self.location(from);
        let base = self.base_at(from);
        let target = base.join(reference).ok_or_else(|| {
            Error::schema(
                here.clone(),
                format!("$ref `{reference}` is not a valid URI reference"),
            )
        })?;
        let fragment = target
            .fragment()
            .map(pointer::percent_decode)
            .unwrap_or_default();
        let doc_uri = target.without_fragment();
        let resource = match self.resources.get(&doc_uri) {
            Some(r) => r.clone(),
            None => {
                let fallback = self.docs[from.doc].dialect;
                self.load_for_ref(&here, reference, &target, fallback)?
            }
        };
        if fragment.is_empty() {
            return Ok(resource);
        }
        if fragment.starts_with('/') {
            let loc = Loc {
                doc: resource.doc,
                pointer: format!("{}{fragment}", resource.pointer),
            };
            if self.value(&loc).is_none() {
                return Err(Error::schema(
                    here,
                    format!(
                        "$ref `{reference}` points at {}#{}, which does not exist",
                        self.docs[loc.doc].display, loc.pointer
                    ),
                ));
            }
            return Ok(loc);
        }
        self.anchors
            .get(&format!("{doc_uri}#{fragment}"))
            .cloned()
            .ok_or_else(|| {
                Error::schema(
                    here,
                    format!("$ref `{reference}`: no anchor `{fragment}` in {doc_uri}"),
                )
            })
    }

    /// Finds the document a `$ref` names when it is not loaded yet: a file below the schema root,
    /// a URL mapped to a file, or a file in the root named like the URL's last segment.
    fn load_for_ref(
        &mut self,
        here: &Location,
        reference: &str,
        target: &Uri,
        fallback: Dialect,
    ) -> Result<Loc> {
        let doc_uri = target.without_fragment();
        let mut mapped = None;
        let candidate = match target.scheme() {
            "file" => {
                let path = target.to_file_path();
                let root = self.root_dir.clone();
                match (path, root) {
                    (Some(path), Some(root)) => {
                        let normal = normalize(&path);
                        if !normal.starts_with(&root) {
                            return Err(Error::schema(
                                here.clone(),
                                format!(
                                    "$ref `{reference}` climbs out of the schema root {}",
                                    root.display()
                                ),
                            ));
                        }
                        Some(normal)
                    }
                    _ => None,
                }
            }
            "http" | "https" => match self.url_map.get(&doc_uri) {
                Some(file) => {
                    mapped = Uri::parse(&doc_uri).ok();
                    Some(file.clone())
                }
                None => None,
            }
            .or_else(|| {
                // Still percent-encoded: a `/` in it stays `%2F`, and names no directory.
                let name = target.last_segment().to_string();
                let root = self.root_dir.as_ref()?;
                let file = root.join(if name.ends_with(".json") {
                    name
                } else {
                    format!("{name}.json")
                });
                file.is_file().then_some(file)
            })
            .or_else(|| self.find_by_id(&doc_uri)),
            _ => None,
        };
        if candidate.as_ref().is_none_or(|f| !f.is_file()) {
            if let Some(text) = meta::find(&doc_uri) {
                let url =
                    Uri::parse(&doc_uri).map_err(|e| Error::Usage(format!("{doc_uri}: {e}")))?;
                let rel = format!("<meta-schema {}>", url.path().trim_start_matches('/'));
                let doc = self.add_document(rel, url, text, false, fallback)?;
                let loc = Loc {
                    doc,
                    pointer: String::new(),
                };
                self.resources.insert(doc_uri, loc.clone());
                return Ok(loc);
            }
        }
        let Some(file) = candidate.filter(|f| f.is_file()) else {
            let why = if target.scheme().starts_with("http") {
                "is remote and no file under the schema root has that $id (map the URL to a local file with --map-url URL=FILE)"
            } else {
                "names a document that is not loaded and not found"
            };
            return Err(Error::schema(
                here.clone(),
                format!("$ref `{reference}` ({doc_uri}) {why}"),
            ));
        };
        let file = file.canonicalize().map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
        // A file already read (named by the user, or reached before) is not read again: its
        // URL stays the one it was read under.
        let existing = self
            .docs
            .iter()
            .position(|d| d.path.as_deref() == Some(file.as_path()));
        let doc = match existing {
            Some(d) => d,
            None => self.load_file(&file, false, mapped, fallback)?,
        };
        let loc = Loc {
            doc,
            pointer: String::new(),
        };
        self.resources.insert(doc_uri, loc.clone());
        Ok(loc)
    }

    /// A JSON file below the schema root whose root `$id` (`id` in draft-04) is `uri`: the
    /// local copy of a remote document. Files are searched in sorted order; only a file whose
    /// text contains the URI is parsed.
    fn find_by_id(&self, uri: &str) -> Option<PathBuf> {
        let root = self.root_dir.as_ref()?;
        let mut files = Vec::new();
        collect_json_files(root, &mut files).ok()?;
        files.sort();
        let needle = uri.trim_end_matches('#');
        files.into_iter().find(|f| {
            std::fs::read_to_string(f).is_ok_and(|text| text.contains(needle))
                && self.file_has_id(f, uri)
        })
    }

    /// Whether a file's root declares `uri` as its `$id`.
    fn file_has_id(&self, file: &Path, uri: &str) -> bool {
        let Ok(text) = std::fs::read_to_string(file) else {
            return false;
        };
        let Ok(root) = json::parse(text.strip_prefix('\u{feff}').unwrap_or(&text)) else {
            return false;
        };
        let id = dialect::id_of(&root, Dialect::of(&root)).and_then(|id| Uri::parse(id).ok());
        id.is_some_and(|id| id.without_fragment() == uri)
    }

    pub(crate) fn add_resource(&mut self, uri: String, loc: Loc) {
        self.resources.entry(uri).or_insert(loc);
    }

    pub(crate) fn add_anchor(&mut self, key: String, loc: Loc) {
        self.anchors.entry(key).or_insert(loc);
    }
}
