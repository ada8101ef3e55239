//! The JSON Schema drafts ctxgen reads and where they differ.

use serde_json::Value;

/// The draft a document is written in, from its `$schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft2019,
    Draft2020,
}

impl Dialect {
    /// Reads `$schema`; a document without it is read as draft 2020-12.
    pub fn of(root: &Value) -> Dialect {
        let uri = root.get("$schema").and_then(Value::as_str).unwrap_or("");
        if uri.contains("draft-04") || uri.contains("draft-03") {
            Dialect::Draft4
        } else if uri.contains("draft-06") {
            Dialect::Draft6
        } else if uri.contains("draft-07") {
            Dialect::Draft7
        } else if uri.contains("2019-09") {
            Dialect::Draft2019
        } else {
            Dialect::Draft2020
        }
    }

    /// Before 2019-09, keywords beside `$ref` are ignored.
    pub fn ref_overrides_siblings(self) -> bool {
        matches!(self, Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7)
    }
}

/// The identifier a schema object declares (`$id`, or `id` in draft-04).
pub fn id_of(schema: &Value, dialect: Dialect) -> Option<&str> {
    let obj = schema.as_object()?;
    let id = match dialect {
        Dialect::Draft4 => obj.get("id").or_else(|| obj.get("$id")),
        _ => obj.get("$id"),
    }?;
    let id = id.as_str()?;
    // Before 2019-09 a `$ref` makes siblings (including `$id`) inert.
    if dialect.ref_overrides_siblings() && obj.contains_key("$ref") {
        return None;
    }
    Some(id)
}
