"""Hostile instances against the package generated from tests/fixtures/bounded/.

The cases of tests/fixtures/bounded-vectors.json (the same cases the Rust and TypeScript
harnesses run): nesting far beyond ``MAX_DEPTH`` never raises ``RecursionError`` and reports
exactly the listed (pointer, keyword) pairs, ``uniqueItems`` compares items by JSON value, and
numbers compare as doubles (docs/validation.md).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest

import fixture_bounded as pkg
from conftest import ROOT, load_json
from fixture_bounded import _runtime as rt
from fixture_bounded import bounded

VECTORS = load_json(ROOT / "tests" / "fixtures" / "bounded-vectors.json")


def _fill(template: Any, inner: Any) -> Any:
    if template == "$":
        return inner
    if isinstance(template, list):
        return [_fill(x, inner) for x in template]
    if isinstance(template, dict):
        return {k: _fill(x, inner) for k, x in template.items()}
    return template


def build(spec: dict[str, Any]) -> Any:
    """``leaf`` wrapped ``times`` times in ``wrap``, without recursion over the depth."""
    value = spec["leaf"]
    for _ in range(spec["times"]):
        value = _fill(spec["wrap"], value)
    return value


def instance(case: dict[str, Any]) -> Any:
    if "deep" in case:
        return build(case["deep"])
    if "deep_items" in case:
        return [build(s) for s in case["deep_items"]]
    return case["instance"]


def expected(case: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for e in case.get("errors", []):
        tokens, times = e.get("repeat", ["", 0])
        out.append((tokens * times + e["pointer"], e["keyword"]))
    return sorted(out)


def _pairs(violations: list[pkg.Violation]) -> list[tuple[str, str]]:
    return sorted((v.pointer, v.keyword) for v in violations)


CASES = [
    pytest.param(c, id=f"{c['type']}: {c['description']}") for c in VECTORS["cases"]
]


@pytest.mark.parametrize("case", CASES)
def test_bounded_vector(case: dict[str, Any]) -> None:
    validate, parse = pkg.TYPES[case["type"]]
    limit = sys.getrecursionlimit()
    got = _pairs(validate(instance(case)))
    assert got == expected(case)
    assert (got == []) == case["valid"]
    assert sys.getrecursionlimit() == limit
    # pydantic builds at most about 255 nested models: typed parsing of shallow cases only.
    if "instance" in case:
        if case["valid"]:
            parse(case["instance"])
        else:
            with pytest.raises(pkg.ValidationError):
                parse(case["instance"])


MESSAGE_VECTORS: list[dict[str, Any]] = [
    c for c in VECTORS["cases"] if any("message" in e for e in c.get("errors", []))
]
MESSAGE_CASES = [
    pytest.param(c, id=f"{c['type']}: {c['description']}") for c in MESSAGE_VECTORS
]


def test_message_cases_cover_the_keywords() -> None:
    keywords = {e["keyword"] for c in MESSAGE_VECTORS for e in c["errors"]}
    assert len(MESSAGE_VECTORS) >= 10
    assert {"type", "enum", "pattern", "maximum", "required", "maxDepth"} <= keywords


@pytest.mark.parametrize("case", MESSAGE_CASES)
def test_messages_are_the_shared_ones(case: dict[str, Any]) -> None:
    """The same text as the Rust and TypeScript bindings (docs/validation.md)."""
    validate, _ = pkg.TYPES[case["type"]]
    got = sorted((v.pointer, v.keyword, v.message) for v in validate(instance(case)))
    want = []
    for e in case["errors"]:
        tokens, times = e.get("repeat", ["", 0])
        want.append((tokens * times + e["pointer"], e["keyword"], e["message"]))
    assert got == sorted(want)


def test_max_depth_is_the_shared_constant() -> None:
    assert rt.MAX_DEPTH == 1024


@pytest.mark.parametrize("depth", [1023, 1024, 1025, 100_000])
def test_depth_boundary(depth: int) -> None:
    tree = build(
        {"leaf": {"value": "x"}, "wrap": {"value": "x", "next": "$"}, "times": depth}
    )
    got = _pairs(bounded.validate_tree(tree))
    if depth <= rt.MAX_DEPTH:
        assert got == []
    else:
        assert got == [("/next" * (rt.MAX_DEPTH + 1), "maxDepth")]


def test_a_low_recursion_limit_is_raised_and_restored() -> None:
    deep = build({"leaf": [], "wrap": ["$"], "times": 100_000})
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        assert _pairs(bounded.validate_json(deep)) == [("", "anyOf")]
        assert (
            _pairs(
                bounded.validate_json(build({"leaf": [], "wrap": ["$"], "times": 1024}))
            )
            == []
        )
        assert sys.getrecursionlimit() == 200
    finally:
        sys.setrecursionlimit(limit)


def test_threads_validating_deep_instances_restore_the_limit() -> None:
    limit = sys.getrecursionlimit()
    deep = build(
        {"leaf": {"value": "x"}, "wrap": {"value": "x", "next": "$"}, "times": 5000}
    )
    results: list[list[tuple[str, str]]] = []

    def run() -> None:
        results.append(_pairs(bounded.validate_tree(deep)))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[("/next" * 1025, "maxDepth")]] * 4
    assert sys.getrecursionlimit() == limit


def test_models_validate_deep_data_themselves() -> None:
    deep = build(
        {"leaf": {"value": "x"}, "wrap": {"value": "x", "next": "$"}, "times": 2000}
    )
    with pytest.raises(ValueError, match="nested deeper than 1024 levels"):
        bounded.Tree.model_validate(deep)


def test_integers_beyond_the_double_range_are_infinite() -> None:
    # JavaScript reads such a number as Infinity: a number, no integer, above every maximum.
    huge = 10**400
    assert _pairs(bounded.validate_numbers({"whole": huge})) == [("/whole", "type")]
    assert _pairs(bounded.validate_numbers({"max": huge})) == [("/max", "maximum")]
    assert _pairs(bounded.validate_numbers({"even": huge})) == [("/even", "multipleOf")]
    assert _pairs(bounded.validate_numbers({"numMin": -huge})) == [
        ("/numMin", "minimum")
    ]
    assert _pairs(bounded.validate_unique([huge, float("inf")])) == [
        ("", "uniqueItems")
    ]


def test_unique_items_of_100000_numbers() -> None:
    items: list[Any] = list(range(100_000))
    assert bounded.validate_unique(items) == []
    items.append(99_999.0)
    assert _pairs(bounded.validate_unique(items)) == [("", "uniqueItems")]
