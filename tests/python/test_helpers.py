"""Every helper vector of tests/vectors/helpers against the generated helpers module.

Helpers are called with the JSON arguments of the vectors (the helpers accept plain JSON
objects as well as models); results are compared with the vector rules: numbers within
1e-9, arrays in order, objects by key set, errors by ``HelperError.code``.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from pydantic import BaseModel

import context_protocols as pkg
from conftest import VECTORS, load_json
from context_protocols import helpers


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _cases() -> list[Any]:
    params = []
    for path in sorted((VECTORS / "helpers").glob("*.json")):
        doc = load_json(path)
        for i, case in enumerate(doc["cases"]):
            name = f"{doc['group']}/{case['helper']}#{i}: {case['description']}"
            params.append(pytest.param(case, id=name))
    return params


CASES = _cases()


def _equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, (int, float)):
        return (
            isinstance(actual, (int, float))
            and not isinstance(actual, bool)
            and math.isclose(actual, expected, rel_tol=0.0, abs_tol=1e-9)
        )
    if isinstance(expected, str):
        return isinstance(actual, str) and actual == expected
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(_equal(actual[k], expected[k]) for k in expected)
        )
    return False


def test_helper_vector_count() -> None:
    assert len(CASES) == 594


@pytest.mark.parametrize("case", CASES)
def test_helper(case: dict[str, Any]) -> None:
    function = getattr(helpers, _snake(case["helper"]))
    if "error" in case:
        with pytest.raises(helpers.HelperError) as info:
            function(*case["args"])
        assert info.value.code == case["error"]
    else:
        actual = function(*case["args"])
        if isinstance(actual, BaseModel):
            actual = actual.model_dump(by_alias=True, exclude_unset=True)
        assert _equal(actual, case["expected"]), (actual, case["expected"])


# Helpers whose object arguments are typed models: (helper, argument index, type name).
MODEL_ARGS = {
    "isCrossSkillHandoff": (0, "SessionContext"),
    "isSessionMismatch": (0, "SessionContext"),
    "percentFull": (0, "ContextWindow"),
    "taskMatchScore": (0, "ContextReport"),
    "checkQualityReport": (0, "QualityReport"),
    "getContextTree": (0, "MessageEnvelope"),
    "getDirectChildren": (0, "MessageEnvelope"),
    "mainContextOnly": (0, "MessageEnvelope"),
    "getRootContexts": (0, "MessageEnvelope"),
}


def _as_model(type_name: str, value: Any) -> Any:
    validate, parse = pkg.TYPES[type_name]
    if isinstance(value, list):
        return [_as_model(type_name, v) for v in value]
    return parse(value) if not validate(value) else None


def _model_cases() -> list[Any]:
    """Cases whose object argument is a valid instance, with that argument as a model."""
    params = []
    for p in CASES:
        case = p.values[0]
        if case["helper"] not in MODEL_ARGS or "expected" not in case:
            continue
        index, type_name = MODEL_ARGS[case["helper"]]
        model = _as_model(type_name, case["args"][index])
        if model is None or (isinstance(model, list) and None in model):
            continue
        args = list(case["args"])
        args[index] = model
        params.append(pytest.param(case, args, id=p.id))
    return params


@pytest.mark.parametrize(("case", "args"), _model_cases())
def test_helper_with_models(case: dict[str, Any], args: list[Any]) -> None:
    actual = getattr(helpers, _snake(case["helper"]))(*args)
    if isinstance(args[0], list):
        actual = [m.model_dump(by_alias=True, exclude_unset=True) for m in actual]
    assert _equal(actual, case["expected"]), (actual, case["expected"])


def test_worked_example_derives_valid_contexts() -> None:
    """docs/helpers.md: both derived contexts validate against their schemas."""
    thesis = pkg.parse_thesis_context(
        load_json(VECTORS.parent.parent / "docs" / "examples" / "thesis-context.json")
    )
    chapter = helpers.derive_chapter_context(
        thesis,
        "ch3",
        {
            "parent_summary": "A thesis on hierarchical context for writing agents; "
            "this chapter describes the method.",
            "chapter_objectives": ["Describe the protocol"],
            "research_questions_addressed": [
                "RQ1: Does hierarchical context reduce inconsistency?"
            ],
            "contributions_supported": ["C1: A context protocol"],
            "chapter_citations": ["smith2020", "wang2023"],
            "required_citations": ["smith2020"],
            "section_assignments": [
                {
                    "section_id": "3.1",
                    "section_title": "Design",
                    "word_budget": 3000,
                    "dependencies": [],
                    "writer_type": "methods-writer",
                    "status": "complete",
                },
                {
                    "section_id": "3.2",
                    "section_title": "Setup",
                    "word_budget": 2500,
                    "dependencies": ["3.1"],
                    "writer_type": "methods-writer",
                    "status": "drafted",
                },
            ],
        },
        ["word budget"],
    )
    section = helpers.derive_section_context(
        chapter,
        "3.2",
        {
            "chapter_summary": "The method chapter: protocol design, then setup.",
            "section_objectives": ["Explain the setup"],
            "key_points": ["40 theses", "5 runs"],
            "relevant_research_files": ["research/setup.md"],
            "relevant_notes": [],
            "available_citations": ["smith2020", "wang2023"],
            "style_guide": {"tense_for_section": "past"},
        },
    )
    chapter_json = pkg.dump_chapter_context(chapter)
    section_json = pkg.dump_section_context(section)
    assert pkg.validate_chapter_context(chapter_json) == []
    assert pkg.validate_section_context(section_json) == []
    assert chapter_json["remaining_budget"] == 3500
    assert section_json["section_number"] == "3.2"
