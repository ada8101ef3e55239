"""Benchmark: the generated validators against ``jsonschema`` and ``fastjsonschema``.

Validates, with each library and the same schemas, (1) one large valid ``ThesisContext``
(the vector instances' arrays repeated many times) and (2) a stream of small valid
instances (every valid vector case of the protocol types), and prints the timings and the
ratios. Not part of the test run: after ``tests/python/run.sh`` (which makes the
virtualenv), run it on the committed package:

    PYTHONPATH=generated/python/src tests/python/.venv/bin/python tests/python/bench.py
"""

from __future__ import annotations

import copy
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

import context_protocols as pkg

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
VECTORS = ROOT / "tests" / "vectors"
BASE = "https://ctxgen.dev/schemas/"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _schemas() -> dict[str, Any]:
    return {p.name: _load(p) for p in sorted(SCHEMAS.glob("*.json"))}


def _jsonschema(location: str, docs: dict[str, Any]) -> Callable[[Any], bool]:
    registry: Registry[Any] = Registry().with_resources(
        (BASE + name, Resource.from_contents(doc)) for name, doc in docs.items()
    )
    validator = Draft202012Validator(
        {"$ref": BASE + location}, registry=registry, format_checker=FormatChecker()
    )
    return validator.is_valid


def _fastjsonschema(location: str, docs: dict[str, Any]) -> Callable[[Any], bool]:
    # fastjsonschema implements drafts 4, 6 and 7; these schemas only use keywords that
    # mean the same there ($defs are reached through JSON Pointers).
    def draft7(doc: Any) -> Any:
        doc = copy.deepcopy(doc)
        doc["$schema"] = "http://json-schema.org/draft-07/schema#"
        return doc

    handlers = {"https": lambda uri: draft7(docs[uri.removeprefix(BASE).split("#")[0]])}
    name, _, pointer = location.partition("#")
    root = draft7(docs[name])
    if pointer:
        root = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": BASE + location,
        }
    check = fastjsonschema.compile(root, handlers=handlers, use_formats=True)

    def is_valid(data: Any) -> bool:
        try:
            check(data)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return is_valid


def _generated(location: str) -> Callable[[Any], bool]:
    validate, _ = pkg.TYPES[pkg.SCHEMAS[location]]
    return lambda data: not validate(data)


def _time(fn: Callable[[Any], bool], items: list[Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            if not fn(item):
                raise SystemExit(f"{fn} rejected a valid instance")
        best = min(best, time.perf_counter() - start)
    return best


def _large() -> tuple[str, Any]:
    doc = _load(VECTORS / "paper-context" / "thesis-context.json")
    location = f"{doc['schema']}#{doc['pointer']}"
    base = next(c["instance"] for c in doc["cases"] if c["valid"])
    big = copy.deepcopy(base)
    for key, value in base.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            big[key] = [copy.deepcopy(v) for _ in range(500) for v in value]
    return location, big


def _stream() -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for path in sorted(VECTORS.glob("*/*.json")):
        if path.parent.name == "helpers":
            continue
        doc = _load(path)
        location = f"{doc['schema']}#{doc['pointer']}"
        items.extend((location, c["instance"]) for c in doc["cases"] if c["valid"])
    return items


def main() -> None:
    docs = _schemas()
    location, big = _large()
    size = len(json.dumps(big))
    print(f"large: one {location} instance, {size / 1e6:.1f} MB of JSON")
    results: dict[str, dict[str, float]] = {"large": {}, "stream": {}}
    makers: list[tuple[str, Callable[[str], Callable[[Any], bool]]]] = [
        ("generated", _generated),
        ("jsonschema", lambda loc: _jsonschema(loc, docs)),
        ("fastjsonschema", lambda loc: _fastjsonschema(loc, docs)),
    ]
    for name, make in makers:
        results["large"][name] = _time(make(location), [big], 3)
    stream = _stream()
    rounds = 20
    print(f"stream: {len(stream)} small valid instances x {rounds}")
    for name, make in makers:
        validators = {loc: make(loc) for loc in {loc for loc, _ in stream}}
        pairs = [(validators[loc], data) for loc, data in stream] * rounds
        results["stream"][name] = _time(lambda p: p[0](p[1]), pairs, 3)
    for kind, timings in results.items():
        ours = timings["generated"]
        print(f"\n{kind}:")
        for name, seconds in timings.items():
            ratio = seconds / ours
            print(
                f"  {name:15} {seconds * 1e3:10.2f} ms   {ratio:6.2f}x the generated time"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
