"""Every schema vector of tests/vectors against the generated Python package.

Valid cases validate, parse into the typed model and round-trip through
``model_dump(by_alias=True)`` and JSON text to an equal value; invalid cases report
exactly the expected multiset of (instance pointer, keyword) pairs and make ``parse_x``
raise ``ValidationError``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

import context_protocols as pkg
from conftest import VECTORS, load_json
from context_protocols._runtime import json_equal


def _cases() -> list[Any]:
    params = []
    for path in sorted(VECTORS.glob("*/*.json")):
        if path.parent.name == "helpers":
            continue
        doc = load_json(path)
        location = f"{doc['schema']}#{doc['pointer']}"
        for case in doc["cases"]:
            name = f"{path.parent.name}/{path.stem}: {case['description']}"
            params.append(pytest.param(location, case, id=name))
    return params


CASES = _cases()


def _functions(location: str) -> tuple[Any, Any]:
    type_name = pkg.SCHEMAS[location]
    return pkg.TYPES[type_name]


def _pairs(violations: list[pkg.Violation]) -> list[tuple[str, str]]:
    return sorted((v.pointer, v.keyword) for v in violations)


def _dump(value: Any) -> Any:
    """The JSON form of a parsed value, by alias, without defaults the data did not set."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True, mode="json")
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return to_jsonable_python(value, by_alias=True)


def _known_subset(dumped: Any, original: Any) -> bool:
    """Whether ``dumped`` equals ``original`` up to properties the models ignore."""
    if isinstance(dumped, dict) and isinstance(original, dict):
        return all(
            k in original and _known_subset(v, original[k]) for k, v in dumped.items()
        )
    if isinstance(dumped, list) and isinstance(original, list):
        return len(dumped) == len(original) and all(
            _known_subset(a, b) for a, b in zip(dumped, original, strict=True)
        )
    return json_equal(dumped, original)


def test_vector_counts() -> None:
    valid = sum(1 for p in CASES if p.values[1]["valid"])
    assert len(CASES) >= 800
    assert valid >= 100


@pytest.mark.parametrize(("location", "case"), CASES)
def test_vector(location: str, case: dict[str, Any]) -> None:
    validate, parse = _functions(location)
    is_valid = getattr(pkg, validate.__name__.replace("validate_", "is_valid_", 1))
    instance = case["instance"]
    violations = validate(instance)
    assert is_valid(instance) is case["valid"]
    if case["valid"]:
        assert violations == []
        value = parse(instance)
        dumped = _dump(value)
        assert _known_subset(dumped, instance), (dumped, instance)
        text = json.loads(json.dumps(dumped))
        assert validate(text) == []
        assert parse(text) == value
    else:
        expected = sorted((e["pointer"], e["keyword"]) for e in case["errors"])
        assert _pairs(violations) == expected
        with pytest.raises(pkg.ValidationError) as info:
            parse(instance)
        assert _pairs(info.value.violations) == expected
