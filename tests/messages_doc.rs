//! The message table of `docs/validation.md` ("Messages") against the message vectors of
//! `tests/fixtures/bounded-vectors.json`, which the three languages' harnesses compare their own
//! messages with (`bounded-behaviour.rs`, `bounded.test.mjs`, `test_bounded.py`): every vector
//! message fits its keyword's row, every row's example fits the row, and every keyword whose
//! message names something has a vector.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use serde_json::Value;

/// keyword → (message template, example), from the table of the "Messages" section.
fn table() -> BTreeMap<String, (String, String)> {
    let doc = std::fs::read_to_string("docs/validation.md").expect("docs/validation.md");
    let start = doc.find("\n## Messages\n").expect("a Messages section");
    let section = &doc[start + 1..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |i| i + 1)];
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let [keyword, template, example] = cells.as_slice() else {
            panic!("a row of three cells: {line}");
        };
        let unquote = |s: &str| s.trim_matches('`').to_string();
        rows.insert(unquote(keyword), (unquote(template), unquote(example)));
    }
    rows
}

/// A template as a pattern: a `{…}` placeholder matches any text, and a list
/// `{…}, {…}, …` one item or more.
fn pattern(template: &str) -> Regex {
    let placeholder = Regex::new(r"(, \{[^}]*\}, …)|\{[^}]*\}").unwrap();
    let mut re = String::from("^");
    let mut last = 0;
    for m in placeholder.captures_iter(template) {
        let whole = m.get(0).unwrap();
        re.push_str(&regex::escape(&template[last..whole.start()]));
        re.push_str(if m.get(1).is_some() {
            "(?:, .+?)*"
        } else {
            ".+?"
        });
        last = whole.end();
    }
    re.push_str(&regex::escape(&template[last..]));
    re.push('$');
    Regex::new(&re).unwrap()
}

#[test]
fn vector_messages_and_examples_follow_the_documented_table() {
    let table = table();
    assert!(
        table.len() >= 30,
        "the table has a row per keyword: {}",
        table.len()
    );
    for (keyword, (template, example)) in &table {
        assert!(
            pattern(template).is_match(example),
            "{keyword}: {example:?} does not fit {template:?}"
        );
    }
    let text = std::fs::read_to_string("tests/fixtures/bounded-vectors.json").unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let mut covered = BTreeSet::new();
    let mut count = 0;
    for case in vectors["cases"].as_array().unwrap() {
        for e in case
            .get("errors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(message) = e.get("message").and_then(Value::as_str) else {
                continue;
            };
            let keyword = e["keyword"].as_str().unwrap();
            let (template, _) = table
                .get(keyword)
                .unwrap_or_else(|| panic!("no row for {keyword}"));
            assert!(
                pattern(template).is_match(message),
                "{keyword}: {message:?} does not fit the documented {template:?}"
            );
            covered.insert(keyword.to_string());
            count += 1;
        }
    }
    println!(
        "{count} vector messages checked against {} rows",
        table.len()
    );
    let with_parameter: BTreeSet<String> = table
        .iter()
        .filter(|(_, (t, _))| t.contains('{'))
        .map(|(k, _)| k.clone())
        .collect();
    let missing: Vec<&String> = with_parameter.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "keywords with a parameter but no message vector: {missing:?}"
    );
}
