//! The verdict every workload item is held to: the `jsonschema` crate's, with the set's other
//! files found offline (by `$id`, else by the URL's last segment), formats asserted as ctxgen
//! asserts them, content keywords as annotations, and the project's `x-max-words` keyword.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use jsonschema::{Draft, Retrieve, Uri, Validator};
use serde_json::{json, Value};

use super::max_words::max_words;

use super::workloads::{file_id, read};

struct SetRetriever {
    dir: PathBuf,
    ids: HashMap<String, PathBuf>,
}

impl Retrieve for SetRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str().split('#').next().unwrap_or("");
        if let Some(f) = self.ids.get(uri) {
            return Ok(read(f)?);
        }
        let name = uri.rsplit('/').next().unwrap_or("");
        let file = self.dir.join(name);
        if !name.is_empty() && !name.contains("..") && file.is_file() {
            return Ok(read(&file)?);
        }
        Err(format!("{uri} is not in {}", self.dir.display()).into())
    }
}

/// One validator per `file#pointer` of a set, built on first use.
pub struct Oracle {
    dir: PathBuf,
    ids: HashMap<String, PathBuf>,
    built: RefCell<HashMap<String, Option<Validator>>>,
}

impl Oracle {
    pub fn new(dir: &Path) -> Result<Oracle, String> {
        let mut ids = HashMap::new();
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                if let Some(id) = read(&p).ok().as_ref().and_then(file_id) {
                    ids.insert(id, p);
                }
            }
        }
        Ok(Oracle {
            dir: dir.to_path_buf(),
            ids,
            built: RefCell::new(HashMap::new()),
        })
    }

    fn build(&self, file: &str, pointer: &str) -> Option<Validator> {
        let doc = read(&self.dir.join(file)).ok()?;
        let draft = match Draft::default().detect(&doc) {
            Draft::Unknown => Draft::Draft7,
            d => d,
        };
        let schema = if pointer.is_empty() {
            doc.clone()
        } else {
            let id = file_id(&doc)?;
            let mut wrapper = json!({ "$ref": format!("{id}#{pointer}") });
            if let Some(s) = doc.get("$schema") {
                wrapper["$schema"] = s.clone();
            }
            wrapper
        };
        let retriever = SetRetriever {
            dir: self.dir.clone(),
            ids: self.ids.clone(),
        };
        catch_unwind(AssertUnwindSafe(|| {
            jsonschema::options()
                .with_draft(draft)
                .with_retriever(retriever)
                .should_validate_formats(true)
                .without_content_media_type_support("application/json")
                .without_content_encoding_support("base64")
                .with_keyword("x-max-words", max_words)
                .build(&schema)
                .ok()
        }))
        .ok()
        .flatten()
    }

    /// The verdict on `value` of the schema at `file#pointer`; `None` when the crate cannot
    /// build that schema or panics.
    pub fn valid(&self, file: &str, pointer: &str, value: &Value) -> Option<bool> {
        let key = format!("{file}#{pointer}");
        let mut built = self.built.borrow_mut();
        let v = built
            .entry(key)
            .or_insert_with(|| self.build(file, pointer))
            .as_ref()?;
        catch_unwind(AssertUnwindSafe(|| v.is_valid(value))).ok()
    }
}
