//! The seed schemas: SchemaStore files (read when picked) and every `schema` of the
//! JSON-Schema-Test-Suite files (read up front; they are small).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Doc, Rng};

pub struct Seeds {
    /// SchemaStore `*.json` files, sorted.
    pub store: Vec<PathBuf>,
    /// (origin, schema) of every test-suite group, in a fixed order.
    pub suite: Vec<(String, Value)>,
}

/// The `$schema` URI of each test-suite draft directory.
const DRAFTS: &[(&str, &str)] = &[
    (
        "draft2020-12",
        "https://json-schema.org/draft/2020-12/schema",
    ),
    (
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    ),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft4", "http://json-schema.org/draft-04/schema#"),
];

impl Seeds {
    /// `corpus` holds `schemastore/` and `json-schema-test-suite/`; either may be missing,
    /// but not both.
    pub fn load(corpus: &Path) -> Result<Seeds, String> {
        let mut store: Vec<PathBuf> = std::fs::read_dir(corpus.join("schemastore"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .collect()
            })
            .unwrap_or_default();
        store.sort();
        let mut suite = Vec::new();
        for (draft, uri) in DRAFTS {
            let dir = corpus.join("json-schema-test-suite").join(draft);
            let mut files = Vec::new();
            collect(&dir, &mut files);
            files.sort();
            for file in files {
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                let Ok(Value::Array(groups)) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                let rel = file
                    .strip_prefix(&dir)
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                for (i, g) in groups.into_iter().enumerate() {
                    let Some(mut schema) = g.get("schema").cloned() else {
                        continue;
                    };
                    if let Value::Object(m) = &mut schema {
                        if !m.contains_key("$schema") {
                            m.insert("$schema".into(), Value::String(uri.to_string()));
                        }
                    }
                    suite.push((format!("suite/{draft}/{rel}#{i}"), schema));
                }
            }
        }
        if store.is_empty() && suite.is_empty() {
            return Err(format!(
                "no seeds under {} (expected schemastore/ and json-schema-test-suite/)",
                corpus.display()
            ));
        }
        Ok(Seeds { store, suite })
    }

    /// A random seed document: (origin, document).
    pub fn pick(&self, rng: &mut Rng) -> (String, Doc) {
        let from_store = !self.store.is_empty() && (self.suite.is_empty() || rng.chance(0.35));
        if from_store {
            let path = rng.pick(&self.store);
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let origin = format!("schemastore/{name}");
            let bytes = std::fs::read(path).unwrap_or_default();
            return match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => (origin, Doc::Json(v)),
                Err(_) => (origin, Doc::Raw(bytes)),
            };
        }
        let (origin, v) = rng.pick(&self.suite);
        (origin.clone(), Doc::Json(v.clone()))
    }

    /// A small seed (test-suite schemas only), for the extra files of a multi-file mutant.
    pub fn pick_small(&self, rng: &mut Rng) -> (String, Value) {
        if self.suite.is_empty() {
            return ("synthetic".into(), serde_json::json!({"type": "object"}));
        }
        let (origin, v) = rng.pick(&self.suite);
        (origin.clone(), v.clone())
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}
