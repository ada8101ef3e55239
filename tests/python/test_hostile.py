"""The package generated from the hostile-names fixture (tests/fixtures/hostile/).

Property names, descriptions, enum values, patterns, defaults and file names there are
reserved words of the three languages or hold quotes, comment terminators, line breaks, NUL,
bidi controls and code. Importing the package must run none of it, and values must
round-trip with the schema's exact property names.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from conftest import ROOT, load_json

PACKAGE = "fixture_hostile"
CASE = load_json(ROOT / "tests" / "fixtures" / "hostile-instance.json")


def _types() -> dict[str, Any]:
    types: dict[str, Any] = importlib.import_module(PACKAGE).TYPES
    return types


def test_import_runs_no_schema_text() -> None:
    # A payload that escaped its comment or string would raise SystemExit on import.
    assert "Hostile" in _types()


def test_hostile_names_round_trip() -> None:
    validate, parse = _types()[CASE["type"]]
    instance = CASE["instance"]
    assert validate(instance) == []
    model = parse(instance)
    assert isinstance(model, BaseModel)
    assert model.model_dump(by_alias=True, exclude_unset=True, mode="json") == instance


def test_reserved_module_names_are_all_there() -> None:
    schemas = sorted(
        p.name for p in (ROOT / "tests" / "fixtures" / "hostile").glob("*.json")
    )
    locations = importlib.import_module(PACKAGE).SCHEMAS
    files = {key.rsplit("#", 1)[0] for key in locations}
    # Every schema file kept its types: none was overwritten by another or by the runtime.
    assert files >= {
        s for s in schemas if s not in ("keywords.json", "ping.json", "pong.json")
    }


def test_recursive_and_empty_types() -> None:
    validate, parse = _types()["Holder"]
    value = {"nest": [[], [[]]], "none": {"type": "x"}, "true": "yes"}
    assert validate(value) == []
    assert (
        parse(value).model_dump(by_alias=True, exclude_unset=True, mode="json") == value
    )
    assert [(v.pointer, v.keyword) for v in validate({"nothing": 1})] == [
        ("/nothing", "type")
    ]
    validate_ping, parse_ping = _types()["Ping"]
    ping = {"pong": {"ping": {"n": 1}, "s": "x"}}
    assert validate_ping(ping) == []
    assert (
        parse_ping(ping).model_dump(by_alias=True, exclude_unset=True, mode="json")
        == ping
    )
