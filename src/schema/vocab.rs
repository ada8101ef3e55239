//! Vocabularies: the `$vocabulary` of a custom meta-schema (a document's `$schema` that is not
//! one of the standard meta-schemas, found through `--map-url` like a remote `$ref`) decides
//! which keywords the document's schemas use. A vocabulary the meta-schema leaves out switches
//! its keywords off (they are removed when the document is loaded, so that the validators and the
//! types read the same schema); a vocabulary ctxgen does not know is an error when the
//! meta-schema requires it (`true`) and ignored when it is optional (`false`).

use serde_json::Value;

use super::{dialect, json, meta, Dialect, SchemaSet};
use crate::error::{Error, Location, Result};

/// What a document's meta-schema says about it.
#[derive(Debug, Default)]
pub(super) struct Vocabularies {
    /// The draft of the meta-schema (its own `$schema`), when it is a custom one.
    pub dialect: Option<Dialect>,
    /// Keywords of the vocabularies the meta-schema leaves out.
    pub disabled: Vec<&'static str>,
}

const VALIDATION: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
];

const APPLICATOR: &[&str] = &[
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

const UNEVALUATED: &[&str] = &["unevaluatedItems", "unevaluatedProperties"];

/// The vocabularies ctxgen knows, by the name after `…/vocab/`, with their keywords.
const KNOWN: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("applicator", APPLICATOR),
    ("unevaluated", UNEVALUATED),
    ("validation", VALIDATION),
    ("meta-data", &[]),
    ("format", &["format"]),
    ("format-annotation", &["format"]),
    ("format-assertion", &["format"]),
    ("content", &[]),
];

/// The name of a standard vocabulary URI (`https://json-schema.org/draft/2020-12/vocab/core` is
/// `core`), or `None` for one ctxgen does not know.
fn standard(uri: &str) -> Option<&'static str> {
    let name = ["2019-09", "2020-12"]
        .iter()
        .find_map(|d| uri.strip_prefix(&format!("https://json-schema.org/draft/{d}/vocab/")))?;
    KNOWN.iter().map(|(n, _)| *n).find(|n| *n == name)
}

/// Reads the `$vocabulary` of the meta-schema `root`'s `$schema` names, when that is a custom
/// meta-schema ctxgen can read (mapped with `--map-url`). `display` names the document in errors.
pub(super) fn of_document(
    set: &mut SchemaSet,
    root: &Value,
    display: &str,
) -> Result<Vocabularies> {
    let Some(uri) = root.get("$schema").and_then(Value::as_str) else {
        return Ok(Vocabularies::default());
    };
    let uri = uri.trim_end_matches('#');
    if meta::find(uri).is_some() {
        return Ok(Vocabularies::default());
    }
    let key = super::Uri::parse(uri).map_or_else(|_| uri.to_string(), |u| u.without_fragment());
    let Some(file) = set.url_map.get(&key).cloned() else {
        return Ok(Vocabularies::default());
    };
    let here = Location::new(display.to_string(), "/$schema");
    let text = std::fs::read_to_string(&file).map_err(|source| Error::Io {
        path: file.clone(),
        source,
    })?;
    set.files_read.push(file.clone());
    let meta_root = json::parse(text.strip_prefix('\u{feff}').unwrap_or(&text)).map_err(|e| {
        Error::schema(
            here.clone(),
            format!(
                "meta-schema {uri} ({}) is not JSON: {}",
                file.display(),
                e.message
            ),
        )
    })?;
    let mut out = Vocabularies {
        dialect: meta_root.get("$schema").map(|_| Dialect::of(&meta_root)),
        disabled: Vec::new(),
    };
    let Some(declared) = meta_root.get("$vocabulary") else {
        return Ok(out);
    };
    let declared = declared.as_object().ok_or_else(|| {
        Error::schema(
            here.clone(),
            format!("meta-schema {uri}: `$vocabulary` must be an object"),
        )
    })?;
    let mut present = Vec::new();
    for (vocab, required) in declared {
        match standard(vocab) {
            Some(name) => present.push(name),
            None if required == &Value::Bool(false) => {}
            None => {
                return Err(Error::schema(
                    here,
                    format!(
                        "meta-schema {uri} requires the vocabulary {vocab}, which ctxgen does not \
                         know (only the 2019-09 and 2020-12 standard vocabularies are supported)"
                    ),
                ))
            }
        }
    }
    let formats = ["format", "format-annotation", "format-assertion"];
    for (name, keywords) in KNOWN {
        let on = if formats.contains(name) {
            formats.iter().any(|f| present.contains(f))
        } else if *name == "unevaluated" && out.dialect == Some(Dialect::Draft2019) {
            // 2019-09 has these in the applicator vocabulary.
            present.contains(&"applicator")
        } else {
            present.contains(name)
        };
        if !on {
            for k in *keywords {
                if !out.disabled.contains(k) {
                    out.disabled.push(k);
                }
            }
        }
    }
    Ok(out)
}

/// Removes the keywords of the vocabularies the meta-schema leaves out from every subschema.
pub(super) fn drop_disabled(root: &mut Value, vocabularies: &Vocabularies) {
    if vocabularies.disabled.is_empty() {
        return;
    }
    dialect::edit_schemas(root, |_, obj| {
        for k in &vocabularies.disabled {
            obj.remove(*k);
        }
    });
}
