//! Runs every helper vector in `tests/vectors/helpers/` through the helpers generated into the
//! Rust crate (`generated/rust`).

use context_protocols as p;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// The comparison rules of `tests/vectors/helpers/README.md`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= 1e-9
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A typed argument. An argument the Rust type cannot hold (an unknown severity) is rejected
/// at the type boundary: that is the Rust form of the `invalid-severity` error.
fn typed<T: DeserializeOwned>(v: &Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| {
        if e.to_string().contains("unknown variant") && v.to_string().contains("severity") {
            "invalid-severity".to_string()
        } else {
            format!("argument does not fit the Rust type: {e}")
        }
    })
}

fn out<T: serde::Serialize>(r: Result<T, p::HelperError>) -> Result<Value, String> {
    r.map(|v| serde_json::to_value(v).expect("serialize"))
        .map_err(|e| e.code().to_string())
}

fn call(helper: &str, a: &[Value]) -> Result<Value, String> {
    let s = |i: usize| a[i].as_str().expect("string argument");
    match helper {
        "parseContextPath" => out(p::parse_context_path(s(0))),
        "getRootContext" => out(p::get_root_context(s(0))),
        "getParentContext" => out(p::get_parent_context(s(0))),
        "isNestedContext" => out(p::is_nested_context(s(0))),
        "getContextDepth" => out(p::get_context_depth(s(0))),
        "isAncestor" => out(p::is_ancestor(s(0), s(1))),
        "getContextTree" => out(p::get_context_tree(
            &typed::<Vec<p::MessageEnvelope>>(&a[0])?,
            s(1),
        )),
        "getDirectChildren" => out(p::get_direct_children(
            &typed::<Vec<p::MessageEnvelope>>(&a[0])?,
            s(1),
        )),
        "mainContextOnly" => out(p::main_context_only(&typed::<Vec<p::MessageEnvelope>>(
            &a[0],
        )?)),
        "getRootContexts" => out(p::get_root_contexts(&typed::<Vec<p::MessageEnvelope>>(
            &a[0],
        )?)),
        "computeQualityScore" => out(p::compute_quality_score(&typed::<Vec<p::QualityIssue>>(
            &a[0],
        )?)),
        "countIssuesBySeverity" => out(p::count_issues_by_severity(
            &typed::<Vec<p::QualityIssue>>(&a[0])?,
        )),
        "passesQualityGate" => out(p::passes_quality_gate(&typed::<Vec<p::QualityIssue>>(
            &a[0],
        )?)),
        "checkQualityReport" => out(p::check_quality_report(&typed::<p::QualityReport>(&a[0])?)),
        "isSchemaVersionCompatible" => out(p::is_schema_version_compatible(s(0), s(1))),
        "confidenceBand" => out(p::confidence_band(a[0].as_f64().expect("number"))),
        "isCrossSkillHandoff" => Ok(json!(p::is_cross_skill_handoff(
            &typed::<p::SessionContext>(&a[0])?
        ))),
        "isSessionMismatch" => Ok(json!(p::is_session_mismatch(
            &typed::<p::SessionContext>(&a[0])?,
            s(1)
        ))),
        "percentFull" => Ok(json!(p::percent_full(&typed::<p::ContextWindow>(&a[0])?))),
        "contextFreshness" => out(p::context_freshness(s(0), s(1))),
        "taskMatchScore" => Ok(json!(p::task_match_score(
            &typed::<p::ContextReport>(&a[0])?,
            s(1),
            s(2)
        ))),
        "isValidAttendeeAction" => Ok(json!(p::is_valid_attendee_action(&a[0]))),
        "isValidEventAction" => Ok(json!(p::is_valid_event_action(&a[0]))),
        "attendeeFallbackAction" => {
            Ok(serde_json::to_value(p::attendee_fallback_action()).unwrap())
        }
        "eventFallbackAction" => Ok(serde_json::to_value(p::event_fallback_action()).unwrap()),
        "normalizeAttendeeAction" => {
            Ok(serde_json::to_value(p::normalize_attendee_action(&a[0])).unwrap())
        }
        "normalizeEventAction" => {
            Ok(serde_json::to_value(p::normalize_event_action(&a[0])).unwrap())
        }
        "applyThesisContextDefaults" => out(p::apply_thesis_context_defaults(&a[0])),
        "deriveChapterContext" => out(p::derive_chapter_context(
            &typed::<p::ThesisContext>(&a[0])?,
            s(1),
            &a[2],
            &typed::<Vec<String>>(&a[3])?,
        )),
        "deriveSectionContext" => out(p::derive_section_context(
            &typed::<p::ChapterContext>(&a[0])?,
            s(1),
            &a[2],
        )),
        "qualityNextStep" => out(p::quality_next_step(&typed::<Vec<p::QualityReport>>(
            &a[0],
        )?)),
        "matchTaskToAgent" => out(p::match_task_to_agent(
            &typed::<Vec<p::ContextReport>>(&a[0])?,
            s(1),
            s(2),
        )),
        "refreshRecommendation" => out(p::refresh_recommendation(
            &typed::<p::ContextReport>(&a[0])?,
            s(1),
            s(2),
        )),
        "reportContextResponse" => out(p::report_context_response(&a[0])),
        "processSchedulingAgentOutput" => {
            Ok(serde_json::to_value(p::process_scheduling_agent_output(&a[0])).unwrap())
        }
        other => panic!("no Rust helper for {other}"),
    }
}

#[test]
fn every_helper_vector_agrees_with_the_generated_rust_helpers() {
    let mut files: Vec<_> = std::fs::read_dir("tests/vectors/helpers")
        .expect("helper vectors")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut total, mut failures) = (0, Vec::new());
    for file in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for case in doc["cases"].as_array().unwrap() {
            total += 1;
            let helper = case["helper"].as_str().unwrap();
            let args = case["args"].as_array().unwrap();
            let got = call(helper, args);
            // A typed Rust envelope holds a `null` context as no context, so it comes back absent.
            let expected = case.get("expected").map(|e| match (helper, e) {
                ("mainContextOnly", Value::Array(items)) => Value::Array(
                    items
                        .iter()
                        .map(|m| {
                            let mut m = m.clone();
                            if m.get("context") == Some(&Value::Null) {
                                m.as_object_mut().unwrap().remove("context");
                            }
                            m
                        })
                        .collect(),
                ),
                _ => e.clone(),
            });
            let desc = format!(
                "{}: {helper}: {}",
                file.display(),
                case["description"].as_str().unwrap_or("")
            );
            match (expected.as_ref(), case.get("error"), got) {
                (Some(want), _, Ok(v)) if same(want, &v) => {}
                (_, Some(Value::String(code)), Err(e)) if *code == e => {}
                (want, code, got) => failures.push(format!(
                    "{desc}: expected {want:?} / error {code:?}, got {got:?}"
                )),
            }
        }
    }
    println!("{total} helper vectors checked");
    assert!(total >= 150);
    assert!(
        failures.is_empty(),
        "{} of {total} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `docs/helpers.md`: a ChapterContext and a SectionContext derived from the example
/// ThesisContext, both valid against their schemas.
#[test]
fn worked_example_derives_valid_chapter_and_section_contexts() {
    let text = std::fs::read_to_string("docs/examples/thesis-context.json").unwrap();
    let thesis = p::ThesisContext::from_json(&text).expect("the example thesis is valid");
    let chapter = p::derive_chapter_context(
        &thesis,
        "ch3",
        &json!({
            "parent_summary": "A thesis on hierarchical context for writing agents; this chapter describes the method.",
            "chapter_objectives": ["Describe the protocol"],
            "research_questions_addressed": ["RQ1: Does hierarchical context reduce inconsistency?"],
            "contributions_supported": ["C1: A context protocol"],
            "chapter_citations": ["smith2020", "wang2023"],
            "required_citations": ["smith2020"],
            "section_assignments": [
                {"section_id": "3.1", "section_title": "Design", "word_budget": 3000, "dependencies": [], "writer_type": "methods-writer", "status": "complete"},
                {"section_id": "3.2", "section_title": "Setup", "word_budget": 2500, "dependencies": ["3.1"], "writer_type": "methods-writer", "status": "drafted"}
            ]
        }),
        &["word budget".to_string()],
    )
    .expect("the chapter derives");
    let section = p::derive_section_context(
        &chapter,
        "3.2",
        &json!({
            "chapter_summary": "The method chapter: protocol design, then setup.",
            "section_objectives": ["Explain the setup"],
            "key_points": ["40 theses", "5 runs"],
            "relevant_research_files": ["research/setup.md"],
            "relevant_notes": [],
            "available_citations": ["smith2020", "wang2023"],
            "style_guide": {"tense_for_section": "past"}
        }),
    )
    .expect("the section derives");
    chapter.validate().expect("the chapter context validates");
    section.validate().expect("the section context validates");
    let chapter = chapter.to_value().unwrap();
    let section = section.to_value().unwrap();
    p::ChapterContext::validate_value(&chapter).unwrap();
    p::SectionContext::validate_value(&section).unwrap();
    assert_eq!(chapter["chapter_number"], 3);
    assert_eq!(chapter["remaining_budget"], 3500);
    assert_eq!(section["section_number"], "3.2");
    assert_eq!(section["word_budget"], 2500);
}
