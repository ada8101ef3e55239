//! The independent oracle: the `jsonschema` crate, with `$ref`s to other SchemaStore files
//! resolved offline the way ctxgen resolves them (a file named like the URL's last segment,
//! then a file whose root `$id` is the URL).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use jsonschema::{Draft, Retrieve, Uri, Validator};
use serde_json::Value;

/// Reads a JSON file (a leading byte-order mark is skipped).
pub fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Finds local copies of remote documents in the corpus directory.
#[derive(Clone)]
pub struct CorpusRetriever {
    dir: PathBuf,
    /// Root `$id` (or draft-04 `id`) without fragment → file; built on first need.
    ids: Arc<OnceLock<HashMap<String, PathBuf>>>,
}

fn strip_fragment(uri: &str) -> &str {
    uri.split('#').next().unwrap_or(uri)
}

impl CorpusRetriever {
    pub fn new(dir: &Path) -> Self {
        CorpusRetriever {
            dir: dir.to_path_buf(),
            ids: Arc::new(OnceLock::new()),
        }
    }

    fn ids(&self) -> &HashMap<String, PathBuf> {
        self.ids.get_or_init(|| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            files.sort();
            let mut ids = HashMap::new();
            for f in files
                .into_iter()
                .filter(|f| f.extension().is_some_and(|e| e == "json"))
            {
                let Ok(doc) = read_json(&f) else { continue };
                for key in ["$id", "id"] {
                    if let Some(id) = doc.get(key).and_then(Value::as_str) {
                        ids.entry(strip_fragment(id).to_string())
                            .or_insert_with(|| f.clone());
                    }
                }
            }
            ids
        })
    }

    /// The local file standing for `uri`, if any.
    pub fn file_for(&self, uri: &str) -> Option<PathBuf> {
        let uri = strip_fragment(uri);
        let name = uri.rsplit('/').next().unwrap_or("");
        if !name.is_empty() && !name.contains("..") && !name.contains('\\') {
            let file = self.dir.join(if name.ends_with(".json") {
                name.to_string()
            } else {
                format!("{name}.json")
            });
            if file.is_file() {
                return Some(file);
            }
        }
        self.ids().get(uri).cloned()
    }
}

impl Retrieve for CorpusRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let file = self
            .file_for(uri.as_str())
            .ok_or_else(|| format!("{} is not in the corpus", uri.as_str()))?;
        Ok(read_json(&file)?)
    }
}

/// The draft the oracle uses: the schema's `$schema`, or the crate's default.
pub fn draft_of(schema: &Value) -> Draft {
    match Draft::default().detect(schema) {
        Draft::Unknown => Draft::default(),
        d => d,
    }
}

pub fn draft_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        Draft::Draft202012 => "2020-12",
        _ => "unknown",
    }
}

/// The oracle for one schema: with formats asserted (ctxgen asserts its formats in every
/// draft, `docs/validation.md`), and with formats as annotations (the specification's default).
/// Content keywords are annotations in every draft.
pub struct Oracle {
    formats: Validator,
    plain: Validator,
}

/// The oracle's verdict on one instance.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub valid: bool,
    /// The first error: instance pointer, keyword and message.
    pub first: Option<(String, String, String)>,
    /// The verdict with formats as annotations differs.
    pub format_sensitive: bool,
}

fn keyword_of(schema_path: &str) -> String {
    schema_path
        .rsplit('/')
        .next()
        .unwrap_or("")
        .replace("~1", "/")
        .replace("~0", "~")
}

impl Oracle {
    pub fn build(schema: &Value, retriever: &CorpusRetriever) -> Result<Oracle, String> {
        let draft = draft_of(schema);
        let make = |formats: bool| -> Result<Validator, String> {
            catch_unwind(AssertUnwindSafe(|| {
                jsonschema::options()
                    .with_draft(draft)
                    .with_retriever(retriever.clone())
                    .should_validate_formats(formats)
                    // Draft 6 and 7 let an implementation assert `contentMediaType` and
                    // `contentEncoding` (the suite's `optional/content.json`); ctxgen, like
                    // 2019-09 and later, takes them as annotations.
                    .without_content_media_type_support("application/json")
                    .without_content_encoding_support("base64")
                    .build(schema)
                    .map_err(|e| e.to_string())
            }))
            .unwrap_or_else(|_| Err("the jsonschema crate panicked".into()))
        };
        Ok(Oracle {
            formats: make(true)?,
            plain: make(false)?,
        })
    }

    /// `None` when the validator panicked on the instance.
    pub fn check(&self, instance: &Value) -> Option<Verdict> {
        catch_unwind(AssertUnwindSafe(|| {
            let first = self.formats.iter_errors(instance).next().map(|e| {
                let mut message = e.to_string();
                if message.len() > 120 {
                    let cut = (0..=117)
                        .rev()
                        .find(|i| message.is_char_boundary(*i))
                        .unwrap_or(0);
                    message.truncate(cut);
                    message.push_str("...");
                }
                (
                    e.instance_path().as_str().to_string(),
                    keyword_of(e.schema_path().as_str()),
                    message,
                )
            });
            let valid = first.is_none();
            Verdict {
                valid,
                first,
                format_sensitive: self.plain.is_valid(instance) != valid,
            }
        }))
        .ok()
    }
}
