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
    assert len(CASES) == 385


@pytest.mark.parametrize("case", CASES)
def test_helper(case: dict[str, Any]) -> None:
    function = getattr(helpers, _snake(case["helper"]))
    if "error" in case:
        with pytest.raises(helpers.HelperError) as info:
            function(*case["args"])
        assert info.value.code == case["error"]
    else:
        actual = function(*case["args"])
        assert _equal(actual, case["expected"]), (actual, case["expected"])
