//! `T::from_json` parses into a value that borrows its strings and validates and builds from it
//! (`generated/rust/src/lite/`); `T::from_value` goes through `serde_json::Value`. The two must
//! give the same result for every text: the same typed value, the same violations, a JSON error
//! for exactly the texts serde_json refuses. Checked on every vector instance, and on thousands
//! of texts made by splicing JSON fragments (hand-picked edge cases and random mutations of the
//! vectors) into a member of an open object.

use std::path::Path;

use context_protocols::{round_trip, round_trip_json, runtime, Error};
use serde_json::Value;

/// Every case of `tests/vectors/<protocol>/*.json`: (type, instance text, description).
fn vector_cases() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir("tests/vectors")
        .expect("tests/vectors")
        .map(|d| d.expect("entry").path())
        .filter(|d| d.is_dir() && d.file_name().is_some_and(|n| n != "helpers"))
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("protocol dir")
            .map(|f| f.expect("entry").path())
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
            let ty = doc["type"].as_str().expect("type").to_string();
            for case in doc["cases"].as_array().expect("cases") {
                let desc = format!(
                    "{}: {}",
                    Path::new(&file).display(),
                    case["description"].as_str().unwrap_or("?")
                );
                // Pretty-printed, so the texts have whitespace, and with members out of order.
                let text = serde_json::to_string_pretty(&case["instance"]).expect("print");
                out.push((ty.clone(), text, desc));
            }
        }
    }
    out
}

/// What a result says, comparable: the value, the violations as a sorted list of (pointer,
/// keyword) (the two paths may list them in another order: the borrowed value keeps members
/// in the order written, `serde_json::Value` sorts them), or the kind of error.
fn outcome(r: Result<Value, Error>) -> String {
    match r {
        Ok(v) => format!("ok {v}"),
        Err(Error::Invalid(e)) => {
            let mut p: Vec<_> =
                e.0.iter()
                    .map(|v| format!("{} {}", v.pointer, v.keyword))
                    .collect();
            p.sort();
            format!("invalid {p:?}")
        }
        Err(Error::Json(_)) => "not JSON".to_string(),
        Err(e) => format!("error {e}"),
    }
}

/// The result of the `serde_json::Value` path for a text.
fn through_value(ty: &str, text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => outcome(round_trip(ty, v).expect("known type")),
        Err(_) => "not JSON".to_string(),
    }
}

fn compare(ty: &str, text: &str, what: &str, failures: &mut Vec<String>) {
    // The depth bound reads the text before it is parsed: never less than the depth of what
    // it parses to (more where a repeated member's first value nests deeper), and exactly that
    // for the value's own text.
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        let depth = runtime::value_depth(&v);
        let of_text = runtime::text_depth(text.as_bytes());
        let of_own = runtime::text_depth(v.to_string().as_bytes());
        if of_text < depth || of_own != depth {
            failures.push(format!(
                "{what}: depth {depth}, of the text {of_text}, of its own text {of_own}\n  text: {text}"
            ));
        }
    }
    let lite = outcome(round_trip_json(ty, text).expect("known type"));
    let value = through_value(ty, text);
    if lite != value {
        failures.push(format!(
            "{what}\n  text: {text}\n  from_json: {lite}\n  from_value: {value}"
        ));
    }
}

#[test]
fn from_json_agrees_with_from_value_on_every_vector() {
    let cases = vector_cases();
    let mut failures = Vec::new();
    let (mut ok, mut invalid) = (0, 0);
    for (ty, text, desc) in &cases {
        compare(ty, text, desc, &mut failures);
        match round_trip_json(ty, text).expect("known type") {
            Ok(_) => ok += 1,
            Err(Error::Invalid(_)) => invalid += 1,
            Err(e) => failures.push(format!("{desc}: {e}")),
        }
        // The same text on one line, and with every member repeated (the last one counts).
        let compact: Value = serde_json::from_str(text).expect("JSON");
        compare(ty, &compact.to_string(), desc, &mut failures);
        if let Some(doubled) = doubled(&compact) {
            compare(
                ty,
                &doubled,
                &format!("{desc} (members doubled)"),
                &mut failures,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        ok > 100 && invalid > 400,
        "{ok} valid and {invalid} invalid cases"
    );
}

/// The text of an object with a decoy before each member: the same name with another value,
/// which the real member, written later, overrides.
fn doubled(v: &Value) -> Option<String> {
    let map = v.as_object()?;
    let mut parts = Vec::new();
    for (k, x) in map {
        let key = Value::String(k.clone()).to_string();
        parts.push(format!("{key}:[\"decoy\",{{}}]"));
        parts.push(format!("{key}:{x}"));
    }
    Some(format!("{{{}}}", parts.join(",")))
}

/// Fragments of JSON text and near-JSON that a parser may get wrong.
const EDGES: &[&str] = &[
    "0", "-0", "-0.0", "0.0", "1.0", "-1.0", "1e0", "1E2", "1e+2", "1e-2", "-1e-400", "1e400",
    "1e-400", "2.5e-324", "1.7976931348623157e308", "1.7976931348623159e308",
    "9007199254740993", "18446744073709551615", "18446744073709551616",
    "-9223372036854775808", "-9223372036854775809", "9223372036854775807",
    "9223372036854775808", "123456789012345678901234567890", "0.1", "0.30000000000000004",
    "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity",
    "1_000", "\"\"", "\"a\"", "\"\\u0000\"", "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\\ude00\"",
    "\"\\ud83d\\u0041\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\uD83D\\uDE00\"", "\"\\/\"",
    "\"\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\\a\"", "\"\\x41\"", "\"\\u12\"", "\"\\u12g4\"",
    "\"tab\there\"", "\"nl\nhere\"", "\"\u{7f}\"", "\"é日本\"", "\"😀\"", "\"a\\u0000b\"",
    "\"unterminated", "true", "false", "null", "tru", "nul", "True", "None", "[]", "{}",
    "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":}", "{1:2}", "{'a':1}",
    "[[[[[]]]]]", "{\"a\":{\"b\":{\"c\":[1,{\"d\":null}]}}}", "{\"a\":1,\"a\":2}",
    "{\"b\":1,\"a\":2,\"b\":3}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"a\":10}",
    "{\"k9\":0,\"k8\":1,\"k7\":2,\"k6\":3,\"k5\":4,\"k4\":5,\"k3\":6,\"k2\":7,\"k1\":8,\"k0\":9,\"k5\":\"x\"}",
    " [ 1 , 2 ] ", "\t{\n\"a\"\r:\t1}", "[1]x", "[1]]", "{\"a\":1}}", "[\"a\\\"b\"]",
    "[1.5e3,-2.25E-2,0e0,-0e-0]", "{\"\":0}", "{\"a\\u0000\":1}", "[\"\\u2028\\u2029\"]",
    // Brackets, quotes and escapes inside strings longer than a word, around word boundaries.
    "[\"[[[[[[[[[[[[[[[[\",[\"{{{{{{{{{{{{{{{{{\"]]", "[\"abcdefg\\\"[[[[[[[[[[[[[\\\\\",[[1]]]",
    "{\"k\\\"]]]]]]]]\":[[[\"\\\\\\\\\\\\\\\\[\"]]]}", "[\"0123456\\u005b\\u005b\\u005b[[[[[[[[\"]",
];

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `text` with a few random edits: a character removed, one of the JSON syntax characters
/// inserted, a slice repeated.
fn mutate(text: &str, rng: &mut Rng) -> String {
    const INSERT: &[&str] = &[
        "\"", "\\", "{", "}", "[", "]", ",", ":", "-", "+", ".", "e", "0", "1", " ", "\n", "\u{1}",
        "é", "\\u", "\\ud800",
    ];
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(3) {
        if chars.is_empty() {
            break;
        }
        let at = rng.below(chars.len());
        match rng.below(3) {
            0 => {
                chars.remove(at);
            }
            1 => {
                let s = INSERT[rng.below(INSERT.len())];
                for (i, c) in s.chars().enumerate() {
                    chars.insert(at + i, c);
                }
            }
            _ => {
                let len = 1 + rng.below(8.min(chars.len() - at));
                let slice: Vec<char> = chars[at..at + len].to_vec();
                for (i, c) in slice.into_iter().enumerate() {
                    chars.insert(at + len + i, c);
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// A valid instance of an open object type, and the text of that instance with `fragment` as
/// the value of one more member, first.
fn splice(instance: &Value, fragment: &str) -> String {
    let rest = instance.to_string();
    let rest = rest.strip_prefix('{').expect("an object");
    if rest == "}" {
        format!("{{\"zz_fragment\":{fragment}}}")
    } else {
        format!("{{\"zz_fragment\":{fragment},{rest}")
    }
}

#[test]
fn from_json_parses_exactly_what_serde_json_parses() {
    // Valid instances of types whose objects take further members (`extra`).
    let mut hosts = Vec::new();
    for (ty, text, _) in vector_cases() {
        let v: Value = serde_json::from_str(&text).expect("JSON");
        let Some(map) = v.as_object() else { continue };
        if map.contains_key("zz_fragment") {
            continue;
        }
        let mut probe = map.clone();
        probe.insert("zz_fragment".into(), Value::from(1));
        if round_trip(&ty, Value::Object(probe))
            .expect("known type")
            .is_ok()
        {
            hosts.push((ty, v));
        }
    }
    assert!(hosts.len() >= 20, "{} open hosts", hosts.len());
    let mut failures = Vec::new();
    let mut n = 0;
    for (i, edge) in EDGES.iter().enumerate() {
        let (ty, host) = &hosts[i % hosts.len()];
        compare(
            ty,
            &splice(host, edge),
            &format!("edge {edge:?}"),
            &mut failures,
        );
        n += 1;
    }
    // Fragments: the vector instances themselves, mutated.
    let sources: Vec<String> = vector_cases().into_iter().map(|c| c.1).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..4000 {
        let (ty, host) = &hosts[rng.below(hosts.len())];
        let src = &sources[rng.below(sources.len())];
        let fragment = if round % 2 == 0 {
            mutate(src, &mut rng)
        } else {
            mutate(EDGES[rng.below(EDGES.len())], &mut rng)
        };
        compare(
            ty,
            &splice(host, &fragment),
            &format!("mutant {round}"),
            &mut failures,
        );
        n += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {n}:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

#[test]
fn a_deep_text_with_an_error_at_its_end_is_refused_on_a_small_stack() {
    // A finished value 1,000 levels deep, then an error: the parser drops what it built
    // without recursion, and serde_json (on a stack of its own) says where the error is.
    let text = format!(
        "{{\"zz_fragment\":{}{} x}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    let host = vector_cases()
        .into_iter()
        .find(|(ty, _, _)| ty == "AgentContextReport")
        .expect("a host type")
        .0;
    let outcome = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || matches!(round_trip_json(&host, &text), Some(Err(Error::Json(_)))))
        .expect("thread")
        .join()
        .expect("no overflow");
    assert!(outcome, "a JSON error");
}
