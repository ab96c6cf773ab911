"""Python modules (issue 13.3): Annotated[..., Field(...)] keeps description and limits; LangChain
and openai-agents tool objects in TOOLS are accepted (duck-typed); Sphinx and NumPy docstrings."""

from __future__ import annotations

import textwrap

import pytest

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.python_loader import parse_docstring


def module(write, name: str, text: str) -> str:
    return str(write(name, textwrap.dedent(text)))


def test_annotated_field_keeps_its_description_and_limits(write):
    path = module(
        write,
        "annotated.py",
        '''
        from typing import Annotated

        from pydantic import Field

        from toolsearch_cli import tool


        @tool
        def set_volume(
            level: Annotated[float, Field(ge=0, le=100, description="Volume in percent.")],
            room: Annotated[str, "The room, as the house names it."] = "living",
            step: Annotated[int, Field(gt=0)] = 5,
        ) -> str:
            """Set the speaker volume.

            Args:
                step: How much to change at a time.
            """
            return "ok"
        ''',
    )
    props = load_catalog(path).get("set_volume").parameters["properties"]
    assert props["level"] == {"type": "number", "minimum": 0, "maximum": 100, "description": "Volume in percent."}
    assert props["room"]["description"] == "The room, as the house names it."
    assert props["step"] == {
        "type": "integer",
        "exclusiveMinimum": 0,
        "default": 5,
        "description": "How much to change at a time.",
    }


def test_sphinx_and_numpy_docstrings_are_parsed_like_google_ones():
    sphinx = """Book a table at a restaurant.

    Checks availability first.

    :param restaurant: The restaurant's id,
        as the search returned it.
    :param int people: How many guests.
    :type people: int
    :returns: the booking reference.
    :raises ValueError: when full.
    """
    assert parse_docstring(sphinx) == (
        "Book a table at a restaurant. Checks availability first.",
        {"restaurant": "The restaurant's id, as the search returned it.", "people": "How many guests."},
    )
    numpy = """Book a table at a restaurant.

    Parameters
    ----------
    restaurant : str
        The restaurant's id,
        as the search returned it.
    people, children : int, optional
        How many guests.

    Returns
    -------
    str
        The booking reference.
    """
    assert parse_docstring(numpy) == (
        "Book a table at a restaurant.",
        {
            "restaurant": "The restaurant's id, as the search returned it.",
            "people": "How many guests.",
            "children": "How many guests.",
        },
    )
    google = "Book a table.\n\nArgs:\n    people: How many guests.\n"
    assert parse_docstring(google) == ("Book a table.", {"people": "How many guests."})


DUCKS = """
from pydantic import BaseModel, Field


class WeatherArgs(BaseModel):
    city: str = Field(description="City name.")
    days: int = Field(3, ge=1, le=7, description="Days ahead.")


class StructuredTool:  # what LangChain's StructuredTool offers, without LangChain
    name = "get_weather"
    description = "Get the weather forecast for a city."
    args_schema = WeatherArgs

    def invoke(self, arguments):
        return f"sunny in {arguments['city']}"


class FunctionTool:  # what openai-agents' FunctionTool offers, without the SDK
    name = "send_email"
    description = "Send an email."
    params_json_schema = {
        "type": "object",
        "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
        "required": ["to", "body"],
        "additionalProperties": False,
    }
    strict_json_schema = True

    async def on_invoke_tool(self, ctx, arguments):
        return "sent"


TOOLS = [StructuredTool(), FunctionTool()]
"""


def test_duck_typed_framework_tools_are_accepted(write):
    catalog = load_catalog(module(write, "ducks.py", DUCKS))
    weather, email = catalog.get("get_weather"), catalog.get("send_email")
    assert weather.description == "Get the weather forecast for a city."
    assert weather.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "days": {"type": "integer", "default": 3, "minimum": 1, "maximum": 7, "description": "Days ahead."},
        },
        "required": ["city"],
    }
    assert weather.function(city="Oslo") == "sunny in Oslo"
    assert email.parameters["required"] == ["to", "body"] and email.metadata == {"openai": {"strict": True}}
    assert email.function is None


def test_a_framework_tool_with_a_broken_schema_is_one_error(write):
    text = DUCKS.replace('"to": {"type": "string"}', '"to": {"type": 7}')
    with pytest.raises(Exception) as err:
        load_catalog(module(write, "broken_ducks.py", text))
    assert "send_email" in str(err.value) and "unknown JSON Schema type 7" in str(err.value)


def test_real_langchain_structured_tools(write):
    pytest.importorskip("langchain_core", reason="langchain-core is not installed")
    path = module(
        write,
        "lc_tools.py",
        '''
        from typing import Annotated

        from langchain_core.tools import StructuredTool, tool


        @tool
        def get_weather(city: str, days: int = 3) -> str:
            """Get the weather forecast for a city.

            Args:
                city: City name.
                days: How many days ahead.
            """
            return f"sunny in {city} for {days} days"


        def convert(amount: float, currency: Annotated[str, "ISO 4217 code"]) -> str:
            """Convert an amount of euros to another currency."""
            return f"{amount} {currency}"


        TOOLS = [get_weather, StructuredTool.from_function(convert)]
        ''',
    )
    catalog = load_catalog(path)
    weather = catalog.get("get_weather")
    assert weather.description.startswith("Get the weather forecast for a city.")
    assert set(weather.parameters["properties"]) == {"city", "days"} and weather.parameters["required"] == ["city"]
    assert weather.parameters["properties"]["days"]["default"] == 3
    assert weather.function(city="Oslo", days=2) == "sunny in Oslo for 2 days"
    assert weather.source is not None and weather.source.file.endswith("lc_tools.py") and weather.source.line
    convert = catalog.get("convert")
    assert convert.parameters["properties"]["amount"]["type"] == "number"
    assert convert.function(amount=3, currency="NOK") == "3.0 NOK"


def test_real_openai_agents_function_tools(write):
    pytest.importorskip("agents", reason="openai-agents is not installed")
    path = module(
        write,
        "agent_tools.py",
        '''
        from agents import function_tool


        @function_tool
        def lookup_order(order_id: str, include_items: bool = False) -> str:
            """Look up an order by its id.

            Args:
                order_id: The order number, e.g. A-1001.
                include_items: Whether to list the items too.
            """
            return "shipped"


        TOOLS = [lookup_order]
        ''',
    )
    tool = load_catalog(path).get("lookup_order")
    assert tool.description == "Look up an order by its id."
    props = tool.parameters["properties"]
    assert (
        props["order_id"]["description"] == "The order number, e.g. A-1001." and props["order_id"]["type"] == "string"
    )
    assert tool.parameters["additionalProperties"] is False and tool.metadata == {"openai": {"strict": True}}
