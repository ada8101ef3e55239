//! Dynamic references (`$dynamicRef` with dynamic scope, 2019-09 `$recursiveRef`), vocabularies
//! of custom meta-schemas, remote documents reached through `--map-url` (their relative `$ref`s
//! resolve against the URL, their anchors are found) and draft-04 `id` anchors, checked through
//! the validation program's interpreter (the generated validators render the same program; the
//! conformance run checks them on the JSON-Schema-Test-Suite).

use std::path::Path;

use ctxgen::diff::interp::{Interp, Unknown};
use ctxgen::ir::Ir;
use ctxgen::{Config, Error};
use serde_json::{json, Value};

/// Writes `files` (relative paths) below a fresh directory.
fn write(dir: &Path, files: &[(&str, Value)]) {
    for (name, v) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
    }
}

/// The IR of `schema.json` (with `schemas`), remote documents in `remotes` mapped below
/// `http://example.test/`.
fn ir(schema: Value, remotes: &[(&str, Value)]) -> Result<Ir, Error> {
    let dir = tempfile::tempdir().unwrap();
    let (root, remote) = (dir.path().join("schemas"), dir.path().join("remotes"));
    write(&root, &[("schema.json", schema)]);
    write(&remote, remotes);
    let mut config = Config::new();
    config.schema_files(vec![root.join("schema.json")]);
    for (name, _) in remotes {
        config.map_url(format!("http://example.test/{name}"), remote.join(name));
    }
    config.ir()
}

/// Checks each (instance, valid) against the root type of `schema.json`.
fn check(ir: &Ir, cases: &[(Value, bool)]) {
    let root = ir
        .types
        .iter()
        .find(|t| t.origin.pointer.is_empty() && t.variant_of.is_none())
        .expect("a root type");
    let interp = Interp::new(&ir.program, Unknown::Schema);
    for (instance, valid) in cases {
        assert_eq!(
            interp.valid(root.node, instance),
            *valid,
            "{instance}: {:?}",
            interp.errors(root.node, instance)
        );
    }
}

#[test]
fn dynamic_ref_resolves_to_the_outermost_anchor_on_each_path() {
    let schema = json!({
        "$id": "https://example.test/main",
        "if": {"properties": {"kind": {"const": "numbers"}}, "required": ["kind"]},
        "then": {"$ref": "numberList"},
        "else": {"$ref": "stringList"},
        "$defs": {
            "genericList": {
                "$id": "genericList",
                "properties": {"list": {"items": {"$dynamicRef": "#itemType"}}},
                "$defs": {"defaultItemType": {"$dynamicAnchor": "itemType"}}
            },
            "numberList": {
                "$id": "numberList",
                "$defs": {"itemType": {"$dynamicAnchor": "itemType", "type": "number"}},
                "$ref": "genericList"
            },
            "stringList": {
                "$id": "stringList",
                "$defs": {"itemType": {"$dynamicAnchor": "itemType", "type": "string"}},
                "$ref": "genericList"
            }
        }
    });
    let ir = ir(schema, &[]).unwrap();
    check(
        &ir,
        &[
            (json!({"kind": "numbers", "list": [1, 2]}), true),
            (json!({"kind": "numbers", "list": ["a"]}), false),
            (json!({"kind": "strings", "list": ["a"]}), true),
            (json!({"kind": "strings", "list": [1]}), false),
        ],
    );
}

#[test]
fn dynamic_ref_to_a_plain_anchor_is_a_ref() {
    let schema = json!({
        "$id": "https://example.test/root",
        "$ref": "list",
        "$defs": {
            "foo": {"$dynamicAnchor": "items", "type": "string"},
            "list": {
                "$id": "list",
                "type": "array",
                "items": {"$dynamicRef": "#items"},
                "$defs": {"items": {"$anchor": "items"}}
            }
        }
    });
    check(&ir(schema, &[]).unwrap(), &[(json!([1, "a"]), true)]);
}

#[test]
fn recursive_ref_follows_recursive_anchors() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://example.test/tree/schema.json",
        "$recursiveAnchor": true,
        "$defs": {
            "myobject": {
                "$id": "myobject.json",
                "$recursiveAnchor": true,
                "anyOf": [
                    {"type": "string"},
                    {"type": "object", "additionalProperties": {"$recursiveRef": "#"}}
                ]
            }
        },
        "anyOf": [{"type": "integer"}, {"$ref": "#/$defs/myobject"}]
    });
    check(
        &ir(schema, &[]).unwrap(),
        &[
            (json!({"foo": 1}), true),
            (json!({"foo": {"bar": 1}}), true),
            (json!({"foo": true}), false),
        ],
    );
}

#[test]
fn recursive_ref_without_anchor_is_a_ref() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://example.test/tree/schema.json",
        "$defs": {
            "myobject": {
                "$id": "myobject.json",
                "$recursiveAnchor": false,
                "anyOf": [
                    {"type": "string"},
                    {"type": "object", "additionalProperties": {"$recursiveRef": "#"}}
                ]
            }
        },
        "anyOf": [{"type": "integer"}, {"$ref": "#/$defs/myobject"}]
    });
    check(
        &ir(schema, &[]).unwrap(),
        &[(json!({"foo": "x"}), true), (json!({"foo": 1}), false)],
    );
}

#[test]
fn relative_refs_in_a_mapped_remote_resolve_against_its_url() {
    let remotes = [
        (
            "nested/foo-ref-string.json",
            json!({"type": "object", "properties": {"foo": {"$ref": "string.json"}}}),
        ),
        ("nested/string.json", json!({"type": "string"})),
        ("string.json", json!({"type": "number"})),
    ];
    let schema = json!({"$ref": "http://example.test/nested/foo-ref-string.json"});
    check(
        &ir(schema, &remotes).unwrap(),
        &[(json!({"foo": "a"}), true), (json!({"foo": 1}), false)],
    );
}

#[test]
fn anchors_of_remote_documents_are_found() {
    let remotes = [(
        "anchors.json",
        json!({"$defs": {"A": {"$anchor": "foo", "type": "integer"}}}),
    )];
    let schema = json!({"$ref": "http://example.test/anchors.json#foo"});
    check(
        &ir(schema, &remotes).unwrap(),
        &[(json!(1), true), (json!("a"), false)],
    );
}

#[test]
fn draft4_id_fragments_are_anchors_in_remotes_without_schema() {
    let remotes = [(
        "lii.json",
        json!({"definitions": {
            "refToInteger": {"$ref": "#foo"},
            "A": {"id": "#foo", "type": "integer"}
        }}),
    )];
    let schema = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "$ref": "http://example.test/lii.json#/definitions/refToInteger"
    });
    check(
        &ir(schema, &remotes).unwrap(),
        &[(json!(1), true), (json!("a"), false)],
    );
}

#[test]
fn a_vocabulary_left_out_switches_its_keywords_off() {
    let meta = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "http://example.test/meta.json",
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/applicator": true,
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "http://example.test/vocab/optional": false
        }
    });
    let schema = json!({
        "$schema": "http://example.test/meta.json",
        "type": "object",
        "properties": {"bad": false, "n": {"minimum": 10}}
    });
    check(
        &ir(schema, &[("meta.json", meta)]).unwrap(),
        &[
            (json!({"n": 1}), true),
            (json!("not an object"), true),
            (json!({"bad": 1}), false),
        ],
    );
}

#[test]
fn an_unknown_required_vocabulary_is_a_located_error() {
    let meta = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "http://example.test/vocab/custom": true
        }
    });
    let schema = json!({"$schema": "http://example.test/meta.json", "type": "object"});
    let err = ir(schema, &[("meta.json", meta)]).unwrap_err();
    match err {
        Error::Schema { location, message } => {
            assert_eq!(location.pointer, "/$schema", "{message}");
            assert!(
                message.contains("http://example.test/vocab/custom"),
                "{message}"
            );
        }
        other => panic!("not a schema error: {other}"),
    }
}

#[test]
fn dynamic_scopes_stay_bounded() {
    // Every resource declares the same 20 anchor names and refers to every other: the
    // outermost declaration of each name is fixed on entry, so the scopes stay few.
    let n = 20;
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let mut inner = serde_json::Map::new();
        for name in &names {
            inner.insert(
                name.clone(),
                json!({"$dynamicAnchor": name, "type": "object"}),
            );
        }
        let props: serde_json::Map<String, Value> = (0..n)
            .map(|j| (format!("p{j}"), json!({"$ref": format!("r{j}"), "properties": {"x": {"$dynamicRef": format!("#a{j}")}}})))
            .collect();
        defs.insert(
            format!("r{i}"),
            json!({"$id": format!("r{i}"), "$defs": Value::Object(inner), "properties": props}),
        );
    }
    let schema = json!({"$id": "https://example.test/root", "$ref": "r0", "$defs": defs});
    let ir = ir(schema, &[]).unwrap();
    assert!(
        ir.program.nodes.len() < 20_000,
        "{} nodes",
        ir.program.nodes.len()
    );
}

/// The `children` field of the root struct of `schema.json`.
fn children(ir: &Ir) -> ctxgen::ir::Ty {
    let root = ir
        .types
        .iter()
        .find(|t| t.origin.pointer.is_empty() && t.variant_of.is_none())
        .expect("a root type");
    let ctxgen::ir::TypeKind::Struct(s) = &root.kind else {
        panic!("not a struct: {:?}", root.kind)
    };
    let field = s.fields.iter().find(|f| f.wire == "children").unwrap();
    field.ty.clone()
}

#[test]
fn a_dynamic_ref_only_one_resource_can_resolve_is_typed_as_its_target() {
    use ctxgen::ir::Ty;
    let tree = json!({
        "$id": "https://example.test/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
    });
    let ir_alone = ir(tree.clone(), &[]).unwrap();
    let ty = children(&ir_alone);
    assert!(
        matches!(&ty, Ty::Array(t) if matches!(**t, Ty::Named(_))),
        "{ty:?}"
    );
    // Extended by a resource of its own, the node type depends on the path: any JSON value.
    let strict = json!({
        "$id": "https://example.test/strict",
        "$dynamicAnchor": "node",
        "$ref": "http://example.test/tree.json",
        "required": ["children"]
    });
    let ir_both = ir(strict, &[("tree.json", tree)]).unwrap();
    check(
        &ir_both,
        &[
            (json!({"children": [{"children": []}]}), true),
            (json!({"children": [{}]}), false),
        ],
    );
}
