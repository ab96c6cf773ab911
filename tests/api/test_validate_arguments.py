"""``validate_arguments`` is a full JSON Schema validation (``jsonschema``), one message per problem
with its path; ``ToolSearch.handle`` never raises on what the model sent."""

from __future__ import annotations

import json
import types

import pytest

from toolsearch_cli import Tool, ToolArgumentsError, ToolSearch, load_catalog, validate_arguments
from toolsearch_cli.model import Catalog

from ..conftest import ROOT

SHIPMENT = Tool(
    name="createShipment",
    description="Create a shipment.",
    parameters={
        "type": "object",
        "properties": {
            "amount": {"type": "number", "minimum": 0.01},
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "required": ["zip"],
                "additionalProperties": False,
            },
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 1},
        },
        "required": ["amount"],
        "additionalProperties": False,
        "$defs": {"item": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}},
    },
)


def problems_of(tool, arguments):
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments(tool, arguments)
    assert info.value.tool == tool.name and info.value.field == "arguments"
    assert info.value.problem == "; ".join(info.value.problems)
    return info.value.problems


def test_a_valid_call_passes_whole():
    value = {"amount": 3.5, "address": {"zip": "75001"}, "items": [{"sku": "a"}]}
    assert validate_arguments(SHIPMENT, value) == value
    assert validate_arguments(SHIPMENT, json.dumps(value)) == value


def test_the_demo_refund_below_its_minimum_is_refused():
    refund = load_catalog([str(ROOT / "catalogs" / "demo")]).get("refundPayment")
    assert problems_of(refund, {"paymentId": "pi_1", "amount": -5}) == [
        "argument 'amount': -5 is less than the minimum of 0.01"
    ]
    # the YAML schema does not close the object: an unknown key is JSON Schema-valid there
    assert validate_arguments(refund, {"paymentId": "pi_1", "note": "x"}) == {"paymentId": "pi_1", "note": "x"}


def test_every_problem_is_reported_once_with_its_path():
    problems = problems_of(
        SHIPMENT,
        {"amount": -5, "address": {"zip": 75001, "floor": 2}, "items": [{"sku": "a"}, {}], "gift": True},
    )
    assert problems == [
        "unknown argument 'gift'",
        "unknown argument 'floor' in 'address'",
        "argument 'address.zip' must be string, not integer",
        "argument 'amount': -5 is less than the minimum of 0.01",
        "missing required argument 'sku' in 'items[1]'",
    ]


@pytest.mark.parametrize(
    "arguments, problem",
    [
        ("{}", "missing required argument 'amount'"),
        ('{"amount": "5"}', "argument 'amount' must be number, not string"),
        ('{"amount": 1, "address": {"zip": "1"}}', "argument 'address.zip': '1' does not match '^[0-9]{5}$'"),
        ('{"amount": 1, "items": []}', "argument 'items': [] should be non-empty"),
        ("[1]", "arguments must be a JSON object, not array"),
        ("7", "arguments must be a JSON object, not integer"),
        ('{"amount": ', "arguments are not valid JSON"),
    ],
)
def test_one_problem_each(arguments, problem):
    assert problems_of(SHIPMENT, arguments) == [problem] or problem in problems_of(SHIPMENT, arguments)[0]


def test_a_schema_jsonschema_cannot_use_still_gets_the_lenient_check():
    odd = Tool(
        name="odd",
        parameters={
            "type": "object",
            "properties": {"n": {"type": "integer"}, "x": {"type": "strange-type"}},
            "required": ["n"],
        },
    )
    assert problems_of(odd, {"n": "1", "x": 2}) == ["argument 'n' must be integer, not string"]
    remote = Tool(name="remote", parameters={"type": "object", "properties": {"a": {"$ref": "https://x.invalid/s"}}})
    assert validate_arguments(remote, {"a": 1}) == {"a": 1}  # never fetched: a reference outside accepts anything


def test_many_problems_are_capped():
    wide = Tool(
        name="wide",
        parameters={"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}},
    )
    problems = problems_of(wide, {f"k{i}": "x" for i in range(30)})
    assert len(problems) == 11 and problems[-1] == "and 20 more problems"


@pytest.fixture(scope="module")
def ts():
    return ToolSearch(Catalog(tools=[SHIPMENT], resident=["createShipment"]))


def _nested(depth):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE = [
    [1, 2],
    5,
    3.5,
    True,
    "not json",
    '{"amount": ',
    "[]",
    "null",
    b"\xff\xfe",
    object(),
    types.MappingProxyType({"amount": 1}),
    {"amount": float("nan")},
    {"amount": _nested(5_000)},
    "[" * 100_000,
]


@pytest.mark.parametrize("arguments", HOSTILE, ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("name", ["createShipment", "toolSearch"])
def test_handle_never_raises_on_what_the_model_sent(ts, name, arguments):
    request = ts.request([{"role": "user", "content": "ship it"}])
    handled = ts.handle(name, arguments, request)
    if handled.ok:
        assert handled.content is None or name == "toolSearch"
    else:
        assert handled.error in ("malformed-arguments", "search-failed")
        assert "error" in json.loads(handled.content)


def test_a_mapping_that_is_not_a_dict_is_read_as_one(ts):
    handled = ts.handle("createShipment", types.MappingProxyType({"amount": 1}), ts.request([]))
    assert handled.ok and handled.arguments == {"amount": 1}
