"""The manifest and the schemas of the Python harness of ``ctxgen-bench``
(bench_suite.py, tools/src/bin/bench/FORMAT.md): the manifest read into dataclasses, the
schema resources of a set with ``$ref`` lookup and the reachable keywords, and ECMA-262
patterns translated for the peers.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin

# --- the manifest --------------------------------------------------------------------

META = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "7": "http://json-schema.org/draft-07/schema#",
    "6": "http://json-schema.org/draft-06/schema#",
    "4": "http://json-schema.org/draft-04/schema#",
}
DRAFT7 = META["7"]


@dataclass
class SchemaFile:
    name: str
    path: Path
    uri: str
    draft: str
    doc: Any


@dataclass
class SchemaSet:
    name: str
    files: list[SchemaFile]
    src: str
    module: str
    #: The package, or why it could not be imported.
    package: types.ModuleType | str = ""

    def by_uri(self) -> dict[str, SchemaFile]:
        return {f.uri: f for f in self.files}


@dataclass
class Target:
    index: int
    set: str
    file: str
    pointer: str
    uri: str
    python: str


@dataclass
class Item:
    target: int
    text: str
    value: Any


@dataclass
class Workload:
    id: str
    set: str
    valid: bool
    items: list[Item]


@dataclass
class Manifest:
    min_runs: int
    min_time_ns: int
    warmup_ns: int
    sets: dict[str, SchemaSet]
    targets: list[Target]
    workloads: list[Workload]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_manifest(path: Path) -> Manifest:
    m = _load(path)
    sets: dict[str, SchemaSet] = {}
    for name, s in m["sets"].items():
        files = [
            SchemaFile(
                name=f["name"],
                path=Path(f["path"]),
                uri=f["id"] if f.get("id") else Path(f["path"]).resolve().as_uri(),
                draft=str(f.get("draft") or "7"),
                doc=_load(Path(f["path"])),
            )
            for f in s["files"]
        ]
        py = s["python"]
        sets[name] = SchemaSet(name, files, py["src"], py["import"])
    targets = [
        Target(i, t["set"], t["file"], t["pointer"], t["uri"], t["python"])
        for i, t in enumerate(m["targets"])
    ]
    workloads = []
    for w in m["workloads"]:
        items = []
        for it in w["items"]:
            text = Path(it["file"]).read_text(encoding="utf-8")
            items.append(Item(it["target"], text, json.loads(text)))
        workloads.append(Workload(w["id"], w["set"], w["expect"] == "valid", items))
    return Manifest(
        min_runs=int(m["min_runs"]),
        min_time_ns=int(m["min_time_ms"]) * 1_000_000,
        warmup_ns=int(m["warmup_ms"]) * 1_000_000,
        sets=sets,
        targets=targets,
        workloads=workloads,
    )


# --- schemas: references and the reachable keywords ----------------------------------

#: Keywords that hold one subschema, a list of them, or a map of them.
ONE = (
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "items",
)
MANY = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
MAP = ("properties", "patternProperties", "dependentSchemas", "dependencies")
#: Every keyword that asserts or applies something in some draft; anything else in a
#: schema object (title, description, vendor extensions, ...) is an annotation.
VOCABULARY = frozenset(
    (*ONE, *MANY, *MAP)
    + (
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "$anchor",
        "$dynamicAnchor",
        "$recursiveAnchor",
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        # ctxgen's one assertion of its own (docs: maximal runs of characters other
        # than ASCII whitespace, at most N of them).
        "x-max-words",
    )
)
_WORDS = re.compile("[^ \\t\\n\\x0b\\x0c\\r]+")


class MaxWords:
    """``x-max-words`` for jsonschema-rs, as ctxgen defines it."""

    def __init__(
        self, parent_schema: dict[str, Any], value: Any, schema_path: list[str | int]
    ) -> None:
        self.limit = int(value)

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and len(_WORDS.findall(instance)) > self.limit:
            raise ValueError(f"has more than {self.limit} words")


class Unrepresentable(Exception):
    """A keyword (or a use of one) that a peer cannot express faithfully."""


class Schemas:
    """The schema resources of a set (files and embedded ``$id``) and ``$ref`` lookup."""

    def __init__(self, files: list[SchemaFile]) -> None:
        self.resources: dict[str, Any] = {}
        self.anchors: dict[str, tuple[str, Any]] = {}
        for f in files:
            self._index(f.doc, f.uri, root=True)

    def _index(self, node: Any, base: str, root: bool = False) -> None:
        if isinstance(node, list):
            for x in node:
                self._index(x, base)
            return
        if not isinstance(node, dict):
            return
        sid = node.get("$id", node.get("id"))
        if isinstance(sid, str) and not root:
            url, frag = urldefrag(urljoin(base, sid))
            if url and not frag:
                base = url
                self.resources.setdefault(base, node)
            elif frag:
                self.anchors[urljoin(base, "#" + frag)] = (base, node)
        elif root:
            self.resources[base] = node
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            self.anchors[f"{base}#{anchor}"] = (base, node)
        for key, value in node.items():
            if key not in ("const", "enum", "examples", "default"):
                self._index(value, base)

    def resolve(self, base: str, ref: str) -> tuple[str, Any]:
        """The (base URI, schema) a ``$ref`` in a schema under ``base`` points to."""
        target = urljoin(base, ref)
        if target in self.anchors:
            return self.anchors[target]
        url, frag = urldefrag(target)
        if url not in self.resources:
            raise Unrepresentable(f"unresolvable reference {ref}")
        node = self.resources[url]
        for token in frag.split("/")[1:] if frag else []:
            token = token.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError) as e:
                raise Unrepresentable(f"unresolvable reference {ref}") from e
        return url, node

    def walk(self, uri: str) -> Iterator[tuple[str, str, Any]]:
        """Every (base, keyword, schema) reachable from ``uri``, depth first, once each."""
        seen: set[int] = set()
        stack = [self.resolve(uri, uri)]
        while stack:
            base, node = stack.pop()
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            sid = node.get("$id")
            if isinstance(sid, str) and not sid.startswith("#"):
                base = urldefrag(urljoin(base, sid))[0]
            children: list[tuple[str, Any]] = []
            for key, value in node.items():
                if key not in VOCABULARY:
                    continue
                yield base, key, node
                if key in ("$ref", "$recursiveRef", "$dynamicRef") and isinstance(
                    value, str
                ):
                    children.append(self.resolve(base, value))
                elif key in MAP and isinstance(value, dict):
                    children.extend((base, v) for v in value.values())
                elif key in MANY and isinstance(value, list):
                    children.extend((base, v) for v in value)
                elif key in ONE:
                    children.append((base, value))
            stack.extend(reversed(children))


def annotations_only(node: dict[str, Any], *allowed: str) -> str | None:
    """The first assertion keyword of ``node`` outside ``allowed``, if any."""
    return next((k for k in node if k in VOCABULARY and k not in allowed), None)


#: ECMA-262 ``.`` outside a class: anything but a line terminator.
_ECMA_DOT = "[^\n\r\u2028\u2029]"
_ECMA_CLASSES = {"d": "0-9", "w": "A-Za-z0-9_"}


def ecma_pattern(pattern: str, dialect: Literal["python", "rust"]) -> str:
    """``pattern`` (ECMA-262, no flags) as a Python ``re`` or Rust ``regex`` pattern that
    matches the same strings; raises where a construct has no exact translation here
    (``\\s``, ``\\b``, property escapes, named groups, ...)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                raise Unrepresentable(f"pattern {pattern}: a trailing backslash")
            e = pattern[i + 1]
            i += 2
            if e in _ECMA_CLASSES:
                out.append(_ECMA_CLASSES[e] if in_class else f"[{_ECMA_CLASSES[e]}]")
            elif e.lower() in _ECMA_CLASSES and not in_class:
                out.append(f"[^{_ECMA_CLASSES[e.lower()]}]")
            elif e.isalnum() and e not in (
                "nrtfvx" if dialect == "rust" else "nrtfvxu"
            ):
                raise Unrepresentable(f"pattern {pattern}: \\{e}")
            else:
                out.append("\\" + e)
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("[^]", i) or pattern.startswith("[]", i):
                raise Unrepresentable(f"pattern {pattern}: an empty class")
        elif c == "$":
            c = "\\Z" if dialect == "python" else "$"
        elif c == ".":
            c = _ECMA_DOT
        elif c == "(" and pattern.startswith("(?<", i) and pattern[i + 3] not in "=!":
            raise Unrepresentable(f"pattern {pattern}: a named group")
        elif c == "(" and pattern.startswith("(?<", i) and dialect == "rust":
            raise Unrepresentable(f"pattern {pattern}: a lookbehind")
        out.append(c)
        i += 1
    return "".join(out)
