"""The native accelerator (``native/``, PyO3) against the pure Python validators.

``run.sh`` runs the suite with ``CTXGEN_NATIVE=0`` (the accelerator is installed but switched
off: the pure Python validators are the reference; tests marked ``native`` are deselected),
then the vectors and this file with it on. With it on,
every vector instance gets the same violations (pointer, keyword and message) from both (also
with many more members, which the accelerator looks up by hash instead of by comparison), and
values that are not plain JSON (a tuple, an integer beyond 64 bits, a float that is not
finite, a subclass, a deep nesting) are left to the pure Python validators.
"""

from __future__ import annotations

import os
import warnings
from collections import OrderedDict
from typing import Any

import pytest

import context_protocols as pkg
from conftest import VECTORS, load_json
from context_protocols import _runtime as rt

NATIVE_ON = os.environ.get("CTXGEN_NATIVE", "") != "0"


def _violations(validate: Any, data: Any, native: bool) -> list[pkg.Violation]:
    saved = rt._native
    if not native:
        rt._native = None
    try:
        out: list[pkg.Violation] = validate(data)
        return out
    finally:
        rt._native = saved


def _is_valid(type_name: str, data: Any, native: bool) -> bool:
    is_valid = getattr(
        pkg, pkg.TYPES[type_name][0].__name__.replace("validate_", "is_valid_")
    )
    saved = rt._native
    if not native:
        rt._native = None
    try:
        return bool(is_valid(data))
    finally:
        rt._native = saved


def test_the_switch_decides() -> None:
    """``CTXGEN_NATIVE=0`` switches the accelerator off; otherwise run.sh installed it."""
    assert rt.ACCELERATED is NATIVE_ON


def _vector_cases() -> list[tuple[str, str, Any]]:
    out = []
    for path in sorted(VECTORS.glob("*/*.json")):
        if path.parent.name == "helpers":
            continue
        doc = load_json(path)
        type_name = pkg.SCHEMAS[f"{doc['schema']}#{doc['pointer']}"]
        for case in doc["cases"]:
            out.append((type_name, case["description"], case["instance"]))
    return out


@pytest.mark.native
def test_every_vector_gets_the_same_violations() -> None:
    cases = _vector_cases()
    assert len(cases) > 700
    same_order = 0
    for type_name, description, instance in cases:
        validate = pkg.TYPES[type_name][0]
        native = _violations(validate, instance, True)
        reference = _violations(validate, instance, False)
        assert sorted(native) == sorted(reference), f"{type_name}: {description}"
        same_order += native == reference
        assert _is_valid(type_name, instance, True) is (native == []), description
        assert _is_valid(type_name, instance, False) is (reference == []), description
    # Where a schema applies several subschemas to one value the two may list them in
    # another order (11 of 812 cases when this was written); the multiset is always equal.
    assert same_order >= len(cases) * 0.95


def _widened(value: Any) -> Any:
    """``value`` with twelve more members in every object (and its required members looked
    up among twenty or more), nested lists and objects included."""
    if isinstance(value, dict):
        out = {k: _widened(v) for k, v in value.items()}
        out.update({f"extra-{i}-\u00e9": i for i in range(12)})
        return out
    if isinstance(value, list):
        return [_widened(v) for v in value]
    return value


@pytest.mark.native
def test_objects_with_many_members_get_the_same_violations() -> None:
    widened = 0
    for type_name, description, instance in _vector_cases():
        if not isinstance(instance, dict):
            continue
        data = _widened(instance)
        validate = pkg.TYPES[type_name][0]
        native = _violations(validate, data, True)
        assert sorted(native) == sorted(_violations(validate, data, False)), description
        assert _is_valid(type_name, data, True) is (native == []), description
        widened += 1
    assert widened > 500


class _Str(str):
    pass


ODD_VALUES: list[Any] = [
    OrderedDict(chapter_structure=[]),
    _Str("x"),
    {_Str("chapter_structure"): []},
    {"a": [_Str("x")]},
    ("a", "b"),
    2**70,
    -(2**70),
    float("nan"),
    float("inf"),
    "\ud800",
    {"chapter_structure": ("x",)},
    True,
    1.0,
    [[[[[]]]]],
]


@pytest.mark.native
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_values_that_are_not_plain_json_get_the_reference_verdict(value: Any) -> None:
    for validate, _ in pkg.TYPES.values():
        native = _violations(validate, value, True)
        reference = _violations(validate, value, False)
        assert sorted(native) == sorted(reference)
    for type_name in pkg.TYPES:
        assert _is_valid(type_name, value, True) is _is_valid(type_name, value, False)


@pytest.mark.native
def test_deep_nesting_is_left_to_python() -> None:
    deep: Any = "x"
    for _ in range(2000):
        deep = [deep]
    for validate, _ in pkg.TYPES.values():
        assert sorted(_violations(validate, deep, True)) == sorted(
            _violations(validate, deep, False)
        )


@pytest.mark.native
def test_an_accelerator_of_other_schemas_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rt, "_NATIVE_FINGERPRINT", "0" * 16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rt._load_native() is None
    assert any("built from other schemas" in str(w.message) for w in caught)
