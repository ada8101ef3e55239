"""The Python harness of ``ctxgen-bench`` (tools/src/bin/bench/FORMAT.md).

Reads the manifest, times every workload with the generated packages (``ctxgen``) and the
peers (``fastjsonschema``, ``jsonschema-rs``, ``pydantic`` on models that
datamodel-code-generator makes from the same schemas, ``msgspec`` on Structs built here
from the schema, ``json`` and ``orjson`` as the floor) and writes the result file. A peer
that cannot represent a target's schema faithfully, or fails, is a ``skipped`` entry with
the reason; the script exits non-zero only when it cannot run at all.

    tests/python/.venv/bin/python tests/python/bench_suite.py <manifest.json> <results.json>
"""

from __future__ import annotations

import copy
import gc
import importlib
import importlib.metadata
import json
import platform
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

import fastjsonschema
import jsonschema_rs
import msgspec
import orjson
import pydantic
from typing_extensions import TypeForm

# The sibling modules sort the same whether ruff runs with tests/python as its project
# root (first-party) or from the repository root (third-party).
# isort: split
from bench_peers import MsgspecBuilder, generate_models, pydantic_faithful
from bench_schemas import (
    DRAFT7,
    META,
    Manifest,
    MaxWords,
    SchemaFile,
    Schemas,
    Target,
    Unrepresentable,
    Workload,
    annotations_only,
    read_manifest,
)

# --- timing ----------------------------------------------------------------------------

#: One pass over a workload's items: the number of items whose verdict differs from
#: the expected one.
Pass = Callable[[], int]


#: The rounds a measurement is spread over: each pass runs for ``min_time / ROUNDS`` a round.
ROUNDS = 10


#: A sample times passes in a row for at least this long (FORMAT.md, "Timing"), so that
#: reading the clock does not weigh on a pass of a few microseconds.
SAMPLE_NS = 10_000


def warm(m: Manifest, run: Pass) -> tuple[int, int]:
    """The first pass's mismatches, after passes for the warm-up time; with the number of
    passes a sample takes, from their times."""
    start = time.perf_counter_ns()
    mismatches = run()
    passes = 1
    while time.perf_counter_ns() - start < m.warmup_ns:
        run()
        passes += 1
    each = (time.perf_counter_ns() - start) // passes
    batch = 1 if each >= SAMPLE_NS else SAMPLE_NS // max(each, 1) + 1
    return mismatches, batch


class Timed:
    """A warmed-up pass of a workload and its times."""

    def __init__(
        self, entry: dict[str, Any], run: Pass, mismatches: int, batch: int
    ) -> None:
        self.entry = entry
        self.run = run
        self.mismatches = mismatches
        self.batch = batch
        self.times: list[int] = []
        self.total = 0
        self.error: Exception | None = None


def measure(m: Manifest, timed: list[Timed]) -> None:
    """Times a workload's passes per FORMAT.md ("Timing"): they take turns, round after round,
    each running for a slice of the time, until every one has ``min_runs`` passes and
    ``min_time`` in all, so that a stretch in which the machine is slower slows every
    implementation alike. A pass that raises gets ``error`` and leaves the rounds."""
    slice_ns = m.min_time_ns // ROUNDS

    def pending(t: Timed) -> bool:
        return t.error is None and (
            len(t.times) < m.min_runs or t.total < m.min_time_ns
        )

    while any(pending(t) for t in timed):
        for t in timed:
            if t.error is not None:
                continue
            try:
                begin = time.perf_counter_ns()
                while True:
                    t0 = time.perf_counter_ns()
                    for _ in range(t.batch):
                        t.run()
                    t1 = time.perf_counter_ns()
                    t.times.append((t1 - t0) // t.batch)
                    t.total += t1 - t0
                    if t1 - begin >= slice_ns:
                        break
            except Exception as e:  # noqa: BLE001 - a peer that fails is a skip
                t.error = e


Verdict = Callable[[Any], bool]


def verdict_pass(pairs: list[tuple[Verdict, Any]], valid: bool) -> Pass:
    def run() -> int:
        bad = 0
        for fn, arg in pairs:
            if fn(arg) is not valid:
                bad += 1
        return bad

    return run


def parse_pass(
    pairs: list[tuple[Callable[[str], object], str]],
    errors: tuple[type[BaseException], ...],
    valid: bool,
) -> Pass:
    def run() -> int:
        bad = 0
        for fn, text in pairs:
            try:
                fn(text)
                ok = True
            except errors:
                ok = False
            if ok is not valid:
                bad += 1
        return bad

    return run


def floor_pass(loads: Callable[[str], object], texts: list[str]) -> Pass:
    def run() -> int:
        for text in texts:
            loads(text)
        return 0

    return run


# --- implementations -------------------------------------------------------------------


class Harness:
    def __init__(self, m: Manifest) -> None:
        self.m = m
        self.schemas = {name: Schemas(s.files) for name, s in m.sets.items()}
        self.pydantic_models: dict[str, dict[int, TypeForm[Any]] | str] = {}
        self.msgspec_types: dict[str, dict[str, Any]] = {}

    # ctxgen ------------------------------------------------------------------------

    def package(self, t: Target) -> types.ModuleType:
        s = self.m.sets[t.set]
        if isinstance(s.package, str) and not s.package:
            try:
                if s.src not in sys.path:
                    sys.path.insert(0, s.src)
                s.package = importlib.import_module(s.module)
            except Exception as e:  # noqa: BLE001 - any import failure is a skip
                s.package = f"import {s.module}: {type(e).__name__}: {e}"
        if isinstance(s.package, str):
            raise Unrepresentable(s.package)
        return s.package

    def ctxgen(self, mode: str, t: Target) -> Callable[[Any], Any]:
        pkg = self.package(t)
        validate: Callable[[Any], list[Any]] = getattr(pkg, f"validate_{t.python}")
        parse: Callable[[Any], object] = getattr(pkg, f"parse_{t.python}")
        name = pkg.SCHEMAS.get(f"{t.file}#{t.pointer}")
        if name is None or pkg.TYPES[name] != (validate, parse):
            raise Unrepresentable(
                f"{t.file}#{t.pointer}: SCHEMAS/TYPES do not name validate_{t.python}"
            )
        if mode == "check":
            is_valid: Callable[[Any], bool] = getattr(pkg, f"is_valid_{t.python}")
            return is_valid
        if mode == "errors":
            return lambda v: not list(validate(v))
        loads = json.loads
        return lambda text: parse(loads(text))

    def ctxgen_native(self, mode: str, t: Target) -> Callable[[Any], Any]:
        """``ctxgen`` with the package's native accelerator (``ctxgen`` itself runs with it
        switched off for its passes: ``pure``)."""
        if not self.package(t)._runtime.ACCELERATED:
            raise Unrepresentable("the native accelerator is not installed")
        return self.ctxgen(mode, t)

    def pure(self, t: Target, run: Pass) -> Pass:
        """``run`` with the package's native accelerator switched off."""
        rt = self.package(t)._runtime
        native = getattr(rt, "_native", None)
        if native is None:
            return run

        def pure_run() -> int:
            rt._native = None
            try:
                return run()
            finally:
                rt._native = native

        return pure_run

    # jsonschema-rs -----------------------------------------------------------------

    def jsonschema_rs(self, mode: str, t: Target) -> Callable[[Any], Any]:
        s = self.m.sets[t.set]
        resources = []
        for f in s.files:
            doc = f.doc
            if isinstance(doc, dict) and "$schema" not in doc:
                doc = {"$schema": META[f.draft], **doc}
            resources.append((f.uri, doc))
        registry = jsonschema_rs.Registry(resources)
        draft = next(f.draft for f in s.files if f.name == t.file)
        validator = jsonschema_rs.validator_for(
            {"$schema": META[draft], "$ref": t.uri},
            validate_formats=True,
            registry=registry,
            keywords={"x-max-words": MaxWords},
            offline=True,
        )
        if mode == "check":
            return validator.is_valid
        iter_errors = validator.iter_errors
        return lambda v: not list(iter_errors(v))

    # fastjsonschema ----------------------------------------------------------------

    def fastjsonschema(self, mode: str, t: Target) -> Callable[[Any], Any]:
        s = self.m.sets[t.set]
        files = s.by_uri()
        draft = files_draft = next(f.draft for f in s.files if f.name == t.file)
        rewrite = files_draft in ("2020-12", "2019-09")
        if any(f.draft in ("2020-12", "2019-09") for f in s.files) != rewrite:
            raise Unrepresentable("the set mixes drafts")
        if rewrite:
            self.draft7_equivalent(t)
            draft = "7"
        for _, key, _ in self.schemas[t.set].walk(t.uri):
            if key.startswith("x-"):
                raise Unrepresentable(f"{key} is not implemented")

        def doc(f: SchemaFile) -> Any:
            d = copy.deepcopy(f.doc)
            if isinstance(d, dict):
                d["$schema"] = DRAFT7 if rewrite else META[f.draft]
            return d

        docs = {uri: doc(f) for uri, f in files.items()}

        def handler(uri: str) -> Any:
            url = urldefrag(uri)[0]
            if url not in docs:
                raise Unrepresentable(f"unresolvable reference {uri}")
            return docs[url]

        root = {"$schema": META[draft], "$ref": t.uri}
        handlers = {scheme: handler for scheme in ("http", "https", "file", "urn")}
        compiled: Callable[[Any], Any] = fastjsonschema.compile(
            root, handlers=handlers, use_formats=True
        )
        error = fastjsonschema.JsonSchemaValueException

        def is_valid(v: Any) -> bool:
            try:
                compiled(v)
            except error:
                return False
            return True

        return is_valid

    def draft7_equivalent(self, t: Target) -> None:
        """Raises unless every keyword reachable from ``t`` means the same in draft 7."""
        differ = {
            "prefixItems",
            "unevaluatedItems",
            "unevaluatedProperties",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
            "additionalItems",
            "$anchor",
            "$dynamicRef",
            "$dynamicAnchor",
            "$recursiveRef",
            "$recursiveAnchor",
            "minContains",
            "maxContains",
            "contentEncoding",
            "contentMediaType",
            "contentSchema",
        }
        for _, key, node in self.schemas[t.set].walk(t.uri):
            if key in differ:
                raise Unrepresentable(f"{key} has no draft-07 equivalent")
            if key == "items" and isinstance(node[key], list):
                raise Unrepresentable("items as an array differs in draft 7")
            if key == "$ref" and (other := annotations_only(node, "$ref")):
                raise Unrepresentable(f"$ref beside {other} (ignored by draft 7)")

    # pydantic (datamodel-code-generator) -------------------------------------------

    def pydantic(self, mode: str, t: Target) -> Callable[[Any], Any]:
        pydantic_faithful(self.schemas[t.set], t)
        models = self.pydantic_models.get(t.set)
        if models is None:
            models = self.pydantic_models[t.set] = generate_models(self.m, t.set)
        if isinstance(models, str):
            raise Unrepresentable(models)
        model = models[t.index]
        if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
            validate_json = model.model_validate_json
            return lambda text: validate_json(text, strict=True)
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(model)
        return lambda text: adapter.validate_json(text, strict=True)

    # msgspec -----------------------------------------------------------------------

    def msgspec(self, mode: str, t: Target) -> Callable[[Any], Any]:
        built = self.msgspec_types.setdefault(t.set, {})
        if t.uri not in built:
            try:
                built[t.uri] = MsgspecBuilder(self.schemas[t.set]).ref(t.uri, t.uri)
            except Unrepresentable as e:
                built[t.uri] = str(e)
        typ = built[t.uri]
        if isinstance(typ, str):
            raise Unrepresentable(typ)
        decode = msgspec.json.Decoder(typ).decode
        return decode


# --- the run ---------------------------------------------------------------------------

#: (impl, mode) in the order of the result file.
PLAN = (
    ("ctxgen", "check"),
    ("ctxgen", "errors"),
    ("ctxgen", "parse"),
    ("ctxgen-native", "check"),
    ("ctxgen-native", "errors"),
    ("ctxgen-native", "parse"),
    ("fastjsonschema", "check"),
    ("jsonschema-rs", "check"),
    ("jsonschema-rs", "errors"),
    ("pydantic", "parse"),
    ("msgspec", "parse"),
    ("json", "floor"),
    ("orjson", "floor"),
)
#: The package each result names in ``versions``.
DISTRIBUTIONS = (
    "fastjsonschema",
    "jsonschema-rs",
    "pydantic",
    "pydantic-core",
    "datamodel-code-generator",
    "msgspec",
    "orjson",
)


def _reason(e: BaseException) -> str:
    if isinstance(e, Unrepresentable):
        return str(e)
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text[:300]}"


class Runner:
    def __init__(self, m: Manifest) -> None:
        self.m = m
        self.h = Harness(m)
        self.made: dict[tuple[str, str, int], Callable[[Any], Any] | str] = {}
        self.makers: dict[str, Callable[[str, Target], Callable[[Any], Any]]] = {
            "ctxgen": self.h.ctxgen,
            "ctxgen-native": self.h.ctxgen_native,
            "fastjsonschema": self.h.fastjsonschema,
            "jsonschema-rs": self.h.jsonschema_rs,
            "pydantic": self.h.pydantic,
            "msgspec": self.h.msgspec,
        }

    def function(self, impl: str, mode: str, target: int) -> Callable[[Any], Any]:
        key = (impl, mode, target)
        if key not in self.made:
            try:
                self.made[key] = self.makers[impl](mode, self.m.targets[target])
            except Exception as e:  # noqa: BLE001 - a peer that fails is a skip
                self.made[key] = _reason(e)
        made = self.made[key]
        if isinstance(made, str):
            raise Unrepresentable(made)
        return made

    def errors_of(self, impl: str, w: Workload) -> tuple[type[BaseException], ...]:
        if impl == "pydantic":
            return (pydantic.ValidationError,)
        if impl == "msgspec":
            return (msgspec.ValidationError, msgspec.DecodeError)
        pkg = self.m.sets[w.set].package
        assert isinstance(pkg, types.ModuleType)
        error: type[BaseException] = pkg.ValidationError
        return (error,)

    def prepare(self, w: Workload, impl: str, mode: str) -> Pass:
        if mode == "floor":
            loads: Callable[[str], object] = (
                json.loads if impl == "json" else orjson.loads
            )
            return floor_pass(loads, [it.text for it in w.items])
        if mode == "parse":
            fns = [(self.function(impl, mode, it.target), it.text) for it in w.items]
            run = parse_pass(fns, self.errors_of(impl, w), w.valid)
        else:
            pairs = [(self.function(impl, mode, it.target), it.value) for it in w.items]
            run = verdict_pass(pairs, w.valid)
        if impl == "ctxgen":
            # A workload's items are of one schema set: one package, one accelerator.
            return self.h.pure(self.m.targets[w.items[0].target], run)
        return run

    def workload(self, w: Workload) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        timed: list[Timed] = []
        for impl, mode in PLAN:
            entry: dict[str, Any] = {"workload": w.id, "impl": impl, "mode": mode}
            entries.append(entry)
            try:
                run = self.prepare(w, impl, mode)
                timed.append(Timed(entry, run, *warm(self.m, run)))
            except Exception as e:  # noqa: BLE001 - a peer that fails is a skip
                entry["skipped"] = _reason(e)
        # What is alive now (every workload's items, the peers' compiled validators) stays alive
        # through the timing: out of the cyclic collector's way, so that a collection in a pass
        # walks what the pass made, not the harness's data (FORMAT.md, "Timing").
        gc.collect()
        gc.freeze()
        measure(self.m, timed)
        for t in timed:
            if t.error is not None:
                t.entry["skipped"] = _reason(t.error)
            else:
                t.entry.update(
                    median_ns=round(statistics.median(t.times)),
                    runs=len(t.times),
                    mismatches=t.mismatches,
                )
        return entries

    def all(self) -> list[dict[str, Any]]:
        results = []
        for w in self.m.workloads:
            for entry in self.workload(w):
                results.append(entry)
                shown = (
                    f"skipped: {entry['skipped']}"
                    if "skipped" in entry
                    else f"{entry['median_ns'] / 1e6:10.3f} ms  x{entry['runs']}"
                    f"  mismatches {entry['mismatches']}"
                )
                print(
                    f"{w.id:28} {entry['impl']:15} {entry['mode']:7} {shown}",
                    file=sys.stderr,
                )
        return results


def versions() -> dict[str, str]:
    out = {}
    for name in DISTRIBUTIONS:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(f"usage: {argv[0]} <manifest.json> <results.json>", file=sys.stderr)
        return 2
    try:
        m = read_manifest(Path(argv[1]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {argv[1]}: {_reason(e)}", file=sys.stderr)
        return 1
    results = Runner(m).all()
    doc = {
        "language": "python",
        "runtime": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions(),
        "results": results,
    }
    Path(argv[2]).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
