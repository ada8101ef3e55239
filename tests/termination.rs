//! The generator terminates on hostile schemas: cycles through `$ref` and `allOf` (also across
//! files), defaults on self-referencing properties, and chains and enums large enough to catch
//! recursion (10,000 definitions, 100,000 values). Every case runs in process on a thread with a
//! 2 MiB stack (the default for spawned threads), so a pass that recurses as deep as the input
//! fails here instead of passing on a big main stack. Nothing here measures time: see
//! `benches/scale.rs`.

#[path = "support/krate.rs"]
mod krate;

use std::path::Path;

use ctxgen::ir::{Check, Ir, Ty, TypeKind};
use ctxgen::{Config, Error, Lang};
use serde_json::{json, Value};

const STACK: usize = 2 << 20;
const ALL: [Lang; 3] = [Lang::Rust, Lang::TypeScript, Lang::Python];

/// Writes `files` into a fresh directory.
fn schemas(files: &[(&str, Value)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, v) in files {
        std::fs::write(dir.path().join(name), serde_json::to_string(v).unwrap()).unwrap();
    }
    dir
}

/// Runs `f` on a thread with a 2 MiB stack.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the generator panicked or overflowed its stack")
}

/// The IR and the rendered files of every language, built on a small stack.
fn generate(dir: &Path) -> ctxgen::Result<(Ir, usize)> {
    generate_in(dir, &ALL)
}

/// The IR and the rendered files of `langs`, built on a small stack.
fn generate_in(dir: &Path, langs: &[Lang]) -> ctxgen::Result<(Ir, usize)> {
    let dir = dir.to_path_buf();
    let langs = langs.to_vec();
    small_stack(move || {
        let mut config = Config::new();
        config.schemas_dir(&dir).languages(&langs);
        let ir = config.ir()?;
        let rendered = config.render()?;
        let files = rendered.packages.iter().map(|p| p.1.len()).sum();
        Ok((ir, files))
    })
}

fn type_named<'a>(ir: &'a Ir, raw: &str) -> (usize, &'a TypeKind) {
    let id = ir
        .types
        .iter()
        .position(|t| t.raw_name == raw)
        .unwrap_or_else(|| panic!("no type {raw}"));
    (id, &ir.types[id].kind)
}

/// The checks a type's validator runs, `Ref`s to other nodes followed (each node once).
fn checks_of(ir: &Ir, raw: &str) -> Vec<Check> {
    let (id, _) = type_named(ir, raw);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![ir.types[id].node];
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        for c in &ir.program.nodes[n].checks {
            match c {
                Check::Ref(t) => stack.push(*t),
                c => out.push(c.clone()),
            }
        }
    }
    out
}

/// A definitions-only schema with `n` definitions `d0` … made by `make(i)`.
fn chain(n: usize, make: impl Fn(usize) -> Value) -> Value {
    let defs: serde_json::Map<String, Value> = (0..n).map(|i| (format!("d{i}"), make(i))).collect();
    json!({ "$defs": defs })
}

#[test]
fn all_of_itself_accepts_everything() {
    let dir = schemas(&[("s.json", json!({"allOf": [{"$ref": "#"}]}))]);
    let (ir, files) = generate(dir.path()).unwrap();
    assert!(files > 0);
    assert!(matches!(type_named(&ir, "s").1, TypeKind::Alias(Ty::Any)));
    assert_eq!(checks_of(&ir, "s"), vec![]);
}

#[test]
fn ref_to_itself_accepts_everything() {
    let dir = schemas(&[("s.json", json!({"$ref": "#"}))]);
    let (ir, _) = generate(dir.path()).unwrap();
    assert!(matches!(type_named(&ir, "s").1, TypeKind::Alias(Ty::Any)));
    assert_eq!(checks_of(&ir, "s"), vec![]);
}

#[test]
fn all_of_cycles_are_the_conjunction_of_their_members() {
    let dir = schemas(&[(
        "s.json",
        json!({"$defs": {
            "A": {"allOf": [{"$ref": "#/$defs/B"}], "minProperties": 1},
            "B": {"allOf": [{"$ref": "#/$defs/A"}], "required": ["x"]},
            "C": {"allOf": [{"$ref": "#/$defs/D"}]},
            "D": {"allOf": [{"$ref": "#/$defs/C"}]}
        }}),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    let a = checks_of(&ir, "A");
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(a.contains(&Check::MinProperties(1)));
    assert!(a.contains(&Check::Required(vec!["x".into()])));
    let mut b = checks_of(&ir, "B");
    b.reverse();
    assert_eq!(b.len(), 2, "{b:?}");
    assert_eq!(checks_of(&ir, "C"), vec![]);
    assert_eq!(checks_of(&ir, "D"), vec![]);
}

#[test]
fn cycles_across_files_terminate() {
    for (a, b) in [
        (
            json!({"allOf": [{"$ref": "b.json"}]}),
            json!({"allOf": [{"$ref": "a.json"}]}),
        ),
        (json!({"$ref": "b.json"}), json!({"$ref": "a.json"})),
        (
            json!({"allOf": [{"$ref": "b.json"}], "type": "object"}),
            json!({"$ref": "a.json", "properties": {"x": {"$ref": "a.json"}}}),
        ),
    ] {
        let dir = schemas(&[("a.json", a), ("b.json", b)]);
        let (ir, files) = generate(dir.path()).unwrap();
        assert!(files > 0);
        assert_eq!(ir.modules.len(), 2);
    }
}

#[test]
fn a_default_on_a_property_naming_itself_is_kept() {
    let dir = schemas(&[(
        "s.json",
        json!({"properties": {"s": {"default": false, "$ref": "#/properties/s"}}}),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    let TypeKind::Struct(s) = type_named(&ir, "s").1 else {
        panic!("a struct")
    };
    assert_eq!(s.fields[0].default, Some(json!(false)));
}

#[test]
fn cycles_through_any_of_without_descent_are_errors() {
    for schema in [
        json!({"anyOf": [{"$ref": "#"}, {"type": "string"}]}),
        json!({"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}}),
        json!({"$defs": {"a": {"oneOf": [{"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}),
    ] {
        let dir = schemas(&[("s.json", schema)]);
        match generate(dir.path()) {
            Err(Error::Schema { location, message }) => {
                assert!(location.file.ends_with("s.json"), "{location}");
                assert!(message.contains("never end"), "{message}");
            }
            other => panic!("expected a schema error, got {:?}", other.map(|r| r.1)),
        }
    }
}

#[test]
fn long_ref_chains() {
    let n = 10_000;
    let dir = schemas(&[(
        "s.json",
        chain(n, |i| match i + 1 < n {
            true => json!({"$ref": format!("#/$defs/d{}", i + 1)}),
            false => json!({"type": "string", "minLength": 2}),
        }),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    assert_eq!(ir.types.len(), n);
    let (last, _) = type_named(&ir, &format!("d{}", n - 1));
    let (second_last, _) = type_named(&ir, &format!("d{}", n - 2));
    // Aliases of aliases point at the chain's last alias of a name (compilers resolve alias
    // chains recursively): d0 .. d9997 = d9998, d9998 = d9999, d9999 = string.
    for i in [0, 1, n / 2, n - 3] {
        match type_named(&ir, &format!("d{i}")).1 {
            TypeKind::Alias(Ty::Named(t)) => assert_eq!(*t, second_last, "d{i}"),
            other => panic!("d{i}: {other:?}"),
        }
    }
    assert!(matches!(ir.types[second_last].kind, TypeKind::Alias(Ty::Named(t)) if t == last));
    assert!(matches!(ir.types[last].kind, TypeKind::Alias(Ty::String)));
    assert_eq!(
        checks_of(&ir, "d0"),
        vec![
            Check::Type(vec![ctxgen::ir::JsonType::String]),
            Check::MinLength(2)
        ]
    );
}

#[test]
fn long_all_of_chains() {
    let n = 10_000;
    let dir = schemas(&[(
        "s.json",
        chain(n, |i| match i + 1 < n {
            true => json!({"allOf": [{"$ref": format!("#/$defs/d{}", i + 1)}]}),
            false => json!({"type": "string"}),
        }),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    assert!(matches!(
        type_named(&ir, "d0").1,
        TypeKind::Alias(Ty::String)
    ));
    assert_eq!(
        checks_of(&ir, "d0"),
        vec![Check::Type(vec![ctxgen::ir::JsonType::String])]
    );
}

#[test]
fn long_all_of_chains_of_objects_and_a_cycle_back() {
    let n = 10_000;
    let dir = schemas(&[(
        "s.json",
        chain(
            n,
            |i| json!({"allOf": [{"$ref": format!("#/$defs/d{}", (i + 1) % n)}], "type": "object"}),
        ),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    assert!(matches!(type_named(&ir, "d0").1, TypeKind::Struct(_)));
    // One node for the whole cycle: a single `type` check.
    assert_eq!(
        checks_of(&ir, "d0"),
        vec![Check::Type(vec![ctxgen::ir::JsonType::Object])]
    );
}

#[test]
fn long_property_chains() {
    let n = 10_000;
    let dir = schemas(&[(
        "s.json",
        chain(n, |i| match i + 1 < n {
            true => json!({"type": "object", "properties": {
                "p": {"$ref": format!("#/$defs/d{}", i + 1)},
                "q": {"type": "integer", "default": i}
            }}),
            false => json!({"type": "string"}),
        }),
    )]);
    let (ir, files) = generate_in(dir.path(), &[Lang::Rust, Lang::TypeScript]).unwrap();
    assert!(files > 0);
    let TypeKind::Struct(s) = type_named(&ir, "d0").1 else {
        panic!("a struct")
    };
    assert_eq!(s.fields[0].ty, Ty::Named(1));
    assert_eq!(s.fields[1].default, Some(json!(0)));
    // pydantic builds nested models recursively: the Python models defer a reference every
    // few dozen levels, so the chain generates (and imports: the fixture
    // tests/hostile/property-chain-10000).
    let python = small_stack({
        let dir = dir.path().to_path_buf();
        move || {
            let mut config = Config::new();
            config.schemas_dir(&dir).languages(&[Lang::Python]);
            config.render()
        }
    })
    .unwrap();
    let module = python
        .packages
        .iter()
        .flat_map(|p| p.1.iter())
        .find(|(path, _)| path.ends_with("/s.py"))
        .map(|(_, text)| text.clone())
        .expect("the module of s.json");
    let deferred = module.matches("_rt.DEFERRED]").count();
    assert!(
        (n / 30..n / 5).contains(&deferred),
        "{deferred} deferred references"
    );
}

#[test]
fn long_union_and_array_chains() {
    let n = 10_000;
    let dir = schemas(&[(
        "s.json",
        chain(n, |i| match i + 1 < n {
            true => json!({"anyOf": [
                {"type": "integer"},
                {"type": "array", "items": {"$ref": format!("#/$defs/d{}", i + 1)}},
                {"type": "object", "additionalProperties": {"$ref": format!("#/$defs/d{}", i + 1)}}
            ], "default": [[1]]}),
            false => json!({"type": "string"}),
        }),
    )]);
    let (ir, _) = generate(dir.path()).unwrap();
    assert!(matches!(type_named(&ir, "d0").1, TypeKind::Union(_)));
}

#[test]
fn a_hundred_thousand_enum_values() {
    let values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let dir = schemas(&[("s.json", json!({"$defs": {"E": {"enum": values}}}))]);
    let (ir, _) = generate(dir.path()).unwrap();
    let TypeKind::Enum(vs) = type_named(&ir, "E").1 else {
        panic!("an enum")
    };
    assert_eq!(vs.len(), 100_000);
}

#[test]
fn deeply_nested_files_are_a_clean_error() {
    let text = format!(
        "{}{}{}",
        r#"{"type":"object","properties":{"p":"#.repeat(10_000),
        r#"{"type":"string"}"#,
        "}}".repeat(10_000)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("deep.json"), text).unwrap();
    match generate(dir.path()) {
        Err(Error::Json {
            file,
            line,
            column,
            message,
        }) => {
            assert!(file.ends_with("deep.json"));
            assert_eq!(line, 1);
            assert!(column > 1);
            assert!(
                message.contains("nested deeper than 512 levels"),
                "{message}"
            );
        }
        other => panic!("expected a JSON error, got {:?}", other.map(|r| r.1)),
    }
}

#[test]
fn the_deepest_nesting_a_file_may_have_generates() {
    // 255 nested objects: 511 levels of JSON, just under ctxgen's limit of 512 (serde_json's
    // own is 128). The passes that follow the nesting recursively fit in a 2 MiB stack.
    let text = format!(
        "{}{}{}",
        r#"{"type":"object","properties":{"p":"#.repeat(255),
        r#"{"type":"string"}"#,
        "}}".repeat(255)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("deep.json"), text).unwrap();
    let (ir, _) = generate(dir.path()).unwrap();
    assert_eq!(ir.types.len(), 255);
}

/// The Rust output for cyclic schemas builds and behaves.
#[test]
fn cyclic_schemas_give_rust_that_builds() {
    let krate = krate::generate(
        "tests/fixtures/typescript/refcycles",
        "refcycles",
        "termination",
        "features",
    );
    krate.behaviour(BEHAVIOUR);
    krate.cargo(&["test", "--quiet"]);
}

const BEHAVIOUR: &str = r##"
use refcycles::*;
use serde_json::json;

#[test]
fn cycles_validate_as_their_conjunction() {
    // `{"allOf": [{"$ref": "#"}]}` and a cycle of two `$ref`s accept everything.
    for v in [json!(null), json!(1), json!({"a": [1]})] {
        assert!(all_of_self::validate_all_of_self(&v).is_ok());
        assert!(loops::validate_ping(&v).is_ok());
    }
    // A and B: each the other, plus its own constraint.
    assert!(loops::A::validate_value(&json!({"x": 1})).is_ok());
    assert_eq!(loops::A::validate_value(&json!({})).unwrap_err().0.len(), 2);
    assert!(loops::B::validate_value(&json!({"y": 1})).is_err());
    assert!(loops::B::validate_value(&json!([])).is_err());
    // Across files: across-a.json is across-b.json and an object.
    assert!(across_a::AcrossA::validate_value(&json!({"next": {"next": {}}})).is_ok());
    assert!(across_a::AcrossA::validate_value(&json!({"next": {"next": 1}})).is_err());
    assert!(loops::Flag::from_json(r#"{"on": [1], "ping": {}}"#).is_ok());
}
"##;

/// The Rust rendering of a property chain `n` long: its `lib.rs` and the module of `s.json`.
fn rust_chain(n: usize) -> (String, String) {
    let dir = schemas(&[(
        "s.json",
        chain(n, |i| match i + 1 < n {
            true => json!({"type": "object", "properties": {
                "p": {"$ref": format!("#/$defs/d{}", i + 1)}
            }}),
            false => json!({"type": "string"}),
        }),
    )]);
    let mut config = Config::new();
    config.schemas_dir(dir.path()).languages(&[Lang::Rust]);
    let rendered = config.render().unwrap();
    let files = &rendered.packages[0].1;
    let file = |suffix: &str| {
        files
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {suffix} in {:?}", files.keys()))
    };
    (file("src/lib.rs"), file("src/s.rs"))
}

#[test]
fn long_chains_of_rust_types_raise_the_recursion_limit_and_box_fields() {
    // 40 types: within rustc's defaults, but 32 inline levels get a `Box`.
    let (lib, module) = rust_chain(40);
    assert!(!lib.contains("recursion_limit"), "{lib}");
    assert!(
        module.contains("Box<"),
        "no field boxed in a 40-long inline chain"
    );
    // 200 types: rustc's drop check needs more than its default limit of 128.
    let (lib, _) = rust_chain(200);
    assert!(lib.contains("#![recursion_limit = \"464\"]"), "{lib}");
}

#[test]
fn enums_too_large_for_rustc_are_strings_in_rust() {
    for (n, rust_enum) in [(1024, true), (1025, false)] {
        let values: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
        let dir = schemas(&[("s.json", json!({"enum": values}))]);
        let mut config = Config::new();
        config.schemas_dir(dir.path()).languages(&[Lang::Rust]);
        let rendered = config.render().unwrap();
        let files = &rendered.packages[0].1;
        let module = files
            .iter()
            .find(|(k, _)| k.ends_with("src/s.rs"))
            .map(|(_, v)| v)
            .expect("s.rs");
        assert_eq!(module.contains("pub enum S {"), rust_enum, "{n} values");
        assert_eq!(
            module.contains("pub type S = String;"),
            !rust_enum,
            "{n} values"
        );
    }
}
