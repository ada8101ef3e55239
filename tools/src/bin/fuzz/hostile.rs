//! Hostile strings, file names and values: what ends comments and string literals, reserved
//! words of the three target languages, names that collide after case folding or naming
//! conventions, and payloads that would run code if they escaped into the generated source.

use serde_json::{json, Value};

use super::Rng;

/// The file a payload creates if it ever runs (relative to the working directory).
pub const SENTINEL: &str = "PWNED";

const STRINGS: &[&str] = &[
    "",
    " ",
    "\n",
    "x\ny",
    "\r\n",
    "\r",
    "\0",
    "a\0b",
    "\t",
    "\u{b}\u{c}",
    "*/",
    "/*",
    "*/ panic!(); /*",
    "//",
    "///",
    "//!",
    "#",
    "# comment",
    "#!",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\\\",
    "\\u0000",
    "\\n",
    "\\'",
    "${x}",
    "`",
    "``",
    "`${1}`",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#}",
    "{}",
    "%s",
    "<!--",
    "-->",
    "</script>",
    "r#\"",
    "\"#",
    "]]",
    "@",
    "$",
    "$$",
    "0",
    "1abc",
    "-",
    "--",
    "_",
    "__",
    "a-b",
    "a_b",
    "a.b",
    "a b",
    "aB",
    "AB",
    "ä",
    "ß",
    "İ",
    "日本語",
    "🦀",
    "\u{202e}rtl",
    "\u{feff}",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\u{200b}",
    "ﬁ",
    "e\u{301}",
    "é",
    "\u{1}",
    "\u{7f}",
    "\u{fffd}",
    // Reserved words and built-in names of Rust, TypeScript and Python.
    "type",
    "self",
    "Self",
    "super",
    "crate",
    "mod",
    "fn",
    "impl",
    "match",
    "move",
    "ref",
    "r#type",
    "async",
    "await",
    "dyn",
    "abstract",
    "None",
    "True",
    "False",
    "true",
    "false",
    "null",
    "undefined",
    "NaN",
    "Infinity",
    "constructor",
    "__proto__",
    "prototype",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "__init__",
    "__class__",
    "__dict__",
    "__slots__",
    "__all__",
    "__annotations__",
    "class",
    "def",
    "lambda",
    "import",
    "from",
    "export",
    "default",
    "enum",
    "interface",
    "namespace",
    "declare",
    "let",
    "var",
    "const",
    "yield",
    "global",
    "nonlocal",
    "del",
    "pass",
    "any",
    "never",
    "unknown",
    "object",
    "Object",
    "Array",
    "String",
    "Number",
    "Boolean",
    "Record",
    "Value",
    "Result",
    "Option",
    "Some",
    "Ok",
    "Err",
    "Vec",
    "Box",
    "Error",
    "ValidationErrors",
    "Violation",
    "Node",
    "rt",
    "serde",
    "serde_json",
    "validate",
    "from_json",
    "BaseModel",
    "RootModel",
    "model_config",
    "model_fields",
    "model_validate",
    "Field",
    "Literal",
    "Any",
    "Optional",
    "Union",
    "typing",
    "pydantic",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "bytes",
    "print",
    "os",
    "sys",
    // Payloads: each creates the sentinel file if it ever runs.
    "x\n    return True\n__import__('os').system('touch PWNED')\ndef _z(v, p, out):\n    #",
    "\"\"\"\n__import__('os').system('touch PWNED')\n\"\"\"",
    "'''\n__import__('os').system('touch PWNED')\n'''",
    "\"\n__import__('os').system('touch PWNED')\n#",
    "'\n__import__('os').system('touch PWNED')\n#",
    "\\\n__import__('os').system('touch PWNED')",
    "*/\nrequire('fs').writeFileSync('PWNED', '');\n/*",
    "`; require('fs').writeFileSync('PWNED', ''); `",
    "${require('fs').writeFileSync('PWNED', '')}",
    "\"; std::fs::write(\"PWNED\", \"\").ok(); \"",
    "*/ } fn _x() { std::fs::write(\"PWNED\", \"\").ok(); } /*",
    "$(touch PWNED)",
    "`touch PWNED`",
    "; touch PWNED",
];

/// A hostile string: from the list, a long one, or two glued together.
pub fn string(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => rng.pick(&["x", "é", "a_", "🦀", "'"]).repeat(300),
        1 => format!("{}{}", rng.pick(STRINGS), rng.pick(STRINGS)),
        2 => format!("name{}", rng.pick(STRINGS)),
        _ => rng.pick(STRINGS).to_string(),
    }
}

/// Names that collide with `name` after case folding or a naming convention.
pub fn collisions(name: &str) -> Vec<String> {
    let mut out = vec![
        name.to_uppercase(),
        name.to_lowercase(),
        name.replace('_', "-"),
        name.replace('-', "_"),
        format!("{name}_"),
        format!("_{name}"),
        format!("{name} "),
        format!("{name}."),
        format!("{name}$"),
        name.replace('_', ""),
    ];
    let mut chars = name.chars();
    if let Some(c) = chars.next() {
        out.push(format!("{}{}", c.to_uppercase(), chars.as_str()));
    }
    out.retain(|n| n != name);
    out.dedup();
    out
}

/// File names that collide with the modules or files of the generated packages, or are
/// otherwise awkward.
const FILE_NAMES: &[&str] = &[
    "validators.json",
    "runtime.json",
    "index.json",
    "formats.json",
    "helpers.json",
    "__init__.json",
    "_runtime.json",
    "_validators.json",
    "lib.json",
    "mod.json",
    "main.json",
    "package.json",
    "tsconfig.json",
    "pyproject.json",
    "py.json",
    "src.json",
    "type.json",
    "self.json",
    "None.json",
    "class.json",
    "1.json",
    "-.json",
    "_.json",
    "..json",
    "a.b.json",
    "a b.json",
    "é.json",
    "日本.json",
    "🦀.json",
    "a\nb.json",
    "a'b.json",
    "a\"b.json",
    "a`b.json",
    "a$b.json",
    "a#b.json",
    "a%20b.json",
    "a\\b.json",
    "sub/a.json",
    "sub/index.json",
    "sub/sub.json",
];

/// A file name for a mutant's file `i`: usually plain, sometimes hostile.
pub fn file_name(rng: &mut Rng, i: usize) -> String {
    match rng.below(8) {
        0..=3 => format!("{}.json", ["a", "b", "c", "d"][i % 4]),
        4 => format!("{}.json", "n".repeat(200)),
        _ => rng.pick(FILE_NAMES).to_string(),
    }
}

/// Pairs of file names that collide once turned into module names.
pub const COLLIDING_FILES: &[(&str, &str)] = &[
    ("a-b.json", "a_b.json"),
    ("A.json", "a.json"),
    ("a.b.json", "a_b.json"),
    ("a b.json", "a-b.json"),
    ("sub/a.json", "sub_a.json"),
    ("validators.json", "Validators.json"),
    ("index.json", "sub/index.json"),
    ("é.json", "e.json"),
];

/// A value of a random JSON type, different from `not_like`'s type when possible.
pub fn value(rng: &mut Rng, not_like: Option<&Value>) -> Value {
    for _ in 0..4 {
        let v = match rng.below(14) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(false),
            3 => json!(rng.pick(&[0i64, -1, 1, i64::MAX, i64::MIN, 7])),
            4 => json!(rng.pick(&[0.5f64, -0.0, 1e308, -1e308, 1e-300, 2.5])),
            5 => json!(u64::MAX),
            6 | 7 => Value::String(string(rng)),
            8 => json!([]),
            9 => json!([string(rng), 1, null]),
            10 => json!({}),
            11 => json!({ string(rng): string(rng) }),
            12 => json!(["string", "string"]),
            _ => json!({"type": string(rng)}),
        };
        let same =
            not_like.is_some_and(|o| std::mem::discriminant(o) == std::mem::discriminant(&v));
        if !same {
            return v;
        }
    }
    Value::Null
}

/// An extension annotation with a malformed (or oddly formed) value.
pub fn extension(rng: &mut Rng) -> (String, Value) {
    let s = string(rng);
    let key = *rng.pick(&[
        "x-quality-score",
        "x-fallback",
        "x-path-hierarchy",
        "x-max-words",
        "x-bands",
        "x-freshness",
        "x-handoff",
        "x-percent-full",
        "x-task-match",
        "x-semver-compatibility",
    ]);
    let v = match (key, rng.below(4)) {
        (_, 0) => value(rng, None),
        ("x-quality-score", _) => json!({
            "issues": s, "severity": rng.pick(&["severity", "", "nope"]).to_string(),
            "deductions": rng.pick(&[json!({"high": "x"}), json!([]), json!({"": -1e308}), json!({s.clone(): 0.5})]).clone(),
            "floor": value(rng, None), "blocking": value(rng, None),
            "counts": rng.pick(&[json!({"high": s}), json!(null), json!({"x": 1})]).clone(),
            "score": value(rng, None), "passed": s
        }),
        ("x-fallback", _) => rng
            .pick(&[
                json!({s.clone(): s}),
                json!([1, 2]),
                json!("x"),
                json!({"type": 5}),
            ])
            .clone(),
        ("x-path-hierarchy", _) => json!({
            "separator": rng.pick(&["", "/", "\"", "\\", "*/", "\n", "ab"]).to_string(),
            "maxDepth": value(rng, None), "maxLength": rng.pick(&[json!(-1), json!(1e308), json!("3")]).clone(),
            "segmentPattern": rng.pick(&["(", "[", "\\", "*/", "^$", "(?<x>a)"]).to_string()
        }),
        ("x-max-words", _) => rng
            .pick(&[
                json!(-1),
                json!(1.5),
                json!("3"),
                json!(1e20),
                json!(0),
                json!(u64::MAX),
                json!(null),
            ])
            .clone(),
        ("x-bands", _) => json!([{"min": s, "label": 1}, {"min": 5}, {}]),
        ("x-freshness", _) => json!({"bands": [{"below": "P1X", "label": s}], "otherwise": 3}),
        ("x-handoff", _) => json!({"sourceFamily": s, "targetFamily": "/x/y", "session": 5}),
        ("x-percent-full", _) => json!({"used": s, "available": "missing"}),
        ("x-task-match", _) => json!({"canStart": s, "canStartPoints": "x", "window": "/nope"}),
        _ => value(rng, None),
    };
    (key.to_string(), v)
}

/// A random keyword with an odd value.
pub fn keyword(rng: &mut Rng) -> (String, Value) {
    let key = *rng.pick(&[
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "required",
        "enum",
        "const",
        "default",
        "examples",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "dependentRequired",
        "dependencies",
        "contentEncoding",
        "propertyNames",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "prefixItems",
        "contains",
        "minContains",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$id",
        "id",
        "$comment",
        "deprecated",
        "readOnly",
        "nullable",
        "discriminator",
    ]);
    let v = match (key, rng.below(3)) {
        ("pattern", 0) => json!(rng.pick(&[
            "(",
            "[",
            "\\",
            "(?<n>a)\\k<n>",
            "\\p{L}",
            "a{2,1}",
            "(?=a)",
            "\\u{1F600}",
            "^\\cA$"
        ])),
        ("multipleOf", 0) => json!(rng.pick(&[json!(0), json!(-1), json!(1e-320), json!(0.1)])),
        ("format", 0) => json!(rng.pick(&["date-time", "unknown", "", "regex", "uri", "ipv4"])),
        ("patternProperties", 0) => json!({ string(rng): {"type": "string"}, "(": true }),
        ("required", 0) => json!([string(rng), string(rng)]),
        ("dependentRequired", 0) => json!({ string(rng): [string(rng)] }),
        _ => value(rng, None),
    };
    (key.to_string(), v)
}
