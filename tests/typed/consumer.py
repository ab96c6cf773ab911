"""An app's agent loop written against the README's library API; ``mypy --strict`` must pass on it
(tests/api/test_typed_api.py). Never run: it only has to type-check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolsearch_cli import (
    Catalog,
    EmbedError,
    Handled,
    Request,
    ToolArgumentsError,
    ToolSearch,
    ToolsearchError,
    UsageError,
    load_catalog,
    validate_arguments,
)


def run_tool(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": name, "arguments": arguments})


def loop(messages: list[dict[str, Any]], my_tools: dict[str, Callable[..., str]]) -> list[dict[str, Any]]:
    ts = ToolSearch("catalogs/demo", context={"role": "member"}, policy="cumulative", ranker="default")
    request: Request = ts.request(messages)
    tools: list[dict[str, Any]] = request.tools("openai")
    params: dict[str, Any] = ts.request(messages).params("anthropic")
    system: str = request.system
    names: list[str] = request.names
    assert tools and params and names and isinstance(system, str)
    calls: list[tuple[str, str, str]] = [("c1", "toolSearch", '{"query": "weather"}')]
    for call_id, name, arguments in calls:
        try:
            handled: Handled = ts.handle(name, arguments, request)
        except EmbedError as exc:
            raise SystemExit(str(exc)) from exc
        content = handled.content if handled.content is not None else my_tools[handled.name](**handled.arguments)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        if handled.error is not None:
            print(handled.error, handled.message)
    return messages


def check(catalog: Catalog) -> dict[str, Any] | None:
    tool = catalog.get("getWeather")
    if tool is None:
        return None
    try:
        return validate_arguments(tool, {"city": "Paris"})
    except ToolArgumentsError as exc:
        problems: list[str] = exc.problems
        print(exc.tool, exc.problem, problems)
    except (UsageError, ToolsearchError):
        raise
    return None


agent = ToolSearch(load_catalog(["catalogs/demo"]), mode="agent", api="openai-responses")
print(loop([{"role": "user", "content": "weather in Paris"}], {"getWeather": run_tool}), check(agent.engine.catalog))
