"""The round-trip contract (docs/types.md) through the package generated from
tests/fixtures/fidelity/.

Every instance of tests/fixtures/fidelity-instances.json (the ones the Rust and TypeScript
harnesses run) validates, parses into the typed models (the validator's choice of union
variant, undeclared properties kept, wide integers, explicit nulls, 1,000 levels of nesting),
and serializes back to the same JSON value.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from conftest import ROOT
from fixture_fidelity import fidelity


def _instances() -> list[Any]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        text = (ROOT / "tests" / "fixtures" / "fidelity-instances.json").read_text()
        loaded: list[Any] = json.loads(text)
        return loaded
    finally:
        sys.setrecursionlimit(limit)


INSTANCES = _instances()


def _same_when_dumped(value: Any, instance: Any) -> bool:
    """Whether the dumped value equals the instance (compared, and sent through ``json``,
    with room for 1,000 levels of nesting)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        dumped = fidelity.dump_fidelity(value)
        same: bool = json.loads(json.dumps(dumped)) == instance
        return same
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("index", range(len(INSTANCES)))
def test_every_instance_validates_parses_and_serializes_back(index: int) -> None:
    instance = INSTANCES[index]
    assert fidelity.validate_fidelity(instance) == []
    parsed = fidelity.parse_fidelity(instance)
    assert _same_when_dumped(parsed, instance)


def test_the_validator_chooses_the_variant() -> None:
    parsed = fidelity.parse_fidelity(
        {
            "messages": [
                {"jsonrpc": "2.0", "method": "tools/call", "id": 7},
                {"jsonrpc": "2.0", "method": "notify"},
            ],
            "errors": [
                {"code": -32600, "message": "m", "data": 1},
                {"code": -32700, "message": "m"},
            ],
        }
    )
    assert parsed.messages is not None and parsed.errors is not None
    assert isinstance(parsed.messages[0], fidelity.Request)
    assert isinstance(parsed.messages[1], fidelity.Notification)
    assert isinstance(parsed.errors[0], fidelity.InvalidRequest)
    assert isinstance(parsed.errors[1], fidelity.ParseError)
