//! Runs every schema vector in `tests/vectors/` through the generated Rust crate
//! (`generated/rust`): valid instances parse, round-trip and validate; invalid ones are rejected
//! with exactly the expected (pointer, keyword) pairs.

use std::path::Path;

use serde_json::Value;

fn vector_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir("tests/vectors").expect("tests/vectors") {
        let dir = dir.expect("entry").path();
        if !dir.is_dir() || dir.file_name().is_some_and(|n| n == "helpers") {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("protocol dir") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "json") {
                files.push(f);
            }
        }
    }
    files.sort();
    files
}

fn pairs(v: &[context_protocols::Violation]) -> Vec<(String, String)> {
    let mut p: Vec<_> = v
        .iter()
        .map(|v| (v.pointer.clone(), v.keyword.to_string()))
        .collect();
    p.sort();
    p
}

#[test]
fn every_vector_agrees_with_the_generated_rust_bindings() {
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for file in vector_files() {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("read"))
            .expect("vector JSON");
        let ty = doc["type"].as_str().expect("type");
        let name = Path::new(&file).display().to_string();
        for case in doc["cases"].as_array().expect("cases") {
            let desc = case["description"].as_str().unwrap_or("?");
            let instance = case["instance"].clone();
            let result = context_protocols::validate(ty, &instance)
                .unwrap_or_else(|| panic!("{name}: unknown type {ty}"));
            if case["valid"] == Value::Bool(true) {
                valid += 1;
                if let Err(e) = result {
                    failures.push(format!("{name}: {desc}: expected valid, got {e}"));
                    continue;
                }
                let once = context_protocols::round_trip(ty, instance.clone()).expect("known type");
                match once {
                    Ok(back) => {
                        match context_protocols::round_trip(ty, back.clone()).expect("known type") {
                            Ok(again) if again == back => {}
                            Ok(again) => failures.push(format!(
                                "{name}: {desc}: round trip changed {back} into {again}"
                            )),
                            Err(e) => failures.push(format!(
                                "{name}: {desc}: serialized value does not parse: {e}"
                            )),
                        }
                    }
                    Err(e) => failures.push(format!(
                        "{name}: {desc}: valid instance does not parse: {e}"
                    )),
                }
            } else {
                invalid += 1;
                let mut expected: Vec<(String, String)> = case["errors"]
                    .as_array()
                    .expect("errors")
                    .iter()
                    .map(|e| {
                        (
                            e["pointer"].as_str().unwrap().to_string(),
                            e["keyword"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                expected.sort();
                match result {
                    Ok(()) => failures.push(format!("{name}: {desc}: expected invalid, got valid")),
                    Err(e) => {
                        let got = pairs(&e.0);
                        if got != expected {
                            failures.push(format!(
                                "{name}: {desc}: expected {expected:?}, got {got:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    println!("{valid} valid and {invalid} invalid vectors checked");
    assert!(valid + invalid >= 200, "too few vectors");
    assert!(
        failures.is_empty(),
        "{} of {} vectors disagree:\n{}",
        failures.len(),
        valid + invalid,
        failures.join("\n")
    );
}

/// `T::is_valid` of the struct types the vectors test, by name.
fn is_valid(ty: &str, v: &Value) -> Option<bool> {
    macro_rules! by_name {
        ($($t:ident),*) => {
            match ty {
                $(stringify!($t) => Some(context_protocols::$t::is_valid(v)),)*
                _ => None,
            }
        };
    }
    by_name!(
        AgentContextReport,
        ChapterContext,
        Coordination,
        MessageEnvelope,
        QualityReport,
        ReportContextInput,
        SchedulingAgentOutput,
        SchedulingOperation,
        SectionContext,
        SessionContext,
        ThesisContext
    )
}

#[test]
fn is_valid_gives_the_verdict_of_validate_on_every_vector() {
    let mut checked = 0;
    for file in vector_files() {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("read"))
            .expect("vector JSON");
        let ty = doc["type"].as_str().expect("type");
        for case in doc["cases"].as_array().expect("cases") {
            let instance = &case["instance"];
            let Some(quick) = is_valid(ty, instance) else {
                continue;
            };
            let full = context_protocols::validate(ty, instance).expect("known type");
            assert_eq!(
                quick,
                full.is_ok(),
                "{}: {}: is_valid and validate disagree",
                file.display(),
                case["description"]
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} cases reached is_valid");
}

#[test]
fn members_of_an_object_with_few_of_its_properties_are_reported_in_the_schema_order() {
    // ThesisContext declares `project_id`, `title`, `document_type`, ... in that order; an
    // object with two of them takes the member lookup of `properties`, and the violations
    // follow the schema's order, not the members' (`document_type` sorts first).
    let instance = serde_json::json!({"document_type": 5, "title": 1});
    let errors = context_protocols::ThesisContext::validate_value(&instance)
        .expect_err("both members have the wrong type");
    let pointers: Vec<String> = errors.0.iter().map(|v| v.pointer.to_string()).collect();
    assert_eq!(
        pointers.first().map(String::as_str),
        Some("/title"),
        "{pointers:?}"
    );
    assert!(
        pointers.iter().any(|p| p == "/document_type"),
        "{pointers:?}"
    );
    assert!(!context_protocols::ThesisContext::is_valid(&instance));
}
