//! typify's Rust for the same schema, for comparison: its `TypeSpace` on the schema file,
//! written as a crate with the dependencies typify's output names (types and serde only, no
//! validation program). Built only with the `typify` feature of ctxgen-tools.

use std::path::Path;

/// The manifest of a crate holding typify's output.
pub const MANIFEST: &str = "[package]\nname = \"typify-output\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nchrono = { version = \"0.4\", features = [\"serde\"] }\nregress = \"0.10\"\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\nuuid = { version = \"1\", features = [\"serde\"] }\n\n[workspace]\n";

/// typify's code for the schema file, or why there is none.
#[cfg(feature = "typify")]
pub fn generate(schema: &Path) -> Result<String, String> {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let text = std::fs::read_to_string(schema).map_err(|e| e.to_string())?;
    let root: schemars08::schema::RootSchema =
        serde_json::from_str(&text).map_err(|e| format!("not a schemars 0.8 schema: {e}"))?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = catch_unwind(AssertUnwindSafe(|| {
        let mut space =
            typify::TypeSpace::new(typify::TypeSpaceSettings::default().with_struct_builder(false));
        space
            .add_root_schema(root)
            .map_err(|e| format!("typify: {e}"))?;
        let file = syn::parse2::<syn::File>(space.to_stream()).map_err(|e| e.to_string())?;
        Ok(prettyplease::unparse(&file))
    }));
    std::panic::set_hook(hook);
    out.unwrap_or_else(|_| Err(String::from("typify panicked")))
        .map_err(|e: String| first_line(&e))
}

/// The first line of an error, at most 120 characters (typify's may print a whole schema).
#[cfg(feature = "typify")]
fn first_line(e: &str) -> String {
    let line = e.lines().next().unwrap_or("");
    match line.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// A consumer of typify's crate like ctxgen's: every type typify derives `Deserialize` and
/// `Serialize` for, named on the command line, parsed from the JSON value on stdin and
/// serialized back. `None` when there is no such type.
pub fn consumer(code: &str) -> Option<String> {
    let mut names = Vec::new();
    let mut derives = String::new();
    for line in code.lines() {
        if line.starts_with("#[derive(") {
            derives.push_str(line);
        } else if let Some(rest) = line
            .strip_prefix("pub struct ")
            .or_else(|| line.strip_prefix("pub enum "))
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if derives.contains("Deserialize") && derives.contains("Serialize") && !name.is_empty()
            {
                names.push(name);
            }
            derives.clear();
        } else if !line.starts_with("#[") && !line.starts_with("///") {
            derives.clear();
        }
    }
    if names.is_empty() {
        return None;
    }
    let arms: String = names
        .iter()
        .map(|n| {
            format!(
                "            {n:?} => serde_json::from_value::<generated::{n}>(value.clone()).map(|t| serde_json::to_value(&t).is_ok()).is_ok(),\n"
            )
        })
        .collect();
    Some(format!(
        "use std::io::Read;\n\nfn main() {{\n    let mut text = String::new();\n    std::io::stdin().read_to_string(&mut text).expect(\"stdin\");\n    let value: serde_json::Value = serde_json::from_str(&text).expect(\"JSON\");\n    for name in std::env::args().skip(1) {{\n        let ok = match name.as_str() {{\n{arms}            _ => false,\n        }};\n        println!(\"{{name}}: {{ok}}\");\n    }}\n}}\n"
    ))
}

/// typify's code for the schema file, or why there is none.
#[cfg(not(feature = "typify"))]
pub fn generate(_schema: &Path) -> Result<String, String> {
    Err("not compared: ctxgen-tools built without its `typify` feature".into())
}

/// The library source: typify's output with its lints allowed.
pub fn library(code: &str) -> String {
    format!("#![allow(warnings, clippy::all)]\n{code}")
}
