//! Which structs derive `Default` (`docs/types.md`, "Default values of structs").
//!
//! `Default` on a struct gives every optional field `None` and the map of undeclared
//! properties (if any) empty: the value serializes to `{}`. A struct derives it only when that
//! value is one the schema accepts, so that `T::default()` never builds an invalid value:
//!
//! 1. no field is required (a required field has no empty value; every optional field is an
//!    `Option`), and
//! 2. the struct's own validator accepts `{}`, decided by running the validation program on
//!    it at generation time (`diff::interp`, the semantics every binding implements). That
//!    covers `required`, `minProperties`, `dependentRequired`, `not`, `oneOf`, `if`/`then`,
//!    `$ref`s and everything else a schema may say about the empty object, without a list of
//!    keywords to keep up to date.

use serde_json::{Map, Value};

use crate::ir::interp::{Interp, Unknown};
use crate::ir::{Ir, TypeKind};

/// For each type: whether it is a struct that derives `Default`.
pub(crate) fn default_structs(ir: &Ir) -> Vec<bool> {
    let candidate = |k: &TypeKind| match k {
        TypeKind::Struct(s) => s.fields.iter().all(|f| !f.required),
        _ => false,
    };
    if !ir.types.iter().any(|t| candidate(&t.kind)) {
        return vec![false; ir.types.len()];
    }
    let interp = Interp::new(&ir.program, Unknown::Schema);
    let empty = Value::Object(Map::new());
    ir.types
        .iter()
        .map(|t| candidate(&t.kind) && interp.valid(t.node, &empty))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::default_structs;
    use crate::Config;

    fn derived(schema: &str) -> bool {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("s.json"), schema).expect("write");
        let ir = Config::new().schemas_dir(dir.path()).ir().expect("ir");
        let root = ir
            .types
            .iter()
            .position(|t| t.raw_name == "S")
            .expect("type S");
        default_structs(&ir)[root]
    }

    #[test]
    fn only_when_the_empty_object_is_valid() {
        let with = |extra: &str| {
            format!(
                r#"{{"title": "S", "type": "object", "properties": {{"a": {{"type": "string"}},
                "b": {{"type": "integer"}}}}{extra}}}"#
            )
        };
        assert!(derived(&with("")));
        assert!(derived(&with(r#", "additionalProperties": false"#)));
        assert!(derived(&with(r#", "dependentRequired": {"a": ["b"]}"#)));
        assert!(!derived(&with(r#", "required": ["a"]"#)));
        assert!(!derived(&with(r#", "minProperties": 1"#)));
        assert!(!derived(&with(
            r#", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]"#
        )));
        assert!(!derived(&with(r#", "not": {"maxProperties": 0}"#)));
        assert!(!derived(&with(
            r#", "if": {"maxProperties": 0}, "then": false"#
        )));
    }
}
