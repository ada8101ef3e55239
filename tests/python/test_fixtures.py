"""The packages generated from the feature fixtures (tests/fixtures/python/<feature>/).

``run.sh`` generates each fixture as the package ``fixture_<feature>``. For every case the
test checks the exact (pointer, keyword) pairs, that the independent ``jsonschema``
library agrees on the verdict (where the keyword is standard), and that valid instances
parse into the typed models and round-trip.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError
from referencing import Registry, Resource

from conftest import ROOT, load_json

FIXTURES = ROOT / "tests" / "fixtures" / "python"

Pairs = list[tuple[str, str]]
# (feature, schema file, pointer, type name, instance, expected pairs)
CASES: list[tuple[str, str, str, str, Any, Pairs]] = [
    ("objects", "objects.json", "", "Order", {"orderId": "a", "price": 1}, []),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {
            "orderId": "a",
            "price": 2.5,
            "note": None,
            "address": {"street": "s"},
            "counts": {"a": 1, "b": 2.0},
            "anything": [1, {"x": None}],
        },
        [],
    ),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {"price": "1"},
        [("", "required"), ("/price", "type")],
    ),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {"orderId": "a", "price": True},
        [("/price", "type")],
    ),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {"orderId": "a", "price": 1, "quantity": "1"},
        [("/quantity", "type")],
    ),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {"orderId": "a", "price": 1, "address": {"street": "s", "x": 1, "y": 2}},
        [("/address", "additionalProperties")],
    ),
    (
        "objects",
        "objects.json",
        "",
        "Order",
        {"orderId": "a", "price": 1, "counts": {"a": 1.5}},
        [("/counts/a", "type")],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": 'it\'s "quoted"', "level": True},
        [],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": "red", "level": 1.0, "fixed": "fixed"},
        [],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": "red", "level": 2.5},
        [("/level", "enum")],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": "red", "level": 1, "shade": "mid"},
        [("/shade", "enum")],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": "red", "fixed": "x"},
        [("/fixed", "const")],
    ),
    (
        "enums",
        "enums.json",
        "/$defs/Paint",
        "Paint",
        {"color": 1},
        [("/color", "enum"), ("/color", "type")],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {
            "shapes": [{"kind": "circle", "radius": 1}, {"kind": "square", "side": 2}],
            "label": 1.0,
            "maybe": None,
        },
        [],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [{"kind": "tri"}]},
        [("/shapes/0", "oneOf")],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "label": 1.5},
        [("/label", "anyOf")],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "maybe": {"kind": "square"}},
        [("/maybe", "anyOf")],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "knob": True, "sizes": [1, 2]},
        [],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "knob": "low", "sizes": 2.5},
        [],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "knob": 1.5, "sizes": [1, "x"]},
        [("/knob", "type"), ("/sizes/1", "type")],
    ),
    (
        "unions",
        "unions.json",
        "/$defs/Drawing",
        "Drawing",
        {"shapes": [], "knob": [], "sizes": -1},
        [("/knob", "type"), ("/sizes", "minimum")],
    ),
    (
        "recursion",
        "recursion.json",
        "/$defs/Tree",
        "Tree",
        {
            "value": "a",
            "children": [{"value": "b", "children": [{"value": "c"}]}],
            "parent": {"value": "p"},
        },
        [],
    ),
    (
        "recursion",
        "recursion.json",
        "/$defs/Tree",
        "Tree",
        {"value": "a", "children": [{"value": "b", "children": [{}]}]},
        [("/children/0/children/0", "required")],
    ),
    (
        "recursion",
        "recursion.json",
        "/$defs/Sum",
        "Sum",
        {"terms": [1, {"terms": [2, 3.5]}]},
        [],
    ),
    (
        "recursion",
        "recursion.json",
        "/$defs/Sum",
        "Sum",
        {"terms": [{"terms": ["x"]}]},
        [("/terms/0", "anyOf")],
    ),
    (
        "refs",
        "invoice.json",
        "",
        "Invoice",
        {"id": "ab-1", "total": {"amount": 1, "currency": "EUR"}},
        [],
    ),
    (
        "refs",
        "invoice.json",
        "",
        "Invoice",
        {"id": "AB-1", "total": {"amount": 1, "currency": "EUR"}},
        [("/id", "pattern")],
    ),
    (
        "refs",
        "invoice.json",
        "",
        "Invoice",
        {"id": "ab-1\n", "total": {"amount": 1, "currency": "EUR"}},
        [("/id", "pattern")],
    ),
    (
        "refs",
        "invoice.json",
        "",
        "Invoice",
        {"id": "ab-1", "total": {"amount": 1, "currency": "EU"}, "lines": []},
        [("/lines", "minItems"), ("/total/currency", "minLength")],
    ),
    (
        "names",
        "names.json",
        "/$defs/class",
        "Class",
        {
            "class": "c",
            "from": "f",
            "Name": "N",
            "name": "n",
            "2fa": True,
            "a/b~c": 1,
            "model_config": "m",
            "register": "r",
            "mro": "o",
        },
        [],
    ),
    (
        "names",
        "names.json",
        "/$defs/class",
        "Class",
        {"class": "c"},
        [("", "required")],
    ),
    (
        "names",
        "names.json",
        "/$defs/class",
        "Class",
        {"class": "c", "a/b~c": "x"},
        [("/a~1b~0c", "type")],
    ),
    ("names", "names.json", "/$defs/list", "List", [{"x": 1}, {"x": 2.0}], []),
    (
        "cycles",
        "cycles.json",
        "/$defs/Color",
        "Color",
        {"a": "red", "b": {"c": "blue"}},
        [],
    ),
    ("cycles", "cycles.json", "/$defs/Color", "Color", {"a": 1}, [("", "anyOf")]),
    ("cycles", "cycles.json", "/$defs/Command", "Command", ["a", ["b", []]], []),
    (
        "cycles",
        "cycles.json",
        "/$defs/Command",
        "Command",
        ["a", [1]],
        [("", "anyOf")],
    ),
    (
        "cycles",
        "cycles.json",
        "/$defs/Schema",
        "Schema",
        {"name": "r", "fields": ["int", [{"name": "s"}, "x"]]},
        [],
    ),
    ("cycles", "cycles.json", "/$defs/Schema", "Schema", [], [("", "anyOf")]),
    (
        "cycles",
        "cycles.json",
        "/$defs/Record",
        "RecordType",
        {"name": "r", "fields": [[]]},
        [("/fields/0", "anyOf")],
    ),
    ("variants", "variants.json", "/$defs/Auth", "Auth", {"user": "u"}, []),
    ("variants", "variants.json", "/$defs/Auth", "Auth", {}, [("", "oneOf")]),
    ("variants", "variants.json", "/$defs/Agent", "Agent", {"user": "u"}, []),
    ("variants", "variants.json", "/$defs/Address", "Address", "10.0.0.1", []),
    ("variants", "variants.json", "/$defs/Address", "Address", 1, [("", "anyOf")]),
    (
        "variants",
        "variants.json",
        "/$defs/Style",
        "Style",
        {"type": "image", "width": 2},
        [],
    ),
    (
        "variants",
        "variants.json",
        "/$defs/Style",
        "Style",
        {"type": "v"},
        [("", "oneOf")],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 5, "half": 10.0, "open": 2, "ratio": 0.5},
        [],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 0, "half": 1},
        [("/rate", "exclusiveMinimum")],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 1, "half": 0},
        [("/half", "minimum")],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 1, "half": 11},
        [("/half", "maximum")],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 1, "half": 1, "open": 0},
        [("/open", "exclusiveMinimum")],
    ),
    (
        "bounds",
        "bounds.json",
        "",
        "Bounds",
        {"rate": 1, "half": 1, "open": 3},
        [("/open", "exclusiveMaximum")],
    ),
    (
        "constants",
        "constants.json",
        "",
        "Constants",
        {"none": [], "empty": {}, "nested": {"a": [], "b": {}}, "codes": 2.5},
        [],
    ),
    (
        "constants",
        "constants.json",
        "",
        "Constants",
        {"none": [1]},
        [("/none", "const")],
    ),
    (
        "constants",
        "constants.json",
        "",
        "Constants",
        {"empty": [0]},
        [("/empty", "enum")],
    ),
    (
        "constants",
        "constants.json",
        "",
        "Constants",
        {"codes": 3},
        [("/codes", "enum")],
    ),
    ("copies", "copies.json", "/$defs/npm", "Npm", {}, [("", "minProperties")]),
    ("copies", "copies.json", "", "Copies", {"npm": {}}, [("/npm", "minProperties")]),
    (
        "copies",
        "copies.json",
        "",
        "Copies",
        {"npm": {"pip": {"name": "p"}}, "tree": {"children": [{"label": "a"}]}},
        [],
    ),
    (
        "layout",
        "layout.json",
        "/$defs/list of at least one item with a long name",
        "ListOfAtLeastOneItemWithALongName",
        [{"id": "a.b" + "c" * 62}],
        [],
    ),
    (
        "layout",
        "layout.json",
        "/$defs/list of at least one item with a long name",
        "ListOfAtLeastOneItemWithALongName",
        [],
        [("", "minItems")],
    ),
    (
        "layout",
        "layout.json",
        "/$defs/three long tagged variants",
        "ThreeLongTaggedVariants",
        {"kind": "second", "size": 1},
        [],
    ),
    (
        "layout",
        "layout.json",
        "/$defs/three long variants",
        "ThreeLongVariants",
        {"p2": "x"},
        [],
    ),
    ("layout", "layout.json", "/$defs/literals", "Literals", "b", []),
    ("layout", "layout.json", "/$defs/literals", "Literals", "c", [("", "anyOf")]),
    ("lint", "lint.json", "/$defs/StringOrFlag", "StringOrFlag", None, []),
    ("lint", "lint.json", "/$defs/StringOrFlag", "StringOrFlag", 1, [("", "type")]),
    ("lint", "lint.json", "/$defs/Scalar", "Scalar", [1], []),
    ("lint", "lint.json", "/$defs/Scalar", "Scalar", {}, [("", "type")]),
    ("lint", "lint.json", "/$defs/Dss200", "Dss200", {"id": 2}, []),
    ("lint", "lint.json", "/$defs/ListOrText", "ListOrText", None, []),
    ("lint", "lint.json", "/$defs/ListOrText", "ListOrText", 1, [("", "anyOf")]),
    ("open", "open.json", "/$defs/Box", "BoxType", {"content": [1]}, []),
    ("lint", "lint.json", "/$defs/Pair", "Pair", ["a", 1], []),
    ("lint", "lint.json", "/$defs/Pair", "Pair", [1], [("/0", "type")]),
    (
        "layout",
        "layout.json",
        "/$defs/fields",
        "Fields",
        {"plain": {"x": 1}, "nested_lists_of_a_long_type": [[{"x": 2}]]},
        [],
    ),
    (
        "layout",
        "layout.json",
        "/$defs/fields",
        "Fields",
        {"plain": {}, "mode": "other"},
        [("/mode", "const")],
    ),
    ("defaults", "defaults.json", "", "Defaults", {"enabled": {"get_input": "x"}}, []),
    (
        "defaults",
        "defaults.json",
        "",
        "Defaults",
        {"external": "false"},
        [("/external", "anyOf")],
    ),
]

# The constraints fixture: one property at a time, (value, expected keywords at /<name>).
CONSTRAINTS: list[tuple[str, Any, list[str]]] = [
    ("short", "ab", []),
    ("short", "a", ["minLength"]),
    ("short", "abcdef", ["maxLength"]),
    ("short", "\U0001f600\U0001f600", []),
    ("code", "123-abc", []),
    ("code", "\u0661\u0662\u0663-abc", ["pattern"]),
    ("code", "123-abc\n", ["pattern"]),
    ("code", "123-\u00e9", ["pattern"]),
    ("loose", "xyz", ["pattern"]),
    ("loose", "a\u00a0", []),
    ("loose", "a\nb", []),
    ("when", "2024-12-31T23:59:60Z", []),
    ("when", "2024-02-30T00:00:00Z", ["format"]),
    ("when", "2024-01-01 00:00:00Z", ["format"]),
    ("day", "2024-02-29", []),
    ("day", "2023-02-29", ["format"]),
    ("clock", "10:00:00+02:00", []),
    ("span", "P1DT2H", []),
    ("span", "P", ["format"]),
    ("mail", "a@b.com", []),
    ("mail", "nope", ["format"]),
    ("host", "example.com", []),
    ("host", "-bad.com", ["format"]),
    ("v4", "256.1.1.1", ["format"]),
    ("v6", "::1", []),
    ("v6", "1::2::3", ["format"]),
    ("link", "https://x.test/a?b#c", []),
    ("link", "no-scheme", ["format"]),
    ("rel", "../a b", ["format"]),
    ("uid", "123e4567-e89b-12d3-a456-426614174000", []),
    ("uid", "123e4567", ["format"]),
    ("ptr", "/a/~1", []),
    ("ptr", "a", ["format"]),
    ("re", "(", ["format"]),
    ("summary", "a b c", []),
    ("summary", "a\u00a0b c d", []),
    ("summary", "a b\tc\nd", ["x-max-words"]),
    ("score", 1, []),
    ("score", 1.5, ["maximum"]),
    ("open", 0, ["exclusiveMinimum"]),
    ("open", 10, ["exclusiveMaximum"]),
    ("step", 0.3, []),
    ("step", 0.35, ["multipleOf"]),
    ("count", 1.0, []),
    ("count", 1.5, ["type"]),
    ("count", True, ["type"]),
    ("list", [1, 1.0], ["uniqueItems"]),
    ("list", [], ["minItems"]),
    ("list", [1, 2, 3, 4], ["maxItems"]),
    ("some", [1], ["contains"]),
    ("some", ["a", "b", "c"], ["maxContains"]),
    ("bag", {}, ["minProperties"]),
    ("bag", {"a": "x", "b": "x", "c": "x", "d": "x", "e": "x"}, ["maxProperties"]),
    ("bag", {"A": "x"}, ["propertyNames"]),
    ("card", {"number": "1"}, ["dependentRequired"]),
    ("card", {"cvc": "1"}, ["required"]),
    ("notNull", None, ["not"]),
    ("fixed", {"a": [1.0, True]}, []),
    ("fixed", {"a": [1, 1]}, ["const"]),
    ("choice", 1.0, []),
    ("choice", True, ["enum"]),
    ("wide", "ab", ["anyOf"]),
    ("wide", [], []),
    ("pick", 5, ["oneOf"]),
    ("pick", 11, []),
    ("pick", -1.5, []),
    ("ext", {"a": "s", "x-n": 1}, []),
    ("ext", {"b": 1}, ["additionalProperties"]),
]


def _package(feature: str) -> Any:
    return importlib.import_module(f"fixture_{feature}")


def _oracle(feature: str, schema: str, pointer: str) -> Draft202012Validator:
    resources = []
    for path in (FIXTURES / feature).glob("*.json"):
        doc = load_json(path)
        resources.append((doc["$id"], Resource.from_contents(doc)))
    registry: Registry[Any] = Registry().with_resources(resources)
    base = load_json(FIXTURES / feature / schema)["$id"]
    return Draft202012Validator({"$ref": f"{base}#{pointer}"}, registry=registry)


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True, mode="json")
    if isinstance(value, list):
        return [_dump(v) for v in value]
    return value


def _check(
    feature: str,
    schema: str,
    pointer: str,
    name: str,
    data: Any,
    expected: Pairs,
    oracle: bool = True,
) -> None:
    pkg = _package(feature)
    validate, parse = pkg.TYPES[name]
    assert sorted((v.pointer, v.keyword) for v in validate(data)) == sorted(expected)
    # python-jsonschema's patterns are Python's (`$` before a final newline, Unicode
    # `\d`), its multipleOf has no tolerance and it does not assert formats: no oracle there.
    ecma = {"format", "pattern", "multipleOf"}
    standard = all(not k.startswith("x-") and k not in ecma for _, k in expected)
    if oracle and standard:
        assert _oracle(feature, schema, pointer).is_valid(data) == (not expected)
    if expected:
        with pytest.raises(pkg.ValidationError):
            parse(data)
        return
    value = parse(data)
    dumped = json.loads(json.dumps(_dump(value)))
    assert validate(dumped) == []
    assert parse(dumped) == value


@pytest.mark.parametrize(
    ("feature", "schema", "pointer", "name", "data", "expected"), CASES
)
def test_fixture(
    feature: str, schema: str, pointer: str, name: str, data: Any, expected: Pairs
) -> None:
    _check(feature, schema, pointer, name, data, expected)


@pytest.mark.parametrize(("prop", "value", "keywords"), CONSTRAINTS)
def test_constraint(prop: str, value: Any, keywords: list[str]) -> None:
    expected = [(f"/{prop}", k) for k in keywords]
    oracle = prop not in {"code", "loose", "step", "summary"}
    _check(
        "constraints",
        "constraints.json",
        "",
        "Everything",
        {prop: value},
        expected,
        oracle,
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"mode": "strict", "limit": 5}, []),
        ({"mode": "strict"}, [("", "required")]),
        ({"mode": "lax", "limit": 101}, [("/limit", "maximum")]),
        ({"limit": 101}, [("/limit", "maximum")]),
        ({"pair": ["a", 1, 2]}, [("/pair/2", "items")]),
        ({"pair": ["a", "b"]}, [("/pair/1", "type")]),
        ({"bag": {"abc": 1}}, [("/bag/abc", "type")]),
        ({"ext": {"x-n": "1"}}, [("/ext/x-n", "type")]),
    ],
)
def test_constraint_objects(data: dict[str, Any], expected: Pairs) -> None:
    _check("constraints", "constraints.json", "", "Everything", data, expected)


def test_models_are_typed() -> None:
    objects = _package("objects")
    order = objects.parse_order({"orderId": "a", "price": 1, "quantity": 2.0})
    assert order.order_id == "a"
    assert order.quantity == 2
    assert isinstance(order.quantity, int)
    assert order.tags == []
    assert order.model_dump(by_alias=True, exclude_unset=True) == {
        "orderId": "a",
        "price": 1.0,
        "quantity": 2,
    }
    unions = _package("unions")
    drawing = unions.parse_drawing(
        {"shapes": [{"kind": "circle", "radius": 1}, {"kind": "square", "side": 2}]}
    )
    assert [type(s).__name__ for s in drawing.shapes] == ["Circle", "Square"]
    # `"type": [..]` is a union of the JSON types: each value keeps its own Python type.
    knobs = [
        unions.parse_drawing({"shapes": [], "knob": k}).knob for k in (True, 3, "x")
    ]
    assert [type(k) for k in knobs] == [bool, int, str]
    sizes = unions.parse_drawing({"shapes": [], "sizes": [1, 2]}).sizes
    assert sizes == [1, 2]
    names = _package("names")
    item = names.parse_class({"class": "c", "a/b~c": 1, "from": "f", "register": "r"})
    assert (item.class_, item.from_, item.a_b_c, item.register_) == ("c", "f", 1, "r")
    assert item.model_dump(by_alias=True, exclude_unset=True) == {
        "class": "c",
        "a/b~c": 1,
        "from": "f",
        "register": "r",
    }
    # A model built in code from models: the validator checks the JSON they serialize to.
    built = objects.Order(
        order_id="b", price=2, address=objects.OrderAddress(street="s")
    )
    assert built.address is not None
    assert built.address.street == "s"
    assert built.model_dump(by_alias=True, exclude_unset=True) == {
        "orderId": "b",
        "price": 2.0,
        "address": {"street": "s"},
    }
    with pytest.raises(PydanticValidationError):
        objects.Order(
            order_id="b", price=2, address=objects.OrderAddress(street="s", zip=5)
        )
    # Validating a model directly runs the same validator and raises the package's error
    # with every violation, as `validate_order` lists them.
    bad = {"orderId": 1, "price": "1"}
    with pytest.raises(objects.ValidationError) as raised:
        objects.Order.model_validate(bad)
    assert raised.value.violations == objects.validate_order(bad)
    assert sorted((v.pointer, v.keyword) for v in raised.value.violations) == [
        ("/orderId", "type"),
        ("/price", "type"),
    ]
    with pytest.raises(objects.ValidationError) as raised:
        objects.Order.model_validate_json(json.dumps(bad))
    assert raised.value.violations == objects.validate_order(bad)
    # Valid data still builds the model; text that is not JSON is pydantic's error.
    assert objects.Order.model_validate({"orderId": "a", "price": 1}).order_id == "a"
    assert objects.Order.model_validate_json('{"orderId": "a", "price": 1}').price == 1
    with pytest.raises(PydanticValidationError):
        objects.Order.model_validate_json("{")


def test_corpus_shapes_are_typed() -> None:
    # Integer bounds: a float that is an integer parses to an int within them.
    bounds = _package("bounds").parse_bounds({"half": 10.0, "rate": 2**62})
    assert (bounds.half, bounds.rate) == (10, 2**62)
    assert isinstance(bounds.half, int)
    # A default that fits the field's type applies; one that does not is dropped.
    defaults = _package("defaults").parse_defaults({})
    assert (defaults.enabled, defaults.external, defaults.timeout) == (
        False,
        None,
        None,
    )
    assert defaults.region == "eu"
    # A union of one model is that model.
    variants = _package("variants")
    assert isinstance(variants.parse_auth({"user": "u"}), variants.Basic)
    assert isinstance(variants.parse_style({"type": "image"}), variants.Image)
    # A recursive alias parses its models at every depth.
    cycles = _package("cycles")
    schema = cycles.parse_schema({"name": "r", "fields": [[{"name": "s"}]]})
    assert isinstance(schema, cycles.RecordType)
    assert schema.fields_ is not None
    inner = schema.fields_[0]
    assert isinstance(inner, list)
    assert isinstance(inner[0], cycles.RecordType)
    # Sub-configurations that copy the configuration are the configuration's class.
    copies = _package("copies")
    assert copies.Npm is copies.Copies
    config = copies.parse_copies({"npm": {"name": "n", "pip": {}}})
    assert config.npm is not None
    assert (config.npm.name, config.enabled) == ("n", True)
    assert copies.Forest is not copies.Tree


def test_deferred_references() -> None:
    # A cycle of 18 classes and 30 nested arrays: pydantic builds the deferred parts on
    # first use; values are the same types, at every depth, and round-trip.
    deferred = _package("deferred")
    source = (Path(deferred.__file__).parent / "deferred.py").read_text()
    assert source.count("_rt.DEFERRED]") >= 3
    ring: dict[str, Any] = {"label": "end"}
    for i in range(40, 0, -1):
        ring = {"label": str(i), "next": ring}
    grid: Any = 7
    for _ in range(30):
        grid = [grid]
    data = {"label": "root", "next": ring, "grid": grid}
    value = deferred.parse_deferred(data)
    node: Any = value
    names = []
    while node is not None:
        names.append(type(node).__name__)
        node = node.next
    assert names[:3] == ["Deferred", "Step1", "Step2"]
    assert names[18:20] == ["Deferred", "Step1"]
    assert len(names) == 42
    cell: Any = value.grid
    for _ in range(30):
        assert isinstance(cell, list)
        cell = cell[0]
    assert cell == 7
    dumped = value.model_dump(by_alias=True, exclude_unset=True, mode="json")
    assert dumped == data
    assert (
        deferred.parse_deferred(json.loads(value.model_dump_json(exclude_unset=True)))
        == value
    )
    # A bad value deep in a deferred part: the package's verdict, from `parse` and from
    # validating the model directly.
    bad = json.loads(json.dumps(data))
    bad["next"]["next"]["next"]["label"] = 3
    with pytest.raises(deferred.ValidationError) as info:
        deferred.parse_deferred(bad)
    assert [(v.pointer, v.keyword) for v in info.value.violations] == [
        ("/next/next/next/label", "type")
    ]
    with pytest.raises(deferred.ValidationError) as info:
        deferred.Deferred.model_validate(bad)
    assert [(v.pointer, v.keyword) for v in info.value.violations] == [
        ("/next/next/next/label", "type")
    ]
