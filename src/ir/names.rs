//! Naming, in one place: each language declares its case rules and forbidden names; one
//! collision resolver serves all of them.

use std::collections::HashSet;

use heck::{ToKebabCase, ToSnakeCase, ToUpperCamelCase};

use super::model::Ir;

/// A target language's naming policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    Rust,
    TypeScript,
    Python,
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];
/// Names the generated Rust code uses unqualified.
const RUST_TYPES: &[&str] = &[
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "Value",
    "Map",
    "BTreeMap",
    "Default",
    "Clone",
    "Debug",
    "PartialEq",
    "Deserialize",
    "Serialize",
    "Violation",
    "ValidationErrors",
    "Error",
    "Location",
    "JsonSchema",
    "Self",
    "Sized",
    "Send",
    "Sync",
    "Copy",
    "Eq",
    "Ord",
    "Hash",
    "From",
    "Into",
    "Iterator",
    "Fn",
    "ToString",
    "Display",
    "Formatter",
    "Any",
    "HelperError",
    "SeverityCounts",
];
const TS_RESERVED: &[&str] = &[
    "any",
    "boolean",
    "number",
    "string",
    "symbol",
    "object",
    "never",
    "unknown",
    "void",
    "undefined",
    "null",
    "bigint",
    "Array",
    "Record",
    "Date",
    "Error",
    "Map",
    "Set",
    "Promise",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Function",
    "JSON",
    "RegExp",
    "Symbol",
    "Readonly",
    "Partial",
    "Required",
    "Pick",
    "Omit",
    "Exclude",
    "Extract",
    "Violation",
    "ValidationError",
    "JsonValue",
    "NotObject",
    "NotArray",
    "Reporter",
    "Location",
    "HelperError",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "while",
    "with",
    "as",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "type",
    "await",
    "async",
];
const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];
/// Builtins the generated Python annotations use, and pydantic's own model attributes (with
/// `mro` and `register`, which a model class has from its metaclass).
const PY_FIELD_RESERVED: &[&str] = &[
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "object",
    "type",
    "bytes",
    "set",
    "tuple",
    "copy",
    "dict",
    "json",
    "schema",
    "schema_json",
    "construct",
    "validate",
    "fields",
    "parse_obj",
    "parse_raw",
    "parse_file",
    "from_orm",
    "update_forward_refs",
    "model_config",
    "model_fields",
    "Any",
    "Literal",
    "Annotated",
    "Field",
    "BaseModel",
    "mro",
    "register",
];
const PY_TYPES: &[&str] = &[
    "Any",
    "Literal",
    "Optional",
    "Union",
    "Annotated",
    "BaseModel",
    "Field",
    "ConfigDict",
    "RootModel",
    "TypeAdapter",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "object",
    "type",
    "bytes",
    "set",
    "tuple",
    "Exception",
    "Violation",
    "ValidationError",
    "JsonValue",
    "HelperError",
    "Enum",
    "Self",
    "TypeAlias",
    "TypeAliasType",
    "ValidationInfo",
    "JsonInt",
    "Callable",
    "Mapping",
    "Sequence",
    "TypeVar",
    "Fraction",
    "Pattern",
    "E",
];

impl Lang {
    fn reserved_types(self, name: &str) -> bool {
        match self {
            Lang::Rust => RUST_TYPES.contains(&name) || RUST_KEYWORDS.contains(&name),
            Lang::TypeScript => TS_RESERVED.contains(&name),
            Lang::Python => PY_TYPES.contains(&name) || PY_KEYWORDS.contains(&name),
        }
    }

    fn reserved_fields(self, name: &str) -> bool {
        match self {
            Lang::Rust => RUST_KEYWORDS.contains(&name),
            Lang::TypeScript => false,
            Lang::Python => {
                PY_KEYWORDS.contains(&name)
                    || PY_FIELD_RESERVED.contains(&name)
                    || name.starts_with("model_")
            }
        }
    }
}

/// Keeps ASCII letters and digits; everything else becomes a word break. Other characters are
/// first transliterated to ASCII (`é` → `e`, `日本` → `Ri Ben`), so every name is an ASCII
/// identifier in every language and the same schema gives the same names everywhere.
fn words(raw: &str) -> String {
    let ascii = if raw.is_ascii() {
        std::borrow::Cow::Borrowed(raw)
    } else {
        std::borrow::Cow::Owned(deunicode::deunicode_with_tofu(raw, " "))
    };
    ascii
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// The ASCII words of a name in UpperCamelCase, to build a longer identifier from
/// (`schema_version` → `SchemaVersion`); empty when the name has no letter or digit.
pub fn camel_words(raw: &str) -> String {
    words(raw).to_upper_camel_case()
}

/// The ASCII words of a name in snake_case, to build a longer identifier from; empty when the
/// name has no letter or digit.
pub fn snake_words(raw: &str) -> String {
    words(raw).to_snake_case()
}

/// A type name: UpperCamelCase ASCII, never empty, never starting with a digit, never reserved.
pub fn type_name(lang: Lang, raw: &str) -> String {
    let mut n = words(raw).to_upper_camel_case();
    if n.is_empty() {
        n = "Unnamed".into();
    }
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        n = format!("T{n}");
    }
    while lang.reserved_types(&n) {
        n.push_str("Type");
    }
    n
}

/// A field or function name in ASCII snake_case (Rust, Python); TypeScript keeps wire names
/// (written as quoted keys where they are not identifiers).
pub fn field_name(lang: Lang, wire: &str) -> String {
    if lang == Lang::TypeScript {
        return wire.to_string();
    }
    let mut n = words(wire).to_snake_case();
    if n.is_empty() {
        n = "field".into();
    }
    if n.starts_with(|c: char| c.is_ascii_digit()) {
        n = format!("n{n}");
    }
    if lang.reserved_fields(&n) {
        n.push('_');
    }
    n
}

/// Module names of the package's own files, which no schema module may take (any language:
/// a schema directory gives the same module names everywhere it can).
const OWN_MODULES: &[&str] = &[
    "runtime",
    "validators",
    "formats",
    "helpers",
    // The Rust crate's module of `from_json`'s borrowed value.
    "lite",
    "lib",
    "main",
    "mod",
    "index",
    "init",
    "std",
    "core",
    "alloc",
    "serde",
    "serde_json",
    "regress",
    "schemars",
    "typing",
    "typing_extensions",
    "pydantic",
    "types",
    "json",
    "re",
    "enum",
    "py",
    // Tool attribute namespaces: a module `rustfmt` shadows `#[rustfmt::skip]`.
    "rustfmt",
    "clippy",
    "rt",
];

/// The package name a directory's name suggests (`Shop SDK` → `shop-sdk`): kebab-case, as
/// `ctxgen init` and a run without a project file name the packages. Checked for each
/// ecosystem afterwards (`crate::package`).
pub fn package_name_from_dir(dir_name: &str) -> String {
    dir_name.to_kebab_case()
}

/// A module name: ASCII snake_case for Rust and Python, ASCII kebab-case file names for
/// TypeScript; a name the package uses itself, or a keyword, gets a `schema` suffix. Names are
/// made unique across a package by [`module_names`].
pub fn module_name(lang: Lang, raw: &str) -> String {
    let snake = words(raw).to_snake_case();
    let snake = if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("m{snake}")
    } else {
        snake
    };
    let reserved = snake.is_empty()
        || RUST_KEYWORDS.contains(&snake.as_str())
        || PY_KEYWORDS.contains(&snake.as_str())
        || OWN_MODULES.contains(&snake.as_str());
    match lang {
        Lang::TypeScript => {
            let n = words(raw).split_whitespace().collect::<Vec<_>>().join("-");
            if n.is_empty() {
                "schema".into()
            } else if reserved {
                format!("{n}-schema")
            } else {
                n
            }
        }
        _ if snake.is_empty() => "schema".into(),
        _ if reserved => format!("{snake}_schema"),
        _ => snake,
    }
}

/// The module name of every schema file, unique within the package: names that are equal
/// after case folding and ignoring `_` and `-` (`a-b.json`, `a_b.json`, `A_B.json`, which are
/// one module or one file on some systems) keep the name for the first file in the order of
/// the root-relative paths, and the others get a numeric suffix (`a_b_2`) in that order, so
/// the result never depends on the order files were found in.
pub fn module_names(lang: Lang, modules: &[super::model::Module]) -> Vec<String> {
    let mut order: Vec<usize> = (0..modules.len()).collect();
    order.sort_by(|a, b| modules[*a].rel.cmp(&modules[*b].rel).then(a.cmp(b)));
    let sep = if lang == Lang::TypeScript { "-" } else { "_" };
    let mut taken = HashSet::new();
    let mut out = vec![String::new(); modules.len()];
    for i in order {
        out[i] = dedupe(
            vec![module_name(lang, &modules[i].raw_name)],
            &mut taken,
            sep,
        )
        .remove(0);
    }
    out
}

/// The import name of a Python package's native accelerator (`context_protocols_native`).
pub fn python_native_module(import: &str) -> String {
    format!("{import}_native")
}

/// The module of the accelerator's glue beside the modules of the Rust bindings it includes
/// (one per schema file, and the crate's own `formats`, `helpers`, `runtime`, `validators`).
pub fn python_native_glue(modules: &[super::model::Module]) -> String {
    let mut taken = HashSet::new();
    let mut names = module_names(Lang::Rust, modules);
    names.extend(["formats", "helpers", "runtime", "validators"].map(String::from));
    dedupe(names, &mut taken, "_");
    dedupe(vec!["python_native".into()], &mut taken, "_").remove(0)
}

/// Makes names unique, in order: the first keeps its name, later ones get a numeric suffix.
/// Two names that differ only in case count as the same (file systems and snake_case fold case).
pub fn dedupe(names: Vec<String>, taken: &mut HashSet<String>, sep: &str) -> Vec<String> {
    names
        .into_iter()
        .map(|n| {
            let mut candidate = n.clone();
            let mut i = 2;
            // `self_` and a separator would give `self__2`, not snake case.
            let stem = if sep.is_empty() {
                n.as_str()
            } else {
                n.trim_end_matches(sep)
            };
            while !taken.insert(candidate.to_lowercase().replace(['_', '-'], "")) {
                candidate = format!("{stem}{sep}{i}");
                i += 1;
            }
            candidate
        })
        .collect()
}

/// The names of every type in the IR, unique across the package and the same in every
/// language (`lang` is kept for the callers' symmetry; the decision does not depend on it):
///
/// - a type is named after its raw name in UpperCamelCase, with `Type` appended while the name
///   is reserved in *any* of the three languages (`Result`, `string`, `Field`: `ResultType`
///   everywhere), so `validate("ResultType", …)` means one type in Rust, TypeScript and Python;
/// - names that collide (ignoring case) are decided by the types' schema locations, not by the
///   order in which types were discovered: the type whose location (file path relative to the
///   schema root, then JSON Pointer) sorts first keeps the name, the others are prefixed with
///   their module's name, then numbered. Adding a file or a definition that takes none of these
///   names renames nothing.
pub fn type_names(_lang: Lang, ir: &Ir) -> Vec<String> {
    ir.type_names.get_or_init(|| unique_type_names(ir)).clone()
}

fn unique_type_names(ir: &Ir) -> Vec<String> {
    let base: Vec<String> = ir
        .types
        .iter()
        .map(|t| shared_type_name(&t.raw_name))
        .collect();
    // Types in the order of their schema locations.
    let mut order: Vec<usize> = (0..ir.types.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            let t = &ir.types[i];
            (
                ir.modules[t.module].rel.as_str(),
                t.origin.pointer.as_str(),
                i,
            )
        };
        key(a).cmp(&key(b))
    });
    let mut counts = std::collections::HashMap::new();
    for n in &base {
        *counts.entry(n.to_lowercase()).or_insert(0) += 1;
    }
    let mut seen_first = HashSet::new();
    let mut preferred = vec![String::new(); base.len()];
    for &i in &order {
        let (n, t) = (&base[i], &ir.types[i]);
        preferred[i] = if counts[&n.to_lowercase()] > 1 && !seen_first.insert(n.to_lowercase()) {
            shared_type_name(&format!("{} {}", ir.modules[t.module].raw_name, t.raw_name))
        } else {
            n.clone()
        };
    }
    let sorted: Vec<String> = order.iter().map(|&i| preferred[i].clone()).collect();
    let unique = dedupe(sorted, &mut HashSet::new(), "");
    let mut out = vec![String::new(); base.len()];
    for (&i, name) in order.iter().zip(unique) {
        out[i] = name;
    }
    out
}

/// A type name that no language reserves: [`type_name`] with `Type` appended while any of
/// Rust, TypeScript or Python reserves it.
pub fn shared_type_name(raw: &str) -> String {
    let mut n = type_name(Lang::Rust, raw);
    while [Lang::Rust, Lang::TypeScript, Lang::Python]
        .iter()
        .any(|l| l.reserved_types(&n))
    {
        n.push_str("Type");
    }
    n
}

/// Field names of one struct, unique within it.
pub fn field_names(lang: Lang, wires: &[&str]) -> Vec<String> {
    let names = wires.iter().map(|w| field_name(lang, w)).collect();
    if lang == Lang::TypeScript {
        return names;
    }
    dedupe(names, &mut HashSet::new(), "_")
}

/// Variant names of a Rust enum or union, unique within it.
pub fn variant_names(raws: &[String]) -> Vec<String> {
    let names = raws
        .iter()
        .map(|r| {
            let n = words(r).to_upper_camel_case();
            // `Self` is a keyword; other keywords are lowercase and cannot be UpperCamelCase.
            if n.is_empty() {
                "Empty".to_string()
            } else if n.starts_with(|c: char| c.is_ascii_digit()) {
                format!("V{n}")
            } else if n == "Self" {
                "SelfValue".to_string()
            } else {
                n
            }
        })
        .collect();
    dedupe(names, &mut HashSet::new(), "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_and_reserved_words() {
        let table = [
            (
                Lang::Rust,
                "thesis context",
                "ThesisContext",
                "type",
                "type_",
            ),
            (Lang::Rust, "Result", "ResultType", "await", "await_"),
            (Lang::Python, "Field", "FieldType", "class", "class_"),
            (Lang::Python, "x", "X", "list", "list_"),
            (Lang::Python, "x", "X", "model_config", "model_config_"),
            (Lang::Python, "x", "X", "register", "register_"),
            (Lang::TypeScript, "string", "StringType", "class", "class"),
            (Lang::Rust, "3d-point", "T3dPoint", "3d", "n3d"),
            (Lang::Rust, "$$$", "Unnamed", "$ref", "ref_"),
            (
                Lang::Python,
                "chapter-based",
                "ChapterBased",
                "canStartImmediately",
                "can_start_immediately",
            ),
        ];
        for (lang, raw_type, ty, raw_field, field) in table {
            assert_eq!(type_name(lang, raw_type), ty, "{lang:?} type {raw_type}");
            assert_eq!(
                field_name(lang, raw_field),
                field,
                "{lang:?} field {raw_field}"
            );
        }
    }

    #[test]
    fn collisions_resolve_in_order() {
        let names = field_names(Lang::Python, &["Name", "name", "NAME", "name_2"]);
        assert_eq!(names, ["name", "name_2", "name_3", "name_2_2"]);
        assert_eq!(
            variant_names(&["a".into(), "A".into(), "".into(), "1".into()]),
            ["A", "A2", "Empty", "V1"]
        );
        assert_eq!(module_name(Lang::Python, "type"), "type_schema");
        assert_eq!(
            module_name(Lang::TypeScript, "paper context"),
            "paper-context"
        );
    }

    fn module(rel: &str) -> crate::ir::Module {
        crate::ir::Module {
            rel: rel.into(),
            raw_name: rel.trim_end_matches(".json").replace('/', " "),
            title: None,
            doc: None,
            types: Vec::new(),
        }
    }

    #[test]
    fn the_accelerator_glue_module_takes_no_module_name() {
        assert_eq!(python_native_glue(&[module("order.json")]), "python_native");
        let modules = [module("python_native.json"), module("python-native-2.json")];
        assert_eq!(python_native_glue(&modules), "python_native_3");
        assert_eq!(python_native_module("shop"), "shop_native");
    }

    #[test]
    fn module_names_are_unique_ascii_and_independent_of_order() {
        let rels = [
            "a_b.json",
            "runtime.json",
            "a-b.json",
            "aB.json",
            "日本.json",
            "é.json",
            "validators.json",
            "__init__.json",
            "1st.json",
            "type.json",
            ".json",
        ];
        let forward: Vec<crate::ir::Module> = rels.iter().map(|r| module(r)).collect();
        let backward: Vec<crate::ir::Module> = rels.iter().rev().map(|r| module(r)).collect();
        for lang in [Lang::Rust, Lang::TypeScript, Lang::Python] {
            let a = module_names(lang, &forward);
            let mut b = module_names(lang, &backward);
            b.reverse();
            assert_eq!(a, b, "{lang:?}");
            let keys: HashSet<String> = a
                .iter()
                .map(|n| n.to_lowercase().replace(['_', '-'], ""))
                .collect();
            assert_eq!(keys.len(), a.len(), "{lang:?} {a:?}");
            assert!(a.iter().all(|n| n.is_ascii() && !n.is_empty()), "{a:?}");
        }
        let rust = module_names(Lang::Rust, &forward);
        // Sorted paths decide: `a-b.json` < `aB.json` < `a_b.json`.
        assert_eq!(rust[2], "a_b");
        assert_eq!(rust[3], "a_b_2");
        assert_eq!(rust[0], "a_b_3");
        assert_eq!(rust[1], "runtime_schema");
        assert_eq!(rust[4], "ri_ben");
        assert_eq!(rust[5], "e");
        assert_eq!(rust[7], "init_schema");
        assert_eq!(rust[8], "m1st");
        // A module named like a tool attribute namespace would shadow `#[rustfmt::skip]`.
        assert_eq!(module_name(Lang::Rust, "rustfmt"), "rustfmt_schema");
        assert_eq!(module_name(Lang::Rust, "clippy"), "clippy_schema");
        assert_eq!(module_name(Lang::Rust, "lite"), "lite_schema");
        assert_eq!(
            module_names(Lang::TypeScript, &forward)[6],
            "validators-schema"
        );
    }

    #[test]
    fn names_are_ascii_and_never_reserved() {
        assert_eq!(type_name(Lang::Python, "True"), "TrueType");
        assert_eq!(type_name(Lang::Python, "None"), "NoneType");
        assert_eq!(type_name(Lang::Python, "TypeAlias"), "TypeAliasTypeType");
        assert_eq!(type_name(Lang::Rust, "日本"), "RiBen");
        assert_eq!(type_name(Lang::Rust, ""), "Unnamed");
        assert_eq!(field_name(Lang::Python, "é"), "e");
        assert_eq!(field_name(Lang::Python, "\n\0"), "field");
        assert_eq!(
            field_names(Lang::Rust, &["self", "Self"]),
            ["self_", "self_2"]
        );
    }
}
