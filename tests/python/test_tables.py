"""The tagged variants ctxgen builds from an ``if``/``then`` table (fixture ``tables``).

``Payment`` is a union tagged by ``method`` whose ``card`` variant is itself a union tagged by
``network``; parsing picks the variant model, dumping gives the instance back, and every
verdict agrees with python-jsonschema. ``Contact``'s table only adds constraints: it stays one
model.
"""

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from pydantic import BaseModel

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "python"
    / "tables"
    / "tables.json"
)

pkg: Any = importlib.import_module("fixture_tables")

VISA: dict[str, Any] = {
    "method": "card",
    "network": "visa",
    "details": {"last4": "1234"},
    "amount": 5,
}
AMEX: dict[str, Any] = {
    "method": "card",
    "network": "amex",
    "details": {"cid": "0042"},
    "amount": 7.5,
}
CASH: dict[str, Any] = {"method": "cash", "network": None, "details": {}, "amount": 1}
BANK: dict[str, Any] = {
    "method": "bank transfer",
    "network": None,
    "details": {},
    "amount": 0,
}


def _oracle(pointer: str) -> Draft202012Validator:
    schema = json.loads(FIXTURE.read_text())
    return Draft202012Validator(
        {**schema, "$ref": f"#{pointer}"}, format_checker=FormatChecker()
    )


@pytest.mark.parametrize(
    ("data", "variant"),
    [
        (VISA, "PaymentCardVisa"),
        (AMEX, "PaymentCardAmex"),
        (CASH, "PaymentCash"),
        (BANK, "PaymentBankTransfer"),
    ],
)
def test_valid_payment_parses_to_its_variant(
    data: dict[str, Any], variant: str
) -> None:
    value = pkg.parse_payment(data)
    assert type(value).__name__ == variant
    assert isinstance(value, BaseModel)
    assert value.model_dump(by_alias=True, mode="json") == data
    assert pkg.validate_payment(data) == []
    assert _oracle("/$defs/Payment").is_valid(data)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # A Visa card with Amex details.
        (
            {**VISA, "details": {"cid": "0042"}},
            [("/details", "additionalProperties"), ("/details", "required")],
        ),
        # A card needs a network from the enum.
        ({**VISA, "network": "diners"}, [("/network", "enum")]),
        ({**VISA, "network": None}, [("/network", "enum")]),
        # Cash has no network.
        ({**CASH, "network": "visa"}, [("/network", "const")]),
        (
            {**CASH, "details": {"last4": "1234"}},
            [("/details", "additionalProperties")],
        ),
        ({**VISA, "method": "cheque"}, [("/method", "enum")]),
        ({**VISA, "amount": -1}, [("/amount", "minimum")]),
    ],
)
def test_invalid_payment_is_rejected_with_pointer_and_keyword(
    data: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    got = sorted((v.pointer, v.keyword) for v in pkg.validate_payment(data))
    assert got == sorted(expected)
    assert not _oracle("/$defs/Payment").is_valid(data)
    with pytest.raises(pkg.ValidationError):
        pkg.parse_payment(data)


def test_variant_validators_fix_their_tags() -> None:
    assert pkg.validate_payment_card_visa(VISA) == []
    assert [(v.pointer, v.keyword) for v in pkg.validate_payment_card_visa(AMEX)] == [
        ("/network", "const")
    ]
    assert pkg.validate_payment_card(AMEX) == []
    assert [(v.pointer, v.keyword) for v in pkg.validate_payment_card(CASH)] == [
        ("/method", "const")
    ]


def test_constraint_only_table_stays_one_model() -> None:
    assert issubclass(pkg.Contact, BaseModel)
    assert pkg.validate_contact({"kind": "email", "value": "a@example.com"}) == []
    assert [
        (v.pointer, v.keyword)
        for v in pkg.validate_contact({"kind": "phone", "value": "x"})
    ] == [("/value", "pattern")]
