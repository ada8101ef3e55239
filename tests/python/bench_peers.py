"""The model builders of the Python harness of ``ctxgen-bench`` (bench_suite.py): pydantic
models that datamodel-code-generator makes from a set's schemas, and msgspec types built
here from a schema, each only where every reachable keyword keeps its meaning.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import json
import operator
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, Union
from urllib.parse import urldefrag, urljoin

import msgspec
import pydantic
from typing_extensions import TypeForm

# The sibling modules sort the same whether ruff runs with tests/python as its project
# root (first-party) or from the repository root (third-party).
# isort: split
from bench_schemas import (
    META,
    VOCABULARY,
    Manifest,
    Schemas,
    Target,
    Unrepresentable,
    annotations_only,
    ecma_pattern,
)

# --- pydantic (datamodel-code-generator) ---------------------------------------------


def pydantic_faithful(schemas: Schemas, t: Target) -> None:
    """Raises unless datamodel-code-generator turns every reachable keyword into the
    same check (strict validation: no coercion)."""
    ok = {
        "$ref",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "enum",
        "const",
        "anyOf",
        "format",
    }
    for _, key, node in schemas.walk(t.uri):
        value = node[key]
        if key not in ok:
            raise Unrepresentable(f"{key} is not represented by the generated model")
        if key == "pattern":
            ecma_pattern(value, "rust")
        if key == "format" and value != "date":
            raise Unrepresentable(f"format {value} is not checked by the model")
        if key == "items" and not isinstance(value, (dict, bool)):
            raise Unrepresentable("items as an array")
        if (
            key == "additionalProperties"
            and not isinstance(value, bool)
            and ("properties" in node or "patternProperties" in node)
        ):
            raise Unrepresentable("additionalProperties beside properties")
        if key == "$ref" and (other := annotations_only(node, "$ref")):
            raise Unrepresentable(f"$ref beside {other}")


def generate_models(m: Manifest, set_name: str) -> dict[int, TypeForm[Any]] | str:
    """Models of the set's targets, generated into a temporary folder and imported."""
    s = m.sets[set_name]
    targets = [t for t in m.targets if t.set == set_name]
    work = Path(tempfile.mkdtemp(prefix=f"bench-pydantic-{set_name}-"))
    names = {f.uri: f.name for f in s.files}

    def relative(node: Any, base: str) -> Any:
        # Every reference becomes one to a file of the folder (no fetching); `$id`
        # goes (the files are read by path).
        if isinstance(node, list):
            return [relative(x, base) for x in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key in ("$id", "id") and isinstance(value, str):
                continue
            if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
                url, frag = urldefrag(urljoin(base, value))
                if url not in names:
                    raise Unrepresentable(f"unresolvable reference {value}")
                value = f"{names[url]}#{frag}" if url != base else f"#{frag}"
            if key == "pattern" and isinstance(value, str):
                # Unreachable or refused by pydantic_faithful where it fails.
                with contextlib.suppress(Unrepresentable):
                    value = ecma_pattern(value, "rust")
            out[key] = (
                value if key in ("const", "enum", "default") else relative(value, base)
            )
        return out

    try:
        for f in s.files:
            dest = work / "schemas" / f.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(json.dumps(relative(f.doc, f.uri)), encoding="utf-8")
        draft = next(f.draft for f in s.files if f.name == targets[0].file)
        wrapper = {
            "$schema": META[draft],
            "title": "BenchTargets",
            "type": "object",
            "properties": {
                f"t{t.index}": {"$ref": f"{t.file}#{t.pointer}"} for t in targets
            },
        }
        (work / "schemas" / "bench_targets.json").write_text(
            json.dumps(wrapper), encoding="utf-8"
        )
    except Unrepresentable as e:
        return str(e)
    module = f"bench_models_{set_name.replace('-', '_')}"
    out = work / f"{module}.py"
    cmd = [sys.executable, "-m", "datamodel_code_generator"]
    cmd += ["--input", str(work / "schemas" / "bench_targets.json")]
    cmd += ["--input-file-type", "jsonschema", "--output", str(out)]
    cmd += ["--output-model-type", "pydantic_v2.BaseModel", "--strict-refs"]
    cmd += ["--disable-timestamp", "--formatters", "builtin"]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0 or not out.exists():
        lines = [x for x in run.stderr.splitlines() if x.strip()]
        return "datamodel-code-generator: " + (lines[-1] if lines else "failed")
    try:
        sys.path.insert(0, str(work))
        mod = importlib.import_module(module)
        root: type[pydantic.BaseModel] = mod.BenchTargets
        root.model_rebuild()
        fields = root.model_fields
        models = {}
        for t in targets:
            annotation = fields[f"t{t.index}"].annotation
            if annotation is None:
                return f"generated models: no type for {t.file}#{t.pointer}"
            models[t.index] = annotation
        return models
    except Exception as e:  # noqa: BLE001 - a model that does not import is a skip
        return f"generated models: {type(e).__name__}: {e}"


# --- msgspec -------------------------------------------------------------------------


#: ``X[args]`` for a type ``X`` and arguments known only at run time.
_sub: Callable[[Any, Any], Any] = operator.getitem

NUMERIC = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
}


class MsgspecBuilder:
    """msgspec types of a schema, only where every keyword maps to the same check."""

    def __init__(self, schemas: Schemas) -> None:
        self.schemas = schemas
        self.done: dict[str, Any] = {}
        self.busy: set[str] = set()
        self.count = 0

    def ref(self, base: str, ref: str) -> Any:
        url = urljoin(base, ref)
        if url in self.done:
            return self.done[url]
        if url in self.busy:
            raise Unrepresentable(f"$ref {ref}: recursive types are not built")
        self.busy.add(url)
        new_base, node = self.schemas.resolve(base, ref)
        typ = self.type(new_base, node)
        self.busy.discard(url)
        self.done[url] = typ
        return typ

    def type(self, base: str, node: Any) -> Any:
        if node is True or node == {}:
            return Any
        if not isinstance(node, dict):
            raise Unrepresentable("a false schema")
        sid = node.get("$id")
        if isinstance(sid, str) and not sid.startswith("#"):
            base = urldefrag(urljoin(base, sid))[0]
        if "$ref" in node:
            if other := annotations_only(node, "$ref"):
                raise Unrepresentable(f"{other} beside $ref")
            return self.ref(base, node["$ref"])
        if "enum" in node or "const" in node:
            return self.literal(node)
        if "type" not in node:
            other = annotations_only(node)
            if other is None:
                return Any
            raise Unrepresentable(f"{other} without type")
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        parts = [self.kind(base, node, k) for k in kinds]
        return parts[0] if len(parts) == 1 else _sub(Union, tuple(parts))

    def literal(self, node: dict[str, Any]) -> Any:
        if other := annotations_only(node, "enum", "const", "type"):
            raise Unrepresentable(f"{other} beside enum/const")
        values = node["enum"] if "enum" in node else [node["const"]]
        if "enum" in node and "const" in node:
            raise Unrepresentable("const beside enum")
        kinds = node.get("type")
        if kinds is not None:
            allowed = set(kinds if isinstance(kinds, list) else [kinds])
            names = {str: "string", int: "integer", type(None): "null"}
            if any(names.get(type(v)) not in allowed for v in values):
                raise Unrepresentable("enum beside type")
        plain = [v for v in values if v is not None]
        if any(type(v) not in (str, int) for v in plain):
            raise Unrepresentable("enum of values other than strings and integers")
        parts: list[Any] = []
        if plain:
            parts.append(_sub(Literal, tuple(plain)))
        if len(plain) < len(values):
            parts.append(None)
        return parts[0] if len(parts) == 1 else _sub(Union, tuple(parts))

    def kind(self, base: str, node: dict[str, Any], kind: str) -> Any:
        meta: dict[str, Any] = {}
        own = {
            "string": ("minLength", "maxLength", "pattern", "format"),
            "integer": tuple(NUMERIC),
            "number": tuple(NUMERIC),
            "array": ("items", "minItems", "maxItems", "uniqueItems"),
            "object": (
                "properties",
                "required",
                "additionalProperties",
                "minProperties",
                "maxProperties",
            ),
        }
        # Keywords of the other JSON types never apply to this one; those of every type
        # (allOf, not, ...) and the unsupported ones of this type stop the build.
        every = {k for ks in own.values() for k in ks} | {"type"}
        for key in node:
            if key in VOCABULARY and key not in every:
                raise Unrepresentable(key)
        if kind == "null":
            return None
        if kind == "boolean":
            return bool
        if kind == "string":
            fmt = node.get("format")
            if fmt is not None:
                if annotations_only(node, "type", "format"):
                    raise Unrepresentable("format beside other string keywords")
                if fmt == "date":
                    return datetime.date
                raise Unrepresentable(f"format {fmt}")
            for key, arg in (("minLength", "min_length"), ("maxLength", "max_length")):
                if key in node:
                    meta[arg] = node[key]
            if "pattern" in node:
                meta["pattern"] = ecma_pattern(node["pattern"], "python")
            return _sub(Annotated, (str, msgspec.Meta(**meta))) if meta else str
        if kind in ("integer", "number"):
            for key, arg in NUMERIC.items():
                value = node.get(key)
                if isinstance(value, bool):
                    raise Unrepresentable(f"{key} as a boolean (draft 4)")
                if value is not None:
                    meta[arg] = value
            py: type = int if kind == "integer" else float
            return _sub(Annotated, (py, msgspec.Meta(**meta))) if meta else py
        if kind == "array":
            if node.get("uniqueItems") is True:
                raise Unrepresentable("uniqueItems")
            items = node.get("items", True)
            if isinstance(items, list):
                raise Unrepresentable("items as an array")
            item = self.type(base, items)
            for key, arg in (("minItems", "min_length"), ("maxItems", "max_length")):
                if key in node:
                    meta[arg] = node[key]
            array = _sub(list, item)
            return _sub(Annotated, (array, msgspec.Meta(**meta))) if meta else array
        if kind == "object":
            return self.object(base, node)
        raise Unrepresentable(f"type {kind}")

    def object(self, base: str, node: dict[str, Any]) -> Any:
        props: dict[str, Any] = node.get("properties", {})
        required: list[str] = node.get("required", [])
        extra = node.get("additionalProperties", True)
        if not props and not required:
            value = self.type(base, extra)
            meta = {
                arg: node[key]
                for key, arg in (
                    ("minProperties", "min_length"),
                    ("maxProperties", "max_length"),
                )
                if key in node
            }
            mapping = _sub(dict, (str, value))
            return _sub(Annotated, (mapping, msgspec.Meta(**meta))) if meta else mapping
        for key in ("minProperties", "maxProperties"):
            if key in node:
                raise Unrepresentable(f"{key} beside properties")
        if extra is not True and extra is not False:
            raise Unrepresentable("additionalProperties beside properties")
        missing = [r for r in required if r not in props]
        if missing:
            raise Unrepresentable(f"required {missing[0]} without a property schema")
        fields: list[tuple[str, Any, Any]] = []
        for i, (name, schema) in enumerate(props.items()):
            typ = self.type(base, schema)
            if name in required:
                fields.append((f"f{i}", typ, msgspec.field(name=name)))
            else:
                fields.append(
                    (
                        f"f{i}",
                        _sub(Union, (typ, msgspec.UnsetType)),
                        msgspec.field(name=name, default=msgspec.UNSET),
                    )
                )
        self.count += 1
        return msgspec.defstruct(
            f"Struct{self.count}",
            fields,
            kw_only=True,
            forbid_unknown_fields=extra is False,
        )
