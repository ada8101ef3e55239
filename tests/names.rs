//! One naming decision (`src/ir/names.rs`, `docs/types.md`): the public type names a schema
//! gets are the same in Rust, TypeScript and Python (read from each generated package's
//! by-name entry points), and adding a file or definition that takes none of those names
//! renames nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctxgen::{Config, Lang};

/// The public type names of one rendered language directory: the names its by-name
/// `validate` knows (Rust `lib.rs`, Python `__init__.py`), the `validateX` functions (TypeScript).
fn public_names(
    lang: Lang,
    files: &std::collections::BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (path, text) in files {
        for line in text.lines() {
            let line = line.trim();
            match lang {
                Lang::Rust if path == "src/lib.rs" => {
                    if let Some(rest) = line.strip_prefix('"') {
                        if let Some((name, tail)) = rest.split_once('"') {
                            if tail.starts_with(" => validators::n") {
                                out.insert(name.to_string());
                            }
                        }
                    }
                }
                Lang::Python if path.ends_with("__init__.py") => {
                    if let Some(rest) = line.strip_prefix('"') {
                        if let Some((name, tail)) = rest.split_once('"') {
                            if tail.starts_with(": (") {
                                out.insert(name.to_string());
                            }
                        }
                    }
                }
                Lang::TypeScript if path.ends_with(".ts") => {
                    if let Some(rest) = line.strip_prefix("export function validate") {
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        if !name.is_empty() {
                            out.insert(name);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn render(files: Vec<PathBuf>) -> Vec<(Lang, BTreeSet<String>)> {
    let out = tempfile::tempdir().unwrap();
    let mut config = Config::new();
    config
        .schema_files(files)
        .languages(&[Lang::Rust, Lang::TypeScript, Lang::Python])
        .out_dir(out.path())
        .package_name("names");
    let rendered = config.render().expect("generates");
    let langs = [Lang::Rust, Lang::TypeScript, Lang::Python];
    // One package a language, in the order asked for (`out/<language>` → files).
    assert_eq!(rendered.packages.len(), langs.len());
    langs
        .iter()
        .zip(&rendered.packages)
        .map(|(l, (_, files))| (*l, public_names(*l, files)))
        .collect()
}

#[test]
fn the_corpus_subset_gets_the_same_public_names_in_every_language() {
    let corpus =
        std::env::var("CTXGEN_CORPUS").unwrap_or_else(|_| "../shared/corpus/schemastore".into());
    let corpus = Path::new(&corpus);
    assert!(
        corpus.is_dir(),
        "the SchemaStore corpus is not at {} (set CTXGEN_CORPUS)",
        corpus.display()
    );
    let list = std::fs::read_to_string("tests/corpus-subset.txt").unwrap();
    let mut checked = 0;
    for name in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let langs = render(vec![corpus.join(name.trim())]);
        assert_eq!(
            langs.len(),
            3,
            "{name}: {:?}",
            langs.iter().map(|l| l.0).collect::<Vec<_>>()
        );
        let (_, rust) = &langs[0];
        assert!(!rust.is_empty(), "{name}: no public names found");
        for (lang, names) in &langs[1..] {
            assert_eq!(names, rust, "{name}: {lang:?} names differ from Rust's");
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} files");
}

#[test]
fn adding_an_unrelated_file_or_definition_renames_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).unwrap();
        dir.path().join(name)
    };
    // Two files that both define `Address` and `Result`; inline types named after properties.
    let b = write(
        "b.json",
        r##"{"title": "Order", "type": "object", "properties": {"address": {"$ref": "#/$defs/Address"}, "status": {"enum": ["a", "b"]}, "result": {"$ref": "#/$defs/Result"}},
           "$defs": {"Address": {"type": "object", "properties": {"street": {"type": "string"}}}, "Result": {"type": "string"}, "ResultType": {"type": "integer"}}}"##,
    );
    let c = write(
        "c.json",
        r##"{"$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}, "Shipment": {"type": "object", "properties": {"to": {"$ref": "#/$defs/Address"}}}}}"##,
    );
    let before = render(vec![b.clone(), c.clone()]);
    // A file whose path sorts first and that refers to `c.json`'s `Address` (so that type is
    // met first), and a new definition in an existing file, none of them taking a name of the
    // types above.
    let a = write(
        "a.json",
        r##"{"title": "Catalog", "type": "object", "properties": {"ship_to": {"$ref": "c.json#/$defs/Address"}, "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}}, "$defs": {"Item": {"type": "object"}}}"##,
    );
    write(
        "c.json",
        r##"{"$defs": {"Aardvark": {"type": "object", "properties": {"status": {"enum": ["x"]}}}, "Address": {"type": "object", "properties": {"city": {"type": "string"}}}, "Shipment": {"type": "object", "properties": {"to": {"$ref": "#/$defs/Address"}}}}}"##,
    );
    let after = render(vec![a, b, c]);
    for ((lang, old), (_, new)) in before.iter().zip(&after) {
        let missing: Vec<&String> = old.difference(new).collect();
        assert!(
            missing.is_empty(),
            "{lang:?}: renamed or lost {missing:?} (before {old:?}, after {new:?})"
        );
        assert!(
            old.contains("ResultType") && old.contains("Address"),
            "{lang:?}: {old:?}"
        );
    }
    assert_eq!(before[0].1, before[1].1);
    assert_eq!(before[0].1, before[2].1);
}

#[test]
fn x_name_names_a_type_in_every_language() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.json");
    std::fs::write(
        &path,
        r##"{"type": "object", "x-name": "storefront", "properties": {
              "buyer": {"type": "object", "x-name": "customer record", "properties": {"id": {"type": "string"}}},
              "kind": {"enum": ["a", "b"], "x-name": "Order kind"}}}"##,
    )
    .unwrap();
    for (lang, names) in render(vec![path]) {
        for expected in ["Storefront", "CustomerRecord", "OrderKind"] {
            assert!(names.contains(expected), "{lang:?}: {names:?}");
        }
    }
}
