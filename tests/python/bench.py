"""Benchmark: the generated validators against ``jsonschema`` and ``fastjsonschema``.

Validates, with each library and the same schemas, (1) one large valid ``ThesisContext``
(the vector instances' arrays repeated many times) and (2) a stream of small valid
instances (every valid vector case of the protocol types), and prints the timings and the
ratios. Then times hostile instances on the package generated from tests/fixtures/bounded/
(with cargo; the same workloads as benches/bounded.rs and tests/typescript/bench-bounded.mjs):
nesting 100 000 levels deep, ``uniqueItems`` over 100 000 items and ``^(a+)+$`` on 10 000
characters, with ``jsonschema`` (nesting, ``uniqueItems`` on 2 000 items) and ``re`` (the
pattern) as peers. Not part of the test run: after ``tests/python/run.sh`` (which makes the
virtualenv), run it on the committed package:

    PYTHONPATH=generated/python/src tests/python/.venv/bin/python tests/python/bench.py
"""

from __future__ import annotations

import copy
import importlib
import json
import re
import subprocess
import sys
import tempfile
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
    bounded()


def _median(fn: Callable[[], str]) -> tuple[float, str]:
    runs = []
    out = ""
    for _ in range(5):
        start = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - start)
    return sorted(runs)[2], out


def _verdict(violations: list[Any]) -> str:
    if not violations:
        return "valid"
    v = violations[0]
    depth = v.pointer.count("/")
    return f"{len(violations)} violation(s), first {v.keyword} at depth {depth}"


def _report(label: str, result: tuple[float, str]) -> None:
    seconds, verdict = result
    print(f"  {label:44} {seconds * 1e3:10.3f} ms   {verdict}")


def _nest(leaf: Any, key: str | None, depth: int) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if key is None else {"value": "x", key: value}
    return value


def bounded() -> None:
    """Hostile instances on the package generated from tests/fixtures/bounded/."""
    work = tempfile.mkdtemp(prefix="ctxgen-bounded-")
    subprocess.run(
        ["cargo", "run", "--quiet", "--bin", "ctxgen", "--", "generate"]
        + ["--lang", "python", "--schemas", str(ROOT / "tests/fixtures/bounded")]
        + ["--out", work, "--package-name", "bench-bounded"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    sys.path.insert(0, f"{work}/python/src")
    h = importlib.import_module("bench_bounded.bounded")
    rt = importlib.import_module("bench_bounded._runtime")
    depth = items = 100_000
    print(f"\nPython {sys.version.split()[0]}, MAX_DEPTH = {rt.MAX_DEPTH}")
    print(f"nesting {depth} deep, value entry point (validate_x):")
    arrays = _nest([], None, depth)
    _report("Json: arrays", _median(lambda: _verdict(h.validate_json(arrays))))
    tree = _nest({"value": "x"}, "next", depth)
    _report("Tree: next", _median(lambda: _verdict(h.validate_tree(tree))))
    defs = _fixture()["$defs"]
    for name, value in (("Json: arrays", arrays), ("Tree: next", tree)):
        ref = {"$ref": f"#/$defs/{name.split(':')[0]}", "$defs": defs}
        nest_peer = Draft202012Validator(ref)
        _report(
            f"peer: jsonschema, {name}",
            _median(_bind(_peer_verdict, nest_peer, value)),
        )
    print("nesting 100000 deep, text: no text entry point (json.loads stops at about")
    print("  the recursion limit with its own RecursionError)")
    print(f"uniqueItems over {items} items:")
    numbers: list[Any] = list(range(items))
    _report("distinct numbers", _median(lambda: _verdict(h.validate_unique(numbers))))
    dup = [*numbers[:-1], 0.0]
    _report(
        "numbers, the last equal to the first (0.0)",
        _median(lambda: _verdict(h.validate_unique(dup))),
    )
    objects: list[Any] = [{"id": i, "tags": ["a", i]} for i in range(items)]
    _report("distinct objects", _median(lambda: _verdict(h.validate_unique(objects))))
    dup_objects = [*objects[:-1], {"tags": ["a", 0], "id": 0.0}]
    _report(
        "objects, the last equal to the first",
        _median(lambda: _verdict(h.validate_unique(dup_objects))),
    )
    # jsonschema compares unhashable items pairwise (quadratic, a few microseconds a pair):
    # the peer gets 2 000 objects.
    peer = Draft202012Validator(
        {"$ref": "#/$defs/Unique", "$defs": _fixture()["$defs"]}
    )
    few = objects[:2_000]
    few_dup = [*few[:-1], {"tags": ["a", 0], "id": 0.0}]
    for label, value in (
        ("distinct objects", few),
        ("objects, the last equal", few_dup),
    ):
        ours = _median(_bind(_verdict_of, h.validate_unique, value))
        theirs = _median(_bind(_peer_verdict, peer, value))
        _report(f"{len(few)} {label}", ours)
        _report(f"peer: jsonschema, {len(few)} {label}", theirs)
        print(f"  ratio jsonschema / ctxgen {theirs[0] / ours[0]:.2f}")
    chars = 10_000
    print(f"pattern ^(a+)+$ on {chars} characters:")
    no_match = "a" * chars + "b"
    _report(
        "a's and a trailing b (no match)",
        _median(lambda: _verdict(h.validate_backtrack(no_match))),
    )
    match = "a" * chars
    _report("a's only (match)", _median(lambda: _verdict(h.validate_backtrack(match))))
    # The peer: `re` (backtracking) on the same pattern, exponential in the length.
    regex = re.compile("^(a+)+$")
    for n in (20, 22, 24):
        text = "a" * n + "b"
        _report(
            f"peer: re (backtracking), {n} characters",
            _median(_bind(_search, regex, text)),
        )


def _bind(f: Callable[..., str], *args: Any) -> Callable[[], str]:
    return lambda: f(*args)


def _verdict_of(validate: Callable[[Any], list[Any]], value: Any) -> str:
    return _verdict(validate(value))


def _search(regex: re.Pattern[str], text: str) -> str:
    return "match" if regex.search(text) else "no match"


def _fixture() -> dict[str, Any]:
    with open(ROOT / "tests/fixtures/bounded/bounded.json", encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
    return doc


def _peer_verdict(validator: Draft202012Validator, value: Any) -> str:
    try:
        return "valid" if validator.is_valid(value) else "invalid"
    except RecursionError:
        return "RecursionError"


if __name__ == "__main__":
    main()
