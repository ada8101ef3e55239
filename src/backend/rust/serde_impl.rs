//! Hand-written `Serialize`/`Deserialize` for structs with many fields.
//!
//! serde's derive turns a struct into one `visit_map` function with a local and a match arm per
//! field, and every field's deserializer inlined into it: for the 860-field rule set of
//! SchemaStore's `eslintrc.json` that is one function of 85,000 LLVM IR lines, on which a
//! release build spends most of its time. Past [`MANY_FIELDS`] fields a struct instead reads
//! its members from a map, one non-inlined call per field (`rt::Members`), and writes them with
//! one non-inlined call per field (`rt::entry`): the same JSON in and out, in a function that
//! grows linearly with the number of fields. Each field is read into a local before the struct
//! expression: with the calls and their `?` inside it, rustc builds drop code for the fields
//! already read at every `?`, quadratic in the fields (3.4 million LLVM IR lines for that rule
//! set, 46% of its crate; read into locals first, a few dozen lines per field).

use super::{FieldCtx, StructCtx};

/// Structs with more fields than this get the impls of this module.
pub const MANY_FIELDS: usize = 64;

/// How one field is read and written.
pub(crate) struct ManualField {
    pub name: String,
    /// The local `from_members` reads the field into: `v_` and the name without `r#`.
    pub local: String,
    /// The member name as a Rust string literal.
    pub wire: String,
    /// The `rt::Members` method that reads it: `required`, `optional` (an `Option` that is
    /// `None` when absent or `null`), `present` (`Some` of the value when present, `null`
    /// included) or `rest` (the undeclared members).
    pub read: &'static str,
    /// Written only when `Some`.
    pub skip_none: bool,
    /// The undeclared members (`#[serde(flatten)]` in the derived form).
    pub rest: bool,
    /// The attribute for `schemars`, which reads serde's attributes in the derived form.
    pub schemars: Option<String>,
}

/// The fields of a struct that gets hand-written impls, or `None` for the derived ones.
pub(crate) fn manual(s: &StructCtx) -> Option<Vec<ManualField>> {
    (s.fields.len() > MANY_FIELDS).then(|| s.fields.iter().map(field).collect())
}

fn field(f: &FieldCtx) -> ManualField {
    let has = |attr: &str| f.serde.iter().any(|a| a == attr);
    let rename = f
        .serde
        .iter()
        .find_map(|a| a.strip_prefix("rename = "))
        .map(str::to_string);
    let wire = rename
        .clone()
        .unwrap_or_else(|| super::literal(f.name.trim_start_matches("r#")));
    let rest = has("flatten");
    let read = if rest {
        "rest"
    } else if has("deserialize_with = \"rt::some\"") {
        "present"
    } else if has("default") || f.ty.starts_with("Option<") {
        "optional"
    } else {
        "required"
    };
    let mut schemars = Vec::new();
    if let Some(r) = &rename {
        schemars.push(format!("rename = {r}"));
    }
    if rest {
        schemars.push("flatten".to_string());
    }
    if has("default") {
        schemars.push("default".to_string());
    }
    ManualField {
        name: f.name.clone(),
        local: format!("v_{}", f.name.trim_start_matches("r#")),
        wire,
        read,
        skip_none: has("skip_serializing_if = \"Option::is_none\""),
        rest,
        schemars: (!schemars.is_empty()).then(|| schemars.join(", ")),
    }
}
