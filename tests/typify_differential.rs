//! A differential check against typify 0.8, the Rust community's reference generator: for every
//! protocol schema typify can process, typify's types must accept every valid vector that ours
//! accept. typify reads draft-07 `definitions` in one document, so each schema is first bundled:
//! `$defs` become `definitions` and cross-file references point at copies of their targets.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value};

fn rewrite(v: &mut Value, file_stem: &str) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                let (file, frag) = r.split_once('#').unwrap_or((r.as_str(), ""));
                let frag = frag.replace("/$defs/", "/definitions/");
                // Definition names are unique across the protocol files, so a reference to another
                // file's definition becomes a local one in the bundle.
                let _ = (file, file_stem);
                *r = format!("#{frag}");
            }
            m.values_mut().for_each(|x| rewrite(x, file_stem));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, file_stem)),
        _ => {}
    }
}

/// One document with every definition of every schema (names are unique across our files).
fn bundle(schemas: &BTreeMap<String, Value>, root: &str) -> Value {
    let mut definitions = Map::new();
    for (name, doc) in schemas {
        let stem = name.trim_end_matches(".json");
        if let Some(defs) = doc.get("$defs").and_then(Value::as_object) {
            for (k, v) in defs {
                let mut v = v.clone();
                rewrite(&mut v, stem);
                definitions.insert(k.clone(), v);
            }
        }
    }
    let mut top = schemas[root].clone();
    rewrite(&mut top, root.trim_end_matches(".json"));
    let obj = top.as_object_mut().expect("object schema");
    let own: Vec<String> = obj
        .remove("$defs")
        .and_then(|d| d.as_object().map(|m| m.keys().cloned().collect()))
        .unwrap_or_default();
    // Keep this file's definitions and what they reach.
    let mut keep: Vec<String> = own;
    let mut i = 0;
    refs(&Value::Object(obj.clone()), &mut keep);
    while i < keep.len() {
        if let Some(d) = definitions.get(&keep[i]) {
            let d = d.clone();
            refs(&d, &mut keep);
        }
        i += 1;
    }
    let kept: Map<String, Value> = definitions
        .into_iter()
        .filter(|(k, _)| keep.contains(k))
        .collect();
    obj.insert(
        "$schema".into(),
        Value::String("http://json-schema.org/draft-07/schema#".into()),
    );
    obj.insert("definitions".into(), Value::Object(kept));
    top
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(name) = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/definitions/"))
            {
                if !out.iter().any(|x| x == name) {
                    out.push(name.to_string());
                }
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

fn typify(schema: &Value) -> Option<String> {
    let root: schemars08::schema::RootSchema = serde_json::from_value(schema.clone()).ok()?;
    std::panic::set_hook(Box::new(|_| {}));
    let out = catch_unwind(AssertUnwindSafe(|| {
        let mut space =
            typify::TypeSpace::new(typify::TypeSpaceSettings::default().with_struct_builder(false));
        space.add_root_schema(root).ok()?;
        let file = syn::parse2::<syn::File>(space.to_stream()).ok()?;
        Some(prettyplease::unparse(&file))
    }));
    let _ = std::panic::take_hook();
    out.ok().flatten()
}

#[test]
fn typify_accepts_our_valid_vectors() {
    let mut schemas = BTreeMap::new();
    for e in std::fs::read_dir("schemas").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            schemas.insert(p.file_name().unwrap().to_string_lossy().into_owned(), v);
        }
    }
    let crate_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typify-differential");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    let mut modules = String::new();
    let mut processed = Vec::new();
    let mut refused = Vec::new();
    for name in schemas.keys() {
        let stem = name.trim_end_matches(".json").replace('-', "_");
        match typify(&bundle(&schemas, name)) {
            Some(code) => {
                std::fs::write(crate_dir.join(format!("src/{stem}.rs")), code).unwrap();
                modules.push_str(&format!("#[allow(warnings, clippy::all)]\nmod {stem};\n"));
                processed.push((name.clone(), stem));
            }
            None => refused.push(name.clone()),
        }
    }
    println!("typify processed {processed:?}; refused {refused:?}");
    // Every valid vector whose type typify generated under the same name.
    let mut arms = String::new();
    for (file, stem) in &processed {
        let code = std::fs::read_to_string(crate_dir.join(format!("src/{stem}.rs"))).unwrap();
        let mut types: Vec<String> = Vec::new();
        for f in std::fs::read_dir("tests/vectors")
            .unwrap()
            .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(f.unwrap().path()).unwrap())
                    .unwrap_or(Value::Null);
            let Some(ty) = doc.get("type").and_then(Value::as_str) else {
                continue;
            };
            // A vector of this file whose type typify declared, or any vector whose struct it declared.
            let is_struct = code.contains(&format!("pub struct {ty} "));
            let is_enum = code.contains(&format!("pub enum {ty} "));
            if is_struct || (is_enum && doc["schema"] == Value::String(file.clone())) {
                types.push(ty.to_string());
            }
        }
        types.sort();
        types.dedup();
        for ty in types {
            arms.push_str(&format!("        {ty:?} => serde_json::from_value::<{stem}::{ty}>(v).map(|_| ()).map_err(|e| e.to_string()),\n"));
        }
    }
    let main = format!(
        "{modules}\nfn check(ty: &str, v: serde_json::Value) -> Option<Result<(), String>> {{\n    Some(match ty {{\n{arms}        _ => return None,\n    }})\n}}\n\nfn main() {{\n    let mut failures = 0;\n    let mut checked = 0;\n    for dir in std::fs::read_dir(std::env::args().nth(1).unwrap()).unwrap() {{\n        let Ok(files) = std::fs::read_dir(dir.unwrap().path()) else {{ continue }};\n        for f in files {{\n            let Ok(doc) = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(f.unwrap().path()).unwrap()) else {{ continue }};\n            let Some(ty) = doc.get(\"type\").and_then(|t| t.as_str()) else {{ continue }};\n            for case in doc[\"cases\"].as_array().unwrap() {{\n                if case[\"valid\"] != serde_json::Value::Bool(true) {{ continue; }}\n                let Some(result) = check(ty, case[\"instance\"].clone()) else {{ continue }};\n                checked += 1;\n                if let Err(e) = result {{\n                    failures += 1;\n                    println!(\"{{ty}}: {{}}: {{e}}\", case[\"description\"]);\n                }}\n            }}\n        }}\n    }}\n    println!(\"{{checked}} valid vectors of types typify generated, {{failures}} rejected by typify's types\");\n    assert!(checked > 0, \"no vector reached a typify type\");\n    std::process::exit(i32::from(failures > 0));\n}}\n"
    );
    std::fs::write(crate_dir.join("src/main.rs"), main).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"typify-differential\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nchrono = { version = \"0.4\", features = [\"serde\"] }\nregress = \"0.10\"\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\nuuid = { version = \"1\", features = [\"serde\"] }\n\n[workspace]\n",
    )
    .unwrap();
    assert!(
        !processed.is_empty(),
        "typify processed none of the protocol schemas"
    );
    let vectors = std::fs::canonicalize("tests/vectors").unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--"])
        .arg(&vectors)
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", crate_dir.join("target"))
        .output()
        .expect("cargo run");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(
        out.status.success(),
        "typify's types reject valid vectors:\n{text}"
    );
}
